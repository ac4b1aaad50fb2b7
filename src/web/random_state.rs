//! `RandomStateCore`: NumPy's legacy `RandomState` (`crate::random`) for the public `RandomState` of
//! www/attention-viz.js, which shapes what it draws. One method, `call`, for its requests (`requests::RandomRequest`).

use super::calls::value_of;
use super::{js_err, seed_u32};
use crate::random::{self, RandomState};
use crate::requests::RandomRequest;
use js_sys::Float64Array;
use wasm_bindgen::prelude::*;

/// NumPy's legacy `RandomState`; shapes are handled on the JS side.
#[wasm_bindgen(js_name = RandomStateCore)]
pub struct JsRandomState(RandomState);

#[wasm_bindgen(js_class = RandomStateCore)]
impl JsRandomState {
    #[wasm_bindgen(constructor)]
    pub fn new(seed: f64) -> Result<JsRandomState, JsError> {
        Ok(JsRandomState(RandomState::new(seed_u32(seed)?)))
    }

    /// `{kind: "seed", seed}` (nothing), `{kind: "randint", low, high, count}` (`count` integers in [low, high), as
    /// float64: exact up to 2^53), `{kind: "rand", count}`, `{kind: "randn", count}`: a Float64Array. `count` is
    /// checked ([`random::check_count`]) before anything is allocated.
    pub fn call(&mut self, request: JsValue) -> Result<JsValue, JsError> {
        let rs = &mut self.0;
        let values = match RandomRequest::parse(value_of(&request)?).map_err(js_err)? {
            RandomRequest::Seed(seed) => {
                rs.seed(seed_u32(seed)?);
                return Ok(JsValue::UNDEFINED);
            }
            RandomRequest::Randint { low, high, count } => {
                let (low, high) = (int64(low, "low")?, int64(high, "high")?);
                filled(count, |n| {
                    Ok(rs.randint(low, high, n).map_err(js_err)?.into_iter().map(|x| x as f64).collect())
                })?
            }
            RandomRequest::Rand(count) => filled(count, |n| Ok(rs.rand(n)))?,
            RandomRequest::Randn(count) => filled(count, |n| Ok(rs.randn(n)))?,
        };
        Ok(values.into())
    }
}

/// Values per chunk of [`filled`]: 512 KB of WASM memory at a time, whatever the count.
const RANDOM_CHUNK: usize = 1 << 16;

/// A Float64Array of `count` values drawn `RANDOM_CHUNK` at a time by `next(n)` (the draws are
/// sequential, so the stream is the one a single call gives), so WASM memory never holds more
/// than one chunk: a large request leaves no grown memory behind.
fn filled(count: f64, mut next: impl FnMut(usize) -> Result<Vec<f64>, JsError>) -> Result<Float64Array, JsError> {
    let count = random::check_count(count).map_err(|e| JsError::new(&e))?;
    let out = Float64Array::new_with_length(count as u32);
    let mut done = 0;
    while done < count {
        let n = RANDOM_CHUNK.min(count - done);
        let chunk = next(n)?;
        out.subarray(done as u32, (done + n) as u32).copy_from(&chunk);
        done += n;
    }
    Ok(out)
}

fn int64(x: f64, name: &str) -> Result<i64, JsError> {
    if x.fract() == 0.0 && x.abs() <= 9.007_199_254_740_992e15 {
        Ok(x as i64)
    } else {
        Err(JsError::new(&format!("{name} must be an integer (at most 2**53 in magnitude), got {x}")))
    }
}
