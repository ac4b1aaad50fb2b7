//! The element options' rules and messages (src/options.rs), and what the Python package reads of them and of the
//! config's fields through the C ABI (`av_options`, `av_facts`, `av_check`, `av_compute`).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::config::{Config, DECLARED_FIELDS, FIELDS, MATRICES, MECHANISM_FIELDS, WEIGHTS_FIELDS};
use attention_viz::heatmap::draw::{MAX_HEIGHT, MIN_HEIGHT};
use attention_viz::options::{attribute, unknown, Among, OPTIONS, THEMES};
use attention_viz::{attention, ffi};
use common::ffi_call as call;
use serde_json::{json, Value};

/// `attribute` with the value shown as Python's `repr` would show it (the tests' values are short: nothing is cut).
fn attr(name: &str, value: Value) -> Result<String, String> {
    let shown = python_repr(&value);
    attribute(name, &value, &shown)
}

fn python_repr(value: &Value) -> String {
    match value {
        Value::String(s) => format!("'{s}'"),
        Value::Bool(b) => (if *b { "True" } else { "False" }).into(),
        Value::Null => "None".into(),
        Value::Array(items) => format!("[{}]", items.iter().map(python_repr).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

#[test]
fn each_option_refuses_with_the_words_python_gave() {
    let cases = [
        ("theme", json!("night"), "theme must be 'auto', 'light', 'dark', got 'night' (did you mean \"light\"?)"),
        ("theme", json!("neon"), "theme must be 'auto', 'light', 'dark', got 'neon'"),
        ("theme", json!(1), "theme must be 'auto', 'light', 'dark', got 1"),
        ("height", json!(-3), "height must be a positive number of CSS pixels, got -3"),
        ("height", json!(true), "height must be a positive number of CSS pixels, got True"),
        ("height", json!("tall"), "height must be a positive number of CSS pixels, got 'tall'"),
        ("height", Value::Null, "height must be a positive number of CSS pixels, got None"),
        ("height", json!(10), "height must be from 40 to 4000 CSS pixels, got 10"),
        ("editable", json!("no"), "editable must be True or False, got 'no'"),
        ("editable", json!(1), "editable must be True or False, got 1"),
        ("views", json!(["weights", ""]), "views must name heatmaps or panels, got ['weights', '']"),
        ("views", json!(["weights", 3]), "views must name heatmaps or panels, got ['weights', 3]"),
        ("views", json!(" , weights"), "views must name heatmaps or panels, got ' , weights'"),
        (
            "views",
            json!(true),
            "views must name heatmaps or panels (a list of names, or one text of them separated by commas), got True",
        ),
        ("palette", json!(5), "palette must be a text (a name or format spec the core knows), got 5"),
        ("fmt", json!([".2f"]), "fmt must be a text (a name or format spec the core knows), got ['.2f']"),
        ("contrast", Value::Null, "contrast must be a text (a name or format spec the core knows), got None"),
    ];
    for (name, value, message) in cases {
        assert_eq!(attr(name, value.clone()), Err(message.to_string()), "{name} = {value}");
    }
}

#[test]
fn each_option_becomes_its_attributes_text() {
    let cases = [
        ("views", json!(["weights", " context "]), "weights,context"),
        ("views", json!("inputs , weights,\u{3000}context\u{1c}"), "inputs,weights,context"),
        ("editable", json!(false), "false"),
        ("editable", json!("true"), "true"),
        ("height", json!(150), "150"),
        ("height", json!(150.0), "150"),
        ("height", json!(150.5), "150.5"),
        ("height", json!("150"), "150"),
        ("theme", json!("auto"), "auto"),
        ("palette", json!("rocket"), "rocket"),
        ("fmt", json!(".2x"), ".2x"),
    ];
    for (name, value, text) in cases {
        assert_eq!(attr(name, value.clone()), Ok(text.to_string()), "{name} = {value}");
    }
    for theme in THEMES {
        assert_eq!(attr("theme", json!(theme)).as_deref(), Ok(*theme));
    }
}

#[test]
fn height_is_bounded_by_the_heatmaps_limits() {
    let (low, high) = (f64::from(MIN_HEIGHT), f64::from(MAX_HEIGHT));
    assert_eq!(attr("height", json!(low)), Ok(MIN_HEIGHT.to_string()));
    assert_eq!(attr("height", json!(high)), Ok(MAX_HEIGHT.to_string()));
    for outside in [low - 0.5, high + 0.5, 1e300] {
        let message = attr("height", json!(outside)).unwrap_err();
        assert!(message.starts_with(&format!("height must be from {MIN_HEIGHT} to {MAX_HEIGHT} CSS pixels")));
    }
}

#[test]
fn a_height_text_is_read_as_pythons_float_reads_it() {
    // What Python's float() makes of each text (None: it refuses it); a number in range is the attribute.
    let cases: [(&str, Option<&str>); 20] = [
        (" 150 ", Some("150")),
        ("\u{85} 150\u{a0}", Some("150")),
        ("\u{3000}150", Some("150")),
        ("1_000", Some("1000")),
        ("1_5_0.2_5", Some("150.25")),
        ("1e2", Some("100")),
        ("1E2", Some("100")),
        (".5e3", Some("500")),
        ("150.", Some("150")),
        ("1.e2", Some("100")),
        ("+150", Some("150")),
        ("150.50", Some("150.5")),
        ("1__000", None),
        ("_100", None),
        ("100_", None),
        ("1_e2", None),
        ("0x10", None),
        ("150px", None),
        ("\u{1c}150\u{1f}", None),
        ("Infinity", None),
    ];
    for (text, want) in cases {
        let got = attr("height", json!(text));
        match want {
            Some(want) => assert_eq!(got.as_deref(), Ok(want), "{text:?}"),
            None => assert_eq!(
                got,
                Err(format!("height must be a positive number of CSS pixels, got '{text}'")),
                "{text:?}"
            ),
        }
    }
}

#[test]
fn an_unknown_name_gets_the_nearest_or_the_list() {
    assert_eq!(
        unknown("pallete", Among::Fields),
        "unknown config field or element option \"pallete\" (did you mean \"palette\"?)"
    );
    let all: Vec<&str> = FIELDS.iter().chain(OPTIONS).copied().collect();
    assert_eq!(
        unknown("zzzzzzzz", Among::Fields),
        format!("unknown config field or element option \"zzzzzzzz\"; known ones are {}", all.join(", "))
    );
    assert_eq!(unknown("tokns", Among::Arguments), "unknown argument \"tokns\" (did you mean \"tokens\"?)");
    assert_eq!(
        unknown("zzz", Among::Arguments),
        "unknown argument \"zzz\"; known ones are views, palette, fmt, height, editable, theme, contrast, tokens, \
         key_tokens, layer, head, query"
    );
    // The name is quoted and cut as every message of the core quotes a name.
    let long = "x".repeat(1000);
    assert!(unknown(&long, Among::Arguments).starts_with(&format!("unknown argument \"{}…\"", "x".repeat(39))));
}

#[test]
fn python_asks_av_options_for_each_option_and_each_unknown_name() {
    let ask = |request: Value| {
        let (code, text, _) = call(ffi::av_options, &request.to_string(), &[]);
        (code, text)
    };
    assert_eq!(ask(json!({"option": "height", "value": "150", "shown": "'150'"})), (0, "150".into()));
    assert_eq!(
        ask(json!({"option": "editable", "value": "no", "shown": "'no'"})),
        (1, "editable must be True or False, got 'no'".into())
    );
    assert_eq!(
        ask(json!({"unknown": "hieght", "among": "fields"})),
        (1, "unknown config field or element option \"hieght\" (did you mean \"height\"?)".into())
    );
    // The options the heatmaps judge, as before.
    let (code, message) = ask(json!({"options": {"fmt": "2g", "views": "weights"}}));
    assert_eq!(code, 1);
    assert!(message.starts_with("fmt \"2g\" is not one of seaborn's format specs"), "{message}");
    assert_eq!(ask(json!({"options": {"palette": "rocket", "theme": "dark"}})), (0, "{}".into()));
}

#[test]
fn python_reads_the_fields_facts_from_the_core() {
    let facts: Value = serde_json::from_str(&{
        assert_eq!(ffi::av_facts(), 0);
        let text = unsafe { std::slice::from_raw_parts(ffi::av_out_ptr(), ffi::av_out_len()) };
        String::from_utf8(text.to_vec()).unwrap()
    })
    .unwrap();
    assert_eq!(facts["options"], json!(OPTIONS));
    assert_eq!(facts["fields"], json!(FIELDS));
    assert_eq!(facts["weights"]["stack"], "attention");
    assert!(facts["presets"]["seed-001"].is_object());
    for name in WEIGHTS_FIELDS.iter().chain(MECHANISM_FIELDS).chain(DECLARED_FIELDS) {
        assert!(FIELDS.contains(name), "{name} is no field");
    }
    let shapes: Vec<&str> = facts["declared"]["shapes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(MATRICES.iter().all(|m| shapes.contains(m)) && shapes.contains(&"decoder_state"));
    // A weights config takes exactly its fields and its mechanism: any other field is refused by name.
    let base = json!({"mechanism": "weights", "attention": [[1.0]]});
    for field in FIELDS.iter().filter(|f| **f != "mechanism" && !WEIGHTS_FIELDS.contains(f)) {
        let mut config = base.clone();
        config[*field] = json!(1);
        let message = Config::from_json(&config.to_string()).unwrap_err().0;
        assert!(message.starts_with(&format!("{field} belongs to computed attention")), "{message}");
    }
}

#[test]
fn the_traces_fields_that_are_no_arrays_come_in_computes_order() {
    let config = json!({"embeddings": [[1, 0], [0, 1]], "query": 1, "scale": 0.5});
    let (code, text, _) = call(ffi::av_compute, &json!({ "config": config }).to_string(), &[]);
    assert_eq!(code, 0, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    let scale = attention::compute(&Config::from_json(&config.to_string()).unwrap()).unwrap().scale();
    assert_eq!(answer["trace"], json!([["mechanism", "self"], ["scale", scale], ["query", {"index": 1}]]));
    let weights = json!({"config": {"attention": [[1]], "tokens": ["a"]}}).to_string();
    let answer: Value = serde_json::from_str(&call(ffi::av_compute, &weights, &[]).1).unwrap();
    assert_eq!(answer["trace"], json!([["mechanism", "weights"], ["tokens", ["a"]], ["key_tokens", ["a"]]]));
    let checked =
        call(ffi::av_check, &json!({"config": {"decoder_state": [1], "annotations": [[1]]}}).to_string(), &[]);
    assert_eq!(checked, (0, "cross".to_string(), vec![]));
}

/// Python asks the core what it needs to know of the config's fields (its facts, `av_options`, the trace's layout):
/// no field's name is a string literal in the package's code, where a copy of a rule would hide.
#[test]
fn python_names_no_config_field_in_its_code() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("python/attention_viz");
    let mut found = vec![];
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "py") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            for field in FIELDS {
                if line.contains(&format!("\"{field}\"")) || line.contains(&format!("'{field}'")) {
                    found.push(format!("{}:{}: {field}", path.file_name().unwrap().to_string_lossy(), i + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "config fields named in python/attention_viz: {found:?}");
}

/// What the element says of its own `height` attribute (www/element/index.js `_attributeProblems`; the e2e test
/// tests/e2e/lifecycle.test.mjs sets 1e9 and 0.4): the value it reads from the text is JavaScript's `Number(text)`.
#[test]
fn the_elements_height_note() {
    use attention_viz::options::height_note;
    assert_eq!(height_note("300", 300.0), None);
    assert_eq!(height_note("40", 40.0), None);
    assert_eq!(
        height_note("1e9", 1e9).unwrap(),
        "height 1e9 is outside 40–4000 CSS pixels: the heatmaps are 4000 px high."
    );
    assert_eq!(
        height_note("0.4", 0.4).unwrap(),
        "height 0.4 is outside 40–4000 CSS pixels: the heatmaps are 40 px high."
    );
    let natural = "is not a positive number of CSS pixels: the heatmaps keep their natural height.";
    assert_eq!(height_note("tall", f64::NAN).unwrap(), format!("height \"tall\" {natural}"));
    assert_eq!(height_note(" ", 0.0).unwrap(), format!("height \" \" {natural}"));
    assert_eq!(height_note("-3", -3.0).unwrap(), format!("height \"-3\" {natural}"));
    assert_eq!(height_note("Infinity", f64::INFINITY).unwrap(), format!("height \"Infinity\" {natural}"));
    // The text quoted is its first 40 UTF-16 units.
    let long = "9".repeat(100);
    assert_eq!(
        height_note(&long, 1e100).unwrap(),
        format!("height {} is outside 40–4000 CSS pixels: the heatmaps are 4000 px high.", &long[..40])
    );
}

/// A field nested past serde_json's limit (a JS object or a Python list can be): the page's and Python's requests get
/// one message naming the field, not "not valid JSON" for a text the caller never wrote, nor Python's "internal
/// error".
#[test]
fn a_field_nested_too_deep_is_named_in_the_same_words_from_the_page_and_from_python() {
    let deep = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let page = format!(
        r#"{{"embeddings": [[1, 2]], "tokens": ["a\"[{{"], "w_q": {}, "w_k": [[1]], "w_v": [[1]]}}"#,
        deep(300)
    );
    let message = Config::from_json(&page).unwrap_err().0;
    assert!(message.starts_with("w_q is nested more than 128 lists or objects deep"), "{message}");
    let python = format!(r#"{{"config": {page}, "flat": []}}"#);
    let (code, text, _) = call(ffi::av_compute, &python, &[]);
    assert_ne!(code, 0);
    assert_eq!(text, message);
    // An unknown key is quoted and cut as the core quotes names; the top level itself is "config".
    let odd = format!(r#"{{"x{}": {}}}"#, "y".repeat(100), deep(200));
    assert!(Config::from_json(&odd).unwrap_err().0.starts_with("\"xyyy"), "quoted");
    assert!(Config::from_json(&deep(200)).unwrap_err().0.starts_with("config is nested"));
    // Depths serde_json reads are judged by the fields' own rules.
    let fine = format!(r#"{{"embeddings": [[1]], "w_q": {}}}"#, deep(100));
    assert!(!Config::from_json(&fine).unwrap_err().0.contains("nested more than"));
}
