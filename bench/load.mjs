// Benchmark suite "load": index.html, served on localhost as `make serve` serves it (scripts/serve.mjs --built:
// dist/'s built, minified modules, the first module's pictures first; www/'s own modules when there is no dist/),
// from navigation start to the first <attention-viz> drawn, in headless Chromium; and the
// size of the drop-in bundle (dist/sizes.json, written by `make dist`). Also the first picture on screen and every
// figure showing something (its picture or itself).
//
// Each sample opens the page in a new browser context (an empty cache) with
// the cache disabled as well (CDP Network.setCacheDisabled; the server also
// sends Cache-Control: no-store), so the HTML, CSS, JS and .wasm are fetched
// and the WASM compiled every time. An init script, run before the page's own
// scripts, listens in the capture phase on window for the `change` event the
// element fires once it has drawn its heatmaps (synchronously, after the
// Viz.render calls) and notes performance.now(), whose origin is the
// navigation start. A requestAnimationFrame poll (a heatmap canvas in the
// element's shadow root marked data-painted) is the fallback should the element ever
// stop firing `change` on its first draw; the row says which one was seen.
// Also noted: the next animation frame after the first draw (when it can be
// on screen), every element on the page drawn, and the navigation timing.
// "Every element" is the number the untimed warm-up loads counted once the page
// had settled (chapter 9's figures are made by script after `ready`): a timed
// load waits for that many, so one whose late figures are not made yet is not
// taken as done. The breakdown in the notes says what happens when: the HTML,
// the last module, the .wasm fetched and compiled (an init-script wrapper around
// WebAssembly.compileStreaming/compile notes when its promise settles), the first
// and the last figure drawn.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadavg, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { median, percentile } from './heatmap.mjs';
import { serve } from '../scripts/serve.mjs';

export const description = 'index.html → first <attention-viz> drawn (fresh context, cache disabled), and the bundle size';

export const columns = [['seen by', 'via']];

