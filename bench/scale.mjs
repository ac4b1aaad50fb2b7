// Benchmark suite "scale" (its targets: 4,096 tokens shown; a 12 × 12 × 512 stack from Python ≤ 1 s).
//
// Rows:
// - `n = 4096, d = 64, read-only: el.config → drawn` — a non-editable self-attention figure (`editable="false"`,
//   views scores, weights, context) whose config is over the page's cost bound, so a Web Worker computes it
//   (www/compute-worker.js, www/element/large.js): from `el.config = …` to the element's `change` (the views put),
//   then to the next animation frame. Beside it the longest main-thread task meanwhile (a PerformanceObserver for
//   `longtask`, which sees only tasks over 50 ms: "none" is the target) and the progress lines the figure showed.
//   Inputs: RandomState(0) in the page, row by row — X = randn(4096, 64), then W_Q, W_K, W_V = randn(64, 64) —, the
//   numbers NumPy's np.random.seed(0) draws (bench/numpy_compute.py's inputs).
// - `… hover: a mouse move → the tooltip` — a real mouse move over the weights to the tooltip showing the value, then
//   to the next frame; the value is checked against NumPy's for that cell (a Python snippet on the same inputs).
// - `NumPy: the same computation (anchor)` — bench/numpy_compute.py at n = 4096 (the faster of its default BLAS
//   threads and one thread).
// - `Python: av.show_attention(12 × 12 × 512)` — the notebook path: the Python package's HTML for a stack of random
//   rows summing to 1 (np.random.seed(0)), loaded in a page as a notebook shows it, to the figure drawn. Needs
//   `scripts/setup.sh python` and `make wheel`; said in the notes when missing. A refused stack is reported as such
//   (its message), with the time Python took to refuse it. Informative beside it: 12 × 12 × 128 the same way (random
//   float64 rows, then a float32 softmax stack, what torch gives), split into Python's time to write the HTML and the
//   page's time to draw it.
// Nothing here is asserted; tests/e2e/large.test.mjs checks what happens.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchPage, median } from './heatmap.mjs';

export const description = 'a read-only n = 4096 figure computed in a Worker; a model stack from Python';

export const columns = [['longest task ms', 'longtask'], ['anchor ms', 'anchor_ms'], ['note', 'note']];

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const N = 4096;
const D = 64;
const STACK_TARGET_MS = 1000;

