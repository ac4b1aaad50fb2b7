//! The C-ABI surface the Python package calls: the very .wasm the browser loads, run by wasmtime
//! (python/attention_viz/_core.py). UTF-8 JSON in and out, plus f64 buffers for the big arrays.
//!
//! A call: the caller writes its request (JSON text) and its flat values (f64s) into buffers from
//! `av_alloc`, calls one `av_*` function, reads the answer from `av_out_ptr`/`av_out_len` (text) and
//! `av_out_f64_ptr`/`av_out_f64_len` (values), then `av_free`s its buffers. The functions return 0 with
//! the answer, 1 with the core's message for a config or option it refuses (the message the browser's
//! `compute()` throws for the same input). A request is `{"config": {…}, "flat": [{"name", "shape"}…],
//! "options": {…}}`: `flat` names the matrices sent as f64s, one after another, row-major (each finite);
//! the rest of the config is JSON, where a non-finite number is the text "NaN", "Infinity" or
//! "-Infinity", as compute() writes it, so the core can name it.
//!
//! The crate is built with `panic = "abort"`: a panic (a bug) traps and cannot be caught in the module.
//! The hook installed here keeps its message; the caller reads it with `av_last_panic` after the trap and
//! starts a fresh instance. These exports take no JavaScript import, so the wasm-bindgen module runs with
//! stub imports that are never called.

use crate::attention::{self, Trace};
use crate::config::{self, Config, Flat};
use crate::picture::{self, Options};
use crate::{heatmap, presets};
use serde_json::{json, Map, Value};
use std::cell::RefCell;

thread_local! {
    static OUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static OUT_F64: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// `len` bytes for the caller to fill (aligned for f64s); give them back with `av_free(ptr, len)`.
#[no_mangle]
pub extern "C" fn av_alloc(len: usize) -> *mut u8 {
    let words: Vec<f64> = Vec::with_capacity(len.div_ceil(8).max(1));
    std::mem::ManuallyDrop::new(words).as_mut_ptr() as *mut u8
}

/// Frees a buffer from `av_alloc`.
///
/// # Safety
/// `ptr` and `len` must be an `av_alloc` result and its argument, freed once.
#[no_mangle]
pub unsafe extern "C" fn av_free(ptr: *mut u8, len: usize) {
    drop(Vec::from_raw_parts(ptr as *mut f64, 0, len.div_ceil(8).max(1)));
}

#[no_mangle]
pub extern "C" fn av_out_ptr() -> *const u8 {
    OUT.with(|o| o.borrow().as_ptr())
}

#[no_mangle]
pub extern "C" fn av_out_len() -> usize {
    OUT.with(|o| o.borrow().len())
}

#[no_mangle]
pub extern "C" fn av_out_f64_ptr() -> *const f64 {
    OUT_F64.with(|o| o.borrow().as_ptr())
}

#[no_mangle]
pub extern "C" fn av_out_f64_len() -> usize {
    OUT_F64.with(|o| o.borrow().len())
}

/// The last panic's message into the text answer (empty when there was none); 0.
#[no_mangle]
pub extern "C" fn av_last_panic() -> u32 {
    let message = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
    answer(Ok(message), Vec::new())
}

/// Validates a config (the checks and messages of compute()): 0 and the name of the mechanism it shows, as the core
/// infers it (Python's repr names it), or 1 and the message.
///
/// # Safety
/// (`text`, `text_len`) and (`data`, `data_len`: a count of f64s) must be readable buffers.
#[no_mangle]
pub unsafe extern "C" fn av_check(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, |req| config_of(req).map(|c| (c.mechanism.name().to_string(), Vec::new())))
}

/// Refuses a config by the shapes its `flat` entries declare, before their values are copied into the module
/// (`config::check_declared_shapes`, compute()'s first check): 0 and `{}`, or 1 and the message.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_check_declared(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, |req| {
        let (rest, specs) = parts_of(req)?;
        let declared: Vec<(&str, Vec<usize>)> = specs.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
        config::check_declared_shapes(&rest, &declared).map_err(|e| e.0)?;
        Ok(("{}".into(), Vec::new()))
    })
}

/// The config with every default filled in, as JSON (normalizeConfig).
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_normalize(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, |req| Ok((config_of(req)?.to_value().to_string(), Vec::new())))
}

/// compute(): the text answer is `{mechanism, scale, query_index | tokens, key_tokens, fields: [[name, shape,
/// offset]…]}`, each field's values at `offset` in the f64 answer.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_compute(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, |req| {
        let config = config_of(req)?;
        let trace = attention::compute(&config).map_err(|e| e.0)?;
        Ok(trace_answer(&config, &trace))
    })
}

