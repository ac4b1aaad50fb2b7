// parseArray and parseArrays (www/arrays.js, exported by www/attention-viz.js) against the files and texts NumPy
// itself writes: tests/fixtures/arrays/, made by tests/goldens/gen_array_fixtures.py with expected.json holding the values
// NumPy holds (np.load, np.loadtxt, the arrays whose repr/str/JSON/savetxt the texts are). Every fixture is fetched
// in Chromium and read from its bytes (a Uint8Array view at an offset, and an ArrayBuffer) and, for texts, from the
// string; the same in Node. Values must be equal exactly (NaN to NaN, -0 to -0); refusals must name the dtype and
// malformed input must say where (a byte offset in a file, line:column in text). Then a paste of those texts into an
// input grid with the real clipboard, which reads through the same parser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, done, pageHelpers } from './harness.mjs';
import { parseArray, parseArrays, loadInflate } from '../../www/arrays.js';

const DIR = new URL('../fixtures/arrays/', import.meta.url);
const { files: EXPECTED } = JSON.parse(readFileSync(new URL('expected.json', DIR), 'utf8'));
const NAMES = Object.keys(EXPECTED);
const isText = (name) => !/\.(npy|npz)$/.test(name);

let site;
let page;
before(async () => {
  site = await open();
  page = await site.page('tests/fixtures/blank.html');
  // `ready`: the core, and the inflater a compressed .npz needs (loaded after the core, not with the page).
  await page.evaluate(async () => { window.av = await import('/www/attention-viz.js'); await window.av.ready; });
});
after(() => site.close());

/**
 * Reads every fixture with `fn(input)` from its bytes — a Uint8Array that is a view at offset 3 into a larger
 * buffer, and the ArrayBuffer itself — and, for a text, from the string: {name: {form: {value} | {error}}}.
 * Self-contained: it runs in the page (with fetch) and in Node (with readFileSync) alike.
 */
async function readAll(api, fixtures, load) {
  const out = {};
  for (const [name, fn, text] of fixtures) {
    const buffer = await load(name);
    const padded = new Uint8Array(buffer.byteLength + 7);
    padded.set(new Uint8Array(buffer), 3);
    const inputs = { view: padded.subarray(3, 3 + buffer.byteLength), buffer };
    if (text) inputs.text = new TextDecoder().decode(buffer);
    out[name] = {};
    for (const [form, input] of Object.entries(inputs)) {
      try {
        out[name][form] = { value: api[fn](input) };
      } catch (e) {
        out[name][form] = { error: e instanceof Error ? e.message : `threw a non-Error: ${String(e)}` };
      }
    }
  }
  return out;
}

const FIXTURES = NAMES.map((name) => [name, EXPECTED[name].fn, isText(name)]);

/** expected.json's encoding back to numbers: "nan", "inf", "-inf" → NaN, ±Infinity. */
function decode(v) {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x)]));
  return { nan: NaN, inf: Infinity, '-inf': -Infinity }[v] ?? v;
}

