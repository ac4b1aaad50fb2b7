// The <attention-viz> custom element (www/element.js) in headless Chromium,
// driven the way a reader drives it: typing in cells, scrubbing them with the
// mouse, the toolbar, clicking and hovering the heatmaps, and the embedder's
// API (`preset` / `config` attributes, inline JSON, `.config`, `.trace`,
// `change` and `error` events).
//
// Pixels are compared as a hash of each canvas's getImageData. Edits are
// applied synchronously in the input handler, so the tests that check that
// read the trace and the pixels in the same task right after dispatching the
// event, before any await or animation frame.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

/** Deep equality with numbers compared to 1e-12 relative (NaN equals NaN). */
function assertTraceClose(got, want, what, path = '') {
  if (typeof want === 'number') {
    const ok = (Number.isNaN(got) && Number.isNaN(want)) || got === want || Math.abs(got - want) <= 1e-12 * Math.max(Math.abs(want), 1e-300);
    assert.ok(ok, `${what}: ${path} is ${got}, want ${want}`);
  } else if (Array.isArray(want) || (want && typeof want === 'object')) {
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${what}: keys of ${path}`);
    for (const k of Object.keys(want)) assertTraceClose(got[k], want[k], what, `${path}.${k}`);
  } else {
    assert.equal(got, want, `${what}: ${path}`);
  }
}
import { open, pageHelpers, done, WAIT } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

const SELF_VIEWS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'context'];
// Without W_Q/W_K/W_V, q = k = v = X: the element draws q only (src/views.rs `names`).
const SELF_VIEWS_NO_PROJ = ['q', 'scores', 'scaled', 'weights', 'context'];
const CROSS_VIEWS = ['decoder_state', 'annotations', 'scores', 'scaled', 'weights', 'applied', 'context'];

/** Page-side helpers, installed as `window.H` (and the module as `window.av`). */
function installHelpers() {
  const H = {
    els: () => [...document.querySelectorAll('attention-viz')],
    cell: (el, m, r, c) => el.shadowRoot.querySelector(`input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`),
    cells: (el, m) => [...el.shadowRoot.querySelectorAll(m ? `input.cell[data-matrix="${m}"]` : 'input.cell')],
    canvas: (el, v) => el.shadowRoot.querySelector(`canvas[data-view="${v}"]`),
    views: (el) => [...el.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => c.dataset.view),
    control: (el, name) => el.shadowRoot.querySelector(`[data-control="${name}"]`),
    action: (el, name) => el.shadowRoot.querySelector(`button[data-action="${name}"]`),
    msg: (el, m) => el.shadowRoot.querySelector(`fieldset[data-name="${m}"] .cell-msg`)
      ?? H.cell(el, m, 0, 0)?.closest('fieldset')?.querySelector('.cell-msg'),
    status: (el) => el.shadowRoot.querySelector('.status'),
    summary: (el) => el.shadowRoot.querySelector('details.breakdown summary')?.textContent ?? '',
    hash: (...a) => T.hash(...a),
    /** {view: hash} for every canvas of an element. */
    pixels: (el) => Object.fromEntries([...el.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => [c.dataset.view, H.hash(c)])),
    /** Every input cell as "matrix:row:col=text". */
    values: (el) => H.cells(el).map((c) => `${c.dataset.matrix}:${c.dataset.row}:${c.dataset.col}=${c.value}`),
    /** Counts `change` and collects `error` messages of an element (its log, kept by the page: `H.log(el)`). */
    record(el) {
      if (H.logs.has(el)) return H.logs.get(el);
      const log = { change: 0, errors: [], details: [] };
      el.addEventListener('change', (e) => { log.change++; log.details.push(e.detail); });
      el.addEventListener('error', (e) => log.errors.push(e.detail.message));
      H.logs.set(el, log);
      return log;
    },
    log: (el) => H.logs.get(el),
    logs: new WeakMap(),
    reset(el) { const l = H.record(el); l.change = 0; l.errors = []; l.details = []; return l; },
    /** What a keystroke does to a text input: new value, then a (composed, bubbling) `input` event. */
    type(cell, text) {
      cell.value = text;
      cell.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
    },
    frames: (n = 2) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); }),
    /**
     * Holds every timer the page sets from now until `release()`, the element's settle among them (it measures the
     * canvases again SETTLE_MS after an edit, on purpose): a loaded machine can take longer than that to reach the
     * checks of later frames. Only new timers are held; `setTimeout` is the page's own again at once after `run`.
     * Returns how many timers `run` set.
     */
    hold(run) {
      const { setTimeout: set, clearTimeout: clear } = window;
      window.setTimeout = (fn, ms, ...args) => { const id = set(() => {}, 2 ** 31 - 1); H.held.set(id, () => fn(...args)); return id; };
      window.clearTimeout = (id) => { H.held.delete(id); clear(id); };
      try { run(); } finally { window.setTimeout = set; }
      H.clear = clear;
      return H.held.size;
    },
    held: new Map(),
    /** Runs the timers `hold` held, now (those not cleared meanwhile), and gives the page its clearTimeout back. */
    release() {
      const clear = H.clear;
      window.clearTimeout = clear;
      const held = [...H.held];
      H.held.clear();
      for (const [id, fn] of held) { clear(id); fn(); }
    },
    /** The centre, in client (CSS) pixels, of cell [i, j] of a view's canvas, where the core lays it out. */
    cellCenter: (el, view, i, j) => T.cellPoint(el, view, i, j),
  };
  window.H = H;
}

/** A fresh page at `path`, every element loaded, helpers installed. */
async function load(path = 'tests/fixtures/two-elements.html', opts = {}) {
  const page = await site.page(path, opts);
  await page.waitForFunction(() => {
    const els = [...document.querySelectorAll('attention-viz')];
    return els.length > 0 && els.every((e) => e.trace && e.shadowRoot.querySelector('canvas[data-view]'));
  });
  await page.evaluate(async () => { window.av = await import('/www/attention-viz.js'); await window.av.ready; });
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
  await page.evaluate(() => { for (const e of H.els()) H.record(e); });
  return page;
}

const cellSel = (m, r, c) => `input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`;

// ---- 1. typing ------------------------------------------------------------------

test('typing into a cell recomputes the trace and repaints the heatmaps synchronously, then fires `change` once', async () => {
  const page = await load();
  const r = await page.evaluate(() => {
    const [el] = H.els();
    const log = H.reset(el);
    const cell = H.cell(el, 'embeddings', 0, 1);
    const trace0 = el.trace;
    const px0 = H.pixels(el);
    const config0 = el.config;
    // Once edits stop, SETTLE_MS later, figures.js measures the canvases again (wider numbers, wider cells) on
    // purpose; a loaded machine can take longer than that to reach the checks of later frames below: hold it.
    const held = H.hold(() => H.type(cell, '5')) > 0;
    // Same task, no await: everything must already be there.
    const sync = { trace: el.trace, px: H.pixels(el), changes: log.change, config: el.config };
    const detail = log.details[0];
    return {
      trace0, px0, config0, sync, held,
      expected: av.compute(sync.config),
      detailMatches: !!detail && JSON.stringify(detail.trace) === JSON.stringify(el.trace)
        && JSON.stringify(detail.config) === JSON.stringify(el.config),
      fresh: trace0 !== sync.trace,
    };
  });
  assert.deepEqual(r.sync.config.embeddings[0], [1, 5, 0], 'config follows the cell');
  assert.deepEqual(r.sync.trace.q[0], [12, 0, 2], 'q₀ = [1, 5, 0]·W_Q');
  // One-value edits are incremental in Rust: equal to a full recompute to 1e-12, not bit for bit.
  assertTraceClose(r.sync.trace, r.expected, 'el.trace equals compute(el.config)');
  assert.notDeepEqual(r.sync.trace.scores, r.trace0.scores);
  assert.notEqual(r.sync.px.q, r.px0.q, 'the q heatmap is repainted in the same task');
  assert.notEqual(r.sync.px.scores, r.px0.scores, 'the scores heatmap is repainted in the same task');
  assert.notEqual(r.sync.px.weights, r.px0.weights, 'the weights heatmap is repainted in the same task');
  assert.equal(r.sync.changes, 1, '`change` fired once, synchronously');
  assert.ok(r.detailMatches, '`change` detail carries the new config and trace');

  // Nothing more happens on the next frames: no second `change`, no further repaint (the held settle runs after).
  assert.ok(r.held, 'the edit set a timer (the settle\'s)');
  const later = await page.evaluate(async () => {
    const [el] = H.els();
    await H.frames(3);
    const out = { changes: H.log(el).change, px: H.pixels(el) };
    H.release();
    return out;
  });
  assert.equal(later.changes, 1, 'exactly one `change` per edit');
  assert.deepEqual(later.px, r.sync.px, 'the synchronous repaint was the final one');

  // Real keystrokes go through the same path.
  const cell = page.locator(`attention-viz >> nth=0 >> ${cellSel('embeddings', 1, 2)}`);
  await cell.fill('3');
  const typed = await page.evaluate(() => ({ c: H.els()[0].config.embeddings[1], q: H.els()[0].trace.q[1] }));
  assert.deepEqual(typed.c, [0, 1, 3]);
  assert.deepEqual(typed.q, [2 + 6, 0 + 3, 0 + 6], 'q₁ = [0, 1, 3]·W_Q');
  await done(page);
});

test('a big matrix is edited through a 16 × 16 window of cells, moved with ▲▼◀▶; an edit there recomputes', async () => {
  const page = await load();
  const r = await page.evaluate(() => {
    const [el] = H.els();
    const embeddings = Array.from({ length: 40 }, (_, i) => Array.from({ length: 20 }, (_, j) => (i * 20 + j) % 7));
    el.config = { embeddings };
    const log = H.reset(el);
    const nav = () => el.shadowRoot.querySelector('[data-window-of="embeddings"]').textContent;
    const move = (dr, dc) => el.shadowRoot.querySelector(`button[data-window="embeddings:${dr}:${dc}"]`);
    const first = { cells: H.cells(el, 'embeddings').length, nav: nav(), upDisabled: move(-1, 0).disabled };
    move(1, 0).click();
    move(1, 0).click();
    move(0, 1).click();
    const moved = {
      nav: nav(), downDisabled: move(1, 0).disabled, rightDisabled: move(0, 1).disabled,
      rows: [...new Set(H.cells(el, 'embeddings').map((c) => Number(c.dataset.row)))],
      cols: [...new Set(H.cells(el, 'embeddings').map((c) => Number(c.dataset.col)))],
      value: H.cell(el, 'embeddings', 39, 19).value, changes: log.change,
    };
    H.type(H.cell(el, 'embeddings', 39, 19), '9');
    // Arrow keys past the window's edge move it by one row (or column) and follow.
    H.cell(el, 'embeddings', 24, 4).focus();
    H.cell(el, 'embeddings', 24, 4).dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowUp', bubbles: true, composed: true }));
    const up = { nav: nav(), focused: el.shadowRoot.activeElement?.dataset.row };
    const want = av.compute(el.config);
    return { first, moved, up, config: el.config.embeddings[39][19], changes: log.change, q: el.trace.q[39], wantQ: want.q[39] };
  });
  assert.deepEqual(r.first, { cells: 256, nav: 'rows 0–15 of 40▲▼columns 0–15 of 20◀▶', upDisabled: true });
  assert.equal(r.moved.nav, 'rows 24–39 of 40▲▼columns 4–19 of 20◀▶', 'the window stops at the last row and column');
  assert.ok(r.moved.downDisabled && r.moved.rightDisabled);
  assert.deepEqual(r.moved.rows, Array.from({ length: 16 }, (_, k) => 24 + k));
  assert.deepEqual(r.moved.cols, Array.from({ length: 16 }, (_, k) => 4 + k));
  assert.equal(r.moved.value, String((39 * 20 + 19) % 7));
  assert.equal(r.moved.changes, 0, 'moving the window is not an edit');
  assert.equal(r.config, 9);
  assert.equal(r.changes, 1);
  assert.deepEqual(r.up, { nav: 'rows 23–38 of 40▲▼columns 4–19 of 20◀▶', focused: '23' });
  assert.deepEqual(r.q, r.wantQ);
  await done(page);
});

// ---- 2. scrubbing and keyboard nudges ------------------------------------------------

test('scrubbing a cell with the mouse changes its value, the config and the trace; Shift scrubs in finer steps', async () => {
  const page = await load();
  const drag = async (sel, dx, { shift = false } = {}) => {
    const box = await page.locator(`attention-viz >> nth=0 >> ${sel}`).boundingBox();
    const x = box.x + box.width / 2, y = box.y + box.height / 2;
    await page.mouse.move(x, y);
    if (shift) await page.keyboard.down('Shift');
    await page.mouse.down();
    for (let k = 1; k <= 12; k++) await page.mouse.move(x + (dx * k) / 12, y);
    await page.mouse.up();
    if (shift) await page.keyboard.up('Shift');
  };
  const state = () => page.evaluate(() => {
    const [el] = H.els();
    return { config: el.config, trace: el.trace, changes: H.log(el).change, value: H.cell(el, 'w_q', 1, 1).value, scrubbing: !!el.shadowRoot.querySelector('.scrubbing') };
  });

  await page.evaluate(() => H.reset(H.els()[0]));
  const s0 = await state();
  assert.equal(s0.config.w_q[1][1], 0);
  await drag(cellSel('w_q', 1, 1), 60);
  const s1 = await state();
  const coarse = s1.config.w_q[1][1] - s0.config.w_q[1][1];
  assert.ok(coarse > 0, `dragging right increases the value (got ${s1.config.w_q[1][1]})`);
  assert.equal(s1.value, String(s1.config.w_q[1][1]), 'the cell shows the config value');
  assert.notDeepEqual(s1.trace.q, s0.trace.q, 'the trace follows the scrub');
  assert.ok(s1.changes >= 1, '`change` fired while scrubbing');
  assert.ok(!s1.scrubbing, 'the scrubbing state ends on mouse up');
  const others = (c) => c.w_q.flat().filter((_, k) => k !== 4);
  assert.deepEqual(others(s1.config), others(s0.config), 'only the scrubbed cell changed');

  await drag(cellSel('w_q', 1, 1), -60);
  const s2 = await state();
  assert.equal(s2.config.w_q[1][1], s0.config.w_q[1][1], 'dragging back by the same distance restores the value');

  await drag(cellSel('w_q', 1, 1), 60, { shift: true });
  const s3 = await state();
  const fine = s3.config.w_q[1][1] - s2.config.w_q[1][1];
  assert.ok(fine > 0, `a Shift-drag increases the value (got ${s3.config.w_q[1][1]})`);
  assert.ok(Math.abs(fine - coarse / 10) < 1e-9, `Shift makes 10× finer steps: ${fine} vs ${coarse}`);
  assert.notDeepEqual(s3.trace.q, s2.trace.q);
  await done(page);
});

test('Alt+ArrowUp / Alt+ArrowDown nudge a focused cell (Alt+Shift: a tenth of a step)', async () => {
  const page = await load();
  const cell = page.locator(`attention-viz >> nth=0 >> ${cellSel('embeddings', 2, 0)}`);
  await cell.focus();
  const v = () => page.evaluate(() => ({ x: H.els()[0].config.embeddings[2][0], text: H.cell(H.els()[0], 'embeddings', 2, 0).value, q: H.els()[0].trace.q[2] }));
  const v0 = await v();
  assert.equal(v0.x, 1);
  await page.keyboard.press('Alt+ArrowUp');
  const v1 = await v();
  assert.equal(v1.x, 2, 'Alt+ArrowUp adds one step (1 for an integer matrix)');
  assert.equal(v1.text, '2');
  assert.notDeepEqual(v1.q, v0.q, 'the trace follows');
  await page.keyboard.press('Alt+ArrowDown');
  assert.equal((await v()).x, 1, 'Alt+ArrowDown takes it back');
  await page.keyboard.press('Alt+Shift+ArrowUp');
  const v3 = await v();
  assert.ok(Math.abs(v3.x - 1.1) < 1e-12, `Alt+Shift+ArrowUp adds a tenth of a step (got ${v3.x})`);
  assert.equal(v3.text, '1.1');
  await done(page);
});

test('Alt+ArrowUp steps by 1 in an integer matrix even while another of its cells holds invalid text', async () => {
  const page = await load();
  const r = await page.evaluate(() => {
    const [el] = H.els();
    H.type(H.cell(el, 'embeddings', 0, 0), 'abc');
    const cell = H.cell(el, 'embeddings', 1, 1);
    cell.focus();
    cell.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowUp', altKey: true, bubbles: true, composed: true, cancelable: true }));
    return { x: el.config.embeddings[1][1], text: cell.value };
  });
  assert.equal(r.x, 2, `the other cells are integers, so the step is 1 (got ${r.x})`);
  await done(page);
});

// ---- 3. invalid text -----------------------------------------------------------------

for (const bad of ['abc', '', 'NaN', '1e400']) {
  test(`invalid text ${JSON.stringify(bad)}: message next to the cell, \`error\`, trace and pixels unchanged; a valid value clears it`, async () => {
    const page = await load();
    const r = await page.evaluate((bad) => {
      const [el, other] = H.els();
      const log = H.reset(el);
      const cell = H.cell(el, 'w_k', 2, 1);
      const before = { trace: JSON.stringify(el.trace), px: H.pixels(el), config: el.config, values: H.values(el), otherPx: H.pixels(other) };
      H.type(cell, bad);
      const sync = {
        trace: JSON.stringify(el.trace), px: H.pixels(el), config: el.config, values: H.values(el),
        msg: H.msg(el, 'w_k').textContent, msgVisible: getComputedStyle(H.msg(el, 'w_k')).display !== 'none',
        otherMsgs: ['embeddings', 'w_q', 'w_v'].map((m) => H.msg(el, m).textContent),
        invalid: cell.getAttribute('aria-invalid'), describedBy: cell.getAttribute('aria-describedby'),
        msgId: H.msg(el, 'w_k').id, shown: cell.value,
        errors: [...log.errors], changes: log.change, status: H.status(el).textContent,
      };
      return { before, sync };
    }, bad);
    const { before, sync } = r;
    assert.ok(sync.msg.length > 0, 'the fieldset of the cell shows a message');
    assert.ok(sync.msgVisible, 'the message is displayed');
    assert.match(sync.msg, /w_k\[2\]\[1\]/, 'the message names the cell');
    assert.deepEqual(sync.otherMsgs, ['', '', ''], 'other fieldsets show no message');
    assert.equal(sync.invalid, 'true', 'aria-invalid="true" on the cell');
    assert.equal(sync.describedBy, sync.msgId, 'the cell is described by the message');
    assert.equal(sync.shown, bad, 'what the user typed stays in the cell');
    assert.equal(sync.errors.length, 1, '`error` fired once');
    assert.match(sync.errors[0], /w_k\[2\]\[1\]/);
    assert.equal(sync.changes, 0, 'no `change`');
    assert.equal(sync.trace, before.trace, 'el.trace unchanged');
    assert.deepEqual(sync.config, before.config, 'el.config unchanged');
    assert.deepEqual(sync.px, before.px, 'every canvas keeps its pixels');
    const changed = sync.values.filter((v, k) => v !== before.values[k]);
    assert.deepEqual(changed, [`w_k:2:1=${bad}`], 'no other cell changed');

    // A frame later (hover/resize repaints are scheduled on rAF) the figure is still the last valid one.
    const later = await page.evaluate(async () => { await H.frames(2); const [el, other] = H.els(); return { px: H.pixels(el), otherPx: H.pixels(other) }; });
    assert.deepEqual(later.px, before.px);
    assert.deepEqual(later.otherPx, before.otherPx, 'the other element is untouched');

    const fixed = await page.evaluate(() => {
      const [el] = H.els();
      const log = H.reset(el);
      const cell = H.cell(el, 'w_k', 2, 1);
      const px0 = H.pixels(el);
      H.type(cell, '4');
      return {
        msg: H.msg(el, 'w_k').textContent, invalid: cell.getAttribute('aria-invalid'), changes: log.change, errors: log.errors,
        w_k: el.config.w_k, k: el.trace.k, expected: av.compute(el.config).k, pxChanged: H.hash(H.canvas(el, 'k')) !== px0.k,
      };
    });
    assert.equal(fixed.msg, '', 'a valid value clears the message');
    assert.equal(fixed.invalid, null, 'and aria-invalid');
    assert.equal(fixed.changes, 1);
    assert.deepEqual(fixed.errors, []);
    assert.deepEqual(fixed.w_k[2], [0, 4, 1]);
    assert.deepEqual(fixed.k, fixed.expected);
    assert.ok(fixed.pxChanged, 'the k heatmap is repainted');
    await done(page);
  });
}

