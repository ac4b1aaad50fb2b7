//! The panels a user can look at: each config input and each trace stage as a
//! labelled matrix with a title and a default palette.
//!
//! A view is named by its config or trace field (`embeddings`, `w_q`, `q`,
//! `scores`, `weights`, `applied`, …). Vectors are drawn the way the seed
//! documents draw them: the decoder state and the cross-attention context as
//! one column, the annotations and applied attention with one encoder state per
//! column (d rows × m columns).

use crate::attention::Trace;
use crate::config::{Config, Mask, Mechanism, Position, Scoring, BY_MASK};
use crate::math::Matrix;
use crate::weights::ROW_SUM_TOLERANCE;
use std::borrow::Cow;

/// The stages whose rows are queries and columns keys: a hovered cell links a query to a key across them, and the
/// followed query's row is outlined on them.
pub const WEIGHT_VIEWS: [&str; 5] = ["scores", "scaled", "capped", "weights", "naive_weights"];

/// The inputs an editable figure shows as cells (its input grids, and the mask panel's own heatmap): drawn as
/// heatmaps only in a read-only figure.
pub const INPUT_VIEWS: [&str; 13] =
    ["embeddings", "w_q", "w_k", "w_v", "b_q", "b_k", "b_v", "w_o", "b_o", "w_a", "u_a", "v_a", "mask"];

/// The views of a position encoding: the sinusoidal table, RoPE's rotated q and k, ALiBi's bias.
pub const POSITION_VIEWS: [&str; 4] = ["pe", "q_rot", "k_rot", "bias"];

/// The views of a real model's layer fields: the biases (inputs), the normed q and k (`q_norm`, `k_norm`), the capped
/// scores (`softcap`).
pub const LAYER_VIEWS: [&str; 7] = ["b_q", "b_k", "b_v", "b_o", "q_normed", "k_normed", "capped"];

/// Every view name, in reading order.
pub const SELF_VIEWS: [&str; 12] =
    ["embeddings", "w_q", "w_k", "w_v", "q", "k", "v", "scores", "scaled", "weights", "naive_weights", "context"];
pub const CROSS_VIEWS: [&str; 7] =
    ["decoder_state", "annotations", "scores", "scaled", "weights", "naive_weights", "applied"];
pub const ALL_VIEWS: [&str; 27] = [
    "embeddings",
    "pe",
    "q_rot",
    "k_rot",
    "bias",
    "w_q",
    "w_k",
    "w_v",
    "b_q",
    "b_k",
    "b_v",
    "b_o",
    "q",
    "k",
    "v",
    "q_normed",
    "k_normed",
    "scores",
    "scaled",
    "capped",
    "weights",
    "naive_weights",
    "context",
    "decoder_state",
    "annotations",
    "applied",
    "query.terms",
];

pub use crate::heatmap::{Block, Marks, View};

