// The panels of heads, masks, temperature and scoring of <attention-viz> (www/element/variants.js) and the input
// grids of W_O, W_a, U_a, v_a (inputs.js), driven only with real input: page.mouse and page.keyboard, never by
// calling handlers or dispatching synthetic events (the element's Viz is read only to find where a mask cell is
// drawn). After every action the test asserts where the keyboard focus is (document.activeElement and the element's
// shadowRoot.activeElement): a rebuilt panel must not drop it to <body>. Golden numbers are the core's tests'
// (tests/variants.rs, against JAX and NumPy); here, behaviour.
//
// The page is served from memory (page.route): #self is seed-000 (self-attention with W_Q/W_K/W_V, 4 tokens ×
// 3 dims), #cross seed-003 (encoder–decoder), #plain seed-002 (self-attention without projections).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, done, typeInCell, openHTML } from './harness.mjs';

const AXE = join(fileURLToPath(new URL('../../', import.meta.url)), 'node_modules/axe-core/axe.min.js');
const PAGE = 'tests/e2e/variants-page.html'; // no such file: served by page.route below
const HTML = (body) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>variants</title><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<body style="margin:8px;font-family:sans-serif"><main><h1>Variants</h1>
<script type="module" src="/www/attention-viz.js"></script>
${body}</main></body></html>`;
// The documents' configs use none of the panels' features, so without `views` they show none: these name them.
const PANELS = 'controls,inputs,heads,mask,temperature,scoring';
const DEFAULT_BODY = `<attention-viz id="self" preset="seed-000" views="${PANELS},q,k,v,scores,scaled,weights,context,breakdown,steps"></attention-viz>
<attention-viz id="cross" preset="seed-003" views="${PANELS},scores,scaled,weights,applied,context,breakdown"></attention-viz>
<attention-viz id="plain" preset="seed-002" views="${PANELS},scores,scaled,weights,context,breakdown"></attention-viz>`;

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** `window.H`: lookups only; every action in these tests is a real mouse or key event. */
function installHelpers() {
  const describe = (e) => {
    if (!e) return null;
    const d = e.dataset ?? {};
    if (e.matches('input.cell')) return `cell ${d.matrix}:${d.row}:${d.col}`;
    if (d.action) return `action ${d.action}`;
    if (d.control) return `control ${d.control}${d.row !== undefined ? `:${d.row}` : ''}`;
    return e.localName;
  };
  window.H = {
    el: (id) => document.getElementById(id),
    /** Where the keyboard is: the document's active element and, inside the element, its shadow root's. */
    focus() {
      const a = document.activeElement;
      return { doc: a?.localName === 'attention-viz' ? a.id : a?.localName ?? null, shadow: a?.shadowRoot ? describe(a.shadowRoot.activeElement) : null };
    },
    status: (id) => {
      const s = H.el(id).shadowRoot.querySelector('.status');
      return { text: s.textContent, error: s.classList.contains('error') };
    },
    record: (id) => T.record(H.el(id)),
    log: (id) => T.log(H.el(id)),
    maskCell: (id, i, j, view = 'mask') => T.cellPoint(H.el(id), view, i, j),
    /** The weights the figure follows: head `head`'s (self), or the one row (cross). */
    weights(id) {
      const el = H.el(id);
      const t = el.trace;
      if (t.heads) return t.heads[el.config.head ?? 0].weights;
      return [t.weights];
    },
    entropy: (id) => [...H.el(id).shadowRoot.querySelectorAll('.entropy-rows li .h')].map((e) => e.textContent),
    frames: (n = 2) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); }),
  };
}

const load = (body = DEFAULT_BODY, opts = {}) => openHTML(site, PAGE, HTML(body), installHelpers, opts);

const inFig = (id, sel) => `#${id} >> ${sel}`;
const focusOf = (page) => page.evaluate(() => H.focus());
const config = (page, id) => page.evaluate((id) => H.el(id).config, id);
const trace = (page, id) => page.evaluate((id) => H.el(id).trace, id);
const on = (id, what) => ({ doc: id, shadow: what });

async function clickAt(page, sel) {
  const loc = page.locator(sel);
  await loc.scrollIntoViewIfNeeded();
  await loc.click();
}

// ---- heads ----------------------------------------------------------------------------------------------

