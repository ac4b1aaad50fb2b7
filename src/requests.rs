//! The questions the shells ask the core by name, read and answered in one place: a request is a kind and a JSON
//! object of fields, with f64s beside it for the big matrices; [`Request::parse`] reads it into a [`Request`] (a bad
//! request is an internal error: the shells write them), [`Request::answer`] runs it. The browser's `call` (src/web/
//! calls.rs) and Python's `av_*` exports (src/ffi.rs) both come here, so a question both ask (check, normalize,
//! compute, text, shortest decimals, facts) has one answer; each shell only turns the [`Answer`] into its own values.
//!
//! A config travels as its fields (`config`: a JSON value, Python's; or `config_json`: JSON text, the browser's, whose
//! parse errors are the config's own) and `flat`: `[{name, shape}…]`, the matrices sent as f64s one after another,
//! row-major. The requests of the browser's stateful objects (a large figure's job, a trainer, a `RandomState`) are
//! read here too ([`JobRequest`], [`TrainerRequest`], [`RandomRequest`]); their objects answer them.

use crate::attention::{self, Trace, Wanted};
use crate::config::{self, Config, Flat};
use crate::heatmap;
#[cfg(feature = "full")]
use crate::heatmap::format::format_g;
#[cfg(feature = "full")]
use crate::heatmap::{Contrast, Fmt, Style, Theme};
#[cfg(feature = "full")]
use crate::learn::{self, Task};
use crate::math::decimal::{shortest, Narrow};
#[cfg(feature = "full")]
use crate::picture::Options;
#[cfg(feature = "full")]
use crate::picture::{self, large_svg, LargeView, Pooling};
use crate::presets;
use crate::text::{closest, cut, quote};
#[cfg(feature = "full")]
use crate::views;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::cell::RefCell;

