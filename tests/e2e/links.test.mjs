// What a hovered or tapped weight links to, as the reader sees it (the core's src/links.rs, drawn by figures.js): with
// grouped-query attention, query head 3's weight outlines K's and V's columns of the K/V head it reads (3 / (4 / 2) =
// 1: columns 2 … 3), not its own query columns; and on a phone (390 × 844, real touch) a tapped weight's tooltip
// leaves the tapped cell and the scores that feed it in view.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, openHTML, watch, pageHelpers } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

const PAGE = 'tests/e2e/links-page.html'; // no such file: served by openHTML's page.route
const grid = (n, m) => Array.from({ length: n }, (_, i) => Array.from({ length: m }, (_, j) => ((i + 2 * j) % 3) - 0.5));
// 4 query heads of d_k = d_v = 2 sharing 2 K/V heads: query heads 0, 1 read K/V head 0 (columns 0 … 1), 2, 3 head 1.
const GQA = { embeddings: grid(4, 4), tokens: ['a', 'b', 'c', 'd'], heads: 4, kv_heads: 2, w_q: grid(4, 8), w_k: grid(4, 4), w_v: grid(4, 4) };
// src/heatmap/draw.rs Theme: the link outline's colour.
const LINK = { light: [0x9a, 0x67, 0x00], dark: [0xd2, 0x99, 0x22] };
const attr = (o) => JSON.stringify(o).replace(/'/g, '&#39;');
const HTML = (theme) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>links</title><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<body style="margin:8px;font-family:sans-serif${theme === 'dark' ? ';background:#0d1117;color:#e6edf3;color-scheme:dark' : ''}"><main><h1>Links</h1>
<script type="module" src="/www/attention-viz.js"></script>
<attention-viz id="gqa" theme="${theme}" views="q,k,v,heads,context" config='${attr(GQA)}'></attention-viz>
</main></body></html>`;

function installHelpers() {
  window.L = {
    el: (id) => document.getElementById(id),
    canvas: (id, v) => L.el(id).shadowRoot.querySelector(`canvas[data-view="${v}"]`),
    /** Pixels of a heatmap as seen (its outlines' overlay over it) within `pad` device px of cells [i][j0 … j1], near `rgb`. */
    async near(id, view, i, j0, j1, rgb, pad) {
      const el = L.el(id);
      const a = await T.cell(el, view, i, j0);
      const b = await T.cell(el, view, i, j1);
      const c = L.canvas(id, view);
      const [x0, y0] = [Math.max(0, Math.floor(a.px[0] - pad)), Math.max(0, Math.floor(a.px[1] - pad))];
      const [x1, y1] = [Math.min(c.width, Math.ceil(b.px[2] + pad)), Math.min(c.height, Math.ceil(b.px[3] + pad))];
      const d = T.seen(c).getContext('2d').getImageData(x0, y0, x1 - x0, y1 - y0).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (Math.abs(d[k] - rgb[0]) + Math.abs(d[k + 1] - rgb[1]) + Math.abs(d[k + 2] - rgb[2]) <= 24) n++;
      return n;
    },
    frames: (n = 3) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); }),
  };
}

for (const [width, theme, how] of [[1280, 'light', 'mouse'], [390, 'dark', 'touch']]) {
  test(`${width} px, ${theme}, ${how}: query head 3's weight outlines K's and V's columns of K/V head 1, Q's and the context's of head 3`, async () => {
    const page = await openHTML(site, PAGE, HTML(theme), installHelpers, { viewport: { width, height: 900 }, hasTouch: how === 'touch' });
    try {
      await page.evaluate(() => L.canvas('gqa', 'heads.3.weights').scrollIntoView({ block: 'center' }));
      const at = await page.evaluate(async () => (await T.cell(L.el('gqa'), 'heads.3.weights', 1, 2)).center);
      if (how === 'mouse') await page.mouse.move(at.x, at.y);
      else await page.touchscreen.tap(at.x, at.y);
      await page.evaluate(() => L.frames());
      const link = LINK[theme];
      const r = await page.evaluate(async (link) => ({
        tip: L.el('gqa').shadowRoot.querySelector('.tip:not([hidden])')?.textContent ?? null,
        // K/V head 1's columns 2 … 3 of K's and V's row 2 (key c), and column 0 of K/V head 0, away from them.
        k: await L.near('gqa', 'k', 2, 2, 3, link, 4), kOther: await L.near('gqa', 'k', 2, 0, 0, link, 2),
        v: await L.near('gqa', 'v', 2, 2, 3, link, 4), vOther: await L.near('gqa', 'v', 2, 0, 0, link, 2),
        // Query head 3's columns 6 … 7 of Q's and the context's row 1 (query b), and column 2, query head 1's.
        q: await L.near('gqa', 'q', 1, 6, 7, link, 4), qOther: await L.near('gqa', 'q', 1, 2, 2, link, 2),
        context: await L.near('gqa', 'context', 1, 6, 7, link, 4),
      }), link);
      assert.match(r.tip ?? '', /^heads\.3\.weights\[1\]\[2\]/, 'the tooltip of the weight under the pointer');
      assert.ok(r.k > 10, `K's row 2, columns 2 … 3 (K/V head 1) are outlined (${r.k} px)`);
      assert.equal(r.kOther, 0, 'K/V head 0\'s column 0 is not');
      assert.ok(r.v > 10, `V's row 2, columns 2 … 3 are outlined (${r.v} px)`);
      assert.equal(r.vOther, 0, 'V\'s column 0 is not');
      assert.ok(r.q > 10, `Q's row 1, columns 6 … 7 (query head 3) are outlined (${r.q} px)`);
      assert.equal(r.qOther, 0, 'Q\'s column 2 is not');
      assert.ok(r.context > 10, `the context's row 1, columns 6 … 7 are outlined (${r.context} px)`);
    } finally {
      await done(page);
    }
  });
}

