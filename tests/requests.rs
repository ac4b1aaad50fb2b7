//! The requests the shells send by name (src/requests.rs), read and answered natively: the browser's `call` and
//! Python's `av_*` are this dispatcher with their own values around it.

use attention_viz::config::Config;
use attention_viz::presets;
use attention_viz::requests::{kind_of, Answer, JobRequest, RandomRequest, Request, TrainerRequest};
use serde_json::{json, Value};
use std::borrow::Cow;

/// `request` (`{kind, …}`, as the browser sends it) answered with `data`.
fn ask(request: Value, data: &[f64]) -> Result<Answer, String> {
    let (kind, fields) = kind_of(request)?;
    Request::parse(&kind, fields)?.answer(Cow::Borrowed(data))
}

fn json_of(answer: Result<Answer, String>) -> Value {
    match answer {
        Ok(Answer::Json(v)) => v,
        _ => panic!("not a JSON answer"),
    }
}

fn text_of(answer: Result<Answer, String>) -> String {
    match answer {
        Ok(Answer::Text(t)) => t,
        Ok(_) => panic!("not a text answer"),
        Err(e) => panic!("refused: {e}"),
    }
}

fn seed(name: &str) -> String {
    presets::preset(name).unwrap().to_value().to_string()
}

#[test]
fn a_config_as_json_text_and_as_flat_matrices_is_the_same_config() {
    let text = seed("seed-001");
    let whole = json_of(ask(json!({"kind": "normalize", "config_json": text}), &[]));
    let mut rest = whole.clone();
    let embeddings = rest.as_object_mut().unwrap().remove("embeddings").unwrap();
    let rows: Vec<Vec<f64>> = serde_json::from_value(embeddings).unwrap();
    let data: Vec<f64> = rows.concat();
    let flat = json!([{"name": "embeddings", "shape": [rows.len(), rows[0].len()]}]);
    let from_flat = json_of(ask(json!({"kind": "normalize", "config": rest, "flat": flat}), &data));
    assert_eq!(from_flat, whole);
    assert_eq!(whole, Config::from_json(&text).unwrap().to_value());
    let check = ask(json!({"kind": "check", "config_json": text}), &[]);
    assert!(matches!(check, Ok(Answer::Text(ref m)) if m == "self"), "the mechanism's name");
}

#[test]
fn compute_answers_the_trace_and_its_followed_query() {
    let answer = ask(json!({"kind": "compute", "config_json": seed("seed-001")}), &[]).unwrap();
    let Answer::Trace { query, trace, .. } = answer else { panic!("not a trace") };
    assert_eq!(query, Config::from_json(&seed("seed-001")).unwrap().query);
    let scores = trace.field("scores").unwrap();
    assert_eq!(scores.data, &[8., 2., 10., 2., 4., 0., 4., 0., 12., 2., 14., 2., 10., 4., 14., 3.]);
}

#[test]
fn a_config_text_that_does_not_parse_says_so_as_config_from_json_does() {
    for bad in ["", "{", "[1e999]", "{\"embeddings\": [[1, 0], [1]]}"] {
        let want = Config::from_json(bad).unwrap_err().0;
        for kind in ["check", "normalize", "compute", "svg"] {
            let got = ask(json!({"kind": kind, "config_json": bad, "view": "weights"}), &[]).err();
            assert_eq!(got.as_deref(), Some(want.as_str()), "{kind} of {bad:?}");
        }
    }
}

#[test]
fn the_rest_of_a_flat_config_that_does_not_parse_is_left_to_the_whole_configs_message() {
    let flat = json!([{"name": "embeddings", "shape": [1, 1]}]);
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let answer = ask(json!({"kind": "compute", "config_json": deep, "flat": flat}), &[1.0]).unwrap();
    assert!(matches!(answer, Answer::Nothing));
    // Its declared shapes cannot be judged without it: nothing is refused, and the large worker does not take it.
    assert!(matches!(
        ask(json!({"kind": "check_declared", "config_json": deep, "flat": flat}), &[]),
        Ok(Answer::Nothing)
    ));
    assert!(matches!(
        ask(json!({"kind": "large_takes", "config_json": deep, "flat": flat}), &[]),
        Ok(Answer::Flag(false))
    ));
}

