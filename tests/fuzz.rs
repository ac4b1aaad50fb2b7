#![cfg(not(target_arch = "wasm32"))]
//! A bounded, reproducible fuzz run of everything that reads untrusted text: proptest (fixed
//! ChaCha seed, so every run sees the same inputs) generates JSON-ish text — random bytes,
//! character soup, random JSON values of random shapes and types, config-shaped documents with
//! huge, tiny and non-numeric entries, deep nesting around serde_json's recursion limit, long
//! and unprintable strings — and mutates it; each text goes to `Config::from_json` and
//! `share::decode` (raw and as a base64url share link), and every config that parses goes
//! through `attention::compute`, `views::view` for each name in `views::ALL_VIEWS` and
//! `heatmap::to_svg`. A case passes when nothing panics (proptest turns a panic into a
//! failure and shrinks it), it ends (the watchdog fails a run stuck on one input for
//! `HANG`, a bound no slow machine reaches: it is a hang, not a speed check), and every
//! error message is non-empty and at most 500 characters. Hand-written hostile inputs (2 000 tokens,
//! 10 000-character names, empty rows, 1e308, nesting 10 000 deep, a 5 MB string) run too.
//! `cargo test --test all fuzz:: -- --nocapture` prints how many inputs ran and how long it took.

use attention_viz::attention::compute;
use attention_viz::config::Config;
use attention_viz::heatmap::draw::{draw, Colors, Highlight, HighlightKind, Layout, Style, Theme};
use attention_viz::heatmap::{raster, to_svg};
use attention_viz::share::{self, base64url_encode};
use attention_viz::views::{self, ALL_VIEWS};
use plotters::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Generated cases; each is three inputs: a text (for `Config::from_json`, and as is for
/// `share::decode`), the text as the config of a share link, and a share link of its own.
const CASES: u32 = 3000;
/// Longest accepted error message, in characters.
const MAX_MESSAGE: usize = 500;
/// An input still running after this long is named on stderr (how long inputs take is not asserted).
const SLOW: Duration = Duration::from_secs(60);
/// An input still running after this long is a hang (each takes at most seconds, even on a loaded machine).
const HANG: Duration = Duration::from_secs(30 * 60);
/// to_svg draws one shape per cell; past this many cells the hostile cases take the
/// browser's path for big grids instead (raster + text on top).
const SVG_MAX_CELLS: usize = 40_000;

// ---------------------------------------------------------------------------
// What one input goes through
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Counts {
    inputs: AtomicU64,
    configs: AtomicU64,
    traces: AtomicU64,
    views: AtomicU64,
    svgs: AtomicU64,
    errors: AtomicU64,
    /// Time spent in the code under test (the rest is generating inputs), in microseconds.
    busy_us: AtomicU64,
}

impl Counts {
    fn add(&self, counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
    fn get(&self, counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

fn check_message(what: &str, message: &str, input: &str, counts: &Counts) -> Result<(), TestCaseError> {
    counts.add(&counts.errors);
    let chars = message.chars().count();
    prop_assert!(!message.trim().is_empty(), "{what}: empty error message for {}", preview(input));
    prop_assert!(
        chars <= MAX_MESSAGE,
        "{what}: error message of {chars} characters (limit {MAX_MESSAGE}) for {}:\n{message}",
        preview(input)
    );
    Ok(())
}

/// The start of an input, for failure messages.
fn preview(s: &str) -> String {
    let count = s.chars().count();
    let head: String = s.chars().take(300).collect();
    if count > 300 {
        format!("{head:?}… ({count} characters)")
    } else {
        format!("{head:?}")
    }
}

fn style(dark: bool, palette: Option<String>, dpr: f64, highlight: Option<Highlight>, annotate: Option<bool>) -> Style {
    Style {
        dpr,
        theme: if dark { Theme::dark() } else { Theme::light() },
        palette,
        annotate,
        highlights: highlight.into_iter().collect(),
        ..Style::default()
    }
}

/// compute, every view, and an SVG of each (or, for grids too big for one shape per cell,
/// the canvas path: layout, raster and the text drawn on top).
fn exercise_config(config: &Config, style: &Style, input: &str, counts: &Counts) -> Result<(), TestCaseError> {
    counts.add(&counts.configs);
    // A config that exists is valid: it survives its own JSON.
    let back = Config::from_value(&config.to_value());
    prop_assert!(
        back.as_ref() == Ok(config),
        "config does not survive to_value/from_value: {back:?}\n{}",
        preview(input)
    );
    let trace = match compute(config) {
        Ok(t) => t,
        Err(e) => return check_message("compute", &e.0, input, counts),
    };
    counts.add(&counts.traces);
    for name in ALL_VIEWS {
        let view = match views::view(config, &trace, name) {
            Ok(v) => v,
            Err(e) => {
                check_message("views::view", &e, input, counts)?;
                continue;
            }
        };
        counts.add(&counts.views);
        let (rows, cols) = view.values.shape();
        prop_assert!(
            view.row_labels.len() == rows && view.col_labels.len() == cols,
            "{name}: labels do not match the shape"
        );
        if rows * cols <= SVG_MAX_CELLS {
            match to_svg(&view, style) {
                Ok(svg) => prop_assert!(svg.contains("<svg"), "{name}: not an SVG"),
                Err(e) => check_message("to_svg", &e, input, counts)?,
            }
        } else {
            let colors = Colors::new(view.values.data(), style.palette.as_deref(), view.palette);
            let (w, h) = attention_viz::heatmap::preferred_size(&view, style.fmt);
            let layout = Layout::new(&view, &colors, style, w, h);
            let blits = raster(&view, &colors, &layout, &style.theme);
            prop_assert!(blits.iter().all(|b| b.rgba.len() == (b.width * b.height * 4) as usize));
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                if let Err(e) = draw(&root, &view, &colors, &layout, style, false) {
                    check_message("draw", &e, input, counts)?;
                }
            }
        }
        counts.add(&counts.svgs);
    }
    // A model's weights: the element's grid of every head (at the largest thumbnail the binding takes), whose
    // raster must stay within its bounds however many heads (1,000,000 once overflowed it), and the line view.
    if let attention_viz::attention::Trace::Weights(t) = &trace {
        use attention_viz::heatmap::model::{grid, lines_svg, GRID_MAX_PIXELS, GRID_MAX_SIDE};
        let g = grid(&t.attention, 1024, 64, style.palette.as_deref(), &style.theme);
        prop_assert!((g.width as usize) <= GRID_MAX_SIDE && (g.height as usize) <= GRID_MAX_SIDE);
        prop_assert!((g.width as usize) * (g.height as usize) <= GRID_MAX_PIXELS);
        prop_assert!(g.rgba.len() == (g.width * g.height * 4) as usize);
        if t.selected.rows().max(t.selected.cols()) <= 128 {
            let svg = lines_svg(&t.selected, &t.tokens, &t.key_tokens, Some(0), &style.theme);
            prop_assert!(roxmltree::Document::parse(&svg).is_ok(), "the line view is not XML");
        }
    }
    Ok(())
}

fn exercise_text(text: &str, style: &Style, counts: &Counts) -> Result<(), TestCaseError> {
    counts.add(&counts.inputs);
    match Config::from_json(text) {
        Ok(config) => exercise_config(&config, style, text, counts)?,
        Err(e) => check_message("Config::from_json", &e.0, text, counts)?,
    }
    decode_share(text, style, counts)
}

fn exercise_share(link: &str, style: &Style, counts: &Counts) -> Result<(), TestCaseError> {
    counts.add(&counts.inputs);
    decode_share(link, style, counts)
}

fn decode_share(link: &str, style: &Style, counts: &Counts) -> Result<(), TestCaseError> {
    match share::decode(link) {
        Ok(state) => {
            // A decoded state re-encodes to a link that decodes to the same state.
            let again = share::decode(&share::encode(&state));
            prop_assert!(again.as_ref() == Ok(&state), "share state does not survive encode/decode: {again:?}");
            exercise_config(&state.config, style, link, counts)
        }
        Err(e) => check_message("share::decode", &e, link, counts),
    }
}

/// Runs `body` on another thread: names an input it spends `SLOW` on, and fails if one takes `HANG`.
fn with_watchdog<F>(what: &str, body: F)
where
    F: FnOnce(&dyn Fn(&str)) + Send + 'static,
{
    let current: Arc<Mutex<(Instant, String)>> = Arc::new(Mutex::new((Instant::now(), String::new())));
    let (done_tx, done_rx) = mpsc::channel();
    let cur = Arc::clone(&current);
    let worker = std::thread::Builder::new()
        .name(what.to_string())
        .stack_size(64 << 20)
        .spawn(move || {
            let beat = |input: &str| *cur.lock().unwrap_or_else(|e| e.into_inner()) = (Instant::now(), preview(input));
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&beat)));
            let _ = done_tx.send(());
            result
        })
        .expect("spawn the fuzz thread");
    let mut named = None;
    loop {
        match done_rx.recv_timeout(Duration::from_millis(200)) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let (since, input) = current.lock().unwrap_or_else(|e| e.into_inner()).clone();
                assert!(since.elapsed() < HANG, "{what}: one input ran for over {HANG:?}, a hang: {input}");
                if since.elapsed() >= SLOW && named != Some(since) {
                    eprintln!("{what}: still on one input after {SLOW:?} (a busy machine, or a hang): {input}");
                    named = Some(since);
                }
            }
        }
    }
    if let Err(panic) = worker.join().expect("the fuzz thread finishes") {
        std::panic::resume_unwind(panic);
    }
}

