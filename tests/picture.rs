//! The static picture (`picture`) and the C-ABI surface Python calls (`ffi`), natively: what the Python package gets
//! through wasmtime from the same functions (tests/python/test_core.py holds it against the page).

use attention_viz::attention;
use attention_viz::config::Config;
use attention_viz::ffi;
use attention_viz::picture::{self, Options};
use attention_viz::presets;

/// One ffi call with a JSON request and f64 values: (its return code, its text answer, its f64 answer).
fn call(
    f: unsafe extern "C" fn(*const u8, usize, *const f64, usize) -> u32,
    request: &str,
    data: &[f64],
) -> (u32, String, Vec<f64>) {
    let code = unsafe { f(request.as_ptr(), request.len(), data.as_ptr(), data.len()) };
    let text = unsafe { std::slice::from_raw_parts(ffi::av_out_ptr(), ffi::av_out_len()) };
    let values = unsafe { std::slice::from_raw_parts(ffi::av_out_f64_ptr(), ffi::av_out_f64_len()) };
    (code, String::from_utf8(text.to_vec()).unwrap(), values.to_vec())
}

#[test]
fn every_preset_and_a_model_stack_give_a_picture_that_is_xml() {
    let mut configs: Vec<Config> = presets::NAMES.iter().map(|n| presets::preset(n).unwrap()).collect();
    let stack: Vec<Vec<Vec<Vec<f64>>>> = vec![vec![vec![vec![0.25; 4]; 4]; 3]; 2];
    configs.push(
        Config::from_json(&serde_json::json!({"attention": stack, "tokens": ["a\u{1}", "<b>", "c", "d"]}).to_string())
            .unwrap(),
    );
    for config in &configs {
        let trace = attention::compute(config).unwrap();
        for dark in [false, true] {
            let options = Options { palette: Some("rocket_r".into()), dark, ..Options::default() };
            let (svg, alt) = picture::picture(config, &trace, &options).unwrap();
            let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not XML ({e})"));
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            assert!(!alt.is_empty() && !alt.contains('\u{1}'));
        }
    }
}

#[test]
fn a_big_grid_is_one_image_and_a_refusal_is_a_picture_of_its_message() {
    let n = 100;
    let weights: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
    let config = Config::from_json(&serde_json::json!({"attention": weights}).to_string()).unwrap();
    let trace = attention::compute(&config).unwrap();
    let (svg, _) = picture::picture(&config, &trace, &Options::default()).unwrap();
    assert!(svg.matches("<rect").count() < 50, "a 100 × 100 grid drawn as shapes");
    assert!(svg.contains("data:image/png;base64,"));
    let (svg, alt) = picture::refused("embeddings row 1 has 1 value, expected 2 (like row 0)", false);
    assert!(roxmltree::Document::parse(&svg).is_ok());
    assert!(svg.contains("expected 2 (like row 0)") && alt.contains("like row 0"));
}

#[test]
fn ffi_refuses_with_the_cores_message_and_computes_flat_matrices() {
    // The message Config::from_json gives, word for word.
    let bad = r#"{"config": {"embeddings": [[1, 2], [3]]}}"#;
    let (code, message, _) = call(ffi::av_check, bad, &[]);
    let want = Config::from_json(r#"{"embeddings": [[1, 2], [3]]}"#).unwrap_err().0;
    assert_eq!((code, message), (1, want));
    // A matrix sent flat: the same trace as its JSON.
    let flat = r#"{"config": {"tokens": ["a", "b"]}, "flat": [{"name": "embeddings", "shape": [2, 2]}]}"#;
    let (code, layout, values) = call(ffi::av_compute, flat, &[1.0, 0.0, 0.5, 2.0]);
    assert_eq!(code, 0, "{layout}");
    let config = Config::from_json(r#"{"embeddings": [[1, 0], [0.5, 2]], "tokens": ["a", "b"]}"#).unwrap();
    let trace = attention::compute(&config).unwrap();
    let layout: serde_json::Value = serde_json::from_str(&layout).unwrap();
    for (entry, field) in layout["fields"].as_array().unwrap().iter().zip(trace.fields()) {
        assert_eq!(entry[0], field.name.as_ref());
        let at = entry[2].as_u64().unwrap() as usize;
        let got = &values[at..at + field.data.len()];
        assert!(got.iter().zip(field.data).all(|(a, b)| a.to_bits() == b.to_bits()), "{}", field.name);
    }
    // A stack over the limit: refused from its declared shape alone, no values sent.
    let huge = r#"{"config": {"mechanism": "weights"}, "flat": [{"name": "attention", "shape": [12, 12, 256, 256]}]}"#;
    let (code, message, _) = call(ffi::av_check_declared, huge, &[]);
    assert_eq!(code, 1);
    assert!(message.contains("at most 8388608 are supported"), "{message}");
}
