//! The thin shell between JavaScript and the pure core: strings and typed
//! arrays in, plain objects and typed arrays out.
//!
//! Nothing here computes; every function parses, calls the core, and converts.
//! Errors come back as `JsError` with the core's message, never as a panic:
//! the core validates before it computes, and the panic hook (`calls::start`) only exists
//! to make a bug visible in the console if one slips through.

use crate::attention::{Field, Trace};
use crate::config::{Config, Mechanism, Scale};
use crate::edits::{Distribution, Kept};
use crate::heatmap::{self, Colors, Contrast, Fmt, Highlight, HighlightKind, Layout, Style, Theme};
use crate::incremental::Session;
use crate::{export, share, views};
use canvas::TextCachingCanvas;
use js_sys::{Array, Float64Array, Object, Reflect};
use plotters::prelude::IntoDrawingArea;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

mod calls;
mod canvas;
mod compute;
mod large;
mod learn;
mod model;
mod random_state;
mod snapshot;
mod steppers;
pub use calls::{call, start};
pub use compute::TraceInMemory;
pub use large::LargeJob;
pub use learn::JsTrainer;
pub use random_state::JsRandomState;

pub(crate) fn trace_object(config: &Config, trace: &Trace) -> Object {
    trace_object_with(config.query, trace, copied)
}

/// `{mechanism, scale, query_index, fields: {name: {shape, …}}}`, where `values` puts
/// each field's values in its entry (copied, or where they sit in WASM memory).
pub(crate) fn trace_object_with(query: usize, trace: &Trace, values: fn(&Object, &Field)) -> Object {
    let out = Object::new();
    let mechanism = match trace {
        Trace::SelfAttention(_) => "self",
        Trace::Cross(_) => "cross",
        Trace::Weights(_) => "weights",
    };
    set(&out, "mechanism", &mechanism.into());
    if let Trace::Weights(t) = trace {
        // No scale or query steps: the weights are given. Their names are part of the trace.
        let names = |v: &[String]| -> Array { v.iter().map(|s| JsValue::from_str(s)).collect() };
        set(&out, "tokens", &names(&t.tokens));
        set(&out, "key_tokens", &names(&t.key_tokens));
    } else {
        set(&out, "scale", &trace.scale().into());
        set(&out, "query_index", &(query as f64).into());
    }
    let fields = Object::new();
    for field in trace.fields() {
        set(&fields, &field.name, &field_object(&field, values));
    }
    set(&out, "fields", &fields);
    out
}

/// `{shape, …}`: the shape as an array, and the values as `values` puts them.
fn field_object(field: &Field, values: fn(&Object, &Field)) -> Object {
    let entry = Object::new();
    let shape: Array = field.shape.iter().map(|&s| JsValue::from(s as f64)).collect();
    set(&entry, "shape", &shape);
    values(&entry, field);
    entry
}

/// `data`: the values copied into a Float64Array.
fn copied(entry: &Object, field: &Field) {
    set(entry, "data", &Float64Array::from(field.data));
}

fn set(target: &Object, key: &str, value: &JsValue) {
    // Reflect::set only fails on frozen objects or throwing setters; ours are fresh.
    let _ = Reflect::set(target, &key.into(), value);
}

fn seed_u32(seed: f64) -> Result<u32, JsError> {
    if seed.fract() == 0.0 && (0.0..=4294967295.0).contains(&seed) {
        Ok(seed as u32)
    } else {
        Err(JsError::new(&format!("Seed must be an integer between 0 and 2**32 - 1, got {seed}")))
    }
}

/// One attention figure: the state the `<attention-viz>` element edits and draws.
///
/// Every mutation is all-or-nothing: the new config is validated and computed
/// first, and only a success replaces the state, so the last valid figure
/// always stays on screen.
#[wasm_bindgen]
pub struct Viz {
    /// Config, trace, and the softmax state that makes one-value edits incremental.
    session: Session,
    /// The last Randomize, so "Copy as NumPy" can write the seeded calls.
    random: Option<(u32, Distribution)>,
    /// The reader's W_O, W_a, U_a, v_a while their option is off (brought back when it returns).
    kept: Kept,
    /// The views of the config the author wrote: a `views` list resolves against them (`resolveViews`).
    authored: Vec<String>,
    /// A model's stack (`mechanism: "weights"`) is the author's: `persist` then saves only the
    /// selection (`savedState`), and restores it onto the stack the page gives again.
    stack_authored: bool,
    /// That config (Reset's), read only when asked (`authoredJson`): a model's stack is shared, not copied.
    authored_config: Config,
    /// Per view, the layout of its drawing on screen and the element's key of that drawing (the view's snapshot key,
    /// size, fmt…): a hover redraws outlines and hit-tests many times a second over cells that do not change, and at
    /// n = 1024 building the view and its layout again was most of that (`renderOverlay`, `cellAt`, `cellRect`).
    layouts: RefCell<HashMap<String, (String, Rc<Layout>)>>,
}

