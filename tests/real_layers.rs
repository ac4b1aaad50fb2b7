//! Real transformers models' attention layers as Python's `layer_config` reads them, through the core's compute:
//! tests/fixtures/real-layers.json (tests/goldens/gen_real_layers.py: tiny random-init LLaMA, LLaMA 3 / YaRN /
//! dynamic RoPE, Mistral, Qwen2, Qwen3, Phi, Gemma 2, Gemma 3, GPT-2 and BERT models, float32 and float64) holds each
//! layer's config, transformers' `output_attentions` and attention output, and a float64 NumPy transcription of the
//! config's formulas. Every head's weights and the output must agree: float32 cases with transformers to 2e-5
//! absolute (transformers computes in float32); float64 cases with the NumPy transcription and with transformers (run
//! in float64 throughout) to 1e-9.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::attention::compute;
use attention_viz::config::Config;
use common::num;
use serde_json::Value;

const F32: f64 = 2e-5;
const F64: f64 = 1e-9;

fn cases() -> Vec<Value> {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/real-layers.json")).unwrap();
    fixture["cases"].as_array().unwrap().clone()
}

/// Every number of a nested list, row-major.
fn flat(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::Array(items) => items.iter().for_each(|x| flat(x, out)),
        x => out.push(num(x)),
    }
}

/// The largest absolute difference between the core's `field` values and `want`'s (which must have as many).
fn worst(name: &str, field: &str, got: &[f64], want: &Value) -> f64 {
    let mut w = vec![];
    flat(want, &mut w);
    assert_eq!(got.len(), w.len(), "{name}: {field} has {} values, the fixture {}", got.len(), w.len());
    got.iter().zip(&w).map(|(g, w)| if g == w { 0.0 } else { (g - w).abs() }).fold(0.0, f64::max)
}

/// (weights over every head, output) of the core against the fixture's `source` ("transformers" or "numpy").
fn diffs(case: &Value, source: &str) -> (f64, f64) {
    let name = case["name"].as_str().unwrap();
    let config = Config::from_value(&case["config"]).unwrap_or_else(|e| panic!("{name}: {e}"));
    let trace = compute(&config).unwrap_or_else(|e| panic!("{name}: {e}"));
    let heads = case[source]["weights"].as_array().unwrap();
    let mut weights = 0f64;
    for (h, want) in heads.iter().enumerate() {
        let field = format!("heads.{h}.weights");
        let got = trace.field(&field).unwrap_or_else(|| panic!("{name}: no {field}"));
        weights = weights.max(worst(name, &field, got.data, want));
    }
    let output = trace.field("output").unwrap_or_else(|| panic!("{name}: no output"));
    (weights, worst(name, "output", output.data, &case[source]["output"]))
}

fn check(source: &str, dtype: &str, bound: f64) {
    let mut failures = vec![];
    let mut seen = 0;
    for case in cases().iter().filter(|c| c["dtype"] == dtype) {
        seen += 1;
        let (weights, output) = diffs(case, source);
        eprintln!("{:22} vs {source}: weights {weights:.1e}, output {output:.1e}", case["name"].as_str().unwrap());
        if weights.max(output) > bound || weights.is_nan() || output.is_nan() {
            failures.push(format!("{}: weights {weights:e}, output {output:e} (bound {bound:e})", case["name"]));
        }
    }
    assert!(seen >= 14, "{seen} {dtype} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn float32_layers_match_transformers() {
    check("transformers", "float32", F32);
}

#[test]
fn float64_layers_match_the_numpy_transcription() {
    check("numpy", "float64", F64);
}

#[test]
fn float64_layers_match_transformers() {
    check("transformers", "float64", F64);
}

/// The fixture covers every architecture layer_config reads, each in both dtypes, and each feature the config
/// gained for them appears in some case (a case that lost one would test less than it says).
#[test]
fn the_fixture_covers_every_architecture_and_feature() {
    let cases = cases();
    for kind in ["llama", "mistral", "qwen2", "qwen3", "phi", "gemma2", "gemma3_text", "gpt2", "bert"] {
        for dtype in ["float32", "float64"] {
            assert!(cases.iter().any(|c| c["model_type"] == kind && c["dtype"] == dtype), "{kind} {dtype}");
        }
    }
    let has = |f: &dyn Fn(&Value) -> bool| cases.iter().any(|c| f(&c["config"]));
    for field in ["b_q", "b_k", "b_v", "b_o", "q_norm", "k_norm", "softcap", "window", "kv_heads"] {
        assert!(has(&|c| !c[field].is_null()), "no case has {field}");
    }
    let partial = |c: &Value| {
        let d_k = c["w_q"][0].as_array().map_or(0, |r| r.len() as u64) / c["heads"].as_u64().unwrap_or(1);
        c["position"]["rotary_dim"].as_u64().is_some_and(|r| r < d_k)
    };
    assert!(has(&partial), "no partial rotary");
    assert!(has(&|c| c["position"]["attention_factor"].as_f64().is_some_and(|f| f != 1.0)), "no attention_factor");
    assert!(has(&|c| c["mask"] == "none") && has(&|c| c["mask"] == "causal"));
}
