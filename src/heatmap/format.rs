//! Number formatting for heatmap annotations, reproducing Python's
//! `format(x, spec)` for the specs seaborn's `heatmap(fmt=…)` takes: `.Ng`
//! (seaborn's default `.2g`), `.Nf`, `.Ne`, `.N%`, `d`, and `g`/`f`/`e`/`%`
//! without a precision (Python's default 6). [`Fmt::parse`] reads a spec once;
//! [`Fmt::format`] writes one value.
//!
//! General format (`g`): Python rounds the exact binary value of the float
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

/// A NaN cell's text, whatever the spec.
pub const NAN_TEXT: &str = "nan";
/// A −∞ cell's text (a masked score): U+2212 MINUS SIGN and U+221E INFINITY, not Python's `-inf`.
pub const NEG_INF_TEXT: &str = "\u{2212}\u{221E}";
/// A +∞ cell's text: U+221E INFINITY, not Python's `inf`.
pub const POS_INF_TEXT: &str = "\u{221E}";

/// Largest precision [`Fmt::parse`] accepts: more digits than any float has
/// (17 significant digits identify an `f64`), with room for `.20f` and the like.
pub const MAX_SPEC_PRECISION: usize = 100;

/// A seaborn `fmt` spec, parsed once: how each annotation is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    /// `.Ng` (and `g`, precision 6): `N` significant digits, Python's general format.
    General(usize),
    /// `.Nf` (and `f`): fixed point with `N` decimals.
    Fixed(usize),
    /// `.Ne` (and `e`): scientific with `N` decimals in the mantissa.
    Exp(usize),
    /// `.N%` (and `%`): the value times 100, fixed point with `N` decimals, then `%`.
    Percent(usize),
    /// `d`: integers. Only for views whose every finite value is a whole number (see [`Fmt::check`]).
    Int,
}

impl Default for Fmt {
    /// seaborn's default for `annot=True`: `.2g`.
    fn default() -> Fmt {
        Fmt::General(2)
    }
}

impl std::fmt::Display for Fmt {
    /// The spec in its canonical form (`.2g`, `.6f`, `d`): `Fmt::parse` of it gives the same `Fmt`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fmt::General(p) => write!(f, ".{p}g"),
            Fmt::Fixed(p) => write!(f, ".{p}f"),
            Fmt::Exp(p) => write!(f, ".{p}e"),
            Fmt::Percent(p) => write!(f, ".{p}%"),
            Fmt::Int => f.write_str("d"),
        }
    }
}

impl Fmt {
    /// Reads a spec: `.Ng`, `.Nf`, `.Ne`, `.N%` (N at most [`MAX_SPEC_PRECISION`]), `d`, or
    /// `g`, `f`, `e`, `%` (precision 6, as in Python). Anything else is an error that says what is accepted.
    pub fn parse(spec: &str) -> Result<Fmt, String> {
        let bad = || {
            format!(
                "fmt {} is not one of seaborn's format specs: use .2g, .3g, .2f, .0f, d, .1%, .2e \
                 (or g, f, e, % with Python's default precision 6)",
                crate::text::quote(spec)
            )
        };
        let s = spec.trim();
        if s == "d" {
            return Ok(Fmt::Int);
        }
        let Some(kind) = s.chars().last() else { return Err(bad()) };
        let body = &s[..s.len() - kind.len_utf8()];
        let precision = if body.is_empty() {
            6
        } else {
            let digits = body.strip_prefix('.').ok_or_else(bad)?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let p: usize = digits.parse().unwrap_or(usize::MAX);
            if p > MAX_SPEC_PRECISION {
                return Err(format!(
                    "fmt {} asks for {} digits: at most {MAX_SPEC_PRECISION} (a float has 17 significant digits)",
                    crate::text::quote(spec),
                    crate::text::cut(digits)
                ));
            }
            p
        };
        match kind {
            'g' => Ok(Fmt::General(precision)),
            'f' => Ok(Fmt::Fixed(precision)),
            'e' => Ok(Fmt::Exp(precision)),
            '%' => Ok(Fmt::Percent(precision)),
            _ => Err(bad()),
        }
    }

    /// `format(x, spec)` as Python writes it. For [`Fmt::Int`], `format(int(x), 'd')` of a whole
    /// `x`; non-finite values are written `nan`, `inf`, `-inf` like the other specs (seaborn never
    /// annotates them), and a value that is not whole — which [`Fmt::check`] rejects first —
    /// is rounded to the nearest integer (ties to even).
    pub fn format(&self, x: f64) -> String {
        match *self {
            Fmt::General(p) => format_g(x, p),
            Fmt::Fixed(p) => format_f(x, p),
            Fmt::Exp(p) => format_e(x, p),
            Fmt::Percent(p) => {
                // CPython multiplies by 100 in float64, then formats as 'f'.
                let mut s = format_f(x * 100.0, p);
                s.push('%');
                s
            }
            Fmt::Int => format_d(x),
        }
    }

