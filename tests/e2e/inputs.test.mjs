// The input grids and the toolbar of <attention-viz> (www/element/inputs.js,
// toolbar.js, cells.js) driven only with real input: page.mouse, page.mouse.wheel,
// page.keyboard and the clipboard, never by calling handlers or dispatching
// synthetic events. After every action the test asserts where the keyboard focus
// is (document.activeElement and the element's shadowRoot.activeElement): a
// rebuilt toolbar or grid must not drop it to <body>.
//
// Fixture: tests/fixtures/two-elements.html (seed-000: self-attention with
// W_Q/W_K/W_V, 4 tokens × 3 dims; seed-003: cross-attention).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, done, pageHelpers } from './harness.mjs';

let site;
before(async () => { site = await open(); });
after(() => site.close());

/** `window.H`: lookups only; every action in these tests is a real mouse, wheel or key event. */
function installHelpers() {
  const els = () => [...document.querySelectorAll('attention-viz')];
  const describe = (e) => {
    if (!e) return null;
    const d = e.dataset ?? {};
    if (e.matches('input.cell')) return `cell ${d.matrix}:${d.row}:${d.col}`;
    if (e.matches('input.token')) return `token ${d.token}`;
    if (d.action) return `action ${d.action}`;
    if (d.control) return `control ${d.control}`;
    return e.localName;
  };
  window.H = {
    els,
    cell: (el, m, r, c) => el.shadowRoot.querySelector(`input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`),
    msg: (el, m) => el.shadowRoot.querySelector(`fieldset[data-name="${m}"] .cell-msg`),
    /** Where the keyboard is: the document's active element and, inside the element, its shadow root's. */
    focus() {
      const a = document.activeElement;
      const i = els().indexOf(a);
      return { doc: i >= 0 ? `attention-viz ${i}` : a?.localName ?? null, shadow: i >= 0 ? describe(a.shadowRoot.activeElement) : null };
    },
    record: (el) => T.record(el),
    frames: (n = 2) => new Promise((ok) => { const f = () => (--n <= 0 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); }),
  };
}

async function load(path = 'tests/fixtures/two-elements.html', opts = {}) {
  const page = await site.page(path, opts);
  await page.waitForFunction(() => {
    const els = [...document.querySelectorAll('attention-viz')];
    return els.length > 0 && els.every((e) => e.trace && e.shadowRoot.querySelector('canvas[data-view]'));
  });
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
  await page.evaluate(() => { for (const e of H.els()) H.record(e); });
  return page;
}

const first = (sel) => `attention-viz >> nth=0 >> ${sel}`;
const cellSel = (m, r, c) => `input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`;
const focusOf = (page) => page.evaluate(() => H.focus());
const config = (page, i = 0) => page.evaluate((i) => H.els()[i].config, i);