fn js_err(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

#[wasm_bindgen]
impl Viz {
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str) -> Result<Viz, JsError> {
        Viz::of(Config::from_json(config_json).map_err(js_err)?)
    }

    /// Replaces the whole config (a paste, a preset, a shape edit).
    #[wasm_bindgen(js_name = setConfig)]
    pub fn set_config(&mut self, config_json: &str) -> Result<(), JsError> {
        let config = Config::from_json(config_json).map_err(js_err)?;
        self.replace(config)
    }

    /// `new Viz` for a config whose matrices are sent flat (see `computeFlat`);
    /// `undefined` when the rest is not JSON (the caller then sends it all as JSON).
    #[wasm_bindgen(js_name = fromFlat)]
    pub fn from_flat(
        rest_json: &str,
        names: Vec<String>,
        shapes: &[u32],
        data: Vec<f64>,
    ) -> Result<Option<Viz>, JsError> {
        let Some(config) = compute::flat_config_owned(rest_json, &names, shapes, data)? else {
            return Ok(None);
        };
        Viz::of(config).map(Some)
    }

    /// `setConfig` for a config whose matrices are sent flat; false when the rest is not JSON.
    #[wasm_bindgen(js_name = setConfigFlat)]
    pub fn set_config_flat(
        &mut self,
        rest_json: &str,
        names: Vec<String>,
        shapes: &[u32],
        data: Vec<f64>,
    ) -> Result<bool, JsError> {
        let Some(config) = compute::flat_config_owned(rest_json, &names, shapes, data)? else {
            return Ok(false);
        };
        self.replace(config)?;
        Ok(true)
    }

    /// Sets one input value (`matrix` is a config field: embeddings, w_q, …, decoder_state, annotations).
    #[wasm_bindgen(js_name = setValue)]
    pub fn set_value(&mut self, matrix: &str, row: usize, col: usize, value: f64) -> Result<(), JsError> {
        self.session.set_value(matrix, row, col, value).map_err(js_err)
    }

    #[wasm_bindgen(js_name = setQuery)]
    pub fn set_query(&mut self, query: usize) -> Result<(), JsError> {
        let config = self.config().with_query(query).map_err(js_err)?;
        self.replace(config)
    }

    /// `kind` is "sqrt_dk", "none" or "custom" (with `value`).
    #[wasm_bindgen(js_name = setScale)]
    pub fn set_scale(&mut self, kind: &str, value: f64) -> Result<(), JsError> {
        let scale = match kind {
            "sqrt_dk" => Scale::SqrtDk,
            "none" => Scale::None,
            "custom" => Scale::Value(value),
            other => {
                return Err(js_err(format!("scale must be sqrt_dk, none or custom, got {}", crate::text::quote(other))))
            }
        };
        let config = self.config().with_scale(scale).map_err(js_err)?;
        self.replace(config)
    }

    /// Replaces config fields (a JSON object such as `{"heads": 2}` or `{"mask": "causal"}`;
    /// `null` removes a field), validated as a whole config.
    #[wasm_bindgen(js_name = setFields)]
    pub fn set_fields(&mut self, fields_json: &str) -> Result<(), JsError> {
        let fields: serde_json::Value = serde_json::from_str(fields_json)
            .map_err(|e| js_err(format!("the fields to change are not valid JSON: {e}")))?;
        let config = self.config().with_fields(&fields).map_err(js_err)?;
        self.replace(config)
    }

    /// Switches the scoring function ("dot", "general", "additive", "cosine"), filling
    /// W_a (identity for general) or W_a, U_a, v_a (seeded by `seed` for additive) — or, when
    /// the reader had them earlier in this figure's life and they still fit, with theirs.
    #[wasm_bindgen(js_name = setScoring)]
    pub fn set_scoring(&mut self, name: &str, seed: f64) -> Result<(), JsError> {
        let config = self.config().with_scoring_kept(name, seed_u32(seed)?, &self.kept).map_err(js_err)?;
        self.replace(config)
    }

    /// The output projection W_O on (the reader's last one when it still fits, else the identity) or off.
    #[wasm_bindgen(js_name = setOutputProjection)]
    pub fn set_output_projection(&mut self, on: bool) -> Result<(), JsError> {
        let config = self.config().with_w_o(on, &self.kept).map_err(js_err)?;
        self.replace(config)
    }

    /// The config shown now is the author's (a new document: loaded, set by the page, Reset): a
    /// `views` list's names are checked against its views.
    #[wasm_bindgen(js_name = markAuthored)]
    pub fn mark_authored(&mut self) {
        self.authored = views::names(self.config());
        self.stack_authored = true;
        self.authored_config = self.config().clone();
    }

    /// Whether this state can still change: a panic (a bug) in a call on it traps with the call's borrow held,
    /// and every later change of it (`&mut self`) throws "recursive use of an object detected". Always true when
    /// it answers at all.
    pub fn usable(&mut self) -> bool {
        true
    }

    /// Panics on purpose while this figure's state is borrowed (a test hook, as `forceInternalError`): the tests
    /// use it to prove the element recovers from a bug that leaves its `Viz` locked.
    #[wasm_bindgen(js_name = forceInternalError)]
    pub fn force_internal_error_here(&self) {
        panic!("forced internal error in a figure (a test of the panic path)");
    }

    /// Reset: the config last marked as the author's, shown again as it is held (a model's stack shared, not
    /// copied; no JSON of it either way).
    #[wasm_bindgen(js_name = resetToAuthored)]
    pub fn reset_to_authored(&mut self) -> Result<(), JsError> {
        let config = self.authored_config.clone();
        self.replace(config)
    }

    /// The config last marked as the author's (`markAuthored`, or the first), as JSON.
    #[wasm_bindgen(js_name = authoredJson)]
    pub fn authored_json(&self) -> String {
        self.authored_config.to_value().to_string()
    }

    /// How a `views` list shows on the figure now (see `views::resolve`): `{views, unknown}`, the
    /// heatmaps to draw in reading order and the names that are no view of the author's config nor
    /// of this one, and `message`, what to tell the author about those (null when there are none).
    /// `panels` are the caller's own names (neither drawn nor unknown); the modern panels (`views::MODERN_PANELS`)
    /// are known whatever the caller passes.
    #[wasm_bindgen(js_name = resolveViews)]
    pub fn resolve_views(&self, requested: Vec<String>, panels: Vec<String>) -> Object {
        let mut panels: Vec<&str> = panels.iter().map(String::as_str).collect();
        let modern: Vec<&str> = views::MODERN_PANELS.iter().copied().filter(|p| !panels.contains(p)).collect();
        panels.extend(modern);
        let r = views::resolve(&self.authored, self.config(), &requested, &panels);
        let strings = |v: &[String]| -> Array { v.iter().map(|s| JsValue::from_str(s)).collect() };
        let out = Object::new();
        set(&out, "views", &strings(&r.views));
        set(&out, "unknown", &strings(&r.unknown));
        let mut known = views::names(self.config());
        for p in &panels {
            if !known.iter().any(|k| k == p) {
                known.push(p.to_string());
            }
        }
        let message =
            [views::unknown_message(&r.unknown, &known), views::modern_panels_message(self.config(), &requested)];
        let message: Vec<String> = message.into_iter().flatten().collect();
        set(&out, "message", &if message.is_empty() { JsValue::NULL } else { message.join(" ").into() });
        out
    }

    /// One more head (zeros in its columns of W_Q, W_K, W_V and its rows of W_O).
    #[wasm_bindgen(js_name = insertHead)]
    pub fn insert_head(&mut self) -> Result<(), JsError> {
        let config = self.config().insert_head().map_err(js_err)?;
        self.replace(config)
    }

    /// `kv` key/value heads (the `kv` panel): W_K and W_V regrouped (`Config::with_kv_heads`: each group's mean).
    #[wasm_bindgen(js_name = setKvHeads)]
    pub fn set_kv_heads(&mut self, kv: usize) -> Result<(), JsError> {
        let config = self.config().with_kv_heads(kv).map_err(js_err)?;
        self.replace(config)
    }

    #[wasm_bindgen(js_name = removeHead)]
    pub fn remove_head(&mut self, at: usize) -> Result<(), JsError> {
        let config = self.config().remove_head(at).map_err(js_err)?;
        self.replace(config)
    }

    #[wasm_bindgen(js_name = insertToken)]
    pub fn insert_token(&mut self, at: usize, name: &str) -> Result<(), JsError> {
        let config = self.config().insert_token(at, name).map_err(js_err)?;
        self.replace(config)
    }

    #[wasm_bindgen(js_name = removeToken)]
    pub fn remove_token(&mut self, at: usize) -> Result<(), JsError> {
        let config = self.config().remove_token(at).map_err(js_err)?;
        self.replace(config)
    }

    #[wasm_bindgen(js_name = renameToken)]
    pub fn rename_token(&mut self, at: usize, name: &str) -> Result<(), JsError> {
        let config = self.config().rename_token(at, name).map_err(js_err)?;
        self.replace(config)
    }

    #[wasm_bindgen(js_name = insertDim)]
    pub fn insert_dim(&mut self, at: usize) -> Result<(), JsError> {
        let config = self.config().insert_dim(at).map_err(js_err)?;
        self.replace(config)
    }

    #[wasm_bindgen(js_name = removeDim)]
    pub fn remove_dim(&mut self, at: usize) -> Result<(), JsError> {
        let config = self.config().remove_dim(at).map_err(js_err)?;
        self.replace(config)
    }

    /// `np.random.seed(seed)` then `dist` ("randint" with `high`, "rand", "randn") per target input.
    pub fn randomize(&mut self, seed: f64, dist: &str, high: f64) -> Result<(), JsError> {
        let dist = Distribution::parse(dist, high).map_err(js_err)?;
        let seed = seed_u32(seed)?;
        let config = self.config().randomized(seed, dist).map_err(js_err)?;
        self.replace(config)?;
        self.random = Some((seed, dist));
        Ok(())
    }

    /// "Copy as NumPy": a Python snippet that recomputes this figure.
    #[wasm_bindgen(js_name = toNumPy)]
    pub fn to_numpy(&self) -> String {
        export::numpy_snippet(self.config(), self.random)
    }

    /// The share-link fragment of this figure's whole state; with `json`, the JSON text it carries (`toJSON()`).
    #[wasm_bindgen(js_name = shareState)]
    pub fn share_state(&self, naive: bool, json: Option<bool>) -> String {
        let state = share::State { config: self.config().clone(), naive, random: self.random };
        if json == Some(true) {
            share::state_json(&state)
        } else {
            share::encode(&state)
        }
    }

    /// What `persist` saves (share-link text, or a weights figure's selection on the author's
    /// stack: see `share::saved`); an Error saying so when the state is too long to be restored,
    /// judged from the sizes before anything is written out.
    #[wasm_bindgen(js_name = savedState)]
    pub fn saved_state(&self, naive: bool) -> Result<String, JsError> {
        let state = share::State { config: self.config().clone(), naive, random: self.random };
        share::saved(&state, self.stack_authored).map_err(js_err)
    }

    /// A lower bound of `shareState`'s length from the sizes alone (`share::at_least`): a link that
    /// cannot be opened is refused without writing out its state.
    #[wasm_bindgen(js_name = shareStateAtLeast)]
    pub fn share_state_at_least(&self) -> f64 {
        share::at_least(self.config()) as f64
    }

    /// Restores what `savedState` gave (a whole state, or a selection: onto this figure's stack,
    /// which is the author's again after a reload); returns whether it showed the naive softmax.
    #[wasm_bindgen(js_name = restoreSaved)]
    pub fn restore_saved(&mut self, text: &str) -> Result<bool, JsError> {
        match share::decode_saved(text).map_err(js_err)? {
            share::Saved::State(state) => {
                self.replace(state.config)?;
                self.random = state.random;
                Ok(state.naive)
            }
            share::Saved::Selection(s) => {
                let config = self.config().with_selection(s.layer, s.head).and_then(|c| c.with_query(s.query));
                let config =
                    config.map_err(|e| js_err(format!("the saved selection does not fit this figure: {e}")))?;
                self.replace(config)?;
                Ok(false)
            }
        }
    }

    /// Restores a share-link fragment (with `json`: the JSON text it carries, `.config = toJSON()'s object`);
    /// returns whether it showed the naive softmax.
    #[wasm_bindgen(js_name = setShareState)]
    pub fn set_share_state(&mut self, text: &str, json: Option<bool>) -> Result<bool, JsError> {
        let state = if json == Some(true) { share::decode_json(text) } else { share::decode(text) };
        let state = state.map_err(js_err)?;
        self.replace(state.config)?;
        self.random = state.random;
        Ok(state.naive)
    }

    /// The inputs Randomize fills, in draw order.
    #[wasm_bindgen(js_name = randomTargets)]
    pub fn random_targets(&self) -> Vec<String> {
        self.config().random_targets().into_iter().map(String::from).collect()
    }

    fn of(config: Config) -> Result<Viz, JsError> {
        let authored = views::names(&config);
        let authored_config = config.clone();
        Ok(Viz {
            session: Session::new(config).map_err(js_err)?,
            random: None,
            kept: Kept::default(),
            authored,
            stack_authored: true,
            authored_config,
            layouts: RefCell::default(),
        })
    }

    fn replace(&mut self, config: Config) -> Result<(), JsError> {
        let o = &self.config().options;
        let (w_o, scoring) = (o.w_o.clone(), o.scoring.clone());
        // Another stack than the one shown is no longer the author's (a selection keeps it).
        let same_stack = match (&self.config().mechanism, &config.mechanism) {
            (Mechanism::Weights { attention: a, .. }, Mechanism::Weights { attention: b, .. }) => a == b,
            _ => false,
        };
        self.session.replace(config).map_err(js_err)?;
        self.stack_authored &= same_stack;
        self.kept.keep(w_o, scoring, self.session.config());
        Ok(())
    }

    fn config(&self) -> &Config {
        self.session.config()
    }

    #[wasm_bindgen(js_name = configJson)]
    pub fn config_json(&self) -> String {
        self.config().to_value().to_string()
    }

    /// `configJson` without a model's weights (`attention`): the element's own reading of the state.
    #[wasm_bindgen(js_name = configJsonWithoutStack)]
    pub fn config_json_without_stack(&self) -> String {
        self.config().to_value_without_stack().to_string()
    }

    /// The raw trace, `{mechanism, scale, query_index, fields}` (see `computeJson`).
    pub fn trace(&self) -> Object {
        trace_object(self.config(), self.session.trace())
    }

    /// One field of the trace, `{shape, data}`, or `undefined` if there is none by that name.
    /// Copies only that field: a whole trace at n = 512 is ~10 MB to copy on every edit.
    pub fn field(&self, name: &str) -> Option<Object> {
        self.session.trace().field(name).map(|f| field_object(&f, copied))
    }

    /// Row `i` of a matrix field (a vector field whole), or `undefined`: the breakdown
    /// reads a few rows of n × d fields on every edit.
    pub fn row(&self, name: &str, i: usize) -> Option<Float64Array> {
        let f = self.session.trace().field(name)?;
        let data = match f.shape[..] {
            [_] => f.data,
            [rows, cols] if i < rows => &f.data[i * cols..(i + 1) * cols],
            _ => return None,
        };
        Some(Float64Array::from(data))
    }

    /// The views of this figure, in reading order.
    pub fn views(&self) -> Vec<String> {
        views::names(self.config())
    }

    /// Draws `view` on `canvas` (whose width/height are already in device pixels).
    /// `highlights` holds outlines as flat 5-tuples `[kind, r0, c0, r1, c1, …]`: kind 0 the
    /// selected query (solid, accent colour), 1 a hovered link (dashed, amber), 2 the keyboard
    /// cursor (thick, text colour), 3 FlashAttention's current tile (thick, amber); rows r0..r1,
    /// columns c0..c1. `fmt` is seaborn's `fmt`
    /// (`undefined`: ".2g"), `contrast` "seaborn" (`undefined`) or "more".
    #[allow(clippy::too_many_arguments)]
    pub fn render(
        &self,
        view: &str,
        canvas: HtmlCanvasElement,
        dpr: f64,
        dark: bool,
        palette: Option<String>,
        highlights: Vec<u32>,
        show_title: bool,
        fmt: Option<String>,
        contrast: Option<String>,
    ) -> Result<(), JsError> {
        let view = self.view(view)?;
        let style = style(dpr, dark, palette, &highlights, show_title, fmt, contrast)?;
        draw_on_canvas(&view, &style, canvas).map(|_| ())
    }

    /// The cell of `view` under a device-pixel point of a canvas of that size, as [row, col]
    /// (`undefined` off the grid or for an unknown view). Pass the `fmt` the canvas was drawn
    /// with: a note about the numbers moves the grid down.
    #[wasm_bindgen(js_name = cellAt)]
    #[allow(clippy::too_many_arguments)]
    pub fn cell_at(
        &self,
        view: &str,
        width: u32,
        height: u32,
        dpr: f64,
        x: f64,
        y: f64,
        fmt: Option<String>,
        key: Option<String>,
    ) -> Result<Option<Vec<u32>>, JsError> {
        let Some(layout) = self.kept_layout(view, key, width, height, dpr, fmt)? else { return Ok(None) };
        Ok(layout.cell_at(x, y).map(|(i, j)| vec![i as u32, j as u32]))
    }

    /// Where cell (i, j) of `view` is on a canvas of that size, as device pixels [x0, y0, x1, y1] (the inverse of
    /// `cellAt`: a tooltip is placed beside the cell it describes); undefined outside the grid.
    #[wasm_bindgen(js_name = cellRect)]
    #[allow(clippy::too_many_arguments)]
    pub fn cell_rect(
        &self,
        view: &str,
        width: u32,
        height: u32,
        dpr: f64,
        i: usize,
        j: usize,
        fmt: Option<String>,
        key: Option<String>,
    ) -> Result<Option<Vec<i32>>, JsError> {
        let Some(layout) = self.kept_layout(view, key, width, height, dpr, fmt)? else { return Ok(None) };
        if i >= layout.rows || j >= layout.cols {
            return Ok(None);
        }
        let r = layout.cell(i, j);
        Ok(Some(vec![r.x0, r.y0, r.x1, r.y1]))
    }

    /// `layout`, kept per view while the caller's `key` of the drawing on screen (which changes whenever the view's
    /// numbers, labels, size or fmt do: figures.js's repaint key without the outlines) stays the same. No key: made anew.
    fn kept_layout(
        &self,
        view: &str,
        key: Option<String>,
        width: u32,
        height: u32,
        dpr: f64,
        fmt: Option<String>,
    ) -> Result<Option<Rc<Layout>>, JsError> {
        let Some(key) = key else { return Ok(self.layout(view, width, height, dpr, fmt)?.map(Rc::new)) };
        if let Some((k, layout)) = self.layouts.borrow().get(view) {
            if *k == key && layout.width == width && layout.height == height {
                return Ok(Some(layout.clone()));
            }
        }
        let Some(layout) = self.layout(view, width, height, dpr, fmt)? else { return Ok(None) };
        let layout = Rc::new(layout);
        self.layouts.borrow_mut().insert(view.to_string(), (key, layout.clone()));
        Ok(Some(layout))
    }

    /// The element's heatmap: `view` on `canvas` without outlines (when `base`), and the `highlights` (as `render`
    /// takes them) alone on `overlay`, a transparent canvas of the same size laid over it. A hover or a cursor move
    /// redraws the overlay only (`base` false): at n = 1024 a raster was ~50 ms a canvas, the outlines are a few
    /// rectangles. The overlay is redrawn when `outlines` (its highlights, size or theme changed) or when the base's
    /// layout moved its cells. The outlines are opaque whole-pixel rectangles, so the two canvases show what `render`
    /// with the highlights draws (and the SVG export: one `draw`). `key` names the base drawing (the element's repaint
    /// key without the outlines: the view's snapshot key, size, fmt…); while it is the same, its layout is kept for
    /// this, `cellAt` and `cellRect`.
    #[wasm_bindgen(js_name = renderLayers)]
    #[allow(clippy::too_many_arguments)]
    pub fn render_layers(
        &self,
        view: &str,
        canvas: HtmlCanvasElement,
        overlay: HtmlCanvasElement,
        key: String,
        dpr: f64,
        dark: bool,
        palette: Option<String>,
        highlights: Vec<u32>,
        fmt: Option<String>,
        contrast: Option<String>,
        base: bool,
        outlines: bool,
    ) -> Result<(), JsError> {
        let style = style(dpr, dark, palette, &highlights, true, fmt.clone(), contrast)?;
        let (layout, moved) = if base {
            let plain = Style { highlights: vec![], ..style.clone() };
            let layout = Rc::new(draw_on_canvas(&self.view(view)?, &plain, canvas)?);
            let old = self.layouts.borrow_mut().insert(view.to_string(), (key, layout.clone()));
            let moved = old.is_none_or(|(_, l)| *l != *layout);
            (layout, moved)
        } else {
            let Some(layout) = self.kept_layout(view, Some(key), canvas.width(), canvas.height(), dpr, fmt)? else {
                return Ok(());
            };
            (layout, false)
        };
        if !(outlines || moved) {
            return Ok(());
        }
        let context = context_2d(&overlay)?;
        context.clear_rect(0.0, 0.0, f64::from(overlay.width()), f64::from(overlay.height()));
        if highlights.is_empty() {
            return Ok(());
        }
        let backend = TextCachingCanvas::new(overlay, context).ok_or_else(|| js_err("cannot draw on this canvas"))?;
        let root = backend.into_drawing_area();
        heatmap::draw::draw_highlights(&root, &layout, &style).map_err(js_err)?;
        root.present().map_err(|e| js_err(format!("drawing failed: {e}")))
    }

    /// The layout `render` draws `view` with on a canvas of that size (colours aside: they move no cell).
    fn layout(
        &self,
        view: &str,
        width: u32,
        height: u32,
        dpr: f64,
        fmt: Option<String>,
    ) -> Result<Option<Layout>, JsError> {
        let style = style(dpr, false, None, &[], true, fmt, None)?;
        let Ok(view) = self.view(view) else { return Ok(None) };
        let colors = Colors::of_view(&view, None);
        Ok(Some(Layout::new(&view, &colors, &style, width, height)))
    }

    /// The font (CSS px) `view`'s numbers are written at on a canvas of that CSS size, as `fmt` asks; 0 when they are
    /// hidden or need fewer digits there. The heads' small multiples are as many a row as keep it legible.
    #[wasm_bindgen(js_name = numbersFont)]
    pub fn numbers_font(&self, view: &str, width: u32, height: u32, fmt: Option<String>) -> Result<f64, JsError> {
        let asked = parse_fmt(fmt.clone())?;
        let Some(layout) = self.layout(view, width, height, 1.0, fmt)? else { return Ok(0.0) };
        Ok(if layout.annotate && layout.fmt == asked { layout.annot_font_px } else { 0.0 })
    }

    /// The natural CSS size of a view's canvas, [width, height], for its numbers written with `fmt`.
    #[wasm_bindgen(js_name = preferredSize)]
    pub fn preferred_size(&self, view: &str, fmt: Option<String>) -> Result<Vec<u32>, JsError> {
        let fmt = parse_fmt(fmt)?;
        let view = self.view(view)?;
        let (w, h) = heatmap::preferred_size(&view, fmt);
        Ok(vec![w, h])
    }

    /// A standalone SVG of a view at its preferred size.
    #[wasm_bindgen(js_name = toSvg)]
    pub fn to_svg(
        &self,
        view: &str,
        palette: Option<String>,
        fmt: Option<String>,
        contrast: Option<String>,
    ) -> Result<String, JsError> {
        let view = self.view(view)?;
        heatmap::to_svg(&view, &style(1.0, false, palette, &[], true, fmt, contrast)?).map_err(js_err)
    }

    /// The view as text for screen readers: `{title, rowLabels, colLabels, cells, note}`, where
    /// `cells[i][j]` is the value as `fmt` writes it ("nan" for NaN). Grids over 1024 cells give
    /// their first 32 × 32, and `note` says so ("first 32 of N rows and 32 of M columns"); else null.
    pub fn describe(&self, view: &str, fmt: Option<String>) -> Result<Object, JsError> {
        let fmt = parse_fmt(fmt)?;
        let d = heatmap::describe(&self.view(view)?, fmt).map_err(js_err)?;
        let strings = |v: &[String]| -> Array { v.iter().map(|s| JsValue::from_str(s)).collect() };
        let out = Object::new();
        set(&out, "title", &d.title.into());
        set(&out, "rowLabels", &strings(&d.row_labels));
        set(&out, "colLabels", &strings(&d.col_labels));
        let cells: Array = d.cells.iter().map(|row| JsValue::from(strings(row))).collect();
        set(&out, "cells", &cells);
        set(&out, "note", &d.note.map_or(JsValue::NULL, |n| n.into()));
        Ok(out)
    }

    /// Cell (i, j) of a view for a keyboard cursor: `{row, col, value, full}` (its row and column
    /// labels, the value as `fmt` writes it, the value as a number), or `undefined` off the grid.
    /// Cells [r0, r1) × [c0, c1) of `view` as `fmt` writes them, row by row (the input grids' window with the
    /// element's `fmt`, inputs.js): one view and one check for the whole window.
    #[wasm_bindgen(js_name = cellTexts)]
    pub fn cell_texts(
        &self,
        view: &str,
        r0: usize,
        r1: usize,
        c0: usize,
        c1: usize,
        fmt: Option<String>,
    ) -> Result<Vec<String>, JsError> {
        let fmt = parse_fmt(fmt)?;
        heatmap::cell_texts(&self.view(view)?, r0..r1, c0..c1, fmt).map_err(js_err)
    }

    #[wasm_bindgen(js_name = cellText)]
    pub fn cell_text(&self, view: &str, i: usize, j: usize, fmt: Option<String>) -> Result<Option<Object>, JsError> {
        let fmt = parse_fmt(fmt)?;
        let Some(c) = heatmap::cell_text(&self.view(view)?, i, j, fmt).map_err(js_err)? else { return Ok(None) };
        let out = Object::new();
        set(&out, "row", &c.row.into());
        set(&out, "col", &c.col.into());
        set(&out, "value", &c.value.into());
        set(&out, "full", &c.full.into());
        // Why the key is masked (`Options::reason`'s bits), for a view whose rows are queries and columns keys: the
        // tooltip says it in words. Present only when some rule masks in this config.
        if let Some(code) = self.masked(view, i, j) {
            set(&out, "masked", &code.into());
            // A key outside the window that a sink keeps open: said too (its code alone is 0, "attended").
            let query = if matches!(self.config().mechanism, Mechanism::Cross { .. }) { 0 } else { i };
            if self.config().options.sink_opens(query, j) {
                set(&out, "sink", &true.into());
            }
        }
        Ok(Some(out))
    }

    /// `Options::reason` for a cell of a queries × keys view (the weights, scores, mask heatmaps), `None` for any other
    /// view or a config that masks nothing.
    fn masked(&self, view: &str, i: usize, j: usize) -> Option<u8> {
        let config = self.config();
        let o = &config.options;
        if o.mask == crate::config::Mask::None && o.valid_lens.is_none() && o.window.is_none() {
            return None;
        }
        let stage = view.rsplit('.').next().unwrap_or(view);
        if !matches!(stage, "scores" | "scaled" | "weights" | "naive_weights" | "mask" | "bias") {
            return None;
        }
        let query = if matches!(config.mechanism, Mechanism::Cross { .. }) { 0 } else { i };
        Some(o.reason(query, j))
    }

    /// The name of the palette `view` is drawn with now for `palette` (`undefined`: its default,
    /// or "diverging" for signed values). Passing it back as `palette` gives the same colours,
    /// so a page can keep a view's palette while a drag changes the signs of its values.
    #[wasm_bindgen(js_name = paletteOf)]
    pub fn palette_of(&self, view: &str, palette: Option<String>) -> Result<String, JsError> {
        let view = self.view(view)?;
        Ok(Colors::of_view(&view, palette.as_deref()).palette_name().to_string())
    }

    fn view(&self, name: &str) -> Result<views::View<'_>, JsError> {
        views::view(self.config(), self.session.trace(), name).map_err(js_err)
    }
}

