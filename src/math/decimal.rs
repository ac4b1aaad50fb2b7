//! A float32's or float16's shortest decimal, read as float64: what NumPy's `str` of the value writes (0.1 for the
//! float32 nearest 0.1, not 0.10000000149011612), so that a model's float32 weights reach the core as the numbers its
//! JSON and NumPy print. Python's package (`_config.shortest_decimals`, through `ffi::av_shortest`) and the element
//! (Python's float32 bytes, `shortestDecimals`) both ask this, so the rule has one home.
//!
//! Per value: the fewest significant digits p for which some p-digit decimal reads back as the same value in its own
//! type (if p digits do, so do p + 1: bisection), and of the two p-digit decimals around it the nearer that reads back
//! (a tie: the even one), as NumPy's Dragon4 in its shortest mode chooses. With 10^|s| exact (|s| ≤ 22), `k / 10^s`
//! (or `k · 10^-s`) is that decimal correctly rounded to float64, which is what reading its text gives. The few values
//! beyond (|x| under ~1e-13 or over 1e22) are decided the same way on decimal text, which Rust formats and parses
//! correctly rounded.

use std::sync::OnceLock;

/// The types whose values' shortest decimals the core writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Narrow {
    F32,
    F16,
}

impl Narrow {
    /// Significant digits that always read back (float32: 9, float16: 5).
    fn digits(self) -> i32 {
        match self {
            Narrow::F32 => 9,
            Narrow::F16 => 5,
        }
    }

    /// Whether `d` (a float64) rounds to the value `x` (a float64 holding one of this type's values exactly) in this
    /// type, as NumPy's `astype` rounds: to nearest, ties to even.
    fn reads_back(self, d: f64, x: f64) -> bool {
        match self {
            Narrow::F32 => d as f32 == x as f32,
            Narrow::F16 => f16_bits(d) == f16_bits(x),
        }
    }
}

/// The float64s nearest 10^k for k in −60 … 60 (those of |k| ≤ 22 exact): a float32's decimal exponent is within.
fn pow10(k: i32) -> f64 {
    static TABLE: OnceLock<[f64; 121]> = OnceLock::new();
    let table =
        TABLE.get_or_init(|| std::array::from_fn(|i| format!("1e{}", i as i32 - 60).parse().unwrap_or(f64::NAN)));
    table[(k.clamp(-60, 60) + 60) as usize]
}

/// The shortest decimal of `x`, a float64 holding a value of type `ty` exactly (0, ±∞ and NaN are themselves).
pub fn shortest(x: f64, ty: Narrow) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let a = x.abs();
    // log10 may land a hair off at powers of ten: the exponent such that 10^e ≤ a < 10^(e + 1).
    let mut e = a.log10().floor() as i32;
    if pow10(e) > a {
        e -= 1;
    }
    if pow10(e + 1) <= a {
        e += 1;
    }
    let digits = ty.digits();
    if e > 22 || digits - 1 - e > 22 {
        return by_text(x, ty);
    }
    let (mut lo, mut hi) = (1, digits);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if nearest(x, e, mid, ty).1 {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    match nearest(x, e, hi, ty) {
        (d, true) => d,
        _ => by_text(x, ty),
    }
}

/// The nearer p-digit decimal of `x` (decimal exponent `e`) that reads back, and whether either does.
fn nearest(x: f64, e: i32, p: i32, ty: Narrow) -> (f64, bool) {
    let sh = p - 1 - e;
    let scale = pow10(sh.abs());
    let up = sh >= 0;
    let t = if up { x * scale } else { x / scale };
    let lo = t.floor();
    let at = |k: f64| if up { k / scale } else { k * scale };
    let (c0, c1) = (at(lo), at(lo + 1.0));
    let (ok0, ok1) = (ty.reads_back(c0, x), ty.reads_back(c1, x));
    let pick_lo = if ok0 && ok1 {
        let frac = t - lo;
        frac < 0.5 || (frac == 0.5 && lo % 2.0 == 0.0)
    } else {
        ok0
    };
    (if pick_lo { c0 } else { c1 }, ok0 || ok1)
}

/// [`shortest`] on decimal text, for the values whose powers of ten are not exact in float64: each p-digit decimal
/// around `x` written out and parsed (both correctly rounded), the same choice as [`nearest`]'s.
fn by_text(x: f64, ty: Narrow) -> f64 {
    for p in 1..=ty.digits() {
        // x to p significant digits, rounded to nearest: "d.ddde±k", as the integer m = dddd and the exponent of its
        // last digit.
        let text = format!("{:.*e}", (p - 1) as usize, x.abs());
        let Some((mantissa, exp)) = text.split_once('e') else { continue };
        let (Ok(m), Ok(exp)) = (mantissa.replace('.', "").parse::<u64>(), exp.parse::<i32>()) else { continue };
        let last = exp - (p - 1);
        let value = |m: u64| format!("{m}e{last}").parse::<f64>().unwrap_or(f64::NAN).copysign(x);
        let near = value(m);
        // The other p-digit decimal around x: below it when the nearer one is above, and the other way.
        // Just below a power of ten, x rounded up to it (m = 10^(p−1)): the decimal below has p nines, one place lower.
        let smallest = 10u64.pow((p - 1) as u32);
        let other = if near.abs() <= x.abs() {
            Some(value(m + 1))
        } else if m == smallest {
            format!("{}e{}", smallest * 10 - 1, last - 1).parse::<f64>().ok().map(|v| v.copysign(x))
        } else {
            Some(value(m - 1))
        };
        let near_ok = ty.reads_back(near, x);
        match other {
            // Both read back: the nearer, as written (a tie was rounded to even by the formatting).
            _ if near_ok => return near,
            Some(o) if ty.reads_back(o, x) => return o,
            _ => {}
        }
    }
    x
}

/// The float16 bits nearest `x` (ties to even; subnormals; beyond the largest, ±∞; NaN a quiet NaN), as NumPy's
/// `astype(np.float16)` rounds a float64.
fn f16_bits(x: f64) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00; // 65520 is halfway from 65504 to 2^16: it rounds up, to ∞
    }
    // a = m · 2^-24 in units of the smallest subnormal, or a normal's mantissa in units of its last place.
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let (unit_exp, base) = if exp < -14 { (-24, 0u32) } else { (exp - 10, ((exp + 14) as u32) << 10) };
    let scaled = a * 2f64.powi(-unit_exp); // exact: a power of two
    let whole = scaled.floor();
    let frac = scaled - whole;
    let mut m = whole as u32;
    if frac > 0.5 || (frac == 0.5 && m % 2 == 1) {
        m += 1;
    }
    // A normal's m counts from 2^10 (its implicit bit, which `base` leaves out of the exponent field: base + m is the
    // bits); a carry to 2^11 moves into the next binade's exponent, as the bits should.
    let field = base + m;
    sign | field as u16
}