fn report(what: &str, counts: &Counts, start: Instant) {
    let busy = counts.get(&counts.busy_us);
    let busy = if busy > 0 { format!(" ({:.1} s in the code under test)", busy as f64 / 1e6) } else { String::new() };
    eprintln!(
        "fuzz: {} inputs ({what}): {} configs parsed, {} computed, {} views drawn, {} clean errors, in {:.1} s{busy}",
        counts.get(&counts.inputs),
        counts.get(&counts.configs),
        counts.get(&counts.traces),
        counts.get(&counts.svgs),
        counts.get(&counts.errors),
        start.elapsed().as_secs_f64(),
    );
}

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

const FIELDS: [&str; 10] =
    ["mechanism", "embeddings", "w_q", "w_k", "w_v", "tokens", "scale", "query", "decoder_state", "annotations"];

/// Characters that print long in messages (Debug escapes them) or confuse text handling.
const NASTY_CHARS: [char; 14] = [
    '\u{10ffff}',
    '\u{e0001}',
    '\u{0}',
    '\u{1b}',
    '\u{7f}',
    '\u{200b}',
    '\u{202e}',
    '\u{feff}',
    '\u{fffd}',
    '"',
    '\\',
    '\n',
    '\u{301}',
    '\u{1f600}',
];

/// A finite number a config accepts: ordinary values, small integers, and float64's edges.
fn good_number() -> BoxedStrategy<Value> {
    prop_oneof![
        12 => (-10.0f64..10.0).prop_map(|x| json!(x)),
        8 => (-3i64..=3).prop_map(|x| json!(x)),
        1 => prop_oneof![
            Just(json!(1e308)), Just(json!(-1e308)), Just(json!(f64::MAX)), Just(json!(1e154)), Just(json!(-1e155)),
            Just(json!(1e-320)), Just(json!(5e-324)), Just(json!(-0.0)), Just(json!(1e16)), Just(json!(9007199254740993u64)),
            Just(json!(710.0)), Just(json!(-745.2)), Just(json!(1e3)),
        ],
        1 => any::<i64>().prop_map(|x| json!(x)),
        1 => (proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO
            | proptest::num::f64::POSITIVE | proptest::num::f64::NEGATIVE)
            .prop_map(|x| json!(x)),
    ]
    .boxed()
}