// The load targets: the first figure ≤ 250 ms after navigation on an idle machine, every figure ≤ 600 ms.
const TARGET_MS = 250;
const ALL_TARGET_MS = 600;
const BUNDLE_TARGET_KB = 150;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs in the page before its scripts. */
function initScript() {
  const marks = { drawn: [], via: null, errors: [], compiled: null, shown: [] };
  window.__avLoad = marks;
  for (const name of ['compileStreaming', 'compile']) {
    const original = WebAssembly[name];
    if (typeof original !== 'function') continue;
    WebAssembly[name] = function (...args) {
      const p = original.apply(this, args);
      p.then(() => { marks.compiled ??= performance.now(); }, () => {});
      return p;
    };
  }
  const seen = new Set();
  const drawn = (el, via) => {
    if (seen.has(el)) return;
    seen.add(el);
    const t = performance.now();
    marks.drawn.push(t);
    performance.mark('av-drawn'); // for the traced loads (mainThreadCpu)
    if (marks.drawn.length === 1) {
      marks.via = via;
      requestAnimationFrame(() => { marks.frame = performance.now(); });
    }
  };
  addEventListener('change', (e) => { if (e.target?.localName === 'attention-viz') drawn(e.target, 'change'); }, true);
  addEventListener('error', (e) => { if (e.target?.localName === 'attention-viz') marks.errors.push(e.detail?.message); }, true);
  const shown = new Set();
  const poll = () => {
    for (const el of document.querySelectorAll('attention-viz')) {
      // Its picture on screen (www/first.js: an image in its picture slot, loaded), or the figure drawn.
      const img = el.querySelector(':scope > [slot="picture"] img');
      if (!shown.has(el) && (seen.has(el) || (img?.complete && img.naturalWidth))) { shown.add(el); marks.shown.push(performance.now()); }
      // A heatmap canvas figures.js has rendered into (it marks each with data-painted): the element makes other
      // canvases (variants, peek, the model grid) before the core is ready, 300 px wide by default and blank.
      if (!seen.has(el) && el.shadowRoot?.querySelector('canvas[data-painted]')) drawn(el, 'poll');
    }
    const total = document.querySelectorAll('attention-viz').length;
    if (document.readyState !== 'complete' || seen.size < total || shown.size < total) requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}

/** One cold load; waits for `expect` elements drawn (null: as many as the page has when the first is drawn, after a quiet second). */
async function sample(site, base, expect = null, timeoutMs = 15000) {
  const page = await site.page(null); // a new page in a new browser context
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.addInitScript(initScript);
    await page.goto(`${base}index.html`, { waitUntil: 'load' });
    await page.waitForFunction((n) => {
      const m = window.__avLoad;
      return m.errors.length > 0 || (m.frame !== undefined && m.drawn.length >= Math.max(n ?? 0, document.querySelectorAll('attention-viz').length));
    }, expect, { timeout: timeoutMs, polling: 50 });
    // Untimed: let script-made figures appear (and be drawn) before counting them.
    if (expect == null) {
      await page.waitForTimeout(1000);
      await page.waitForFunction(() => window.__avLoad.drawn.length >= document.querySelectorAll('attention-viz').length,
        null, { timeout: timeoutMs, polling: 50 });
    }
    const r = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const res = performance.getEntriesByType('resource');
      const wasm = res.find((e) => e.name.endsWith('.wasm'));
      const modules = res.filter((e) => /\.m?js$/.test(new URL(e.name).pathname));
      return {
        ...window.__avLoad,
        elements: document.querySelectorAll('attention-viz').length,
        dom_content_loaded: nav.domContentLoadedEventEnd,
        load: nav.loadEventEnd,
        wasm_fetched: wasm ? wasm.responseEnd : null,
        wasm_requested: wasm ? wasm.startTime : null,
        wasm_requests: res.filter((e) => e.name.endsWith('.wasm')).length,
        html: nav.responseEnd,
        last_module: modules.length ? Math.max(...modules.map((e) => e.responseEnd)) : null,
        modules: modules.length,
        bytes: res.reduce((s, e) => s + (e.transferSize || 0), nav.transferSize || 0),
        cached: res.filter((e) => e.transferSize === 0 && e.decodedBodySize > 0).map((e) => e.name),
      };
    });
    if (r.errors.length) throw new Error(`an element reported: ${r.errors[0]}`);
    if (page.errors.length) throw new Error(`the page logged errors: ${page.errors.join('; ')}`);
    return r;
  } finally {
    await page.close();
  }
}

/**
 * The renderer main thread's CPU time (the trace's thread clock, `tdur` of its top-level tasks) from navigation to the
 * first figure drawn and to the `expect`-th, and how much of it was style and layout: on a loaded machine the wall
 * clock is mostly waiting for a core, the thread's own time much less so. One more cold load, traced.
 */
async function mainThreadCpu(site, base, expect, timeoutMs = 60000) {
  const page = await site.page(null);
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.addInitScript(initScript);
    const events = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    const complete = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
    await cdp.send('Tracing.start', { categories: 'disabled-by-default-devtools.timeline,devtools.timeline,blink.user_timing', transferMode: 'ReportEvents' });
    await page.goto(`${base}index.html`, { waitUntil: 'load' });
    await page.waitForFunction((n) => window.__avLoad.drawn.length >= n, expect, { timeout: timeoutMs, polling: 50 });
    await cdp.send('Tracing.end');
    await complete;
    const marks = events.filter((e) => e.name === 'av-drawn').sort((a, b) => a.ts - b.ts);
    if (marks.length < expect) return null;
    const { pid } = marks[0];
    const main = events.find((e) => e.name === 'thread_name' && e.pid === pid && e.args?.name === 'CrRendererMain');
    if (!main) return null;
    const on = (names, until) => events.filter((e) => e.pid === pid && e.tid === main.tid && e.ph === 'X' && names.includes(e.name) && e.ts <= until)
      .reduce((s, e) => s + (e.tdur ?? e.dur ?? 0), 0) / 1000;
    const first = marks[0].ts;
    const last = marks[expect - 1].ts;
    return { first: on(['RunTask'], first), all: on(['RunTask'], last), style_first: on(['UpdateLayoutTree', 'Layout'], first), style_all: on(['UpdateLayoutTree', 'Layout'], last) };
  } finally {
    await page.close();
  }
}

