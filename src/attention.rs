//! The attention computations of the four seed documents, as pure functions
//! from a validated [`Config`] to a [`Trace`] holding every intermediate stage.
//!
//! Both mechanisms funnel through one kernel, [`attend`]: queries, keys and
//! values in, scores → scaled → weights → context out. Self-attention builds
//! Q, K, V from the embeddings (with or without learned projections);
//! encoder–decoder attention uses the decoder state as the single query and
//! the annotations as keys and values. New scoring functions, masks,
//! temperature or heads plug into `attend` and `Scoring` without touching the
//! callers.

use crate::config::{Config, Mechanism, Scale};
use crate::math::kernels::{exp_shifted_into, min_max};
use crate::math::{naive_equals_stable, softmax_naive, softmax_naive_given, softmax_stable_into, Matrix};

/// How a query is compared with a key. Only the dot product exists today;
/// bilinear (`qᵀ W k`) and additive (`vᵀ tanh(W q + U k)`) scorers are new
/// variants here.
#[derive(Clone, Debug, PartialEq)]
pub enum Scoring {
    Dot,
}

impl Scoring {
    fn scores(&self, q: &Matrix, k: &Matrix) -> Matrix {
        match self {
            Scoring::Dot => q.matmul_transposed(k),
        }
    }
}

/// What the kernel produces for one set of queries.
#[derive(Clone, Debug, PartialEq)]
pub struct Stages {
    pub scores: Matrix,
    pub scaled: Matrix,
    pub weights: Matrix,
    pub context: Matrix,
}

/// One attention step: scores = score(Q, K), scaled = scores / scale,
/// weights = row-wise stable softmax, context = weights V.
///
/// Division (not multiplication by 1/scale) keeps us bit-compatible with the
/// documents' `scores / K.shape[1] ** 0.5`.
pub fn attend(q: &Matrix, k: &Matrix, v: &Matrix, scoring: &Scoring, scale: f64) -> Stages {
    let scores = scoring.scores(q, k);
    let scaled = scores.map(|s| s / scale);
    let mut weights = Matrix::zeros(scaled.rows(), scaled.cols());
    for i in 0..scaled.rows() {
        softmax_stable_into(scaled.row(i), weights.row_mut(i));
    }
    let context = weights.matmul(v);
    Stages { scores, scaled, weights, context }
}

/// The naive softmax of every row of `scaled`, given its stable `weights`
/// (literal only in rows where float64 overflow or underflow can occur).
pub fn naive_rows(scaled: &Matrix, weights: &Matrix) -> Matrix {
    let mut out = weights.clone();
    naive_rows_into(scaled, weights, &mut out);
    out
}

/// [`naive_rows`] written over `out` (of the same shape), with no new n × n matrix.
pub fn naive_rows_into(scaled: &Matrix, weights: &Matrix, out: &mut Matrix) {
    out.copy_from(weights);
    for i in 0..scaled.rows() {
        if !naive_equals_stable(scaled.row(i)) {
            out.row_mut(i).copy_from_slice(&softmax_naive(scaled.row(i)));
        }
    }
}

/// Every stage of self-attention.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfTrace {
    pub q: Matrix,
    pub k: Matrix,
    pub v: Matrix,
    pub scores: Matrix,
    pub scaled: Matrix,
    pub weights: Matrix,
    /// `exp(x) / sum(exp(x))` without the max shift, for the overflow lesson:
    /// NaN where float64 overflows; equal to `weights` (to rounding) elsewhere.
    pub naive_weights: Matrix,
    pub context: Matrix,
    pub scale: f64,
    pub query: QueryBreakdown,
}

