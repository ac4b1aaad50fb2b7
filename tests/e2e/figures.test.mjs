// The heatmaps as a reader meets them (www/element/figures.js, reader.js): the outlines and their legend, the text a
// screen reader is given (each heatmap's title as its name, a hidden table of its numbers), the keyboard cell cursor
// and its announcements, the tooltip (its digits, where it sits, on touch), a view's palette kept through a drag,
// canvas sizes re-measured once an edit ends, and renderSVG's fmt. Every action is real input — page.mouse,
// page.keyboard, page.touchscreen — and the focus is checked after each one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, pageHelpers, done, watch, whenDrawn, until } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

const VIEWPORT = { width: 1280, height: 1000 };

/** Page-side helpers, installed as `window.F`. Geometry comes from the core's own hit test, asked of the figure's twin (harness `T.twin`). */
function installHelpers() {
  const F = {
    canvas: (el, v) => el.shadowRoot.querySelector(`canvas[data-view="${v}"]`),
    /** Cell [i, j] of a view's canvas: its box in canvas (device) pixels and in client (CSS) pixels. */
    async box(el, view, i, j) {
      const c = F.canvas(el, view);
      const r = c.getBoundingClientRect();
      const s = c.width / r.width;
      const [viz, fmt] = [await T.twin(el), await T.fmt(el)];
      const at = (x, y) => {
        const h = viz.ask({ kind: 'cellAt', view, width: c.width, height: c.height, dpr: s, x, y, fmt });
        return h && h[0] === i && h[1] === j;
      };
      let p = null;
      for (let y = 0.5; y < c.height && !p; y += 3) for (let x = 0.5; x < c.width && !p; x += 3) if (at(x, y)) p = [x, y];
      if (!p) throw new Error(`no cell [${i}, ${j}] on the ${view} canvas`);
      let [x0, x1, y0, y1] = [p[0], p[0], p[1], p[1]];
      while (x0 > 0 && at(x0 - 1, p[1])) x0 -= 1;
      while (x1 < c.width - 1 && at(x1 + 1, p[1])) x1 += 1;
      while (y0 > 0 && at(p[0], y0 - 1)) y0 -= 1;
      while (y1 < c.height - 1 && at(p[0], y1 + 1)) y1 += 1;
      x0 = Math.ceil(x0); y0 = Math.ceil(y0); x1 = Math.floor(x1); y1 = Math.floor(y1);
      return {
        px: { x0, y0, x1, y1 },
        client: { left: r.left + x0 / s, top: r.top + y0 / s, right: r.left + (x1 + 1) / s, bottom: r.top + (y1 + 1) / s },
        center: { x: r.left + (x0 + x1 + 1) / 2 / s, y: r.top + (y0 + y1 + 1) / 2 / s },
      };
    },
    /** The colour of a pixel of a canvas, as [r, g, b]. */
    pixel(el, view, x, y) { return [...T.seen(F.canvas(el, view)).getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3)]; },
    /** The fill of cell [i, j]: a pixel just inside its top-left corner (the number is drawn in the middle). */
    async fill(el, view, i, j) { const { px } = await F.box(el, view, i, j); return F.pixel(el, view, px.x0 + 3, px.y0 + 3); },
    /** Every pixel of cell [i, j] as "r,g,b" → count. */
    async colours(el, view, i, j) {
      const { px } = await F.box(el, view, i, j);
      const d = T.seen(F.canvas(el, view)).getContext('2d').getImageData(px.x0, px.y0, px.x1 - px.x0 + 1, px.y1 - px.y0 + 1).data;
      const out = new Map();
      for (let k = 0; k < d.length; k += 4) { const key = `${d[k]},${d[k + 1]},${d[k + 2]}`; out.set(key, (out.get(key) ?? 0) + 1); }
      return out;
    },
    /** How many pixels of a canvas are within 24 (summed over r, g, b) of `rgb`. */
    count(el, view, rgb) {
      const c = F.canvas(el, view);
      const d = T.seen(c).getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (Math.abs(d[k] - rgb[0]) + Math.abs(d[k + 1] - rgb[1]) + Math.abs(d[k + 2] - rgb[2]) <= 24) n++;
      return n;
    },
    hash: (el, v) => T.hash(F.canvas(el, v)),
    tip(el) {
      const t = el.shadowRoot.querySelector('.tip');
      if (!t || t.hidden) return null;
      const r = t.getBoundingClientRect();
      return { text: t.textContent, left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    },
    announced: (el) => el.shadowRoot.querySelector('[aria-live].announce')?.textContent ?? null,
    /** What has the keyboard focus: "canvas <view>", "cell <m>:<r>:<c>", … (inside the element), or the page's. */
    focus(el) {
      if (document.activeElement !== el) return `page ${document.activeElement?.localName}`;
      const a = el.shadowRoot.activeElement;
      if (!a) return 'host';
      if (a.localName === 'canvas') return `canvas ${a.dataset.view}`;
      if (a.matches('input.cell')) return `cell ${a.dataset.matrix}:${a.dataset.row}:${a.dataset.col}`;
      return a.localName;
    },
    frames: (n = 2) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); }),
  };
  window.F = F;
}

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** A blank page with one <attention-viz id="fig"> (`attrs`), drawn, helpers installed. */
async function figure(attrs, { page = null, scrollTo = null } = {}) {
  page ??= await site.page(null, { viewport: VIEWPORT });
  await page.goto(`${site.url}tests/fixtures/blank.html`);
  await page.evaluate(async (a) => {
    await import('/www/attention-viz.js');
    const el = document.createElement('attention-viz');
    el.id = 'fig';
    for (const [k, v] of Object.entries(a)) el.setAttribute(k, v);
    document.body.append(el);
  }, attrs);
  await ready(page, '#fig');
  if (scrollTo) await page.evaluate((v) => F.canvas(document.getElementById('fig'), v).scrollIntoView({ block: 'center' }), scrollTo);
  return page;
}

