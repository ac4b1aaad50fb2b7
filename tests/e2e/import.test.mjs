// Bringing a user's arrays into <attention-viz> (www/element/importer.js), as a person does it: files
// NumPy itself wrote, dropped on a grid (a DataTransfer made in the page and dragenter/dragover/drop dispatched on
// the grid, as playwright documents file drops) or on a heatmap (a .npz), picked through a grid's "Import…" button
// (the real file chooser), and whole arrays pasted from the real clipboard into a grid's first cell. The shape
// dialog is driven with the keyboard (Tab, Shift+Tab, Enter, Escape) and the focus is checked after each step.
// Every figure that results is compared with compute() of the config NumPy's own values make, and the random values
// of resized matrices with np.random.seed(42); np.random.rand(…) as NumPy draws them. Any console error fails.
//
// Fixtures: tests/fixtures/two-elements.html (seed-000: self-attention, 4 tokens × 3 dims with 3 × 3 W_Q/W_K/W_V;
// seed-003: cross-attention, a decoder state of 3 and 4 annotations); the NumPy files are written by python3 into a
// fresh temporary folder before the tests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, done, pageHelpers } from './harness.mjs';

let site;
let dir;
let gold;
/** Screenshots of the drop highlight and the dialog, looked at by whoever changes their look. */
const SHOTS = join(tmpdir(), 'attention-viz-import-shots');
const AXE = new URL('../../node_modules/axe-core/axe.min.js', import.meta.url).pathname;

// The files and the values NumPy computes. json.dump writes floats as repr does: the shortest text that reads back
// as the same double, so the golden values cross into the test exactly.
const NUMPY = String.raw`
import json, sys
import numpy as np
out = sys.argv[1]
np.random.seed(0)
emb = np.random.rand(10, 64)
np.save(f'{out}/emb_10x64.npy', emb)
np.random.seed(42)
fix_64 = [np.random.rand(64, 3) for _ in range(3)]          # what "Resize W_Q, W_K, W_V" must give, in that order
np.random.seed(42)
fix_wk = np.random.rand(3, 4)                               # W_K resized to 3 x 4
np.random.seed(42)
fix_ann = np.random.rand(4, 5)                              # annotations resized to 4 x 5
np.random.seed(42)
fix_general = [np.random.rand(3, 4), np.random.rand(4, 4)]  # W_K 3 x 4, then W_a 4 x 4
np.save(f'{out}/long.npy', np.random.rand(2000, 3))
w_v = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75], [3.0, 1.0, 0.125]])
np.savetxt(f'{out}/w_v.csv', w_v, delimiter=',')
small = dict(embeddings=np.arange(20, dtype=np.float32).reshape(5, 4) / 10,
             w_q=np.linspace(-1, 1, 8).reshape(4, 2), w_k=np.eye(4, 2), w_v=np.ones((4, 2), dtype=np.int16))
np.savez(f'{out}/model.npz', foo=np.zeros(3), **small, bar=np.ones((2, 2)))
np.save(f'{out}/cube.npy', np.zeros((2, 3, 4)))
np.savez(f'{out}/bad.npz', embeddings=emb, w_q=np.eye(3), w_k=np.eye(3), w_v=np.eye(3))
h = np.array([0.5, -2.0, 1.0, 4.0, 0.25])
np.save(f'{out}/h.npy', h)
np.save(f'{out}/h3.npy', np.array([1.0, 2.0, 3.0], dtype='>f8'))
json.dump(dict(emb=emb.tolist(), fix_64=[m.tolist() for m in fix_64], fix_wk=fix_wk.tolist(), fix_ann=fix_ann.tolist(), fix_general=[m.tolist() for m in fix_general],
               w_v=w_v.tolist(), small={k: v.astype(np.float64).tolist() for k, v in small.items()}, h=h.tolist()),
          open(f'{out}/gold.json', 'w'))
`;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'attention-viz-import-'));
  execFileSync('python3', ['-c', NUMPY, dir]);
  gold = JSON.parse(readFileSync(join(dir, 'gold.json'), 'utf8'));
  mkdirSync(SHOTS, { recursive: true });
  site = await open();
});
after(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `window.H`: lookups only; every action is a real mouse, key, clipboard, file chooser or drop. */
function installHelpers() {
  const els = () => [...document.querySelectorAll('attention-viz')];
  const describe = (e) => {
    if (!e) return null;
    const d = e.dataset ?? {};
    if (e.matches('input.cell')) return `cell ${d.matrix}:${d.row}:${d.col}`;
    if (d.action) return `action ${d.action}${d.matrix ? ` ${d.matrix}` : ''}`;
    return e.localName;
  };
  window.H = {
    els,
    focus() {
      const a = document.activeElement;
      const i = els().indexOf(a);
      return i >= 0 ? `${i}: ${describe(a.shadowRoot.activeElement)}` : a?.localName ?? null;
    },
    dialog: (i = 0) => {
      const d = els()[i].shadowRoot.querySelector('.import-dialog');
      return d && { text: d.querySelector('#import-what').textContent, fix: d.querySelector('#import-fix').textContent, role: d.getAttribute('role'),
        label: d.querySelector(`#${d.getAttribute('aria-labelledby')}`)?.textContent, buttons: [...d.querySelectorAll('button')].map((b) => b.textContent) };
    },
    msg: (i = 0) => els()[i].shadowRoot.querySelector('.import-msg')?.textContent ?? '',
    /** The first difference between the figure's trace and compute() of `config` (1e-12 relative), or null. */
    async sameAsCompute(i, config) {
      const { compute } = await import('/www/attention-viz.js');
      return T.diff(els()[i].trace, compute(config));
    },
  };
}

async function load(opts = {}) {
  const page = await site.page('tests/fixtures/two-elements.html', opts);
  await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => e.trace && e.shadowRoot.querySelector('canvas[data-view]')));
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
  await page.evaluate(() => { for (const e of H.els()) T.record(e); });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url.replace(/\/$/, '') });
  return page;
}

