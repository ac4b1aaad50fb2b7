//! What the element shows of a figure besides its heatmaps, panels and tables: the facts its parts follow (the
//! mechanism, the followed query, head and layer, the token names), the toolbar (the scale and its choices, the query
//! menu, what Randomize draws) and the input grids (each editable matrix's name, titles, shape, step, and the window of
//! values a grid shows). Built from a `Config` as JSON; the element renders it and keeps no config of its own.

use crate::config::{Config, Mechanism, Scale, Scoring};
use crate::tables::label;
use crate::text::thousands;
use serde_json::{Map, Value};

/// A grid shows at most this many rows and columns of its matrix at once, moved a page at a time: every rendered
/// input costs paint and compositing on each frame (20,000 of them made one edit take ~200 ms to reach the screen).
pub const WINDOW: [usize; 2] = [16, 16];

/// The longest paste an input grid reads, in characters (UTF-16 code units, as the page counts them): reading is
/// about 0.3 s a megabyte on a quiet laptop, in one task, so a larger paste is refused at once (a file of any size goes
/// through Import…, which the reader asks for explicitly).
pub const MAX_PASTE: usize = 1_000_000;

/// Why a paste of `length` characters into an input grid is not read ([`MAX_PASTE`]), or `None`.
pub fn paste_refused(length: usize) -> Option<String> {
    (length > MAX_PASTE).then(|| {
        format!(
            "the pasted text is {} characters long; a paste of at most {} is read. Import a larger array from a file \
             (Import…)",
            thousands(length),
            thousands(MAX_PASTE)
        )
    })
}

/// The sentences of a grid's message line and of its `error` events, `{name}` filled by the element (www/element/
/// inputs.js): where a cell is (`where`: NumPy's indexing), what the `error` event says of it (`said`), a typed value
/// the figure cannot take (`invalid`), a refused paste (`paste`: a message of its own, or one a reading of the
/// pasted text gave, `unread`).
pub const CELL_NOTES: [(&str, &str); 5] = [
    ("where", "{matrix}[{row}][{col}]"),
    ("said", "{where}: {message}"),
    ("invalid", "{where}: {message}. The figure shows the last valid values."),
    ("paste", "Paste at {where}: {message}."),
    ("unread", "{message}; nothing was pasted"),
];

/// The editable inputs' grid legends and the rows' label (`None`: each row is a token, named in a field of its own;
/// `Some("")`: the row's index). Their names in messages are `import::title`'s.
const LEGENDS: [(&str, &str, Option<&str>); 14] = [
    ("embeddings", "embeddings X", None),
    ("w_q", "W_Q", Some("")),
    ("w_k", "W_K", Some("")),
    ("w_v", "W_V", Some("")),
    ("b_q", "bias b_q", Some("b")),
    ("b_k", "bias b_k", Some("b")),
    ("b_v", "bias b_v", Some("b")),
    ("b_o", "bias b_o", Some("b")),
    ("decoder_state", "decoder state h", Some("h")),
    ("annotations", "annotations a_j", None),
    ("w_a", "W_a", Some("")),
    ("u_a", "U_a", Some("")),
    ("v_a", "v_a", Some("v")),
    ("w_o", "W_O", Some("")),
];

/// One editable input of a config: its name, shape, row-major values, and whether it is one vector.
pub struct Grid<'a> {
    pub name: &'static str,
    pub rows: usize,
    pub cols: usize,
    pub data: &'a [f64],
    pub vector: bool,
}

/// The config's editable inputs in reading order: the documents' inputs (with the projections' biases b_q, b_k, b_v
/// after them), then the scoring's W_a, U_a, v_a and the output projection W_O (and its bias b_o) when it has them. A
/// model's weights have none.
pub fn grids(config: &Config) -> Vec<Grid<'_>> {
    let mut out = Vec::new();
    match &config.mechanism {
        Mechanism::SelfAttention { embeddings, projections } => {
            out.push(matrix("embeddings", embeddings));
            if let Some(p) = projections {
                out.extend([matrix("w_q", &p.w_q), matrix("w_k", &p.w_k), matrix("w_v", &p.w_v)]);
            }
            let l = &config.options.layers;
            for (name, bias) in [("b_q", &l.b_q), ("b_k", &l.b_k), ("b_v", &l.b_v)] {
                out.extend(bias.as_deref().map(|b| vector(name, b)));
            }
        }
        Mechanism::Cross { decoder_state, annotations } => {
            out.extend([vector("decoder_state", decoder_state), matrix("annotations", annotations)]);
        }
        Mechanism::Weights { .. } => return out,
    }
    match &config.options.scoring {
        Scoring::General { w_a } => out.push(matrix("w_a", w_a)),
        Scoring::Additive { w_a, u_a, v_a } => out.extend([matrix("w_a", w_a), matrix("u_a", u_a), vector("v_a", v_a)]),
        Scoring::Dot | Scoring::Cosine => {}
    }
    if let Some(w_o) = &config.options.w_o {
        out.push(matrix("w_o", w_o));
    }
    out.extend(config.options.layers.b_o.as_deref().map(|b| vector("b_o", b)));
    out
}

