//! The element's variants panel (heads, scoring, temperature, mask) and its modern panels (position, kv, window) as
//! they show a figure: every choice with its words (the mask kinds, what a fully masked query gets, the scorings'
//! formulas, the position encodings), every disabled control with its reason, the rules the controls follow (which
//! query heads share each K/V head and their colours, what a switch of position encoding keeps, the window's limits),
//! RoPE's first pair as a 2-D picture turning with the positions (`rope_pair`) and the numbers the panels print (each
//! query's entropy of the followed head's weights). Built from a figure's `Config` and `Trace` as JSON (`panels`); the element's www/element/variants.js and modern.js render it as it is, so each text and rule
//! lives here once. Numbers inside a sentence are left as `{name}` for the element's number format (dom.js `fmt`).

use crate::attention::Trace;
use crate::config::{Config, Mask, Mechanism, Pairs, Position, Scoring};
use crate::heatmap::draw::{clip_to, GROUP_COLORS};
use crate::math::entropy_bits;
use crate::tables::mask_reason;
use crate::text::{number, significant};
use serde_json::Value;

/// The variants panel's parts, as the `views` attribute names them.
pub const VARIANT_PANELS: [&str; 4] = ["heads", "mask", "temperature", "scoring"];

/// The modern panels built here (the decode and flash panels are the steppers', web/steppers.rs).
pub const MODERN_OWN: [&str; 4] = ["position", "kv", "window", "softcap"];

/// Queries whose entropy is listed one by one; past them, the mean over all of them.
pub const MAX_LISTED: usize = 16;

/// What a query whose every key is masked shows for its entropy.
const ALL_MASKED: &str = "all masked";

/// Queries with a valid-length field each; past them, one field holding the list.
pub const MAX_LEN_FIELDS: usize = 16;

/// The seed the additive scoring's starting W_a, U_a, v_a are drawn from (edits::with_scoring).
pub const SCORING_SEED: u64 = 42;

/// The window's sides while it is off (shown in its fields, taken when it is turned on): two keys back, none ahead.
pub const WINDOW_OFF: [u64; 2] = [2, 0];

/// The soft cap while it is off (shown in its field, taken when it is turned on): small enough to bend the scores of
/// a figure's small numbers (Gemma 2's 50 leaves them as they are).
pub const SOFTCAP_OFF: f64 = 1.0;

/// What a panel says of a field that takes a whole number when the text typed is not one (`{text}`: it, quoted).
const NOT_WHOLE: &str = "{text} is not a whole number ≥ 0";

/// A log-scale slider: positions `min` … `max` a hundredth of a decade apart (position s stands for 10^(s/100), to 3
/// significant digits: a number a reader can read back), its two ends exactly the numbers its scale states, which the
/// panel writes beside it (`ends`, `label`).
pub struct LogSlider {
    pub min: i32,
    pub max: i32,
    /// The values at `min` and `max`, as the panel states them.
    pub ends: [f64; 2],
    /// How the ends are written beside the slider.
    pub shown: [&'static str; 2],
    /// The slider's accessible name.
    pub label: &'static str,
}

/// Positions a decade on a [`LogSlider`].
pub const SLIDER_STEPS: i32 = 100;

/// The temperature slider: 0.05 to 20 (10^−1.3 … 10^1.3), T = 1 in the middle.
pub const TEMPERATURE_SLIDER: LogSlider = LogSlider {
    min: -130,
    max: 130,
    ends: [0.05, 20.0],
    shown: ["0.05", "20"],
    label: "Temperature (log scale, 0.05 to 20)",
};

/// The base slider of sinusoidal and RoPE positions: 1 (the core's least base) to 10^7.
pub const BASE_SLIDER: LogSlider =
    LogSlider { min: 0, max: 700, ends: [1.0, 1e7], shown: ["1", "10⁷"], label: "Base (log scale, 1 to 10 million)" };

impl LogSlider {
    /// The value at position `s` (clamped to the slider): an end's own number at the ends, else 10^(s/100) to 3
    /// significant digits.
    pub fn value_at(&self, s: i32) -> f64 {
        let s = s.clamp(self.min, self.max);
        if s == self.min {
            return self.ends[0];
        }
        if s == self.max {
            return self.ends[1];
        }
        let x = 10f64.powf(f64::from(s) / f64::from(SLIDER_STEPS));
        significant(x, 3).parse().unwrap_or(x)
    }

    /// The position nearest `value` on the log scale, within the slider (a value beyond an end sits at that end).
    pub fn position_of(&self, value: f64) -> i32 {
        let s = (f64::from(SLIDER_STEPS) * value.log10()).round();
        if s.is_nan() {
            return self.min;
        }
        s.clamp(f64::from(self.min), f64::from(self.max)) as i32
    }

