// Narrow screens and long tab orders (www/element/peek.js, index.js skip link, breakdown.js cards and scroll hint): at 390 px
// the edited cell and the weights are a screen apart, so while a cell has the focus a live copy of the result stays
// pinned in view; a skip link per figure's inputs jumps past its grids; a breakdown wider than the screen says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

const PHONE = { viewport: { width: 390, height: 844 } };
const drawn = (page) => page.waitForFunction(() => [...document.querySelectorAll('attention-viz')]
  .every((e) => e.trace && [...(e.shadowRoot?.querySelectorAll('canvas[data-view]') ?? [])].every((c) => c.width > 0)));

test('390 px: while a cell is edited, the weights stay in view and follow every edit', async () => {
  const page = await site.page('index.html', PHONE);
  await drawn(page);
  const fig = page.locator('#chapter-2');
  const cell = fig.locator('input.cell[data-matrix="embeddings"][data-row="0"][data-col="0"]');
  await cell.scrollIntoViewIfNeeded();
  const peek = fig.locator('.peek');
  assert.equal(await peek.isVisible(), false, 'no peek before editing');
  await cell.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('9');
  const state = () => page.evaluate(() => {
    const root = document.getElementById('chapter-2').shadowRoot;
    const p = root.querySelector('.peek');
    const src = root.querySelector('canvas[data-view="weights"]');
    const copy = p.querySelector('canvas');
    const r = p.getBoundingClientRect();
    // What the heatmap shows: its canvas and, over it, its outlines' overlay (figures.js).
    const seen = document.createElement('canvas');
    seen.width = src.width; seen.height = src.height;
    seen.getContext('2d').drawImage(src, 0, 0);
    seen.getContext('2d').drawImage(root.querySelector('canvas[data-overlay="weights"]'), 0, 0);
    const same = copy.width === src.width && copy.toDataURL() === seen.toDataURL();
    return { top: r.top, bottom: r.bottom, inView: r.top >= 0 && r.bottom <= innerHeight, same, hidden: p.hidden };
  });
  let s = await state();
  assert.equal(s.hidden, false);
  assert.ok(s.inView, `the peek is on screen (${s.top}–${s.bottom})`);
  assert.ok(s.same, 'it shows what the weights heatmap shows');
  await page.keyboard.press('ArrowUp'); // no-op move at the top edge; then an Alt step
  await page.keyboard.press('Alt+ArrowUp');
  s = await state();
  assert.ok(s.same, 'and follows the edit');
  // The reader swipes on to the next chapters with the cell still focused: the copy does not stay over them.
  await page.mouse.move(195, 200);
  for (let k = 0; k < 8; k++) await page.mouse.wheel(0, 800);
  await page.waitForFunction(() => document.getElementById('chapter-2').shadowRoot.querySelector('.peek').hidden);
  assert.equal(await page.evaluate(() => document.getElementById('chapter-2').shadowRoot.activeElement?.dataset.matrix), 'embeddings', 'the cell keeps the focus');
  // Back at the cell, the copy is back.
  await cell.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => !document.getElementById('chapter-2').shadowRoot.querySelector('.peek').hidden);
  assert.ok((await state()).same, 'showing the weights as they are');
  // Focus leaves the grids: the peek goes.
  await fig.locator('select[data-control="query"]').focus();
  // It goes a moment after the focus leaves (a move to the next cell is a focusout then a focusin): wait for that.
  await page.waitForFunction(() => document.getElementById('chapter-2').shadowRoot.querySelector('.peek').hidden);
  assert.equal((await state()).hidden, true);
  await done(page);
});

