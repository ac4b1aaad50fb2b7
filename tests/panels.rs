//! The variants and modern panels' model (src/panels.rs) against values worked out by hand from the configs below and
//! from the seed documents' figures, and each query's entropy against SciPy's `entropy(w, base=2)` of the NumPy
//! transcription's weights (tests/fixtures/panel-goldens.json, tests/goldens/gen_panel_goldens.py).
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention::compute;
use attention_viz::config::Config;
use attention_viz::panels::{mask_cell_words, panels, typed_lens, used, TypedLens, BASE_SLIDER, TEMPERATURE_SLIDER};
use serde_json::{json, Value};

/// Seed document 001's figure (tests/fixtures/seed-values.json): four tokens, d_model 3, W_Q, W_K, W_V 3 × 3.
fn seed() -> Value {
    json!({
        "embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
        "tokens": ["word_1", "word_2", "word_3", "word_4"],
        "w_q": [[2, 0, 2], [2, 0, 0], [2, 1, 2]],
        "w_k": [[2, 2, 2], [0, 2, 1], [0, 1, 1]],
        "w_v": [[1, 1, 0], [0, 1, 1], [0, 0, 0]],
    })
}

/// `base` with `fields` set (null removes one), as a config.
fn config(base: Value, fields: Value) -> Config {
    let mut v = base;
    for (k, x) in fields.as_object().unwrap() {
        if x.is_null() {
            v.as_object_mut().unwrap().remove(k);
        } else {
            v[k.as_str()] = x.clone();
        }
    }
    Config::from_json(&v.to_string()).unwrap_or_else(|e| panic!("{v}: {e}"))
}

/// Seed document 003's figure: encoder–decoder attention, one query (the decoder state) over four annotations.
fn cross() -> Value {
    json!({"decoder_state": [5, 1, 20], "annotations": [[3, 12, 45], [59, 2, 5], [15, 2, 0], [4, 3, 45.3]]})
}

/// The model of `parts` for `config`.
fn model(config: &Config, parts: &[&str]) -> Value {
    let trace = compute(config).expect("computes");
    let asked: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    panels(config, &trace, &asked)
}

/// The `value` of each of a select's choices.
fn values(choices: &Value) -> Vec<Value> {
    choices.as_array().unwrap().iter().map(|c| c["value"].clone()).collect()
}

#[test]
fn the_panels_a_config_uses() {
    assert!(used(&config(seed(), json!({}))).is_empty());
    assert_eq!(used(&config(seed(), json!({"w_o": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}))), ["heads"]);
    let busy = config(seed(), json!({"mask": "causal", "temperature": 0.5, "scoring": "cosine"}));
    assert_eq!(used(&busy), ["mask", "temperature", "scoring"]);
    assert_eq!(used(&config(seed(), json!({"valid_lens": [4, 4, 4, 4]}))), ["mask"]);
}

#[test]
fn only_the_asked_parts_and_the_modern_ones_only_for_self_attention() {
    let m = model(&config(seed(), json!({})), &["scoring", "kv"]);
    let mut keys: Vec<&String> = m.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["kv", "modern", "scoring"]);
    assert_eq!(m["modern"], json!(true));
    let c = model(&config(cross(), json!({})), &["heads", "position", "kv", "window"]);
    assert_eq!(c["modern"], json!(false));
    assert!(c.get("position").is_none() && c.get("kv").is_none() && c.get("window").is_none());
    assert!(c.get("heads").is_some());
}

#[test]
fn heads_and_why_they_cannot_change() {
    // The head count, the followed head, W_O and the reason (the words are the_panels_words_labels_and_messages's).
    let four = |v: &Value| json!({"count": v["count"], "head": v["head"], "w_o": v["w_o"], "disabled": v["disabled"]});
    let m = model(&config(seed(), json!({})), &["heads"]);
    assert_eq!(four(&m["heads"]), json!({"count": 1, "head": 0, "w_o": false, "disabled": null}));
    let none = config(seed(), json!({"w_q": null, "w_k": null, "w_v": null}));
    assert_eq!(
        model(&none, &["heads"])["heads"]["disabled"],
        json!("Heads split W_Q, W_K and W_V by columns: this figure has no projections (it attends with the embeddings themselves).")
    );
    let c = model(&config(cross(), json!({})), &["heads"]);
    assert_eq!(
        four(&c["heads"]),
        json!({"count": 1, "head": 0, "w_o": null, "disabled": "Encoder–decoder attention here compares the decoder state with the annotations directly: it has one head."})
    );
}