const fig = (i) => `attention-viz >> nth=${i}`;
const grid = (i, m) => `${fig(i)} >> fieldset.matrix[data-name="${m}"]`;
const cellSel = (i, m, r, c) => `${fig(i)} >> input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`;
const focusOf = (page) => page.evaluate(() => H.focus());
const config = (page, i = 0) => page.evaluate((i) => H.els()[i].config, i);
const log = (page, i = 0) => page.evaluate((i) => ({ ...T.log(H.els()[i]) }), i);
const settle = (page) => page.waitForFunction(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true)))));

/** A DataTransfer in the page holding these files (bytes read here, as NumPy wrote them). */
function transfer(page, ...names) {
  const files = names.map((name) => ({ name, bytes: [...readFileSync(join(dir, name))] }));
  return page.evaluateHandle((fs) => {
    const dt = new DataTransfer();
    for (const { name, bytes } of fs) dt.items.add(new File([new Uint8Array(bytes)], name));
    return dt;
  }, files);
}

/** Drags files over `sel` (dragenter, dragover) and drops them there, as a file dragged from the desktop does. */
async function drop(page, sel, ...names) {
  const dataTransfer = await transfer(page, ...names);
  await page.locator(sel).dispatchEvent('dragenter', { dataTransfer });
  await page.locator(sel).dispatchEvent('dragover', { dataTransfer });
  await page.locator(sel).dispatchEvent('drop', { dataTransfer });
}

/** Real paste: the text on the clipboard, then Control+V in the clicked cell. */
async function paste(page, sel, text) {
  await page.locator(sel).click();
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.keyboard.press('Control+V');
}

/** Waits for the dialog (or a message) after a file import, which reads the file first. */
const dialogShown = (page, i = 0) => page.waitForFunction((i) => H.dialog(i), i);
const messageShown = (page, i = 0) => page.waitForFunction((i) => H.msg(i), i);

