// A model's attention (mechanism "weights") as a person uses it (www/element/model.js): the grid of every
// layer × head (a click, a tap or the arrow keys + Enter pick a head; the heatmap and the line view follow), hovering a
// token (a heatmap row label or cell, a token of the line view, or the heatmap's keyboard cursor) marks its row in every
// head and focuses the line view, the ranking of heads by a summary equals a ranking of NumPy's values
// (tests/fixtures/weights-goldens.json, tests/goldens/gen_weights_goldens.py), the note when rows do not sum to 1, the exports
// (the panel's and the Share & export menu's for view "attention"), axe-core, and a 12 × 12 × 64 and a 12 × 512 stack
// drawn (their times are logged, not asserted). Every action is real input — page.mouse, page.keyboard — and the focus
// is checked after each key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, done, whenDrawn, fixture, watch, until } from './harness.mjs';
import { THEME } from '../../www/element/facts.js';

const AXE = new URL('../../node_modules/axe-core/axe.min.js', import.meta.url).pathname;
const GOLDENS = fixture('weights-goldens.json');
const CASE = (name) => GOLDENS.cases.find((c) => c.name.startsWith(name));
/** 2 layers × 3 heads × 6 × 6, causal, made by NumPy. */
const STACK = CASE('4-D 2 layers');
const TOKENS = ['The', 'cat', 'sat', 'on', 'the', 'mat'];
/** 2 heads × 4 × 4: head 0 has a row of zeros, head 1 rows that sum to 0.5. */
const UNNORMALISED = CASE('3-D zero row');

let site;
before(async () => { site = await open(); });
after(() => site.close());

/**
 * Page-side helpers, installed as `window.M`. Geometry comes from the core's layouts, asked of a second figure of the
 * same config (harness `T.twin`): the grid's raster (`T.grid`), a heatmap's cells (`T.cell`).
 */
function installHelpers() {
  const M = {
    el: () => document.getElementById('fig'),
    root: () => M.el().shadowRoot,
    grid: () => M.root().querySelector('canvas.model-grid'),
    overlay: () => M.root().querySelector('canvas.model-overlay'),
    lines: () => M.root().querySelector('canvas.model-lines-canvas'),
    heat: () => M.root().querySelector('canvas[data-view="attention"]'),
    active: () => M.root().activeElement,
    /** [layers, heads, n, m] of the stack shown (the trace's). */
    shape() {
      const a = M.el().trace?.attention;
      return a ? [a.length, a[0].length, a[0][0].length, a[0][0][0].length] : null;
    },
    /** The grid's keyboard cursor [layer, head] as its accessible name says it, or null. */
    cursor() {
      const m = /Cursor on layer (\d+), head (\d+)\./.exec(M.grid()?.getAttribute('aria-label') ?? '');
      return m ? [Number(m[1]), Number(m[2])] : null;
    },
    /** Client coordinates of a device-pixel point of a canvas. */
    client(canvas, x, y) {
      const r = canvas.getBoundingClientRect();
      return { x: r.left + (x * r.width) / canvas.width, y: r.top + (y * r.height) / canvas.height };
    },
    /** Head (l, h)'s thumbnail on the grid: [x, y, size] in device pixels. */
    thumbAt: async (l, h) => (await T.grid(M.el())).at(l, h),
    /** The client centre of head (l, h)'s thumbnail. */
    thumb: async (l, h) => (await T.grid(M.el())).center(l, h),
    /** The overlay's alpha at device pixel (x, y). */
    alpha(x, y) { return M.overlay().getContext('2d').getImageData(Math.round(x), Math.round(y), 1, 1).data[3]; },
    /** For every thumbnail: whether the overlay covers the middle of query row i (kind 'row') or key column j ('col'). */
    async bands(kind, i) {
      const [layers, heads, n, m] = M.shape();
      const grid = await T.grid(M.el());
      const out = [];
      for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) {
        const [x, y, t] = grid.at(l, h);
        // Left of the middle: the top heads' badges sit in the top-right corner.
        const along = kind === 'row' ? [x + t * 0.3, y + ((i + 0.5) * t) / n] : [x + ((i + 0.5) * t) / m, y + t * 0.6];
        out.push(M.alpha(...along) > 0);
      }
      return out;
    },
    /** Client point on the heatmap: cell (i, j), or left of row i (its label: j = -1), or under column j (i = -1). */
    async heatPoint(i, j) {
      const c = M.heat();
      const dpr = c.width / parseFloat(c.style.width);
      const [, , n, m] = M.shape();
      const a = (await T.cell(M.el(), 'attention', Math.max(i, 0), Math.max(j, 0))).px;
      const b = (await T.cell(M.el(), 'attention', n - 1, m - 1)).px;
      let x = (a[0] + a[2]) / 2;
      let y = (a[1] + a[3]) / 2;
      if (j < 0) x = a[0] - 10 * dpr;
      if (i < 0) y = b[3] + 10 * dpr;
      return M.client(c, x, y);
    },
    /** Client point of query (left) or key (right) token k of the line view. */
    linePoint(side, k) {
      const c = M.lines();
      const r = c.getBoundingClientRect();
      const s = r.height / (c.height / devicePixelRatio);
      return { x: r.left + (side === 'left' ? 60 : r.width - 40) * (r.width / parseFloat(c.style.width)), y: r.top + (24 + (k + 0.5) * 20) * s };
    },
    /** The ranking as shown: [{layer, head, text}] in order. */
    rank() {
      return [...M.root().querySelectorAll('.model-rank-table tbody tr')].map((tr) => {
        const b = tr.querySelector('button');
        return { layer: Number(b.dataset.layer), head: Number(b.dataset.head), text: tr.querySelector('td.value').textContent, current: b.getAttribute('aria-current') };
      });
    },
    /** The core's full number of heatmap cell (i, j). */
    async cell(i, j) { return (await T.twin(M.el())).ask({ kind: 'cellText', view: 'attention', i, j, fmt: await T.fmt(M.el()) }).full; },
    live: () => M.root().querySelector('div.model [aria-live]').textContent,
    selected: () => { const c = M.el().config; return [c.layer ?? 0, c.head ?? 0]; },
  };
  window.M = M;
}