#[test]
fn declared_shapes_are_refused_before_any_value_is_read() {
    let flat = json!([{"name": "attention", "shape": [12, 12, 1024, 1024]}]);
    let got = ask(json!({"kind": "check_declared", "config": {"mechanism": "weights"}, "flat": flat}), &[]).err();
    assert_eq!(
        got.as_deref(),
        Some(
            "attention has 150994944 values (12 × 12 × 1024 × 1024); at most 8388608 are supported: pass fewer layers \
             or heads, or a shorter sentence"
        )
    );
    // A dimension past usize is usize::MAX, which every limit refuses (never wrapped into a small one).
    let huge = json!([{"name": "embeddings", "shape": [u64::MAX, 2]}]);
    assert!(ask(json!({"kind": "check_declared", "config": {}, "flat": huge}), &[]).is_err());
    let values_missing = json!([{"name": "embeddings", "shape": [2, 2]}]);
    let got = ask(json!({"kind": "check", "config": {}, "flat": values_missing}), &[1.0]).err().unwrap();
    assert!(got.starts_with("attention-viz internal error"), "{got}");
}

#[test]
fn texts_and_numbers() {
    let long = "9".repeat(100);
    assert_eq!(text_of(ask(json!({"kind": "text", "cut": long}), &[])), attention_viz::text::cut(&long));
    assert_eq!(text_of(ask(json!({"kind": "text", "quote": "a\"b"}), &[])), "\"a\\\"b\"");
    assert_eq!(
        text_of(ask(json!({"kind": "text", "closest": "wieghts", "among": ["weights", "scores"]}), &[])),
        "weights"
    );
    assert!(ask(json!({"kind": "text", "cut": "a", "quote": "b"}), &[]).is_err());
    // The element's own messages: a paste over the limit, a height it clamps (nothing to say when there is none).
    assert!(text_of(ask(json!({"kind": "paste_length", "length": 1_000_001}), &[]))
        .starts_with("the pasted text is 1,000,001"));
    assert!(matches!(ask(json!({"kind": "paste_length", "length": 10}), &[]), Ok(Answer::Nothing)));
    let note = ask(json!({"kind": "height_note", "text": "1e9", "value": 1e9}), &[]);
    assert_eq!(text_of(note), "height 1e9 is outside 40–4000 CSS pixels: the heatmaps are 4000 px high.");
    let note = ask(json!({"kind": "height_note", "text": "x", "value": "NaN"}), &[]);
    assert!(text_of(note).starts_with("height \"x\" is not a positive number"));
    let cell = ask(json!({"kind": "large_cell_text", "row": "a", "col": "b", "value": "-Infinity"}), &[]);
    assert_eq!(text_of(cell), "a, b: -inf");
    let third = f64::from(1.0f32 / 3.0);
    match ask(json!({"kind": "shortest", "dtype": "float32"}), &[third, 0.1f32 as f64]) {
        Ok(Answer::Numbers(v)) => assert_eq!(v, vec![0.33333334, 0.1]),
        _ => panic!("not numbers"),
    }
    let message = ask(json!({"kind": "large_message", "what": "view", "view": "q", "shown": ["weights"]}), &[]);
    assert_eq!(text_of(message), "a large figure exports the views it shows (weights): \"q\" is not one of them");
}

#[test]
fn facts_tasks_and_presets() {
    let facts = json_of(ask(json!({"kind": "facts"}), &[]));
    assert_eq!(facts["max_values"], json!(attention_viz::weights::MAX_VALUES));
    assert_eq!(facts["share_max_len"], json!(attention_viz::share::MAX_LEN));
    for name in presets::NAMES {
        assert_eq!(facts["presets"][name], presets::preset(name).unwrap().to_value());
    }
    let tasks = json_of(ask(json!({"kind": "tasks"}), &[]));
    assert_eq!(tasks[0]["name"], "reversal");
    assert!(tasks[0]["steps"].as_u64().unwrap() > 0);
    let example = json_of(ask(json!({"kind": "task_example", "task": "induction", "seed": 7}), &[]));
    assert!(!example.as_array().unwrap().is_empty());
    assert!(matches!(ask(json!({"kind": "task_example", "task": "nope", "seed": 7}), &[]), Ok(Answer::Nothing)));
    assert_eq!(json_of(ask(json!({"kind": "model_names"}), &[])), json!(["reversal", "induction"]));
}

