// Builds dist/: the drop-in bundle (ES module + .wasm), the single-file build
// (a classic script with the WASM inlined) and the npm package files.
// Run by `make dist` after `make build`; prints the gzipped sizes.
import { mkdirSync, readFileSync, writeFileSync, copyFileSync, rmSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { transformSync } from 'esbuild';

/** Minified JS (esbuild: whitespace, syntax and local names; exports and public names are kept). */
const minify = (code, format) => transformSync(code, { minify: true, format, target: 'es2020', legalComments: 'inline' }).code;

const root = new URL('..', import.meta.url).pathname;
const dist = `${root}dist`;
const read = (p) => readFileSync(`${root}${p}`, 'utf8');

rmSync(dist, { recursive: true, force: true });
mkdirSync(`${dist}/pkg`, { recursive: true });

// 1. The module build: the same files the app serves, minus the name section.
execFileSync('wasm-bindgen', ['--target', 'web', '--remove-name-section', '--remove-producers-section', '--out-dir', `${dist}/pkg`,
  `${root}target/wasm32-unknown-unknown/release/attention_viz.wasm`], { stdio: 'inherit' });
const wasmOpt = `${root}node_modules/binaryen/bin/wasm-opt`;
if (existsSync(wasmOpt)) {
  // npm's binaryen (not Debian's wasm-opt 108, which breaks the externref table).
  execFileSync(wasmOpt, ['-Oz', '--enable-reference-types', '--enable-bulk-memory', '--enable-nontrapping-float-to-int',
    '--enable-sign-ext', '--enable-mutable-globals', '--enable-multivalue', `${dist}/pkg/attention_viz_bg.wasm`, '-o', `${dist}/pkg/attention_viz_bg.wasm`]);
}
for (const f of ['attention_viz.d.ts', 'attention_viz_bg.wasm.d.ts']) rmSync(`${dist}/pkg/${f}`, { force: true });
writeFileSync(`${dist}/attention-viz.js`, minify(read('www/attention-viz.js'), 'esm'));
writeFileSync(`${dist}/element.js`, minify(read('www/element.js'), 'esm'));
copyFileSync(`${root}www/attention-viz.d.ts`, `${dist}/attention-viz.d.ts`);

// 2. The single-file build: one classic script (works from file:// and in notebook cells), WASM as base64.
/** Turns an ES module's text into an IIFE that returns its exports. */
function asFunction(text, imports = '') {
  const names = [];
  let body = text.replace(/^export (?:async )?(function|class|const|let) (\w+)/gm, (_, kind, name) => { names.push([name, name]); return `${kind} ${name}`; });
  body = body.replace(/^export \{([^}]*)\};?$/gm, (_, list) => {
    for (const item of list.split(',')) {
      const [local, as] = item.trim().split(/\s+as\s+/);
      if (local) names.push([as || local, local]);
    }
    return '';
  });
  body = body.replace(/^import .*$/gm, '').replace(/import\.meta\.url/g, 'document.baseURI');
  return `(() => {\n${imports}${body}\nreturn { ${names.map(([k, v]) => (k === v ? k : `${JSON.stringify(k)}: ${v}`)).join(', ')} };\n})()`;
}
const wasm = readFileSync(`${dist}/pkg/attention_viz_bg.wasm`);
const pkg = asFunction(readFileSync(`${dist}/pkg/attention_viz.js`, 'utf8'));
const element = asFunction(read('www/element.js'));
let api = read('www/attention-viz.js');
const sourceLine = /^const WASM_SOURCE = .*$/m;
if (!sourceLine.test(api)) throw new Error('www/attention-viz.js lost its WASM_SOURCE line');
api = api.replace(sourceLine, `const WASM_SOURCE = Uint8Array.from(atob(${JSON.stringify(wasm.toString('base64'))}), (c) => c.charCodeAt(0));`);
const apiModule = asFunction(api, 'const core = __pkg; const init = __pkg.default; const { defineElement } = __element;\n');
const inline = `/*! attention-viz single-file build: the ES module, the element and the WASM core in one classic script.
 * <script src="attention-viz.inline.js"></script> defines <attention-viz> and window.AttentionViz. */
(() => {
const __pkg = ${pkg};
const __element = ${element};
const api = ${apiModule};
window.AttentionViz = api;
})();
`;
writeFileSync(`${dist}/attention-viz.inline.js`, minify(inline, 'iife'));
writeFileSync(`${dist}/pkg/attention_viz.js`, minify(readFileSync(`${dist}/pkg/attention_viz.js`, 'utf8'), 'esm'));

// 3. npm package files.
const version = /^version = "([^"]+)"/m.exec(read('Cargo.toml'))[1];
writeFileSync(`${dist}/package.json`, `${JSON.stringify({
  name: 'attention-viz', version, description: 'Interactive attention-mechanism heatmaps: edit the numbers, watch every stage recompute (Rust/WebAssembly).',
  license: 'MIT', type: 'module', main: './attention-viz.js', module: './attention-viz.js', types: './attention-viz.d.ts',
  exports: {
    '.': { types: './attention-viz.d.ts', default: './attention-viz.js' },
    './inline': { types: './attention-viz.d.ts', default: './attention-viz.inline.js' },
    './pkg/attention_viz_bg.wasm': './pkg/attention_viz_bg.wasm',
  },
  files: ['attention-viz.js', 'element.js', 'attention-viz.inline.js', 'attention-viz.d.ts', 'pkg/', 'README.md'],
  sideEffects: true, keywords: ['attention', 'transformer', 'heatmap', 'webassembly', 'visualization', 'custom-element'],
}, null, 2)}\n`);
writeFileSync(`${dist}/README.md`, `# attention-viz ${version}

Live, editable attention heatmaps for tutorial pages. Copy this folder next to your page, then:

\`\`\`html
<script type="module" src="attention-viz/attention-viz.js"></script>
<attention-viz preset="seed-003"></attention-viz>
\`\`\`

Hosts that cannot serve \`.wasm\` files (or a notebook cell): use the single file instead —
\`<script src="attention-viz/attention-viz.inline.js"></script>\`.
Every attribute, property, event and method: see embed.html in the project repository.
`);

const gz = (p) => gzipSync(readFileSync(`${dist}/${p}`), { level: 9 }).length;
const parts = ['attention-viz.js', 'element.js', 'pkg/attention_viz.js', 'pkg/attention_viz_bg.wasm'];
const total = parts.reduce((s, p) => s + gz(p), 0);
for (const p of [...parts, 'attention-viz.inline.js']) console.log(`${p.padEnd(28)} ${(gz(p) / 1024).toFixed(1).padStart(7)} KiB gzipped`);
console.log(`${'module bundle (JS + WASM)'.padEnd(28)} ${(total / 1024).toFixed(1).padStart(7)} KiB gzipped (target ≤ 150 KB)`);
writeFileSync(`${dist}/sizes.json`, JSON.stringify({ gzip_bytes: Object.fromEntries(parts.map((p) => [p, gz(p)])), module_total_gzip_bytes: total, inline_gzip_bytes: gz('attention-viz.inline.js') }, null, 1));
