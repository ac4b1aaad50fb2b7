// Owns reading a user's arrays: `parseArray` (one array, from the bytes of a .npy file or from text: NumPy's repr and
// print forms, PyTorch's repr, JSON, CSV/TSV or whitespace-separated rows) and `parseArrays` (the named arrays of a
// .npz archive or of a JSON object). Pure functions, for the page and for Node alike. A refusal is an Error saying
// what is wrong and where: a byte offset in binary input (from 0, as a hex editor counts), line:column in text (from
// 1, as an editor counts). The input cells read a paste through parseArray too (element/cells.js): one text reader.

import { MAX_VALUES, cut } from './element/facts.js';
export { cut }; // the tests check it against the core's text::cut

/**
 * fflate (its `Inflate` and `inflateSync`) once `loadInflate()` has loaded it: it builds its tables when it runs (about
 * 20 ms of index.html's start on a busy machine), and only a compressed .npz member (np.savez_compressed) or an array
 * Python sent deflated needs it, so a page of figures never runs it. `ready` (www/attention-viz.js) loads it after the
 * core: after `await ready`, parseArrays reads a compressed .npz at once.
 */
let fflate = null;
let loading = null;

/** Loads the inflater (once); resolves when parseArrays can read a compressed .npz. */
export function loadInflate() {
  loading ??= import('./inflate.js').then((m) => { fflate = m; });
  return loading;
}

/** Whether the inflater is loaded (a compressed .npz or a deflated array can be read now). */
export function inflateLoaded() { return fflate !== null; }

/** What reading compressed data before `loadInflate()` has resolved says. */
const NOT_LOADED = 'it is compressed, and the inflater is not loaded yet: await `ready` first';

/** Raw-deflated bytes inflated whole (Python's packed arrays: www/element/index.js unpack). */
export function inflateRaw(bytes) {
  if (!fflate) throw new Error(NOT_LOADED);
  return fflate.inflateSync(bytes);
}

/** NumPy's limit on dimensions (NPY_MAXDIMS); deeper nesting is refused before it can exhaust the stack. */
const MAX_DIMS = 64;
// MAX_VALUES, the most values one array may hold (the most a figure takes): a header or a shape asking for more is
// refused before anything is built, as nested arrays of 10^8 numbers would take the tab's memory. Re-exported for
// the tests. MAX_VALUES and `cut` (QUOTE_MAX) are the core's, generated into facts.js: this file runs without the .wasm.
export { MAX_VALUES };
/** The most empty lists an empty array may need (`(10000000, 0)` is ten million of them, and holds nothing). */
export const MAX_EMPTY_LISTS = 2 ** 20;
/**
 * The most bytes a .npz archive's members may unpack to, all together, as their directory declares it before
 * anything is inflated: MAX_VALUES float64 values and 1 MiB of headers. A 49 KB archive can declare 50 MB of zeros.
 */
export const MAX_NPZ_BYTES = MAX_VALUES * 8 + 2 ** 20;
/** The longest .npy header read (NumPy's np.load reads 10,000 bytes at most); a .npz member's is read first. */
const MAX_HEADER = 2 ** 16;
/** The deepest calls around a scalar in a list (`np.float64(1.5)` is one call; a repr never nests them). */
const MAX_CALLS = 8;

/**
 * One array: nested arrays of numbers, or a number for a 0-d array. Booleans become 0 and 1; int64 and uint64 become
 * the nearest double (exact up to 2^53); NaN and ±Infinity are kept.
 */
export function parseArray(input) {
  return readably(() => {
    if (typeof input === 'string') return readText(input);
    const bytes = bytesOf(input);
    if (isNpy(bytes)) return readNpy(bytes);
    if (isZip(bytes)) throw new Error('this is a zip archive (a .npz file?): read it with parseArrays, which returns its arrays by name');
    return readText(textOf(bytes));
  });
}

/**
 * Named arrays: `{name: array}` from a .npz archive (np.savez / np.savez_compressed; names without `.npy`, as np.load
 * gives them) or from text holding a JSON object of arrays. Input holding one unnamed array (a .npy file, any other
 * text) gives `{arr_0: array}`, the name np.savez gives an unnamed array.
 */