#[test]
fn scorings_with_their_formulas() {
    let m = model(&config(seed(), json!({"scoring": "cosine"})), &["scoring"]);
    let s = &m["scoring"];
    assert_eq!(values(&s["choices"]), [json!("dot"), json!("general"), json!("additive"), json!("cosine")]);
    let formulas: Vec<&str> = s["choices"].as_array().unwrap().iter().map(|c| c["formula"].as_str().unwrap()).collect();
    assert_eq!(formulas, ["q·kᵀ", "q·W_a·kᵀ", "v_a·tanh(q·W_a + k·U_a)", "q·k / (‖q‖‖k‖)"]);
    assert_eq!(s["value"], json!("cosine"));
    assert_eq!(s["formula"], json!("q·k / (‖q‖‖k‖)"));
    assert_eq!(
        s["title"],
        json!("Cosine similarity (PyTorch's cosine_similarity, eps 1e-8): scores in [−1, 1], usually paired with a low temperature.")
    );
    assert_eq!(s["seed"], json!(42));
    assert_eq!(s["choices"][2]["text"], json!("additive (Bahdanau)"));
}

#[test]
fn masks_and_what_a_fully_masked_query_gets() {
    let m = model(&config(seed(), json!({"mask": "causal", "masked_row": "nan", "query": 2})), &["mask"]);
    let k = &m["mask"];
    assert_eq!(k["kind"], json!("causal"));
    assert_eq!(k["title"], json!("Query i may attend to keys 0 … i only: a decoder cannot look ahead."));
    assert_eq!(values(&k["choices"]), [json!("none"), json!("causal"), json!("custom")]);
    assert_eq!(k["masked_row"], json!("nan"));
    assert_eq!(k["masked_title"], json!("NaN: softmax of scores that are all −∞ is 0/0, the literal mathematics."));
    assert_eq!(values(&k["masked_rows"]), [json!("zero"), json!("uniform"), json!("nan")]);
    assert_eq!(
        k["masked_rows"][1]["title"],
        json!("1/m on every key, as d2l's masked_softmax (which fills masked scores with −1e6).")
    );
    assert_eq!(k["query"], json!(2));
    assert_eq!(k["queries"], json!(["word_1", "word_2", "word_3", "word_4"]));
    assert_eq!(k["lens"], json!(["", "", "", ""]));

    // A length of m (4) or more is every key: its field is empty.
    let lens = model(&config(seed(), json!({"valid_lens": [2, 4, 1, 4]})), &["mask"]);
    assert_eq!(lens["mask"]["kind"], json!("none"));
    assert_eq!(lens["mask"]["lens"], json!(["2", "", "1", ""]));
    assert_eq!(lens["mask"]["lens_list"], json!("2, 4, 1, 4"));
    assert_eq!(
        lens["mask"]["lens_title"],
        json!("Query i may attend to keys 0 … L − 1 only (d2l's valid_lens); empty: all 4 keys")
    );

    // One query: nothing to look ahead of, so no causal mask; the mask is a list.
    let c = model(&config(cross(), json!({"mask": [1, 0, 1, 1]})), &["mask"]);
    assert_eq!(values(&c["mask"]["choices"]), [json!("none"), json!("custom")]);
    assert_eq!(c["mask"]["kind"], json!("custom"));
    assert_eq!(c["mask"]["queries"], json!(["decoder state"]));
    assert_eq!(c["mask"]["query"], json!(null));
}

#[test]
fn past_sixteen_queries_one_list_of_lengths_and_the_first_entropies() {
    let n = 20;
    let tokens: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    let embeddings: Vec<[f64; 2]> = (0..n).map(|i| [1.0, i as f64 / 10.0]).collect();
    let lens: Vec<usize> = (0..n).map(|i| 1 + i % 3).collect();
    let c = config(json!({"embeddings": embeddings, "tokens": tokens}), json!({"valid_lens": lens}));
    let m = model(&c, &["mask", "temperature"]);
    assert_eq!(m["mask"]["lens"], json!(null));
    assert!(m["mask"]["lens_list"].as_str().unwrap().starts_with("1, 2, 3, 1, 2, 3,"));
    let e = &m["temperature"]["entropy"];
    assert_eq!(e["rows"].as_array().unwrap().len(), 16);
    assert_eq!(e["more"], json!("… 4 more queries; mean over all 20: {mean} bits"));
    assert_eq!(e["title"], json!("Entropy of the weights, bits: 0 = all on one key, log₂ 20 = {max} = uniform"));
    // Query 0 may attend key 0 alone: all on one key.
    assert_eq!(e["rows"][0]["bits"], json!(0.0));
    assert_eq!(e["rows"][0]["title"], json!("t0: H = {bits} bits"));
}

