//! What the element's decode and flash panels (www/element/steppers.js) ask of a figure beyond its snapshot: the
//! core's reason a field cannot be set yet (so the decode panel can say why and offer the fix instead of failing),
//! and one FlashAttention tile as the panel shows it (its rows and columns, o / l beside the block's context, the
//! memory it needs): the panel only writes these numbers.

use super::{js_err, set, Viz};
use crate::attention::Trace;
use crate::math::Matrix;
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

/// A matrix as an array of rows (Float64Arrays).
fn rows(m: &Matrix) -> Array {
    (0..m.rows()).map(|i| JsValue::from(js_sys::Float64Array::from(m.row(i)))).collect()
}

fn pair(a: usize, b: usize) -> Array {
    [JsValue::from(a as f64), JsValue::from(b as f64)].into_iter().collect()
}

impl Viz {
    /// The message a `{fields}` edit of `fields` (an object, or its JSON text) would throw, or `None` when it would be
    /// taken; nothing changes.
    pub(super) fn fields_problem(&self, fields: &JsValue) -> Option<String> {
        let json = fields.as_string().or_else(|| js_sys::JSON::stringify(fields).ok().and_then(|t| t.as_string()));
        let fields: serde_json::Value = match serde_json::from_str(json.as_deref().unwrap_or("")) {
            Ok(v) => v,
            Err(e) => return Some(format!("the fields to change are not valid JSON: {e}")),
        };
        self.config().with_fields(&fields).err().map(|e| e.to_string())
    }

    /// Step `s` of the trace's `flash` (see `attention::Flash::tile`): `{count, q_block, k_block, rows: [r0, r1],
    /// cols: [c0, c1], last, m, l, o, normalized (o / l), context (the followed head's context rows r0 … r1 − 1),
    /// diff (the largest |o / l − context| over rows with l > 0), memory, full}`; `None` without tiles or past the last step.
    pub(super) fn flash_tile(&self, s: usize) -> Result<Option<Object>, JsError> {
        let Trace::SelfAttention(t) = self.figure.trace() else { return Ok(None) };
        let Some(flash) = &t.flash else { return Ok(None) };
        let head = t.head(self.config().options.head.min(t.head_count() - 1));
        let (n, m) = (head.scaled.rows(), head.scaled.cols());
        let Some(tile) = flash.tile(s, n, m) else { return Ok(None) };
        let step = &flash.steps[s];
        let [r0, r1] = tile.rows;
        let d_v = head.context.cols();
        let context = Matrix::from_vec(r1 - r0, d_v, head.context.data()[r0 * d_v..r1 * d_v].to_vec())
            .ok_or_else(|| js_err("internal error: the context rows of a tile"))?;
        // How far o / l is from the context, over the rows with a key to attend (l > 0): 0 or a rounding error.
        let diff = (0..r1 - r0)
            .filter(|&r| step.l[r] > 0.0)
            .flat_map(|r| tile.normalized.row(r).iter().zip(context.row(r)).map(|(a, b)| (a - b).abs()))
            .fold(0.0, f64::max);
        let out = Object::new();
        set(&out, "count", &(flash.steps.len() as f64).into());
        set(&out, "q_block", &step.q_block.into());
        set(&out, "k_block", &step.k_block.into());
        set(&out, "rows", &pair(r0, r1));
        set(&out, "cols", &pair(tile.cols[0], tile.cols[1]));
        set(&out, "last", &tile.last.into());
        set(&out, "m", &js_sys::Float64Array::from(step.m.as_slice()));
        set(&out, "l", &js_sys::Float64Array::from(step.l.as_slice()));
        set(&out, "o", &rows(&step.o));
        set(&out, "normalized", &rows(&tile.normalized));
        set(&out, "context", &rows(&context));
        set(&out, "diff", &diff.into());
        set(&out, "memory", &tile.memory.into());
        set(&out, "full", &tile.full.into());
        Ok(Some(out))
    }
}