test('a 10 × 64 .npy dropped on the embeddings: the grid is the drop target; the dialog says what disagrees; Enter resizes W_Q, W_K, W_V with np.random.seed(42) rand values', async () => {
  const page = await load();
  // The reader was typing in the embeddings: that is where the keyboard comes back to.
  await page.locator(cellSel(0, 'embeddings', 1, 1)).click();
  const before = await config(page);
  const dataTransfer = await transfer(page, 'emb_10x64.npy');
  await page.locator(grid(0, 'embeddings')).dispatchEvent('dragenter', { dataTransfer });
  const over = await page.locator(grid(0, 'embeddings')).evaluate((f, dt) => {
    const e = new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true, composed: true });
    f.querySelector('table').dispatchEvent(e);
    return { allowed: e.defaultPrevented, target: f.classList.contains('drop-target'), label: f.dataset.dropLabel,
      others: [...f.parentNode.querySelectorAll('fieldset.drop-target')].length };
  }, dataTransfer);
  assert.deepEqual(over, { allowed: true, target: true, label: 'Drop to fill embeddings', others: 1 }, 'dragover a grid: the drop is allowed and that grid alone is highlighted');
  await page.locator(grid(0, 'embeddings')).dispatchEvent('drop', { dataTransfer });
  await dialogShown(page);
  assert.equal(await page.locator(grid(0, 'embeddings')).evaluate((f) => f.classList.contains('drop-target')), false, 'the highlight goes with the drop');
  const d = await page.evaluate(() => H.dialog());
  assert.equal(d.role, 'alertdialog');
  assert.equal(d.label, 'Import embeddings: the shapes disagree');
  assert.equal(d.text, 'embeddings are 10 × 64 but W_Q is 3 × 3: W_Q, W_K, W_V need 64 rows.');
  assert.match(d.fix, /^Resize makes W_Q 64 × 3, W_K 64 × 3, W_V 64 × 3, of random values in \[0, 1\): np\.random\.seed\(42\), then np\.random\.rand\(rows, columns\) for each, in this order\./);
  assert.match(d.fix, /6 tokens added \(word_5 … word_10\)/);
  assert.deepEqual(d.buttons, ['Resize W_Q, W_K, W_V', 'Cancel']);
  assert.deepEqual(await config(page), before, 'nothing changes while the dialog asks');
  assert.equal(await focusOf(page), '0: action import-resize', 'the focus is on the dialog\'s first button');
  await page.keyboard.press('Tab');
  assert.equal(await focusOf(page), '0: action import-cancel', 'Tab: Cancel');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focusOf(page), '0: action import-resize', 'Shift+Tab: back to Resize');
  await page.keyboard.press('Enter');
  await settle(page);
  assert.equal(await page.evaluate(() => H.dialog()), null, 'the dialog is gone');
  assert.equal(await focusOf(page), '0: cell embeddings:1:1', 'the focus is back in the cell it was in');
  const after = await config(page);
  assert.deepEqual(after.embeddings, gold.emb, 'the embeddings are the file\'s, bit for bit');
  assert.deepEqual([after.w_q, after.w_k, after.w_v], gold.fix_64, 'W_Q, W_K, W_V = np.random.seed(42); rand(64, 3) three times');
  assert.deepEqual(after.tokens, Array.from({ length: 10 }, (_, i) => `word_${i + 1}`), 'ten tokens');
  const want = { embeddings: gold.emb, w_q: gold.fix_64[0], w_k: gold.fix_64[1], w_v: gold.fix_64[2] };
  assert.equal(await page.evaluate((c) => H.sameAsCompute(0, c), want), null, 'the trace is compute() of the NumPy values');
  assert.match(await page.evaluate(() => H.msg()), /^Imported embeddings \(10 × 64\) from emb_10x64\.npy\. Resized W_Q to 64 × 3/);
  assert.deepEqual(await log(page), { change: 1, errors: [] }, 'one change, no error');
  await done(page);
});