/// The views this config has, in reading order: the inputs (with W_a, U_a, v_a, W_O and
/// the mask when the config has them), the stages (the followed head's, with several
/// heads), the output, each head's weights (`heads.{i}.weights`, with several heads) and
/// additive scoring's hidden features.
pub fn names(config: &Config) -> Vec<String> {
    let o = &config.options;
    let mut out: Vec<String> = match &config.mechanism {
        // A model's weights: the selected head, full size (the element draws the grid of every head itself).
        Mechanism::Weights { .. } => return vec!["attention".into()],
        Mechanism::SelfAttention { projections: Some(_), .. } => SELF_VIEWS.iter().map(|v| v.to_string()).collect(),
        Mechanism::SelfAttention { projections: None, .. } => SELF_VIEWS
            .iter()
            .filter(|v| !matches!(**v, "w_q" | "w_k" | "w_v" | "k" | "v"))
            .map(|v| v.to_string())
            .collect(),
        Mechanism::Cross { .. } => {
            let mut v: Vec<String> = CROSS_VIEWS.iter().map(|v| v.to_string()).collect();
            v.push("context".into());
            v
        }
    };
    let self_attention = matches!(config.mechanism, Mechanism::SelfAttention { .. });
    // The new inputs go after the documents' inputs, before the first stage.
    let first_stage = out.iter().position(|v| matches!(v.as_str(), "q" | "scores")).unwrap_or(out.len());
    let mut inputs: Vec<String> = match o.scoring {
        Scoring::General { .. } => vec!["w_a".into()],
        Scoring::Additive { .. } => vec!["w_a".into(), "u_a".into(), "v_a".into()],
        _ => vec![],
    };
    if o.w_o.is_some() {
        inputs.push("w_o".into());
    }
    if o.layers.b_o.is_some() {
        inputs.push("b_o".into());
    }
    if o.mask != Mask::None || o.valid_lens.is_some() || o.window.is_some() {
        inputs.push("mask".into());
    }
    out.splice(first_stage..first_stage, inputs);
    let after = |out: &mut Vec<String>, at: &str, names: &[&str]| {
        let i = out.iter().position(|v| v == at).map_or(out.len(), |i| i + 1);
        out.splice(i..i, names.iter().map(|n| n.to_string()));
    };
    // A real layer's fields: the projections' biases after W_V (inputs), the normed q and k after V (before RoPE
    // turns them), the capped scores after the scaled ones they cap.
    let l = &o.layers;
    let biases: Vec<&str> = [("b_q", &l.b_q), ("b_k", &l.b_k), ("b_v", &l.b_v)]
        .iter()
        .filter(|(_, b)| b.is_some())
        .map(|(n, _)| *n)
        .collect();
    after(&mut out, "w_v", &biases);
    let normed: Vec<&str> = [("q_normed", &l.q_norm), ("k_normed", &l.k_norm)]
        .iter()
        .filter(|(_, n)| n.is_some())
        .map(|(v, _)| *v)
        .collect();
    let last = if out.iter().any(|v| v == "v") { "v" } else { "q" };
    after(&mut out, last, &normed);
    if l.softcap.is_some() {
        after(&mut out, "scaled", &["capped"]);
    }
    // Positions: the sinusoidal table after the embeddings it is added to; RoPE's rotated q and k before the scores
    // they make; ALiBi's bias between the scores and the scaled scores it is added to (between the scaled and the
    // capped scores with a soft cap: it is added after the cap).
    match o.position {
        Some(Position::Sinusoidal { .. }) => after(&mut out, "embeddings", &["pe"]),
        Some(Position::Rope { .. }) => {
            let last = ["k_normed", "q_normed", "v", "q"].iter().find(|n| out.iter().any(|v| v == *n)).copied();
            after(&mut out, last.unwrap_or("q"), &["q_rot", "k_rot"]);
        }
        Some(Position::Alibi { .. }) if l.softcap.is_some() => after(&mut out, "scaled", &["bias"]),
        Some(Position::Alibi { .. }) => after(&mut out, "scores", &["bias"]),
        None => {}
    }
    if o.heads > 1 {
        out.retain(|v| v != "naive_weights");
    }
    // Each head's weights just before the concatenation they feed.
    if self_attention && o.heads > 1 {
        let at = out.iter().position(|v| v == "context").unwrap_or(out.len());
        out.splice(at..at, (0..o.heads).map(|i| format!("heads.{i}.weights")));
    }
    if o.w_o.is_some() {
        out.push("output".into());
    }
    // Additive scoring's tanh features make the scores: just before them.
    if matches!(o.scoring, Scoring::Additive { .. }) {
        let at = out.iter().position(|v| v == "scores").unwrap_or(out.len());
        out.insert(at, "query.features".into());
    }
    out
}

/// The names the `views` attribute gives the modern panels: the position encoding, the key/value heads, the window
/// and sinks, the soft cap, the decode stepper, FlashAttention's tile stepper.
pub const MODERN_PANELS: [&str; 6] = ["position", "kv", "window", "softcap", "decode", "flash"];

/// Which of [`MODERN_PANELS`] this config uses (shown without a `views` list, as today's panels are when their
/// feature is on): `position` with a position encoding, `kv` with fewer key/value heads than heads, `window` with a
/// window or sinks, `softcap` with a soft cap, `decode` with a decode step, `flash` with tiles.
pub fn modern_panels(config: &Config) -> Vec<&'static str> {
    let o = &config.options;
    let on = [
        o.position.is_some(),
        o.kv_heads.is_some(),
        o.window.is_some() || o.sinks > 0,
        o.layers.softcap.is_some(),
        o.decode_step.is_some(),
        o.tiles.is_some(),
    ];
    MODERN_PANELS.iter().zip(on).filter(|(_, on)| *on).map(|(p, _)| *p).collect()
}

/// What a `views` list asks of [`MODERN_PANELS`] that this config cannot show, said to the author: the panels are of
/// self-attention's n × n scores and its projections, so an encoder–decoder figure (one query) or a model's weights
/// have none of them. `None` when nothing is asked in vain.
pub fn modern_panels_message(config: &Config, requested: &[String]) -> Option<String> {
    let asked: Vec<&str> = MODERN_PANELS.iter().copied().filter(|p| requested.iter().any(|r| r == p)).collect();
    let what = match config.mechanism {
        Mechanism::SelfAttention { .. } => return None,
        Mechanism::Cross { .. } => "encoder–decoder attention, with one query (the decoder state)",
        Mechanism::Weights { .. } => "a model's attention weights, shown as they are",
    };
    let (first, rest) = asked.split_first()?;
    let names =
        if rest.is_empty() { format!("the {first} panel is") } else { format!("the {} panels are", asked.join(", ")) };
    Some(format!("views: {names} for self-attention; this figure is {what}."))
}

/// The most unknown names a message quotes (the rest are counted).
const UNKNOWN_SHOWN: usize = 5;

