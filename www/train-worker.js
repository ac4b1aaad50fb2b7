// train()'s trainer protocol and its Web Worker. As a worker (www/ starts this file as a module worker; the dist builds
// carry it bundled and start it from a Blob URL) it instantiates the core from the WebAssembly.Module the page hands it
// (no fetch, no second compile) and runs a TrainerCore a few steps per message, so the page's main thread never trains.
// www/train.js imports `protocol` too, for the pages that cannot start a worker (a CSP without worker-src blob:): the
// same messages, answered in short slices on the main thread.
//
// The protocol (www/train.js drives it, one message in flight at a time, which is how pause works):
//   {type: 'start', module, task, seed} → a report of step 0
//   {type: 'run', to}                   → steps until `to` or about `budgetMs`, then {type: 'ran', step} when short
//                                          of `to`, else a report
//   {type: 'report'}                    → a report
//   With `apart` (the main thread's slices), a message that trained answers {type: 'ran', step, pending: true} instead
//   of a report, and the report comes with the next message: scoring and the model's JSON are a slice of their own.
//   a report: {type: 'report', step, loss, accuracy (held-out), model (JSON text)}; any failure: {type: 'error', message}
// Splitting the steps between messages changes nothing: the trainer gives the same weights however they are split.

import { takeLastPanic, wholeGlue } from './core.js';

/**
 * A handler of the protocol's messages that answers through `post`, training with the whole core's `glue`; `budgetMs` bounds a run's time and `chunk` the
 * steps per call into the core (the loss, the slow part of a step's bookkeeping, is computed once per call); `apart`
 * puts reports in messages of their own. `handle.free()` releases the trainer.
 */
export function protocol(post, { budgetMs, chunk, apart = false, glue }) {
  let trainer = null;
  const steps = (n) => trainer.call({ kind: 'step', n });
  const report = () => post({ type: 'report', ...trainer.call({ kind: 'report' }) });
  const run = (to) => {
    const start = performance.now();
    let [step] = steps(0);
    const from = step;
    while (step < to && performance.now() - start < budgetMs) [step] = steps(Math.min(chunk, to - step));
    if (step < to) post({ type: 'ran', step });
    else if (apart && step > from) post({ type: 'ran', step, pending: true });
    else report();
  };
  const handle = (data) => {
    try {
      if (data.type === 'start') {
        glue.initSync({ module: data.module }); // a no-op where the core is already initialised (the page)
        trainer = new glue.TrainerCore(data.task, data.seed);
        if (apart) post({ type: 'ran', step: 0, pending: true });
        else report();
      } else if (data.type === 'run') {
        run(data.to);
      } else if (data.type === 'report') {
        report();
      }
    } catch (e) {
      let message = e instanceof Error ? e.message : String(e);
      // A trap is a Rust panic: its message was kept by the core's panic hook.
      if (e instanceof WebAssembly.RuntimeError) {
        try { message = `internal error: ${takeLastPanic() ?? message}`; } catch { /* keep the trap's message */ }
      }
      post({ type: 'error', message });
    }
  };
  handle.free = () => { trainer?.free(); trainer = null; };
  return handle;
}

/** The name train() gives its workers: only they answer the protocol (a page may run the API in a worker of its own). */
export const WORKER_NAME = 'attention-viz-train';

/* global WorkerGlobalScope */
if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope && self.name === WORKER_NAME) {
  // About a frame per message, so that a pause takes effect within a frame or two.
  // The whole core's glue (core.js `wholeGlue`), then the messages in the order they came.
  const handle = wholeGlue().then((glue) => protocol((message) => self.postMessage(message), { budgetMs: 20, chunk: 5, glue }));
  self.onmessage = ({ data }) => handle.then((h) => h(data));
}