thread_local! {
    /// The message of the last panic (a bug: it traps), for the shell to ask once the trap is caught.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps a panic's message (the shells' panic hooks call this) for [`Request::LastPanic`].
pub fn keep_panic(message: String) {
    LAST_PANIC.with(|p| *p.borrow_mut() = Some(message));
}

/// The message of the last panic, once (then `None` until the next one).
pub fn take_panic() -> Option<String> {
    LAST_PANIC.with(|p| p.borrow_mut().take())
}

/// One question, read.
pub enum Request {
    /// Validates a config: the name of the mechanism it shows, as the core infers it.
    Check(Parts),
    /// Refuses a config by the shapes its `flat` entries declare, before any value is read (no f64s are sent).
    CheckDeclared(Parts),
    /// The config with every default filled in.
    Normalize(Parts),
    /// The config's trace, of the fields wanted (compute()'s `fields` option: `fields`, absent for all).
    Compute(Parts, Wanted),
    #[cfg(feature = "full")]
    /// The static picture `{svg, alt}` (`picture::picture`, or the refusal drawn).
    Picture(Parts, Options),
    #[cfg(feature = "full")]
    /// The thumbnails' side of the overview of a stack of this shape a figure cannot hold, or nothing
    /// (`picture::overview_raster`).
    OverviewRaster([usize; 4]),
    #[cfg(feature = "full")]
    /// The overview `{svg, alt}` of such a stack from its thumbnails (the f64s), the head drawn in full outlined.
    Overview { shape: [usize; 4], selected: (usize, usize), options: Options },
    #[cfg(feature = "full")]
    /// The element options the core reads (`palette`, `fmt`, `contrast`), checked when read.
    Options(Options),
    /// A palette name checked as the heatmaps read it (the element's `palette` attribute, in either core).
    Palette(String),
    #[cfg(feature = "full")]
    /// One element option's attribute text or its message, or an unknown name's message (`options::answer`).
    ElementOption(Result<String, String>),
    #[cfg(feature = "full")]
    /// One view of a config as a standalone SVG (renderSVG).
    Svg { parts: Parts, view: String, palette: Option<String>, fmt: Option<String> },
    /// Whether the large figure's worker takes a config the page's cost bound refuses (`config::worker_takes`).
    LargeTakes(Parts),
    /// User text as the core's messages quote or cut it, as its SVGs write it, or the name a "did you mean" offers.
    Text(TextRequest),
    /// Float32 or float16 values (the f64s, each one of that type's exactly) as their shortest decimals.
    Shortest(Narrow),
    /// The core's facts a shell needs as data: the config's fields, the limits, the presets' configs.
    Facts,
    /// What the element says of its `height` attribute (`options::height_note`); nothing when it is drawn as asked.
    HeightNote { text: String, value: f64 },
    /// Why a paste of `length` characters into an input grid is not read (`controls::paste_refused`); nothing when it
    /// is.
    PasteLength(usize),
    /// A number field's text read (`text::cell_number`): `{value}` or `{error}`, the message the field shows.
    CellNumber(String),
    /// A whole-number field's text read (`text::whole_number`): the number, or null when it is not digits alone.
    WholeNumber(String),
    #[cfg(feature = "full")]
    /// The tooltip's text of one cell of a large figure's view: its labels and its value to 6 significant digits.
    LargeCellText { row: String, col: String, value: f64 },
    #[cfg(feature = "full")]
    /// What a large figure says where it cannot do what a small one does (www/element/large.js).
    LargeMessage { what: String, view: String, shown: Vec<String> },
    #[cfg(feature = "full")]
    /// A large view as a standalone SVG from the pieces the page holds (`picture::large_svg`).
    LargeSvg(LargeSvgRequest),
    #[cfg(feature = "full")]
    /// The tasks `train()` knows and their default steps: `[{name, steps}…]`.
    Tasks,
    #[cfg(feature = "full")]
    /// One input sequence of a task as its training draws them, from `RandomState(seed)`; nothing for no task.
    TaskExample { task: String, seed: u32 },
    #[cfg(feature = "full")]
    /// The shipped models' names.
    ModelNames,
    /// Panics on purpose: the tests prove an internal error leaves the module working.
    Panic,
    /// The message of the last panic, once ([`take_panic`]); nothing when there was none since.
    LastPanic,
    #[cfg(feature = "full")]
    /// The shipped models, which the browser's bindings hold (src/web/learn.rs answers these).
    Models(ModelsRequest),
}

/// The shipped models' requests: the browser fetches their file beside the .wasm and hands it over.
pub enum ModelsRequest {
    /// The models file's text, parsed on first use.
    Load(String),
    /// Why the models file could not be had: a config naming a shipped model says so.
    Failed(String),
    /// A shipped model as the JSON text of `Model::to_json`; nothing for a name that is not one.
    Json(String),
    /// compute()'s `{mechanism: "model", model, input}` (its JSON text): the forward pass.
    Compute(String),
}

/// [`Request::Text`]'s question.
pub enum TextRequest {
    Quote(String),
    Cut(String),
    Xml(String),
    Closest { name: String, among: Vec<String> },
}

#[cfg(feature = "full")]
/// [`Request::LargeSvg`]'s pieces: `picture::LargeView`'s, owned.
pub struct LargeSvgRequest {
    title: String,
    rows: usize,
    cols: usize,
    block: [usize; 2],
    pooling: Pooling,
    image: String,
    bar: String,
    ticks: Vec<(f64, String)>,
    offset: String,
    shown: [f64; 2],
}

/// A large figure's job, one step per request (src/web/large.rs).
pub enum JobRequest {
    /// The line the figure shows while step `0`, `1` or `2` runs.
    Progress(usize),
    /// Step 0: the followed head's Q, K, V.
    Project,
    /// Step 1: its scores, scaled scores, weights and context.
    Attend,
    /// Step 2, per view: its values, image, colour bar and texts.
    View { name: String, max_px: usize, bar_px: f64, palette: Option<String> },
    /// `{tokens, scale}`: the rows of every view and the scale the scores were divided by.
    Result,
}

/// A trainer's requests (`train()`'s worker).
pub enum TrainerRequest {
    /// Takes `n` steps: `[step, loss]` after them.
    Step(usize),
    /// `{step, loss, accuracy, model}`: where it is, the held-out accuracy, the model's JSON text.
    Report,
}

/// A `RandomState`'s requests; the counts are checked by the state (`random::check_count`).
pub enum RandomRequest {
    Seed(f64),
    Randint { low: f64, high: f64, count: f64 },
    Rand(f64),
    Randn(f64),
}

/// What a request answers; each shell writes it its own way.
pub enum Answer {
    /// A string (Python: the text answer).
    Text(String),
    /// A JSON value (the browser: a plain object; Python: its text).
    Json(Value),
    /// Numbers (the browser: a Float64Array; Python: `{}` and the f64s).
    Numbers(Vec<f64>),
    /// A computed trace (the browser keeps it in WASM memory; Python gets its layout and values), the followed query,
    /// and the fields wanted: the layout lists only theirs.
    Trace {
        query: usize,
        trace: Trace,
        wanted: Wanted,
    },
    Flag(bool),
    /// Nothing to say (the browser: `undefined`; Python: `{}`).
    Nothing,
}

/// A config as a request carries it: the fields without the flat matrices (or why their text does not parse), and
/// each flat matrix's name and shape (a dimension past usize is usize::MAX, which every limit refuses).
pub struct Parts {
    rest: Result<Value, String>,
    flat: Vec<(String, Vec<usize>)>,
}

/// A request's fields, read with messages that name the request and the field.
struct Fields {
    kind: String,
    map: Map<String, Value>,
}

impl Fields {
    fn bad(&self, key: &str, what: &str) -> String {
        format!("attention-viz internal error: request {}: {key} must be {what}", quote(&self.kind))
    }

    fn take(&mut self, key: &str) -> Value {
        self.map.remove(key).unwrap_or(Value::Null)
    }

    fn text(&mut self, key: &str) -> Result<String, String> {
        match self.take(key) {
            Value::String(s) => Ok(s),
            _ => Err(self.bad(key, "text")),
        }
    }

    fn optional_text(&mut self, key: &str) -> Result<Option<String>, String> {
        match self.take(key) {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s)),
            _ => Err(self.bad(key, "text or absent")),
        }
    }

    #[cfg(feature = "full")]
    fn texts(&mut self, key: &str) -> Result<Vec<String>, String> {
        let Value::Array(items) = self.take(key) else { return Err(self.bad(key, "a list of texts")) };
        items
            .into_iter()
            .map(|v| if let Value::String(s) = v { Ok(s) } else { Err(self.bad(key, "a list of texts")) })
            .collect()
    }

    /// A number, or the text "NaN", "Infinity" or "-Infinity" (JSON has no non-finite numbers).
    fn number(&mut self, key: &str) -> Result<f64, String> {
        let value = self.take(key);
        number_of(&value).ok_or_else(|| self.bad(key, "a number"))
    }

    #[cfg(feature = "full")]
    fn numbers(&mut self, key: &str) -> Result<Vec<f64>, String> {
        let Value::Array(items) = self.take(key) else { return Err(self.bad(key, "a list of numbers")) };
        items.iter().map(|v| number_of(v).ok_or_else(|| self.bad(key, "a list of numbers"))).collect()
    }

    /// A whole number ≥ 0 (one past usize is usize::MAX).
    fn index(&mut self, key: &str) -> Result<usize, String> {
        let value = self.take(key);
        value.as_u64().map(saturating).ok_or_else(|| self.bad(key, "a whole number ≥ 0"))
    }
}

