//! Planning an import: routing by name, the inputs a figure cannot take, fitting each array, the shapes that
//! disagree and the seeded resize, the token fields and every message, word for word as the element said them when
//! it planned imports in JS: tests/fixtures/import-plan.json is the record of that planner's answers, and the cases
//! below take their expected messages from it (a grouped-query figure's excepted: the JS read its W_K and W_O wrong).
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::config::{Config, INPUTS, VECTORS};
use attention_viz::import::{
    fit_array, fix_fields, input_name, not_here, plan_import, refused, token_fields, Array, Dialog, Found, Import,
};
use serde_json::{json, Value};

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/import-plan.json")).unwrap()
}

/// A fixture's array: its shape and values, NaN and ±∞ written as strings.
fn array_of(v: &Value) -> Array {
    let shape = v["shape"].as_array().unwrap().iter().map(|s| s.as_u64().unwrap() as usize).collect();
    let values = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| match x {
            Value::String(s) if s == "NaN" => f64::NAN,
            Value::String(s) if s == "Infinity" => f64::INFINITY,
            Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
            x => x.as_f64().unwrap(),
        })
        .collect();
    Array::new(shape, values).unwrap()
}

/// JSON equal as JavaScript reads it: numbers by value (1 and 1.0 alike), the rest exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn config(value: Value) -> Config {
    Config::from_value(&value).unwrap()
}

fn rows(r: usize, c: usize) -> Array {
    Array::new(vec![r, c], (0..r * c).map(|k| k as f64 + 1.0).collect()).unwrap()
}

fn file(member: &str, array: Array) -> Found {
    Found { member: member.into(), named: false, array }
}

fn member(name: &str, array: Array) -> Found {
    Found { member: name.into(), named: true, array }
}

/// What the reader sees of an import: the refusal, or the dialog (if any) and the applied fields and message.
fn outcome(
    c: &Config,
    found: Vec<Found>,
    target: Option<&str>,
    source: &str,
) -> Result<(Option<Dialog>, Value, String), String> {
    let (import, dialog) = Import::new(c, found, target, source)?;
    let applied = import.apply(c)?;
    Ok((dialog, applied.fields, applied.message))
}

