//! Heatmaps that read like seaborn's `heatmap(annot=True, linewidths=1)`.
//!
//! Colours and annotation text are pure functions (`palette`, `format`); the
//! drawing itself (`draw`) is written once against plotters' `DrawingBackend`,
//! so the browser canvas, SVG export and the native tests share it;
//! `describe` gives the same figure as text for screen readers.

pub mod describe;
pub mod draw;
pub mod format;
pub mod model;
pub mod palette;

pub use describe::{cell_text, cell_texts, describe, CellText, Description};
pub use draw::{
    preferred_size, raster, render, to_svg, to_svg_sized, Blit, Colors, Contrast, Highlight, HighlightKind, Layout,
    Style, Theme,
};
pub use format::Fmt;
