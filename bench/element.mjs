// Benchmark suite "element": edit → repaint latency of the <attention-viz>
// element in headless Chromium.
//
// A suite module exports `description` and `run(ctx)`; bench/run.mjs finds it
// by file name (`node bench/run.mjs element`). `run` returns rows
// {what, median_ms, p90_ms, target_ms, ok, call_median_ms, ...}; `target_ms:
// null` marks a row that is only informative.
//
// One sample = set a cell's text and dispatch its `input` event, timed to the
// end of the dispatch: the element's handler parses the text, Rust recomputes
// the trace and repaints every heatmap canvas, the breakdown is rebuilt and
// `change` fires, all before dispatchEvent returns. Each sample runs in its own
// animation frame, as typing or scrubbing would. Also recorded per row:
// `call_median_ms`, the part of a sample spent inside `Viz.draw` (the Rust
// repaints, summed over the canvases); `flushed_median_ms`, the sample plus a
// 1-px getImageData on every canvas, which makes Chromium rasterise the 2D
// commands it would otherwise defer to the next frame; and `frame_median_ms`,
// from the edit to the next animation frame callback. Each edit starts at the
// top of a frame, so the next callback comes one vsync (16.7 ms) later if the
// handler *and* the browser's style, layout, paint and compositing of the edit
// fit in that frame, two if they take up to 33 ms, and so on: `frames` is that
// count, what a reader sees. A target of 16 ms is met when the handler takes
// ≤ 16 ms and the edit is on screen in the next frame (33 ms: within two).
// Then a few more edits per row run under a Chromium trace: the notes under the table say where their CPU time goes
// (summariseTrace), and how many <input>s are live. `core calls`: the median count of JS→WASM calls (the Viz's
// methods) in an edit's handler — one `Viz.edit` and one `draw` per canvas the edit changed.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchPage, median, percentile } from './heatmap.mjs';

export const description = 'edit → repaint of <attention-viz> (input event on a cell to the end of its synchronous handler)';

export const columns = [['draw() ms', 'call_median_ms'], ['to next frame ms', 'frame_median_ms'], ['frames', 'frames_shown'], ['core calls', 'core_calls_shown']];

const TARGET_MS = 16;
const FRAME_MS = 1000 / 60;

