//! Softmax in two flavours: the stable one we compute with, and the naive one
//! the overflow lesson of the seed documents shows failing.
//!
//! The stable form is `scipy.special.softmax`: subtract the maximum, exponentiate,
//! divide by the sum. Subtracting the maximum makes every exponent ≤ 0, so
//! `exp` never overflows and the largest term is exactly 1, so the sum is ≥ 1.

use super::kernels::{divide, exp_shifted_into, min_max};

/// Softmax of one row, stable for any finite input (even ±1e308).
///
/// Returns an empty vector for an empty row. If the row holds NaN the result
/// is NaN, as in SciPy; callers validate their inputs first.
pub fn softmax_stable(row: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; row.len()];
    softmax_stable_into(row, &mut out);
    out
}

/// [`softmax_stable`] written into `out` (of the same length), with no allocation.
pub fn softmax_stable_into(row: &[f64], out: &mut [f64]) {
    let (_, max) = min_max(row);
    // `x - max` can itself overflow to -inf when x ≈ -1e308 and max ≈ 1e308;
    // exp(-inf) = 0 is then the right answer, so no special case is needed.
    let sum = exp_shifted_into(row, max, out);
    divide(out, sum);
}

/// Softmax exactly as the seed documents first write it: `exp(x) / sum(exp(x))`.
/// Overflows to `inf / inf = NaN` once a score passes ~709.78.
pub fn softmax_naive(row: &[f64]) -> Vec<f64> {
    let exps: Vec<f64> = row.iter().map(|x| x.exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

/// The naive softmax of `row`, given its stable softmax `stable`.
///
/// Where `exp(x)` can neither overflow nor underflow for any entry, and their
/// sum cannot overflow, the naive and stable formulas are the same numbers
/// (up to rounding), so the stable row is returned and n exponentials are
/// saved. Only rows near float64's edges — where the lesson happens — are
/// computed literally with `softmax_naive`.
pub fn softmax_naive_given(row: &[f64], stable: &[f64]) -> Vec<f64> {
    if naive_equals_stable(row) {
        stable.to_vec()
    } else {
        softmax_naive(row)
    }
}

/// Whether `exp(x)` can neither overflow nor underflow for any entry of `row`,
/// nor their sum overflow: then the naive and stable softmax are the same
/// numbers, up to rounding.
pub fn naive_equals_stable(row: &[f64]) -> bool {
    let (min, max) = min_max(row);
    let headroom = 700.0 - (row.len().max(1) as f64).ln();
    max <= headroom && min >= -700.0
}

/// The entropy of a row of weights in bits, −Σ p·log₂ p over the row's shares p = w / Σw (0·log 0 = 0; SciPy's
/// `entropy(w, base=2)`): 0 when every share is on one key, log₂ m when the m shares are equal. `None` for a row
/// that sums to 0 (a query whose every key is masked gets weights 0: it attends nowhere); NaN when a weight is NaN.
pub fn entropy_bits(w: &[f64]) -> Option<f64> {
    if w.iter().any(|x| x.is_nan()) {
        return Some(f64::NAN);
    }
    let sum: f64 = w.iter().sum();
    if sum <= 0.0 {
        return None;
    }
    let h: f64 = w.iter().map(|&x| x / sum).filter(|&p| p > 0.0).map(|p| -p * p.log2()).sum();
    Some(h.max(0.0))
}