async function center(page, sel) {
  const box = await page.locator(sel).boundingBox();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

// ---- 1. Alt+wheel --------------------------------------------------------------------------

test('Alt+wheel over a cell steps its value by one step and does not scroll the page', async () => {
  const page = await load();
  // A page taller than the window, so a wheel the element does not take scrolls it.
  await page.evaluate(() => { document.body.append(Object.assign(document.createElement('div'), { style: 'height: 4000px' })); });
  const sel = first(cellSel('embeddings', 2, 0));
  const at = await center(page, sel);
  await page.mouse.click(at.x, at.y);
  assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'cell embeddings:2:0' });
  const x0 = (await config(page)).embeddings[2][0];
  assert.equal(await page.evaluate(() => scrollY), 0);

  await page.keyboard.down('Alt');
  await page.mouse.wheel(0, 120); // down: one step less, and a page scroll if the element lets it through
  // The step must come: wait for the value to move. A page scroll must not: frames and a moment are its only chance.
  await page.waitForFunction((x) => H.els()[0].config.embeddings[2][0] !== x, x0);
  await page.evaluate(() => H.frames(3));
  await page.waitForTimeout(200); // only a chance for a (smooth) scroll that must not come: nothing is awaited
  const down = { x: (await config(page)).embeddings[2][0], scrollY: await page.evaluate(() => scrollY) };
  await page.mouse.wheel(0, -120);
  await page.waitForFunction((x) => H.els()[0].config.embeddings[2][0] !== x, down.x);
  await page.evaluate(() => H.frames(3));
  await page.keyboard.up('Alt');
  const up = { x: (await config(page)).embeddings[2][0], scrollY: await page.evaluate(() => scrollY) };

  assert.equal(down.scrollY, 0, 'Alt+wheel over a cell does not scroll the page');
  assert.equal(down.x, x0 - 1, 'Alt+wheel down steps the value down by one step (1 in an integer matrix)');
  assert.equal(up.x, x0, 'Alt+wheel up steps it back');
  assert.equal(up.scrollY, 0);
  assert.equal(await page.locator(sel).inputValue(), String(x0));
  assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'cell embeddings:2:0' }, 'the cell keeps the focus');

  // Without Alt the wheel is the page's: it scrolls.
  await page.mouse.wheel(0, 120);
  await page.waitForFunction(() => scrollY > 0);
  assert.equal((await config(page)).embeddings[2][0], x0, 'a plain wheel is not an edit');
  await done(page);
});

// ---- 2. focus across rebuilds ---------------------------------------------------------------

test('toolbar buttons keep the focus after they rebuild the figure (keyboard and mouse); Enter twice on + token adds two', async () => {
  const page = await load();
  const onButton = (action) => ({ doc: 'attention-viz 0', shadow: `action ${action}` });
  const tokens = async () => (await config(page)).tokens.length;
  const dims = async () => (await config(page)).embeddings[0].length;
  const c0 = await config(page);

  // To + token the way a keyboard gets there: from the seed field, past the distribution, high and Randomize.
  await page.locator(first('[data-control="seed"]')).click();
  for (let k = 0; k < 4; k++) await page.keyboard.press('Tab');
  assert.deepEqual(await focusOf(page), onButton('add-token'));
  await page.keyboard.press('Enter');
  assert.equal(await tokens(), 5);
  assert.deepEqual(await focusOf(page), onButton('add-token'), 'focus stays on + token after Enter');
  await page.keyboard.press('Enter');
  assert.equal(await tokens(), 6, 'a second Enter adds a second token');
  assert.deepEqual(await focusOf(page), onButton('add-token'));

  await page.keyboard.press('Tab'); // to − token, as Tab goes
  assert.deepEqual(await focusOf(page), onButton('remove-token'));
  await page.keyboard.press('Enter');
  assert.equal(await tokens(), 5);
  assert.deepEqual(await focusOf(page), onButton('remove-token'), 'focus stays on − token');
  await page.keyboard.press('Space');
  assert.equal(await tokens(), 4, 'Space works the same');
  assert.deepEqual(await focusOf(page), onButton('remove-token'));

  // The mouse: a clicked button has the focus, and keeps it.
  await page.locator(first('button[data-action="add-dim"]')).click();
  assert.equal(await dims(), 4);
  assert.deepEqual(await focusOf(page), onButton('add-dim'), 'focus stays on + dim after a click');
  await page.locator(first('button[data-action="remove-dim"]')).click();
  assert.equal(await dims(), 3);
  assert.deepEqual(await focusOf(page), onButton('remove-dim'), 'focus stays on − dim after a click');
  await page.keyboard.press('Enter');
  assert.equal(await dims(), 2, 'and the keyboard carries on from there');
  assert.deepEqual(await focusOf(page), onButton('remove-dim'));

  const w0 = (await config(page)).w_q;
  await page.locator(first('[data-control="seed"]')).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('7'); // seed 42 would draw the weights seed-000 already has
  await page.keyboard.press('Tab'); // the distribution
  await page.keyboard.press('Tab'); // high
  await page.keyboard.press('Tab'); // Randomize
  assert.deepEqual(await focusOf(page), onButton('randomize'));
  await page.keyboard.press('Enter');
  assert.notDeepEqual((await config(page)).w_q, w0, 'Randomize drew new weights');
  assert.deepEqual(await focusOf(page), onButton('randomize'), 'focus stays on Randomize');

  await page.keyboard.press('Shift+Tab'); // back to the seed field, through the rebuilt toolbar
  assert.equal((await focusOf(page)).shadow?.startsWith('control '), true, `Shift+Tab from Randomize reaches a control (${JSON.stringify(await focusOf(page))})`);

  await page.locator(first('button[data-action="reset"]')).click();
  assert.deepEqual(await config(page), c0, 'Reset restores the document');
  assert.deepEqual(await focusOf(page), onButton('reset'), 'focus stays on Reset after a click');
  await page.keyboard.press('Enter');
  assert.deepEqual(await focusOf(page), onButton('reset'), 'and after Enter');
  await done(page);
});

