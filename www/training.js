// train()'s main-thread side past its options (README "Trained models"; imported by www/train.js on the
// first train(), so that no page of figures loads it): the training worker (the dist builds carry its script as a
// string, TRAIN_WORKER_SOURCE, started from a Blob URL; www/ starts www/train-worker.js as a module worker), the
// Trusted Types policy its URL goes through, the protocol (run, report, pause/resume/cancel, a silent worker
// stopped), and the same protocol answered on the main thread for a page that cannot start a worker.

import { WASM_SOURCE } from './wasm-source.js';
import { wholeCore } from './core.js';
import { protocol, WORKER_NAME } from './train-worker.js';
import { compiledCore, kind, trainLimits } from './train.js';

/* global TRAIN_WORKER_SOURCE -- the worker bundled into a string by scripts/dist.mjs (esbuild `define`) */

/** The Blob URL of the bundled worker (dist builds), made once: a worker may still be loading it when another starts. */
let workerURL = null;

/** The Trusted Types policy's name: a page whose CSP has `require-trusted-types-for 'script'` allows it with
 * `trusted-types attention-viz` (README "Trained models"). */
const POLICY = 'attention-viz';
/** The policy, made on the first training where the browser has Trusted Types; null where it could not be. */
let policy;

/**
 * The worker's script URL as a Worker takes it: under Trusted Types, through the library's own policy, which passes
 * only the URLs of the training worker (the policy object stays in this module, so no other code can use it).
 */
function trustedScriptURL(url) {
  if (policy === undefined) {
    policy = null;
    if (typeof trustedTypes === 'object' && trustedTypes !== null && typeof trustedTypes.createPolicy === 'function') {
      try {
        policy = trustedTypes.createPolicy(POLICY, {
          createScriptURL: (u) => {
            if (u === workerURL || u === moduleWorkerURL()) return u;
            throw new TypeError(`attention-viz: the policy ${JSON.stringify(POLICY)} passes only the training worker's URL`);
          },
        });
      } catch {
        // The page's CSP names other policies only, or another copy of the library made this one: the Worker is
        // then refused only where Trusted Types are required, and train() says so and trains on the main thread.
      }
    }
  }
  return policy ? policy.createScriptURL(url) : url;
}

/** Beside this module: www/pkg/attention_viz_bg.wasm → www/train-worker.js. */
const moduleWorkerURL = () => new URL('../train-worker.js', WASM_SOURCE).href;

/** A training worker: the bundled one in the dist builds, www/train-worker.js (a module worker) otherwise. */
function spawnWorker() {
  if (typeof TRAIN_WORKER_SOURCE === 'string') {
    workerURL ??= URL.createObjectURL(new Blob([TRAIN_WORKER_SOURCE], { type: 'text/javascript' }));
    return new Worker(trustedScriptURL(workerURL), { name: WORKER_NAME });
  }
  return new Worker(trustedScriptURL(moduleWorkerURL()), { type: 'module', name: WORKER_NAME });
}


/**
 * The protocol answered on the main thread, for a page that cannot start a worker: the same messages, each in a task
 * of its own of about 8 ms (one step at a time; reports in tasks of their own).
 */
function pageTrainer() {
  const engine = { onmessage: null, terminated: false };
  const handle = protocol((data) => setTimeout(() => { if (!engine.terminated) engine.onmessage?.({ data }); }), { budgetMs: 8, chunk: 1, apart: true, glue: wholeCore() });
  engine.postMessage = (data) => setTimeout(() => { if (!engine.terminated) handle(data); });
  engine.terminate = () => { engine.terminated = true; handle.free(); };
  return engine;
}

function abortError(reason) {
  const e = new Error('train: cancelled', reason === undefined ? undefined : { cause: reason });
  e.name = 'AbortError';
  return e;
}

/**
 * train({task, seed = 0, steps, every = 25, onProgress, signal}): a Promise of the trained model object, with
 * `.pause()`, `.resume()`, `.cancel()` and `.paused`. Bad options throw at once; everything later rejects.
 */
