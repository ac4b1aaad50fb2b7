//! What the last edit changed in each view: which cells moved, and the view's status in words ("3 of 16 changed",
//! "unchanged"), which the element shows beside the heatmap and in its text alternative; the heatmap draws the moved
//! cells marked (`Marks::changed`).
//!
//! Two values are the same when their bits are (NaN is NaN, −∞ is −∞), or when they agree to
//! [`SIGNIFICANT_DIGITS`] digits of the larger magnitude of the two grids: a change rounding alone makes is none
//! (RoPE's scores under a shift of every position move in their last bits only), and the status says "unchanged to
//! 12 digits" when some cell moved that little and none more. A view that gained rows or columns around what it held
//! (the KV cache after a decode step) marks the new cells ("1 new row"); any other new shape counts as all changed,
//! with no cell marked ("new shape"). A figure whose trace holds more than [`CHANGED_MAX_VALUES`] values keeps no state from before
//! an edit (a copy of it a keystroke would cost more than the edit), so its views have no status.

use crate::heatmap::View;

/// The digits two values must share (relative to the larger magnitude of the two grids) to count as unchanged.
pub const SIGNIFICANT_DIGITS: i32 = 12;
/// A figure whose trace holds more values than this marks no changes.
pub const CHANGED_MAX_VALUES: usize = 1 << 16;

/// What changed between a view before an edit and after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Changed {
    /// One flag a cell, row-major: the cells that moved (empty when the shape changed).
    pub cells: Vec<bool>,
    /// How many moved (every cell when the shape changed).
    pub count: usize,
    /// The cells of the view now.
    pub total: usize,
    /// The shape changed (other than by rows or columns added to what it held).
    pub resized: bool,
    /// It gained this many rows or columns (named), the rest unchanged: the KV cache after a decode step.
    pub grown: Option<(usize, &'static str)>,
    /// Some cell moved by less than the tolerance only.
    pub rounded: bool,
}

/// The cells of `now` that differ from `before` (see the module doc).
pub fn compare(before: &View, now: &View) -> Changed {
    let (a, b) = (&*before.values, &*now.values);
    let total = b.data().len();
    let largest = a.data().iter().chain(b.data()).filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()));
    let tolerance = largest * 10f64.powi(-SIGNIFICANT_DIGITS);
    let mut rounded = false;
    let mut same = |x: f64, y: f64| {
        if x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) {
            return true;
        }
        let close = x.is_finite() && y.is_finite() && (x - y).abs() <= tolerance;
        rounded |= close;
        close
    };
    let ((r0, c0), (r1, c1)) = (a.shape(), b.shape());
    // A grid that grew by rows or columns around what it held (the KV cache's new row): the new cells are marked.
    let grown = (r1 >= r0 && c1 >= c0) && (r1, c1) != (r0, c0) && (r1 == r0 || c1 == c0);
    if (r0, c0) != (r1, c1) && !grown {
        return Changed { cells: vec![], count: total, total, resized: true, grown: None, rounded: false };
    }
    let cells: Vec<bool> = (0..r1)
        .flat_map(|i| (0..c1).map(move |j| (i, j)))
        .map(|(i, j)| i >= r0 || j >= c0 || !same(a.get(i, j), b.get(i, j)))
        .collect();
    let count = cells.iter().filter(|&&c| c).count();
    let grown = grown.then(|| if r1 > r0 { (r1 - r0, "row") } else { (c1 - c0, "column") });
    // Grown, but an old cell moved too: the shape is new, as far as the reader can tell.
    if grown.is_some_and(|(n, _)| count != n * if r1 > r0 { c1 } else { r1 }) {
        return Changed { cells: vec![], count: total, total, resized: true, grown: None, rounded: false };
    }
    Changed { cells, count, total, resized: false, grown, rounded }
}

impl Changed {
    /// The status the view shows: "unchanged", "unchanged to 12 digits", "3 of 16 changed", "all 16 changed",
    /// "1 new row" (or columns), or "new shape".
    pub fn status(&self) -> String {
        if let Some((n, what)) = self.grown {
            return format!("{n} new {what}{}", if n == 1 { "" } else { "s" });
        }
        match (self.resized, self.count) {
            (true, _) => "new shape".to_string(),
            (false, 0) if self.rounded => format!("unchanged to {SIGNIFICANT_DIGITS} digits"),
            (false, 0) => "unchanged".to_string(),
            (false, n) if n == self.total => format!("all {n} changed"),
            (false, n) => format!("{n} of {} changed", self.total),
        }
    }
}

/// Whether a figure of this many trace values keeps its state from before each edit.
pub fn kept(values: usize) -> bool {
    values <= CHANGED_MAX_VALUES
}
