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
//! "-Infinity", as compute() writes it, so the core can name it. Each export names a request of
//! `crate::requests`, which reads and answers it as it does the browser's; this file moves bytes.
//!
//! The crate is built with `panic = "abort"`: a panic (a bug) traps and cannot be caught in the module.
//! The hook installed here keeps its message; the caller reads it with `av_last_panic` after the trap and
//! starts a fresh instance. These exports take no JavaScript import, so the wasm-bindgen module runs with
//! stub imports that are never called.

use crate::attention::{Trace, Wanted, FLASH_STEP_NUMBERS};
use crate::requests::{self, kind_of, Answer, Request};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::cell::RefCell;

thread_local! {
    static OUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static OUT_F64: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
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
    let message = requests::take_panic().unwrap_or_default();
    answer(Ok(message), Vec::new())
}

/// Validates a config (the checks and messages of compute()): 0 and the name of the mechanism it shows, as the core
/// infers it (Python's repr names it), or 1 and the message.
///
/// # Safety
/// (`text`, `text_len`) and (`data`, `data_len`: a count of f64s) must be readable buffers.
#[no_mangle]
pub unsafe extern "C" fn av_check(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, Some("check"))
}

/// Refuses a config by the shapes its `flat` entries declare, before their values are copied into the module
/// (`config::check_declared_shapes`, compute()'s first check): 0 and `{}`, or 1 and the message.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_check_declared(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, Some("check_declared"))
}

/// The config with every default filled in, as JSON (normalizeConfig).
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_normalize(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, Some("normalize"))
}

/// compute(): the text answer is `{trace: [[name, value]…] (mechanism, scale, query | tokens, key_tokens), fields:
/// [[name, shape, offset]…]}`, each field's values at `offset` in the f64 answer.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_compute(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, Some("compute"))
}

/// The static picture (`picture::picture`, or `picture::refused` with the core's message for a config it
/// refuses): `{svg, alt}`. `options`: `palette`, `fmt`, `contrast`, `theme`.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_picture(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, Some("picture"))
}

/// Checks the element options the core reads (`palette`, `fmt`, `contrast`): 0 and `{}`, or 1 and the message.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_options(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, Some("options"))
}

/// User text as the core's messages quote it (`{"quote": text}`: `text::quote`) or cut it (`{"cut": text}`:
/// `text::cut`), or as its SVGs write it (`{"xml": text}`: the characters XML 1.0 forbids made U+FFFD), or the
/// name a "did you mean" offers (`{"closest": name, "among": [names]}`: `text::closest`, "" for none): 0 and
/// the text, or 1 and a message for any other request. Python's own messages (element options, unknown names) and its
/// HTML outputs go through this, so each rule has one home.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_text(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, Some("text"))
}

/// Float32 or float16 values (`{"dtype": "float32" | "float16"}`, the values as f64s, each one of that type's exactly)
/// as their shortest decimals (`math::decimal::shortest`): 0 and the f64s, or 1 and a message. Python's
/// `_config.shortest_decimals` is this call.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_shortest(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, Some("shortest"))
}

/// Any request by its kind (`{"kind": …, …}`, as the browser's `call` sends it; the tests' `{"kind": "panic"}`
/// among them), answered as the exports above answer theirs.
///
/// # Safety
/// As [`av_check`].
#[no_mangle]
pub unsafe extern "C" fn av_call(text: *const u8, text_len: usize, data: *const f64, data_len: usize) -> u32 {
    run(text, text_len, data, data_len, None)
}

/// The core's facts a shell needs as data: the config's fields, the limits, the presets' configs.
#[no_mangle]
pub extern "C" fn av_facts() -> u32 {
    hook();
    store(Request::Facts.answer(Cow::Borrowed(&[])))
}