/** The first difference between got and want (exact: Object.is, so NaN equals NaN and -0 differs from 0), or null. */
function diff(got, want, path = '') {
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${path}: ${JSON.stringify(got)} is not an array`;
    if (got.length !== want.length) return `${path}: length ${got.length} ≠ ${want.length}`;
    for (let i = 0; i < want.length; i++) { const d = diff(got[i], want[i], `${path}[${i}]`); if (d) return d; }
    return null;
  }
  if (want && typeof want === 'object') {
    if (!got || typeof got !== 'object') return `${path}: not an object`;
    const [a, b] = [Object.keys(got).sort().join(), Object.keys(want).sort().join()];
    if (a !== b) return `${path}: names ${a} ≠ ${b}`;
    for (const k of Object.keys(want)) { const d = diff(got[k], want[k], `${path}.${k}`); if (d) return d; }
    return null;
  }
  return Object.is(got, want) ? null : `${path}: ${got} ≠ ${want}`;
}

// What each malformed fixture's message must say, beyond a position: the numbers are NumPy's own (its file's data
// starts at byte 128 = 10 + its 118-byte header; the magic string differs at byte 5).
const MESSAGES = {
  'truncated-data.npy': [/^truncated \.npy file/, /from byte 128\b/, /ends at byte 219\b/, /5 bytes short/],
  'truncated-header.npy': [/^truncated \.npy file/, /header is 118 bytes from byte 10\b/, /ends at byte 40\b/],
  'truncated-preamble.npy': [/^truncated \.npy file/, /ends at byte 7\b/],
  'bad-magic.npy': [/magic string/, /byte 5\b/],
  'bad-version.npy': [/version 4\.0/, /at byte 6\b/],
  'bad-header-syntax.npy': [/header/, /“=”/, /byte 18\b/],
  'bad-header-keys.npy': [/lacks the key 'shape'/],
  'bad-header-shape.npy': [/'shape'/, /byte \d+/],
  'truncated.npz': [/^truncated \.npz/, /byte \d+/],
  'err-ragged.json': [/^ragged array: row 1 \(line 2:2\) has 2 items, row 0 has 3/],
  'err-ragged.csv': [/^ragged rows: row 1 \(line 2:1\) has 2 values, row 0 has 3/],
  'err-unclosed.txt': [/^unclosed bracket/, /line 1:1\b/],
  'err-nonnumber.txt': [/^row 1, column 1 \(line 2:6\): “x” is not a number/],
  'err-nonnumber.csv': [/^row 1, column 1 \(line 2:3\): “abc” is not a number/],
  'err-empty-field.csv': [/^row 0, column 1 \(line 1:3\): an empty value/],
};

/** Checks the fixtures `names`' results against expected.json; returns the failures (empty when all pass) and a count. */
function check(results, names = NAMES) {
  const failures = [];
  let checked = 0;
  for (const name of names) {
    const e = EXPECTED[name];
    for (const [form, r] of Object.entries(results[name])) {
      const at = `${name} (${form})`;
      checked++;
      if ('value' in e) {
        if ('error' in r) { failures.push(`${at}: threw ${r.error}`); continue; }
        const d = diff(r.value, decode(e.value));
        if (d) failures.push(`${at}: ${d}`);
        if (e.names && Object.keys(r.value).join() !== e.names.join()) failures.push(`${at}: names in the order ${Object.keys(r.value)}, NumPy's is ${e.names}`);
        continue;
      }
      if (!('error' in r)) { failures.push(`${at}: read as ${JSON.stringify(r.value)?.slice(0, 80)} where NumPy refuses it`); continue; }
      const patterns = [];
      if (e.error === 'refused') {
        patterns.push(e.dtype === 'structured' ? /^structured arrays \(fields x, y\) are not supported: / : new RegExp(`^${e.member ? `${e.member} in the .npz archive: ` : ''}${e.dtype} arrays are not supported: `));
      } else if (e.error === 'summarized') {
        patterns.push(/summarized by NumPy/, /np\.set_printoptions\(threshold=sys\.maxsize\)/, /\.tolist\(\)/, /\(line 1:\d+\)/);
      } else {
        patterns.push(isText(name) ? /line \d+:\d+/ : /byte \d+/, ...(MESSAGES[name] ?? []));
        if (!MESSAGES[name]) failures.push(`${at}: no expected message in MESSAGES`);
      }
      for (const p of patterns) if (!p.test(r.error)) failures.push(`${at}: “${r.error}” does not match ${p}`);
    }
  }
  return { failures, checked };
}

test('every fixture NumPy wrote reads as NumPy holds it, in Chromium through attention-viz.js', async () => {
  const results = await page.evaluate(async ([fixtures, readAllSource]) => {
    const readAll = (0, eval)(`(${readAllSource})`);
    const load = async (name) => (await fetch(`/tests/fixtures/arrays/${name}`)).arrayBuffer();
    return readAll(window.av, fixtures, load);
  }, [FIXTURES, readAll.toString()]);
  const { failures, checked } = check(results);
  assert.deepEqual(failures, []);
  const texts = NAMES.filter(isText).length;
  assert.equal(checked, 2 * NAMES.length + texts, 'each fixture from a view and a buffer, each text also as a string');
  assert.ok(NAMES.length >= 110, `${NAMES.length} fixtures`);
  assert.deepEqual(page.errors, []);
});