test('two invalid cells in one matrix: the message stays until both are fixed', async () => {
  const page = await load();
  const r = await page.evaluate(() => {
    const [el] = H.els();
    const log = H.reset(el);
    const a = H.cell(el, 'embeddings', 0, 0), b = H.cell(el, 'embeddings', 1, 1);
    H.type(a, 'x'); H.type(b, 'y');
    const both = H.msg(el, 'embeddings').textContent;
    H.type(a, '1');
    const one = { msg: H.msg(el, 'embeddings').textContent, a: a.getAttribute('aria-invalid'), b: b.getAttribute('aria-invalid'), changes: log.change };
    H.type(b, '2');
    return { both, one, end: H.msg(el, 'embeddings').textContent, errors: log.errors.length, x: el.config.embeddings[1][1] };
  });
  assert.ok(r.both.length > 0);
  assert.ok(r.one.msg.length > 0, 'one invalid cell left: the message stays');
  assert.equal(r.one.a, null);
  assert.equal(r.one.b, 'true');
  assert.equal(r.one.changes, 1, 'the valid edit of the first cell applied');
  assert.equal(r.end, '', 'both fixed: message gone');
  assert.equal(r.errors, 2);
  assert.equal(r.x, 2);
  await done(page);
});

test('an invalid cell keeps its text, aria-invalid and its message across a rebuild (+ token)', async () => {
  const page = await load();
  const r = await page.evaluate(() => {
    const [el] = H.els();
    H.type(H.cell(el, 'embeddings', 1, 1), 'y');
    const msgBefore = H.msg(el, 'embeddings').textContent;
    H.action(el, 'add-token').click(); // rebuilds every input
    const cell = H.cell(el, 'embeddings', 1, 1);
    const msg = H.msg(el, 'embeddings');
    return {
      msgBefore, text: cell.value, invalid: cell.getAttribute('aria-invalid'), describedBy: cell.getAttribute('aria-describedby'),
      msg: msg.textContent, msgId: msg.id, n: el.config.embeddings.length,
    };
  });
  assert.equal(r.n, 5, '+ token applied');
  assert.equal(r.text, 'y', 'the typed text survives + token');
  assert.equal(r.invalid, 'true', 'the cell is still marked invalid');
  assert.ok(r.msg.length > 0, `BUG: the rebuilt fieldset's .cell-msg is empty although a cell in it is still invalid (was "${r.msgBefore}")`);
  assert.equal(r.describedBy, r.msgId, 'the invalid cell is still described by the message');
  await done(page);
});

