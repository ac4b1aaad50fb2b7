// Trained models on the JavaScript side (README "Trained models"): which configs take compute()'s
// `mechanism: "model"` path (the core reads and runs them: its `compute_model`), the shipped `models` (www/compile.js
// fetches their file when loadModels() first asks: the core does not carry them), the compiled core that train()'s worker is
// handed, and train()'s main-thread side (its options, the worker's protocol, pause/resume/cancel). The numbers are
// the core's; the training itself runs in www/train-worker.js, so the page's main thread only parses reports (a page
// that cannot start a worker gets the same protocol answered in short main-thread slices). train()'s options are
// checked here (bad ones throw at once); the rest of its main-thread side, and the worker's script the dist builds
// carry as a string, is www/training.js, imported on the first train() (no figure needs it).

import { call } from './core.js';

/** The whole core compiled, kept so that a training worker instantiates it without fetching or compiling it again. */
let compiled = null;
/** Keeps the whole core's Module once its promise (compile.js `wholeModule`) resolves. */
export function keepCompiled(module) {
  module.then((m) => { compiled = m; }, () => {});
}
/** The whole core compiled (null until it is loaded: train() waits for `ready`), for www/training.js. */
export const compiledCore = () => compiled;

/**
 * The models' file as compile.js's `modelsFile()` resolved (loadModels()): its text goes to the core, which parses it
 * on first use (a named model's compute() or a read of `models`); an Error is kept there too, so that a config naming
 * a shipped model, and reading `models.<name>`, throw "the shipped model "…" could not be loaded: fetching … failed:
 * 404 Not Found".
 */
export function handOverModels(file) {
  if (typeof file === 'string') call({ kind: 'load_models', text: file });
  else call({ kind: 'models_failed', reason: file instanceof Error ? file.message : String(file) });
}

/**
 * The shipped models by name (`models`): the plain JSON of each, as train() resolves with it, parsed on first reading
 * (then kept as a plain property): induction's 200 kB of JSON would otherwise cost every page. Until loadModels() has
 * handed the file over, reading one throws the core's "is not loaded yet: await `loadModels()` first" (and is not kept).
 */
export function declareModels(target) {
  for (const name of call({ kind: 'model_names' })) {
    Object.defineProperty(target, name, {
      enumerable: true,
      configurable: true,
      get() {
        let value;
        try {
          value = JSON.parse(call({ kind: 'model', name }));
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
export function kind(x) {
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
  const known = call({ kind: 'tasks' });
  const tasks = known.map((t) => t.name);
  const { task, onProgress, signal } = options;
  if (task === undefined) throw new Error(`train: task is missing: one of ${tasks.join(', ')}`);
  if (typeof task !== 'string' || !tasks.includes(task)) throw new Error(`train: unknown task ${kind(task)}; the tasks are ${tasks.join(', ')}`);
  const seed = whole(options, 'seed', 0, 0, 2 ** 32 - 1, 'a whole number from 0 to 2**32 - 1');
  const steps = whole(options, 'steps', known.find((t) => t.name === task).steps, 0, MAX_STEPS, `a whole number from 0 to ${MAX_STEPS}`);
  const every = whole(options, 'every', DEFAULT_EVERY, 1, MAX_STEPS, 'a whole number ≥ 1');
  if (onProgress !== undefined && onProgress !== null && typeof onProgress !== 'function') {
    throw new Error(`train: onProgress must be a function, got ${kind(onProgress)}`);
  }
  if (signal !== undefined && signal !== null && !isSignal(signal)) {
    throw new Error(`train: signal must be an AbortSignal (or an object with aborted, addEventListener and removeEventListener), got ${kind(signal)}`);
  }
  return { task, seed, steps, every, onProgress: onProgress ?? null, signal: signal ?? null };
}

/**
 * How long train() waits for any message from its worker before it gives up on it (a worker answers each message
 * within a frame or two; a minute covers a page blocked by its own long tasks on a loaded machine). The tests make it
 * short to see a silent worker refused; nothing else changes it.
 */
export const trainLimits = { silenceMs: 60_000 };

/** www/training.js, imported on the first train() (once; a failed import is tried again on the next call). */
let training = null;
const loadTraining = () => {
  training ??= import('./training.js').catch((e) => { training = null; throw e; });
  return training;
};

/**
 * train({task, seed = 0, steps, every = 25, onProgress, signal}): a Promise of the trained model object, with
 * `.pause()`, `.resume()`, `.cancel()` and `.paused`. Bad options throw at once; everything later rejects (a
 * www/training.js that cannot be loaded too). pause() and cancel() before it has loaded are kept and applied when it has.
 */
export function startTraining(options) {
  const o = trainOptions(options);
  let run = null;
  let paused = false;
  let cancelled = false;
  let settled = false;
  const promise = loadTraining().then(
    (m) => {
      run = m.startTraining(o);
      if (paused) run.pause();
      if (cancelled) run.cancel();
      return run;
    },
    (e) => { throw new Error(`train: the training code could not be loaded (${e?.message ?? e})`); },
  ).then((model) => { settled = true; return model; }, (e) => { settled = true; throw e; });
  return Object.defineProperties(promise, {
    pause: { value: () => { paused = true; run?.pause(); } },
    resume: { value: () => { paused = false; run?.resume(); } },
    cancel: { value: () => { cancelled = true; try { run?.cancel(); } catch { /* cancel() never throws */ } } },
    paused: { get: () => (run ? run.paused : paused && !settled) },
  });
}
