// Where the WASM binary and the shipped models' file are: beside the module that imports this one (www/pkg/, or
// dist/pkg/ beside the bundle). The single-file build (scripts/dist.mjs) replaces this module with one exporting the
// .wasm's bytes and the models file's text themselves.
export const WASM_SOURCE = new URL('./pkg/attention_viz_bg.wasm', import.meta.url);
export const MODELS_SOURCE = new URL('./pkg/attention_viz_models.json', import.meta.url);
