// The published types against the built package: this folder is copied to a temporary directory whose
// node_modules/attention-viz is a link to dist/ (so the package's exports map and its "types" conditions are what
// resolve), then tsc (strict, no emit) must accept usage.ts, under bundler and node16 resolution, and must reject
// fail/inline-named-import.ts (`import { ready } from 'attention-viz/inline'`: the single-file build exports nothing).
// Needs `make dist` first; run by `make test-types` (part of `make test`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

let dir;
before(() => {
  assert.ok(existsSync(join(DIST, 'package.json')), 'dist/ is missing: run `make dist` first');
  assert.ok(existsSync(TSC), 'typescript is missing: npm ci');
  dir = mkdtempSync(join(tmpdir(), 'attention-viz-types-'));
  cpSync(fileURLToPath(new URL('.', import.meta.url)), dir, { recursive: true, filter: (src) => !src.endsWith('.test.mjs') });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(DIST, join(dir, 'node_modules/attention-viz'), 'dir');
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

/** Runs tsc on one of the tsconfigs; its exit status and output (paths relative to the temporary folder). */
function tsc(project) {
  const r = spawnSync(process.execPath, [TSC, '-p', project, '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

for (const project of ['tsconfig.json', 'tsconfig.node16.json']) {
  test(`tsc -p ${project}: the typed usage of dist/ (module, element, window.AttentionViz) type-checks`, () => {
    const r = tsc(project);
    assert.equal(r.status, 0, `tsc rejected usage.ts:\n${r.out}`);
  });
}

test("tsc rejects `import { ready } from 'attention-viz/inline'` (a classic script, no exports)", () => {
  const r = tsc('tsconfig.fail.json');
  assert.notEqual(r.status, 0, 'tsc accepted a named import from the single-file build');
  // The right error: the module resolved to attention-viz.inline.d.ts and has no export `ready`
  // (not, say, "cannot find module", which would pass this test for the wrong reason).
  assert.match(r.out, /fail\/inline-named-import\.ts\(3,\d+\): error TS2305: Module '"attention-viz\/inline"' has no exported member 'ready'/, r.out);
  assert.equal(r.out.split('\n').filter((l) => l.includes('error TS')).length, 1, `one error only:\n${r.out}`);
});