async function figure(config, { viewport = { width: 1280, height: 1000 }, scheme = 'light', attrs = {}, document: asPage = false, touch = false, panel = true } = {}) {
  const page = touch ? watch(await (await site.browser.newContext({ viewport, hasTouch: true, isMobile: true })).newPage()) : await site.page(null, { viewport });
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`${site.url}tests/fixtures/blank.html`);
  await page.evaluate(async ([c, a, asDoc]) => {
    // As a document holds it (axe-core checks the page too): a language, a main landmark, a heading.
    if (asDoc) {
      document.documentElement.lang = 'en';
      document.body.append(Object.assign(document.createElement('main'), { innerHTML: '<h1>A model\'s attention</h1>' }));
    }
    const av = await import('/www/attention-viz.js');
    await av.ready;
    const el = document.createElement('attention-viz');
    el.id = 'fig';
    for (const [k, v] of Object.entries(a)) el.setAttribute(k, v);
    el.setAttribute('config', JSON.stringify(c));
    (document.querySelector('main') ?? document.body).append(el);
  }, [config, attrs, asPage]);
  await whenDrawn(page, '#fig', installHelpers);
  if (panel) await page.waitForFunction(() => M.grid()?.width > 0);
  await page.evaluate(() => T.record(M.el()));
  return page;
}

const small = () => ({ mechanism: 'weights', attention: STACK.attention, tokens: TOKENS });

/** Presses Tab until `selector` (in the figure's shadow root) has the focus; fails after 40 presses. */
async function tabTo(page, selector) {
  for (let k = 0; k < 40; k++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => M.active()?.matches(s) ?? false, selector)) return;
  }
  assert.fail(`Tab never reached ${selector}`);
}

const round3 = (x) => Number(x.toPrecision(3));

test('the grid: a click on a thumbnail shows that head — the heatmap holds NumPy\'s weights of that head, the line view follows', async () => {
  const page = await figure(small());
  // Weights figures have no inputs, toolbar, breakdown or steps.
  const hidden = await page.evaluate(() => ['.toolbar', '.inputs', 'details.breakdown', '.steps'].map((s) => M.root().querySelector(s)?.closest('[hidden]') !== null || !M.root().querySelector(s)));
  assert.deepEqual(hidden, [true, true, true, true]);
  const [layers, heads] = STACK.shape;
  for (const [l, h] of [[1, 2], [0, 1], [1, 0], [0, 0]]) {
    const before = await page.evaluate(() => T.hash(M.lines()));
    const p = await page.evaluate(([a, b]) => M.thumb(a, b), [l, h]);
    await page.mouse.click(p.x, p.y);
    const got = await page.evaluate(async () => ({ sel: M.selected(), log: T.log(M.el()).change, title: M.heat().getAttribute('aria-label'),
      cells: await Promise.all(Array.from({ length: 6 }, (_, i) => Promise.all(Array.from({ length: 6 }, (__, j) => M.cell(i, j))))), lines: T.hash(M.lines()),
      stack: M.el().trace.attention[M.selected()[0]][M.selected()[1]], current: M.rank().find((r) => r.current)?.layer + ',' + M.rank().find((r) => r.current)?.head }));
    assert.deepEqual(got.sel, [l, h], `click on layer ${l}, head ${h}`);
    assert.ok(l < layers && h < heads);
    // The heatmap shows exactly NumPy's numbers of that head, and so does the trace.
    assert.deepEqual(got.cells, STACK.attention[l][h]);
    assert.deepEqual(got.stack, STACK.attention[l][h]);
    assert.notEqual(got.lines, before, 'the line view is redrawn for the new head');
    assert.equal(got.current, `${l},${h}`, 'the ranking marks the shown head');
  }
  // The titles follow once the edit settles (reader.js), as on any edit.
  await page.waitForFunction(() => /^layer 0, head 0: attention weights/.test(M.heat().getAttribute('aria-label')));
  assert.equal(await page.evaluate(() => T.log(M.el()).change), 4, 'one change event per pick');
  // The selected head is outlined in the accent colour on the overlay: its top edge, just above the thumbnail.
  const edge = await page.evaluate(async () => { const [x, y, t] = await M.thumbAt(0, 0); return [M.alpha(x + t / 2, y - 1), M.alpha(x + t / 2, (await M.thumbAt(1, 0))[1] - 1)]; });
  assert.ok(edge[0] > 200 && edge[1] === 0, `outline on the shown head only (${edge})`);
  await done(page);
});