/// What a `views` list asks that is no panel: `unknown` names quoted and cut ([`crate::text::quote`]), at most
/// a few of them, and the panels there are (`known`); `None` when every name is known.
pub fn unknown_message(unknown: &[String], known: &[String]) -> Option<String> {
    if unknown.is_empty() {
        return None;
    }
    let mut names: Vec<String> = unknown.iter().take(UNKNOWN_SHOWN).map(|u| crate::text::quote(u)).collect();
    if unknown.len() > UNKNOWN_SHOWN {
        names.push(format!("and {} more", unknown.len() - UNKNOWN_SHOWN));
    }
    Some(format!("views: no panel {}; the panels are {}.", names.join(", "), known.join(", ")))
}

/// How a `views` list (an author's choice of panels) shows on a config: the heatmaps to draw, in
/// the config's reading order, and the names that are no view at all (said to the author).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resolved {
    pub views: Vec<String>,
    pub unknown: Vec<String>,
}

/// Resolves an author's `views` list against the config shown now. `authored` are the view names of
/// the config the author wrote (see [`names`]): a name there that the reader's edits have taken away
/// (− head, W_O off, another scoring, no mask) is no mistake of the author's, so it gives way to what
/// remains of it — `heads.{i}.weights` to `weights` once one head is left, `output` to `context`,
/// `query.features` to `scores`, `capped` to `scaled`, `q_normed` and `k_normed` to `q` and `k` — or, for an input
/// that is gone (W_O, W_a, U_a, v_a, a bias, the mask), to nothing. Only a name that is a view of neither config is `unknown`. `heads` names every head's
/// weights (`heads.{i}.weights`); any other name (the element's own panels: `inputs`, `breakdown`…)
/// is left to the caller and is in neither list.
pub fn resolve(authored: &[String], current: &Config, requested: &[String], panels: &[&str]) -> Resolved {
    let now = names(current);
    let mut wanted: Vec<&str> = Vec::new();
    let mut unknown = Vec::new();
    for name in requested {
        let name = name.as_str();
        if name == "heads" {
            wanted.extend(now.iter().map(String::as_str).filter(|v| head_of(v).is_some()));
        } else if now.iter().any(|v| v == name) {
            wanted.push(name);
        } else if authored.iter().any(|v| v == name) {
            if let Some(instead) = remains(name, &now) {
                wanted.push(instead);
            }
        } else if !panels.contains(&name) {
            unknown.push(name.to_string());
        }
    }
    let views = now.iter().filter(|v| wanted.contains(&v.as_str())).cloned().collect();
    Resolved { views, unknown }
}

/// What shows instead of `name`, a view the config had and has no more; `None`: nothing.
fn remains<'a>(name: &str, now: &'a [String]) -> Option<&'a str> {
    let instead = match name {
        // One head left: its weights are the weights. A head removed of several: the others still show.
        _ if head_of(name).is_some() => "weights",
        "output" => "context",
        "query.features" => "scores",
        "naive_weights" => "weights",
        // The soft cap or a norm turned off: the stage it was made from.
        "capped" => "scaled",
        "q_normed" => "q",
        "k_normed" => "k",
        _ => return None,
    };
    let multiple = now.iter().any(|v| head_of(v).is_some());
    if head_of(name).is_some() && multiple {
        return None;
    }
    now.iter().find(|v| *v == instead).map(String::as_str)
}

/// `Some(i)` for `heads.{i}.weights`.
pub fn head_of(name: &str) -> Option<usize> {
    name.strip_prefix("heads.")?.strip_suffix(".weights")?.parse().ok()
}

/// The inputs and stages of `Options` (W_O, the mask, additive scoring's W_a, U_a, v_a and features), shared by both
/// mechanisms; `None` when `name` is none of them.
pub const OPTION_VIEWS: [&str; 6] = ["w_a", "u_a", "v_a", "w_o", "mask", "query.features"];

fn option_view<'a>(config: &'a Config, trace: &'a Trace, name: &str, queries: &[String]) -> Option<View<'a>> {
    let o = &config.options;
    let tokens: &[String] = &config.tokens;
    Some(match (name, &o.scoring) {
        ("w_a", Scoring::General { w_a } | Scoring::Additive { w_a, .. }) => {
            matrix_view(name, "W_a".into(), w_a, indices(w_a.rows()), indices(w_a.cols()), "sequential")
        }
        ("u_a", Scoring::Additive { u_a, .. }) => {
            matrix_view(name, "U_a".into(), u_a, indices(u_a.rows()), indices(u_a.cols()), "sequential")
        }
        ("v_a", Scoring::Additive { v_a, .. }) => matrix_view(
            name,
            "v_a".into(),
            Matrix::row_vector(v_a),
            vec!["v_a".into()],
            indices(v_a.len()),
            "sequential",
        ),
        ("w_o", _) => {
            let w = o.w_o.as_ref()?;
            matrix_view(name, "W_O".into(), w, indices(w.rows()), indices(w.cols()), "sequential")
        }
        ("mask", _) if o.mask != Mask::None || o.valid_lens.is_some() || o.window.is_some() => {
            mask_view(config, queries)
        }
        ("query.features", Scoring::Additive { .. }) => {
            let f = match trace {
                Trace::SelfAttention(t) => t.query.features.as_ref()?,
                Trace::Cross(t) => t.features.as_ref()?,
                Trace::Weights(_) => return None,
            };
            let title = match config.mechanism {
                Mechanism::SelfAttention { .. } => {
                    format!(
                        "tanh(q·W_a + k_j·U_a) for query {}",
                        queries.get(config.query).cloned().unwrap_or_default()
                    )
                }
                Mechanism::Cross { .. } | Mechanism::Weights { .. } => "tanh(h·W_a + a_j·U_a)".to_string(),
            };
            matrix_view(name, title, f, tokens, indices(f.cols()), "orange")
        }
        _ => return None,
    })
}