/** Installed in the page: element set-up and the timed edit loop. */
function pageBench() {
  const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));

  /** A fresh element with `config`, drawn; resolves to {el, setup_ms}. */
  window.benchMount = async ({ config, naive }) => {
    document.querySelectorAll('attention-viz').forEach((e) => e.remove());
    const el = document.createElement('attention-viz');
    el.setAttribute('preset', 'seed-000');
    document.body.append(el);
    await new Promise((ok) => { const wait = () => (el.trace ? ok() : requestAnimationFrame(wait)); wait(); });
    const errors = [];
    el.addEventListener('error', (e) => errors.push(e.detail.message));
    const t0 = performance.now();
    el.config = config;
    const setup = performance.now() - t0;
    if (errors.length) throw new Error(`the config was rejected: ${errors[0]}`);
    if (naive) {
      const box = el.shadowRoot.querySelector('[data-control="naive"]');
      box.checked = true;
      box.dispatchEvent(new Event('change', { bubbles: true }));
    }
    await frame();
    window.benchEl = el;
    return { setup_ms: setup };
  };

  /**
   * Times `warmup + samples` cell edits on `window.benchEl`. `traced`: each edit is marked for the Chromium trace
   * (console.timeStamp "av-edit", then "av-end" after the last) and followed by two more frames, so the compositor's
   * raster and upload of an edit land before the next edit's mark.
   */
  window.benchEdits = async ({ warmup, samples, traced = false }) => {
    const el = window.benchEl;
    const root = el.shadowRoot;
    const canvases = [...root.querySelectorAll('canvas[data-view]')];
    const views = canvases.map((c) => c.dataset.view);
    const cfg = el.config;
    const matrix = window.benchMatrix ?? (cfg.mechanism === 'cross' ? 'decoder_state' : 'embeddings');
    const cells = [...root.querySelectorAll(`input.cell[data-matrix="${matrix}"]`)];
    const ctxs = canvases.map((c) => c.getContext('2d'));
    // Time spent in Rust repaints: wrap this element's Viz.draw (wasm-bindgen class method). Every other Viz
    // method is counted: the JS→WASM calls of an edit (a count, not a time).
    const proto = Object.getPrototypeOf(el._viz);
    const render = proto.draw;
    let inRender = 0;
    let calls = 0;
    const originals = new Map();
    for (const name of Object.getOwnPropertyNames(proto)) {
      const f = proto[name];
      if (name === 'constructor' || name === 'draw' || typeof f !== 'function') continue;
      originals.set(name, f);
      proto[name] = function counted(...args) { calls++; return f.apply(this, args); };
    }
    proto.draw = function timed(...args) {
      calls++;
      const t = performance.now();
      try { return render.apply(this, args); } finally { inRender += performance.now() - t; }
    };
    let changes = 0;
    const errors = [];
    const onChange = () => { changes++; };
    const onError = (e) => errors.push(e.detail.message);
    el.addEventListener('change', onChange);
    el.addEventListener('error', onError);
    const total = [], call = [], flushed = [], nextFrame = [], crossings = [];
    try {
      for (let k = 0; k < warmup + samples; k++) {
        await frame();
        const cell = cells[(k * 7) % cells.length];
        const x = Number(cell.value);
        const text = String(Number((x + (k % 2 ? -0.25 : 0.5)).toFixed(4)));
        const before = changes;
        inRender = 0;
        calls = 0;
        if (traced) console.timeStamp('av-edit');
        const t0 = performance.now();
        cell.value = text;
        cell.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
        const t1 = performance.now();
        const crossed = calls;
        // Not when traced: the trace shows where the browser itself rasterises the canvases.
        if (!traced) for (const ctx of ctxs) ctx.getImageData(0, 0, 1, 1);
        const t2 = performance.now();
        await frame();
        const t3 = performance.now();
        if (changes !== before + 1) throw new Error(`edit ${k}: expected one change event, got ${changes - before} (${errors[0] ?? 'no error'})`);
        if (k >= warmup) { total.push(t1 - t0); call.push(inRender); flushed.push(t2 - t0); nextFrame.push(t3 - t0); crossings.push(crossed); }
        if (traced) { await frame(); await frame(); }
      }
      if (traced) console.timeStamp('av-end');
    } finally {
      proto.draw = render;
      for (const [name, f] of originals) proto[name] = f;
      el.removeEventListener('change', onChange);
      el.removeEventListener('error', onError);
    }
    return {
      total, call, flushed, nextFrame, crossings, views,
      canvas_px: canvases.reduce((s, c) => s + c.width * c.height, 0),
      inputs: root.querySelectorAll('input.cell').length,
    };
  };

  /** Self-attention, n tokens × d, with d × d projections; values from np.random.seed(seed); randn, 2 decimals. */
  window.benchConfig = ({ n, d, seed, heads, mask }) => {
    const rs = new av.RandomState(seed);
    const r2 = (m) => m.map((row) => row.map((x) => Math.round(x * 100) / 100));
    const config = { embeddings: r2(rs.randn(n, d)), w_q: r2(rs.randn(d, d)), w_k: r2(rs.randn(d, d)), w_v: r2(rs.randn(d, d)) };
    if (heads) config.heads = heads;
    if (mask) config.mask = mask;
    return config;
  };
}

