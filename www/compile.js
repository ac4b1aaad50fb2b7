// Owns the core's head start: fetching and compiling the figure core's .wasm begin when this module runs (the whole
// core's on the first `wholeModule()`); the trained models' file
// is fetched only when something asks for it (`modelsFile()`: loadModels(), a figure of a shipped model), so a page of
// seed figures never downloads it (92 KB gzipped of a one-figure page's 415). index.html and www/embed.html also run it on its own, as an async module script that imports only
// wasm-source.js, so both start as soon as it arrives (bench/load.mjs: the .wasm fetched at ~90 ms, but compiled only
// once the whole module graph had arrived and run, ~300 ms) instead of after the other ~27 modules. `ready`
// (www/attention-viz.js) and train()'s workers (www/train.js) take what it began. In Node (a server, a static site's
// build) the files beside the module are read from disk: importing never fetches and never touches the DOM.
import { WASM_SOURCE, FIGURE_SOURCE, MODELS_SOURCE } from './wasm-source.js';

/**
 * A `file:` URL's bytes (text with `encoding`), read from disk: in Node, Deno and Bun the module's files are local,
 * and their fetch() refuses `file:` URLs. `process.getBuiltinModule` (Node ≥ 20.16) instead of an `import('node:fs')`,
 * which every bundler would try to resolve for the browser.
 */
async function readFileURL(url, encoding) {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs/promises');
  if (!fs) throw new Error(`reading ${url} needs Node 20.16 or later (process.getBuiltinModule)`);
  return fs.readFile(url, encoding);
}

const isFile = (source) => String(source).startsWith('file:');

/**
 * The core compiled from `source` (a URL, or the bytes in the single-file build). Fetches as wasm-bindgen's glue does:
 * streaming when the host serves `application/wasm`, the bytes otherwise; a `file:` URL is read from disk.
 */
async function compileCore(source) {
  if (!(source instanceof URL || typeof source === 'string')) return WebAssembly.compile(source);
  if (isFile(source)) return WebAssembly.compile(await readFileURL(source));
  const response = await fetch(source);
  if (!response.ok) throw new Error(`failed to fetch Wasm: ${response.status} ${response.statusText} fetching '${response.url}'`);
  const streams = typeof WebAssembly.compileStreaming === 'function' && response.headers.get('Content-Type') === 'application/wasm';
  return streams ? WebAssembly.compileStreaming(response) : WebAssembly.compile(await response.arrayBuffer());
}

/**
 * The shipped models' file (`{reversal: …, induction: …}`; scripts/models.mjs) from `source`: a URL, fetched (a page
 * that knows it needs them early preloads it: index.html, www/embed.html), its text (the single-file build), or an
 * Error saying why it is not there (the notebooks' engine, scripts/python-assets.mjs). Resolves to the text, or to an Error
 * saying why it could not be had; never rejects, so that `loadModels()` resolves without them.
 */
function fetchModels(source) {
  if (typeof source === 'string' || source instanceof Error) return Promise.resolve(source);
  const failed = (why) => new Error(`fetching ${source} failed: ${why}`);
  if (isFile(source)) return readFileURL(source, 'utf8').catch((e) => failed(e instanceof Error ? e.message : String(e)));
  return fetch(source)
    .then((response) => (response.ok ? response.text() : failed(`${response.status} ${response.statusText}`.trimEnd())))
    .catch((e) => failed(e instanceof Error ? e.message : String(e)));
}

/** The figure core's `WebAssembly.Module` (a failure is `ready`'s to report: caught here so an early start logs nothing). */
export const coreModule = compileCore(FIGURE_SOURCE);
coreModule.catch(() => {});

let whole = null;
/**
 * The whole core's `WebAssembly.Module`, fetched and compiled on the first call (the figure core's own where they are
 * one file: www/, the single-file build). A failure is tried again by the next call.
 */
export function wholeModule() {
  whole ??= FIGURE_SOURCE === WASM_SOURCE ? coreModule : compileCore(WASM_SOURCE);
  whole.catch(() => { whole = null; });
  return whole;
}

let models = null;
/** The shipped models' file, fetched on the first call: its text, or an Error saying why it could not be had (never rejects). */
export function modelsFile() {
  models ??= fetchModels(MODELS_SOURCE);
  return models;
}