export function parseArrays(input) {
  return readably(() => {
    const bytes = typeof input === 'string' ? null : bytesOf(input);
    if (bytes && isZip(bytes)) return readNpz(bytes);
    if (bytes && isNpy(bytes)) return named([['arr_0', readNpy(bytes)]]);
    const text = bytes ? textOf(bytes) : input;
    if (/^\s*\{/.test(text)) return readObject(text.replace(/\u2212/g, '-'));
    return named([['arr_0', readText(text)]]);
  });
}

/**
 * `read()`, with any error the engine throws (a bug's TypeError, an exhausted stack, an allocation refused) said in
 * words a reader can act on: the importer and the paste show a message as it is. The readers' own refusals are
 * plain Errors and pass unchanged.
 */
function readably(read) {
  try {
    return read();
  } catch (e) {
    if (e instanceof Error && e.constructor === Error) throw e;
    const why = String(e?.message ?? e);
    if (/call stack/i.test(why)) throw new Error('the input is nested too deeply to read');
    if (/array length|allocation|buffer|memory/i.test(why)) throw new Error('the array is too large to read');
    throw new Error(`this input could not be read (${cut(why)})`);
  }
}

// ---- bytes -------------------------------------------------------------------------------------------------

/** The bytes of an ArrayBuffer or of any view of one (a Node Buffer too); anything else is refused by what it is. */
function bytesOf(input) {
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const tag = Object.prototype.toString.call(input);
  if (tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]') return new Uint8Array(input);
  const what = input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input;
  throw new Error(`expected the bytes of a file (a Uint8Array or an ArrayBuffer) or text, got ${what}`);
}

const MAGIC = '\x93NUMPY';
const ascii = (b, from, to) => String.fromCharCode(...b.subarray(from, to));
const hex = (x) => `0x${x.toString(16).padStart(2, '0')}`;
// A damaged magic string still means a .npy file: say what is wrong with it rather than read it as text.
const isNpy = (b) => b.length > 0 && (b[0] === 0x93 || ascii(b, 1, 6) === 'NUMPY');
const isZip = (b) => b.length >= 4 && ascii(b, 0, 2) === 'PK' && (b[2] === 3 || b[2] === 5) && b[3] === b[2] + 1;

/** A text file's bytes as text (UTF-8; a byte-order mark is dropped), or an Error saying the file is neither. */
function textOf(bytes) {
  let text = null;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch { /* not UTF-8: said below */ }
  if (text === null || text.includes('\0')) {
    const head = [...bytes.subarray(0, 4)].map(hex).join(' ');
    throw new Error(`neither a .npy file nor text: a .npy file starts with the magic string \\x93NUMPY at byte 0, this one with ${head}, and it is not UTF-8 text`);
  }
  return text;
}

// ---- .npy --------------------------------------------------------------------------------------------------

/** Value readers by the dtype's kind and size, and NumPy's names for them. */
const READERS = {
  f8: ['float64', (v, o, le) => v.getFloat64(o, le)],
  f4: ['float32', (v, o, le) => v.getFloat32(o, le)],
  f2: ['float16', (v, o, le) => half(v.getUint16(o, le))],
  i1: ['int8', (v, o) => v.getInt8(o)],
  i2: ['int16', (v, o, le) => v.getInt16(o, le)],
  i4: ['int32', (v, o, le) => v.getInt32(o, le)],
  i8: ['int64', (v, o, le) => Number(v.getBigInt64(o, le))],
  u1: ['uint8', (v, o) => v.getUint8(o)],
  u2: ['uint16', (v, o, le) => v.getUint16(o, le)],
  u4: ['uint32', (v, o, le) => v.getUint32(o, le)],
  u8: ['uint64', (v, o, le) => Number(v.getBigUint64(o, le))],
  b1: ['bool', (v, o) => (v.getUint8(o) ? 1 : 0)],
};

/** IEEE half precision → number (DataView.getFloat16 is too new to rely on). */
function half(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** Why a dtype parseArray does not read is refused: what to save instead. */
const REFUSALS = [
  [/^complex/, 'parseArray reads real numbers; save a.real, a.imag or np.abs(a)'],
  [/^float\d+$/, 'save a.astype(np.float64)'],
  [/^(?:datetime|timedelta)64$/, 'save numbers, e.g. a.astype(np.int64)'],
  [/^(?:str|bytes)$/, 'its values are text; if they are numbers, save a.astype(np.float64)'],
  [/^/, 'save the array with a number dtype, e.g. np.asarray(a, dtype=np.float64)'],
];

/** Throws the refusal of a dtype by NumPy's name: `complex128 arrays are not supported: …`. */
function refuse(name) {
  throw new Error(`${name} arrays are not supported: ${REFUSALS.find(([re]) => re.test(name))[1]}`);
}

/** NumPy's name of a dtype parseArray refuses, from its descr kind letter and size in bytes. */
function refusedName(kind, size) {
  const names = { c: `complex${size * 8}`, f: `float${size * 8}`, O: 'object', U: 'str', S: 'bytes', a: 'bytes', V: 'void', M: 'datetime64', m: 'timedelta64' };
  return names[kind] ?? null;
}

/** A Python tuple as NumPy prints a shape: `(3, 4)`, `(3,)`, `()`. */
const tuple = (shape) => `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;

/** A .npy file (format 1.0, 2.0 or 3.0) → nested arrays, or an Error naming the byte where it goes wrong. */
function readNpy(b) {
  const { shape, fortran, read, size, le, dataStart } = npyLayout(b, b.length);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return nest(shape, fortran, (k) => read(view, dataStart + k * size, le));
}

/**
 * What a .npy file holds, from its first bytes (the preamble and the header): {shape, fortran, name, read, size,
 * le, dataStart}. `length` is the file's length (a .npz member's as its archive declares it, before it is inflated):
 * a shape whose data the file cannot hold, or that parseArray would not build, is refused here, before anything is.
 */
function npyLayout(b, length) {
  for (let i = 0; i < MAGIC.length && i < b.length; i++) {
    if (b[i] !== MAGIC.charCodeAt(i)) {
      throw new Error(`not a .npy file: byte ${i} is ${hex(b[i])} where the magic string \\x93NUMPY has “${MAGIC[i] === '\x93' ? '\\x93' : MAGIC[i]}”`);
    }
  }
  const truncated = (what, end) => new Error(`truncated .npy file: it ends at byte ${length}, inside ${what} (bytes 0 to ${end - 1})`);
  if (length < 8) throw truncated('the magic string and format version', 8);
  const [major, minor] = [b[6], b[7]];
  if (minor !== 0 || major < 1 || major > 3) {
    throw new Error(`.npy format version ${major}.${minor} (at byte 6) is not supported: 1.0, 2.0 and 3.0 are`);
  }
  const start = major === 1 ? 10 : 12;
  if (length < start) throw truncated('the header length', start);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (headerLength > MAX_HEADER) {
    throw new Error(`the .npy header is ${headerLength} bytes long (byte 8); headers of at most ${MAX_HEADER} bytes are read (NumPy's np.load reads 10,000)`);
  }
  const dataStart = start + headerLength;
  if (dataStart > length) {
    throw new Error(`truncated .npy file: its header is ${headerLength} bytes from byte ${start}, but the file ends at byte ${length}`);
  }
  const { descr, fortran, shape } = headerOf(b.subarray(start, dataStart), major, start);
  const [name, read] = dtypeOf(descr);
  const size = Number(/\d+/.exec(descr)[0]);
  const le = descr[0] !== '>';
  buildable(shape, `the .npy header's shape (byte ${start})`);
  let count = 1;
  for (const n of shape) count *= n;
  const need = count * size;
  if (need > length - dataStart) {
    throw new Error(`truncated .npy file: a ${tuple(shape)} ${name} array needs ${need} bytes of data from byte ${dataStart}, `
      + `but the file ends at byte ${length}, ${need - (length - dataStart)} bytes short`);
  }
  return { shape, fortran, name, read, size, le, dataStart };
}

/** A count for messages: 10,000,000, or 9.2e+18 past what digits say readably. */
const count = (n) => (n < 1e15 ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toExponential(1)); // not toLocaleString: its first call loads ICU (0.2 s)

/** A shape for messages: as NumPy prints it, the middle of a long one left out (`(2, 2, 2, …, 2, 0)`, 64 axes). */
const shapeShown = (shape) => (shape.length <= 8 ? tuple(shape)
  : `(${shape.slice(0, 3).join(', ')}, …, ${shape.slice(-2).join(', ')}) (${shape.length} axes)`);

/**
 * Refuses a shape parseArray would not build, before it builds anything: more than MAX_VALUES values, or an empty
 * array that needs more than MAX_EMPTY_LISTS empty lists (a 0 behind large axes holds nothing, but each list before
 * it is built). `what` names where the shape was read.
 */
function buildable(shape, what) {
  let values = 1;
  for (const n of shape) values *= n;
  if (values > MAX_VALUES) {
    throw new Error(`${what} ${shapeShown(shape)} holds ${count(values)} values; parseArray reads at most ${count(MAX_VALUES)}, the most a figure takes`);
  }
  const zero = shape.indexOf(0);
  if (zero < 0) return;
  let lists = 1;
  for (const n of shape.slice(0, zero)) lists *= n;
  if (lists > MAX_EMPTY_LISTS) {
    throw new Error(`${what} ${shapeShown(shape)} is an empty array of ${count(lists)} empty lists; parseArray builds at most ${count(MAX_EMPTY_LISTS)} (2^20)`);
  }
}

/** The header dict of a .npy file: {descr, fortran, shape}, checked as np.load checks it. */
function headerOf(bytes, major, start) {
  let text;
  let byteAt = (i) => start + i;
  if (major === 3) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new Error(`the .npy header (bytes ${start} to ${start + bytes.length - 1}) is not UTF-8 text, as format 3.0 needs`);
    }
    byteAt = (i) => start + new TextEncoder().encode(text.slice(0, i)).length;
  } else {
    text = ''; // latin-1, as NumPy writes versions 1.0 and 2.0 (TextDecoder's 'latin1' is windows-1252)
    for (let k = 0; k < bytes.length; k += 4096) text += String.fromCharCode(...bytes.subarray(k, k + 4096));
  }
  const dict = pythonLiteral(text, byteAt);
  const where = (key) => `byte ${byteAt(Math.max(0, text.indexOf(`'${key}'`)))}`;
  if (!(dict instanceof Map)) throw new Error(`the .npy header (byte ${start}) is not a dict`);
  for (const key of ['descr', 'fortran_order', 'shape']) {
    if (!dict.has(key)) {
      const has = [...dict.keys()].map((k) => JSON.stringify(String(k))).join(', ');
      throw new Error(`the .npy header (byte ${start}) lacks the key '${key}': it has ${has || 'none'}`);
    }
  }
  const descr = dict.get('descr');
  if (Array.isArray(descr)) {
    const fields = descr.map((f) => (Array.isArray(f) ? f[0] : f)).join(', ');
    throw new Error(`structured arrays (fields ${fields}) are not supported: save each field as its own array, e.g. np.savez(f, **{n: a[n] for n in a.dtype.names})`);
  }
  if (typeof descr !== 'string') throw new Error(`the .npy header's 'descr' (${where('descr')}) is not a dtype string`);
  const fortran = dict.get('fortran_order');
  if (typeof fortran !== 'boolean') throw new Error(`the .npy header's 'fortran_order' (${where('fortran_order')}) is not True or False`);
  const shape = dict.get('shape');
  if (!Array.isArray(shape) || shape.some((n) => typeof n !== 'number' || n < 0) || shape.length > MAX_DIMS) {
    throw new Error(`the .npy header's 'shape' (${where('shape')}) is not a tuple of at most ${MAX_DIMS} sizes ≥ 0`);
  }
  return { descr, fortran, shape };
}