test('the same in Node: www/arrays.js is plain JavaScript', async () => {
  const load = async (name) => {
    const b = readFileSync(new URL(name, DIR));
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  };
  // fflate runs only once something needs it (its tables took ~20 ms of index.html's start): before,
  // a compressed member says what to await, and a stored one reads.
  assert.throws(() => parseArrays(readFileSync(new URL('savez_compressed.npz', DIR))),
    { message: /^[^ ]+\.npy in the \.npz archive: it is compressed, and the inflater is not loaded yet: await `ready` first$/ });
  assert.ok(parseArrays(readFileSync(new URL('savez.npz', DIR))));
  await loadInflate();
  const { failures } = check(await readAll({ parseArray, parseArrays }, FIXTURES, load));
  assert.deepEqual(failures, []);
});

test('every dtype, byte order, version and layout the issue names has a fixture NumPy wrote, and it reads as NumPy holds it', async () => {
  // The fixtures are there (a dropped one would leave its case unread, not failed) …
  const named = [...['f8', 'f4', 'f2', 'i2', 'i4', 'i8', 'u2', 'u4', 'u8'].flatMap((code) => [`${code}-le.npy`, `${code}-be.npy`]),
    'i1.npy', 'u1.npy', 'b1.npy', 'v1.npy', 'v2.npy', 'v3.npy', 'fortran-f8-3d.npy', 'fortran-i2-be.npy',
    '0d-f8.npy', '1d.npy', '3d.npy', '4d.npy', 'empty-0x3.npy', 'empty-3x0.npy', 'native-order.npy', 'savez.npz',
    'savez_compressed.npz', 'complex128.npy', 'object.npy', 'structured.npy', 't2d.repr.txt', 't2d.str.txt',
    't2d.torch.txt', 'trand.csv', 'trand.tsv', 'trand.space.txt', 'trand.json', 'trand-header.csv'];
  assert.deepEqual(named.filter((name) => !NAMES.includes(name)), [], 'fixtures missing');
  const bytes = (name) => readFileSync(new URL(name, DIR));
  assert.deepEqual(['v1.npy', 'v2.npy', 'v3.npy'].map((n) => bytes(n)[6]), [1, 2, 3], 'format versions 1.0, 2.0, 3.0');
  assert.match(bytes('fortran-f8-3d.npy').toString('latin1'), /'fortran_order': True/);
  // … and each reads as NumPy holds it (or is refused as NumPy's own kinds are), here in Node.
  await loadInflate();
  const load = async (name) => { const b = bytes(name); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength); };
  const { failures, checked } = check(await readAll({ parseArray, parseArrays }, FIXTURES.filter(([name]) => named.includes(name)), load), named);
  assert.deepEqual(failures, []);
  assert.equal(checked, 2 * named.length + named.filter(isText).length, 'each from a view and a buffer, each text also as a string');
});

