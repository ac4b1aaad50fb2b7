// What one typed digit costs in calls across the JS ↔ WASM boundary, counted, never timed: every
// method of the core's `Viz` and every function the wasm-bindgen module exports is wrapped in a counter before the
// element loads, and the 2D context's methods and property setters the core's drawing reaches are counted too.
// A reader types one digit into a cell of seed-001 with the real keyboard: exactly 1 + (the canvases whose view's
// numbers changed) JS→WASM calls — one `Viz.edit`, then one `layers` draw per such canvas (its heatmap and its
// outlines' overlay), none for a canvas whose numbers stayed — where which views changed is read from the trace
// before and after the edit, not from the element's own repaint marks; then, when the edit settles, one measure,
// one text-alternatives call and a repaint of the resized canvases only; and one `fillStyle` per colour run when the
// heatmaps are drawn (not one per cell). Each step waits for what must happen (the settle's turn, however late; then
// frames that bring no call, so that nothing a frame schedules is still to come), never for a fixed time: a loaded
// machine may take any time to get there. Everything is watched from outside the element: the boundary's calls, the
// DOM, the real mouse and keyboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, pageHelpers, WAIT } from './harness.mjs';

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
      // ask({kind, …}) is counted by its kind; draw(canvas, {kind: 'layers', view, …, base}): which view it drew, and
      // whether its cells (`base`) or only its outlines' overlay, is read from its arguments, not asked of the element.
      const name_ = (args) => {
        if (name === 'ask') return `${label}:${args[0]?.kind}`;
        if (name !== 'draw') return label;
        const what = args[1] ?? {};
        return what.kind === 'layers' ? `${label}:layers:${what.view}${what.base ? '' : ' (outlines)'}` : `${label}:${what.kind}`;
      };
      const counted = function counted(...args) {
        // The settle's one measure of the views once edits stop is the figure's only asked `snapshot` after an edit
        // (an edit's own snapshot comes with `Viz.edit`): it is marked `settle` in the log, with the canvases' sizes
        // just before it.
        if (name === 'ask' && args[0]?.kind === 'snapshot') {
          const e = document.querySelector('#fig');
          window.sizes = new Map([...(e?.shadowRoot?.querySelectorAll('canvas[data-view]') ?? [])].map((c) => [c.dataset.view, `${c.width}x${c.height}`]));
          window.calls.wasm.push('settle');
        }
        window.calls.wasm.push(name_(args));
        return f.apply(this, args);
      };
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

/**
 * A blank page with the counters installed and seed-001 drawn as #fig with these attributes. The figure's settle (the
 * timer's turn once edits stop) writes a `settle` mark into the call log (its asked snapshot: installCounters), with
 * the canvases' sizes just before it, so an edit's calls and the settle's are told apart by order, however late the
 * timer runs on a loaded machine.
 */
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
  await page.evaluate(pageHelpers);
  await page.evaluate(() => {
    const frames = (n) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); });
    /**
     * Resolves once three frames in a row bring no call to the core: what the figure's first size, a hover or a
     * settle scheduled for a frame has run (a settle's own turn is awaited by its mark).
     */
    window.quiet = async () => {
      for (;;) {
        const n = window.calls.wasm.length;
        await frames(3);
        if (window.calls.wasm.length === n) return true;
      }
    };
  });
  await page.evaluate(() => window.quiet());
  return page;
}

/** Each shown view's numbers, from the trace (a view is the trace field of its name; `heads.1.weights`: a path). */
function viewNumbers() {
  const e = document.querySelector('#fig');
  const pick = (t, name) => name.split('.').reduce((o, k) => (o == null ? undefined : o[/^\d+$/.test(k) ? Number(k) : k]), t);
  return Object.fromEntries([...e.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => [c.dataset.view, JSON.stringify(pick(e.trace, c.dataset.view)) ?? null]));
}

