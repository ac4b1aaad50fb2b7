// The structure the heatmaps and the flash panel show (src/views.rs `structure`, src/steppers.rs), by real input:
// grouped-query attention's K and V columns in their K/V head's colour and Q's columns of the query heads sharing each,
// the KV cache outlined inside K and V while generating; the flash table's running maxima that grew at a tile
// (m_old → m_new, with their rescale factor) and the bytes it moves against the n × n scores never written; the
// legend's changed-cell corner; and the tooltip placed clear of the cell it describes and of the cells it reads
// (page.mouse at 1280 px, page.touchscreen at 390 px). Axe at both sizes and themes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, done, openHTML } from './harness.mjs';

const AXE = join(fileURLToPath(new URL('../../', import.meta.url)), 'node_modules/axe-core/axe.min.js');
const PAGE = 'tests/e2e/structure-page.html'; // no such file: served by openHTML's page.route

// src/heatmap/draw.rs GROUP_COLORS: K/V head 0's and 1's colours, light and dark.
const GROUPS = { light: [[0x82, 0x50, 0xdf], [0x1a, 0x7f, 0x37]], dark: [[0xbc, 0x8c, 0xff], [0x56, 0xd3, 0x64]] };

const grid = (n, m) => Array.from({ length: n }, (_, i) => Array.from({ length: m }, (_, j) => ((i + j) % 3 === 0 ? 1 : 0.5)));
// 4 query heads of d_k = 2 sharing 2 K/V heads; generating token 2.
const GQA = { embeddings: grid(4, 4), tokens: ['a', 'b', 'c', 'd'], heads: 4, kv_heads: 2, w_q: grid(4, 8), w_k: grid(4, 4),
  w_v: grid(4, 4), mask: 'causal', decode_step: 2, query: 2 };
// Chapter 13's walk: word_1's maximum grows at the second tile.
const FLASH = { embeddings: [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], tokens: ['word_1', 'word_2', 'word_3', 'word_4'],
  w_q: [[2, 0, 2], [2, 0, 0], [2, 1, 2]], w_k: [[2, 2, 2], [0, 2, 1], [0, 1, 1]], w_v: [[1, 1, 0], [0, 1, 1], [0, 0, 0]], tiles: [2, 2] };

// RoPE with W_Q = W_K = I: query "c" (q = [1, 1]) and key "b" (k = [0, 1]); pair 0 turns 1 rad a position.
const ROPE = { embeddings: [[1, 0], [0, 1], [1, 1]], tokens: ['a', 'b', 'c'], query: 2, w_q: [[1, 0], [0, 1]], w_k: [[1, 0], [0, 1]],
  w_v: [[1, 0], [0, 1]], position: { kind: 'rope' } };
