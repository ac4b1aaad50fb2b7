//! The attention variants (heads, W_O, masks, valid_lens, masked rows, temperature, scale,
//! general/additive/cosine scoring) against golden values from code nobody on the project
//! wrote (tests/fixtures/variant-goldens.json, tests/goldens/gen_variant_goldens.py):
//! a float64 NumPy transcription of the papers' formulas, checked at 1e-12 relative, and
//! `jax.nn.dot_product_attention` (float32 softmax), checked at 1e-6.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention::{compute, Trace};
use attention_viz::config::Config;
use serde_json::Value;

/// NumPy float64 values: relative to the expected value.
const REL: f64 = 1e-12;
/// Below this an expected value counts as zero (an absolute floor for the relative check).
const TINY: f64 = 1e-300;
/// JAX's float32 softmax: relative to max(|expected|, 1).
const JAX_TOL: f64 = 1e-6;
/// Failures listed per field before the rest are only counted.
const SHOWN: usize = 4;

fn goldens() -> Value {
    serde_json::from_str(include_str!("fixtures/variant-goldens.json")).unwrap()
}

fn cases() -> Vec<Value> {
    goldens()["cases"].as_array().expect("cases").clone()
}

/// A fixture number: a JSON number, or "NaN" / "-Infinity" / "Infinity".
fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) if s == "NaN" => f64::NAN,
        Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
        Value::String(s) if s == "Infinity" => f64::INFINITY,
        other => panic!("not a fixture number: {other}"),
    }
}

/// A nested list as (shape, row-major values).
fn flatten(v: &Value) -> (Vec<usize>, Vec<f64>) {
    match v.as_array() {
        Some(rows) if rows.first().is_some_and(Value::is_array) => {
            let mut data = Vec::new();
            let mut cols = None;
            for row in rows {
                let (shape, values) = flatten(row);
                assert_eq!(shape.len(), 1, "fixture matrices are two-dimensional");
                assert!(cols.is_none_or(|c| c == shape[0]), "ragged fixture matrix");
                cols = Some(shape[0]);
                data.extend(values);
            }
            (vec![rows.len(), cols.unwrap()], data)
        }
        Some(values) => (vec![values.len()], values.iter().map(num).collect()),
        None => panic!("not a list: {v}"),
    }
}

fn agree(got: f64, want: f64, tol: f64, floor: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() {
        return got == want;
    }
    got == want || (got - want).abs() <= tol * want.abs().max(floor)
}

fn case_name(case: &Value) -> &str {
    case["name"].as_str().unwrap()
}

fn trace_of(case: &Value) -> Result<Trace, String> {
    let name = case_name(case);
    let text = serde_json::to_string(&case["config"]).unwrap();
    let config = Config::from_json(&text).map_err(|e| format!("{name}: config refused: {e}"))?;
    compute(&config).map_err(|e| format!("{name}: compute failed: {e:?}"))
}

/// Compares every field of `expected` with the trace; returns one message per disagreement.
fn compare(name: &str, trace: &Trace, expected: &Value, tol: f64, floor: f64, what: &str) -> Vec<String> {
    let mut failures = Vec::new();
    for (field, want) in expected.as_object().unwrap() {
        let (want_shape, want) = flatten(want);
        let Some(got) = trace.field(field) else {
            failures.push(format!("{name}: {field}: missing from the trace"));
            continue;
        };
        if got.shape != want_shape {
            failures.push(format!("{name}: {field}: shape {:?}, {what} {:?}", got.shape, want_shape));
            continue;
        }
        let cols = *want_shape.last().unwrap();
        let bad: Vec<usize> = (0..want.len()).filter(|&i| !agree(got.data[i], want[i], tol, floor)).collect();
        for &i in bad.iter().take(SHOWN) {
            let at = if want_shape.len() == 2 { format!("[{}][{}]", i / cols, i % cols) } else { format!("[{i}]") };
            let (g, w) = (got.data[i], want[i]);
            let rel = (g - w).abs() / w.abs().max(floor);
            failures.push(format!("{name}: {field}{at}: core {g:e}, {what} {w:e} (rel {rel:.2e})"));
        }
        if bad.len() > SHOWN {
            failures.push(format!("{name}: {field}: … and {} more", bad.len() - SHOWN));
        }
    }
    failures
}

fn report(failures: Vec<String>, checked: usize, what: &str) {
    assert!(
        failures.is_empty(),
        "{} disagreement(s) with {what} over {checked} case(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every stage of every case against the float64 NumPy transcription, at 1e-12 relative;
/// −∞ (masked scaled scores) exactly, NaN as NaN, masked weights exactly 0.
#[test]
fn variants_match_numpy() {
    let cases = cases();
    // The fixture is read here, where it is used: enough cases, each named once (a failure names one case), and
    // none that expects nothing (it would pass checking nothing).
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut names: Vec<&str> = cases.iter().map(case_name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names are unique");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case_name(case);
        assert!(!case["expect"].as_object().unwrap().is_empty(), "{name}: nothing expected");
        let trace = match trace_of(case) {
            Ok(t) => t,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        failures.extend(compare(name, &trace, &case["expect"], REL, TINY, "NumPy"));
        for field in case["absent"].as_array().into_iter().flatten() {
            let field = field.as_str().unwrap();
            if trace.field(field).is_some() {
                failures.push(format!("{name}: {field}: present, but the contract has it only for h = 1 / with w_o"));
            }
        }
    }
    report(failures, cases.len(), "NumPy (1e-12 relative)");
}

/// The heads' weights, the context and the output against jax.nn.dot_product_attention
/// (float32), at 1e-6 relative to max(|expected|, 1).
#[test]
fn variants_match_jax() {
    let cases: Vec<Value> = cases().into_iter().filter(|c| c["jax"].is_object()).collect();
    assert!(cases.len() >= 30, "{} JAX cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        assert!(!case["jax"].as_object().unwrap().is_empty(), "{}: no JAX values", case_name(case));
        match trace_of(case) {
            Ok(trace) => failures.extend(compare(case_name(case), &trace, &case["jax"], JAX_TOL, 1.0, "JAX")),
            Err(e) => failures.push(e),
        }
    }
    report(failures, cases.len(), "JAX (1e-6)");
}

/// Every case's config survives `to_value` → `from_value` unchanged.
#[test]
fn variant_configs_round_trip() {
    let cases = cases();
    let mut failures = Vec::new();
    for case in &cases {
        let name = case_name(case);
        let config = match Config::from_value(&case["config"]) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{name}: config refused: {e}"));
                continue;
            }
        };
        match Config::from_value(&config.to_value()) {
            Ok(back) if back == config => {}
            Ok(back) => failures.push(format!("{name}: round trip changed the config:\n  {config:?}\n  {back:?}")),
            Err(e) => failures.push(format!("{name}: to_value gave a config from_value refuses: {e}")),
        }
    }
    report(failures, cases.len(), "the round trip");
}
