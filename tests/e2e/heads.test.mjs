// Heads, masks, temperature and the scoring functions as the figure shows them (www/element/figures.js, reader.js,
// breakdown.js, steps.js): each head's weights as small multiples drawn at a legible size, a click, a tap
// or Enter on one follows that head (outlined, the stages and the breakdown follow, the focus stays on it), hover
// links and the keyboard cursor on them, the legend's "−∞ = masked", and the breakdown's and the steps' explanations
// (the head, each scoring's formula with its numbers, the temperature, which keys are masked and why, a fully masked
// query per masked_row). Every action is real input — page.mouse, page.keyboard, page.touchscreen — and the focus
// is checked after each one; axe-core checks tests/fixtures/heads.html.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, pageHelpers, done, watch, whenDrawn, WAIT } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AXE = join(ROOT, 'node_modules/axe-core/axe.min.js');

let site;
before(async () => { site = await open(); });
after(() => site.close());

const SEED_000 = {
  embeddings: [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
  w_q: [[2, 0, 2], [2, 0, 0], [2, 1, 2]], w_k: [[2, 2, 2], [0, 2, 1], [0, 1, 1]], w_v: [[1, 1, 0], [0, 1, 1], [0, 0, 0]],
};
const SEED_003 = { decoder_state: [5, 1, 20], annotations: [[3, 12, 45], [59, 2, 5], [15, 2, 0], [4, 3, 45.3]] };

/** A self-attention config with `h` heads of width 2 over d_model = 4 (W_Q/W_K/W_V 4 × 2h), W_O, and small values. */
function heads(h, extra = {}) {
  const w = (seed) => Array.from({ length: 4 }, (_, r) => Array.from({ length: 2 * h }, (_, c) => ((r * 7 + c * 3 + seed) % 5) / 4));
  return {
    tokens: ['the', 'cat', 'sat', 'down'],
    embeddings: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]],
    w_q: w(0), w_k: w(2), w_v: w(1), heads: h,
    w_o: Array.from({ length: 2 * h }, (_, r) => Array.from({ length: 4 }, (_, c) => (r % 4 === c ? 1 : 0))),
    ...extra,
  };
}