test('on a touch screen (390 px): a tapped + token or − token keeps the focus, and the next tap works', async () => {
  const page = await site.browser.newPage({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(`${site.url}tests/fixtures/two-elements.html`);
  await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => e.trace && e.shadowRoot.querySelector('canvas[data-view]')));
  await page.evaluate(pageHelpers);
  await page.evaluate(installHelpers);
  const tap = async (sel) => { const at = await center(page, sel); await page.touchscreen.tap(at.x, at.y); };
  await tap(first('button[data-action="add-token"]'));
  assert.equal((await config(page)).tokens.length, 5);
  assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'action add-token' });
  await tap(first('button[data-action="add-token"]'));
  assert.equal((await config(page)).tokens.length, 6, 'a second tap adds a second token');
  assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'action add-token' });
  await tap(first('button[data-action="remove-token"]'));
  assert.equal((await config(page)).tokens.length, 5);
  assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'action remove-token' });
  await done(page);
});

test('renaming a token keeps the focus: Enter stays in the name, Tab goes on to the next field', async () => {
  const page = await load();
  const token = (i) => page.locator(first(`input.token[data-token="${i}"]`));
  await token(1).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('cat');
  await page.keyboard.press('Enter');
  assert.equal((await config(page)).tokens[1], 'cat', 'Enter renames');
  assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'token 1' }, 'focus stays in the name after Enter');
  await page.keyboard.type('s');
  await page.keyboard.press('Enter');
  assert.equal((await config(page)).tokens[1], 'cats', 'typing carries on in the same field');

  await token(2).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('dog');
  await page.keyboard.press('Tab');
  assert.equal((await config(page)).tokens[2], 'dog', 'Tab renames');
  assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'cell embeddings:2:0' }, 'Tab goes to the next field, the first cell of the row');
  await page.keyboard.type('7');
  assert.equal((await config(page)).embeddings[2][0], 7, 'and typing there edits that cell');
  assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'cell embeddings:2:0' });

  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('bird');
  await page.keyboard.press('Shift+Tab');
  assert.equal((await config(page)).tokens[2], 'bird', 'Shift+Tab renames');
  assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'cell embeddings:1:2' }, 'Shift+Tab goes to the field before');
  await done(page);
});

// ---- 3. paste ----------------------------------------------------------------------------------

const PASTE_2x2 = {
  'a one-line Python list': '[[1, 2], [3, 4]]',
  'a multi-line Python list': '[[1, 2],\n [3, 4]]',
  "NumPy's repr": 'array([[1., 2.],\n       [3., 4.]])',
  "NumPy's repr with a dtype": 'array([[1., 2.],\n       [3., 4.]], dtype=float32)',
  "PyTorch's repr": 'tensor([[1., 2.], [3., 4.]])',
  "PyTorch's repr with dtype, device and requires_grad": "tensor([[1., 2.],\n        [3., 4.]], dtype=torch.float64, device='cuda:0', requires_grad=True)",
  "NumPy's print form": '[[1. 2.]\n [3. 4.]]',
  'tab-separated rows (a spreadsheet)': '1\t2\n3\t4\n',
  'comma-separated rows': '1,2\r\n3,4',
};