async function ready(page, selector) {
  await whenDrawn(page, selector, installHelpers);
}

// ---- 1. outlines and their legend ---------------------------------------------------------------------------

const ACCENT = { light: [0x09, 0x69, 0xda], dark: [0x58, 0xa6, 0xff] };
const LINK = { light: [0x9a, 0x67, 0x00], dark: [0xd2, 0x99, 0x22] };
const rgb = (c) => `rgb(${c.join(', ')})`;

for (const theme of ['light', 'dark']) {
  test(`${theme}: the followed query is a solid accent outline, a hovered weight's links dashed in the second colour; a legend under the heatmaps says so in those colours`, async () => {
    const page = await figure({ preset: 'seed-001', theme }, { scrollTo: 'weights' });
    await page.mouse.move(1, 1);
    const at = await page.evaluate(async () => (await F.box(document.getElementById('fig'), 'weights', 1, 3)).center);
    await page.mouse.move(at.x, at.y);
    const r = await page.evaluate(async ([accent, link]) => {
      await F.frames(3);
      const el = document.getElementById('fig');
      const legend = el.shadowRoot.querySelector('.legend');
      const bottoms = [...el.shadowRoot.querySelectorAll('canvas[data-view]')].map((c) => c.getBoundingClientRect().bottom);
      // The legend's parts: each leaf text with its colour.
      const own = (n) => [...n.childNodes].filter((c) => c.nodeType === Node.TEXT_NODE).map((c) => c.textContent).join('');
      const parts = legend ? [...legend.querySelectorAll('*')].filter((n) => own(n).trim())
        .map((n) => ({ text: own(n), color: getComputedStyle(n).color })) : [];
      return {
        accentOnWeights: F.count(el, 'weights', accent), linkOnWeights: F.count(el, 'weights', link),
        linkOnK: F.count(el, 'k', link), accentOnK: F.count(el, 'k', accent),
        legend: legend && { text: legend.textContent, top: legend.getBoundingClientRect().top, visible: legend.getBoundingClientRect().height > 0 },
        lowest: Math.max(...bottoms), parts,
      };
    }, [ACCENT[theme], LINK[theme]]);
    assert.ok(r.accentOnWeights > 20, `the followed query's row is outlined in the accent colour (${r.accentOnWeights} px)`);
    assert.ok(r.linkOnWeights > 10, `the hovered weight is outlined in the link colour (${r.linkOnWeights} px)`);
    assert.ok(r.linkOnK > 10, `row 3 of K is outlined in the link colour (${r.linkOnK} px)`);
    assert.equal(r.accentOnK, 0, 'K has no query outline');
    assert.ok(r.legend, 'a legend');
    assert.ok(r.legend.visible && r.legend.top >= r.lowest - 1, `the legend is under the heatmaps (${r.legend.top} vs ${r.lowest})`);
    assert.match(r.legend.text, /solid.*followed query/);
    assert.match(r.legend.text, /dashed.*hovered weight/);
    const solid = r.parts.find((p) => /solid/.test(p.text));
    const dashed = r.parts.find((p) => /dashed/.test(p.text));
    assert.equal(solid?.color, rgb(ACCENT[theme]), 'the solid outline\'s words are in the accent colour');
    assert.equal(dashed?.color, rgb(LINK[theme]), 'the dashed outline\'s words are in the link colour');
    await done(page);
  });
}