/** Page-side helpers, installed as `window.H`. Geometry comes from the core's own layout (its cellRect, asked of the Viz). */
function installHelpers() {
  const H = {
    el: (id = 'fig') => document.getElementById(id),
    canvas: (v, id = 'fig') => H.el(id).shadowRoot.querySelector(`canvas[data-view="${v}"]`),
    /** The client-pixel centre of cell [i, j] of a view (where the core lays it out: harness `T.cellPoint`). */
    center: (v, i, j, id = 'fig') => T.cellPoint(H.el(id), v, i, j),
    /** How many pixels of a canvas are within 24 (summed over r, g, b) of `rgb`; `cols`: only those columns of cells. */
    count(v, rgb, id = 'fig') {
      const c = H.canvas(v, id);
      const d = T.seen(c).getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (Math.abs(d[k] - rgb[0]) + Math.abs(d[k + 1] - rgb[1]) + Math.abs(d[k + 2] - rgb[2]) <= 24) n++;
      return n;
    },
    /** Columns (device-pixel x ranges) of a view's cells [i, c0…c1): where a link outline on row i may fall. */
    async span(v, i, c0, c1, id = 'fig') {
      const a = await T.cell(H.el(id), v, i, c0);
      const b = await T.cell(H.el(id), v, i, c1 - 1);
      return [a.px[0], b.px[2]];
    },
    /**
     * Cell [0, 0] of a view in CSS pixels {w, h} (where the core lays it out) and the most characters of a number the
     * core writes in it (its text alternative, `describeViews`, asked of the figure's twin: harness `T.twin`).
     */
    async legible(v, id = 'fig') {
      const el = H.el(id);
      const c = H.canvas(v, id);
      const s = c.width / c.getBoundingClientRect().width;
      const cell = (await T.cell(el, v, 0, 0)).px.map((x) => x / s);
      const [d] = (await T.twin(el)).ask({ kind: 'describeViews', views: [v], fmt: await T.fmt(el) });
      const chars = Math.max(...d.cells.flat().map((t) => [...t].length));
      return { w: cell[2] - cell[0], h: cell[3] - cell[1], chars };
    },
    /** Link-coloured pixels of a canvas between device x0 and x1 (whole height). */
    countIn(v, rgb, x0, x1, id = 'fig') {
      const c = H.canvas(v, id);
      const d = T.seen(c).getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let y = 0; y < c.height; y++) for (let x = Math.max(0, x0 - 3); x < Math.min(c.width, x1 + 3); x++) {
        const k = (y * c.width + x) * 4;
        if (Math.abs(d[k] - rgb[0]) + Math.abs(d[k + 1] - rgb[1]) + Math.abs(d[k + 2] - rgb[2]) <= 24) n++;
      }
      return n;
    },
    tip(id = 'fig') { const t = H.el(id).shadowRoot.querySelector('.tip'); return t && !t.hidden ? t.textContent : null; },
    said: (id = 'fig') => H.el(id).shadowRoot.querySelector('[aria-live].announce')?.textContent ?? null,
    /** What has the keyboard focus: "canvas <view>" inside the figure, else the page's element. */
    focus(id = 'fig') {
      const el = H.el(id);
      if (document.activeElement !== el) return `page ${document.activeElement?.localName}`;
      const a = el.shadowRoot.activeElement;
      if (!a) return 'host';
      return a.localName === 'canvas' ? `canvas ${a.dataset.view}` : a.localName;
    },
    /** The breakdown as text: its summary, notes by name, rows by key ({cells, masked}). */
    breakdown(id = 'fig') {
      const root = H.el(id).shadowRoot.querySelector('.breakdown');
      const notes = Object.fromEntries([...root.querySelectorAll('[data-note]')].map((n) => [n.dataset.note, n.textContent]));
      const header = [...root.querySelector('tr').children].map((c) => c.textContent);
      const rows = [...root.querySelectorAll('tr[data-key]')].map((tr) => ({
        masked: tr.dataset.masked ?? null,
        cells: Object.fromEntries([...tr.children].map((c, k) => [header[k], c.textContent])),
      }));
      return { summary: root.querySelector('summary').textContent, notes, header, rows };
    },
    steps(id = 'fig') {
      const root = H.el(id).shadowRoot.querySelector('.steps');
      return {
        title: root.querySelector('.steps-title').textContent,
        notes: Object.fromEntries([...root.querySelectorAll('[data-note]')].map((n) => [n.dataset.note, n.textContent])),
        header: [...root.querySelectorAll('thead th')].map((c) => c.textContent),
        rows: [...root.querySelectorAll('tbody tr[data-key]')].map((tr) => ({ masked: tr.dataset.masked ?? null, text: tr.textContent })),
      };
    },
    frames: (n = 2) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); }),
  };
  window.H = H;
}

async function ready(page, selector = '#fig') {
  await whenDrawn(page, selector, installHelpers);
}

/**
 * A blank page with one <attention-viz id="fig"> and `attrs`; its config given as the `config` attribute, or
 * (`property: true`) set as the property once the element has loaded its default preset.
 */
async function figure(config, attrs = {}, { page = null, viewport = { width: 1280, height: 1000 }, property = false } = {}) {
  page ??= await site.page(null, { viewport });
  await page.goto(`${site.url}tests/fixtures/blank.html`);
  await page.evaluate(async ([c, a, prop]) => {
    const av = await import('/www/attention-viz.js');
    await av.ready;
    const el = document.createElement('attention-viz');
    el.id = 'fig';
    for (const [k, v] of Object.entries(a)) el.setAttribute(k, v);
    if (!prop) el.setAttribute('config', JSON.stringify(c));
    document.body.append(el);
    if (prop) {
      await new Promise((ok) => { const f = () => (el.trace ? ok() : requestAnimationFrame(f)); f(); });
      el.config = c;
    }
  }, [config, attrs, property]);
  const marker = JSON.stringify(config.embeddings ?? config.decoder_state);
  await page.waitForFunction((m) => {
    const el = document.getElementById('fig');
    return el?.trace && JSON.stringify(el.config.embeddings ?? el.config.decoder_state) === m;
  }, marker);
  await ready(page);
  return page;
}

