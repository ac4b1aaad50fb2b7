// A learner on the guided page (index.html, chapters 1–8, 10's layout and 12's mask): what they do with the real
// mouse and keyboard never leaves a figure in an error state (− head, another scoring), their W_O and W_a/U_a/v_a come
// back when the option does, a heads caption names only what follows a head, the keyboard never drops to <body> after
// an import dialog or the notice's Reset, every "Try" line of chapters 1–8 does what it says where it stands, a constant
// heatmap is coloured as seaborn colours it, chapter 10's base slider moves no heatmap to another row, and chapter 12's
// mask heatmap shows the keys attended while its clicks edit the mask alone.
// Golden numbers are NumPy's (float64 transcriptions of the chapters' configs, in the comments); the page's own
// trace is read only to check them. Every action is page.mouse / page.keyboard (locator.click is the mouse), but the
// drop of a file, which playwright cannot drag in from the desktop: its events are dispatched, its dialog is then
// answered with the real keyboard and mouse.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { open, done, typeInCell, pageHelpers, fixture, until, WAIT } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** `window.H`: lookups only. */
function installHelpers() {
  window.H = {
    el: (id) => document.getElementById(id),
    root: (id) => document.getElementById(id).shadowRoot,
    focus: () => T.focus(),
    /** The heatmaps drawn, the error line and the attributes' complaint. */
    state(id) {
      const r = H.root(id);
      const status = r.querySelector('.status');
      const attrs = r.querySelector('[data-role="attributes"]');
      return {
        views: [...r.querySelectorAll('.stages canvas[data-view]')].filter((c) => c.width > 0).map((c) => c.dataset.view),
        error: status.classList.contains('error') ? status.textContent : null,
        attributes: attrs.hidden ? null : attrs.textContent,
        status: status.textContent,
      };
    },
    steps: (id) => [...H.root(id).querySelectorAll('.steps tbody tr[data-key]')].map((tr) => ({
      score: tr.querySelectorAll('td')[0].textContent, weight: tr.querySelector('td.weight .value').textContent })),
    entropy: (id) => [...H.root(id).querySelectorAll('.entropy-rows li .h')].map((e) => e.textContent),
    /** The client point at the middle of cell [i, j] of a heatmap ('mask': the mask grid), where the core lays it out. */
    cell: (id, view, i, j) => T.cellPoint(H.el(id), view, i, j),
    hashes: (id, views) => Object.fromEntries(views.map((v) => [v, T.hash(H.root(id).querySelector(`canvas[data-view="${v}"]`))])),
    /** The colour (#rrggbb) drawn in cell [i, j] of a heatmap, a quarter down its middle column (above its number). */
    async colour(id, view, i, j) {
      const c = T.canvasOf(H.el(id), view);
      const [x0, y0, x1, y1] = (await T.cell(H.el(id), view, i, j)).px;
      const d = c.getContext('2d').getImageData(Math.floor((x0 + x1) / 2), Math.floor(y0 + (y1 - y0) / 4), 1, 1).data;
      return '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
    },
    /** The colour (#rrggbb) most of cell [i, j] of a heatmap ('mask': the mask grid) is drawn in (its crossing and number aside). */
    async mode(id, view, i, j) {
      const c = T.canvasOf(H.el(id), view);
      const [x0, y0, x1, y1] = (await T.cell(H.el(id), view, i, j)).px;
      const d = c.getContext('2d').getImageData(x0, y0, x1 - x0, y1 - y0).data;
      const counts = new Map();
      for (let k = 0; k < d.length; k += 4) {
        const hex = '#' + [d[k], d[k + 1], d[k + 2]].map((v) => v.toString(16).padStart(2, '0')).join('');
        counts.set(hex, (counts.get(hex) ?? 0) + 1);
      }
      return [...counts].sort((a, b) => b[1] - a[1])[0][0];
    },
    frames: (n = 2) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); }),
  };
}

const drawn = (page) => page.waitForFunction(() => {
  const els = [...document.querySelectorAll('attention-viz')];
  return els.length > 0 && els.every((e) => e.trace && e.shadowRoot.querySelector('canvas[data-view]')?.width > 0);
});

async function guided(opts) {
  const page = await site.page('index.html', opts);
  await drawn(page);
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
  return page;
}

async function reload(page) {
  await page.reload();
  await drawn(page);
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
}

const inFig = (id, sel) => `#${id} >> ${sel}`;
const focusOf = (page) => page.evaluate(() => H.focus());
const on = (id, what) => ({ doc: id, shadow: what });
const state = (page, id) => page.evaluate((id) => H.state(id), id);
const config = (page, id) => page.evaluate((id) => H.el(id).config, id);
const trace = (page, id) => page.evaluate((id) => H.el(id).trace, id);

async function click(page, sel) {
  const loc = page.locator(sel);
  await loc.scrollIntoViewIfNeeded();
  await loc.click();
}

/** No error anywhere on the figure: no red line, no complaint about `views`. */
function clean(s, what) {
  assert.equal(s.error, null, `${what}: no error (${s.error})`);
  assert.equal(s.attributes, null, `${what}: no complaint about views (${s.attributes})`);
}