test('390 px, touch: a sideways swipe on a cell scrubs it, even in a grid that scrolls sideways; an upward swipe scrolls the page', async () => {
  const page = await site.page('tests/fixtures/blank.html', { ...PHONE, hasTouch: true });
  // 12 dimensions: the grid is wider than the phone, so its box scrolls sideways — and a sideways swipe on a cell
  // must scrub the cell, not scroll the box (touch-action: pan-y on the grid's body).
  await page.evaluate(async () => {
    await (await import('/www/attention-viz.js')).ready;
    const el = document.createElement('attention-viz');
    el.config = { embeddings: [0, 1, 2].map((i) => Array.from({ length: 12 }, (_, j) => ((i * 12 + j) % 7) - 3)) };
    document.body.append(el, Object.assign(document.createElement('div'), { style: 'height: 3000px' }));
  });
  await drawn(page);
  const cell = page.locator('attention-viz input.cell[data-matrix="embeddings"][data-row="1"][data-col="1"]');
  await cell.scrollIntoViewIfNeeded();
  const wide = await page.evaluate(() => {
    const box = document.querySelector('attention-viz').shadowRoot.querySelector('fieldset.matrix');
    return box.scrollWidth > box.clientWidth;
  });
  assert.ok(wide, 'the grid scrolls sideways at 390 px');
  const cdp = await page.context().newCDPSession(page);
  // A finger's swipe: down, moved in 10 steps, up (CDP touch events, as a phone's screen sends them).
  const swipe = async (from, to) => {
    const at = (t) => [{ x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t }];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
    for (let k = 1; k <= 10; k++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(k / 10) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  };
  const center = async () => { const b = await cell.boundingBox(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; };
  const state = () => page.evaluate(() => {
    const el = document.querySelector('attention-viz');
    return { scrollY, boxLeft: el.shadowRoot.querySelector('fieldset.matrix').scrollLeft, value: el.config.embeddings[1][1] };
  });
  const before = await state();
  const c = await center();
  await swipe(c, { x: c.x - 60, y: c.y }); // leftwards: the way the grid could scroll
  const scrubbed = await cell.inputValue();
  const after = await state();
  assert.notEqual(Number(scrubbed), before.value, 'the sideways swipe scrubbed the value');
  assert.equal(after.value, Number(scrubbed), 'and the figure computes with it');
  assert.deepEqual([after.scrollY, after.boxLeft], [before.scrollY, before.boxLeft], 'neither the page nor the grid moved');
  // Vertical: the page pans, the value stays.
  const v = await center();
  await swipe(v, { x: v.x, y: v.y - 200 });
  await page.waitForFunction((y) => scrollY > y + 50, before.scrollY);
  assert.equal(await cell.inputValue(), scrubbed, 'an upward swipe does not scrub');
  await done(page);
});

test('the peek is for narrow figures only', async () => {
  const page = await site.page('index.html');
  await drawn(page);
  const cell = page.locator('#chapter-2').locator('input.cell[data-matrix="embeddings"][data-row="0"][data-col="0"]');
  await cell.click();
  assert.equal(await page.locator('#chapter-2').locator('.peek').isVisible(), false);
  // The narrow layout follows the figure's width (index.js's ResizeObserver sets the state :state(narrow)), not a container
  // query: inside a size container each canvas font set while a page built its figures forced a layout of the page.
  const look = () => page.evaluate(() => {
    const el = document.getElementById('chapter-2');
    return { narrow: el.matches(':state(narrow)'), container: getComputedStyle(el).containerType,
      pad: getComputedStyle(el.shadowRoot.querySelector('.av')).paddingLeft };
  });
  assert.deepEqual(await look(), { narrow: false, container: 'normal', pad: '12px' });
  await page.setViewportSize(PHONE.viewport);
  await page.waitForFunction(() => document.getElementById('chapter-2').matches(':state(narrow)'));
  assert.deepEqual(await look(), { narrow: true, container: 'normal', pad: '8px' });
  await page.close();
});

test('a skip link per figure\'s inputs: visible when focused, Enter moves the keyboard to the first heatmap', async () => {
  const page = await site.page('index.html');
  await drawn(page);
  const fig = page.locator('#chapter-2');
  // Reach it as a keyboard user does: from the last toolbar control, Tab (past the export menu's summary).
  await fig.locator('button[data-action="reset"]').focus();
  let inner = null;
  for (let i = 0; i < 4 && inner !== 'skip-inputs'; i++) {
    await page.keyboard.press('Tab');
    inner = await page.evaluate(() => document.activeElement.shadowRoot?.activeElement?.dataset.action ?? null);
  }
  assert.equal(inner, 'skip-inputs');
  const box = await fig.locator('.skip').boundingBox();
  assert.ok(box.width > 20 && box.height > 10, 'visible while focused');
  await page.keyboard.press('Enter');
  const now = await page.evaluate(() => {
    const a = document.activeElement;
    return { host: a.id, view: a.shadowRoot.activeElement?.dataset.view ?? null, tag: a.shadowRoot.activeElement?.localName };
  });
  assert.deepEqual(now, { host: 'chapter-2', view: 'q', tag: 'canvas' });
  await page.close();
});

test('600 px (not narrow: rows stay rows): a breakdown wider than the figure says it scrolls', async () => {
  const page = await site.page('index.html', { viewport: { width: 600, height: 844 } });
  await drawn(page);
  const hint = await page.evaluate(() => {
    const root = document.getElementById('chapter-2').shadowRoot;
    const wrap = root.querySelector('.breakdown .wrap');
    return { wider: wrap.scrollWidth > wrap.clientWidth, hint: !root.querySelector('.breakdown .scroll-hint').hidden, shade: wrap.classList.contains('more-right') };
  });
  assert.deepEqual(hint, { wider: true, hint: true, shade: true });
  // Chapter 1's steps strip too; its title wraps on screen instead of scrolling away with the table.
  const steps = await page.evaluate(() => {
    const root = document.getElementById('chapter-1').shadowRoot;
    const wrap = root.querySelector('.steps .wrap');
    const title = root.querySelector('.steps-title').getBoundingClientRect();
    return { wider: wrap.scrollWidth > wrap.clientWidth, hint: !root.querySelector('.steps .scroll-hint').hidden, titleFits: title.right <= innerWidth };
  });
  assert.deepEqual(steps, { wider: true, hint: true, titleFits: true });
  await page.close();
});

test('390 px: chapter 7\'s entropies at T = 0.05 (3.39e-9 bits and the like) keep each number on one line', async () => {
  const page = await site.page('index.html#temperature', PHONE);
  await drawn(page);
  const slider = page.locator('#chapter-7').locator('input[data-control="temperature"]');
  await slider.scrollIntoViewIfNeeded();
  await slider.focus();
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.getElementById('chapter-7').config.temperature < 0.06);
  const cells = await page.evaluate(() => [...document.getElementById('chapter-7').shadowRoot.querySelectorAll('.entropy-rows li .h')]
    .map((h) => ({ text: h.textContent, lines: Math.round(h.getBoundingClientRect().height / parseFloat(getComputedStyle(h).lineHeight)) })));
  assert.equal(cells.length, 4);
  assert.ok(cells.some((c) => c.text.includes('e-')), `a tiny entropy is written with an exponent: ${JSON.stringify(cells)}`);
  assert.deepEqual(cells.filter((c) => c.lines > 1), [], 'each entropy on one line');
  await done(page);
});

test('390 px: the steps strip and the breakdown show every column, the weights and w·v too, without sideways scrolling', async () => {
  const page = await site.page('index.html', PHONE);
  await drawn(page);
  // A narrow figure's breakdown starts closed (its cards are a screen long): the reader opens it.
  const summary = page.locator('#chapter-3').locator('details.breakdown summary');
  assert.equal(await page.evaluate(() => document.getElementById('chapter-3').shadowRoot.querySelector('details.breakdown').open), false);
  await summary.click();
  const got = await page.evaluate(() => [['chapter-1', '.steps'], ['chapter-3', '.breakdown']].map(([id, part]) => {
    const root = document.getElementById(id).shadowRoot;
    const wrap = root.querySelector(`${part} .wrap`);
    const box = wrap.getBoundingClientRect();
    // Every value of a key's row (the weight, w·v …) lies inside the box a reader sees.
    const cells = [...wrap.querySelectorAll('tbody tr[data-key] td, tr[data-key] td')].filter((c) => c.textContent.trim() && c.getClientRects().length);
    const outside = cells.filter((c) => { const r = c.getBoundingClientRect(); return r.right > box.right + 1 || r.left < box.left - 1; }).map((c) => c.textContent);
    const labelled = cells.filter((c) => c.dataset.label).length;
    return { id, scroll: wrap.scrollWidth - wrap.clientWidth, outside, cells: cells.length, labelled, hint: root.querySelector(`${part} .scroll-hint`)?.hidden ?? true };
  }));
  for (const g of got) {
    assert.equal(g.scroll, 0, `${g.id}: no sideways scrolling`);
    assert.deepEqual(g.outside, [], `${g.id}: every value on screen`);
    assert.ok(g.labelled >= g.cells - 4 && g.cells > 8, `${g.id}: the values carry their column's name (${g.labelled} of ${g.cells})`);
    assert.equal(g.hint, true, `${g.id}: no "scroll sideways" hint`);
  }
  await done(page);
});

test('390 px: small input grids sit side by side (chapter 2\'s four grids in two rows), every value still whole in its cell', async () => {
  const page = await site.page('index.html', PHONE);
  await drawn(page);
  const got = await page.evaluate(() => {
    const root = document.getElementById('chapter-2').shadowRoot;
    const top = (name) => Math.round(root.querySelector(`fieldset[data-name="${name}"]`).getBoundingClientRect().top);
    const clipped = [...root.querySelectorAll('input.cell')].filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.value);
    return { x: top('embeddings'), wq: top('w_q'), wk: top('w_k'), wv: top('w_v'), clipped };
  });
  assert.equal(got.x, got.wq, 'the embeddings and W_Q on one row');
  assert.equal(got.wk, got.wv, 'W_K and W_V on the next');
  assert.ok(got.wk > got.wq);
  assert.deepEqual(got.clipped, [], 'no value cut in its cell');
  await done(page);
});