#[test]
fn svg_and_options() {
    let svg = text_of(ask(json!({"kind": "svg", "config_json": seed("seed-001"), "view": "weights"}), &[]));
    assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
    let bad_fmt = ask(json!({"kind": "svg", "config_json": seed("seed-001"), "view": "weights", "fmt": "%%"}), &[]);
    assert!(bad_fmt.is_err());
    let bad_view = ask(json!({"kind": "svg", "config_json": seed("seed-001"), "view": "nope"}), &[]);
    assert!(bad_view.is_err());
    assert!(matches!(ask(json!({"kind": "options", "options": {"palette": "rocket"}}), &[]), Ok(Answer::Nothing)));
    let refused = ask(json!({"kind": "options", "options": {"palette": "rockett"}}), &[]).err().unwrap();
    assert!(refused.contains("is not a palette"), "{refused}");
}

#[test]
fn the_last_panics_message_is_given_once() {
    attention_viz::requests::keep_panic("it broke".into());
    assert_eq!(text_of(ask(json!({"kind": "last_panic"}), &[])), "it broke");
    assert!(matches!(ask(json!({"kind": "last_panic"}), &[]), Ok(Answer::Nothing)));
}

#[test]
fn a_bad_request_is_an_internal_error() {
    for request in [
        json!({"kind": "nope"}),
        json!({"kind": 3}),
        json!([]),
        json!({"kind": "paste_length", "length": "long"}),
        json!({"kind": "svg", "config_json": 5, "view": "q"}),
        json!({"kind": "shortest", "dtype": "float64"}),
    ] {
        let got = ask(request.clone(), &[]).err().unwrap_or_default();
        assert!(got.starts_with("attention-viz internal error"), "{request}: {got}");
    }
    assert!(JobRequest::parse(json!({"kind": "view", "name": "weights"})).is_err());
    assert!(matches!(TrainerRequest::parse(json!({"kind": "step", "n": 5})), Ok(TrainerRequest::Step(5))));
    assert!(
        matches!(RandomRequest::parse(json!({"kind": "rand", "count": "NaN"})), Ok(RandomRequest::Rand(x)) if x.is_nan())
    );
}

/// compute()'s `fields`: the trace on request. The layout the shells write lists the fields `wanted` names; the core
/// skips what only unwanted fields need (the naive weights, the query's breakdown, the decode step, the tiles) and
/// gives the wanted ones the full trace's bits.
mod wanted {
    use super::*;
    use attention_viz::attention::{compute, Trace, Wanted, TRACE_FIELDS};

    fn computed(config: Value, fields: Value) -> (Trace, Wanted) {
        match ask(json!({"kind": "compute", "config_json": config.to_string(), "fields": fields}), &[]) {
            Ok(Answer::Trace { trace, wanted, .. }) => (trace, wanted),
            Ok(_) => panic!("not a trace"),
            Err(e) => panic!("refused: {e}"),
        }
    }

    fn modern() -> Value {
        let mut c = presets::preset("seed-001").unwrap().to_value();
        for (k, v) in [("mask", json!("causal")), ("decode_step", json!(2)), ("tiles", json!([2, 2]))] {
            c[k] = v;
        }
        c
    }

    #[test]
    fn absent_fields_are_every_field_and_the_full_trace() {
        let (trace, wanted) = computed(modern(), Value::Null);
        assert_eq!(wanted, Wanted::ALL);
        let config = Config::from_json(&modern().to_string()).unwrap();
        assert_eq!(trace, compute(&config).unwrap());
        assert!(TRACE_FIELDS.iter().all(|(name, _)| wanted.wants(name)));
    }