/** Waits until figure #id's edits are in localStorage (persist.js saves them after a debounce). */
const saved = (page, id) => page.waitForFunction((id) => Object.keys(localStorage)
  .some((k) => k.startsWith('attention-viz:') && k.includes(`:${id}:`)), id, { timeout: WAIT });

const near = (got, want, tol, what) => assert.ok(Math.abs(got - want) <= tol, `${what}: ${got} ≠ ${want} ± ${tol}`);

// ---- 1. no learner action leaves a figure in an error state ----------------------------------------------

test('chapter 5: − head (mouse) leaves the single head\'s weights and no error, also after a reload; + head brings the two back', async () => {
  const page = await guided();
  await click(page, inFig('chapter-5', '[data-action="remove-head"]'));
  let s = await state(page, 'chapter-5');
  clean(s, '− head');
  assert.deepEqual(s.views, ['weights', 'context', 'output'], 'the one head\'s weights show in place of each head\'s');
  assert.deepEqual(await focusOf(page), on('chapter-5', 'action remove-head'));
  await saved(page, 'chapter-5'); // the save is debounced: wait for it, not for a time

  await reload(page);
  s = await state(page, 'chapter-5');
  assert.match(s.status, /saved edits/);
  assert.equal((await config(page, 'chapter-5')).heads ?? 1, 1, 'the edit was saved');
  assert.equal(s.attributes, null, 'no complaint about views after the reload');
  assert.deepEqual(s.views, ['weights', 'context', 'output']);

  await click(page, inFig('chapter-5', '[data-action="add-head"]'));
  s = await state(page, 'chapter-5');
  clean(s, '+ head');
  assert.deepEqual(s.views, ['heads.0.weights', 'heads.1.weights', 'context', 'output']);
  await done(page);
});

test('chapter 8: the second figure switched to dot, general and cosine (keyboard) shows the scores and weights, never an error', async () => {
  const page = await guided();
  const select = page.locator(inFig('chapter-8-additive', 'select[data-control="scoring"]'));
  await select.scrollIntoViewIfNeeded();
  await select.focus();
  // dot, general, additive, cosine: from additive, ↑ general, ↑ dot, ↓↓↓ cosine, ↑ additive.
  for (const [key, scoring] of [['ArrowUp', 'general'], ['ArrowUp', 'dot'], ['ArrowDown', 'general'], ['ArrowDown', 'additive'], ['ArrowDown', 'cosine']]) {
    await page.keyboard.press(key);
    assert.equal((await config(page, 'chapter-8-additive')).scoring ?? 'dot', scoring);
    const s = await state(page, 'chapter-8-additive');
    clean(s, scoring);
    assert.deepEqual(s.views, scoring === 'additive' ? ['query.features', 'scores', 'weights', 'context'] : ['scores', 'weights', 'context'], scoring);
    assert.deepEqual(await focusOf(page), on('chapter-8-additive', 'control scoring'));
  }
  await done(page);
});

// ---- 2. the reader's W_O, W_a, U_a, v_a are kept ----------------------------------------------------------

test('chapter 5: a typed W_O comes back when W_O is ticked again (mouse, then keyboard); after + head it starts as the identity', async () => {
  const page = await guided();
  await typeInCell(page, 'chapter-5', 'w_o', 0, 0, '7');
  await page.keyboard.press('Enter');
  const typed = (await config(page, 'chapter-5')).w_o;
  assert.equal(typed[0][0], 7);
  await click(page, inFig('chapter-5', '[data-control="w-o"]'));
  assert.equal((await config(page, 'chapter-5')).w_o, undefined, 'off');
  assert.deepEqual(await focusOf(page), on('chapter-5', 'control w-o'));
  await page.keyboard.press('Space');
  assert.deepEqual((await config(page, 'chapter-5')).w_o, typed, 'the reader\'s W_O, 7 and all');
  assert.deepEqual(await focusOf(page), on('chapter-5', 'control w-o'));
  const t = await trace(page, 'chapter-5');
  // output[0][0] = Σ_k context[0][k]·W_O[k][0]
  near(t.output[0][0], t.context[0].reduce((a, c, k) => a + c * typed[k][0], 0), 1e-12, 'the output uses it');

  // Off, a third head, on: the kept 6 × 3 no longer fits 9 rows.
  await page.keyboard.press('Space');
  await click(page, inFig('chapter-5', '[data-action="add-head"]'));
  await click(page, inFig('chapter-5', '[data-control="w-o"]'));
  const w = (await config(page, 'chapter-5')).w_o;
  assert.deepEqual(w, Array.from({ length: 9 }, (_, i) => Array.from({ length: 9 }, (__, j) => (i === j ? 1 : 0))));
  clean(await state(page, 'chapter-5'), 'W_O after + head');
  await done(page);
});