test('input kinds: views, buffers, text bytes with a BOM; .npz to parseArray and one array to parseArrays; anything else is refused by what it is', async () => {
  const r = await page.evaluate(async () => {
    const bytes = async (name) => new Uint8Array(await (await fetch(`/tests/fixtures/arrays/${name}`)).arrayBuffer());
    const attempt = (f) => { try { return { value: f() }; } catch (e) { return { error: e.message, isError: e instanceof Error }; } };
    const npz = await bytes('savez.npz');
    const npy = await bytes('1d.npy');
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('1,2\n3,4\n')]);
    return {
      npzAsOne: attempt(() => av.parseArray(npz)),
      npyAsMany: attempt(() => av.parseArrays(npy)),
      textAsMany: attempt(() => av.parseArrays('[[1, 2]]')),
      bom: attempt(() => av.parseArray(bom)),
      dataView: attempt(() => av.parseArray(new DataView(npy.buffer))),
      proto: attempt(() => { const o = av.parseArrays('{"__proto__": [1], "constructor": [2]}'); return [Object.keys(o), Object.getPrototypeOf(o) === Object.prototype]; }),
      refused: [null, undefined, 5, [1, 2], { a: 1 }].map((x) => attempt(() => av.parseArray(x))),
      binary: attempt(() => av.parseArray(new Uint8Array([0, 1, 2, 0xff]))),
      empty: attempt(() => av.parseArray('  \n ')),
      object: attempt(() => av.parseArray('{"a": [1]}')),
      after: attempt(() => av.parseArray('[1, 2]')),
    };
  });
  assert.match(r.npzAsOne.error, /zip archive.*parseArrays/);
  assert.deepEqual(r.npyAsMany.value, { arr_0: [0, 0.25, 0.5, 0.75, 1] });
  assert.deepEqual(r.textAsMany.value, { arr_0: [[1, 2]] });
  assert.deepEqual(r.bom.value, [[1, 2], [3, 4]]);
  assert.deepEqual(r.dataView.value, [0, 0.25, 0.5, 0.75, 1]);
  assert.deepEqual(r.proto.value, [['__proto__', 'constructor'], true], 'names are own properties, the prototype stays');
  assert.deepEqual(r.refused.map((x) => x.isError), [true, true, true, true, true]);
  assert.deepEqual(r.refused.map((x) => /got (.*)$/.exec(x.error)[1]), ['null', 'undefined', 'number', 'an array', 'object']);
  assert.match(r.binary.error, /neither a \.npy file nor text.*byte 0.*0x00 0x01 0x02 0xff/);
  assert.match(r.empty.error, /empty/);
  assert.match(r.object.error, /parseArrays/);
  assert.deepEqual(r.after.value, [1, 2], 'the module keeps working after errors');
  assert.deepEqual(page.errors, []);
});

test('text forms beyond the fixtures: scalars, empty shapes, wrappers, summaries, complex values, ragged and unclosed input', () => {
  const ok = [
    ['array(2.5, dtype=float32)', 2.5],
    ['tensor([], size=(0, 3))', []],
    ['array([], shape=(2, 0, 4), dtype=int64)', [[], []]],
    ['[np.float64(1.5), np.True_]', [1.5, 1]],
    ['[tensor(1.), tensor(-2.5)]', [1, -2.5]],
    ["tensor([[0.1, 0.2]], device='cuda:0', grad_fn=<AddBackward0>)", [[0.1, 0.2]]],
    ['matrix([[1, 2]])', [[1, 2]]],
    ['[1, 2]\n[3, 4]', [[1, 2], [3, 4]]],
    ['[1e400, -nan, +inf]', [Infinity, NaN, Infinity]],
    ['\u22121.5\t2', [[-1.5, 2]]],
    ['a\n1', [[1]]],
    ['7', 7],
  ];
  for (const [text, want] of ok) assert.equal(diff(parseArray(text), want), null, JSON.stringify(text));
  const bad = [
    ['array([1.+2.j])', /\(line 1:8\): “1\.\+2\.j” is a complex number/],
    ["array(['a'], dtype='<U1')", /^str arrays are not supported/],
    ['array([1], dtype=complex64)', /^complex64 arrays are not supported/],
    ['array([1, 2]', /expected “\)” closing “array\(”, found the end of the text \(line 1:13\)/],
    ['array([[1, 2]]) + 1', /unexpected “\+” after the array \(line 1:17\)/],
    ['[1, 2]]', /this “]” closes nothing \(line 1:7\)/],
    ['[1,,2]', /“,” with no value before it \(line 1:4\)/],
    ['[[1, [2]], [3, 4]]', /row 0, column 1 \(line 1:6\) is a list where a number belongs/],
    ['[[[1, 2]], [[3]]]', /ragged array: index 1, 0 \(line 1:13\) has 1 item, index 0, 0 has 2/],
    ['[null]', /“null” is not a number.*JSON\.stringify/],
    ['1 2\n3\n', /ragged rows: row 1 \(line 2:1\) has 1 value, row 0 has 2/],
    [`${'['.repeat(65)}1${']'.repeat(65)}`, /nested more than 64 deep/],
    ['array([], shape=(99999999, 99999999, 0))', /an empty array of 1\.0e\+16 empty lists; parseArray builds at most 1,048,576/],
    ['{"a": [1, x]}', /parseArrays/],
  ];
  // assert.throws would match String(error), "Error: …": the messages themselves are checked.
  const message = (f) => { try { f(); } catch (e) { return e.message; } return 'did not throw'; };
  for (const [text, pattern] of bad) assert.match(message(() => parseArray(text)), pattern, JSON.stringify(text));
  assert.match(message(() => parseArrays('{"a": [1, x]}')), /^“a”: index 1 \(line 1:11\): “x” is not a number/);
  assert.match(message(() => parseArrays('{"a": [1]} 2')), /^unexpected “2” after the object \(line 1:12\)/);
});

