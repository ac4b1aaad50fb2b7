//! The attention core against the four seed documents: every number they print,
//! and every intermediate at full precision from NumPy/SciPy (tests/fixtures).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::attention::{compute, CrossTrace, SelfTrace, Trace};
use attention_viz::config::Config;
use attention_viz::presets::preset;
use common::*;

const REL: f64 = 1e-12;

fn self_trace(name: &str) -> SelfTrace {
    match compute(&preset(name).unwrap()).unwrap() {
        Trace::SelfAttention(t) => t,
        other => panic!("{name} is not self-attention: {other:?}"),
    }
}

fn cross_trace(name: &str) -> CrossTrace {
    match compute(&preset(name).unwrap()).unwrap() {
        Trace::Cross(t) => t,
        other => panic!("{name} is not cross-attention: {other:?}"),
    }
}

#[test]
fn seed_001_matrix_form_matches_numpy() {
    let r = &seed_values()["seed_000_001"];
    let t = self_trace("seed-001");
    assert_matrix_close("Q", &t.q, &matrix(&r["Q"]), 0.0);
    assert_matrix_close("K", &t.k, &matrix(&r["K"]), 0.0);
    assert_matrix_close("V", &t.v, &matrix(&r["V"]), 0.0);
    assert_matrix_close("scores", &t.scores, &matrix(&r["scores"]), 0.0);
    assert_eq!(t.scale, num(&r["scale_sqrt3"]));
    assert_matrix_close("scaled", &t.scaled, &matrix(&r["scaled_scores"]), REL);
    assert_matrix_close("weights", &t.weights, &matrix(&r["weights"]), REL);
    assert_matrix_close("context", &t.context, &matrix(&r["attention"]), REL);
}

#[test]
fn seed_001_printed_attention() {
    // The last output cell of document 001, as printed.
    let printed = [
        [0.98522025, 1.74174051, 0.75652026],
        [0.90965265, 1.40965265, 0.5],
        [0.99851226, 1.75849334, 0.75998108],
        [0.99560386, 1.90407309, 0.90846923],
    ];
    let t = self_trace("seed-001");
    for (i, row) in printed.iter().enumerate() {
        assert_printed(&format!("attention row {i}"), t.context.row(i), row, 8);
    }
}

#[test]
fn seed_000_single_word_walkthrough() {
    let r = &seed_values()["seed_000_single_word"];
    let t = self_trace("seed-000");
    let q = &t.query;
    assert_eq!(q.index, 0);
    assert_eq!(t.q.row(0), vector(&r["query_1"]).as_slice());
    assert_close("scores", &q.scores, &vector(&r["scores"]), 0.0);
    assert_close("weights", &q.weights, &vector(&r["weights"]), REL);
    assert_close("attention", &q.context, &vector(&r["attention"]), REL);
    // As printed in documents 000 and 001.
    assert_eq!(q.scores, vec![8.0, 2.0, 10.0, 2.0]);
    assert_printed("weights", &q.weights, &[0.23608986, 0.00738988, 0.74913039, 0.00738988], 8);
    assert_printed("attention", &q.context, &[0.98522025, 1.74174051, 0.75652026], 8);
    // Each term is w_j · v_j.
    for j in 0..4 {
        let want: Vec<f64> = t.v.row(j).iter().map(|x| x * q.weights[j]).collect();
        assert_eq!(q.terms.row(j), want.as_slice());
    }
}