const ACCENT = [0x09, 0x69, 0xda];
const LINK = [0x9a, 0x67, 0x00];

// ---- 1. small multiples -----------------------------------------------------------------------------------------

for (const h of [2, 3, 4]) {
  test(`${h} heads: one small multiple per head in one wrapping row before the followed head's stages, each titled "head i", legible, the followed head outlined`, async () => {
    // The config attribute, or (3 heads) the property set on a loaded figure.
    const page = await figure(heads(h), {}, { property: h === 3 });
    const r = await page.evaluate(async () => {
      const el = H.el();
      const group = el.shadowRoot.querySelector('[data-role="heads"]');
      const figs = group ? [...group.querySelectorAll('figure.stage')] : [];
      const order = [...el.shadowRoot.querySelectorAll('.stages figure.stage, .stages [data-role="heads"]')]
        .filter((n) => !n.closest('[data-role="heads"]') || n.dataset.role === 'heads').map((n) => n.dataset.view ?? 'heads');
      return {
        views: figs.map((f) => f.dataset.view),
        labels: figs.map((f) => f.querySelector('canvas').getAttribute('aria-label')),
        current: figs.map((f) => f.querySelector('canvas').getAttribute('aria-current')),
        boxes: figs.map((f) => { const b = f.querySelector('canvas').getBoundingClientRect(); return { top: b.top, left: b.left, width: b.width, height: b.height }; }),
        caption: group?.querySelector('.heads-title')?.textContent ?? null,
        order,
        accent: figs.map((f) => H.count(f.dataset.view, [0x09, 0x69, 0xda])),
        legible: await Promise.all(figs.map((f) => H.legible(f.dataset.view))),
      };
    });
    assert.deepEqual(r.views, Array.from({ length: h }, (_, i) => `heads.${i}.weights`));
    r.labels.forEach((l, i) => assert.match(l, new RegExp(`^head ${i}\\b`), `head ${i}'s canvas is named by its title "${l}"`));
    assert.deepEqual(r.current, Array.from({ length: h }, (_, i) => (i === 0 ? 'true' : null)), 'head 0 is the followed one');
    assert.match(r.caption, new RegExp(`${h} heads, head 0 followed`));
    assert.ok(r.boxes.every((b) => Math.abs(b.top - r.boxes[0].top) < 1), 'at 1280 px every head is in one row');
    assert.ok(r.boxes.every((b) => Math.abs(b.width - r.boxes[0].width) < 1), 'all the same size');
    for (const c of r.legible) assert.ok(c.w >= 6 * c.chars + 4 && c.h >= 12, `cells of ${c.w}×${c.h} px hold ${c.chars} characters at 10 px or more`);
    assert.ok(r.order.indexOf('heads') < r.order.indexOf('scores'), `the heads come before the followed head's scores (${r.order})`);
    assert.ok(r.order.indexOf('context') < r.order.indexOf('output'), 'output after context');
    assert.ok(r.accent[0] > 20, `the followed head is outlined in the accent colour (${r.accent[0]} px)`);
    assert.ok(r.accent.slice(1).every((n) => n === 0), `the others are not (${r.accent})`);
    await done(page);
  });
}