    /// `{min, max, step, values, at, ends, label}`: the slider's positions, the value at each (`values[s − min]`), the
    /// position of `value`, the ends as written beside it and its accessible name.
    pub fn model(&self, value: f64) -> Value {
        let values: Vec<Value> = (self.min..=self.max).map(|s| self.value_at(s).into()).collect();
        obj(vec![
            ("min", self.min.into()),
            ("max", self.max.into()),
            ("step", 1.into()),
            ("values", values.into()),
            ("at", self.position_of(value).into()),
            ("ends", self.shown.to_vec().into()),
            ("label", self.label.into()),
        ])
    }
}

/// ALiBi's default slopes, as the panel writes them.
const DEFAULT_SLOPES: &str = "2^(−8(h+1)/H)";

/// The mask kinds: value, shown text, meaning.
const MASKS: [(&str, &str, &str); 3] = [
    ("none", "none", "Every query may attend to every key."),
    ("causal", "causal", "Query i may attend to keys 0 … i only: a decoder cannot look ahead."),
    ("custom", "custom", "Your own 0/1 matrix (1 = may attend): click a cell of the mask to toggle it."),
];

/// What a query whose every key is masked gets (`masked_row`): value, shown text, meaning.
const MASKED_ROWS: [(&str, &str, &str); 3] = [
    ("zero", "zero", "Weights 0 and context 0, as PyTorch ≥ 2.5's scaled_dot_product_attention."),
    ("uniform", "uniform", "1/m on every key, as d2l's masked_softmax (which fills masked scores with −1e6)."),
    ("nan", "nan", "NaN: softmax of scores that are all −∞ is 0/0, the literal mathematics."),
];

/// The scoring functions: value, shown text, formula, meaning.
const SCORINGS: [(&str, &str, &str, &str); 4] = [
    ("dot", "dot product", "q·kᵀ", "The dot product of query and key (Vaswani et al.; the documents' scoring)."),
    (
        "general",
        "general (Luong)",
        "q·W_a·kᵀ",
        "Luong et al. 2015: q·W_a·kᵀ, with W_a starting as the identity (the dot product).",
    ),
    (
        "additive",
        "additive (Bahdanau)",
        "v_a·tanh(q·W_a + k·U_a)",
        "Bahdanau et al. 2015: v_a·tanh(q·W_a + k·U_a), with W_a, U_a, v_a from seed 42.",
    ),
    (
        "cosine",
        "cosine",
        "q·k / (‖q‖‖k‖)",
        "Cosine similarity (PyTorch's cosine_similarity, eps 1e-8): scores in [−1, 1], usually paired with a low temperature.",
    ),
];

/// The position encodings: value, shown text, meaning.
const KINDS: [(&str, &str, &str); 4] = [
    (
        "none",
        "none",
        "No position information: attention sees the tokens as a set (shuffle them and each row of weights only moves).",
    ),
    (
        "sinusoidal",
        "sinusoidal",
        "Vaswani et al. 2017 §3.5: PE[p, j] = sin/cos(p / base^(2⌊j/2⌋/d_model)) is added to X before the projections.",
    ),
    (
        "rope",
        "RoPE",
        "Su et al. 2021: each head's q and k rows are rotated pairwise by the angle p·θ_i, θ_i = base^(−2i/d_k); the scores are of the rotated vectors.",
    ),
    ("alibi", "ALiBi", "Press et al. 2022: each head's scaled scores gain the bias −m_h·|i − j|."),
];

/// RoPE's pair layouts: value, shown text, meaning.
const PAIRS: [(&str, &str, &str); 2] = [
    ("interleaved", "interleaved", "Pairs (x_2i, x_2i+1): RoFormer's complex-number form (Su et al. 2021, eq. 34)."),
    ("halves", "halves", "Pairs (x_i, x_i+d/2): GPT-NeoX's and LLaMA's rotate_half."),
];

/// A JSON object of `fields`. Built with `Value::from` rather than `json!`, whose serializer calls put code for each
/// field's type in the .wasm.
#[inline(never)]
fn obj(fields: Vec<(&str, Value)>) -> Value {
    let mut map = serde_json::Map::new();
    for (k, v) in fields {
        map.insert(k.to_string(), v);
    }
    Value::Object(map)
}

/// A select's options: `{value, text, title}` each.
fn choices(list: &[(&str, &str, &str)]) -> Vec<Value> {
    list.iter()
        .map(|&(v, text, title)| obj(vec![("value", v.into()), ("text", text.into()), ("title", title.into())]))
        .collect()
}

/// Each choice with the `fields` an edit to it sends (null: the element's own edit, a custom mask's first cell).
fn with_fields(list: Vec<Value>, fields: impl Fn(&str) -> Option<Value>) -> Vec<Value> {
    list.into_iter()
        .map(|mut c| {
            let sent = fields(c["value"].as_str().unwrap_or(""));
            c["fields"] = sent.into();
            c
        })
        .collect()
}

/// The variant panels this config uses (shown without a `views` list, as they were before there were panels): heads
/// with more than one head or W_O, the mask with a mask or valid lengths, the temperature away from 1, the scoring
/// when it is not the dot product.
pub fn used(config: &Config) -> Vec<&'static str> {
    let o = &config.options;
    let on = [
        o.heads > 1 || o.w_o.is_some(),
        o.mask != Mask::None || o.valid_lens.is_some(),
        o.temperature != 1.0,
        !matches!(o.scoring, Scoring::Dot),
    ];
    VARIANT_PANELS.iter().zip(on).filter(|(_, on)| *on).map(|(p, _)| *p).collect()
}

/// The panels' model: `{modern, heads?, scoring?, temperature?, mask?, position?, kv?, window?}`, a part for each name
/// of `asked` this figure can show (the modern panels are self-attention's); `modern`: whether it can show them.
pub fn panels(config: &Config, trace: &Trace, asked: &[String]) -> Value {
    let own = matches!(config.mechanism, Mechanism::SelfAttention { .. });
    let mut out = obj(vec![("modern", own.into())]);
    if matches!(config.mechanism, Mechanism::Weights { .. }) {
        return out;
    }
    for name in asked {
        let part = match name.as_str() {
            "heads" => heads(config),
            "scoring" => scoring(config),
            "temperature" => temperature(config, trace),
            "mask" => mask(config),
            "position" if own => {
                let mut part = position(config);
                part["pair"] = rope_pair(config, trace);
                part
            }
            "kv" if own => kv(config),
            "window" if own => window(config),
            "softcap" if own => softcap(config),
            _ => continue,
        };
        out[name.as_str()] = part;
    }
    out
}

/// The queries' names as the panels list them: the tokens, or the decoder state (one query).
fn queries(config: &Config) -> Vec<String> {
    match config.mechanism {
        Mechanism::SelfAttention { .. } => config.tokens.clone(),
        _ => vec!["decoder state".to_string()],
    }
}