/// The static picture (`picture::picture`, or `picture::refused` with the core's message for a config it
/// refuses): `{svg, alt}`. `options`: `palette`, `fmt`, `contrast`, `theme`.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_picture(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, |req| {
        let options = options_of(req)?;
        // A config the core refuses (a Figure made by hand, not through show()) gets a picture of the refusal: the
        // page shows the same message in place of the figure.
        let drawn = config_of(req).and_then(|config| {
            let trace = attention::compute(&config).map_err(|e| e.0)?;
            picture::picture(&config, &trace, &options)
        });
        let (svg, alt) = drawn.unwrap_or_else(|message| picture::refused(&message, options.dark));
        Ok((json!({"svg": svg, "alt": alt}).to_string(), Vec::new()))
    })
}

/// The element options: one option's attribute text or its message, or an unknown name's message
/// ([`crate::options::answer`]'s requests); else `{"options": {…}}`, the options the heatmaps judge (`palette`,
/// `fmt`, `contrast`): 0 and `{}`, or 1 and the message.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_options(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, |req| match crate::options::answer(&req.request) {
        Some(answer) => answer.map(|text| (text, Vec::new())),
        None => options_of(req).map(|_| ("{}".into(), Vec::new())),
    })
}

/// User text as the core's messages quote it (`{"quote": text}`: [`crate::text::quote`]) or cut it (`{"cut": text}`:
/// [`crate::text::cut`]), or as its SVGs write it (`{"xml": text}`: the characters XML 1.0 forbids made U+FFFD), or the
/// name a "did you mean" offers (`{"closest": name, "among": [names]}`: [`crate::text::closest`], "" for none): 0 and
/// the text, or 1 and a message for any other request. Python's own messages (element options, unknown names) and its
/// HTML outputs go through this, so each rule has one home.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_text(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, |req| {
        let arg = |key: &str| req.request.get(key).and_then(Value::as_str);
        if let (Some(name), Some(Value::Array(among))) = (arg("closest"), req.request.get("among")) {
            let known: Vec<&str> = among.iter().filter_map(Value::as_str).collect();
            return Ok((crate::text::closest(name, &known).unwrap_or("").to_string(), Vec::new()));
        }
        match (arg("quote"), arg("cut"), arg("xml")) {
            (Some(t), None, None) => Ok((crate::text::quote(t), Vec::new())),
            (None, Some(t), None) => Ok((crate::text::cut(t), Vec::new())),
            (None, None, Some(t)) => Ok((crate::heatmap::draw::xml_chars(t), Vec::new())),
            _ => {
                Err("attention-viz internal error: av_text takes {\"quote\": text}, {\"cut\": text} or {\"xml\": text}"
                    .into())
            }
        }
    })
}

/// Float32 or float16 values (`{"dtype": "float32" | "float16"}`, the values as f64s, each one of that type's exactly)
/// as their shortest decimals ([`crate::math::decimal::shortest`]): 0 and the f64s, or 1 and a message. Python's
/// `_config.shortest_decimals` is this call.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_shortest(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    use crate::math::decimal::{shortest, Narrow};
    run(text, text_len, data, data_len, |req| {
        let ty = match req.request.get("dtype").and_then(Value::as_str) {
            Some("float32") => Narrow::F32,
            Some("float16") => Narrow::F16,
            _ => {
                return Err(
                    "attention-viz internal error: av_shortest takes {\"dtype\": \"float32\" | \"float16\"}".into()
                )
            }
        };
        Ok(("{}".into(), req.data.iter().map(|&x| shortest(x, ty)).collect()))
    })
}

/// The core's facts a shell needs as data ([`crate::facts::python`]) and the presets' configs.
#[no_mangle]
pub extern "C" fn av_facts() -> u32 {
    hook();
    let presets: Map<String, Value> = presets::NAMES
        .iter()
        .map(|&n| (n.to_string(), presets::preset(n).expect("a listed preset").to_value()))
        .collect();
    let mut facts = crate::facts::python();
    facts["presets"] = Value::Object(presets);
    answer(Ok(facts.to_string()), Vec::new())
}

/// One call: the request read, `f` run, its answer (or message) stored.
unsafe fn run(
    text: *const u8,
    text_len: usize,
    data: *const f64,
    data_len: usize,
    f: impl FnOnce(&Request) -> Result<(String, Vec<f64>), String>,
) -> u32 {
    hook();
    let text = if text_len == 0 { &[][..] } else { std::slice::from_raw_parts(text, text_len) };
    let data = if data_len == 0 { &[][..] } else { std::slice::from_raw_parts(data, data_len) };
    let result = match std::str::from_utf8(text) {
        Err(e) => Err(format!("attention-viz internal error: the request is not UTF-8 ({e})")),
        Ok(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(request)) => f(&Request { request, data }),
            Ok(_) | Err(_) => Err("attention-viz internal error: the request is not a JSON object".into()),
        },
    };
    match result {
        Ok((text, values)) => answer(Ok(text), values),
        Err(message) => answer(Err(message), Vec::new()),
    }
}