function exec(cmd, args, { input, env = {} } = {}) {
  return new Promise((ok, fail) => {
    const child = execFile(cmd, args, { maxBuffer: 1 << 30, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      if (err) fail(new Error(`${err.message.split('\n')[0]} ${String(stderr).trim().split('\n').pop() ?? ''}`));
      else ok(stdout);
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

const PYTHON = process.env.PYTHON || 'python3';

// The weights NumPy gives the cells on stdin ([[i, j], …]), on bench/numpy_compute.py's inputs.
const CELLS = String.raw`
import json, sys
sys.path.insert(0, sys.argv[3])
import numpy as np, scipy.special
from numpy_compute import inputs
n, d = int(sys.argv[1]), int(sys.argv[2])
X, W_Q, W_K, W_V = inputs(n, d)
S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(d)
W = scipy.special.softmax(S, axis=1)
json.dump([W[i, j] for i, j in json.loads(sys.stdin.read())], sys.stdout)
`;

// The notebook path: show_attention's HTML for a random stack, and how long Python took (or its refusal).
const STACK = String.raw`
import json, sys, time
import numpy as np
import attention_viz as av
l, h, n = (int(x) for x in sys.argv[1:4])
np.random.seed(0)
a = np.random.rand(l, h, n, n)
a /= a.sum(axis=-1, keepdims=True)
if sys.argv[4:] == ['float32']:
    # A model's attention as torch gives it: a softmax over scores, float32.
    s = 2 * np.random.default_rng(0).standard_normal((l, h, n, n))
    a = np.exp(s - s.max(-1, keepdims=True)).astype(np.float32)
    a /= a.sum(-1, keepdims=True)
t0 = time.perf_counter()
try:
    html = av.show_attention(a).to_html()
    out = {'html': html}
except ValueError as e:
    out = {'refused': str(e)}
out['python_ms'] = (time.perf_counter() - t0) * 1e3
json.dump(out, sys.stdout)
`;

function pageBench() {
  const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));
  window.longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push({ start: e.startTime, ms: e.duration }); })
    .observe({ type: 'longtask' });
  // Long animation frames name the scripts in them (invoker, function, duration): what a long task was.
  window.longFrames = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        longFrames.push({ start: e.startTime, ms: e.duration, render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
          scripts: (e.scripts ?? []).map((x) => `${x.invoker || x.name} ${x.sourceFunctionName || ''} ${Math.round(x.duration)} ms`.trim()) });
      }
    }).observe({ type: 'long-animation-frame' });
  } catch { /* no LoAF: the notes say nothing more */ }
  window.benchLarge = async ({ n, d }) => {
    const rs = new av.RandomState(0);
    // Row by row: one RandomState call draws at most 131,072 values (the same sequence).
    const rows = (k) => Array.from({ length: k }, () => rs.randn(d));
    const config = { embeddings: rows(n), w_q: rows(d), w_k: rows(d), w_v: rows(d) };
    document.querySelectorAll('attention-viz').forEach((e) => e.remove());
    const el = document.createElement('attention-viz');
    el.setAttribute('editable', 'false');
    el.setAttribute('views', 'scores,weights,context');
    await frame();
    await frame();
    const progress = [];
    const watch = new MutationObserver(() => {
      const p = el.shadowRoot.querySelector('[data-role=progress]');
      if (p && progress.at(-1) !== p.textContent) progress.push(p.textContent);
    });
    const drawn = new Promise((ok) => el.addEventListener('change', (e) => ok(e.detail), { once: true }));
    // As a page makes one: its config set, then the element put in the document (nothing else loads first).
    const t0 = performance.now();
    el.config = config;
    document.body.append(el);
    watch.observe(el.shadowRoot, { subtree: true, childList: true, characterData: true });
    const detail = await drawn;
    const toChange = performance.now() - t0;
    await frame();
    const toFrame = performance.now() - t0;
    watch.disconnect();
    // Long tasks are reported after they end: give the last one a moment to arrive.
    await new Promise((ok) => setTimeout(ok, 100));
    const during = longTasks.filter((t) => t.start + t.ms >= t0 && t.start <= t0 + toFrame);
    const status = el.shadowRoot.querySelector('.status')?.textContent ?? '';
    const frames = longFrames.filter((f) => f.start + f.ms >= t0 && f.start <= t0 + toFrame && f.ms > 50)
      .map((f) => `${Math.round(f.start - t0)} ms in: ${Math.round(f.ms)} ms frame (render ${Math.round(f.render)}) ${f.scripts.join(', ')}`);
    return { t0, frames, toChange, toFrame, large: !!detail?.large, longest: Math.max(0, ...during.map((t) => t.ms)), tasks: during.length, progress, status };
  };
  window.hoverTarget = () => {
    const c = document.querySelector('attention-viz').shadowRoot.querySelector('canvas[data-view="weights"]');
    c.scrollIntoView({ block: 'center' });
    const r = c.getBoundingClientRect();
    return { left: r.left, top: r.top, width: r.width, height: r.height };
  };
  window.tipShown = async (t0) => {
    const tip = document.querySelector('attention-viz').shadowRoot.querySelector('[data-role="large-tip"]');
    const shown = performance.now() - t0;
    await frame();
    return { text: tip.hidden ? null : tip.textContent, toHandler: shown, toFrame: performance.now() - t0 };
  };
}

/** NumPy's median ms at n = 4096: the faster of the default threads and one thread. */
async function numpyAnchor(log) {
  const args = [join(here, 'numpy_compute.py'), '--sizes', String(N), '--no-inputs', '--budget', '2', '--min-repeats', '3', '--warmup', '1'];
  const out = {};
  for (const [name, env] of [['default', {}], ['1 thread', { OPENBLAS_NUM_THREADS: '1' }]]) {
    log(`  NumPy n = ${N} (${name}) …`);
    try { out[name] = JSON.parse(await exec(PYTHON, args, { env })).cases[0].median_ms; } catch (e) { out[name] = null; out.error = e.message; }
  }
  const best = Math.min(...[out.default, out['1 thread']].filter((x) => x != null));
  return { ...out, best: Number.isFinite(best) ? best : null };
}