fn parse_fmt(fmt: Option<String>) -> Result<Fmt, JsError> {
    fmt.map_or(Ok(Fmt::default()), |f| Fmt::parse(&f).map_err(js_err))
}

/// The outlines of a flat `[kind, r0, c0, r1, c1, …]`.
fn parse_highlights(flat: &[u32]) -> Result<Vec<Highlight>, JsError> {
    if !flat.len().is_multiple_of(5) {
        return Err(js_err(format!(
            "highlights are flat [kind, r0, c0, r1, c1, …]: got {} numbers, not a multiple of 5",
            flat.len()
        )));
    }
    flat.chunks_exact(5)
        .map(|h| {
            let kind = HighlightKind::from_code(h[0]).ok_or_else(|| {
                js_err(format!(
                    "highlight kind {} is not 0 (selected query), 1 (hovered link), 2 (keyboard cursor) or 3 (FlashAttention's tile)",
                    h[0]
                ))
            })?;
            Ok(Highlight { kind, r0: h[1] as usize, c0: h[2] as usize, r1: h[3] as usize, c1: h[4] as usize })
        })
        .collect()
}

fn style(
    dpr: f64,
    dark: bool,
    palette: Option<String>,
    highlights: &[u32],
    show_title: bool,
    fmt: Option<String>,
    contrast: Option<String>,
) -> Result<Style, JsError> {
    let dpr = if dpr.is_finite() { dpr.clamp(0.5, 4.0) } else { 1.0 };
    Ok(Style {
        dpr,
        theme: if dark { Theme::dark() } else { Theme::light() },
        palette,
        annotate: None,
        fmt: parse_fmt(fmt)?,
        contrast: contrast.map_or(Ok(Contrast::Seaborn), |c| Contrast::parse(&c).map_err(js_err))?,
        highlights: parse_highlights(highlights)?,
        show_title,
        show_labels: true,
    })
}