/// A fixture number: a JSON number, "NaN", or null (no entropy).
fn bits(v: &Value) -> Option<f64> {
    match v {
        Value::Null => None,
        Value::String(s) if s == "NaN" => Some(f64::NAN),
        v => Some(v.as_f64().expect("a number")),
    }
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-12 * want.abs().max(1.0)
}

#[test]
fn entropies_match_scipy() {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/panel-goldens.json")).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let c = Config::from_json(&case["config"].to_string()).unwrap();
        let e = &model(&c, &["temperature"])["temperature"]["entropy"];
        let rows = e["rows"].as_array().unwrap();
        let want = case["entropy"].as_array().unwrap();
        assert_eq!(rows.len(), want.len(), "{name}");
        for (i, (row, w)) in rows.iter().zip(want).enumerate() {
            match bits(w) {
                None => {
                    assert_eq!(row["masked"], json!(true), "{name} row {i}");
                    assert_eq!(row["text"], json!("all masked"), "{name} row {i}");
                    assert_eq!(row["bar"], json!(0.0), "{name} row {i}");
                }
                Some(w) if w.is_nan() => {
                    assert_eq!(
                        (row["masked"].clone(), row["bits"].clone()),
                        (json!(false), json!(null)),
                        "{name} row {i}"
                    );
                    assert_eq!(row["bar"], json!(0.0), "{name} row {i}");
                }
                Some(w) => {
                    let got = row["bits"].as_f64().unwrap();
                    assert!(close(got, w), "{name} row {i}: {got} ≠ SciPy's {w}");
                    // Four keys: log₂ 4 = 2 bits is a full bar.
                    assert_eq!(row["bar"].as_f64().unwrap(), (100.0 * w / 2.0).round(), "{name} row {i}");
                }
            }
        }
        assert_eq!(e["max"], json!(2.0), "{name}");
        match bits(&case["mean"]) {
            None => assert_eq!(e["mean"], json!(null), "{name}"),
            Some(w) => assert!(close(e["mean"].as_f64().unwrap(), w), "{name} mean"),
        }
    }
}

#[test]
fn whose_entropy_and_the_temperature() {
    let two = seed_heads2();
    let m = model(&config(two, json!({"head": 1, "temperature": 0.5})), &["temperature"]);
    assert_eq!(m["temperature"]["value"], json!(0.5));
    assert_eq!(
        m["temperature"]["entropy"]["title"],
        json!("Entropy of head 1's weights, bits: 0 = all on one key, log₂ 4 = {max} = uniform")
    );
    assert_eq!(m["temperature"]["entropy"]["more"], json!(null));
    let c = model(&config(cross(), json!({"mask": [0, 0, 0, 0]})), &["temperature"]);
    let row = &c["temperature"]["entropy"]["rows"][0];
    assert_eq!(row["name"], json!("decoder state"));
    assert_eq!(row["title"], json!("decoder state: H = none (every key is masked, weights 0)"));
}

/// Seed document 001's tokens with two heads of d_k = 1 (variant-goldens.json's heads2 has d_k 3; any will do here).
fn seed_heads2() -> Value {
    let mut v = seed();
    v["w_q"] = json!([[2, 0], [2, 1], [0, 2]]);
    v["w_k"] = json!([[1, 1], [0, 0], [1, 2]]);
    v["w_v"] = json!([[2, 2], [2, 0], [1, 1]]);
    v["heads"] = json!(2);
    v
}

/// Four heads of d_k = 1 over seed document 001's tokens, `kv` key/value heads.
fn four_heads(kv: usize) -> Config {
    let mut v = seed();
    v["w_q"] = json!([[2, 0, 2, 1], [2, 1, 0, 0], [0, 2, 1, 1]]);
    let cols = |k: usize| -> Vec<Vec<u32>> { (0..3).map(|r| (0..k).map(|c| ((r + c) % 3) as u32).collect()).collect() };
    v["w_k"] = json!(cols(kv));
    v["w_v"] = json!(cols(kv));
    v["heads"] = json!(4);
    if kv != 4 {
        v["kv_heads"] = json!(kv);
    }
    Config::from_json(&v.to_string()).unwrap()
}

