// The one module that imports the core's wasm-bindgen glue (./pkg/attention_viz.js): every other module of www/, the
// two workers among them, reaches the core through this one. It imports nothing else, so a worker (which gets the
// compiled core from the page) or a Node script loads the glue and this alone, never www/compile.js's fetch or the
// element.
//
// The core answers most questions through one function, `call(request, data)`: `request` is `{kind, …}` (the kinds and
// their fields: src/requests.rs, where Python's requests are read too), `data` a Float64Array of a config's flat
// matrices; a `compute` answers the trace's layout over the module's memory, read in place before the next call. Its
// objects are `Viz` (a figure), `LargeJob` (a large figure's worker), `TrainerCore` (train()'s worker) and
// `RandomStateCore`, each with `call(request)` where it has one.

import init, { initSync, call, Viz, LargeJob, TrainerCore, RandomStateCore } from './pkg/attention_viz.js';

export { init, initSync, call, Viz, LargeJob, TrainerCore, RandomStateCore };

/** After a trap (a Rust panic), the panic's message, kept by the core's panic hook; undefined when there was none. */
export const takeLastPanic = () => call({ kind: 'last_panic' });

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