/// The cells and the colour bar are rasterised in Rust and copied with one `putImageData` per buffer (a fillStyle
/// and a fillRect per cell and colour-bar band cost ~80 canvas calls on a 4 × 3 grid), unless a small grid has
/// NaN or ±∞ cells: their hatches are antialiased lines, drawn by plotters shape by shape.
fn draw_on_canvas(view: &views::View, style: &Style, canvas: HtmlCanvasElement) -> Result<Layout, JsError> {
    let colors = Colors::of_view(view, style.palette.as_deref());
    let layout = Layout::new(view, &colors, style, canvas.width(), canvas.height());
    let context = context_2d(&canvas)?;
    let backend =
        TextCachingCanvas::new(canvas, context.clone()).ok_or_else(|| js_err("cannot draw on this canvas"))?;
    let root = backend.into_drawing_area();
    let shapes = layout.rows * layout.cols <= heatmap::draw::SHAPES_MAX_CELLS && !heatmap::draw::plain(view, &colors);
    if !shapes {
        let bg = style.theme.background;
        context.set_fill_style_str(&format!("rgb({},{},{})", bg[0], bg[1], bg[2]));
        context.fill_rect(0.0, 0.0, layout.width as f64, layout.height as f64);
        for blit in heatmap::raster(view, &colors, &layout, &style.theme) {
            if blit.width == 0 || blit.height == 0 {
                continue;
            }
            let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&blit.rgba), blit.width, blit.height)
                .map_err(|_| js_err("cannot create the image buffer"))?;
            context.put_image_data(&image, blit.x as f64, blit.y as f64).map_err(|_| js_err("putImageData failed"))?;
        }
    }
    heatmap::draw::draw(&root, view, &colors, &layout, style, shapes).map_err(js_err)?;
    Ok(layout)
}

fn context_2d(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, JsError> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or_else(|| js_err("this canvas has no 2D context"))
}