/** The views whose numbers differ between two `viewNumbers()`. */
const changedViews = (before, after) => Object.keys(after).filter((v) => before[v] !== after[v]);

/** How long after an awaited settle the test looks on for a call that should not come: only a chance for it to show. */
const LOOK_ON = 500;

test('one typed digit in seed-001: exactly 1 + (canvases whose numbers changed) JS→WASM calls, nothing more when it settles, one fillStyle per colour run', async () => {
  const page = await figure({ theme: 'light' });
  const cell = page.locator('#fig').locator('input.cell[data-matrix="embeddings"][data-row="1"][data-col="2"]');
  await cell.scrollIntoViewIfNeeded();
  await cell.click();
  await page.keyboard.press('End');
  await page.evaluate(() => window.quiet());
  const before = await page.evaluate(viewNumbers);
  await page.evaluate(() => {
    window.calls.wasm = [];
    window.calls.canvas = new Map();
    window.changes = 0;
    document.querySelector('#fig').addEventListener('change', () => { window.changes++; });
    // What the edit drew, counted until the settle mark (the settle's own drawing is its own count below).
    window.typedCanvas = null;
    const mark = window.calls.wasm;
    mark.push = function push(x) { if (x === 'settle' && !window.typedCanvas) window.typedCanvas = Object.fromEntries(window.calls.canvas); return Array.prototype.push.call(this, x); };
  });
  await page.keyboard.type('7');
  // The settle must come (300 ms after the last edit, however late): wait for it and for what it scheduled.
  await page.waitForFunction(() => window.calls.wasm.includes('settle'));
  await page.evaluate(() => window.quiet());
  await page.waitForTimeout(LOOK_ON); // only a chance for a late, wrong call to show; nothing is awaited by it
  const got = await page.evaluate(() => {
    const e = document.querySelector('#fig');
    const all = [...window.calls.wasm];
    const at = all.indexOf('settle');
    const a = e.shadowRoot.activeElement;
    return {
      typed: all.slice(0, at), settled: all.slice(at + 1), settles: all.filter((c) => c === 'settle').length,
      canvas: window.typedCanvas,
      resized: [...e.shadowRoot.querySelectorAll('canvas[data-view]')].filter((c) => window.sizes.get(c.dataset.view) !== `${c.width}x${c.height}`).map((c) => c.dataset.view),
      changes: window.changes, value: e.config.embeddings[1][2],
      focus: a ? `${a.dataset.matrix}:${a.dataset.row}:${a.dataset.col}` : null,
    };
  });
  const after = await page.evaluate(viewNumbers);
  const changed = changedViews(before, after);
  const sum = (o) => Object.values(o ?? {}).reduce((s, x) => s + x, 0);
  console.log(`typed: ${got.typed.length} JS→WASM calls (${got.typed.join(', ')}); views whose numbers changed: ${changed} (the cell is now ${got.value}); `
    + `${sum(got.canvas)} canvas calls (fillStyle= ${got.canvas?.['fillStyle='] ?? 0}, fillRect ${got.canvas?.fillRect ?? 0}, fillText ${got.canvas?.fillText ?? 0})`);
  console.log(`settled: ${got.settled.length} JS→WASM calls (${got.settled.join(', ')}), resized ${got.resized}`);
  assert.equal(got.value, 7, 'the digit went into the cell (0 → 07)');
  assert.equal(got.changes, 1, 'one change event');
  assert.equal(got.focus, 'embeddings:1:2', 'the keyboard stays in the typed cell');
  assert.deepEqual(Object.values(before).filter((x) => x === null), [], 'every shown view is a trace field');
  // seed-001's W_V has a zero row 2 (seed 42's third draw): v's numbers cannot change, so the count leaves a canvas out.
  assert.ok(changed.length > 0 && !changed.includes('v'), `changed views: ${changed}`);
  assert.equal(got.typed[0], 'Viz.edit', `the edit comes first: ${got.typed.join(', ')}`);
  assert.deepEqual(got.typed.slice(1).sort(), changed.map((v) => `Viz.draw:layers:${v}`).sort(),
    `one layers draw per canvas whose numbers changed (${changed}), none for the others: ${got.typed.join(', ')}`);
  assert.equal(got.settles, 1, 'the figure settles once');
  assert.deepEqual(got.settled.filter((c) => !c.startsWith('Viz.draw:layers')), ['Viz.ask:snapshot', 'Viz.ask:describeViews'],
    'the settle timer measures the views once and asks for the changed ones\' text alternatives once');
  assert.deepEqual(got.settled.filter((c) => c.startsWith('Viz.draw:layers')).sort(), got.resized.map((v) => `Viz.draw:layers:${v}`).sort(),
    `the settle timer repaints only the resized canvases: ${got.settled.join(', ')}`);
  // One fillStyle per colour run, not per cell: the background, the labels' colour and the numbers' two or three
  // colours a canvas (each 4 × 3 grid has 12 cells, 12 numbers and a colour bar of ~60 bands).
  assert.ok((got.canvas['fillStyle='] ?? 0) <= 5 * changed.length,
    `${got.canvas['fillStyle=']} fillStyle sets on ${changed.length} canvases (${got.canvas.fillRect} fillRects, ${got.canvas.fillText} fillTexts)`);
  await done(page);
}, { timeout: WAIT });