fn number_of(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s == "NaN" => Some(f64::NAN),
        Value::String(s) if s == "Infinity" => Some(f64::INFINITY),
        Value::String(s) if s == "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

fn saturating(d: u64) -> usize {
    usize::try_from(d).unwrap_or(usize::MAX)
}

/// A request's text as JSON (config::json), or [`unreadable`]'s words for it.
pub fn read_json(text: &str) -> Result<Value, String> {
    config::json::parse(text).map_err(|e| unreadable(text, &e))
}

/// Why a request's text does not parse: a config nested past serde_json's limit gets the words the page's compute()
/// gets for it (Python's lists can nest so); anything else is the shell's fault.
pub fn unreadable(text: &str, e: &config::json::Error) -> String {
    match config::too_deep(text, e) {
        Some(path) if path.first().is_some_and(|k| k == "config") => {
            config::nested_message(path.get(1).map_or("config", String::as_str))
        }
        _ => "attention-viz internal error: the request is not a JSON object".into(),
    }
}

/// A request object's kind (`{"kind": …}`, the browser's requests) and its other fields.
pub fn kind_of(value: Value) -> Result<(String, Map<String, Value>), String> {
    let Value::Object(mut map) = value else {
        return Err("attention-viz internal error: a request is an object with a kind".into());
    };
    match map.remove("kind") {
        Some(Value::String(kind)) => Ok((kind, map)),
        _ => Err("attention-viz internal error: a request names its kind (text)".into()),
    }
}

impl Request {
    /// The request `kind` with `fields`.
    pub fn parse(kind: &str, fields: Map<String, Value>) -> Result<Request, String> {
        let mut f = Fields { kind: kind.to_string(), map: fields };
        Ok(match kind {
            "check" => Request::Check(Parts::parse(&mut f)?),
            "check_declared" => Request::CheckDeclared(Parts::parse(&mut f)?),
            "normalize" => Request::Normalize(Parts::parse(&mut f)?),
            "compute" => Request::Compute(Parts::parse(&mut f)?, wanted(f.take("fields"))?),
            #[cfg(feature = "full")]
            "picture" => Request::Picture(Parts::parse(&mut f)?, options_of(&mut f)?),
            #[cfg(feature = "full")]
            "overview_raster" => Request::OverviewRaster(shape_of(&mut f)?),
            #[cfg(feature = "full")]
            "overview" => Request::Overview {
                shape: shape_of(&mut f)?,
                selected: (f.index("selected_layer")?, f.index("selected_head")?),
                options: options_of(&mut f)?,
            },
            #[cfg(feature = "full")]
            "options" => match crate::options::answer(&f.map) {
                Some(answered) => Request::ElementOption(answered),
                None => Request::Options(options_of(&mut f)?),
            },
            #[cfg(feature = "full")]
            "svg" => Request::Svg {
                parts: Parts::parse(&mut f)?,
                view: f.text("view")?,
                palette: f.optional_text("palette")?,
                fmt: f.optional_text("fmt")?,
            },
            "palette" => Request::Palette(f.text("name")?),
            "large_takes" => Request::LargeTakes(Parts::parse(&mut f)?),
            "text" => Request::Text(TextRequest::parse(&mut f)?),
            "shortest" => Request::Shortest(match f.take("dtype").as_str() {
                Some("float32") => Narrow::F32,
                Some("float16") => Narrow::F16,
                _ => return Err(f.bad("dtype", "\"float32\" or \"float16\"")),
            }),
            "facts" => Request::Facts,
            "height_note" => Request::HeightNote { text: f.text("text")?, value: f.number("value")? },
            "paste_length" => Request::PasteLength(f.index("length")?),
            "cell_number" => Request::CellNumber(f.text("text")?),
            "whole_number" => Request::WholeNumber(f.text("text")?),
            #[cfg(feature = "full")]
            "large_cell_text" => {
                Request::LargeCellText { row: f.text("row")?, col: f.text("col")?, value: f.number("value")? }
            }
            #[cfg(feature = "full")]
            "large_message" => {
                Request::LargeMessage { what: f.text("what")?, view: f.text("view")?, shown: f.texts("shown")? }
            }
            #[cfg(feature = "full")]
            "large_svg" => Request::LargeSvg(LargeSvgRequest::parse(&mut f)?),
            #[cfg(feature = "full")]
            "tasks" => Request::Tasks,
            #[cfg(feature = "full")]
            "task_example" => {
                let task = f.text("task")?;
                let seed = f.number("seed")?;
                if !(seed.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&seed)) {
                    return Err(f.bad("seed", "a whole number from 0 to 2**32 - 1"));
                }
                Request::TaskExample { task, seed: seed as u32 }
            }
            #[cfg(feature = "full")]
            "model_names" => Request::ModelNames,
            "panic" => Request::Panic,
            "last_panic" => Request::LastPanic,
            #[cfg(feature = "full")]
            "load_models" => Request::Models(ModelsRequest::Load(f.text("text")?)),
            #[cfg(feature = "full")]
            "models_failed" => Request::Models(ModelsRequest::Failed(f.text("reason")?)),
            #[cfg(feature = "full")]
            "model" => Request::Models(ModelsRequest::Json(f.text("name")?)),
            #[cfg(feature = "full")]
            "compute_model" => {
                if !f.take("fields").is_null() {
                    return Err(MODEL_FIELDS.into());
                }
                Request::Models(ModelsRequest::Compute(f.text("config_json")?))
            }
            _ => return Err(format!("attention-viz internal error: no request is called {}", quote(kind))),
        })
    }

    /// The answer, or the core's message; `data`: the request's f64s.
    pub fn answer(self, data: Cow<[f64]>) -> Result<Answer, String> {
        let config = |parts: &Parts| parts.config_or_why(&data);
        match self {
            Request::Check(parts) => Ok(Answer::Text(config(&parts)?.mechanism.name().to_string())),
            Request::CheckDeclared(parts) => {
                if let Ok(rest) = &parts.rest {
                    config::check_declared_shapes(rest, &parts.declared()).map_err(|e| e.0)?;
                }
                Ok(Answer::Nothing)
            }
            Request::Normalize(parts) => Ok(Answer::Json(config(&parts)?.to_value())),
            Request::Compute(parts, wanted) => match parts.config(&data)? {
                // The rest of a flat config does not parse: the caller sends the whole config as JSON, whose message
                // places the problem in it.
                None => Ok(Answer::Nothing),
                Some(config) => {
                    let trace = attention::compute_wanted(&config, &wanted).map_err(|e| e.0)?;
                    Ok(Answer::Trace { query: config.query, trace, wanted })
                }
            },
            #[cfg(feature = "full")]
            Request::Picture(parts, options) => {
                // A config the core refuses gets a picture of the refusal: the page shows the same message.
                let drawn = config(&parts).and_then(|config| {
                    let trace = attention::compute(&config).map_err(|e| e.0)?;
                    picture::picture(&config, &trace, &options)
                });
                let (svg, alt) = drawn.unwrap_or_else(|message| picture::refused(&message, options.dark));
                Ok(Answer::Json(json!({"svg": svg, "alt": alt})))
            }
            #[cfg(feature = "full")]
            Request::OverviewRaster(shape) => Ok(Answer::Json(json!(picture::overview_raster(shape)))),
            #[cfg(feature = "full")]
            Request::Overview { shape, selected, options } => {
                let (svg, alt) = picture::overview(data.into_owned(), shape, selected, &options)?;
                Ok(Answer::Json(json!({"svg": svg, "alt": alt})))
            }
            #[cfg(feature = "full")]
            Request::Options(_) => Ok(Answer::Nothing),
            #[cfg(feature = "full")]
            Request::ElementOption(answered) => answered.map(Answer::Text),
            #[cfg(feature = "full")]
            Request::Svg { parts, view, palette, fmt } => svg(&config(&parts)?, &view, palette, fmt).map(Answer::Text),
            Request::Palette(name) => crate::heatmap::palette::check_name(&name).map(|()| Answer::Nothing),
            Request::LargeTakes(parts) => Ok(Answer::Flag(match &parts.rest {
                Ok(rest) => config::worker_takes(rest, &parts.declared()),
                Err(_) => false,
            })),
            Request::Text(text) => text.answer().map(Answer::Text),
            Request::Shortest(ty) => {
                let mut values = data.into_owned();
                values.iter_mut().for_each(|x| *x = shortest(*x, ty));
                Ok(Answer::Numbers(values))
            }
            Request::Facts => Ok(Answer::Json(facts())),
            Request::HeightNote { text, value } => {
                Ok(crate::options::height_note(&text, value).map_or(Answer::Nothing, Answer::Text))
            }
            Request::PasteLength(length) => {
                Ok(crate::controls::paste_refused(length).map_or(Answer::Nothing, Answer::Text))
            }
            Request::CellNumber(text) => Ok(Answer::Json(match crate::text::cell_number(&text) {
                Ok(x) => json!({ "value": x }),
                Err(error) => json!({ "error": error }),
            })),
            Request::WholeNumber(text) => Ok(Answer::Json(json!(crate::text::whole_number(&text)))),
            #[cfg(feature = "full")]
            Request::LargeCellText { row, col, value } => {
                Ok(Answer::Text(format!("{row}, {col}: {}", format_g(value, 6))))
            }
            #[cfg(feature = "full")]
            Request::LargeMessage { what, view, shown } => Ok(Answer::Text(large_message(&what, &view, &shown))),
            #[cfg(feature = "full")]
            Request::LargeSvg(pieces) => pieces.svg().map(Answer::Text),
            #[cfg(feature = "full")]
            Request::Tasks => Ok(Answer::Json(Value::Array(
                Task::ALL.iter().map(|t| json!({"name": t.name(), "steps": t.steps()})).collect(),
            ))),
            #[cfg(feature = "full")]
            Request::TaskExample { task, seed } => Ok(match Task::from_name(&task) {
                Some(task) => Answer::Json(json!(task.example(&mut crate::random::RandomState::new(seed)).input)),
                None => Answer::Nothing,
            }),
            #[cfg(feature = "full")]
            Request::ModelNames => Ok(Answer::Json(json!(learn::PRESETS))),
            Request::Panic => panic!("forced internal error (a test of the panic path)"),
            Request::LastPanic => Ok(take_panic().map_or(Answer::Nothing, Answer::Text)),
            #[cfg(feature = "full")]
            Request::Models(_) => Err("attention-viz internal error: the shipped models are the browser's".into()),
        }
    }
}

