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
fn a_trained_models_config_points_to_compute() {
    let e = Config::from_json(r#"{"mechanism": "model", "model": "reversal", "input": [3, 1, 4, 1, 5, 9]}"#)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("mechanism \"model\" runs a trained model: compute() and <attention-viz> take it"), "{e}");
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

/// A JSON config of `n` × `d` embeddings (values 0.5), with `d` × `dk`/`dv` projections if given.
fn sized(n: usize, d: usize, proj: Option<(usize, usize)>) -> Value {
    let m = |r: usize, c: usize| Value::Array((0..r).map(|_| serde_json::json!(vec![0.5; c])).collect());
    let mut obj = serde_json::json!({"embeddings": m(n, d)});
    if let Some((dk, dv)) = proj {
        obj["w_q"] = m(d, dk);
        obj["w_k"] = m(d, dk);
        obj["w_v"] = m(d, dv);
    }
    obj
}

/// The work of a config is bounded by its cost (multiply-adds plus the softmax's n² work), not
/// only by its row and column counts (4096² · (2 · 1024 + 100) = 3.6e10 for the second below):
/// 4096 tokens × d_model 1 with d_k = d_v = 1024 (a 30 KB
/// share link) froze a tab for 44 s, 4096 × 1024 without projections for 58 s.
#[test]
fn configs_that_cost_too_much_are_refused_by_every_path() {
    use attention_viz::config::MAX_COST;
    let e = Config::from_value(&sized(4096, 1, Some((1024, 1024)))).unwrap_err().to_string();
    assert!(e.contains("multiply-adds") && e.contains("4096 tokens") && e.contains("the limit is"), "{e}");
    assert!(e.contains(&format!("{MAX_COST:.1e}")), "{e}");
    let e = Config::from_value(&sized(4096, 1024, None)).unwrap_err().to_string();
    assert!(e.contains("3.6e10 multiply-adds (4096 tokens × 1024 dimensions)"), "{e}");
    // The flat path (the matrices sent as f64s) runs the same checks.
    let data = vec![0.5; 4096 * 1024];
    let flat = attention_viz::config::Flat::new(4096, 1024, &data).unwrap();
    let e = Config::from_parts(&serde_json::json!({}), &[("embeddings", flat)]).unwrap_err().to_string();
    assert!(e.contains("multiply-adds"), "{e}");
    // Share links: a state whose config was built around the checks (its fields are public).
    let m = |r, c| attention_viz::math::Matrix::from_vec(r, c, vec![0.5; r * c]).unwrap();
    let projections = attention_viz::config::Projections { w_q: m(1, 1024), w_k: m(1, 1024), w_v: m(1, 1024) };
    let config = Config {
        mechanism: Mechanism::SelfAttention { embeddings: m(4096, 1), projections: Some(projections) },
        tokens: vec!["t".into(); 4096],
        scale: Scale::SqrtDk,
        query: 0,
        options: Default::default(),
    };
    let link = attention_viz::share::encode(&attention_viz::share::State { config, naive: false, random: None });
    let e = attention_viz::share::decode(&link).unwrap_err();
    assert!(e.contains("multiply-adds"), "{e}");
    // The benchmarks' shapes stay allowed: n = 512 and n = 1024 with d = 64 (and d_k = d_v = 64).
    for n in [512, 1024] {
        Config::from_value(&sized(n, 64, Some((64, 64)))).unwrap();
        Config::from_value(&sized(n, 64, None)).unwrap();
    }
    // Edits that grow a config go through the bound: one token or dimension more is refused
    // once the cost passes it, with the same message.
    let near = Config::from_value(&sized(1700, 1, None)).unwrap();
    let mut grown = near.clone();
    let e = loop {
        match grown.insert_token(0, "x") {
            Ok(c) => grown = c,
            Err(e) => break e.to_string(),
        }
        assert!(grown.len() < 4096, "insert_token never refused");
    };
    assert!(e.contains("multiply-adds") && e.contains("tokens"), "{e}");
    let wide = Config::from_value(&sized(1024, 64, None)).unwrap();
    let mut grown = wide;
    let e = loop {
        match grown.insert_dim(0) {
            Ok(c) => grown = c,
            Err(e) => break e.to_string(),
        }
        assert!(grown.dims() < 1024, "insert_dim never refused");
    };
    assert!(e.contains("multiply-adds"), "{e}");
}

/// Every message that quotes user input quotes it escaped and cut to 40 characters: a
/// 100,000-character token or field name, or a 100,000-digit number string, gives a message
/// under 400 characters wherever it is refused (the longest, an unknown field's, lists the 30 known ones).
#[test]
fn messages_quote_long_input_cut_short() {
    use attention_viz::heatmap::draw::Contrast;
    use attention_viz::heatmap::format::Fmt;
    let long = "x".repeat(100_000);
    let digits = "9".repeat(100_000);
    let mut messages: Vec<String> = Vec::new();
    for bad in [&long, &digits] {
        let s = serde_json::json!(bad);
        for config in [
            serde_json::json!({"embeddings": [[1]], bad.as_str(): 1}),
            serde_json::json!({"embeddings": [[s]]}),
            serde_json::json!({"embeddings": [[1]], "tokens": [1, s]}),
            serde_json::json!({"embeddings": [[1]], "tokens": [[s]]}),
            serde_json::json!({"embeddings": [[1]], "scale": s}),
            serde_json::json!({"embeddings": [[1]], "query": s}),
            serde_json::json!({"embeddings": [[1]], "mechanism": s}),
            serde_json::json!({"decoder_state": [s], "annotations": [[1]]}),
        ] {
            messages.push(Config::from_value(&config).unwrap_err().to_string());
        }
        let c = preset("seed-001").unwrap();
        messages.push(c.with_value(bad, 0, 0, 1.0).unwrap_err().to_string());
        messages.push(attention_viz::edits::Distribution::parse(bad, 1.0).unwrap_err().to_string());
        messages
            .push(attention_viz::views::view(&c, &attention_viz::attention::compute(&c).unwrap(), bad).unwrap_err());
        messages.push(Fmt::parse(&format!(".{bad}g")).unwrap_err());
        messages.push(Fmt::parse(bad).unwrap_err());
        messages.push(Contrast::parse(bad).unwrap_err());
    }
    // A JSON number of 100,000 digits (not a string) is too large for float64.
    messages.push(Config::from_json(&format!(r#"{{"embeddings": [[{digits}]]}}"#)).unwrap_err().to_string());
    for m in &messages {
        assert!(
            m.chars().count() < 400,
            "{} characters: {}…",
            m.chars().count(),
            m.chars().take(120).collect::<String>()
        );
    }
}

/// README.md's config table ("### Config"): one row per field, in its first column, each once.
fn documented_fields() -> Vec<String> {
    let readme = include_str!("../README.md");
    let section = readme.split("\n### Config\n").nth(1).expect("README.md has a ### Config section");
    let section = section.split("\n### ").next().unwrap();
    section.lines().filter_map(|l| l.strip_prefix("| `")).map(|l| l.split('`').next().unwrap().to_string()).collect()
}

#[test]
fn the_readme_config_table_documents_every_field_once() {
    let documented = documented_fields();
    let mut seen = std::collections::BTreeSet::new();
    for f in &documented {
        assert!(seen.insert(f.clone()), "README's config table has {f} twice");
    }
    // mechanism "model" is read by learn::read_request, not by Config: its fields are learn::MODEL_FIELDS.
    let model_fields = attention_viz::learn::MODEL_FIELDS;
    let mut want: std::collections::BTreeSet<String> =
        attention_viz::config::FIELDS.iter().map(|f| f.to_string()).collect();
    want.extend(model_fields.iter().map(|f| f.to_string()));
    assert_eq!(seen, want, "README's config table (left) and the fields the core accepts (right)");
}

/// compute()'s JS side asks the core about the shapes a config declares before it copies anything (an 8,000,000 × 1
/// list used to be refused only after seconds of flattening): the same message as the full validation, from the shapes
/// alone.
#[test]
fn declared_shapes_are_refused_with_the_full_validations_words() {
    use attention_viz::config::check_declared_shapes;
    let rows = |n: usize, d: usize| serde_json::Value::Array((0..n).map(|_| serde_json::json!(vec![0.5; d])).collect());
    let cases = [
        (serde_json::json!({ "embeddings": rows(5000, 1) }), vec![("embeddings", vec![5000, 1])]),
        (serde_json::json!({ "embeddings": rows(3, 2000) }), vec![("embeddings", vec![3, 2000])]),
        (serde_json::json!({ "embeddings": rows(3, 5000) }), vec![("embeddings", vec![3, 5000])]),
        (serde_json::json!({ "embeddings": rows(2000, 4) }), vec![("embeddings", vec![2000, 4])]),
        (
            serde_json::json!({ "embeddings": rows(1000, 8), "w_q": rows(8, 64), "w_k": rows(8, 64), "w_v": rows(8, 64), "heads": 8 }),
            vec![("embeddings", vec![1000, 8]), ("w_q", vec![8, 64]), ("w_k", vec![8, 64]), ("w_v", vec![8, 64])],
        ),
        (
            serde_json::json!({ "decoder_state": vec![1.0; 1024], "annotations": rows(300, 1024), "scoring": "additive",
                                "w_a": rows(1024, 1024), "u_a": rows(1024, 1024), "v_a": vec![1.0; 1024] }),
            vec![
                ("decoder_state", vec![1024]),
                ("annotations", vec![300, 1024]),
                ("w_a", vec![1024, 1024]),
                ("u_a", vec![1024, 1024]),
            ],
        ),
    ];
    for (config, shapes) in cases {
        let full = Config::from_value(&config).unwrap_err().0;
        let mut rest = config.clone();
        for (name, _) in &shapes {
            rest.as_object_mut().unwrap().remove(*name);
        }
        let declared = check_declared_shapes(&rest, &shapes).unwrap_err().0;
        assert_eq!(declared, full, "{shapes:?}");
    }
    // 8,000,000 rows: refused from the shape alone, in the words of a 5,000-row list.
    let e = check_declared_shapes(&serde_json::json!({}), &[("embeddings", vec![8_000_000, 1])]).unwrap_err().0;
    assert_eq!(e, "embeddings has 8000000 rows; at most 4096 are supported");
    // What the shapes do not settle is left to the full validation.
    assert!(check_declared_shapes(&serde_json::json!({}), &[("embeddings", vec![3, 4])]).is_ok());
    assert!(check_declared_shapes(&serde_json::json!({"mechanism": "cross"}), &[("embeddings", vec![4000, 4])]).is_ok());
}

/// A list longer than any a config holds outside its matrices (`MAX_LIST`) is sent by the shells as its length alone
/// (`{"$list_length": N}`): every field's parser reads that stand-in as a list of N items, so the config is refused in
/// the very words the list gets, at the same point of the validation (another fault before it still comes first).
/// A shorter length, or a second key, is no stand-in: an object like any other.
#[test]
fn a_long_lists_stand_in_is_refused_in_the_lists_own_words() {
    use attention_viz::config::{long_list, LIST_LENGTH, MAX_LIST};
    use serde_json::json;
    let n = MAX_LIST + 1;
    let list = Value::Array(vec![json!(1); n]);
    let stand_in = json!({ LIST_LENGTH: n });
    assert_eq!(long_list(&stand_in), Some(n));
    let seed = |name: &str| preset(name).unwrap().to_value();
    let with = |base: Value, extra: Value| {
        let mut c = base;
        c.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        c
    };
    let heads = json!({"heads": 2, "w_q": [[1, 0], [0, 1], [1, 1]], "w_k": [[1, 0], [0, 1], [1, 1]],
                       "w_v": [[1, 0], [0, 1], [1, 1]], "embeddings": [[1, 0, 0], [0, 1, 0]]});
    let additive = json!({"scoring": "additive", "w_a": [[1], [1], [1]], "u_a": [[1], [1], [1]]});
    let weights = json!({"attention": [[0.5, 0.5], [1, 0]]});
    // Each case: a base config and the fields to add, `L` where the long list goes.
    let cases = [
        (seed("seed-001"), json!({"sinks": "L"})),
        (seed("seed-001"), json!({"window": "L"})),
        (seed("seed-001"), json!({"window": ["L", 0]})),
        (seed("seed-001"), json!({"tiles": "L"})),
        (seed("seed-001"), json!({"tiles": [1, "L"]})),
        (seed("seed-001"), json!({"position": "L"})),
        (seed("seed-001"), json!({"position": {"kind": "alibi", "slopes": "L"}})),
        (seed("seed-001"), json!({"position": {"kind": "rope", "base": "L"}})),
        (seed("seed-001"), json!({"position": {"kind": "L"}})),
        (seed("seed-001"), json!({"mask": "causal", "decode_step": "L"})),
        (seed("seed-001"), json!({"kv_heads": "L"})),
        (heads.clone(), json!({"kv_heads": "L"})),
        (seed("seed-001"), json!({"heads": "L"})),
        (seed("seed-001"), json!({"head": "L"})),
        (seed("seed-001"), json!({"valid_lens": "L"})),
        (seed("seed-001"), json!({"valid_lens": [1, "L", 1, 1]})),
        (seed("seed-001"), json!({"tokens": "L"})),
        (seed("seed-001"), json!({"tokens": ["a", "b", "L", "d"]})),
        (seed("seed-001"), json!({"query": "L", "scale": "L"})),
        (seed("seed-001"), json!({"scale": "L"})),
        (seed("seed-001"), json!({"temperature": "L"})),
        (seed("seed-001"), json!({"masked_row": "L"})),
        (seed("seed-001"), json!({"scoring": "L"})),
        (seed("seed-001"), json!({"mechanism": "L"})),
        (seed("seed-001"), json!({"mask": "L"})),
        (seed("seed-001"), json!({"mask": [[1, 1, 1, 1], "L", [1, 1, 1, 1], [1, 1, 1, 1]]})),
        (seed("seed-001"), json!({"mask": [[1, 1, 1, 1], [1, "L", 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]]})),
        (seed("seed-001"), json!({"embeddings": [[1, 0, 0], [0, 1]], "sinks": "L"})),
        (seed("seed-003"), json!({"mask": "L"})),
        (seed("seed-003"), json!({"decoder_state": "L"})),
        (seed("seed-003"), json!({"valid_lens": "L"})),
        (seed("seed-003"), json!({"sinks": "L"})),
        (with(seed("seed-003"), additive.clone()), json!({"v_a": "L"})),
        (with(seed("seed-003"), additive), json!({"v_a": [0, "L"]})),
        (weights.clone(), json!({"tokens": "L"})),
        (weights.clone(), json!({"key_tokens": "L"})),
        (weights.clone(), json!({"layer": "L"})),
        (weights, json!({"query": "L"})),
    ];
    fn put(value: &Value, long: &Value) -> Value {
        match value {
            Value::String(s) if s == "L" => long.clone(),
            Value::Array(items) => Value::Array(items.iter().map(|v| put(v, long)).collect()),
            Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), put(v, long))).collect()),
            other => other.clone(),
        }
    }
    for (base, extra) in cases {
        let said = |long: &Value| Config::from_value(&with(base.clone(), put(&extra, long))).unwrap_err().0;
        let (whole, short) = (said(&list), said(&stand_in));
        assert_eq!(short, whole, "{extra}");
        // Each case's message is the long list's but two: another fault first, a field the mechanism has not.
        let other_first = whole.starts_with("embeddings row 1") || whole.contains("belongs to self-attention");
        assert!(whole.contains(&n.to_string()) != other_first, "{extra}: {whole}");
    }
    // Not a stand-in: a length a list of the config may have, another key beside it.
    for other in [json!({ LIST_LENGTH: MAX_LIST }), json!({ LIST_LENGTH: n, "x": 1 }), json!({ LIST_LENGTH: "4097" })] {
        assert_eq!(long_list(&other), None);
        let e = Config::from_value(&with(seed("seed-001"), json!({ "sinks": other }))).unwrap_err().0;
        assert!(e.ends_with("got an object"), "{e}");
    }
}

/// A config without `mechanism` holding a model's weights (`attention`) and cross-attention's fields is refused in
/// the same words by every path that reads it (the full validation, its flat fast path, the declared shapes): which
/// one it shows is the reader's to say, never an order of checks.
#[test]
fn weights_and_cross_fields_without_a_mechanism_are_refused_alike_by_every_path() {
    use attention_viz::config::{check_declared_shapes, Flat};
    use serde_json::json;
    let want = "attention (mechanism \"weights\") and annotations (mechanism \"cross\") are both given: set mechanism \
                to the one the figure shows";
    let config = json!({"attention": [[1.0, 0.0], [0.5, 0.5]], "annotations": [[1.0, 2.0], [3.0, 4.0]], "decoder_state": [1.0, 0.0]});
    assert_eq!(Config::from_value(&config).unwrap_err().0, want);
    let rest = json!({"attention": [[1.0, 0.0], [0.5, 0.5]], "decoder_state": [1.0, 0.0]});
    let data = [1.0, 2.0, 3.0, 4.0];
    let flat = [("annotations", Flat::new(2, 2, &data).unwrap())];
    assert_eq!(Config::from_parts(&rest, &flat).unwrap_err().0, want);
    let shapes = [("attention", vec![2, 2]), ("annotations", vec![2, 2]), ("decoder_state", vec![2])];
    assert_eq!(check_declared_shapes(&json!({}), &shapes).unwrap_err().0, want);
    // decoder_state alone beside attention is named the same way.
    let config = json!({"attention": [[1.0]], "decoder_state": [1.0]});
    let want = want.replace("annotations", "decoder_state");
    assert_eq!(Config::from_value(&config).unwrap_err().0, want);
    assert_eq!(
        check_declared_shapes(&json!({}), &[("attention", vec![1, 1]), ("decoder_state", vec![1])]).unwrap_err().0,
        want
    );
    // Named, each mechanism is judged by its own fields.
    let named = json!({"mechanism": "cross", "annotations": [[1.0, 2.0]], "decoder_state": [1.0, 0.0]});
    assert!(Config::from_value(&named).is_ok());
    assert!(check_declared_shapes(&json!({"mechanism": "weights"}), &shapes).is_ok());
}

/// `Config::from_parts` (compute()'s fast path: the clean matrices sent flat) equals `Config::from_value`.
mod from_parts {
    use attention_viz::config::{Config, Flat, MATRICES};
    use attention_viz::math::Matrix;
    use serde_json::{json, Value};

    /// `value` with its clean matrices taken out, as compute()'s fast path sends it; `None` if none is clean.
    fn split(value: &Value) -> Option<(Value, Vec<(&'static str, Matrix)>)> {
        let mut rest = value.as_object()?.clone();
        let mut flat = vec![];
        for &name in MATRICES {
            let Some(Value::Array(rows)) = rest.get(name) else { continue };
            let cols = rows.first().and_then(Value::as_array).map_or(0, Vec::len);
            let data: Option<Vec<f64>> = rows
                .iter()
                .map(|r| r.as_array().filter(|r| r.len() == cols && cols > 0))
                .collect::<Option<Vec<_>>>()
                .and_then(|rows| rows.iter().flat_map(|r| r.iter().map(Value::as_f64)).collect());
            if let Some(data) = data.filter(|d| d.iter().all(|x| x.is_finite())) {
                flat.push((name, Matrix::from_vec(rows.len(), cols, data)?));
                rest.remove(name);
            }
        }
        (!flat.is_empty()).then_some((Value::Object(rest), flat))
    }

    #[test]
    fn from_parts_gives_from_values_config_or_message() {
        let fixture: Value = serde_json::from_str(include_str!("fixtures/malformed-configs.json")).unwrap();
        let mut configs: Vec<Value> =
            fixture["cases"].as_array().unwrap().iter().map(|c| c["config"].clone()).collect();
        configs.extend(
            attention_viz::presets::NAMES.iter().map(|n| attention_viz::presets::preset(n).unwrap().to_value()),
        );
        configs.push(json!({"embeddings": [[1.5, -2], [0, 3]], "w_q": [[1], [2]], "w_k": [[1], [2]], "w_v": [[1, 2, 3], [4, 5, 6]]}));
        configs.push(json!({"embeddings": [[1, 2]], "w_q": [[1], [2], [3]], "w_k": [[1], [2]], "w_v": [[1], [2]]}));
        configs.push(json!({"decoder_state": [1, 2], "annotations": [[1, 2, 3]], "tokens": ["a"]}));
        let mut split_count = 0;
        for config in &configs {
            let Some((rest, flat)) = split(config) else { continue };
            split_count += 1;
            let flat: Vec<(&str, Flat)> =
                flat.iter().map(|(name, m)| (*name, Flat::new(m.rows(), m.cols(), m.data()).unwrap())).collect();
            assert_eq!(Config::from_parts(&rest, &flat), Config::from_value(config), "{config}");
        }
        assert!(split_count >= 30, "{split_count} configs with clean matrices");
    }

    #[test]
    fn flat_needs_its_shape_and_finite_values() {
        assert!(Flat::new(2, 2, &[1.0, 2.0, 3.0]).is_none());
        assert!(Flat::new(1, 2, &[1.0, f64::NAN]).is_none());
        assert!(Flat::new(usize::MAX, 2, &[]).is_none());
        let flat = [("tokens", Flat::new(1, 1, &[1.0]).unwrap())];
        assert!(Config::from_parts(&json!({}), &flat).unwrap_err().0.contains("cannot be sent flat"));
    }
}
