//! The thin shell between JavaScript and the pure core: strings and typed
//! arrays in, plain objects and typed arrays out.
//!
//! Nothing here computes; every function parses, calls the core, and converts.
//! Errors come back as `JsError` with the core's message, never as a panic:
//! the core validates before it computes, and the panic hook below only exists
//! to make a bug visible in the console if one slips through.

use crate::attention::{self, Trace};
use crate::config::Config;
use crate::presets;
use crate::random::RandomState;
use js_sys::{Array, Float64Array, Object, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&format!("attention-viz internal error: {info}").into());
    }));
}

/// Validates `config_json` and runs it; the result is
/// `{mechanism, scale, query_index, fields: {name: {shape, data}}}`.
#[wasm_bindgen(js_name = computeJson)]
pub fn compute_json(config_json: &str) -> Result<Object, JsError> {
    let config = Config::from_json(config_json).map_err(|e| JsError::new(&e.0))?;
    let trace = attention::compute(&config).map_err(|e| JsError::new(&e.0))?;
    Ok(trace_object(&config, &trace))
}

/// The normalised form of a config (defaults filled in), as JSON.
#[wasm_bindgen(js_name = normalizeConfig)]
pub fn normalize_config(config_json: &str) -> Result<String, JsError> {
    let config = Config::from_json(config_json).map_err(|e| JsError::new(&e.0))?;
    Ok(config.to_value().to_string())
}

pub(crate) fn trace_object(config: &Config, trace: &Trace) -> Object {
    let out = Object::new();
    let mechanism = match trace {
        Trace::SelfAttention(_) => "self",
        Trace::Cross(_) => "cross",
    };
    set(&out, "mechanism", &mechanism.into());
    set(&out, "scale", &trace.scale().into());
    set(&out, "query_index", &(config.query as f64).into());
    let fields = Object::new();
    for field in trace.fields() {
        let entry = Object::new();
        let shape: Array = field.shape.iter().map(|&s| JsValue::from(s as f64)).collect();
        set(&entry, "shape", &shape);
        set(&entry, "data", &Float64Array::from(field.data));
        set(&fields, field.name, &entry);
    }
    set(&out, "fields", &fields);
    out
}

fn set(target: &Object, key: &str, value: &JsValue) {
    // Reflect::set only fails on frozen objects or throwing setters; ours are fresh.
    let _ = Reflect::set(target, &key.into(), value);
}

#[wasm_bindgen(js_name = presetNames)]
pub fn preset_names() -> Vec<String> {
    presets::NAMES.iter().map(|s| s.to_string()).collect()
}

#[wasm_bindgen(js_name = presetJson)]
pub fn preset_json(name: &str) -> Option<String> {
    presets::preset(name).map(|c| c.to_value().to_string())
}

/// NumPy's legacy `RandomState`; shapes are handled on the JS side.
#[wasm_bindgen(js_name = RandomStateCore)]
pub struct JsRandomState(RandomState);

#[wasm_bindgen(js_class = RandomStateCore)]
impl JsRandomState {
    #[wasm_bindgen(constructor)]
    pub fn new(seed: f64) -> Result<JsRandomState, JsError> {
        Ok(JsRandomState(RandomState::new(seed_u32(seed)?)))
    }

    pub fn seed(&mut self, seed: f64) -> Result<(), JsError> {
        self.0.seed(seed_u32(seed)?);
        Ok(())
    }

    /// `count` integers in [low, high), as float64 (exact up to 2^53).
    pub fn randint(&mut self, low: f64, high: f64, count: usize) -> Result<Float64Array, JsError> {
        let low = int64(low, "low")?;
        let high = int64(high, "high")?;
        let values = self.0.randint(low, high, count).map_err(|e| JsError::new(&e))?;
        let values: Vec<f64> = values.into_iter().map(|x| x as f64).collect();
        Ok(Float64Array::from(values.as_slice()))
    }

    pub fn rand(&mut self, count: usize) -> Float64Array {
        Float64Array::from(self.0.rand(count).as_slice())
    }

    pub fn randn(&mut self, count: usize) -> Float64Array {
        Float64Array::from(self.0.randn(count).as_slice())
    }
}

fn seed_u32(seed: f64) -> Result<u32, JsError> {
    if seed.fract() == 0.0 && (0.0..=4294967295.0).contains(&seed) {
        Ok(seed as u32)
    } else {
        Err(JsError::new(&format!("Seed must be an integer between 0 and 2**32 - 1, got {seed}")))
    }
}

fn int64(x: f64, name: &str) -> Result<i64, JsError> {
    if x.fract() == 0.0 && x.abs() <= 9.007_199_254_740_992e15 {
        Ok(x as i64)
    } else {
        Err(JsError::new(&format!("{name} must be an integer (at most 2**53 in magnitude), got {x}")))
    }
}