/// The walk-through of document 000 for one query i: its scores against every
/// key (q_i·k_j), scaled (÷ scale), the stable softmax's exponentials and their
/// sum, the weights, each weighted value w_j·v_j, and their sum.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryBreakdown {
    pub index: usize,
    pub scores: Vec<f64>,
    pub scaled: Vec<f64>,
    /// exp(scaled_j − max_j scaled), as the stable softmax computes them (the same kernel).
    pub exp: Vec<f64>,
    /// Σ_j exp_j, summed in the stable softmax's order; the weights are exp_j / sum
    /// (to rounding: an incrementally updated trace divides by its own running sum).
    pub sum: f64,
    pub weights: Vec<f64>,
    /// Row j is w_j · v_j.
    pub terms: Matrix,
    /// Σ_j terms[j], summed in j order like the document's `+` chain.
    pub context: Vec<f64>,
}

/// Every stage of encoder–decoder dot attention (document 003).
#[derive(Clone, Debug, PartialEq)]
pub struct CrossTrace {
    pub scores: Vec<f64>,
    pub scaled: Vec<f64>,
    pub weights: Vec<f64>,
    pub naive_weights: Vec<f64>,
    /// d × m: column j is annotation j times its weight, drawn as the document draws it.
    pub applied: Matrix,
    /// d: the sum of the applied columns.
    pub context: Vec<f64>,
    pub scale: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Trace {
    SelfAttention(SelfTrace),
    Cross(CrossTrace),
}

/// A numeric failure the config validation cannot see in advance: finite
/// inputs whose products overflow f64.
#[derive(Clone, Debug, PartialEq)]
pub struct Overflow(pub String);

impl std::fmt::Display for Overflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Runs the configured mechanism. Fails only when an intermediate overflows.
pub fn compute(config: &Config) -> Result<Trace, Overflow> {
    match &config.mechanism {
        Mechanism::SelfAttention { embeddings, projections } => {
            let (q, k, v) = match projections {
                Some(p) => (embeddings.matmul(&p.w_q), embeddings.matmul(&p.w_k), embeddings.matmul(&p.w_v)),
                None => (embeddings.clone(), embeddings.clone(), embeddings.clone()),
            };
            for (name, m) in [("Q", &q), ("K", &k), ("V", &v)] {
                check_finite(name, m)?;
            }
            let scale = resolve_scale(config.scale, k.cols());
            let stages = attend(&q, &k, &v, &Scoring::Dot, scale);
            check_finite("scores", &stages.scaled)?;
            check_finite("context", &stages.context)?;
            let query = breakdown(config.query, &stages.scores, &stages.scaled, &stages.weights, &v);
            let naive_weights = naive_rows(&stages.scaled, &stages.weights);
            let Stages { scores, scaled, weights, context } = stages;
            Ok(Trace::SelfAttention(SelfTrace {
                q,
                k,
                v,
                scores,
                scaled,
                weights,
                naive_weights,
                context,
                scale,
                query,
            }))
        }
        Mechanism::Cross { decoder_state, annotations } => {
            let h = Matrix::row_vector(decoder_state);
            let scale = resolve_scale(config.scale, decoder_state.len());
            let stages = attend(&h, annotations, annotations, &Scoring::Dot, scale);
            check_finite("scores", &stages.scaled)?;
            let weights = stages.weights.row(0).to_vec();
            let mut applied = annotations.transpose();
            for r in 0..applied.rows() {
                for (x, w) in applied.row_mut(r).iter_mut().zip(&weights) {
                    *x *= w;
                }
            }
            // np.sum(applied, axis=1): each context entry sums one row of `applied`.
            let context: Vec<f64> = (0..applied.rows()).map(|r| applied.row(r).iter().sum()).collect();
            check_finite("context", &Matrix::row_vector(&context))?;
            let naive_weights = softmax_naive_given(stages.scaled.row(0), stages.weights.row(0));
            Ok(Trace::Cross(CrossTrace {
                scores: stages.scores.row(0).to_vec(),
                scaled: stages.scaled.row(0).to_vec(),
                weights,
                naive_weights,
                applied,
                context,
                scale,
            }))
        }
    }
}

/// The divisor of the scores: √d_k, 1, or the user's number.
pub fn resolve_scale(scale: Scale, d_k: usize) -> f64 {
    match scale {
        Scale::SqrtDk => (d_k as f64).sqrt(),
        Scale::None => 1.0,
        Scale::Value(s) => s,
    }
}

/// The single-query walk-through for query `index`, from the matrices of a trace.
pub(crate) fn breakdown(
    index: usize,
    scores: &Matrix,
    scaled: &Matrix,
    weights: &Matrix,
    v: &Matrix,
) -> QueryBreakdown {
    let w = weights.row(index).to_vec();
    let row = scaled.row(index);
    let (_, max) = min_max(row);
    let mut exp = vec![0.0; row.len()];
    let sum = exp_shifted_into(row, max, &mut exp);
    let mut terms = Matrix::zeros(v.rows(), v.cols());
    let mut context = vec![0.0; v.cols()];
    for (j, &wj) in w.iter().enumerate() {
        for (c, (t, &x)) in terms.row_mut(j).iter_mut().zip(v.row(j)).enumerate() {
            *t = wj * x;
            context[c] += *t;
        }
    }
    QueryBreakdown {
        index,
        scores: scores.row(index).to_vec(),
        scaled: row.to_vec(),
        exp,
        sum,
        weights: w,
        terms,
        context,
    }
}

pub(crate) fn check_finite(name: &str, m: &Matrix) -> Result<(), Overflow> {
    match m.first_non_finite() {
        None => Ok(()),
        Some((i, j)) => Err(overflow(name, i, j, m.get(i, j))),
    }
}

/// The message for stage `name` overflowing at (i, j).
pub(crate) fn overflow(name: &str, i: usize, j: usize, value: f64) -> Overflow {
    Overflow(format!(
        "{name} row {i}, column {j} overflowed to {value}: the inputs are too large to multiply in float64 \
         (keep values well below 1e154)"
    ))
}

impl Trace {
    /// Every stage as a named, shaped, flat row-major array. Nested names use
    /// dots (`query.terms`). The web layer and the renderer look stages up here.
    pub fn fields(&self) -> Vec<Field<'_>> {
        match self {
            Trace::SelfAttention(t) => vec![
                Field::matrix("q", &t.q),
                Field::matrix("k", &t.k),
                Field::matrix("v", &t.v),
                Field::matrix("scores", &t.scores),
                Field::matrix("scaled", &t.scaled),
                Field::matrix("weights", &t.weights),
                Field::matrix("naive_weights", &t.naive_weights),
                Field::matrix("context", &t.context),
                Field::vector("query.scores", &t.query.scores),
                Field::vector("query.scaled", &t.query.scaled),
                Field::vector("query.exp", &t.query.exp),
                // A scalar, as a vector of length 1 (`Field` has no scalar shape).
                Field::vector("query.sum", std::slice::from_ref(&t.query.sum)),
                Field::vector("query.weights", &t.query.weights),
                Field::matrix("query.terms", &t.query.terms),
                Field::vector("query.context", &t.query.context),
            ],
            Trace::Cross(t) => vec![
                Field::vector("scores", &t.scores),
                Field::vector("scaled", &t.scaled),
                Field::vector("weights", &t.weights),
                Field::vector("naive_weights", &t.naive_weights),
                Field::matrix("applied", &t.applied),
                Field::vector("context", &t.context),
            ],
        }
    }

    pub fn field(&self, name: &str) -> Option<Field<'_>> {
        self.fields().into_iter().find(|f| f.name == name)
    }

    pub fn scale(&self) -> f64 {
        match self {
            Trace::SelfAttention(t) => t.scale,
            Trace::Cross(t) => t.scale,
        }
    }
}

/// A view of one stage: a vector (`shape.len() == 1`) or a matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Field<'a> {
    pub name: &'static str,
    pub shape: Vec<usize>,
    pub data: &'a [f64],
}

impl<'a> Field<'a> {
    fn matrix(name: &'static str, m: &'a Matrix) -> Self {
        Field { name, shape: vec![m.rows(), m.cols()], data: m.data() }
    }

    fn vector(name: &'static str, v: &'a [f64]) -> Self {
        Field { name, shape: vec![v.len()], data: v }
    }
}
