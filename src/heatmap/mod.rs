//! Heatmaps that read like seaborn's `heatmap(annot=True, linewidths=1)`.
//!
//! Colours and annotation text are pure functions (`palette`, `format`); the
//! drawing itself is written once against plotters' `DrawingBackend`.

pub mod format;
pub mod palette;
