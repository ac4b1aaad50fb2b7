//! Planning an import: routing by name, the inputs a figure cannot take, fitting each array, the shapes that
//! disagree and the seeded resize, the token fields and every message, word for word as the element's JS planner
//! (www/element/import-plan.js) says them: tests/fixtures/import-plan.json is that planner's answers
//! (tests/goldens/gen_import_plan.mjs), and the cases below take their expected messages from it.
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
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
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
fn outcome(c: &Config, found: Vec<Found>, target: Option<&str>, source: &str) -> Result<(Option<Dialog>, Value, String), String> {
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
                        assert!(same(&applied.fields, &case["fields"]), "{what}: {} vs {}", applied.fields, case["fields"]);
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