test('no legend where there is nothing it describes: encoder–decoder figures, and self-attention without a weights heatmap', async () => {
  const page = await figure({ preset: 'seed-003' });
  assert.equal(await page.evaluate(() => document.getElementById('fig').shadowRoot.querySelector('.legend:not([hidden])')), null);
  await figure({ preset: 'seed-000', views: 'q,k,v' }, { page });
  assert.equal(await page.evaluate(() => document.getElementById('fig').shadowRoot.querySelector('.legend:not([hidden])')), null);
  await done(page);
});

// ---- 2. text for screen readers, the keyboard cursor ---------------------------------------------------------------

test('every heatmap is named by its visible title and has a hidden table of its numbers (caption, labels, cells as fmt writes them), not rebuilt on hover', async () => {
  const page = await figure({ preset: 'seed-001', fmt: '.3g' }, { scrollTo: 'weights' });
  const read = () => page.evaluate(async () => {
    const el = document.getElementById('fig');
    const twin = await T.twin(el);
    return [...el.shadowRoot.querySelectorAll('figure.stage')].map((fig) => {
      const view = fig.dataset.view;
      const canvas = fig.querySelector(`canvas[data-view="${view}"]`);
      const [d] = twin.ask({ kind: 'describeViews', views: [view], fmt: '.3g' });
      const table = fig.querySelector('table') ?? el.shadowRoot.getElementById(canvas.getAttribute('aria-describedby') ?? '-')?.querySelector('table');
      const box = table?.getBoundingClientRect();
      const hidden = table && (() => { let n = table; while (n && n !== fig) { const r = n.getBoundingClientRect(); if (r.width <= 1 && r.height <= 1) return true; n = n.parentElement; } return false; })();
      return {
        view, role: canvas.getAttribute('role'), label: canvas.getAttribute('aria-label'), d,
        caption: table?.caption?.textContent ?? null,
        cols: table ? [...table.tHead.rows[0].querySelectorAll('th')].map((t) => t.textContent) : null,
        rows: table ? [...table.tBodies[0].rows].map((tr) => tr.querySelector('th').textContent) : null,
        cells: table ? [...table.tBodies[0].rows].map((tr) => [...tr.querySelectorAll('td')].map((t) => t.textContent)) : null,
        hidden, seen: box ? box.width * box.height : null,
      };
    });
  });
  const figs = await read();
  assert.deepEqual(figs.map((f) => f.view), ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'context']);
  for (const f of figs) {
    assert.equal(f.role, 'img', `${f.view}: role img`);
    assert.equal(f.label, f.d.title, `${f.view}: named by its title`);
    assert.equal(f.caption, f.d.title, `${f.view}: a table captioned with the title`);
    assert.deepEqual(f.cols, f.d.colLabels, `${f.view}: column headers`);
    assert.deepEqual(f.rows, f.d.rowLabels, `${f.view}: row headers`);
    assert.deepEqual(f.cells, f.d.cells, `${f.view}: the numbers as fmt writes them`);
    assert.ok(f.hidden, `${f.view}: the table is visually hidden`);
  }
  assert.equal(figs.find((f) => f.view === 'weights').label, 'weights = softmax(scaled)');
  assert.match(figs.find((f) => f.view === 'weights').cells[0][0], /^0\.\d{3}$|^0\.0\d{3}$/, '.3g digits');
  // Hovering repaints outlines, never the tables.
  await page.evaluate(() => { window.tables = [...document.getElementById('fig').shadowRoot.querySelectorAll('figure.stage table')]; });
  const at = await page.evaluate(async () => (await F.box(document.getElementById('fig'), 'weights', 2, 1)).center);
  await page.mouse.move(at.x, at.y);
  await page.mouse.move(at.x + 40, at.y);
  const kept = await page.evaluate(async () => { await F.frames(3); return window.tables.every((t) => t.isConnected) && window.tables.length === 7; });
  assert.ok(kept, 'the same table nodes after hovering');
  assert.deepEqual(await read(), figs);
  await done(page);
});

