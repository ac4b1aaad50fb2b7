// Trained models on the JavaScript side (issue 14, README "Trained models"): which configs take compute()'s
// `mechanism: "model"` path (the core reads and runs them: `computeModel`), the shipped `models` (www/compile.js
// fetches their file when loadModels() first asks: the core does not carry them), the compiled core that train()'s worker is
// handed, and train()'s main-thread side (its options, the worker's protocol, pause/resume/cancel). The numbers are
// the core's; the training itself runs in www/train-worker.js, so the page's main thread only parses reports (a page
// that cannot start a worker gets the same protocol answered in short main-thread slices).

import * as core from './pkg/attention_viz.js';
import { WASM_SOURCE } from './wasm-source.js';
import { coreModule } from './compile.js';
import { protocol, WORKER_NAME } from './train-worker.js';

/* global TRAIN_WORKER_SOURCE -- the worker bundled into a string by scripts/dist.mjs (esbuild `define`) */

/** The compiled core, kept so that a training worker instantiates it without fetching or compiling it again. */
let compiled = null;
coreModule.then((module) => { compiled = module; }, () => {});

/**
 * The models' file as compile.js's `modelsFile()` resolved (loadModels()): its text goes to the core, which parses it
 * on first use (a named model's compute() or a read of `models`); an Error is kept there too, so that a config naming
 * a shipped model, and reading `models.<name>`, throw "the shipped model "…" could not be loaded: fetching … failed:
 * 404 Not Found".
 */
export function handOverModels(file) {
  if (typeof file === 'string') core.loadModels(file);
  else core.modelsFailed(file instanceof Error ? file.message : String(file));
}

/**
 * The shipped models by name (`models`): the plain JSON of each, as train() resolves with it, parsed on first reading
 * (then kept as a plain property): induction's 200 kB of JSON would otherwise cost every page. Until loadModels() has
 * handed the file over, reading one throws the core's "is not loaded yet: await `loadModels()` first" (and is not kept).
 */
export function declareModels(target) {
  for (const name of core.modelNames()) {
    Object.defineProperty(target, name, {
      enumerable: true,
      configurable: true,
      get() {
        let value;
        try {
          value = JSON.parse(core.modelJson(name));
        } catch (e) {
          throw new Error(`attention-viz: ${e.message}`);
        }
        Object.defineProperty(target, name, { value, enumerable: true, configurable: true, writable: true });
        return value;
      },
    });
  }
}

/** A value for a message, without calling any of its code. */
function kind(x) {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  switch (typeof x) {
    case 'string': return `the string ${JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}…` : x)}`;
    case 'object': return 'an object';
    case 'function': return 'a function';
    case 'bigint': return `bigint ${x}n`;
    case 'symbol': return 'a symbol';
    default: return String(x);
  }
}

/** Whether compute() should take the model path. A config that throws while being read is the other paths' to report. */
export function isModelConfig(config) {
  try {
    return config !== null && typeof config === 'object' && config.mechanism === 'model';
  } catch {
    return false;
  }
}

// ---- train() ------------------------------------------------------------------------------------------------------

const TRAIN_OPTIONS = ['task', 'seed', 'steps', 'every', 'onProgress', 'signal'];
/** Reports every 25 steps by default: reversal's heads visibly sharpen between two reports. */
const DEFAULT_EVERY = 25;
/** Far past what any task needs (reversal: 1,000) and still minutes, not hours, in a browser. */
const MAX_STEPS = 1_000_000;

/** A whole number option in [min, max]. */
function whole(options, key, fallback, min, max, what) {
  const x = options[key];
  if (x === undefined) return fallback;
  if (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > max) {
    throw new Error(`train: ${key} must be ${what}, got ${kind(x)}`);
  }
  return x;
}

/**
 * A real AbortSignal, or an object that can stand for one: train() reads `aborted`, listens with `addEventListener`
 * and stops listening with `removeEventListener` when it ends (without it, the end itself would fail). Reading a
 * signal whose own code throws makes it no signal.
 */
function isSignal(signal) {
  if (typeof AbortSignal === 'function' && signal instanceof AbortSignal) return true;
  try {
    return typeof signal === 'object' && typeof signal.aborted === 'boolean'
      && typeof signal.addEventListener === 'function' && typeof signal.removeEventListener === 'function';
  } catch {
    return false;
  }
}

/** The options, checked, with their defaults. */
function trainOptions(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`train: options must be an object such as {task: "reversal"}, got ${kind(options)}`);
  }
  const unknown = Object.keys(options).find((k) => !TRAIN_OPTIONS.includes(k));
  if (unknown !== undefined) throw new Error(`train: unknown option ${JSON.stringify(unknown)}; the options are ${TRAIN_OPTIONS.join(', ')}`);
  const tasks = core.taskNames();
  const { task, onProgress, signal } = options;
  if (task === undefined) throw new Error(`train: task is missing: one of ${tasks.join(', ')}`);
  if (typeof task !== 'string' || !tasks.includes(task)) throw new Error(`train: unknown task ${kind(task)}; the tasks are ${tasks.join(', ')}`);
  const seed = whole(options, 'seed', 0, 0, 2 ** 32 - 1, 'a whole number from 0 to 2**32 - 1');
  const steps = whole(options, 'steps', core.taskSteps(task), 0, MAX_STEPS, `a whole number from 0 to ${MAX_STEPS}`);
  const every = whole(options, 'every', DEFAULT_EVERY, 1, MAX_STEPS, 'a whole number ≥ 1');
  if (onProgress !== undefined && onProgress !== null && typeof onProgress !== 'function') {
    throw new Error(`train: onProgress must be a function, got ${kind(onProgress)}`);
  }
  if (signal !== undefined && signal !== null && !isSignal(signal)) {
    throw new Error(`train: signal must be an AbortSignal (or an object with aborted, addEventListener and removeEventListener), got ${kind(signal)}`);
  }
  return { task, seed, steps, every, onProgress: onProgress ?? null, signal: signal ?? null };
}

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
 * How long train() waits for any message from its worker before it gives up on it (a worker answers each message
 * within a frame or two; a minute covers a page blocked by its own long tasks on a loaded machine). The tests make it
 * short to see a silent worker refused; nothing else changes it.
 */
export const trainLimits = { silenceMs: 60_000 };

/**
 * The protocol answered on the main thread, for a page that cannot start a worker: the same messages, each in a task
 * of its own of about 8 ms (one step at a time; reports in tasks of their own).
 */
function pageTrainer() {
  const engine = { onmessage: null, terminated: false };
  const handle = protocol((data) => setTimeout(() => { if (!engine.terminated) engine.onmessage?.({ data }); }), { budgetMs: 8, chunk: 1, apart: true });
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
export function startTraining(options) {
  const o = trainOptions(options);
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

  const start = () => send({ type: 'start', module: compiled, task: o.task, seed: o.seed });
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