/// q₀·kⱼ → ÷√d_k → exp → ÷Σ → weights, each step against NumPy
/// (tests/fixtures/numpy-query-steps.json, tests/goldens/gen_query_steps.py).
#[test]
fn single_query_steps_match_numpy() {
    let steps: serde_json::Value = serde_json::from_str(include_str!("fixtures/numpy-query-steps.json")).unwrap();
    for name in ["seed-000", "seed-001", "seed-002"] {
        let g = &steps[if name == "seed-001" { "seed-000" } else { name }];
        let mut config = preset(name).unwrap();
        config.query = g["query"].as_u64().unwrap() as usize;
        let Trace::SelfAttention(t) = compute(&config).unwrap() else { unreachable!() };
        let q = &t.query;
        assert_eq!(t.scale, num(&g["scale"]), "{name}");
        assert_close(&format!("{name} scores"), &q.scores, &vector(&g["scores"]), 1e-15);
        assert_close(&format!("{name} scaled"), &q.scaled, &vector(&g["scaled"]), 1e-15);
        assert_close(&format!("{name} exp"), &q.exp, &vector(&g["exp"]), 1e-15);
        assert_close(&format!("{name} sum"), &[q.sum], &[num(&g["sum"])], 1e-15);
        assert_close(&format!("{name} weights"), &q.weights, &vector(&g["weights"]), 1e-15);
        // The largest scaled score's exponential is exactly 1, and the weights are exp / sum.
        assert!(q.exp.contains(&1.0), "{name}: {:?}", q.exp);
        let divided: Vec<f64> = q.exp.iter().map(|e| e / q.sum).collect();
        assert_eq!(divided, q.weights, "{name}: weights = exp / sum");
    }
    // As the documents print them.
    let t = self_trace("seed-000");
    assert_eq!(t.query.scores, vec![8.0, 2.0, 10.0, 2.0]);
    assert_printed("exp", &t.query.exp, &[0.31515190, 0.00986461, 1.0, 0.00986461], 8);
    assert_printed("sum", &[t.query.sum], &[1.33488111], 8);
}

#[test]
fn seed_002_without_projections() {
    let r = &seed_values()["seed_002"];
    let t = self_trace("seed-002");
    assert_eq!(t.scale, 1.0);
    assert_matrix_close("Q=X", &t.q, &matrix(&r["input"]), 0.0);
    assert_matrix_close("scores", &t.scores, &matrix(&r["scores"]), REL);
    assert_matrix_close("weights", &t.weights, &matrix(&r["weights"]), REL);
    assert_matrix_close("contexts", &t.context, &matrix(&r["contexts"]), REL);
    let s = &r["single_query"];
    assert_eq!(t.query.index, 1);
    assert_close("score", &t.query.scores, &vector(&s["score"]), REL);
    assert_close("weight", &t.query.weights, &vector(&s["weight"]), REL);
    assert_close("context", &t.query.context, &vector(&s["context"]), REL);
    // As printed. The document computed from the unrounded random input and
    // printed it to 8 decimals. Each input we start from is off by ≤ 5e-9, so a
    // 3-term dot product of values ≤ 1 is off by ≤ 3·2·5e-9 = 3e-8.
    let assert_printed =
        |what: &str, got: &[f64], printed: &[f64], _decimals: i32| assert_near(what, got, printed, 3e-8);
    assert_printed("score", &t.query.scores, &[0.53041613, 0.13610384, 0.3418364, 0.36677499], 8);
    assert_printed("weight", &t.query.weights, &[0.29838948, 0.20115732, 0.24710661, 0.25334659], 8);
    assert_printed("context", &t.query.context, &[0.62688845, 0.65962472, 0.52651137], 8);
    let printed_weights = [
        [0.45971284, 0.07938619, 0.2318291, 0.22907187],
        [0.29838948, 0.20115732, 0.24710661, 0.25334659],
        [0.38985174, 0.11055474, 0.25855726, 0.24103626],
        [0.39375687, 0.11585984, 0.24638103, 0.24400226],
    ];
    let printed_contexts = [
        [0.72597167, 0.75447563, 0.60854748],
        [0.62688845, 0.65962472, 0.52651137],
        [0.69746917, 0.72216799, 0.57605494],
        [0.69352439, 0.72137613, 0.57739014],
    ];
    let printed_scores = [
        [2.28669371, 0.53041613, 1.60209215, 1.59012746],
        [0.53041613, 0.13610384, 0.3418364, 0.36677499],
        [1.60209215, 0.3418364, 1.19144284, 1.12127305],
        [1.59012746, 0.36677499, 1.12127305, 1.11157133],
    ];
    for i in 0..4 {
        assert_printed("scores", t.scores.row(i), &printed_scores[i], 8);
        assert_printed("weights", t.weights.row(i), &printed_weights[i], 8);
        assert_printed("contexts", t.context.row(i), &printed_contexts[i], 8);
    }
}