test('a whole array pasted into W_Q\'s first cell: Escape and Cancel keep everything and give the focus back; Resize fits W_K', async () => {
  const page = await load();
  const before = await config(page);
  const text = 'array([[1., 2., 3., 4.],\n       [5., 6., 7., 8.],\n       [9., 10., 11., 12.]])';
  await paste(page, cellSel(0, 'w_q', 0, 0), text);
  await dialogShown(page);
  assert.equal((await page.evaluate(() => H.dialog())).text, 'W_Q is 3 × 4 but W_K is 3 × 3: W_K needs 4 columns.');
  assert.equal(await focusOf(page), '0: action import-resize');
  await page.keyboard.press('Escape');
  assert.equal(await page.evaluate(() => H.dialog()), null, 'Escape closes the dialog');
  assert.equal(await focusOf(page), '0: cell w_q:0:0', 'Escape: the focus is back in the cell pasted into');
  assert.deepEqual(await config(page), before, 'Escape: nothing changed');

  await paste(page, cellSel(0, 'w_q', 0, 0), text);
  await dialogShown(page);
  await page.keyboard.press('Tab');
  assert.equal(await focusOf(page), '0: action import-cancel');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => H.dialog()), null, 'Cancel closes the dialog');
  assert.equal(await focusOf(page), '0: cell w_q:0:0', 'Cancel: the focus is back in the cell');
  assert.deepEqual(await config(page), before, 'Cancel: nothing changed');
  assert.deepEqual(await log(page), { change: 0, errors: [] });

  await paste(page, cellSel(0, 'w_q', 0, 0), text);
  await dialogShown(page);
  await page.keyboard.press('Enter');
  await settle(page);
  assert.equal(await focusOf(page), '0: cell w_q:0:0', 'Resize: the focus is back in the (rebuilt) cell');
  const after = await config(page);
  assert.deepEqual(after.w_q, [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]);
  assert.deepEqual(after.w_k, gold.fix_wk, 'W_K = np.random.seed(42); rand(3, 4)');
  assert.deepEqual([after.embeddings, after.w_v, after.tokens], [before.embeddings, before.w_v, before.tokens], 'the rest as it was');
  const want = { embeddings: before.embeddings, w_q: after.w_q, w_k: gold.fix_wk, w_v: before.w_v };
  assert.equal(await page.evaluate((c) => H.sameAsCompute(0, c), want), null);
  assert.deepEqual(await log(page), { change: 1, errors: [] });
  // A block that does not fit anywhere but the first cell is still refused, and says how to replace the matrix.
  await paste(page, cellSel(0, 'w_q', 1, 1), '[[1, 2, 3, 4]]');
  assert.match(await page.evaluate(() => H.els()[0].shadowRoot.querySelector('fieldset[data-name="w_q"] .cell-msg').textContent),
    /does not fit .* paste into its first cell/);
  assert.equal(await focusOf(page), '0: cell w_q:1:1');
  await done(page);
});

test('the Import… button of a grid opens the file chooser; a NumPy-written CSV of the same shape fills W_V at once', async () => {
  const page = await load();
  const before = await config(page);
  const button = page.locator(`${grid(0, 'w_v')} >> button[data-action="import"]`);
  assert.equal(await button.getAttribute('aria-label'), 'Import W_V from a file');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), button.click()]);
  assert.equal(chooser.isMultiple(), true);
  await chooser.setFiles(join(dir, 'w_v.csv'));
  await messageShown(page);
  assert.equal(await page.evaluate(() => H.dialog()), null, 'no dialog: the shapes agree');
  assert.equal(await focusOf(page), '0: action import w_v', 'the focus stays on the (rebuilt) Import… button');
  const after = await config(page);
  assert.deepEqual(after.w_v, gold.w_v);
  assert.equal(await page.evaluate(() => H.msg()), 'Imported W_V (3 × 3) from w_v.csv.');
  assert.equal(await page.evaluate((c) => H.sameAsCompute(0, c), { ...before, w_v: gold.w_v }), null);
  // The keyboard reaches the button too: Tab from W_V's legend side, Enter opens the chooser again.
  await page.locator(cellSel(0, 'w_k', 2, 2)).click();
  await page.keyboard.press('Tab');
  assert.equal(await focusOf(page), '0: action import w_v', 'Tab from W_K\'s last cell reaches W_V\'s Import…');
  const [again] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('Enter')]);
  await again.setFiles([]);
  assert.deepEqual(await log(page), { change: 1, errors: [] });
  await done(page);
});

test('a .npz dropped on a heatmap fills every matrix it names at once and lists the names it ignored', async () => {
  const page = await load();
  const at = `${fig(0)} >> canvas[data-view="weights"]`;
  await page.locator(at).scrollIntoViewIfNeeded();
  await drop(page, at, 'model.npz');
  await messageShown(page);
  assert.equal(await page.evaluate(() => H.dialog()), null, 'no dialog: the arrays agree with each other');
  const after = await config(page);
  for (const m of ['embeddings', 'w_q', 'w_k', 'w_v']) assert.deepEqual(after[m], gold.small[m], m);
  assert.deepEqual(after.tokens, ['word_1', 'word_2', 'word_3', 'word_4', 'word_5'], 'a fifth token, named as the core names it');
  assert.equal(await page.evaluate(() => H.msg()),
    'Imported embeddings (5 × 4), W_Q (4 × 2), W_K (4 × 2) and W_V (4 × 2) from model.npz; ignored: foo, bar. 1 token added (word_5).');
  assert.equal(await page.evaluate((c) => H.sameAsCompute(0, c), gold.small), null);
  assert.deepEqual(await log(page), { change: 1, errors: [] });
  await done(page);
});

