//! A heatmap as text, for screen readers and the keyboard cursor: its title, its labels and
//! each cell's number written with the figure's `fmt` — what the figure shows, without the
//! canvas. Big grids give their top-left corner.

use super::format::Fmt;
use super::View;

/// Grids up to this many cells are described whole.
pub const DESCRIBE_MAX_CELLS: usize = 1024;
/// Bigger grids are described by their first rows and columns, this many of each at most.
pub const DESCRIBE_CORNER: usize = 32;

/// What a screen reader is given for one heatmap.
#[derive(Clone, Debug, PartialEq)]
pub struct Description {
    pub title: String,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// `cells[i][j]`: the value as `fmt` writes it (NaN as "nan", −∞ as "−∞ (masked)", +∞ as "∞"), with " (changed)"
    /// when the last edit changed it.
    pub cells: Vec<Vec<String>>,
    /// Set when only part of the grid is described: "first 32 of N rows and 32 of M columns".
    pub note: Option<String>,
}

/// One cell for the keyboard cursor: its labels, its text (as in [`Description::cells`]), and its
/// value in full.
#[derive(Clone, Debug, PartialEq)]
pub struct CellText {
    pub row: String,
    pub col: String,
    pub value: String,
    pub full: f64,
}

/// What a description adds to a −∞ cell: the drawn "−∞" alone does not say why it is there.
pub const MASKED_SUFFIX: &str = " (masked)";

/// What a description adds to a cell the last edit changed (the heatmap marks it with a corner triangle).
pub const CHANGED_SUFFIX: &str = " (changed)";

/// A value as a description writes it: the cell's text ([`Fmt::cell`]: "nan" for NaN whatever
/// the spec, "∞" for +∞), and "−∞ (masked)" for −∞. A config's values are finite and `compute`
/// fails rather than overflow, so a −∞ in a view is always a masked score (see `attention`).
fn text(fmt: Fmt, v: f64) -> String {
    let mut s = fmt.cell(v);
    if v == f64::NEG_INFINITY {
        s.push_str(MASKED_SUFFIX);
    }
    s
}

/// The view as text, written as its heatmap writes it (`d` on a view with a value that is not whole: `.2g`,
/// [`Fmt::for_values`]).
pub fn describe(view: &View, fmt: Fmt) -> Result<Description, String> {
    let fmt = fmt.for_values(view.values.data()).0;
    let (rows, cols) = view.values.shape();
    let (r, c, note) = if rows * cols <= DESCRIBE_MAX_CELLS {
        (rows, cols, None)
    } else {
        let (r, c) = (rows.min(DESCRIBE_CORNER), cols.min(DESCRIBE_CORNER));
        (r, c, Some(format!("first {r} of {rows} rows and {c} of {cols} columns")))
    };
    Ok(Description {
        title: view.title.clone(),
        row_labels: view.row_labels[..r].to_vec(),
        col_labels: view.col_labels[..c].to_vec(),
        cells: (0..r)
            .map(|i| {
                let row = view.values.row(i)[..c].iter().enumerate();
                row.map(|(j, &v)| {
                    let mut s = text(fmt, v);
                    if view.marks.changed(i, j, cols) {
                        s.push_str(CHANGED_SUFFIX);
                    }
                    s
                })
                .collect()
            })
            .collect(),
        note,
    })
}

/// Cells `rows` × `cols` (clipped to the grid) as text, row by row: an input grid's window of cells, written with
/// one check of `fmt` and one view for them all, written like [`describe`].
pub fn cell_texts(
    view: &View,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    fmt: Fmt,
) -> Result<Vec<String>, String> {
    let fmt = fmt.for_values(view.values.data()).0;
    let (n, m) = view.values.shape();
    let (cols, rows) = (cols.start.min(m)..cols.end.min(m), rows.start.min(n)..rows.end.min(n));
    Ok(rows.flat_map(|i| cols.clone().map(move |j| (i, j))).map(|(i, j)| text(fmt, view.values.get(i, j))).collect())
}

/// Cell (i, j) as text, or `None` outside the grid, written like [`describe`].
pub fn cell_text(view: &View, i: usize, j: usize, fmt: Fmt) -> Result<Option<CellText>, String> {
    let fmt = fmt.for_values(view.values.data()).0;
    let (rows, cols) = view.values.shape();
    if i >= rows || j >= cols {
        return Ok(None);
    }
    let full = view.values.get(i, j);
    Ok(Some(CellText {
        row: view.row_labels[i].clone(),
        col: view.col_labels[j].clone(),
        value: text(fmt, full),
        full,
    }))
}