const attr = (o) => JSON.stringify(o).replace(/'/g, '&#39;');
const HTML = (theme) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>structure</title><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<body style="margin:8px;font-family:sans-serif${theme === 'dark' ? ';background:#0d1117;color:#e6edf3;color-scheme:dark' : ''}"><main><h1>Structure</h1>
<script type="module" src="/www/attention-viz.js"></script>
<attention-viz id="gqa" theme="${theme}" views="kv,q,k,v,scaled,weights" config='${attr(GQA)}'></attention-viz>
<attention-viz id="flash" theme="${theme}" views="flash,weights" config='${attr(FLASH)}'></attention-viz>
<attention-viz id="seed" theme="${theme}" preset="seed-001"></attention-viz>
<attention-viz id="rope" theme="${theme}" views="position,weights" config='${attr(ROPE)}'></attention-viz>
</main></body></html>`;

let site;
before(async () => { site = await open(); });
after(() => site.close());

function installHelpers() {
  window.S = {
    el: (id) => document.getElementById(id),
    canvas: (id, v) => S.el(id).shadowRoot.querySelector(`canvas[data-view="${v}"]`),
    /** How many pixels of a heatmap (with its outlines) are within 24 of `rgb`. */
    count(id, view, rgb) {
      const c = S.canvas(id, view);
      const d = T.seen(c).getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (Math.abs(d[k] - rgb[0]) + Math.abs(d[k + 1] - rgb[1]) + Math.abs(d[k + 2] - rgb[2]) <= 24) n++;
      return n;
    },
    /** Cells [i, j0 … j1] of a view as one client box, where the core's hit test finds them. */
    async box(id, view, i, j0, j1 = j0) {
      const el = S.el(id);
      const c = S.canvas(id, view);
      const r = c.getBoundingClientRect();
      const s = c.width / r.width;
      const [viz, fmt] = [await T.twin(el), await T.fmt(el)];
      const hits = (x, y) => viz.ask({ kind: 'cellAt', view, width: c.width, height: c.height, dpr: s, x, y, fmt });
      let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
      for (let y = 0.5; y < c.height; y += 2) {
        for (let x = 0.5; x < c.width; x += 2) {
          const h = hits(x, y);
          if (h && h[0] === i && h[1] >= j0 && h[1] <= j1) { x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y); }
        }
      }
      if (x0 === Infinity) throw new Error(`no cell [${i}, ${j0}…${j1}] on ${view}`);
      return { left: r.left + x0 / s, top: r.top + y0 / s, right: r.left + x1 / s, bottom: r.top + y1 / s };
    },
    tip(id) {
      const t = S.el(id).shadowRoot.querySelector('.tip');
      if (!t || t.hidden) return null;
      const r = t.getBoundingClientRect();
      return { text: t.textContent, left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    },
    frames: (n = 3) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); }),
  };
}

const load = (theme, viewport, hasTouch = false) => openHTML(site, PAGE, HTML(theme), installHelpers, { viewport, hasTouch });
const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

for (const [width, theme] of [[1280, 'light'], [390, 'dark']]) {
  test(`${width} px, ${theme}: K and V coloured by K/V head, Q grouped by them, the cache outlined, each said in its text alternative`, async () => {
    const page = await load(theme, { width, height: 900 });
    try {
      await page.locator('#gqa >> canvas[data-view="k"]').scrollIntoViewIfNeeded();
      const r = await page.evaluate((groups) => Object.fromEntries(['q', 'k', 'v'].map((v) => [v, {
        colours: groups.map((g) => S.count('gqa', v, g)),
        label: S.canvas('gqa', v).getAttribute('aria-label') ?? '',
        table: S.el('gqa').shadowRoot.querySelector(`[data-text-of="${v}"], figure.stage[data-view="${v}"] table caption`)?.textContent ?? '',
      }])), GROUPS[theme]);
      for (const v of ['q', 'k', 'v']) {
        const [a, b] = r[v].colours;
        assert.ok(a > 20 && b > 20, `${v}: both K/V heads' colours outline its columns (${a}, ${b} px)`);
        assert.match(r[v].label, /coloured by K\/V head/, `${v}'s name says what the colours are`);
      }
      assert.match(r.q.label, /query heads sharing each K\/V head 0–1 \| 2–3/);
      assert.match(r.k.label, /dashed: the KV cache, tokens 0 … 2/);
      assert.match(r.v.label, /dashed: the KV cache, tokens 0 … 2/);
      assert.doesNotMatch(r.q.label, /KV cache/);
    } finally {
      await done(page);
    }
  });
}