const CASES = [
  { what: 'seed-000 (self 4×3, W 3×3)', preset: 'seed-000', target: TARGET_MS },
  { what: 'seed-001 (self 4×3, W 3×3, floats)', preset: 'seed-001', target: TARGET_MS },
  { what: 'seed-002 (self, no projections)', preset: 'seed-002', target: TARGET_MS },
  { what: 'seed-003 (cross, 4 annotations × 3)', preset: 'seed-003', target: TARGET_MS },
  { what: 'self n=128 × d=64, d_k=d_v=64', big: { n: 128, d: 64, seed: 0 }, target: TARGET_MS },
  { what: 'self n=128 × d=64, d_k=d_v=64, + naive_weights', big: { n: 128, d: 64, seed: 0 }, naive: true, target: TARGET_MS },
  { what: 'self n=4 × d=64, d_k=d_v=64', big: { n: 4, d: 64, seed: 0 }, target: TARGET_MS },
  { what: 'self n=512 × d=64, d_k=d_v=64', big: { n: 512, d: 64, seed: 0 }, target: 33 },
  // Eight heads: the handler within 16 ms and the edit on screen within two frames.
  { what: 'self n=128 × d_model=64, 8 heads (d_k=8)', big: { n: 128, d: 64, seed: 0, heads: 8 }, target: TARGET_MS, frames: 2 },
  { what: 'self n=512 × d=64, causal mask', big: { n: 512, d: 64, seed: 0, mask: 'causal' }, target: 33 },
  // A W_Q value at n = 1024 (a scrub's step): the scores move by a rank-1 term; the element repaints what is on screen.
  // In a laptop's window (1280 × 900), the W_Q grid scrolled into view as a reader scrubbing it has it.
  { what: 'W_Q edit, self n=1024 × d=8', big: { n: 1024, d: 8, seed: 0 }, matrix: 'w_q', window: true, target: 33 },
  { what: 'W_Q edit, self n=1024 × d=64', big: { n: 1024, d: 64, seed: 0 }, matrix: 'w_q', window: true, target: 33 },
];

/** Runs every case in one fresh page; `ctx` is {site, samples, warmup, log}. At least 30 samples per case. */
export async function run({ site, samples = 30, warmup = 5, log = () => {} }) {
  const n = Math.max(30, samples);
  const page = await benchPage(site, pageBench);
  // Tall enough that the whole element is on screen: off-screen panels skip the browser's
  // layout and paint (content-visibility), and a reader watches the heatmaps while editing.
  await page.setViewportSize({ width: 1280, height: 4000 });
  const rows = [];
  // BENCH_ONLY=<text>: only the cases whose name contains it (a quicker look at one row).
  for (const c of CASES.filter((c) => !process.env.BENCH_ONLY || c.what.includes(process.env.BENCH_ONLY))) {
    log(`  ${c.what} …`);
    const { setup_ms } = await page.evaluate(
      async ({ preset, big, naive }) => window.benchMount({ config: preset ? av.presets[preset] : window.benchConfig(big), naive }),
      { preset: c.preset, big: c.big, naive: !!c.naive },
    );
    await page.evaluate((m) => { window.benchMatrix = m; }, c.matrix ?? null);
    if (c.window) {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.evaluate((m) => window.benchEl.shadowRoot.querySelector(`input.cell[data-matrix="${m}"]`).scrollIntoView({ block: 'center' }), c.matrix);
      await page.waitForTimeout(300);
    }
    const r = await page.evaluate((args) => window.benchEdits(args), { warmup, samples: n });
    // Then a few edits under a Chromium trace: where each edit's frames go (style, layout, paint, raster …).
    // First the timed edits settle (figures.js SETTLE_MS: the canvases are measured and the text alternatives
    // rebuilt once typing stops): that one-off work is not an edit's.
    await page.waitForTimeout(500);
    await site.browser.startTracing(page, { categories: TRACE_CATEGORIES });
    let traced;
    try {
      await page.evaluate((args) => window.benchEdits(args), { warmup: 0, samples: TRACED_EDITS, traced: true });
    } finally {
      traced = await site.browser.stopTracing();
    }
    const trace = summariseTrace(JSON.parse(String(traced)).traceEvents);
    if (c.window) await page.setViewportSize({ width: 1280, height: 4000 });
    // BENCH_TRACE=<dir>: keep each row's trace there too, to open in DevTools' Performance panel.
    if (process.env.BENCH_TRACE) {
      mkdirSync(process.env.BENCH_TRACE, { recursive: true });
      writeFileSync(join(process.env.BENCH_TRACE, `element-${rows.length}.json`), traced);
    }
    const med = median(r.total);
    const frameMed = median(r.nextFrame);
    const frames = Math.max(1, Math.round(frameMed / FRAME_MS));
    const frameBudget = c.target == null ? null : c.frames ?? Math.max(1, Math.round(c.target / FRAME_MS));
    rows.push({
      what: `${c.what}: ${r.views.length} heatmaps`,
      median_ms: med,
      p90_ms: percentile(r.total, 90),
      target_ms: c.target,
      ok: c.target == null ? null : med <= c.target && frames <= frameBudget,
      frame_median_ms: frameMed,
      frame_p90_ms: percentile(r.nextFrame, 90),
      frames, frames_shown: String(frames),
      call_median_ms: median(r.call),
      // JS→WASM calls (Viz methods) in the edit's handler, median: one `edit` and one `draw` per changed canvas.
      core_calls: median(r.crossings), core_calls_shown: String(median(r.crossings)),
      flushed_median_ms: median(r.flushed),
      flushed_p90_ms: percentile(r.flushed, 90),
      setup_ms,
      views: r.views,
      canvas_px: r.canvas_px,
      inputs: r.inputs,
      trace,
      samples: r.total.length,
      samples_ms: r.total,
    });
  }
  if (page.errors.length) throw new Error(`the page logged errors: ${page.errors.join('; ')}`);
  await page.close();
  const fmt = (x) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
  const notes = [`Chromium trace summary, ms per edit (CPU time, the median of ${TRACED_EDITS} traced edits per row; renderer main thread: script, canvas, style, `
    + 'layout, paint = pre-paint + paint, commit = layerize + commit, main_other; then the compositor thread, the raster workers and '
    + 'the GPU/viz process, software with --disable-gpu), and the live <input> elements:'];
  for (const r of rows) {
    const t = r.trace;
    notes.push(`  ${r.what}: ${r.inputs} inputs; ${t ? TRACE_PARTS.map((p) => `${p} ${fmt(t[p])}`).join(', ') : 'no trace'}`);
  }
  return { rows, notes };
}

