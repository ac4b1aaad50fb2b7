// `make test`: builds, then runs every suite even when an earlier one failed, and ends with a summary —
// per suite its counts, wall time and result — exiting 1 if any suite (or the build) failed.
//   node scripts/test.mjs                  every suite
//   node scripts/test.mjs e2e python       only these (the build still runs first when a suite needs it)
// Each suite is its own Makefile target (test-native, test-wasm, test-types, test-e2e, python-tests), so running one
// alone is unchanged; the counts are read from its output. The cargo-only suites (native, wasm) run beside the build,
// then the short ones that test it (types, python) beside the browser tests, each one's output printed whole as it
// ends; the build and the browser tests stream through as they run.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// node --test writes TAP when its output is not a terminal (here a pipe); the spec reporter reads as it does in a terminal.
const SPEC = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --test-reporter=spec`.trim() };

/** Each suite: the make target, whether it needs the build (www/pkg/, dist/, the wheel), and how to read its counts. */
const SUITES = [
  { name: 'native', target: 'test-native', build: false, counts: cargoCounts, what: 'cargo test (+ the induction retraining)' },
  { name: 'wasm', target: 'test-wasm', build: false, counts: cargoCounts, what: 'tests/web.rs in headless Chromium' },
  { name: 'types', target: 'test-types', build: true, counts: nodeCounts, what: 'tsc on a typed use of dist/', env: SPEC },
  { name: 'e2e', target: 'test-e2e', build: true, counts: nodeCounts, what: 'tests/e2e/ in headless Chromium', env: SPEC },
  { name: 'python', target: 'python-tests', build: true, counts: pytestCounts, what: 'tests/python/ against the wheel' },
];

/** `test result: ok. 12 passed; 0 failed; 3 ignored; …` once per test binary (native and wasm-bindgen-test alike). */
function cargoCounts(out) {
  const c = { pass: 0, fail: 0, skip: 0, seen: false };
  for (const m of out.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/g)) {
    c.pass += +m[1]; c.fail += +m[2]; c.skip += +m[3]; c.seen = true;
  }
  return c;
}

/** node --test's closing lines: `# pass 12` (TAP) or `ℹ pass 12` (spec); todo and skipped count as skipped. */
function nodeCounts(out) {
  const c = { pass: 0, fail: 0, skip: 0, seen: false };
  for (const m of out.matchAll(/^(?:#|ℹ) (pass|fail|cancelled|skipped|todo) (\d+)\s*$/gm)) {
    const n = +m[2];
    if (m[1] === 'pass') c.pass += n; else if (m[1] === 'fail' || m[1] === 'cancelled') c.fail += n; else c.skip += n;
    c.seen = true;
  }
  return c;
}

/** pytest's last line: `3 failed, 170 passed, 2 skipped in 41.2s` (any order, any subset). */
function pytestCounts(out) {
  const c = { pass: 0, fail: 0, skip: 0, seen: false };
  const last = out.split('\n').reverse().find((l) => /\d+ (passed|failed|error|errors|skipped)\b.* in [\d.]+s/.test(l));
  if (!last) return c;
  for (const m of last.matchAll(/(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)/g)) {
    const n = +m[1];
    if (m[2] === 'passed' || m[2] === 'xpassed') c.pass += n; else if (m[2] === 'skipped' || m[2] === 'xfailed') c.skip += n; else c.fail += n;
  }
  c.seen = true;
  return c;
}

/** Runs `cmd args` in the repository; resolves to {code, out, seconds}. Its output is passed through as it comes, or
 *  with `quiet` only kept (a suite of the side lane prints it whole once it ends, so two suites' lines never interleave). */
function run(cmd, args, env = {}, quiet = true) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (stream, to) => stream.on('data', (d) => { if (!quiet) to.write(d); out += d; if (out.length > 32e6) out = out.slice(-16e6); });
    keep(child.stdout, process.stdout);
    keep(child.stderr, process.stderr);
    child.on('error', (e) => resolve({ code: 127, out: String(e), seconds: (Date.now() - started) / 1000 }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), out, seconds: (Date.now() - started) / 1000 }));
  });
}

/** Runs `make <target>` (see `run`). */
const make = (target, env = {}, quiet = false) => run('make', ['--no-print-directory', target], env, quiet);

