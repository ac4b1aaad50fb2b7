//! "Copy as NumPy": the snippet, run by Python with NumPy/SciPy, prints our numbers.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::attention::{compute, Trace};
use attention_viz::config::Config;
use attention_viz::edits::Distribution;
use attention_viz::export::numpy_snippet;
use attention_viz::presets::preset;
use serde_json::json;

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

/// Runs the snippet with python3, which must import NumPy and SciPy (`common::numpy_python`; `None`: skipped by name).
/// `dump` is a Python expression; `_plain(a)` in it turns an array into nested lists whose
/// non-finite numbers are the strings "-inf", "inf" and "nan" (JSON has no such numbers).
fn run_python(snippet: &str, dump: &str) -> Option<serde_json::Value> {
    run_pythons(&[(snippet.to_string(), dump.to_string())]).map(|mut all| all.remove(0))
}

/// [`run_python`] for many snippets in one python3 process, each in a fresh namespace as if
/// pasted alone. Any warning fails the snippet: a learner pastes it into a notebook, where a
/// RuntimeWarning (0/0, -inf - -inf, …) would show.
fn run_pythons(cases: &[(String, String)]) -> Option<Vec<serde_json::Value>> {
    const DRIVER: &str = r#"
import json, math, sys, traceback, warnings
warnings.simplefilter("error")
import numpy as np
def _plain(a):
    a = np.asarray(a, dtype=float)
    return [_plain(x) for x in a] if a.ndim else (float(a) if math.isfinite(a) else repr(float(a)))
for k, (snippet, dump) in enumerate(json.load(sys.stdin)):
    space = {"_plain": _plain}
    try:
        exec(compile(snippet, f"<snippet {k}>", "exec"), space)
        print("JSON" + json.dumps(eval(dump, space)))
    except Exception:
        print(f"FAILED {k}\n" + traceback.format_exc().replace("\n", "\n  "))
        sys.exit(1)
"#;
    use std::io::Write;
    let mut child = common::numpy_python()?
        .arg("-c")
        .arg(DRIVER)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 starts");
    child.stdin.take().unwrap().write_all(serde_json::to_string(cases).unwrap().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        let failed = stdout.lines().find_map(|l| l.strip_prefix("FAILED ")).and_then(|k| k.parse::<usize>().ok());
        let snippet = failed.map_or("", |k| cases[k].0.as_str());
        let report = stdout.split_once("FAILED").map_or("", |(_, r)| r);
        panic!("python failed: {stderr}FAILED{report}\n{snippet}");
    }
    assert!(stderr.trim().is_empty(), "python wrote to stderr: {stderr}");
    let values: Vec<serde_json::Value> =
        stdout.lines().filter_map(|l| l.strip_prefix("JSON")).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(values.len(), cases.len());
    Some(values)
}

/// NumPy's numbers equal ours to 1e-12 relative; -inf, inf and NaN must be the same non-finite value.
fn close(got: &serde_json::Value, want: &[f64], what: &str) {
    fn flatten(v: &serde_json::Value, out: &mut Vec<f64>) {
        match v {
            serde_json::Value::Array(items) => items.iter().for_each(|x| flatten(x, out)),
            serde_json::Value::String(s) => out.push(s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))),
            x => out.push(x.as_f64().unwrap()),
        }
    }
    let mut flat = vec![];
    flatten(got, &mut flat);
    let got = flat;
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        let same = if w.is_nan() || !w.is_finite() {
            g.is_nan() && w.is_nan() || g == w
        } else {
            (g - w).abs() <= 1e-12 * w.abs().max(1e-300) || g == w
        };
        assert!(same, "{what}: numpy {g} vs ours {w}");
    }
}