/// `{count, head, w_o, disabled, label, add_title, remove_title, remove, choices}`: the head count and the followed
/// head; `w_o`: whether W_O is on (null: no W_O to choose, encoder–decoder attention); `disabled`: why heads cannot be
/// added or removed, or null; the panel's label, its buttons' titles, the head − head removes, and the heads to follow
/// (`[{value, text, fields}]`, `fields` what following it sends; none with one head).
fn heads(config: &Config) -> Value {
    let o = &config.options;
    let (w_o, disabled) = match &config.mechanism {
        Mechanism::SelfAttention { projections, .. } => (
            Some(o.w_o.is_some()),
            projections.is_none().then_some(
                "Heads split W_Q, W_K and W_V by columns: this figure has no projections (it attends with the embeddings themselves).",
            ),
        ),
        _ => (
            None,
            Some("Encoder–decoder attention here compares the decoder state with the annotations directly: it has one head."),
        ),
    };
    let h = o.heads;
    // A head to follow only among several.
    let choices: Vec<Value> = (0..if h > 1 { h } else { 0 })
        .map(|i| {
            obj(vec![
                ("value", i.into()),
                ("text", format!("head {i}").into()),
                ("fields", obj(vec![("head", i.into())])),
            ])
        })
        .collect();
    obj(vec![
        ("count", h.into()),
        ("head", o.head.into()),
        ("w_o", w_o.into()),
        ("disabled", disabled.into()),
        ("label", if h > 1 { format!("{h} heads") } else { "heads".to_string() }.into()),
        (
            "add_title",
            disabled
                .unwrap_or("One more head: W_Q, W_K and W_V gain its columns (zeros, or the head − head took away)")
                .into(),
        ),
        (
            "remove_title",
            disabled.unwrap_or("Remove the last head: its columns of W_Q, W_K and W_V (and its rows of W_O)").into(),
        ),
        ("remove", h.saturating_sub(1).into()),
        ("choices", choices.into()),
    ])
}

/// `{value, formula, title, seed, choices: [{value, text, formula, title}]}`: the scoring, its formula and meaning.
fn scoring(config: &Config) -> Value {
    let value = config.options.scoring.name();
    let list: Vec<Value> = SCORINGS
        .iter()
        .map(|&(v, text, formula, title)| {
            obj(vec![("value", v.into()), ("text", text.into()), ("formula", formula.into()), ("title", title.into())])
        })
        .collect();
    let &(_, _, formula, title) = SCORINGS.iter().find(|s| s.0 == value).unwrap_or(&SCORINGS[0]);
    obj(vec![
        ("value", value.into()),
        ("formula", formula.into()),
        ("title", title.into()),
        ("seed", SCORING_SEED.into()),
        ("choices", list.into()),
    ])
}

/// `{value, text, field, title, slider, entropy}`: the temperature, as the panel writes it (`text`), the config field its
/// slider sets, what it does, the slider ([`TEMPERATURE_SLIDER`]'s [`LogSlider::model`]), and each query's entropy of
/// the followed head's weights in bits.
///
/// `entropy`: `{title, max, rows: [{name, bits, masked, bar, title, text}], more, mean}` — `max` = log₂ m (uniform
/// weights) and `title` saying it (`{max}`); per listed query (the first [`MAX_LISTED`]) its name, its entropy
/// (`bits`, null with `masked` when every key is masked, null alone when the weights are NaN), its bar's length in
/// percent of `max`, and its tooltip and text (`{bits}`); past them `more`: the sentence of the mean over all queries
/// (`{mean}`; `mean` null when no query has a number), else null.
fn temperature(config: &Config, trace: &Trace) -> Value {
    let o = &config.options;
    let own = matches!(config.mechanism, Mechanism::SelfAttention { .. });
    let field = if own { format!("heads.{}.weights", o.head) } else { "weights".to_string() };
    let m = config.tokens.len();
    let names = queries(config);
    let hs: Vec<Option<f64>> = match trace.field(&field) {
        Some(f) => f.data.chunks(m.max(1)).map(entropy_bits).collect(),
        None => vec![],
    };
    let max = (m as f64).log2();
    let rows: Vec<Value> = hs
        .iter()
        .zip(&names)
        .take(MAX_LISTED)
        .map(|(h, name)| {
            let bar = match h {
                Some(x) if x.is_finite() && max > 0.0 => (100.0 * x / max).round(),
                _ => 0.0,
            };
            let (title, text) = match h {
                None => (format!("{name}: H = none (every key is masked, weights 0)"), ALL_MASKED.to_string()),
                Some(_) => (format!("{name}: H = {{bits}} bits"), "{bits}".to_string()),
            };
            obj(vec![
                ("name", name.clone().into()),
                ("bits", h.filter(|x| !x.is_nan()).into()),
                ("masked", h.is_none().into()),
                ("bar", bar.into()),
                ("title", title.into()),
                ("text", text.into()),
            ])
        })
        .collect();
    let finite: Vec<f64> = hs.iter().flatten().copied().filter(|x| !x.is_nan()).collect();
    let mean = (!finite.is_empty()).then(|| finite.iter().sum::<f64>() / finite.len() as f64);
    let n = hs.len();
    let whose = if own && o.heads > 1 { format!("head {}'s weights", o.head) } else { "the weights".to_string() };
    let said = if mean.is_some() { "{mean}" } else { ALL_MASKED };
    let more = (n > MAX_LISTED).then(|| format!("… {} more queries; mean over all {n}: {said} bits", n - MAX_LISTED));
    let entropy = obj(vec![
        ("title", format!("Entropy of {whose}, bits: 0 = all on one key, log₂ {m} = {{max}} = uniform").into()),
        ("max", max.into()),
        ("rows", rows.into()),
        ("more", more.into()),
        ("mean", mean.into()),
    ]);
    obj(vec![
        ("value", o.temperature.into()),
        ("text", format!("T = {}", number(o.temperature)).into()),
        ("field", "temperature".into()),
        (
            "title",
            "scaled = scores ÷ scale ÷ T: a low T sharpens the weights towards one key, a high T flattens them towards uniform"
                .into(),
        ),
        ("slider", TEMPERATURE_SLIDER.model(o.temperature)),
        ("entropy", entropy),
    ])
}