impl Parts {
    /// A config's fields as a request carries them (`config` or `config_json`, and `flat`), alone.
    pub fn read(fields: Map<String, Value>) -> Result<Parts, String> {
        Parts::parse(&mut Fields { kind: "config".into(), map: fields })
    }

    fn parse(f: &mut Fields) -> Result<Parts, String> {
        let rest = match (f.take("config_json"), f.take("config")) {
            (Value::String(text), _) => config::parse_json(&text).map_err(|e| e.0),
            (Value::Null, value) => Ok(value),
            _ => return Err(f.bad("config_json", "text")),
        };
        let flat = match f.take("flat") {
            Value::Null => Vec::new(),
            Value::Array(list) => list
                .iter()
                .map(|entry| {
                    let name = entry.get("name").and_then(Value::as_str).map(str::to_string);
                    let shape: Option<Vec<usize>> = entry
                        .get("shape")
                        .and_then(Value::as_array)
                        .and_then(|s| s.iter().map(|d| d.as_u64().map(saturating)).collect());
                    name.zip(shape)
                        .ok_or_else(|| "attention-viz internal error: a flat entry needs name and shape".into())
                })
                .collect::<Result<_, String>>()?,
            _ => return Err(f.bad("flat", "a list of {name, shape}")),
        };
        Ok(Parts { rest, flat })
    }