test('the grid by keyboard: Tab reaches it, the arrow keys move a visible cursor read out with NumPy\'s summaries, Enter shows the head', async () => {
  const page = await figure(small());
  await tabTo(page, 'canvas.model-grid');
  const s = STACK.summary;
  let state = await page.evaluate(() => ({ cursor: M.cursor(), label: M.grid().getAttribute('aria-label') }));
  assert.deepEqual(state.cursor, [0, 0], 'the cursor starts on the shown head');
  assert.match(state.label, /2 layers × 3 heads\. Shown in full: layer 0, head 0\. Cursor on layer 0, head 0\./);
  const steps = [['ArrowRight', [0, 1]], ['ArrowDown', [1, 1]], ['ArrowDown', [1, 1]], ['End', [1, 2]], ['ArrowRight', [1, 2]], ['Home', [1, 0]], ['ArrowUp', [0, 0]], ['ArrowRight', [0, 1]], ['ArrowDown', [1, 1]]];
  for (const [key, at] of steps) {
    await page.keyboard.press(key);
    state = await page.evaluate(() => ({ cursor: M.cursor(), focus: M.active()?.className, live: M.live(), sel: M.selected() }));
    assert.equal(state.focus, 'model-grid', `the focus stays on the grid after ${key}`);
    assert.deepEqual(state.cursor, at, key);
    const [l, h] = at;
    const m = /^layer (\d+), head (\d+)(?: \(shown\))?: entropy ([\d.e-]+) bits, distance to the diagonal ([\d.e-]+) tokens, previous token ([\d.e-]+), first token ([\d.e-]+)$/.exec(state.live);
    assert.ok(m, state.live);
    assert.deepEqual([Number(m[1]), Number(m[2])], at);
    assert.deepEqual(m.slice(3).map(Number), [s.entropy[l][h], s.distance[l][h], s.previous[l][h], s.first[l][h]].map(round3));
  }
  assert.deepEqual(state.sel, [0, 0], 'moving the cursor shows nothing new');
  // The cursor is drawn: dashed, in the link colour, around its head.
  const dashed = await page.evaluate(async () => {
    const [x, y, t] = await M.thumbAt(1, 1);
    const d = M.overlay().getContext('2d').getImageData(x - 2, y - 2, t + 4, 1).data;
    let n = 0;
    for (let k = 0; k < d.length; k += 4) if (d[k + 3] > 200 && Math.abs(d[k] - 0x9a) + Math.abs(d[k + 1] - 0x67) + Math.abs(d[k + 2]) < 40) n++;
    return n / (t + 4);
  });
  assert.ok(dashed > 0.3 && dashed < 0.9, `a dashed link-coloured edge (${dashed})`);
  await page.keyboard.press('Enter');
  state = await page.evaluate(async () => ({ sel: M.selected(), focus: M.active()?.className, live: M.live(), cells: await M.cell(3, 1) }));
  assert.deepEqual(state.sel, [1, 1]);
  assert.equal(state.focus, 'model-grid', 'the focus stays on the grid after Enter');
  assert.match(state.live, /^Selected layer 1, head 1 \(shown\): entropy/);
  assert.equal(state.cells, STACK.attention[1][1][3][1]);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press(' ');
  assert.deepEqual(await page.evaluate(() => M.selected()), [1, 0], 'Space shows the head too');
  // Tab moves on; the cursor goes with the focus.
  await page.keyboard.press('Tab');
  assert.deepEqual(await page.evaluate(() => [M.cursor(), M.active()?.dataset.control]), [null, 'model-metric']);
  await done(page);
});

test('hovering a token marks its row in every head and focuses the line view: a row label, a cell, a column label, a line-view token, the heatmap\'s keyboard cursor', async () => {
  const page = await figure(small());
  const none = Array(6).fill(false);
  const all = Array(6).fill(true);
  assert.deepEqual(await page.evaluate(() => M.bands('row', 2)), none, 'no band before a hover');
  const plain = await page.evaluate(() => T.hash(M.lines()));
  /** What the line view shows for query `q` (or all queries), drawn afresh by the core (a second figure of the same config). */
  const linesFor = (q) => page.evaluate(async (f) => {
    const c = document.createElement('canvas');
    c.width = M.lines().width; c.height = M.lines().height;
    (await T.twin(M.el())).draw(c, { kind: 'lines', dpr: M.lines().width / parseFloat(M.lines().style.width), dark: false, focus: f ?? undefined });
    return T.hash(c);
  }, q);
  // A row label of the heatmap (left of the cells).
  let p = await page.evaluate(() => M.heatPoint(2, -1));
  await page.mouse.move(p.x, p.y);
  let got = await page.evaluate(async () => ({ two: await M.bands('row', 2), four: await M.bands('row', 4), lines: T.hash(M.lines()), label: M.lines().getAttribute('aria-label') }));
  assert.deepEqual(got.two, all, 'row 2 banded in every head');
  assert.deepEqual(got.four, none);
  assert.equal(got.lines, await linesFor(2), 'the line view shows query 2 only');
  assert.match(got.label, /only query 2 \(sat\)/);
  // The heatmap outlines that row (dashed, in the link colour) across its columns.
  await until(page, async () => {
    const c = M.heat();
    const a = (await T.cell(M.el(), 'attention', 2, 0)).px;
    const b = (await T.cell(M.el(), 'attention', 2, 5)).px;
    const d = T.seen(c).getContext('2d').getImageData(a[0], a[1] - 2, b[2] - a[0], 4).data;
    let n = 0;
    for (let k = 0; k < d.length; k += 4) if (Math.abs(d[k] - 0x9a) + Math.abs(d[k + 1] - 0x67) + d[k + 2] < 40) n++;
    return n > (b[2] - a[0]) / 3;
  });
  // A cell of row 4.
  p = await page.evaluate(() => M.heatPoint(4, 1));
  await page.mouse.move(p.x, p.y);
  got = await page.evaluate(async () => ({ two: await M.bands('row', 2), four: await M.bands('row', 4), lines: T.hash(M.lines()), tip: !M.root().querySelector('.tip').hidden }));
  assert.deepEqual([got.two, got.four], [none, all]);
  assert.equal(got.lines, await linesFor(4));
  assert.ok(got.tip, 'the cell\'s tooltip shows as on any heatmap');
  // A column label: that key's column in every head; the line view shows every query.
  p = await page.evaluate(() => M.heatPoint(-1, 3));
  await page.mouse.move(p.x, p.y);
  got = await page.evaluate(async () => ({ col: await M.bands('col', 3), row: await M.bands('row', 4), lines: T.hash(M.lines()) }));
  assert.deepEqual([got.col, got.row], [all, none]);
  assert.equal(got.lines, plain);
  // A query token of the line view.
  p = await page.evaluate(() => M.linePoint('left', 5));
  await page.mouse.move(p.x, p.y);
  got = await page.evaluate(async () => ({ five: await M.bands('row', 5), lines: T.hash(M.lines()) }));
  assert.deepEqual(got.five, all);
  assert.equal(got.lines, await linesFor(5));
  // Away: no band, every line.
  await page.mouse.move(2, 2);
  got = await page.evaluate(async () => ({ five: await M.bands('row', 5), lines: T.hash(M.lines()) }));
  assert.deepEqual(got.five, none);
  assert.equal(got.lines, plain);
  // The heatmap's keyboard cursor drives the same.
  await tabTo(page, 'canvas[data-view="attention"]');
  await page.keyboard.press('ArrowDown'); // the cursor appears on (0, 0), then moves to row 1
  await page.keyboard.press('ArrowDown');
  // The cursor's cell shows in its tooltip, beside it.
  got = await page.evaluate(async () => ({ one: await M.bands('row', 2), tip: M.root().querySelector('.tip:not([hidden])')?.textContent ?? '', focus: M.active()?.dataset.view, lines: T.hash(M.lines()) }));
  assert.equal(got.focus, 'attention');
  assert.match(got.tip, /^attention\[2\]\[0\] = /, 'the cursor is on cell (2, 0)');
  assert.deepEqual(got.one, all);
  assert.equal(got.lines, await linesFor(2));
  await done(page);
});