test('390 px: the small multiples are one or two a row, never wider than the figure, their numbers still legible', async () => {
  const page = await figure(heads(4), {}, { viewport: { width: 390, height: 900 } });
  const r = await page.evaluate(async () => {
    const el = H.el();
    const host = el.getBoundingClientRect();
    const cs = [...el.shadowRoot.querySelectorAll('canvas.head-pick')];
    const tops = cs.map((c) => Math.round(c.getBoundingClientRect().top));
    const perRow = Math.max(...[...new Set(tops)].map((t) => tops.filter((x) => x === t).length));
    return {
      perRow, right: Math.max(...cs.map((c) => c.getBoundingClientRect().right)), hostRight: host.right,
      cells: (await Promise.all(cs.map((c) => H.legible(c.dataset.view)))).map(({ w, chars }) => ({ w, chars })),
    };
  });
  assert.ok(r.perRow >= 1 && r.perRow <= 2, `${r.perRow} a row`);
  assert.ok(r.right <= r.hostRight, 'inside the figure');
  for (const c of r.cells) assert.ok(c.w >= 6 * c.chars + 4, `cells of ${c.w} px hold ${c.chars} characters at 10 px`);
  await done(page);
});

// ---- 2. picking a head ----------------------------------------------------------------------------------------------

test('a click on head 2 follows it: config.head, the stages\' titles and numbers, the breakdown, the outline; the focus stays on head 2', async () => {
  const page = await figure(heads(4));
  const before = await page.evaluate(() => ({ scores: H.canvas('scores').getAttribute('aria-label'), w: H.el().trace.heads[2].weights }));
  await page.evaluate(() => H.canvas('heads.2.weights').scrollIntoView({ block: 'center' }));
  const at = await page.evaluate(() => H.center('heads.2.weights', 1, 1));
  await page.mouse.click(at.x, at.y);
  const r = await page.evaluate(async () => {
    await H.frames(2);
    const el = H.el();
    return {
      head: el.config.head, focus: H.focus(), scores: H.canvas('scores').getAttribute('aria-label'),
      weightsTable: [...el.shadowRoot.querySelector('[data-text-of="weights"] tbody').rows].map((tr) => [...tr.querySelectorAll('td')].map((t) => t.textContent)),
      head2Table: [...el.shadowRoot.querySelector('[data-text-of="heads.2.weights"] tbody').rows].map((tr) => [...tr.querySelectorAll('td')].map((t) => t.textContent)),
      summary: H.breakdown().summary, current: H.canvas('heads.2.weights').getAttribute('aria-current'),
      old: H.canvas('heads.0.weights').getAttribute('aria-current'),
      accent2: H.count('heads.2.weights', [0x09, 0x69, 0xda]), accent0: H.count('heads.0.weights', [0x09, 0x69, 0xda]),
      caption: el.shadowRoot.querySelector('.heads-title').textContent,
    };
  });
  assert.equal(r.head, 2, 'config.head is 2');
  assert.equal(r.focus, 'canvas heads.2.weights', 'the focus is on the picked head');
  assert.notEqual(r.scores, before.scores);
  assert.match(r.scores, /\(head 2\)/, 'the scores heatmap says it shows head 2');
  assert.deepEqual(r.weightsTable, r.head2Table, 'the weights heatmap shows head 2\'s numbers');
  assert.match(r.summary, /head 2 of 4/);
  assert.deepEqual([r.current, r.old], ['true', null]);
  assert.ok(r.accent2 > 20 && r.accent0 === 0, `the outline moved to head 2 (${r.accent2}, ${r.accent0})`);
  assert.match(r.caption, /head 2 followed/);
  await done(page);
});