// ---- 4. shape edits --------------------------------------------------------------

test('+ token grows every matrix and heatmap; − token shrinks them back', async () => {
  const page = await load();
  const shape = (m) => (Array.isArray(m[0]) ? [m.length, m[0].length] : [m.length]);
  const snap = () => page.evaluate(() => {
    const [el] = H.els();
    const t = el.trace;
    const s = (m) => [m.length, m[0].length];
    return {
      config: el.config,
      dims: Object.fromEntries(['q', 'k', 'v', 'scores', 'scaled', 'weights', 'naive_weights', 'context'].map((k) => [k, s(t[k])])),
      views: H.views(el),
      heights: Object.fromEntries(H.views(el).map((v) => [v, H.canvas(el, v).height])),
      rows: H.cells(el, 'embeddings').length / 3,
      tokenInputs: el.shadowRoot.querySelectorAll('input.token').length,
      queryOptions: H.control(el, 'query').options.length,
      changes: H.log(el).change,
    };
  });
  const s0 = await snap();
  assert.deepEqual(s0.dims.scores, [4, 4]);
  await page.locator('attention-viz >> nth=0 >> button[data-action="add-token"]').click();
  const s1 = await snap();
  assert.deepEqual(shape(s1.config.embeddings), [5, 3], 'embeddings has a fifth row');
  assert.equal(s1.config.tokens.length, 5);
  assert.deepEqual(s1.dims, { q: [5, 3], k: [5, 3], v: [5, 3], scores: [5, 5], scaled: [5, 5], weights: [5, 5], naive_weights: [5, 5], context: [5, 3] });
  assert.deepEqual(s1.views, s0.views, 'the same heatmaps');
  assert.deepEqual(s1.views, SELF_VIEWS);
  for (const v of ['q', 'scores', 'weights', 'context']) assert.ok(s1.heights[v] > s0.heights[v], `the ${v} canvas grows`);
  assert.equal(s1.rows, 5, 'a new row of input cells');
  assert.equal(s1.tokenInputs, 5, 'a new token name input');
  assert.equal(s1.queryOptions, 5, 'the query menu lists it');
  assert.equal(s1.changes - s0.changes, 1, 'one `change`');
  const newRow = await page.evaluate(() => {
    const [el] = H.els();
    return { cells: [0, 1, 2].map((c) => H.cell(el, 'embeddings', 4, c)?.value), token: el.shadowRoot.querySelector('input.token[data-token="4"]')?.value };
  });
  assert.deepEqual(newRow.cells, s1.config.embeddings[4].map(String), 'the new row shows its values');
  assert.equal(newRow.token, s1.config.tokens[4]);

  await page.locator('attention-viz >> nth=0 >> button[data-action="remove-token"]').click();
  const s2 = await snap();
  assert.deepEqual(s2.config, s0.config, '− token restores the config');
  assert.deepEqual(s2.dims, s0.dims);
  assert.deepEqual(s2.heights, s0.heights);
  assert.equal(s2.rows, 4);

  // + dim / − dim on the cross-attention element: decoder state and annotations.
  const cross = await page.evaluate(() => {
    const [, el] = H.els();
    const c0 = el.config;
    H.action(el, 'add-dim').click();
    const c1 = el.config, t1 = el.trace, n1 = H.cells(el).length;
    H.action(el, 'remove-dim').click();
    return { c0, c1, t1, n1, c2: el.config };
  });
  assert.equal(cross.c1.decoder_state.length, 4);
  assert.ok(cross.c1.annotations.every((a) => a.length === 4));
  assert.deepEqual(shape(cross.t1.applied), [4, 4]);
  assert.equal(cross.n1, 4 + 16);
  assert.deepEqual(cross.c2, cross.c0);
  await done(page);
});