/** A page whose clipboard the test may write (headless Chromium has a clipboard of its own). */
async function clipboardPage() {
  const page = await load();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url.replace(/\/$/, '') });
  return page;
}

/** Real paste: the text on the clipboard, then Control+V in the focused cell. */
async function paste(page, sel, text) {
  await page.locator(sel).click();
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.keyboard.press('Control+V');
}

test('paste Python, NumPy and PyTorch matrices and spreadsheet rows: a 2 × 2 block from the cell; the focus stays in it', async () => {
  const page = await clipboardPage();
  const w0 = (await config(page)).w_q;
  for (const [name, text] of Object.entries(PASTE_2x2)) {
    await page.locator(first('button[data-action="reset"]')).click();
    await page.evaluate(() => H.record(H.els()[0]));
    await paste(page, first(cellSel('w_q', 1, 1)), text);
    const r = await page.evaluate(() => {
      const [el] = H.els();
      return { w_q: el.config.w_q, shown: [1, 2].map((i) => [1, 2].map((j) => H.cell(el, 'w_q', i, j).value)), log: { ...T.log(el) }, msg: H.msg(el, 'w_q').textContent };
    });
    const want = w0.map((row) => [...row]);
    want[1][1] = 1; want[1][2] = 2; want[2][1] = 3; want[2][2] = 4;
    assert.deepEqual(r.w_q, want, `${name}: W_Q[1:3, 1:3] = [[1, 2], [3, 4]], the rest unchanged (${JSON.stringify(r.log.errors)})`);
    assert.deepEqual(r.shown, [['1', '2'], ['3', '4']], `${name}: the cells show the pasted values`);
    assert.equal(r.log.change, 1, `${name}: one \`change\``);
    assert.deepEqual(r.log.errors, [], `${name}: no error`);
    assert.equal(r.msg, '', `${name}: no message`);
    assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'cell w_q:1:1' }, `${name}: the focus stays in the cell pasted into`);
  }
  await done(page);
});

test('a paste that fails shows why, changes nothing and does not mark the (valid) cell invalid', async () => {
  const page = await clipboardPage();
  const c0 = await config(page);
  for (const [text, pattern] of [
    ['[[1, 2], [3, abc]]', /row 1, column 1/],
    ['array([[1., 2., 3., 4.]])', /does not fit/],
    ['[[[1, 2]], [[3, 4]]]', /3-D|2-D/],
  ]) {
    await paste(page, first(cellSel('w_q', 1, 1)), text);
    const r = await page.evaluate(() => {
      const [el] = H.els();
      const cell = H.cell(el, 'w_q', 1, 1);
      return {
        config: el.config, value: cell.value, invalid: cell.getAttribute('aria-invalid'), marked: el.shadowRoot.querySelectorAll('[aria-invalid="true"]').length,
        msg: H.msg(el, 'w_q').textContent, log: { ...T.log(el) },
      };
    });
    assert.deepEqual(r.config, c0, `${text}: nothing applied`);
    assert.equal(r.value, String(c0.w_q[1][1]), `${text}: the cell keeps its value`);
    assert.equal(r.invalid, null, `${text}: the cell is not marked invalid (its value is valid)`);
    assert.equal(r.marked, 0, `${text}: no cell is marked`);
    assert.match(r.msg, pattern, `${text}: the message says why`);
    assert.equal(r.log.change, 0);
    assert.equal(r.log.errors.length, 1, `${text}: one \`error\``);
    assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'cell w_q:1:1' }, `${text}: the focus stays in the cell`);
    await page.evaluate(() => H.record(H.els()[0]));
  }
  // The next edit clears the message.
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2');
  const after = await page.evaluate(() => ({ msg: H.msg(H.els()[0], 'w_q').textContent, x: H.els()[0].config.w_q[1][1] }));
  assert.deepEqual(after, { msg: '', x: 2 });
  await done(page);
});