test('keyboard: Tab to a head\'s weights, Enter follows it and the focus stays; arrows move a cursor over it, announced; Space follows another', async () => {
  const page = await figure(heads(4));
  // Into the heatmaps: a click on K's title (K is no control), then Tab along the canvases.
  const k = await page.evaluate(() => { const r = H.canvas('k').getBoundingClientRect(); return { x: r.left + 4, y: r.top + 4 }; });
  await page.mouse.click(k.x, k.y);
  assert.equal(await page.evaluate(() => H.focus()), 'canvas k');
  await page.keyboard.press('Tab'); // v
  await page.keyboard.press('Tab'); // heads.0.weights
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => H.focus()), 'canvas heads.1.weights');
  const help = await page.evaluate(() => {
    const c = H.canvas('heads.1.weights');
    return c.getRootNode().getElementById(c.getAttribute('aria-describedby')).textContent;
  });
  assert.match(help, /Enter, Space or a click follow this head/);
  await page.keyboard.press('Enter');
  let r = await page.evaluate(async () => { await H.frames(2); return { head: H.el().config.head, focus: H.focus(), summary: H.breakdown().summary }; });
  assert.deepEqual([r.head, r.focus], [1, 'canvas heads.1.weights'], 'Enter followed head 1; the focus stayed');
  assert.match(r.summary, /head 1 of 4/);
  // The cursor on a small multiple: starts on the followed query's row, announced, its tooltip shown.
  await page.keyboard.press('ArrowRight');
  r = await page.evaluate(async () => { await H.frames(2); const c = (await T.twin(H.el())).ask({ kind: 'cellText', view: 'heads.1.weights', i: 0, j: 1 }); return { said: H.said(), tip: H.tip(), c, focus: H.focus() }; });
  assert.equal(r.said, `head 1 weights, query ${r.c.row} → key ${r.c.col}: ${r.c.value}`);
  assert.match(r.tip, /^heads\.1\.weights\[0\]\[1\] = /);
  assert.equal(r.focus, 'canvas heads.1.weights');
  // Tab on, Space on head 3 follows it.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => H.focus()), 'canvas heads.3.weights');
  await page.keyboard.press('Space');
  r = await page.evaluate(async () => { await H.frames(2); return { head: H.el().config.head, focus: H.focus(), scaled: H.canvas('scaled').getAttribute('aria-label') }; });
  assert.deepEqual([r.head, r.focus], [3, 'canvas heads.3.weights']);
  assert.match(r.scaled, /\(head 3\)/);
  // Enter on the followed head changes nothing but places the cursor.
  await page.keyboard.press('Enter');
  r = await page.evaluate(async () => { await H.frames(2); return { head: H.el().config.head, focus: H.focus(), said: H.said() }; });
  assert.deepEqual([r.head, r.focus], [3, 'canvas heads.3.weights']);
  assert.match(r.said, /^head 3 weights, query /);
  await done(page);
});

test('hover on a head\'s weight links that head\'s columns of Q, K, V and the context, and says how to follow it; a tap follows it', async () => {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 1000 }, hasTouch: true });
  const page = watch(await context.newPage());
  await figure(heads(4), {}, { page });
  await page.evaluate(() => H.canvas('heads.2.weights').scrollIntoView({ block: 'center' }));
  const at = await page.evaluate(() => H.center('heads.2.weights', 1, 3));
  await page.mouse.move(at.x, at.y);
  const r = await page.evaluate(async (link) => {
    await H.frames(3);
    const [a0, a1] = await H.span('q', 1, 4, 6);
    const [b0, b1] = await H.span('q', 1, 0, 2);
    return {
      tip: H.tip(), head: H.el().config.head ?? 0, focus: H.focus(),
      inHead: H.countIn('q', link, a0, a1), elsewhere: H.countIn('q', link, b0, b1),
      onK: H.count('k', link), onContext: H.count('context', link), onOwn: H.count('heads.2.weights', link),
    };
  }, LINK);
  assert.match(r.tip, /^heads\.2\.weights\[1\]\[3\] = /);
  assert.match(r.tip, /follow head 2/);
  assert.equal(r.head, 0, 'hovering follows nothing');
  assert.equal(r.focus, 'page body', 'hovering moves no focus');
  assert.ok(r.inHead > 10, `row 1 of Q is outlined in head 2's columns 4…5 (${r.inHead} px)`);
  assert.equal(r.elsewhere, 0, 'not in head 0\'s columns');
  assert.ok(r.onK > 10 && r.onContext > 10 && r.onOwn > 10, `K, the context and the hovered cell are linked (${r.onK}, ${r.onContext}, ${r.onOwn})`);
  // A tap on head 1: followed, and the tapped cell's tooltip shows.
  await page.mouse.move(1, 1);
  const t = await page.evaluate(() => H.center('heads.1.weights', 2, 0));
  await page.touchscreen.tap(t.x, t.y);
  const s = await page.evaluate(async () => { await H.frames(3); return { head: H.el().config.head, tip: H.tip(), focus: H.focus() }; });
  assert.equal(s.head, 1, 'the tap followed head 1');
  assert.match(s.tip ?? '', /^heads\.1\.weights\[2\]\[0\] = /);
  assert.equal(s.focus, 'canvas heads.1.weights');
  const errors = [...page.errors];
  await context.close();
  assert.deepEqual(errors, []);
});