/// The mask view: the keys each query attends (1) or not (0), by every rule (`Options::reason`: the mask, the valid
/// lengths, the window and its sinks), so the band a window leaves is what shows. The mask field a click toggles is
/// the title's first word and each cell's words (`panels::mask_cell_words`); the cells it allows but a valid length or
/// the window closes are crossed ("\"), the sinks' columns dashed, and the title says which is which.
fn mask_view<'a>(config: &'a Config, queries: &[String]) -> View<'a> {
    let o = &config.options;
    let m = config.tokens.len();
    let rows = queries.len();
    let kind = match o.mask {
        Mask::Causal => "mask: causal",
        Mask::Matrix(_) => "mask",
        Mask::None => "mask: none",
    };
    let mut rules = vec![];
    match &o.valid_lens {
        Some(lens) if lens.len() <= 16 => {
            rules.push(format!("valid lengths {}", lens.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")))
        }
        Some(_) => rules.push("valid lengths".to_string()),
        None => {}
    }
    let sinks = o.sinks.min(m as u64) as usize;
    match (o.window, sinks) {
        (Some([l, r]), 0) => rules.push(format!("window [{l}, {r}]")),
        (Some([l, r]), s) => rules.push(format!("window [{l}, {r}] · sinks {s}: dashed")),
        (None, 0) => {}
        (None, s) => rules.push(format!("sinks {s} (no window to open)")),
    }
    let effective = o.valid_lens.is_some() || o.window.is_some();
    let title = if effective {
        format!("effective (1 = attended): {kind} · {} · crossed 0s: the mask allows them", rules.join(" · "))
    } else {
        [format!("{kind} (1 = may attend)")].into_iter().chain(rules).collect::<Vec<_>>().join(" · ")
    };
    let reasons: Vec<u8> = (0..rows).flat_map(|i| (0..m).map(move |j| o.reason(i, j))).collect();
    let values =
        Matrix::from_vec(rows, m, reasons.iter().map(|&r| f64::from(u8::from(r == 0))).collect()).expect("rows × m");
    let cells = if effective { reasons.iter().map(|&r| r != 0 && r & BY_MASK == 0).collect() } else { vec![] };
    let columns = if o.window.is_some() { (0..sinks).collect() } else { vec![] };
    // Its two values, whatever it holds: a mask of only 1s is not a bar of 0.9 … 1.1.
    View {
        marks: Marks { cells, columns, ..Marks::default() },
        range: Some((0.0, 1.0)),
        ..matrix_view("mask", title, values, queries.to_vec(), config.tokens.as_slice(), "sequential")
    }
}

fn indices(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}

fn matrix_view<'a>(
    name: &str,
    title: String,
    values: impl Into<Cow<'a, Matrix>>,
    rows: impl Into<Cow<'a, [String]>>,
    cols: impl Into<Cow<'a, [String]>>,
    palette: &'static str,
) -> View<'a> {
    View {
        name: name.to_string(),
        title,
        values: values.into(),
        row_labels: rows.into(),
        col_labels: cols.into(),
        palette,
        marks: Marks::default(),
        range: None,
    }
}