test('the line view: each line as wide as drawn and as opaque as its weight, the labels after it opaque', async () => {
  // Query 0 looks half at each key, query 1 all at key 0: lines of opacity 0.45, 0.45 and 0.9 (0.9 × the weight).
  const page = await figure({ mechanism: 'weights', attention: [[[[0.5, 0.5], [1, 0]]]], tokens: ['Ab', 'Cd'] });
  const got = await page.evaluate(() => {
    const c = M.lines();
    const s = c.width / parseFloat(c.style.width);
    const ctx = c.getContext('2d');
    const px = (x, y) => [...ctx.getImageData(Math.round(x * s), Math.round(y * s), 1, 1).data];
    const bg = px(2, 2);
    // Across the line from query 1 (y 54) to key 0 (y 34), at its middle (x 180, y 44): the pixels unlike the background.
    const column = [...ctx.getImageData(Math.round(180 * s), Math.round(38 * s), 1, Math.round(12 * s)).data];
    let across = 0;
    for (let k = 0; k < column.length; k += 4) across += [0, 1, 2].some((i) => Math.abs(column[k + i] - bg[i]) > 24);
    // The darkest pixel of the query labels (right-aligned at x 104, rows at y 34 and 54).
    let dark = 765;
    const img = ctx.getImageData(Math.round(60 * s), Math.round(26 * s), Math.round(44 * s), Math.round(36 * s)).data;
    for (let k = 0; k < img.length; k += 4) dark = Math.min(dark, img[k] + img[k + 1] + img[k + 2]);
    return { across: across / s, dark, bg: bg[0] + bg[1] + bg[2] };
  });
  const text = THEME.light.text.match(/[0-9a-f]{2}/gi).reduce((sum, h) => sum + parseInt(h, 16), 0);
  assert.ok(got.across >= 2 && got.across <= 4, `the line is about 2 px wide across its middle: ${got.across} px unlike the background`);
  assert.ok(got.dark <= text + 60, `the labels are opaque text (darkest ${got.dark}, the text colour's ${text}, the background's ${got.bg})`);
  await done(page);
});

