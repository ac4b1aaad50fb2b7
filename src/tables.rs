//! The element's two tables of one query's attention, as they show a figure: the breakdown (each key's score with its
//! formula written out with the numbers, the scaled score, the softmax in its two steps, the weight, w_j·v_j and the
//! context, for the followed query and head or the decoder state) and the steps strip (the same path as one row per
//! key, an arrow between stages). Also the words both share: why a key is masked, what a fully masked query gets, the
//! scoring, the divisors. Built from a figure's `Config` and `Trace` as JSON; www/element/breakdown.js and steps.js
//! lay the cells out as they are, so every text, formula and number format lives here once.

use crate::attention::{CrossTrace, SelfTrace, Trace};
use crate::config::{Config, Mask, MaskedRow, Mechanism, Scale, Scoring, BY_MASK, BY_VALID_LENS, BY_WINDOW};
use crate::heatmap::draw::clip_to;
use crate::math::Matrix;
use crate::text::number;
use crate::views::WEIGHT_VIEWS;
use serde_json::{Map, Value};

/// Keys the breakdown lists; past them, one row says how many more.
pub const MAX_ROWS: usize = 32;
/// Keys the steps strip lists.
pub const MAX_KEYS: usize = 16;
/// Terms of a written-out dot product (and values of a vector in a formula or the steps).
const MAX_TERMS: usize = 6;
/// Values of a vector in the breakdown's cells and title.
const MAX_VECTOR: usize = 8;
/// Characters of a token name in a label (the whole name is the cell's title).
const LABEL_CHARS: usize = 24;

/// One cell: `text`, and what the element sets besides (`th` with its `scope`, `class`, `title`, `colspan`,
/// `hidden`: aria-hidden, `sum`: data-sum, `op`: an operation over an arrow, `bar`: the weight's bar, percent).
#[derive(Default)]
struct Cell {
    text: String,
    th: Option<&'static str>,
    class: Option<&'static str>,
    title: Option<String>,
    colspan: Option<usize>,
    hidden: bool,
    sum: Option<&'static str>,
    op: bool,
    bar: Option<f64>,
}

impl Cell {
    fn td(text: impl Into<String>) -> Cell {
        Cell { text: text.into(), ..Cell::default() }
    }

    fn col(text: impl Into<String>) -> Cell {
        let text = text.into();
        let class = match text.as_str() {
            "mask" => Some("mask"),
            t if t.starts_with("hidden") => Some("vec"),
            _ => None,
        };
        Cell { text, th: Some("col"), class, ..Cell::default() }
    }

    fn row_head(text: impl Into<String>) -> Cell {
        Cell { text: text.into(), th: Some("row"), ..Cell::default() }
    }

    fn class(self, class: &'static str) -> Cell {
        Cell { class: Some(class), ..self }
    }

    fn span(self, colspan: usize) -> Cell {
        Cell { colspan: Some(colspan), ..self }
    }

    fn blank() -> Cell {
        Cell { hidden: true, ..Cell::default() }
    }

    fn json(self) -> Value {
        let mut m = Map::new();
        m.insert("text".into(), self.text.into());
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(k.into(), v);
            }
        };
        put("th", self.th.map(Value::from));
        put("class", self.class.map(Value::from));
        put("title", self.title.map(Value::from));
        put("colspan", self.colspan.map(Value::from));
        put("hidden", self.hidden.then_some(Value::Bool(true)));
        put("sum", self.sum.map(Value::from));
        put("op", self.op.then_some(Value::Bool(true)));
        // A NaN weight has no width (the CSS of NaN% is dropped, the bar is empty).
        put("bar", self.bar.map(|b| Value::from(if b.is_nan() { 0.0 } else { b })));
        Value::Object(m)
    }
}

/// A row: its cells, the key it is (`data-key`) and why that key is masked (`data-masked`), or a class.
fn row(cells: Vec<Cell>, key: Option<usize>, masked: u8, class: Option<&str>) -> Value {
    let mut m = Map::new();
    if let Some(j) = key {
        m.insert("key".into(), j.into());
    }
    if masked != 0 {
        m.insert("masked".into(), masked.into());
    }
    if let Some(c) = class {
        m.insert("class".into(), c.into());
    }
    m.insert("cells".into(), Value::Array(cells.into_iter().map(Cell::json).collect()));
    Value::Object(m)
}

