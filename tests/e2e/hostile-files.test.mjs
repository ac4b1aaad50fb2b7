// Hostile files, pastes and typing against the array readers (www/arrays.js, www/element/cells.js) and the ways a
// reader brings them in (Import…, paste, typing into a cell). The files are written byte by byte here (a
// .npy's preamble and header, a zip's local headers, directory and end record; zlib deflates), so nothing is fetched
// or generated elsewhere. parseArray is pure: most cases run in Node, with the core's wasm loaded for its text rule
// and value limit; one browser page then does what a person does. Nothing timed is asserted: `make bench`
// (bench/hostile.mjs) reports how long each case keeps the main thread.
//
// What a message quotes is written out here from the rule (src/text.rs `cut`: at most 40 characters, Unicode scalar
// values, the 40th of a longer text being "…"), never asked of the code that makes the message: a reader, a cell
// and the core all cut by the same function, so comparing one with another would pass whatever the rule became.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { open, done, pageHelpers } from './harness.mjs';
import { npy, zip, zeroMember, f64 } from './hostile-bytes.mjs';
import { parseArray, parseArrays, cut, MAX_VALUES, MAX_EMPTY_LISTS, MAX_NPZ_BYTES, loadInflate } from '../../www/arrays.js';
import { parseCell, parseBlock, MAX_PASTE } from '../../www/element/cells.js';
import * as core from '../../www/pkg/attention_viz.js';

// Compressed .npz members need fflate, which www/arrays.js loads on first use (`ready` loads it in a page).
await loadInflate();

core.initSync({ module: readFileSync(new URL('../../www/pkg/attention_viz_bg.wasm', import.meta.url)) });

// ---- what a refusal must be ------------------------------------------------------------------------------------

