// Where the WASM binaries and the shipped models' file are: beside the module that imports this one (www/pkg/, or
// dist/pkg/ beside the bundle). The single-file build (scripts/dist.mjs) replaces this module with one exporting the
// .wasm's bytes and the models file's text themselves.
export const WASM_SOURCE = new URL('./pkg/attention_viz_bg.wasm', import.meta.url);
// The figure core (Cargo.toml's features), which a page's figures run first: in www/ and the single-file build the
// whole core is the only one; dist/ ships it as pkg/attention_viz_figure.wasm (scripts/dist.mjs rewrites this line).
export const FIGURE_SOURCE = WASM_SOURCE;
// JSON text in a .bin: bundlers copy a .bin that `new URL()` names as it is, but Parcel turns a .json into a JS
// module (parcel-bundler/parcel#7151), and the models would not load without a .parcelrc in the app.
export const MODELS_SOURCE = new URL('./pkg/attention_viz_models.bin', import.meta.url);
