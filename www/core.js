// The one module that imports the core's wasm-bindgen glue (./pkg/attention_viz.js): every other module of www/, the
// two workers among them, reaches the core through this one. It imports nothing else, so a worker (which gets the
// compiled core from the page) or a Node script loads the glue and this alone, never www/compile.js's fetch or the
// element.
//
// Two cores from one source (Cargo.toml's features): the figure core, which a page's figures run first, and the whole
// core (training, the model grid, exports, a large figure's job, `RandomState`), loaded when something needs it
// (`loadWhole`). In www/ and the single-file build they are one module: the static import below and `wholeGlue()`'s
// dynamic one give the same glue, so loading the whole core is initialising nothing. scripts/dist.mjs resolves the
// static import to the figure core's glue and the dynamic one to the whole core's, each with its own .wasm. Once the
// whole core is there every stateless `call` goes to it, and new figures are made in it (`newViz`).
//
// The core answers most questions through one function, `call(request, data)`: `request` is `{kind, …}` (the kinds and
// their fields: src/requests.rs, where Python's requests are read too), `data` a Float64Array of a config's flat
// matrices; a `compute` answers the trace's layout over the module's memory, read in place before the next call. Its
// objects are `Viz` (a figure), and in the whole core `LargeJob` (a large figure's worker), `TrainerCore` (train()'s
// worker) and `RandomStateCore`, each with `call(request)` where it has one.

import init, * as figure from './pkg/attention_viz.js';

/** The figure core's glue as it is, for a Node script or a test (`initSync`, `Viz`); a page goes through `initFigure`. */
export { initSync, Viz } from './pkg/attention_viz.js';

/** The whole core's glue once initialised (`loadWhole`), else null. */
let whole = null;
let loading = null;
/** Each core's WebAssembly memory, where compute()'s trace is read in place. */
let figureMemory = null;
let wholeMemory = null;

/** Initialises the figure core from `module` (its WebAssembly.Module). */
export async function initFigure(module) {
  figureMemory = (await init({ module_or_path: module })).memory;
}

/** The whole core's glue module, not initialised (a worker initialises it with the Module it is handed). */
export const wholeGlue = () => import('./pkg/attention_viz.js');

/**
 * Initialises the whole core from `module` (a promise of its WebAssembly.Module) once; resolves to its glue. Where it
 * is the figure core's own glue (www/, the single-file build), that glue, already initialised.
 */
export function loadWhole(module) {
  loading ??= wholeGlue().then(async (glue) => {
    wholeMemory = glue === figure ? figureMemory : (await glue.default({ module_or_path: await module })).memory;
    whole = glue;
    return glue;
  });
  loading.catch(() => { loading = null; }); // a failed fetch is tried again by the next part that needs it
  return loading;
}

/** The whole core's glue when it is initialised, else null: what only it has (`LargeJob`, `TrainerCore`, …). */
export const wholeCore = () => whole;

/** The glue `call` and a new figure go to: the whole core's once it is there. */
const active = () => whole ?? figure;

/** One stateless request (see above), to the whole core once it is loaded, else to the figure core. */
export const call = (request, data) => active().call(request, data);

/** The memory of the core `call` answers from. */
export const memory = () => (whole ? wholeMemory : figureMemory);

/** A new figure, `new Viz(...args)`, in the whole core once it is loaded, else in the figure core. */
export const newViz = (...args) => new (active().Viz)(...args);

/** Whether `viz` is a figure of the whole core (after `loadWhole`, the figure core's figures are moved to it). */
export const isWholeViz = (viz) => whole !== null && viz instanceof whole.Viz;

/** After a trap (a Rust panic), the panic's message, kept by the core's panic hook; undefined when there was none. */
export function takeLastPanic() {
  const message = whole && whole !== figure ? whole.call({ kind: 'last_panic' }) : undefined;
  return message ?? figure.call({ kind: 'last_panic' });
}

/**
 * compute()'s flat form of a config, `{json, names, shapes, data}` (`shapes`: each matrix's rank, then its axes), as a
 * request's config: `{config_json, flat: [{name, shape}…]}`, its values (`data`) sent beside it.
 */
export function flatRequest({ json, names, shapes }) {
  const flat = [];
  let at = 0;
  for (const name of names) {
    const rank = shapes[at];
    flat.push({ name, shape: Array.from(shapes.slice(at + 1, at + 1 + rank)) });
    at += rank + 1;
  }
  return { config_json: json, flat };
}
