//! The panels a user can look at: each config input and each trace stage as a
//! labelled matrix with a title and a default palette.
//!
//! A view is named by its config or trace field (`embeddings`, `w_q`, `q`,
//! `scores`, `weights`, `applied`, …). Vectors are drawn the way the seed
//! documents draw them: the decoder state and the cross-attention context as
//! one column, the annotations and applied attention with one encoder state per
//! column (d rows × m columns).

use crate::attention::Trace;
use crate::config::{Config, Mechanism};
use crate::math::Matrix;

/// Every view name, in reading order.
pub const SELF_VIEWS: [&str; 12] =
    ["embeddings", "w_q", "w_k", "w_v", "q", "k", "v", "scores", "scaled", "weights", "naive_weights", "context"];
pub const CROSS_VIEWS: [&str; 7] =
    ["decoder_state", "annotations", "scores", "scaled", "weights", "naive_weights", "applied"];
pub const ALL_VIEWS: [&str; 16] = [
    "embeddings",
    "w_q",
    "w_k",
    "w_v",
    "q",
    "k",
    "v",
    "scores",
    "scaled",
    "weights",
    "naive_weights",
    "context",
    "decoder_state",
    "annotations",
    "applied",
    "query.terms",
];

/// One matrix ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub name: String,
    pub title: String,
    pub values: Matrix,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// Palette used unless the caller picks one (see `heatmap::palette::by_name`).
    pub palette: &'static str,
}

/// The views this config has, in reading order.
pub fn names(config: &Config) -> Vec<&'static str> {
    match &config.mechanism {
        Mechanism::SelfAttention { projections: Some(_), .. } => SELF_VIEWS.to_vec(),
        Mechanism::SelfAttention { projections: None, .. } => {
            SELF_VIEWS.iter().copied().filter(|v| !matches!(*v, "w_q" | "w_k" | "w_v" | "k" | "v")).collect()
        }
        Mechanism::Cross { .. } => {
            let mut v = CROSS_VIEWS.to_vec();
            v.push("context");
            v
        }
    }
}

fn indices(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}

fn matrix_view(
    name: &str,
    title: String,
    values: Matrix,
    rows: Vec<String>,
    cols: Vec<String>,
    palette: &'static str,
) -> View {
    View { name: name.to_string(), title, values, row_labels: rows, col_labels: cols, palette }
}

/// The view `name` of this config and its trace, or a message listing the
/// views that exist.
pub fn view(config: &Config, trace: &Trace, name: &str) -> Result<View, String> {
    let tokens = config.tokens.clone();
    let unknown =
        || format!("there is no view {} here; views are {}", crate::text::quote(name), names(config).join(", "));
    match (&config.mechanism, trace) {
        (Mechanism::SelfAttention { embeddings, projections }, Trace::SelfAttention(t)) => {
            let d = |m: &Matrix| indices(m.cols());
            let sub = if projections.is_some() { "k" } else { "model" };
            let scale_text = if t.scale == 1.0 { String::new() } else { format!(" / {}", short(t.scale)) };
            Ok(match name {
                "embeddings" => {
                    matrix_view(name, "embeddings X".into(), embeddings.clone(), tokens, d(embeddings), "purple")
                }
                "w_q" | "w_k" | "w_v" => {
                    let p = projections.as_ref().ok_or_else(unknown)?;
                    let (m, label) = match name {
                        "w_q" => (&p.w_q, "W_Q"),
                        "w_k" => (&p.w_k, "W_K"),
                        _ => (&p.w_v, "W_V"),
                    };
                    matrix_view(name, label.into(), m.clone(), indices(m.rows()), d(m), "sequential")
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
                    matrix_view(name, title.into(), m.clone(), tokens, d(m), palette)
                }
                "scores" => {
                    matrix_view(name, "scores = Q·Kᵀ".into(), t.scores.clone(), tokens.clone(), tokens, "sequential")
                }
                "scaled" => {
                    let title = match config.scale {
                        crate::config::Scale::SqrtDk => {
                            format!("scaled = scores / √d_{sub} = scores / {}", short(t.scale))
                        }
                        _ => format!("scaled = scores{scale_text}"),
                    };
                    matrix_view(name, title, t.scaled.clone(), tokens.clone(), tokens, "sequential")
                }
                "weights" => matrix_view(
                    name,
                    "weights = softmax(scaled)".into(),
                    t.weights.clone(),
                    tokens.clone(),
                    tokens,
                    "sequential",
                ),
                "naive_weights" => matrix_view(
                    name,
                    "naive softmax: exp(x) / Σ exp(x)".into(),
                    t.naive_weights.clone(),
                    tokens.clone(),
                    tokens,
                    "sequential",
                ),
                "context" => {
                    matrix_view(name, "context = weights·V".into(), t.context.clone(), tokens, d(&t.context), "Blue")
                }
                "query.terms" => matrix_view(
                    name,
                    format!("w_j·v_j for query {}", config.tokens[t.query.index]),
                    t.query.terms.clone(),
                    config.tokens.clone(),
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
                "scores" => matrix_view(name, "scores = h·a_j".into(), row(&t.scores), h, tokens, "sequential"),
                "scaled" => {
                    let title = if t.scale == 1.0 {
                        "scaled = scores".to_string()
                    } else {
                        format!("scaled = scores / {}", short(t.scale))
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
                "applied" => matrix_view(name, "applied attention".into(), t.applied.clone(), dims, tokens, "orange"),
                "context" => {
                    matrix_view(name, "context vector".into(), column(&t.context), dims, vec!["0".into()], "Blue")
                }
                _ => return Err(unknown()),
            })
        }
        _ => Err("internal error: the trace does not belong to this config".into()),
    }
}

/// A scale factor as a short label: 1.7320508 → "1.73", 8 → "8".
fn short(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