#[test]
fn kv_choices_labels_and_groups() {
    let m = model(&four_heads(2), &["kv"]);
    assert_eq!(
        m["kv"]["choices"],
        json!([
            {"value": 1, "text": "1 (multi-query)", "selected": false},
            {"value": 2, "text": "2 (grouped)", "selected": true},
            {"value": 4, "text": "4 (one per head)", "selected": false},
        ])
    );
    assert_eq!(m["kv"]["share"], json!(["K/V head 0 ← query heads 0, 1", "K/V head 1 ← query heads 2, 3"]));
    assert_eq!(m["kv"]["disabled"], json!(null));
    assert_eq!(m["kv"]["note"], json!("of 4 query heads"));
    assert!(m["kv"]["title"].as_str().unwrap().starts_with("W_K and W_V have kv_heads × d_k columns"));
    let one = model(&four_heads(1), &["kv"]);
    assert_eq!(one["kv"]["share"], json!(["K/V head 0 ← query heads 0, 1, 2, 3"]));
    let all = model(&four_heads(4), &["kv"]);
    assert_eq!(all["kv"]["kv"], json!(4));
    assert_eq!(all["kv"]["share"][3], json!("K/V head 3 ← query head 3"));

    let single = model(&config(seed(), json!({})), &["kv"]);
    assert_eq!(single["kv"]["choices"], json!([{"value": 1, "text": "1 (one per head)", "selected": true}]));
    let why = "One head: add heads (the heads panel) to share keys and values among them.";
    assert_eq!(single["kv"]["disabled"], json!(why));
    assert_eq!(single["kv"]["title"], json!(why));
    let bare = model(&config(seed(), json!({"w_q": null, "w_k": null, "w_v": null})), &["kv"]);
    assert_eq!(bare["kv"]["disabled"], json!("Key/value heads share W_K and W_V: this figure has no projections."));
}

#[test]
fn position_kinds_base_shift_and_slopes() {
    // RoPE rotates pairs: one head of d_k = 2.
    let mut even = seed_heads2();
    even["heads"] = json!(1);
    let rope = config(even, json!({"position": {"kind": "rope", "base": 500000, "offset": 3}}));
    let p = &model(&rope, &["position"])["position"];
    assert_eq!(values(&p["choices"]), [json!("none"), json!("sinusoidal"), json!("rope"), json!("alibi")]);
    assert_eq!(p["choices"][2]["text"], json!("RoPE"));
    // A switch keeps the base and the shift between sinusoidal and RoPE; ALiBi takes neither.
    assert_eq!(p["choices"][0]["position"], json!(null));
    assert_eq!(p["choices"][1]["position"], json!({"kind": "sinusoidal", "base": 500000.0, "offset": 3}));
    assert_eq!(p["choices"][3]["position"], json!({"kind": "alibi"}));
    assert_eq!(p["kind"], json!("rope"));
    assert_eq!(p["pairs"], json!("interleaved"));
    assert_eq!(p["base"], json!(500000.0));
    assert_eq!(p["offset"], json!(3));
    assert_eq!(p["range"], json!("positions 3 … 6"));
    assert_eq!(
        p["shift_note"],
        json!("RoPE: each q and k turns by p·θ, and q_p·k_p′ depends only on p − p′, so every score stays the same.")
    );
    assert_eq!(p["value"], json!({"kind": "rope", "base": 500000, "pairs": "interleaved", "offset": 3}));

    let sin = &model(&config(seed(), json!({"position": {"kind": "sinusoidal"}})), &["position"])["position"];
    assert_eq!(sin["base"], json!(10000.0));
    assert_eq!(sin["range"], json!("positions 0 … 3"));
    assert_eq!(sin["pairs"], json!(null));
    assert_eq!(sin["choices"][2]["position"], json!({"kind": "rope", "base": 10000.0}));

    // ALiBi's default slopes for two heads: 2^(−8·1/2) = 1/16 and 2^(−8·2/2) = 1/256.
    let alibi = config(seed_heads2(), json!({"position": {"kind": "alibi"}}));
    let a = &model(&alibi, &["position"])["position"];
    assert_eq!(a["slopes"], json!([0.0625, 0.00390625]));
    assert_eq!(a["given_slopes"], json!(null));
    assert_eq!(a["slopes_text"], json!("m = 0.0625, 0.003906 (the defaults 2^(−8(h+1)/H)): head h adds −m_h·|i − j|"));
    assert_eq!(a["base"], json!(null));
    assert_eq!(
        a["slopes_label"],
        json!("ALiBi slope of each head, 2 numbers separated by commas (empty: the defaults 2^(−8(h+1)/H); Enter applies them)")
    );
    let given = config(seed_heads2(), json!({"position": {"kind": "alibi", "slopes": [0.5, 0.25]}}));
    let g = &model(&given, &["position"])["position"];
    assert_eq!(g["given_slopes"], json!([0.5, 0.25]));
    assert_eq!(g["slopes_text"], json!("m = 0.5, 0.25: head h adds −m_h·|i − j|"));

    let none = &model(&config(seed(), json!({})), &["position"])["position"];
    assert_eq!(none["kind"], json!("none"));
    assert_eq!(none["value"], json!(null));
    assert_eq!(none["shift_note"], json!(null));
}