/// A table's model: `{title, notes: [{name, text}], head: [cell], body: [row], foot: [row]}`.
fn table(title: String, notes: Vec<(&str, String)>, head: Vec<Cell>, body: Vec<Value>, foot: Vec<Value>) -> Value {
    let notes = notes
        .into_iter()
        .map(|(name, text)| {
            let mut m = Map::new();
            m.insert("name".into(), name.into());
            m.insert("text".into(), text.into());
            Value::Object(m)
        })
        .collect();
    let mut m = Map::new();
    m.insert("title".into(), title.into());
    m.insert("notes".into(), Value::Array(notes));
    m.insert("head".into(), Value::Array(head.into_iter().map(Cell::json).collect()));
    m.insert("body".into(), Value::Array(body));
    m.insert("foot".into(), Value::Array(foot));
    Value::Object(m)
}

/// 12 → "₁₂".
pub fn sub(i: usize) -> String {
    i.to_string().chars().map(|d| char::from_u32(0x2080 + d.to_digit(10).unwrap_or(0)).unwrap_or(d)).collect()
}

/// A token name as a label shows it.
pub fn label(token: &str) -> String {
    clip_to(token, LABEL_CHARS)
}

/// `[0.2361, 0.2361, 0]`: the first `max` values, then `…`.
pub fn vector(v: &[f64], max: usize) -> String {
    let shown: Vec<String> = v.iter().take(max).map(|&x| number(x)).collect();
    format!("[{}{}]", shown.join(", "), if v.len() > max { ", …" } else { "" })
}

/// A number as a factor of a written-out product: negatives (−0 too) bracketed, so `2·(-3)` never reads `2·-3`.
fn factor(x: f64) -> String {
    if x < 0.0 || (x == 0.0 && x.is_sign_negative()) {
        format!("({})", number(x))
    } else {
        number(x)
    }
}

/// A scaled score: −∞ where the key is masked.
fn scaled_number(x: f64) -> String {
    if x == f64::NEG_INFINITY {
        "−∞".into()
    } else {
        number(x)
    }
}

/// The per-head width of the keys, whose √ is the default scale.
fn key_width(config: &Config) -> usize {
    match &config.mechanism {
        Mechanism::Cross { decoder_state, .. } => decoder_state.len(),
        Mechanism::SelfAttention { embeddings, projections, .. } => {
            let width = projections.as_ref().map_or(embeddings.cols(), |p| p.w_q.cols());
            width / config.options.heads.max(1)
        }
        Mechanism::Weights { .. } => 1,
    }
}

/// "÷ √3", "÷ 2.5", or `None` without scaling: the divisor as the config names it.
fn scale_label(config: &Config) -> Option<String> {
    match config.scale {
        Scale::Value(s) => Some(format!("÷ {}", number(s))),
        Scale::SqrtDk => Some(format!("÷ √{}", key_width(config))),
        Scale::None => None,
    }
}

/// The temperature when it is not 1.
fn temperature(config: &Config) -> Option<f64> {
    Some(config.options.temperature).filter(|&t| t != 1.0)
}

