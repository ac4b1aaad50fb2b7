//! What the last edit changed in each view: which cells moved, and the view's status in words ("3 of 16 changed",
//! "unchanged"), which the element shows beside the heatmap and in its text alternative; the heatmap draws the moved
//! cells marked (`Marks::changed`).
//!
//! Two values are the same when their bits are (NaN is NaN, −∞ is −∞), or when they agree to
//! [`SIGNIFICANT_DIGITS`] digits of the larger magnitude of the two grids: a change rounding alone makes is none
//! (RoPE's scores under a shift of every position move in their last bits only), and the status says "unchanged to
//! 12 digits" when some cell moved that little and none more. A view whose shape changed counts as all changed,
//! with no cell marked. A figure whose trace holds more than [`CHANGED_MAX_VALUES`] values keeps no state from before
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
    /// The shape changed.
    pub resized: bool,
    /// Some cell moved by less than the tolerance only.
    pub rounded: bool,
}

/// The cells of `now` that differ from `before` (see the module doc).
pub fn compare(before: &View, now: &View) -> Changed {
    let (a, b) = (&*before.values, &*now.values);
    let total = b.data().len();
    if a.shape() != b.shape() {
        return Changed { cells: vec![], count: total, total, resized: true, rounded: false };
    }
    let largest = a.data().iter().chain(b.data()).filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()));
    let tolerance = largest * 10f64.powi(-SIGNIFICANT_DIGITS);
    let mut rounded = false;
    let cells: Vec<bool> = a
        .data()
        .iter()
        .zip(b.data())
        .map(|(x, y)| {
            if x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) {
                return false;
            }
            let close = x.is_finite() && y.is_finite() && (x - y).abs() <= tolerance;
            rounded |= close;
            !close
        })
        .collect();
    let count = cells.iter().filter(|&&c| c).count();
    Changed { cells, count, total, resized: false, rounded }
}

impl Changed {
    /// The status the view shows: "unchanged", "unchanged to 12 digits", "3 of 16 changed", "all 16 changed", or
    /// "all changed (new shape)".
    pub fn status(&self) -> String {
        match (self.resized, self.count) {
            (true, _) => "all changed (new shape)".to_string(),
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