test('keyboard: arrows move a cursor cell over a focused heatmap, each move is announced and shows the tooltip beside the cell; Enter/Space follow its query row; Escape hides it', async () => {
  const page = await figure({ preset: 'seed-001' }, { scrollTo: 'weights' });
  await page.mouse.move(1, 1);
  const fig = () => page.evaluate(() => document.getElementById('fig').config.query);
  // Into the heatmaps with the keyboard: a click on Q's title, then Tab to the weights.
  const q = await page.evaluate(() => { const r = F.canvas(document.getElementById('fig'), 'q').getBoundingClientRect(); return { x: r.left + 4, y: r.top + 4 }; });
  await page.mouse.click(q.x, q.y);
  assert.equal(await page.evaluate(() => F.focus(document.getElementById('fig'))), 'canvas q');
  for (let k = 0; k < 5; k++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => F.focus(document.getElementById('fig'))), 'canvas weights');
  await page.mouse.move(1, 1);
  const h0 = await page.evaluate(async () => { await F.frames(2); return F.hash(document.getElementById('fig'), 'weights'); });
  const help = await page.evaluate(() => {
    const c = F.canvas(document.getElementById('fig'), 'weights');
    const ids = (c.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    return [c.getAttribute('aria-description') ?? '', ...ids.map((id) => c.getRootNode().getElementById(id)?.textContent ?? '')].join(' ');
  });
  assert.match(help, /arrow/i, 'the canvas says the arrows move a cursor');
  assert.match(help, /Enter or Space/, 'and that Enter or Space follow its row');

  const state = (view) => page.evaluate(async (v) => {
    await F.frames(2);
    const el = document.getElementById('fig');
    return { focus: F.focus(el), query: el.config.query, said: F.announced(el), tip: F.tip(el), hash: F.hash(el, v) };
  }, view);
  const expected = (view, i, j) => page.evaluate(async ([v, a, b]) => {
    const el = document.getElementById('fig');
    const c = (await T.twin(el)).ask({ kind: 'cellText', view: v, i: a, j: b, fmt: await T.fmt(el) });
    return { ...c, box: (await F.box(el, v, a, b)).client };
  }, [view, i, j]);

  await page.keyboard.press('ArrowDown');
  let s = await state('weights');
  let c = await expected('weights', 1, 0);
  assert.equal(s.focus, 'canvas weights', 'the focus stays on the heatmap');
  assert.equal(s.query, 0, '↓ moves the cursor; it no longer changes the followed query');
  assert.equal(s.said, `weights, query ${c.row} → key ${c.col}: ${c.value}`);
  assert.notEqual(s.hash, h0, 'the cursor cell is outlined');
  assert.ok(s.tip, 'the tooltip shows for the cursor cell');
  assert.match(s.tip.text, /weights\[1\]\[0\]/);
  assert.ok(!overlaps(s.tip, c.box), 'beside the cell, not over it');
  assert.ok(Math.min(Math.abs(s.tip.bottom - c.box.top), Math.abs(s.tip.top - c.box.bottom)) < 80, 'next to the cell');

  await page.keyboard.press('ArrowRight');
  s = await state('weights');
  c = await expected('weights', 1, 1);
  assert.equal(s.said, `weights, query ${c.row} → key ${c.col}: ${c.value}`);
  assert.match(s.tip.text, /weights\[1\]\[1\]/);

  await page.keyboard.press('Escape');
  s = await state('weights');
  assert.deepEqual([s.focus, s.query, s.tip, s.hash], ['canvas weights', 0, null, h0], 'Escape hides the cursor and its tooltip');

  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  s = await state('weights');
  assert.equal(s.query, 2, 'Enter follows the cursor\'s row');
  assert.equal(s.focus, 'canvas weights');
  assert.equal(await page.evaluate(() => document.getElementById('fig').shadowRoot.querySelector('[data-control="query"]').value), '2', 'the query menu follows');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Space');
  s = await state('weights');
  assert.deepEqual([s.query, s.focus], [1, 'canvas weights'], 'Space too');

  // A heatmap that is not a query control: the cursor moves and is announced, Enter changes nothing.
  for (let k = 0; k < 4; k++) await page.keyboard.press('Shift+Tab');
  assert.equal(await page.evaluate(() => F.focus(document.getElementById('fig'))), 'canvas k');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  s = await state('k');
  c = await expected('k', 1, 1);
  assert.equal(s.said, `k, row ${c.row}, column ${c.col}: ${c.value}`);
  assert.deepEqual([s.query, s.focus], [1, 'canvas k']);
  assert.match(s.tip.text, /k\[1\]\[1\]/);
  await done(page);
});

