//! compute()'s `{mechanism: "model", model, input}` config, read and checked: which model (a shipped one's name or a
//! model object) and the input's token ids. Its messages are the ones compute() throws; the ids' range is the
//! model's to check (`Model::check_input`), once the model is known.

use super::PRESETS;
use crate::config::describe;
use crate::text::quote;
use serde_json::Value;

/// The fields of a model config (README's config table documents each).
pub const MODEL_FIELDS: [&str; 3] = ["mechanism", "model", "input"];

/// Which model a config names.
#[derive(Debug, PartialEq)]
pub enum ModelRef<'a> {
    /// A shipped model's name (whether it is one is the caller's to say: the shipped models live where it runs).
    Named(&'a str),
    /// A model object (`Model::from_json` checks it).
    Object(&'a Value),
}

/// A model config, checked: its model and its token ids (whole numbers ≥ 0, exact in a float64).
#[derive(Debug, PartialEq)]
pub struct ModelRequest<'a> {
    pub model: ModelRef<'a>,
    pub input: Vec<f64>,
}

/// Largest whole number a float64 (and JavaScript's Number) holds exactly.
const MAX_EXACT: f64 = 9_007_199_254_740_991.0;

/// Reads a `mechanism: "model"` config; the message names the field that is wrong.
pub fn read_request(config: &Value) -> Result<ModelRequest<'_>, String> {
    let Some(fields) = config.as_object() else {
        return Err(format!("config must be an object, got {}", describe(config)));
    };
    if let Some(unknown) = fields.keys().find(|k| !MODEL_FIELDS.contains(&k.as_str())) {
        return Err(format!(
            "unknown field {} for mechanism \"model\"; its fields are {}",
            quote(unknown),
            MODEL_FIELDS.join(", ")
        ));
    }
    let names = PRESETS.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
    let model = match fields.get("model") {
        Some(Value::String(name)) => ModelRef::Named(name),
        Some(object @ Value::Object(_)) => ModelRef::Object(object),
        None => return Err(format!("model is missing: a shipped model's name ({names}) or a model object")),
        Some(other) => return Err(format!("model must be {names} or a model object, got {}", describe(other))),
    };
    let input = match fields.get("input") {
        None => return Err("input is missing: a list of token ids, e.g. [3, 1, 4, 1, 5, 9]".into()),
        Some(Value::Array(ids)) => ids,
        Some(other) => return Err(format!("input must be a list of token ids, got {}", describe(other))),
    };
    let input = input
        .iter()
        .enumerate()
        .map(|(i, x)| match x.as_f64() {
            Some(id) if id >= 0.0 && id.fract() == 0.0 && id <= MAX_EXACT => Ok(id),
            _ => Err(format!("input[{i}] must be a token id (a whole number ≥ 0), got {}", describe(x))),
        })
        .collect::<Result<Vec<f64>, String>>()?;
    Ok(ModelRequest { model, input })
}
