// attention-viz — the one public entry point (ES module).
//
// Loads the Rust/WASM core and exposes it as plain JavaScript: `ready`,
// `compute(config)`, `RandomState`, `presets`, and the trained models (`models`, `train()`, compute()'s
// `mechanism: "model"`: www/train.js). Everything numeric happens
// in Rust; this file only converts between JS values and the core's JSON and
// typed arrays. See README.md for the API and ARCHITECTURE.md for the data path.

import * as core from './core.js';
import { defineElement } from './element/index.js';
import { DECLARED, LAYER_FIELDS, LONG_LIST, MATRICES, MAX_RANDOM } from './element/facts.js';
export { parseArray, parseArrays } from './arrays.js';
import { loadInflate, inflateLoaded, inflateRaw } from './arrays.js';
import { declareModels, handOverModels, isModelConfig, keepCompiled, startTraining } from './train.js';
// The .wasm compiled, begun when compile.js ran; the models' file fetched when first asked (the single-file build
// inlines both).
import { coreModule, modelsFile, wholeModule } from './compile.js';
import { FIGURE_SOURCE, WASM_SOURCE } from './wasm-source.js';

/** The four seed documents' configs by name, filled in when `ready` resolves. */
export const presets = {};

/**
 * The shipped trained models by name (`reversal`, `induction`): plain JSON model objects, readable once `loadModels()`
 * has resolved (before that, reading one throws an Error saying to await it). Their names are there once `ready` resolves.
 */
export const models = {};

let initialised = false;

// The figure core (compile.js's coreModule, begun as early as the page can), which the element's figures run: the
// presets are its facts. The whole core (core.js) is loaded when something needs it: `ready`, a part of a figure
// (the element's `loadWhole`), the shipped models.
const coreReady = coreModule.then((module) => core.initFigure(module)).then(() => {
  Object.assign(presets, core.call({ kind: 'facts' }).presets);
  initialised = true;
});
coreReady.catch(() => {});

let wholeLoading = null;
let wholeLoaded = false;
let arrived;
/** Resolves when the whole core is loaded, by whoever asked (never starts it, never rejects). */
const wholeArrived = new Promise((resolve) => { arrived = resolve; });
/**
 * Loads the whole core (core.js `loadWhole`: its .wasm fetched and compiled, wholeModule) once; resolves when every
 * export of the API works (the shipped models' names declared). A failure is tried again by the next call.
 */
function loadWhole() {
  const module = wholeModule(); // fetched and compiled while the figure core starts, if it has not yet
  wholeLoading ??= coreReady.then(() => core.loadWhole(module)).then(() => {
    if (!wholeLoaded) declareModels(models);
    wholeLoaded = true;
    keepCompiled(wholeModule());
    arrived();
  });
  wholeLoading.catch(() => { wholeLoading = null; });
  return wholeLoading;
}

let startReady;
const readyAsked = new Promise((resolve) => { startReady = resolve; });
/**
 * `ready`: a promise that starts its work when first awaited (`then`), so that importing the module loads only the
 * figure core. Its derived promises are plain ones.
 */
class OnDemand extends Promise {
  static get [Symbol.species]() { return Promise; }

  then(onFulfilled, onRejected) {
    startReady();
    return super.then(onFulfilled, onRejected);
  }
}

/**
 * Resolves once the WASM core is initialised, the whole of it (`presets` and the models' names filled), and the
 * inflater a compressed .npz needs (www/arrays.js loadInflate) is loaded. Loading starts when it is first awaited: the
 * element's figures need only the figure core and never wait for it. One inflater that cannot be loaded leaves
 * `ready` resolving, and only a compressed .npz says why. A failure is for whoever awaits it to see: never an
 * unhandled rejection at import, which ends a Node process (a static site's build importing this module for its
 * types or its SVG).
 */
export const ready = new OnDemand((resolve, reject) => {
  readyAsked.then(loadWhole).then(() => loadInflate().catch(() => {})).then(resolve, reject);
});

/* global COMPUTE_WORKER_SOURCE -- the compute worker bundled into a string by scripts/dist.mjs (esbuild `define`) */
/** The Blob URL of the bundled compute worker, made once. */
let computeWorkerURL = null;
let modelsLoading = null;
let modelsLoaded = false;
/**
 * Fetches the shipped models' file (pkg/attention_viz_models.bin beside the module; 92 KB gzipped, which no figure
 * of the seed presets needs, so `ready` does not wait for it) on the first call, and resolves with `models` once
 * they can be read. A failed fetch resolves too: reading a model, or a config naming one, then says why.
 */
export function loadModels() {
  modelsLoading ??= loadWhole().then(() => modelsFile()).then((file) => {
    handOverModels(file);
    modelsLoaded = true;
    return models;
  });
  modelsLoading.catch(() => { modelsLoading = null; });
  return modelsLoading;
}

/** What only the whole core does (RandomState, train(), a trained model) before it is loaded: the load starts. */
function assertWhole() {
  if (!wholeLoaded) {
    loadWhole().catch(() => {});
    throw new Error('attention-viz is still loading: await `ready` before calling it');
  }
}

function assertReady() {
  if (!initialised) throw new Error('attention-viz is still loading: await `ready` before calling it');
}

// JSON has no NaN or Infinity (JSON.stringify turns them into null); send them
// as strings so the core can say exactly which value is wrong.
function nonFiniteAsText(_key, value) {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
}

