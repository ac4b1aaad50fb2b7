//! The thin shell between JavaScript and the pure core: strings and typed
//! arrays in, plain objects and typed arrays out.
//!
//! Nothing here computes; every function parses, calls the core, and converts.
//! Errors come back as `JsError` with the core's message, never as a panic:
//! the core validates before it computes, and the panic hook (calls.rs) only
//! exists to make a bug visible in the console if one slips through.

use crate::attention::{Field, Trace, Wanted, FLASH_STEP_NUMBERS};
use crate::config::Config;
use crate::figure::Figure;
use crate::heatmap::{self, Layout};
use crate::views;
use js_sys::{Array, Float64Array, Object, Reflect};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

mod args;
mod ask;
mod calls;
mod canvas;
mod command;
mod compute;
mod draw;
#[cfg(feature = "full")]
mod large;
#[cfg(feature = "full")]
mod learn;
#[cfg(feature = "full")]
mod model;
#[cfg(feature = "full")]
mod random_state;
mod snapshot;

pub use calls::{call, start};
#[cfg(feature = "full")]
pub use large::LargeJob;
#[cfg(feature = "full")]
pub use learn::JsTrainer;
#[cfg(feature = "full")]
pub use random_state::JsRandomState;

pub(crate) fn trace_object(config: &Config, trace: &Trace) -> Object {
    trace_object_with(config.query, trace, Values::Copied, &Wanted::ALL)
}

/// Where a trace object's values are: copied out (a Float64Array each), or left where they sit in WASM memory.
#[derive(Clone, Copy)]
pub(crate) enum Values {
    Copied,
    /// `offset`: where a field's values start in a Float64Array over the module's memory.
    InPlace,
}

/// Where `data` starts in a Float64Array over the module's memory.
fn offset_of(data: &[f64]) -> usize {
    data.as_ptr() as usize / std::mem::size_of::<f64>()
}

/// `{mechanism, scale, query_index, fields: {name: {shape, …}}, flash_steps}`, each field's values in its entry as
/// `values` says (`data`, or `offset`). With FlashAttention's tiles, `flash_steps: {table, width, o_cols, data}`: the
/// steps as `attention::Flash::table` writes them (a Float64Array, `width` numbers a step), their m, l and o at
/// offsets into `data` (copied) or into the module's memory (in place, no `data`). Only the fields `wanted` are
/// there (and `query_index` with `query`).
pub(crate) fn trace_object_with(query: usize, trace: &Trace, values: Values, wanted: &Wanted) -> Object {
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
        if wanted.wants("query") {
            set(&out, "query_index", &(query as f64).into());
        }
    }
    let fields = Object::new();
    let put = match values {
        Values::Copied => copied,
        Values::InPlace => |entry: &Object, field: &Field| set(entry, "offset", &(offset_of(field.data) as f64).into()),
    };
    for field in trace.fields().into_iter().filter(|f| wanted.field(&f.name)) {
        set(&fields, &field.name, &field_object(&field, put));
    }
    set(&out, "fields", &fields);
    if let Some(flash) = trace.flash().filter(|_| wanted.wants("flash")) {
        let steps = Object::new();
        let table = match values {
            Values::Copied => {
                let mut data = Vec::new();
                let table = flash.table(|v| {
                    data.extend_from_slice(v);
                    data.len() - v.len()
                });
                set(&steps, "data", &Float64Array::from(&data[..]));
                table
            }
            Values::InPlace => flash.table(offset_of),
        };
        set(&steps, "table", &Float64Array::from(&table[..]));
        set(&steps, "width", &(FLASH_STEP_NUMBERS as f64).into());
        set(&steps, "o_cols", &(flash.o_cols() as f64).into());
        set(&out, "flash_steps", &steps);
    }
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

    /// View `name`, the cells the last edit changed marked (`Figure::view`).
    fn view(&self, name: &str) -> Result<views::View<'_>, JsError> {
        self.figure.view(name).map(|(view, _)| view).map_err(js_err)
    }

    /// View `name` and its status after the last edit ("3 of 16 changed", "unchanged"; `None` before any edit).
    fn view_status(&self, name: &str) -> Result<(views::View<'_>, Option<String>), JsError> {
        self.figure.view(name).map_err(js_err)
    }
}
