// The shipped models' file: models/*.json (what `cargo run --release --example train -- <task>` writes) as one JSON
// object {"reversal": …, "induction": …}, which the module fetches beside the .wasm (pkg/attention_viz_models.bin)
// and the single-file build inlines: the WASM core does not carry them (src/web/learn.rs, `loadModels`).
// JSON text under a .bin name, so that every bundler emits it as an asset (www/wasm-source.js says why).
// `node scripts/models.mjs <out>` writes it (`make build`: www/pkg/); scripts/dist.mjs imports `modelsText`.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The shipped models, in src/learn/mod.rs's `PRESETS` order. */
export const MODEL_NAMES = ['reversal', 'induction'];

/** The models file's text: each committed file re-written without its layout (the numbers stay exact: a JS number
 * prints as the shortest text that reads back as the same double, and the core reads it back exactly). */
export function modelsText() {
  const models = Object.fromEntries(MODEL_NAMES.map((name) =>
    [name, JSON.parse(readFileSync(new URL(`../models/${name}.json`, import.meta.url), 'utf8'))]));
  return JSON.stringify(models);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(process.argv[2], modelsText());
