//! The model panel of a weights figure (`mechanism: "weights"`) in words: what the grid of every layer × head is, each
//! head's summaries as a sentence, the heads ranked by a summary (the order, the top heads the grid marks, the rows of
//! the ranking table), the grid's legend and label, and the line view's label or why it is not drawn. Built from the
//! trace and the panel's own state (the summary ranked by, the order, the keyboard cursor, the hovered head and token)
//! as JSON ([`panel`]); www/element/model.js lays it out and draws around it.

use crate::attention::WeightsTrace;
use crate::heatmap::draw::clip_to;
use crate::heatmap::model::LINES_MAX_TOKENS;
use crate::text::{js_string, significant};
use serde_json::Value;

/// A summary the heads are ranked by: its trace name (`summary.{key}`), the menu's label, its name in the ranking,
/// how a head's sentence says it, its unit, and whether its natural order is lowest first.
pub struct Metric {
    pub key: &'static str,
    pub label: &'static str,
    pub name: &'static str,
    pub said: &'static str,
    pub unit: &'static str,
    pub low: bool,
}

/// The summaries a head is ranked by and described with, in the menu's order.
pub const METRICS: [Metric; 4] = [
    Metric {
        key: "entropy",
        label: "entropy (low = focused)",
        name: "entropy",
        said: "entropy",
        unit: " bits",
        low: true,
    },
    Metric {
        key: "distance",
        label: "distance to the diagonal",
        name: "distance",
        said: "distance to the diagonal",
        unit: " tokens",
        low: true,
    },
    Metric {
        key: "previous",
        label: "previous token",
        name: "previous token",
        said: "previous token",
        unit: "",
        low: false,
    },
    Metric { key: "first", label: "first token", name: "first token", said: "first token", unit: "", low: false },
];

/// Heads the grid marks with their rank.
pub const MARKED: usize = 3;

/// Rows of the ranking shown before "Show all".
pub const LISTED: usize = 10;

/// Characters of a token's name in the legend and the line view's label (the element's `clip`).
const NAME_CHARS: usize = 24;

/// The panel's own state, which the trace does not hold: the summary ranked by (a [`Metric`]'s key) and the order
/// (`low`: lowest first), whether every head is listed, the keyboard cursor and the hovered head (`[layer, head]`),
/// and the token pointed at (`row`: a query, else a key; its index); `rank`: whether the ranking table is wanted.
#[derive(Clone, Debug, Default)]
pub struct View {
    pub metric: String,
    pub low: bool,
    pub all: bool,
    pub cursor: Option<[usize; 2]>,
    pub over: Option<[usize; 2]>,
    pub token: Option<(bool, usize)>,
    pub rank: bool,
}