test('parseBlock (www/element/cells.js) reads Python, NumPy, PyTorch and spreadsheet text; says why it cannot', async () => {
  const page = await site.page('tests/fixtures/blank.html');
  const r = await page.evaluate(async ([ok, bad]) => {
    // The core reads each number's text (a cell's words are its): cells exist once it is ready.
    await (await import('/www/attention-viz.js')).ready;
    const { parseBlock } = await import('/www/element/cells.js');
    return { ok: ok.map(([t]) => parseBlock(t)), bad: bad.map(([t]) => parseBlock(t)) };
  }, [OK_BLOCKS, BAD_BLOCKS]);
  OK_BLOCKS.forEach(([text, want], k) => assert.deepEqual(r.ok[k], { rows: want }, JSON.stringify(text)));
  BAD_BLOCKS.forEach(([text, pattern], k) => {
    assert.equal(r.bad[k].rows, undefined, `${JSON.stringify(text)} is refused`);
    assert.match(r.bad[k].error ?? '', pattern, JSON.stringify(text));
  });
  await done(page);
});

const OK_BLOCKS = [
  ...Object.values(PASTE_2x2).map((t) => [t, [[1, 2], [3, 4]]]),
  ['[1, 2, 3]', [[1, 2, 3]]],
  ['1 2 3', [[1, 2, 3]]],
  ['[[5]]', [[5]]],
  ['np.array([[1, -2e-3]])', [[1, -0.002]]],
  ['array([1.5, \u22122.5])', [[1.5, -2.5]]],
  ['tensor([[ 0.1000, -0.2000]], grad_fn=<AddBackward0>)', [[0.1, -0.2]]],
  ['[1, 2]\n[3, 4]', [[1, 2], [3, 4]]],
  ['[[0.1 0.2 0.3\n  0.4]\n [0.5 0.6 0.7\n  0.8]]', [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]],
  ['1 2\n\n3 4\n', [[1, 2], [3, 4]]],
  ['array([[1, 2],\n       [3, 4]], dtype=int64)', [[1, 2], [3, 4]]],
];

const BAD_BLOCKS = [
  ['', /no numbers/],
  [',,,\t\n', /no numbers/],
  ['[[ ]] [ ]', /no numbers/],
  ['[[1, 2], [3, abc]]', /row 1, column 1.*abc/],
  ['1 NaN\nInfinity 2', /row 0, column 1.*NaN/],
  ['[[1, 2]', /bracket/],
  ['[1, 2]]', /bracket/],
  ['[[[1]]]', /3-D/],
  ['[[1, [2]], [3, 4]]', /nested|mix/],
  ['array([[1, ..., 9]])', /summari[sz]ed|\.\.\./],
  ['print(x)', /not a number/],
  ['array([[1, 2]]) + 1', /not a number|after/],
];

// ---- 4. no layout jump -------------------------------------------------------------------------

test('an invalid value typed into a cell does not move the heatmaps (the message has its space)', async () => {
  for (const width of [1280, 390]) {
    const page = await load('tests/fixtures/two-elements.html', { viewport: { width, height: 900 } });
    const box = () => page.locator(first('canvas[data-view] >> nth=0')).boundingBox();
    const b0 = await box();
    await page.locator(first(cellSel('embeddings', 1, 1))).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('abc');
    const msg = await page.evaluate(() => H.msg(H.els()[0], 'embeddings').textContent);
    assert.match(msg, /not a number/, `${width} px: the message shows`);
    const b1 = await box();
    assert.deepEqual({ x: b1.x, y: b1.y }, { x: b0.x, y: b0.y }, `${width} px: the first heatmap stays where it was`);
    assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'cell embeddings:1:1' });
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    const b2 = await box();
    assert.deepEqual({ x: b2.x, y: b2.y }, { x: b0.x, y: b0.y }, `${width} px: and stays when the message goes`);
    await done(page);
  }
});

// ---- 5. whole values in cells ------------------------------------------------------------------