#[test]
fn window_sides_sinks_and_limits() {
    let on = &model(&config(seed(), json!({"window": [1, 0], "sinks": 1})), &["window"])["window"];
    let keys = ["on", "left", "right", "sinks", "side_max", "sinks_max", "hint", "title"];
    let shown: serde_json::Map<String, Value> = keys.iter().map(|k| (k.to_string(), on[*k].clone())).collect();
    assert_eq!(
        &Value::Object(shown),
        &json!({
            "on": true, "left": 1, "right": 0, "sinks": 1, "side_max": 3, "sinks_max": 4,
            "hint": "On the mask heatmap: a crossed 0 is a key the mask allows but the window closes; the sinks are dashed.",
            "title": "Query i may attend keys i − left … i + right only (JAX's local_window_size; Mistral's sliding window)",
        })
    );
    assert_eq!(on["side_labels"][1], "Window, keys to the right of each query (0 to 3; arrow keys step it)");
    assert_eq!(on["fields"], json!({"window": "window", "sinks": "sinks"}));
    let off = &model(&config(seed(), json!({})), &["window"])["window"];
    assert_eq!((off["on"].clone(), off["left"].clone(), off["right"].clone()), (json!(false), json!(2), json!(0)));
    assert_eq!(off["hint"], json!("Turn the window on to limit each query to its neighbours."));
}

/// The words the heads, temperature and mask panels show (tests/e2e/variants.test.mjs and heads.test.mjs read them).
#[test]
fn the_panels_words_labels_and_messages() {
    let one = model(&config(seed(), json!({})), &["heads", "temperature", "mask"]);
    assert_eq!(one["heads"]["label"], "heads");
    assert_eq!(one["heads"]["choices"], json!([]));
    assert_eq!(one["heads"]["remove"], 0);
    assert_eq!(
        one["heads"]["add_title"],
        "One more head: W_Q, W_K and W_V gain its columns (zeros, or the head − head took away)"
    );
    assert_eq!(one["temperature"]["text"], "T = 1");
    let mask = &one["mask"];
    assert_eq!(mask["drawn"], false);
    assert!(mask["hint"].as_str().unwrap().starts_with("Pick causal or custom"));
    assert_eq!(mask["outline"], json!([0, 0, 0, 1, 4]));
    assert_eq!(mask["len_labels"][1], "Valid length of query word_2, 0 to 4 (empty: all 4 keys; arrow keys step it)");
    assert_eq!(mask["list_placeholder"], "4 lengths, e.g. 4, 3, 2, …");
    assert_eq!(
        mask["canvas_label"],
        "Mask, queries as rows, keys as columns: 1 = attended, 0 = masked (by the mask, a valid length or the window)"
    );
    // Each choice with the fields its edit sends; a custom mask starts from a cell (the element's own edit).
    let sent: Vec<Value> = mask["choices"].as_array().unwrap().iter().map(|c| c["fields"].clone()).collect();
    assert_eq!(sent, [json!({"mask": null}), json!({"mask": "causal"}), Value::Null]);
    assert_eq!(mask["masked_rows"][1]["fields"], json!({"masked_row": "uniform"}));

    let three = config(
        seed(),
        json!({"heads": 3, "w_q": [[2, 0, 2], [2, 0, 0], [2, 1, 2]], "mask": "causal", "query": 2, "temperature": 0.123456}),
    );
    let m = model(&three, &["heads", "temperature", "mask"]);
    assert_eq!(m["heads"]["label"], "3 heads");
    assert_eq!(m["heads"]["remove"], 2);
    let texts: Vec<&str> =
        m["heads"]["choices"].as_array().unwrap().iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["head 0", "head 1", "head 2"]);
    assert_eq!(m["heads"]["choices"][2]["fields"], json!({"head": 2}));
    assert_eq!(m["temperature"]["text"], "T = 0.1235");
    assert_eq!(m["mask"]["drawn"], true);
    assert_eq!(m["mask"]["outline"], json!([0, 2, 0, 3, 4]));

    let cross = model(&config(cross(), json!({})), &["heads", "mask"]);
    assert_eq!(cross["mask"]["outline"], Value::Null);
    assert_eq!(
        cross["mask"]["canvas_label"],
        "Mask, the decoder state as the row, keys as columns: 1 = attended, 0 = masked (by the mask, a valid length or \
         the window)"
    );
    let why = cross["heads"]["disabled"].as_str().unwrap();
    assert_eq!(cross["heads"]["add_title"], why);
    assert_eq!(cross["heads"]["remove_title"], why);
}

