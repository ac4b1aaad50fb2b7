#![cfg(not(target_arch = "wasm32"))]
//! Checks `attention_viz::heatmap::format` against Python itself: every case in
//! `tests/fixtures/seaborn-goldens.json` (written by
//! `scripts/gen_seaborn_goldens.py`) holds a float (as its exact Python repr),
//! a format spec (`.2g`, and a few other precisions to exercise the generic
//! `format_g`) and the string Python's `format(x, spec)` produced. The
//! annotation strings of real seaborn figures are checked in
//! `heatmap_palette.rs`, together with their cell colours.

mod common;

use attention_viz::heatmap::format::{format_g, format_g2};
use common::{num as parse_f64, seaborn_goldens as goldens};

#[test]
fn python_format_g_cases() {
    let g = goldens();
    let cases = g["format"].as_array().expect("format cases");
    assert!(cases.len() >= 60, "expected many cases, got {}", cases.len());
    let mut failures = Vec::new();
    let mut n_2g = 0;
    for case in cases {
        let x = parse_f64(&case["x"]);
        let spec = case["spec"].as_str().unwrap();
        let want = case["s"].as_str().unwrap();
        let precision: usize = spec
            .strip_prefix('.')
            .and_then(|s| s.strip_suffix('g'))
            .and_then(|s| s.parse().ok())
            .expect("spec like .2g");
        let got = format_g(x, precision);
        if precision == 2 {
            n_2g += 1;
            assert_eq!(format_g2(x), got);
        }
        if got != want {
            failures.push(format!("format({x:?}, {spec:?}): python {want:?}, rust {got:?}"));
        }
    }
    assert!(n_2g >= 60, "only {n_2g} .2g cases");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn brief_examples() {
    let cases: &[(f64, &str)] = &[
        (927.0, "9.3e+02"),
        (45.3, "45"),
        (0.23608986335744747, "0.24"),
        (0.007389875548932189, "0.0074"),
        (4.688819389696492e-230, "4.7e-230"),
        (0.0, "0"),
        (-0.0, "-0"),
        (1.0, "1"),
        (100.0, "1e+02"),
        (0.5, "0.5"),
        (3.8807970779778826, "3.9"),
        (f64::NAN, "nan"),
        (f64::INFINITY, "inf"),
        (f64::NEG_INFINITY, "-inf"),
        (0.125, "0.12"),
        (0.375, "0.38"),
        (2.5, "2.5"),
        (9.95, "9.9"),
        (99.5, "1e+02"),
        (1e-05, "1e-05"),
        (0.0001, "0.0001"),
        (123456.0, "1.2e+05"),
    ];
    for &(x, want) in cases {
        assert_eq!(format_g2(x), want, "format({x:?}, '.2g')");
    }
}

#[test]
fn never_panics() {
    let specials = [
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f64::MIN,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::EPSILON,
    ];
    for &x in &specials {
        for p in [0, 1, 2, 3, 17, 100, 1000, usize::MAX] {
            let s = format_g(x, p);
            assert!(!s.is_empty());
        }
    }
    // A sweep of bit patterns across the whole f64 range.
    let mut bits: u64 = 0x0123_4567_89ab_cdef;
    for _ in 0..20_000 {
        bits = bits.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let x = f64::from_bits(bits);
        let s = format_g2(x);
        if x.is_finite() {
            // Re-parsing gives a value within one unit of the 2nd digit.
            let back: f64 = s.parse().expect("output parses as a float");
            assert!((back - x).abs() <= x.abs() * 0.051 || (x.abs() < 1e-300 && back.abs() < 1e-300), "{x:e} -> {s}");
        }
    }
}