/// The view `name` of this config and its trace, or a message listing the
/// views that exist.
pub fn view<'a>(config: &'a Config, trace: &'a Trace, name: &str) -> Result<View<'a>, String> {
    let tokens: &'a [String] = &config.tokens;
    let unknown =
        || format!("there is no view {} here; views are {}", crate::text::quote(name), names(config).join(", "));
    // Only these names are option views: the others skip building their labels (this runs on every repaint).
    if OPTION_VIEWS.contains(&name) {
        if let Some(v) = option_view(config, trace, name, &queries(config)) {
            return Ok(v);
        }
    }
    if DECODE_VIEWS.contains(&name) {
        return decode_view(config, trace, name).ok_or_else(unknown);
    }
    match (&config.mechanism, trace) {
        (Mechanism::Weights { key_tokens, layer, head, .. }, Trace::Weights(t)) if name == "attention" => {
            let [_, heads, _, _] = t.attention.shape();
            let off = t.summaries[4][layer * heads + head] > ROW_SUM_TOLERANCE;
            let title = format!(
                "layer {layer}, head {head}: attention weights{}",
                if off { " (rows do not sum to 1)" } else { "" }
            );
            Ok(matrix_view(name, title, &t.selected, tokens, key_tokens.as_slice(), "sequential"))
        }
        (Mechanism::SelfAttention { embeddings, projections }, Trace::SelfAttention(t)) => {
            let d = |m: &Matrix| indices(m.cols());
            let heads = config.options.heads;
            if let Some(rest) = name.strip_prefix("heads.") {
                let (i, stage) = rest.split_once('.').ok_or_else(unknown)?;
                let i: usize = i.parse().ok().filter(|&i| i < t.head_count()).ok_or_else(unknown)?;
                let h = t.head(i);
                let (m, palette) = match stage {
                    "q" => (h.q, "purple"),
                    "k" => (h.k, "orange"),
                    "v" => (h.v, "orange"),
                    "scores" | "scaled" | "capped" | "weights" => {
                        let m = match stage {
                            "scores" => h.scores,
                            "scaled" => h.scaled,
                            "capped" => h.capped.ok_or_else(unknown)?,
                            _ => h.weights,
                        };
                        let title = format!("head {i}: {stage}");
                        return Ok(matrix_view(name, title, m, tokens, tokens, "sequential"));
                    }
                    "context" => (h.context, "Blue"),
                    "q_normed" | "k_normed" | "q_rot" | "k_rot" | "bias" => {
                        let e = t.extras.get(i).ok_or_else(unknown)?;
                        let (m, palette, cols) = match stage {
                            "q_normed" => (e.q_normed.as_ref().ok_or_else(unknown)?, "purple", None),
                            "k_normed" => (e.k_normed.as_ref().ok_or_else(unknown)?, "orange", None),
                            "q_rot" => (e.q_rot.as_ref().ok_or_else(unknown)?, "purple", None),
                            "k_rot" => (e.k_rot.as_ref().ok_or_else(unknown)?, "orange", None),
                            _ => (e.bias.as_ref().ok_or_else(unknown)?, "sequential", Some(Cow::Borrowed(tokens))),
                        };
                        let cols = cols.unwrap_or_else(|| Cow::Owned(d(m)));
                        return Ok(matrix_view(name, format!("head {i}: {stage}"), m, tokens, cols, palette));
                    }
                    _ => return Err(unknown()),
                };
                return Ok(matrix_view(name, format!("head {i}: {stage}"), m, tokens, d(m), palette));
            }
            // With several heads the stage views follow the picked head.
            let followed = t.head(config.options.head.min(t.head_count() - 1));
            let head_note = if heads > 1 { format!(" (head {})", config.options.head) } else { String::new() };
            let extras = t.extras.get(config.options.head);
            Ok(match name {
                "embeddings" => matrix_view(name, "embeddings X".into(), embeddings, tokens, d(embeddings), "purple"),
                "pe" => {
                    let pe = t.pe.as_ref().ok_or_else(unknown)?;
                    let title = "PE: sin / cos(p / base^(2⌊j/2⌋/d_model)), added to X".to_string();
                    matrix_view(name, title, pe, tokens, d(pe), "sequential")
                }
                "q_rot" | "k_rot" => {
                    let (m, title, palette) = match name {
                        "q_rot" => (extras.and_then(|e| e.q_rot.as_ref()), "q rotated by RoPE", "purple"),
                        _ => (extras.and_then(|e| e.k_rot.as_ref()), "k rotated by RoPE", "orange"),
                    };
                    let m = m.ok_or_else(unknown)?;
                    let title = match config.options.position.as_ref().map(|p| rotated_part(p, m.cols())) {
                        Some(Some(part)) => format!("{title} ({part}){head_note}"),
                        _ => format!("{title}{head_note}"),
                    };
                    matrix_view(name, title, m, tokens, d(m), palette)
                }
                "q_normed" | "k_normed" => {
                    let (m, title, palette) = match name {
                        "q_normed" => {
                            (extras.and_then(|e| e.q_normed.as_ref()), "q normed: q / √(mean(q²) + ε)·w", "purple")
                        }
                        _ => (extras.and_then(|e| e.k_normed.as_ref()), "k normed: k / √(mean(k²) + ε)·w", "orange"),
                    };
                    let m = m.ok_or_else(unknown)?;
                    matrix_view(name, format!("{title}{head_note}"), m, tokens, d(m), palette)
                }
                "b_q" | "b_k" | "b_v" | "b_o" => {
                    let l = &config.options.layers;
                    let (b, title) = match name {
                        "b_q" => (&l.b_q, "b_q (Q = X·W_Q + b_q)"),
                        "b_k" => (&l.b_k, "b_k (K = X·W_K + b_k)"),
                        "b_v" => (&l.b_v, "b_v (V = X·W_V + b_v)"),
                        _ => (&l.b_o, "b_o (output = context·W_O + b_o)"),
                    };
                    let b = b.as_ref().ok_or_else(unknown)?;
                    let row = vec![name.to_string()];
                    matrix_view(name, title.into(), Matrix::row_vector(b), row, indices(b.len()), "sequential")
                }
                "bias" => {
                    let m = extras.and_then(|e| e.bias.as_ref()).ok_or_else(unknown)?;
                    let title = format!("ALiBi bias −m·|i − j|{head_note}");
                    matrix_view(name, title, m, tokens, tokens, "sequential")
                }
                "w_q" | "w_k" | "w_v" => {
                    let p = projections.as_ref().ok_or_else(unknown)?;
                    let (m, label) = match name {
                        "w_q" => (&p.w_q, "W_Q"),
                        "w_k" => (&p.w_k, "W_K"),
                        _ => (&p.w_v, "W_V"),
                    };
                    matrix_view(name, label.into(), m, indices(m.rows()), d(m), "sequential")
                }
                "q" | "k" | "v" => {
                    let (m, title, palette) = match (name, projections.is_some()) {
                        ("q", true) => (&t.q, "Q = X·W_Q", "purple"),
                        ("k", true) => (&t.k, "K = X·W_K", "orange"),
                        ("v", true) => (&t.v, "V = X·W_V", "orange"),
                        ("q", false) => (&t.q, "Q = X", "purple"),
                        ("k", false) => (&t.k, "K = X", "orange"),
                        _ => (&t.v, "V = X", "orange"),
                    };
                    let l = &config.options.layers;
                    let bias = match name {
                        "q" => l.b_q.is_some(),
                        "k" => l.b_k.is_some(),
                        _ => l.b_v.is_some(),
                    };
                    let title = if bias { format!("{title} + b_{name}") } else { title.to_string() };
                    let (blocks, words) = structure(config, name, m.rows(), m.cols());
                    let mut view = matrix_view(name, format!("{title}{words}"), m, tokens, d(m), palette);
                    view.marks.blocks = blocks;
                    view
                }
                "scores" | "scaled" | "capped" | "weights" => {
                    let biased = extras.is_some_and(|e| e.bias.is_some());
                    let title = stage_title(config, name, t.scale, biased).ok_or_else(unknown)?;
                    let m = match name {
                        "scores" => followed.scores,
                        "scaled" => followed.scaled,
                        "capped" => followed.capped.ok_or_else(unknown)?,
                        _ => followed.weights,
                    };
                    matrix_view(name, title, m, tokens, tokens, "sequential")
                }
                "naive_weights" => matrix_view(
                    name,
                    "naive softmax: exp(x) / Σ exp(x)".into(),
                    &t.naive_weights,
                    tokens,
                    tokens,
                    "sequential",
                ),
                "context" if heads > 1 => {
                    let title = format!("context = concat(head 0 … head {})", heads - 1);
                    matrix_view(name, title, &t.context, tokens, d(&t.context), "Blue")
                }
                "context" => {
                    let title = stage_title(config, name, t.scale, false).ok_or_else(unknown)?;
                    matrix_view(name, title, &t.context, tokens, d(&t.context), "Blue")
                }
                "output" => {
                    let out = t.output.as_ref().ok_or_else(unknown)?;
                    let title = if config.options.layers.b_o.is_some() {
                        "output = context·W_O + b_o"
                    } else {
                        "output = context·W_O"
                    };
                    matrix_view(name, title.into(), out, tokens, d(out), "Blue")
                }
                "query.terms" => matrix_view(
                    name,
                    format!("w_j·v_j for query {}", config.tokens[t.query.index]),
                    &t.query.terms,
                    tokens,
                    d(&t.query.terms),
                    "orange",
                ),
                _ => return Err(unknown()),
            })
        }
        (Mechanism::Cross { decoder_state, annotations }, Trace::Cross(t)) => {
            let dims = indices(decoder_state.len());
            let column = |v: &[f64]| Matrix::from_vec(v.len(), 1, v.to_vec()).expect("n × 1");
            let row = |v: &[f64]| Matrix::row_vector(v);
            let h = vec!["h".to_string()];
            Ok(match name {
                "decoder_state" => {
                    matrix_view(name, "decoder state".into(), column(decoder_state), dims, vec!["0".into()], "purple")
                }
                "annotations" => {
                    matrix_view(name, "annotations".into(), annotations.transpose(), dims, tokens, "orange")
                }
                "scores" => {
                    let title = format!("scores = {}", cross_formula(&config.options.scoring));
                    matrix_view(name, title, row(&t.scores), h, tokens, "sequential")
                }
                "scaled" => {
                    let temp = temperature_text(config.options.temperature);
                    let title = if t.scale == 1.0 {
                        format!("scaled = scores{temp}")
                    } else {
                        format!("scaled = scores / {}{temp}", short(t.scale))
                    };
                    matrix_view(name, title, row(&t.scaled), h, tokens, "sequential")
                }
                "weights" => {
                    matrix_view(name, "weights = softmax(scores)".into(), row(&t.weights), h, tokens, "sequential")
                }
                "naive_weights" => matrix_view(
                    name,
                    "naive softmax: exp(x) / Σ exp(x)".into(),
                    row(&t.naive_weights),
                    h,
                    tokens,
                    "sequential",
                ),
                "applied" => matrix_view(name, "applied attention".into(), &t.applied, dims, tokens, "orange"),
                "context" => {
                    matrix_view(name, "context vector".into(), column(&t.context), dims, vec!["0".into()], "Blue")
                }
                _ => return Err(unknown()),
            })
        }
        // A model's weights have one view, the selected head (the element draws every head's grid itself).
        (Mechanism::Weights { .. }, Trace::Weights(_)) => Err(unknown()),
        _ => Err("internal error: the trace does not belong to this config".into()),
    }
}