/**
 * JSON.stringify's replacer for a figure's config, fresh for each call: nonFiniteAsText, and a list longer than
 * LONG_LIST.longest anywhere outside the matrices written as the core's stand-in `{[LONG_LIST.key]: length}` before
 * any of its items is read. No field holds such a list (writing out and parsing a million `sinks` takes seconds);
 * the core refuses the stand-in in the words the list itself gets. `this` is the object holding `key`;
 * the first call's value (key "") is the config.
 */
function figureReplacer() {
  let root = null;
  const within = new WeakSet(); // the lists and objects inside a field that is not a matrix
  return function replace(key, value) {
    if (value === null || typeof value !== 'object') return nonFiniteAsText(key, value);
    if (root === null) {
      root = value;
      return value;
    }
    if (this === root ? MATRICES.includes(key) : !within.has(this)) return value;
    if (Array.isArray(value) && value.length > LONG_LIST.longest) return { [LONG_LIST.key]: value.length };
    within.add(value);
    return value;
  };
}

/** Longest text shown of a value a caller's code threw. */
const MAX_THROWN_TEXT = 200;

/**
 * What a caller's code threw (a getter, a toJSON, a Proxy trap), as text that cannot throw in
 * turn: an Error's message, or "threw <value>" for anything else; cut to 200 characters.
 */
function thrownText(e) {
  let text;
  try {
    text = e instanceof Error && typeof e.message === 'string' && e.message ? e.message : `threw ${String(e)}`;
  } catch {
    text = `threw a value that cannot be shown (${typeof e})`;
  }
  return text.length > MAX_THROWN_TEXT ? `${text.slice(0, MAX_THROWN_TEXT)}…` : text;
}

