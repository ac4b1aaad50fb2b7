// The guided page on a 390 px phone (a touch screen, twice the pixels, dark): cause and effect on one screen. The
// result columns of chapter 1's strip and chapter 13's table show without sideways scrolling, and the page is not
// much taller than at 1280 px (narrow figures: breakdown.js closed at first, pack.js rows and heights, a status line
// beside its heatmap, a grid's message in its Import… line, page.css's phone text).
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
const NOW = 1.5;

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

test(`at 390 px the guided page is at most ${MOST}× its height at 1280 px`, { todo: 'about 1.49× now: the prose (twice the lines), the heatmaps one a row (two would need cells under 24 px) with a status line under the wide ones, the steppers and panels' }, async () => {
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

/** Where the parts of chapter 2's figure are: each canvas's box, W_Q's message, its Import… and its grid, the page. */
const chapter2 = (page) => page.evaluate(() => {
  const root = document.getElementById('chapter-2').shadowRoot;
  const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top + scrollY, bottom: r.bottom + scrollY }; };
  const fs = root.querySelector('fieldset[data-name="w_q"]');
  const q = root.querySelector('canvas[data-view="q"]');
  return {
    canvases: [...root.querySelectorAll('canvas[data-view]')].map((c) => `${c.dataset.view}@${Math.round(box(c).top)}`),
    page: document.documentElement.scrollHeight,
    msg: { text: fs.querySelector('.cell-msg').textContent, ...box(fs.querySelector('.cell-msg')) },
    table: box(fs.querySelector('table')),
    fieldset: box(fs),
    button: { shown: getComputedStyle(fs.querySelector('button.import')).visibility === 'visible', ...box(fs.querySelector('button.import')) },
    q: box(q),
    status: { text: root.querySelector('[data-status-of="q"]').textContent, ...box(root.querySelector('[data-status-of="q"]')) },
    width: innerWidth,
  };
});

test('390 px, touch: a refused text\'s message takes its grid\'s Import… line above the grid, and a lone heatmap says beside it what an edit changed', async () => {
  const page = await load(PHONE);
  const type = async (text) => {
    const cell = page.locator('#chapter-2').locator('input.cell[data-matrix="w_q"][data-row="1"][data-col="0"]');
    await cell.scrollIntoViewIfNeeded();
    await cell.tap();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(text);
  };
  const before = await chapter2(page);
  assert.ok(before.button.shown && before.msg.text === '', 'Import… on the line, no message');
  assert.ok(before.button.bottom <= before.table.top, 'Import… above the grid');
  await type('abc');
  await page.waitForFunction(() => document.getElementById('chapter-2').shadowRoot.querySelector('fieldset[data-name="w_q"] .cell-msg').textContent !== '');
  const refused = await chapter2(page);
  assert.match(refused.msg.text, /not a number/);
  assert.ok(!refused.button.shown, 'the message in Import…\'s place');
  assert.ok(refused.msg.top >= refused.fieldset.top && refused.msg.bottom <= refused.table.top + 1, `the message above the grid, in its box: ${JSON.stringify(refused.msg)}`);
  assert.deepEqual([refused.canvases, refused.page, refused.table.top], [before.canvases, before.page, before.table.top], 'the message moved nothing');
  await type('5');
  await page.waitForFunction(() => document.getElementById('chapter-2').shadowRoot.querySelector('[data-status-of="q"]').textContent !== '');
  const edited = await chapter2(page);
  assert.ok(edited.button.shown && edited.msg.text === '', 'the message gone, Import… back');
  assert.match(edited.status.text, /^\d+ of 12 changed$/);
  assert.ok(edited.status.left >= edited.q.right && edited.status.right <= edited.width && edited.status.bottom <= edited.q.bottom + 1,
    `q's status beside it, on the screen: ${JSON.stringify([edited.q, edited.status])}`);
  await done(page);
});