/// A JSON object of `fields`.
fn obj(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// A summary as the panel writes it: 3 significant digits, as JavaScript writes that number.
pub fn round3(x: f64) -> String {
    if !x.is_finite() {
        return js_string(x);
    }
    js_string(significant(x, 3).parse().unwrap_or(x))
}

/// Head (`layer`, `head`) in one sentence: "layer 3, head 5 (shown): entropy 1.2 bits, distance to the diagonal 3.4
/// tokens, previous token 0.12, first token 0.4" (`shown`: it is the head the figure shows in full).
pub fn describe(t: &WeightsTrace, layer: usize, head: usize, shown: bool) -> String {
    let parts: Vec<String> =
        METRICS.iter().map(|m| format!("{} {}{}", m.said, round3(value(t, m.key, layer, head)), m.unit)).collect();
    format!("layer {layer}, head {head}{}: {}", if shown { " (shown)" } else { "" }, parts.join(", "))
}

/// Summary `key` of head (`layer`, `head`) (NaN for a key that is none).
fn value(t: &WeightsTrace, key: &str, layer: usize, head: usize) -> f64 {
    let [_, heads, _, _] = t.attention.shape();
    let k = crate::weights::SUMMARY_NAMES.iter().position(|n| *n == key);
    k.and_then(|k| t.summaries[k].get(layer * heads + head)).copied().unwrap_or(f64::NAN)
}

/// Every [layer, head] by summary `key`, lowest first when `low` (ties, and heads whose summary is no number, by
/// layer, then head).
pub fn ranked(t: &WeightsTrace, key: &str, low: bool) -> Vec<[usize; 2]> {
    let [layers, heads, _, _] = t.attention.shape();
    let sign = if low { 1.0 } else { -1.0 };
    let mut list: Vec<[usize; 2]> = (0..layers).flat_map(|l| (0..heads).map(move |h| [l, h])).collect();
    list.sort_by(|a, b| {
        let d = sign * (value(t, key, a[0], a[1]) - value(t, key, b[0], b[1]));
        if d < 0.0 {
            std::cmp::Ordering::Less
        } else if d > 0.0 {
            std::cmp::Ordering::Greater
        } else {
            a.cmp(b)
        }
    });
    list
}

/// A token as the legend and the line view name it: its index and its name, cut (a query's when `row`, else a key's).
fn token_name(t: &WeightsTrace, row: bool, index: usize) -> String {
    let names = if row { &t.tokens } else { &t.key_tokens };
    let name = names.get(index).cloned().unwrap_or_else(|| index.to_string());
    format!("{index} ({})", clip_to(&name, NAME_CHARS))
}

/// The model panel of `t`, head `selected` shown in full, the panel in state `view`:
/// `{caption, label, readout, cursor, selected, shown, legend, metrics, rank, marked, lines}`.
///
/// `caption`: what the grid is; `label`: the grid's accessible name (the head shown, the cursor); `readout`: the
/// hovered head's sentence (else the cursor's, else the shown head's); `cursor`: the cursor's sentence (null without
/// one); `selected` and `shown`: what is said once a head is selected, and when the head picked is already shown;
/// `legend`: what the grid's outlines, marks and bands mean; `metrics`: the menu (`[{value, label, low}]`, `low` the
/// natural order); `rank`: the ranking table when `view.rank` asks for it, else and with one head null (`{order,
/// order_label, more, more_off, caption, name, rows: [{layer, head, rank, text, value, current}]}`, `more` the text of
/// the button that lists every head or the top ones, `more_off` true with at most [`LISTED`] heads);
/// `marked`: the top [`MARKED`] heads (`[[layer, head]]`); `lines`: `{note, label}`, why the line view is not drawn
/// (null when it is) and its accessible name.
pub fn panel(t: &WeightsTrace, selected: [usize; 2], view: &View) -> Value {
    let [layers, heads, n, m] = t.attention.shape();
    let [sl, sh] = selected;
    let total = layers * heads;
    let plural = |k: usize, word: &str| format!("{k} {word}{}", if k == 1 { "" } else { "s" });
    let caption = if total == 1 {
        format!("One head of {n} × {m} weights, shown in full below.")
    } else {
        format!(
            "Every head of the model: {} (rows) × {} (columns), {n} × {m} weights each, each coloured from 0 to its own \
             largest weight. Click a head, or use the arrow keys and Enter, to see it in full below.",
            plural(layers, "layer"),
            plural(heads, "head")
        )
    };
    let at = view.cursor.map(|[l, h]| format!(" Cursor on layer {l}, head {h}.")).unwrap_or_default();
    let label = format!("Every head: {layers} layers × {heads} heads. Shown in full: layer {sl}, head {sh}.{at}");
    let words = |[l, h]: [usize; 2]| describe(t, l, h, [l, h] == selected);
    let metric = METRICS.iter().find(|x| x.key == view.metric).unwrap_or(&METRICS[0]);
    let list = if total < 2 { vec![] } else { ranked(t, metric.key, view.low) };
    let marked: Vec<[usize; 2]> = list.iter().take(MARKED).copied().collect();
    let order = if view.low { "lowest" } else { "highest" };
    let mut legend = "solid: the head shown below".to_string();
    if view.cursor.is_some() {
        legend += " · dashed: the keyboard cursor";
    }
    if !marked.is_empty() {
        legend += &format!(" · 1–{}: the top heads by {}, {order} first", marked.len(), metric.name);
    }
    if let Some((row, index)) = view.token {
        legend +=
            &format!(" · bands: {} {} in every head", if row { "query" } else { "key" }, token_name(t, row, index));
    }
    let rank = (total >= 2 && view.rank).then(|| {
        let shown = if view.all { total } else { total.min(LISTED) };
        let rows: Vec<Value> = list
            .iter()
            .take(shown)
            .enumerate()
            .map(|(k, &[l, h])| {
                obj(vec![
                    ("layer", l.into()),
                    ("head", h.into()),
                    ("rank", (k + 1).into()),
                    ("text", format!("layer {l} · head {h}").into()),
                    ("value", format!("{}{}", round3(value(t, metric.key, l, h)), metric.unit).into()),
                    ("current", ([l, h] == selected).into()),
                ])
            })
            .collect();
        let more = if view.all { format!("Show the top {LISTED}") } else { format!("Show all {total} heads") };
        let part = if shown < total { format!(" (top {shown} of {total})") } else { String::new() };
        obj(vec![
            ("order", if view.low { "↑ lowest first" } else { "↓ highest first" }.into()),
            (
                "order_label",
                format!("Order: {order} first (press for {} first)", if view.low { "highest" } else { "lowest" })
                    .into(),
            ),
            ("more", more.into()),
            ("more_off", (total <= LISTED).into()),
            ("caption", format!("Heads by {}, {order} first{part}: a button shows that head.", metric.name).into()),
            ("name", metric.name.into()),
            ("rows", rows.into()),
        ])
    });
    let focus = view.token.filter(|&(row, index)| row && index < n).map(|(_, index)| index);
    let only = focus.map(|i| format!("; only query {}", token_name(t, true, i))).unwrap_or_default();
    let lines = obj(vec![
        (
            "note",
            (n.max(m) > LINES_MAX_TOKENS)
                .then(|| format!("The line view is for up to {LINES_MAX_TOKENS} tokens (this head has {}).", n.max(m)))
                .into(),
        ),
        (
            "label",
            format!(
                "Layer {sl}, head {sh} as lines from each query (left) to the keys it attends to (right), as opaque as \
                 the weight{only}. The heatmap beside it has the numbers."
            )
            .into(),
        ),
    ]);
    let metrics: Vec<Value> = METRICS
        .iter()
        .map(|x| obj(vec![("value", x.key.into()), ("label", x.label.into()), ("low", x.low.into())]))
        .collect();
    obj(vec![
        ("caption", caption.into()),
        ("label", label.into()),
        ("readout", words(view.over.or(view.cursor).unwrap_or(selected)).into()),
        ("cursor", view.cursor.map(words).into()),
        ("selected", format!("Selected {}", words(selected)).into()),
        ("shown", format!("layer {sl}, head {sh} is shown.").into()),
        ("legend", legend.into()),
        ("metrics", metrics.into()),
        ("rank", rank.into()),
        ("marked", marked.iter().map(|&[l, h]| Value::from(vec![l, h])).collect::<Vec<_>>().into()),
        ("lines", lines),
    ])
}
