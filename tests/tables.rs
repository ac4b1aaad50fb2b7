//! The breakdown's and the steps' models (src/tables.rs) and the number format every table and sentence uses.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention::compute;
use attention_viz::config::Config;
use attention_viz::presets::preset;
use attention_viz::tables::{breakdown, mask_reason, score_formula, steps};
use attention_viz::text::number;
use serde_json::Value;

/// JavaScript's own `String(Number(x.toPrecision(4)))` / `x.toExponential(2)` (V8, node), one value a line: the
/// value to 17 digits (or -0, nan, ±inf), a tab, the text.
#[test]
fn numbers_are_written_as_javascript_writes_them() {
    let table = include_str!("fixtures/number-format.tsv");
    let mut checked = 0;
    for line in table.lines() {
        let (x, want) = line.split_once('\t').expect("value<TAB>text");
        let x: f64 = match x {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            x => x.parse().expect("a number"),
        };
        assert_eq!(number(x), want, "{x:e}");
        checked += 1;
    }
    assert!(checked > 300, "the table has {checked} lines");
}

fn config(json: &str) -> Config {
    Config::from_json(json).expect("a valid config")
}

fn cells(row: &Value) -> Vec<&str> {
    row["cells"].as_array().unwrap().iter().map(|c| c["text"].as_str().unwrap()).collect()
}

