//! The model panel's words (src/heads.rs) for a small stack worked out by hand: each head's summaries as a
//! sentence, the ranking by each summary in both orders, the legend, the labels and the line view's note (the words
//! tests/e2e/model.test.mjs reads in the page).
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention::{compute, Trace, WeightsTrace};
use attention_viz::config::Config;
use attention_viz::heads::{describe, panel, ranked, round3, View};
use serde_json::{json, Value};

/// Two layers × two heads over three tokens: layer 0 head 0 attends each query to itself (entropy 0, distance 0),
/// layer 0 head 1 to the previous token (query 0 to itself), layer 1 head 0 to key 0, layer 1 head 1 uniformly.
fn stack() -> Value {
    let third = 1.0 / 3.0;
    json!({
        "attention": [
            [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[1, 0, 0], [1, 0, 0], [0, 1, 0]]],
            [[[1, 0, 0], [1, 0, 0], [1, 0, 0]], [[third, third, third], [third, third, third], [third, third, third]]],
        ],
        "tokens": ["the", "cat", "sat"],
    })
}

fn trace(v: Value) -> WeightsTrace {
    match compute(&Config::from_value(&v).unwrap()).unwrap() {
        Trace::Weights(t) => t,
        _ => panic!("not a weights trace"),
    }
}

fn view(metric: &str, low: bool) -> View {
    View { metric: metric.into(), low, ..View::default() }
}

#[test]
fn a_head_in_one_sentence() {
    let t = trace(stack());
    assert_eq!(
        describe(&t, 0, 0, true),
        "layer 0, head 0 (shown): entropy 0 bits, distance to the diagonal 0 tokens, previous token 0, first token 0.333"
    );
    // Uniform over 3 keys: log₂ 3 = 1.585 bits; |i − j| averages (0+1+2)/3, (1+0+1)/3, (2+1+0)/3 → 8/9.
    assert_eq!(
        describe(&t, 1, 1, false),
        "layer 1, head 1: entropy 1.58 bits, distance to the diagonal 0.889 tokens, previous token 0.333, first token 0.333"
    );
    assert_eq!(
        (round3(1.23456), round3(1e-9), round3(f64::NAN), round3(123456.0)),
        ("1.23".into(), "1e-9".into(), "NaN".into(), "123000".into())
    );
}

#[test]
fn the_heads_ranked_both_ways_with_ties_by_layer_then_head() {
    let t = trace(stack());
    // Entropy: 0, 0, 0 (three one-hot heads, by layer then head), then the uniform head.
    assert_eq!(ranked(&t, "entropy", true), [[0, 0], [0, 1], [1, 0], [1, 1]]);
    assert_eq!(ranked(&t, "entropy", false), [[1, 1], [0, 0], [0, 1], [1, 0]]);
    // First token: layer 1 head 0 puts everything on key 0.
    assert_eq!(ranked(&t, "first", false)[0], [1, 0]);
    // Previous token: layer 0 head 1 (queries 1 and 2 on their previous key).
    assert_eq!(ranked(&t, "previous", false)[0], [0, 1]);
}