function bundle() {
  const file = join(root, 'dist', 'sizes.json');
  if (!existsSync(file)) return { note: `bundle size: no dist/sizes.json — run make dist (target ≤ ${BUNDLE_TARGET_KB} KB gzipped)`, sizes: null };
  const sizes = JSON.parse(readFileSync(file, 'utf8'));
  const kb = sizes.module_total_gzip_bytes / 1024;
  // Built before the wasm the page serves: the sizes may be out of date.
  const wasm = join(root, 'www', 'pkg', 'attention_viz_bg.wasm');
  const stale = existsSync(wasm) && statSync(wasm).mtimeMs > statSync(file).mtimeMs;
  const parts = Object.entries(sizes.gzip_bytes ?? {}).map(([p, b]) => `${p} ${(b / 1024).toFixed(1)}`).join(', ');
  return {
    note: `bundle (dist/sizes.json): module JS + WASM ${kb.toFixed(1)} KiB gzipped, target ≤ ${BUNDLE_TARGET_KB} KB: ${kb <= BUNDLE_TARGET_KB ? 'ok' : 'OVER'}`
      + ` (${parts}; single file ${(sizes.inline_gzip_bytes / 1024).toFixed(1)} KiB)`
      + `${sizes.models_gzip_bytes ? `; the trained models apart: ${sizes.models_file} ${(sizes.models_gzip_bytes / 1024).toFixed(1)} KiB, fetched only when asked (loadModels(), a figure of a shipped model)` : ''}${stale ? ' — older than the last wasm build: run make dist for current numbers' : ''}`,
    sizes, kb, ok: kb <= BUNDLE_TARGET_KB, stale,
  };
}