/// Any JSON number (and null, which is what serde_json makes of NaN and ±inf).
fn number() -> BoxedStrategy<Value> {
    prop_oneof![
        6 => good_number(),
        1 => any::<u64>().prop_map(|x| json!(x)),
        1 => any::<f64>().prop_map(|x| json!(x)),
    ]
    .boxed()
}

fn text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-z_]{0,8}",
        3 => prop::sample::select(vec![
            "NaN", "Infinity", "-Infinity", "nan", "inf", "1e999", "-0", "self", "cross", "sqrt_dk", "none", "SQRT_DK",
            "", " ", "0", "1", "null", "true", "<script>alert(1)</script>", "randint", "rand", "randn",
        ])
        .prop_map(String::from),
        2 => prop::sample::select(FIELDS.to_vec()).prop_map(String::from),
        2 => any::<String>(),
        1 => "\\PC{0,40}",
        // Runs of one character that escapes long: worst cases for quoted messages.
        1 => (prop::sample::select(NASTY_CHARS.to_vec()), 1usize..120).prop_map(|(c, n)| c.to_string().repeat(n)),
        // Long strings.
        1 => (any::<char>(), 200usize..3000).prop_map(|(c, n)| c.to_string().repeat(n)),
        1 => prop::collection::vec(prop::sample::select(NASTY_CHARS.to_vec()), 0..60).prop_map(|v| v.into_iter().collect()),
    ]
    .boxed()
}

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        4 => number(),
        3 => text().prop_map(Value::String),
    ]
    .boxed()
}

fn key() -> BoxedStrategy<String> {
    prop_oneof![
        4 => prop::sample::select(FIELDS.to_vec()).prop_map(String::from),
        1 => prop::sample::select(vec!["v", "config", "naive", "random", "seed", "dist", "high", "embedding", "wq", "Tokens"])
            .prop_map(String::from),
        1 => text(),
    ]
    .boxed()
}

