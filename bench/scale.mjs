// Benchmark suite "scale" (its targets: 4,096 tokens shown; a 12 × 12 × 512 stack from Python ≤ 1 s; a 32 × 32 × 1024
// one's first figure ≤ 5 s in ≤ 5 MB of HTML, another head picked in its Widget ≤ 200 ms).
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

import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
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
const BIG_TARGET_MS = 5000;
const BIG_HTML_MB = 5;
const PICK_TARGET_MS = 200;

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

// A stack as a model gives it: random rows summing to 1 (np.random.seed(0), float64), or (`float32`) a softmax over
// 2 × standard normal scores, as torch gives it; `causal`: a decoder's (no weight on a later key), as a 7B model's.
// Drawn a layer at a time into float32 (the same numbers as one draw), so a 32 × 32 × 1024 stack takes its 4 GiB once.
const MAKE_STACK = String.raw`
import numpy as np
def make_stack(l, h, n, flags):
    if 'float32' not in flags:
        np.random.seed(0)
        a = np.random.rand(l, h, n, n)
        a /= a.sum(axis=-1, keepdims=True)
        return a
    rng, a = np.random.default_rng(0), np.empty((l, h, n, n), dtype=np.float32)
    below = np.tril(np.ones((n, n), dtype=bool)) if 'causal' in flags else None
    for i in range(l):
        s = 2 * rng.standard_normal((h, n, n))
        if below is not None:
            s[:, ~below] = -np.inf
        e = np.exp(s - s.max(-1, keepdims=True)).astype(np.float32)
        a[i] = e / e.sum(-1, keepdims=True)
    return a
`;

// The notebook path: show_attention's HTML for a random stack, and how long Python took (or its refusal).
const STACK = MAKE_STACK + String.raw`
import json, sys, time
import attention_viz as av
l, h, n = (int(x) for x in sys.argv[1:4])
a = make_stack(l, h, n, sys.argv[4:])
t0 = time.perf_counter()
try:
    html = av.show_attention(a).to_html()
    out = {'html': html}
except ValueError as e:
    out = {'refused': str(e)}
out['python_ms'] = (time.perf_counter() - t0) * 1e3
json.dump(out, sys.stdout)
`;