#[test]
fn the_panels_words() {
    let t = trace(stack());
    let p = panel(&t, [0, 1], &view("entropy", true));
    assert_eq!(
        p["caption"],
        "Every head of the model: 2 layers (rows) × 2 heads (columns), 3 × 3 weights each, each coloured from 0 to its \
         own largest weight. Click a head, or use the arrow keys and Enter, to see it in full below."
    );
    assert_eq!(p["label"], "Every head: 2 layers × 2 heads. Shown in full: layer 0, head 1.");
    assert!(p["readout"].as_str().unwrap().starts_with("layer 0, head 1 (shown): entropy 0 bits"));
    assert_eq!(p["cursor"], Value::Null);
    assert!(p["selected"].as_str().unwrap().starts_with("Selected layer 0, head 1 (shown): "));
    assert_eq!(p["shown"], "layer 0, head 1 is shown.");
    assert_eq!(p["legend"], "solid: the head shown below · 1–3: the top heads by entropy, lowest first");
    assert_eq!(p["marked"], json!([[0, 0], [0, 1], [1, 0]]));
    assert_eq!(p["rank"], Value::Null, "the table only when asked");
    assert_eq!(p["metrics"][1], json!({"value": "distance", "label": "distance to the diagonal", "low": true}));
    assert_eq!(p["lines"]["note"], Value::Null);
    assert_eq!(
        p["lines"]["label"],
        "Layer 0, head 1 as lines from each query (left) to the keys it attends to (right), as opaque as the weight. \
         The heatmap beside it has the numbers."
    );

    // The cursor, a hovered head and a pointed token; the ranking table, highest first by distance.
    let v = View {
        cursor: Some([1, 1]),
        over: Some([1, 0]),
        token: Some((true, 2)),
        rank: true,
        ..view("distance", false)
    };
    let p = panel(&t, [0, 1], &v);
    assert_eq!(
        p["label"],
        "Every head: 2 layers × 2 heads. Shown in full: layer 0, head 1. Cursor on layer 1, head 1."
    );
    assert!(p["readout"].as_str().unwrap().starts_with("layer 1, head 0: entropy 0 bits"));
    assert!(p["cursor"].as_str().unwrap().starts_with("layer 1, head 1: entropy 1.58 bits"));
    assert_eq!(
        p["legend"],
        "solid: the head shown below · dashed: the keyboard cursor · 1–3: the top heads by distance, highest first · \
         bands: query 2 (sat) in every head"
    );
    assert!(p["lines"]["label"].as_str().unwrap().contains("as opaque as the weight; only query 2 (sat). The heatmap"));
    let r = &p["rank"];
    assert_eq!(r["order"], "↓ highest first");
    assert_eq!(r["order_label"], "Order: highest first (press for lowest first)");
    assert_eq!((r["more"].clone(), r["more_off"].clone()), (json!("Show all 4 heads"), json!(true)));
    assert_eq!(r["caption"], "Heads by distance, highest first: a button shows that head.");
    assert_eq!(r["name"], "distance");
    // Distances: layer 1 head 0 (key 0 from queries 0, 1, 2: 1), layer 1 head 1 (8/9), layer 0 head 1 (2/3), 0.
    assert_eq!(
        r["rows"][0],
        json!({"layer": 1, "head": 0, "rank": 1, "text": "layer 1 · head 0", "value": "1 tokens", "current": false})
    );
    assert_eq!(
        r["rows"][2],
        json!({"layer": 0, "head": 1, "rank": 3, "text": "layer 0 · head 1", "value": "0.667 tokens", "current": true})
    );
    // A key pointed at: no query to single out in the line view.
    let p = panel(&t, [0, 1], &View { token: Some((false, 1)), ..view("entropy", true) });
    assert!(p["legend"].as_str().unwrap().ends_with(" · bands: key 1 (cat) in every head"));
    assert!(!p["lines"]["label"].as_str().unwrap().contains("only query"));
}

#[test]
fn one_head_many_heads_and_a_long_head() {
    let one = trace(json!({"attention": [[[[1, 0], [0.5, 0.5]]]]}));
    let p = panel(&one, [0, 0], &View { rank: true, ..view("entropy", true) });
    assert_eq!(p["caption"], "One head of 2 × 2 weights, shown in full below.");
    assert_eq!((p["rank"].clone(), p["marked"].clone()), (Value::Null, json!([])));
    assert_eq!(p["legend"], "solid: the head shown below");

    // Twelve heads of one layer: the top ten listed, the button to list all; then all.
    let heads: Vec<Vec<Vec<f64>>> =
        (0..12).map(|h| vec![vec![1.0, 0.0], vec![h as f64 / 11.0, 1.0 - h as f64 / 11.0]]).collect();
    let many = trace(json!({"attention": [heads]}));
    let p = panel(&many, [0, 0], &View { rank: true, ..view("first", false) });
    let r = &p["rank"];
    assert_eq!(r["rows"].as_array().unwrap().len(), 10);
    assert_eq!((r["more"].clone(), r["more_off"].clone()), (json!("Show all 12 heads"), json!(false)));
    assert_eq!(r["caption"], "Heads by first token, highest first (top 10 of 12): a button shows that head.");
    assert_eq!(r["rows"][0]["head"], 11);
    let p = panel(&many, [0, 0], &View { rank: true, all: true, ..view("first", false) });
    assert_eq!(p["rank"]["rows"].as_array().unwrap().len(), 12);
    assert_eq!(p["rank"]["more"], "Show the top 10");
    assert_eq!(p["rank"]["caption"], "Heads by first token, highest first: a button shows that head.");

    let n = 130;
    let row: Vec<f64> = (0..n).map(|j| if j == 0 { 1.0 } else { 0.0 }).collect();
    let long = trace(json!({"attention": [[vec![row; n]]]}));
    assert_eq!(
        panel(&long, [0, 0], &view("entropy", true))["lines"]["note"],
        "The line view is for up to 128 tokens (this head has 130)."
    );
}
