// Where the WASM binary is: beside the module that imports this one (www/pkg/, or dist/pkg/ beside the bundle).
// The single-file build (scripts/dist.mjs) replaces this module with one exporting the bytes themselves.
export const WASM_SOURCE = new URL('./pkg/attention_viz_bg.wasm', import.meta.url);