#[test]
fn every_case_of_the_js_planners_table_gets_its_answer_word_for_word() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() > 70, "the table is there");
    for (i, case) in cases.iter().enumerate() {
        // The JS planner read W_K's and W_O's shapes as if every head had its own keys: a grouped figure's answers
        // are the core's own (`grouped_query_heads_keep_w_k_w_v_and_w_o_as_the_config_shapes_them`).
        if case["config"] == "gqa" {
            continue;
        }
        let c = config(fixture["configs"][case["config"].as_str().unwrap()].clone());
        let found = case["found"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| Found {
                member: f["member"].as_str().unwrap().into(),
                named: f["named"].as_bool().unwrap(),
                array: array_of(&f["array"]),
            })
            .collect();
        let target = case["target"].as_str();
        let source = case["source"].as_str().unwrap();
        let what = format!("case {i} ({} into {}, from {source})", case["config"], target.unwrap_or("the figure"));
        let said = case["say"].as_str().unwrap();
        let dialog = case["dialog"].as_object().map(|d| Dialog {
            title: d["title"].as_str().unwrap().into(),
            what: d["what"].as_str().unwrap().into(),
            fix: d["fix"].as_str().unwrap().into(),
            resize: d["resize"].as_str().unwrap().into(),
        });
        match Import::new(&c, found, target, source) {
            Err(message) => {
                assert!(case["error"].as_bool().unwrap(), "{what}: refused with {message:?}, JS imported: {said:?}");
                assert_eq!(dialog, None, "{what}: JS asked first");
                assert_eq!(message, said, "{what}");
            }
            Ok((import, got)) => {
                assert_eq!(got, dialog, "{what}: the dialog");
                match import.apply(&c) {
                    Err(message) => {
                        assert!(case["error"].as_bool().unwrap(), "{what}: refused with {message:?}");
                        assert_eq!(message, said, "{what}");
                    }
                    Ok(applied) => {
                        assert!(!case["error"].as_bool().unwrap(), "{what}: JS refused: {said:?}");
                        assert_eq!(applied.message, said, "{what}");
                        assert!(
                            same(&applied.fields, &case["fields"]),
                            "{what}: {} vs {}",
                            applied.fields,
                            case["fields"]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn plan_import_gives_the_js_plan_and_passes_over_names_that_are_no_input() {
    let fixture = fixture();
    for (i, p) in fixture["plans"].as_array().unwrap().iter().enumerate() {
        let c = config(fixture["configs"][p["config"].as_str().unwrap()].clone());
        let arrays: Vec<(String, Array)> = p["incoming"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e[0].as_str().unwrap().to_string(), array_of(&e[1])))
            .collect();
        let incoming: Vec<(&str, &Array)> = arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
        let plan = plan_import(&c, &incoming).unwrap();
        let values: Vec<Value> = plan.values.iter().map(|(n, a)| json!([n, a.shape()])).collect();
        let resize: Vec<Value> = plan.resize.iter().map(|(n, s)| json!([n, s])).collect();
        assert_eq!(Value::from(values), p["values"], "plan {i}");
        assert_eq!(Value::from(resize), p["resize"], "plan {i}");
        assert_eq!(json!(plan.disagree), p["disagree"], "plan {i}");
        assert_eq!(json!([plan.tokens.0, plan.tokens.1]), p["tokens"], "plan {i}");
    }
}

/// The configs the fixture's table imports into, and the four seed documents.
fn figures() -> Vec<(String, Config)> {
    let fixture = fixture();
    let mut out: Vec<(String, Config)> =
        fixture["configs"].as_object().unwrap().iter().map(|(name, c)| (name.clone(), config(c.clone()))).collect();
    for name in attention_viz::presets::NAMES {
        out.push((name.to_string(), attention_viz::presets::preset(name).unwrap()));
    }
    out
}

/// Input `name` of `c` as an array.
fn input_of(c: &Config, name: &str) -> Array {
    let numbers = |v: &Value| v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect::<Vec<_>>();
    let value = &c.to_value()[name];
    match VECTORS.contains(&name) {
        true => Array::vector(&numbers(value)),
        false => Array::rows(&value.as_array().unwrap().iter().map(numbers).collect::<Vec<_>>()).unwrap(),
    }
}

#[test]
fn an_input_imported_as_it_is_changes_nothing() {
    // A figure with kv_heads is left out: the plan gives W_K as many columns as W_Q, as the element's planner does,
    // where the core wants kv_heads × d_k.
    for (figure, c) in figures().into_iter().filter(|(_, c)| c.options.kv_heads.is_none()) {
        for name in INPUTS.iter().filter(|n| c.input_shape(n).is_some()) {
            let what = format!("{name} of {figure}");
            let (dialog, fields, message) =
                outcome(&c, vec![file("x.npy", input_of(&c, name))], Some(name), "x.npy").expect(&what);
            assert_eq!(dialog, None, "{what}");
            assert_eq!(fields.as_object().unwrap().len(), 1, "{what}: only the input itself");
            assert!(message.starts_with("Imported ") && message.ends_with(" from x.npy."), "{what}: {message}");
            assert_eq!(c.with_fields(&fields).unwrap(), c, "{what}");
        }
    }
}

/// The import's shape rules are the core's: every resize it plans gives a config the core takes (a refusal is said
/// before anything changes). A figure with kv_heads is left out, as above.
#[test]
fn every_resize_the_plan_makes_gives_a_config_the_core_takes() {
    let mut resized = 0;
    for (figure, c) in figures().into_iter().filter(|(_, c)| c.options.kv_heads.is_none()) {
        for name in INPUTS.iter().filter(|n| c.input_shape(n).is_some()) {
            let shape = c.input_shape(name).unwrap();
            for axis in 0..shape.len() {
                let mut wider = shape.clone();
                wider[axis] += 2;
                let count = wider.iter().product();
                let array = Array::new(wider.clone(), (0..count).map(|k| k as f64 / 7.0).collect()).unwrap();
                let what = format!("{name} of {figure} as {wider:?}");
                let Ok((dialog, fields, _)) = outcome(&c, vec![file("x.npy", array)], Some(name), "x.npy") else {
                    continue;
                };
                resized += usize::from(dialog.is_some());
                if let Err(e) = c.with_fields(&fields) {
                    panic!("{what}: the core refuses {fields}: {e}");
                }
            }
        }
    }
    assert!(resized > 20, "{resized} imports resized other inputs");
}

#[test]
fn one_array_goes_to_its_grid_unless_a_npz_names_another_input() {
    let c = config(json!({"embeddings": [[1, 2], [3, 4]], "w_q": [[1], [2]], "w_k": [[1], [2]], "w_v": [[1], [2]]}));
    let wq = |source: &str, f: Found| outcome(&c, vec![f], Some("embeddings"), source).unwrap().2;
    assert_eq!(wq("w_q.npy", file("w_q.npy", rows(2, 2))), "Imported embeddings (2 × 2) from w_q.npy.");
    assert_eq!(wq("a.npz", member("other", rows(2, 2))), "Imported embeddings (2 × 2) from a.npz.");
    assert_eq!(wq("a.npz", member("W_Q", rows(2, 1))), "Imported W_Q (2 × 1) from a.npz.");
    // An empty target is none (dropped above the grids).
    assert_eq!(
        outcome(&c, vec![file("w_v.npy", rows(2, 1))], Some(""), "w_v.npy").unwrap().2,
        "Imported W_V (2 × 1) from w_v.npy."
    );
    // Several arrays go by name; a later one of the same name replaces an earlier one.
    let got = outcome(
        &c,
        vec![file("W_K.npy", rows(2, 3)), file("x.txt", rows(1, 1)), file("w-k.csv", rows(2, 1))],
        Some("embeddings"),
        "files",
    );
    assert_eq!(got.unwrap().2, "Imported W_K (2 × 1) from files; ignored: x.txt.");
    for (target, why) in [
        (Some("w_q"), "drop one array on W_Q, or a .npz of arrays named after the inputs"),
        (None, "drop a file on the grid it is for, or a .npz of arrays named after the inputs"),
    ] {
        let got = outcome(&c, vec![file("a.txt", rows(1, 1)), file("b.txt", rows(1, 1))], target, "a.txt, b.txt");
        assert_eq!(
            got.unwrap_err(),
            format!("a.txt, b.txt: no array named after an input of this figure (embeddings, w_q, w_k, w_v); {why}")
        );
    }
}

#[test]
fn a_files_name_is_an_inputs_as_the_element_reads_it() {
    for (member, name) in [
        ("W_Q.npy", "w_q"),
        ("decoder state.csv", "decoder_state"),
        ("Decoder - State.TXT", "decoder_state"),
        ("  w_k\t.npy", "w_k"),
        ("\u{feff}w_v", "w_v"),
        ("\u{85}w_v", "\u{85}w_v"),
        ("w_o.tar.gz", "w_o.tar"),
        ("w_q.", "w_q."),
        (".npy", ""),
        ("W_\u{212a}", "w_k"),
        ("v_a.n-p", "v_a.n_p"),
    ] {
        assert_eq!(input_name(member), name, "{member:?}");
    }
}

#[test]
fn an_array_fits_an_input_or_says_why_not() {
    let vector = |v: &[f64]| Array::vector(v);
    let fit = |name: &str, a: Array| fit_array(name, &a).map(|a| (a.shape().to_vec(), a.values().to_vec()));
    assert_eq!(fit("v_a", Array::new(vec![1, 3], vec![1., 2., 3.]).unwrap()), Ok((vec![3], vec![1., 2., 3.])));
    assert_eq!(fit("decoder_state", Array::new(vec![2, 1], vec![1., 2.]).unwrap()), Ok((vec![2], vec![1., 2.])));
    assert_eq!(fit("w_a", rows(2, 3)).unwrap().0, vec![2, 3]);
    for (name, array, message) in [
        ("w_q", Array::new(vec![0, 3], vec![]).unwrap(), "W_Q cannot take an empty array (shape 0)"),
        ("v_a", Array::new(vec![2, 0, 3], vec![]).unwrap(), "v_a cannot take an empty array (shape 2 × 0)"),
        ("v_a", Array::new(vec![], vec![4.]).unwrap(), "v_a is a vector: it needs a 1-d array (or one row), got a single number"),
        ("decoder_state", rows(2, 2), "decoder state is a vector: it needs a 1-d array (or one row), got a 2-d array (2 × 2)"),
        ("w_o", vector(&[1., 2.]), "W_O needs a 2-d array (rows × columns), got a 1-d array of 2 values: reshape it, e.g. x.reshape(1, -1) for one row"),
        ("annotations", Array::new(vec![], vec![4.]).unwrap(), "annotations need a 2-d array (rows × columns), got a single number"),
        ("u_a", Array::new(vec![1, 2, 1], vec![1., 2.]).unwrap(), "U_a needs a 2-d array (rows × columns), got a 3-d array (1 × 2 × 1)"),
        ("embeddings", Array::new(vec![2, 2], vec![1., 2., 3., f64::NAN]).unwrap(), "embeddings row 1, column 1 is NaN: every value must be a finite number"),
        ("v_a", vector(&[1., f64::NEG_INFINITY]), "v_a value 1 is -Infinity: every value must be a finite number"),
        ("w_k", Array::new(vec![1, 2], vec![f64::INFINITY, 1.]).unwrap(), "W_K row 0, column 0 is Infinity: every value must be a finite number"),
    ] {
        assert_eq!(fit(name, array), Err(message.to_string()), "{name}");
    }
    assert_eq!(Array::new(vec![2, 2], vec![1.]), None, "values and shape must agree");
    assert_eq!(Array::rows(&[vec![1.], vec![1., 2.]]), None, "rows of one length");
}

#[test]
fn a_figure_says_why_it_cannot_take_an_input() {
    let plain = config(json!({"embeddings": [[1, 2]]}));
    let proj = config(json!({"embeddings": [[1, 2]], "w_q": [[1], [2]], "w_k": [[1], [2]], "w_v": [[1], [2]]}));
    let cross = config(
        json!({"decoder_state": [1, 2], "annotations": [[1, 2]], "scoring": "general", "w_a": [[1, 0], [0, 1]]}),
    );
    let weights = config(json!({"mechanism": "weights", "attention": [[1]]}));
    let why = |c: &Config, name: &str, names: &[&str]| not_here(c, name, names);
    assert_eq!(why(&weights, "embeddings", &[]).as_deref(), Some("this figure shows given attention weights"));
    assert_eq!(why(&cross, "w_o", &[]).as_deref(), Some("this figure is encoder–decoder (cross) attention"));
    assert_eq!(why(&plain, "annotations", &[]).as_deref(), Some("this figure is self-attention"));
    assert_eq!(why(&plain, "w_k", &["w_k", "w_v"]).as_deref(), Some("W_Q, W_K and W_V go together"));
    assert_eq!(why(&plain, "w_k", &["w_q", "w_k", "w_v"]), None);
    assert_eq!(why(&proj, "w_k", &["w_k"]), None);
    assert_eq!(
        why(&plain, "w_a", &[]).as_deref(),
        Some("this figure's scoring is dot (W_a belongs to general or additive)")
    );
    assert_eq!(why(&cross, "u_a", &[]).as_deref(), Some("this figure's scoring is general (U_a belongs to additive)"));
    assert_eq!(why(&cross, "w_a", &[]), None);
    assert_eq!(why(&cross, "decoder_state", &[]), None);
    let got = outcome(&plain, vec![member("w_k", rows(2, 1)), member("annotations", rows(1, 2))], None, "a.npz");
    assert_eq!(
        got.unwrap_err(),
        "a.npz: nothing this figure takes; ignored: w_k (W_Q, W_K and W_V go together), annotations (this figure is \
         self-attention)"
    );
    // plan_import alone refuses an input this figure has no place for.
    let e = rows(1, 1);
    assert_eq!(
        plan_import(&weights, &[("embeddings", &e)]).unwrap_err(),
        "this figure cannot take embeddings: this figure shows given attention weights"
    );
}

#[test]
fn the_plan_refuses_what_no_resize_can_fix() {
    let heads =
        config(json!({"embeddings": [[1, 2, 3]], "w_q": [[1, 2], [3, 4], [5, 6]], "w_k": [[1, 2], [3, 4], [5, 6]],
        "w_v": [[1, 2], [3, 4], [5, 6]], "heads": 2}));
    let general = config(json!({"embeddings": [[1, 2]], "scoring": "general", "w_a": [[1, 0], [0, 1]]}));
    let plan = |c: &Config, incoming: &[(&str, Array)]| {
        let incoming: Vec<(&str, &Array)> = incoming.iter().map(|(n, a)| (*n, a)).collect();
        plan_import(c, &incoming)
    };
    for (c, incoming, message) in [
        (
            &heads,
            vec![("w_k", rows(3, 3))],
            "W_K is 3 × 3 but 2 heads split its 3 columns evenly: it needs a multiple of 2 columns",
        ),
        (
            &heads,
            vec![("w_v", rows(3, 5))],
            "W_V is 3 × 5 but 2 heads split its 5 columns evenly: it needs a multiple of 2 columns",
        ),
        (
            &general,
            vec![("w_a", rows(3, 2))],
            "W_a is 3 × 2 but its rows and columns are both d_model here (general scoring): it must be square",
        ),
        (
            &general,
            vec![("embeddings", rows(2, 3)), ("w_a", rows(2, 2))],
            "embeddings are 2 × 3 but W_a is 2 × 2: W_a needs 3 rows",
        ),
        (
            &heads,
            vec![("w_v", rows(2, 2)), ("embeddings", rows(1, 3))],
            "embeddings are 1 × 3 but W_V is 2 × 2: W_V needs 3 rows",
        ),
    ] {
        assert_eq!(plan(c, &incoming), Err(message.to_string()));
    }
    let c = config(json!({"embeddings": [[1, 2]], "w_o": [[1], [2]]}));
    // The resized W_O would need more random values than one rand call draws.
    let got = outcome(&c, vec![file("e.npy", rows(1, 140_000))], Some("embeddings"), "e.npy");
    let message = "e.npy: rand(140000, 1) asks for 140000 values; at most 131072 are supported; nothing was imported";
    assert_eq!(got.unwrap_err(), message);
}

#[test]
fn the_resize_draws_numpys_seed_42_rand_in_reading_order() {
    let c = config(json!({"embeddings": [[1, 2], [3, 4]], "w_q": [[1], [2]], "w_k": [[1], [2]], "w_v": [[1], [2]]}));
    let e = rows(2, 3);
    let plan = plan_import(&c, &[("embeddings", &e)]).unwrap();
    assert_eq!(plan.resize, vec![("w_q", vec![3, 1]), ("w_k", vec![3, 1]), ("w_v", vec![3, 1])]);
    assert_eq!(plan.disagree, vec!["embeddings are 2 × 3 but W_Q is 2 × 1: W_Q, W_K, W_V need 3 rows".to_string()]);
    // np.random.seed(42); np.random.rand(9), as NumPy 2.4 prints it: three rand(3, 1) in a row.
    let numpy = [
        0.3745401188473625,
        0.9507143064099162,
        0.7319939418114051,
        0.5986584841970366,
        0.15601864044243652,
        0.15599452033620265,
        0.05808361216819946,
        0.8661761457749352,
        0.6011150117432088,
    ];
    let fields = fix_fields(&c, &plan).unwrap();
    let column = |k: usize| json!([[numpy[3 * k]], [numpy[3 * k + 1]], [numpy[3 * k + 2]]]);
    assert_eq!(
        Value::Object(fields),
        json!({"embeddings": [[1, 2, 3], [4, 5, 6]], "w_q": column(0), "w_k": column(1), "w_v": column(2)})
    );
}

#[test]
fn a_new_token_count_keeps_the_mask_valid_lengths_and_query_in_step() {
    let masked = config(json!({"embeddings": [[1], [2], [3]], "mask": [[1, 0, 1], [1, 1, 0], [0, 1, 1]],
        "valid_lens": [3, 2, 1], "query": 2, "tokens": ["a", "b", "c"]}));
    assert_eq!(
        Value::Object(token_fields(&masked, 5)),
        json!({"tokens": ["a", "b", "c", "word_4", "word_5"],
            "mask": [[1, 0, 1, 1, 1], [1, 1, 0, 1, 1], [0, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]],
            "valid_lens": [3, 2, 1, 5, 5]})
    );
    assert_eq!(
        Value::Object(token_fields(&masked, 2)),
        json!({"tokens": ["a", "b"], "mask": [[1, 0], [1, 1]], "valid_lens": [3, 2], "query": 1})
    );
    let causal = config(json!({"embeddings": [[1], [2]], "mask": "causal"}));
    assert_eq!(Value::Object(token_fields(&causal, 3)), json!({"tokens": ["word_1", "word_2", "word_3"]}));
    let cross = config(json!({"decoder_state": [1], "annotations": [[1], [2]], "mask": [0, 1], "query": 0}));
    assert_eq!(Value::Object(token_fields(&cross, 3)), json!({"tokens": ["h_1", "h_2", "h_3"], "mask": [0, 1, 1]}));
    assert_eq!(Value::Object(token_fields(&cross, 1)), json!({"tokens": ["h_1"], "mask": [0]}));
}

#[test]
fn the_reader_is_told_what_was_imported_resized_added_and_removed() {
    let c = config(json!({"embeddings": [[1, 2], [3, 4]], "w_q": [[1], [2]], "w_k": [[1], [2]], "w_v": [[1], [2]]}));
    let (dialog, _, message) = outcome(&c, vec![file("e.csv", rows(5, 3))], Some("embeddings"), "e.csv").unwrap();
    assert_eq!(
        dialog,
        Some(Dialog {
            title: "Import embeddings: the shapes disagree".into(),
            what: "embeddings are 5 × 3 but W_Q is 2 × 1: W_Q, W_K, W_V need 3 rows.".into(),
            fix: "Resize makes W_Q 3 × 1, W_K 3 × 1, W_V 3 × 1, of random values in [0, 1): np.random.seed(42), then \
                  np.random.rand(rows, columns) for each, in this order. 3 tokens added (word_3 … word_5)."
                .into(),
            resize: "Resize W_Q, W_K, W_V".into(),
        })
    );
    assert_eq!(
        message,
        "Imported embeddings (5 × 3) from e.csv. Resized W_Q to 3 × 1, W_K to 3 × 1, W_V to 3 × 1 with \
         np.random.seed(42) rand values. 3 tokens added (word_3 … word_5)."
    );
    let found = vec![member("embeddings", rows(1, 2)), member("w_q", rows(2, 1)), member("queries", rows(1, 1))];
    let (dialog, _, message) = outcome(&c, found, None, "m.npz").unwrap();
    assert_eq!(dialog, None);
    assert_eq!(
        message,
        "Imported embeddings (1 × 2) and W_Q (2 × 1) from m.npz; ignored: queries. 1 token removed (2 → 1)."
    );
    let two = vec![member("embeddings", rows(4, 2))];
    assert_eq!(
        outcome(&c, two, None, "m.npz").unwrap().2,
        "Imported embeddings (4 × 2) from m.npz. 2 tokens added (word_3, word_4)."
    );
    // The core's refusal of the fields, as the reader reads it.
    let (import, _) = Import::new(&c, vec![file("e.csv", rows(2, 2))], Some("embeddings"), "e.csv").unwrap();
    assert_eq!(import.refused("w_q has 2 rows"), "e.csv: w_q has 2 rows; nothing was imported");
    assert_eq!(refused("x.npy", "truncated .npy file"), "x.npy: truncated .npy file; nothing was imported");
}

#[test]
fn grouped_query_heads_keep_w_k_w_v_and_w_o_as_the_config_shapes_them() {
    let fixture = fixture();
    // 4 heads over 2 key/value heads: W_Q 3 × 8, W_K and W_V 3 × 4, W_O 8 × 3.
    let c = config(fixture["configs"]["gqa"].clone());
    let unchanged = |name: &str| {
        let shape = c.input_shape(name).unwrap();
        let count = shape.iter().product::<usize>();
        Array::new(shape, (0..count).map(|k| k as f64).collect()).unwrap()
    };
    for name in ["embeddings", "w_q", "w_k", "w_v", "w_o"] {
        let (dialog, fields, message) = outcome(&c, vec![file("x.npy", unchanged(name))], Some(name), "x.npy")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(dialog, None, "{name} of the same shape asks nothing");
        assert_eq!(fields.as_object().unwrap().len(), 1, "{name}: only itself is set");
        assert!(message.starts_with(&format!("Imported {} (", import_title(name))), "{message}");
        let next = c.with_fields(&fields).unwrap_or_else(|e| panic!("{name}: the core takes it: {}", e.0));
        assert_eq!(next.input_shape(name), c.input_shape(name));
    }
    // A wider W_Q (3 × 12: d_k 3 per head) makes W_K 3 × 6 (2 key/value heads of 3); W_V and W_O keep theirs.
    let (dialog, fields, _) = outcome(&c, vec![file("q.npy", rows(3, 12))], Some("w_q"), "q.npy").unwrap();
    let dialog = dialog.expect("W_K no longer agrees");
    assert_eq!(dialog.what, "W_Q is 3 × 12 but W_K is 3 × 4: W_K needs 6 columns.");
    assert_eq!(dialog.resize, "Resize W_K");
    let next = c.with_fields(&fields).unwrap();
    assert_eq!(next.input_shape("w_k"), Some(vec![3, 6]));
    // A wider W_V (3 × 6: d_v 3) makes W_O 12 × 3 (4 heads of 3).
    let (dialog, fields, _) = outcome(&c, vec![file("v.npy", rows(3, 6))], Some("w_v"), "v.npy").unwrap();
    assert_eq!(dialog.unwrap().what, "W_V is 3 × 6 but W_O is 8 × 3: W_O needs 12 rows.");
    assert_eq!(c.with_fields(&fields).unwrap().input_shape("w_o"), Some(vec![12, 3]));
    // Two key/value heads split W_K's columns evenly, or nothing is imported.
    let refused = outcome(&c, vec![file("k.npy", rows(3, 5))], Some("w_k"), "k.npy").unwrap_err();
    assert_eq!(
        refused,
        "k.npy: W_K is 3 × 5 but 2 key/value heads split its 5 columns evenly: it needs a multiple of 2 columns; \
         nothing was imported"
    );
}

fn import_title(name: &str) -> &str {
    attention_viz::import::title(name)
}

#[test]
fn nested_lists_from_a_file_are_read_as_the_js_planner_read_them() {
    use attention_viz::import::Nested::{List, Number, Other};
    let ragged = Array::from_nested(&List(vec![List(vec![Number(1.), Number(2.)]), List(vec![Number(3.)])]));
    assert_eq!(
        fit_array("w_q", &ragged),
        Err("W_Q cannot take this array: its rows differ in shape: row 0 has 2, row 1 has 1".into())
    );
    let mixed =
        Array::from_nested(&List(vec![List(vec![Number(1.), Other("string")]), List(vec![Number(3.), Number(4.)])]));
    assert_eq!(
        fit_array("w_q", &mixed),
        Err("W_Q row 0, column 1 is not a number (string): every value must be a finite number".into())
    );
    let empty = Array::from_nested(&List(vec![List(vec![]), List(vec![])]));
    assert_eq!(fit_array("w_q", &empty), Err("W_Q cannot take an empty array (shape 2 × 0)".into()));
    let fine = Array::from_nested(&List(vec![Number(1.), Number(2.)]));
    assert_eq!(fit_array("v_a", &fine).map(|a| a.values().to_vec()), Ok(vec![1., 2.]));
}
