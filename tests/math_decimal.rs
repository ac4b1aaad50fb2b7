//! `math::decimal::shortest` against NumPy's `str` of float32 and float16 values (tests/fixtures/shortest-decimals.json,
//! written by NumPy 2.4.6: random bit patterns of every exponent, values in (0, 1) and below 1/1024 as attention
//! weights are, and edges such as powers of ten, the largest and smallest values, ±0). The fixture's script:
//!
//! ```python
//! rng = np.random.default_rng(26)
//! x = np.concatenate([rng.integers(0, np.iinfo(bits).max, n, dtype=np.uint64).astype(bits).view(dtype),
//!                     rng.random(n).astype(dtype), (rng.random(n // 2) / 1024).astype(dtype), np.array(edges).astype(dtype)])
//! x = x[np.isfinite(x)]; [[int(b), s] for b, s in zip(x.view(bits).tolist(), x.astype(str).tolist())]
//! ```
use attention_viz::math::decimal::{shortest, Narrow};
use serde_json::Value;

fn cases(name: &str) -> Vec<(u64, f64)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/shortest-decimals.json")).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all[name]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c[0].as_u64().unwrap(), c[1].as_str().unwrap().parse::<f64>().unwrap()))
        .collect()
}

/// A float16's bits as the float64 it is (exactly).
fn f16_value(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    sign * if exp == 0 { frac * 2f64.powi(-24) } else { (1.0 + frac / 1024.0) * 2f64.powi(exp - 15) }
}

/// Every case of fixture list `name` (at least `min` of them): `value(bits)` through `shortest` is NumPy's str, bit for bit.
fn agrees_with_numpy(name: &str, min: usize, ty: Narrow, value: impl Fn(u64) -> f64) {
    let cases = cases(name);
    assert!(cases.len() > min);
    let wrong: Vec<_> = cases
        .iter()
        .map(|&(bits, want)| (value(bits), want))
        .filter(|&(x, want)| shortest(x, ty).to_bits() != want.to_bits())
        .map(|(x, want)| (x, shortest(x, ty), want))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} differ from NumPy's str, e.g. (x, ours, NumPy's) {:?}",
        wrong.len(),
        cases.len(),
        &wrong[..wrong.len().min(5)]
    );
}

#[test]
fn float32_values_are_numpys_str_read_as_float64() {
    agrees_with_numpy("float32", 3000, Narrow::F32, |bits| f64::from(f32::from_bits(bits as u32)));
}

#[test]
fn float16_values_are_numpys_str_read_as_float64() {
    agrees_with_numpy("float16", 1400, Narrow::F16, |bits| f16_value(bits as u16));
}

#[test]
fn zero_infinities_and_nan_are_themselves() {
    for ty in [Narrow::F32, Narrow::F16] {
        assert_eq!(shortest(0.0, ty).to_bits(), 0.0f64.to_bits());
        assert_eq!(shortest(-0.0, ty).to_bits(), (-0.0f64).to_bits());
        assert_eq!(shortest(f64::INFINITY, ty), f64::INFINITY);
        assert_eq!(shortest(f64::NEG_INFINITY, ty), f64::NEG_INFINITY);
        assert!(shortest(f64::NAN, ty).is_nan());
    }
}
