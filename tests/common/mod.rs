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

/// The cases of tests/fixtures/modern-goldens.json (tests/goldens/gen_modern_goldens.py: the modern fields in NumPy,
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

/// `python3`, checked once to import NumPy and SciPy: the tests that compare our numbers with NumPy's run it.
/// Without them those tests fail (a machine where they quietly passed would prove nothing); `make test-native`
/// installs them first (scripts/setup.sh numpy). A skip must be asked for by name: `ATTENTION_VIZ_SKIP=numpy`
/// (a comma-separated list) gives `None`, and the caller returns.
pub fn numpy_python() -> Option<std::process::Command> {
    static CHECKED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let checked = CHECKED.get_or_init(|| {
        match std::process::Command::new("python3").args(["-c", "import numpy, scipy"]).output() {
            Ok(out) if out.status.success() => Ok(()),
            Ok(out) => Err(String::from_utf8_lossy(&out.stderr).trim().to_string()),
            Err(e) => Err(format!("python3 does not start: {e}")),
        }
    });
    match checked {
        Ok(()) => Some(std::process::Command::new("python3")),
        Err(_) if skipped("numpy") => {
            eprintln!("skipped by ATTENTION_VIZ_SKIP=numpy: this test compares with NumPy");
            None
        }
        Err(why) => panic!(
            "python3 with NumPy and SciPy is required: {why}\n`make test-native` installs them (scripts/setup.sh \
             numpy); to skip the NumPy comparisons on purpose, set ATTENTION_VIZ_SKIP=numpy"
        ),
    }
}

/// Whether `ATTENTION_VIZ_SKIP` (a comma-separated list) names `what`.
pub fn skipped(what: &str) -> bool {
    std::env::var("ATTENTION_VIZ_SKIP").is_ok_and(|v| v.split(',').any(|s| s.trim() == what))
}

/// One C-ABI call with a JSON request and f64 values: (its return code, its text answer, its f64 answer).
pub fn ffi_call(
    f: unsafe extern "C" fn(*const u8, usize, *const f64, usize) -> u32,
    request: &str,
    data: &[f64],
) -> (u32, String, Vec<f64>) {
    use attention_viz::ffi;
    let code = unsafe { f(request.as_ptr(), request.len(), data.as_ptr(), data.len()) };
    let text = unsafe { std::slice::from_raw_parts(ffi::av_out_ptr(), ffi::av_out_len()) };
    let values = unsafe { std::slice::from_raw_parts(ffi::av_out_f64_ptr(), ffi::av_out_f64_len()) };
    (code, String::from_utf8(text.to_vec()).unwrap(), values.to_vec())
}