test('+ head and − head (mouse and keyboard) change trace.heads; the focus stays on the button; the last head is kept with a message', async () => {
  const page = await load();
  const heads = async () => (await trace(page, 'self')).heads.length;
  assert.equal(await heads(), 1);

  await clickAt(page, inFig('self', '[data-action="add-head"]'));
  assert.equal(await heads(), 2);
  assert.equal((await config(page, 'self')).heads, 2);
  assert.equal((await config(page, 'self')).w_q[0].length, 6, 'W_Q gains the new head\'s d_k columns');
  assert.deepEqual(await focusOf(page), on('self', 'action add-head'), 'a clicked + head keeps the focus after the rebuild');
  await page.keyboard.press('Enter');
  assert.equal(await heads(), 3, 'Enter on the focused + head adds another');
  assert.deepEqual(await focusOf(page), on('self', 'action add-head'));

  await page.keyboard.press('Tab');
  assert.deepEqual(await focusOf(page), on('self', 'action remove-head'));
  await page.keyboard.press('Enter');
  assert.equal(await heads(), 2);
  assert.deepEqual(await focusOf(page), on('self', 'action remove-head'), 'focus stays on − head');
  await page.keyboard.press('Space');
  assert.equal(await heads(), 1, 'Space works the same');
  assert.deepEqual(await focusOf(page), on('self', 'action remove-head'));

  // The last head: the core's message, the figure as it was.
  await page.evaluate(() => H.record('self'));
  const before = await trace(page, 'self');
  await page.keyboard.press('Enter');
  const s = await page.evaluate(() => H.status('self'));
  assert.ok(s.error && /last head cannot be removed/.test(s.text), `a message in the status line (got ${JSON.stringify(s)})`);
  assert.deepEqual(await trace(page, 'self'), before, 'the figure is kept');
  assert.equal((await page.evaluate(() => H.log('self'))).errors.length, 1, 'one error event');
  assert.deepEqual(await focusOf(page), on('self', 'action remove-head'));
  await done(page);
});

test('− head then + head brings the reader\'s head back as it was (W_Q, W_K, W_V columns, W_O rows), not zeros', async () => {
  const page = await load();
  await clickAt(page, inFig('self', '[data-action="add-head"]'));
  // The new head's W_Q columns, typed by the reader.
  await typeInCell(page, 'self', 'w_q', 0, 3, '7');
  await typeInCell(page, 'self', 'w_q', 1, 4, '5');
  await page.keyboard.press('Enter');
  const before = await config(page, 'self');
  assert.equal(before.w_q[0][3], 7);
  await clickAt(page, inFig('self', '[data-action="remove-head"]'));
  assert.equal((await config(page, 'self')).heads ?? 1, 1);
  await clickAt(page, inFig('self', '[data-action="add-head"]'));
  const after = await config(page, 'self');
  assert.deepEqual([after.heads, after.w_q, after.w_k, after.w_v], [2, before.w_q, before.w_k, before.w_v]);
  assert.equal(after.head, 1, 'the head brought back is the one followed');
  assert.deepEqual(await focusOf(page), on('self', 'action add-head'));
  await done(page);
});

test('the head picker (keyboard) follows a head; figures without projections say why heads are off', async () => {
  const page = await load();
  await clickAt(page, inFig('self', '[data-action="add-head"]'));
  // Tab from + head: − head, then the head menu.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.deepEqual(await focusOf(page), on('self', 'control head'));
  await page.keyboard.press('ArrowDown');
  assert.equal((await config(page, 'self')).head, 1, 'ArrowDown on the menu picks head 1');
  assert.deepEqual(await focusOf(page), on('self', 'control head'), 'the menu keeps the focus after the rebuild');
  assert.equal(await page.locator(inFig('self', '[data-control="head"]')).inputValue(), '1');
  assert.match(await page.locator(inFig('self', '.entropy-title')).textContent(), /head 1/, 'the entropy is the followed head\'s');
  await page.keyboard.press('ArrowUp');
  assert.equal((await config(page, 'self')).head ?? 0, 0);

  for (const id of ['plain', 'cross']) {
    const add = page.locator(inFig(id, '[data-action="add-head"]'));
    assert.equal(await add.isDisabled(), true, `${id}: + head is disabled`);
    assert.match(await add.getAttribute('title'), id === 'plain' ? /no projections/ : /one head/, `${id}: its title says why`);
  }
  assert.equal(await page.locator(inFig('plain', '[data-control="w-o"]')).count(), 1, 'W_O works without projections');
  await done(page);
});

