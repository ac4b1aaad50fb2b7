//! `compute()`'s traces, kept in WASM memory where the JS side reads them in place (`hold` answers each field's
//! offset) instead of through a copy of every field: `call`'s `compute` answers one. And a config whose
//! matrices arrive flat in one Float64Array, its stack kept as the buffer it came in (`flat_config_owned`).
//!
//! The config is validated by `Config::from_parts`, the same checks and
//! messages as for the JSON text.

use super::{set, trace_object_with, Values};
use crate::attention::{Trace, Wanted};
use crate::config::{Config, Flat};
use crate::weights::Stack;
use js_sys::Object;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// A config whose matrices were sent flat, validated; `None` when `rest_json` does not parse (the caller then sends
/// the whole config as JSON, whose message places the problem in it).
///
/// `rest_json` is the config without them; `names` are the matrices' fields in order, `shapes` each one's rank and
/// axes one after another (`[2, rows, cols]`; a stack of matrices, `attention`, `[3, heads, n, m]` or
/// `[4, layers, heads, n, m]`), and `data` their values one after another, row-major, every one finite: the values
/// the caller hands over (wasm-bindgen's copy of the Float64Array, owned here). A config whose one matrix is
/// `attention` (a model's stack, as the element sends one) keeps that buffer as its stack, so the stack is in WASM
/// memory once while it loads, not twice (peak memory ≤ 2× the stack's bytes).
pub(crate) fn flat_config_owned(
    rest_json: &str,
    names: &[String],
    shapes: &[u32],
    data: Vec<f64>,
) -> Result<Option<Config>, JsError> {
    let dims: Option<[usize; 4]> = match (names, shapes) {
        ([name], [3, h, n, m]) if name == "attention" => Some([1, *h as usize, *n as usize, *m as usize]),
        ([name], [4, l, h, n, m]) if name == "attention" => Some([*l as usize, *h as usize, *n as usize, *m as usize]),
        _ => None,
    };
    match dims {
        Some([l, h, n, m]) => match Stack::new(l, h, n, m, data) {
            Some(stack) => flat_config_in(rest_json, names, shapes, stack.data(), Some(&stack)),
            None => {
                Err(JsError::new("attention-viz internal error: a flat config's matrices do not match their shapes"))
            }
        },
        None => flat_config_in(rest_json, names, shapes, &data, None),
    }
}

fn flat_config_in(
    rest_json: &str,
    names: &[String],
    shapes: &[u32],
    data: &[f64],
    shared: Option<&Stack>,
) -> Result<Option<Config>, JsError> {
    let Ok(rest @ Value::Object(_)) = crate::config::json::parse(rest_json) else {
        return Ok(None);
    };
    let inconsistent =
        || JsError::new("attention-viz internal error: a flat config's matrices do not match their shapes");
    let mut flat = Vec::with_capacity(names.len());
    let (mut data, mut shapes) = (data, shapes);
    for name in names {
        // Each matrix's shape is its rank, then its axes: [2, rows, cols], or a stack's [3, heads, n, m] or
        // [4, layers, heads, n, m].
        let (&rank, rest) = shapes.split_first().ok_or_else(inconsistent)?;
        let rank = rank as usize;
        if !(2..=4).contains(&rank) || rest.len() < rank {
            return Err(inconsistent());
        }
        let (dims, tail) = rest.split_at(rank);
        shapes = tail;
        let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let len = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).filter(|&len| len <= data.len());
        let (values, tail) = data.split_at(len.ok_or_else(inconsistent)?);
        data = tail;
        let f = match dims[..] {
            [rows, cols] => Flat::new(rows, cols, values),
            [_, _, _] | [_, _, _, _] if shared.is_some() => shared.and_then(|s| Flat::sharing(s, rank)),
            [heads, n, m] => Flat::stacked(1, heads, n, m, 3, values),
            [layers, heads, n, m] => Flat::stacked(layers, heads, n, m, 4, values),
            _ => None,
        };
        flat.push((name.as_str(), f.ok_or_else(inconsistent)?));
    }
    if !data.is_empty() || !shapes.is_empty() {
        return Err(inconsistent());
    }
    Config::from_parts(&rest, &flat).map(Some).map_err(|e| JsError::new(&e.0))
}

thread_local! {
    /// The last `compute`'s trace, held in WASM memory until the next one: the caller reads its fields in place
    /// (a Float64Array over the module's memory at each field's offset) right after the call, as Python reads the
    /// C ABI's last answer (src/ffi.rs).
    static HELD: std::cell::RefCell<Option<(usize, Trace)>> = const { std::cell::RefCell::new(None) };
}

/// Holds `trace` (whose followed query is `query`) in place of the last one, and answers the layout of its fields
/// `wanted`: `{mechanism, scale, query_index, fields: {name: {shape, offset}}, flash_steps}` (`trace_object_with`),
/// where a field's values start at `offset` in a Float64Array over the module's memory. Make that view after this
/// call, and read it before the next call into the module, which may move the memory or replace the trace.
///
/// `naive_weights` is given `weights`' offset when their values are the same bits (no row near float64's edges, the
/// usual case): the reader then copies one n × n field fewer (typed: one Float64Array for both, as heads[0]'s fields
/// share the top-level ones').
pub(crate) fn hold(query: usize, trace: Trace, wanted: &Wanted) -> Object {
    HELD.with(|held| {
        // The last trace goes first, so the memory holds one trace at a time.
        *held.borrow_mut() = None;
        let layout = layout(query, &trace, wanted);
        *held.borrow_mut() = Some((query, trace));
        layout
    })
}

fn layout(query: usize, trace: &Trace, wanted: &Wanted) -> Object {
    let out = trace_object_with(query, trace, Values::InPlace, wanted);
    if !(wanted.wants("naive_weights") && wanted.wants("weights")) {
        return out;
    }
    if let (Some(naive), Some(weights)) = (trace.field("naive_weights"), trace.field("weights")) {
        if naive.shape == weights.shape && same_bits(naive.data, weights.data) {
            let fields = js_sys::Reflect::get(&out, &"fields".into()).unwrap_or(JsValue::UNDEFINED);
            let get = |name: &str| js_sys::Reflect::get(&fields, &name.into()).ok().map(Object::from);
            if let (Some(naive), Some(weights)) = (get("naive_weights"), get("weights")) {
                let offset = js_sys::Reflect::get(&weights, &"offset".into()).unwrap_or(JsValue::UNDEFINED);
                set(&naive, "offset", &offset);
            }
        }
    }
    out
}

/// Whether `a` and `b` hold the same bits (NaN equal to the same NaN, 0 and −0 apart).
fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}
