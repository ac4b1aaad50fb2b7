//! A read-only self-attention figure too costly for the page's main thread (up to 4,096 tokens): a Web Worker
//! (www/compute-worker.js) runs `LargeJob` on the same core the page runs, one step per call so that it can say
//! where it is between them, and hands the page each view as its values (a Float64Array, transferred) and an image
//! of them (one RGBA pixel per block of cells) that the page puts on a canvas as it is (www/element/large.js).
//! Nothing here is drawn with plotters: a 4096 × 4096 heatmap is 16 M cells, and a canvas shows at most a few
//! hundred thousand of them.
//!
//! Which configs come here: `config::worker_takes` (the page asks `largeTakes` with the declared shapes alone).

use super::set;
use crate::attention::{self, allowed, check_stages, resolve_scale, Attend, Stages};
use crate::config::{self, Config, Mechanism};
use crate::heatmap::draw::{colorbar_color, colorbar_scale, colorbar_tick_space, Colors, NAN_FILL};
use crate::heatmap::format::format_g;
use crate::math::Matrix;
use crate::picture::{large_caption, large_svg, LargeView, Pooling};
use crate::views;
use js_sys::{Array, Float64Array, Object, Uint8ClampedArray};
use wasm_bindgen::prelude::*;

/// The rows of the colour bar's image (drawn stretched to the bar's height).
const BAR_ROWS: usize = 256;

/// Whether the page's large figure (a Worker's `LargeJob`) takes a config the page's cost bound refuses: `rest_json`
/// and `shapes_json` as `checkDeclared` reads them.
#[wasm_bindgen(js_name = largeTakes)]
pub fn large_takes(rest_json: &str, shapes_json: &str) -> bool {
    let Some((rest, shapes)) = super::compute::declared(rest_json, shapes_json) else { return false };
    let shapes: Vec<(&str, Vec<usize>)> = shapes.iter().map(|(n, d)| (n.as_str(), d.clone())).collect();
    config::worker_takes(&rest, &shapes)
}

/// The tooltip and the live region's text of one cell of a large figure's view: the row's and column's labels and
/// the value to 6 significant digits, as Python's `format(x, ".6g")` writes it.
#[wasm_bindgen(js_name = largeCellText)]
pub fn large_cell_text(row: &str, col: &str, value: f64) -> String {
    format!("{row}, {col}: {}", format_g(value, 6))
}

/// A large view the page shows as a standalone SVG (`toSVG`), from the pieces the worker sent (`LargeJob::view`) and
/// the page's canvases as PNG data URLs: `picture::large_svg`. `ticks_at[k]` and `tick_labels[k]` are one tick;
/// `shown`: the picture's CSS width and height.
#[wasm_bindgen(js_name = largeSvg)]
#[allow(clippy::too_many_arguments)]
pub fn large_svg_of(
    title: &str,
    rows: usize,
    cols: usize,
    block: &[u32],
    pooling: &str,
    image: &str,
    bar: &str,
    ticks_at: &[f64],
    tick_labels: Vec<String>,
    offset: &str,
    shown: &[f64],
) -> Result<String, JsError> {
    let ticks: Vec<(f64, String)> = ticks_at.iter().copied().zip(tick_labels).collect();
    let block = [block.first().copied().unwrap_or(1) as usize, block.get(1).copied().unwrap_or(1) as usize];
    let pooling = if pooling == "max" { Pooling::Max } else { Pooling::Mean };
    let shown = [shown.first().copied().unwrap_or(f64::NAN), shown.get(1).copied().unwrap_or(f64::NAN)];
    let view = LargeView { title, rows, cols, block, pooling, image, bar, ticks: &ticks, offset, shown };
    large_svg(&view).map_err(|e| JsError::new(&e))
}