test('chapter 8: typed W_a, U_a and v_a come back when the scoring is switched away and back (keyboard)', async () => {
  const page = await guided();
  // First figure, general: W_a[2][2] = 2; dot and back.
  await typeInCell(page, 'chapter-8', 'w_a', 2, 2, '2');
  await page.keyboard.press('Enter');
  const select = page.locator(inFig('chapter-8', 'select[data-control="scoring"]'));
  await select.focus();
  await page.keyboard.press('ArrowUp'); // general → dot
  assert.equal((await config(page, 'chapter-8')).scoring ?? 'dot', 'dot');
  await page.keyboard.press('ArrowDown'); // dot → general
  assert.deepEqual((await config(page, 'chapter-8')).w_a, [[1, 0, 0], [0, 1, 0], [0, 0, 2]], 'the reader\'s W_a');
  assert.deepEqual(await focusOf(page), on('chapter-8', 'control scoring'));

  // Second figure, additive: U_a[0][0] and v_a[2]; cosine, general (its own identity W_a), additive.
  await typeInCell(page, 'chapter-8-additive', 'u_a', 0, 0, '0.01');
  await page.keyboard.press('Enter');
  await typeInCell(page, 'chapter-8-additive', 'v_a', 0, 2, '0.5');
  await page.keyboard.press('Enter');
  const before = await config(page, 'chapter-8-additive');
  const second = page.locator(inFig('chapter-8-additive', 'select[data-control="scoring"]'));
  await second.focus();
  await page.keyboard.press('ArrowDown'); // → cosine
  await page.keyboard.press('ArrowUp'); // → additive
  let after = await config(page, 'chapter-8-additive');
  assert.deepEqual([after.w_a, after.u_a, after.v_a], [before.w_a, before.u_a, before.v_a]);
  assert.equal(after.u_a[0][0], 0.01);
  await page.keyboard.press('ArrowUp'); // → general: its own start, the identity
  assert.deepEqual((await config(page, 'chapter-8-additive')).w_a, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
  await page.keyboard.press('ArrowDown'); // → additive
  after = await config(page, 'chapter-8-additive');
  assert.deepEqual([after.w_a, after.u_a, after.v_a], [before.w_a, before.u_a, before.v_a]);
  clean(await state(page, 'chapter-8-additive'), 'back to additive');
  await done(page);
});

// ---- 3. a heads caption says only what the figure has ------------------------------------------------------

test('a read-only figure of the heads\' weights alone promises no following; with the stages it names them', async () => {
  const page = await site.page(null);
  const cfg = '{"embeddings":[[1,0,0],[0,1,0],[1,1,0],[0,0,1]],"heads":2,"w_q":[[2,0,2,2,0,0],[2,1,2,2,2,2],[0,2,1,0,1,1]],"w_k":[[1,1,0,0,1,1],[0,0,0,2,2,2],[1,2,1,1,2,1]],"w_v":[[2,2,0,2,0,2],[2,0,0,2,1,0],[1,1,1,0,1,0]]}';
  await page.route('**/heads-page.html', (r) => r.fulfill({ contentType: 'text/html', body: `<!doctype html><html lang="en"><meta charset="utf-8"><title>heads</title><link rel="icon" href="data:,">
<script type="module" src="/www/attention-viz.js"></script><body>
<attention-viz id="alone" editable="false" views="heads.0.weights,heads.1.weights" config='${cfg}'></attention-viz>
<attention-viz id="stages" editable="false" views="heads,weights" config='${cfg}'></attention-viz>
<attention-viz id="all" editable="false" config='${cfg}'></attention-viz></body></html>` }));
  await page.goto(`${site.url}heads-page.html`);
  await drawn(page);
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
  const caption = (id) => page.evaluate((i) => H.root(i).querySelector('.heads-title').textContent, id);
  assert.equal(await caption('alone'), 'Each head\'s weights (2 heads).');
  assert.doesNotMatch(await page.evaluate(() => H.root('alone').querySelector('.legend').textContent), /followed head/);
  // A click on head 1 changes nothing: nothing follows it.
  const at = await page.evaluate(() => H.cell('alone', 'heads.1.weights', 1, 1));
  await page.mouse.click(at.x, at.y);
  assert.equal((await config(page, 'alone')).head ?? 0, 0);
  assert.equal(await caption('stages'), 'Each head\'s weights (2 heads, head 0 followed): a click, a tap or Enter on a head follows it in the stages.');
  assert.equal(await caption('all'), 'Each head\'s weights (2 heads, head 0 followed): a click, a tap or Enter on a head follows it in the stages and the breakdown.');
  const at2 = await page.evaluate(() => H.cell('stages', 'heads.1.weights', 1, 1));
  await page.mouse.click(at2.x, at2.y);
  assert.equal((await config(page, 'stages')).head, 1, 'where something follows, a click picks the head');
  await done(page);
});

// ---- 5. the keyboard never drops to <body> ---------------------------------------------------------------

test('a file dropped on a grid whose shapes disagree: Escape, Enter on Cancel or a click on Cancel give the focus to that grid\'s Import…', async () => {
  const page = await guided();
  const grid = page.locator(inFig('chapter-2', 'fieldset.matrix[data-name="embeddings"]'));
  await grid.scrollIntoViewIfNeeded();
  const drop = async () => {
    const dt = await page.evaluateHandle(() => {
      const d = new DataTransfer();
      d.items.add(new File(['1,2,3,4\n5,6,7,8\n1,1,1,1\n2,2,2,2\n'], 'wide.csv', { type: 'text/csv' }));
      return d;
    });
    for (const type of ['dragenter', 'dragover', 'drop']) await grid.dispatchEvent(type, { dataTransfer: dt });
    await page.locator(inFig('chapter-2', '[data-action="import-cancel"]')).waitFor();
    assert.deepEqual(await focusOf(page), on('chapter-2', 'action import-resize'), 'the dialog takes the focus');
  };
  const back = on('chapter-2', 'action import:embeddings');
  await drop();
  await page.keyboard.press('Escape');
  assert.deepEqual(await focusOf(page), back, 'Escape');
  await drop();
  await page.keyboard.press('Tab');
  assert.deepEqual(await focusOf(page), on('chapter-2', 'action import-cancel'));
  await page.keyboard.press('Enter');
  assert.deepEqual(await focusOf(page), back, 'Enter on Cancel');
  await drop();
  await page.locator(inFig('chapter-2', '[data-action="import-cancel"]')).click();
  assert.deepEqual(await focusOf(page), back, 'a click on Cancel');
  assert.equal((await config(page, 'chapter-2')).embeddings[0].length, 3, 'nothing was imported');

  // Opened from the Import… button (the file picker): it gets the focus back.
  const dir = mkdtempSync(join(tmpdir(), 'learner-'));
  writeFileSync(join(dir, 'wide.csv'), '1,2,3,4\n5,6,7,8\n1,1,1,1\n');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator(inFig('chapter-2', '[data-action="import"][data-matrix="w_q"]')).click()]);
  await chooser.setFiles(join(dir, 'wide.csv'));
  await page.locator(inFig('chapter-2', '[data-action="import-cancel"]')).waitFor();
  await page.keyboard.press('Escape');
  assert.deepEqual(await focusOf(page), on('chapter-2', 'action import:w_q'));
  await done(page);
});

