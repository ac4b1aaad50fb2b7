// A large read-only figure's computation (up to 4,096 tokens), off the page's main thread. www/element/large.js
// starts this file as a module worker, one per figure shown, and ends it once the views are back: the worker's WASM
// memory (the three n × n stages: 400 MB at n = 4096) goes with it. It instantiates the core from the
// WebAssembly.Module the page hands it (no fetch, no second compile; the same core the page and train()'s worker run).
//
// The protocol: the page posts {module, flat, config, views, maxPx, barPx, palette} once (`flat`: compute()'s flat form,
// {json, names, shapes, data}, its Float64Array transferred; else `config`, an object); the worker answers
//   {type: 'progress', text}    before each step (the core's words: the job's `progress`)
//   {type: 'done', tokens, scale, views: [the job's `view` of each, …]}, every view's buffers transferred, not copied (its
//                               image as an ImageBitmap, `bitmap`, where the worker can make one)
//   {type: 'error', message}    the core's message (a refused config, an overflow) or a trap's panic message

import { takeLastPanic, flatRequest, wholeGlue } from './core.js';

/** The name large.js gives its workers. */
export const COMPUTE_WORKER_NAME = 'attention-viz-compute';

async function run({ module, flat, config, views, maxPx, barPx, palette }, post) {
  let job = null;
  try {
    const { initSync, LargeJob } = await wholeGlue();
    initSync({ module });
    job = flat ? new LargeJob(flatRequest(flat), flat.data) : new LargeJob({ config_json: JSON.stringify(config) });
    const progress = (step) => post({ type: 'progress', text: job.call({ kind: 'progress', step }) });
    progress(0);
    job.call({ kind: 'project' });
    progress(1);
    job.call({ kind: 'attend' });
    progress(2);
    const out = views.map((name) => job.call({ kind: 'view', name, max_px: maxPx, bar_px: barPx, palette }));
    // Each image as an ImageBitmap made here: the page shows it through a 'bitmaprenderer' context, with no 2D canvas
    // surface to make and fill on its main thread (that took 50–130 ms there on a loaded machine).
    const bitmaps = typeof createImageBitmap === 'function'
      ? await Promise.all(out.map((v) => createImageBitmap(new ImageData(v.image, v.width, v.height), { colorSpaceConversion: 'none', premultiplyAlpha: 'none' }))) : [];
    bitmaps.forEach((b, k) => { out[k].bitmap = b; out[k].image = null; });
    const transfer = out.flatMap((v) => [v.values.buffer, v.bar.buffer, ...(v.bitmap ? [v.bitmap] : [v.image.buffer])]);
    post({ type: 'done', ...job.call({ kind: 'result' }), views: out }, transfer);
  } catch (e) {
    let message = e instanceof Error ? e.message : String(e);
    if (e instanceof WebAssembly.RuntimeError) {
      try { message = `internal error: ${takeLastPanic() ?? message}`; } catch { /* keep the trap's message */ }
    }
    post({ type: 'error', message });
  } finally {
    try { job?.free(); } catch { /* a trap left it borrowed: the worker ends anyway */ }
  }
}

/* global WorkerGlobalScope */
if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope && self.name === COMPUTE_WORKER_NAME) {
  self.onmessage = ({ data }) => run(data, (message, transfer) => self.postMessage(message, transfer ?? []));
}
