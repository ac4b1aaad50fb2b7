//! Reading the element's edits, questions and drawings: plain JS objects, one field per argument. Each wrong field
//! is one message naming what was sent and the field (they are the element's own mistakes, never a reader's).
//! Numbers taken as indices or sizes are read as wasm-bindgen reads a `u32` argument (JavaScript's `x >>> 0`).

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The fields of `object`, a command called `what` in messages.
pub(crate) struct Args<'a> {
    pub object: &'a JsValue,
    pub what: &'a str,
}

impl Args<'_> {
    /// Field `key`, unless it is absent (`undefined`).
    pub fn get(&self, key: &str) -> Option<JsValue> {
        Reflect::get(self.object, &key.into()).ok().filter(|v| !v.is_undefined())
    }

    fn wrong(&self, key: &str, kind: &str) -> JsError {
        JsError::new(&format!("{}: {key} must be {kind}", self.what))
    }

    pub fn string(&self, key: &str) -> Result<String, JsError> {
        self.get(key).and_then(|v| v.as_string()).ok_or_else(|| self.wrong(key, "a string"))
    }

    /// A string, or `None` when absent, `null` or not a string (the optional fmt, palette, contrast, key).
    pub fn opt_string(&self, key: &str) -> Option<String> {
        self.get(key).and_then(|v| v.as_string())
    }

    pub fn number(&self, key: &str) -> Result<f64, JsError> {
        self.get(key).and_then(|v| v.as_f64()).ok_or_else(|| self.wrong(key, "a number"))
    }

    /// A number as an index or a size (`x >>> 0`).
    pub fn uint(&self, key: &str) -> Result<u32, JsError> {
        self.number(key).map(uint)
    }

    pub fn index(&self, key: &str) -> Result<usize, JsError> {
        self.uint(key).map(|x| x as usize)
    }

    #[cfg(feature = "full")]
    /// `None` when absent or `null`, else the index.
    pub fn opt_uint(&self, key: &str) -> Result<Option<u32>, JsError> {
        match self.get(key) {
            Some(v) if !v.is_null() => v.as_f64().map(|x| Some(uint(x))).ok_or_else(|| self.wrong(key, "a number")),
            _ => Ok(None),
        }
    }

    /// JavaScript's truthiness of the field (absent: false).
    pub fn flag(&self, key: &str) -> bool {
        self.get(key).is_some_and(|v| v.is_truthy())
    }

    /// An array of strings (absent: empty).
    pub fn strings(&self, key: &str) -> Result<Vec<String>, JsError> {
        let Some(v) = self.get(key).filter(|v| !v.is_null()) else { return Ok(vec![]) };
        let items: Option<Vec<String>> = list(&v).and_then(|a| a.iter().map(|x| x.as_string()).collect());
        items.ok_or_else(|| self.wrong(key, "an array of strings"))
    }

    /// An array (or typed array) of numbers as `u32`s (absent: empty).
    pub fn uints(&self, key: &str) -> Result<Vec<u32>, JsError> {
        let Some(v) = self.get(key).filter(|v| !v.is_null()) else { return Ok(vec![]) };
        let items: Option<Vec<u32>> = list(&v).and_then(|a| a.iter().map(|x| x.as_f64().map(uint)).collect());
        items.ok_or_else(|| self.wrong(key, "an array of numbers"))
    }
}

/// `value` as an array: an Array, or a typed array's values.
pub(crate) fn list(value: &JsValue) -> Option<Array> {
    if Array::is_array(value) {
        Some(value.clone().unchecked_into())
    } else if value.is_object() && Reflect::has(value, &"length".into()).unwrap_or(false) {
        Some(Array::from(value))
    } else {
        None
    }
}

/// JavaScript's `x >>> 0`: the integer part modulo 2^32 (NaN and ±∞: 0).
pub(crate) fn uint(x: f64) -> u32 {
    if x.is_finite() {
        x.trunc().rem_euclid(4_294_967_296.0) as u32
    } else {
        0
    }
}