test('chapter 5\'s saved edits: the notice\'s Reset (Enter, then the mouse) leaves the keyboard on the figure\'s first control', async () => {
  const page = await guided();
  for (const how of ['keyboard', 'mouse']) {
    await click(page, inFig('chapter-5', '[data-action="remove-head"]'));
    await saved(page, 'chapter-5'); // the save is debounced: wait for it, not for a time
    await reload(page);
    assert.match((await state(page, 'chapter-5')).status, /saved edits/);
    const reset = page.locator(inFig('chapter-5', 'button[data-action="notice-reset"]'));
    await reset.scrollIntoViewIfNeeded();
    if (how === 'keyboard') { await reset.focus(); await page.keyboard.press('Enter'); } else await reset.click();
    assert.equal((await config(page, 'chapter-5')).heads, 2, 'the document again');
    assert.deepEqual(await focusOf(page), on('chapter-5', 'action add-head'), how);
    clean(await state(page, 'chapter-5'), `after Reset (${how})`);
  }
  await done(page);
});

// ---- 4 and 6. every Try line of chapters 1–8, done as it says ---------------------------------------------

test('chapter 1\'s Try: W_K\'s middle row raised to 3 lifts word_2\'s score to 8, its weight only to 0.0097; the query menu follows another word', async () => {
  const page = await guided();
  assert.deepEqual((await page.evaluate(() => H.steps('chapter-1'))).map((r) => r.score), ['8', '2', '10', '2']);
  await typeInCell(page, 'chapter-1', 'w_k', 1, 0, '3');
  await page.keyboard.press('Enter');
  // NumPy: k = X @ W_K with W_K[1][0] = 3; q0·k = [8, 8, 16, 2]; softmax(/√3) = [0.0097, 0.0097, 0.9804, 0.0003]
  const steps = await page.evaluate(() => H.steps('chapter-1'));
  assert.deepEqual(steps.map((r) => r.score), ['8', '8', '16', '2']);
  const w = (await trace(page, 'chapter-1')).weights[0];
  near(w[1], 0.0097, 5e-5, 'word_2\'s weight');
  near(w[2], 0.9804, 5e-5, 'word_3\'s weight');
  // The query menu, with the keyboard.
  const menu = page.locator(inFig('chapter-1', 'select[data-control="query"]'));
  await menu.focus();
  await page.keyboard.press('ArrowDown');
  assert.equal((await config(page, 'chapter-1')).query, 1);
  assert.match(await page.locator(inFig('chapter-1', '.steps-title')).textContent(), /query 1 \(word_2\)/);
  assert.deepEqual(await focusOf(page), on('chapter-1', 'control query'));
  await done(page);
});

