// The Python package's engine: dist/attention-viz.inline.js made small for notebooks, written to
// python/attention_viz/static/attention-viz.engine.js (scripts/wheel.py runs this; `make wheel`).
//
// A notebook saves its engine output in the .ipynb and its HTML exports: the single-file build as it is carries the
// .wasm as base64 (4 bytes for 3) and the JS and the models' JSON as text. Here the same build is split in two, each
// raw-deflated and written as text85 (www/text85.js: 5 characters for 4 bytes): the .wasm's bytes (the build's
// `<decoder>("AGFzbQ…")` call becomes a read of a global the loader sets), and the rest of the script's text. The
// loader (fflate's inflateSync and the text85 reader, a few KB) inflates both, sets the global, and
// runs the build's own text as an inline <script>, synchronously: the element is defined when the engine's output
// script returns, as with the build itself. It runs only where window.AttentionViz is not there yet.
//
//   node scripts/python-assets.mjs [dist/attention-viz.inline.js] [out.js] [core.wasm]
//
// With a third path, the build's .wasm is also written there: the core the Python package runs through wasmtime
// (scripts/wheel.py), the single-file build's, which keeps the C-ABI exports (`av_*`) that the module build's drops.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { build } from 'esbuild';
import { fromText85, toText85 } from '../www/text85.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The global the loader hands the .wasm's bytes through (deleted once the build has read them). */
const GLOBAL = '__attentionVizEngineWasm';
/** The models' file the single-file build inlines (scripts/dist.mjs writes it beside the build). */
const MODELS = join(ROOT, 'dist/pkg/attention_viz_models.bin');

/**
 * The engine made from the single-file build's `text`: `{engine, wasm, packed}` (the engine's script text, the
 * build's .wasm bytes, and both parts as text85 of deflate). scripts/dist.mjs measures it for the docs' sizes.
 */
export async function makeEngine(text, from = 'the single-file build', models = readFileSync(MODELS, 'utf8')) {
  // The .wasm as esbuild's binary loader writes it: a call of its base64 decoder on one string literal ("\0asm" is AGFzbQ).
  const calls = [...text.matchAll(/([A-Za-z_$][\w$]*)\("(AGFzbQ[A-Za-z0-9+/=]*)"\)/g)];
  if (calls.length !== 1) throw new Error(`python-assets: expected one inlined .wasm in ${from}, found ${calls.length}`);
  const [call, , base64] = calls[0];
  const wasm = Buffer.from(base64, 'base64');
  const rest = leaveOutModels(text.replace(call, () => `globalThis.${GLOBAL}`), models, from);
  // text85 (www/text85.js): 5 characters for 4 bytes where base64 takes 5⅓, none a JS string or JSON escapes.
  const pack = (bytes) => toText85(deflateRawSync(bytes, { level: 9 }));
  const packed = { wasm: pack(wasm), js: pack(Buffer.from(rest, 'utf8')) };
  // What the loader will make of it: the same build, the same .wasm.
  if (!inflateRawSync(fromText85(packed.wasm)).equals(wasm)) throw new Error('python-assets: the .wasm does not inflate back');
  if (inflateRawSync(fromText85(packed.js)).toString('utf8') !== rest) throw new Error('python-assets: the script does not inflate back');

  const loader = `import { inflateSync, strFromU8 } from 'fflate';
  import { fromText85 as bytes } from './www/text85.js';
  if (!window.AttentionViz) {
    globalThis.${GLOBAL} = inflateSync(bytes(WASM));
    try {
      const script = document.createElement('script');
      script.textContent = strFromU8(inflateSync(bytes(JS)));
      (document.head || document.documentElement).appendChild(script);
      script.remove();
    } finally { delete globalThis.${GLOBAL}; }
  }
  `;
  const out = await build({
    stdin: { contents: loader, resolveDir: ROOT, sourcefile: 'attention-viz.engine.js', loader: 'js' },
    bundle: true, minify: true, format: 'iife', target: 'es2020', platform: 'browser', write: false, legalComments: 'none',
    define: { WASM: JSON.stringify(packed.wasm), JS: JSON.stringify(packed.js) },
    banner: { js: '/*! attention-viz engine for notebooks: dist/attention-viz.inline.js, its .wasm and its text deflated (scripts/python-assets.mjs). */' },
  });
  return { engine: out.outputFiles[0].text, wasm, packed };
}

/** What the engine's figures say when a config names a trained model (the core's `models_failed` reason). */
export const MODELS_LEFT_OUT = "the notebooks' engine leaves them out (Python's figures never show one): "
  + 'load attention-viz.inline.js, which has them, for a figure of a trained model';

/**
 * The build's text with the trained models' file (its `MODELS_SOURCE`, www/wasm-source.js: 94 KB deflated, 117 KB of
 * every notebook as text85) replaced by an Error saying why: Python refuses a `mechanism: "model"` config, so no
 * figure it writes reads them.
 */
function leaveOutModels(text, models, from) {
  const at = text.indexOf(models);
  const quote = text[at - 1];
  if (at < 0 || text.indexOf(models, at + 1) >= 0 || !`'"\``.includes(quote) || text[at + models.length] !== quote) {
    throw new Error(`python-assets: expected the models' file once, as a string literal, in ${from}`);
  }
  return `${text.slice(0, at - 1)}new Error(${JSON.stringify(MODELS_LEFT_OUT)})${text.slice(at + models.length + 1)}`;
}

// `node scripts/python-assets.mjs [build] [out.js] [core.wasm]`
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const from = process.argv[2] || join(ROOT, 'dist/attention-viz.inline.js');
  const to = process.argv[3] || join(ROOT, 'python/attention_viz/static/attention-viz.engine.js');
  const text = readFileSync(from, 'utf8');
  const { engine, wasm, packed } = await makeEngine(text, from);
  writeFileSync(to, engine);
  if (process.argv[4]) writeFileSync(process.argv[4], wasm);
  console.log(`python-assets: ${to.replace(`${ROOT}/`, '')} ${engine.length.toLocaleString('en')} bytes `
    + `(the single-file build: ${text.length.toLocaleString('en')}; .wasm ${packed.wasm.length.toLocaleString('en')}, script ${packed.js.length.toLocaleString('en')} as text85 of deflate)`);
}