const banner = (text) => console.log(`\n==== ${text} ${'='.repeat(Math.max(0, 100 - text.length))}`);
const time = (s) => { const r = Math.round(s); return s >= 60 ? `${Math.floor(r / 60)} min ${String(r % 60).padStart(2, '0')} s` : `${s.toFixed(1)} s`; };

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !SUITES.some((s) => s.name === w));
  if (unknown.length) {
    console.error(`test: no suite ${unknown.join(', ')}; suites are ${SUITES.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  const suites = wanted.length ? SUITES.filter((s) => wanted.includes(s.name)) : SUITES;
  const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
  const started = Date.now();
  console.log(`make test: ${suites.map((s) => s.name).join(', ')}; load average ${load()}`);

  /** A suite's row from its run. A suite fails on a non-zero exit, on a failed test, or when it never reported
   *  counts (it did not get to run). */
  const row = (s, r) => {
    const counts = s.counts(r.out);
    const ok = r.code === 0 && counts.fail === 0 && counts.seen;
    const note = r.code !== 0 && !counts.fail ? (counts.seen ? `exit ${r.code}` : `exit ${r.code} before any test ran (a build error?)`)
      : !counts.seen ? 'no test counts in its output' : '';
    return { name: s.name, what: s.what, ok, seconds: r.seconds, counts: counts.seen ? counts : null, note };
  };

  // Two lanes at once. The side lane runs the cargo-only suites (native, wasm: no build needed) from the start, then,
  // once the build is done, the short suites that test it (types, python); it prints each suite's output whole when
  // it ends. The main lane builds, then runs the browser tests, streaming. On 2 cores two lanes also get the project a
  // larger share of a machine that is busy with other work (one process gets ~1 of the 2 cores beside a busy job, two
  // get ~4/3), and the side lane's compiles fill the cores the browser tests leave idle. Cargo's lock on target/
  // orders the two lanes' cargo runs; the rows are printed in SUITES' order.
  const needBuild = suites.some((s) => s.build);
  const SIDE = new Set(['native', 'wasm', 'types', 'python']);
  // .venv (scripts/setup.sh python: pip, ~1 CPU-minute on a fresh clone) is made beside the .wasm's compile instead of
  // after dist/; setup.sh's lock keeps the notebook and MkDocs tests from building it at the same time.
  const venv = needBuild ? run('scripts/setup.sh', ['python']) : null;

  // The build: www/pkg/, dist/ and the wheel (the notebook tests install it). A failed build is a failed row, and
  // the suites that test its output are reported as not run (also failures), never run against a stale build.
  let buildRow = null;
  const build = (async () => {
    if (!needBuild) return true;
    const t0 = Date.now();
    banner('build (make dist: www/pkg/, dist/; then the wheel)');
    const d = await make('dist');
    const v = await venv;
    if (v.code !== 0) process.stdout.write(v.out);
    const w = d.code === 0 && v.code === 0 ? await make('python-wheel') : { code: 1, seconds: 0 };
    const ok = d.code === 0 && v.code === 0 && w.code === 0;
    const note = d.code !== 0 ? `make dist: exit ${d.code}` : v.code !== 0 ? `scripts/setup.sh python: exit ${v.code}` : w.code !== 0 ? `make python-wheel: exit ${w.code}` : '';
    buildRow = { name: 'build', what: 'make wheel', ok, seconds: (Date.now() - t0) / 1000, counts: null, note };
    return ok;
  })();
  const notRun = (s) => ({ name: s.name, what: s.what, ok: false, seconds: 0, counts: null, note: 'not run: the build failed' });

  const side = (async () => {
    const out = [];
    for (const s of suites.filter((x) => SIDE.has(x.name))) {
      if (s.build && !(await build)) { out.push(notRun(s)); continue; }
      const r = await make(s.target, s.env, true);
      banner(`${s.name}: make ${s.target} (${s.what}), run beside the build and the browser tests — its output:`);
      process.stdout.write(r.out);
      out.push(row(s, r));
    }
    return out;
  })();

  const main = [];
  for (const s of suites.filter((x) => !SIDE.has(x.name))) {
    if (!(await build)) { main.push(notRun(s)); continue; }
    banner(`${s.name}: make ${s.target} (${s.what})`);
    main.push(row(s, await make(s.target, s.env)));
  }
  await build;
  if (buildRow) main.push(buildRow);
  const sideRows = await side;
  const order = ['build', ...SUITES.map((s) => s.name)];
  const rows = [...main, ...sideRows].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));

  const total = (Date.now() - started) / 1000;
  banner(`summary (${time(total)}; load average now ${load()})`);
  const table = [['suite', 'result', 'pass', 'fail', 'skip', 'time', ''], ...rows.map((r) => [
    r.name, r.ok ? 'ok' : 'FAILED', r.counts ? String(r.counts.pass) : '—', r.counts ? String(r.counts.fail) : '—',
    r.counts ? String(r.counts.skip) : '—', time(r.seconds), r.note,
  ])];
  const widths = table[0].map((_, k) => Math.max(...table.map((row) => row[k].length)));
  for (const row of table) console.log(row.map((c, k) => (k === 0 || k === 1 || k === 6 ? c.padEnd(widths[k]) : c.padStart(widths[k]))).join('  ').trimEnd());
  const failed = rows.filter((r) => !r.ok).map((r) => r.name);
  console.log(failed.length ? `\nFAILED: ${failed.join(', ')}` : `\nevery suite passed`);
  process.exit(failed.length ? 1 : 0);
}

main();
