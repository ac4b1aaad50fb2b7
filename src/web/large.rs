//! A read-only self-attention figure too costly for the page's main thread (up to 4,096 tokens): a Web Worker
//! (www/compute-worker.js) runs `LargeJob` on the same core the page runs, one step per call so that it can say
//! where it is between them, and hands the page each view as its values (a Float64Array, transferred) and an image
//! of them (one RGBA pixel per block of cells) that the page puts on a canvas as it is (www/element/large.js).
//! Nothing here is drawn with plotters: a 4096 × 4096 heatmap is 16 M cells, and a canvas shows at most a few
//! hundred thousand of them.
//!
//! Which configs come here: `config::worker_takes` (the page asks `call`'s `large_takes` with the declared shapes
//! alone). The page's texts about a large figure (a cell's, its messages, its SVG) are `call`'s requests too.

use super::calls::value_of;
use super::{js_err, set};
use crate::attention::{self, allowed, check_stages, resolve_scale, Attend, Stages};
use crate::config::{self, Config, Mechanism};
use crate::heatmap::draw::{colorbar_color, colorbar_scale, colorbar_tick_space, Colors, NAN_FILL};
use crate::math::Matrix;
use crate::picture::{large_caption, Pooling};
use crate::requests::{JobRequest, Parts};
use crate::views;
use js_sys::{Array, Float64Array, Object, Uint8ClampedArray};
use wasm_bindgen::prelude::*;

/// The rows of the colour bar's image (drawn stretched to the bar's height).
const BAR_ROWS: usize = 256;

/// One large figure's computation, in the worker: the config (parsed under `config::MAX_WORKER_COST`), the followed
/// head's Q, K, V, then its stages.
#[wasm_bindgen]
pub struct LargeJob {
    config: Config,
    qkv: Option<(Matrix, Matrix, Matrix)>,
    scale: f64,
    stages: Option<Stages>,
}

/// The steps `LargeJob::progress` names, in order.
const STEPS: [&str; 3] = ["Q, K and V", "scores and softmax", "the images"];

#[wasm_bindgen]
impl LargeJob {
    /// The config of `request`, `{config_json, flat}` (a config's fields as `call` takes them, `data` its flat
    /// matrices: the page sends them so, one transferred Float64Array instead of a structured clone of n lists),
    /// parsed and checked as any config is (the same messages), with the worker's cost bound; refuses a config that
    /// `large_takes` would not take.
    #[wasm_bindgen(constructor)]
    pub fn new(request: JsValue, data: Option<Vec<f64>>) -> Result<LargeJob, JsError> {
        let serde_json::Value::Object(fields) = value_of(&request)? else {
            return Err(js_err("attention-viz internal error: a large figure's job takes {config_json, flat}"));
        };
        let parts = Parts::read(fields).map_err(js_err)?;
        let data = data.unwrap_or_default();
        let config = config::with_worker_limit(|| parts.config_or_why(&data)).map_err(js_err)?;
        LargeJob::of(config)
    }

    /// One step or answer (`requests::JobRequest`): `{kind: "progress", step}`, the line the figure shows while step
    /// `step` (0, 1, 2) runs; `{kind: "project"}`, step 0; `{kind: "attend"}`, step 1; `{kind: "view", name, max_px,
    /// bar_px, palette}`, step 2 for one view; `{kind: "result"}`, `{tokens, scale}`.
    pub fn call(&mut self, request: JsValue) -> Result<JsValue, JsError> {
        Ok(match JobRequest::parse(value_of(&request)?).map_err(js_err)? {
            JobRequest::Progress(step) => self.progress(step).into(),
            JobRequest::Project => {
                self.project()?;
                JsValue::UNDEFINED
            }
            JobRequest::Attend => {
                self.attend()?;
                JsValue::UNDEFINED
            }
            JobRequest::View { name, max_px, bar_px, palette } => self.view(&name, max_px, bar_px, palette)?.into(),
            JobRequest::Result => {
                let out = Object::new();
                let tokens: Array = self.config.tokens.iter().map(|t| JsValue::from_str(t)).collect();
                set(&out, "tokens", &tokens);
                set(&out, "scale", &self.scale.into());
                out.into()
            }
        })
    }
}