test('RoPE pair: dragging the position slider turns q and k together by p·θ, and their dot product stays', async () => {
  const page = await load('light', { width: 1280, height: 900 });
  try {
    const slider = page.locator('#rope >> [data-control="position-pair"]');
    await slider.scrollIntoViewIfNeeded();
    const read = () => page.evaluate(() => {
      const root = S.el('rope').shadowRoot;
      const angle = (v) => {
        const l = root.querySelector(`[data-role="pair-${v}"]`);
        const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((k) => Number(l.getAttribute(k)));
        return Math.atan2(y1 - y2, x2 - x1);
      };
      const text = root.querySelector('[data-role="pair-text"]').textContent;
      return { q: angle('q'), k: angle('k'), text, label: root.querySelector('[data-role="pair-svg"]').getAttribute('aria-label'),
        offset: S.el('rope').config.position.offset ?? 0, focus: root.activeElement?.dataset?.control ?? null };
    });
    const turned = (a, b, by) => Math.abs(Math.atan2(Math.sin(b - a - by), Math.cos(b - a - by))) < 0.02;
    const dot = (t) => t.match(/stays ([^ ]+) at any shift/)[1];
    const before = await read();
    assert.ok(turned(Math.PI / 4, before.q, 2), `q of "c" at position 2 points at 45° + 2 rad (${before.q})`);
    assert.ok(turned(Math.PI / 2, before.k, 1), `k of "b" at position 1 points at 90° + 1 rad (${before.k})`);
    assert.equal(before.label, before.text, 'the picture\'s text alternative is its sentence');
    // A real drag of the slider's thumb to the right.
    const b = await slider.boundingBox();
    await page.mouse.move(b.x + 6, b.y + b.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width * 0.3, b.y + b.height / 2, { steps: 8 });
    await page.mouse.up();
    const after = await read();
    assert.ok(after.offset > 0, `the drag shifted the positions (${after.offset})`);
    assert.ok(turned(before.q, after.q, after.offset) && turned(before.k, after.k, after.offset), `q and k both turned by ${after.offset} rad`);
    assert.equal(dot(after.text), dot(before.text), 'their dot product over the pair stays');
    assert.equal(after.focus, 'position-pair', 'the keyboard is on the slider');
    await page.keyboard.press('ArrowRight');
    const stepped = await read();
    assert.equal(stepped.offset, after.offset + 1, '→ shifts by one');
    assert.ok(turned(after.q, stepped.q, 1), 'q turns 1 rad more');
  } finally {
    await done(page);
  }
});

test('the kv panel shows each K/V head\'s colour beside the query heads that share it', async () => {
  const page = await load('dark', { width: 390, height: 800 });
  try {
    const swatches = await page.evaluate(() => [...S.el('gqa').shadowRoot.querySelectorAll('[data-role="kv-share"] li')]
      .map((li) => ({ text: li.textContent, color: li.querySelector('.swatch') && getComputedStyle(li.querySelector('.swatch')).backgroundColor })));
    assert.deepEqual(swatches, [
      { text: 'K/V head 0 ← query heads 0, 1', color: `rgb(${GROUPS.dark[0].join(', ')})` },
      { text: 'K/V head 1 ← query heads 2, 3', color: `rgb(${GROUPS.dark[1].join(', ')})` },
    ]);
  } finally {
    await done(page);
  }
});

test('flash: → marks the running maximum that grew (m_old → m_new) and its rescale factor, and says the bytes moved', async () => {
  const page = await load('light', { width: 1280, height: 900 });
  try {
    const next = page.locator('#flash >> [data-action="flash-next"]');
    await next.scrollIntoViewIfNeeded();
    const traffic = () => page.evaluate(() => S.el('flash').shadowRoot.querySelector('[data-role="flash-traffic"]').textContent);
    assert.match(await traffic(), /^Main memory, tiles 1 … 1: 144 bytes read .* 0 bytes written .* the 4 × 4 scores, 128 bytes .* never written\.$/);
    const b = await next.boundingBox();
    await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
    await page.waitForFunction(() => S.el('flash').shadowRoot.querySelector('[data-role="flash-step"]').textContent.startsWith('tile 2 of 4'));
    const rows = await page.evaluate(() => [...S.el('flash').shadowRoot.querySelectorAll('[data-role="flash-mlo"] tbody tr')]
      .map((tr) => [...tr.querySelectorAll('td')].map((td) => ({ text: td.textContent, changed: td.classList.contains('changed'),
        corner: getComputedStyle(td, '::after').borderRightWidth }))));
    assert.equal(rows[0][0].text, '4.6188 → 5.7735 (changed)', 'word_1: m_old → m_new, said changed');
    assert.deepEqual(rows[0].map((c) => c.changed), rows[0].map((_, k) => k === 0 || k === rows[0].length - 1), 'm and exp(m_old − m_new) marked');
    assert.equal(rows[0][0].corner, '7px', 'the corner mark shows');
    assert.ok(rows[1].every((c) => !c.changed), 'word_2\'s maximum stayed');
    assert.match(await traffic(), /^Main memory, tiles 1 … 2: 240 bytes read .* 80 bytes written/);
    assert.equal(await page.evaluate(() => S.el('flash').shadowRoot.activeElement?.dataset.action), 'flash-next', 'the keyboard stays on →');
  } finally {
    await done(page);
  }
});