/** A value for a message, without calling any of its code: `5`, `bigint 3n`, `the string "x"`, `an object`. */
function describe(x) {
  switch (typeof x) {
    case 'bigint': return `bigint ${x}n`;
    case 'symbol': return `symbol ${String(x)}`;
    case 'string': return `the string ${JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}…` : x)}`;
    case 'function': return 'a function';
    case 'object': {
      if (x === null) return 'null';
      try { return Array.isArray(x) ? 'an array' : 'an object'; } catch { return 'an object'; }
    }
    default: return String(x); // number, boolean, undefined
  }
}

/**
 * `config` as JSON text, or the Error saying why it cannot be written. `figure`: it is a figure's config, whose long
 * lists outside the matrices go as the core's stand-in (figureReplacer); a model's run or a saved state is written
 * as it is.
 */
function configJson(config, figure = false) {
  const type = typeof config;
  if (config === undefined || type === 'function' || type === 'symbol' || type === 'bigint') {
    throw new Error(`config must be an object, got ${type}`);
  }
  let json;
  try {
    json = JSON.stringify(config, figure ? figureReplacer() : nonFiniteAsText);
  } catch (e) {
    // JSON.stringify's own refusals (a cycle, a BigInt, nesting past the stack) are TypeErrors and
    // RangeErrors; anything else was thrown by the config's own code (a getter, toJSON, a Proxy trap).
    const own = e instanceof TypeError || e instanceof RangeError;
    throw new Error(`config could not be read${own ? ' as JSON' : ''}: ${thrownText(e)}`);
  }
  if (typeof json !== 'string') throw new Error(`config must be an object, got ${describe(config)} that JSON cannot write`);
  return json.includes('\\ud') ? wellFormed(json) : json;
}

/**
 * JSON text with each lone surrogate (a JS string can hold one; JSON.stringify writes it as an escape, the only
 * \udXXX escape it writes) as U+FFFD, as Python's UTF-8 sends it: the core then judges the text where it stands
 * ("… is the text "\ufffd"") instead of refusing the whole config as malformed JSON. An escaped backslash before
 * "ud…" is not an escape.
 */
function wellFormed(json) {
  return json.replace(/(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g, '$1\\ufffd');
}

// The core's errors arrive as wasm-bindgen `JsError`s; re-throw a plain Error
// with the same message. A trap (a Rust panic) becomes an "internal error".
// Every public entry point runs through here, so whatever it throws is an Error with a message.
function callCore(fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      // A Rust panic trapped: report its message (kept by the panic hook). The module stays usable.
      let detail = e.message;
      try { detail = core.takeLastPanic() ?? detail; } catch { /* keep the trap's own message */ }
      throw new Error(`attention-viz internal error: ${detail}`);
    }
    let message;
    try { message = e instanceof Error && typeof e.message === 'string' && e.message ? e.message : null; } catch { message = null; }
    // wasm-bindgen's words for a Rust object an earlier trap left borrowed: the same bug, said as ours.
    if (message?.startsWith('recursive use of an object detected')) {
      throw new Error('attention-viz internal error: this state was left unusable by an earlier internal error (see the console)');
    }
    throw new Error(message ?? `attention-viz: ${thrownText(e)}`);
  }
}

// Plain loops into preallocated arrays: many times faster than Array.from(subarray).
function nested(shape, data) {
  const row = (start, length) => {
    const out = new Array(length);
    for (let j = 0; j < length; j++) out[j] = data[start + j];
    return out;
  };
  if (shape.length === 1) return row(0, shape[0]);
  if (shape.length > 2) { // a model's stack (layers × heads × n × m): one level at a time
    const [outer, ...inner] = shape;
    const size = inner.reduce((a, b) => a * b, 1);
    return Array.from({ length: outer }, (_, i) => nested(inner, data.subarray(i * size, (i + 1) * size)));
  }
  const [rows, cols] = shape;
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) out[i] = row(i * cols, cols);
  return out;
}

/**
 * Turns the core's flat fields into the documented trace object. A field is
 * `{shape, data}` (a Float64Array of its own) or `{shape, offset}` (its values
 * start at `heap[offset]`). `arrays` "typed" (or true): each field stays `{shape, data}` (compute's
 * `{arrays: "typed"}`), its data copied out of `heap` by one slice, so that it
 * outlives the next call into the core (which may move or reuse that memory); "views": `{shape, data}` with data a
 * view of `heap` itself (`{arrays: "views"}`: no copy, valid until the next call into the core).
 *
 * With one head, heads[0]'s fields are the top-level q, k, v, scores, scaled, weights
 * and context, in the same memory, and naive_weights is weights' when the core finds
 * their bits equal (layout() gives both one offset). Fields read from one place are one
 * value: typed, one Float64Array (a second copy would cost as much again, mostly in
 * allocating fresh pages); nested, one list of rows (building 7 n × n fields
 * instead of 3 made the nested form 1.5× the typed one, mostly in garbage collection).
 * FlashAttention's steps come as one table, `flash_steps` (flashSteps).
 */
function toTrace(raw, heap = null, arrays = 'nested') {
  const typed = arrays === true || arrays === 'typed' || arrays === 'views';
  const views = arrays === 'views';
  const trace = raw.mechanism === 'weights'
    ? { mechanism: 'weights', tokens: raw.tokens, key_tokens: raw.key_tokens }
    : { mechanism: raw.mechanism, scale: raw.scale };
  if (raw.mechanism === 'self' && raw.query_index !== undefined) trace.query = { index: raw.query_index };
  const read = new Map(); // "offset shape" → the value read from there
  for (const [name, { shape, data, offset }] of Object.entries(raw.fields)) {
    let value;
    if (shape.length === 0) value = data ? data[0] : heap[offset]; // a number (decode.step, decode.cache_size…)
    else if (data) value = typed ? { shape, data } : nested(shape, data);
    else {
      const end = offset + shape.reduce((a, b) => a * b, 1);
      const key = `${offset} ${shape}`;
      const first = read.get(key);
      if (typed) value = { shape, data: first?.data ?? (views ? heap.subarray(offset, end) : heap.slice(offset, end)) };
      else value = first ?? nested(shape, heap.subarray(offset, end));
      if (!first) read.set(key, value);
    }
    // Dotted names nest: a number part is an index into a list (heads.{i}.{stage}), any other part a key
    // (query.masked, decode.q).
    const parts = name.split('.');
    let at = trace;
    for (let p = 0; p < parts.length - 1; p++) {
      const key = /^\d+$/.test(parts[p]) ? Number(parts[p]) : parts[p];
      at = (at[key] ??= /^\d+$/.test(parts[p + 1]) ? [] : {});
    }
    at[parts[parts.length - 1]] = value;
  }
  if (raw.flash_steps) trace.flash.steps = flashSteps(raw.flash_steps, heap, typed);
  return trace;
}

/**
 * The trace's `flash.steps`, [{q_block, k_block, m, l, o}, …], from the core's table of them (attention::Flash::table:
 * `width` numbers a step, q_block, k_block, its rows, then where its m, l and o start: in `data` when the core copied
 * them, else in `heap`), each vector and matrix as toTrace gives a field's: nested plain arrays, or typed, views of one
 * Float64Array holding every step's values (thousands of small tiles are thousands of small arrays: one buffer, read
 * by plain loops, instead of a Float64Array and a view each).
 */
function flashSteps({ table, width, o_cols: cols, data }, heap, typed) {
  const source = data ?? heap;
  let total = 0;
  for (let k = 0; k < table.length; k += width) total += table[k + 2] * (2 + cols);
  const copy = typed ? new Float64Array(total) : null;
  let filled = 0;
  const row = (at, length) => {
    const out = new Array(length);
    for (let j = 0; j < length; j++) out[j] = source[at + j];
    return out;
  };
  const part = (at, rows, wide) => { // a vector of `rows` numbers (wide 0), or rows × wide
    const length = rows * (wide || 1);
    if (typed) {
      for (let j = 0; j < length; j++) copy[filled + j] = source[at + j];
      filled += length;
      return { shape: wide ? [rows, wide] : [rows], data: copy.subarray(filled - length, filled) };
    }
    if (!wide) return row(at, rows);
    return Array.from({ length: rows }, (_, r) => row(at + r * wide, wide));
  };
  const steps = new Array(table.length / width);
  for (let s = 0, k = 0; s < steps.length; s++, k += width) {
    const rows = table[k + 2];
    steps[s] = { q_block: table[k], k_block: table[k + 1], m: part(table[k + 3], rows, 0), l: part(table[k + 4], rows, 0),
      o: part(table[k + 5], rows, cols) };
  }
  return steps;
}

/**
 * The shape of `value` if it is a non-empty, rectangular nesting of plain arrays of numbers (a model trace's vectors
 * and matrices), else undefined.
 */
function numericShape(value) {
  const shape = [];
  let x = value;
  for (; Array.isArray(x); x = x[0]) {
    if (x.length === 0) return undefined;
    shape.push(x.length);
  }
  if (typeof x !== 'number') return undefined;
  const fits = (y, depth) => (depth === shape.length
    ? typeof y === 'number'
    : Array.isArray(y) && y.length === shape[depth] && y.every((z) => fits(z, depth + 1)));
  return fits(value, 0) ? shape : undefined;
}

/** A trace built of nested arrays (the model path's) with every vector and matrix as `{shape, data}`, row-major. */
function typedTree(value) {
  if (Array.isArray(value)) {
    const shape = numericShape(value);
    if (!shape) return value.map(typedTree); // a list of names, or of objects (layers, heads)
    const data = new Float64Array(shape.reduce((a, b) => a * b, 1));
    let k = 0;
    const fill = (y) => { if (typeof y === 'number') data[k++] = y; else for (const z of y) fill(z); };
    fill(value);
    return { shape, data };
  }
  if (value !== null && typeof value === 'object') {
    const out = {};
    for (const key of Object.keys(value)) out[key] = typedTree(value[key]);
    return out;
  }
  return value;
}

/** compute()'s options and the values each takes (the first is the default; `fields`: the core reads it). */
const COMPUTE_OPTIONS = { arrays: ['nested', 'typed', 'views'], fields: null };

/**
 * compute()'s `options` read: `{arrays, fields}` (`fields` as given: the core checks it, undefined for every field).
 * Anything else than `undefined`, `null` or an object of known options with allowed values is a TypeError naming the
 * option and what it takes.
 */
function computeOptions(options) {
  if (options === undefined || options === null) return { arrays: 'nested', fields: undefined };
  const allowed = (name) => COMPUTE_OPTIONS[name].map((v) => JSON.stringify(v)).join(' or ');
  const example = '{arrays: "typed"}';
  let arrays, fields;
  try {
    if (typeof options !== 'object' || Array.isArray(options)) {
      throw new TypeError(`compute: options must be an object such as ${example}, got ${describe(options)}`);
    }
    const unknown = Object.keys(options).find((k) => !Object.hasOwn(COMPUTE_OPTIONS, k));
    if (unknown !== undefined) {
      throw new TypeError(`compute: unknown option ${JSON.stringify(unknown)}; the options are: arrays (${allowed('arrays')}), fields (a list of trace field names)`);
    }
    ({ arrays, fields } = options);
  } catch (e) {
    if (e instanceof TypeError && e.message.startsWith('compute: ')) throw e;
    throw new TypeError(`compute: options could not be read: ${thrownText(e)}`);
  }
  if (arrays !== undefined && !COMPUTE_OPTIONS.arrays.includes(arrays)) {
    throw new TypeError(`compute: options.arrays must be ${allowed('arrays')}, got ${describe(arrays)}`);
  }
  return { arrays: arrays ?? 'nested', fields: fields ?? undefined };
}

/** The config fields compute()'s fast path sends flat: its matrices. */

/**
 * A model's attention (n × m, h × n × m or layers × h × n × m) as the rows of one matrix and its
 * leading axes: `{rows, lead}` (lead: [], [h] or [layers, h]), or undefined unless every level is a non-empty plain list
 * of equal length (the JSON path then says what is wrong, and where).
 */
function stackRows(value) {
  const shape = [];
  for (let x = value; isList(x); x = x[0]) {
    if (x.length === 0) return undefined;
    shape.push(x.length);
  }
  if (shape.length < 2 || shape.length > 4) return undefined;
  const lead = shape.slice(0, -2);
  const rows = [];
  const walk = (x, depth) => {
    if (!isList(x) || x.length !== shape[depth]) return false;
    if (depth === lead.length) { rows.push(...x); return true; }
    return x.every((y) => walk(y, depth + 1));
  };
  if (!walk(value, 0)) return undefined;
  return { rows, lead };
}

/** An array JSON.stringify writes as a plain list (no toJSON of its own). */
const isList = (value) => Array.isArray(value) && typeof value.toJSON !== 'function';

/**
 * A numeric field that Python packed, once the element's `unpack` has read its bytes: its values in row-major order
 * (a Float64Array) and its shape, standing for the nested arrays of its JSON. `flatConfig` hands the values to the core
 * as they are: a 12 × 12 × 128 stack built as nested arrays only to be flattened again took ~300 ms of its load. JSON
 * writes it as those nested arrays (`toJSON`), so the JSON path, a persist key's hash or a saved config read what
 * they read before.
 */
class Shaped {
  constructor(shape, data) {
    this.shape = shape;
    this.data = data;
    Object.freeze(this);
  }

  toJSON() {
    const { shape, data } = this;
    const last = shape[shape.length - 1];
    let at = 0;
    const build = (d) => (d + 1 === shape.length ? Array.from(data.subarray(at, (at += last)))
      : Array.from({ length: shape[d] }, () => build(d + 1)));
    return build(0);
  }
}

/** A field as python/attention_viz/_figure.py packs it: `{dtype, shape, text85 | base64, deflate?}` (www/element/index.js
 * unpack; `base64` in older outputs). */
const isPacked = (value) => value !== null && typeof value === 'object'
  && (typeof value.text85 === 'string' || typeof value.base64 === 'string')
  && isList(value.shape) && value.shape.every((d) => Number.isSafeInteger(d) && d >= 0);

/**
 * Refuses `config` by the sizes its matrices declare, before anything copies or stringifies them: the core's
 * message for a matrix over its limits or a config over its cost bound (the core's `config::check_declared_shapes`).
 * Reads only each matrix's length and its first elements' lengths; anything it cannot read is left to the full path.
 */
function checkDeclared(config) {
  let rest, shapes;
  try {
    if (config === null || typeof config !== 'object' || isList(config)) return;
    rest = {};
    shapes = {};
    for (const key of DECLARED.fields) {
      const v = config[key];
      if (typeof v === 'string' || typeof v === 'number') rest[key] = v;
    }
    for (const key of [...MATRICES, ...DECLARED.vectors]) {
      const value = config[key];
      if (isPacked(value) || value instanceof Shaped) {
        // Python's bytes (the element's unpack() reads them): their declared shape, before they are inflated.
        const s = value.shape;
        shapes[key] = key === 'attention' ? s : DECLARED.vectors.includes(key) ? [s[0]] : [s[0], s[1] ?? 0];
        continue;
      }
      if (!isList(value)) continue;
      if (DECLARED.vectors.includes(key)) { shapes[key] = [value.length]; continue; }
      const shape = [];
      for (let x = value; isList(x) && shape.length < 5; x = x[0]) shape.push(x.length);
      shapes[key] = key === 'attention' ? shape : [value.length, shape[1] ?? 0];
    }
  } catch { return; } // a throwing getter or Proxy: the full path reports it
  core.call({ kind: 'check_declared', ...declaredRequest(rest, shapes) });
}

/**
 * A config's few fields `rest` and its matrices' declared `shapes` ({name: dims}) as a request's config: the shapes by
 * name (the core judges them in that order), one with a dimension that is not a whole number ≥ 0 left to the full path.
 */
const declaredRequest = (rest, shapes) => ({
  config_json: JSON.stringify(rest, figureReplacer()),
  flat: Object.keys(shapes).sort().filter((name) => shapes[name].every((d) => Number.isSafeInteger(d) && d >= 0))
    .map((name) => ({ name, shape: shapes[name] })),
});

/**
 * Whether a read-only figure of `config` is computed by a Worker (www/element/large.js): the core's
 * `config::worker_takes`, from the declared shapes and the few fields it names (no matrix is read or copied).
 */
function largeTakes(config) {
  let rest, shapes;
  try {
    if (config === null || typeof config !== 'object' || isList(config)) return false;
    rest = {};
    shapes = {};
    for (const key of ['mechanism', 'heads', 'kv_heads', 'scoring', 'position', 'decode_step', 'tiles']) {
      const v = config[key];
      if (v !== undefined && (v === null || typeof v !== 'object' || isList(v) || key === 'position')) rest[key] = v;
    }
    // A real layer's fields only say they are there: the core judges what the worker shows.
    for (const key of LAYER_FIELDS) if (config[key] !== undefined && config[key] !== null) rest[key] = true;
    if (rest.position !== undefined && rest.position !== null) rest.position = { kind: String(rest.position.kind) };
    for (const key of [...MATRICES, ...DECLARED.vectors]) {
      const value = config[key];
      if (isPacked(value) || value instanceof Shaped) { shapes[key] = value.shape.slice(0, 4); continue; }
      if (!isList(value)) continue;
      const shape = [];
      for (let x = value; isList(x) && shape.length < 4; x = x[0]) shape.push(x.length);
      shapes[key] = key === 'attention' ? shape : [value.length, shape[1] ?? 0];
    }
  } catch { return false; }
  return core.call({ kind: 'large_takes', ...declaredRequest(rest, shapes) });
}

/**
 * compute()'s fast path, for a plain object whose matrices are all clean: a
 * non-empty list of equal-length, non-empty rows of finite numbers. Returns
 * `{json, names, shapes, data}` for the core's `compute` (the matrices flat in
 * one Float64Array, the rest of the config as JSON), or undefined for anything
 * else, which takes the JSON path. The core validates either way. Every value
 * is read once, as JSON.stringify reads it.
 */
function flatConfig(config) {
  if (config === null || typeof config !== 'object') return undefined;
  try {
    const proto = Object.getPrototypeOf(config); // a Proxy's trap may throw: the JSON path reports it
    if ((proto !== Object.prototype && proto !== null) || typeof config.toJSON === 'function') return undefined;
    const rest = Object.create(null); // no prototype: an own "__proto__" key stays a key
    const names = [], shapes = [], matrices = [];
    let total = 0;
    for (const key of Object.keys(config)) {
      const value = config[key];
      if (!MATRICES.includes(key)) {
        rest[key] = value;
        continue;
      }
      if (value instanceof Shaped) {
        // Its values as they are: a matrix, or a stack of 1 to 2 leading axes; nothing empty (Python packs none).
        const { shape } = value;
        if (shape.length < 2 || shape.length > (key === 'attention' ? 4 : 2) || shape.includes(0)) return undefined;
        names.push(key);
        shapes.push(shape.length, ...shape);
        matrices.push({ rows: [value.data], cols: value.data.length }); // one row of all its values: read as any row is
        total += value.data.length;
        continue;
      }
      if (!isList(value) || value.length === 0) return undefined;
      let source = value;
      let lead = [];
      if (key === 'attention') {
        const stack = stackRows(value);
        if (!stack) return undefined;
        ({ rows: source, lead } = stack);
      }
      const rows = [];
      let cols = 0;
      for (let i = 0; i < source.length; i++) {
        const row = source[i];
        if (!isList(row)) return undefined;
        const length = row.length;
        if (length === 0 || (i > 0 && length !== cols)) return undefined;
        cols = length;
        rows.push(row);
      }
      names.push(key);
      // Its rank, then its axes: a stack's leading axes (heads, or layers and heads), then one matrix's rows and cols.
      shapes.push(lead.length + 2, ...lead, rows.length / lead.reduce((a, b) => a * b, 1), cols);
      matrices.push({ rows, cols });
      total += rows.length * cols;
    }
    const data = new Float64Array(total);
    let k = 0;
    for (const { rows, cols } of matrices) {
      for (const row of rows) {
        for (let j = 0; j < cols; j++) {
          const x = row[j];
          if (typeof x !== 'number' || x - x !== 0) return undefined; // x - x is NaN for NaN and ±Infinity
          data[k++] = x + 0; // -0 becomes 0, as JSON.stringify writes it
        }
      }
    }
    return { json: JSON.stringify(rest, figureReplacer()), names, shapes, data };
  } catch {
    return undefined; // a throwing getter, a cycle in the rest, too large to allocate…: the JSON path reports it
  }
}

/**
 * Runs one attention computation. Returns the trace — self: q, k, v (whole
 * projections), heads [{q, k, v, scores, scaled, weights, context}, …] (one per
 * head), context (the heads side by side), output (with w_o), and with one head
 * scores, scaled, weights, naive_weights; scale; query {index, scores, scaled,
 * exp, sum, weights, terms, context, masked, features (additive)}; with the modern fields: pe, each head's q_rot,
 * k_rot or bias, decode {step, q, k_cache, v_cache, scores, scaled, weights, context, cache_size, recompute_cost} and
 * flash {tiles, steps: [{q_block, k_block, m, l, o}, …]}; with a real layer's fields each head's q_normed, k_normed
 * and capped (the softmax's input with softcap; top level with one head, query.capped, decode.capped) (README
 * "Trace"); cross: scores,
 * scaled, weights, naive_weights, applied (d × m), context (d), scale, query
 * {masked, features}; model (mechanism "model", www/train.js): input, tokens,
 * prediction, probabilities, logits, layers [{heads: [{q, k, v, scores, scaled,
 * weights, context}]}]. Masked entries of scaled are -Infinity. Throws an Error
 * naming the bad field.
 *
 * `options.arrays`: "nested" (default) gives every vector and matrix as nested
 * plain arrays; "typed" gives each as `{shape, data}`, a Float64Array of its
 * values in row-major order (the same numbers bit for bit, without building
 * the arrays). Bad options throw a TypeError.
 */
export function compute(config, options = undefined) {
  const asked = computeOptions(options);
  return callCore(() => {
    assertReady();
    if (isModelConfig(config)) return modelTrace(config, asked);
    checkDeclared(config);
    const flat = flatConfig(config);
    // undefined from the core: it could not read the rest as JSON (nested too deep, say); the JSON path says where.
    const held = flat && core.call({ kind: 'compute', ...core.flatRequest(flat), fields: asked.fields }, flat.data);
    if (!held) return computeViaJson(config, asked);
    return readHeld(held, asked.arrays);
  });
}

/** A trace the core holds in its memory (its last `compute`'s: the layout `held` gives) as the trace object. */
function readHeld(held, arrays) {
  return toTrace(held, new Float64Array(core.memory().buffer), arrays); // the view after the last call into the core
}

/**
 * The model path (the core's `compute_model`: a shipped model or a model object on token ids), typed on request
 * ("views" too: its arrays are its own). The core refuses `fields` for it.
 */
function modelTrace(config, { arrays, fields }) {
  assertWhole();
  const trace = core.call({ kind: 'compute_model', config_json: configJson(config), fields });
  return arrays === 'nested' ? trace : typedTree(trace);
}

/**
 * Trains a model in a Web Worker: train({task, seed = 0, steps, every = 25, onProgress, signal}) → a Promise of the
 * model object, with `.pause()`, `.resume()`, `.cancel()` (README "Trained models"). Bad options throw an Error.
 */
export function train(options) {
  return callCore(() => {
    assertWhole();
    return startTraining(options);
  });
}

/** compute() for any config: all of it as JSON to the core, the trace read where the core holds it (as the fast path does). */
function computeViaJson(config, asked = computeOptions()) {
  if (isModelConfig(config)) return modelTrace(config, asked); // the test hook's way in: no JSON path of its own
  callCore(() => checkDeclared(config));
  const json = configJson(config, true);
  return readHeld(callCore(() => core.call({ kind: 'compute', config_json: json, fields: asked.fields })), asked.arrays);
}

/** The config with every default filled in (mechanism, tokens, scale, query). */
export function normalizeConfig(config) {
  return callCore(() => {
    assertReady();
    checkDeclared(config);
    const json = configJson(config, true);
    return core.call({ kind: 'normalize', config_json: json });
  });
}

/** Longest `view`, `palette` or `fmt` renderSVG takes (the longest real one is a dozen characters). */
const MAX_NAME = 100;

/** `value` as renderSVG's argument `name`: a short string, or undefined (from undefined or null) when `optional`. */
function textArg(value, name, what, optional) {
  if (optional && (value === undefined || value === null)) return undefined;
  if (typeof value !== 'string') {
    throw new Error(`renderSVG: ${name} must be a string (${what})${optional ? ' or undefined' : ''}, got ${describe(value)}`);
  }
  if (value.length > MAX_NAME) {
    throw new Error(`renderSVG: ${name} is ${value.length} characters long; at most ${MAX_NAME} are supported`);
  }
  return value;
}

/**
 * A standalone SVG string of one heatmap (`view` is a config or trace field:
 * embeddings, w_q, w_k, w_v, q, k, v, scores, scaled, weights, naive_weights,
 * context, decoder_state, annotations, applied), drawn by the same Rust code
 * as the canvas. `palette` overrides the view's default colormap; `fmt` is how the
 * numbers are written, a format spec of seaborn's `heatmap(fmt=…)` (default ".2g").
 * Arguments are type-checked before anything reaches the core.
 */
export function renderSVG(config, view, palette = undefined, fmt = undefined) {
  return callCore(() => {
    assertWhole(); // SVG export is the whole core's, not the figure core's
    const v = textArg(view, 'view', 'a config or trace field such as "weights"', false);
    const p = textArg(palette, 'palette', 'a colormap name', true);
    const f = textArg(fmt, 'fmt', 'a format spec such as ".2g"', true);
    checkDeclared(config);
    const json = configJson(config, true);
    return core.call({ kind: 'svg', config_json: json, view: v, palette: p, fmt: f });
  });
}

/** Test hooks (not part of the documented API). */
export const _internal = {
  forceInternalError: () => callCore(() => core.call({ kind: 'panic' })),
  /** compute() through the JSON path only. */
  computeViaJson: (config, options) => { const asked = computeOptions(options); assertReady(); return computeViaJson(config, asked); },
  /** What compute()'s fast path sends the core, or undefined if it takes the JSON path. */
  flatConfig,
};

/** One input sequence of a trained model's task (token ids) as its training draws them, for the guided page (not part of
 * the documented API). */
export function _taskExample(task, seed) {
  assertWhole();
  return callCore(() => core.call({ kind: 'task_example', task, seed: seed >>> 0 }));
}

/** How each figure was made (the arguments of its `Viz`), for `wholeViz` to make it again in the whole core. */
const made = new WeakMap();

/** `new Viz(...args)` in the core `call` goes to (core.js `newViz`), remembered for `wholeViz`. */
function vizOf(...args) {
  const viz = core.newViz(...args);
  made.set(viz, args);
  return viz;
}

/**
 * A Viz of `config`: clean matrices sent flat (as compute() sends them), anything else as JSON. The core throws
 * `null` for a flat config whose other fields it cannot read as JSON: the whole JSON then says where the problem is.
 */
function newViz(config) {
  checkDeclared(config);
  const flat = flatConfig(config);
  if (flat) {
    try { return vizOf(flat.json, flat.names, flat.shapes, flat.data); } catch (e) { if (e !== null) throw e; }
  }
  return vizOf(configJson(config, true));
}

/**
 * `viz` (a figure core's figure) made again in the whole core, then given `edits` (every command it took since it was
 * made, in order, as `Viz.edit` took them): the same state, its last edit's changes and last Randomize included.
 * Throws the core's message.
 */
function wholeViz(viz, edits) {
  const copy = vizOf(...made.get(viz));
  try {
    for (const edit of edits) copy.edit(edit);
  } catch (e) {
    copy.free();
    throw e;
  }
  return copy;
}

/**
 * A `{config}` edit of `viz` for a config object, sent the same way (no snapshot: the element asks it after); returns
 * the command sent.
 */
function setVizConfig(viz, config) {
  checkDeclared(config);
  const flat = flatConfig(config);
  if (flat) {
    try { viz.edit({ config: flat }); return { config: flat }; } catch (e) { if (e !== null) throw e; }
  }
  const command = { config: configJson(config, true) };
  viz.edit(command);
  return command;
}

// MAX_RANDOM (facts.js, the core's): the most values one RandomState call may ask for; checked here from the shape,
// before a nested result is built (2^32 crashed the tab).
/** The most dimensions of a shape (NumPy's own limit before 2.0). */
const MAX_NDIM = 32;

/** A caller's list (a shape, a size) copied into a plain array; any throw while reading it becomes an Error. */
function readList(list, what) {
  let length, items;
  try {
    length = list.length;
    if (Number.isSafeInteger(length) && length >= 0 && length <= MAX_NDIM) items = Array.from({ length }, (_, i) => list[i]);
  } catch (e) {
    throw new Error(`${what}: shape could not be read: ${thrownText(e)}`);
  }
  if (items === undefined) throw new Error(`${what}: at most ${MAX_NDIM} dimensions are supported, got ${describe(length)}`);
  return items;
}

/** The dimensions of `rand(...args)`: non-negative integers (an array as the one argument is the shape). */
function shapeOf(args, what) {
  let list = args;
  try {
    if (args.length === 1 && Array.isArray(args[0])) list = args[0];
  } catch { /* a revoked Proxy: readList says so */ }
  const shape = readList(list, what);
  for (const s of shape) {
    if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0) {
      throw new Error(`${what}: dimensions must be non-negative integers, got ${describe(s)}`);
    }
  }
  return shape.map((s) => s + 0); // -0 → 0
}

function sizeArg(size) {
  if (size === undefined || size === null) return null;
  let isArray = false;
  try { isArray = Array.isArray(size); } catch { isArray = true; /* a revoked Proxy: readList says so */ }
  return shapeOf(isArray ? [size] : [[size]], 'size');
}

/** `call` as the caller wrote it, for a message: `rand(65536, 65537)`, `randint(3, null, [3, 3])`. */
const callText = (name, args) => `${name}(${args.map((a) => (Array.isArray(a) ? `[${a.join(', ')}]` : String(a))).join(', ')})`;

/**
 * How many values `shape` holds, refused past MAX_RANDOM — and past MAX_RANDOM nested arrays,
 * which a shape like (2**30, 0) would build around no values at all. Counts are float64 products:
 * nothing wraps.
 */
function checkedCount(shape, call) {
  if (shape === null) return 1;
  let count = 1, arrays = 0;
  for (let i = 0; i < shape.length; i++) {
    count *= shape[i];
    if (i < shape.length - 1) arrays += count;
  }
  if (count > MAX_RANDOM) throw new Error(`${call()} asks for ${count} values; at most ${MAX_RANDOM} are supported`);
  if (arrays > MAX_RANDOM) throw new Error(`${call()} builds ${arrays} arrays; at most ${MAX_RANDOM} are supported`);
  return count;
}

function reshape(flat, shape) {
  if (shape === null) return flat[0];
  if (shape.length === 0) return flat[0];
  let offset = 0;
  const build = (dim) => {
    const out = new Array(shape[dim]);
    for (let i = 0; i < shape[dim]; i++) out[i] = dim === shape.length - 1 ? flat[offset++] : build(dim + 1);
    return out;
  };
  return build(0);
}

function seedArg(seed) {
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) {
    throw new Error(`seed must be an integer between 0 and 2**32 - 1, got ${describe(seed)}`);
  }
  return seed;
}

function intArg(x, name) {
  if (typeof x !== 'number' || !Number.isInteger(x) || Math.abs(x) > 2 ** 53) {
    throw new Error(`randint: ${name} must be an integer (at most 2**53 in magnitude), got ${describe(x)}`);
  }
  return x;
}

/**
 * NumPy's legacy `np.random.RandomState`: the same seed gives the same numbers as
 * `np.random.seed(seed)` followed by the same calls — `randint` and `rand` bit for bit,
 * `randn` within 1 ulp (NumPy's `randn` goes through the platform's `log`; about 0.03 % of
 * values differ by 1 ulp). At most 131 072 values per call; every method throws an Error
 * with a message for anything else.
 */
export class RandomState {
  constructor(seed = 0) {
    this._core = callCore(() => {
      assertWhole();
      return new (core.wholeCore().RandomStateCore)(seedArg(seed));
    });
  }

  seed(seed) {
    callCore(() => this._core.call({ kind: 'seed', seed: seedArg(seed) }));
  }

  /** `randint(low, high=None, size=None)`; a number when size is omitted. */
  randint(low, high = null, size = null) {
    return callCore(() => {
      intArg(low, 'low');
      if (high !== null && high !== undefined) intArg(high, 'high');
      const shape = sizeArg(size);
      const n = checkedCount(shape, () => callText('randint', [low, high, shape.length === 1 && !Array.isArray(size) ? shape[0] : shape]));
      const [lo, hi] = high === null || high === undefined ? [0, low] : [low, high];
      return reshape(this._core.call({ kind: 'randint', low: lo, high: hi, count: n }), shape);
    });
  }

  /** `rand(*shape)`: uniform [0, 1) doubles; a number with no arguments. */
  rand(...shape) {
    return callCore(() => draw(this._core, 'rand', shape));
  }

  /** `randn(*shape)`: standard normal (legacy polar method, cached pair). */
  randn(...shape) {
    return callCore(() => draw(this._core, 'randn', shape));
  }

}

/** `rand(...args)` or `randn(...args)` of a RandomStateCore, shaped. */
function draw(rs, name, args) {
  const s = args.length ? shapeOf(args, name) : null;
  const n = checkedCount(s, () => callText(name, args.length === 1 && Array.isArray(args[0]) ? [s] : s));
  return reshape(rs.call({ kind: name, count: n }), s);
}

// <attention-viz> is registered as soon as this module is imported; it
// renders once `ready` resolves.
if (typeof customElements !== 'undefined') {
  defineElement({ ready: coreReady, loadInflate,
    // The whole core, for the parts that need it: loaded on demand; each figure then moves to it (`wholeViz`).
    loadWhole, wholeArrived, wholeLoaded: () => wholeLoaded, isWholeViz: core.isWholeViz, wholeViz, twoCores: FIGURE_SOURCE !== WASM_SOURCE, inflateLoaded, inflateRaw, presets, compute, models, loadModels, modelsLoaded: () => modelsLoaded, toTrace, callCore, configJson, newViz, setConfig: setVizConfig, RandomState, thrownText, checkPalette: (name) => callCore(() => core.call({ kind: 'palette', name })),
    // The core's limits from a config's declared shapes (packed ones too), before anything is built or copied; none
    // until the core is there (a persist key asked early: the load checks again).
    checkDeclared: (config) => { if (initialised) callCore(() => checkDeclared(config)); },
    // A read-only figure over the page's cost bound that a Worker computes (www/element/large.js).
    largeTakes: (config) => initialised && callCore(() => largeTakes(config)),
    largeCellText: (row, col, value) => core.call({ kind: 'large_cell_text', row, col, value }),
    largeMessage: (what, view, shown) => core.call({ kind: 'large_message', what, view, shown }),
    largeSvg: (title, rows, cols, block, pooling, image, bar, ticksAt, tickLabels, offset, shown) => callCore(() => core.call({
      kind: 'large_svg', title, rows, cols, block, pooling, image, bar, ticks: Array.from(ticksAt, (at, k) => [at, tickLabels[k]]), offset, shown,
    })),
    flatConfig, Shaped, isPacked,
    // Python's float32 bytes as the shortest decimals its JSON held (the core's rule, math::decimal).
    shortestDecimals: (values) => callCore(() => core.call({ kind: 'shortest', dtype: 'float32' }, Float64Array.from(values))),
    computeWorker: () => loadWhole().then(() => wholeModule()).then((module) => {
      // The dist builds carry the worker bundled (scripts/dist.mjs: COMPUTE_WORKER_SOURCE), started from a Blob URL;
      // www/ starts www/compute-worker.js beside the .wasm's folder (www/pkg/ → www/compute-worker.js).
      if (typeof COMPUTE_WORKER_SOURCE === 'string') {
        computeWorkerURL ??= URL.createObjectURL(new Blob([COMPUTE_WORKER_SOURCE], { type: 'text/javascript' }));
        return { module, worker: new Worker(computeWorkerURL, { name: 'attention-viz-compute' }) };
      }
      if (!(WASM_SOURCE instanceof URL)) throw new Error('this build of attention-viz has no compute worker');
      const url = new URL('../compute-worker.js', WASM_SOURCE);
      return { module, worker: new Worker(url, { type: 'module', name: 'attention-viz-compute' }) };
    }) });
}