// ---- 3. the tooltip -------------------------------------------------------------------------------------------

test('tooltip: the value as fmt writes it plus at most 6 significant digits, placed off the hovered cell\'s row', async () => {
  const page = await figure({ preset: 'seed-001' }, { scrollTo: 'weights' });
  await page.mouse.move(1, 1);
  const box = await page.evaluate(async () => (await F.box(document.getElementById('fig'), 'weights', 1, 3)).client);
  const row = await page.evaluate(async () => {
    const el = document.getElementById('fig');
    const [a, b] = [(await F.box(el, 'weights', 1, 0)).client, (await F.box(el, 'weights', 1, 3)).client];
    return { left: a.left, right: b.right, top: a.top, bottom: a.bottom };
  });
  // The pointer in the upper part of the cell, where a reader's pointer often is.
  await page.mouse.move(box.left + 6, box.top + 6);
  const r = await page.evaluate(async () => {
    await F.frames(2);
    const el = document.getElementById('fig');
    return { tip: F.tip(el), c: (await T.twin(el)).ask({ kind: 'cellText', view: 'weights', i: 1, j: 3, fmt: await T.fmt(el) }), focus: F.focus(el) };
  });
  assert.ok(r.tip, 'a tooltip');
  const precise = String(Number(r.c.full.toPrecision(6)));
  assert.ok(r.tip.text.includes(`weights[1][3] = ${r.c.value} (${precise})`), `"${r.tip.text}" shows ${r.c.value} (${precise})`);
  assert.doesNotMatch(r.tip.text, /\d{8}/, 'no 16-digit floats');
  assert.ok(!overlaps(r.tip, row), `the tooltip covers none of row 1 (${JSON.stringify(r.tip)} vs ${JSON.stringify(row)})`);
  assert.equal(r.focus, 'page body', 'hovering moves no focus');
  // Scores too: its formula line stays.
  const s = await page.evaluate(async () => (await F.box(document.getElementById('fig'), 'scores', 2, 0)).center);
  await page.mouse.move(s.x, s.y);
  const t = await page.evaluate(async () => { await F.frames(2); return F.tip(document.getElementById('fig')).text; });
  assert.match(t, /^scores\[2\]\[0\] = \S+/);
  assert.doesNotMatch(t, /\d{8}/);
  await done(page);
});