    fn declared(&self) -> Vec<(&str, Vec<usize>)> {
        self.flat.iter().map(|(n, s)| (n.as_str(), s.clone())).collect()
    }

    /// [`Parts::config`], where the rest of a flat config that does not parse is refused with its own message.
    pub fn config_or_why(&self, data: &[f64]) -> Result<Config, String> {
        self.config(data)?.ok_or_else(|| self.rest.as_ref().err().cloned().unwrap_or_default())
    }

    /// The config, validated as compute() validates it: the shapes its flat matrices declare first (a stack over the
    /// limit is refused from its shape), then every field. `None` when the text of the rest of a config whose matrices
    /// came flat does not parse (a config sent whole gets that message).
    pub fn config(&self, data: &[f64]) -> Result<Option<Config>, String> {
        let rest = match &self.rest {
            Ok(rest) => rest,
            Err(message) if self.flat.is_empty() => return Err(message.clone()),
            Err(_) => return Ok(None),
        };
        config::check_declared_shapes(rest, &self.declared()).map_err(|e| e.0)?;
        let inconsistent = || "attention-viz internal error: the flat values do not match their shapes".to_string();
        let mut flat = Vec::with_capacity(self.flat.len());
        let mut data = data;
        for (name, shape) in &self.flat {
            let len = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).filter(|&l| l <= data.len());
            let (values, tail) = data.split_at(len.ok_or_else(inconsistent)?);
            let f = match shape[..] {
                [rows, cols] => Flat::new(rows, cols, values),
                [heads, rows, cols] => Flat::stacked(1, heads, rows, cols, 3, values),
                [layers, heads, rows, cols] => Flat::stacked(layers, heads, rows, cols, 4, values),
                _ => None,
            };
            flat.push((name.as_str(), f.ok_or_else(inconsistent)?));
            data = tail;
        }
        if !data.is_empty() {
            return Err(inconsistent());
        }
        Config::from_parts(rest, &flat).map(Some).map_err(|e| e.0)
    }
}