test('chapter 2\'s Try: hovering a weight outlines its query, key, value and context rows; Randomize and scale "none" change the weights', async () => {
  const page = await guided();
  const views = ['q', 'k', 'v', 'context'];
  const before = await page.evaluate((v) => H.hashes('chapter-2', v), views);
  await page.locator(inFig('chapter-2', 'canvas[data-view="weights"]')).scrollIntoViewIfNeeded();
  const at = await page.evaluate(() => H.cell('chapter-2', 'weights', 1, 2));
  await page.mouse.move(at.x, at.y);
  await page.evaluate(() => H.frames());
  const hovered = await page.evaluate((v) => H.hashes('chapter-2', v), views);
  for (const v of views) assert.notEqual(hovered[v], before[v], `${v} is outlined`);
  assert.match(await page.locator(inFig('chapter-2', '.legend')).textContent(), /dashed: what the hovered weight links/);

  // Scale none: every row's largest weight grows (NumPy: row 1 0.4548 → 0.4910).
  const sharp = (w) => w.map((r) => Math.max(...r));
  const w0 = (await trace(page, 'chapter-2')).weights;
  const scale = page.locator(inFig('chapter-2', 'select[data-control="scale"]'));
  await scale.focus();
  await page.keyboard.press('ArrowDown'); // √d_k → none
  const w1 = (await trace(page, 'chapter-2')).weights;
  sharp(w1).forEach((m, i) => assert.ok(m > sharp(w0)[i], `row ${i} sharpens`));
  near(w1[1][0], 0.4910, 5e-5, 'row 1');

  // Another seed: the weights change, W_Q is randint(3)'s draw of seed 7.
  const seed = page.locator(inFig('chapter-2', 'input[data-control="seed"]'));
  await seed.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('7');
  await page.locator(inFig('chapter-2', 'button[data-action="randomize"]')).click();
  assert.notDeepEqual((await trace(page, 'chapter-2')).weights, w1);
  assert.deepEqual(await focusOf(page), on('chapter-2', 'action randomize'));
  clean(await state(page, 'chapter-2'), 'Randomize');
  await done(page);
});

test('chapter 3: tokens named as ids; its Try: 27 in one embedding overflows the naive softmax (NaN in that row), 20 does not', async () => {
  const page = await guided();
  const cfg = await config(page, 'chapter-3');
  assert.deepEqual(cfg.tokens, ['id 72', 'id 3', 'id 64', 'id 69']);
  await click(page, inFig('chapter-3', 'input[data-control="naive"]'));
  assert.ok((await state(page, 'chapter-3')).views.includes('naive_weights'));
  const nanRows = async () => (await trace(page, 'chapter-3')).naive_weights.map((r) => r.some(Number.isNaN));
  // NumPy: x = 20 in row 1 gives a self-score of 400.12 (exp finite); 27 gives 729.12 > 709.78.
  await typeInCell(page, 'chapter-3', 'embeddings', 1, 0, '20');
  await page.keyboard.press('Enter');
  assert.deepEqual(await nanRows(), [false, false, false, false], 'at 20 nothing overflows');
  await typeInCell(page, 'chapter-3', 'embeddings', 1, 0, '27');
  await page.keyboard.press('Enter');
  assert.deepEqual(await nanRows(), [false, true, false, false], 'at 27 the token\'s row is NaN');
  const t = await trace(page, 'chapter-3');
  // As the Try line says: NaN in its own column (inf / inf), 0 in the others (finite / inf).
  assert.deepEqual(t.naive_weights[1].map((x) => (Number.isNaN(x) ? 'NaN' : x)), [0, 'NaN', 0, 0]);
  assert.ok(t.weights.flat().every(Number.isFinite), 'the stable weights stay finite');
  near(t.scores[1][1], 729.12, 0.01, 'its score with itself');
  clean(await state(page, 'chapter-3'), 'after 27');
  await done(page);
});

test('chapter 4\'s Try: naive softmax fails on the document\'s scores, and comes back once the decoder state\'s last number is 15', async () => {
  const page = await guided();
  await click(page, inFig('chapter-4', 'input[data-control="naive"]'));
  const naive = async () => (await trace(page, 'chapter-4')).naive_weights;
  assert.ok((await naive()).some(Number.isNaN), 'NaN at 20');
  await typeInCell(page, 'chapter-4', 'decoder_state', 0, 2, '15');
  await page.keyboard.press('Enter');
  // NumPy: scores h·a_j = [702, 387, 93, 702.5], all < 709.78.
  assert.ok((await naive()).every(Number.isFinite), 'finite at 15');
  await done(page);
});

test('chapter 4: the naive weights [nan, 0, 0, nan] (ticked by the mouse, then Space) are coloured as seaborn colours them', async () => {
  // seaborn 0.13.2 itself (tests/goldens/gen_seaborn_goldens.py): matplotlib's colour bar widens the range 0 … 0 to
  // −0.1 … 0.1 and the cells are coloured with it, so the zeros take rocket's middle, a red, and the NaNs are not drawn.
  const golden = fixture('seaborn-goldens.json').figures.find((f) => f.name === 'seed003_naive_weights');
  const page = await guided();
  const box = page.locator(inFig('chapter-4', 'input[data-control="naive"]'));
  const colours = () => page.evaluate(() => Promise.all([0, 1, 2, 3].map((j) => H.colour('chapter-4', 'naive_weights', 0, j))));
  await click(page, inFig('chapter-4', 'input[data-control="naive"]'));
  assert.deepEqual(await focusOf(page), on('chapter-4', 'control naive'));
  await page.keyboard.press('Space'); // off
  assert.ok(!(await state(page, 'chapter-4')).views.includes('naive_weights'), 'Space took the naive weights away');
  await page.keyboard.press('Space'); // on again
  assert.ok(await box.isChecked());
  assert.deepEqual(await focusOf(page), on('chapter-4', 'control naive'));
  const t = await trace(page, 'chapter-4');
  assert.deepEqual(t.naive_weights.map((x) => (Number.isNaN(x) ? 'nan' : x)), golden.data[0].map(Number).map((x) => (Number.isNaN(x) ? 'nan' : x)));
  const got = await colours();
  assert.deepEqual(got.filter((_, j) => golden.facecolors[0][j]), golden.facecolors[0].filter(Boolean), 'the zeros: seaborn\'s colour');
  got.forEach((c, j) => { if (!golden.facecolors[0][j]) assert.equal(c, '#d0d0d0', `NaN cell ${j}: grey`); });
  clean(await state(page, 'chapter-4'), 'naive softmax');
  await done(page);
});