/// The temperature and base sliders: 100 positions a decade, each value 10^(s/100) to 3 significant digits, the ends
/// exactly the numbers the panel writes beside them (the temperature's left end is 0.05, not 10^−1.3 ≈ 0.0501), and
/// the position of a value the nearest one on the log scale.
#[test]
fn the_log_sliders_positions_values_and_ends() {
    let m = model(&config(seed(), json!({"temperature": 0.5})), &["temperature"]);
    let s = &m["temperature"]["slider"];
    assert_eq!((s["min"].clone(), s["max"].clone(), s["step"].clone()), (json!(-130), json!(130), json!(1)));
    let values = s["values"].as_array().unwrap();
    assert_eq!(values.len(), 261);
    let at = |p: i64| values[(p + 130) as usize].as_f64().unwrap();
    assert_eq!((at(-130), at(130)), (0.05, 20.0), "the ends the panel states");
    assert_eq!(s["ends"], json!(["0.05", "20"]));
    assert_eq!(s["label"], json!("Temperature (log scale, 0.05 to 20)"));
    // 10^0.1, 10^−0.1, 10^0.24, 10^−1.29 to 3 significant digits.
    assert_eq!((at(0), at(10), at(-10), at(24), at(-129)), (1.0, 1.26, 0.794, 1.74, 0.0513));
    // T = 0.5: log10 0.5 = −0.30103 → position −30; a value past an end sits at that end.
    assert_eq!(s["at"], json!(-30));
    assert_eq!(TEMPERATURE_SLIDER.position_of(0.0501), -130);
    assert_eq!(TEMPERATURE_SLIDER.position_of(1000.0), 130);
    assert_eq!(TEMPERATURE_SLIDER.position_of(0.001), -130);
    for p in -130..=130 {
        assert_eq!(TEMPERATURE_SLIDER.position_of(at(p)), p as i32, "position {p} and its value {}", at(p));
    }

    let rope = config(seed_heads2(), json!({"heads": 1, "position": {"kind": "rope", "base": 500000}}));
    let b = &model(&rope, &["position"])["position"]["base_slider"];
    let values = b["values"].as_array().unwrap();
    assert_eq!((b["min"].clone(), b["max"].clone(), values.len()), (json!(0), json!(700), 701));
    assert_eq!((values[0].as_f64(), values[700].as_f64()), (Some(1.0), Some(1e7)));
    // log10 500000 = 5.69897 → 570.
    assert_eq!(b["at"], json!(570));
    assert_eq!(values[570], json!(501000.0));
    assert_eq!(b["ends"], json!(["1", "10⁷"]));
    assert_eq!(b["label"], json!("Base (log scale, 1 to 10 million)"));
    for p in 0..=700 {
        assert_eq!(BASE_SLIDER.position_of(values[p].as_f64().unwrap()), p as i32);
    }
    let alibi = config(seed_heads2(), json!({"position": {"kind": "alibi"}}));
    assert_eq!(model(&alibi, &["position"])["position"]["base_slider"], Value::Null);
}