/** [NumPy's name, reader] of a simple dtype descr such as '<f8', or the refusal of any other by name. */
function dtypeOf(descr) {
  const m = /^([<>|=]?)([a-zA-Z?])(\d{0,2})(\[\w+\])?$/.exec(descr); // a size is 1 to 16 bytes
  // A unit in brackets belongs to datetime64 and timedelta64 ('<M8[s]') only: '<f8[s]' is no dtype.
  if (!m || (m[4] && m[2] !== 'M' && m[2] !== 'm')) throw new Error(`the dtype '${cut(descr)}' is not one parseArray reads (float, int, uint or bool)`);
  const [, , kind, digits] = m;
  const reader = READERS[`${kind}${digits}`];
  if (reader) return reader;
  const name = refusedName(kind, Number(digits));
  if (name) refuse(name);
  throw new Error(`the dtype '${cut(descr)}' is not one parseArray reads (float, int, uint or bool)`);
}

/** Nested arrays of the given shape whose element k in storage order (C or Fortran) is `element(k)`. */
function nest(shape, fortran, element) {
  const n = shape.length;
  if (n === 0) return element(0);
  // Elements between neighbours along each axis: the last axis varies fastest in C order, the first in Fortran's.
  const stride = new Array(n);
  const axes = [...shape.keys()];
  let s = 1;
  for (const d of fortran ? axes : axes.reverse()) {
    stride[d] = s;
    s *= shape[d];
  }
  const build = (d, base) => {
    const out = new Array(shape[d]);
    for (let j = 0; j < shape[d]; j++) out[j] = d === n - 1 ? element(base + j * stride[d]) : build(d + 1, base + j * stride[d]);
    return out;
  };
  return build(0, 0);
}

/**
 * The Python literal of a .npy header (dicts, lists, tuples, strings, ints — with Python 2's `3L` —, True, False,
 * None) → Map, arrays, strings, numbers, booleans, null; or an Error with the byte offset (`byteAt` maps an index).
 */