export function startTraining(o) {
  let worker = null;
  let settled = false;
  let paused = false;
  let waiting = false; // a reply arrived while paused: the next run goes out on resume()
  let step = 0;
  let resolve, reject;
  const promise = new Promise((ok, fail) => { resolve = ok; reject = fail; });

  // A message is in flight while `silence` runs; `heardAt` counts the worker's messages.
  let silence = null;
  let heardAt = 0;
  const quiet = () => { clearTimeout(silence); silence = null; };

  /** Settles first, then lets go of the worker and the signal: neither can keep the promise pending or make cancel() throw. */
  const finish = (error, model) => {
    if (settled) return;
    settled = true;
    quiet();
    if (error) reject(error); else resolve(model);
    try { worker?.terminate(); } catch { /* already gone */ }
    try { o.signal?.removeEventListener('abort', onAbort); } catch { /* a signal-like object's own failure */ }
  };
  const onAbort = () => {
    let reason;
    try { reason = o.signal.reason; } catch { /* no reason, then */ }
    finish(abortError(reason));
  };

  /** A message to the worker, which answers every one: no answer for `silenceMs` ends the training with an error. */
  const send = (message) => {
    worker.postMessage(message);
    quiet();
    const count = heardAt;
    const check = (second) => {
      if (settled || heardAt !== count) return;
      // The first expiry may run before a reply already queued behind a long task of the page: look once more.
      if (!second) { silence = setTimeout(() => check(true), 1000); return; }
      finish(new Error(`train: the training worker stopped answering (no message for ${trainLimits.silenceMs / 1000} s); it was stopped`));
    };
    silence = setTimeout(() => check(false), trainLimits.silenceMs);
  };

  /** The next step the worker stops at: the next report, or the end. */
  const nextStop = () => Math.min(o.steps, (Math.floor(step / o.every) + 1) * o.every);
  const runNext = () => {
    if (settled) return;
    if (paused) { waiting = true; return; }
    waiting = false;
    send({ type: 'run', to: nextStop() });
  };

  const onMessage = ({ data }) => {
    if (settled) return;
    heardAt++;
    quiet();
    if (data.type === 'error') { finish(new Error(`train: ${data.message}`)); return; }
    step = data.step;
    if (data.type === 'ran') {
      if (data.pending) send({ type: 'report' }); // a report of its own (www/train-worker.js)
      else runNext();
      return;
    }
    // A report: at step 0, every `every` steps, and at the end.
    const model = JSON.parse(data.model);
    if (step >= o.steps) {
      callProgress(data, model);
      finish(null, model);
      return;
    }
    runNext(); // before onProgress, so that the worker trains while the page draws
    callProgress(data, model);
  };
  const callProgress = (data, model) => {
    if (!o.onProgress || settled) return;
    try {
      o.onProgress({ step: data.step, steps: o.steps, loss: data.loss, accuracy: data.accuracy, model });
    } catch (e) {
      // The caller's bug: training stops and says so, rather than running on unseen.
      finish(e instanceof Error ? e : new Error(`train: onProgress threw ${kind(e)}`));
    }
  };

  const start = () => send({ type: 'start', module: compiledCore(), task: o.task, seed: o.seed });
  /** No worker after all (none in this page, or its script refused: a CSP without worker-src blob:): train here. */
  const onMainThread = (why) => {
    try { worker?.terminate(); } catch { /* never started */ }
    console.warn(`attention-viz train(): ${why}; training on the main thread instead, in slices of a few milliseconds`);
    worker = pageTrainer();
    worker.onmessage = onMessage;
    start();
  };
  let heard = false; // a worker that has answered once is running: a later error is the training's, not the start's
  if (o.signal?.aborted) {
    finish(abortError(o.signal.reason));
  } else {
    o.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (typeof Worker === 'undefined') throw new Error('this page has no Web Workers');
      worker = spawnWorker();
      worker.onmessage = (e) => { heard = true; onMessage(e); };
      worker.onerror = (e) => {
        e.preventDefault?.();
        if (settled) return;
        if (heard) finish(new Error(`train: the training worker failed: ${e.message || 'an error'}`));
        else onMainThread(`the training worker could not start (${e.message || 'its script was refused: a Content-Security-Policy needs worker-src blob: for the dist builds'})`);
      };
      worker.onmessageerror = () => finish(new Error('train: a message from the training worker could not be read'));
      start();
    } catch (e) {
      const tt = policy === null && typeof trustedTypes === 'object' && trustedTypes !== null
        ? `; under Trusted Types a Content-Security-Policy needs trusted-types ${POLICY}` : '';
      onMainThread(`no Web Worker (${e instanceof Error ? e.message : String(e)}${tt})`);
    }
  }

  return Object.defineProperties(promise, {
    pause: { value: () => { paused = true; } },
    resume: {
      value: () => {
        if (!paused) return;
        paused = false;
        if (waiting) runNext();
      },
    },
    cancel: { value: () => { try { finish(abortError()); } catch { /* cancel() never throws */ } } },
    paused: { get: () => paused && !settled },
  });
}
