//! The bindings' free functions: `start` (the panic hook) and `call`, every question that needs no object of its
//! own: a request `{kind, …}` (a plain object, read by `crate::requests`, where Python's requests are read too) and
//! its f64s, answered as a JavaScript value (after a trap, `{kind: "last_panic"}` gives the panic's message). Also the conversions every `call`-like method shares: a
//! request object into JSON (`value_of`), an answer into a JavaScript value (`js_of`).

use super::js_err;
use crate::requests::{self, Answer, Request};
use js_sys::{Array, Float64Array, Object};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(start)]
pub fn start() {
    // A panic aborts (traps) the call that hit it; the hook keeps its message so
    // the console and the element can say what went wrong. Module memory is
    // untouched by a trap, so the next call works.
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("attention-viz internal error: {message}").into());
        requests::keep_panic(message);
    }));
}

/// Answers `request`, `{kind, …}` (`crate::requests::Request::parse` says which kinds and fields), with `data` its f64s
/// (a config's flat matrices, the values to write as shortest decimals): a string, a number, a boolean, a plain
/// object, a Float64Array, a trace's layout over the module's memory (compute: `compute::hold`; read it before the
/// next call) or `undefined`. Throws the core's message.
#[wasm_bindgen]
pub fn call(request: JsValue, data: Option<Vec<f64>>) -> Result<JsValue, JsError> {
    let (kind, fields) = requests::kind_of(value_of(&request)?).map_err(js_err)?;
    match Request::parse(&kind, fields).map_err(js_err)? {
        #[cfg(feature = "full")]
        Request::Models(models) => super::learn::answer(models),
        request => js_of(request.answer(Cow::Owned(data.unwrap_or_default())).map_err(js_err)?),
    }
}

/// How deep a request's lists and objects nest at most (a large view's ticks are the deepest: 3).
const MAX_DEPTH: usize = 8;

/// A request object as JSON: text, numbers (a whole one as an integer; NaN and ±Infinity as the texts "NaN",
/// "Infinity", "-Infinity", as configs write them), booleans, null (and `undefined`), lists (typed arrays too) and
/// plain objects.
pub(crate) fn value_of(js: &JsValue) -> Result<Value, JsError> {
    value_at(js, 0).ok_or_else(|| {
        js_err("attention-viz internal error: a request holds text, numbers, booleans, lists and plain objects")
    })
}

fn value_at(js: &JsValue, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    if js.is_null() || js.is_undefined() {
        return Some(Value::Null);
    }
    if let Some(text) = js.as_string() {
        return Some(Value::String(text));
    }
    if let Some(flag) = js.as_bool() {
        return Some(Value::Bool(flag));
    }
    if let Some(x) = js.as_f64() {
        return Some(number(x));
    }
    if js_sys::ArrayBuffer::is_view(js) {
        return Some(Value::Array(Float64Array::new(js).to_vec().into_iter().map(number).collect()));
    }
    if Array::is_array(js) {
        return Array::from(js)
            .iter()
            .map(|item| value_at(&item, depth + 1))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array);
    }
    let object = js.dyn_ref::<Object>()?;
    let mut map = Map::new();
    for entry in Object::entries(object).iter() {
        let entry = Array::from(&entry);
        map.insert(entry.get(0).as_string()?, value_at(&entry.get(1), depth + 1)?);
    }
    Some(Value::Object(map))
}

fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0 {
        return if x >= 0.0 { Value::from(x as u64) } else { Value::from(x as i64) };
    }
    match Number::from_f64(x) {
        Some(n) => Value::Number(n),
        None if x.is_nan() => Value::from("NaN"),
        None if x > 0.0 => Value::from("Infinity"),
        None => Value::from("-Infinity"),
    }
}

/// An answer as a JavaScript value.
pub(crate) fn js_of(answer: Answer) -> Result<JsValue, JsError> {
    Ok(match answer {
        Answer::Text(text) => text.into(),
        Answer::Json(value) => js_sys::JSON::parse(&value.to_string())
            .map_err(|_| js_err("attention-viz internal error: an answer is not JSON"))?,
        Answer::Numbers(values) => Float64Array::from(&values[..]).into(),
        Answer::Trace { query, trace, wanted } => super::compute::hold(query, trace, &wanted).into(),
        Answer::Flag(flag) => flag.into(),
        Answer::Nothing => JsValue::UNDEFINED,
    })
}