/// The structure stage view `name` (`q`, `k` or `v`, `rows` × `cols`) outlines, and the words its title adds (its
/// text alternative): with K/V heads set and several query heads, each K/V head's columns of K and V and the
/// columns of the query heads that share it in Q, in the group's colour; while generating token t (`decode_step`),
/// the KV cache inside K and V, rows 0 … t, dashed.
pub fn structure(config: &Config, name: &str, rows: usize, cols: usize) -> (Vec<Block>, String) {
    let o = &config.options;
    let (heads, kv) = (o.heads, o.kv_heads());
    let mut blocks = vec![];
    let mut words = String::new();
    let projections = matches!(config.mechanism, Mechanism::SelfAttention { projections: Some(_), .. });
    if projections && heads > 1 && o.kv_heads.is_some() && kv > 0 && heads % kv == 0 && rows > 0 {
        let (width, what) = match name {
            "q" if cols % heads == 0 => (cols / heads * (heads / kv), "the query heads sharing each K/V head"),
            "k" | "v" if cols % kv == 0 => (cols / kv, "K/V heads"),
            _ => (0, ""),
        };
        if width > 0 {
            let group = heads / kv;
            let names: Vec<String> = (0..kv)
                .map(|g| match name {
                    "q" if group > 1 => format!("{}–{}", g * group, (g + 1) * group - 1),
                    _ => g.to_string(),
                })
                .collect();
            blocks.extend((0..kv).map(|g| Block {
                r0: 0,
                c0: g * width,
                r1: rows,
                c1: (g + 1) * width,
                group: Some(g),
            }));
            words += &format!(" · coloured by K/V head: {what} {}", names.join(" | "));
        }
    }
    if let (Some(t), "k" | "v") = (o.decode_step, name) {
        let t = t.min(rows.saturating_sub(1));
        if rows > 0 && cols > 0 {
            blocks.push(Block { r0: 0, c0: 0, r1: t + 1, c1: cols, group: None });
            words += &format!(" · dashed: the KV cache, tokens 0 … {t}");
        }
    }
    (blocks, words)
}