test('the W_O box adds an identity W_O (its grid, trace.output) and removes it; a malformed W_O value is refused and the figure kept', async () => {
  const page = await load();
  await clickAt(page, inFig('self', '[data-action="add-head"]'));
  await clickAt(page, inFig('self', '[data-control="w-o"]'));
  let cfg = await config(page, 'self');
  assert.deepEqual(cfg.w_o, Array.from({ length: 6 }, (_, i) => Array.from({ length: 6 }, (__, j) => (i === j ? 1 : 0))), 'W_O is the 6 × 6 identity (2 heads × d_v 3)');
  assert.deepEqual(await focusOf(page), on('self', 'control w-o'));
  let t = await trace(page, 'self');
  assert.deepEqual(t.output, t.context, 'the identity W_O gives the heads\' contexts side by side');
  assert.equal(await page.locator(inFig('self', 'fieldset[data-name="w_o"] legend')).textContent(), 'W_O (6 × 6)');

  // Typed into W_O: one edit, the output follows.
  await typeInCell(page, 'self', 'w_o', 0, 1, '2');
  cfg = await config(page, 'self');
  assert.equal(cfg.w_o[0][1], 2);
  t = await trace(page, 'self');
  assert.equal(t.output[0][1], t.context[0][1] + 2 * t.context[0][0]);
  assert.deepEqual(await focusOf(page), on('self', 'cell w_o:0:1'));

  // Text in W_O: the cell is marked, its grid says why, `error` fires, nothing changes.
  await page.evaluate(() => H.record('self'));
  await typeInCell(page, 'self', 'w_o', 1, 1, 'abc');
  const cell = page.locator(inFig('self', 'input.cell[data-matrix="w_o"][data-row="1"][data-col="1"]'));
  assert.equal(await cell.getAttribute('aria-invalid'), 'true');
  assert.match(await page.locator(inFig('self', 'fieldset[data-name="w_o"] .cell-msg')).textContent(), /w_o\[1\]\[1\]: “abc” is not a number/);
  assert.deepEqual(await config(page, 'self'), cfg, 'the config is kept');
  assert.deepEqual(await trace(page, 'self'), t, 'the figure is kept');
  const log = await page.evaluate(() => H.log('self'));
  assert.equal(log.change, 0);
  assert.ok(log.errors.some((m) => /w_o\[1\]\[1\]/.test(m)));
  assert.deepEqual(await focusOf(page), on('self', 'cell w_o:1:1'));
  await page.keyboard.press('Escape');
  assert.equal(await cell.getAttribute('aria-invalid'), null, 'Escape puts the valid value back');

  // Unticked with the keyboard: W_O and its grid go.
  await page.locator(inFig('self', '[data-control="w-o"]')).focus();
  await page.keyboard.press('Space');
  assert.equal((await config(page, 'self')).w_o, undefined);
  assert.equal(await page.locator(inFig('self', 'fieldset[data-name="w_o"]')).count(), 0);
  assert.equal((await trace(page, 'self')).output, undefined);
  assert.deepEqual(await focusOf(page), on('self', 'control w-o'));
  await done(page);
});

// ---- masks ----------------------------------------------------------------------------------------------