// A Widget over the stack, its kernel stood in for: each line on stdin is a message from the page ({"pick": [l, h]});
// each state update ipywidgets sends back (a stand-in comm, JSON-encoded as the kernel does) goes out as a line at
// once, as a kernel's goes out while the kernel works on, with Python's wall and CPU time until then; a last line says
// the message is done. The first line out is the widget's state for the page.
const PICK = MAKE_STACK + String.raw`
import json, sys, time
import attention_viz as av
l, h, n = (int(x) for x in sys.argv[1:4])
w = av.Widget(attention=make_stack(l, h, n, sys.argv[4:]))
t0 = c0 = 0
class Comm:
    kernel, comm_id = True, "bench"
    def on_msg(self, callback): pass
    def close(self, *args, **kwargs): pass
    def send(self, data=None, metadata=None, buffers=None):
        text = json.dumps(data, allow_nan=False)  # no buffers: the config goes as text
        print('{"python_ms":%f,"cpu_ms":%f,"message":%s}' % ((time.perf_counter() - t0) * 1e3,
              (time.process_time() - c0) * 1e3, text), flush=True)
print(json.dumps({'state': {k: v for k, v in w.get_state().items() if k in ('config', 'options', 'overview', '_uid', '_esm')}}), flush=True)
w.comm = Comm()
for line in sys.stdin:
    t0, c0 = time.perf_counter(), time.process_time()
    w._on_message(w, json.loads(line), [])
    print(json.dumps({'done': True, 'python_ms': (time.perf_counter() - t0) * 1e3}), flush=True)
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

export async function pythonStack([l, h, n, dtype = 'float64'], site, log) {
  const py = join(root, '.venv', 'bin', 'python');
  if (!existsSync(py) || !existsSync(join(root, 'python', 'attention_viz', 'static', 'attention-viz.engine.js'))) {
    return { missing: 'no .venv or no python/attention_viz/static: run scripts/setup.sh python and make wheel' };
  }
  log(`  Python show_attention(${l} × ${h} × ${n}, ${dtype}) …`);
  const made = JSON.parse(await exec(py, ['-c', STACK, String(l), String(h), String(n), ...dtype.split(' ')], { env: { PYTHONPATH: join(root, 'python') } }));
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

// The widget's page: its front end (the _esm) with anywidget's model stood in for; a message to the kernel goes to
// the Python process (PICK) and its state updates come back as changes from the kernel.
const WIDGET_PAGE = `<!doctype html><meta charset="utf-8"><body><div id="host"></div><script type="module">
const state = await (await fetch('./state.json')).json(), handlers = {};
const changed = (k) => (handlers['change:' + k] || []).forEach((f) => f());
window.replies = [];
const model = {
  get: (k) => state[k], set: (k, v) => { state[k] = v; changed(k); }, save_changes: () => {},
  on: (ev, f) => { (handlers[ev] ||= []).push(f); }, off: () => {},
  send: (m) => { window.kernelSend(m); },
};
// A message from the kernel: the head's config (its arrival noted) or the overview.
window.fromKernel = ({ message, python_ms, cpu_ms, bytes }) => {
  if (message.state?.config) window.replies.push({ python_ms, cpu_ms, at: performance.now(), bytes });
  for (const [k, v] of Object.entries(message.state ?? {})) { state[k] = v; changed(k); }
};
window.clickAt = null; window.changeAt = null;
document.addEventListener('click', () => { window.clickAt = performance.now(); }, true);
window.addEventListener('change', (e) => { if (e.target.localName === 'attention-viz') window.changeAt = performance.now(); }, true);
const mod = await import('./widget.mjs');
mod.default.render({ model, el: document.getElementById('host') });
</script>`;

/** Widget.pick from a click on a thumbnail to the head drawn (the element's change, then a frame), for each pick. */
export async function pythonPick([l, h, n, flags = ''], picks, site, log) {
  const py = join(root, '.venv', 'bin', 'python');
  if (!existsSync(py) || !existsSync(join(root, 'python', 'attention_viz', 'static', 'attention-viz.engine.js'))) {
    return { missing: 'no .venv or no python/attention_viz/static: run scripts/setup.sh python and make wheel' };
  }
  log(`  Python Widget(${l} × ${h} × ${n}, ${flags}) and ${picks.length} picks …`);
  const child = spawn(py, ['-c', PICK, String(l), String(h), String(n), ...flags.split(' ')],
    { env: { ...process.env, PYTHONPATH: join(root, 'python') }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => { const r = await lines.next(); if (r.done) throw new Error('the Python side ended'); return r.value; };
  try {
    const first = JSON.parse(await next());
    const page = await site.page(null);
    await page.route('**/widget.html', (route) => route.fulfill({ contentType: 'text/html', body: WIDGET_PAGE }));
    await page.route('**/widget.mjs', (route) => route.fulfill({ contentType: 'text/javascript', body: first.state._esm }));
    const { _esm, ...state } = first.state;
    await page.route('**/state.json', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(state) }));
    // The page's message goes to Python; each update Python sends goes to the page as it comes.
    let done = Promise.resolve();
    await page.exposeFunction('kernelSend', (m) => {
      child.stdin.write(`${JSON.stringify(m)}\n`);
      done = (async () => {
        for (;;) {
          const line = await next();
          const reply = JSON.parse(line);
          if (reply.done) return reply;
          await page.evaluate((r) => window.fromKernel(r), { ...reply, bytes: line.length });
        }
      })();
    });
    await page.goto(`${site.url}widget.html`);
    await page.waitForFunction(() => window.changeAt !== null, null, { timeout: 600_000 });
    const out = [];
    for (const [layer, head] of picks) {
      await page.evaluate(() => { window.changeAt = null; window.replies = []; });
      // A real mouse click on the thumbnail (playwright scrolls it into view and clicks its centre).
      await page.locator(`.attention-viz-overview [data-layer="${layer}"][data-head="${head}"]`).click();
      await page.waitForFunction(() => window.changeAt !== null && window.replies.length > 0, null, { timeout: Number(process.env.PICK_WAIT ?? 600_000) })
        .catch(async (e) => { throw new Error(`${e.message}; page errors: ${page.errors.join('; ')}; ${await page.evaluate(() => JSON.stringify({ click: window.clickAt, change: window.changeAt, replies: window.replies, error: document.querySelector('attention-viz')?.shadowRoot?.querySelector('.status')?.textContent }))}`); });
      const r = await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => ok({
        drawn_ms: performance.now() - window.clickAt, change_ms: window.changeAt - window.clickAt,
        reply_ms: window.replies[0].at - window.clickAt, python_ms: window.replies[0].python_ms, cpu_ms: window.replies[0].cpu_ms,
        mb: window.replies[0].bytes / 1e6 }))));
      await done;
      // The overview Python sent after the head: the head drawn in full is the one clicked.
      await page.waitForFunction(([a, b]) => document.querySelector('.attention-viz-overview svg title')?.textContent
        .includes(`layer ${a}, head ${b} is drawn in full`), [layer, head], { timeout: 600_000 });
      out.push({ layer, head, ...r });
    }
    await page.close();
    return { picks: out };
  } finally {
    child.stdin.end();
    child.kill();
  }
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
  // A 7B model's stack at 1,024 tokens (32 × 32 heads, a decoder's, float32): its first figure (≤ 5 s) and HTML
  // (≤ 5 MB); then Widget.pick from a click to the head drawn (≤ 200 ms).
  const BIG = [32, 32, 1024, 'float32 causal'];
  for (const shape of [[12, 12, 512], [12, 12, 128], [12, 12, 128, 'float32'], BIG]) {
    const name = shape.join(' × ').replace(/ × (float32.*)$/, ', $1');
    const target = shape[2] === 512 ? STACK_TARGET_MS : shape === BIG ? BIG_TARGET_MS : null;
    let s;
    try { s = await pythonStack(shape, site, log); } catch (e) { s = { error: e.message }; }
    const total = s.page_ms != null ? s.python_ms + s.page_ms : null;
    const note = s.missing ?? s.error ?? (s.refused ? `refused by the core: ${s.refused.slice(0, 140)}` : `Python ${s.python_ms.toFixed(0)} ms (HTML ${s.html_mb.toFixed(1)} MB) + page ${s.page_ms?.toFixed(0) ?? '—'} ms${s.status ? `; status: ${s.status.slice(0, 80)}` : ''}`);
    rows.push({ what: `Python: show_attention(${name}) → drawn in a page`, median_ms: total, target_ms: target,
      ok: target ? total != null && total <= target : null, longtask: '', anchor_ms: '', note, samples: 1 });
    if (target) {
      targets.push({ row: shape === BIG ? 6 : 5, what: `a ${name} stack from Python drawn`, measured: total != null ? `${total.toFixed(0)} ms` : (s.refused ? 'refused' : s.missing ? 'not run' : 'failed'),
        target: `≤ ${target} ms`, anchor: '—', ok: total != null && total <= target });
    }
    if (shape === BIG && s.html_mb != null) {
      targets.push({ row: 6, what: `a ${name} stack's HTML`, measured: `${s.html_mb.toFixed(2)} MB`, target: `≤ ${BIG_HTML_MB} MB`, anchor: '—', ok: s.html_mb <= BIG_HTML_MB });
    }
    notes.push(`${name}: ${note}`);
  }
  let p;
  try { p = await pythonPick(BIG, [[1, 2], [5, 7], [31, 31], [16, 3], [0, 0]], site, log); } catch (e) { p = { error: e.message }; }
  const pickName = BIG.join(' × ').replace(/ × (float32.*)$/, ', $1');
  if (p.picks) {
    const drawn = median(p.picks.map((x) => x.drawn_ms));
    rows.push({ what: `Python: Widget.pick(${pickName}) click → head drawn, next frame`, median_ms: drawn, p90_ms: Math.max(...p.picks.map((x) => x.drawn_ms)),
      target_ms: PICK_TARGET_MS, ok: drawn <= PICK_TARGET_MS, longtask: '', anchor_ms: '', samples: p.picks.length,
      note: `median: Python ${median(p.picks.map((x) => x.python_ms)).toFixed(0)} ms (CPU ${median(p.picks.map((x) => x.cpu_ms)).toFixed(0)} ms), reply at ${median(p.picks.map((x) => x.reply_ms)).toFixed(0)} ms, ${p.picks[0].mb.toFixed(1)} MB; change at ${median(p.picks.map((x) => x.change_ms)).toFixed(0)} ms` });
    targets.push({ row: 6, what: `Widget.pick(${pickName}): another head drawn`, measured: `${drawn.toFixed(0)} ms`, target: `≤ ${PICK_TARGET_MS} ms`, anchor: '—', ok: drawn <= PICK_TARGET_MS });
    notes.push(`Widget.pick picks: ${p.picks.map((x) => `(${x.layer}, ${x.head}) ${x.drawn_ms.toFixed(0)} ms (Python ${x.python_ms.toFixed(0)}, CPU ${x.cpu_ms.toFixed(0)}; reply ${x.reply_ms.toFixed(0)}; change ${x.change_ms.toFixed(0)})`).join('; ')}`);
  } else {
    notes.push(`Widget.pick: ${p.missing ?? p.error}`);
  }
  notes.push(`load average at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  return { rows, notes, targets, numpy: anchor };
}