// ---- a person pastes these texts into an input grid (the real clipboard; cells.js reads them with parseArray) ----

test('pasting NumPy and PyTorch reprs from the fixtures fills W_Q; a ragged or summarized one says where and changes nothing', async () => {
  const p = await site.page('tests/fixtures/two-elements.html');
  await p.waitForFunction(() => [...document.querySelectorAll('attention-viz')].every((e) => e.trace));
  await p.evaluate(pageHelpers);
  await p.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url.replace(/\/$/, '') });
  const fixtureText = (name) => readFileSync(new URL(name, DIR), 'utf8');
  const cell = (r, c) => `attention-viz >> nth=0 >> input.cell[data-matrix="w_q"][data-row="${r}"][data-col="${c}"]`;
  const state = () => p.evaluate(() => {
    const el = document.querySelector('attention-viz');
    const a = el.shadowRoot.activeElement;
    return {
      w_q: el.config.w_q, log: { ...T.log(el) },
      msg: el.shadowRoot.querySelector('fieldset[data-name="w_q"] .cell-msg').textContent,
      focus: document.activeElement === el && a ? `${a.dataset.matrix}:${a.dataset.row}:${a.dataset.col}` : null,
    };
  });
  const paste = async (r, c, text) => {
    await p.evaluate(() => T.record(document.querySelector('attention-viz')));
    await p.locator(cell(r, c)).click();
    await p.evaluate((t) => navigator.clipboard.writeText(t), text);
    await p.keyboard.press('Control+V');
    return state();
  };
  const w0 = (await state()).w_q;
  const t2d = decode(EXPECTED['t2d.repr.txt'].value); // 2 × 3 of NumPy's values
  for (const name of ['t2d.repr.txt', 't2d.str.txt', 't2d.torch.txt', 't2d.json']) {
    await p.locator('attention-viz >> nth=0 >> button[data-action="reset"]').click();
    const s = await paste(0, 0, fixtureText(name));
    const want = w0.map((row, i) => (i < 2 ? t2d[i] : row));
    assert.deepEqual(s.w_q, want, `${name}: W_Q[0:2, 0:3] is NumPy's array`);
    assert.deepEqual([s.log.change, s.log.errors, s.msg, s.focus], [1, [], '', 'w_q:0:0'], `${name}: one change, no message, the focus stays`);
  }
  const before = (await state()).w_q;
  for (const [name, pattern] of [['err-ragged.json', /ragged array: row 1 \(line 2:2\)/], ['tlong.repr.txt', /summarized by NumPy.*threshold=sys\.maxsize/],
    ['err-unclosed.txt', /unclosed bracket/], ['tnan.repr.txt', /row 0, column 0: NaN is not allowed/]]) {
    const s = await paste(1, 1, fixtureText(name));
    assert.deepEqual(s.w_q, before, `${name}: nothing changes`);
    assert.match(s.msg, pattern, `${name}: the message under W_Q says what and where`);
    assert.match(s.msg, /nothing was pasted\.?$/);
    assert.deepEqual([s.log.change, s.log.errors.length, s.focus], [0, 1, 'w_q:1:1'], `${name}: one error event, the focus stays in the cell`);
  }
  await done(p);
});