/// What a large figure's element says where it cannot do what a small one does (www/element/large.js):
/// `what` = "pending" (asked before the worker's views are drawn), "view" (`view` is not one of the `shown` views it
/// exports), "trace" (the note a large figure's `trace` carries: what it holds).
#[wasm_bindgen(js_name = largeMessage)]
pub fn large_message(what: &str, view: &str, shown: Vec<String>) -> String {
    let shown = shown.join(", ");
    match what {
        "pending" => "this figure is still being computed in a background worker: its trace, toSVG() and toPNG() are \
                      there once it is drawn (its `change` event)"
            .into(),
        "view" => format!(
            "a large figure exports the views it shows ({shown}): {} is not one of them",
            crate::text::quote(view)
        ),
        _ => format!(
            "a large figure (computed by a background worker) holds only the followed head's {shown}, as \
             {{shape, data}} with data a Float64Array shared with the figure (copy it before writing to it); its other \
             stages and heads are not computed: compute(config, {{arrays: \"typed\"}}) in a worker of your own gives \
             every stage"
        ),
    }
}

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
    /// Parses and checks `config_json` as any config is (the same messages), with the worker's cost bound; refuses a
    /// config that `largeTakes` would not take.
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str) -> Result<LargeJob, JsError> {
        let config = config::with_worker_limit(|| Config::from_json(config_json)).map_err(|e| JsError::new(&e.0))?;
        LargeJob::of(config)
    }

    /// `new` for a config whose matrices come flat, as `computeFlat` takes them (the page sends them so: one
    /// transferred Float64Array instead of a structured clone of n lists); `undefined` when `rest_json` does not parse.
    #[wasm_bindgen(js_name = fromFlat)]
    pub fn from_flat(
        rest_json: &str,
        names: Vec<String>,
        shapes: &[u32],
        data: &[f64],
    ) -> Result<Option<LargeJob>, JsError> {
        let config = config::with_worker_limit(|| super::compute::flat_config(rest_json, &names, shapes, data))?;
        config.map(LargeJob::of).transpose()
    }
}

impl LargeJob {
    fn of(config: Config) -> Result<LargeJob, JsError> {
        let o = &config.options;
        let plain = o.position.is_none() && o.w_o.is_none() && o.decode_step.is_none() && o.tiles.is_none();
        if !matches!(config.mechanism, Mechanism::SelfAttention { .. }) || !plain {
            return Err(JsError::new("a large figure shows self-attention without positions, W_O, decode or tiles"));
        }
        Ok(LargeJob { config, qkv: None, scale: 1.0, stages: None })
    }
}

#[wasm_bindgen]
impl LargeJob {
    /// The line the figure shows while step `step` (0, 1, 2) runs.
    pub fn progress(&self, step: usize) -> String {
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
    pub fn project(&mut self) -> Result<(), JsError> {
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
    pub fn attend(&mut self) -> Result<(), JsError> {
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

    /// The tokens (rows of every view; columns of the n × n ones).
    pub fn tokens(&self) -> Vec<String> {
        self.config.tokens.clone()
    }

    /// The scale the scores were divided by (`scale` resolved: √d_k by default), for the figure's `trace`.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The config as JSON (every default filled in), for the element's `config`.
    #[wasm_bindgen(js_name = configJson)]
    pub fn config_json(&self) -> String {
        self.config.to_value().to_string()
    }

    /// Step 2, per view (`scores`, `scaled`, `weights` or `context`): `{name, title, rows, cols, values` (a
    /// Float64Array, row-major), `image` (RGBA, `width` × `height`: one pixel per `block` = [rows, cols] cells, their
    /// mean), `bar` (RGBA, 1 × 256, vmax at the top), `ticks` ([[fraction from the bottom, label], …] for a bar
    /// `bar_px` CSS pixels long with 10-px labels), `offset` (matplotlib's offset text), `vmin`, `vmax`, `caption`}.
    /// The image is at most `max_px` pixels a side.
    pub fn view(&self, name: &str, max_px: usize, bar_px: f64, palette: Option<String>) -> Result<Object, JsError> {
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