test('refusals say why beside the grid and change nothing: a 3-d array, arrays that disagree with each other; the state stays', async () => {
  const page = await load();
  const before = await config(page);
  await drop(page, grid(0, 'w_q'), 'cube.npy');
  await messageShown(page);
  const r = await page.evaluate(() => {
    const msg = H.els()[0].shadowRoot.querySelector('.import-msg');
    return { text: msg.textContent, role: msg.getAttribute('role'), after: msg.previousElementSibling?.dataset.name };
  });
  assert.equal(r.text, 'cube.npy: W_Q needs a 2-d array (rows × columns), got a 3-d array (2 × 3 × 4); nothing was imported');
  assert.equal(r.role, 'alert');
  assert.equal(r.after, 'w_q', 'said right under W_Q');
  assert.deepEqual(await config(page), before);
  // Arrays of one .npz that disagree with each other: nothing is asked or done.
  await drop(page, `${fig(0)} >> canvas[data-view="weights"]`, 'bad.npz');
  await page.waitForFunction(() => H.msg().includes('bad.npz'));
  assert.equal(await page.evaluate(() => H.msg()), 'bad.npz: embeddings are 10 × 64 but W_Q is 3 × 3: W_Q needs 64 rows; nothing was imported');
  assert.equal(await page.evaluate(() => H.dialog()), null);
  assert.deepEqual(await config(page), before);
  // What only the core can check (2000 tokens exceed its cost limit): its reason, beside the grid; the state stays.
  await drop(page, grid(0, 'embeddings'), 'long.npy');
  await page.waitForFunction(() => H.msg().includes('long.npy'));
  const refused = await page.evaluate(() => {
    const msg = H.els()[0].shadowRoot.querySelector('.import-msg');
    return { text: msg.textContent, after: msg.previousElementSibling?.dataset.name };
  });
  assert.match(refused.text, /^long\.npy: .*multiply-adds.*; nothing was imported$/);
  assert.equal(refused.after, 'embeddings');
  assert.deepEqual(await config(page), before);
  const l = await log(page);
  assert.equal(l.change, 0);
  assert.equal(l.errors.length, 3, 'one `error` per refusal');
  await done(page);
});