/** index.html as a phone shows it: its chapters' figures drawn at their settled sizes. */
async function phone() {
  const context = await site.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, colorScheme: 'dark' });
  const page = watch(await context.newPage());
  await page.goto(`${site.url}index.html`);
  await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')]
    .every((e) => e.trace && [...(e.shadowRoot?.querySelectorAll('canvas[data-view]') ?? [])].every((c) => c.width > 0)));
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
  return { page, context };
}

/** A finger's swipe down by `by` CSS px from (x, y), held still at its end so that the page does not fling on. */
async function swipe(cdp, x, y, by) {
  const at = (k) => [{ x: Math.round(x), y: Math.round(y + (by * k) / 12) }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
  for (let k = 1; k <= 12; k++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(k) });
  for (let k = 0; k < 6; k++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(12) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test('phone, 390 × 844, touch: a tapped weight\'s tooltip covers neither it nor the scores that feed it, also once a swipe brings them under where it was', async () => {
  const { page, context } = await phone();
  try {
    const cdp = await context.newCDPSession(page);
    // Chapter 7: the scores, the scaled scores and the weights they make, one above the other.
    for (const [i, j] of [[1, 3], [2, 0], [3, 2]]) {
      await page.evaluate(() => L.canvas('chapter-7', 'weights').scrollIntoView({ block: 'center' }));
      await page.evaluate(() => L.frames());
      const cell = await page.evaluate(async ([i, j]) => (await T.cell(L.el('chapter-7'), 'weights', i, j)).center, [i, j]);
      await page.touchscreen.tap(cell.x, cell.y);
      await page.evaluate(() => L.frames());
      const read = () => page.evaluate(async ([i, j]) => {
        const el = L.el('chapter-7');
        const t = el.shadowRoot.querySelector('.tip:not([hidden])');
        const box = (b) => ({ left: b.left, top: b.top, right: b.right, bottom: b.bottom });
        const seen = t && getComputedStyle(t).visibility !== 'hidden';
        return {
          tip: seen ? { text: t.textContent, ...box(t.getBoundingClientRect()) } : null,
          cell: (await T.cell(el, 'weights', i, j)).client,
          scores: (await T.cell(el, 'scores', i, j)).client,
          scaled: (await T.cell(el, 'scaled', i, j)).client,
        };
      }, [i, j]);
      const check = (r, when) => {
        const where = `weights[${i}][${j}], ${when}`;
        assert.ok(r.tip, `${where}: a tooltip`);
        assert.match(r.tip.text, new RegExp(`^weights\\[${i}\\]\\[${j}\\]`), where);
        for (const what of ['cell', 'scores', 'scaled']) {
          assert.ok(!overlaps(r.tip, r[what]), `${where}: the tooltip covers ${what} (${JSON.stringify(r.tip)} vs ${JSON.stringify(r[what])})`);
        }
      };
      const tapped = await read();
      check(tapped, 'tapped');
      // The reader swipes the page down from the weight (the finger on it) to read the scaled score that fed it: by
      // as much as brings that score to where the tooltip is.
      const by = Math.round((tapped.tip.top + tapped.tip.bottom) / 2 - (tapped.scaled.top + tapped.scaled.bottom) / 2);
      assert.ok(by > 24, `the scaled score is above the tooltip (${by} px)`);
      await swipe(cdp, cell.x, cell.y, by);
      await page.evaluate(() => new Promise((ok) => { let y = -1; const f = () => (window.scrollY === y ? ok() : (y = window.scrollY, setTimeout(f, 100))); f(); }));
      await page.evaluate(() => L.frames());
      const swiped = await read();
      assert.ok(swiped.scaled.top - tapped.scaled.top > 24, `the swipe moved the page (${swiped.scaled.top - tapped.scaled.top} px)`);
      check(swiped, 'after the swipe');
    }
  } finally {
    await done(page);
    await context.close();
  }
});