/// The decode panel's views (the `decode` panel draws them; not in [`names`], so the stage heatmaps do not
/// repeat them): the followed head generating token t at `decode_step` — its query, the KV cache of tokens 0 … t,
/// row t's scores, weights and context.
pub const DECODE_VIEWS: [&str; 6] =
    ["decode.q", "decode.k_cache", "decode.v_cache", "decode.scores", "decode.weights", "decode.context"];

fn decode_view<'a>(config: &'a Config, trace: &'a Trace, name: &str) -> Option<View<'a>> {
    let Trace::SelfAttention(t) = trace else { return None };
    let d = t.decode.as_ref()?;
    let step = d.step as usize;
    let now = vec![config.tokens.get(step)?.clone()];
    let cache: &[String] = config.tokens.get(..=step)?;
    let o = &config.options;
    let head = if o.heads > 1 { format!(" (head {})", o.head) } else { String::new() };
    let rotated = if matches!(o.position, Some(Position::Rope { .. })) { ", rotated" } else { "" };
    let row = |v: &[f64]| Matrix::row_vector(v);
    Some(match name {
        "decode.q" => {
            let title = format!("q of token {step}{rotated}{head}");
            matrix_view(name, title, row(&d.q), now, indices(d.q.len()), "purple")
        }
        "decode.k_cache" => {
            let title = format!("K cache: tokens 0 … {step}{rotated}{head}");
            matrix_view(name, title, &d.k_cache, cache, indices(d.k_cache.cols()), "orange")
        }
        "decode.v_cache" => {
            let title = format!("V cache: tokens 0 … {step}{head}");
            matrix_view(name, title, &d.v_cache, cache, indices(d.v_cache.cols()), "orange")
        }
        "decode.scores" => {
            let title = format!("scores of token {step} against the cache{head}");
            matrix_view(name, title, row(&d.scores), now, cache, "sequential")
        }
        "decode.weights" => {
            let logits = if o.layers.softcap.is_some() { "capped" } else { "scaled" };
            let title = format!("weights of token {step} = softmax({logits}){head}");
            matrix_view(name, title, row(&d.weights), now, cache, "sequential")
        }
        "decode.context" => {
            let title = format!("context of token {step} = weights·V cache{head}");
            matrix_view(name, title, row(&d.context), now, indices(d.context.len()), "Blue")
        }
        _ => return None,
    })
}