/// compute()'s `fields` option given for a trained model's config, whose trace comes whole.
#[cfg(feature = "full")]
const MODEL_FIELDS: &str = "compute: options.fields picks the fields of an attention trace; a trained model's trace \
                            (mechanism \"model\") comes whole: leave fields out";

/// compute()'s `fields` option as the request carries it: absent (null) for every field, else a list of the trace's
/// top-level names (`attention::TRACE_FIELDS`), or the message saying what is wrong with it.
pub fn wanted(fields: Value) -> Result<Wanted, String> {
    let known = Wanted::names();
    let list = match &fields {
        Value::Null => return Ok(Wanted::ALL),
        Value::Array(items) => items.iter().map(Value::as_str).collect::<Option<Vec<&str>>>(),
        _ => None,
    };
    let Some(names) = list else {
        let got = match &fields {
            Value::String(text) => quote(text),
            other => cut(&other.to_string()),
        };
        return Err(format!(
            "compute: options.fields must be a list of trace field names such as [\"weights\", \"context\"], got {got}"
        ));
    };
    Wanted::of(&names).map_err(|name| {
        let hint = closest(&name, &known).map(|k| format!(" (did you mean {}?)", quote(k))).unwrap_or_default();
        format!(
            "compute: options.fields: a trace has no field {}{hint}; its fields are {}",
            quote(&name),
            known.join(", ")
        )
    })
}