test('causal through the mask menu (keyboard): weights 0 above the diagonal; a click on the mask heatmap toggles that cell', async () => {
  const page = await load();
  await page.locator(inFig('self', '[data-control="mask"]')).focus();
  await page.keyboard.press('ArrowDown'); // none → causal
  assert.equal((await config(page, 'self')).mask, 'causal');
  assert.deepEqual(await focusOf(page), on('self', 'control mask'));
  const w = await page.evaluate(() => H.weights('self'));
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
    if (j > i) assert.equal(w[i][j], 0, `weights[${i}][${j}] is 0 above the diagonal`);
    else assert.ok(w[i][j] > 0, `weights[${i}][${j}] > 0 on and below it`);
  }
  assert.equal(await page.locator(inFig('self', 'canvas[data-control="mask-grid"]')).count(), 1, 'the mask heatmap is drawn');

  // A click on cell [1][3]: the causal mask becomes the matrix it stands for, with that entry changed.
  await page.locator(inFig('self', 'canvas[data-control="mask-grid"]')).scrollIntoViewIfNeeded();
  const at = await page.evaluate(() => H.maskCell('self', 1, 3));
  await page.mouse.click(at.x, at.y);
  const mask = (await config(page, 'self')).mask;
  assert.deepEqual(mask, [[1, 0, 0, 0], [1, 1, 0, 1], [1, 1, 1, 0], [1, 1, 1, 1]]);
  assert.ok((await page.evaluate(() => H.weights('self')))[1][3] > 0, 'query 1 now attends to key 3');
  assert.equal(await page.locator(inFig('self', '[data-control="mask"]')).inputValue(), 'custom', 'the menu says custom');
  assert.deepEqual(await focusOf(page), on('self', 'control mask-grid'), 'the clicked heatmap has the focus');

  // The keyboard cursor starts at the click; ← moves it, Enter toggles, Space toggles back.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Enter');
  assert.equal((await config(page, 'self')).mask[1][2], 1, 'Enter toggles the cursor\'s cell [1][2]');
  assert.match(await page.locator(inFig('self', '[data-panel="mask"] [aria-live]')).textContent(), /word_2 → key word_3: 1/);
  await page.keyboard.press('Space');
  assert.equal((await config(page, 'self')).mask[1][2], 0, 'Space toggles it back');
  assert.deepEqual(await focusOf(page), on('self', 'control mask-grid'));

  // Back to none: the heatmap goes, the focus stays on the menu.
  await page.locator(inFig('self', '[data-control="mask"]')).focus();
  await page.keyboard.press('Home');
  assert.equal((await config(page, 'self')).mask, undefined);
  assert.equal(await page.locator(inFig('self', 'canvas[data-control="mask-grid"]')).count(), 0);
  assert.deepEqual(await focusOf(page), on('self', 'control mask'));
  await done(page);
});

test('valid lengths typed per query; empty everywhere removes them', async () => {
  const page = await load();
  const field = (i) => page.locator(inFig('self', `input[data-control="valid-len"][data-row="${i}"]`));
  await field(3).click();
  await page.keyboard.type('2');
  assert.deepEqual((await config(page, 'self')).valid_lens, [4, 4, 4, 2], 'the empty fields are all 4 keys');
  assert.deepEqual(await focusOf(page), on('self', 'control valid-len:3'), 'the field keeps the focus (the mask heatmap came)');
  let w = await page.evaluate(() => H.weights('self'));
  assert.equal(w[3][2], 0);
  assert.equal(w[3][3], 0);
  assert.ok(Math.abs(w[3][0] + w[3][1] - 1) < 1e-12, 'query 3 attends only to keys 0 and 1');
  assert.equal(await page.locator(inFig('self', 'canvas[data-control="mask-grid"]')).count(), 1);

  await page.keyboard.press('Tab'); // past the last field: whatever comes next; back with Shift+Tab
  await page.keyboard.press('Shift+Tab');
  assert.deepEqual(await focusOf(page), on('self', 'control valid-len:3'));
  await field(0).click();
  assert.equal(await field(0).inputValue(), '', 'a field of all keys stays empty');
  await page.keyboard.type('1');
  assert.deepEqual((await config(page, 'self')).valid_lens, [1, 4, 4, 2]);
  w = await page.evaluate(() => H.weights('self'));
  assert.equal(w[0][0], 1, 'query 0 with valid length 1 puts all its weight on key 0');

  // Emptied: all keys again; then a letter: a message, the figure kept, the field marked.
  await page.keyboard.press('Backspace');
  assert.deepEqual((await config(page, 'self')).valid_lens, [4, 4, 4, 2], 'an emptied field is all keys again');
  const t = await trace(page, 'self');
  await page.keyboard.type('x');
  const s = await page.evaluate(() => H.status('self'));
  assert.ok(s.error && /valid length of query 0: "x" is not a whole number/.test(s.text), `the status says why (${JSON.stringify(s)})`);
  assert.equal(await field(0).getAttribute('aria-invalid'), 'true');
  assert.deepEqual((await config(page, 'self')).valid_lens, [4, 4, 4, 2]);
  assert.deepEqual(await trace(page, 'self'), t, 'the figure is kept');
  // ↑/↓ step a field (an empty one counts as all 4 keys).
  await page.keyboard.press('Backspace');
  await page.keyboard.press('ArrowDown');
  assert.equal(await field(0).inputValue(), '3');
  assert.deepEqual((await config(page, 'self')).valid_lens, [3, 4, 4, 2]);
  assert.equal(await field(0).getAttribute('aria-invalid'), null, 'a valid value clears the mark');
  await page.keyboard.press('ArrowUp');
  assert.deepEqual((await config(page, 'self')).valid_lens, [4, 4, 4, 2]);
  assert.deepEqual(await focusOf(page), on('self', 'control valid-len:0'));
  await page.keyboard.press('Control+A');

  // Empty everywhere: no valid lengths, no mask heatmap.
  await page.keyboard.press('Backspace');
  await field(3).click();
  await page.keyboard.press('Backspace');
  assert.equal((await config(page, 'self')).valid_lens, undefined);
  assert.equal(await page.locator(inFig('self', 'canvas[data-control="mask-grid"]')).count(), 0);
  assert.deepEqual(await focusOf(page), on('self', 'control valid-len:3'));
  await done(page);
});