test('chapter 5\'s Try: a click on head 1\'s weights follows it in the breakdown; + head adds a head of zeros that attends equally', async () => {
  const page = await guided();
  await page.locator(inFig('chapter-5', 'canvas[data-view="heads.1.weights"]')).scrollIntoViewIfNeeded();
  const at = await page.evaluate(() => H.cell('chapter-5', 'heads.1.weights', 0, 0));
  await page.mouse.click(at.x, at.y);
  assert.equal((await config(page, 'chapter-5')).head, 1);
  assert.match(await page.locator(inFig('chapter-5', '.breakdown')).textContent(), /head 1/);
  await click(page, inFig('chapter-5', '[data-action="add-head"]'));
  const t = await trace(page, 'chapter-5');
  assert.equal(t.heads.length, 3);
  assert.ok(t.heads[2].weights.flat().every((w) => Math.abs(w - 0.25) < 1e-15), 'the new head attends every word equally');
  clean(await state(page, 'chapter-5'), '+ head');
  await done(page);
});

test('chapter 6\'s Try: valid lengths of 3, a click on the mask, word_1\'s length 0 and the three fully-masked-row choices', async () => {
  const page = await guided();
  assert.equal(await page.locator(inFig('chapter-6', '[data-panel="mask"] .label >> nth=1')).textContent(), 'if every key is masked');
  for (let i = 0; i < 4; i++) {
    const f = page.locator(inFig('chapter-6', `input[data-control="valid-len"][data-row="${i}"]`));
    await f.scrollIntoViewIfNeeded();
    await f.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('3');
  }
  let w = (await trace(page, 'chapter-6')).weights;
  assert.ok(w.every((r) => r[3] === 0), 'word_4 is padding: no query attends it');
  const mask = async () => (await config(page, 'chapter-6')).mask;
  const m0 = await mask();
  await page.locator(inFig('chapter-6', 'canvas[data-control="mask-grid"]')).scrollIntoViewIfNeeded();
  const at = await page.evaluate(() => H.cell('chapter-6', 'mask', 2, 1));
  await page.mouse.click(at.x, at.y);
  assert.notDeepEqual(await mask(), m0, 'one link toggled');
  assert.equal((await mask())[2][1], 0);
  const first = page.locator(inFig('chapter-6', 'input[data-control="valid-len"][data-row="0"]'));
  await first.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('0');
  w = (await trace(page, 'chapter-6')).weights;
  assert.deepEqual(w[0], [0, 0, 0, 0], 'zero (PyTorch)');
  const menu = page.locator(inFig('chapter-6', 'select[data-control="masked-row"]'));
  await menu.focus();
  await page.keyboard.press('ArrowDown');
  assert.deepEqual((await trace(page, 'chapter-6')).weights[0], [0.25, 0.25, 0.25, 0.25], 'uniform (d2l)');
  await page.keyboard.press('ArrowDown');
  assert.ok((await trace(page, 'chapter-6')).weights[0].every(Number.isNaN), 'nan');
  assert.deepEqual(await focusOf(page), on('chapter-6', 'control masked-row'));
  clean(await state(page, 'chapter-6'), 'masked rows');
  await done(page);
});

test('chapter 7: at T = 0.05 word_2\'s tie gives 1 bit, the others 0; at 20 near 2; scale "none" with T = 1.74 gives chapter 1\'s weights', async () => {
  const page = await guided();
  assert.match(await page.locator('#temperature p').first().textContent(), /word_2 \(both\s+score 4\), which then share it half and half \(1 bit\)/);
  const slider = page.locator(inFig('chapter-7', 'input[data-control="temperature"]'));
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width / 2, y);
  await page.mouse.down();
  await page.mouse.move(box.x - 20, y, { steps: 5 });
  await page.mouse.up();
  assert.equal((await config(page, 'chapter-7')).temperature, 0.05);
  // NumPy: softmax(S/√3/0.05): word_2's row [0.5, 0, 0.5, 0] → 1 bit; the others one-hot.
  const cold = (await page.evaluate(() => H.entropy('chapter-7'))).map(Number);
  assert.equal(cold[1], 1, 'word_2: 1 bit');
  [0, 2, 3].forEach((i) => assert.ok(cold[i] < 1e-8, `query ${i}: ≈ 0 bits (${cold[i]})`));
  await page.mouse.move(box.x + 8, y); // the thumb, at the left end
  await page.mouse.down();
  await page.mouse.move(box.x + box.width + 20, y, { steps: 5 });
  await page.mouse.up();
  const hot = (await page.evaluate(() => H.entropy('chapter-7'))).map(Number);
  assert.ok(hot.every((h) => h >= 1.98 && h <= 2), `near log₂ 4 = 2 at T = 20: ${hot}`);
  assert.deepEqual(await focusOf(page), on('chapter-7', 'control temperature'));

  const scale = page.locator(inFig('chapter-7', 'select[data-control="scale"]'));
  await scale.focus();
  await page.keyboard.press('ArrowDown'); // none
  assert.equal((await config(page, 'chapter-7')).scale, 'none');
  await slider.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('End'); // 20: slider position 130
  for (let s = 130; s > 24; s--) await page.keyboard.press('ArrowLeft'); // position 24: T = 10^0.24 → 1.74
  assert.equal((await config(page, 'chapter-7')).temperature, 1.74);
  const w = (await trace(page, 'chapter-7')).weights;
  const ch1 = await page.evaluate(() => H.el('chapter-1').trace.weights);
  // NumPy: softmax(S/1.74) against softmax(S/√3): at most 0.0012 apart.
  w.forEach((r, i) => r.forEach((x, j) => near(x, ch1[i][j], 0.002, `weight [${i}][${j}]`)));
  await done(page);
});