test('following another query with a click on the weights: one Viz.edit, then only the outlines that moved, on their overlay', async () => {
  const page = await figure({ views: 'q,weights,context,breakdown' });
  const weights = page.locator('#fig').locator('canvas[data-view="weights"]');
  await weights.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.quiet());
  // Where cell [2, 1] is, as the core lays it out (asked of a second figure of the same config before the count starts).
  const at = await page.evaluate(() => T.cellPoint(document.querySelector('#fig'), 'weights', 2, 1));
  await page.mouse.move(at.x, at.y);
  // The hover is taken (its tooltip shows) and its outlines drawn on the next frame: wait for both before counting.
  await page.waitForFunction(() => /^weights\[2\]\[1\]/.test(document.querySelector('#fig').shadowRoot.querySelector('.tip:not([hidden])')?.textContent));
  await page.evaluate(() => window.quiet());
  const before = await page.evaluate(viewNumbers);
  await page.evaluate(() => { window.calls.wasm = []; });
  await page.mouse.down();
  await page.mouse.up();
  await page.waitForFunction(() => window.calls.wasm.includes('settle'));
  await page.evaluate(() => window.quiet());
  const clicked = await page.evaluate(() => {
    const e = document.querySelector('#fig');
    const all = [...window.calls.wasm];
    return { wasm: all.slice(0, all.indexOf('settle')), query: e.config.query, summary: e.shadowRoot.querySelector('details.breakdown summary')?.textContent ?? '' };
  });
  const changed = changedViews(before, await page.evaluate(viewNumbers));
  console.log(`clicked: ${clicked.wasm.join(', ')}; views whose numbers changed: ${changed}`);
  assert.equal(clicked.query, 2, 'the click follows query 2');
  assert.match(clicked.summary, /query 2/, 'the breakdown follows it');
  assert.deepEqual(changed, [], 'following a query changes no shown view\'s numbers');
  // Besides the pointer's own (the hit-test, cellAt; the shown tooltip's new text, cellText; what the hovered weight
  // links to in the new state, links): the edit, then no heatmap's cells (no numbers changed) and only the weights'
  // outlines (the followed row moved), on their overlay.
  const edit = clicked.wasm.filter((c) => c !== 'Viz.ask:cellAt' && c !== 'Viz.ask:cellText' && c !== 'Viz.ask:links');
  assert.deepEqual(edit, ['Viz.edit', 'Viz.draw:layers:weights (outlines)'], `JS→WASM calls: ${clicked.wasm.join(', ')}`);
  await done(page);
}, { timeout: WAIT });