/// The rows of the attention: the tokens (self) or the decoder state "h" (cross).
fn queries(config: &Config) -> Vec<String> {
    match config.mechanism {
        Mechanism::SelfAttention { .. } | Mechanism::Weights { .. } => config.tokens.clone(),
        Mechanism::Cross { .. } => vec!["h".into()],
    }
}

/// The title of the followed head's stage `name` of a self-attention config (`scores`, `scaled`, `weights`, and
/// `context`: that head's, which is the whole context with one head), `scale` the resolved divisor, `biased` when
/// ALiBi adds its bias; `None` for any other name. Shared by [`view`] and the worker's large figure
/// (`web/large.rs`), which has the stages but no trace.
pub fn stage_title(config: &Config, name: &str, scale: f64, biased: bool) -> Option<String> {
    let heads = config.options.heads;
    let head_note = if heads > 1 { format!(" (head {})", config.options.head) } else { String::new() };
    let sub = match &config.mechanism {
        Mechanism::SelfAttention { projections: Some(_), .. } => "k",
        Mechanism::SelfAttention { projections: None, .. } => "model",
        _ => return None,
    };
    let o = &config.options;
    let capped = o.layers.softcap;
    Some(match name {
        "scores" => {
            let rope = matches!(o.position, Some(Position::Rope { .. }));
            let normed = [o.layers.q_norm.is_some(), o.layers.k_norm.is_some()];
            format!("scores = {}{head_note}", score_formula(&o.scoring, rope, normed))
        }
        "scaled" => {
            let temp = temperature_text(config.options.temperature);
            let scale_text = if scale == 1.0 { String::new() } else { format!(" / {}", short(scale)) };
            let title = match config.scale {
                crate::config::Scale::SqrtDk => {
                    format!("scaled = scores / √d_{sub}{temp} = scores / {}{temp}", short(scale))
                }
                _ => format!("scaled = scores{scale_text}{temp}"),
            };
            let bias = if biased && capped.is_none() { " + bias" } else { "" };
            format!("{title}{bias}{head_note}")
        }
        "capped" => {
            let c = crate::text::number(capped?);
            let bias = if biased { " + bias" } else { "" };
            format!("capped = {c}·tanh(scaled / {c}){bias}{head_note}")
        }
        "weights" if capped.is_some() => format!("weights = softmax(capped){head_note}"),
        "weights" => format!("weights = softmax(scaled){head_note}"),
        "context" => format!("context = weights·V{head_note}"),
        _ => return None,
    })
}

/// A scoring's formula of the q and k the scores are made of: under RoPE (`rotated`) the rotated ones (the views
/// `q_rot`, `k_rot`), else the normed ones where `normed` ([q, k]: `q_norm`, `k_norm`) says (`q_normed`, `k_normed`).
fn score_formula(scoring: &Scoring, rotated: bool, normed: [bool; 2]) -> String {
    let suffix = |n: bool| {
        if rotated {
            "_rot"
        } else if n {
            "_normed"
        } else {
            ""
        }
    };
    let (q, k) = (suffix(normed[0]), suffix(normed[1]));
    match scoring {
        Scoring::Dot => format!("Q{q}·K{k}ᵀ"),
        Scoring::General { .. } => format!("Q{q}·W_a·K{k}ᵀ"),
        Scoring::Additive { .. } => format!("v_a·tanh(q{q}·W_a + k{k}·U_a)"),
        Scoring::Cosine => format!("cos(q{q}, k{k})"),
    }
}

/// Which values of a q or k row (`d_k` wide) RoPE turns, when not all: "values 0 … 3 of 6 turn".
fn rotated_part(position: &Position, d_k: usize) -> Option<String> {
    match position {
        Position::Rope { rotary_dim: Some(r), .. } if *r < d_k => Some(format!("values 0 … {} of {d_k} turn", r - 1)),
        _ => None,
    }
}

fn cross_formula(scoring: &Scoring) -> &'static str {
    match scoring {
        Scoring::Dot => "h·a_j",
        Scoring::General { .. } => "h·W_a·a_j",
        Scoring::Additive { .. } => "v_a·tanh(h·W_a + a_j·U_a)",
        Scoring::Cosine => "cos(h, a_j)",
    }
}

/// " / T" for a temperature other than 1.
fn temperature_text(t: f64) -> String {
    if t == 1.0 {
        String::new()
    } else {
        let text = format!("{t:.3}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        if text == "0" {
            format!(" / T (T = {t:.2e})")
        } else {
            format!(" / T (T = {text})")
        }
    }
}

/// A scale factor as a short label: 1.7320508 → "1.73", 8 → "8".
fn short(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
