//! attention-viz: an interactive visualizer of the attention mechanism.
//!
//! The crate is a functional core with a thin imperative shell. `math`,
//! `attention`, `config`, `random` and `presets` are pure Rust (no web, no
//! drawing) and are tested natively; `heatmap` draws through plotters'
//! `DrawingBackend`, so the same code paints a browser canvas and the SVGs and
//! bitmaps of the native tests; `web` is the only module that touches
//! JavaScript. See ARCHITECTURE.md for the data path.

pub mod attention;
pub mod changed;
pub mod config;
pub mod controls;
#[cfg(feature = "full")]
pub mod docs;
pub mod edits;
#[cfg(feature = "full")]
pub mod export;
#[cfg(feature = "full")]
pub mod facts;
#[cfg(feature = "full")]
pub mod ffi;
pub mod figure;
#[cfg(feature = "full")]
pub mod heads;
pub mod heatmap;
pub mod import;
pub mod incremental;
#[cfg(feature = "full")]
pub mod learn;
pub mod links;
pub mod math;
pub mod options;
pub mod panels;
#[cfg(feature = "full")]
pub mod picture;
pub mod presets;
pub mod random;
pub mod requests;
#[cfg(feature = "full")]
pub mod share;
pub mod shown;
pub mod steppers;
pub mod tables;
pub mod text;
pub mod views;
pub mod weights;

#[cfg(target_arch = "wasm32")]
pub mod web;