// ---- 3. what the breakdown and the steps explain --------------------------------------------------------------------------

test('the legend says "−∞ = masked" with a mask or valid lengths, and not without', async () => {
  const legend = (page) => page.evaluate(() => { const l = H.el().shadowRoot.querySelector('.legend'); return l.hidden ? null : l.textContent; });
  const page = await figure({ ...SEED_000, mask: 'causal' });
  assert.match(await legend(page), /−∞ = masked/);
  await figure({ ...SEED_000, valid_lens: [4, 3, 2, 1] }, {}, { page });
  assert.match(await legend(page), /−∞ = masked/);
  await figure({ ...SEED_003, mask: [1, 1, 0, 1] }, {}, { page });
  assert.match(await legend(page), /−∞ = masked/, 'encoder–decoder too');
  await figure(SEED_000, {}, { page });
  assert.doesNotMatch(await legend(page), /masked/);
  await done(page);
});

test('causal mask and valid lengths: each masked key says why, −∞ scaled, weight 0, in the breakdown and the steps; a fully masked query per masked_row', async () => {
  const page = await figure({ ...SEED_000, mask: 'causal', valid_lens: [4, 1, 2, 0], query: 1 }, { views: 'steps,scaled,weights,breakdown' });
  let b = await page.evaluate(() => H.breakdown());
  assert.deepEqual(b.rows.map((r) => r.masked), [null, '2', '3', '3']);
  assert.equal(b.rows[0].cells.mask, 'attended');
  assert.equal(b.rows[1].cells.mask, 'masked: beyond valid length 1');
  assert.equal(b.rows[2].cells.mask, 'masked: causal mask and beyond valid length 1');
  const scaledCol = b.header.find((h) => h.startsWith('scaled'));
  for (const r of b.rows.slice(1)) {
    assert.equal(r.cells[scaledCol], '−∞');
    assert.equal(r.cells['weight = exp ÷ Σ'], '0');
  }
  assert.match(b.notes.mask, /causal mask.*valid lengths \[4, 1, 2, 0\].*3 of 4 keys masked/);
  const s = await page.evaluate(() => H.steps());
  assert.deepEqual(s.rows.map((r) => r.masked), [null, '2', '3', '3']);
  assert.match(s.rows[2].text, /masked: causal mask and beyond valid length 1/);
  assert.match(s.rows[2].text, /−∞/);
  assert.match(s.notes.mask, /3 of 4 keys masked/);
  // Query 0 under a causal mask: keys 1… come after it.
  await figure({ ...SEED_000, mask: 'causal' }, {}, { page });
  b = await page.evaluate(() => H.breakdown());
  assert.deepEqual(b.rows.map((r) => r.cells.mask), ['attended', 'masked: causal mask', 'masked: causal mask', 'masked: causal mask']);
  // Query 3 with valid length 0: every key masked, explained per masked_row.
  for (const [row, words] of [[undefined, /weights 0 and a context of 0/], ['uniform', /weight 1\/4 = 0\.25/], ['nan', /NaN/]]) {
    await figure({ ...SEED_000, valid_lens: [4, 3, 2, 0], query: 3, ...(row ? { masked_row: row } : {}) }, { views: 'steps,weights,breakdown' }, { page });
    b = await page.evaluate(() => H.breakdown());
    assert.match(b.notes['masked-row'] ?? '', /Every key is masked for query 3/, `masked_row ${row}`);
    assert.match(b.notes['masked-row'], words);
    assert.match((await page.evaluate(() => H.steps())).notes['masked-row'] ?? '', words);
  }
  await done(page);
});

