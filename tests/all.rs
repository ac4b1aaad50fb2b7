//! Every native test file as one test binary (Cargo.toml: `autotests = false`). Linking twenty optimised binaries
//! against the crate cost more than running them; one binary links once. The files stay where they are, one module
//! each, so one area still runs alone: `cargo test --test all config::` (or `heatmap_`, `learn::`, …).
//! A new tests/NAME.rs needs its line here (tests/web.rs is the wasm binary, declared in Cargo.toml).
#![cfg(not(target_arch = "wasm32"))]

#[path = "attention.rs"]
mod attention;
#[path = "changed.rs"]
mod changed;
#[path = "config.rs"]
mod config;
#[path = "controls.rs"]
mod controls;
#[path = "docs.rs"]
mod docs;
#[path = "edits.rs"]
mod edits;
#[path = "export.rs"]
mod export;
#[path = "fields.rs"]
mod fields;
#[path = "figure.rs"]
mod figure;
#[path = "fuzz.rs"]
mod fuzz;
#[path = "heads.rs"]
mod heads;
#[path = "heatmap_colorbar.rs"]
mod heatmap_colorbar;
#[path = "heatmap_draw.rs"]
mod heatmap_draw;
#[path = "heatmap_format.rs"]
mod heatmap_format;
#[path = "heatmap_layout.rs"]
mod heatmap_layout;
#[path = "heatmap_palette.rs"]
mod heatmap_palette;
#[path = "import.rs"]
mod import;
#[path = "incremental.rs"]
mod incremental;
#[path = "json.rs"]
mod json;
#[path = "large.rs"]
mod large;
#[path = "learn.rs"]
mod learn;
#[path = "links.rs"]
mod links;
#[path = "math.rs"]
mod math;
#[path = "math_decimal.rs"]
mod math_decimal;
#[path = "math_log.rs"]
mod math_log;
#[path = "modern.rs"]
mod modern;
#[path = "options.rs"]
mod options;
#[path = "panels.rs"]
mod panels;
#[path = "picture.rs"]
mod picture;
#[path = "properties.rs"]
mod properties;
#[path = "random.rs"]
mod random;
#[path = "real_layers.rs"]
mod real_layers;
#[path = "requests.rs"]
mod requests;
#[path = "share.rs"]
mod share;
#[path = "shells.rs"]
mod shells;
#[path = "steppers.rs"]
mod steppers;
#[path = "tables.rs"]
mod tables;
#[path = "tidy.rs"]
mod tidy;
#[path = "variants.rs"]
mod variants;
#[path = "views.rs"]
mod views;
#[path = "weights.rs"]
mod weights;

/// Cargo no longer finds test files by itself (autotests = false): a tests/NAME.rs without its line above would never run.
#[test]
fn every_test_file_is_a_module_here() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests");
    let this = include_str!("all.rs");
    let mut missing = vec![];
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".rs")
            && name != "all.rs"
            && name != "web.rs"
            && !this.contains(&format!("#[path = \"{name}\"]"))
        {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "tests/all.rs has no module for {missing:?}");
}