fn matrix<'a>(name: &'static str, m: &'a crate::math::Matrix) -> Grid<'a> {
    Grid { name, rows: m.rows(), cols: m.cols(), data: m.data(), vector: false }
}

fn vector<'a>(name: &'static str, v: &'a [f64]) -> Grid<'a> {
    Grid { name, rows: 1, cols: v.len(), data: v, vector: true }
}

fn obj(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>())
}

fn strings<'s>(list: impl IntoIterator<Item = &'s String>) -> Value {
    Value::Array(list.into_iter().map(|s| Value::from(s.as_str())).collect())
}

/// The facts the parts follow: `{mechanism, query, head, heads, layer, tokens, key_tokens, masks, structure}`
/// (`layer` and `key_tokens` a model's weights' only; `masks`: whether anything masks, so −∞ may show; `structure`:
/// see [`structure`]).
pub fn facts(config: &Config) -> Value {
    let o = &config.options;
    let mut fields = vec![
        ("mechanism", config.mechanism.name().into()),
        ("query", config.query.into()),
        ("tokens", strings(&config.tokens)),
        ("masks", crate::tables::masks(config).into()),
        ("structure", structure(config).into()),
    ];
    match &config.mechanism {
        Mechanism::Weights { key_tokens, layer, head, .. } => {
            fields.extend([("layer", (*layer).into()), ("head", (*head).into()), ("heads", 1.into())]);
            fields.push(("key_tokens", strings(key_tokens)));
        }
        _ => fields.extend([("head", o.head.into()), ("heads", o.heads.into())]),
    }
    obj(fields)
}

/// The figure's structure without its numbers: the config with each matrix written as its shape ("3×4", a model's
/// stack as its four axes). Two states of the same structure show the same controls, grids and canvases, so the
/// element goes from one to the other without building anything anew.
pub fn structure(config: &Config) -> String {
    fn shapes(v: Value) -> Value {
        match v {
            Value::Array(rows)
                if !rows.is_empty()
                    && rows.iter().all(|r| matches!(r, Value::Array(x) if x.iter().all(Value::is_number))) =>
            {
                let cols = rows[0].as_array().map_or(0, Vec::len);
                format!("{}×{cols}", rows.len()).into()
            }
            Value::Array(list) => Value::Array(list.into_iter().map(shapes).collect()),
            Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, shapes(v))).collect()),
            other => other,
        }
    }
    let mut out = shapes(config.to_value_shaped()).to_string();
    if let Mechanism::Weights { attention, .. } = &config.mechanism {
        out += &format!("|{:?}", attention.shape());
    }
    out
}

/// The toolbar: `{scale: {kind, value, choices: [{value, text}]}, queries: [{value, text, title}] | null, query,
/// randomize}`: the scale's kind ("sqrt_dk", "none", "custom") and the custom divisor's text, the query menu
/// (self-attention's), and the Randomize button's title (what one seed draws).
pub fn toolbar(config: &Config) -> Value {
    let self_attention = matches!(config.mechanism, Mechanism::SelfAttention { .. });
    let projected = matches!(config.mechanism, Mechanism::SelfAttention { projections: Some(_), .. });
    let (kind, value) = match config.scale {
        Scale::SqrtDk => ("sqrt_dk", "1".to_string()),
        Scale::None => ("none", "1".to_string()),
        Scale::Value(v) => ("custom", crate::text::js_string(v)),
    };
    let choices: Vec<Value> =
        [("sqrt_dk", if projected { "÷ √d_k" } else { "÷ √d" }), ("none", "none"), ("custom", "custom ÷")]
            .iter()
            .map(|&(v, t)| obj(vec![("value", v.into()), ("text", t.into())]))
            .collect();
    let queries = if self_attention {
        Value::Array(
            config
                .tokens
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    obj(vec![
                        ("value", i.into()),
                        ("text", format!("{i}: {}", label(t)).into()),
                        ("title", t.as_str().into()),
                    ])
                })
                .collect(),
        )
    } else {
        Value::Null
    };
    let targets: Vec<&str> = config.random_targets().into_iter().map(crate::import::title).collect();
    obj(vec![
        ("scale", obj(vec![("kind", kind.into()), ("value", value.into()), ("choices", Value::Array(choices))])),
        ("queries", queries),
        ("query", config.query.into()),
        ("randomize", format!("np.random.seed(seed), then one call per matrix: {}", targets.join(", ")).into()),
    ])
}