test('cells show their whole value (nothing scrolled out of view) at 1280 and 390 px; the title has it too', async () => {
  for (const width of [1280, 390]) {
    const page = await load('tests/fixtures/two-elements.html', { viewport: { width, height: 900 } });
    await page.evaluate(() => { H.els()[0].config = { embeddings: [[0.23407153, -0.00089, 1], [2, -0.5, 1e-7], [12345.678, 3, 0]] }; });
    const cells = () => page.evaluate(() => [...H.els()[0].shadowRoot.querySelectorAll('input.cell')].map((c) => ({
      value: c.value, title: c.title, hidden: c.scrollWidth > c.clientWidth, scrollWidth: c.scrollWidth, clientWidth: c.clientWidth,
    })));
    const shown = await cells();
    const want = ['0.23407153', '-0.00089', '1', '2', '-0.5', '1e-7', '12345.678', '3', '0'];
    assert.deepEqual(shown.map((c) => c.value), want);
    for (const c of shown) {
      assert.ok(!c.hidden, `${width} px: "${c.value}" fits its cell (scrollWidth ${c.scrollWidth} ≤ clientWidth ${c.clientWidth})`);
      assert.equal(c.title, c.value, `${width} px: the title holds the whole value`);
    }
    // A longer value typed in: the cell shows it whole once it is applied, and its title follows.
    await page.locator(first(cellSel('embeddings', 1, 1))).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('-0.123456789012');
    assert.deepEqual(await focusOf(page), { doc: 'attention-viz 0', shadow: 'cell embeddings:1:1' });
    const typed = (await cells())[4];
    assert.equal(typed.value, '-0.123456789012');
    assert.ok(!typed.hidden, `${width} px: a typed value fits (${typed.scrollWidth} ≤ ${typed.clientWidth})`);
    assert.equal(typed.title, '-0.123456789012');
    await done(page);
  }
});

test('a read-only figure (editable="false") builds no input cells; made editable, its grids are built and take typing', async () => {
  const page = await site.page('tests/fixtures/blank.html');
  await page.evaluate(async () => {
    window.av = await import('/www/attention-viz.js');
    await av.ready;
    const rs = new av.RandomState(0);
    const config = { embeddings: rs.randn(64, 32), w_q: rs.randn(32, 32), w_k: rs.randn(32, 32), w_v: rs.randn(32, 32) };
    for (const [id, editable] of [['ro', 'false'], ['rw', 'true']]) {
      const el = document.createElement('attention-viz');
      el.id = id;
      el.setAttribute('editable', editable);
      el.config = config;
      document.body.append(el);
    }
  });
  // Every <input> but the importer's one hidden file chooser (made once, with the element).
  const inputs = (id) => page.evaluate((id) => document.getElementById(id).shadowRoot.querySelectorAll('input:not([type="file"])').length, id);
  await page.waitForFunction(() => ['ro', 'rw'].every((id) => document.getElementById(id).trace));
  assert.equal(await inputs('ro'), 0, 'editable="false": not one <input> in the shadow root (hidden ones cost layout too)');
  assert.equal(await page.evaluate(() => document.getElementById('ro').shadowRoot.querySelectorAll('input').length), 1);
  assert.ok(await inputs('rw') > 1000, 'the editable twin builds its windows of cells (4 grids of 16 × 16 and the token names)');
  // Made editable, the grids are built; typing in a cell edits the figure.
  await page.evaluate(() => document.getElementById('ro').setAttribute('editable', 'true'));
  assert.equal(await inputs('ro'), await inputs('rw'));
  const cell = page.locator('#ro').locator('input.cell[data-matrix="w_q"][data-row="0"][data-col="0"]');
  await cell.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.getElementById('ro').config.w_q[0][0]), 2);
  // Read-only again: the cells go.
  await page.evaluate(() => document.getElementById('ro').setAttribute('editable', 'false'));
  assert.equal(await inputs('ro'), 0);
  await done(page);
});
