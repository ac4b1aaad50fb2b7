// The guided page on a 390 px phone (a touch screen, twice the pixels, dark): cause and effect on one screen. The
// result columns of chapter 1's strip and chapter 13's table show without sideways scrolling, and the page is not
// much taller than at 1280 px (narrow figures: breakdown.js closed at first, pack.js rows, page.css's phone text).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, watch } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, colorScheme: 'dark' };
const DESK = { viewport: { width: 1280, height: 900 }, colorScheme: 'light' };
/** The height a 390 px page may take, times the 1280 px page's. */
const MOST = 1.4;
/** What the page reaches today: a guard that it never grows back while MOST is still ahead. */
const NOW = 1.6;

/** index.html in a context of its own, every figure drawn and its heatmaps at their settled sizes. */
async function load(options, hash = '') {
  const context = await site.browser.newContext(options);
  const page = watch(await context.newPage());
  await page.goto(`${site.url}index.html${hash}`);
  await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')]
    .every((e) => e.trace && [...(e.shadowRoot?.querySelectorAll('canvas[data-view]') ?? [])].every((c) => c.width > 0)));
  // Sizes settle 300 ms after the last change (figures.js settle); then two frames.
  await page.evaluate(() => new Promise((ok) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(ok)), 600)));
  return page;
}

const height = (page) => page.evaluate(() => document.documentElement.scrollHeight);

let ratio;
async function measure() {
  if (ratio !== undefined) return ratio;
  const desk = await load(DESK);
  const wide = await height(desk);
  await done(desk);
  const phone = await load(PHONE);
  const narrow = await height(phone);
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth), 390, 'nothing scrolls the page sideways');
  await done(phone);
  ratio = narrow / wide;
  console.log(`index.html: ${wide} px at 1280, ${narrow} px at 390: ${ratio.toFixed(3)}×`);
  return ratio;
}

test(`at 390 px the guided page is at most ${NOW}× its height at 1280 px`, async () => {
  const r = await measure();
  assert.ok(r <= NOW, `${r.toFixed(3)}× the desktop height`);
});

test(`at 390 px the guided page is at most ${MOST}× its height at 1280 px`, { todo: 'about 1.54× now: the heatmaps one a row (two would need cells under 24 px), the prose (twice the lines), the steppers' }, async () => {
  const r = await measure();
  assert.ok(r <= MOST, `${r.toFixed(3)}× the desktop height`);
});

/** The cells of `selector`'s rows (in figure `id`) whose column name matches `names`, and where they are. */
const results = (page, id, selector, names) => page.evaluate(({ id, selector, names }) => {
  const root = document.getElementById(id).shadowRoot;
  const cells = [...root.querySelectorAll(`${selector} td[data-label]`)].filter((c) => new RegExp(names).test(c.dataset.label) && c.getClientRects().length);
  const wraps = [...root.querySelectorAll(`${selector} .wrap`)];
  return {
    cells: cells.length,
    outside: cells.filter((c) => { const r = c.getBoundingClientRect(); return r.left < 0 || r.right > innerWidth; }).map((c) => `${c.dataset.label}: ${c.textContent}`),
    scroll: wraps.map((w) => w.scrollWidth - w.clientWidth).filter((s) => s > 0),
    page: document.documentElement.scrollWidth - innerWidth,
  };
}, { id, selector, names });

test('390 px, touch: chapter 1\'s strip and chapter 13\'s last tile show their result columns on screen, without sideways scrolling', async () => {
  const page = await load(PHONE);
  // Chapter 1: follow another word (a tap on the query menu's neighbour, the strip), then read its results.
  const strip = page.locator('#chapter-1').locator('.steps');
  await strip.scrollIntoViewIfNeeded();
  await strip.locator('.steps-title').tap();
  let got = await results(page, 'chapter-1', '.steps', '^(weight|w_j·v_j)');
  assert.ok(got.cells >= 8, `the weight and w_j·v_j of each key (${got.cells})`);
  assert.deepEqual(got.outside, [], 'every result inside the screen');
  assert.deepEqual(got.scroll, [], 'the strip does not scroll sideways');
  assert.equal(got.page, 0, 'nor the page');
  // Chapter 13: tap → to the last tile, where o / l meets the context.
  const next = page.locator('#chapter-13').locator('[data-action="flash-next"]');
  await next.scrollIntoViewIfNeeded();
  const check = () => page.evaluate(() => Boolean(document.getElementById('chapter-13').shadowRoot.querySelector('[data-role="flash-check"]')));
  for (let k = 0; k < 40 && !(await check()); k++) await next.tap();
  assert.ok(await check(), 'the last tile holds the check');
  got = await results(page, 'chapter-13', '.flash-state', 'o / l|context');
  assert.ok(got.cells >= 2, `o / l and the context (${got.cells})`);
  assert.deepEqual(got.outside, [], 'every result inside the screen');
  assert.deepEqual(got.scroll, [], 'no table scrolls sideways');
  assert.equal(got.page, 0, 'nor the page');
  await done(page);
});
