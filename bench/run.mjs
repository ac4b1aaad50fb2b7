// Runs the benchmark suites in headless Chromium and reports them; never fails
// on a time (a benchmark, not a test). Usage:
//   node bench/run.mjs [suite …] [--samples N] [--warmup N]
// A suite is any bench/<name>.mjs (other than this file) exporting
// `run(ctx) -> rows` (or {rows, notes, …}) and `description`, optionally `columns`;
// with no names, every suite runs.
// Each suite's rows are printed as a table and written to bench-results/<name>.json.
import { readdirSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { loadavg } from 'node:os';
import { open } from '../tests/e2e/harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

function parseArgs(argv) {
  const opts = { suites: [], samples: 30, warmup: 5 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--samples' || a === '--warmup') {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`${a} needs a positive integer`);
      opts[a.slice(2)] = v;
    } else if (a === '-h' || a === '--help') {
      opts.help = true;
    } else if (a.startsWith('-')) {
      throw new Error(`unknown option ${a}`);
    } else {
      opts.suites.push(a);
    }
  }
  return opts;
}

const available = readdirSync(here).filter((f) => f.endsWith('.mjs') && f !== 'run.mjs').map((f) => f.slice(0, -4)).sort();

const fmt = (x) => (x == null ? '—' : x < 10 ? x.toFixed(2) : x.toFixed(1));

// The last columns: a suite may export `columns`, a list of [heading, row key], instead of this default.
const DEFAULT_COLUMNS = [['render() call ms', 'call_median_ms']];

function table(rows, columns = DEFAULT_COLUMNS) {
  const head = ['what', 'median ms', 'p90 ms', 'target ms', 'result', ...columns.map(([h]) => h)];
  const cell = (v) => (typeof v === 'string' ? v : fmt(v));
  const body = rows.map((r) => [
    r.what, fmt(r.median_ms), fmt(r.p90_ms), r.target_ms == null ? '—' : `≤ ${Number.isInteger(r.target_ms) ? r.target_ms : fmt(r.target_ms)}`,
    r.ok == null ? 'info' : r.ok ? 'ok' : 'OVER', ...columns.map(([, key]) => cell(r[key])),
  ]);
  const widths = head.map((h, k) => Math.max(h.length, ...body.map((b) => b[k].length)));
  const line = (cells) => cells.map((c, k) => (k === 0 ? c.padEnd(widths[k]) : c.padStart(widths[k]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    console.log(`usage: node bench/run.mjs [suite …] [--samples N] [--warmup N]\nsuites: ${available.join(', ')}`);
    return;
  }
  const names = opts.suites.length ? opts.suites : available;
  const unknown = names.filter((n) => !available.includes(n));
  if (unknown.length) throw new Error(`no suite ${unknown.join(', ')}; suites are ${available.join(', ')}`);

  const site = await open({ root });
  // The targets, gathered from every suite run: a suite's `targets` is a list of
  // {row, what, measured, target, anchor, ok} (strings, already formatted by the suite, which knows its units), printed
  // together at the end so each target sits beside its anchor measured in the same run.
  const targets = [];
  const failed = [];
  const env = { chromium: site.browser.version(), node: process.version, platform: `${process.platform} ${process.arch}` };
  try {
    console.log(`Chromium ${env.chromium} (headless), node ${env.node}; ${opts.samples} timed runs after ${opts.warmup} warm-up runs; `
      + `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
    for (const name of names) {
      const suite = await import(join(here, `${name}.mjs`));
      console.log(`${name}: ${suite.description ?? ''}`);
      const started = Date.now();
      // `run` returns the rows, or {rows, notes, …}: notes are lines printed under the table; they and any other keys go to the JSON.
      // A suite that throws is said and the others still run: one broken suite must not take the whole report with it.
      let out;
      try {
        out = await suite.run({ site, samples: opts.samples, warmup: opts.warmup, log: (m) => process.stderr.write(`${m}\n`) });
      } catch (e) {
        console.log(`\n${name}: the suite failed: ${String(e?.stack ?? e).split('\n').slice(0, 4).join('\n  ')}\n`);
        failed.push(name);
        continue;
      }
      const { rows, notes = [], ...extra } = Array.isArray(out) ? { rows: out } : out;
      for (const t of extra.targets ?? []) targets.push({ suite: name, ...t });
      console.log(`\n${table(rows, suite.columns)}\n`);
      if (notes.length) console.log(`${notes.join('\n')}\n`);
      const over = rows.filter((r) => r.ok === false).length;
      if (over) console.log(`${over} of ${rows.filter((r) => r.ok != null).length} over target (a report, not a failure)\n`);
      mkdirSync(join(root, 'bench-results'), { recursive: true });
      const file = join(root, 'bench-results', `${name}.json`);
      const result = { suite: name, description: suite.description, date: new Date().toISOString(), seconds: (Date.now() - started) / 1000,
        loadavg: loadavg(), samples: opts.samples, warmup: opts.warmup, env, results: rows, ...(notes.length ? { notes } : {}), ...extra };
      writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
      console.log(`wrote ${file.slice(root.length + 1)}\n`);
    }
    if (targets.length) console.log(`${targetTable(targets)}\n`);
    if (failed.length) {
      console.log(`suites that failed (no numbers from them): ${failed.join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    await site.close();
  }
}

/**
 * The targets' summary: one line per target, sorted by row, then by suite. The rows group the targets: 1 a one-figure
 * blog page's bytes and load, 2 the guided page's first and last figure drawn, 3 compute()'s speed against the
 * hardware's bound, 4 hover and scrub at scale and a model stack's load, 5 a 4,096-token figure and a stack from
 * Python, 6 training that never blocks the page.
 */
function targetTable(targets) {
  const head = ['row', 'what', 'measured', 'target', 'result', 'anchor (same run)', 'suite'];
  const body = [...targets].sort((a, b) => a.row - b.row || a.suite.localeCompare(b.suite)).map((t) => [
    String(t.row), t.what, t.measured ?? '—', t.target ?? '—', t.ok == null ? 'info' : t.ok ? 'ok' : 'OVER', t.anchor ?? '—', t.suite,
  ]);
  const widths = head.map((h, k) => Math.max(h.length, ...body.map((b) => b[k].length)));
  const line = (cells) => cells.map((c, k) => c.padEnd(widths[k])).join('  ').trimEnd();
  return ['Targets: measured in this run, each beside its anchor', line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

main().catch((e) => {
  console.error(`bench: ${e.message}`);
  process.exit(1);
});