test('masked_row: a fully masked query gets zeros, 1/m or NaN as the menu says', async () => {
  const page = await load();
  await page.locator(inFig('self', '[data-control="mask"]')).focus();
  await page.keyboard.press('ArrowDown'); // causal: row 0 = [1, 0, 0, 0]
  const at = await page.evaluate(() => H.maskCell('self', 0, 0));
  await page.mouse.click(at.x, at.y); // row 0 fully masked
  assert.deepEqual((await config(page, 'self')).mask[0], [0, 0, 0, 0]);
  assert.deepEqual((await page.evaluate(() => H.weights('self')))[0], [0, 0, 0, 0], 'zero (the default): weights 0');
  assert.deepEqual((await trace(page, 'self')).context[0], [0, 0, 0], 'and context 0');

  const menu = page.locator(inFig('self', '[data-control="masked-row"]'));
  await menu.focus();
  await page.keyboard.press('ArrowDown');
  assert.equal((await config(page, 'self')).masked_row, 'uniform');
  assert.deepEqual((await page.evaluate(() => H.weights('self')))[0], [0.25, 0.25, 0.25, 0.25], 'uniform: 1/m');
  assert.match(await menu.getAttribute('title'), /d2l/, 'the menu\'s title explains the choice');
  assert.deepEqual(await focusOf(page), on('self', 'control masked-row'));
  await page.keyboard.press('ArrowDown');
  assert.equal((await config(page, 'self')).masked_row, 'nan');
  assert.ok((await page.evaluate(() => H.weights('self')))[0].every(Number.isNaN), 'nan: NaN');
  assert.equal((await page.evaluate(() => H.entropy('self')))[0], 'nan');
  await page.keyboard.press('Home');
  assert.equal((await config(page, 'self')).masked_row, undefined, 'zero again (the default)');
  assert.equal((await page.evaluate(() => H.entropy('self')))[0], 'all masked');
  await done(page);
});

test('cross attention: the mask is a list (custom, toggled by click), one valid length', async () => {
  const page = await load();
  const menu = page.locator(inFig('cross', '[data-control="mask"]'));
  await menu.focus();
  await page.keyboard.press('ArrowDown'); // none → custom (no causal for one query)
  assert.deepEqual((await config(page, 'cross')).mask, [1, 1, 1, 1]);
  assert.deepEqual(await focusOf(page), on('cross', 'control mask'));
  await page.locator(inFig('cross', 'canvas[data-control="mask-grid"]')).scrollIntoViewIfNeeded();
  const at = await page.evaluate(() => H.maskCell('cross', 0, 3));
  await page.mouse.click(at.x, at.y);
  assert.deepEqual((await config(page, 'cross')).mask, [1, 1, 1, 0]);
  assert.equal((await trace(page, 'cross')).weights[3], 0);
  await page.locator(inFig('cross', 'input[data-control="valid-len"][data-row="0"]')).click();
  await page.keyboard.type('1');
  assert.deepEqual((await config(page, 'cross')).valid_lens, [1]);
  assert.deepEqual((await trace(page, 'cross')).weights, [1, 0, 0, 0]);
  assert.deepEqual(await focusOf(page), on('cross', 'control valid-len:0'));
  await done(page);
});