/// One call: the request read as `kind` (or the kind it names) ([`Request::parse`]), answered, its answer (or
/// message) stored.
unsafe fn run(text: *const u8, text_len: usize, data: *const f64, data_len: usize, kind: Option<&str>) -> u32 {
    hook();
    let text = if text_len == 0 { &[][..] } else { std::slice::from_raw_parts(text, text_len) };
    let data = if data_len == 0 { &[][..] } else { std::slice::from_raw_parts(data, data_len) };
    let request = match std::str::from_utf8(text) {
        Err(e) => Err(format!("attention-viz internal error: the request is not UTF-8 ({e})")),
        Ok(text) => match requests::read_json(text) {
            Ok(Value::Object(fields)) => match kind {
                Some(kind) => Request::parse(kind, fields),
                None => kind_of(Value::Object(fields)).and_then(|(kind, fields)| Request::parse(&kind, fields)),
            },
            Err(e) => Err(e),
            Ok(_) => Err("attention-viz internal error: the request is not a JSON object".into()),
        },
    };
    store(request.and_then(|r| r.answer(Cow::Borrowed(data))))
}

/// An answer as text and f64s: JSON as its text, numbers beside `{}`, a trace as its layout and its values.
fn store(answered: Result<Answer, String>) -> u32 {
    match answered {
        Ok(Answer::Text(text)) => answer(Ok(text), Vec::new()),
        Ok(Answer::Json(value)) => answer(Ok(value.to_string()), Vec::new()),
        Ok(Answer::Numbers(values)) => answer(Ok("{}".into()), values),
        Ok(Answer::Trace { query, trace, wanted }) => {
            let (text, values) = trace_answer(query, &trace, &wanted);
            answer(Ok(text), values)
        }
        Ok(Answer::Flag(flag)) => answer(Ok(flag.to_string()), Vec::new()),
        Ok(Answer::Nothing) => answer(Ok("{}".into()), Vec::new()),
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
            requests::keep_panic(message);
            before(info);
        }))
    });
}

/// compute()'s trace (`trace_object` of src/web): `trace`, its fields that are no arrays as `[name, value]` pairs in
/// compute()'s order, and `fields`, each array's `[name, shape, offset]`, its values one field after another; with
/// FlashAttention's tiles, `flash_steps: {table, width, count, o_cols}`: the steps as `attention::Flash::table`
/// writes them, `count` rows of `width` numbers from offset `table`, their m, l and o at offsets into the values.
fn trace_answer(query: usize, trace: &Trace, wanted: &Wanted) -> (String, Vec<f64>) {
    let fields: Vec<_> = trace.fields().into_iter().filter(|f| wanted.field(&f.name)).collect();
    let mut values = Vec::with_capacity(fields.iter().map(|f| f.data.len()).sum());
    let mut layout = Vec::with_capacity(fields.len());
    for f in &fields {
        layout.push(json!([f.name, f.shape, values.len()]));
        values.extend_from_slice(f.data);
    }
    let steps = trace.flash().map(|flash| {
        let table = flash.table(|v| {
            values.extend_from_slice(v);
            values.len() - v.len()
        });
        let at = values.len();
        values.extend_from_slice(&table);
        json!({"table": at, "width": FLASH_STEP_NUMBERS, "count": flash.steps.len(), "o_cols": flash.o_cols()})
    });
    // A scale that is not finite (never, for a valid config) would not be JSON: null then.
    let head = match trace {
        Trace::SelfAttention(_) if wanted.wants("query") => {
            json!([["mechanism", "self"], ["scale", trace.scale()], ["query", {"index": query}]])
        }
        Trace::SelfAttention(_) => json!([["mechanism", "self"], ["scale", trace.scale()]]),
        Trace::Cross(_) => json!([["mechanism", "cross"], ["scale", trace.scale()]]),
        Trace::Weights(t) => json!([["mechanism", "weights"], ["tokens", t.tokens], ["key_tokens", t.key_tokens]]),
    };
    let mut answer = json!({"trace": head, "fields": layout});
    if let Some(steps) = steps {
        answer["flash_steps"] = steps;
    }
    (answer.to_string(), values)
}