/// Every divisor of the scores ("÷ √3 ÷ T"), or `None`.
fn divide_label(config: &Config) -> Option<String> {
    let parts: Vec<String> =
        scale_label(config).into_iter().chain(temperature(config).map(|_| "÷ T".to_string())).collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// Whether anything masks: a mask, valid lengths or a window (−∞ then appears in the scaled scores).
pub fn masks(config: &Config) -> bool {
    let o = &config.options;
    o.mask != Mask::None || o.valid_lens.is_some() || o.window.is_some()
}

/// Why key j is masked for query i (0: the decoder state), in words, from the core's code (`Options::reason`):
/// "masked: causal mask and beyond valid length 2"; `None` when it is attended.
pub fn mask_reason(config: &Config, i: usize, j: usize, code: u8) -> Option<String> {
    if code == 0 {
        return None;
    }
    let o = &config.options;
    let mut why = Vec::new();
    if code & BY_MASK != 0 {
        why.push(match (&o.mask, &config.mechanism) {
            (Mask::Causal, _) => "causal mask".to_string(),
            (_, Mechanism::Cross { .. }) => format!("mask[{j}] = 0"),
            _ => format!("mask[{i}][{j}] = 0"),
        });
    }
    if code & BY_VALID_LENS != 0 {
        let len = o.valid_lens.as_ref().and_then(|l| l.get(i)).copied().unwrap_or(0);
        why.push(format!("beyond valid length {len}"));
    }
    if code & BY_WINDOW != 0 {
        let [left, right] = o.window.unwrap_or([0, 0]);
        why.push(format!("outside the window [{left}, {right}]"));
    }
    Some(format!("masked: {}", why.join(" and ")))
}

/// What a query whose every key of `m` is masked gets, per `masked_row`, in words.
fn fully_masked(config: &Config, m: usize, who: &str) -> String {
    match config.options.masked_row {
        MaskedRow::Uniform => format!(
            "Every key is masked for {who}: its scaled scores are all −∞, so masked_row \"uniform\" gives each of the {m} keys the weight 1/{m} = {} (d2l's masked_softmax, which fills with −1e6).",
            number(1.0 / m as f64)
        ),
        MaskedRow::Nan => format!(
            "Every key is masked for {who}: softmax of all −∞ is 0 / 0, so masked_row \"nan\" leaves its weights and context NaN (the literal mathematics)."
        ),
        MaskedRow::Zero => format!(
            "Every key is masked for {who}: its scaled scores are all −∞, so masked_row \"zero\" gives it weights 0 and a context of 0 (as PyTorch ≥ 2.5's scaled_dot_product_attention)."
        ),
    }
}

/// The scoring in words and as a formula (self: q, k; cross: h, a_j); `None` for the dot product.
fn scoring_note(config: &Config) -> Option<String> {
    let (q, k) = if matches!(config.mechanism, Mechanism::Cross { .. }) { ("h", "a_j") } else { ("q", "k") };
    match config.options.scoring {
        Scoring::General { .. } => Some(format!("Scores: general (Luong 2015), score = {q}·W_a·{k}ᵀ (W_a is its own panel).")),
        Scoring::Additive { .. } => Some(format!(
            "Scores: additive (Bahdanau 2015), score = v_a·tanh({q}·W_a + {k}·U_a): the hidden column is tanh(…) for each key."
        )),
        Scoring::Cosine => Some(format!("Scores: cosine, score = {q}·{k} / max(‖{q}‖·‖{k}‖, 1e-8), always between −1 and 1.")),
        Scoring::Dot => None,
    }
}

/// The soft cap c, as the tables write it, when the config caps the scores.
fn softcap(config: &Config) -> Option<String> {
    config.options.layers.softcap.map(number)
}

/// The notes both mechanisms' breakdowns share: the scoring, the temperature, the soft cap, the masked keys, a fully
/// masked query.
fn shared_notes(config: &Config, masked: &[f64], who: &str, notes: &mut Vec<(&str, String)>) {
    notes.extend(scoring_note(config).map(|t| ("scoring", t)));
    if let Some(c) = softcap(config) {
        let bias = if matches!(config.options.position, Some(crate::config::Position::Alibi { .. })) {
            "; ALiBi's bias is added after it"
        } else {
            ""
        };
        notes.push((
            "softcap",
            format!("Soft cap {c}: capped = {c}·tanh(scaled ÷ {c}) keeps each score within ±{c}, and the softmax reads it (Gemma 2){bias}."),
        ));
    }
    if let Some(t) = temperature(config) {
        let hot = if t < 1.0 {
            "below 1 sharpens the weights towards the largest score"
        } else {
            "above 1 flattens the weights towards uniform"
        };
        let scale = scale_label(config).map_or(String::new(), |s| format!(" {s}"));
        notes.push(("temperature", format!("Temperature T = {}: scaled = score{scale} ÷ T; a T {hot}.", number(t))));
    }
    if masks(config) {
        let o = &config.options;
        let count = masked.iter().filter(|&&c| c != 0.0).count();
        let m = masked.len();
        let mut what = Vec::new();
        match o.mask {
            Mask::Causal => what.push("a causal mask (no key after the query)".to_string()),
            Mask::Matrix(_) => what.push("a mask (1 = may attend)".to_string()),
            Mask::None => {}
        }
        if let Some(lens) = &o.valid_lens {
            let lens: Vec<String> = lens.iter().map(usize::to_string).collect();
            what.push(format!("valid lengths [{}]", lens.join(", ")));
        }
        if let Some([left, right]) = o.window {
            let sinks = match o.sinks {
                0 => String::new(),
                1 => " and a sink, key 0".to_string(),
                s => format!(" and sinks, keys 0 … {}", s - 1),
            };
            what.push(format!("a window [{left}, {right}]{sinks}"));
        }
        notes.push((
            "mask",
            format!(
                "Masking by {}: {count} of {m} keys masked for {who}; a masked key's {} score is −∞, so its weight is 0.",
                what.join(" and "),
                if softcap(config).is_some() { "capped" } else { "scaled" }
            ),
        ));
        if m > 0 && count == m {
            notes.push(("masked-row", fully_masked(config, m, who)));
        }
    }
}

/// `x·y` written out: the first products, then how many terms there are.
fn dot_terms(x: &[f64], y: &[f64]) -> String {
    let terms: Vec<String> =
        x.iter().zip(y).take(MAX_TERMS).map(|(&a, &b)| format!("{}·{}", factor(a), factor(b))).collect();
    format!("{}{}", terms.join(" + "), more_terms(x.len()))
}

fn more_terms(n: usize) -> String {
    if n > MAX_TERMS {
        format!(" + … ({n} terms)")
    } else {
        String::new()
    }
}

/// The score of query i (0: the decoder state) against key j with its formula written out, as the breakdown and a
/// score's tooltip show it: `q₀·k₂ = 2·2 + 0·4 + 2·3 = 10` (dot), `q₀·W_a·k₂ᵀ = [2, 0, 2]·W_a·[2, 4, 3]ᵀ = 10`
/// (general), `v_a·tanh(q₀·W_a + k₂·U_a) = 1·0.76 + (-1)·(-0.2) = 0.96` (additive, the hidden features of the
/// followed query), `q₀·k₂ / max(‖q₀‖·‖k₂‖, 1e-8) = (…) / (√(…)·√(…)) = 0.69` (cosine). `None` past the trace.
pub fn score_formula(config: &Config, trace: &Trace, i: usize, j: usize) -> Option<String> {
    let (a, b, qn, kn, score, features): (&[f64], &[f64], String, String, f64, _) = match (trace, &config.mechanism) {
        (Trace::SelfAttention(t), _) => {
            let head = config.options.head.min(t.head_count() - 1);
            // The q and k the scores are made of: normed and rotated when the config norms or turns them.
            let (q, k) = t.scored(head);
            if i >= q.rows() || j >= k.rows() {
                return None;
            }
            let scores = t.head(head).scores;
            (
                q.row(i),
                k.row(j),
                format!("q{}", sub(i)),
                format!("k{}", sub(j)),
                scores.get(i, j),
                t.query.features.as_ref(),
            )
        }
        (Trace::Cross(t), Mechanism::Cross { decoder_state, annotations }) => {
            if j >= annotations.rows() {
                return None;
            }
            (decoder_state, annotations.row(j), "h".into(), format!("a{}", sub(j)), t.scores[j], t.features.as_ref())
        }
        _ => return None,
    };
    let text = match &config.options.scoring {
        Scoring::General { .. } => {
            format!("{qn}·W_a·{kn}ᵀ = {}·W_a·{}ᵀ = {}", vector(a, MAX_TERMS), vector(b, MAX_TERMS), number(score))
        }
        Scoring::Additive { v_a, .. } => {
            let name = format!("v_a·tanh({qn}·W_a + {kn}·U_a)");
            // The hidden features are the trace's for the followed query (every key) only.
            let followed = matches!(trace, Trace::Cross(_)) || i == config.query;
            match features.filter(|f| followed && j < f.rows()) {
                Some(f) => format!("{name} = {} = {}", dot_terms(v_a, f.row(j)), number(score)),
                None => format!("{name} = {}", number(score)),
            }
        }
        Scoring::Cosine => {
            let norm = |x: &[f64]| {
                let terms: Vec<String> = x.iter().take(MAX_TERMS).map(|&v| format!("{}²", factor(v))).collect();
                format!("√({}{})", terms.join(" + "), more_terms(x.len()))
            };
            format!(
                "{qn}·{kn} / max(‖{qn}‖·‖{kn}‖, 1e-8) = ({}) / ({}·{}) = {}",
                dot_terms(a, b),
                norm(a),
                norm(b),
                number(score)
            )
        }
        Scoring::Dot => format!("{qn}·{kn} = {} = {}", dot_terms(a, b), number(score)),
    };
    Some(text)
}

/// The breakdown's model (see `table`), `naive`: with the naive softmax's column (one head only); `Null` for a model's
/// weights, which have no breakdown.
pub fn breakdown(config: &Config, trace: &Trace, naive: bool) -> Value {
    match trace {
        Trace::SelfAttention(t) => self_breakdown(config, trace, t, naive),
        Trace::Cross(t) => cross_breakdown(config, trace, t, naive),
        Trace::Weights(_) => Value::Null,
    }
}

/// A key's row head: `2: cat`, its whole name as the title.
fn key_cell(config: &Config, j: usize) -> Cell {
    let token = config.tokens.get(j).map_or("", String::as_str);
    Cell { title: Some(token.to_string()), ..Cell::row_head(format!("{j}: {}", label(token))) }
}

fn mask_cell(config: &Config, i: usize, j: usize, code: u8) -> Cell {
    match mask_reason(config, i, j, code) {
        Some(why) => Cell::td(why).class("mask masked"),
        None => Cell::td("attended").class("mask"),
    }
}

/// A breakdown row's first cells for key j of query i (0: the decoder state): the key, why it is masked (when anything
/// masks), its hidden features (additive scoring), and its score written out.
fn lead_cells(
    config: &Config,
    trace: &Trace,
    features: Option<&Matrix>,
    [i, j]: [usize; 2],
    code: u8,
    additive: bool,
) -> Vec<Cell> {
    let mut cells = vec![key_cell(config, j)];
    if masks(config) {
        cells.push(mask_cell(config, i, j, code));
    }
    if additive {
        let f = features.filter(|f| j < f.rows()).map_or(String::new(), |f| vector(f.row(j), MAX_VECTOR));
        cells.push(Cell::td(f).class("vec"));
    }
    cells.push(Cell::td(score_formula(config, trace, i, j).unwrap_or_default()).class("formula"));
    cells
}

fn weight_cell(w: f64) -> Cell {
    let cell = Cell::td(number(w));
    if w.is_nan() {
        cell.class("nan")
    } else {
        cell
    }
}

fn self_breakdown(config: &Config, trace: &Trace, t: &SelfTrace, naive: bool) -> Value {
    let o = &config.options;
    let (i, heads) = (config.query, t.head_count());
    let h = o.head.min(heads - 1);
    let head = t.head(h);
    let query = &t.query;
    let token = config.tokens.get(i).map_or("", String::as_str);
    let additive = matches!(o.scoring, Scoring::Additive { .. });
    let masking = masks(config);
    let of_head = if heads > 1 { format!(", head {h} of {heads}") } else { String::new() };
    let title = format!(
        "Single-query breakdown: query {i} ({}){of_head}, q{} = {}",
        label(token),
        sub(i),
        vector(head.q.row(i), MAX_VECTOR)
    );
    let mut notes = Vec::new();
    if heads > 1 {
        let dk = key_width(config);
        notes.push(("head", format!(
            "Head {h} of {heads}: its own columns {}…{} of Q and K (d_k = {dk}) and its slice of V; its context is one block of the concatenated context. A click or Enter on another head's weights follows that head.",
            h * dk,
            (h + 1) * dk - 1
        )));
    }
    // The naive softmax is one head's lesson: with several heads there is no naive_weights field.
    let naive_row = (naive && heads == 1).then(|| t.naive_weights.row(i));
    let scaled_head = divide_label(config).map_or("scaled (no scaling)".to_string(), |d| format!("scaled = score {d}"));
    let mut cols = vec![Cell::col("key")];
    if masking {
        cols.push(Cell::col("mask"));
    }
    if additive {
        cols.push(Cell::col("hidden = tanh(q·W_a + k_j·U_a)"));
    }
    cols.extend([Cell::col("score"), Cell::col(scaled_head)]);
    let cap = softcap(config);
    let logits = if cap.is_some() { "capped" } else { "scaled" };
    if let Some(c) = &cap {
        cols.push(Cell::col(format!("capped = {c}·tanh(scaled ÷ {c})")));
    }
    cols.extend([Cell::col(format!("exp({logits} − max)")), Cell::col("weight = exp ÷ Σ")]);
    if naive_row.is_some() {
        cols.push(Cell::col("naive"));
    }
    cols.push(Cell::col("w_j·v_j"));
    let width = cols.len();
    let mut body = Vec::new();
    for (j, &scaled) in query.scaled.iter().enumerate().take(MAX_ROWS) {
        let code = query.masked.get(j).copied().unwrap_or(0.0) as u8;
        let mut cells = lead_cells(config, trace, query.features.as_ref(), [i, j], code, additive);
        cells.push(Cell::td(scaled_number(scaled)));
        if let Some(capped) = &query.capped {
            cells.push(Cell::td(scaled_number(capped[j])));
        }
        cells.extend([Cell::td(number(query.exp[j])), weight_cell(query.weights[j])]);
        if let Some(n) = naive_row {
            cells.push(weight_cell(n[j]));
        }
        cells.push(Cell::td(vector(query.terms.row(j), MAX_VECTOR)));
        body.push(row(cells, Some(j), code, None));
    }
    let n = query.scaled.len();
    if n > MAX_ROWS {
        body.push(row(vec![Cell::td(format!("… {} more keys", n - MAX_ROWS)).span(width)], None, 0, None));
    }
    // The Σ of the exp column sits under it: the columns after "key" and before "exp", then those after it.
    let after = if naive_row.is_some() { 3 } else { 2 };
    let before = width - 2 - after;
    let of = if heads > 1 { format!(" (head {h})") } else { String::new() };
    let foot = vec![
        row(
            vec![
                Cell::row_head("Σ"),
                Cell::td(format!("Σ_j exp({logits}_j − max)")).class("formula").span(before),
                Cell::td(number(query.sum)),
                Cell::td("").span(after),
            ],
            None,
            0,
            Some("sum"),
        ),
        row(
            vec![
                Cell::row_head("context"),
                Cell::td(format!("z{}{of} = Σ_j w_j·v_j", sub(i))).class("formula").span(width - 2),
                Cell::td(vector(&query.context, MAX_VECTOR)),
            ],
            None,
            0,
            Some("sum"),
        ),
    ];
    shared_notes(config, &query.masked, &format!("query {i} ({})", label(token)), &mut notes);
    table(title, notes, cols, body, foot)
}

fn cross_breakdown(config: &Config, trace: &Trace, t: &CrossTrace, naive: bool) -> Value {
    let Mechanism::Cross { decoder_state, .. } = &config.mechanism else { return Value::Null };
    let additive = matches!(config.options.scoring, Scoring::Additive { .. });
    let masking = masks(config);
    // The scaled column only where it tells something the document's figure did not have.
    let show_scaled = masking || temperature(config).is_some();
    let mut cols = vec![Cell::col("annotation")];
    if masking {
        cols.push(Cell::col("mask"));
    }
    if additive {
        cols.push(Cell::col("hidden = tanh(h·W_a + a_j·U_a)"));
    }
    cols.push(Cell::col("score"));
    if show_scaled {
        let divide = divide_label(config).map_or("scaled (no scaling)".to_string(), |d| format!("scaled = score {d}"));
        cols.push(Cell::col(divide));
    }
    cols.push(Cell::col("weight"));
    if naive {
        cols.push(Cell::col("naive"));
    }
    cols.push(Cell::col("w_j·a_j"));
    let width = cols.len();
    let mut body = Vec::new();
    for (j, &w) in t.weights.iter().enumerate().take(MAX_ROWS) {
        let code = t.masked.get(j).copied().unwrap_or(0.0) as u8;
        let mut cells = lead_cells(config, trace, t.features.as_ref(), [0, j], code, additive);
        if show_scaled {
            cells.push(Cell::td(scaled_number(t.scaled[j])));
        }
        cells.push(weight_cell(w));
        if naive {
            cells.push(weight_cell(t.naive_weights[j]));
        }
        let column: Vec<f64> = (0..t.applied.rows()).map(|r| t.applied.get(r, j)).collect();
        cells.push(Cell::td(vector(&column, MAX_VECTOR)));
        body.push(row(cells, Some(j), code, None));
    }
    let m = t.weights.len();
    if m > MAX_ROWS {
        body.push(row(vec![Cell::td(format!("… {} more annotations", m - MAX_ROWS)).span(width)], None, 0, None));
    }
    let foot = vec![row(
        vec![
            Cell::row_head("context"),
            Cell::td("c = Σ_j w_j·a_j").class("formula").span(width - 2),
            Cell::td(vector(&t.context, MAX_VECTOR)),
        ],
        None,
        0,
        Some("sum"),
    )];
    let mut notes = Vec::new();
    shared_notes(config, &t.masked, "the decoder state", &mut notes);
    table(format!("Breakdown: decoder state h = {}", vector(decoder_state, MAX_VECTOR)), notes, cols, body, foot)
}

/// The steps strip's model (see `table`): self-attention's followed query and head; `Null` for any other trace.
pub fn steps(config: &Config, trace: &Trace) -> Value {
    let Trace::SelfAttention(t) = trace else { return Value::Null };
    let o = &config.options;
    let (i, heads) = (config.query, t.head_count());
    let h = o.head.min(heads - 1);
    let query = &t.query;
    let q = format!("q{}", sub(i));
    let masking = masks(config);
    let score = match o.scoring {
        Scoring::General { .. } => format!("score {q}·W_a·k_jᵀ"),
        Scoring::Additive { .. } => format!("score v_a·tanh({q}·W_a + k_j·U_a)"),
        Scoring::Cosine => format!("score cos({q}, k_j)"),
        Scoring::Dot => format!("score {q}·k_j"),
    };
    // Each row reads across as one key's path, an arrow between stages; the operation is written over its arrow.
    let op = |text: &str| Cell { op: true, ..Cell::col(text) };
    let mut head = vec![Cell::col("key j")];
    if masking {
        head.push(Cell::col("mask"));
    }
    head.extend([
        Cell::col(score),
        op(&divide_label(config).unwrap_or_else(|| "no scaling".into())),
        Cell::col("scaled"),
    ]);
    let cap = softcap(config);
    if let Some(c) = &cap {
        head.extend([op(&format!("{c}·tanh(· ÷ {c})")), Cell::col("capped")]);
    }
    head.extend([
        op("exp(· − max)"),
        Cell::col("exp"),
        op("÷ Σ"),
        Cell::col("weight"),
        op("× v_j"),
        Cell::col("w_j·v_j"),
    ]);
    let arrow = || Cell { hidden: true, ..Cell::td("→").class("arrow") };
    let n = query.scores.len();
    let mut body = Vec::new();
    for j in 0..n.min(MAX_KEYS) {
        let code = query.masked.get(j).copied().unwrap_or(0.0) as u8;
        let mut cells = vec![key_cell(config, j)];
        if masking {
            cells.push(mask_cell(config, i, j, code));
        }
        let w = query.weights[j];
        // The weight's bar is the weight itself (0…1) as a width: the one step a reader should see at a glance.
        let weight = Cell { bar: Some(w.clamp(0.0, 1.0) * 100.0), ..Cell::td(number(w)).class("weight") };
        cells.extend([Cell::td(number(query.scores[j])), arrow(), Cell::td(scaled_number(query.scaled[j])), arrow()]);
        if let Some(capped) = &query.capped {
            cells.extend([Cell::td(scaled_number(capped[j])), arrow()]);
        }
        cells.extend([
            Cell::td(number(query.exp[j])),
            arrow(),
            weight,
            arrow(),
            Cell::td(vector(query.terms.row(j), MAX_TERMS)).class("vec"),
        ]);
        body.push(row(cells, Some(j), code, None));
    }
    let capped_columns = if cap.is_some() { 2 } else { 0 };
    let columns = if masking { 11 } else { 10 } + capped_columns;
    let count = query.masked.iter().filter(|&&c| c != 0.0).count();
    if n > MAX_KEYS {
        let text = format!("… {} more keys (the breakdown lists {})", n - MAX_KEYS, n.min(MAX_ROWS));
        body.push(row(vec![Cell::td(text).span(columns)], None, 0, None));
    }
    // The weights sum to 1, but for a query whose every key is masked: then masked_row says what it gets.
    let weight_sum = match o.masked_row {
        _ if n == 0 || count < n => "1",
        MaskedRow::Uniform => "1",
        MaskedRow::Nan => "nan",
        MaskedRow::Zero => "0",
    };
    let mut foot = vec![Cell::row_head("Σ_j")];
    foot.extend((0..if masking { 5 } else { 4 } + capped_columns).map(|_| Cell::blank()));
    foot.extend([
        Cell { sum: Some("exp"), ..Cell::td(number(query.sum)) },
        Cell::blank(),
        Cell::td(weight_sum),
        Cell::blank(),
        Cell {
            sum: Some("context"),
            ..Cell::td(format!("z{} = {}", sub(i), vector(&query.context, MAX_TERMS))).class("vec")
        },
    ]);
    let token = config.tokens.get(i).map_or("", String::as_str);
    let of_head = if heads > 1 { format!(", head {h} of {heads}") } else { String::new() };
    let title = format!(
        "One word's attention, step by step: query {i} ({}){of_head}, {q} = {}",
        label(token),
        vector(t.head(h).q.row(i), MAX_TERMS)
    );
    // What changes the path, said once under the title: the temperature, masked keys, a query with no key left.
    let mut notes = Vec::new();
    if let Some(t) = temperature(config) {
        notes.push(("temperature", format!("T = {} (temperature): the scores are divided by T too.", number(t))));
    }
    if let Some(c) = &cap {
        notes
            .push(("softcap", format!("Soft cap {c}: each scaled score becomes {c}·tanh(scaled ÷ {c}), within ±{c}.")));
    }
    if masking && count > 0 {
        let logits = if cap.is_some() { "capped" } else { "scaled" };
        notes.push(("mask", format!("{count} of {n} keys masked: {logits} −∞, so exp 0 and weight 0.")));
        if count == n {
            notes.push(("masked-row", fully_masked(config, n, &format!("query {i}"))));
        }
    }
    table(title, notes, head, body, vec![row(foot, None, 0, Some("sum"))])
}

/// The head of a `heads.{h}.weights` view (the small multiples, each a head's weights).
pub fn head_of(view: &str) -> Option<usize> {
    view.strip_prefix("heads.")?.strip_suffix(".weights")?.parse().ok()
}

/// Whether a click or Enter on a cell of `view` follows its query: self-attention's weight views.
pub fn pickable(config: &Config, view: &str) -> bool {
    matches!(config.mechanism, Mechanism::SelfAttention { .. }) && WEIGHT_VIEWS.contains(&view)
}

/// The tooltip of cell (i, j) of `view`, shown as `cell` (its labels and text): `weights[1][3] = 0.045 (0.0451737)`
/// (the text and, when it says less, 6 significant digits), then the score's formula (the scores view), the query →
/// key it links and how to follow that query or head (self-attention's weight views), and why the key is masked.
pub fn tip(config: &Config, trace: &Trace, view: &str, i: usize, j: usize, cell: &crate::heatmap::CellText) -> String {
    // As JavaScript writes the number (an exponent below 1e-6): a tiny weight's 6 digits in ~12 characters, not 240.
    let precise = crate::text::js_string(crate::text::significant(cell.full, 6).parse().unwrap_or(cell.full));
    let more = if precise == cell.value || !cell.full.is_finite() { String::new() } else { format!(" ({precise})") };
    // The mask view draws which keys are attended by every rule: with a window or valid lengths, not the mask alone.
    let o = &config.options;
    let effective = view == "mask" && (o.window.is_some() || o.valid_lens.is_some());
    let mut text = format!("{}{view}[{i}][{j}] = {}{more}", if effective { "effective " } else { "" }, cell.value);
    let self_attention = matches!(config.mechanism, Mechanism::SelfAttention { .. });
    let query = if self_attention { i } else { 0 };
    if view == "scores" {
        if let Some(f) = score_formula(config, trace, query, j) {
            text += &format!("\n{f}");
        }
    }
    let head = head_of(view);
    let weights = WEIGHT_VIEWS.contains(&view) || head.is_some();
    if weights && self_attention {
        text += &format!("\nquery {} → key {}", label(&cell.row), label(&cell.col));
        if pickable(config, view) && i != config.query {
            text += &format!(" (click or Enter: follow query {i})");
        }
        if let Some(h) = head.filter(|&h| h != config.options.head) {
            text += &format!(" (click or Enter: follow head {h})");
        }
    }
    if masks(config) && (weights || view == "mask") {
        if let Some(why) = mask_reason(config, query, j, config.options.reason(query, j)) {
            text += &format!("\n{why}");
        }
        if config.options.sink_opens(query, j) {
            text += "\nattended as a sink, though outside the window";
        }
    }
    text
}
