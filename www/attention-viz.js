// attention-viz — the one public entry point (ES module).
//
// Loads the Rust/WASM core and exposes it as plain JavaScript: `ready`,
// `compute(config)`, `RandomState` and `presets`. Everything numeric happens
// in Rust; this file only converts between JS values and the core's JSON and
// typed arrays. See README.md for the API and ARCHITECTURE.md for the data path.

import init, * as core from './pkg/attention_viz.js';
import { defineElement } from './element/index.js';
// The .wasm's URL (the single-file build swaps this module for one exporting its bytes).
import { WASM_SOURCE } from './wasm-source.js';

/** The four seed documents' configs by name, filled in when `ready` resolves. */
export const presets = {};

let initialised = false;
/** The WASM instance's memory, where `computeFlat`'s traces are read in place. */
let memory = null;

/** Resolves once the WASM module is initialised (and `presets` is filled). */
export const ready = init({ module_or_path: WASM_SOURCE }).then((exports) => {
  memory = exports.memory;
  for (const name of core.presetNames()) presets[name] = JSON.parse(core.presetJson(name));
  initialised = true;
});

function assertReady() {
  if (!initialised) throw new Error('attention-viz is still loading: await `ready` before calling it');
}

// JSON has no NaN or Infinity (JSON.stringify turns them into null); send them
// as strings so the core can say exactly which value is wrong.
function nonFiniteAsText(_key, value) {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
}

function configJson(config) {
  if (config === undefined || typeof config === 'function' || typeof config === 'symbol') {
    throw new Error(`config must be an object, got ${typeof config}`);
  }
  try {
    return JSON.stringify(config, nonFiniteAsText);
  } catch (e) {
    throw new Error(`config could not be read as JSON: ${e.message}`);
  }
}

// The core's errors arrive as wasm-bindgen `JsError`s; re-throw a plain Error
// with the same message. A trap (a Rust panic) becomes an "internal error".
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
    throw new Error(e && e.message ? e.message : String(e));
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
  const [rows, cols] = shape;
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) out[i] = row(i * cols, cols);
  return out;
}

/**
 * Turns the core's flat fields into the documented trace object. A field is
 * `{shape, data}` (a Float64Array of its own) or `{shape, offset}` (its values
 * start at `heap[offset]`).
 */
function toTrace(raw, heap = null) {
  const trace = { mechanism: raw.mechanism, scale: raw.scale };
  if (raw.mechanism === 'self') trace.query = { index: raw.query_index };
  for (const [name, { shape, data, offset }] of Object.entries(raw.fields)) {
    const value = nested(shape, data ?? heap.subarray(offset, offset + shape.reduce((a, b) => a * b, 1)));
    const [head, tail] = name.split('.');
    if (tail) trace[head][tail] = value;
    else trace[head] = value;
  }
  return trace;
}

/** The config fields compute()'s fast path sends flat: its matrices. */
const MATRICES = ['embeddings', 'w_q', 'w_k', 'w_v', 'annotations'];

/** An array JSON.stringify writes as a plain list (no toJSON of its own). */
const isList = (value) => Array.isArray(value) && typeof value.toJSON !== 'function';

/**
 * compute()'s fast path, for a plain object whose matrices are all clean: a
 * non-empty list of equal-length, non-empty rows of finite numbers. Returns
 * `{json, names, shapes, data}` for `core.computeFlat` (the matrices flat in
 * one Float64Array, the rest of the config as JSON), or undefined for anything
 * else, which takes the JSON path. The core validates either way. Every value
 * is read once, as JSON.stringify reads it.
 */