test('temperature: the scaled column and the steps divide by T too, and a note says what T does', async () => {
  const page = await figure({ ...SEED_000, temperature: 0.5 }, { views: 'steps,scaled,breakdown' });
  const b = await page.evaluate(() => H.breakdown());
  assert.ok(b.header.includes('scaled = score ÷ √3 ÷ T'), b.header.join(' | '));
  assert.match(b.notes.temperature, /T = 0\.5.*sharpens/);
  const trace = await page.evaluate(() => H.el().trace.query.scaled);
  assert.equal(Number(b.rows[2].cells['scaled = score ÷ √3 ÷ T']), Number(trace[2].toPrecision(4)), 'the scaled number is the core\'s (10 / √3 / 0.5)');
  const s = await page.evaluate(() => H.steps());
  assert.ok(s.header.includes('÷ √3 ÷ T'), s.header.join(' | '));
  assert.match(s.notes.temperature, /T = 0\.5/);
  await figure({ ...SEED_000, temperature: 4 }, {}, { page });
  assert.match((await page.evaluate(() => H.breakdown())).notes.temperature, /T = 4.*flattens/);
  await done(page);
});

test('scoring functions: the breakdown writes general, additive and cosine scores out with their numbers', async () => {
  const page = await figure({ ...SEED_000, scoring: 'general', w_a: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }, { views: 'steps,scores,breakdown' });
  let b = await page.evaluate(() => H.breakdown());
  assert.match(b.notes.scoring, /general \(Luong 2015\), score = q·W_a·kᵀ/);
  assert.equal(b.rows[2].cells.score, 'q₀·W_a·k₂ᵀ = [2, 0, 2]·W_a·[2, 4, 3]ᵀ = 10');
  assert.ok((await page.evaluate(() => H.steps())).header.includes('score q₀·W_a·k_jᵀ'));

  await figure({ ...SEED_000, scoring: 'additive', w_a: [[0.5, 0], [0, 0.5], [0.25, 0.25]], u_a: [[0.5, -0.5], [0, 0.25], [0.25, 0]], v_a: [1, -2] },
    { views: 'steps,scores,query.features,breakdown' }, { page });
  b = await page.evaluate(() => H.breakdown());
  const f = await page.evaluate(() => ({ features: H.el().trace.query.features, scores: H.el().trace.query.scores }));
  assert.match(b.notes.scoring, /additive \(Bahdanau 2015\), score = v_a·tanh\(q·W_a \+ k·U_a\)/);
  const hidden = b.header.find((h) => h.startsWith('hidden'));
  assert.equal(hidden, 'hidden = tanh(q·W_a + k_j·U_a)');
  b.rows.forEach((r, j) => {
    const shown = r.cells[hidden].slice(1, -1).split(', ').map(Number);
    shown.forEach((x, c) => assert.ok(Math.abs(x - f.features[j][c]) <= 5e-4 * Math.max(1, Math.abs(f.features[j][c])), `hidden[${j}][${c}] ${x} vs ${f.features[j][c]}`));
    assert.match(r.cells.score, new RegExp(`^v_a·tanh\\(q₀·W_a \\+ k${'₀₁₂₃'[j]}·U_a\\) = 1·\\S+ \\+ \\(-2\\)·\\S+ = \\S+$`));
  });
  assert.ok((await page.evaluate(() => H.steps())).header.includes('score v_a·tanh(q₀·W_a + k_j·U_a)'));

  await figure({ ...SEED_000, scoring: 'cosine', temperature: 0.1 }, { views: 'steps,scores,breakdown' }, { page });
  b = await page.evaluate(() => H.breakdown());
  assert.match(b.notes.scoring, /cosine, score = q·k \/ max\(‖q‖·‖k‖, 1e-8\)/);
  assert.equal(b.rows[2].cells.score, 'q₀·k₂ / max(‖q₀‖·‖k₂‖, 1e-8) = (2·2 + 0·4 + 2·3) / (√(2² + 0² + 2²)·√(2² + 4² + 3²)) = 0.6565');
  assert.ok((await page.evaluate(() => H.steps())).header.includes('score cos(q₀, k_j)'));
  // The tooltip of a score shows the same formula.
  await page.evaluate(() => H.canvas('scores').scrollIntoView({ block: 'center' }));
  const at = await page.evaluate(() => H.center('scores', 0, 2));
  await page.mouse.move(at.x, at.y);
  const tip = await page.evaluate(async () => { await H.frames(2); return H.tip(); });
  assert.match(tip, /q₀·k₂ \/ max\(‖q₀‖·‖k₂‖, 1e-8\) = /);
  await done(page);
});