test('touch: a tap on a cell shows its tooltip (and a tap on the weights still follows that query); a tap elsewhere hides it', async () => {
  const context = await site.browser.newContext({ viewport: { width: 800, height: 900 }, hasTouch: true });
  const page = watch(await context.newPage());
  await figure({ preset: 'seed-001' }, { page, scrollTo: 'weights' });
  const at = await page.evaluate(async () => (await F.box(document.getElementById('fig'), 'weights', 2, 1)).center);
  await page.touchscreen.tap(at.x, at.y);
  let r = await page.evaluate(async () => { await F.frames(3); const el = document.getElementById('fig'); return { tip: F.tip(el), query: el.config.query }; });
  assert.equal(r.query, 2, 'the tap followed query 2');
  assert.ok(r.tip, 'the tap shows the tooltip');
  assert.match(r.tip.text, /weights\[2\]\[1\] = /);
  const k = await page.evaluate(async () => (await F.box(document.getElementById('fig'), 'k', 3, 1)).center);
  await page.touchscreen.tap(k.x, k.y);
  r = await page.evaluate(async () => { await F.frames(3); const el = document.getElementById('fig'); return { tip: F.tip(el), query: el.config.query }; });
  assert.match(r.tip?.text ?? '', /k\[3\]\[1\] = /, 'a tap on another cell shows that cell');
  assert.equal(r.query, 2);
  // Elsewhere: the page's margin beside the figure.
  await page.touchscreen.tap(3, at.y);
  r = await page.evaluate(async () => { await F.frames(3); return F.tip(document.getElementById('fig')); });
  assert.equal(r, null, 'a tap elsewhere hides it');
  const errors = [...page.errors];
  await context.close();
  assert.deepEqual(errors, []);
});

// ---- 4. the palette through a drag ---------------------------------------------------------------------------------

test('a drag that makes K negative keeps K\'s palette until the pointer is released, then K turns diverging', async () => {
  const page = await figure({ preset: 'seed-001' });
  const kinfo = () => page.evaluate(async () => {
    const el = document.getElementById('fig');
    const k = el.trace.k;
    let best = [0, 0];
    k.forEach((row, i) => row.forEach((x, j) => { if (x > k[best[0]][best[1]]) best = [i, j]; }));
    const neg = [];
    k.forEach((row, i) => row.forEach((x, j) => { if (x < 0) neg.push([i, j]); }));
    return { max: best, fill: await F.fill(el, 'k', ...best), neg, negFill: neg.length ? await F.fill(el, 'k', ...neg[0]) : null, wk: el.config.w_k[0][0], focus: F.focus(el) };
  });
  const before = await kinfo();
  assert.equal(before.neg.length, 0, 'K starts non-negative');
  const cell = await page.evaluate(() => {
    const el = document.getElementById('fig');
    const c = el.shadowRoot.querySelector('input.cell[data-matrix="w_k"][data-row="0"][data-col="0"]');
    c.scrollIntoView({ block: 'start' });
    const r = c.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  });
  // K's canvas must be on screen too for its pixels to matter to a reader; they are read from the canvas anyway.
  await page.mouse.move(cell.x, cell.y);
  await page.mouse.down();
  for (let dx = 2; dx <= 60; dx += 2) await page.mouse.move(cell.x - dx, cell.y);
  const during = await kinfo();
  assert.ok(during.wk < before.wk, `the drag scrubbed W_K[0][0] (${before.wk} → ${during.wk})`);
  assert.ok(during.neg.length > 0, 'K has negative values mid-drag');
  assert.deepEqual(during.fill, before.fill, `K's largest value keeps its colour mid-drag (${before.fill} → ${during.fill}): the palette did not switch`);
  assert.ok(during.negFill[2] <= during.negFill[0], `no blue mid-drag (${during.negFill})`);
  await page.mouse.up();
  const afterUp = await page.evaluate(async () => { await F.frames(2); return null; });
  void afterUp;
  const after = await kinfo();
  assert.equal(after.wk, during.wk);
  assert.notDeepEqual(after.fill, before.fill, 'after the release K is redrawn with its new palette');
  assert.ok(after.negFill[2] > after.negFill[0] + 20, `a negative value is blue (diverging) after the release (${after.negFill})`);
  assert.equal(await page.evaluate(async () => (await T.twin(document.getElementById('fig'))).ask({ kind: 'palette', view: 'k' })), 'diverging',
    'the core gives K of these numbers the diverging palette');
  await done(page);
});

// ---- 5. sizes after an edit ---------------------------------------------------------------------------------------

