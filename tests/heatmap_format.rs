#![cfg(not(target_arch = "wasm32"))]
//! Checks `attention_viz::heatmap::format` against Python itself: every case in
//! `tests/fixtures/seaborn-goldens.json` (written by
//! `tests/goldens/gen_seaborn_goldens.py`) holds a float (as its exact Python repr),
//! a format spec (`.2g`, and a few other precisions to exercise the generic
//! `format_g`) and the string Python's `format(x, spec)` produced. The
//! annotation strings of real seaborn figures are checked in
//! `heatmap_palette.rs`, together with their cell colours.
//!
//! `tests/fixtures/python-format.json` (written by `tests/goldens/gen_python_format.py`)
//! holds Python's `format(x, spec)` for ~200 values × every spec seaborn's
//! `heatmap(fmt=…)` takes; [`Fmt`] must write each one character for character.

mod common;

use attention_viz::heatmap::format::{format_g, format_g2, Fmt, MAX_SPEC_PRECISION};
use common::{num as parse_f64, seaborn_goldens as goldens};
use serde_json::Value;

fn python_format() -> Value {
    serde_json::from_str(include_str!("fixtures/python-format.json")).unwrap()
}

#[test]
fn every_spec_matches_python_format() {
    let doc = python_format();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 200 * 20, "{} cases", cases.len());
    let mut failures = vec![];
    let mut specs_seen = std::collections::BTreeSet::new();
    for case in cases {
        let x = parse_f64(&case["x"]);
        let spec = case["spec"].as_str().unwrap();
        specs_seen.insert(spec.to_string());
        let fmt = Fmt::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        match (case["s"].as_str(), case["error"].as_str()) {
            (Some(want), _) => {
                assert!(fmt.check(&[x]).is_ok(), "{spec} accepts {x:?}");
                let got = fmt.format(x);
                if got != want {
                    failures.push(format!("format({x:?}, {spec:?}): python {want:?}, rust {got:?}"));
                }
            }
            (None, Some(_)) => {
                // Only `d` raises: for a finite value that is not whole, the view is refused;
                // nan/inf are written as every other spec writes them (seaborn never annotates them).
                assert_eq!(spec, "d");
                if x.is_finite() {
                    let e = fmt.check(&[1.0, x]).unwrap_err();
                    assert!(e.starts_with("fmt \"d\" needs whole numbers; this view has "), "{e}");
                } else {
                    assert!(fmt.check(&[x]).is_ok());
                    let python = if x.is_nan() {
                        "nan"
                    } else if x > 0.0 {
                        "inf"
                    } else {
                        "-inf"
                    };
                    assert_eq!(fmt.format(x), python, "format({x:?}, \"d\")");
                }
            }
            _ => panic!("case without s or error: {case}"),
        }
    }
    for spec in [".2g", ".3g", ".4g", ".2f", ".0f", ".2e", ".1%", "d", "g", "f", "e", "%"] {
        assert!(specs_seen.contains(spec), "no cases for {spec}");
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn specs_parse_once_and_print_canonically() {
    assert_eq!(Fmt::default(), Fmt::General(2));
    assert_eq!(Fmt::parse(".2g"), Ok(Fmt::General(2)));
    assert_eq!(Fmt::parse("g"), Ok(Fmt::General(6)));
    assert_eq!(Fmt::parse("%"), Ok(Fmt::Percent(6)));
    assert_eq!(Fmt::parse(".0f"), Ok(Fmt::Fixed(0)));
    assert_eq!(Fmt::parse(".12e"), Ok(Fmt::Exp(12)));
    assert_eq!(Fmt::parse("d"), Ok(Fmt::Int));
    for spec in [".2g", ".3g", ".0f", ".2f", ".2e", ".1%", "d", ".17g"] {
        assert_eq!(Fmt::parse(spec).unwrap().to_string(), spec);
    }
    assert_eq!(Fmt::parse("f").unwrap().to_string(), ".6f");
}

#[test]
fn bad_specs_say_what_is_accepted() {
    for bad in [".2q", "", "2g", ".g", ".2", "x", ".2d", "+.2f", ".2G", "10.2f", ",.2f", ".-1g", "é", ".2gg"] {
        let e = Fmt::parse(bad).unwrap_err();
        assert!(e.contains("is not one of seaborn's format specs: use .2g, .3g, .2f, .0f, d, .1%, .2e"), "{bad}: {e}");
    }
    assert_eq!(
        Fmt::parse(".2q").unwrap_err(),
        "fmt \".2q\" is not one of seaborn's format specs: use .2g, .3g, .2f, .0f, d, .1%, .2e \
         (or g, f, e, % with Python's default precision 6)"
    );
    assert!(Fmt::parse(".101g").unwrap_err().contains("at most 100"));
    assert!(Fmt::parse(".99999999999999999999999g").unwrap_err().contains("at most 100"));
}

#[test]
fn d_needs_whole_numbers() {
    let d = Fmt::Int;
    assert!(d.check(&[1.0, -3.0, 0.0, -0.0, 1e300, f64::NAN, f64::INFINITY]).is_ok());
    assert_eq!(
        d.check(&[8.0, 0.23608986335744747]).unwrap_err(),
        "fmt \"d\" needs whole numbers; this view has 0.236… (use .2g, .2f or .0f)"
    );
    assert_eq!(d.check(&[2.5]).unwrap_err(), "fmt \"d\" needs whole numbers; this view has 2.5 (use .2g, .2f or .0f)");
    assert_eq!(d.format(1400.0), "1400");
    assert_eq!(d.format(-0.0), "0");
    assert!(Fmt::General(2).check(&[0.5]).is_ok());
}

#[test]
fn fewer_digits_steps_down_to_the_last_digit() {
    let chain = |f: Fmt| std::iter::successors(Some(f), Fmt::fewer_digits).map(|f| f.to_string()).collect::<Vec<_>>();
    assert_eq!(chain(Fmt::General(3)), [".3g", ".2g", ".1g"]);
    assert_eq!(chain(Fmt::Fixed(2)), [".2f", ".1f", ".0f"]);
    assert_eq!(chain(Fmt::Exp(1)), [".1e", ".0e"]);
    assert_eq!(chain(Fmt::Percent(1)), [".1%", ".0%"]);
    assert_eq!(chain(Fmt::Int), ["d"]);
    assert_eq!(Fmt::General(1).digits_text(), "to 1 significant digit");
    assert_eq!(Fmt::General(2).digits_text(), "to 2 significant digits");
    assert_eq!(Fmt::Exp(0).digits_text(), "to 1 significant digit");
    assert_eq!(Fmt::Fixed(2).digits_text(), "to 2 decimals");
    assert_eq!(Fmt::Fixed(0).digits_text(), "as whole numbers");
    assert_eq!(Fmt::Percent(1).digits_text(), "to 1 decimal of a percent");
}

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

/// Every spec seaborn takes, at every precision up to the largest accepted, on ±∞ and NaN:
/// `format` writes them as Python does (`-inf`, `inf`, `nan`; `-inf%` under `%`), and the cell
/// text a heatmap and its description show is "−∞" (U+2212 U+221E), "∞" and "nan" whatever the
/// spec. Neither panics, and `check` accepts them (also for `d`).
#[test]
fn infinities_and_nan_in_every_spec() {
    let mut specs: Vec<Fmt> = vec![Fmt::Int, Fmt::default()];
    for p in 0..=MAX_SPEC_PRECISION {
        specs.extend([Fmt::General(p), Fmt::Fixed(p), Fmt::Exp(p), Fmt::Percent(p)]);
    }
    for spec in ["g", "f", "e", "%", ".2g", ".3g", ".1%", "d", ".0f", ".2e"] {
        specs.push(Fmt::parse(spec).unwrap());
    }
    for fmt in specs {
        let percent = if matches!(fmt, Fmt::Percent(_)) { "%" } else { "" };
        for (x, python, cell) in [
            (f64::NEG_INFINITY, "-inf", "\u{2212}\u{221e}"),
            (f64::INFINITY, "inf", "\u{221e}"),
            (f64::NAN, "nan", "nan"),
            (-f64::NAN, "nan", "nan"),
        ] {
            assert_eq!(fmt.format(x), format!("{python}{percent}"), "format({x}, {fmt})");
            assert_eq!(fmt.cell(x), cell, "cell({x}, {fmt})");
        }
        assert!(fmt.check(&[f64::NEG_INFINITY, f64::INFINITY, f64::NAN, 1.0]).is_ok(), "{fmt}");
        // Finite values: the cell text is Python's.
        for x in [0.0f64, -0.0, 1.5, -2.25, 1e300, -1e-300, 927.0] {
            if fmt != Fmt::Int || x.fract() == 0.0 {
                assert_eq!(fmt.cell(x), fmt.format(x), "{fmt} {x}");
            }
        }
    }
}

/// `format_g` at precisions seaborn never asks for.
mod precisions {
    use attention_viz::heatmap::format::format_g;

    #[test]
    fn other_precisions() {
        assert_eq!(format_g(1.0 / 3.0, 0), "0.3");
        assert_eq!(format_g(1.0 / 3.0, 17), "0.33333333333333331");
        assert_eq!(format_g(123456789.0, 6), "1.23457e+08");
        assert_eq!(format_g(0.1, usize::MAX).len(), 57);
    }
}
