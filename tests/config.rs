//! Config parsing: defaults, round trips, and a clear message for every malformed config.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::config::{Config, Mechanism, Scale};
use attention_viz::presets::{preset, NAMES};
use serde_json::Value;

fn malformed() -> Vec<(String, Value, String)> {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/malformed-configs.json")).unwrap();
    fixture["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().into(), c["config"].clone(), c["error"].as_str().unwrap().into()))
        .collect()
}

#[test]
fn every_malformed_config_gets_its_message() {
    let cases = malformed();
    assert!(cases.len() >= 30);
    for (name, config, want) in cases {
        let got = Config::from_value(&config).expect_err(&name).to_string();
        assert!(got.contains(&want), "{name}: got {got:?}, want it to contain {want:?}");
    }
}

#[test]
fn invalid_json_text() {
    let e = Config::from_json("{\"embeddings\": [[1, 2]").unwrap_err().to_string();
    assert!(e.starts_with("config is not valid JSON"), "{e}");
    let e = Config::from_json("").unwrap_err().to_string();
    assert!(e.starts_with("config is not valid JSON"), "{e}");
}

#[test]
fn numbers_beyond_float64_are_refused() {
    let e = Config::from_json(r#"{"embeddings": [[1e400]]}"#).unwrap_err().to_string();
    assert!(e.contains("number too large for float64") && e.contains("column 22"), "{e}");
}

#[test]
fn defaults() {
    let c = Config::from_json(r#"{"embeddings": [[1, 2], [3, 4]]}"#).unwrap();
    assert_eq!(c.tokens, vec!["word_1", "word_2"]);
    assert_eq!(c.scale, Scale::None, "no projections → no scaling, as in document 002");
    assert_eq!(c.query, 0);
    let c = Config::from_json(r#"{"embeddings": [[1]], "w_q": [[1]], "w_k": [[1]], "w_v": [[1, 2]]}"#).unwrap();
    assert_eq!(c.scale, Scale::SqrtDk, "projections → ÷√d_k, as in documents 000/001");
    let c = Config::from_json(r#"{"decoder_state": [1, 2], "annotations": [[1, 2]]}"#).unwrap();
    assert!(matches!(c.mechanism, Mechanism::Cross { .. }), "decoder_state implies cross");
    assert_eq!(c.scale, Scale::None);
}

#[test]
fn presets_round_trip_through_json() {
    for name in NAMES {
        let c = preset(name).unwrap();
        assert_eq!(Config::from_value(&c.to_value()).unwrap(), c, "{name}");
    }
    assert!(preset("seed-004").is_none());
}