/// What is typed in the valid-length fields (tests/e2e/variants.test.mjs types it): an empty field is all m keys,
/// every field empty removes the lengths, ↑/↓ step a field within 0 … m, a text that is no whole number is said with
/// the field it is in; the edit rebuilds the panel only when the mask heatmap comes or goes.
#[test]
fn typed_valid_lengths_make_the_edit_or_the_message() {
    let plain = config(seed(), json!({}));
    let typed = |c: &Config, texts: &[&str], row: usize, step: i32| {
        typed_lens(c, &TypedLens::Fields { texts: texts.iter().map(|t| t.to_string()).collect(), row, step })
    };
    let a = typed(&plain, &["", "", "", "2"], 3, 0);
    assert_eq!(
        a,
        json!({"text": null, "fields": {"valid_lens": [4, 4, 4, 2]}, "error": null, "row": null, "rebuild": true})
    );
    let lens = config(seed(), json!({"valid_lens": [4, 4, 4, 2]}));
    let a = typed(&lens, &[" 1 ", "", "", "2"], 0, 0);
    assert_eq!((a["fields"].clone(), a["rebuild"].clone()), (json!({"valid_lens": [1, 4, 4, 2]}), json!(false)));
    let a = typed(&lens, &["", "", "", ""], 3, 0);
    assert_eq!((a["fields"].clone(), a["rebuild"].clone()), (json!({"valid_lens": null}), json!(true)));
    // Under a causal mask the heatmap is there either way.
    let causal = config(seed(), json!({"mask": "causal", "valid_lens": [4, 4, 4, 2]}));
    assert_eq!(typed(&causal, &["", "", "", ""], 3, 0)["rebuild"], json!(false));

    let a = typed(&lens, &["x", "", "", "2"], 0, 0);
    assert_eq!(a["error"], json!("valid length of query 0: \"x\" is not a whole number ≥ 0"));
    assert_eq!((a["row"].clone(), a["fields"].clone()), (json!(0), Value::Null));
    // The field typed in when it is the one, else the first that is no number; a long text cut as the element cuts it.
    let a = typed(&lens, &["-1", "", "2.5", "2"], 2, 0);
    assert_eq!(a["error"], json!("valid length of query 2: \"2.5\" is not a whole number ≥ 0"));
    let a = typed(&lens, &["", "z".repeat(30).as_str(), "", "2"], 3, 0);
    assert_eq!(
        a["error"],
        json!(format!("valid length of query 1: \"{}…\" is not a whole number ≥ 0", "z".repeat(23)))
    );

    // ↑/↓: an empty field is all 4 keys; the step stays within 0 … 4; one that changes nothing answers nothing.
    let a = typed(&lens, &["", "", "", "2"], 0, -1);
    assert_eq!((a["text"].clone(), a["fields"].clone()), (json!("3"), json!({"valid_lens": [3, 4, 4, 2]})));
    let a = typed(&lens, &["3", "", "", "2"], 0, 1);
    assert_eq!((a["text"].clone(), a["fields"].clone()), (json!("4"), json!({"valid_lens": [4, 4, 4, 2]})));
    let nothing = json!({"text": null, "fields": null, "error": null, "row": null, "rebuild": false});
    assert_eq!(typed(&lens, &["4", "", "", "2"], 0, 1), nothing);
    assert_eq!(typed(&lens, &["0", "", "", "2"], 0, -1), nothing);
    assert_eq!(typed(&lens, &["", "", "", "x"], 3, -1)["text"], json!("3"));
    assert_eq!(typed(&lens, &["", "", "", "99"], 3, 1)["text"], json!("4"));

    // The list (past sixteen queries): brackets, commas or spaces; empty removes the lengths.
    let list = |text: &str| typed_lens(&lens, &TypedLens::List(text.to_string()));
    assert_eq!(list("[3, 2 1,,4]")["fields"], json!({"valid_lens": [3, 2, 1, 4]}));
    assert_eq!(list("  ")["fields"], json!({"valid_lens": null}));
    let a = list("3, two");
    assert_eq!(a["error"], json!("valid lengths: write whole numbers ≥ 0 separated by commas, one per query"));
    assert_eq!(a["row"], Value::Null);
}

/// A mask cell in words (the mask heatmap's tooltip and what a screen reader hears as the cursor moves).
#[test]
fn a_mask_cell_in_words() {
    let plain = config(seed(), json!({}));
    assert_eq!(mask_cell_words(&plain, 0, 3), "mask, query word_1 → key word_4: 1 (attended) · mask entry 1");
    let causal = config(seed(), json!({"mask": "causal", "valid_lens": [4, 1, 4, 4]}));
    assert_eq!(
        mask_cell_words(&causal, 0, 1),
        "mask, query word_1 → key word_2: 0 (masked: causal mask) · mask entry 0"
    );
    assert_eq!(
        mask_cell_words(&causal, 1, 1),
        "mask, query word_2 → key word_2: 0 (masked: beyond valid length 1) · mask entry 1"
    );
    let custom = config(seed(), json!({"mask": [[1, 1, 1, 1], [1, 0, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]]}));
    assert_eq!(
        mask_cell_words(&custom, 1, 1),
        "mask, query word_2 → key word_2: 0 (masked: mask[1][1] = 0) · mask entry 0"
    );
    let window = config(seed(), json!({"window": [1, 0], "sinks": 1}));
    assert_eq!(
        mask_cell_words(&window, 3, 0),
        "mask, query word_4 → key word_1: 1 (attended as a sink, though outside the window) · mask entry 1"
    );
    assert_eq!(
        mask_cell_words(&window, 3, 1),
        "mask, query word_4 → key word_2: 0 (masked: outside the window [1, 0]) · mask entry 1"
    );
    let cross = config(cross(), json!({"mask": [1, 0, 1, 1]}));
    assert_eq!(
        mask_cell_words(&cross, 0, 1),
        "mask, query decoder state → key h_2: 0 (masked: mask[1] = 0) · mask entry 0"
    );
}