    #[test]
    fn the_wanted_fields_have_the_full_traces_bits_and_the_costly_rest_is_skipped() {
        let config = Config::from_json(&modern().to_string()).unwrap();
        let full = compute(&config).unwrap();
        let (trace, wanted) = computed(modern(), json!(["weights", "context"]));
        for name in ["weights", "context"] {
            assert!(wanted.field(name));
            assert_eq!(trace.field(name), full.field(name), "{name}");
        }
        for name in ["naive_weights", "query.exp", "heads.0.scores", "decode.weights", "flash.tiles", "q"] {
            assert!(!wanted.field(name), "{name}");
        }
        let Trace::SelfAttention(t) = &trace else { panic!("self-attention") };
        assert_eq!(t.naive_weights.rows(), 0, "naive weights skipped");
        assert_eq!(t.scores.rows(), 0, "the scores scaled in place");
        assert!(t.query.exp.is_empty() && t.query.terms.rows() == 0, "no breakdown");
        assert!(t.decode.is_none() && t.flash.is_none(), "no decode step, no tiles");
        // Each costly field, wanted alone, is the full trace's.
        for (name, costly) in TRACE_FIELDS {
            let (one, wanted) = computed(modern(), json!([name]));
            let got: Vec<_> = one.fields().into_iter().filter(|f| wanted.field(&f.name)).collect();
            let want: Vec<_> = full.fields().into_iter().filter(|f| f.name.split('.').next() == Some(name)).collect();
            assert_eq!(got, want, "{name} (computed only when wanted: {costly})");
            assert_eq!(one.flash().is_some(), *name == "flash", "{name}");
        }
    }

    #[test]
    fn a_cross_trace_skips_its_naive_weights() {
        let c = presets::preset("seed-003").unwrap().to_value();
        let (trace, _) = computed(c, json!(["weights"]));
        let Trace::Cross(t) = trace else { panic!("cross") };
        assert!(t.naive_weights.is_empty() && !t.weights.is_empty());
    }

    #[test]
    fn bad_fields_get_the_message_that_names_them() {
        let refused = |fields: Value| match ask(
            json!({"kind": "compute", "config_json": seed("seed-000"), "fields": fields}),
            &[],
        ) {
            Err(e) => e,
            Ok(_) => panic!("not refused"),
        };
        assert_eq!(
            refused(json!("weights")),
            "compute: options.fields must be a list of trace field names such as [\"weights\", \"context\"], got \"weights\""
        );
        assert_eq!(
            refused(json!({"weights": true})),
            "compute: options.fields must be a list of trace field names such as [\"weights\", \"context\"], got {\"weights\":true}"
        );
        let unknown = refused(json!(["weights", "wieghts"]));
        assert!(unknown.starts_with("compute: options.fields: a trace has no field \"wieghts\" (did you mean \"weights\"?); its fields are q, k, v, scores, scaled, capped, weights, naive_weights, context,"), "{unknown}");
        assert!(!refused(json!(["nothing like it"])).contains("did you mean"));
        let model = json!({"mechanism": "model", "model": "reversal", "input": [1]}).to_string();
        let Err(e) = Request::parse(
            "compute_model",
            kind_of(json!({"kind": "compute_model", "config_json": model, "fields": ["layers"]})).unwrap().1,
        ) else {
            panic!("a model's fields not refused")
        };
        assert!(e.starts_with("compute: options.fields picks the fields of an attention trace"), "{e}");
    }
}

#[test]
fn a_palette_name_is_checked_as_the_heatmaps_read_it() {
    assert!(matches!(ask(json!({"kind": "palette", "name": "mako"}), &[]), Ok(Answer::Nothing)));
    assert!(matches!(ask(json!({"kind": "palette", "name": "light:#2a9d8f_r"}), &[]), Ok(Answer::Nothing)));
    let got = ask(json!({"kind": "palette", "name": "makoo"}), &[]).err().unwrap();
    assert!(got.starts_with("palette \"makoo\" is not a palette"), "{got}");
}