// ---- the Chromium trace of a few edits per row -------------------------------------------------------------------

/** Edits traced per row (after the timed ones, in the same page). */
const TRACED_EDITS = 10;
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'gpu', 'viz',
  'toplevel', 'v8.execute', 'disabled-by-default-devtools.timeline.frame'];

/** Where the time of an edit goes, in the order the summary prints it. */
export const TRACE_PARTS = ['script', 'canvas', 'style', 'layout', 'paint', 'commit', 'main_other', 'compositor', 'raster', 'gpu'];

/** The part of the renderer main thread an event's self time belongs to, by its name; null: its parent's. */
function mainPart(name) {
  if (/^(UpdateLayoutTree|RecalculateStyles|Document::(updateStyle|recalcStyle|rebuildLayoutTree)|StyleRecalc|ParseAuthorStyleSheet)/.test(name)) return 'style';
  if (/^(Layout|LocalFrameView::(layout|performLayout|UpdateStyleAndLayout)|UpdateLayout|LayoutNG|InlineNode::|InvalidateLayout)/.test(name)) return 'layout';
  // Layerizing (PaintArtifactCompositor) before painting: both names start with "Paint".
  if (/^(Layerize|Commit|UpdateLayerTree|PaintArtifactCompositor|CompositeLayers|ProxyMain::BeginMainFrame::commit|LayerTreeHost::|Blink.CompositingInputs)/.test(name)) return 'commit';
  if (/^(PrePaint|Blink.PrePaint|Paint|Blink.Paint|PaintImage|Decode|ImageDecode|RasterInvalidation|PaintController)/.test(name)) return 'paint';
  if (/Canvas/.test(name)) return 'canvas';
  if (/^(EventDispatch|FunctionCall|FireAnimationFrame|TimerFire|RunMicrotasks|EvaluateScript|v8\.|V8\.|MajorGC|MinorGC|BlinkGC)/.test(name)) return 'script';
  return null;
}

/**
 * Per edit of a trace (the windows between its "av-edit" marks, the last closed by "av-end"): the CPU time (thread
 * clock, so other processes on the machine barely change it) of the renderer main thread by part — each event's self
 * time goes to the innermost event around it that mainPart names — and the busy CPU time of the renderer's
 * compositor thread, its raster workers, and the GPU/viz process (with --disable-gpu, rasterising and uploading in
 * software). Returns ms per edit, each part's median over the edits, or null without marks.
 */