#[test]
fn numpy_prints_our_numbers() {
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
        let Some(got) = run_python(&snippet, dump) else { return };
        match &trace {
            Trace::Weights(_) => unreachable!("weights snippets are checked in tests/weights.rs"),
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

/// Document 000's embeddings, with weights wide enough for `heads` heads of width 2 (values 3 wide).
fn self_config(extra: serde_json::Value) -> Config {
    let mut config = json!({
        "embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
        "tokens": ["the", "cat", "sat", "down"],
        "w_q": [[2, 0, 2, 1], [2, 0.5, 0, 1], [2, 1, 2, 0]],
        "w_k": [[2, 2, 2, 0], [0, 2, 1, 1.5], [0, 1, 1, 2]],
        "w_v": [[1, 1, 0, 2, 0.25, 1], [0, 1, 1, 1, 2, 0], [3, 0, 1, 0, 1, 1]],
        "query": 2,
    });
    let config = config.as_object_mut().unwrap();
    config.extend(extra.as_object().unwrap().clone());
    Config::from_value(&serde_json::Value::Object(config.clone())).unwrap()
}

/// Document 003's decoder state and annotations (4 encoder states of 3 numbers).
fn cross_config(extra: serde_json::Value) -> Config {
    let mut config = json!({
        "decoder_state": [0.5, 0.1, 2.0],
        "annotations": [[0.3, 1.2, 4.5], [5.9, 0.2, 0.5], [0.1, 4.3, 0.5], [0.4, 0.3, 4.53]],
    });
    let config = config.as_object_mut().unwrap();
    config.extend(extra.as_object().unwrap().clone());
    Config::from_value(&serde_json::Value::Object(config.clone())).unwrap()
}

/// One case of every new field, alone and combined, on self- and cross-attention.
fn option_cases() -> Vec<(&'static str, Config)> {
    let w_a = json!([[1, 0.5, 0], [0, 1, 2], [1, 0, 1]]);
    let additive = json!({"scoring": "additive", "w_a": [[0.5, 1], [0.25, 0], [1, 0.5]],
                          "u_a": [[1, 0], [0.5, 0.5], [0, 1]], "v_a": [1.5, 0.5]});
    let with = |base: &serde_json::Value, more: serde_json::Value| {
        let mut v = base.clone();
        v.as_object_mut().unwrap().extend(more.as_object().unwrap().clone());
        v
    };
    let mask = json!([[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 0, 1], [0, 1, 1, 1]]);
    vec![
        ("heads 2, no W_O, following head 1", self_config(json!({"heads": 2, "head": 1}))),
        (
            "heads 2 with W_O",
            self_config(json!({"heads": 2, "w_o": [[1, 0], [0, 1], [1, 1], [0.5, 0], [0, 2], [1, 0]]})),
        ),
        (
            "one head with W_O",
            self_config(json!({"w_o": [[1, 0, 0.5], [0, 1, 0], [1, 1, 0], [2, 0, 1], [0, 0.5, 0], [1, 0, 0]]})),
        ),
        (
            "heads 3 (d_k 1, d_v 2), W_O",
            self_config(json!({"heads": 3, "head": 2, "w_q": [[2, 0, 1], [1, 0.5, 0], [2, 1, 1]],
            "w_k": [[2, 2, 0], [0, 2, 1], [1, 1, 0]], "w_o": [[1], [0], [1], [0.5], [0], [2]]})),
        ),
        (
            "general, self",
            self_config(
                json!({"scoring": "general", "w_q": [[2, 0], [1, 0.5], [2, 1]], "w_k": [[2, 2], [0, 2], [1, 1]],
            "w_a": [[1, 0.5], [0, 1]]}),
            ),
        ),
        (
            "general, self, no projections",
            Config::from_value(&json!({"embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
            "scoring": "general", "w_a": w_a}))
            .unwrap(),
        ),
        (
            "additive, self",
            self_config(with(
                &additive,
                json!({"w_q": [[2, 0, 1], [1, 0.5, 0], [2, 1, 1]],
            "w_k": [[2, 2, 0], [0, 2, 1], [1, 1, 0]]}),
            )),
        ),
        (
            "cosine, self, a zero and a tiny query",
            Config::from_value(&json!({"embeddings": [[1, 0, 0], [0, 0, 0], [1, 1, 0], [0, 0, 1e-5]],
            "scoring": "cosine"}))
            .unwrap(),
        ),
        ("cosine, heads 2", self_config(json!({"scoring": "cosine", "heads": 2}))),
        ("temperature 0.5", self_config(json!({"temperature": 0.5}))),
        ("temperature 3 over scale 2.5, heads 2", self_config(json!({"temperature": 3, "scale": 2.5, "heads": 2}))),
        ("causal", self_config(json!({"mask": "causal"}))),
        (
            "causal, heads 2, W_O",
            self_config(json!({"mask": "causal", "heads": 2, "head": 1,
            "w_o": [[1, 0], [0, 1], [1, 1], [0.5, 0], [0, 2], [1, 0]]})),
        ),
        ("mask matrix, a fully masked row: zero", self_config(json!({"mask": mask}))),
        ("mask matrix, a fully masked row: uniform", self_config(json!({"mask": mask, "masked_row": "uniform"}))),
        (
            "mask matrix, a fully masked row: nan, query 1",
            self_config(json!({"mask": mask, "masked_row": "nan", "query": 1})),
        ),
        ("valid_lens", self_config(json!({"valid_lens": [2, 4, 1, 3]}))),
        (
            "valid_lens 0, uniform, heads 2",
            self_config(json!({"valid_lens": [2, 0, 1, 3], "masked_row": "uniform", "heads": 2})),
        ),
        (
            "valid_lens 0, nan, W_O",
            self_config(json!({"valid_lens": [2, 0, 1, 3], "masked_row": "nan",
            "w_o": [[1, 0, 0.5], [0, 1, 0], [1, 1, 0], [2, 0, 1], [0, 0.5, 0], [1, 0, 0]]})),
        ),
        (
            "combined: heads 2, cosine, temperature, causal + valid_lens, nan, W_O",
            self_config(json!({"heads": 2, "head": 1,
            "scoring": "cosine", "temperature": 0.25, "mask": "causal", "valid_lens": [0, 1, 3, 2], "masked_row": "nan",
            "w_o": [[1, 0], [0, 1], [1, 1], [0.5, 0], [0, 2], [1, 0]], "query": 0})),
        ),
        (
            "combined: additive, mask + valid_lens, temperature, zero",
            self_config(with(
                &additive,
                json!({
            "w_q": [[2, 0, 1], [1, 0.5, 0], [2, 1, 1]], "w_k": [[2, 2, 0], [0, 2, 1], [1, 1, 0]],
            "mask": mask, "valid_lens": [4, 4, 2, 1], "temperature": 2, "scale": "sqrt_dk"}),
            )),
        ),
        ("general, cross", cross_config(json!({"scoring": "general", "w_a": w_a}))),
        ("additive, cross", cross_config(additive.clone())),
        ("cosine, cross", cross_config(json!({"scoring": "cosine"}))),
        ("temperature 0.2, cross", cross_config(json!({"temperature": 0.2}))),
        ("mask, cross", cross_config(json!({"mask": [1, 0, 1, 1]}))),
        ("valid_lens, cross", cross_config(json!({"valid_lens": [2]}))),
        ("mask + valid_lens, cross", cross_config(json!({"mask": [0, 1, 1, 1], "valid_lens": [3]}))),
        ("fully masked, cross: zero", cross_config(json!({"mask": [0, 1, 1, 1], "valid_lens": [1]}))),
        ("fully masked, cross: uniform", cross_config(json!({"valid_lens": [0], "masked_row": "uniform"}))),
        ("fully masked, cross: nan", cross_config(json!({"mask": [0, 0, 0, 0], "masked_row": "nan"}))),
        (
            "combined, cross: additive, sqrt_dk, temperature, mask",
            cross_config(with(
                &additive,
                json!({
            "scale": "sqrt_dk", "temperature": 0.5, "mask": [1, 1, 0, 1]}),
            )),
        ),
    ]
}

/// The trace fields a snippet holds, with the Python expression of each.
fn snippet_fields(trace: &Trace) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![];
    match trace {
        Trace::Weights(_) => unreachable!("weights snippets are checked in tests/weights.rs"),
        Trace::SelfAttention(t) if t.head_count() > 1 => {
            for field in ["q", "k", "v"] {
                out.push((field.into(), field.to_uppercase()));
            }
            for i in 0..t.head_count() {
                for field in ["q", "k", "v", "scores", "scaled", "weights", "context"] {
                    out.push((format!("heads.{i}.{field}"), format!("per_head[{i}][{field:?}]")));
                }
            }
            out.push(("context".into(), "context".into()));
        }
        Trace::SelfAttention(_) => {
            for field in ["q", "k", "v"] {
                out.push((field.into(), field.to_uppercase()));
            }
            for field in ["scores", "scaled", "weights", "context"] {
                out.push((field.into(), field.into()));
            }
            out.push(("query.features".into(), "features[i]".into()));
        }
        Trace::Cross(_) => {
            for field in ["scores", "scaled", "weights", "applied", "context"] {
                out.push((field.into(), field.into()));
            }
            out.push(("query.features".into(), "features".into()));
        }
    }
    if let Trace::SelfAttention(_) = trace {
        out.push(("output".into(), "output".into()));
        out.push(("query.terms".into(), "terms".into()));
    }
    out.retain(|(name, _)| trace.field(name).is_some());
    out
}

#[test]
fn numpy_prints_our_numbers_for_every_option() {
    let (mut heads, mut outputs, mut non_finite) = (0, 0, 0);
    let cases = option_cases();
    let traces: Vec<Trace> =
        cases.iter().map(|(name, config)| compute(config).unwrap_or_else(|e| panic!("{name}: {e}"))).collect();
    let runs: Vec<(String, String)> = cases
        .iter()
        .zip(&traces)
        .map(|((_, config), trace)| {
            let dump: Vec<String> =
                snippet_fields(trace).iter().map(|(field, expr)| format!("{field:?}: _plain({expr})")).collect();
            (numpy_snippet(config, None), format!("{{{}}}", dump.join(", ")))
        })
        .collect();
    let Some(got) = run_pythons(&runs) else { return };
    for (((name, _), trace), (got, (snippet, _))) in cases.iter().zip(&traces).zip(got.iter().zip(&runs)) {
        for (field, _) in snippet_fields(trace) {
            let want = trace.field(&field).unwrap();
            close(&got[field.as_str()], want.data, &format!("{name}: {field}\n{snippet}"));
            heads += usize::from(field.starts_with("heads.1."));
            outputs += usize::from(field == "output");
            non_finite += want.data.iter().filter(|x| !x.is_finite()).count();
        }
    }
    assert!(heads >= 7 * 6 && outputs >= 6 && non_finite >= 40, "{heads} {outputs} {non_finite}");
}

#[test]
fn option_snippets_read_like_the_textbooks() {
    let cases = option_cases();
    let snippet = |name: &str| numpy_snippet(&cases.iter().find(|(n, _)| *n == name).unwrap().1, None);
    let has = |name: &str, lines: &[&str]| {
        let py = snippet(name);
        for line in lines {
            assert!(py.contains(line), "{name}: no {line:?} in\n{py}");
        }
    };
    has(
        "causal, heads 2, W_O",
        &[
            "heads = 2\n",
            "allowed = np.tril(np.ones((n, n), dtype=bool))",
            "    q = Q[:, i * d_k:(i + 1) * d_k]\n",
            "    v = V[:, i * d_v:(i + 1) * d_v]\n",
            "    scaled = scores / d_k ** 0.5\n",
            "    scaled = np.where(allowed, scaled, -np.inf)",
            "context = np.concatenate([head[\"context\"] for head in per_head], axis=1)",
            "output = context @ W_O",
            "print(f\"head {number} weights =\", stages[\"weights\"], sep=\"\\n\")",
        ],
    );
    has("general, self", &["W_a = np.array([[1.0, 0.5],\n    [0.0, 1.0]])\n", "scores = Q @ W_a @ K.T"]);
    has("general, cross", &["scores = h @ W_a @ annotations"]);
    has(
        "additive, self",
        &[
            "v_a = np.array([1.5, 0.5])\n",
            "np.tanh((Q @ W_a)[:, None, :] + (K @ U_a)[None, :, :])",
            "scores = features @ v_a",
        ],
    );
    has("additive, cross", &["features = np.tanh(h @ W_a + annotations.T @ U_a)", "scores = features @ v_a"]);
    has("cosine, self, a zero and a tiny query", &["scores = Q @ K.T / np.maximum(norms, 1e-8)"]);
    has("temperature 0.5", &["temperature = 0.5\n", "scaled = scores / K.shape[1] ** 0.5 / temperature\n"]);
    has("temperature 3 over scale 2.5, heads 2", &["temperature = 3.0\n", "    scaled = scores / 2.5 / temperature\n"]);
    has(
        "valid_lens",
        &["valid_lens = np.array([2, 4, 1, 3])\n", "allowed = np.arange(n)[None, :] < valid_lens[:, None]"],
    );
    has(
        "mask matrix, a fully masked row: zero",
        &[
            "allowed = np.array([[1, 0, 1, 0],\n    [0, 0, 0, 0],",
            "weights = np.zeros_like(scaled)",
            "weights[attends] = softmax(scaled[attends], axis=1)",
        ],
    );
    has("mask matrix, a fully masked row: uniform", &["weights = np.full_like(scaled, 1 / scaled.shape[1])"]);
    has("mask matrix, a fully masked row: nan, query 1", &["weights = np.full_like(scaled, np.nan)"]);
    has(
        "combined: heads 2, cosine, temperature, causal + valid_lens, nan, W_O",
        &["allowed &= np.arange(n)[None, :] < valid_lens[:, None]"],
    );
    has(
        "fully masked, cross: uniform",
        &["allowed = np.arange(len(tokens)) < valid_lens[0]", "    weights = np.full_like(scaled, 1 / len(scaled))"],
    );
    // A causal mask always leaves key 0: no fully-masked-row handling to read through.
    assert!(!snippet("causal").contains("weights[attends]"), "{}", snippet("causal"));
    // Options at their defaults add nothing: the documents' snippets stay as they were.
    for name in ["seed-000", "seed-001", "seed-002", "seed-003"] {
        let py = numpy_snippet(&preset(name).unwrap(), None);
        for word in ["heads", "temperature", "allowed", "W_O", "W_a", "np.inf"] {
            assert!(!py.contains(word), "{name}: {word}");
        }
    }
}

/// The modern fields in "Copy as NumPy": each written as readable NumPy (sinusoidal PE, a `rope` function, ALiBi's
/// slopes and bias, kv heads, the window and sinks, the decode step, FlashAttention's loop) that prints our numbers.
#[test]
fn numpy_writes_the_modern_fields() {
    let w4 = json!([[2, 0, 2, 1], [2, 0.5, 0, 1], [2, 1, 2, 0]]);
    let w2 = json!([[1, 0.5], [0, 1], [0.25, 1]]);
    let cases = [
        json!({"position": {"kind": "sinusoidal", "base": 100}}),
        json!({"position": {"kind": "rope"}, "w_q": w4, "w_k": w4, "mask": "causal", "decode_step": 1, "tiles": [3, 2]}),
        json!({"position": {"kind": "sinusoidal"}, "window": [2, 0], "decode_step": 3, "mask": "causal", "scale": 2}),
        json!({"position": {"kind": "rope"}, "w_q": w4, "w_k": w4, "heads": 2, "mask": "causal", "decode_step": 2}),
        json!({"position": {"kind": "rope", "pairs": "halves", "base": 50}, "w_q": w4, "w_k": w4, "tiles": [3, 3]}),
        // Every position shifted ("Shift positions"): sinusoidal's table moves, RoPE's angles do.
        json!({"position": {"kind": "sinusoidal", "base": 100, "offset": 7}}),
        json!({"position": {"kind": "rope", "pairs": "halves", "offset": 3}, "w_q": w4, "w_k": w4, "heads": 2}),
        json!({"position": {"kind": "alibi"}, "heads": 2, "w_q": w4, "w_k": w4, "window": [1, 0], "sinks": 1,
               "mask": "causal", "decode_step": 3, "tiles": [2, 3], "head": 1}),
        json!({"position": {"kind": "alibi", "slopes": [0.5]}, "w_q": w2, "w_k": w2, "w_v": w2, "valid_lens": [1, 2, 0, 4],
               "masked_row": "uniform", "tiles": [1, 3]}),
        json!({"heads": 2, "kv_heads": 1, "w_k": w2, "w_v": w2, "w_q": w4, "window": [0, 1], "temperature": 2,
               "tiles": [4, 1]}),
        json!({"heads": 2, "kv_heads": 1, "w_k": w2, "w_v": w2, "w_q": w4, "mask": "causal", "decode_step": 0,
               "w_o": [[1, 0], [0, 1], [1, 1], [0.5, 0]]}),
    ];
    let configs: Vec<Config> = cases.iter().map(|extra| self_config(extra.clone())).collect();
    let dump = "{'context': context.tolist(), 'pe': _plain(globals().get('PE', [])), \
                'decode': _plain(globals().get('decode_weights', [])), \
                'decode_context': _plain(globals().get('decode_context', [])), \
                'flash': _plain(globals().get('flash_context', []))}";
    let runs: Vec<(String, String)> = configs.iter().map(|c| (numpy_snippet(c, None), dump.to_string())).collect();
    let Some(got) = run_pythons(&runs) else { return };
    for ((config, got), (snippet, _)) in configs.iter().zip(&got).zip(&runs) {
        let Trace::SelfAttention(t) = compute(config).unwrap() else { panic!() };
        let what = |f: &str| format!("{f} of\n{snippet}");
        close(&got["context"], t.context.data(), &what("context"));
        // A stage the trace lacks must be absent from the snippet too (dumped as []), not skipped unseen.
        let pe = t.pe.as_ref().map_or(&[][..], |pe| pe.data());
        close(&got["pe"], pe, &what("PE"));
        let (weights, context) = t.decode.as_ref().map_or((&[][..], &[][..]), |d| (&d.weights[..], &d.context[..]));
        close(&got["decode"], weights, &what("decode weights"));
        close(&got["decode_context"], context, &what("decode context"));
        if t.flash.is_none() {
            close(&got["flash"], &[], &what("o / l"));
        } else {
            // o / l is the context wherever a query has a key to attend; the snippet leaves 0 where it has none.
            let h = t.head(config.options.head);
            let n = h.weights.rows();
            let reasons = attention_viz::attention::mask_reasons(&config.options, n, n);
            let want: Vec<f64> = (0..n)
                .flat_map(|i| {
                    let live = reasons.row(i).contains(&0.0);
                    h.context.row(i).iter().map(move |&x| if live { x } else { 0.0 })
                })
                .collect();
            close(&got["flash"], &want, &what("o / l"));
        }
        for needle in ["rope", "slopes", "kv_heads", "in_window", "decode", "FlashAttention"] {
            let used = match needle {
                "rope" => matches!(config.options.position, Some(attention_viz::config::Position::Rope { .. })),
                "slopes" => matches!(config.options.position, Some(attention_viz::config::Position::Alibi { .. })),
                "kv_heads" => config.options.kv_heads.is_some(),
                "in_window" => config.options.window.is_some(),
                "decode" => config.options.decode_step.is_some(),
                _ => config.options.tiles.is_some(),
            };
            assert_eq!(snippet.contains(needle), used, "{needle} in\n{snippet}");
        }
    }
}

/// A real model's layer fields in "Copy as NumPy": the projections' biases, the q/k norms (an `rms_norm` function),
/// partial and scaled RoPE, the soft cap and b_o, each written as NumPy that prints our numbers (the context, the
/// output, the decode step's weights and FlashAttention's o / l of the capped scores).
#[test]
fn numpy_writes_the_layer_fields() {
    let w4 = json!([[2, 0, 2, 1], [2, 0.5, 0, 1], [2, 1, 2, 0]]);
    let w2 = json!([[1, 0.5], [0, 1], [0.25, 1]]);
    let cases = [
        json!({"b_q": [0.5, -1, 0.25, 2], "b_k": [1, 0, -0.5, 0.75], "b_v": [0, 1, 2, -1, 0.5, 0.125],
               "w_o": [[1, 0], [0, 1], [1, 1], [0.5, 0], [0, 2], [1, 0]], "b_o": [0.5, -0.25]}),
        json!({"heads": 2, "b_q": [0.5, -1, 0.25, 2], "b_v": [0, 1, 2, -1, 0.5, 0.125], "mask": "causal"}),
        json!({"q_norm": {"weight": [1, 0.5, 2, 1.5], "eps": 1e-6}, "k_norm": {"weight": [1, 1, 0.5, 2], "eps": 0.01},
               "position": {"kind": "rope", "pairs": "halves"}, "w_q": w4, "w_k": w4, "mask": "causal",
               "decode_step": 2}),
        json!({"heads": 2, "q_norm": {"weight": [1, 0.5], "eps": 1e-6}, "position": {"kind": "rope", "rotary_dim": 2},
               "w_q": w4, "w_k": w4}),
        json!({"position": {"kind": "rope", "pairs": "halves", "rotary_dim": 2, "frequencies": [0.75],
                            "attention_factor": 1.25}, "w_q": w4, "w_k": w4, "b_k": [1, 0, -0.5, 0.75]}),
        json!({"softcap": 1.5, "mask": "causal", "decode_step": 3, "tiles": [3, 2]}),
        json!({"heads": 2, "softcap": 0.75, "position": {"kind": "alibi"}, "w_q": w4, "w_k": w4, "mask": "causal",
               "decode_step": 2, "tiles": [2, 2], "head": 1}),
        json!({"softcap": 2, "w_q": w2, "w_k": w2, "w_v": w2, "valid_lens": [1, 2, 0, 4], "masked_row": "uniform"}),
    ];
    let configs: Vec<Config> = cases.iter().map(|extra| self_config(extra.clone())).collect();
    let dump = "{'context': context.tolist(), 'output': _plain(globals().get('output', [])), \
                'decode': _plain(globals().get('decode_weights', [])), \
                'flash': _plain(globals().get('flash_context', []))}";
    let runs: Vec<(String, String)> = configs.iter().map(|c| (numpy_snippet(c, None), dump.to_string())).collect();
    let Some(got) = run_pythons(&runs) else { return };
    for ((config, got), (snippet, _)) in configs.iter().zip(&got).zip(&runs) {
        let Trace::SelfAttention(t) = compute(config).unwrap() else { panic!() };
        let what = |f: &str| format!("{f} of\n{snippet}");
        close(&got["context"], t.context.data(), &what("context"));
        close(&got["output"], t.output.as_ref().map_or(&[][..], |o| o.data()), &what("output"));
        close(&got["decode"], t.decode.as_ref().map_or(&[][..], |d| &d.weights[..]), &what("decode weights"));
        if t.flash.is_some() {
            let h = t.head(config.options.head);
            close(&got["flash"], h.context.data(), &what("o / l"));
        }
        let l = &config.options.layers;
        for (needle, used) in [
            ("+ b_q", l.b_q.is_some()),
            ("rms_norm", l.q_norm.is_some() || l.k_norm.is_some()),
            ("np.tanh(scaled / softcap)", l.softcap.is_some()),
            ("+ b_o", l.b_o.is_some()),
        ] {
            assert_eq!(snippet.contains(needle), used, "{needle} in\n{snippet}");
        }
    }
}
