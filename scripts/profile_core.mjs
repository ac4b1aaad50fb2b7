// Runs examples/profile_core.rs compiled to WASM (simd128) under Node's V8: the core's
// full recompute piece by piece, as the browser runs it (same engine, same kernels).
//   node scripts/profile_core.mjs            (builds the example first)
//   node scripts/profile_core.mjs a.wasm     (runs a build kept aside, e.g. to compare before/after)
import { execFileSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let path = process.argv[2];
if (!path) {
  execFileSync('cargo', ['build', '--release', '--example', 'profile_core', '--target', 'wasm32-unknown-unknown'],
    { cwd: root, stdio: 'inherit' });
  path = join(root, 'target/wasm32-unknown-unknown/release/examples/profile_core.wasm');
}
const bytes = readFileSync(path);
// Optimised code from the start (TurboFan), as the browser bench measures after its warm-up:
// otherwise the functions called a few times are timed in V8's baseline compiler (Liftoff).
setFlagsFromString('--no-liftoff');
let memory;
const module = await WebAssembly.compile(bytes);
// The crate's wasm-bindgen imports survive in the example but are never called: stubs.
const imports = {
  env: {
    // This process's CPU time, not the wall clock: on a shared machine waiting for a core is not the core's time
    // (PROFILE_WALL=1 for wall-clock times).
    now: process.env.PROFILE_WALL ? () => performance.now() : () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; },
    print: (ptr, len) => console.log(new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len))),
  },
};
for (const { module: m, name } of WebAssembly.Module.imports(module)) {
  if (m !== 'env') (imports[m] ??= {})[name] = () => { throw new Error(`${m}.${name} called`); };
}
const instance = await WebAssembly.instantiate(module, imports);
memory = instance.exports.memory;
const main = instance.exports.main ?? instance.exports.__main_void;
main(0, 0);