export function summariseTrace(events) {
  const threads = new Map(); // "pid:tid" → thread name
  const processes = new Map(); // pid → process name
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
    if (e.name === 'process_name') processes.set(e.pid, e.args.name);
  }
  const marks = events.filter((e) => e.name === 'TimeStamp' && /^av-(edit|end)$/.test(e.args?.data?.message ?? ''))
    .sort((a, b) => a.ts - b.ts);
  const edits = marks.length - 1;
  if (edits < 1) return null;
  const [from, to] = [marks[0].ts, marks[edits].ts];
  const renderer = marks[0].pid;
  // The edit an event belongs to: the one whose window it starts in.
  const editOf = (ts) => { let k = 0; while (k + 1 < edits && marks[k + 1].ts <= ts) k++; return k; };
  const threadOf = (e) => {
    const name = threads.get(`${e.pid}:${e.tid}`) ?? '';
    if (e.pid === renderer) {
      if (name === 'CrRendererMain') return 'main';
      if (name === 'Compositor') return 'compositor';
      if (/TileWorker|Raster/.test(name)) return 'raster';
      return null;
    }
    if (/GPU/i.test(processes.get(e.pid) ?? '') || /Viz|CrGpuMain/.test(name)) return 'gpu';
    return null;
  };
  // Complete events per thread on the thread clock (B/E pairs joined), sorted by start, outer before inner.
  const byThread = new Map();
  const open = new Map();
  for (const e of events) {
    if ((e.ph !== 'X' && e.ph !== 'B' && e.ph !== 'E') || e.tts === undefined) continue;
    const where = threadOf(e);
    if (!where) continue;
    const key = `${e.pid}:${e.tid}`;
    if (e.ph === 'B') { (open.get(key) ?? open.set(key, []).get(key)).push(e); continue; }
    let x = e;
    if (e.ph === 'E') {
      const b = open.get(key)?.pop();
      if (!b) continue;
      x = { name: b.name, ts: b.ts, tts: b.tts, tdur: e.tts - b.tts };
    }
    if (!(x.tdur > 0) || x.ts < from || x.ts >= to) continue;
    (byThread.get(key) ?? byThread.set(key, { where, list: [] }).get(key)).list.push({ name: x.name, t0: x.tts, t1: x.tts + x.tdur, edit: editOf(x.ts) });
  }
  // ms per part per edit.
  const sums = Object.fromEntries(TRACE_PARTS.map((p) => [p, new Array(edits).fill(0)]));
  let edit = 0;
  const add = (part, t0, t1) => { if (t1 > t0) sums[part][edit] += (t1 - t0) / 1000; };
  for (const { where, list } of byThread.values()) {
    list.sort((a, b) => a.t0 - b.t0 || b.t1 - a.t1);
    if (where !== 'main') {
      // Busy time: the union of the thread's events.
      let t0 = -Infinity, t1 = -Infinity;
      for (const e of list) {
        if (e.t0 > t1) { add(where, t0, t1); t0 = e.t0; t1 = e.t1; edit = e.edit; } else t1 = Math.max(t1, e.t1);
      }
      add(where, t0, t1);
      continue;
    }
    // Self time: each event's time minus its children's, given to the innermost named part around it.
    const stack = [];
    const close = (upTo) => {
      while (stack.length && stack[stack.length - 1].end <= upTo) {
        const top = stack.pop();
        add(top.part, top.cursor, top.end);
        if (stack.length) stack[stack.length - 1].cursor = top.end;
      }
    };
    for (const e of list) {
      close(e.t0);
      if (!stack.length) edit = e.edit; // a top-level task: its nested events are counted in its edit
      const parent = stack[stack.length - 1];
      const end = parent ? Math.min(e.t1, parent.end) : e.t1;
      if (parent) { add(parent.part, parent.cursor, e.t0); parent.cursor = end; }
      stack.push({ part: mainPart(e.name) ?? parent?.part ?? 'main_other', cursor: e.t0, end });
    }
    close(Infinity);
  }
  // The median edit of each part: a garbage collection or a late timer in one edit is not every edit's.
  return Object.fromEntries(TRACE_PARTS.map((p) => [p, median(sums[p])]));
}