test('find heads by each summary: the ranking equals NumPy\'s values sorted, the top 3 are marked in the grid, a row\'s button shows its head', async () => {
  const page = await figure(small());
  const [layers, heads] = STACK.shape;
  const orders = { entropy: true, distance: true, previous: false, first: false };
  for (const [metric, low] of Object.entries(orders)) {
    for (const flip of [false, true]) {
      await page.locator('#fig').locator('select[data-control="model-metric"]').selectOption(metric);
      if (flip) await page.locator('#fig').locator('button[data-action="model-order"]').click();
      const ascending = flip ? !low : low;
      const want = [];
      for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) want.push({ layer: l, head: h, v: STACK.summary[metric][l][h] });
      want.sort((a, b) => (ascending ? a.v - b.v : b.v - a.v));
      const got = await page.evaluate(() => M.rank());
      assert.deepEqual(got.map((r) => [r.layer, r.head]), want.map((r) => [r.layer, r.head]), `${metric}, ${ascending ? 'lowest' : 'highest'} first`);
      for (const [k, r] of got.entries()) assert.ok(Math.abs(parseFloat(r.text) - want[k].v) <= 5e-3 * Math.abs(want[k].v) + 1e-12, `${r.text} ≈ ${want[k].v}`);
      // The top 3 carry a badge (the overlay's top-right corner of their thumbnail); the others none.
      const badges = await page.evaluate(async () => {
        const [layers2, heads2] = M.shape();
        const grid = await T.grid(M.el());
        const out = [];
        for (let l = 0; l < layers2; l++) for (let h = 0; h < heads2; h++) {
          const [x, y, t] = grid.at(l, h);
          const d = M.overlay().getContext('2d').getImageData(x + t / 2, y + 2, t / 2 - 2, t / 4).data;
          let n = 0;
          for (let k = 3; k < d.length; k += 4) if (d[k] > 200) n++;
          out.push(n > 10);
        }
        return out;
      });
      const top = new Set(want.slice(0, 3).map((r) => r.layer * heads + r.head));
      assert.deepEqual(badges, badges.map((_, k) => top.has(k)), `${metric}: badges on the top 3`);
    }
  }
  // A row's button shows that head; the keyboard stays on that head's button in the rebuilt list.
  const third = await page.evaluate(() => M.rank()[2]);
  const button = page.locator('#fig').locator(`button.model-pick[data-layer="${third.layer}"][data-head="${third.head}"]`);
  await button.focus();
  await page.keyboard.press('Enter');
  const after = await page.evaluate(() => ({ sel: M.selected(), focus: [M.active()?.dataset.layer, M.active()?.dataset.head], cur: M.rank()[2].current }));
  assert.deepEqual(after.sel, [third.layer, third.head]);
  assert.deepEqual(after.focus, [String(third.layer), String(third.head)]);
  assert.equal(after.cur, 'true');
  // The core's summaries are NumPy's (the ranking reads them).
  const summary = await page.evaluate(() => M.el().trace.summary);
  assert.equal(await page.evaluate(([a, b]) => T.diff(a, b), [summary, STACK.summary]), null);
  await done(page);
});

test('rows that do not sum to 1: a note above the heatmap names the head and by how much (NumPy\'s row_sum_error); none for a normalised head', async () => {
  const page = await figure({ mechanism: 'weights', attention: UNNORMALISED.attention, tokens: ['a', 'b', 'c', 'd'] });
  const note = () => page.evaluate(() => { const n = M.root().querySelector('.model-note'); return n.hidden ? null : n.textContent; });
  const err = UNNORMALISED.summary.row_sum_error[0];
  assert.equal(await note(), `The rows of layer 0, head 0 do not sum to 1 (off by up to ${round3(err[0])}): the weights are shown as given, not renormalised; the summaries use each row's shares.`);
  // Above the heatmap: it comes before it in the page.
  assert.ok(await page.evaluate(() => Boolean(M.root().querySelector('.model-note').compareDocumentPosition(M.heat()) & Node.DOCUMENT_POSITION_FOLLOWING)));
  const p = await page.evaluate(() => M.thumb(0, 1));
  await page.mouse.click(p.x, p.y);
  assert.match(await note(), new RegExp(`layer 0, head 1 do not sum to 1 \\(off by up to ${round3(err[1])}\\)`));
  await page.waitForFunction(() => /\(rows do not sum to 1\)/.test(M.heat().getAttribute('aria-label')));
  await done(page);
  const ok = await figure(small());
  assert.equal(await ok.evaluate(() => M.root().querySelector('.model-note').hidden), true);
  await done(ok);
});

test('exports: the grid as PNG, the line view as SVG and PNG (the panel\'s buttons), the heatmap as SVG and PNG (Share & export, view "attention")', async () => {
  const page = await figure(small());
  const fig = page.locator('#fig');
  const p = await page.evaluate(() => M.thumb(1, 2));
  await page.mouse.click(p.x, p.y);
  const take = async (click) => {
    const [download] = await Promise.all([page.waitForEvent('download'), click()]);
    const path = await download.path();
    return { name: download.suggestedFilename(), bytes: readFileSync(path) };
  };
  const PNG = [0x89, 0x50, 0x4e, 0x47];
  let d = await take(() => fig.locator('button[data-action="model-grid-png"]').click());
  assert.equal(d.name, 'fig-grid.png');
  assert.deepEqual([...d.bytes.subarray(0, 4)], PNG);
  // As wide as the on-screen grid (its labels included).
  assert.equal(d.bytes.readUInt32BE(16), await page.evaluate(() => M.grid().width));
  d = await take(() => fig.locator('button[data-action="model-lines-svg"]').click());
  assert.equal(d.name, 'fig-layer1-head2-lines.svg');
  assert.match(d.bytes.toString('utf8'), /^<svg[^>]*width="360"/);
  assert.equal(d.bytes.toString('utf8'), await page.evaluate(async () => (await T.twin(M.el())).ask({ kind: 'linesSvg', dark: false })));
  d = await take(() => fig.locator('button[data-action="model-lines-png"]').click());
  assert.equal(d.name, 'fig-layer1-head2-lines.png');
  assert.deepEqual([...d.bytes.subarray(0, 4)], PNG);
  assert.match(await page.evaluate(() => M.root().querySelector('.status').textContent), /Downloaded fig-layer1-head2-lines\.png/);
  // The Share & export menu: the selected head's heatmap.
  await fig.locator('details.menu summary').click();
  await fig.locator('select[data-control="export-view"]').selectOption('attention');
  d = await take(() => fig.locator('details.menu button[data-action="svg"]').click());
  assert.equal(d.name, 'fig-attention.svg');
  const svg = d.bytes.toString('utf8');
  assert.match(svg, /^<svg/);
  assert.match(svg, /layer 1, head 2: attention weights/);
  d = await take(() => fig.locator('details.menu button[data-action="png"]').click());
  assert.equal(d.name, 'fig-attention.png');
  assert.deepEqual([...d.bytes.subarray(0, 4)], PNG);
  await done(page);
});