// ---- 5. randomize -------------------------------------------------------------------

test('Randomize with seed 42, randint(3) draws W_Q, W_K, W_V exactly as NumPy', async () => {
  const page = await load();
  const ctl = (name) => page.locator(`attention-viz >> nth=0 >> [data-control="${name}"]`);
  const randomize = async (seed) => {
    await ctl('seed').fill(String(seed));
    await ctl('dist').selectOption('randint');
    await ctl('high').fill('3');
    await page.locator('attention-viz >> nth=0 >> button[data-action="randomize"]').click();
    return page.evaluate(() => {
      const [el] = H.els();
      const shown = (m) => [0, 1, 2].map((r) => [0, 1, 2].map((c) => Number(H.cell(el, m, r, c).value)));
      return { config: el.config, trace: el.trace, shown: { w_q: shown('w_q'), w_k: shown('w_k'), w_v: shown('w_v') } };
    });
  };
  const embeddings0 = await page.evaluate(() => H.els()[0].config.embeddings);
  const one = await randomize(1);
  const W = {
    w_q: [[2, 0, 2], [2, 0, 0], [2, 1, 2]],
    w_k: [[2, 2, 2], [0, 2, 1], [0, 1, 1]],
    w_v: [[1, 1, 0], [0, 1, 1], [0, 0, 0]],
  };
  assert.notDeepEqual({ w_q: one.config.w_q, w_k: one.config.w_k, w_v: one.config.w_v }, W, 'seed 1 draws something else');
  const rs1 = await page.evaluate(() => { const rs = new av.RandomState(1); return [0, 1, 2].map(() => rs.randint(3, null, [3, 3])); });
  assert.deepEqual([one.config.w_q, one.config.w_k, one.config.w_v], rs1, 'seed 1 equals RandomState(1)');
  const r = await randomize(42);
  assert.deepEqual(r.config.w_q, W.w_q);
  assert.deepEqual(r.config.w_k, W.w_k);
  assert.deepEqual(r.config.w_v, W.w_v);
  assert.deepEqual(r.shown, W, 'the input cells show the drawn values');
  assert.deepEqual(r.config.embeddings, embeddings0, 'Randomize leaves the embeddings alone');
  assert.deepEqual(r.trace.q, [[2, 0, 2], [2, 0, 0], [4, 0, 2], [2, 1, 2]], 'document 000 Q');
  await done(page);
});