#[cfg(feature = "full")]
/// `shape`: a stack's [layers, heads, n, m].
fn shape_of(f: &mut Fields) -> Result<[usize; 4], String> {
    let Value::Array(items) = f.take("shape") else { return Err(f.bad("shape", "[layers, heads, n, m]")) };
    let dims: Option<Vec<usize>> = items.iter().map(|d| d.as_u64().map(saturating)).collect();
    dims.and_then(|d| d.try_into().ok()).ok_or_else(|| f.bad("shape", "[layers, heads, n, m]"))
}

#[cfg(feature = "full")]
/// `options`: `palette`, `fmt`, `contrast`, `theme` ("dark" or light), each checked as the heatmaps read it.
fn options_of(f: &mut Fields) -> Result<Options, String> {
    let o = f.take("options");
    let text = |key: &str| o.get(key).and_then(Value::as_str).map(str::to_string);
    let options = Options {
        palette: text("palette"),
        fmt: text("fmt"),
        contrast: text("contrast"),
        dark: text("theme").as_deref() == Some("dark"),
    };
    options.style()?;
    Ok(options)
}

impl TextRequest {
    fn parse(f: &mut Fields) -> Result<TextRequest, String> {
        if let (Value::String(name), Value::Array(among)) =
            (f.map.get("closest").cloned().unwrap_or_default(), f.take("among"))
        {
            let among =
                among.into_iter().filter_map(|v| if let Value::String(s) = v { Some(s) } else { None }).collect();
            return Ok(TextRequest::Closest { name, among });
        }
        let mut arg = |key: &str| if let Value::String(s) = f.take(key) { Some(s) } else { None };
        match (arg("quote"), arg("cut"), arg("xml")) {
            (Some(t), None, None) => Ok(TextRequest::Quote(t)),
            (None, Some(t), None) => Ok(TextRequest::Cut(t)),
            (None, None, Some(t)) => Ok(TextRequest::Xml(t)),
            _ => Err("attention-viz internal error: a text request is {\"quote\": text}, {\"cut\": text}, \
                      {\"xml\": text} or {\"closest\": name, \"among\": [names]}"
                .into()),
        }
    }

    fn answer(self) -> Result<String, String> {
        Ok(match self {
            TextRequest::Quote(t) => quote(&t),
            TextRequest::Cut(t) => cut(&t),
            TextRequest::Xml(t) => heatmap::draw::xml_chars(&t),
            TextRequest::Closest { name, among } => {
                let known: Vec<&str> = among.iter().map(String::as_str).collect();
                closest(&name, &known).unwrap_or("").to_string()
            }
        })
    }
}

/// A standalone SVG of one view of a config, at its preferred size in seaborn's light style; `palette` is not
/// checked (a name the heatmaps do not know draws their default colours), `fmt` is.
#[cfg(feature = "full")]
fn svg(config: &Config, view: &str, palette: Option<String>, fmt: Option<String>) -> Result<String, String> {
    let trace = attention::compute(config).map_err(|e| e.0)?;
    let view = views::view(config, &trace, view)?;
    let style = Style {
        dpr: 1.0,
        theme: Theme::light(),
        palette,
        annotate: None,
        fmt: fmt.map_or(Ok(Fmt::default()), |f| Fmt::parse(&f))?,
        contrast: Contrast::Seaborn,
        highlights: Vec::new(),
        show_title: true,
        show_labels: true,
    };
    heatmap::to_svg(&view, &style)
}

/// The facts (Python's `facts()`, `facts::python`) with the presets' configs and the share links' longest text. The
/// figure core's are the presets alone: all the page reads of them (the rest are Python's, which runs the full build).
fn facts() -> Value {
    let presets: Map<String, Value> = presets::NAMES
        .iter()
        .map(|&n| (n.to_string(), presets::preset(n).expect("a listed preset").to_value()))
        .collect();
    #[cfg(feature = "full")]
    let mut facts = crate::facts::python();
    #[cfg(not(feature = "full"))]
    let mut facts = json!({});
    facts["presets"] = Value::Object(presets);
    #[cfg(feature = "full")]
    {
        facts["share_max_len"] = crate::share::MAX_LEN.into();
    }
    facts
}