/** Words of the engine's own errors, which no reader should see. */
const RAW = /Cannot read propert|is not a function|is not defined|Invalid array length|Maximum call stack|out of bounds|undefined|\bnull \(/;

/** What `read()` threw: it must be a plain Error (not a TypeError or RangeError) whose message a reader can read. */
function refusal(read, label) {
  let error = null;
  try {
    read();
  } catch (e) {
    error = e;
  }
  assert.ok(error, `${label}: refused`);
  assert.equal(error.constructor, Error, `${label}: an Error, not a ${error?.constructor?.name}: ${error?.message}`);
  assert.doesNotMatch(error.message, RAW, `${label}: “${error.message}” is the engine's, not a reader's`);
  assert.ok(error.message.length <= 400, `${label}: a message of ${error.message.length} characters`);
  return error.message;
}

// ---- Node: the readers -----------------------------------------------------------------------------------------

test('a .npy whose shape holds a 0 is refused from its header when it needs more than 2^20 empty lists; small empty shapes still read', () => {
  const bomb = npy('<f8', [...Array(63).fill(2), 0]);
  assert.ok(bomb.length <= 256, `a ${bomb.length}-byte file`);
  assert.match(refusal(() => parseArray(bomb), '(2,)*63 + (0,)'),
    /^the \.npy header's shape \(byte 10\) \(2, 2, 2, …, 2, 0\) \(64 axes\) is an empty array of 9\.2e\+18 empty lists; parseArray builds at most 1,048,576 \(2\^20\)$/);
  assert.match(refusal(() => parseArray(npy('<f8', [...Array(22).fill(2), 0])), '(2,)*22 + (0,)'), /an empty array of 4,194,304 empty lists/);
  assert.match(refusal(() => parseArray(npy('<f8', [10000000, 0])), '(10000000, 0)'), /\(10000000, 0\) is an empty array of 10,000,000 empty lists/);
  assert.match(refusal(() => parseArray(npy('<f8', [2 ** 32, 0])), '(2**32, 0)'), /4,294,967,296 empty lists/);
  assert.match(refusal(() => parseArrays(zip([{ name: 'e.npy', bytes: npy('|b1', [10000000, 0]) }])), '.npz member'), /^e\.npy in the \.npz archive: .*10,000,000 empty lists/);
  assert.equal(MAX_EMPTY_LISTS, 2 ** 20);
  // What builds no more lists than that reads as before, as np.load gives it (.tolist()).
  assert.deepEqual(parseArray(npy('<f8', [3, 0])), [[], [], []]);
  assert.deepEqual(parseArray(npy('<f8', [0, 2 ** 32])), []);
  assert.deepEqual(parseArray(npy('<i4', [2, 0, 4])), [[], []]);
  assert.equal(parseArray(npy('<f8', [1024, 0])).length, 1024);
  // A shape of more values than a figure takes is refused before the data is looked for.
  assert.match(refusal(() => parseArray(npy('<f8', [2 ** 40])), '(2**40,)'),
    /^the \.npy header's shape \(byte 10\) \(1099511627776,\) holds 1,099,511,627,776 values; parseArray reads at most 8,388,608, the most a figure takes$/);
  assert.match(refusal(() => parseArray('array([], shape=(99999999, 99999999, 0))'), 'text'), /1\.0e\+16 empty lists.*\(line 1:7\)$/);
});

test('.npz zip bombs are refused by what they declare before they are inflated; honest archives still read', () => {
  // 49 KB holding one |u1 member of 50 M zeros: the directory's size passes, its header (inflated first) does not.
  const bomb = zip([zeroMember(50_000_000)]);
  assert.ok(bomb.length < 60_000, `${bomb.length} bytes`);
  assert.equal(inflateRawSync(zeroMember(3_000_000).body).length, npy('|u1', [3_000_000]).length + 3_000_000, 'the stream is what it says');
  assert.match(refusal(() => parseArrays(bomb), '50 M zeros'),
    /^a\.npy in the \.npz archive: the \.npy header's shape \(byte 10\) \(50000000,\) holds 50,000,000 values; parseArray reads at most 8,388,608/);
  // The same stream declaring 200 MB (a 195 KB file once said "Invalid array length"): refused by the directory alone.
  const big = zip([{ ...zeroMember(50_000_000), declared: 200_000_128 }]);
  assert.match(refusal(() => parseArrays(big), '200 MB declared'),
    /^the \.npz archive's member unpacks to 200,000,128 bytes; parseArrays unpacks at most 68,157,440 \(2\^23 float64 values, the most a figure takes, and their headers\)$/);
  assert.equal(MAX_NPZ_BYTES, 68_157_440);
  const two = zip([{ ...zeroMember(10), name: 'a.npy', declared: 40_000_000 }, { ...zeroMember(10), name: 'b.npy', declared: 40_000_000 }]);
  assert.match(refusal(() => parseArrays(two), 'two members'), /^the \.npz archive's 2 members unpack to 80,000,000 bytes/);
  // A member that declares 1,000 bytes (and a header that fits them) but inflates to 50 MB stops at its declared size.
  const liar = zip([{ ...zeroMember(50_000_000), declared: 1000 }]);
  assert.match(refusal(() => parseArrays(liar), 'a liar'), /^a\.npy in the \.npz archive: the \.npy header's shape .* holds 50,000,000 values/);
  const small = zip([{ ...zeroMember(50_000_000, 1000, [800]) }]);
  assert.match(refusal(() => parseArrays(small), 'a liar with an honest header'),
    /^a\.npy in the \.npz archive: damaged: it inflates to more than the 1,000 bytes its directory entry declares$/);
  // Honest archives, deflated and stored, read as written.
  const members = [{ name: 'x.npy', bytes: npy('<f8', [2, 2], f64([1, 2, 3, 4])) }, { name: 'y.npy', bytes: npy('<i4', [3], new Uint8Array([1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0])) }];
  for (const deflate of [true, false]) assert.deepEqual(parseArrays(zip(members, { deflate })), { x: [[1, 2], [3, 4]], y: [1, 2, 3] });
  const wide = parseArrays(zip([{ name: 'w.npy', bytes: npy('<f8', [100, 300], f64(Array.from({ length: 30000 }, (_, i) => i / 7))) }]));
  assert.equal(wide.w[99][299], 29999 / 7, 'a member of 240 KB, inflated in slices');
});

test('long digit runs and deep nesting are read in one pass and refused with short messages, the token cut by the core\'s rule', () => {
  const run = '1'.repeat(100_000);
  const shown = `“${'1'.repeat(39)}…”`; // the first 39 characters and "…": 40 in all
  for (const [label, text] of [['a run and x', `${run}x`], ['in a list', `[${run}x]`], ['a CSV row', `1,${run}x`], ['a repr', `array([${run}x])`],
    ['a tensor', `tensor([[${run}x]])`], ['ending in j', `[${run}xj]`], ['rows', `1 2\n3 ${run}x`]]) {
    const message = refusal(() => parseArray(text), label);
    assert.ok(message.includes(`${shown} is not a number`), `${label}: ${message}`);
  }
  assert.match(refusal(() => parseArray(`array([1]${' '.repeat(100_000)}x`), 'spaces before x'), /expected “\)” closing “array\(”, found “x” \(line 1:100010\)/);
  // 20,000 nested calls once exhausted the stack.
  const calls = `${'np.array('.repeat(20_000)}1${')'.repeat(20_000)}`;
  assert.match(refusal(() => parseArray(`[${calls}]`), 'nested calls in a list'), /^index 0 \(line 1:2\): “np\.array\(np\.array\(.*…” nests more than 8 calls around a number$/);
  refusal(() => parseArray(calls), 'nested calls');
  assert.match(refusal(() => parseArray(`${'['.repeat(20_000)}1${']'.repeat(20_000)}`), 'nested lists'), /nested more than 64 deep/);
  assert.match(refusal(() => parseArrays(`{"a": [${calls}]}`), 'in an object'), /^“a”: index 0/);
  // What a repr writes still reads: one call around a number, a float32 rounding inside a float64.
  assert.deepEqual(parseArray('[np.float64(1.5), np.float64(np.float32(0.1)), tensor(2.)]'), [1.5, Math.fround(0.1), 2]);
  assert.deepEqual(parseArray(`[${'1'.repeat(400)}]`), [Number('1'.repeat(400))]);
});

test('every refusal is an Error a reader understands: a unit on a float dtype, a space-separated row before a tab-separated one', () => {
  assert.equal(refusal(() => parseArray(npy('<f8[s]', [1], f64([1]))), "'<f8[s]'"), "the dtype '<f8[s]' is not one parseArray reads (float, int, uint or bool)");
  assert.match(refusal(() => parseArray(npy('<M8[s]', [1], f64([1]))), "'<M8[s]'"), /^datetime64 arrays are not supported/);
  assert.equal(refusal(() => parseArray('1 x\n3\t4'), 'spaces then a tab'), 'row 0, column 1 (line 1:3): “x” is not a number');
  assert.deepEqual(parseArray('1 2\n3\t4'), [[1, 2], [3, 4]], 'the first row\'s separator, spaces, reads the second row too');
  assert.match(refusal(() => parseArray(npy('<f8', [2 ** 33])), 'a huge shape'), /holds 8,589,934,592 values/);
  assert.match(refusal(() => parseArray(`array([], shape=(${Array(70).fill(1).join(', ')}, 0))`), '70 axes'), /more than 64 axes/);
  assert.match(refusal(() => parseArray(npy(`<f${'8'.repeat(200)}`, [1])), 'a long descr'), /^the dtype '<f8{37}…' is not one/);
});

test('the readers quote input by the core\'s rule (text::cut) and stop at its value limit (weights::MAX_VALUES)', () => {
  // Up to 40 characters are kept whole; a longer text keeps 39 and ends in "…". Characters are Unicode scalar values
  // (an emoji is one, as Rust counts it, not two UTF-16 units).
  const cases = [
    ['', ''], ['x', 'x'], ['x'.repeat(40), 'x'.repeat(40)], ['x'.repeat(41), `${'x'.repeat(39)}…`],
    ['😀'.repeat(40), '😀'.repeat(40)], ['😀'.repeat(41), `${'😀'.repeat(39)}…`],
    [`${'é'.repeat(39)}😀😀`, `${'é'.repeat(39)}…`], [`${'é'.repeat(39)}😀`, `${'é'.repeat(39)}😀`], ['1'.repeat(100_000), `${'1'.repeat(39)}…`],
  ];
  for (const [s, want] of cases) {
    assert.equal(cut(s), want, `the readers' cut of ${JSON.stringify(s.slice(0, 50))}`);
    assert.equal(core.call({ kind: 'text', cut: s }), want, `the core's cut of ${JSON.stringify(s.slice(0, 50))}`);
  }
  // 2^23 values: the most a figure takes (README; the readers' own messages say "at most 8,388,608").
  assert.equal(MAX_VALUES, 2 ** 23);
  assert.equal(core.call({ kind: 'facts' }).max_values, 2 ** 23);
  // A cell: a 100,000-digit number once gave a 100,115-character message.
  const digits = '9'.repeat(100_000);
  const nines = `${'9'.repeat(39)}…`;
  assert.equal(parseCell(digits).error, `${nines} is too large for float64 (the largest is about 1.8e308)`);
  assert.equal(parseCell(`${digits}x`).error, `“${nines}” is not a number`);
  assert.equal(parseCell(`${'9'.repeat(39)}x`).error, `“${'9'.repeat(39)}x” is not a number`, '40 characters are quoted whole');
  assert.equal(parseCell(`  ${'1'.repeat(300)}.5e-300 `).value, Number(`${'1'.repeat(300)}.5e-300`));
  // A paste over the limit is refused with it, before it is read.
  assert.equal(MAX_PASTE, 1_000_000);
  assert.equal(parseBlock('1\t'.repeat(600_000)).error,
    'the pasted text is 1,200,000 characters long; a paste of at most 1,000,000 is read. Import a larger array from a file (Import…)');
  assert.equal(parseBlock('1\t2\n'.repeat(20_000)).rows.length, 20_000);
});

/** mulberry32: the fuzz's cases are the same on every run. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

test('fuzz: 300 hostile inputs (empty-dimension shapes, zip bombs, long digit runs, deep nesting) each read or refused with a readable Error', () => {
  const r = random(27);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const SIZES = [0, 0, 1, 2, 3, 7, 1000, 10_000_000, 2 ** 32, 2 ** 53];
  const DESCRS = ['<f8', '>f4', '|u1', '|b1', '<i8', '<f8[s]', '<c16', '|O', '<U3', 'f', '<f', '<M8[ns]', '<f8[', '', "'", `<f${'9'.repeat(30)}`];
  const shape = () => Array.from({ length: 1 + Math.floor(r() * (r() < 0.2 ? 70 : 6)) }, () => pick(SIZES));
  const cases = [];
  for (let k = 0; k < 300; k++) {
    const kind = k % 5;
    if (kind === 0) {
      const s = shape();
      const descr = pick(DESCRS);
      const data = new Uint8Array(Math.floor(r() * 64));
      cases.push([`npy ${descr} (${s.slice(0, 6)}${s.length > 6 ? ',…' : ''})`, () => parseArray(npy(descr, s.slice(0, 64), data))]);
    } else if (kind === 1) {
      const n = pick([10, 1000, 100_000, 9_000_000]);
      const declared = pick([undefined, 0, 5, 1000, 2 ** 31, 0xfffffffe]);
      const members = [{ ...zeroMember(n, declared), name: pick(['a.npy', 'b', 'dir/', 'c.npy']) }];
      const z = zip(members);
      const cutAt = r() < 0.2 ? Math.floor(r() * z.length) : z.length;
      cases.push([`npz ${n} zeros declared ${declared} cut at ${cutAt}`, () => parseArrays(z.subarray(0, cutAt))]);
    } else if (kind === 2) {
      const digits = '7'.repeat(1 + Math.floor(r() * 100_000));
      const tail = pick(['x', 'j', '.', 'e', 'e+', ')', ']', '', ' ', '\n1', '+1j', '.5e-3']);
      const wrap = pick([(t) => t, (t) => `[${t}]`, (t) => `array([${t}])`, (t) => `1,${t}`, (t) => `{"a": [${t}]}`]);
      const text = wrap(digits + tail);
      cases.push([`digits ${digits.length} + ${JSON.stringify(tail)}`, () => (text.startsWith('{') ? parseArrays(text) : parseArray(text))]);
      cases.push([`cell ${digits.length} + ${JSON.stringify(tail)}`, () => { const c = parseCell(digits + tail); if (c.error) throw new Error(c.error); }]);
    } else if (kind === 3) {
      const depth = Math.floor(r() * 30_000);
      const open_ = pick(['[', 'np.array(', 'tensor(', 'np.float64(', '(', '{"a": ']);
      const close = { '[': ']', '{"a": ': '}' }[open_] ?? ')';
      const text = `${pick(['', '['])}${open_.repeat(depth)}1${close.repeat(depth)}`;
      cases.push([`nesting ${depth} × ${open_}`, () => parseArray(text)]);
    } else {
      const text = pick([`array([], shape=(${shape().join(', ')}))`, `tensor([], size=(${shape().join(', ')}))`,
        `${pick(['1', 'x', '1.5'])} ${pick(['x', '2'])}\n${pick(['3\t4', '3,4', '3;4', '3 4'])}`, '\u0000\u0001', '\ufeff[1]']);
      cases.push([`text ${JSON.stringify(text).slice(0, 60)}`, () => parseArray(text)]);
    }
  }
  let refused = 0;
  for (const [label, read] of cases) {
    try {
      read();
    } catch {
      refusal(read, label);
      refused++;
    }
  }
  assert.ok(refused > 100 && refused < cases.length, `${refused} of ${cases.length} refused: the fuzz reaches both outcomes`);
});

// ---- the browser: what a person does ----------------------------------------------------------------------------

let site;
let page;
before(async () => {
  site = await open();
  page = await site.page('tests/fixtures/two-elements.html');
  await page.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => e.trace));
  await page.evaluate(pageHelpers);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url.replace(/\/$/, '') });
});
after(() => site?.close());

const cellAt = (m, r, c) => `attention-viz >> nth=0 >> input.cell[data-matrix="${m}"][data-row="${r}"][data-col="${c}"]`;

/** The first figure's inputs, its message lines, the import message, where the keyboard is and its events' log. */
const state = (m) => page.evaluate((name) => {
  const el = document.querySelector('attention-viz');
  const a = el.shadowRoot.activeElement;
  return {
    config: { embeddings: el.config.embeddings, w_q: el.config.w_q, tokens: el.config.tokens },
    msg: el.shadowRoot.querySelector(`fieldset[data-name="${name}"] .cell-msg`).textContent,
    imported: el.shadowRoot.querySelector('.import-msg')?.textContent ?? '',
    focus: document.activeElement === el && a ? `${a.localName === 'input' ? `${a.dataset.matrix}:${a.dataset.row}:${a.dataset.col}` : a.dataset.action}` : null,
    log: { ...T.log(el) },
  };
}, m);

test('in a cell: 100,000 digits typed or pasted say so in a short message; a 10 MB paste is refused with the limit; nothing is lost', async () => {
  await page.evaluate(() => T.record(document.querySelector('attention-viz')));
  const start = await state('w_q');
  const digits = '9'.repeat(100_000);
  // Typed (one insertion, as an input method or a dictation sends it) into W_Q[1][1].
  await page.locator(cellAt('w_q', 1, 1)).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(digits);
  let s = await state('w_q');
  const nines = `${'9'.repeat(39)}…`; // the 100,000 digits cut to 40 characters (text::cut)
  assert.equal(s.msg, `w_q[1][1]: ${nines} is too large for float64 (the largest is about 1.8e308). The figure shows the last valid values.`);
  assert.deepEqual([s.config, s.focus], [start.config, 'w_q:1:1'], 'the figure keeps its values, the keyboard stays in the cell');
  assert.equal(await page.locator(cellAt('w_q', 1, 1)).inputValue(), digits, 'the cell keeps what was typed');
  // …and scrolls it: the cell once grew 890,000 px wide, pushing the rest of W_Q out of reach.
  const box = await page.locator(cellAt('w_q', 1, 1)).boundingBox();
  const row = await page.locator(cellAt('w_q', 1, 2)).boundingBox();
  assert.ok(box.width < 400 && row.x + row.width < 1280, `the cell is ${box.width} px wide; W_Q[1][2] ends at ${row.x + row.width} px`);
  // Pasted with the real clipboard into W_Q[0][0]: one token, which the browser types in.
  await page.locator(cellAt('w_q', 0, 0)).click();
  await page.evaluate((t) => navigator.clipboard.writeText(t), `${digits}x`);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  s = await state('w_q');
  assert.equal(s.msg, `w_q[0][0]: “${nines}” is not a number. The figure shows the last valid values.`);
  assert.deepEqual([s.config, s.focus], [start.config, 'w_q:0:0']);
  // Escape gives both cells their values back.
  await page.keyboard.press('Escape');
  await page.locator(cellAt('w_q', 1, 1)).click();
  await page.keyboard.press('Escape');
  assert.equal((await state('w_q')).msg, '');
  // 10 MB of numbers pasted into W_Q[2][0]: refused at once, with the limit, where the reader is looking.
  await page.evaluate(() => T.record(document.querySelector('attention-viz')));
  await page.locator(cellAt('w_q', 2, 0)).click();
  await page.evaluate(() => navigator.clipboard.writeText('0.5\t'.repeat(2_500_000)));
  await page.keyboard.press('Control+V');
  s = await state('w_q');
  assert.equal(s.msg, 'Paste at w_q[2][0]: the pasted text is 10,000,000 characters long; a paste of at most 1,000,000 is read. '
    + 'Import a larger array from a file (Import…); nothing was pasted.');
  assert.deepEqual([s.config, s.focus, s.log.change, s.log.errors.length], [start.config, 'w_q:2:0', 0, 1]);
  assert.equal(await page.locator(cellAt('w_q', 2, 0)).inputValue(), String(start.config.w_q[2][0]), 'the cell still holds its value');
});

test('Import…: an empty-dimension .npy, a zip bomb and a float dtype with a unit are refused beside the grid; nothing changes', async () => {
  const start = await state('embeddings');
  const button = page.locator('attention-viz >> nth=0 >> fieldset.matrix[data-name="embeddings"] >> button[data-action="import"]');
  const files = [
    ['empty.npy', npy('<f8', [...Array(63).fill(2), 0]), /^empty\.npy: the \.npy header's shape \(byte 10\) \(2, 2, 2, …, 2, 0\) \(64 axes\) is an empty array of 9\.2e\+18 empty lists; parseArray builds at most 1,048,576 \(2\^20\); nothing was imported$/],
    ['bomb.npz', zip([zeroMember(50_000_000)]), /^bomb\.npz: a\.npy in the \.npz archive: .*holds 50,000,000 values; parseArray reads at most 8,388,608, the most a figure takes; nothing was imported$/],
    ['unit.npy', npy('<f8[s]', [1], f64([1])), /^unit\.npy: the dtype '<f8\[s\]' is not one parseArray reads \(float, int, uint or bool\); nothing was imported$/],
    ['digits.txt', Buffer.from(`1 2\n3 ${'1'.repeat(30_000)}x\n`), /^digits\.txt: row 1, column 1 \(line 2:3\): “1{39}…” is not a number; nothing was imported$/],
  ];
  for (const [name, bytes, pattern] of files) {
    await page.evaluate(() => T.record(document.querySelector('attention-viz')));
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), button.click()]);
    await chooser.setFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    await page.waitForFunction((n) => document.querySelector('attention-viz').shadowRoot.querySelector('.import-msg')?.textContent.startsWith(n), name);
    const s = await state('embeddings');
    assert.match(s.imported, pattern, name);
    assert.deepEqual([s.config, s.log.change, s.log.errors.length], [start.config, 0, 1], `${name}: nothing changed, one error event`);
    assert.equal(s.focus, 'import', `${name}: the keyboard is on the Import… button`);
  }
  await done(page);
});