function pythonLiteral(src, byteAt) {
  let i = 0;
  const shown = () => (i < src.length ? `“${src[i]}”` : 'the end of the header');
  const fail = (what) => { throw new Error(`the .npy header is not a Python dict literal: ${what} at byte ${byteAt(i)}`); };
  const space = () => { while (i < src.length && ' \t\r\n\f\v'.includes(src[i])) i++; };
  const CLOSE = { '{': '}', '[': ']', '(': ')' };
  const ATOM = /-?\d+L?|True|False|None/y;
  const value = (depth) => {
    space();
    const c = src[i];
    if (CLOSE[c]) {
      if (depth > 8) fail('nesting too deep');
      i++;
      const dict = c === '{' ? new Map() : null;
      const items = [];
      for (;;) {
        space();
        if (src[i] === CLOSE[c]) { i++; return dict ?? items; }
        const v = value(depth + 1);
        if (dict) {
          space();
          if (src[i] !== ':') fail(`expected “:” after a key, found ${shown()}`);
          i++;
          dict.set(v, value(depth + 1));
        } else items.push(v);
        space();
        if (src[i] === ',') i++;
        else if (src[i] !== CLOSE[c]) fail(`expected “,” or “${CLOSE[c]}”, found ${shown()}`);
      }
    }
    if (c === "'" || c === '"') return string(c);
    ATOM.lastIndex = i;
    const m = ATOM.exec(src);
    if (!m) fail(`expected a value, found ${shown()}`);
    i = ATOM.lastIndex;
    return { True: true, False: false, None: null }[m[0]] ?? Number.parseInt(m[0], 10);
  };
  const string = (quote) => {
    let out = '';
    for (i++; i < src.length && src[i] !== quote; i++) {
      if (src[i] !== '\\') { out += src[i]; continue; }
      const e = src[++i];
      const code = { x: 2, u: 4 }[e];
      if (code) { out += String.fromCharCode(Number.parseInt(src.slice(i + 1, i + 1 + code), 16)); i += code; } else out += { n: '\n', t: '\t' }[e] ?? e;
    }
    if (i >= src.length) fail('a string is never closed');
    i++;
    return out;
  };
  const result = value(0);
  space();
  if (i < src.length) fail(`unexpected ${shown()} after the dict`);
  return result;
}

// ---- .npz --------------------------------------------------------------------------------------------------

/**
 * A .npz archive (stored or deflated members) → {name: array}; a member's errors are prefixed with its name. Nothing
 * is inflated before the directory's declared sizes pass MAX_NPZ_BYTES, and a deflated member is inflated whole only
 * once its .npy header (inflated first, a few KB) has passed too: a zip bomb is refused by what it declares.
 */
function readNpz(b) {
  const members = zipMembers(b).filter((m) => !m.name.endsWith('/'));
  let total = 0;
  for (const m of members) total += m.originalSize;
  if (total > MAX_NPZ_BYTES) {
    throw new Error(`the .npz archive's ${members.length === 1 ? 'member unpacks' : `${members.length} members unpack`} to ${count(total)} bytes; `
      + `parseArrays unpacks at most ${count(MAX_NPZ_BYTES)} (2^23 float64 values, the most a figure takes, and their headers)`);
  }
  const arrays = [];
  for (const m of members) {
    if (!m.name.endsWith('.npy')) throw new Error(`${cut(m.name)} in the .npz archive is not a .npy file`);
    try {
      arrays.push([m.name.slice(0, -4), readNpy(memberBytes(b, m))]);
    } catch (e) {
      throw new Error(`${cut(m.name)} in the .npz archive: ${e.message}`);
    }
  }
  return named(arrays);
}

/** A member's bytes: stored ones as they are; deflated ones inflated as `inflated` says. */
function memberBytes(b, m) {
  const data = b.subarray(m.data, m.data + m.size);
  if (m.method === 0) {
    if (m.size !== m.originalSize) throw new Error(`damaged: it is stored as ${m.size} bytes but declared as ${m.originalSize}`);
    return data;
  }
  if (m.method !== 8) throw new Error(`its compression (method ${m.method}) is not one a .npz uses: np.savez stores, np.savez_compressed deflates`);
  return inflated(data, m.originalSize);
}

/**
 * A deflated .npy member's bytes, inflated a slice at a time: its header first, which must pass npyLayout (a few
 * milliseconds, whatever the header claims), then the rest, stopping as soon as it inflates past the size its
 * directory entry declared. A bomb costs what it declares (at most MAX_NPZ_BYTES), never more.
 */
function inflated(data, declared) {
  if (!fflate) throw new Error(NOT_LOADED);
  const chunks = [];
  let got = 0;
  const inflater = new fflate.Inflate((chunk) => { chunks.push(chunk); got += chunk.length; });
  const joined = () => {
    const out = new Uint8Array(got);
    let k = 0;
    for (const c of chunks) { out.set(c, k); k += c.length; }
    return out;
  };
  // The preamble (12 bytes) says how long the header is; a damaged one is said by npyLayout.
  const headerEnd = (h) => (h.length < 12 ? 12
    : Math.min(MAX_HEADER + 12, h[6] === 1 ? 10 + (h[8] | (h[9] << 8)) : 12 + (h[8] | (h[9] << 8) | (h[10] << 16)) + h[11] * 2 ** 24));
  let checked = false;
  let want = 12;
  for (let k = 0; k < data.length;) {
    // Deflate inflates at most 1032 bytes per byte: until the header has passed, 64 bytes at a time (≤ 66 KB
    // out); then slices that cannot inflate much past what is left of the declared size, 64 KB at most.
    const step = checked ? Math.max(1024, Math.min(65536, Math.floor((declared - got) / 1032))) : 64;
    const end = Math.min(data.length, k + step);
    try {
      inflater.push(data.subarray(k, end), end === data.length);
      k = end;
    } catch (e) {
      throw new Error(`damaged: ${e.message}`);
    }
    if (!checked && got >= Math.min(want, declared)) {
      const head = joined();
      want = headerEnd(head);
      if (got >= Math.min(want, declared)) {
        npyLayout(head, declared);
        checked = true;
      }
    }
    if (got > declared) throw new Error(`damaged: it inflates to more than the ${count(declared)} bytes its directory entry declares`);
  }
  return joined();
}