// ---- 6. independence --------------------------------------------------------------

test('two elements on one page are independent', async () => {
  const page = await load();
  const r = await page.evaluate(() => {
    const [a, b] = H.els();
    H.reset(a); H.reset(b);
    const snap = (el) => ({ config: JSON.stringify(el.config), trace: JSON.stringify(el.trace), px: H.pixels(el), values: H.values(el), summary: H.summary(el) });
    const a0 = snap(a), b0 = snap(b);
    H.type(H.cell(a, 'embeddings', 3, 2), '7');
    H.action(a, 'add-token').click();
    const a1 = snap(a), b1 = snap(b);
    H.type(H.cell(b, 'decoder_state', 0, 2), '2');
    const a2 = snap(a), b2 = snap(b);
    return { a0, b0, a1, b1, a2, b2, aLog: { ...H.log(a), details: undefined }, bLog: { ...H.log(b), details: undefined } };
  });
  assert.notEqual(r.a1.trace, r.a0.trace);
  assert.notDeepEqual(r.a1.px, r.a0.px);
  assert.deepEqual(r.b1, r.b0, 'editing the first leaves the second (config, trace, pixels, inputs, breakdown) alone');
  assert.notEqual(r.b2.trace, r.b1.trace);
  assert.deepEqual(r.a2, r.a1, 'editing the second leaves the first alone');
  assert.equal(r.aLog.change, 2);
  assert.equal(r.bLog.change, 1);
  assert.deepEqual([r.aLog.errors, r.bLog.errors], [[], []]);
  await done(page);
});

