//! What the element shows besides heatmaps (src/controls.rs): the facts, the toolbar and the input grids.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::config::Config;
use attention_viz::controls::{facts, inputs, paste_refused, toolbar, CELL_NOTES, MAX_PASTE};
use attention_viz::presets::preset;
use serde_json::json;

#[test]
fn the_toolbar_names_the_scale_the_queries_and_what_randomize_draws() {
    let c = preset("seed-000").unwrap();
    let t = toolbar(&c);
    assert_eq!(t["scale"]["kind"], "sqrt_dk");
    assert_eq!(t["scale"]["choices"][0]["text"], "÷ √d_k");
    assert_eq!(t["randomize"], "np.random.seed(seed), then one call per matrix: W_Q, W_K, W_V");
    assert_eq!(t["queries"].as_array().unwrap().len(), c.tokens.len());
    let cross = toolbar(&preset("seed-003").unwrap());
    assert_eq!(cross["queries"], serde_json::Value::Null, "cross-attention has one query");
    assert_eq!(cross["randomize"], "np.random.seed(seed), then one call per matrix: decoder state, annotations");
    let custom = Config::from_json(r#"{"mechanism":"self","embeddings":[[1,2]],"scale":2.5}"#).unwrap();
    assert_eq!(
        toolbar(&custom)["scale"],
        json!({"kind": "custom", "value": "2.5", "choices": toolbar(&custom)["scale"]["choices"]})
    );
    assert_eq!(toolbar(&custom)["scale"]["choices"][0]["text"], "÷ √d");
}

#[test]
fn a_grid_shows_a_window_kept_inside_its_matrix() {
    let rows: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64, 0.5]).collect();
    let c = Config::from_json(&json!({"mechanism": "self", "embeddings": rows}).to_string()).unwrap();
    let g = &inputs(&c, &json!({"embeddings": [10, 3]}))[0];
    assert_eq!(g["name"], "embeddings");
    assert_eq!(g["title"], "embeddings X");
    assert_eq!(g["shape"], json!([20, 2]));
    assert_eq!(g["window"], json!([4, 0]), "20 rows, 16 shown: the window starts at row 4 at the latest");
    assert_eq!(g["values"][0], json!([4.0, 0.5]));
    assert_eq!(g["values"].as_array().unwrap().len(), 16);
    assert_eq!(g["tokens"], true);
    assert_eq!(g["step"], 0.01, "a matrix with a fraction steps by 0.01");
}

#[test]
fn cross_attention_grids_are_the_decoder_state_and_the_annotations_then_the_scoring() {
    let c = Config::from_json(
        r#"{"mechanism":"cross","decoder_state":[1,2],"annotations":[[1,0],[0,1],[1,1]],"scoring":"additive",
            "w_a":[[1,0],[0,1]],"u_a":[[1,0],[0,1]],"v_a":[1,1]}"#,
    )
    .unwrap();
    let names: Vec<String> =
        inputs(&c, &json!({})).as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap().into()).collect();
    assert_eq!(names, ["decoder_state", "annotations", "w_a", "u_a", "v_a"]);
    let h = &inputs(&c, &json!({}))[0];
    assert_eq!((h["vector"].as_bool(), h["label"].as_str(), h["step"].as_f64()), (Some(true), Some("h"), Some(1.0)));
    let f = facts(&c);
    assert_eq!(
        (f["mechanism"].as_str(), f["heads"].as_u64(), f["masks"].as_bool()),
        (Some("cross"), Some(1), Some(false))
    );
}

#[test]
fn the_snapshot_parts_hold_the_facts_and_each_asked_part() {
    use attention_viz::attention::compute;
    use attention_viz::shown::{parts, Asked};
    let c = preset("seed-000").unwrap();
    let t = compute(&c).unwrap();
    let asked = Asked { parts: vec!["breakdown:naive".into(), "toolbar".into(), "nothing".into()], windows: json!({}) };
    let p = parts(&c, &t, &asked);
    assert_eq!(p["facts"]["mechanism"], "self");
    assert!(p["breakdown"]["head"].as_array().unwrap().iter().any(|h| h["text"] == "naive"), "the naive column asked");
    assert_eq!(p["toolbar"]["scale"]["kind"], "sqrt_dk");
    assert!(p.get("nothing").is_none() && p.get("inputs").is_none() && p.get("steps").is_none(), "only what was asked");
}

#[test]
fn the_structure_changes_with_a_shape_and_not_with_a_value() {
    let c = preset("seed-000").unwrap();
    let s = attention_viz::controls::structure(&c);
    assert_eq!(
        s,
        attention_viz::controls::structure(&c.with_value("w_q", 0, 0, 9.5).unwrap()),
        "a value is not structure"
    );
    assert_ne!(s, attention_viz::controls::structure(&c.insert_token(1, "x").unwrap()), "a token more is");
    assert!(s.contains("\"w_q\":\"") && s.contains('×'), "{s}");
    assert_ne!(s, attention_viz::controls::structure(&c.insert_dim(1).unwrap()), "a dimension more is");
    let cross = preset("seed-003").unwrap();
    let s = attention_viz::controls::structure(&cross);
    assert!(s.contains("\"annotations\":\"4×3\""), "the annotations as their shape: {s}");
    assert_eq!(s, attention_viz::controls::structure(&cross.with_value("annotations", 1, 2, 7.0).unwrap()));
}

