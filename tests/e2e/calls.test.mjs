// What one typed digit costs in calls across the JS ↔ WASM boundary (issue 23 item 3), counted, never timed: every
// method of the core's `Viz` and every function the wasm-bindgen module exports is wrapped in a counter before the
// element loads, and the 2D context's methods and property setters the core's drawing reaches are counted too.
// A reader types one digit into a cell of seed-001 with the real keyboard: at most 1 + (the canvases it changed)
// JS→WASM calls (one `Viz.edit`, then one `renderLayers` per changed canvas: its heatmap and its outlines' overlay), none later when the edit settles, and one
// `fillStyle` per colour run when the heatmaps are drawn (not one per cell).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, WAIT } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** Installed before the element loads: counters around the core's exports and the canvas API. */
function installCounters() {
  window.calls = { wasm: [], canvas: new Map() };
  window.countCalls = async () => {
    const core = await import('/www/pkg/attention_viz.js');
    const wrap = (owner, name, label) => {
      const f = owner[name];
      if (typeof f !== 'function' || f.__counted) return;
      const counted = function counted(...args) { window.calls.wasm.push(label); return f.apply(this, args); };
      counted.__counted = true;
      owner[name] = counted;
    };
    for (const name of Object.getOwnPropertyNames(core.Viz.prototype)) {
      if (name !== 'constructor' && name !== 'free' && name !== '__destroy_into_raw') wrap(core.Viz.prototype, name, `Viz.${name}`);
    }
    for (const name of Object.getOwnPropertyNames(core.Viz)) wrap(core.Viz, name, `Viz.${name}`);
    const proto = CanvasRenderingContext2D.prototype;
    const bump = (k) => window.calls.canvas.set(k, (window.calls.canvas.get(k) ?? 0) + 1);
    for (const name of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (typeof d.value === 'function' && name !== 'constructor') {
        const f = d.value;
        proto[name] = function counted(...args) { bump(name); return f.apply(this, args); };
      } else if (d.set) {
        const set = d.set;
        Object.defineProperty(proto, name, { ...d, set(v) { bump(`${name}=`); set.call(this, v); } });
      }
    }
  };
}

/** A blank page with the counters installed and seed-001 drawn as #fig with these attributes. */
async function figure(attributes) {
  const page = await site.page('tests/fixtures/blank.html');
  await page.evaluate(installCounters);
  await page.evaluate(() => window.countCalls());
  await page.evaluate(async (attributes) => {
    const av = await import('/www/attention-viz.js');
    await av.ready;
    const e = document.createElement('attention-viz');
    e.id = 'fig';
    e.setAttribute('preset', 'seed-001');
    for (const [name, value] of Object.entries(attributes)) e.setAttribute(name, value);
    document.body.append(e);
  }, attributes);
  await page.waitForFunction(() => {
    const e = document.querySelector('#fig');
    return e?.trace && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0);
  });
  return page;
}

test('one typed digit in seed-001: at most 1 + (changed canvases) JS→WASM calls, nothing more when it settles, one fillStyle per colour run', async () => {
  const page = await figure({ theme: 'light' });
  // Let the first load settle (text alternatives, measured sizes) before counting.
  await page.waitForTimeout(700);
  const cell = page.locator('#fig').locator('input.cell[data-matrix="embeddings"][data-row="1"][data-col="2"]');
  await cell.scrollIntoViewIfNeeded();
  await cell.click();
  await page.keyboard.press('End');
  await page.waitForTimeout(700);
  await page.evaluate(() => {
    window.calls.wasm = [];
    window.calls.canvas = new Map();
    const e = document.querySelector('#fig');
    window.painted = new Map([...e.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => [c.dataset.view, c.dataset.painted]));
    window.changes = 0;
    e.addEventListener('change', () => { window.changes++; });
  });
  await page.keyboard.type('7');
  const typed = await page.evaluate(() => {
    const e = document.querySelector('#fig');
    const changed = [...e.shadowRoot.querySelectorAll('canvas[data-view]')].filter((c) => window.painted.get(c.dataset.view) !== c.dataset.painted);
    return { wasm: [...window.calls.wasm], canvas: Object.fromEntries(window.calls.canvas), changed: changed.length, views: changed.map((c) => c.dataset.view), changes: window.changes, value: e.config.embeddings[1][2] };
  });
  // The settle timer's turn (300 ms after the last edit): the sizes (one call for every view), the text alternatives
  // (one call for every changed view) and the canvases whose numbers now need another size, nothing else.
  await page.evaluate(() => {
    window.calls.wasm = []; window.calls.canvas = new Map();
    window.sizes = new Map([...document.querySelector('#fig').shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => [c.dataset.view, `${c.width}x${c.height}`]));
  });
  await page.waitForTimeout(1000);
  const settled = await page.evaluate(() => ({
    wasm: [...window.calls.wasm], canvas: Object.fromEntries(window.calls.canvas),
    resized: [...document.querySelector('#fig').shadowRoot.querySelectorAll('canvas[data-view]')].filter((c) => window.sizes.get(c.dataset.view) !== `${c.width}x${c.height}`).length,
  }));
  const focus = await page.evaluate(() => {
    const a = document.querySelector('#fig').shadowRoot.activeElement;
    return a ? `${a.dataset.matrix}:${a.dataset.row}:${a.dataset.col}` : null;
  });
  const sum = (o) => Object.values(o).reduce((s, x) => s + x, 0);
  console.log(`typed: ${typed.wasm.length} JS→WASM calls (${typed.wasm.join(', ')}), ${typed.changed} canvases changed (${typed.views}; the cell is now ${typed.value}), `
    + `${sum(typed.canvas)} canvas calls (fillStyle= ${typed.canvas['fillStyle='] ?? 0}, fillRect ${typed.canvas.fillRect ?? 0}, fillText ${typed.canvas.fillText ?? 0})`);
  console.log(`settled: ${settled.wasm.length} JS→WASM calls (${settled.wasm.join(', ')}), ${settled.resized} canvases resized, ${sum(settled.canvas)} canvas calls`);
  assert.equal(typed.changes, 1, 'one change event');
  assert.equal(focus, 'embeddings:1:2', 'the keyboard stays in the typed cell');
  assert.ok(typed.changed > 0, 'the edit repainted some canvases');
  assert.ok(typed.wasm.length <= 1 + typed.changed, `${typed.wasm.length} JS→WASM calls for ${typed.changed} changed canvases: ${typed.wasm.join(', ')}`);
  assert.deepEqual(settled.wasm.filter((c) => c !== 'Viz.renderLayers'), ['Viz.snapshot', 'Viz.describeViews'],
    'the settle timer measures the views once and asks for the changed ones\' text alternatives once');
  assert.equal(settled.wasm.length, 2 + settled.resized, `the settle timer repaints only the resized canvases: ${settled.wasm.join(', ')}`);
  // One fillStyle per colour run, not per cell: the background, the labels' colour and the numbers' two or three
  // colours a canvas (each 4 × 3 grid has 12 cells, 12 numbers and a colour bar of ~60 bands).
  assert.ok((typed.canvas['fillStyle='] ?? 0) <= 5 * typed.changed,
    `${typed.canvas['fillStyle=']} fillStyle sets on ${typed.changed} canvases (${typed.canvas.fillRect} fillRects, ${typed.canvas.fillText} fillTexts)`);
  await done(page);
}, { timeout: WAIT });