async function pythonStack([l, h, n, dtype = 'float64'], site, log) {
  const py = join(root, '.venv', 'bin', 'python');
  if (!existsSync(py) || !existsSync(join(root, 'python', 'attention_viz', 'static', 'attention-viz.engine.js'))) {
    return { missing: 'no .venv or no python/attention_viz/static: run scripts/setup.sh python and make wheel' };
  }
  log(`  Python show_attention(${l} × ${h} × ${n}, ${dtype}) …`);
  const made = JSON.parse(await exec(py, ['-c', STACK, String(l), String(h), String(n), dtype], { env: { PYTHONPATH: join(root, 'python') } }));
  if (made.refused) return { refused: made.refused, python_ms: made.python_ms };
  const page = await site.page(null);
  const html = `<!doctype html><meta charset="utf-8"><body>${made.html}</body>`;
  await page.route('**/stack.html', (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await page.addInitScript(() => {
    window.drawnAt = null;
    window.addEventListener('change', () => { window.drawnAt ??= performance.now(); }, true);
  });
  const started = Date.now();
  await page.goto(`${site.url}stack.html`);
  await page.waitForFunction(() => window.drawnAt !== null, null, { timeout: 120_000 }).catch(() => {});
  const drawn = await page.evaluate(() => window.drawnAt);
  const status = await page.evaluate(() => document.querySelector('attention-viz')?.shadowRoot?.querySelector('.status')?.textContent ?? '');
  await page.close();
  return { python_ms: made.python_ms, html_mb: made.html.length / 1e6, page_ms: drawn, status, wall_s: (Date.now() - started) / 1000 };
}

export async function run({ site, samples = 30, warmup = 5, log = () => {} }) {
  const notes = [`load average at start ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${cpus().length} cores (the other helpers' work shares them)`];
  const rows = [];
  const targets = [];
  // Each run computes 3.9e9 multiply-adds in the worker (seconds): a few runs, not `samples`.
  const runs = Math.max(2, Math.min(5, Math.ceil(samples / 6)));
  const page = await benchPage(site, pageBench);
  const results = [];
  for (let k = 0; k < runs + Math.min(1, warmup); k++) {
    log(`  n = ${N} read-only figure, run ${k + 1} …`);
    const r = await page.evaluate((a) => window.benchLarge(a), { n: N, d: D });
    if (k >= Math.min(1, warmup)) results.push(r);
  }
  const last = results.at(-1);
  const anchor = await numpyAnchor(log);
  const longest = Math.max(...results.map((r) => r.longest));
  const drawnMs = median(results.map((r) => r.toFrame));
  rows.push({
    what: `n = ${N}, d = ${D}, read-only (worker): el.config → drawn, next frame`,
    median_ms: drawnMs, p90_ms: Math.max(...results.map((r) => r.toFrame)), target_ms: null, ok: null,
    longtask: longest ? longest.toFixed(0) : 'none', anchor_ms: anchor.best?.toFixed(0) ?? '—',
    note: last.large ? `${last.progress.length} progress lines; ${results.map((r) => r.tasks).join('/')} tasks > 50 ms` : `not large: ${last.status}`,
    samples: results.length,
  });
  results.forEach((r, k) => { if (r.frames.length) notes.push(`run ${k + 1}: long frames (LoAF) ${r.frames.join('; ')}`); });
  notes.push(`progress lines of the last run: ${last.progress.map((p) => JSON.stringify(p)).join(' → ')}`);

  // Hover: real mouse moves over the weights; each value checked against NumPy's.
  const rect = await page.evaluate(() => window.hoverTarget());
  const points = [];
  for (let k = 0; k < Math.max(8, Math.min(30, samples)); k++) {
    const x = Math.round(rect.left + ((k * 37) % 97 + 1) / 99 * rect.width);
    const y = Math.round(rect.top + ((k * 53) % 89 + 1) / 91 * rect.height);
    points.push({ x, y, cell: [Math.floor(((y - rect.top) / rect.height) * N), Math.floor(((x - rect.left) / rect.width) * N)] });
  }
  const hovers = [];
  for (const p of points) {
    await page.mouse.move(p.x, p.y);
    const t0 = await page.evaluate(() => performance.now());
    hovers.push({ ...p, ...(await page.evaluate((t) => window.tipShown(t), t0)) });
    await page.mouse.move(rect.left - 20, rect.top - 20);
  }
  let checked = 'not checked (no NumPy)';
  try {
    const gold = JSON.parse(await exec(PYTHON, ['-c', CELLS, String(N), String(D), here], { input: JSON.stringify(points.map((p) => p.cell)) }));
    const bad = hovers.filter((h, k) => {
      const shown = h.text === null ? NaN : Number(h.text.slice(h.text.lastIndexOf(': ') + 2));
      return !(Math.abs(shown - gold[k]) <= 1e-5 * Math.abs(gold[k]) + 1e-300);
    });
    checked = bad.length ? `${bad.length} of ${hovers.length} tooltips differ from NumPy (first: ${bad[0].text} at ${bad[0].cell})` : `all ${hovers.length} tooltips = NumPy's weight (6 digits)`;
  } catch (e) { checked = `NumPy check failed: ${e.message} (cells ${JSON.stringify(points.slice(0, 3))})`; }
  const hoverMs = median(hovers.map((h) => h.toFrame));
  rows.push({
    what: `n = ${N}: hover over the weights → tooltip, next frame`, median_ms: hoverMs, p90_ms: Math.max(...hovers.map((h) => h.toFrame)),
    target_ms: null, ok: null, longtask: '', anchor_ms: '', note: checked, samples: hovers.length,
  });
  rows.push({ what: `NumPy: the same computation at n = ${N} (anchor; best of threads)`, median_ms: anchor.best, target_ms: null, ok: null,
    longtask: '', anchor_ms: '', note: `default ${anchor.default?.toFixed(0)} ms, 1 thread ${anchor['1 thread']?.toFixed(0)} ms` });
  await page.close();

  targets.push({
    row: 5, what: `n = ${N} read-only figure: longest main-thread task while it computes and draws`,
    measured: longest ? `${longest.toFixed(0)} ms (drawn in ${(drawnMs / 1000).toFixed(1)} s)` : `none > 50 ms (drawn in ${(drawnMs / 1000).toFixed(1)} s)`,
    target: 'no task > 50 ms', anchor: anchor.best != null ? `NumPy computes it in ${anchor.best.toFixed(0)} ms` : 'NumPy unavailable', ok: last.large && longest <= 50,
  });
  targets.push({ row: 5, what: `n = ${N}: hover shows the cell's value`, measured: `${hoverMs.toFixed(1)} ms to the frame; ${checked}`,
    target: 'within a frame, NumPy\'s value', anchor: '16.7 ms frame', ok: hoverMs <= 16.7 && checked.startsWith('all') });

  // Random float64 rows (the worst case for the wire: their mantissas are noise), and a float32 softmax stack, as a
  // model's attention from torch is (its values go as their shortest decimals: the core's math::decimal, both sides).
  for (const shape of [[12, 12, 512], [12, 12, 128], [12, 12, 128, 'float32']]) {
    const name = shape.join(' × ').replace(' × float32', ', float32');
    let s;
    try { s = await pythonStack(shape, site, log); } catch (e) { s = { error: e.message }; }
    const total = s.page_ms != null ? s.python_ms + s.page_ms : null;
    const note = s.missing ?? s.error ?? (s.refused ? `refused by the core: ${s.refused.slice(0, 140)}` : `Python ${s.python_ms.toFixed(0)} ms (HTML ${s.html_mb.toFixed(1)} MB) + page ${s.page_ms?.toFixed(0) ?? '—'} ms${s.status ? `; status: ${s.status.slice(0, 80)}` : ''}`);
    rows.push({ what: `Python: show_attention(${name}) → drawn in a page`, median_ms: total, target_ms: shape[2] === 512 ? STACK_TARGET_MS : null,
      ok: shape[2] === 512 ? total != null && total <= STACK_TARGET_MS : null, longtask: '', anchor_ms: '', note, samples: 1 });
    if (shape[2] === 512) {
      targets.push({ row: 5, what: `a ${name} stack from Python drawn`, measured: total != null ? `${total.toFixed(0)} ms` : (s.refused ? 'refused' : s.missing ? 'not run' : 'failed'),
        target: `≤ ${STACK_TARGET_MS} ms`, anchor: '—', ok: total != null && total <= STACK_TARGET_MS });
    }
    notes.push(`${name}: ${note}`);
  }
  notes.push(`load average at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  return { rows, notes, targets, numpy: anchor };
}