test('index.html chapter 3: typing 30, 20, 10 into embeddings row 1 keeps every number of the scores on screen (re-measured once typing stops)', async () => {
  const page = await site.page('index.html', { viewport: VIEWPORT });
  await ready(page, '#chapter-3');
  const fig = '#chapter-3';
  const before = await page.evaluate(() => {
    const c = F.canvas(document.getElementById('chapter-3'), 'scores');
    return { w: c.getBoundingClientRect().width };
  });
  const first = page.locator(`${fig} input.cell[data-matrix="embeddings"][data-row="1"][data-col="0"]`);
  await first.scrollIntoViewIfNeeded();
  await first.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('30');
  await page.keyboard.press('Tab');
  await page.keyboard.type('20');
  await page.keyboard.press('Tab');
  await page.keyboard.type('10');
  // Measured again when typing stops (the settle, a timer after the last edit): wait for it to have run, however late
  // (its text alternatives, rebuilt in the same turn, hold the last edit's numbers).
  await until(page, () => T.current(document.getElementById('chapter-3')));
  const r = await page.evaluate(async () => {
    await F.frames(2);
    const el = document.getElementById('chapter-3');
    const c = F.canvas(el, 'scores');
    const table = c.closest('figure').querySelector('table');
    // The numbers only: a cell the last edit changed also says " (changed)".
    const cells = table ? [...table.tBodies[0].rows].map((tr) => [...tr.querySelectorAll('td')].map((t) => t.textContent.replace(/ \(changed\)$/, ''))) : [];
    const colours = [...(await F.colours(el, 'scores', 1, 1)).entries()].sort((a, b) => b[1] - a[1]);
    const [fr, fg, fb] = colours[0][0].split(',').map(Number);
    // Pixels far from the fill: the number's.
    const text = colours.filter(([k]) => { const [r, g, b] = k.split(',').map(Number); return Math.abs(r - fr) + Math.abs(g - fg) + Math.abs(b - fb) > 200; })
      .reduce((n, [, m]) => n + m, 0);
    return {
      x: el.config.embeddings[1], focus: F.focus(el), cells, text, fill: colours[0][0],
      w: c.getBoundingClientRect().width, h: c.getBoundingClientRect().height,
      preferred: (await T.twin(el)).ask({ kind: 'preferredSize', view: 'scores', fmt: await T.fmt(el) }), svg: el.toSVG('scores'),
    };
  });
  assert.deepEqual(r.x, [30, 20, 10]);
  assert.equal(r.focus, 'cell embeddings:1:2', 'the focus stays in the last cell typed');
  assert.equal(r.cells[1]?.[1], '1.4e+03', 'the hidden table has scores[1][1] = 1.4e+03');
  assert.ok(r.text >= 12, `cell [1][1] of the canvas has its number drawn (${r.text} text-coloured px on fill ${r.fill})`);
  assert.ok(r.w > before.w, `the scores canvas grew to fit its numbers (${before.w} → ${r.w} px)`);
  assert.equal(Math.round(r.h), r.preferred[1], 'it has its preferred height');
  assert.ok(Math.abs(r.w - r.preferred[0]) <= 1, `it has its preferred width (${r.w} vs ${r.preferred[0]})`);
  assert.ok(r.svg.includes('1.4e+03'), 'toSVG writes 1.4e+03 too');
  await done(page);
});

// ---- 6. renderSVG's fmt -----------------------------------------------------------------------------------------

test('renderSVG(config, view, palette, fmt) writes the numbers with fmt', async () => {
  const page = await site.page('tests/fixtures/blank.html');
  const r = await page.evaluate(async () => {
    const av = await import('/www/attention-viz.js');
    await av.ready;
    const c = av.presets['seed-003'];
    return { three: av.renderSVG(c, 'weights', undefined, '.3g'), two: av.renderSVG(c, 'weights'), pct: av.renderSVG(c, 'weights', 'rocket', '.1%') };
  });
  const texts = (svg) => [...svg.matchAll(/<text[^>]*>\s*([^<]*?)\s*<\/text>/g)].map((m) => m[1]);
  assert.deepEqual(texts(r.three).slice(0, 4), ['0.119', '7.95e-232', '0', '0.881'], '.3g');
  assert.deepEqual(texts(r.two).slice(0, 4), ['0.12', '7.9e-232', '0', '0.88'], 'the default .2g');
  assert.deepEqual(texts(r.pct).slice(0, 4), ['11.9%', '0.0%', '0.0%', '88.1%'], '.1%');
  await done(page);
});