test('chapter 8\'s Try: W_a[2][2] = 2, U_a and W_a\'s first columns at 0.01, cosine, and a temperature of 0.05 in the first figure', async () => {
  const page = await guided();
  await typeInCell(page, 'chapter-8', 'w_a', 2, 2, '2');
  await page.keyboard.press('Enter');
  // NumPy: h·W_a·a_j = [1827, 497, 248, 1835] → h_4 0.99966.
  near((await trace(page, 'chapter-8')).weights[3], 0.99966, 5e-6, 'h_4 wins by more');

  for (const m of ['w_a', 'u_a']) {
    for (let r = 0; r < 3; r++) { await typeInCell(page, 'chapter-8-additive', m, r, 0, '0.01'); await page.keyboard.press('Enter'); }
  }
  // NumPy: tanh(h·W_a + a_j·U_a)[:, 0] = [0.6963, 0.7259, 0.6351, 0.6544].
  const f = (await trace(page, 'chapter-8-additive')).query.features.map((r) => r[0]);
  [0.6963, 0.7259, 0.6351, 0.6544].forEach((x, j) => near(f[j], x, 5e-5, `feature 0 of h_${j + 1}`));

  const select = page.locator(inFig('chapter-8', 'select[data-control="scoring"]'));
  await select.focus();
  await page.keyboard.press('End'); // cosine
  assert.equal((await config(page, 'chapter-8')).scoring, 'cosine');
  // NumPy: cos(h, a_j) = [0.9624, 0.3247, 0.1656, 0.9876]; softmax = [0.3328, 0.1759, 0.1500, 0.3413].
  let t = await trace(page, 'chapter-8');
  [0.9624, 0.3247, 0.1656, 0.9876].forEach((x, j) => near(t.scores[j], x, 5e-5, `cos ${j}`));
  [0.3328, 0.1759, 0.1500, 0.3413].forEach((x, j) => near(t.weights[j], x, 5e-5, `weight ${j} at T = 1`));
  const slider = page.locator(inFig('chapter-8', 'input[data-control="temperature"]'));
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x - 20, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  // NumPy at T = 0.05: [0.376477, 1.09e-6, 4.5e-8, 0.623521].
  t = await trace(page, 'chapter-8');
  near(t.weights[3], 0.623521, 5e-6, 'h_4');
  near(t.weights[0], 0.376477, 5e-6, 'h_1');
  assert.ok(t.weights[1] < 1e-5 && t.weights[2] < 1e-5, 'the others below 10⁻⁵');
  clean(await state(page, 'chapter-8'), 'cosine at T = 0.05');
  await done(page);
});

// ---- 4. the layout of chapter 10 --------------------------------------------------------------------------

test('chapter 10: the base slider dragged to 10⁷ (mouse), then Home and End (keyboard), keeps every heatmap in its row at 1280 px', async () => {
  const page = await guided();
  const ids = ['chapter-10-sinusoidal', 'chapter-10-rope'];
  /** Each heatmap's top, once the figure has settled on its numbers (its sizes measured again, its tables current). */
  const tops = async (id) => {
    await until(page, (id) => T.current(document.getElementById(id)), id);
    await page.evaluate(() => H.frames());
    return page.evaluate((id) => Object.fromEntries([...H.root(id).querySelectorAll('.stages canvas[data-view]')]
      .map((c) => [c.dataset.view, Math.round(c.getBoundingClientRect().top - H.el(id).getBoundingClientRect().top)])), id);
  };
  for (const id of ids) {
    const slider = page.locator(inFig(id, 'input[data-control="position-base-slider"]'));
    await slider.scrollIntoViewIfNeeded();
    const before = await tops(id);
    if (id === ids[0]) assert.equal(new Set(Object.values(before)).size, 1, `${id}: its four heatmaps in one row`);
    const box = await slider.boundingBox();
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width / 2, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width + 20, y, { steps: 5 });
    await page.mouse.up();
    assert.equal((await config(page, id)).position.base, 1e7, `${id}: the slider's right end`);
    assert.deepEqual(await focusOf(page), on(id, 'control position-base-slider'));
    assert.deepEqual(await tops(id), before, `${id} at 10⁷ (mouse): every heatmap stays in its row`);
    await page.keyboard.press('Home');
    assert.equal((await config(page, id)).position.base, 1);
    assert.deepEqual(await tops(id), before, `${id} at 1 (Home)`);
    await page.keyboard.press('End');
    assert.equal((await config(page, id)).position.base, 1e7);
    assert.deepEqual(await focusOf(page), on(id, 'control position-base-slider'));
    assert.deepEqual(await tops(id), before, `${id} at 10⁷ (End)`);
    clean(await state(page, id), `${id} at 10⁷`);
  }
  await done(page);
});

