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

use crate::math::Matrix;

/// One matrix ready to draw: what `views` makes of a config's input or a trace's stage, and all the drawing needs.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub name: String,
    pub title: String,
    pub values: Matrix,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// Palette used unless the caller picks one (see `heatmap::palette::by_name`).
    pub palette: &'static str,
}