// ---- temperature --------------------------------------------------------------------------------------

test('the temperature slider: arrow keys step on a log scale, Home/End reach 0.05 and 20, a mouse drag moves it; the entropies follow', async () => {
  const page = await load();
  const slider = page.locator(inFig('self', 'input[data-control="temperature"]'));
  const temp = async () => (await config(page, 'self')).temperature ?? 1;
  const entropies = async () => (await page.evaluate(() => H.entropy('self'))).map(Number);
  const h1 = await entropies();
  assert.equal(h1.length, 4);
  assert.match(await page.locator(inFig('self', '.entropy-title')).textContent(), /log₂ 4 = 2/);

  await slider.focus();
  for (let k = 0; k < 10; k++) await page.keyboard.press('ArrowRight');
  assert.equal(await temp(), 1.26, 'ten steps right: 10^0.1');
  assert.equal(await page.locator(inFig('self', 'output[data-role="t-value"]')).textContent(), 'T = 1.26');
  assert.equal(await slider.getAttribute('aria-valuetext'), 'T = 1.26');
  assert.deepEqual(await focusOf(page), on('self', 'control temperature'));
  for (let k = 0; k < 20; k++) await page.keyboard.press('ArrowLeft');
  assert.equal(await temp(), 0.794, 'twenty steps left: 10^−0.1');

  await page.keyboard.press('Home');
  assert.equal(await temp(), 0.05, 'the left end is the 0.05 the panel states');
  const cold = await entropies();
  await page.keyboard.press('End');
  assert.equal(await temp(), 20);
  const hot = await entropies();
  assert.deepEqual(await focusOf(page), on('self', 'control temperature'));
  for (let i = 0; i < 4; i++) {
    // Hard attention at T = 0.05: all on the best key, or split evenly between tied best keys (1 bit for two).
    assert.ok(cold[i] <= h1[i] && (cold[i] < 0.01 || Math.abs(cold[i] - 1) < 0.01), `query ${i}: hard attention at T = 0.05 (H = ${cold[i]}, at T = 1 ${h1[i]})`);
    assert.ok(hot[i] >= h1[i] && hot[i] > 1.9 && hot[i] <= 2, `query ${i}: nearly uniform at T = 20 (H = ${hot[i]})`);
  }
  assert.ok(cold.some((x) => x < 0.01), 'at least one query puts all its weight on one key');

  // A mouse drag from the thumb to the left end.
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  const thumbX = box.x + box.width - 8; // at End
  await page.mouse.move(thumbX, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
  const middle = await temp();
  await page.mouse.move(box.x - 20, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  assert.ok(middle > 0.7 && middle < 1.4, `halfway is about T = 1 (got ${middle})`);
  assert.equal(await temp(), 0.05, 'dragged to the left end');
  assert.deepEqual(await entropies(), cold);
  assert.deepEqual(await focusOf(page), on('self', 'control temperature'));
  await done(page);
});

// ---- scoring ------------------------------------------------------------------------------------------

test('the scoring menu: general brings an identity W_a grid, additive W_a, U_a, v_a, cosine none; the grids take typing', async () => {
  const page = await load();
  const menu = page.locator(inFig('self', '[data-control="scoring"]'));
  const grids = () => page.evaluate(() => [...H.el('self').shadowRoot.querySelectorAll('fieldset.matrix')].map((f) => f.dataset.name));
  const t0 = await trace(page, 'self');
  await menu.focus();
  await page.keyboard.press('ArrowDown');
  let cfg = await config(page, 'self');
  assert.equal(cfg.scoring, 'general');
  assert.deepEqual(cfg.w_a, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
  assert.deepEqual(await grids(), ['embeddings', 'w_q', 'w_k', 'w_v', 'w_a']);
  assert.deepEqual(await focusOf(page), on('self', 'control scoring'));
  assert.deepEqual((await trace(page, 'self')).scores, t0.scores, 'W_a = I: the dot product\'s scores');
  assert.equal(await page.locator(inFig('self', '[data-panel="scoring"] code')).textContent(), 'q·W_a·kᵀ');

  await typeInCell(page, 'self', 'w_a', 0, 1, '0.5');
  cfg = await config(page, 'self');
  assert.equal(cfg.w_a[0][1], 0.5);
  assert.notDeepEqual((await trace(page, 'self')).scores, t0.scores);
  assert.deepEqual(await focusOf(page), on('self', 'cell w_a:0:1'));

  await menu.focus();
  await page.keyboard.press('ArrowDown');
  cfg = await config(page, 'self');
  assert.equal(cfg.scoring, 'additive');
  assert.deepEqual(await grids(), ['embeddings', 'w_q', 'w_k', 'w_v', 'w_a', 'u_a', 'v_a']);
  assert.equal(await page.locator(inFig('self', 'fieldset[data-name="v_a"] legend')).textContent(), 'v_a (3)');
  assert.deepEqual(await focusOf(page), on('self', 'control scoring'));
  // v_a is one vector: its cells are row 0.
  await typeInCell(page, 'self', 'v_a', 0, 2, '-1.5');
  assert.equal((await config(page, 'self')).v_a[2], -1.5);
  await typeInCell(page, 'self', 'u_a', 2, 0, '0.25');
  assert.equal((await config(page, 'self')).u_a[2][0], 0.25);
  assert.deepEqual(await focusOf(page), on('self', 'cell u_a:2:0'));
  // Alt+↑ steps a cell of the new grids as any other.
  await page.keyboard.press('Alt+ArrowUp');
  assert.equal((await config(page, 'self')).u_a[2][0], 0.26);

  await menu.focus();
  await page.keyboard.press('ArrowDown');
  cfg = await config(page, 'self');
  assert.equal(cfg.scoring, 'cosine');
  assert.deepEqual(await grids(), ['embeddings', 'w_q', 'w_k', 'w_v']);
  const cos = (await trace(page, 'self')).scores;
  assert.ok(cos.flat().every((x) => x >= -1 - 1e-12 && x <= 1 + 1e-12), 'cosine scores are in [−1, 1]');
  assert.deepEqual(await focusOf(page), on('self', 'control scoring'));

  // With two heads, general is refused by the core: the message, and the menu goes back.
  await page.keyboard.press('Home');
  await clickAt(page, inFig('self', '[data-action="add-head"]'));
  await menu.focus();
  await page.keyboard.press('ArrowDown');
  const s = await page.evaluate(() => H.status('self'));
  assert.ok(s.error && /one head only/.test(s.text), `the status says why (${JSON.stringify(s)})`);
  assert.equal(await menu.inputValue(), 'dot', 'the menu shows the scoring the figure has');
  assert.equal((await config(page, 'self')).scoring, undefined);
  await done(page);
});

// ---- which panels show ----------------------------------------------------------------------------------

test('views names the panels (no complaint about them); read-only figures have none; axe finds no violation with every panel busy', async () => {
  const page = await load(`<attention-viz id="some" preset="seed-000" views="heads,temperature,weights"></attention-viz>
<attention-viz id="none" preset="seed-000" views="inputs,weights"></attention-viz>
<attention-viz id="ro" preset="seed-000" editable="false"></attention-viz>
<attention-viz id="all" config='{"embeddings":[[1,0],[0,1],[1,1]],"w_q":[[1,0],[0,1]],"w_k":[[1,2],[0,1]],"w_v":[[1,0],[0,1]],"mask":"causal","valid_lens":[1,2,2],"scoring":"additive","w_a":[[0.1,0.2],[0.3,0.4]],"u_a":[[0.5,0.6],[0.7,0.8]],"v_a":[1,-1],"w_o":[[1,0],[0,1]],"temperature":0.5}'></attention-viz>`);
  const panels = (id) => page.evaluate((id) => {
    const v = H.el(id).shadowRoot.querySelector('.variants');
    return v.hidden ? [] : [...v.querySelectorAll('[data-panel]')].map((p) => p.dataset.panel);
  }, id);
  assert.deepEqual(await panels('some'), ['heads', 'temperature']);
  assert.equal(await page.evaluate(() => H.el('some').shadowRoot.querySelector('[data-role="attributes"]').hidden), true, 'no "no panel" message');
  assert.deepEqual(await panels('none'), []);
  assert.deepEqual(await panels('ro'), []);
  assert.deepEqual(await panels('all'), ['heads', 'scoring', 'temperature', 'mask']);
  assert.equal(await page.locator(inFig('all', '[data-control="mask"]')).inputValue(), 'causal');
  assert.equal(await page.locator(inFig('all', '[data-control="scoring"]')).inputValue(), 'additive');
  assert.equal(await page.locator(inFig('all', 'output[data-role="t-value"]')).textContent(), 'T = 0.5');
  assert.equal(await page.locator(inFig('all', 'input[data-control="valid-len"][data-row="0"]')).inputValue(), '1');

  // The views attribute changed: the panels follow.
  await page.evaluate(() => H.el('none').setAttribute('views', 'mask,scoring'));
  assert.deepEqual(await panels('none'), ['scoring', 'mask']);
  // Without views: the documents' figure shows no panel; the panels whose feature a config uses show, and stay.
  await page.evaluate(() => H.el('none').removeAttribute('views'));
  assert.deepEqual(await panels('none'), []);
  await page.evaluate(() => { H.el('none').config = { ...H.el('none').config, temperature: 0.5, mask: 'causal' }; });
  assert.deepEqual(await panels('none'), ['temperature', 'mask']);
  await page.locator(inFig('none', '[data-control="mask"]')).selectOption('none');
  assert.equal((await config(page, 'none')).mask, undefined);
  assert.deepEqual(await panels('none'), ['temperature', 'mask'], 'a panel once shown stays');

  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`));
  assert.deepEqual(violations, []);
  await done(page);
});

test('at 390 px the panels fit the width (nothing sticks out of the element)', async () => {
  const page = await load(`<attention-viz id="n" config='{"embeddings":[[1,0,0],[0,1,0],[1,1,0],[0,0,1]],"w_q":[[2,0,2,1,0,1],[2,0,0,0,1,1],[2,1,2,1,1,0]],"w_k":[[2,2,2,0,1,1],[0,2,1,1,0,1],[0,1,1,2,1,0]],"w_v":[[1,1,0,0,1,1],[0,1,1,1,0,0],[0,0,0,1,1,1]],"heads":2,"mask":"causal","valid_lens":[1,2,3,4]}'></attention-viz>`,
    { viewport: { width: 390, height: 800 } });
  const out = await page.evaluate(() => {
    const host = H.el('n').getBoundingClientRect();
    return [...H.el('n').shadowRoot.querySelectorAll('.variants *')]
      .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > host.right + 0.5 || r.left < host.left - 0.5); })
      .map((e) => `${e.localName}.${e.className} ${e.dataset.control ?? ''}`);
  });
  assert.deepEqual(out, []);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
  await done(page);
});

test('past 16 queries: the valid lengths are one list applied with Enter, the entropies the first 16 and the mean', async () => {
  const n = 20;
  const emb = Array.from({ length: n }, (_, i) => [i % 3, (i * 7) % 5]);
  const page = await load(`<attention-viz id="big" views="${PANELS},weights" config='${JSON.stringify({ embeddings: emb })}'></attention-viz>`);
  assert.equal(await page.locator(inFig('big', 'input[data-control="valid-len"]')).count(), 0);
  const list = page.locator(inFig('big', 'input[data-control="valid-lens"]'));
  await list.click();
  const lens = Array.from({ length: n }, (_, i) => 1 + (i % 4));
  await page.keyboard.type(lens.join(', '));
  assert.equal((await config(page, 'big')).valid_lens, undefined, 'nothing is applied while the list is typed');
  await page.keyboard.press('Enter');
  assert.deepEqual((await config(page, 'big')).valid_lens, lens);
  assert.deepEqual(await focusOf(page), on('big', 'control valid-lens'));
  assert.equal((await trace(page, 'big')).weights[0][0], 1, 'query 0 (length 1) attends to key 0 only');
  assert.equal((await page.evaluate(() => H.entropy('big'))).length, 16);
  assert.match(await page.locator(inFig('big', '.entropy')).textContent(), /4 more queries; mean over all 20: [\d.]+ bits/);
  // One length too few: the core's message, the lengths kept.
  await page.keyboard.press('Control+A');
  await page.keyboard.type('1, 2');
  await page.keyboard.press('Enter');
  const s = await page.evaluate(() => H.status('big'));
  assert.ok(s.error && /valid_lens has 2 values, expected 20/.test(s.text), JSON.stringify(s));
  assert.equal(await list.getAttribute('aria-invalid'), 'true');
  assert.deepEqual((await config(page, 'big')).valid_lens, lens);
  await done(page);
});