function flatConfig(config) {
  if (config === null || typeof config !== 'object') return undefined;
  const proto = Object.getPrototypeOf(config);
  if ((proto !== Object.prototype && proto !== null) || typeof config.toJSON === 'function') return undefined;
  try {
    const rest = Object.create(null); // no prototype: an own "__proto__" key stays a key
    const names = [], shapes = [], matrices = [];
    let total = 0;
    for (const key of Object.keys(config)) {
      const value = config[key];
      if (!MATRICES.includes(key)) {
        rest[key] = value;
        continue;
      }
      if (!isList(value) || value.length === 0) return undefined;
      const rows = [];
      let cols = 0;
      for (let i = 0; i < value.length; i++) {
        const row = value[i];
        if (!isList(row)) return undefined;
        const length = row.length;
        if (length === 0 || (i > 0 && length !== cols)) return undefined;
        cols = length;
        rows.push(row);
      }
      names.push(key);
      shapes.push(rows.length, cols);
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
    return { json: JSON.stringify(rest, nonFiniteAsText), names, shapes, data };
  } catch {
    return undefined; // a throwing getter, a cycle in the rest, too large to allocate…: the JSON path reports it
  }
}

/**
 * Runs one attention computation. Returns the trace — self: q, k, v, scores,
 * scaled, weights, naive_weights, context, scale, query {index, scores, scaled,
 * weights, terms, context}; cross: scores, scaled, weights, naive_weights,
 * applied (d × m), context (d), scale. Throws an Error naming the bad field.
 */
export function compute(config) {
  assertReady();
  const flat = flatConfig(config);
  // undefined from the core: it could not read the rest as JSON (nested too deep, say); the JSON path says where.
  const held = flat && callCore(() => core.computeFlat(flat.json, flat.names, flat.shapes, flat.data));
  if (!held) return computeViaJson(config);
  try {
    return toTrace(held.layout(), new Float64Array(memory.buffer)); // the view after the last call into the core
  } finally {
    held.free();
  }
}

/** compute() for any config: all of it as JSON to the core, the trace copied out field by field. */
function computeViaJson(config) {
  const json = configJson(config);
  return toTrace(callCore(() => core.computeJson(json)));
}

/** The config with every default filled in (mechanism, tokens, scale, query). */
export function normalizeConfig(config) {
  assertReady();
  const json = configJson(config);
  return JSON.parse(callCore(() => core.normalizeConfig(json)));
}

/**
 * A standalone SVG string of one heatmap (`view` is a config or trace field:
 * embeddings, w_q, w_k, w_v, q, k, v, scores, scaled, weights, naive_weights,
 * context, decoder_state, annotations, applied), drawn by the same Rust code
 * as the canvas. `palette` overrides the view's default colormap; `fmt` is how the
 * numbers are written, a format spec of seaborn's `heatmap(fmt=…)` (default ".2g").
 */
export function renderSVG(config, view, palette = undefined, fmt = undefined) {
  assertReady();
  const json = configJson(config);
  return callCore(() => core.renderSvg(json, String(view), palette ?? undefined, fmt ?? undefined));
}

/** Test hooks (not part of the documented API). */
export const _internal = {
  forceInternalError: () => callCore(() => core.forceInternalError()),
  /** compute() through the JSON path only. */
  computeViaJson: (config) => { assertReady(); return computeViaJson(config); },
  /** What compute()'s fast path sends the core, or undefined if it takes the JSON path. */
  flatConfig,
};

/** The Rust figure state, for the element (not part of the documented API). */
export function _viz(config) {
  assertReady();
  return callCore(() => newViz(config));
}

/** A Viz of `config`: clean matrices sent flat (as compute() sends them), anything else as JSON. */
function newViz(config) {
  const flat = flatConfig(config);
  return (flat && core.Viz.fromFlat(flat.json, flat.names, flat.shapes, flat.data)) || new core.Viz(configJson(config));
}

/** `viz.setConfig` for a config object, the same way. */
function setVizConfig(viz, config) {
  const flat = flatConfig(config);
  if (!flat || !viz.setConfigFlat(flat.json, flat.names, flat.shapes, flat.data)) viz.setConfig(configJson(config));
}

function shapeOf(args, what) {
  const shape = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
  for (const s of shape) {
    if (!Number.isInteger(s) || s < 0) throw new Error(`${what}: dimensions must be non-negative integers, got ${s}`);
  }
  return shape;
}

function sizeArg(size) {
  if (size === undefined || size === null) return null;
  return shapeOf(Array.isArray(size) ? size : [size], 'size');
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

const count = (shape) => (shape === null ? 1 : shape.reduce((a, b) => a * b, 1));

/**
 * NumPy's legacy `np.random.RandomState`, bit for bit: the same seed gives the
 * same numbers as `np.random.seed(seed)` followed by the same calls.
 */
export class RandomState {
  constructor(seed = 0) {
    assertReady();
    this._core = callCore(() => new core.RandomStateCore(seed));
  }

  seed(seed) {
    callCore(() => this._core.seed(seed));
  }

  /** `randint(low, high=None, size=None)`; a number when size is omitted. */
  randint(low, high = null, size = null) {
    if (high === null || high === undefined) [low, high] = [0, low];
    const shape = sizeArg(size);
    const flat = callCore(() => this._core.randint(low, high, count(shape)));
    return reshape(flat, shape);
  }

  /** `rand(*shape)`: uniform [0, 1) doubles; a number with no arguments. */
  rand(...shape) {
    const s = shape.length ? shapeOf(shape, 'rand') : null;
    return reshape(this._core.rand(count(s)), s);
  }

  /** `randn(*shape)`: standard normal (legacy polar method, cached pair). */
  randn(...shape) {
    const s = shape.length ? shapeOf(shape, 'randn') : null;
    return reshape(this._core.randn(count(s)), s);
  }
}

// <attention-viz> is registered as soon as this module is imported; it
// renders once `ready` resolves.
if (typeof customElements !== 'undefined') {
  defineElement({ ready, presets, toTrace, callCore, configJson, newViz, setConfig: setVizConfig });
}
