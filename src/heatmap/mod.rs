//! Heatmaps that read like seaborn's `heatmap(annot=True, linewidths=1)`.
//!
//! Colours and annotation text are pure functions (`palette`, `format`); the
//! drawing itself (`draw`) is written once against plotters' `DrawingBackend`,
//! so the browser canvas, SVG export and the native tests share it.

pub mod draw;
pub mod format;
pub mod palette;

pub use draw::{preferred_size, raster, render, to_svg, Blit, Colors, Highlight, Layout, Style, Theme};