/**
 * The members of a zip archive as its central directory lists them (zip64 too, as np.savez writes it): [{name,
 * method, size (compressed), originalSize, data (the byte its data starts at)}]. Nothing is inflated.
 */
function zipMembers(b) {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const u16 = (o) => view.getUint16(o, true);
  const u32 = (o) => view.getUint32(o, true);
  const u64 = (o) => u32(o) + u32(o + 4) * 2 ** 32;
  const damaged = (what, at) => new Error(`damaged .npz archive: ${what} (byte ${at})`);
  let end = -1;
  for (let k = b.length - 22; k >= 0 && k >= b.length - 65557; k--) {
    if (b[k] === 0x50 && b[k + 1] === 0x4b && b[k + 2] === 5 && b[k + 3] === 6) { end = k; break; }
  }
  // What a reader can check is the directory a zip file ends with.
  if (end < 0) throw new Error(`truncated .npz archive: a zip file ends with its directory, and this one ends at byte ${b.length} without it`);
  let entries = u16(end + 10);
  let at = u32(end + 16);
  if (end >= 20 && u32(end - 20) === 0x07064b50) {
    const z = u64(end - 12);
    if (z + 56 > b.length || u32(z) !== 0x06064b50) throw damaged('the zip64 directory record is not where its locator says', end - 20);
    entries = u64(z + 32);
    at = u64(z + 48);
  }
  const members = [];
  for (let k = 0; k < entries; k++) {
    if (at + 46 > b.length || u32(at) !== 0x02014b50) throw damaged(`directory entry ${k} is not where the directory says`, at);
    const method = u16(at + 10);
    let size = u32(at + 20);
    let originalSize = u32(at + 24);
    const [nameLength, extraLength, commentLength] = [u16(at + 28), u16(at + 30), u16(at + 32)];
    let local = u32(at + 42);
    const extraEnd = Math.min(b.length, at + 46 + nameLength + extraLength);
    const name = new TextDecoder().decode(b.subarray(at + 46, Math.min(extraEnd, at + 46 + nameLength)));
    for (let x = at + 46 + nameLength; x + 4 <= extraEnd; x += 4 + u16(x + 2)) {
      if (u16(x) !== 1) continue; // zip64's sizes and offset, each there only when its 32-bit field is 0xffffffff
      let p = x + 4;
      const next = () => { if (p + 8 > extraEnd) throw damaged(`the zip64 sizes of ${cut(name)} are cut short`, x); p += 8; return u64(p - 8); };
      if (originalSize === 0xffffffff) originalSize = next();
      if (size === 0xffffffff) size = next();
      if (local === 0xffffffff) local = next();
    }
    if (local + 30 > b.length || u32(local) !== 0x04034b50) throw damaged(`the local header of ${cut(name)} is not where the directory says`, local);
    const data = local + 30 + u16(local + 26) + u16(local + 28);
    if (data + size > b.length) throw damaged(`the data of ${cut(name)} runs past the end of the file`, data);
    members.push({ name, method, size, originalSize, data });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return members;
}

/** {name: value} from pairs, as own properties even for names such as `__proto__`. */
function named(pairs) {
  const out = {};
  for (const [name, value] of pairs) Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

// ---- text --------------------------------------------------------------------------------------------------

/** `line 2:7`: where index i of the text is, from 1 as an editor counts (\n, \r\n and \r end lines). */
function lineCol(text, i) {
  let line = 1;
  let start = 0;
  for (const m of text.slice(0, i).matchAll(/\r\n|\n|\r/g)) {
    line++;
    start = m.index + m[0].length;
  }
  return `line ${line}:${i - start + 1}`;
}

const failAt = (text, i, what) => { throw new Error(`${what} (${lineCol(text, i)})`); };

/** Text of one array → nested arrays: bracketed forms (Python lists, JSON, reprs, print) or rows of numbers. */
function readText(raw) {
  const text = raw.replace(/\u2212/g, '-'); // a minus sign copied from a rendered page; same length, same positions
  const i = text.search(/\S/);
  if (i < 0) throw new Error('the text is empty: there is no array in it');
  if (text[i] === '{') failAt(text, i, 'a JSON object of named arrays: read it with parseArrays');
  if (text[i] === '[' || wrapperAt(text, i)) return nested(text, scanValues(text, i));
  return readRows(text);
}

// `array(` / `np.array(` / `torch.tensor(` / `matrix(`: NumPy's and PyTorch's reprs around the bracketed numbers.
const WRAPPER = /(?:(?:np|numpy|torch)\.)?(?:array|tensor|matrix)\s*\(/y;
// What may follow the numbers inside it: `, dtype=float32`, `, device='cuda:0'`, `, grad_fn=<AddBackward0>`, `, shape=(0, 3)`.
const KEYWORD = /\s*,\s*([A-Za-z_]\w*)\s*=\s*('[^']*'|"[^"]*"|<[^>]*>|\([^()]*\)|[\w.+-]+)/y;
const CLOSING = /\s*(?:,\s*)?\)/y; // not \s*,?\s*: two runs of spaces that can trade are quadratic
const ATOM = /[^\s,()[\]{}]+/y;

function wrapperAt(text, i) {
  WRAPPER.lastIndex = i;
  return WRAPPER.exec(text);
}

const SPACE = /\s*/y;
const WORD = /\S+/y;

/** The index of the first non-space at or after i (text.length at the end). */
function skipSpace(text, i) {
  SPACE.lastIndex = i;
  SPACE.exec(text);
  return SPACE.lastIndex;
}

/** What stands at text[i], for messages: `“abc”` or `the end of the text`. */
function shownAt(text, i) {
  WORD.lastIndex = i;
  const m = WORD.exec(text);
  return m ? `“${cut(m[0])}”` : 'the end of the text';
}

/**
 * The bracketed values from text[i] on, separated by spaces or commas (`[1, 2]\n[3, 4]` are two rows) → one node:
 * lists are {at, items}, numbers-to-be {at, s}. Nothing but space may follow.
 */
function scanValues(text, i) {
  const values = [];
  for (let j = i; j < text.length;) {
    const { node, end } = scanValue(text, j);
    values.push(node);
    j = skipSpace(text, end);
    if (text[j] === ',') j = skipSpace(text, j + 1); // `[1, 2], [3, 4]`: a tuple of rows
    if (j < text.length && text[j] !== '[' && !wrapperAt(text, j)) {
      failAt(text, j, text[j] === ']' ? 'unbalanced brackets: this “]” closes nothing' : `unexpected ${shownAt(text, j)} after the array`);
    }
  }
  return values.length === 1 ? values[0] : { at: values[0].at, items: values };
}

/** One value at text[i]: a bracketed list or a repr `array(…)` → {node, end}. */
function scanValue(text, i) {
  return text[i] === '[' ? scanList(text, i) : scanWrapped(text, i);
}

/** `array(…, dtype=…)` / `tensor(…)` at text[i] → {node, end}; a refused dtype is refused by name. */
function scanWrapped(text, i) {
  const wrapper = wrapperAt(text, i);
  let j = skipSpace(text, WRAPPER.lastIndex);
  let node;
  if (text[j] === '[') ({ node, end: j } = scanList(text, j));
  else {
    ATOM.lastIndex = j;
    const atom = ATOM.exec(text);
    if (!atom) failAt(text, j, `expected a number or “[” after “${wrapper[0]}”, found ${shownAt(text, j)}`);
    node = { at: j, s: atom[0] };
    j = ATOM.lastIndex;
  }
  const keywords = new Map();
  for (let k; (KEYWORD.lastIndex = j, k = KEYWORD.exec(text)); j = KEYWORD.lastIndex) keywords.set(k[1], k[2]);
  CLOSING.lastIndex = j;
  if (!CLOSING.exec(text)) {
    const k = skipSpace(text, j);
    failAt(text, k, `expected “)” closing “${wrapper[0]}”, found ${shownAt(text, k)}`);
  }
  const refused = refusedDtype(keywords.get('dtype') ?? '');
  if (refused) refuse(refused);
  node.round = roundingOf(keywords.get('dtype') ?? '');
  // An empty array's repr gives its shape in words: `array([], shape=(0, 3), dtype=float64)`.
  const shape = keywords.get('shape') ?? keywords.get('size');
  if (shape && node.items?.length === 0) node = emptyOfShape(text, node.at, shape.match(/\d+/g)?.map(Number).slice(0, MAX_DIMS + 1) ?? []);
  return { node, end: CLOSING.lastIndex };
}

/** NumPy's name of a dtype keyword's value parseArray refuses (`complex64`, `'<U1'`, `object`…), or null. */
function refusedDtype(keyword) {
  const dtype = keyword.replace(/^['"]|['"]$/g, '').replace(/^(?:np|numpy|torch)\./, '');
  const descr = /^[<>|=]?([a-zA-Z])(\d+)$/.exec(dtype);
  if (descr) return descr[1] === 'f' && ['2', '4', '8'].includes(descr[2]) ? null : refusedName(descr[1], Number(descr[2]));
  const ALIASES = { complex: 'complex128', cfloat: 'complex64', cdouble: 'complex128', longdouble: 'float128', O: 'object' };
  const name = ALIASES[dtype] ?? dtype;
  return /^(?:complex\d+|object|str|bytes|datetime64|timedelta64|float(?:96|128))\b/.test(name) ? name.replace(/\[.*/, '') : null;
}

/**
 * The rounding a dtype keyword's value names, or undefined for float64 and integer dtypes: the text's digits are
 * what was printed, and NumPy's and PyTorch's own eval of the text store them in that dtype. NumPy rounds a Python
 * float to float16 directly; PyTorch converts it to float32 first (c10::Half and c10::BFloat16 are built from a
 * float), so its float16 and bfloat16 are rounded twice, as here.
 */
function roundingOf(keyword) {
  const raw = keyword.replace(/^['"]|['"]$/g, '');
  const torch = /^torch\./.test(raw);
  const name = raw.replace(/^(?:np|numpy|torch)\./, '').replace(/^[<>|=]?f([24])$/, (_, n) => (n === '4' ? 'float32' : 'float16'));
  if (name === 'float32' || name === 'single' || (torch && name === 'float')) return Math.fround;
  if (name === 'float16' || name === 'half') return torch ? (x) => toHalf(Math.fround(x)) : toHalf;
  if (name === 'bfloat16') return (x) => toBfloat16(Math.fround(x));
  return undefined;
}

/**
 * x rounded to the nearest value with `bits` significant bits, exponent ≥ minExponent (below it the subnormal step
 * 2^(minExponent − bits + 1)), ties to even; ±Infinity from `overflow` up (the first value that rounds past the
 * format's largest). Every step is exact in float64: scaling by a power of two and rounding an integer-sized number.
 */
function roundToFormat(x, bits, minExponent, overflow) {
  if (x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  if (a >= overflow) return Math.sign(x) * Infinity;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  else if (2 ** (e + 1) <= a) e += 1;
  const step = 2 ** (Math.max(e, minExponent) - bits + 1);
  const q = a / step;
  const f = Math.floor(q);
  const d = q - f;
  const r = d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
  return Math.sign(x) * r * step;
}

/** IEEE half precision: 11 significant bits, normal from 2^-14, largest 65504 (65520 and up round to ∞). */
const toHalf = (x) => roundToFormat(x, 11, -14, 65520);
/** bfloat16: float32's exponent range with 8 significant bits; largest (2 − 2^-7)·2^127. */
const toBfloat16 = (x) => roundToFormat(x, 8, -126, (2 - 2 ** -8) * 2 ** 127);

/** The nodes of an empty array of the given shape (a shape with no 0 in it describes no empty array: `[]` stays). */
function emptyOfShape(text, at, shape) {
  if (shape.length > MAX_DIMS) failAt(text, at, `the shape has more than ${MAX_DIMS} axes, NumPy's limit on dimensions`);
  const zero = shape.indexOf(0);
  if (zero < 0) return { at, items: [] };
  // Only the axes before the first 0 hold lists; a hostile shape must not allocate billions of them.
  try { buildable(shape, 'the shape'); } catch (e) { failAt(text, at, e.message); }
  const build = (d) => ({ at, items: d < zero ? Array.from({ length: shape[d] }, () => build(d + 1)) : [] });
  return build(0);
}

/** The list starting at text[i] === '[' → {node, end}: one pass with a stack, so a 1 MB paste stays linear. */
function scanList(text, i) {
  const token = /[[\]]|,|[^\s,[\]]+/g;
  token.lastIndex = i;
  const stack = [];
  let expectValue = true; // after “[” or “,”: a second “,” there has no value before it
  for (let m; (m = token.exec(text));) {
    const [s] = m;
    const at = m.index;
    if (s === '[') {
      if (stack.length === MAX_DIMS) failAt(text, at, `the lists are nested more than ${MAX_DIMS} deep, NumPy's limit on dimensions`);
      const list = { at, items: [] };
      stack[stack.length - 1]?.items.push(list);
      stack.push(list);
      expectValue = true;
    } else if (s === ']') {
      const list = stack.pop();
      if (!stack.length) return { node: list, end: token.lastIndex };
      expectValue = false;
    } else if (s === ',') {
      if (expectValue) failAt(text, at, 'a “,” with no value before it');
      expectValue = true;
    } else {
      stack[stack.length - 1].items.push({ at, s });
      expectValue = false;
    }
  }
  throw new Error(`unclosed bracket: the text ends before the “]” of the “[” at ${lineCol(text, stack[stack.length - 1].at)}`);
}

/** Where an element or list of an nd-dimensional array is, for messages: `row 1, column 2` in 2-D, else `index 1, 0, 2`. */
function label(path, nd) {
  if (nd === 2 && path.length) return path.length === 1 ? `row ${path[0]}` : `row ${path[0]}, column ${path[1]}`;
  return path.length ? `index ${path.join(', ')}` : 'the array';
}

/** A scanned node → nested arrays of numbers, checked to be a rectangular array; or an Error naming where it is not. */
function nested(text, root) {
  const shape = [];
  for (let n = root; n.items; n = n.items[0]) {
    shape.push(n.items.length);
    if (!n.items.length) break;
  }
  const nd = shape.length;
  const path = [];
  const where = (node) => `${label(path, nd)} (${lineCol(text, node.at)})`;
  // A repr's dtype (`array(…, dtype=float32)`) rounds every number inside it.
  const build = (node, outerRound) => {
    const round = node.round ?? outerRound;
    const d = path.length;
    if (d === nd) {
      if (node.items) throw new Error(`${where(node)} is a list where a number belongs: the array mixes numbers and nested lists`);
      const x = numberAt(text, node, where);
      return round ? round(x) : x;
    }
    if (!node.items) throw new Error(`${where(node)} is a number where a list of ${shape[d]} belongs: the array mixes numbers and nested lists`);
    if (node.items.length !== shape[d]) {
      throw new Error(`ragged array: ${where(node)} has ${node.items.length} item${node.items.length === 1 ? '' : 's'}, ${label(new Array(d).fill(0), nd)} has ${shape[d]}`);
    }
    const out = new Array(shape[d]);
    for (let k = 0; k < shape[d]; k++) {
      path.push(k);
      out[k] = build(node.items[k], round);
      path.pop();
    }
    return out;
  };
  return build(root);
}

// Each digit can match in one place only (not `\d+\.?\d*`, whose two runs trade digits: quadratic on 100,000 of them).
const PLAIN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL = new Map([
  ...['nan', '+nan', '-nan'].map((s) => [s, NaN]),
  ...['inf', '+inf', 'infinity', '+infinity'].map((s) => [s, Infinity]),
  ['-inf', -Infinity], ['-infinity', -Infinity],
  ['true', 1], ['false', 0], ['np.true_', 1], ['np.false_', 0], ['numpy.true_', 1], ['numpy.false_', 0],
]);
// A NumPy or PyTorch scalar's repr around its number: `np.float64(1.5)`, `tensor(2.)` (a list of them: forgotten .tolist()).
const SCALAR = /^(?:((?:np|numpy)\.\w+)|(?:torch\.)?tensor)\((.*)\)$/;

/**
 * The number a text token stands for (Python's spellings of NaN, ±inf, True, False too), or undefined. Scalar reprs
 * around it are peeled in a loop, at most MAX_CALLS of them (20,000 nested calls once exhausted the stack).
 */
function numberOf(s) {
  const rounds = [];
  for (let depth = 0; depth <= MAX_CALLS; depth++) {
    if (PLAIN.test(s)) return rounded(Number(s), rounds);
    const special = SPECIAL.get(s.toLowerCase());
    if (special !== undefined) return rounded(special, rounds);
    const scalar = SCALAR.exec(s);
    if (!scalar) return undefined;
    if (scalar[1]) rounds.push(roundingOf(scalar[1])); // `np.float32(0.1)`
    s = scalar[2].trim();
  }
  return undefined;
}

/** x rounded by each scalar call around it, innermost first. */
function rounded(x, rounds) {
  for (let k = rounds.length - 1; k >= 0; k--) if (rounds[k]) x = rounds[k](x);
  return x;
}

/** Is this token a complex number (`1+2j`, `(1-2.5e3j)`, `3j`)? Each part is read by PLAIN: no regex that backtracks. */
function isComplex(s) {
  const t = s.replace(/^\((.*)\)$/, '$1');
  if (!/j$/i.test(t)) return false;
  const body = t.slice(0, -1);
  // The imaginary part starts at the last sign that is not an exponent's.
  let k = body.length - 1;
  while (k > 0 && !((body[k] === '+' || body[k] === '-') && !/[eE]/.test(body[k - 1]))) k--;
  const [real, imag] = k > 0 ? [body.slice(0, k), body.slice(k)] : ['0', body];
  return PLAIN.test(real) && PLAIN.test(imag);
}

/** How many scalar calls are nested around a token's middle (counted up to MAX_CALLS + 1). */
function callDepth(s) {
  let depth = 0;
  for (let m; depth <= MAX_CALLS && (m = SCALAR.exec(s)); s = m[2].trim()) depth++;
  return depth;
}

/** The number of a scanned token, or an Error saying what the token is instead. */
function numberAt(text, node, where) {
  const x = numberOf(node.s);
  if (x !== undefined) return x;
  const s = node.s;
  let why = `“${cut(s)}” is not a number`;
  if (s === '...' || s === '…') {
    why = 'the array was summarized by NumPy: “...” stands for values it left out. Print it whole with '
      + 'np.set_printoptions(threshold=sys.maxsize), or give a.tolist()';
  } else if (isComplex(s)) {
    why = `“${cut(s)}” is a complex number: complex arrays are not supported (give a.real, a.imag or np.abs(a))`;
  } else if (SCALAR.test(s) && callDepth(s) > MAX_CALLS) {
    why = `“${cut(s)}” nests more than ${MAX_CALLS} calls around a number`;
  } else if (s === 'null') {
    why = '“null” is not a number (JavaScript’s JSON.stringify writes NaN and Infinity as null)';
  }
  throw new Error(`${where(node)}: ${why}`);
}

/**
 * Rows of numbers, one a line, separated by tabs, commas or semicolons (whichever the first row has) or else by
 * spaces → a 2-D array, as np.loadtxt(f, ndmin=2) reads them; one number alone → that number. Blank lines and
 * lines starting with “#” (np.savetxt's header) are skipped; so is a first row with no number in it (column names).
 */
function readRows(text) {
  const rows = []; // {at: where its line starts, line, fields: [text of each value]}; positions are found on errors only
  let sep; // the first row's, once: null for spaces (`??=` would look again on every row after a row of spaces)
  for (const m of text.matchAll(/[^\r\n]+/g)) {
    const [line] = m;
    const first = line.search(/\S/);
    if (first < 0 || line[first] === '#') continue;
    if (sep === undefined) sep = ['\t', ',', ';'].find((c) => line.includes(c)) ?? null;
    rows.push({ at: m.index, line, fields: sep === null ? line.trim().split(/\s+/) : line.split(sep).map((f) => f.trim()) });
  }
  if (!rows.length) throw new Error('the text holds no rows of numbers, only blank lines and # comments');
  /** Field c of a row as a token {at, s} for messages. */
  const token = (row, c) => {
    const pieces = sep === null ? [...row.line.matchAll(/\S+/g)] : null;
    let at = row.at + (pieces ? pieces[c].index : row.line.split(sep).slice(0, c).reduce((n, f) => n + f.length + 1, 0));
    if (!pieces) at += Math.max(0, row.line.split(sep)[c].search(/\S/));
    return { at, s: row.fields[c] };
  };
  if (rows.length === 1 && rows[0].fields.length === 1 && sep === null) return numberAt(text, token(rows[0], 0), (t) => lineCol(text, t.at));
  if (rows.length > 1 && rows[0].fields.every((f) => numberOf(f) === undefined)) rows.shift();
  const width = rows[0].fields.length;
  const out = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const { fields } = rows[r];
    if (fields.length !== width) {
      throw new Error(`ragged rows: row ${r} (${lineCol(text, token(rows[r], 0).at)}) has ${fields.length} value${fields.length === 1 ? '' : 's'}, row 0 has ${width}`);
    }
    const values = new Array(width);
    for (let c = 0; c < width; c++) {
      // The common case first: a paste can hold 200 000 numbers.
      const x = PLAIN.test(fields[c]) ? Number(fields[c]) : numberOf(fields[c]);
      if (x !== undefined) { values[c] = x; continue; }
      const where = (t) => `row ${r}, column ${c} (${lineCol(text, t.at)})`;
      if (fields[c] === '') throw new Error(`${where(token(rows[r], c))}: an empty value between two “${sep === '\t' ? '\\t' : sep}”`);
      numberAt(text, token(rows[r], c), where);
    }
    out[r] = values;
  }
  return out;
}

/** A JSON object (or Python dict) of arrays → {name: array}; a value's errors are prefixed with its name. */
function readObject(text) {
  const KEY = /\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*:\s*/y;
  const pairs = [];
  let j = text.indexOf('{') + 1;
  for (;;) {
    let k = skipSpace(text, j);
    if (text[k] === '}') { j = k + 1; break; } // `{}`, or a trailing comma as Python allows
    KEY.lastIndex = j;
    const key = KEY.exec(text);
    if (!key) failAt(text, k, `expected a quoted name and “:”, found ${shownAt(text, k)}`);
    let name;
    try {
      name = key[1][0] === '"' ? JSON.parse(key[1]) : key[1].slice(1, -1);
    } catch {
      failAt(text, k, `the name ${cut(key[1])} is not a valid JSON string`);
    }
    j = KEY.lastIndex;
    let value;
    try {
      if (text[j] === '[' || wrapperAt(text, j)) {
        const { node, end } = scanValue(text, j);
        value = nested(text, node);
        j = end;
      } else {
        ATOM.lastIndex = j;
        const atom = ATOM.exec(text);
        if (!atom) failAt(text, j, `expected an array, found ${shownAt(text, j)}`);
        value = numberAt(text, { at: j, s: atom[0] }, (n) => lineCol(text, n.at));
        j = ATOM.lastIndex;
      }
    } catch (e) {
      throw new Error(`“${cut(name)}”: ${e.message}`);
    }
    pairs.push([name, value]);
    k = skipSpace(text, j);
    j = k + 1;
    if (text[k] === '}') break;
    if (text[k] !== ',') failAt(text, k, `expected “,” or “}” after the array “${cut(name)}”, found ${shownAt(text, k)}`);
  }
  const k = skipSpace(text, j);
  if (k < text.length) failAt(text, k, `unexpected ${shownAt(text, k)} after the object`);
  return named(pairs);
}
