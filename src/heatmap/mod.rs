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
use std::borrow::Cow;

/// One matrix ready to draw: what `views` makes of a config's input or a trace's stage, and all the drawing needs.
/// Its values and labels are borrowed from the config and trace where they are there as drawn: a scrub at n = 1024
/// builds every view twice (its key, its drawing), and copying three 1024 × 1024 matrices and 2,048 labels each time
/// was a fifth of the scrub. [`View::into_owned`] keeps one beyond them.
#[derive(Clone, Debug, PartialEq)]
pub struct View<'a> {
    pub name: String,
    pub title: String,
    pub values: Cow<'a, Matrix>,
    pub row_labels: Cow<'a, [String]>,
    pub col_labels: Cow<'a, [String]>,
    /// Palette used unless the caller picks one (see `heatmap::palette::by_name`).
    pub palette: &'static str,
    /// Cells and columns drawn marked over their colours (none for most views).
    pub marks: Marks,
    /// The colour bar's ends when they are not the values' own range: a 0/1 mask is coloured on 0 … 1 (its two
    /// values) even when it holds only 1s, not on a bar of 0.9 … 1.1 around its one value.
    pub range: Option<(f64, f64)>,
}

impl View<'_> {
    /// The same view owning its values and labels.
    pub fn into_owned(self) -> View<'static> {
        View {
            values: Cow::Owned(self.values.into_owned()),
            row_labels: Cow::Owned(self.row_labels.into_owned()),
            col_labels: Cow::Owned(self.col_labels.into_owned()),
            name: self.name,
            title: self.title,
            palette: self.palette,
            marks: self.marks,
            range: self.range,
        }
    }
}

impl From<Matrix> for Cow<'_, Matrix> {
    fn from(m: Matrix) -> Self {
        Cow::Owned(m)
    }
}

impl<'a> From<&'a Matrix> for Cow<'a, Matrix> {
    fn from(m: &'a Matrix) -> Self {
        Cow::Borrowed(m)
    }
}

/// What a view marks besides its values: the drawing knows only where the marks are, not what they mean (the mask
/// view's window and sinks: `views` says that in the title).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    /// One flag a cell, row-major (rows × cols), or empty for none: a marked cell is crossed by "\" lines in its
    /// text colour (the ±∞ hatch is "/" in grey), its number left clear.
    pub cells: Vec<bool>,
    /// Columns outlined from the first row to the last, dashed in the text colour over the background's (each run of
    /// adjacent ones as one).
    pub columns: Vec<usize>,
    /// One flag a cell, row-major, or empty for none: the cells the last edit changed (src/changed.rs), each drawn
    /// with a filled triangle in its top-right corner in its number's colour, clear of the number.
    pub changed: Vec<bool>,
    /// Blocks of cells outlined: a K/V head's columns (`group` its index: solid, in the group's colour,
    /// `draw::group_color`) or the KV cache's rows (`group` none: dashed in the text colour), each over a line of the
    /// background's.
    pub blocks: Vec<Block>,
}

/// Rows `r0..r1` × columns `c0..c1` outlined as one block (`Marks::blocks`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Block {
    pub r0: usize,
    pub c0: usize,
    pub r1: usize,
    pub c1: usize,
    /// The group (a K/V head) whose colour it is outlined in, or none: dashed.
    pub group: Option<usize>,
}

impl Marks {
    pub fn is_empty(&self) -> bool {
        !self.cells.contains(&true) && self.columns.is_empty() && self.blocks.is_empty()
    }

    /// Whether cell (i, j) of a grid `cols` wide is marked.
    pub fn cell(&self, i: usize, j: usize, cols: usize) -> bool {
        self.cells.get(i * cols + j).copied().unwrap_or(false)
    }

    /// Whether cell (i, j) of a grid `cols` wide changed in the last edit.
    pub fn changed(&self, i: usize, j: usize, cols: usize) -> bool {
        self.changed.get(i * cols + j).copied().unwrap_or(false)
    }

    /// The marked columns as runs `c0..c1` of adjacent ones, in order.
    pub fn column_runs(&self) -> Vec<(usize, usize)> {
        let mut cols = self.columns.clone();
        cols.sort_unstable();
        cols.dedup();
        let mut runs: Vec<(usize, usize)> = vec![];
        for c in cols {
            match runs.last_mut() {
                Some(run) if run.1 == c => run.1 = c + 1,
                _ => runs.push((c, c + 1)),
            }
        }
        runs
    }
}