// ---- 7. the heatmaps as controls ----------------------------------------------------

test('clicking a row of the weights heatmap follows that query (config.query, menu, breakdown)', async () => {
  const page = await load();
  const before = await page.evaluate(() => ({ q: H.els()[0].config.query, summary: H.summary(H.els()[0]), px: H.pixels(H.els()[0]) }));
  assert.equal(before.q, 0);
  assert.match(before.summary, /query 0 \(word_1\)/);
  const at = await page.evaluate(() => H.cellCenter(H.els()[0], 'weights', 2, 1));
  await page.mouse.click(at.x, at.y);
  const after = await page.evaluate(() => {
    const [el] = H.els();
    return { q: el.config.query, index: el.trace.query.index, menu: H.control(el, 'query').value, summary: H.summary(el), changes: H.log(el).change, px: H.pixels(el) };
  });
  assert.equal(after.q, 2, 'config.query is the clicked row');
  assert.equal(after.index, 2, 'trace.query follows');
  assert.equal(after.menu, '2', 'the query menu follows');
  assert.match(after.summary, /query 2 \(word_3\), q₂ = \[4, 0, 2\]/, 'the breakdown title follows');
  assert.ok(after.changes >= 1, '`change` fired');
  assert.notEqual(after.px.weights, before.px.weights, 'the selected row outline moved');

  // The query menu and the keyboard on a focused heatmap do the same: ↑ moves the cell cursor up from the followed
  // row, Enter follows the cursor's row (tests/e2e/figures.test.mjs has the cursor in full).
  await page.locator('attention-viz >> nth=0 >> [data-control="query"]').selectOption('3');
  assert.equal(await page.evaluate(() => H.els()[0].config.query), 3);
  await page.locator('attention-viz >> nth=0 >> canvas[data-view="weights"]').focus();
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.evaluate(() => H.els()[0].config.query), 3, '↑ alone moves the cursor, not the query');
  await page.keyboard.press('Enter');
  const kb = await page.evaluate(() => ({ q: H.els()[0].config.query, menu: H.control(H.els()[0], 'query').value }));
  assert.deepEqual(kb, { q: 2, menu: '2' });
  await done(page);
});

test('hovering a weights cell highlights its query row in Q (and leaving clears it)', async () => {
  const page = await load();
  await page.mouse.move(1, 1);
  const p0 = await page.evaluate(async () => { await H.frames(2); return H.pixels(H.els()[0]); });
  const at = await page.evaluate(() => H.cellCenter(H.els()[0], 'weights', 1, 3));
  await page.mouse.move(at.x, at.y);
  const p1 = await page.evaluate(async () => {
    await H.frames(3);
    const [el] = H.els();
    const tip = el.shadowRoot.querySelector('.tip');
    return { px: H.pixels(el), tip: tip && !tip.hidden ? tip.textContent : null, changes: H.log(el).change, query: el.config.query };
  });
  assert.notEqual(p1.px.q, p0.q, 'row 1 of Q is outlined');
  assert.notEqual(p1.px.k, p0.k, 'row 3 of K is outlined');
  assert.notEqual(p1.px.context, p0.context, 'row 1 of the context is outlined');
  assert.match(p1.tip ?? '', /weights\[1\]\[3\]/, 'a tooltip names the cell');
  assert.equal(p1.changes, 0, 'hovering is not an edit: no `change`');
  assert.equal(p1.query, 0, 'hovering does not select');
  await page.mouse.move(1, 1);
  const p2 = await page.evaluate(async () => { await H.frames(3); return H.pixels(H.els()[0]); });
  assert.deepEqual(p2, p0, 'leaving the heatmaps removes the highlight');
  await done(page);
});

// ---- 8. the embedder's API --------------------------------------------------------