impl LargeJob {
    fn of(config: Config) -> Result<LargeJob, JsError> {
        let o = &config.options;
        let plain =
            o.position.is_none() && o.w_o.is_none() && o.decode_step.is_none() && o.tiles.is_none() && !o.layers.any();
        if !matches!(config.mechanism, Mechanism::SelfAttention { .. }) || !plain {
            return Err(JsError::new(
                "a large figure shows self-attention without positions, W_O, decode, tiles, biases, norms or a soft cap",
            ));
        }
        Ok(LargeJob { config, qkv: None, scale: 1.0, stages: None })
    }
}

impl LargeJob {
    /// The line the figure shows while step `step` (0, 1, 2) runs.
    fn progress(&self, step: usize) -> String {
        let n = self.config.len();
        let what = STEPS.get(step).copied().unwrap_or("");
        format!(
            "Computing {n} tokens in a background worker ({:.1e} multiply-adds): step {} of {}, {what}…",
            self.config.worker_cost(),
            step.min(STEPS.len() - 1) + 1,
            STEPS.len()
        )
    }

    /// Step 0: X·W_Q, X·W_K, X·W_V (X itself without projections), the followed head's columns.
    fn project(&mut self) -> Result<(), JsError> {
        let Mechanism::SelfAttention { embeddings, projections } = &self.config.mechanism else {
            return Err(JsError::new("not self-attention"));
        };
        let o = &self.config.options;
        let kv_heads = o.kv_heads();
        let (h, g) = (o.head, o.head / (o.heads / kv_heads));
        // The followed head's columns only (what `Config::worker_cost` counts): X times those of W_Q, W_K, W_V, each
        // entry the same dot product as in the whole product (one head: its columns are all of them).
        let (q, k, v) = match projections {
            Some(p) => {
                let (dk, dv) = (p.w_q.cols() / o.heads, p.w_v.cols() / kv_heads);
                (
                    embeddings.matmul(&p.w_q.columns(h * dk, dk)),
                    embeddings.matmul(&p.w_k.columns(g * dk, dk)),
                    embeddings.matmul(&p.w_v.columns(g * dv, dv)),
                )
            }
            None => {
                let (dk, dv) = (embeddings.cols() / o.heads, embeddings.cols() / kv_heads);
                (embeddings.columns(h * dk, dk), embeddings.columns(g * dk, dk), embeddings.columns(g * dv, dv))
            }
        };
        for (name, m) in [("Q", &q), ("K", &k), ("V", &v)] {
            attention::check_finite(name, m).map_err(|e| JsError::new(&e.0))?;
        }
        self.scale = resolve_scale(self.config.scale, q.cols());
        self.qkv = Some((q, k, v));
        Ok(())
    }

    /// Step 1: the followed head's scores, scaled scores, weights and context (attention::attend, as every figure).
    fn attend(&mut self) -> Result<(), JsError> {
        let (q, k, v) = self.qkv.take().ok_or_else(|| JsError::new("project() first"))?;
        let o = &self.config.options;
        let n = q.rows();
        let allowed = allowed(o, n, n);
        let how = Attend::of(o, self.scale, allowed.as_ref());
        let stages = attention::attend(&q, &k, &v, &how);
        let named = |e: attention::Overflow| {
            if o.heads == 1 {
                e.0
            } else {
                format!("head {}: {}", o.head, e.0)
            }
        };
        check_stages(&stages, allowed.as_ref()).map_err(|e| JsError::new(&named(e)))?;
        self.stages = Some(stages);
        Ok(())
    }