#[test]
fn seed_003_encoder_decoder_stays_finite_in_float64() {
    let r = &seed_values()["seed_003"];
    let t = cross_trace("seed-003");
    assert_eq!(t.scores, vector(&r["scores"]));
    assert_eq!(t.scores[0], num(&r["single_dot_score"]));
    let s = &r["stable_softmax"];
    assert_close("weights", &t.weights, &vector(&s["weights"]), REL);
    assert_eq!(t.weights[2], 0.0);
    let applied = matrix(&s["applied_attention"]);
    assert_eq!(t.applied.shape(), (3, 4), "applied is d × m");
    assert_matrix_close("applied", &t.applied, &applied, REL);
    assert_close("context", &t.context, &vector(&s["context_vector"]), REL);
    // The document's float128 answer, cast to float64, agrees to 1e-15.
    let f128 = &r["float128_as_in_document_cast_to_float64"];
    assert_close("context vs float128", &t.context, &vector(&f128["context_vector"]), 1e-15);
}

#[test]
fn seed_003_naive_softmax_overflows_like_float64_numpy() {
    let r = &seed_values()["seed_003"]["naive_float64_softmax"];
    let t = cross_trace("seed-003");
    assert_close("naive weights", &t.naive_weights, &vector(&r["weights"]), 0.0);
    assert!(t.naive_weights[0].is_nan() && t.weights.iter().all(|w| w.is_finite()));
}

#[test]
fn scale_options() {
    let base = r#""embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
        "w_q": [[2,0,2],[2,0,0],[2,1,2]], "w_k": [[2,2,2],[0,2,1],[0,1,1]], "w_v": [[1,1,0],[0,1,1],[0,0,0]]"#;
    let run = |extra: &str| match compute(&Config::from_json(&format!("{{{base}{extra}}}")).unwrap()).unwrap() {
        Trace::SelfAttention(t) => t,
        _ => unreachable!(),
    };
    assert_eq!(run("").scale, 3f64.sqrt());
    assert_eq!(run(r#", "scale": "none""#).scaled, run("").scores);
    let custom = run(r#", "scale": 2"#);
    assert_eq!(custom.scale, 2.0);
    assert_eq!(custom.scaled.row(0), &[4.0, 1.0, 5.0, 1.0]);
}

#[test]
fn breakdown_follows_the_chosen_query() {
    let mut config = preset("seed-001").unwrap();
    config.query = 3;
    let Trace::SelfAttention(t) = compute(&config).unwrap() else { unreachable!() };
    assert_eq!(t.query.index, 3);
    assert_eq!(t.query.weights, t.weights.row(3));
    assert_close("context", &t.query.context, t.context.row(3), 1e-15);
}

#[test]
fn huge_inputs_overflow_with_a_message_not_nan() {
    let config = Config::from_json(r#"{"embeddings": [[1e200, 1], [1, 1e200]]}"#).unwrap();
    let message = compute(&config).unwrap_err().to_string();
    assert!(message.contains("scores row 0, column 0 overflowed"), "{message}");
    // At the edge of float64 it still works: scores of 1e308 stay finite.
    let config = Config::from_json(r#"{"embeddings": [[1e154, 0], [0, 1e154], [-1e154, 0]]}"#).unwrap();
    let Trace::SelfAttention(t) = compute(&config).unwrap() else { unreachable!() };
    assert!(t.weights.data().iter().all(|w| w.is_finite()));
    assert_eq!(t.weights.row(0), &[1.0, 0.0, 0.0]);
}

#[test]
fn fields_name_every_stage() {
    let trace = compute(&preset("seed-001").unwrap()).unwrap();
    let fields = trace.fields();
    let names: Vec<&str> = fields.iter().map(|f| &*f.name).collect();
    for want in [
        "q",
        "k",
        "v",
        "scores",
        "scaled",
        "weights",
        "context",
        "query.scores",
        "query.scaled",
        "query.exp",
        "query.sum",
        "query.weights",
        "query.terms",
        "query.context",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let t = compute(&preset("seed-001").unwrap()).unwrap();
    assert_eq!(t.field("query.exp").unwrap().shape, vec![4]);
    assert_eq!(t.field("query.sum").unwrap().shape, vec![1], "a scalar, as a vector of length 1");
    let cross = compute(&preset("seed-003").unwrap()).unwrap();
    assert_eq!(cross.field("applied").unwrap().shape, vec![3, 4]);
    assert_eq!(cross.field("context").unwrap().shape, vec![3]);
}