fn answer(result: Result<String, String>, values: Vec<f64>) -> u32 {
    let (code, text) = match result {
        Ok(t) => (0, t),
        Err(t) => (1, t),
    };
    OUT.with(|o| *o.borrow_mut() = text.into_bytes());
    OUT_F64.with(|o| *o.borrow_mut() = values);
    code
}

fn hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The hook before ours still runs: in a native test binary it prints every later panic's message (a
        // failed assertion in another test); in the .wasm it writes nowhere.
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info.to_string();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(message));
            before(info);
        }))
    });
}

struct Request<'a> {
    request: Map<String, Value>,
    data: &'a [f64],
}

/// The request's config, validated as compute() validates it: its declared shapes first (a stack over the
/// limit is refused from its shape), then every field.
fn config_of(req: &Request) -> Result<Config, String> {
    let (rest, specs) = parts_of(req)?;
    let declared: Vec<(&str, Vec<usize>)> = specs.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
    config::check_declared_shapes(&rest, &declared).map_err(|e| e.0)?;
    let inconsistent = || "attention-viz internal error: the flat values do not match their shapes".to_string();
    let mut flat = Vec::with_capacity(specs.len());
    let mut data = req.data;
    for (name, shape) in &specs {
        let len = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).filter(|&l| l <= data.len());
        let len = len.ok_or_else(inconsistent)?;
        let (values, tail) = data.split_at(len);
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
    Config::from_parts(&rest, &flat).map_err(|e| e.0)
}

/// The request's config without its flat matrices, and their names and shapes.
#[allow(clippy::type_complexity)]
fn parts_of(req: &Request) -> Result<(Value, Vec<(String, Vec<usize>)>), String> {
    let rest = req.request.get("config").cloned().unwrap_or(Value::Null);
    let specs: Vec<(String, Vec<usize>)> = match req.request.get("flat") {
        Some(Value::Array(list)) => list
            .iter()
            .map(|f| {
                let name = f.get("name").and_then(Value::as_str).map(str::to_string);
                let shape: Option<Vec<usize>> = f
                    .get("shape")
                    .and_then(Value::as_array)
                    .and_then(|s| s.iter().map(|d| d.as_u64().map(|d| d as usize)).collect());
                name.zip(shape).ok_or_else(|| "attention-viz internal error: a flat entry needs name and shape".into())
            })
            .collect::<Result<_, String>>()?,
        _ => Vec::new(),
    };
    Ok((rest, specs))
}

fn options_of(req: &Request) -> Result<Options, String> {
    let o = req.request.get("options");
    let text = |key: &str| o.and_then(|o| o.get(key)).and_then(Value::as_str).map(str::to_string);
    let options = Options {
        palette: text("palette"),
        fmt: text("fmt"),
        contrast: text("contrast"),
        dark: text("theme").as_deref() == Some("dark"),
    };
    options.style()?;
    if let Some(p) = &options.palette {
        heatmap::palette::check_name(p)?;
    }
    Ok(options)
}

/// compute()'s trace (`trace_object` of src/web): `trace`, its fields that are no arrays as `[name, value]` pairs in
/// compute()'s order, and `fields`, each array's `[name, shape, offset]`, its values one field after another.
fn trace_answer(config: &Config, trace: &Trace) -> (String, Vec<f64>) {
    let fields = trace.fields();
    let mut values = Vec::with_capacity(fields.iter().map(|f| f.data.len()).sum());
    let mut layout = Vec::with_capacity(fields.len());
    for f in &fields {
        layout.push(json!([f.name, f.shape, values.len()]));
        values.extend_from_slice(f.data);
    }
    // A scale that is not finite (never, for a valid config) would not be JSON: null then.
    let head = match trace {
        Trace::SelfAttention(_) => {
            json!([["mechanism", "self"], ["scale", trace.scale()], ["query", {"index": config.query}]])
        }
        Trace::Cross(_) => json!([["mechanism", "cross"], ["scale", trace.scale()]]),
        Trace::Weights(t) => json!([["mechanism", "weights"], ["tokens", t.tokens], ["key_tokens", t.key_tokens]]),
    };
    (json!({"trace": head, "fields": layout}).to_string(), values)
}