/// Without projections q = k = x: the written-out products are the embeddings' own, worked here by hand.
#[test]
fn a_dot_product_is_written_out_with_its_numbers() {
    let c =
        config(r#"{"mechanism":"self","embeddings":[[1,-1],[2,0.5]],"tokens":["a","b"],"query":0,"scale":"sqrt_dk"}"#);
    let t = compute(&c).unwrap();
    assert_eq!(score_formula(&c, &t, 0, 1).unwrap(), "q₀·k₁ = 1·2 + (-1)·0.5 = 1.5");
    let b = breakdown(&c, &t, false);
    assert_eq!(b["title"], "Single-query breakdown: query 0 (a), q₀ = [1, -1]");
    let heads: Vec<&str> = b["head"].as_array().unwrap().iter().map(|h| h["text"].as_str().unwrap()).collect();
    assert_eq!(heads, ["key", "score", "scaled = score ÷ √2", "exp(scaled − max)", "weight = exp ÷ Σ", "w_j·v_j"]);
    let row1 = cells(&b["body"][1]);
    // scaled = 1.5 / √2 = 1.0607; the scores of query 0 are [2, 1.5], so exp(1.0607 − 1.4142) = 0.7022.
    assert_eq!(row1[..4], ["1: b", "q₀·k₁ = 1·2 + (-1)·0.5 = 1.5", "1.061", "0.7022"]);
    assert!(b["notes"].as_array().unwrap().is_empty());
}

#[test]
fn a_causal_mask_says_why_a_key_is_masked() {
    let c = config(
        r#"{"mechanism":"self","embeddings":[[1,0],[0,1],[1,1]],"tokens":["a","b","c"],"mask":"causal","query":0}"#,
    );
    let t = compute(&c).unwrap();
    assert_eq!(mask_reason(&c, 0, 2, 1).as_deref(), Some("masked: causal mask"));
    assert_eq!(mask_reason(&c, 0, 0, 0), None);
    let b = breakdown(&c, &t, false);
    let heads: Vec<&str> = b["head"].as_array().unwrap().iter().map(|h| h["text"].as_str().unwrap()).collect();
    assert_eq!(heads[..3], ["key", "mask", "score"]);
    let row2 = &b["body"][2];
    assert_eq!(row2["masked"], 1);
    assert_eq!(cells(row2)[1], "masked: causal mask");
    assert_eq!(cells(row2)[3], "−∞");
    let notes: Vec<&str> = b["notes"].as_array().unwrap().iter().map(|n| n["name"].as_str().unwrap()).collect();
    assert_eq!(notes, ["mask"]);
    assert_eq!(
        b["notes"][0]["text"],
        "Masking by a causal mask (no key after the query): 2 of 3 keys masked for query 0 (a); a masked key's scaled score is −∞, so its weight is 0."
    );
    let s = steps(&c, &t);
    assert_eq!(s["foot"][0]["cells"].as_array().unwrap().len(), 11);
    assert_eq!(s["body"][0]["cells"][8]["bar"], 100.0, "query 0 attends key 0 alone");
}

#[test]
fn valid_lengths_and_a_window_are_named_with_their_numbers() {
    let c = config(
        r#"{"mechanism":"self","embeddings":[[1,0],[0,1],[1,1],[2,0]],"valid_lens":[1,2,3,4],"window":[1,0],"sinks":1,"query":3}"#,
    );
    let t = compute(&c).unwrap();
    assert_eq!(mask_reason(&c, 3, 1, 4).as_deref(), Some("masked: outside the window [1, 0]"));
    assert_eq!(mask_reason(&c, 0, 3, 2).as_deref(), Some("masked: beyond valid length 1"));
    let b = breakdown(&c, &t, false);
    let note = b["notes"][0]["text"].as_str().unwrap();
    assert!(
        note.starts_with("Masking by valid lengths [1, 2, 3, 4] and a window [1, 0] and a sink, key 0: 1 of 4 keys"),
        "{note}"
    );
}

#[test]
fn every_key_masked_says_what_masked_row_gives() {
    let c = config(
        r#"{"mechanism":"self","embeddings":[[1,0],[0,1]],"mask":[[0,0],[1,1]],"masked_row":"uniform","query":0}"#,
    );
    let t = compute(&c).unwrap();
    let b = breakdown(&c, &t, false);
    let last = b["notes"].as_array().unwrap().last().unwrap();
    assert_eq!(last["name"], "masked-row");
    assert!(last["text"].as_str().unwrap().contains("each of the 2 keys the weight 1/2 = 0.5"), "{last}");
    assert_eq!(mask_reason(&c, 0, 1, 1).as_deref(), Some("masked: mask[0][1] = 0"));
    let s = steps(&c, &t);
    assert_eq!(cells(&s["foot"][0])[8], "1", "uniform weights still sum to 1");
}

#[test]
fn cross_attention_breaks_down_the_decoder_state() {
    let c = preset("seed-003").unwrap();
    let t = compute(&c).unwrap();
    let b = breakdown(&c, &t, true);
    assert!(b["title"].as_str().unwrap().starts_with("Breakdown: decoder state h = ["));
    let heads: Vec<&str> = b["head"].as_array().unwrap().iter().map(|h| h["text"].as_str().unwrap()).collect();
    assert_eq!(heads, ["annotation", "score", "weight", "naive", "w_j·a_j"]);
    assert!(score_formula(&c, &t, 0, 0).unwrap().starts_with("h·a₀ = "));
    assert_eq!(steps(&c, &t), Value::Null, "the steps strip is self-attention's");
}

#[test]
fn a_tooltip_says_the_formula_the_link_and_why_a_key_is_masked() {
    use attention_viz::heatmap::CellText;
    use attention_viz::tables::tip;
    let c =
        config(r#"{"mechanism":"self","embeddings":[[1,-1],[2,0.5]],"tokens":["a","b"],"query":0,"mask":"causal"}"#);
    let t = compute(&c).unwrap();
    let cell = |row: &str, col: &str, value: &str, full: f64| CellText {
        row: row.into(),
        col: col.into(),
        value: value.into(),
        full,
    };
    assert_eq!(
        tip(&c, &t, "scores", 1, 0, &cell("b", "a", "1.5", 1.5)),
        "scores[1][0] = 1.5\nq₁·k₀ = 2·1 + 0.5·(-1) = 1.5\nquery b → key a (click or Enter: follow query 1)"
    );
    assert_eq!(
        tip(&c, &t, "weights", 0, 1, &cell("a", "b", "0", 0.0)),
        "weights[0][1] = 0\nquery a → key b\nmasked: causal mask"
    );
    // A rounded text is followed by the value to 6 significant digits.
    assert_eq!(tip(&c, &t, "q", 0, 0, &cell("a", "0", "0.33", 1.0 / 3.0)), "q[0][0] = 0.33 (0.333333)");
    // Written as JavaScript's String(Number(x.toPrecision(6))) writes it (node), with an exponent where that has one:
    // a weight of 7.9e-232 took 240 characters, a tooltip 2,000 px wide on a phone.
    for (x, precise) in
        [(7.947150123e-232, "7.94715e-232"), (1.23456789e-7, "1.23457e-7"), (0.000123456789, "0.000123457")]
    {
        let text = tip(&c, &t, "v", 0, 0, &cell("a", "0", "0", x));
        assert_eq!(text, format!("v[0][0] = 0 ({precise})"));
    }
}