test('.config: a malformed config fires `error`, shows it in .status and keeps the figure; a valid one replaces it', async () => {
  const page = await load();
  const bad = [
    { embeddings: [[1, 2], [3]] },
    { embeddings: [[1, NaN], [3, 4]] },
    { decoder_state: [1, 2], annotations: [[1, 2, 3]] },
    { embeddings: [[1, 2]], w_q: [[1, 0], [0, 1]] },
    5,
    null,
  ];
  for (const config of bad) {
    const r = await page.evaluate((config) => {
      const [el] = H.els();
      const log = H.reset(el);
      const c0 = JSON.stringify(el.config), t0 = JSON.stringify(el.trace), px0 = H.pixels(el), v0 = H.values(el);
      let threw = null;
      try { el.config = config; } catch (e) { threw = e.message; }
      const status = H.status(el);
      return {
        threw, errors: log.errors, changes: log.change, status: status.textContent, statusError: status.classList.contains('error'),
        statusVisible: getComputedStyle(status).display !== 'none',
        same: JSON.stringify(el.config) === c0 && JSON.stringify(el.trace) === t0 && JSON.stringify(H.pixels(el)) === JSON.stringify(px0)
          && JSON.stringify(H.values(el)) === JSON.stringify(v0),
      };
    }, config);
    const what = JSON.stringify(config);
    assert.equal(r.threw, null, `${what}: the setter does not throw`);
    assert.equal(r.errors.length, 1, `${what}: \`error\` fired once`);
    assert.ok(r.status.length > 0 && r.statusVisible, `${what}: .status shows the message`);
    assert.ok(r.status.includes(r.errors[0]), `${what}: .status shows the same message as the event (${r.status} / ${r.errors[0]})`);
    assert.ok(r.statusError, `${what}: .status is styled as an error`);
    assert.equal(r.changes, 0);
    assert.ok(r.same, `${what}: config, trace, pixels and inputs kept`);
  }
  const ok = await page.evaluate(() => {
    const [el] = H.els();
    const log = H.reset(el);
    el.config = av.presets['seed-002'];
    return {
      config: el.config, expected: av.normalizeConfig(av.presets['seed-002']), trace: el.trace, compute: av.compute(av.presets['seed-002']),
      status: H.status(el).textContent, changes: log.change, errors: log.errors, views: H.views(el), rows: H.cells(el, 'embeddings').length,
    };
  });
  assert.deepEqual(ok.config, ok.expected, 'a valid config replaces the old one');
  assert.deepEqual(ok.trace, ok.compute);
  assert.equal(ok.status, '', 'and clears the message');
  assert.equal(ok.changes, 1);
  assert.deepEqual(ok.errors, []);
  assert.deepEqual(ok.views, SELF_VIEWS_NO_PROJ, 'seed-002 has no projections');
  assert.equal(ok.rows, ok.config.embeddings.flat().length, 'the inputs are rebuilt for the new shape');

  // Reset returns to the config last set through the property.
  const reset = await page.evaluate(() => {
    const [el] = H.els();
    H.type(H.cell(el, 'embeddings', 0, 0), '9');
    H.action(el, 'reset').click();
    return el.config;
  });
  assert.deepEqual(reset, ok.expected);
  // Setting attributes later reloads.
  const attr = await page.evaluate(() => {
    const [el] = H.els();
    el.setAttribute('preset', 'seed-001');
    const p = el.config;
    el.setAttribute('config', JSON.stringify({ embeddings: [[1, 2, 3]] }));
    return { p, c: el.config, views: H.views(el) };
  });
  assert.deepEqual(attr.p, await page.evaluate(() => av.normalizeConfig(av.presets['seed-001'])), 'preset attribute change reloads');
  assert.deepEqual(attr.c.embeddings, [[1, 2, 3]], 'config attribute change reloads');
  await done(page);
});

/** Loads a fixture where some elements may be broken: waits for `ready` and two frames, not for canvases. */
async function loadLoose(path) {
  const page = await site.page(path);
  await page.evaluate(async () => { window.av = await import('/www/attention-viz.js'); await window.av.ready; });
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
  // Figures load one per frame: wait for every one (drawn, or its config refused), then two more frames.
  await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')]
    .every((e) => e.trace || e.shadowRoot?.querySelector('.status.error')?.textContent), null, { timeout: WAIT });
  await page.evaluate(() => H.frames(2));
  return page;
}

const byId = (page) => page.evaluate(() => Object.fromEntries(H.els().map((el) => {
  let config = null;
  try { config = el.config; } catch (e) { config = `threw ${e.message}`; }
  return [el.id, { config, views: H.views(el), cells: H.cells(el).length, status: H.status(el)?.textContent ?? null, early: window.early?.[el.id] ?? [] }];
})));

test('config sources: the config attribute and an inline JSON script; bad sources fire `error` and fall back', async () => {
  const page = await loadLoose('tests/fixtures/element-sources.html');
  const r = await byId(page);
  assert.deepEqual(r.attr.config.embeddings, [[1, 0], [0, 1], [1, 1]]);
  assert.deepEqual(r.attr.config.tokens, ['a', 'b', 'c']);
  assert.deepEqual(r.attr.views, SELF_VIEWS_NO_PROJ);
  assert.equal(r.attr.cells, 6);
  assert.equal(r.attr.status, '');
  assert.deepEqual(r.attr.early, []);
  assert.equal(r.inline.config.mechanism, 'cross');
  assert.deepEqual(r.inline.config.decoder_state, [1, 2]);
  assert.deepEqual(r.inline.config.annotations, [[1, 0], [0, 1], [2, 2]]);
  assert.deepEqual(r.inline.views, CROSS_VIEWS);
  assert.deepEqual(r.inline.early, []);
  const preset = (name) => page.evaluate((n) => av.normalizeConfig(av.presets[n]), name);
  // A bad config beside a preset the author named falls back to that preset; otherwise only the message shows
  // (never another figure's numbers: tests/e2e/author.test.mjs).
  for (const [id, fallback, pattern] of [['bad-shape', 'seed-002', /embeddings row 1/], ['bad-json', null, /not valid JSON/], ['bad-preset', null, /Unknown preset "seed-999"/]]) {
    assert.equal(r[id].early.length, 1, `${id}: \`error\` fired once`);
    assert.match(r[id].early[0], pattern, `${id}: the message says what is wrong`);
    assert.ok(r[id].status.includes(r[id].early[0]), `${id}: .status shows it`);
    assert.deepEqual(r[id].config, fallback && await preset(fallback), `${id}: falls back to ${fallback ?? 'nothing'}`);
    assert.equal(r[id].views.length > 0, Boolean(fallback), `${id}: ${fallback ? 'the fallback is drawn' : 'no heatmap is drawn'}`);
  }
  await done(page);
});

