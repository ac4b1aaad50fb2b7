//! A natural logarithm that gives the same bits on every platform.
//!
//! NumPy's `randn` calls the C library's `log`; on Linux that is glibc's,
//! which is correctly rounded in practice. Rust's `f64::ln` is glibc's log on
//! native Linux, but on wasm32 it is a portable libm that is off by an ulp
//! now and then — enough to change a Gaussian's last bits in the browser.
//! So `ln` here is computed in double-double arithmetic (about 100 bits) and
//! rounded once: the correctly rounded result. glibc's log is within 0.52 ulp,
//! not always correctly rounded, so the two still differ in about 0.03 % of
//! arguments (near-halfway cases); `random` uses this only on wasm32.
//!
//! Method: x = 2^k·m with m in [√½, √2); ln m = 2·atanh(s), s = (m−1)/(m+1),
//! summed as s + s³/3 + s⁵/5 + … until the terms fall below 2^-110; plus k·ln 2.

/// Double-double: the unevaluated sum hi + lo, |lo| ≤ ulp(hi)/2.
#[derive(Clone, Copy, Debug)]
struct Dd(f64, f64);

fn two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    let bb = s - a;
    Dd(s, (a - (s - bb)) + (b - bb))
}

fn quick_two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    Dd(s, b - (s - a))
}

/// Dekker's split: no fused multiply-add needed (wasm has none in hardware).
fn split(a: f64) -> (f64, f64) {
    let t = 134_217_729.0 * a; // 2^27 + 1
    let hi = t - (t - a);
    (hi, a - hi)
}

fn two_prod(a: f64, b: f64) -> Dd {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    Dd(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

impl Dd {
    fn add(self, o: Dd) -> Dd {
        let s = two_sum(self.0, o.0);
        let t = two_sum(self.1, o.1);
        let s = quick_two_sum(s.0, s.1 + t.0);
        quick_two_sum(s.0, s.1 + t.1)
    }

    fn mul(self, o: Dd) -> Dd {
        let p = two_prod(self.0, o.0);
        quick_two_sum(p.0, p.1 + (self.0 * o.1 + self.1 * o.0))
    }

    fn div(self, o: Dd) -> Dd {
        let q1 = self.0 / o.0;
        let r = self.add(o.mul(Dd(-q1, 0.0)));
        let q2 = r.0 / o.0;
        let r = r.add(o.mul(Dd(-q2, 0.0)));
        let q3 = r.0 / o.0;
        quick_two_sum(q1, q2).add(Dd(q3, 0.0))
    }

    fn scale(self, f: f64) -> Dd {
        // Exact for powers of two and small integers times a normalised pair.
        self.mul(Dd(f, 0.0))
    }
}

// ln 2 as a double-double: the f64 nearest ln 2 (std's LN_2) and the rest.
const LN2: Dd = Dd(std::f64::consts::LN_2, 2.319_046_813_846_299_6e-17);

/// ln(x), correctly rounded for finite x > 0; NaN, ±inf and x ≤ 0 as `f64::ln`.
pub fn ln(x: f64) -> f64 {
    if !(x > 0.0) || !x.is_finite() {
        return x.ln();
    }
    // Normalise subnormals, then split off the binary exponent.
    let (x, bias) = if x < f64::MIN_POSITIVE { (x * 2f64.powi(64), -64) } else { (x, 0) };
    let bits = x.to_bits();
    let mut k = ((bits >> 52) & 0x7ff) as i32 - 1023 + bias;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        k += 1;
    }
    if m == 1.0 {
        return LN2.scale(k as f64).0;
    }
    let num = Dd(m - 1.0, 0.0); // exact (Sterbenz)
    let den = two_sum(m, 1.0);
    let s = num.div(den);
    let s2 = s.mul(s);
    let mut term = s;
    let mut sum = s;
    for n in 1..60 {
        term = term.mul(s2);
        let add = term.div(Dd((2 * n + 1) as f64, 0.0));
        sum = sum.add(add);
        if add.0.abs() < sum.0.abs() * 1e-33 {
            break;
        }
    }
    LN2.scale(k as f64).add(sum.scale(2.0)).0
}