#[cfg(feature = "full")]
/// `what` = "pending" (asked before the worker's views are drawn), "view" (`view` is not one of the `shown` views a
/// large figure exports), anything else: the note a large figure's `trace` carries (what it holds).
fn large_message(what: &str, view: &str, shown: &[String]) -> String {
    let shown = shown.join(", ");
    match what {
        "pending" => "this figure is still being computed in a background worker: its trace, toSVG() and toPNG() are \
                      there once it is drawn (its `change` event)"
            .into(),
        "view" => format!("a large figure exports the views it shows ({shown}): {} is not one of them", quote(view)),
        _ => format!(
            "a large figure (computed by a background worker) holds only the followed head's {shown}, as \
             {{shape, data}} with data a Float64Array shared with the figure (copy it before writing to it); its other \
             stages and heads are not computed: compute(config, {{arrays: \"typed\"}}) in a worker of your own gives \
             every stage"
        ),
    }
}

#[cfg(feature = "full")]
impl LargeSvgRequest {
    /// `{title, rows, cols, block: [rows, cols], pooling: "max" | "mean", image, bar (PNG data URLs), ticks: [[at,
    /// label]…], offset, shown: [width, height]}`.
    fn parse(f: &mut Fields) -> Result<LargeSvgRequest, String> {
        let block = f.numbers("block")?;
        let block = [block.first().copied().unwrap_or(1.0) as usize, block.get(1).copied().unwrap_or(1.0) as usize];
        let pooling = if f.text("pooling")? == "max" { Pooling::Max } else { Pooling::Mean };
        let Value::Array(ticks) = f.take("ticks") else { return Err(f.bad("ticks", "a list of [at, label]")) };
        let ticks = ticks
            .iter()
            .map(|t| match t.as_array().map(Vec::as_slice) {
                Some([at, Value::String(label)]) => number_of(at).map(|at| (at, label.clone())),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| f.bad("ticks", "a list of [at, label]"))?;
        let shown = f.numbers("shown")?;
        Ok(LargeSvgRequest {
            title: f.text("title")?,
            rows: f.index("rows")?,
            cols: f.index("cols")?,
            block,
            pooling,
            image: f.text("image")?,
            bar: f.text("bar")?,
            ticks,
            offset: f.text("offset")?,
            shown: [shown.first().copied().unwrap_or(f64::NAN), shown.get(1).copied().unwrap_or(f64::NAN)],
        })
    }

    fn svg(&self) -> Result<String, String> {
        large_svg(&LargeView {
            title: &self.title,
            rows: self.rows,
            cols: self.cols,
            block: self.block,
            pooling: self.pooling,
            image: &self.image,
            bar: &self.bar,
            ticks: &self.ticks,
            offset: &self.offset,
            shown: self.shown,
        })
    }
}

impl JobRequest {
    pub fn parse(value: Value) -> Result<JobRequest, String> {
        let (kind, map) = kind_of(value)?;
        let mut f = Fields { kind, map };
        Ok(match f.kind.as_str() {
            "progress" => JobRequest::Progress(f.index("step")?),
            "project" => JobRequest::Project,
            "attend" => JobRequest::Attend,
            "view" => JobRequest::View {
                name: f.text("name")?,
                max_px: f.index("max_px")?,
                bar_px: f.number("bar_px")?,
                palette: f.optional_text("palette")?,
            },
            "result" => JobRequest::Result,
            other => {
                return Err(format!(
                    "attention-viz internal error: a large figure's job has no request {}",
                    quote(other)
                ))
            }
        })
    }
}

impl TrainerRequest {
    pub fn parse(value: Value) -> Result<TrainerRequest, String> {
        let (kind, map) = kind_of(value)?;
        let mut f = Fields { kind, map };
        Ok(match f.kind.as_str() {
            "step" => TrainerRequest::Step(f.index("n")?),
            "report" => TrainerRequest::Report,
            other => return Err(format!("attention-viz internal error: a trainer has no request {}", quote(other))),
        })
    }
}

impl RandomRequest {
    pub fn parse(value: Value) -> Result<RandomRequest, String> {
        let (kind, map) = kind_of(value)?;
        let mut f = Fields { kind, map };
        Ok(match f.kind.as_str() {
            "seed" => RandomRequest::Seed(f.number("seed")?),
            "randint" => {
                RandomRequest::Randint { low: f.number("low")?, high: f.number("high")?, count: f.number("count")? }
            }
            "rand" => RandomRequest::Rand(f.number("count")?),
            "randn" => RandomRequest::Randn(f.number("count")?),
            other => {
                return Err(format!("attention-viz internal error: a RandomState has no request {}", quote(other)))
            }
        })
    }
}