export async function run({ site, samples = 30, warmup = 5, log = () => {} }) {
  const n = Math.max(5, Math.ceil(samples / 3)); // each sample is a whole page load: ~10 by default
  const w = Math.min(2, warmup);
  const built = existsSync(join(root, 'dist', 'attention-viz.first.js'));
  const server = built ? await serve({ root, port: 0, built: true }) : null;
  const base = server?.url ?? site.url;
  log(`  ${w} + ${n} page loads of ${built ? 'the built page (dist/)' : 'www/ (no dist/: make dist for the built page)'} …`);
  const runs = [];
  let expect = null;
  const cpu = [];
  try {
    for (let k = 0; k < Math.max(w, 1) + n; k++) {
      const r = await sample(site, base, k < Math.max(w, 1) ? null : expect);
      if (k < Math.max(w, 1)) expect = Math.max(expect ?? 0, r.drawn.length);
      else runs.push(r);
    }
    // Three traced loads after the timed ones (tracing slows a load: they are not among the timed ones).
    for (let k = 0; k < 3; k++) { const c = await mainThreadCpu(site, base, expect); if (c) cpu.push(c); }
  } finally {
    server?.server.close();
  }
  const col = (f) => runs.map(f).filter((x) => x != null);
  const row = (what, xs, target, extra = {}) => {
    const med = median(xs);
    return { what, median_ms: med, p90_ms: percentile(xs, 90), target_ms: target, ok: target == null ? null : med <= target,
      samples: xs.length, samples_ms: xs, ...extra };
  };
  const vias = [...new Set(runs.map((r) => r.via))].join('/');
  const elements = expect;
  const rows = [
    row('index.html → first <attention-viz> drawn', col((r) => r.drawn[0]), TARGET_MS, { via: vias }),
    row('  … and its next animation frame', col((r) => r.frame), null, { via: 'rAF' }),
    row('  first figure showing its picture or itself', col((r) => r.shown[0]), null, { via: 'rAF poll' }),
    row(`  … all ${elements} showing their picture or themselves`, col((r) => r.shown[elements - 1]), null, { via: 'rAF poll' }),
    row(`  … all ${elements} elements drawn`, col((r) => r.drawn[elements - 1]), ALL_TARGET_MS, { via: vias }),
    row('  DOMContentLoaded (end)', col((r) => r.dom_content_loaded), null, { via: 'nav timing' }),
    row('  last module fetched (responseEnd)', col((r) => r.last_module), null, { via: 'res timing' }),
    row('  .wasm fetched (responseEnd)', col((r) => r.wasm_fetched), null, { via: 'res timing' }),
    row('  .wasm compiled', col((r) => r.compiled), null, { via: 'compile promise' }),
    row('  load event (end)', col((r) => r.load), null, { via: 'nav timing' }),
  ];
  const mc = (f) => (cpu.length ? median(cpu.map(f)) : null);
  if (cpu.length) {
    rows.push(row('  main-thread CPU to the first figure (traced)', cpu.map((c) => c.first), null, { via: 'trace tdur' }));
    rows.push(row(`  main-thread CPU to all ${elements} (traced)`, cpu.map((c) => c.all), null, { via: 'trace tdur' }));
  }
  const b = bundle();
  const cached = [...new Set(runs.flatMap((r) => r.cached))];
  const notes = [
    `${n} loads (after ${w} untimed), each in a new context with the cache disabled; ${(median(col((r) => r.bytes)) / 1024).toFixed(0)} KiB transferred per load`
      + (built ? ' (dist/\'s built modules, as make serve serves index.html).' : ' (www/, unminified: no dist/).'),
    b.note,
  ];
  const m = (f) => { const xs = col(f); return xs.length ? `${median(xs).toFixed(0)}` : '–'; };
  notes.push(`What happens when (medians, ms from navigation start): HTML ${m((r) => r.html)}; .wasm requested ${m((r) => r.wasm_requested)}`
    + `, fetched ${m((r) => r.wasm_fetched)}, compiled ${m((r) => r.compiled)}; last of ${runs[0].modules} modules fetched ${m((r) => r.last_module)}`
    + `; DOMContentLoaded ${m((r) => r.dom_content_loaded)}; first figure drawn ${m((r) => r.drawn[0])} (on screen by ${m((r) => r.frame)})`
    + `; last of ${elements} drawn ${m((r) => r.drawn[elements - 1])}.`);
  const extra = [...new Set(runs.map((r) => r.wasm_requests))].filter((k) => k > 1);
  if (extra.length) notes.push(`Odd: the .wasm was requested ${extra.join('/')} times in a load (a preload not taken by www/compile.js's fetch?)`);
  if (cached.length) notes.push(`Odd: served from a cache despite the settings: ${cached.join(', ')}`);
  if (cpu.length) {
    notes.push(`Main-thread CPU (the trace's thread clock, ${cpu.length} more loads, traced): ${mc((c) => c.first).toFixed(0)} ms to the first figure`
      + ` (style and layout ${mc((c) => c.style_first).toFixed(0)}), ${mc((c) => c.all).toFixed(0)} ms to all ${elements} (style and layout`
      + ` ${mc((c) => c.style_all).toFixed(0)}): on a busy machine these move much less than the wall-clock rows.`);
  }
  notes.push(`Load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${cpus().length} cores (row 2's targets are for an idle machine).`);
  const first = median(col((r) => r.drawn[0]));
  const all = median(col((r) => r.drawn[elements - 1]));
  // No anchor of another library for row 2: the page's own HTML arriving and DOMContentLoaded, in the same loads.
  const anchor = `HTML ${m((r) => r.html)} ms, DOMContentLoaded ${m((r) => r.dom_content_loaded)} ms, .wasm compiled ${m((r) => r.compiled)} ms`;
  const targets = [
    { row: 2, what: 'guided page: first figure drawn', measured: `${first.toFixed(0)} ms`, target: `≤ ${TARGET_MS} ms`,
      anchor: `${anchor}${cpu.length ? `; main-thread CPU ${mc((c) => c.first).toFixed(0)} ms` : ''}`, ok: first <= TARGET_MS },
    { row: 2, what: `guided page: all ${elements} figures drawn`, measured: `${all.toFixed(0)} ms`, target: `≤ ${ALL_TARGET_MS} ms`, anchor: `load ${loadavg()[0].toFixed(1)}`, ok: all <= ALL_TARGET_MS },
  ];
  return { rows, notes, targets, bundle: b.sizes, bundle_kb: b.kb ?? null, bundle_target_kb: BUNDLE_TARGET_KB, bundle_ok: b.ok ?? null, bundle_stale: b.stale ?? null };
}