/// The input grids: per grid `{name, title, legend, shape: [rows, cols], vector, tokens (its rows are the tokens,
/// named in fields), label (each row's label otherwise: "h", "v" or "" for the index), step (1 for whole numbers, else
/// 0.01), window: [r0, c0] (kept inside the shape), page: [rows, cols] (a window's most, and how far ▲▼◀▶ move it),
/// values: the window's rows, nav: {rows, cols} (each `{text, prev, next}`: "rows 16–19 of 20" and whether the window
/// can move back and on; `null` when the whole axis shows), import: {label, title, drop} (the Import… button's and the
/// drop highlight's words)}`. `windows`: `{name: [r0, c0]}`, the top-left cell each grid asks to show (absent: 0, 0).
pub fn inputs(config: &Config, windows: &Value) -> Value {
    let grids = grids(config)
        .into_iter()
        .map(|g| {
            let (_, title, row_label) =
                LEGENDS.iter().find(|i| i.0 == g.name).copied().expect("every grid is an input");
            let asked = |k: usize| windows[g.name][k].as_u64().unwrap_or(0) as usize;
            let r0 = asked(0).min(g.rows.saturating_sub(WINDOW[0]));
            let c0 = asked(1).min(g.cols.saturating_sub(WINDOW[1]));
            let (r1, c1) = ((r0 + WINDOW[0]).min(g.rows), (c0 + WINDOW[1]).min(g.cols));
            let values: Vec<Value> = (r0..r1)
                .map(|r| {
                    Value::Array(g.data[r * g.cols + c0..r * g.cols + c1].iter().map(|&x| json_number(x)).collect())
                })
                .collect();
            let whole = g.data.iter().all(|x| x.fract() == 0.0);
            let shape = if g.vector { g.cols.to_string() } else { format!("{} × {}", g.rows, g.cols) };
            let named = crate::import::title(g.name);
            let import = obj(vec![
                ("label", format!("Import {named} from a file").into()),
                (
                    "title",
                    format!(
                        "Fill {named} from a .npy, .npz, .json, .csv, .tsv or .txt file — or drop one on this grid"
                    )
                    .into(),
                ),
                ("drop", format!("Drop to fill {named}").into()),
            ]);
            let nav = obj(vec![
                ("rows", axis_nav("rows", r0, r1, g.rows, WINDOW[0])),
                ("cols", axis_nav("columns", c0, c1, g.cols, WINDOW[1])),
            ]);
            obj(vec![
                ("name", g.name.into()),
                ("title", title.into()),
                ("legend", format!("{title} ({shape})").into()),
                ("page", Value::Array(vec![WINDOW[0].into(), WINDOW[1].into()])),
                ("nav", nav),
                ("import", import),
                ("shape", Value::Array(vec![g.rows.into(), g.cols.into()])),
                ("vector", g.vector.into()),
                ("tokens", row_label.is_none().into()),
                ("label", row_label.unwrap_or("").into()),
                ("step", if whole { 1.0 } else { 0.01 }.into()),
                ("window", Value::Array(vec![r0.into(), c0.into()])),
                ("values", Value::Array(values)),
            ])
        })
        .collect();
    Value::Array(grids)
}

/// One axis of a grid's window: `{text: "rows 16–19 of 20", prev, next}` (whether it can move back, and on), or
/// `null` when the whole axis shows.
fn axis_nav(what: &str, from: usize, to: usize, len: usize, page: usize) -> Value {
    if len <= page {
        return Value::Null;
    }
    obj(vec![
        ("text", format!("{what} {from}–{} of {len}", to - 1).into()),
        ("prev", (from > 0).into()),
        ("next", (to < len).into()),
    ])
}

/// A finite number as JSON (inputs are always finite; anything else would be a bug shown as 0 rather than a throw).
fn json_number(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::from(0), Value::Number)
}
