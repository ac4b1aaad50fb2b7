//! The thin shell between JavaScript and the pure core: strings and typed
//! arrays in, plain objects and typed arrays out.
//!
//! Nothing here computes; every function parses, calls the core, and converts.
//! Errors come back as `JsError` with the core's message, never as a panic:
//! the core validates before it computes, and the panic hook below only exists
//! to make a bug visible in the console if one slips through.

use crate::attention::{self, Field, Trace};
use crate::config::Config;
use crate::figure::Figure;
use crate::heatmap::{self, Layout};
use crate::random::{self, RandomState};
use crate::{presets, share, views};
use js_sys::{Array, Float64Array, Object, Reflect};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

thread_local! {
    /// The message of the last panic, for the JS side to report after the trap.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

mod args;
mod ask;
mod canvas;
mod command;
mod compute;
mod draw;
mod large;
mod learn;
mod model;
mod snapshot;
mod steppers;
pub use compute::{compute_flat, TraceInMemory};

#[wasm_bindgen(start)]
pub fn start() {
    // A panic aborts (traps) the call that hit it; the hook keeps its message so
    // the console and the element can say what went wrong. Module memory is
    // untouched by a trap, so the next call works.
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("attention-viz internal error: {message}").into());
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(message));
    }));
}

/// The message of the last panic, once (then `undefined` until the next one).
#[wasm_bindgen(js_name = takeLastPanic)]
pub fn take_last_panic() -> Option<String> {
    LAST_PANIC.with(|p| p.borrow_mut().take())
}

/// Panics on purpose: the tests use it to prove an internal error leaves the module working.
#[wasm_bindgen(js_name = forceInternalError)]
pub fn force_internal_error() {
    panic!("forced internal error (a test of the panic path)");
}

/// Validates `config_json` and runs it; the result is
/// `{mechanism, scale, query_index, fields: {name: {shape, data}}}`.
#[wasm_bindgen(js_name = computeJson)]
pub fn compute_json(config_json: &str) -> Result<Object, JsError> {
    let (config, trace) = config_and_trace(config_json)?;
    Ok(trace_object(&config, &trace))
}

/// A config from JSON text and its trace: what `computeJson` and `computeJsonInMemory` share.
pub(crate) fn config_and_trace(config_json: &str) -> Result<(Config, Trace), JsError> {
    let config = Config::from_json(config_json).map_err(|e| JsError::new(&e.0))?;
    let trace = attention::compute(&config).map_err(|e| JsError::new(&e.0))?;
    Ok((config, trace))
}

/// The normalised form of a config (defaults filled in), as JSON.
#[wasm_bindgen(js_name = normalizeConfig)]
pub fn normalize_config(config_json: &str) -> Result<String, JsError> {
    let config = Config::from_json(config_json).map_err(|e| JsError::new(&e.0))?;
    Ok(config.to_value().to_string())
}

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

/// The longest share state the core restores (`share::MAX_LEN`): `persist` never saves a longer
/// one. Read by the element from here, so no copy of the number can drift.
#[wasm_bindgen(js_name = shareMaxLen)]
pub fn share_max_len() -> f64 {
    share::MAX_LEN as f64
}

#[wasm_bindgen(js_name = presetNames)]
pub fn preset_names() -> Vec<String> {
    presets::NAMES.iter().map(|s| s.to_string()).collect()
}

#[wasm_bindgen(js_name = presetJson)]
pub fn preset_json(name: &str) -> Option<String> {
    presets::preset(name).map(|c| c.to_value().to_string())
}

/// `text::cut` for messages the JS shell makes about what a reader typed (www/element/cells.js), so quoted input
/// is cut by one rule; www/arrays.js (which runs without the core) keeps a copy that the tests check against this.
#[wasm_bindgen(js_name = cutText)]
pub fn cut_text(text: &str) -> String {
    crate::text::cut(text)
}

/// Float32 values as their shortest decimals (`math::decimal::shortest`): the numbers of a field Python sent as float32
/// bytes (the element's `unpack`), which its JSON held as NumPy prints them.
#[wasm_bindgen(js_name = shortestDecimals)]
pub fn shortest_decimals(values: &[f32]) -> Vec<f64> {
    use crate::math::decimal::{shortest, Narrow};
    values.iter().map(|&x| shortest(f64::from(x), Narrow::F32)).collect()
}

/// The name the core gives row `i` (from 0) of a config that names none (`config::token_name`): what the element's
/// "+ token" and Import… call the rows they add, so a row added reads as one the core made.
#[wasm_bindgen(js_name = defaultToken)]
pub fn default_token(self_attention: bool, i: usize) -> String {
    crate::config::token_name(if self_attention { crate::config::SELF_TOKENS } else { crate::config::CROSS_TOKENS }, i)
}