test('an import says what disagrees with heads, W_O and the scorings\' W_a, U_a, v_a, and refuses what no resize can fix', async () => {
  const page = await load();
  const m = (r, c, x = 1) => Array.from({ length: r }, () => new Array(c).fill(x));
  const tokens = ['a', 'b', 'c', 'd'];
  const heads = { mechanism: 'self', embeddings: m(4, 3), w_q: m(3, 4), w_k: m(3, 4), w_v: m(3, 4), heads: 2, w_o: m(4, 3), tokens, query: 0 };
  const general = { mechanism: 'self', embeddings: m(4, 3), w_q: m(3, 2), w_k: m(3, 2), w_v: m(3, 2), scoring: 'general', w_a: m(2, 2), tokens, query: 3 };
  const additive = { mechanism: 'cross', decoder_state: [1, 2, 3], annotations: m(4, 3), scoring: 'additive', w_a: m(3, 3), u_a: m(3, 3), v_a: [1, 2, 3], tokens, query: 0 };
  /** The config shown, then a file `x.txt` holding `text` dropped on grid `name`: the dialog's words, or the message. */
  const importing = async (cfg, name, text) => {
    await page.evaluate((c) => { H.els()[0].config = c; }, cfg);
    await page.waitForFunction((n) => H.els()[0].shadowRoot.querySelector(`fieldset.matrix[data-name="${n}"]`), name);
    const dataTransfer = await page.evaluateHandle((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'x.txt'));
      return dt;
    }, text);
    for (const type of ['dragenter', 'dragover', 'drop']) await page.locator(grid(0, name)).dispatchEvent(type, { dataTransfer });
    await page.waitForFunction(() => H.dialog() || H.msg());
    const d = await page.evaluate(() => H.dialog());
    return d ? { what: d.text, resize: d.buttons[0], fix: d.fix.replace(/, of random values.*/, '') } : { said: await page.evaluate(() => H.msg()) };
  };
  const r = [
    await importing(heads, 'w_q', '[[1, 1, 1], [1, 1, 1], [1, 1, 1]]'),
    await importing(heads, 'w_v', JSON.stringify(m(3, 6))),
    await importing(general, 'w_a', JSON.stringify(m(2, 3))),
    await importing(general, 'w_q', JSON.stringify(m(3, 4))),
    await importing(general, 'embeddings', JSON.stringify(m(2, 3))),
    await importing(additive, 'v_a', '[1, 2, 3, 4, 5]'),
    await importing(additive, 'decoder_state', '[[1, 2, 3, 4]]'),
    await importing(additive, 'annotations', '[1, 2, 3]'),
    await importing(additive, 'decoder_state', '[1.0, nan, 3.0]'),
  ];
  const refused = (why) => ({ said: `x.txt: ${why}; nothing was imported` });
  assert.deepEqual(r, [
    refused('W_Q is 3 × 3 but 2 heads split its 3 columns evenly: it needs a multiple of 2 columns'),
    { what: 'W_V is 3 × 6 but W_O is 4 × 3: W_O needs 6 rows.', resize: 'Resize W_O', fix: 'Resize makes W_O 6 × 3' },
    refused('W_a is 2 × 3 but its rows and columns are both d_k here (general scoring): it must be square'),
    { what: 'W_Q is 3 × 4 but W_K is 3 × 2: W_K needs 4 columns; W_a needs 4 rows and columns.', resize: 'Resize W_K, W_a', fix: 'Resize makes W_K 3 × 4, W_a 4 × 4' },
    { said: 'Imported embeddings (2 × 3) from x.txt. 2 tokens removed (4 → 2).' },
    { what: 'v_a has 5 values but W_a is 3 × 3: W_a, U_a need 5 columns.', resize: 'Resize W_a, U_a', fix: 'Resize makes W_a 3 × 5, U_a 3 × 5' },
    { what: 'decoder state has 4 values but annotations are 4 × 3: annotations need 4 columns; W_a, U_a need 4 rows.', resize: 'Resize annotations, W_a, U_a', fix: 'Resize makes annotations 4 × 4, W_a 4 × 3, U_a 4 × 3' },
    refused('annotations need a 2-d array (rows × columns), got a 1-d array of 3 values: reshape it, e.g. x.reshape(1, -1) for one row'),
    refused('decoder state value 1 is NaN: every value must be a finite number'),
  ]);
  await done(page);
});

test('general scoring: a wider W_Q pasted whole resizes W_K and W_a (one seed, drawn in reading order); the trace is compute()\'s', async () => {
  const page = await load();
  const start = { embeddings: [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], w_q: [[1, 0], [0, 1], [1, 1]], w_k: [[1, 1], [0, 1], [1, 0]],
    w_v: [[1, 0], [0, 1], [2, 2]], scoring: 'general', w_a: [[1, 0], [0, 1]] };
  await page.evaluate((c) => { H.els()[0].config = c; }, start);
  await settle(page);
  await paste(page, cellSel(0, 'w_q', 0, 0), '1\t2\t3\t4\n5\t6\t7\t8\n9\t10\t11\t12');
  await dialogShown(page);
  assert.equal((await page.evaluate(() => H.dialog())).text, 'W_Q is 3 × 4 but W_K is 3 × 2: W_K needs 4 columns; W_a needs 4 rows and columns.');
  assert.deepEqual((await page.evaluate(() => H.dialog())).buttons, ['Resize W_K, W_a', 'Cancel']);
  await page.keyboard.press('Enter');
  await settle(page);
  const want = { ...start, w_q: [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], w_k: gold.fix_general[0], w_a: gold.fix_general[1] };
  const after = await config(page);
  assert.deepEqual([after.w_k, after.w_a], gold.fix_general, 'np.random.seed(42); rand(3, 4) for W_K, then rand(4, 4) for W_a');
  assert.equal(await page.evaluate((c) => H.sameAsCompute(0, c), want), null);
  assert.equal(await focusOf(page), '0: cell w_q:0:0');
  await done(page);
});