/// `{kind, title, choices, masked_row, masked_title, masked_rows, queries, keys, query, lens, lens_list, lens_title,
/// drawn, canvas_label, hint, outline, len_labels, list_placeholder, list_label}`: each choice and each `masked_rows`
/// choice with the `fields` an edit to it sends; the mask kind and its meaning (a causal mask only where there are
/// queries to look ahead of), what a fully masked query gets, the queries' and keys' names, the followed query (null
/// with one query), and the valid lengths as the fields show them: one per query (`lens`, up to [`MAX_LEN_FIELDS`]
/// queries; a length of m or more is every key, shown empty as typed for none) or one list (`lens_list`), and what a
/// valid length does (`lens_title`); whether the mask heatmap is drawn (`drawn`: a mask to draw), its label, the `hint`
/// in its place otherwise, the followed query's row outline on it (a heatmap highlight; null with one query); each
/// field's label, the list field's placeholder and label. What is typed in those fields is read by [`typed_lens`], a
/// cell of the mask said by [`mask_cell_words`].
fn mask(config: &Config) -> Value {
    let o = &config.options;
    let own = matches!(config.mechanism, Mechanism::SelfAttention { .. });
    let kind = match o.mask {
        Mask::None => "none",
        Mask::Causal => "causal",
        Mask::Matrix(_) => "custom",
    };
    let kinds: Vec<_> = MASKS.iter().filter(|k| own || k.0 != "causal").copied().collect();
    let row = o.masked_row.name();
    let meaning = |list: &[(&str, &str, &str)], v: &str| list.iter().find(|c| c.0 == v).map(|c| c.2.to_string());
    let names = queries(config);
    let m = config.tokens.len();
    let lens = o.valid_lens.as_ref();
    let fields = (names.len() <= MAX_LEN_FIELDS).then(|| {
        (0..names.len())
            .map(|i| lens.and_then(|l| l.get(i)).filter(|&&l| l < m).map_or(String::new(), |l| l.to_string()))
            .collect::<Vec<_>>()
    });
    let list = lens.map_or(String::new(), |l| l.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "));
    obj(vec![
        ("kind", kind.into()),
        ("title", meaning(&MASKS, kind).into()),
        ("choices", with_fields(choices(&kinds), |v| match v {
            "none" => Some(obj(vec![("mask", Value::Null)])),
            "causal" => Some(obj(vec![("mask", "causal".into())])),
            _ => None,
        }).into()),
        ("masked_row", row.into()),
        ("masked_title", meaning(&MASKED_ROWS, row).into()),
        ("masked_rows", with_fields(choices(&MASKED_ROWS), |v| Some(obj(vec![("masked_row", v.into())]))).into()),
        ("queries", names.clone().into()),
        ("keys", config.tokens.clone().into()),
        ("query", own.then_some(config.query).into()),
        ("lens", fields.into()),
        ("lens_list", list.into()),
        (
            "lens_title",
            format!("Query i may attend to keys 0 … L − 1 only (d2l's valid_lens); empty: all {m} keys").into(),
        ),
        ("drawn", crate::views::names(config).iter().any(|v| v == "mask").into()),
        (
            "canvas_label",
            format!(
                "Mask, {}, keys as columns: 1 = attended, 0 = masked (by the mask, a valid length or the window)",
                if own { "queries as rows" } else { "the decoder state as the row" }
            )
            .into(),
        ),
        ("hint", "Pick causal or custom to draw the mask and toggle its cells, or give a query a valid length.".into()),
        ("outline", own.then(|| vec![0, config.query, 0, config.query + 1, m]).into()),
        ("len_labels", lens_labels(&names, m).into()),
        (
            "list_placeholder",
            format!(
                "{} lengths, e.g. {}, …",
                names.len(),
                (0..3).map(|i| m.saturating_sub(i).max(1).to_string()).collect::<Vec<_>>().join(", ")
            )
            .into(),
        ),
        (
            "list_label",
            format!(
                "Valid lengths, one whole number per query ({}), separated by commas, applied with Enter; empty: all keys",
                names.len()
            )
            .into(),
        ),
    ])
}

/// What is typed in the mask panel's valid-length fields, as the element sends it (`Viz.ask` `validLens`).
pub enum TypedLens {
    /// The texts of the per-query fields (one per query, as typed), `row` the field typed in or stepped, `step`
    /// +1 or −1 for ↑/↓ on it (0: typed).
    Fields { texts: Vec<String>, row: usize, step: i32 },
    /// The one field holding the list (past [`MAX_LEN_FIELDS`] queries), as typed.
    List(String),
}

/// Characters of a typed text a message quotes (the element's `clip`).
const TYPED_CHARS: usize = 24;

/// What [`TypedLens`] makes: `{text, fields, error, row, rebuild}`. `text`: after a step, the stepped field's new
/// text (one key more or less than it holds, an empty or unreadable field counting as all m keys, kept within 0 … m),
/// else null; a step that leaves the field as it is answers nothing (every part null). `fields`: the edit to send,
/// `{valid_lens}` (an empty field is all m keys; every field empty, or an empty list, removes the valid lengths); or
/// `error`, the message for a text that is not a whole number ≥ 0, and `row`, the field it is about (null for the
/// list). `rebuild`: whether the edit brings or takes away the mask heatmap (valid lengths come or go with no mask),
/// the one change of the panel's structure the fields make.
pub fn typed_lens(config: &Config, typed: &TypedLens) -> Value {
    let m = config.tokens.len();
    let answer = |text: Option<String>, lens: Result<Option<Vec<Value>>, (Option<usize>, String)>| {
        let (fields, error, row, rebuild) = match lens {
            Ok(lens) => {
                let o = &config.options;
                let rebuild = o.valid_lens.is_some() != lens.is_some() && o.mask == Mask::None;
                (obj(vec![("valid_lens", lens.into())]), Value::Null, Value::Null, rebuild)
            }
            Err((row, why)) => (Value::Null, why.into(), row.into(), false),
        };
        obj(vec![
            ("text", text.into()),
            ("fields", fields),
            ("error", error),
            ("row", row),
            ("rebuild", rebuild.into()),
        ])
    };
    match typed {
        TypedLens::List(text) => {
            let text = text.trim();
            if text.is_empty() {
                return answer(None, Ok(None));
            }
            let inner = text.strip_prefix('[').unwrap_or(text);
            let inner = inner.strip_suffix(']').unwrap_or(inner);
            let parts: Vec<&str> = inner.split(|c: char| c == ',' || separator(c)).filter(|p| !p.is_empty()).collect();
            if parts.iter().any(|p| !whole(p)) {
                let why = "valid lengths: write whole numbers ≥ 0 separated by commas, one per query";
                return answer(None, Err((None, why.to_string())));
            }
            answer(None, Ok(Some(parts.iter().map(|p| whole_value(p)).collect())))
        }
        TypedLens::Fields { texts, row, step } => {
            let mut texts = texts.clone();
            let mut stepped = None;
            if *step != 0 {
                let Some(now) = texts.get(*row) else { return answer(None, Ok(None)) };
                let held = now.trim();
                let held = if whole(held) { held.parse::<f64>().unwrap_or(f64::INFINITY) } else { m as f64 };
                let next = (held + f64::from(*step)).clamp(0.0, m as f64) as u64;
                if next.to_string() == *now {
                    return obj(vec![
                        ("text", Value::Null),
                        ("fields", Value::Null),
                        ("error", Value::Null),
                        ("row", Value::Null),
                        ("rebuild", false.into()),
                    ]);
                }
                texts[*row] = next.to_string();
                stepped = Some(next.to_string());
            }
            let trimmed: Vec<&str> = texts.iter().map(|t| t.trim()).collect();
            if trimmed.iter().all(|t| t.is_empty()) {
                return answer(stepped, Ok(None));
            }
            // The field typed in when it is the one that is no number, else the first that is not.
            let bad = |i: &usize| trimmed.get(*i).is_some_and(|t| !t.is_empty() && !whole(t));
            if let Some(i) = Some(*row).filter(bad).or_else(|| (0..trimmed.len()).find(bad)) {
                let why = format!(
                    "valid length of query {i}: \"{}\" is not a whole number ≥ 0",
                    clip_to(&texts[i], TYPED_CHARS)
                );
                return answer(stepped, Err((Some(i), why)));
            }
            let lens = trimmed.iter().map(|t| if t.is_empty() { m.into() } else { whole_value(t) }).collect();
            answer(stepped, Ok(Some(lens)))
        }
    }
}

/// Whether `text` is a whole number ≥ 0 as typed: digits only.
fn whole(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// A whole number typed (digits only) as JSON: an integer, or past u64 the nearest float (which the config refuses).
fn whole_value(text: &str) -> Value {
    text.parse::<u64>().map_or_else(|_| text.parse::<f64>().map_or(Value::Null, Value::from), Value::from)
}

/// White space between the numbers of a typed list (JavaScript's `\s`: Unicode's and the byte-order mark).
fn separator(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// Mask cell (i, j) in words, as the mask panel says it under the pointer and to a screen reader: the query and the
/// key, the value drawn (1 attended, 0 masked) and why (the core's reasons: mask, valid length, window; a sink that
/// keeps it open), then the entry as the config states it (1 = may attend), which a click toggles.
pub fn mask_cell_words(config: &Config, i: usize, j: usize) -> String {
    let o = &config.options;
    let names = queries(config);
    let query = if matches!(config.mechanism, Mechanism::SelfAttention { .. }) { i } else { 0 };
    let masks = o.mask != Mask::None || o.valid_lens.is_some() || o.window.is_some();
    let why = if masks { mask_reason(config, query, j, o.reason(query, j)) } else { None };
    let effect = match why {
        Some(why) => format!("0 ({why})"),
        None if masks && o.sink_opens(query, j) => "1 (attended as a sink, though outside the window)".to_string(),
        None => "1 (attended)".to_string(),
    };
    format!(
        "mask, query {} → key {}: {effect} · mask entry {}",
        names.get(i).map_or("", String::as_str),
        config.tokens.get(j).map_or("", String::as_str),
        number(o.mask.entry(i, j)),
    )
}

/// Each query's valid-length field's label: its name, the lengths it takes, what empty means.
fn lens_labels(names: &[String], m: usize) -> Vec<String> {
    names
        .iter()
        .map(|q| format!("Valid length of query {q}, 0 to {m} (empty: all {m} keys; arrow keys step it)"))
        .collect()
}

/// `{kind, title, choices, value, pairs, pairs_title, pair_choices, base, base_title, offset, range, shift_note,
/// slopes, slopes_text, slopes_label}`: the position encoding and its meaning; each choice's `position`, the field an edit to it
/// sends (sinusoidal and RoPE keep the base and the shift between them; ALiBi takes neither); `value` the field as it
/// is (what an edit of one of its parts starts from); RoPE's pair layout; the base (sinusoidal and RoPE) and what it
/// does, and its slider (`base_slider`: [`BASE_SLIDER`]'s [`LogSlider::model`], null without a base); the shift and
/// where the tokens sit after it, and what a shift does to the scores; ALiBi's given slopes (null:
/// the defaults) and the slopes in use as a sentence, and what the slopes' field takes; `base_text` (the slider's
/// words), `shift_down_off` (no shift below 0), `field` (the config field every edit sets) and the messages for a typed
/// text the panel cannot send (`{text}`: it, quoted).
fn position(config: &Config) -> Value {
    let o = &config.options;
    let p = o.position.as_ref();
    let kind = p.map_or("none", Position::kind);
    let offset = p.map_or(0, Position::offset);
    let keep = match p {
        Some(Position::Sinusoidal { base, .. } | Position::Rope { base, .. }) => Some(*base),
        _ => None,
    };
    let kinds: Vec<Value> = KINDS
        .iter()
        .map(|&(v, text, title)| {
            let mut send = match v {
                "none" => Value::Null,
                k => obj(vec![("kind", k.into())]),
            };
            if matches!(v, "sinusoidal" | "rope") {
                if let Some(b) = keep {
                    send["base"] = b.into();
                }
                if offset > 0 {
                    send["offset"] = offset.into();
                }
            }
            obj(vec![("value", v.into()), ("text", text.into()), ("title", title.into()), ("position", send)])
        })
        .collect();
    let value = p.map(Position::to_value);
    let pairs = match p {
        Some(Position::Rope { pairs, .. }) => Some(*pairs),
        _ => None,
    };
    let base = match p {
        Some(Position::Sinusoidal { base, .. } | Position::Rope { base, .. }) => Some(*base),
        _ => None,
    };
    let base_title = match kind {
        "rope" => Some("θ_i = base^(−2i/d_k): a larger base turns the slow pairs more slowly (LLaMA 3: 500000)"),
        "sinusoidal" => Some("The wavelengths grow from 2π to 2π·base across the columns"),
        _ => None,
    };
    let shift_note = match kind {
        "rope" => {
            Some("RoPE: each q and k turns by p·θ, and q_p·k_p′ depends only on p − p′, so every score stays the same.")
        }
        "sinusoidal" => Some(
            "Sinusoidal: the table is added to X before the projections, so shifting the positions changes the scores.",
        ),
        _ => None,
    };
    let n = config.tokens.len();
    let (slopes, slopes_text) = match p {
        Some(q @ Position::Alibi { slopes }) => {
            let text = if n < 2 {
                "One token: no distance to bias.".to_string()
            } else {
                let defaults =
                    if slopes.is_some() { String::new() } else { format!(" (the defaults {DEFAULT_SLOPES})") };
                let m: Vec<String> = q.slopes(o.heads).iter().map(|&x| number(x)).collect();
                format!("m = {}{defaults}: head h adds −m_h·|i − j|", m.join(", "))
            };
            (Some(q.slopes(o.heads)), Some(text))
        }
        _ => (None, None),
    };
    let given = match p {
        Some(Position::Alibi { slopes }) => slopes.clone(),
        _ => None,
    };
    let slopes_label = format!(
        "ALiBi slope of each head, {} numbers separated by commas (empty: the defaults {DEFAULT_SLOPES}; Enter applies them)",
        o.heads
    );
    let rotary = match p {
        Some(Position::Rope { rotary_dim, frequencies, .. }) => {
            let d_k = config.score_widths().1;
            let r = rotary_dim.unwrap_or(d_k);
            let given = if frequencies.is_some() { "; θ_i given (frequencies)" } else { "" };
            Some(obj(vec![
                ("value", r.into()),
                ("max", d_k.into()),
                ("step", 2.into()),
                ("field", "rotary_dim".into()),
                ("text", format!("values 0 … {} of {d_k} turn{given}", r.saturating_sub(1)).into()),
                (
                    "label",
                    format!(
                        "Rotated values of each head's q and k rows: an even number from 2 to d_k = {d_k} (arrow keys step it by 2)"
                    )
                    .into(),
                ),
                (
                    "title",
                    "Only the first rotary_dim values of each q and k row turn, θ_i = base^(−2i/rotary_dim); the rest pass unchanged (GPT-NeoX, Phi, GPT-J)"
                        .into(),
                ),
            ]))
        }
        _ => None,
    };
    obj(vec![
        ("kind", kind.into()),
        ("title", KINDS.iter().find(|k| k.0 == kind).map(|k| k.2).into()),
        ("choices", kinds.into()),
        ("value", value.into()),
        ("pairs", pairs.map(Pairs::name).into()),
        ("pairs_title", pairs.map(|x| PAIRS.iter().find(|k| k.0 == x.name()).map_or("", |k| k.2)).into()),
        ("pair_choices", choices(&PAIRS).into()),
        ("base", base.into()),
        ("base_title", base_title.into()),
        ("base_slider", base.map(|b| BASE_SLIDER.model(b)).into()),
        ("offset", offset.into()),
        ("range", format!("positions {offset} … {}", (offset + n as u64).saturating_sub(1)).into()),
        ("shift_note", shift_note.into()),
        ("given_slopes", given.into()),
        ("slopes", slopes.into()),
        ("slopes_text", slopes_text.into()),
        ("slopes_label", slopes_label.into()),
        ("rotary", rotary.into()),
        ("base_text", base.map(|b| format!("base {}", number(b))).into()),
        ("shift_down_off", (offset == 0).into()),
        ("field", "position".into()),
        ("not_whole", NOT_WHOLE.into()),
        ("base_not_number", "base: {text} is not a number".into()),
        ("slopes_not_numbers", "slopes: write numbers separated by commas, one per head".into()),
    ])
}

/// The RoPE pair picture's side, in its own units (its SVG's viewBox).
pub const PAIR_SIDE: f64 = 200.0;
/// A pair picture's label stands this far past its arrow's tip.
const PAIR_TAG_GAP: f64 = 8.0;
/// The height of a pair picture's label line.
const PAIR_TAG_LINE: f64 = 13.0;
/// The pair picture's slider goes from position shift 0 to this (or to the shift given, when larger).
pub const PAIR_MAX_OFFSET: u64 = 64;

/// RoPE's first pair drawn in 2-D, for the position panel's picture: null without RoPE (or without its rotated rows).
/// `{side, radius, q, k, q_before, k_before, q_tag, k_tag, q_label, k_label, text, slider: {value, max, label,
/// valuetext}}`: the
/// followed head's pair 0 of the followed query's q and of a key's k (the token before it; token 1 for query 0), as
/// points of a `side` × `side` picture (y up; before and after RoPE turned them by p·θ), the circle of the longest,
/// where each label goes (`[x, y, text-anchor]`);
/// `text` says the positions, the angles turned and their dot product over the pair, which a shift of every position
/// (the slider, `position.offset`) leaves as it is: q and k turn together.
fn rope_pair(config: &Config, trace: &Trace) -> Value {
    let o = &config.options;
    let Some(Position::Rope { pairs, offset, rotary_dim, frequencies, .. }) = &o.position else { return Value::Null };
    let Trace::SelfAttention(t) = trace else { return Value::Null };
    if t.head_count() == 0 {
        return Value::Null;
    }
    let h = o.head.min(t.head_count() - 1);
    let Some(e) = t.extras.get(h) else { return Value::Null };
    let (Some(q_rot), Some(k_rot)) = (&e.q_rot, &e.k_rot) else { return Value::Null };
    let head = t.head(h);
    let (q0, k0) = (e.q_normed.as_ref().unwrap_or(head.q), e.k_normed.as_ref().unwrap_or(head.k));
    let (n, d) = (q_rot.rows(), q_rot.cols());
    if n == 0 || d < 2 || k_rot.rows() == 0 {
        return Value::Null;
    }
    let i = config.query.min(n - 1);
    let j = if i > 0 { i - 1 } else { 1.min(k_rot.rows() - 1) };
    let r = rotary_dim.unwrap_or(d).clamp(2, d);
    let (a, b) = match pairs {
        Pairs::Interleaved => (0, 1),
        Pairs::Halves => (0, r / 2),
    };
    let theta = frequencies.as_ref().and_then(|f| f.first().copied()).unwrap_or(1.0);
    let pair = |m: &crate::math::Matrix, row: usize| [m.get(row, a), m.get(row, b)];
    let (q, k, qb, kb) = (pair(q_rot, i), pair(k_rot, j), pair(q0, i), pair(k0, j));
    let longest = [q, k, qb, kb].iter().map(|p| p[0].hypot(p[1])).filter(|x| x.is_finite()).fold(0.0, f64::max);
    let c = PAIR_SIDE / 2.0;
    // The circle leaves room around it for the labels.
    let scale = if longest > 0.0 { 0.55 * c / longest } else { 0.0 };
    let at = |p: [f64; 2]| -> Value {
        let f = |x: f64| if x.is_finite() { (x * 100.0).round() / 100.0 } else { c };
        vec![f(c + scale * p[0]), f(c - scale * p[1])].into()
    };
    // A label just past its arrow's tip, along it, written away from the centre: `[x, y, "start" | "end"]`.
    let tag = |p: [f64; 2]| -> Value {
        let len = p[0].hypot(p[1]);
        let (ux, uy) = if len > 0.0 && len.is_finite() { (p[0] / len, p[1] / len) } else { (1.0, 0.0) };
        let r = scale * len.min(longest) + PAIR_TAG_GAP;
        let f = |x: f64| (x * 100.0).round() / 100.0;
        vec![
            Value::from(f(c + r * ux)),
            Value::from(f(c - r * uy + 4.0)),
            Value::from(if ux < 0.0 { "end" } else { "start" }),
        ]
        .into()
    };
    let (mut q_tag, mut k_tag) = (tag(q), tag(k));
    // Two labels on one line apart: the lower one a line lower.
    let (qy, ky) = (q_tag[1].as_f64().unwrap_or(c), k_tag[1].as_f64().unwrap_or(c));
    if (qy - ky).abs() < PAIR_TAG_LINE {
        let (low, high) = if qy >= ky { (&mut q_tag, ky) } else { (&mut k_tag, qy) };
        low[1] = (high + PAIR_TAG_LINE).into();
    }
    let (pi, pj) = (*offset + i as u64, *offset + j as u64);
    let dot = q[0] * k[0] + q[1] * k[1];
    let name = |x: usize| clip_to(&config.tokens[x.min(config.tokens.len() - 1)], 24);
    let heads = if o.heads > 1 { format!(" of head {h}") } else { String::new() };
    let text = format!(
        "Pair 0{heads} (values {a} and {b}), θ = {} a position: q of {} at position {pi} turned by p·θ = {}, k of {} at \
         position {pj} by {}; q always turns (p − p′)·θ = {} more than k, so their dot product over the pair stays \
         {} at any shift.",
        number(theta),
        crate::text::quote(&name(i)),
        number(pi as f64 * theta),
        crate::text::quote(&name(j)),
        number(pj as f64 * theta),
        number((pi as f64 - pj as f64) * theta),
        number(dot)
    );
    obj(vec![
        ("side", PAIR_SIDE.into()),
        ("radius", ((scale * longest * 100.0).round() / 100.0).into()),
        ("q", at(q)),
        ("k", at(k)),
        ("q_before", at(qb)),
        ("k_before", at(kb)),
        ("q_tag", q_tag),
        ("k_tag", k_tag),
        ("q_label", format!("q, p = {pi}").into()),
        ("k_label", format!("k, p = {pj}").into()),
        ("text", text.into()),
        (
            "slider",
            obj(vec![
                ("value", (*offset).into()),
                ("max", PAIR_MAX_OFFSET.max(*offset).into()),
                ("label", "Shift every position (drag: q and k turn together)".into()),
                ("valuetext", format!("positions shifted by {offset}").into()),
            ]),
        ),
    ])
}

/// `{heads, kv, choices: [{value, text, selected}], disabled, title, note, share}`: the key/value head count, offered
/// as the divisors of `heads` (`Options::kv_heads_choices`) each with its name; why it cannot change (no projections,
/// or one head), else null; which query heads read each K/V head (query head h reads ⌊h / (heads / kv_heads)⌋), and
/// `colors`: each K/V head's colour on the heatmaps.
fn kv(config: &Config) -> Value {
    let o = &config.options;
    let h = o.heads;
    let kv = o.kv_heads();
    let projections = matches!(config.mechanism, Mechanism::SelfAttention { projections: Some(_), .. });
    let disabled = if !projections {
        Some("Key/value heads share W_K and W_V: this figure has no projections.")
    } else if h == 1 {
        Some("One head: add heads (the heads panel) to share keys and values among them.")
    } else {
        None
    };
    let list: Vec<Value> = o
        .kv_heads_choices()
        .into_iter()
        .map(|d| {
            let text = if d == 1 && h > 1 {
                "1 (multi-query)".to_string()
            } else if d == h {
                format!("{d} (one per head)")
            } else {
                format!("{d} (grouped)")
            };
            obj(vec![("value", d.into()), ("text", text.into()), ("selected", (d == kv).into())])
        })
        .collect();
    let group = h / kv.max(1);
    let share: Vec<String> = (0..kv)
        .map(|g| {
            let qs: Vec<String> = (g * group..(g + 1) * group).map(|q| q.to_string()).collect();
            format!("K/V head {g} ← query head{} {}", if qs.len() > 1 { "s" } else { "" }, qs.join(", "))
        })
        .collect();
    let title = disabled.unwrap_or(
        "W_K and W_V have kv_heads × d_k columns; query head h reads K/V head ⌊h / (heads / kv_heads)⌋ (GQA, Ainslie et al. 2023). Changing it mean-pools each group's K/V columns.",
    );
    obj(vec![
        ("heads", h.into()),
        ("kv", kv.into()),
        ("choices", list.into()),
        ("disabled", disabled.into()),
        ("title", title.into()),
        ("note", format!("of {h} query heads").into()),
        ("share", share.into()),
        ("colors", group_colors(config).into()),
    ])
}

/// The colour K/V head g's columns are outlined in on the Q, K and V heatmaps (`views::structure`), light and dark
/// (`{light, dark}`, CSS hex), one a K/V head; empty when they are not coloured.
fn group_colors(config: &Config) -> Vec<Value> {
    let kv = config.options.kv_heads();
    let shown = !crate::views::structure(config, "k", 1, kv).0.is_empty();
    let hex = |c: [u8; 3]| format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
    let [light, dark] = GROUP_COLORS;
    (0..if shown { kv } else { 0 })
        .map(|g| obj(vec![("light", hex(light[g % light.len()]).into()), ("dark", hex(dark[g % dark.len()]).into())]))
        .collect()
}

/// `{on, left, right, sinks, side_max, sinks_max, hint, title}`: whether the window is on and its sides (while it is off,
/// [`WINDOW_OFF`]'s), the sinks, the largest side (n − 1) and sink count (n) the fields take, and what the mask
/// heatmap shows of them; what the window does; the sides' and the sinks' labels, the config fields they set
/// (`fields`), and the message for a text that is not a whole number.
fn window(config: &Config) -> Value {
    let o = &config.options;
    let n = config.tokens.len();
    let [left, right] = o.window.unwrap_or(WINDOW_OFF);
    let hint = if o.window.is_some() {
        "On the mask heatmap: a crossed 0 is a key the mask allows but the window closes; the sinks are dashed."
    } else {
        "Turn the window on to limit each query to its neighbours."
    };
    obj(vec![
        ("on", o.window.is_some().into()),
        ("left", left.into()),
        ("right", right.into()),
        ("sinks", o.sinks.into()),
        ("side_max", n.saturating_sub(1).into()),
        ("sinks_max", n.into()),
        ("side_labels", vec![
            format!("Window, keys to the left of each query (0 to {}; arrow keys step it)", n.saturating_sub(1)),
            format!("Window, keys to the right of each query (0 to {}; arrow keys step it)", n.saturating_sub(1)),
        ].into()),
        ("sinks_label", format!("Attention sinks: keys 0 … sinks − 1 are always attended, even outside the window (0 to {n}; arrow keys step it)").into()),
        ("fields", obj(vec![("window", "window".into()), ("sinks", "sinks".into())])),
        ("not_whole", NOT_WHOLE.into()),
        ("hint", hint.into()),
        (
            "title",
            "Query i may attend keys i − left … i + right only (JAX's local_window_size; Mistral's sliding window)"
                .into(),
        ),
    ])
}

/// `{on, value, field, label, title, hint, not_number}`: whether the scores are capped and the cap (while it is off,
/// [`SOFTCAP_OFF`], shown in its field and taken when it is turned on), the config field its controls set, the
/// field's label, what the cap does, what the capped heatmap shows, and the message for a typed text that is not a
/// number (`{text}`: it, quoted; a number ≤ 0 is the core's to refuse).
fn softcap(config: &Config) -> Value {
    let cap = config.options.layers.softcap;
    let hint = match cap {
        Some(c) => format!(
            "The capped heatmap: each scaled score s becomes {c}·tanh(s / {c}), within ±{c}; the softmax reads it.",
            c = number(c)
        ),
        None => "Turn the cap on to bend large scores towards ±c before the softmax.".to_string(),
    };
    obj(vec![
        ("on", cap.is_some().into()),
        ("value", cap.unwrap_or(SOFTCAP_OFF).into()),
        ("field", "softcap".into()),
        ("label", "Soft cap c, a number > 0 (Enter applies it)".into()),
        (
            "title",
            "capped = c·tanh(scaled / c): the scores stay within ±c, nearly unchanged while small (Gemma 2: c = 50); ALiBi's bias and the mask come after"
                .into(),
        ),
        ("hint", hint.into()),
        ("not_number", "soft cap: {text} is not a number".into()),
    ])
}