    /// What a heatmap cell (and its text alternative) shows for `x`: [`Fmt::format`] for a finite
    /// value, and for the others the same text whatever the spec — [`NAN_TEXT`] for NaN (not
    /// Python's `nan%` under `.N%`), and [`NEG_INF_TEXT`] / [`POS_INF_TEXT`] for ±∞.
    ///
    /// Python (so seaborn, were it to annotate them) writes `format(float('-inf'), '.2g')` as
    /// `-inf`, and [`Fmt::format`] keeps that exactly. Cells write ±∞ typographically instead: a
    /// masked score is −∞ in the documents' notation, and "−∞" (U+2212 MINUS SIGN, U+221E) is
    /// shorter than `-inf`, so it fits cells that `-inf` would force into a smaller font. Finite
    /// negatives keep Python's ASCII hyphen-minus, as seaborn draws them.
    pub fn cell(&self, x: f64) -> String {
        if x.is_nan() {
            NAN_TEXT.to_string()
        } else if x == f64::NEG_INFINITY {
            NEG_INF_TEXT.to_string()
        } else if x == f64::INFINITY {
            POS_INF_TEXT.to_string()
        } else {
            self.format(x)
        }
    }

    /// Whether every value of a view can be written with this spec: `d` needs whole numbers
    /// (non-finite values aside); every other spec takes any value.
    pub fn check(&self, values: &[f64]) -> Result<(), String> {
        if *self != Fmt::Int {
            return Ok(());
        }
        match first_fraction(values) {
            None => Ok(()),
            Some(x) => Err(format!("fmt \"d\" needs whole numbers; this view has {} (use .2g, .2f or .0f)", shown(x))),
        }
    }

    /// The spec a figure writes a view's numbers with, and why when it is not this one: `d` on a view
    /// with a value that is not whole writes the view with `.2g` (Python's `format` refuses it, so a
    /// figure would have no numbers at all) and says so in the view's note.
    pub fn for_values(&self, values: &[f64]) -> (Fmt, Option<String>) {
        if *self != Fmt::Int {
            return (*self, None);
        }
        match first_fraction(values) {
            None => (*self, None),
            Some(x) => {
                let fallback = Fmt::default();
                (fallback, Some(format!("fmt d needs whole numbers ({} here): written with {fallback}", shown(x))))
            }
        }
    }

    /// The same kind of spec with one digit less (`.3g` → `.2g`, `.2f` → `.1f`), or `None`
    /// when there is none to drop (`.1g`, `.0f`, `.0e`, `.0%`, `d`).
    pub fn fewer_digits(&self) -> Option<Fmt> {
        match *self {
            Fmt::General(p) if p > 1 => Some(Fmt::General(p - 1)),
            Fmt::Fixed(p) if p > 0 => Some(Fmt::Fixed(p - 1)),
            Fmt::Exp(p) if p > 0 => Some(Fmt::Exp(p - 1)),
            Fmt::Percent(p) if p > 0 => Some(Fmt::Percent(p - 1)),
            _ => None,
        }
    }

    /// What this spec keeps of a number, for a figure's note ("numbers …"):
    /// "to 1 significant digit", "to 2 decimals", "as whole numbers", "as whole percentages".
    pub fn digits_text(&self) -> String {
        let plural = |n: usize, what: &str| format!("to {n} {what}{}", if n == 1 { "" } else { "s" });
        match *self {
            Fmt::General(p) => plural(p.max(1), "significant digit"),
            Fmt::Exp(p) => plural(p + 1, "significant digit"),
            Fmt::Fixed(0) | Fmt::Int => "as whole numbers".to_string(),
            Fmt::Percent(0) => "as whole percentages".to_string(),
            Fmt::Fixed(p) => plural(p, "decimal"),
            Fmt::Percent(p) => plural(p, "decimal") + " of a percent",
        }
    }
}

/// The first finite value that is not whole.
fn first_fraction(values: &[f64]) -> Option<f64> {
    values.iter().copied().find(|x| x.is_finite() && x.fract() != 0.0)
}

/// A value for a message: three significant digits, "…" when that is not all of it.
fn shown(x: f64) -> String {
    // `short` is exact when x's shortest round-trip form has at most 3 significant digits
    // (counted from `{:e}`, not by parsing `short` back: a float parser costs the WASM ~10 KB).
    let short = format_g(x, 3);
    let shortest = format!("{x:e}");
    let digits = shortest.split('e').next().unwrap_or("").chars().filter(char::is_ascii_digit).count();
    if digits <= 3 {
        short
    } else {
        format!("{short}…")
    }
}

/// `nan`, `inf`, `-inf` as Python writes them, or `None` for a finite value.
fn non_finite(x: f64) -> Option<&'static str> {
    if x.is_nan() {
        Some("nan")
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        None
    }
}

/// `format(x, f".{precision}f")`: Rust's fixed formatting is exact (every digit of a large
/// float) with ties to even, and keeps the sign of `-0.0` and of negatives that round to 0.
pub fn format_f(x: f64, precision: usize) -> String {
    match non_finite(x) {
        Some(s) => s.to_string(),
        None => format!("{:.*}", precision.min(MAX_PRECISION), x),
    }
}

/// `format(x, f".{precision}e")`: Rust's `{:.Ne}` with Python's exponent (sign, two digits at least).
pub fn format_e(x: f64, precision: usize) -> String {
    if let Some(s) = non_finite(x) {
        return s.to_string();
    }
    let sci = format!("{:.*e}", precision.min(MAX_PRECISION), x);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (sci.as_str(), 0),
    };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
}

/// `format(int(x), 'd')` for a whole `x` (see [`Fmt::format`] for the others).
fn format_d(x: f64) -> String {
    if let Some(s) = non_finite(x) {
        return s.to_string();
    }
    if x == 0.0 {
        // int(-0.0) is 0.
        return "0".to_string();
    }
    // `{:.0}` writes every digit of the float exactly, as int(x) has them.
    let s = format!("{x:.0}");
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}