test('cross-attention: a 1-d .npy fills the decoder state; a longer one asks to resize the annotations', async () => {
  const page = await load();
  const before = await config(page, 1);
  await drop(page, grid(1, 'decoder_state'), 'h3.npy');
  await messageShown(page, 1);
  assert.deepEqual((await config(page, 1)).decoder_state, [1, 2, 3], 'a big-endian float64 vector');
  await drop(page, grid(1, 'decoder_state'), 'h.npy');
  await dialogShown(page, 1);
  assert.equal((await page.evaluate(() => H.dialog(1))).text, 'decoder state has 5 values but annotations are 4 × 3: annotations need 5 columns.');
  await page.keyboard.press('Enter');
  await settle(page);
  const after = await config(page, 1);
  assert.deepEqual([after.decoder_state, after.annotations, after.tokens], [gold.h, gold.fix_ann, before.tokens]);
  assert.equal(await page.evaluate((c) => H.sameAsCompute(1, c), { decoder_state: gold.h, annotations: gold.fix_ann }), null);
  await done(page);
});

test('a figure that is not editable has no import: no Import… buttons, a drop is not taken', async () => {
  const page = await load();
  await page.evaluate(() => H.els()[0].setAttribute('editable', 'false'));
  await settle(page);
  assert.equal(await page.locator(`${fig(0)} >> button[data-action="import"]`).count(), 0);
  const dataTransfer = await transfer(page, 'model.npz');
  const taken = await page.locator(`${fig(0)} >> canvas[data-view="weights"]`).evaluate((c, dt) => {
    const e = new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true, composed: true });
    c.dispatchEvent(e);
    return e.defaultPrevented;
  }, dataTransfer);
  assert.equal(taken, false, 'the browser\'s own handling of the drop stays');
  await done(page);
});

for (const width of [1280, 390]) {
  for (const theme of ['light', 'dark']) {
    test(`screenshots at ${width} px, ${theme}: the drop highlight and the dialog fit and read`, async () => {
      const page = await load({ viewport: { width, height: 900 } });
      await page.evaluate((t) => H.els()[0].setAttribute('theme', t), theme);
      const dataTransfer = await transfer(page, 'emb_10x64.npy');
      const target = page.locator(grid(0, 'w_q'));
      await target.scrollIntoViewIfNeeded();
      await target.dispatchEvent('dragenter', { dataTransfer });
      await target.dispatchEvent('dragover', { dataTransfer });
      await settle(page);
      await page.screenshot({ path: join(SHOTS, `drop-${width}-${theme}.png`) });
      await target.dispatchEvent('dragleave', { dataTransfer });
      assert.equal(await target.evaluate((f) => f.classList.contains('drop-target') || f.parentNode.classList.contains('dragging')), false, 'dragleave clears the highlight');
      await page.locator(grid(0, 'embeddings')).dispatchEvent('drop', { dataTransfer });
      await dialogShown(page);
      await page.locator(`${fig(0)} >> .import-dialog`).scrollIntoViewIfNeeded();
      await settle(page);
      await page.screenshot({ path: join(SHOTS, `dialog-${width}-${theme}.png`) });
      const fits = await page.evaluate(() => {
        const d = H.els()[0].shadowRoot.querySelector('.import-dialog');
        const r = d.getBoundingClientRect();
        return { inside: r.left >= 0 && r.right <= innerWidth, page: document.documentElement.scrollWidth <= innerWidth };
      });
      assert.deepEqual(fits, { inside: true, page: true }, 'the dialog fits the width, the page does not scroll sideways');
      await page.addScriptTag({ path: AXE });
      const violations = await page.evaluate(async () => {
        // The figure, not the bare fixture page around it (which has no title, lang or landmarks).
        const r = await window.axe.run(H.els()[0], { resultTypes: ['violations'], runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } });
        return r.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.flat().join(' >>> ')).join('; ')}`);
      });
      assert.deepEqual(violations, [], 'axe-core: no violation with the dialog open (its text, buttons and contrast)');
      await page.keyboard.press('Escape');
      await done(page);
    });
  }
}