test('encoder–decoder: additive scores with the hidden features, a masked annotation, the temperature', async () => {
  const page = await figure({ ...SEED_003, scoring: 'additive', w_a: [[0.1, -0.2], [0.05, 0.1], [0.02, -0.03]],
    u_a: [[0.03, 0.01], [-0.1, 0.05], [0.01, 0.02]], v_a: [1, -0.5], mask: [1, 1, 1, 0], temperature: 2 });
  const b = await page.evaluate(() => H.breakdown());
  assert.match(b.summary, /decoder state h = \[5, 1, 20\]/);
  assert.ok(b.header.includes('hidden = tanh(h·W_a + a_j·U_a)'), b.header.join(' | '));
  assert.equal(b.rows[3].cells.mask, 'masked: mask[3] = 0');
  assert.equal(b.rows[3].masked, '1');
  assert.equal(b.rows[3].cells['scaled = score ÷ T'], '−∞');
  assert.equal(b.rows[3].cells.weight, '0');
  assert.match(b.rows[0].cells.score, /^v_a·tanh\(h·W_a \+ a₀·U_a\) = 1·\S+ \+ \(-0\.5\)·\S+ = \S+$/);
  assert.match(b.notes.temperature, /T = 2/);
  await done(page);
});

test('several heads: the breakdown and the steps follow the picked head ("head 1 of 4") with that head\'s q and k', async () => {
  const page = await figure(heads(4, { head: 1 }), { views: 'steps,heads.0.weights,heads.1.weights,heads.2.weights,heads.3.weights,scores,breakdown' });
  const r = await page.evaluate(() => ({ b: H.breakdown(), s: H.steps(), t: H.el().trace }));
  assert.match(r.b.summary, /query 0 \(the\), head 1 of 4, q₀ = \[/);
  assert.match(r.b.notes.head, /Head 1 of 4: its own columns 2…3 of Q and K \(d_k = 2\)/);
  assert.match(r.s.title, /head 1 of 4/);
  const [q, k] = [r.t.heads[1].q[0], r.t.heads[1].k[2]];
  const fmt = (x) => (x < 0 ? `(${x})` : String(x));
  assert.equal(r.b.rows[2].cells.score, `q₀·k₂ = ${q.map((x, c) => `${fmt(x)}·${fmt(k[c])}`).join(' + ')} = ${Number(r.t.heads[1].scores[0][2].toPrecision(4))}`);
  await done(page);
});

// ---- 4. the fixture page: no console error, axe-core ------------------------------------------------------------------------

for (const [scheme, width] of [['light', 1280], ['dark', 390]]) {
  test(`tests/fixtures/heads.html (${scheme}, ${width} px): every figure drawn, no console error, no axe-core violation`, async () => {
    const page = await site.page(null, { viewport: { width, height: 900 } });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${site.url}tests/fixtures/heads.html`);
    await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => e.trace
      && [...e.shadowRoot.querySelectorAll('canvas[data-view]')].every((c) => c.width > 0)), null, { timeout: WAIT });
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.flat().join(' >>> ')).join('; ')}`);
    });
    assert.deepEqual(violations, []);
    const heads = await page.evaluate(() => document.getElementById('heads4').shadowRoot.querySelectorAll('canvas.head-pick').length);
    assert.equal(heads, 4);
    await done(page);
  });
}