#[test]
fn a_grid_says_its_legend_its_window_and_its_import_in_the_elements_words() {
    let rows: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64, 0.5]).collect();
    let c = Config::from_value(&json!({"mechanism": "self", "embeddings": rows})).unwrap();
    let g = &inputs(&c, &json!({"embeddings": [16, 0]}))[0];
    assert_eq!(g["legend"], "embeddings X (20 × 2)");
    assert_eq!(g["page"], json!([16, 16]));
    assert_eq!(g["nav"]["rows"], json!({"text": "rows 4–19 of 20", "prev": true, "next": false}));
    assert_eq!(g["nav"]["cols"], serde_json::Value::Null, "both columns show");
    assert_eq!(g["import"]["label"], "Import embeddings from a file");
    assert_eq!(g["import"]["drop"], "Drop to fill embeddings");
    assert_eq!(
        g["import"]["title"],
        "Fill embeddings from a .npy, .npz, .json, .csv, .tsv or .txt file — or drop one on this grid"
    );
    let cross = inputs(&preset("seed-003").unwrap(), &json!({}));
    assert_eq!(cross[0]["legend"], format!("decoder state h ({})", cross[0]["shape"][1]));
    assert_eq!(cross[0]["import"]["label"], "Import decoder state from a file");
}

#[test]
fn a_custom_divisor_shows_as_javascript_writes_it() {
    use attention_viz::text::js_string as number_text;
    for (x, text) in [
        (2.5, "2.5"),
        (1.0, "1"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (1e21, "1e+21"),
        (123456789012345680000.0, "123456789012345680000"),
        (-0.125, "-0.125"),
        (1.5e-10, "1.5e-10"),
        (0.1 + 0.2, "0.30000000000000004"),
    ] {
        assert_eq!(number_text(x), text, "{x:e}");
    }
}

/// A paste longer than the grids read is refused at once, with the limit (tests/e2e/hostile-files.test.mjs pastes
/// 1,200,000 and 10,000,000 characters); the message line's sentences are the core's, filled by the element.
#[test]
fn a_paste_too_long_is_refused_with_the_limit_and_the_grids_say_it_in_the_cores_words() {
    assert_eq!(MAX_PASTE, 1_000_000);
    assert_eq!(paste_refused(MAX_PASTE), None);
    assert_eq!(
        paste_refused(1_200_000).unwrap(),
        "the pasted text is 1,200,000 characters long; a paste of at most 1,000,000 is read. Import a larger array \
         from a file (Import…)"
    );
    let note = |name: &str| CELL_NOTES.iter().find(|(n, _)| *n == name).unwrap().1;
    assert_eq!(note("where"), "{matrix}[{row}][{col}]");
    assert_eq!(note("invalid"), "{where}: {message}. The figure shows the last valid values.");
    assert_eq!(note("paste"), "Paste at {where}: {message}.");
}

#[test]
fn a_typed_number_is_read_as_javascripts_number_reads_it_and_anything_else_is_named() {
    use attention_viz::text::cell_number;
    // The values JavaScript's Number(text) gives (Node 20), bit for bit.
    for (text, want) in [
        ("0.1", 0.1f64),
        ("9007199254740993", 9007199254740992.0),
        ("2.2250738585072011e-308", 2.225073858507201e-308),
        ("1e-400", 0.0),
        ("+.5e1", 5.0),
        ("1.", 1.0),
        ("4.9406564584124654e-324", 5e-324),
        ("1.7976931348623157e308", 1.7976931348623157e308),
        ("123456789012345678901234567890", 1.2345678901234568e29),
        ("  3.5\u{a0}\n", 3.5),
        ("\u{feff}7", 7.0),
        ("\u{2212}2", -2.0),
        ("1E+2", 100.0),
    ] {
        assert_eq!(cell_number(text).map(f64::to_bits), Ok(want.to_bits()), "{text:?}");
    }
    assert_eq!(cell_number("-0").map(f64::to_bits), Ok((-0.0f64).to_bits()));
    for (text, message) in [
        ("", "empty: type a number"),
        (" \t", "empty: type a number"),
        ("nan", "NaN is not allowed: every value must be a finite number"),
        ("-NaN", "NaN is not allowed: every value must be a finite number"),
        ("-Infinity", "-Infinity is not allowed: every value must be a finite number"),
        ("inf", "inf is not allowed: every value must be a finite number"),
        ("0x10", "“0x10” is not a number"),
        ("1_000", "“1_000” is not a number"),
        ("1.2.3", "“1.2.3” is not a number"),
        (".", "“.” is not a number"),
        ("e5", "“e5” is not a number"),
        ("1e", "“1e” is not a number"),
        ("--1", "“--1” is not a number"),
        ("\u{85}1", "“\u{85}1” is not a number"),
        ("1e400", "1e400 is too large for float64 (the largest is about 1.8e308)"),
    ] {
        assert_eq!(cell_number(text), Err(message.to_string()), "{text:?}");
    }
    // A 100,000-digit number is named in 40 characters.
    let long = "9".repeat(100_000);
    let said = cell_number(&long).unwrap_err();
    assert_eq!(said, format!("{}… is too large for float64 (the largest is about 1.8e308)", "9".repeat(39)));
}

#[test]
fn a_whole_number_field_takes_digits_alone() {
    use attention_viz::text::whole_number;
    assert_eq!(whole_number(" 12\u{a0}"), Some(12.0));
    assert_eq!(whole_number("0"), Some(0.0));
    for text in ["", " ", "-1", "+1", "1.0", "1e2", "0x10", "1 2", "١٢"] {
        assert_eq!(whole_number(text), None, "{text:?}");
    }
}