/// RoPE's first pair as the position panel draws it: q = x = [1, 1] of token 2 and k = [0, 1] of token 1 (W_Q = W_K =
/// I), θ = 1 a position for pair 0 at any base. At positions 2 and 1 q points at 45° + 2 rad and k at 90° + 1 rad
/// (y up), their dot product over the pair is R(−1)[0, 1]·[1, 1] = sin 1 + cos 1; shifted by 5 both turn 5 rad more and
/// the dot product stays.
#[test]
fn the_rope_pair_turns_q_and_k_by_their_positions_and_keeps_their_dot_product() {
    let base = json!({
        "embeddings": [[1, 0], [0, 1], [1, 1]], "tokens": ["a", "b", "c"], "query": 2,
        "w_q": [[1, 0], [0, 1]], "w_k": [[1, 0], [0, 1]], "w_v": [[1, 0], [0, 1]], "position": {"kind": "rope"}
    });
    let angle = |p: &Value, side: f64| {
        let (x, y) = (p[0].as_f64().unwrap() - side / 2.0, side / 2.0 - p[1].as_f64().unwrap());
        y.atan2(x).rem_euclid(std::f64::consts::TAU)
    };
    let near = |a: f64, b: f64| {
        let d = (a - b).rem_euclid(std::f64::consts::TAU);
        d.min(std::f64::consts::TAU - d) < 0.01
    };
    let dot = 1f64.sin() + 1f64.cos();
    for (offset, turn) in [(0u64, 0.0), (5, 5.0)] {
        let c = config(base.clone(), json!({"position": {"kind": "rope", "offset": offset}}));
        let pair = &model(&c, &["position"])["position"]["pair"];
        let side = pair["side"].as_f64().unwrap();
        assert!(
            near(angle(&pair["q"], side), std::f64::consts::FRAC_PI_4 + 2.0 + turn),
            "q at offset {offset}: {pair}"
        );
        assert!(
            near(angle(&pair["k"], side), std::f64::consts::FRAC_PI_2 + 1.0 + turn),
            "k at offset {offset}: {pair}"
        );
        assert!(near(angle(&pair["q_before"], side), std::f64::consts::FRAC_PI_4), "q before turning");
        let text = pair["text"].as_str().unwrap();
        let p = 2 + offset;
        assert!(text.contains(&format!("q of \"c\" at position {p} turned by p·θ = {p}")), "{text}");
        assert!(text.contains(&format!("k of \"b\" at position {} by {}", p - 1, p - 1)), "{text}");
        let said: f64 = text.rsplit("stays ").next().unwrap().trim_end_matches(" at any shift.").parse().unwrap();
        assert!((said - dot).abs() < 5e-4, "{said} vs sin 1 + cos 1 = {dot}");
        assert_eq!(pair["slider"]["value"], offset);
        assert_eq!(pair["q_label"], format!("q, p = {p}").as_str());
    }
    let none = config(base, json!({"position": null}));
    assert_eq!(model(&none, &["position"])["position"]["pair"], Value::Null, "no RoPE, no pair");
}

/// The kv panel gives each K/V head's colour (the heatmaps' outlines: src/heatmap/draw.rs GROUP_COLORS) while the
/// groups are drawn, none otherwise.
#[test]
fn the_kv_panel_gives_each_kv_heads_colour_while_the_heatmaps_colour_them() {
    let gqa = config(
        seed(),
        json!({"heads": 2, "kv_heads": 1, "w_q": [[2, 0, 2, 1, 0, 0], [2, 0, 0, 0, 1, 0], [2, 1, 2, 0, 0, 1]]}),
    );
    assert_eq!(model(&gqa, &["kv"])["kv"]["colors"], json!([{"light": "#8250df", "dark": "#bc8cff"}]));
    assert_eq!(model(&config(seed(), json!({})), &["kv"])["kv"]["colors"], json!([]));
}