test('a phone: a tap on a thumbnail shows that head; a tap on a heatmap cell or a line-view token marks its row in every head and focuses the line view', async () => {
  const page = await figure(small(), { viewport: { width: 390, height: 800 }, touch: true });
  const p = await page.evaluate(() => { M.grid().scrollIntoView({ block: 'center' }); return M.thumb(1, 1); });
  await page.touchscreen.tap(p.x, p.y);
  assert.deepEqual(await page.evaluate(() => M.selected()), [1, 1]);
  assert.equal(await page.evaluate(() => M.cursor()), null, 'no keyboard cursor after a tap');
  const q = await page.evaluate(() => { M.heat().scrollIntoView({ block: 'center' }); return M.heatPoint(3, 2); });
  await page.touchscreen.tap(q.x, q.y);
  // The bands and the line view's label may be drawn in different frames: wait for both (as for query 1 below).
  await until(page, async () => (await M.bands('row', 3)).every(Boolean) && /only query 3 \(on\)/.test(M.lines().getAttribute('aria-label')));
  // A tap on a query of the line view focuses that one; a second tap lets go.
  const r = await page.evaluate(() => { M.lines().scrollIntoView({ block: 'center' }); return M.linePoint('left', 1); });
  await page.touchscreen.tap(r.x, r.y);
  await until(page, async () => (await M.bands('row', 1)).every(Boolean) && /only query 1 \(cat\)/.test(M.lines().getAttribute('aria-label')));
  await page.touchscreen.tap(r.x, r.y);
  await until(page, async () => !(await M.bands('row', 1)).some(Boolean));
  await done(page);
});

test('many heads on a phone: the grid scrolls sideways inside the panel, never the page; thumbnails stay at least 18 px', async () => {
  const page = await figure(small(), { viewport: { width: 390, height: 800 } });
  await page.evaluate(stackSource);
  await page.evaluate(() => { M.el().config = { mechanism: 'weights', attention: window.makeStack(2, 32, 8) }; });
  await page.waitForFunction(() => M.shape()?.[1] === 32 && M.grid().width > 0);
  const r = await page.evaluate(async () => {
    const box = M.root().querySelector('.model-scroll');
    return { page: document.documentElement.scrollWidth <= innerWidth, inside: box.scrollWidth > box.clientWidth,
      thumb: (await T.grid(M.el())).t / devicePixelRatio };
  });
  assert.deepEqual([r.page, r.inside], [true, true]);
  assert.ok(r.thumb >= 18, `thumbnails ${r.thumb} px`);
  // The keyboard reaches a head out of view: it scrolls in.
  await tabTo(page, 'canvas.model-grid');
  await page.keyboard.press('End');
  const p = await page.evaluate(async () => { const t = await M.thumb(0, 31); return [t.x, innerWidth]; });
  assert.deepEqual(await page.evaluate(() => M.cursor()), [0, 31]);
  assert.ok(p[0] > 0 && p[0] < p[1], `the cursor's head is scrolled into view (${p})`);
  await done(page);
});

test('the views attribute and other configs: "model" names the panel; a self-attention config brings the inputs back, and weights again hide them', async () => {
  const page = await figure(small(), { attrs: { views: 'attention' }, panel: false });
  let r = await page.evaluate(() => ({ model: M.root().querySelector('div.model').hidden, lines: Boolean(M.lines()), problems: M.root().querySelector('[data-role="attributes"]').hidden }));
  assert.deepEqual(r, { model: true, lines: false, problems: true }, 'views="attention": the heatmap alone');
  await page.evaluate(() => M.el().setAttribute('views', 'model,attention'));
  await page.waitForFunction(() => !M.root().querySelector('div.model').hidden);
  r = await page.evaluate(() => ({ lines: Boolean(M.lines()), problems: M.root().querySelector('[data-role="attributes"]').hidden }));
  assert.deepEqual(r, { lines: true, problems: true }, '"model" is a panel of a weights figure');
  await page.evaluate(() => M.el().removeAttribute('views'));
  await page.evaluate(() => { M.el().config = { embeddings: [[1, 0], [0, 1], [1, 1]] }; });
  await page.waitForFunction(() => M.el().config.embeddings);
  r = await page.evaluate(() => ({ model: M.root().querySelector('div.model').hidden, lines: Boolean(M.lines()),
    toolbar: M.root().querySelector('.toolbar').hidden, inputs: M.root().querySelector('.inputs').hidden, breakdown: M.root().querySelector('details.breakdown')?.closest('[hidden]') === null }));
  assert.deepEqual(r, { model: true, lines: false, toolbar: false, inputs: false, breakdown: true });
  await page.evaluate((c) => { M.el().config = c; }, small());
  await page.waitForFunction(() => M.el().trace?.mechanism === 'weights' && !M.root().querySelector('div.model').hidden);
  r = await page.evaluate(() => ({ toolbar: M.root().querySelector('.toolbar').hidden, inputs: M.root().querySelector('.inputs').hidden, lines: Boolean(M.lines()) }));
  assert.deepEqual(r, { toolbar: true, inputs: true, lines: true });
  await done(page);
});