test('390 px: chapter 13\'s last tile shows o / l against the context in full, without sideways scrolling', async () => {
  const page = await site.page('index.html#flash', PHONE);
  await drawn(page);
  const next = page.locator('#chapter-13').locator('[data-action="flash-next"]');
  await next.scrollIntoViewIfNeeded();
  await next.focus();
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.getElementById('chapter-13').shadowRoot.querySelector('[data-role="flash-check"]'));
  const got = await page.evaluate(() => {
    const root = document.getElementById('chapter-13').shadowRoot;
    const wraps = [...root.querySelectorAll('.flash-state .wrap')];
    const box = root.querySelector('.flash-state').getBoundingClientRect();
    const cells = [...root.querySelectorAll('.flash-state td')];
    return { scroll: wraps.map((w) => w.scrollWidth - w.clientWidth), outside: cells.filter((c) => c.getBoundingClientRect().right > box.right + 1).map((c) => c.dataset.label),
      labels: [...new Set(root.querySelectorAll('[data-role="flash-check"] td').values().map((c) => c.dataset.label))] };
  });
  assert.deepEqual(got.scroll.filter((s) => s > 0), [], 'no table scrolls sideways');
  assert.deepEqual(got.outside, [], 'every value on screen');
  assert.ok(got.labels.some((l) => /context/.test(l)) && got.labels.some((l) => /o \/ l/.test(l)), `the check's columns named: ${got.labels}`);
  assert.deepEqual(await page.evaluate(() => document.getElementById('chapter-13').shadowRoot.activeElement?.dataset.action), 'flash-next');
  await done(page);
});
