//! Number formatting for heatmap annotations, reproducing Python's general
//! format (`format(x, ".2g")`, seaborn's default `fmt` for `annot=True`)
//! character for character. Python rounds the exact binary value of the float
//! to `precision` significant digits (ties to even), takes the decimal exponent
//! `X` of that rounded value, and writes fixed notation with `precision - 1 - X`
//! decimals when `-4 <= X < precision`, scientific notation with
//! `precision - 1` decimals otherwise; it then strips trailing zeros and a
//! trailing dot, writes the exponent with a sign and at least two digits, keeps
//! the sign of `-0.0`, and prints `nan`, `inf` and `-inf` (never `-nan`).
//! Rust's `{:.Ne}` / `{:.N}` formatting is exact and rounds ties to even, so it
//! is used as the digit generator. Every function here is total: no `f64` input
//! and no precision panics.

/// Largest precision that can make a difference: an `f64`'s exact decimal
/// expansion has at most 767 significant digits, and with `g` formatting any
/// further digits would be zeros that get stripped. Capping keeps huge
/// requested precisions from allocating absurd strings while giving Python's
/// exact output.
const MAX_PRECISION: usize = 800;

/// `format(x, ".2g")` as Python writes it: the annotation text seaborn puts in
/// each heatmap cell.
///
/// ```
/// use attention_viz::heatmap::format::format_g2;
/// assert_eq!(format_g2(927.0), "9.3e+02");
/// assert_eq!(format_g2(45.3), "45");
/// assert_eq!(format_g2(0.007389875548932189), "0.0074");
/// assert_eq!(format_g2(-0.0), "-0");
/// ```
pub fn format_g2(x: f64) -> String {
    format_g(x, 2)
}

/// `format(x, f".{precision}g")` as Python writes it. A precision of 0 is
/// treated as 1, like Python.
pub fn format_g(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let p = precision.clamp(1, MAX_PRECISION);

    // Round to p significant digits in scientific form; its exponent is the
    // exponent of the *rounded* value (99.5 -> "1.0e2" -> X = 2).
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (sci.as_str(), 0),
    };

    if exp >= -4 && exp < p as i64 {
        // Fixed notation with p - 1 - X decimals gives the same p significant
        // digits (same rounding) as the scientific form above.
        let decimals = (p as i64 - 1 - exp).max(0) as usize;
        let fixed = format!("{:.*}", decimals, x);
        strip_trailing_zeros(&fixed).to_string()
    } else {
        let m = strip_trailing_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.unsigned_abs())
    }
}

/// Remove trailing zeros after a decimal point, then a trailing dot
/// ("2.50" -> "2.5", "1.0" -> "1", "120" stays "120").
fn strip_trailing_zeros(s: &str) -> &str {
    if !s.contains('.') {
        return s;
    }
    let t = s.trim_end_matches('0');
    t.strip_suffix('.').unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_precisions() {
        assert_eq!(format_g(1.0 / 3.0, 0), "0.3");
        assert_eq!(format_g(1.0 / 3.0, 17), "0.33333333333333331");
        assert_eq!(format_g(123456789.0, 6), "1.23457e+08");
        assert_eq!(format_g(0.1, usize::MAX).len(), 57);
    }
}