for (const [scheme, width] of [['light', 1280], ['dark', 390]]) {
  test(`axe-core (${scheme}, ${width} px): no violation on the panel, the heatmap and the line view; the grid scrolls inside the panel, never the page`, async () => {
    const page = await figure(small(), { viewport: { width, height: 900 }, scheme, document: true });
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.flat().join(' >>> ')).join('; ')}`);
    });
    assert.deepEqual(violations, []);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'no sideways scroll of the page');
    await done(page);
  });
}

/** A stack of `layers × heads` softmax rows over n keys (each head a pattern: previous token, first token, local, diffuse). */
function stackSource() {
  window.makeStack = (layers, heads, n) => {
    let s = 7;
    const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
    return Array.from({ length: layers }, (_, l) => Array.from({ length: heads }, (__, h) => Array.from({ length: n }, (___, i) => {
      const kind = (l * heads + h) % 4;
      const x = Array.from({ length: n }, (____, j) => (kind === 0 ? (j === i - 1 ? 4 : 0) : kind === 1 ? (j === 0 ? 3 : 0) : kind === 2 ? -Math.abs(i - j) / 2 : 0) + 2 * rnd());
      const top = Math.max(...x);
      const e = x.map((v) => Math.exp(v - top));
      const sum = e.reduce((a, b) => a + b, 0);
      return e.map((v) => v / sum);
    })));
  };
}

for (const [layers, heads, n] of [[12, 12, 64], [1, 12, 512]]) {
  // How long loading, the grid and picking take is bench/model.mjs's.
  test(`${layers} layers × ${heads} heads at n = ${n}: the grid draws every head, a click picks one`, async () => {
    const page = await figure(small());
    await page.evaluate(stackSource);
    const t = await page.evaluate(([l, h, k]) => new Promise((resolve) => {
      const el = M.el();
      const config = { mechanism: 'weights', attention: window.makeStack(l, h, k), tokens: Array.from({ length: k }, (_, i) => `t${i}`) };
      el.config = config;
      requestAnimationFrame(() => resolve({ shape: M.shape(), w: M.grid().width }));
    }), [layers, heads, n]);
    assert.deepEqual(t.shape, [layers, heads, n, n]);
    // Every thumbnail has its pattern drawn (more than one colour in it).
    const colours = await page.evaluate(async () => {
      const [L, H] = M.shape();
      const grid = await T.grid(M.el());
      const ctx = M.grid().getContext('2d');
      const out = [];
      for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) {
        const [x, y, s] = grid.at(l, h);
        const d = ctx.getImageData(x, y, s, s).data;
        const seen = new Set();
        for (let k = 0; k < d.length; k += 4) seen.add((d[k] << 16) | (d[k + 1] << 8) | d[k + 2]);
        out.push(seen.size > 1);
      }
      return out;
    });
    assert.deepEqual(colours, colours.map(() => true));
    // A hover redraws the overlay, not the grid.
    const before = await page.evaluate(() => T.hash(M.grid()));
    const p = await page.evaluate(() => M.heatPoint(3, -1));
    await page.mouse.move(p.x, p.y);
    assert.deepEqual(await page.evaluate(async () => [(await M.bands('row', 3)).every(Boolean), T.hash(M.grid())]), [true, before]);
    const q = await page.evaluate(() => M.thumb(0, 5));
    await page.mouse.click(q.x, q.y);
    assert.deepEqual(await page.evaluate(() => (({ layer = 0, head = 0 }) => [layer, head])(M.el().config)), [0, 5]);
    if (n > 128) {
      assert.equal(await page.evaluate(() => M.root().querySelector('.model-lines-note').textContent), `The line view is for up to 128 tokens (this head has ${n}).`);
      assert.equal(await page.evaluate(() => M.lines().hidden), true);
    }
    await done(page);
  });
}

test('a 12 × 12 × 128 stack loads with WASM memory under twice its bytes and its values bit for bit; an over-limit 12 × 12 × 1024 stack is refused at once, WASM memory as it was', async () => {
  const page = await figure(small());
  await page.evaluate(stackSource);
  const r = await page.evaluate(async () => {
    const memory = (await (await import('/www/pkg/attention_viz.js')).default()).memory;
    const el = M.el();
    const stack = window.makeStack(12, 12, 128);
    const before = memory.buffer.byteLength;
    el.config = { mechanism: 'weights', attention: stack, tokens: Array.from({ length: 128 }, (_, i) => `t${i}`) };
    await new Promise((ok) => requestAnimationFrame(() => ok()));
    const loaded = memory.buffer.byteLength;
    // Over MAX_VALUES (1.5e8 values, 1.2 GB as float64): one shared row, so only the shape is big.
    const row = new Array(1024).fill(1 / 1024);
    const big = Array.from({ length: 12 }, () => Array.from({ length: 12 }, () => new Array(1024).fill(row)));
    let message = null;
    el.addEventListener('error', (e) => { message = e.detail.message; }, { once: true });
    el.config = { attention: big };
    const after = memory.buffer.byteLength;
    // Read back last: el.config writes the whole stack as JSON (in WASM memory too).
    const same = JSON.stringify(el.config.attention) === JSON.stringify(stack);
    return { before, loaded, after, same, message, shape: M.shape() };
  });
  const bytes = 12 * 12 * 128 * 128 * 8;
  assert.ok(r.loaded - r.before <= 2 * bytes, `WASM memory grew ${((r.loaded - r.before) / 2 ** 20).toFixed(1)} MB for a ${bytes / 2 ** 20} MB stack`);
  assert.ok(r.same, 'el.config gives back the stack that was set, bit for bit');
  assert.equal(r.message, 'attention has 150994944 values (12 × 12 × 1024 × 1024); at most 8388608 are supported: pass fewer layers or heads, or a shorter sentence');
  assert.equal(r.after, r.loaded, 'the refusal left WASM memory as it was');
  assert.deepEqual(r.shape, [12, 12, 128, 128], 'the figure keeps the stack it had');
  await done(page);
});

test('a stack packed as Python sends it (text85 bytes, or older outputs\' base64) is refused from its declared shape before its bytes are read: the core\'s message, WASM memory as it was; a corrupt payload is said', async () => {
  const page = await figure(small());
  const r = await page.evaluate(async () => {
    const memory = (await (await import('/www/pkg/attention_viz.js')).default()).memory;
    const before = memory.buffer.byteLength;
    // 12 × 12 × 1024 × 1024 declared (1.2 GB as float64); the bytes are never looked at, so 8 of them will do.
    const packed = { dtype: 'float64', shape: [12, 12, 1024, 1024], base64: btoa('\0'.repeat(8)) };
    const out = {};
    for (const how of ['attribute', 'inline']) {
      const el = document.createElement('attention-viz');
      if (how === 'attribute') el.setAttribute('config', JSON.stringify({ attention: packed }));
      else el.append(Object.assign(document.createElement('script'), { type: 'application/json', textContent: JSON.stringify({ attention: packed }) }));
      let message = null;
      el.addEventListener('error', (e) => { message = e.detail.message; });
      document.body.append(el);
      await new Promise((ok) => { const wait = () => (message !== null ? ok() : requestAnimationFrame(wait)); wait(); });
      out[how] = message;
    }
    return { ...out, before, after: memory.buffer.byteLength };
  });
  const limit = 'attention has 150994944 values (12 × 12 × 1024 × 1024); at most 8388608 are supported: pass fewer layers or heads, or a shorter sentence';
  assert.equal(r.attribute, limit);
  assert.equal(r.inline, limit);
  assert.equal(r.after, r.before);
  // A shape of fractions whose product matches its bytes' count (2.5 × 4 = 10 values) is said, not read as [2, 4].
  const odd = await page.evaluate(async () => {
    const el = document.createElement('attention-viz');
    el.setAttribute('config', JSON.stringify({ attention: { dtype: 'float64', shape: [2.5, 4], base64: btoa('\0'.repeat(80)) } }));
    let message = null;
    el.addEventListener('error', (e) => { message = e.detail.message; });
    document.body.append(el);
    await new Promise((ok) => { const wait = () => (message !== null ? ok() : requestAnimationFrame(wait)); wait(); });
    return message;
  });
  assert.equal(odd, 'attention: its shape [2.5,4] is not a list of whole numbers');
  // A text85 payload (www/text85.js) with a character outside its alphabet, or whose bytes do not inflate: said, the
  // field named; float32 0.25s as text85 (Python's base85 wrote '004kK') or as the base64 of older outputs: their stack.
  const said = await page.evaluate(async () => {
    const say = async (attention) => {
      const el = document.createElement('attention-viz');
      el.setAttribute('config', JSON.stringify({ attention }));
      let message = null;
      el.addEventListener('error', (e) => { message = e.detail.message; });
      el.addEventListener('change', () => { message = el.config.attention.flat(3).join(' '); });
      document.body.append(el);
      await new Promise((ok) => { const wait = () => (message !== null ? ok() : requestAnimationFrame(wait)); wait(); });
      el.remove();
      return message;
    };
    return [await say({ dtype: 'float64', shape: [1, 1, 2, 4], text85: '0000~00000' }),
      await say({ dtype: 'float64', shape: [1, 1, 2, 4], text85: '0000000000', deflate: true }),
      await say({ dtype: 'float32', shape: [1, 1, 2, 4], text85: '004kK'.repeat(8) }),
      await say({ dtype: 'float32', shape: [1, 1, 2, 4], base64: 'AACAPgAAgD4AAIA+AACAPgAAgD4AAIA+AACAPgAAgD4=' })];
  });
  assert.deepEqual(said, ['attention is not text85: character 4 is "~"', 'attention: its deflated bytes do not inflate: unexpected EOF',
    '0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25', '0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25']);
  await done(page);
});

test('a shared link to a model\'s head: the notice\'s Reset (real mouse) shows the author\'s first head again, the stack held once', async () => {
  const page = await figure(small());
  const q = await page.evaluate(() => M.thumb(1, 2));
  await page.mouse.click(q.x, q.y);
  assert.deepEqual(await page.evaluate(() => (({ layer, head }) => [layer, head])(M.el().config)), [1, 2]);
  const url = await page.evaluate(() => M.el().shareURL());
  await done(page);
  const shared = await site.page(null);
  await shared.goto(url);
  await shared.evaluate(async (c) => {
    await (await import('/www/attention-viz.js')).ready;
    const el = document.createElement('attention-viz');
    el.id = 'fig';
    el.setAttribute('config', JSON.stringify(c));
    document.body.append(el);
  }, small());
  await whenDrawn(shared, '#fig', installHelpers);
  assert.deepEqual(await shared.evaluate(() => (({ layer, head }) => [layer, head])(M.el().config)), [1, 2], 'the link shows the shared head');
  await shared.locator('#fig').locator('button[data-action="notice-reset"]').click();
  assert.deepEqual(await shared.evaluate(() => (({ layer = 0, head = 0 }) => [layer, head])(M.el().config)), [0, 0], 'Reset: the author\'s head');
  assert.deepEqual(await shared.evaluate(() => JSON.stringify(M.el().config.attention)), JSON.stringify(STACK.attention));
  await done(shared);
});