// ---- 5. chapter 12's mask heatmap -------------------------------------------------------------------------

test('chapter 12: the mask heatmap shows the band the window and sink leave (26 keys); a click or Enter toggles the mask entry alone', async () => {
  const page = await guided();
  const id = 'chapter-12';
  const grid = inFig(id, 'canvas[data-control="mask-grid"]');
  await page.locator(grid).scrollIntoViewIfNeeded();
  const n = 8;
  const drawn = () => page.evaluate(async ([id, n]) => {
    const rows = [];
    for (let i = 0; i < n; i++) rows.push(await Promise.all([...Array(n).keys()].map((j) => H.mode(id, 'mask', i, j))));
    return rows;
  }, [id, n]);
  const light = (rows) => rows.map((r) => r.map((c) => (parseInt(c.slice(1, 3), 16) > 128 ? 1 : 0)));
  // Window [2, 0] and one sink: query i attends key 0 and keys i − 2 … i. The prose: 26 of the 36 causal pairs.
  const band = [...Array(n).keys()].map((i) => [...Array(n).keys()].map((j) => +(j === 0 || (j <= i && j >= i - 2))));
  let shown = light(await drawn());
  assert.deepEqual(shown, band, 'the attended keys are drawn 1 (light), the rest 0 (dark)');
  assert.equal(shown.flat().filter(Boolean).length, Number(await page.locator('[data-q="win.kept"]').textContent()));
  const words = () => page.evaluate((id) => H.root(id).querySelector('[data-panel="mask"] [aria-live]').textContent, id);

  // The pointer on "." → "the" (outside the window): the tooltip says why; a click toggles the mask's entry only.
  const at = await page.evaluate((id) => H.cell(id, 'mask', 7, 1), id);
  await page.mouse.move(at.x, at.y);
  assert.match(await page.locator(grid).getAttribute('title'), /query \. → key the: 0 \(masked: outside the window \[2, 0\]\) · mask entry 1/);
  await page.mouse.click(at.x, at.y);
  let c = await config(page, id);
  assert.equal(c.mask[7][1], 0, 'the click set the mask\'s entry');
  assert.equal(c.mask.flat().filter((x) => x === 0).length, 1, 'and no other');
  assert.deepEqual(c.window, [2, 0], 'the window is as it was');
  assert.deepEqual(await focusOf(page), on(id, 'control mask-grid'));
  assert.deepEqual(light(await drawn()), band, 'still drawn masked');
  assert.match(await words(), /: 0 \(masked: mask\[7\]\[1\] = 0 and outside the window \[2, 0\]\) · mask entry 0/);
  await page.keyboard.press('Enter'); // the keyboard cursor is on the clicked cell: back to 1
  assert.equal((await config(page, id)).mask[7][1], 1);
  assert.deepEqual(light(await drawn()), band);
  assert.match(await words(), /: 0 \(masked: outside the window \[2, 0\]\) · mask entry 1/);

  // Inside the window, "." → "mat": the key closes (its weight 0), and Space opens it again.
  const mat = await page.evaluate((id) => H.cell(id, 'mask', 7, 6), id);
  await page.mouse.click(mat.x, mat.y);
  const closed = band.map((r, i) => r.map((x, j) => (i === 7 && j === 6 ? 0 : x)));
  assert.deepEqual(light(await drawn()), closed);
  assert.equal((await trace(page, id)).weights[7][6], 0);
  assert.deepEqual(await focusOf(page), on(id, 'control mask-grid'));
  await page.keyboard.press('Space');
  assert.deepEqual(light(await drawn()), band);
  assert.ok((await trace(page, id)).weights[7][6] > 0);
  assert.deepEqual(await focusOf(page), on(id, 'control mask-grid'));
  clean(await state(page, id), 'mask toggled');
  await done(page);
});

test('every Try line of chapters 1–8 names only controls its figure shows', async () => {
  const page = await guided();
  const shown = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('section.chapter')].slice(0, 8).map((s) => {
    const figs = [...s.querySelectorAll('attention-viz')];
    const has = (sel) => figs.some((f) => [...f.shadowRoot.querySelectorAll(sel)].some((n) => n.getClientRects().length > 0));
    return [s.id, {
      weightsHeatmap: has('canvas[data-view="weights"]'),
      temperature: has('input[data-control="temperature"]'),
      queryMenu: has('select[data-control="query"]'),
      try: s.querySelector('p.try').textContent,
    }];
  })));
  for (const [id, s] of Object.entries(shown)) {
    if (/weights heatmap/.test(s.try)) assert.ok(s.weightsHeatmap, `${id}: the Try line points at a weights heatmap`);
    if (/temperature/.test(s.try)) assert.ok(s.temperature, `${id}: the Try line points at a temperature`);
    if (/“query” menu/.test(s.try)) assert.ok(s.queryMenu, `${id}: the Try line points at the query menu`);
  }
  await done(page);
});