/// Any JSON value: leaves, lists and objects nested up to 6 deep.
fn value() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(6, 96, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec((key(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
        .boxed()
}

/// A rows × cols list of lists of numbers; sometimes one bad entry or a ragged row.
fn matrix(rows: usize, cols: usize) -> BoxedStrategy<Value> {
    let bad = prop::option::weighted(0.04, (any::<usize>(), leaf()));
    let ragged = prop::option::weighted(0.03, (any::<usize>(), 0usize..4));
    (prop::collection::vec(prop::collection::vec(good_number(), cols), rows), bad, ragged)
        .prop_map(move |(mut m, bad, ragged)| {
            if let (Some((at, v)), true) = (bad, rows * cols > 0) {
                m[(at / cols.max(1)) % rows][at % cols] = v;
            }
            if let (Some((r, len)), true) = (ragged, rows > 0) {
                m[r % rows].truncate(len);
            }
            Value::Array(m.into_iter().map(Value::Array).collect())
        })
        .boxed()
}

/// Documents shaped like configs, so that many parse and reach compute and the views.
fn config_value() -> BoxedStrategy<Value> {
    // n tokens, d inputs, d_k, d_v; a size is sometimes off by one to hit shape errors.
    let size = || prop_oneof![40 => 1usize..6, 1 => Just(0usize), 3 => 6usize..40];
    (any::<bool>(), size(), size(), size(), size(), any::<u8>())
        .prop_flat_map(move |(is_self, n, d, dk, dv, flags)| {
            let off = |x: usize, bit: u8| if flags & (1 << bit) != 0 && flags % 7 == 0 { x + 1 } else { x };
            let mechanism = prop_oneof![
                10 => Just(None),
                10 => Just(Some(json!(if is_self { "self" } else { "cross" }))),
                1 => leaf().prop_map(Some),
            ];
            let tokens = prop_oneof![
                8 => Just(None),
                10 => prop::collection::vec(text().prop_map(Value::String), n).prop_map(|t| Some(Value::Array(t))),
                1 => prop::collection::vec(leaf(), 0..8).prop_map(|t| Some(Value::Array(t))),
                1 => leaf().prop_map(Some),
            ];
            let scale = prop_oneof![
                8 => Just(None),
                4 => Just(Some(json!("sqrt_dk"))),
                4 => Just(Some(json!("none"))),
                4 => (0.05f64..20.0).prop_map(|x| Some(json!(x))),
                1 => number().prop_map(Some),
                1 => leaf().prop_map(Some),
            ];
            let query = prop_oneof![
                8 => Just(None),
                10 => (0..n.max(1)).prop_map(|q| Some(json!(q))),
                1 => Just(Some(json!(n))),
                1 => leaf().prop_map(Some),
            ];
            let inputs = if is_self {
                (
                    matrix(n, d),
                    prop::option::weighted(0.6, (matrix(off(d, 0), dk), matrix(d, off(dk, 1)), matrix(d, dv))),
                )
                    .prop_map(|(x, w)| {
                        let mut m = Map::new();
                        m.insert("embeddings".into(), x);
                        if let Some((q, k, v)) = w {
                            m.insert("w_q".into(), q);
                            m.insert("w_k".into(), k);
                            m.insert("w_v".into(), v);
                        }
                        m
                    })
                    .boxed()
            } else {
                (prop::collection::vec(good_number(), off(d, 2)), matrix(n, d))
                    .prop_map(|(h, a)| {
                        let mut m = Map::new();
                        m.insert("decoder_state".into(), Value::Array(h));
                        m.insert("annotations".into(), a);
                        m
                    })
                    .boxed()
            };
            let extra = prop::option::weighted(0.05, (key(), leaf()));
            (mechanism, tokens, scale, query, inputs, extra).prop_map(|(mech, tokens, scale, query, mut m, extra)| {
                for (k, v) in [("mechanism", mech), ("tokens", tokens), ("scale", scale), ("query", query)] {
                    if let Some(v) = v {
                        m.insert(k.into(), v);
                    }
                }
                if let Some((k, v)) = extra {
                    m.insert(k, v);
                }
                Value::Object(m)
            })
        })
        .boxed()
}

/// The state object of a share link around a config(-ish) value.
fn share_value() -> BoxedStrategy<Value> {
    let version = prop_oneof![8 => Just(json!(1)), 1 => leaf(), 1 => Just(json!(2))];
    let random = prop_oneof![
        2 => Just(Value::Null),
        2 => (any::<u32>(), prop::sample::select(vec!["randint", "rand", "randn"]), 0i64..20)
            .prop_map(|(s, d, h)| json!({"seed": s, "dist": d, "high": h})),
        1 => (leaf(), leaf(), leaf()).prop_map(|(s, d, h)| json!({"seed": s, "dist": d, "high": h})),
        1 => value(),
    ];
    let config = prop_oneof![6 => config_value(), 1 => value()];
    (version, config, prop::option::of(leaf()), random, prop::option::weighted(0.1, (key(), leaf())))
        .prop_map(|(v, config, naive, random, extra)| {
            let mut m = Map::new();
            m.insert("v".into(), v);
            m.insert("config".into(), config);
            if let Some(n) = naive {
                m.insert("naive".into(), n);
            }
            m.insert("random".into(), random);
            if let Some((k, x)) = extra {
                m.insert(k, x);
            }
            Value::Object(m)
        })
        .boxed()
}

/// Text-level damage: cut, insert, replace a number by something JSON cannot hold, wrap.
#[derive(Clone, Debug)]
enum Mutation {
    None,
    Truncate(usize),
    Insert(usize, char),
    HugeNumber(usize, &'static str),
    Nest(usize),
    Whitespace,
}

fn mutation() -> BoxedStrategy<Mutation> {
    let json_char =
        prop::sample::select("{}[],:\"\\0123456789.eE+-ntfu \t\n\u{0}\u{feff}é".chars().collect::<Vec<_>>());
    prop_oneof![
        12 => Just(Mutation::None),
        2 => any::<usize>().prop_map(Mutation::Truncate),
        2 => (any::<usize>(), json_char).prop_map(|(p, c)| Mutation::Insert(p, c)),
        2 => (any::<usize>(), prop::sample::select(vec!["1e999", "-1e400", "NaN", "Infinity", "1e-99999", "0x10", "01", "1.", "-", "18446744073709551616", "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"]))
            .prop_map(|(p, s)| Mutation::HugeNumber(p, s)),
        1 => prop_oneof![0usize..4, 120usize..136, Just(200)].prop_map(Mutation::Nest),
        1 => Just(Mutation::Whitespace),
    ]
    .boxed()
}

fn char_boundary(s: &str, at: usize) -> usize {
    let mut at = if s.is_empty() { 0 } else { at % (s.len() + 1) };
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutate(text: String, m: &Mutation) -> String {
    match m {
        Mutation::None => text,
        Mutation::Truncate(at) => text[..char_boundary(&text, *at)].to_string(),
        Mutation::Insert(at, c) => {
            let mut t = text;
            let at = char_boundary(&t, *at);
            t.insert(at, *c);
            t
        }
        Mutation::HugeNumber(at, with) => {
            // Replace the number nearest after `at` (or append one).
            let start = char_boundary(&text, *at);
            match text[start..].find(|c: char| c.is_ascii_digit()) {
                Some(i) => {
                    let i = start + i;
                    let end = text[i..]
                        .find(|c: char| !(c.is_ascii_digit() || "eE.+-".contains(c)))
                        .map_or(text.len(), |e| i + e);
                    format!("{}{}{}", &text[..i], with, &text[end..])
                }
                None => format!("{text}{with}"),
            }
        }
        Mutation::Nest(depth) => format!("{}{}{}", "[".repeat(*depth), text, "]".repeat(*depth)),
        Mutation::Whitespace => format!(" \n\t{text}\r\n "),
    }
}

/// How a share link is spelled: plain base64url, padded, standard alphabet, cut, spaced.
#[derive(Clone, Debug)]
enum LinkForm {
    Plain,
    Padded,
    Standard,
    Cut,
    Spaced,
}

fn link(json_text: &str, form: &LinkForm) -> String {
    let b = base64url_encode(json_text.as_bytes());
    match form {
        LinkForm::Plain => b,
        LinkForm::Padded => {
            let pad = (4 - b.len() % 4) % 4;
            format!("{b}{}", "=".repeat(pad))
        }
        LinkForm::Standard => b.replace('-', "+").replace('_', "/"),
        LinkForm::Cut => b[..b.len().saturating_sub(1)].to_string(),
        LinkForm::Spaced => format!("  {b}\n"),
    }
}

#[derive(Clone, Debug)]
struct Case {
    /// Fed to Config::from_json and (as is) to share::decode.
    text: String,
    /// A share link, fed to share::decode.
    link: String,
    dark: bool,
    palette: Option<String>,
    dpr: f64,
    highlight: Option<Highlight>,
    annotate: Option<bool>,
}

fn case() -> BoxedStrategy<Case> {
    let document = prop_oneof![
        6 => (config_value(), mutation()).prop_map(|(v, m)| mutate(v.to_string(), &m)),
        2 => (value(), mutation()).prop_map(|(v, m)| mutate(v.to_string(), &m)),
        1 => prop::collection::vec(any::<u8>(), 0..200).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        1 => prop::collection::vec(prop::sample::select("{}[],:\"\\0123456789.eE+-ntrufals ".chars().collect::<Vec<_>>()), 0..120)
            .prop_map(|v| v.into_iter().collect()),
    ];
    let link_text = prop_oneof![
        6 => (share_value(), mutation(), prop::sample::select(vec![LinkForm::Plain, LinkForm::Plain, LinkForm::Padded, LinkForm::Standard, LinkForm::Cut, LinkForm::Spaced]))
            .prop_map(|(v, m, f)| link(&mutate(v.to_string(), &m), &f)),
        1 => prop::collection::vec(any::<u8>(), 0..200).prop_map(|b| base64url_encode(&b)),
        1 => "[A-Za-z0-9_=+/ -]{0,80}",
    ];
    let palette = prop::option::of(prop_oneof![
        prop::sample::select(vec![
            "rocket",
            "vlag_r",
            "diverging",
            "sequential_r",
            "purple",
            "Blue",
            "light:#1f77b4",
            "#abc",
            "#GGGGGG",
            "light:",
            "_r",
            ""
        ])
        .prop_map(String::from),
        text(),
    ]);
    let dpr = prop_oneof![8 => prop::sample::select(vec![1.0, 2.0, 1.5, 0.5, 3.0]), 1 => prop::sample::select(vec![0.0, -1.0, f64::NAN, 0.1, 8.0])];
    let highlight = prop::option::of(
        (0u32..3, 0usize..8, 0usize..8, 0usize..9, 0usize..9).prop_map(|(k, r0, c0, r1, c1)| Highlight {
            kind: HighlightKind::from_code(k).unwrap(),
            r0,
            c0,
            r1,
            c1,
        }),
    );
    (document, link_text, any::<bool>(), palette, dpr, highlight, prop::option::of(any::<bool>()))
        .prop_map(|(text, link, dark, palette, dpr, highlight, annotate)| Case {
            text,
            link,
            dark,
            palette,
            dpr,
            highlight,
            annotate,
        })
        .boxed()
}

// ---------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------

#[test]
fn fuzz_parsers_compute_views_and_svg() {
    with_watchdog("fuzz", |beat| {
        let start = Instant::now();
        let counts = Counts::default();
        let config = ProptestConfig {
            cases: CASES,
            failure_persistence: None,
            // Bounded shrinking, so that a failing run still ends in seconds.
            max_shrink_iters: 300,
            max_shrink_time: 15_000,
            rng_algorithm: RngAlgorithm::ChaCha,
            ..ProptestConfig::default()
        };
        let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
        let result = runner.run(&case(), |c| {
            beat(&c.text);
            let t = Instant::now();
            let style = style(c.dark, c.palette.clone(), c.dpr, c.highlight, c.annotate);
            let result = exercise_text(&c.text, &style, &counts).and_then(|()| {
                exercise_share(&c.link, &style, &counts)?;
                // The text as the config of a share link: the same validation behind a link.
                let wrapped = format!(r#"{{"v":1,"config":{},"naive":true,"random":null}}"#, c.text);
                exercise_share(&base64url_encode(wrapped.as_bytes()), &style, &counts)
            });
            counts.busy_us.fetch_add(t.elapsed().as_micros() as u64, Ordering::Relaxed);
            result
        });
        report("random cases", &counts, start);
        match result {
            Ok(()) => {}
            Err(TestError::Fail(why, case)) => panic!("fuzz case failed: {why}\nminimal input: {case:#?}"),
            Err(e) => panic!("fuzz run aborted: {e}"),
        }
        assert!(
            counts.get(&counts.traces) > u64::from(CASES) / 4,
            "too few inputs reach compute: the generators drifted"
        );
    });
}

/// One hostile input: a text for `Config::from_json` (then compute, views and drawing) and
/// `share::decode`, raw, as a link, and as the config of a link (which must decode to the same
/// config, or fail with the same reason, without drawing it all again).
fn hostile_text(text: &str, counts: &Counts) -> Result<(), String> {
    let style = Style::default();
    let run = || -> Result<(), TestCaseError> {
        counts.add(&counts.inputs);
        let parsed = Config::from_json(text);
        match &parsed {
            Ok(config) => exercise_config(config, &style, text, counts)?,
            Err(e) => check_message("Config::from_json", &e.0, text, counts)?,
        }
        for link in [text.to_string(), base64url_encode(text.as_bytes())] {
            counts.add(&counts.inputs);
            match share::decode(&link) {
                Ok(state) => prop_assert!(false, "a bare config decoded as a share link: {:?}", state.naive),
                Err(e) => check_message("share::decode", &e, &link, counts)?,
            }
        }
        let wrapped = base64url_encode(format!(r#"{{"v":1,"config":{text}}}"#).as_bytes());
        counts.add(&counts.inputs);
        match (share::decode(&wrapped), &parsed) {
            (Ok(state), Ok(config)) => {
                prop_assert!(state.config == *config, "the link's config differs from the text's")
            }
            (Err(e), Err(_)) => check_message("share::decode", &e, &wrapped, counts)?,
            (Ok(_), Err(e)) => prop_assert!(false, "only the link decodes; from_json says {e}"),
            (Err(e), Ok(_)) => {
                // Longer than MAX_LEN, or nested one level deeper than serde_json allows.
                check_message("share::decode", &e, &wrapped, counts)?;
                prop_assert!(
                    e.contains("characters long") || e.contains("recursion"),
                    "only the text parses; the link: {e}"
                );
            }
        }
        Ok(())
    };
    run().map_err(|e| format!("hostile input {}: {e}", preview(text)))
}

fn numbers(n: usize, f: impl Fn(usize) -> f64) -> String {
    let v: Vec<String> = (0..n).map(|i| format!("{:?}", f(i))).collect();
    format!("[{}]", v.join(","))
}

fn rows(n: usize, d: usize, f: impl Fn(usize, usize) -> f64) -> String {
    let v: Vec<String> = (0..n).map(|i| numbers(d, |j| f(i, j))).collect();
    format!("[{}]", v.join(","))
}

fn names(n: usize, f: impl Fn(usize) -> String) -> String {
    serde_json::to_string(&(0..n).map(f).collect::<Vec<_>>()).unwrap()
}

#[test]
fn hostile_inputs_fail_cleanly_or_compute() {
    with_watchdog("hostile", |beat| {
        let start = Instant::now();
        let counts = Counts::default();
        let wave = |i: usize, j: usize| ((i * 7 + j * 3) % 11) as f64 / 5.0 - 1.0;
        let long_name = |c: char| c.to_string().repeat(10_000);
        let five_mb = "x".repeat(5 << 20);
        let deep = |open: &str, close: &str| format!("{}{}", open.repeat(10_000), close.repeat(10_000));
        let cases: Vec<(&str, String)> = vec![
            // 2 000 tokens.
            ("2000 tokens, self", format!(r#"{{"embeddings": {}}}"#, rows(2000, 2, wave))),
            (
                "2000 tokens, projections",
                format!(
                    r#"{{"embeddings": {}, "w_q": {w}, "w_k": {w}, "w_v": {w}}}"#,
                    rows(2000, 3, wave),
                    w = rows(3, 2, wave)
                ),
            ),
            (
                "2000 tokens, cross",
                format!(r#"{{"decoder_state": [1, -2, 0.5], "annotations": {}}}"#, rows(2000, 3, wave)),
            ),
            ("4097 tokens", format!(r#"{{"embeddings": {}}}"#, rows(4097, 1, wave))),
            ("1025 dimensions", format!(r#"{{"embeddings": {}}}"#, rows(2, 1025, wave))),
            (
                "5000 values in a decoder state",
                format!(r#"{{"decoder_state": {}, "annotations": [[1]]}}"#, numbers(5000, |_| 1.0)),
            ),
            // 10 000-character token names.
            (
                "10 000-character names",
                format!(
                    r#"{{"embeddings": [[1, 2], [3, 4], [5, 6]], "tokens": {}, "query": 2}}"#,
                    names(3, |i| long_name(['a', 'é', '😀'][i]))
                ),
            ),
            (
                "10 000 unprintable characters",
                format!(r#"{{"embeddings": [[1], [2]], "tokens": {}}}"#, names(2, |_| long_name('\u{10ffff}'))),
            ),
            (
                "10 000 combining marks",
                format!(
                    r#"{{"decoder_state": [1], "annotations": [[1]], "tokens": {}}}"#,
                    names(1, |_| long_name('\u{301}'))
                ),
            ),
            // Zero-dimension rows and empty inputs.
            ("empty row", r#"{"embeddings": [[]]}"#.into()),
            ("empty rows", r#"{"embeddings": [[], []]}"#.into()),
            ("second row empty", r#"{"embeddings": [[1], []]}"#.into()),
            ("no rows", r#"{"embeddings": []}"#.into()),
            ("empty weights", r#"{"embeddings": [[1]], "w_q": [[]], "w_k": [[]], "w_v": [[]]}"#.into()),
            ("empty decoder state", r#"{"decoder_state": [], "annotations": [[]]}"#.into()),
            ("empty annotations", r#"{"decoder_state": [1], "annotations": []}"#.into()),
            ("empty object", "{}".into()),
            ("empty text", String::new()),
            // Float64's limits.
            ("1e308 self", r#"{"embeddings": [[1e308, -1e308], [1e308, 1e308]]}"#.into()),
            ("largest float", format!(r#"{{"embeddings": [[{:?}]]}}"#, f64::MAX)),
            ("1e308 cross", r#"{"decoder_state": [1e308], "annotations": [[1e308], [-1e308]]}"#.into()),
            ("1e308 × 1e-308", r#"{"decoder_state": [1e308], "annotations": [[1e-308], [-1e-308]]}"#.into()),
            (
                "1e308 values, zero scores",
                r#"{"embeddings": [[1], [1]], "w_q": [[0]], "w_k": [[0]], "w_v": [[1e308]]}"#.into(),
            ),
            ("subnormals", r#"{"embeddings": [[5e-324, -5e-324], [1e-310, 0]], "scale": 5e-324}"#.into()),
            ("tiny scale", r#"{"embeddings": [[1, 2], [3, 4]], "scale": 1e-308}"#.into()),
            ("1e154 products", r#"{"embeddings": [[1e154, 1e154], [-1e154, 1e154]]}"#.into()),
            ("naive softmax overflow", r#"{"embeddings": [[30, 0], [0, 30]]}"#.into()),
            ("beyond float64", r#"{"embeddings": [[1.8e308]]}"#.into()),
            ("1e400", r#"{"embeddings": [[-1e400]]}"#.into()),
            ("400-digit integer", format!(r#"{{"embeddings": [[{}]]}}"#, "9".repeat(400))),
            ("u64 max query", r#"{"embeddings": [[1]], "query": 18446744073709551615}"#.into()),
            ("negative query", r#"{"embeddings": [[1]], "query": -1}"#.into()),
            ("fractional query", r#"{"embeddings": [[1]], "query": 0.5}"#.into()),
            ("zero scale", r#"{"embeddings": [[1]], "scale": 0}"#.into()),
            ("NaN texts", r#"{"embeddings": [["NaN", "Infinity", "-Infinity"]]}"#.into()),
            // Nesting 10 000 deep (serde_json stops at 128).
            ("nested lists", deep("[", "]")),
            ("nested objects", deep(r#"{"a":"#, "}")),
            ("nested embeddings", format!(r#"{{"embeddings": {}}}"#, deep("[", "]"))),
            ("unclosed lists", "[".repeat(10_000)),
            ("nesting 127", format!(r#"{{"embeddings": {}1{}}}"#, "[".repeat(126), "]".repeat(126))),
            ("nesting 128", format!(r#"{{"embeddings": {}1{}}}"#, "[".repeat(127), "]".repeat(127))),
            // A 5 MB string, wherever a string can go.
            ("5 MB text", five_mb.clone()),
            ("5 MB string", format!(r#""{five_mb}""#)),
            ("5 MB token name", format!(r#"{{"embeddings": [[1, 2], [2, 1]], "tokens": ["{five_mb}", "b"]}}"#)),
            ("5 MB field name", format!(r#"{{"{five_mb}": 1}}"#)),
            ("5 MB mechanism", format!(r#"{{"mechanism": "{five_mb}"}}"#)),
            ("5 MB number", format!(r#"{{"embeddings": [[{}]]}}"#, "1".repeat(5 << 20))),
            ("5 MB of whitespace", format!(r#"{}{{"embeddings": [[1]]}}"#, " ".repeat(5 << 20))),
            // A model's weights with huge layer and head counts (a million 1 × 1 heads once panicked in the
            // grid; 180,000 layers froze a tab), at and past the bounds; a head whose drawing is past the cost bound.
            ("180 000 layers", format!(r#"{{"attention": [{}]}}"#, vec!["[[[0]]]"; 180_000].join(","))),
            ("1 000 000 heads", format!(r#"{{"attention": [{}]}}"#, vec!["[[1]]"; 1_000_000].join(","))),
            ("4096 heads", format!(r#"{{"attention": [{}]}}"#, vec!["[[0.5, 0.5], [1, 0]]"; 4096].join(","))),
            ("4097 heads", format!(r#"{{"attention": [{}]}}"#, vec!["[[1]]"; 4097].join(","))),
            (
                "64 × 64 heads",
                format!(r#"{{"attention": [{}]}}"#, vec![format!("[{}]", vec!["[[1]]"; 64].join(",")); 64].join(",")),
            ),
            ("4096 layers", format!(r#"{{"attention": [{}]}}"#, vec!["[[[1, 0], [0, 1]]]"; 4096].join(","))),
            ("a 2000 × 2000 head", format!(r#"{{"attention": {}}}"#, rows(2000, 2000, |_, _| 0.0))),
            (
                "hostile tokens, weights",
                format!(
                    r#"{{"attention": [[0.5, 0.5], [1, 0]], "tokens": {}}}"#,
                    serde_json::to_string(&["\u{1}<&>\"'", "\u{FFFE}\u{FFFF}\u{0}"]).unwrap()
                ),
            ),
            // Messages that quote user text: escapes must not make them long.
            ("unprintable field name", format!(r#"{{"{}": 1}}"#, "\u{10ffff}".repeat(50))),
            ("unprintable mechanism", format!(r#"{{"mechanism": "{}"}}"#, "\u{e0001}".repeat(50))),
            ("unprintable tokens", format!(r#"{{"embeddings": [[1]], "tokens": "{}"}}"#, "\u{10ffff}".repeat(50))),
            ("unprintable query", format!(r#"{{"embeddings": [[1]], "query": "{}"}}"#, "\u{7f}".repeat(50))),
            ("unprintable document", format!(r#""{}""#, "\u{10ffff}".repeat(50))),
            ("unprintable scale", format!(r#"{{"embeddings": [[1]], "scale": "{}"}}"#, "\\u0000".repeat(50))),
            ("unprintable value", format!(r#"{{"embeddings": [["{}"]]}}"#, "\u{10ffff}".repeat(50))),
        ];
        // A share link just under the length limit (and, below, one over it).
        let big = format!(r#"{{"v":1,"config":{{"embeddings":[[1]],"tokens":["{}"]}}}}"#, "y".repeat(2_900_000));
        let n = cases.len();
        let verbose = std::env::var("ATTENTION_VIZ_FUZZ_VERBOSE").is_ok();
        let mut failures = Vec::new();
        for (what, text) in &cases {
            beat(what);
            let t = Instant::now();
            if let Err(e) = hostile_text(text, &counts) {
                failures.push(format!("{what}: {e}"));
            }
            if verbose {
                eprintln!("hostile {what}: {:.2} s", t.elapsed().as_secs_f64());
            }
        }
        let style = Style::default();
        for link_text in
            [base64url_encode(big.as_bytes()), "A".repeat(5 << 20), base64url_encode(deep("[", "]").as_bytes())]
        {
            beat("share link");
            if let Err(e) = exercise_share(&link_text, &style, &counts) {
                failures.push(format!("hostile share link {}: {e}", preview(&link_text)));
            }
        }
        report(
            &format!("{n} hostile documents, each raw, as a link and as a link's config, and 3 links"),
            &counts,
            start,
        );
        assert!(failures.is_empty(), "{} hostile inputs failed:\n{}", failures.len(), failures.join("\n\n"));
    });
}

/// compute()'s JS side refuses a config by the shapes it declares before reading it (`check_declared_shapes`): a
/// deterministic sweep of weights stacks (a few heads to 200,000, one weight to 4 M) and self-attention shapes never
/// refuses what the full validation takes, and refuses in its words.
#[test]
fn declared_shapes_agree_with_the_full_validation() {
    use attention_viz::config::{check_declared_shapes, Flat};
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |below: u64| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % below
    };
    let mut refused = 0;
    for case in 0..300 {
        let pick = |next: &mut dyn FnMut(u64) -> u64, big: bool| {
            if big {
                let bits = 1 + next(18);
                1 + next(1 << bits) as usize
            } else {
                1 + next(8) as usize
            }
        };
        let big = next(2) == 0;
        let l = pick(&mut next, big);
        let wide = !big && next(2) == 0;
        let h = pick(&mut next, wide);
        let (n, m) = (pick(&mut next, !big), pick(&mut next, !big));
        let Some(len) = [l, h, n, m].iter().try_fold(1usize, |a, &b| a.checked_mul(b)).filter(|&len| len <= 4 << 20)
        else {
            continue;
        };
        let data = vec![0.25; len];
        let flat = [("attention", Flat::stacked(l, h, n, m, 4, &data).unwrap())];
        let full = Config::from_parts(&json!({}), &flat).map(|_| ());
        let declared = check_declared_shapes(&json!({}), &[("attention", vec![l, h, n, m])]);
        match (&declared, &full) {
            (Ok(()), _) => {}
            (Err(d), Err(f)) => assert_eq!(d.0, f.0, "case {case}: {l} × {h} × {n} × {m}"),
            (Err(d), Ok(())) => panic!("case {case}: {l} × {h} × {n} × {m} refused by its shape only: {}", d.0),
        }
        refused += full.is_err() as usize;
        // The same counts as self-attention tokens × dimensions.
        let (t, d) = (1 + next(3000) as usize, 1 + next(64) as usize);
        let embeddings = vec![0.5; t * d];
        let flat = [("embeddings", Flat::new(t, d, &embeddings).unwrap())];
        let full = Config::from_parts(&json!({}), &flat).map(|_| ());
        match (check_declared_shapes(&json!({}), &[("embeddings", vec![t, d])]), &full) {
            (Ok(()), _) => {}
            (Err(a), Err(b)) => assert_eq!(a.0, b.0, "case {case}: {t} × {d}"),
            (Err(a), Ok(())) => panic!("case {case}: {t} × {d} refused by its shape only: {}", a.0),
        }
    }
    assert!(refused > 10, "the sweep reaches the bounds ({refused} refused)");
}

/// The web API's `RandomState` counts (`random::check_count`, which `RandomStateCore` runs before it
/// allocates): a deterministic sweep of hostile float64 counts — NaN, ±inf, negatives, fractions,
/// 2^32 and 2^64 (which used to wrap on wasm32), shape products past 2^53 — each refused with a
/// short message or accepted as exactly that many values; and draws in chunks (as the binding
/// fills its Float64Array) give the one-call stream bit for bit.
#[test]
fn random_counts_are_bounded_and_chunks_keep_the_stream() {
    use attention_viz::random::{check_count, RandomState, MAX_RANDOM};
    let mut state = 0x9e37_79b9_7f4a_7c15u64; // splitmix64: the same counts every run
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut counts: Vec<f64> = vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1.0,
        -0.0,
        0.0,
        0.5,
        1.5,
        1e-300,
        4294967296.0,
        4294967297.0,
        18446744073709551616.0,
        9007199254740993.0,
        1e308,
        f64::MAX,
        f64::MIN_POSITIVE,
        MAX_RANDOM as f64,
        MAX_RANDOM as f64 + 1.0,
        65536.0 * 65537.0,
        1.2e8,
        5e8,
    ];
    for _ in 0..2000 {
        let dims = 1 + next() % 4;
        counts.push((0..dims).map(|_| (next() % 70_000) as f64).product());
        counts.push(f64::from_bits(next()));
    }
    let (mut accepted, mut refused) = (0, 0);
    for &count in &counts {
        match check_count(count) {
            Ok(n) => {
                accepted += 1;
                assert!(count >= 0.0 && count.fract() == 0.0 && n as f64 == count && n <= MAX_RANDOM, "{count}");
            }
            Err(message) => {
                refused += 1;
                assert!(!message.is_empty() && message.len() <= MAX_MESSAGE, "{count}: {message}");
                assert!(
                    !(count >= 0.0 && count.fract() == 0.0 && count <= MAX_RANDOM as f64),
                    "{count} refused: {message}"
                );
            }
        }
    }
    println!("random counts: {} checked, {accepted} accepted, {refused} refused", counts.len());
    assert!(accepted > 100 && refused > 100);
    // Chunked draws equal one call (the binding fills 65 536 at a time; here odd chunk sizes too).
    for chunk in [1usize, 7, 4096, 65_536] {
        let total = 70_001;
        let mut one = RandomState::new(42);
        let mut parts = RandomState::new(42);
        let whole = (one.rand(total), one.randn(total), one.randint(-5, 1_000_003, total).unwrap());
        let mut got = (Vec::new(), Vec::new(), Vec::new());
        for (i, part) in [0, 1, 2].into_iter().flat_map(|k| std::iter::repeat_n(k, total.div_ceil(chunk))).enumerate() {
            let n = chunk.min(total - (i % total.div_ceil(chunk)) * chunk);
            match part {
                0 => got.0.extend(parts.rand(n)),
                1 => got.1.extend(parts.randn(n)),
                _ => got.2.extend(parts.randint(-5, 1_000_003, n).unwrap()),
            }
        }
        assert!(
            whole.0.iter().zip(&got.0).all(|(a, b)| a.to_bits() == b.to_bits()) && got.0.len() == total,
            "rand, chunk {chunk}"
        );
        assert!(
            whole.1.iter().zip(&got.1).all(|(a, b)| a.to_bits() == b.to_bits()) && got.1.len() == total,
            "randn, chunk {chunk}"
        );
        assert_eq!(whole.2, got.2, "randint, chunk {chunk}");
    }
}