test('the legend names the changed cells\' corner once an edit marked some', async () => {
  const page = await load('light', { width: 1280, height: 900 });
  try {
    const legend = () => page.evaluate(() => S.el('seed').shadowRoot.querySelector('.legend').textContent);
    assert.doesNotMatch(await legend(), /changed/);
    const cell = page.locator('#seed >> input.cell').first();
    await cell.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /changed/.test(S.el('seed').shadowRoot.querySelector('.legend').textContent));
    assert.match(await legend(), /filled corner: changed by the last edit/);
  } finally {
    await done(page);
  }
});

/** The boxes a weights[i][j] tooltip must leave clear on the seed figure (one head): the cell, its row, and what it
 * reads and feeds (the dashed outlines): scaled[i][j], row i of Q and of the context, row j of K and of V. */
async function readBoxes(page, i, j) {
  return page.evaluate(async ([i, j]) => {
    const el = S.el('seed');
    const cols = (v) => el.trace[v][0].length;
    const shown = (v) => !!S.canvas('seed', v);
    const out = { cell: await S.box('seed', 'weights', i, j), row: await S.box('seed', 'weights', i, 0, cols('weights') - 1) };
    if (shown('scaled')) out.scaled = await S.box('seed', 'scaled', i, j);
    for (const [v, r] of [['q', i], ['k', j], ['v', j], ['context', i]]) if (shown(v)) out[v] = await S.box('seed', v, r, 0, cols(v) - 1);
    return out;
  }, [i, j]);
}

test('mouse, 1280 px: a weight\'s tooltip covers neither the cell, its row, nor the cells it reads', async () => {
  const page = await load('light', { width: 1280, height: 1000 });
  try {
    await page.evaluate(() => S.canvas('seed', 'weights').scrollIntoView({ block: 'center' }));
    for (const [i, j] of [[1, 3], [0, 0], [3, 2]]) {
      const boxes = await readBoxes(page, i, j);
      await page.mouse.move((boxes.cell.left + boxes.cell.right) / 2, (boxes.cell.top + boxes.cell.bottom) / 2);
      await page.evaluate(() => S.frames());
      const tip = await page.evaluate(() => S.tip('seed'));
      assert.ok(tip, `weights[${i}][${j}]: a tooltip`);
      assert.match(tip.text, new RegExp(`^weights\\[${i}\\]\\[${j}\\]`));
      for (const [what, box] of Object.entries(boxes)) assert.ok(!overlaps(tip, box), `weights[${i}][${j}]: the tooltip covers ${what} (${JSON.stringify(tip)} vs ${JSON.stringify(box)})`);
    }
  } finally {
    await done(page);
  }
});

test('touch, 390 px: a tapped weight\'s tooltip covers neither it nor the score that feeds it nor the rows it reads', async () => {
  const page = await load('dark', { width: 390, height: 800 }, true);
  try {
    await page.evaluate(() => S.canvas('seed', 'weights').scrollIntoView({ block: 'center' }));
    for (const [i, j] of [[0, 1], [2, 1], [3, 3]]) {
      const boxes = await readBoxes(page, i, j);
      await page.touchscreen.tap((boxes.cell.left + boxes.cell.right) / 2, (boxes.cell.top + boxes.cell.bottom) / 2);
      await page.evaluate(() => S.frames());
      const tip = await page.evaluate(() => S.tip('seed'));
      assert.ok(tip, `weights[${i}][${j}]: a tooltip`);
      assert.match(tip.text, new RegExp(`^weights\\[${i}\\]\\[${j}\\]`));
      for (const [what, box] of Object.entries(boxes)) assert.ok(!overlaps(tip, box), `weights[${i}][${j}]: the tooltip covers ${what} (${JSON.stringify(tip)} vs ${JSON.stringify(box)})`);
    }
  } finally {
    await done(page);
  }
});

for (const [width, theme] of [[1280, 'light'], [390, 'dark']]) {
  test(`axe finds no violation at ${width} px, ${theme}, with the structure marked and a flash maximum grown`, async () => {
    const page = await load(theme, { width, height: 900 });
    try {
      await page.locator('#flash >> [data-action="flash-next"]').click();
      await page.waitForFunction(() => S.el('flash').shadowRoot.querySelector('td.changed'));
      await page.addScriptTag({ path: AXE });
      const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
        .map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`));
      assert.deepEqual(violations, []);
    } finally {
      await done(page);
    }
  });
}