    /// Step 2, per view (`scores`, `scaled`, `weights` or `context`): `{name, title, rows, cols, values` (a
    /// Float64Array, row-major), `image` (RGBA, `width` × `height`: one pixel per `block` = [rows, cols] cells, their
    /// mean), `bar` (RGBA, 1 × 256, vmax at the top), `ticks` ([[fraction from the bottom, label], …] for a bar
    /// `bar_px` CSS pixels long with 10-px labels), `offset` (matplotlib's offset text), `vmin`, `vmax`, `caption`}.
    /// The image is at most `max_px` pixels a side.
    fn view(&self, name: &str, max_px: usize, bar_px: f64, palette: Option<String>) -> Result<Object, JsError> {
        let s = self.stages.as_ref().ok_or_else(|| JsError::new("attend() first"))?;
        let (m, default, pooling) = match name {
            "scores" => (&s.scores, "sequential", Pooling::Mean),
            "scaled" => (&s.scaled, "sequential", Pooling::Mean),
            "weights" => (&s.weights, "sequential", Pooling::Max),
            "context" => (&s.context, "Blue", Pooling::Mean),
            _ => {
                return Err(JsError::new(&format!(
                    "a large figure shows scores, scaled, weights or context, not {name}"
                )))
            }
        };
        let title = views::stage_title(&self.config, name, self.scale, false).unwrap_or_default();
        let colors = Colors::new(m.data(), palette.as_deref(), default);
        let (rows, cols) = m.shape();
        let max_px = max_px.max(1);
        let block = [rows.div_ceil(max_px).max(1), cols.div_ceil(max_px).max(1)];
        let (image, width, height) = pooled_image(m, block, pooling, &colors);
        let bar: Vec<u8> = (0..BAR_ROWS)
            .flat_map(|y| {
                let c = colorbar_color(&colors, y, BAR_ROWS);
                [c[0], c[1], c[2], 255]
            })
            .collect();
        let scale = colorbar_scale(colors.vmin, colors.vmax, colorbar_tick_space(bar_px, 10.0));
        let (lo, hi) = crate::heatmap::palette::nonsingular(colors.vmin, colors.vmax);
        let ticks = Array::new();
        for (value, label) in scale.ticks {
            let at = if hi > lo { (value - lo) / (hi - lo) } else { 0.5 };
            if (-1e-9..=1.0 + 1e-9).contains(&at) {
                ticks.push(&Array::of2(&at.into(), &label.into()));
            }
        }
        let out = Object::new();
        set(&out, "name", &name.into());
        set(&out, "title", &title.into());
        set(&out, "rows", &rows.into());
        set(&out, "cols", &cols.into());
        set(&out, "values", &Float64Array::from(m.data()).into());
        set(&out, "image", &Uint8ClampedArray::from(&image[..]).into());
        set(&out, "width", &width.into());
        set(&out, "height", &height.into());
        set(&out, "block", &Array::of2(&block[0].into(), &block[1].into()).into());
        set(&out, "bar", &Uint8ClampedArray::from(&bar[..]).into());
        set(&out, "ticks", &ticks.into());
        set(&out, "offset", &scale.offset.into());
        set(&out, "vmin", &colors.vmin.into());
        set(&out, "vmax", &colors.vmax.into());
        set(&out, "caption", &large_caption(rows, cols, block, pooling, true).into());
        set(&out, "pooling", &(if pooling == Pooling::Max { "max" } else { "mean" }).into());
        Ok(out)
    }
}

/// `m` as RGBA pixels, each a `block` of cells' finite values pooled and coloured by `colors` (NaN's grey where a
/// block has none).
pub fn pooled_image(m: &Matrix, [br, bc]: [usize; 2], pooling: Pooling, colors: &Colors) -> (Vec<u8>, usize, usize) {
    let (rows, cols) = m.shape();
    let (h, w) = (rows.div_ceil(br), cols.div_ceil(bc));
    let mut acc = vec![0.0f64; w];
    let mut counts = vec![0u32; w];
    let mut rgba = Vec::with_capacity(w * h * 4);
    for y in 0..h {
        acc.fill(if pooling == Pooling::Max { f64::NEG_INFINITY } else { 0.0 });
        counts.fill(0);
        for i in y * br..((y + 1) * br).min(rows) {
            for (j, &x) in m.row(i).iter().enumerate() {
                if x.is_finite() {
                    let a = &mut acc[j / bc];
                    *a = if pooling == Pooling::Max { a.max(x) } else { *a + x };
                    counts[j / bc] += 1;
                }
            }
        }
        for (&a, &c) in acc.iter().zip(&counts) {
            let v = if pooling == Pooling::Max { a } else { a / c as f64 };
            let color = if c == 0 { NAN_FILL } else { colors.color(v).unwrap_or(NAN_FILL) };
            rgba.extend_from_slice(&[color[0], color[1], color[2], 255]);
        }
    }
    (rgba, w, h)
}