test('following another query with a click on the weights: one Viz.edit, then only the outlines that moved, on their overlay', async () => {
  const page = await figure({ views: 'q,weights,context,breakdown' });
  await page.waitForTimeout(700);
  const weights = page.locator('#fig').locator('canvas[data-view="weights"]');
  await weights.scrollIntoViewIfNeeded();
  // Where row 2 is, as the core laid it out (asked before the count starts).
  const at = await page.evaluate(() => {
    const c = document.querySelector('#fig').shadowRoot.querySelector('canvas[data-view="weights"]');
    const [x0, y0, x1, y1] = document.querySelector('#fig')._viz.cellRect('weights', c.width, c.height, c.width / c.clientWidth, 2, 1, undefined);
    const r = c.getBoundingClientRect();
    const s = c.clientWidth / c.width;
    return { x: r.left + ((x0 + x1) / 2) * s, y: r.top + ((y0 + y1) / 2) * s };
  });
  await page.mouse.move(at.x, at.y);
  await page.waitForTimeout(300);
  await page.evaluate(() => {
    window.calls.wasm = [];
    const e = document.querySelector('#fig');
    window.painted = new Map([...e.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => [c.dataset.view, c.dataset.painted]));
    window.outlined = new Map([...e.shadowRoot.querySelectorAll('canvas[data-overlay]')].map((c) => [c.dataset.overlay, c.dataset.painted]));
  });
  await page.mouse.down();
  await page.mouse.up();
  const clicked = await page.evaluate(() => {
    const e = document.querySelector('#fig');
    const changed = [...e.shadowRoot.querySelectorAll('canvas[data-view]')].filter((c) => window.painted.get(c.dataset.view) !== c.dataset.painted);
    const outlined = [...e.shadowRoot.querySelectorAll('canvas[data-overlay]')].filter((c) => window.outlined.get(c.dataset.overlay) !== c.dataset.painted);
    return { wasm: [...window.calls.wasm], views: changed.map((c) => c.dataset.view), overlays: outlined.map((c) => c.dataset.overlay), query: e.config.query,
      summary: e.shadowRoot.querySelector('details.breakdown summary')?.textContent ?? '' };
  });
  console.log(`clicked: ${clicked.wasm.join(', ')}; repainted ${clicked.views}; outlines redrawn ${clicked.overlays}`);
  assert.equal(clicked.query, 2, 'the click follows query 2');
  assert.match(clicked.summary, /query 2/, 'the breakdown follows it');
  assert.deepEqual(clicked.views, [], 'no heatmap is repainted: its numbers did not change');
  assert.deepEqual(clicked.overlays, ['weights'], 'only the overlay whose outline moved is redrawn');
  // Besides the pointer's own (the hit-test, cellAt; the shown tooltip's new text, cellText): the edit and the overlay.
  const edit = clicked.wasm.filter((c) => c !== 'Viz.cellAt' && c !== 'Viz.cellText');
  assert.deepEqual(edit, ['Viz.edit', 'Viz.renderLayers'], `JS→WASM calls: ${clicked.wasm.join(', ')}`);
  await done(page);
}, { timeout: WAIT });
