//! "Copy as NumPy": the snippet, run by Python with NumPy/SciPy, prints our numbers.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention::{compute, Trace};
use attention_viz::config::Config;
use attention_viz::edits::Distribution;
use attention_viz::export::numpy_snippet;
use attention_viz::presets::preset;
use std::process::Command;

#[test]
fn presets_export_as_the_documents_write_them() {
    let py = numpy_snippet(&preset("seed-001").unwrap(), None);
    assert!(py.contains("np.random.seed(42)\nW_Q = np.random.randint(3, size=(3, 3))"), "{py}");
    let py = numpy_snippet(&preset("seed-003").unwrap(), None);
    assert!(py.contains("h = np.array([5.0, 1.0, 20.0])"), "{py}");
    let edited = preset("seed-001").unwrap().with_value("w_q", 0, 0, 7.0).unwrap();
    assert!(!numpy_snippet(&edited, None).contains("np.random.seed"), "edited weights are literal");
    let r = preset("seed-002").unwrap().randomized(7, Distribution::Randn).unwrap();
    assert!(numpy_snippet(&r, Some((7, Distribution::Randn))).contains("X = np.random.randn(4, 3)"));
}

#[test]
fn token_names_cannot_break_out_of_the_string() {
    let c = Config::from_json(r#"{"embeddings": [[1], [2]], "tokens": ["a\"); import os; (\"", "b\\\n"]}"#).unwrap();
    let py = numpy_snippet(&c, None);
    assert!(py.contains(r#"tokens = ["a\"); import os; (\"", "b\\\x0a"]"#), "{py}");
}

/// Runs the snippet with python3 when NumPy and SciPy are importable (make test installs them).
fn run_python(snippet: &str, dump: &str) -> Option<serde_json::Value> {
    let script = format!("{snippet}\nimport json\nprint('JSON' + json.dumps({dump}))\n");
    let out = Command::new("python3").arg("-c").arg(&script).output().ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("No module named") {
            eprintln!("skipping: {err}");
            return None;
        }
        panic!("python failed: {err}\n{script}");
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("JSON")).unwrap();
    Some(serde_json::from_str(&line[4..]).unwrap())
}

fn close(got: &serde_json::Value, want: &[f64], what: &str) {
    let got: Vec<f64> = got
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| match r.as_array() {
            Some(row) => row.iter().map(|x| x.as_f64().unwrap()).collect::<Vec<_>>(),
            None => vec![r.as_f64().unwrap()],
        })
        .collect();
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-12 * w.abs().max(1e-300) || g == w, "{what}: numpy {g} vs ours {w}");
    }
}

#[test]
fn numpy_prints_our_numbers() {
    let must_run = std::env::var("ATTENTION_VIZ_REQUIRE_NUMPY").is_ok();
    let mut configs = vec![preset("seed-001").unwrap(), preset("seed-002").unwrap(), preset("seed-003").unwrap()];
    configs.push(
        preset("seed-001")
            .unwrap()
            .randomized(3, Distribution::Randn)
            .unwrap()
            .with_scale(attention_viz::config::Scale::Value(2.5))
            .unwrap(),
    );
    configs.push(preset("seed-003").unwrap().randomized(5, Distribution::Rand).unwrap());
    for (k, config) in configs.iter().enumerate() {
        let trace = compute(config).unwrap();
        let random = match k {
            3 => Some((3, Distribution::Randn)),
            4 => Some((5, Distribution::Rand)),
            _ => None,
        };
        let snippet = numpy_snippet(config, random);
        let dump = "{'scores': scores.tolist(), 'weights': weights.tolist(), 'context': context.tolist()}";
        let Some(got) = run_python(&snippet, dump) else {
            assert!(!must_run, "python3 with numpy and scipy is required");
            return;
        };
        match &trace {
            Trace::SelfAttention(t) => {
                close(&got["scores"], t.scores.data(), "scores");
                close(&got["weights"], t.weights.data(), "weights");
                close(&got["context"], t.context.data(), "context");
            }
            Trace::Cross(t) => {
                close(&got["scores"], &t.scores, "scores");
                close(&got["weights"], &t.weights, "weights");
                close(&got["context"], &t.context, "context");
            }
        }
    }
}