test('.config set while the WASM core is still loading: a valid one is applied, an invalid one fires `error` and the preset is drawn', async () => {
  const page = await loadLoose('tests/fixtures/element-sources.html');
  const r = await byId(page);
  assert.equal(await page.evaluate(() => window.pendingWhileLoading), true, 'the module script ran before the core was ready');
  assert.deepEqual(r['pending-valid'].config.embeddings, [[1, 2], [3, 4]], 'the valid pending config is applied');
  assert.deepEqual(r['pending-valid'].views, SELF_VIEWS_NO_PROJ);
  assert.equal(r['pending-invalid'].early.length, 1, 'the invalid pending config fires `error`');
  assert.match(r['pending-invalid'].status, /embeddings row 1/, '…shown in .status');
  assert.deepEqual(r['pending-invalid'].config, await page.evaluate(() => av.normalizeConfig(av.presets['seed-000'])), '…and the preset is kept');
  assert.deepEqual(r['pending-invalid'].views, SELF_VIEWS, 'BUG: …but nothing is drawn (no toolbar, inputs or heatmaps): _load() returns before _rebuild() when the pending config fails');
  assert.equal(r['pending-invalid'].cells, 39);
  await done(page);
});

test('.config (and every other property) set on the element before its definition loads is applied once it upgrades', async () => {
  const page = await loadLoose('tests/fixtures/element-early.html');
  const r = await page.evaluate(() => {
    const el = document.getElementById('early');
    return {
      ownConfig: Object.prototype.hasOwnProperty.call(el, 'config'), config: el.config, trace: el.trace ? Object.keys(el.trace) : null,
      views: H.views(el), cells: H.cells(el).length,
      own: ['fmt', 'theme', 'palette', 'editable'].filter((p) => Object.prototype.hasOwnProperty.call(el, p)),
      attrs: ['fmt', 'theme', 'palette', 'editable'].map((a) => el.getAttribute(a)),
    };
  });
  assert.deepEqual(r.own, [], 'no property set before the upgrade stays an own data property');
  assert.deepEqual(r.attrs, ['.3f', 'dark', 'rocket_r', 'false'], 'each went through its setter');
  const errors = [...page.errors];
  await page.close();
  assert.equal(r.ownConfig, false, 'BUG: the value set before upgrade stays an own data property that shadows the `config` accessor');
  assert.deepEqual(r.config.embeddings, [[2, 0], [0, 2]]);
  assert.equal(r.config.mechanism, 'self', 'el.config is the normalized config');
  assert.deepEqual(r.views, ['embeddings', ...SELF_VIEWS_NO_PROJ], 'editable = false: the inputs drawn as heatmaps');
  assert.deepEqual(errors, [], 'console errors');
});

// ---- 9. naive softmax -------------------------------------------------------------

test('the naive-softmax toggle on seed-003 adds a naive_weights heatmap and NaN in the breakdown; the weights stay finite', async () => {
  const page = await load();
  await page.locator('attention-viz >> nth=1 >> [data-control="naive"]').check();
  const r = await page.evaluate(async () => {
    const [, el] = H.els();
    const sync = H.views(el);
    await H.frames(2);
    const t = el.trace;
    const tds = [...el.shadowRoot.querySelectorAll('details.breakdown td')].map((td) => td.textContent);
    return {
      sync, views: H.views(el), naivePx: H.hash(H.canvas(el, 'naive_weights')),
      nanCells: el.shadowRoot.querySelectorAll('details.breakdown td.nan').length, tds,
      weights: t.weights, finite: t.weights.every(Number.isFinite), naive: t.naive_weights.map(String),
      lesson: el.shadowRoot.querySelector('.lesson')?.hidden === false,
    };
  });
  assert.ok(r.sync.includes('naive_weights'), 'the canvas is there as soon as the box is checked');
  assert.deepEqual(r.views.filter((v) => v !== 'naive_weights'), CROSS_VIEWS, 'the other heatmaps stay');
  assert.equal(r.views.length, CROSS_VIEWS.length + 1);
  assert.ok(!/^0x0/.test(r.naivePx), 'the naive_weights canvas is drawn');
  assert.ok(r.nanCells >= 1, 'NaN cells in the breakdown');
  assert.ok(r.tds.includes('nan'), 'shown as "nan"');
  assert.ok(r.finite, `the stable weights stay finite: ${r.weights}`);
  assert.ok(r.naive.includes('NaN'), 'the naive weights overflow to NaN');
  assert.ok(r.lesson, 'the lesson text is shown');
  await page.locator('attention-viz >> nth=1 >> [data-control="naive"]').uncheck();
  const off = await page.evaluate(() => ({ views: H.views(H.els()[1]), nan: H.els()[1].shadowRoot.querySelectorAll('td.nan').length }));
  assert.deepEqual(off.views, CROSS_VIEWS);
  assert.equal(off.nan, 0);

  // Self-attention: the toggle adds naive_weights too.
  const self = await page.evaluate(() => { const [el] = H.els(); H.control(el, 'naive').click(); return H.views(el); });
  assert.ok(self.includes('naive_weights'));
  assert.equal(self.length, SELF_VIEWS.length + 1);
  await done(page);
});

// ---- 10. nothing on the console ---------------------------------------------------

test('a session of edits on the app page leaves no console errors', async () => {
  const page = await load();
  await page.evaluate(() => {
    for (const el of H.els()) {
      for (const c of H.cells(el).slice(0, 6)) { H.type(c, 'oops'); H.type(c, '2.5'); }
      H.action(el, 'add-token').click(); H.action(el, 'add-dim').click();
      H.action(el, 'randomize').click(); H.action(el, 'remove-dim').click(); H.action(el, 'remove-token').click();
      H.action(el, 'reset').click();
    }
  });
  await page.evaluate(() => H.frames(2));
  await done(page);
});
