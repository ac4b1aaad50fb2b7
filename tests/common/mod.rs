//! Shared helpers of the native tests: the reference fixtures and float comparisons.
#![allow(dead_code)]

use serde_json::Value;

/// Every intermediate of the four seed documents, computed with NumPy/SciPy
/// (a copy of shared/reference/seed-values.json).
pub fn seed_values() -> Value {
    serde_json::from_str(include_str!("../fixtures/seed-values.json")).unwrap()
}

/// Figures, colormaps and format cases rendered by seaborn 0.13.2 itself
/// (tests/goldens/gen_seaborn_goldens.py).
pub fn seaborn_goldens() -> Value {
    serde_json::from_str(include_str!("../fixtures/seaborn-goldens.json")).unwrap()
}

/// A JSON number, or a Python float repr in a string ("nan", "inf", "1e-300"), or JavaScript's name of one
/// (tests/goldens/fixture_json.py writes "NaN", "Infinity", "-Infinity").
pub fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) => match s.as_str() {
            "nan" | "NaN" => f64::NAN,
            "inf" | "Infinity" => f64::INFINITY,
            "-inf" | "-Infinity" => f64::NEG_INFINITY,
            s => s.parse().unwrap(),
        },
        other => panic!("not a number: {other}"),
    }
}

/// The cases of tests/fixtures/modern-goldens.json (tests/goldens/gen_modern_goldens.py: issue 25's fields in NumPy,
/// cross-checked against JAX and the papers' other forms).
pub fn modern_cases() -> Vec<Value> {
    let fixture: Value = serde_json::from_str(include_str!("../fixtures/modern-goldens.json")).unwrap();
    fixture["cases"].as_array().unwrap().clone()
}

pub fn vector(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(num).collect()
}

pub fn matrix(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().unwrap().iter().map(vector).collect()
}

/// Relative agreement to `rel` (absolute near zero), NaN equal to NaN.
pub fn assert_close(what: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length {} vs {}", got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= rel * w.abs().max(f64::MIN_POSITIVE);
        assert!(ok, "{what}[{i}]: got {g:e}, want {w:e} (rel {rel:e})");
    }
}

pub fn assert_matrix_close(what: &str, got: &attention_viz::math::Matrix, want: &[Vec<f64>], rel: f64) {
    assert_eq!(got.rows(), want.len(), "{what}: rows");
    for (i, row) in want.iter().enumerate() {
        assert_close(&format!("{what} row {i}"), got.row(i), row, rel);
    }
}

/// Agreement with a number the document printed to `decimals` places.
pub fn assert_printed(what: &str, got: &[f64], printed: &[f64], decimals: i32) {
    assert_near(what, got, printed, 0.5 * 10f64.powi(-decimals) + 1e-15);
}

/// Agreement to an absolute tolerance.
pub fn assert_near(what: &str, got: &[f64], printed: &[f64], tol: f64) {
    for (i, (&g, &p)) in got.iter().zip(printed).enumerate() {
        assert!((g - p).abs() <= tol, "{what}[{i}]: got {g}, document printed {p}");
    }
}