/// The most values a figure takes (`weights::MAX_VALUES`): www/arrays.js refuses larger arrays before building them
/// (it runs without the core, so it keeps a copy that the tests check against this).
#[wasm_bindgen(js_name = maxValues)]
pub fn max_values() -> usize {
    crate::weights::MAX_VALUES
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

    /// `count` integers in [low, high), as float64 (exact up to 2^53). `count` is checked
    /// ([`random::check_count`]) before anything is allocated, as for `rand` and `randn`.
    pub fn randint(&mut self, low: f64, high: f64, count: f64) -> Result<Float64Array, JsError> {
        let low = int64(low, "low")?;
        let high = int64(high, "high")?;
        let rs = &mut self.0;
        filled(count, |n| {
            let values = rs.randint(low, high, n).map_err(|e| JsError::new(&e))?;
            Ok(values.into_iter().map(|x| x as f64).collect())
        })
    }

    pub fn rand(&mut self, count: f64) -> Result<Float64Array, JsError> {
        let rs = &mut self.0;
        filled(count, |n| Ok(rs.rand(n)))
    }

    pub fn randn(&mut self, count: f64) -> Result<Float64Array, JsError> {
        let rs = &mut self.0;
        filled(count, |n| Ok(rs.randn(n)))
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

/// One attention figure: the state the `<attention-viz>` element edits and draws, behind four calls. `edit` applies
/// one change (src/web/command.rs reads it into the core's `Edit`; `Figure::apply` takes it all-or-nothing) and
/// answers with the snapshot of what it changed (snapshot.rs); `ask` answers one question about the figure
/// (ask.rs); `draw` paints one drawing of it on a canvas (draw.rs). A refused edit throws the core's message and
/// leaves the last valid figure on screen.
#[wasm_bindgen]
pub struct Viz {
    /// The config, its trace and what the edits remember (the last Randomize, the reader's kept W_O, the author's config).
    figure: Figure,
    /// Per view, the layout of its drawing on screen and the element's key of that drawing (the view's snapshot key,
    /// size, fmt…): a hover redraws outlines and hit-tests many times a second over cells that do not change, and at
    /// n = 1024 building the view and its layout again was most of that (`layers`, `cellAt`, `cellRect`).
    layouts: RefCell<HashMap<String, (String, Rc<Layout>)>>,
}

fn js_err(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

#[wasm_bindgen]
impl Viz {
    /// A figure of `config` (JSON text), or with `names`, `shapes` and `data` of `config`'s other fields (JSON) and
    /// its matrices sent flat (see `computeFlat`). Throws the core's message for a config it refuses, and `null` when
    /// a flat config's other fields are not JSON (the caller then sends it whole as JSON).
    #[wasm_bindgen(constructor)]
    pub fn create(
        config: &str,
        names: Option<Vec<String>>,
        shapes: Option<Vec<u32>>,
        data: Option<Vec<f64>>,
    ) -> Result<Viz, JsValue> {
        let Some(names) = names else { return Ok(Viz::new(config)?) };
        let flat = compute::flat_config_owned(config, &names, &shapes.unwrap_or_default(), data.unwrap_or_default())?;
        let Some(config) = flat else { return Err(JsValue::NULL) };
        Ok(Viz::of(config)?)
    }

    /// Applies one edit (see command.rs for the commands) and, with a `request` (`{views, fmt, fields, parts}`), returns
    /// the snapshot of the new state (snapshot.rs); without one, `{}`. A restored state's snapshot says `naive`, the
    /// naive-softmax flag it carries. Throws the core's message and changes nothing when the edit is refused, and
    /// throws `null` (changing nothing) for a flat config whose other fields are not JSON.
    pub fn edit(&mut self, edit: JsValue, request: JsValue) -> Result<JsValue, JsValue> {
        let Some(edit) = command::parse(&edit)? else { return Err(JsValue::NULL) };
        Ok(self.edited(edit, &request)?.into())
    }

    /// One question about the figure (see ask.rs), answered without changing it. Takes the figure mutably, as an edit
    /// does: a call a bug trapped in the middle of leaves the figure borrowed, and every question then throws
    /// (`{kind: "usable"}` is how the element finds out that it must replace it).
    pub fn ask(&mut self, question: JsValue) -> Result<JsValue, JsError> {
        let question = ask::Question::parse(&question)?;
        self.answer(question)
    }

    /// Draws on `canvas` (sized in device pixels): a view's heatmap, its layers (the heatmap and, on an overlay canvas,
    /// its outlines), or a weights figure's line view (see draw.rs for `what`).
    pub fn draw(&self, canvas: HtmlCanvasElement, what: JsValue) -> Result<(), JsError> {
        let what = draw::Drawing::parse(&what)?;
        self.paint(canvas, what)
    }
}

/// What the bindings' own modules (and the module's free functions) use of a figure.
impl Viz {
    /// A figure of a config's JSON text.
    pub fn new(config_json: &str) -> Result<Viz, JsError> {
        Viz::of(Config::from_json(config_json).map_err(js_err)?)
    }

    fn of(config: Config) -> Result<Viz, JsError> {
        Ok(Viz { figure: Figure::new(config).map_err(js_err)?, layouts: RefCell::default() })
    }

    fn config(&self) -> &Config {
        self.figure.config()
    }

    /// A standalone SVG of a view at its preferred size.
    pub fn to_svg(
        &self,
        view: &str,
        palette: Option<String>,
        fmt: Option<String>,
        contrast: Option<String>,
    ) -> Result<String, JsError> {
        let view = self.view(view)?;
        heatmap::to_svg(&view, &draw::style(1.0, false, palette, &[], true, fmt, contrast)?).map_err(js_err)
    }

    fn view(&self, name: &str) -> Result<views::View<'_>, JsError> {
        views::view(self.config(), self.figure.trace(), name).map_err(js_err)
    }
}

/// Refuses a palette name the heatmaps do not know (they would draw their default colours) with a message that
/// says which names they take.
#[wasm_bindgen(js_name = checkPalette)]
pub fn check_palette(name: &str) -> Result<(), JsError> {
    heatmap::palette::check_name(name).map_err(js_err)
}

/// A standalone SVG of one view of a config.
#[wasm_bindgen(js_name = renderSvg)]
pub fn render_svg(
    config_json: &str,
    view: &str,
    palette: Option<String>,
    fmt: Option<String>,
) -> Result<String, JsError> {
    Viz::new(config_json)?.to_svg(view, palette, fmt, None)
}
