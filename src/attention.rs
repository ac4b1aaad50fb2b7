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

use crate::config::{Config, Mask, MaskedRow, Mechanism, Norm, Options, Pairs, Position, Projections, Scale, Scoring};
use crate::math::kernels::{exact_reciprocal, exp_shifted_into, min_max, multiply};
use crate::math::{dot, naive_equals_stable, softmax_naive, softmax_naive_given, softmax_stable_into, Matrix};
use crate::math::{exp, position};
use crate::weights::{Stack, SUMMARY_NAMES};
use std::borrow::Cow;

mod wanted;
pub use wanted::{Wanted, TRACE_FIELDS};

impl Scoring {
    /// scores[i][j] = score(q_i, k_j).
    fn scores(&self, q: &Matrix, k: &Matrix) -> Matrix {
        match self {
            Scoring::Dot => q.matmul_transposed(k),
            // (q·W_a)·kᵀ, left to right like NumPy's `q @ W_a @ k.T`.
            Scoring::General { w_a } => q.matmul(w_a).matmul_transposed(k),
            Scoring::Cosine => {
                let norm = |m: &Matrix| -> Vec<f64> { (0..m.rows()).map(|i| dot(m.row(i), m.row(i)).sqrt()).collect() };
                let (qn, kn) = (norm(q), norm(k));
                let mut s = q.matmul_transposed(k);
                for (i, &a) in qn.iter().enumerate() {
                    for (x, &b) in s.row_mut(i).iter_mut().zip(&kn) {
                        *x /= (a * b).max(COSINE_EPS);
                    }
                }
                s
            }
            Scoring::Additive { w_a, u_a, v_a } => {
                let (qw, ku) = (q.matmul(w_a), k.matmul(u_a));
                let mut s = Matrix::zeros(q.rows(), k.rows());
                for i in 0..q.rows() {
                    let row = qw.row(i);
                    for (j, x) in s.row_mut(i).iter_mut().enumerate() {
                        *x = row.iter().zip(ku.row(j)).zip(v_a).fold(0.0, |acc, ((a, b), v)| acc + v * (a + b).tanh());
                    }
                }
                s
            }
        }
    }

    /// The hidden features tanh(q·W_a + k_j·U_a) of one query against every key (additive only).
    fn features(&self, q: &[f64], k: &Matrix) -> Option<Matrix> {
        let Scoring::Additive { w_a, u_a, .. } = self else { return None };
        let qw = Matrix::row_vector(q).matmul(w_a);
        let ku = k.matmul(u_a);
        let mut out = Matrix::zeros(k.rows(), w_a.cols());
        for j in 0..k.rows() {
            for ((x, a), b) in out.row_mut(j).iter_mut().zip(qw.row(0)).zip(ku.row(j)) {
                *x = (a + b).tanh();
            }
        }
        Some(out)
    }
}

/// PyTorch's `cosine_similarity` eps: the norms' product is at least this.
pub const COSINE_EPS: f64 = 1e-8;

/// What the kernel produces for one set of queries.
#[derive(Clone, Debug, PartialEq)]
pub struct Stages {
    pub scores: Matrix,
    /// scores / scale / temperature; without a soft cap also ALiBi's bias added and −∞ where masked: the softmax's
    /// input.
    pub scaled: Matrix,
    /// With a soft cap (`softcap`): softcap·tanh(scaled / softcap), then ALiBi's bias, −∞ where masked: the softmax's
    /// input in `scaled`'s place.
    pub capped: Option<Matrix>,
    pub weights: Matrix,
    pub context: Matrix,
}

impl Stages {
    /// What the softmax read: `capped` with a soft cap, else `scaled`.
    pub fn logits(&self) -> &Matrix {
        self.capped.as_ref().unwrap_or(&self.scaled)
    }
}

/// How one attention step scores, scales and masks.
#[derive(Clone, Copy, Debug)]
pub struct Attend<'a> {
    pub scoring: &'a Scoring,
    pub scale: f64,
    pub temperature: f64,
    /// n × m, 1 where query i may attend key j; `None`: every key.
    pub allowed: Option<&'a Matrix>,
    pub masked_row: MaskedRow,
    /// capped = softcap·tanh(scaled / softcap) before the bias and the mask (Gemma 2); `None`: no cap.
    pub softcap: Option<f64>,
}

impl<'a> Attend<'a> {
    /// The step a config's options describe, with its resolved scale and the keys each query may attend.
    pub fn of(options: &'a Options, scale: f64, allowed: Option<&'a Matrix>) -> Attend<'a> {
        let Options { scoring, temperature, masked_row, layers, .. } = options;
        let softcap = layers.softcap;
        Attend { scoring, scale, temperature: *temperature, allowed, masked_row: *masked_row, softcap }
    }

    /// The documents' step: dot product, one divisor, no mask.
    pub fn dot(scale: f64) -> Attend<'static> {
        let masked_row = MaskedRow::Zero;
        Attend { scoring: &Scoring::Dot, scale, temperature: 1.0, allowed: None, masked_row, softcap: None }
    }
}

/// One attention step: scores = score(Q, K), scaled = scores / scale / temperature
/// (−∞ where masked), weights = row-wise stable softmax, context = weights V.
///
/// Division (not multiplication by 1/scale) keeps us bit-compatible with the
/// documents' `scores / K.shape[1] ** 0.5`.
pub fn attend(q: &Matrix, k: &Matrix, v: &Matrix, how: &Attend) -> Stages {
    attend_biased(q, k, v, how, None, true)
}

/// [`attend`] with ALiBi's bias (n × m) added to the scaled scores: scaled = scores / scale / temperature + bias.
/// With a soft cap, `scaled` keeps scores / scale / temperature, and the bias and the mask go to capped =
/// softcap·tanh(scaled / softcap) + bias, which the softmax reads. `keep_scores` false: the scores are scaled in
/// place and `scores` is left 0 × 0 (one n × m matrix fewer, for a caller that reads no scores).
pub fn attend_biased(
    q: &Matrix,
    k: &Matrix,
    v: &Matrix,
    how: &Attend,
    bias: Option<&Matrix>,
    keep_scores: bool,
) -> Stages {
    let mut scores = how.scoring.scores(q, k);
    let (scale, temperature) = (how.scale, how.temperature);
    // One pass either way; the two divisions stay two (s / scale / temperature).
    let (from, keep) = (&mut scores, keep_scores);
    let mut scaled = match exact_reciprocal(scale) {
        Some(r) if temperature == 1.0 => {
            // s / scale bit for bit, in the kernels' crate (vectorised).
            let mut scaled = if keep { from.clone() } else { std::mem::replace(from, Matrix::zeros(0, 0)) };
            (0..scaled.rows()).for_each(|i| multiply(scaled.row_mut(i), r));
            scaled
        }
        _ if temperature == 1.0 => scaled_scores(from, keep, |s| s / scale),
        _ => scaled_scores(from, keep, |s| s / scale / temperature),
    };
    let mut capped = how.softcap.map(|c| scaled.map(|s| c * (s / c).tanh()));
    let logits = capped.as_mut().unwrap_or(&mut scaled);
    if let Some(bias) = bias {
        for i in 0..logits.rows() {
            for (x, b) in logits.row_mut(i).iter_mut().zip(bias.row(i)) {
                *x += b;
            }
        }
    }
    let mut weights = Matrix::zeros(logits.rows(), logits.cols());
    for i in 0..logits.rows() {
        let Some(allowed) = how.allowed else {
            softmax_stable_into(logits.row(i), weights.row_mut(i));
            continue;
        };
        let open = allowed.row(i);
        for (x, &a) in logits.row_mut(i).iter_mut().zip(open) {
            if a == 0.0 {
                *x = f64::NEG_INFINITY;
            }
        }
        if open.iter().any(|&a| a != 0.0) {
            // exp(−∞ − max) is 0: masked keys drop out of the sum.
            softmax_stable_into(logits.row(i), weights.row_mut(i));
            continue;
        }
        let fill = match how.masked_row {
            MaskedRow::Zero => 0.0,
            MaskedRow::Uniform => 1.0 / open.len() as f64,
            MaskedRow::Nan => f64::NAN,
        };
        weights.row_mut(i).fill(fill);
    }
    let context = weights.matmul(v);
    Stages { scores, scaled, capped, weights, context }
}

/// `f` of every score: a new matrix (`keep`), else the scores' own, `scores` then left 0 × 0.
fn scaled_scores(scores: &mut Matrix, keep: bool, f: impl Fn(f64) -> f64) -> Matrix {
    if keep {
        return scores.map(f);
    }
    for i in 0..scores.rows() {
        for x in scores.row_mut(i) {
            *x = f(*x);
        }
    }
    std::mem::replace(scores, Matrix::zeros(0, 0))
}

/// Which keys each query may attend (`mask`, `valid_lens` and `window` with its `sinks` together), n × m of 0/1,
/// or `None` when every query attends every key.
pub fn allowed(options: &Options, n: usize, m: usize) -> Option<Matrix> {
    if options.mask == Mask::None && options.valid_lens.is_none() && options.window.is_none() {
        return None;
    }
    let mut open = mask_reasons(options, n, m);
    // In place: at n = 4096 another n × n matrix would be 128 MB.
    for i in 0..n {
        for x in open.row_mut(i) {
            *x = f64::from(u8::from(*x == 0.0));
        }
    }
    Some(open)
}

/// Why each key is masked for each query, the sum of the rules that forbid it: 0 attended, 1 by `mask`, 2 beyond
/// `valid_lens`, 4 outside the `window` (and not a sink); 3 = mask and valid_lens, and so on (n × m).
pub fn mask_reasons(options: &Options, n: usize, m: usize) -> Matrix {
    let mut out = Matrix::zeros(n, m);
    for i in 0..n {
        for (j, x) in out.row_mut(i).iter_mut().enumerate() {
            *x = f64::from(options.reason(i, j));
        }
    }
    out
}

/// The naive softmax of every row of `scaled`, given its stable `weights`
/// (literal only in rows where float64 overflow or underflow can occur).
pub fn naive_rows(scaled: &Matrix, weights: &Matrix) -> Matrix {
    let mut out = weights.clone();
    naive_over_stable(scaled, &mut out);
    out
}

/// [`naive_rows`] written over `out` (of the same shape), with no new n × n matrix.
pub fn naive_rows_into(scaled: &Matrix, weights: &Matrix, out: &mut Matrix) {
    out.copy_from(weights);
    naive_over_stable(scaled, out);
}

/// Replaces the rows of `out` (a copy of the stable weights) where the naive softmax can differ.
fn naive_over_stable(scaled: &Matrix, out: &mut Matrix) {
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
    /// With a soft cap, the softmax's input (see [`Stages::capped`]); 0 × 0 with several heads, like `scaled`.
    pub capped: Option<Matrix>,
    pub weights: Matrix,
    /// `exp(x) / sum(exp(x))` without the max shift, for the overflow lesson:
    /// NaN where float64 overflows; equal to `weights` (to rounding) elsewhere.
    pub naive_weights: Matrix,
    /// n × h·d_v: the heads' contexts side by side.
    pub context: Matrix,
    pub scale: f64,
    pub query: QueryBreakdown,
    /// With several heads, each head's stages; empty for one head, whose stages are
    /// the fields above (`head(0)` gives them either way). With several heads
    /// `scores`, `scaled`, `weights` and `naive_weights` are 0 × 0.
    pub heads: Vec<HeadTrace>,
    /// context · W_O, when the config has W_O.
    pub output: Option<Matrix>,
    /// The sinusoidal table added to the embeddings (n × d_model), with `position` "sinusoidal".
    pub pe: Option<Matrix>,
    /// Each head's normed q and k, RoPE-rotated q and k or ALiBi bias (one entry per head), empty when none is on.
    pub extras: Vec<HeadExtras>,
    /// Generation at `decode_step`.
    pub decode: Option<Decode>,
    /// FlashAttention's tiles of the followed head, with `tiles`.
    pub flash: Option<Flash>,
}

/// What a real layer's norms and a position encoding add to one head: the q and k rows after the bias and the
/// RMSNorm (`q_norm`, `k_norm`; n × d_k, before RoPE), RoPE's rotated q and k (n × d_k, of the normed rows when they
/// are; the scores are theirs), ALiBi's bias (n × n, added to the scaled scores, or to the capped ones).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeadExtras {
    pub q_normed: Option<Matrix>,
    pub k_normed: Option<Matrix>,
    pub q_rot: Option<Matrix>,
    pub k_rot: Option<Matrix>,
    pub bias: Option<Matrix>,
}

impl HeadExtras {
    /// The q and k rows the scores are made of: rotated, else normed, else the head's own (`q`, `k`).
    pub fn scored<'a>(extras: Option<&'a HeadExtras>, q: &'a Matrix, k: &'a Matrix) -> (&'a Matrix, &'a Matrix) {
        let Some(e) = extras else { return (q, k) };
        let q = e.q_rot.as_ref().or(e.q_normed.as_ref()).unwrap_or(q);
        let k = e.k_rot.as_ref().or(e.k_normed.as_ref()).unwrap_or(k);
        (q, k)
    }
}

/// The followed head generating token t: the query q_t, the KV cache of tokens 0 … t, and what row t of the full
/// attention holds (its weights equal row t of the causal weights, entries 0 … t; only a query with every key masked
/// and `masked_row` "uniform" differs: 1/(t + 1) on the cache's keys, where row t has 1/n on all n).
#[derive(Clone, Debug, PartialEq)]
pub struct Decode {
    /// t, as a number (a scalar field).
    pub step: f64,
    /// q_t (normed and rotated when q_norm and RoPE are on).
    pub q: Vec<f64>,
    /// (t + 1) × d_k (normed and rotated when k_norm and RoPE are on) and (t + 1) × d_v.
    pub k_cache: Matrix,
    pub v_cache: Matrix,
    pub scores: Vec<f64>,
    pub scaled: Vec<f64>,
    /// With a soft cap, the softmax's input (row t of the capped scores over the cache).
    pub capped: Option<Vec<f64>>,
    pub weights: Vec<f64>,
    pub context: Vec<f64>,
    /// Numbers the cache holds: K and V of tokens 0 … t for every kv head, (t + 1)·kv_heads·(d_k + d_v).
    pub cache_size: f64,
    /// Multiply-adds recomputing them at this step without a cache: (t + 1)·d_model·kv_heads·(d_k + d_v).
    pub recompute_cost: f64,
}

/// FlashAttention-2's tiles of the followed head: `steps` in order, query blocks outer, key blocks inner.
#[derive(Clone, Debug, PartialEq)]
pub struct Flash {
    /// [rows, cols] of a tile.
    pub tiles: [f64; 2],
    pub steps: Vec<FlashStep>,
}

/// The state of one query block after one tile.
#[derive(Clone, Debug, PartialEq)]
pub struct FlashStep {
    pub q_block: f64,
    pub k_block: f64,
    /// The running row maximum of the scaled scores (−∞ while every key so far is masked).
    pub m: Vec<f64>,
    /// The running Σ exp(scaled − m).
    pub l: Vec<f64>,
    /// The unnormalised output Σ exp(scaled − m)·v (rows × d_v).
    pub o: Matrix,
}

/// One head's slices of Q, K, V and its stages.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadTrace {
    pub q: Matrix,
    pub k: Matrix,
    pub v: Matrix,
    pub stages: Stages,
}

/// Borrowed stages of one head, wherever the trace keeps them.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    pub q: &'a Matrix,
    pub k: &'a Matrix,
    pub v: &'a Matrix,
    pub scores: &'a Matrix,
    pub scaled: &'a Matrix,
    pub capped: Option<&'a Matrix>,
    pub weights: &'a Matrix,
    pub context: &'a Matrix,
}

impl Head<'_> {
    /// What the softmax read: `capped` with a soft cap, else `scaled`.
    pub fn logits(&self) -> &Matrix {
        self.capped.unwrap_or(self.scaled)
    }
}

impl SelfTrace {
    pub fn head_count(&self) -> usize {
        self.heads.len().max(1)
    }

    /// The q and k rows head `i`'s scores are made of (its normed or rotated rows when there are).
    pub fn scored(&self, i: usize) -> (&Matrix, &Matrix) {
        let h = self.head(i);
        HeadExtras::scored(self.extras.get(i), h.q, h.k)
    }

    /// Head `i` (< `head_count()`).
    pub fn head(&self, i: usize) -> Head<'_> {
        match self.heads.get(i) {
            Some(h) => Head {
                q: &h.q,
                k: &h.k,
                v: &h.v,
                scores: &h.stages.scores,
                scaled: &h.stages.scaled,
                capped: h.stages.capped.as_ref(),
                weights: &h.stages.weights,
                context: &h.stages.context,
            },
            None => Head {
                q: &self.q,
                k: &self.k,
                v: &self.v,
                scores: &self.scores,
                scaled: &self.scaled,
                capped: self.capped.as_ref(),
                weights: &self.weights,
                context: &self.context,
            },
        }
    }
}

/// The walk-through of document 000 for one query i: its scores against every
/// key (q_i·k_j), scaled (÷ scale), the stable softmax's exponentials and their
/// sum, the weights, each weighted value w_j·v_j, and their sum.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryBreakdown {
    pub index: usize,
    pub scores: Vec<f64>,
    pub scaled: Vec<f64>,
    /// With a soft cap, each key's capped score: what the softmax read.
    pub capped: Option<Vec<f64>>,
    /// exp(logit_j − max_j logit) of the softmax's input (scaled, or capped), as the stable softmax computes them
    /// (the same kernel).
    pub exp: Vec<f64>,
    /// Σ_j exp_j, summed in the stable softmax's order; the weights are exp_j / sum
    /// (to rounding: an incrementally updated trace divides by its own running sum).
    pub sum: f64,
    pub weights: Vec<f64>,
    /// Row j is w_j · v_j.
    pub terms: Matrix,
    /// Σ_j terms[j], summed in j order like the document's `+` chain.
    pub context: Vec<f64>,
    /// The head these come from.
    pub head: usize,
    /// Why each key is masked for this query: 0 attended, 1 by `mask`, 2 beyond `valid_lens`, 3 both.
    pub masked: Vec<f64>,
    /// Additive scoring's hidden features tanh(q·W_a + k_j·U_a), m × d_a.
    pub features: Option<Matrix>,
}

impl QueryBreakdown {
    /// The breakdown of query `index` of head `head` against no keys: what a trace holds in its place when its
    /// `query` field is not wanted.
    pub fn empty(index: usize, head: usize) -> QueryBreakdown {
        QueryBreakdown {
            index,
            scores: Vec::new(),
            scaled: Vec::new(),
            capped: None,
            exp: Vec::new(),
            sum: 0.0,
            weights: Vec::new(),
            terms: Matrix::zeros(0, 0),
            context: Vec::new(),
            head,
            masked: Vec::new(),
            features: None,
        }
    }
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
    /// Why each encoder state is masked: 0 attended, 1 by `mask`, 2 beyond `valid_lens`, 3 both.
    pub masked: Vec<f64>,
    /// Additive scoring's hidden features tanh(h·W_a + a_j·U_a), m × d_a.
    pub features: Option<Matrix>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Trace {
    SelfAttention(SelfTrace),
    Cross(CrossTrace),
    Weights(WeightsTrace),
}

/// A model's attention as given (`mechanism: "weights"`) and each head's summary.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsTrace {
    pub attention: Stack,
    /// The queries' and the keys' names.
    pub tokens: Vec<String>,
    pub key_tokens: Vec<String>,
    /// The selected head (`layer`, `head`), n × m: what the full heatmap shows.
    pub selected: Matrix,
    /// Per summary (in `SUMMARY_NAMES` order) layers × heads values, row-major.
    pub summaries: [Vec<f64>; 5],
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
    compute_wanted(config, &Wanted::ALL)
}

/// [`compute`], where what only `wanted`'s fields need is skipped: a field computed only when wanted
/// ([`TRACE_FIELDS`]: `naive_weights`, `query`, `decode`, `flash`) and not wanted is left empty (0 × 0, or a
/// breakdown of no keys) or absent, and so are the scores (scaled in place) unless `scores`, `heads` or `query` is
/// wanted: a trace of it is for reading the wanted fields only.
pub fn compute_wanted(config: &Config, wanted: &Wanted) -> Result<Trace, Overflow> {
    let o = &config.options;
    match &config.mechanism {
        Mechanism::Weights { attention, key_tokens, layer, head } => {
            let mut summaries: [Vec<f64>; 5] = Default::default();
            for s in attention.summaries() {
                for (out, x) in summaries.iter_mut().zip(s.values()) {
                    out.push(x);
                }
            }
            Ok(Trace::Weights(WeightsTrace {
                attention: attention.clone(),
                tokens: config.tokens.clone(),
                key_tokens: key_tokens.clone(),
                selected: attention.matrix(*layer, *head),
                summaries,
            }))
        }
        Mechanism::SelfAttention { embeddings, projections } => {
            self_attention(config, embeddings, projections.as_ref(), wanted)
        }
        Mechanism::Cross { decoder_state, annotations } => {
            let h = Matrix::row_vector(decoder_state);
            let scale = resolve_scale(config.scale, decoder_state.len());
            let m = annotations.rows();
            let allowed = allowed(o, 1, m);
            let how = Attend::of(o, scale, allowed.as_ref());
            let stages = attend(&h, annotations, annotations, &how);
            check_stages(&stages, allowed.as_ref())?;
            let weights = stages.weights.row(0).to_vec();
            let mut applied = annotations.transpose();
            for r in 0..applied.rows() {
                for (x, w) in applied.row_mut(r).iter_mut().zip(&weights) {
                    *x *= w;
                }
            }
            // np.sum(applied, axis=1): each context entry sums one row of `applied`.
            let context: Vec<f64> = (0..applied.rows()).map(|r| applied.row(r).iter().sum()).collect();
            if o.masked_row != MaskedRow::Nan || weights.iter().all(|w| !w.is_nan()) {
                check_finite("context", &Matrix::row_vector(&context))?;
            }
            let naive_weights = match wanted.wants("naive_weights") {
                true => softmax_naive_given(stages.scaled.row(0), stages.weights.row(0)),
                false => Vec::new(),
            };
            Ok(Trace::Cross(CrossTrace {
                scores: stages.scores.row(0).to_vec(),
                scaled: stages.scaled.row(0).to_vec(),
                weights,
                naive_weights,
                applied,
                context,
                scale,
                masked: mask_reasons_row(o, 0, m),
                features: o.scoring.features(decoder_state, annotations),
            }))
        }
    }
}

/// Self-attention: Q, K, V from the embeddings (plus the sinusoidal table, plus the projections' biases), one `attend`
/// per head on its slices (its kv head's K and V; the q and k rows normed, then rotated by RoPE; ALiBi's bias), then
/// W_O (and b_o); the decode step and the tiles. What `wanted` leaves out is skipped ([`compute_wanted`]).
fn self_attention(
    config: &Config,
    embeddings: &Matrix,
    projections: Option<&Projections>,
    wanted: &Wanted,
) -> Result<Trace, Overflow> {
    let o = &config.options;
    let n = embeddings.rows();
    let pe = match &o.position {
        Some(Position::Sinusoidal { base, offset }) => Some(position::sinusoidal(n, embeddings.cols(), *base, *offset)),
        _ => None,
    };
    let x = match &pe {
        Some(pe) => {
            let mut x = embeddings.clone();
            for i in 0..n {
                for (a, b) in x.row_mut(i).iter_mut().zip(pe.row(i)) {
                    *a += b;
                }
            }
            Cow::Owned(x)
        }
        None => Cow::Borrowed(embeddings),
    };
    let (q, k, v) = project_inputs(x, projections, o)?;
    let kv_heads = o.kv_heads();
    let (dk, dv) = (q.cols() / o.heads, v.cols() / kv_heads);
    let group = o.heads / kv_heads;
    let scale = resolve_scale(config.scale, dk);
    let allowed = allowed(o, n, n);
    let how = Attend::of(o, scale, allowed.as_ref());
    let slopes = o.position.as_ref().map(|p| p.slopes(o.heads)).unwrap_or_default();
    let theta = o.position.as_ref().map(|p| p.rope_frequencies(dk)).unwrap_or_default();
    // The scores themselves only for a field that shows them (the breakdown reads them too).
    let keep_scores = ["scores", "heads", "query"].iter().any(|name| wanted.wants(name));
    // Each head's own q, k, v (sliced, with several heads; one head's are q, k, v themselves) and stages.
    let mut runs: Vec<(Option<[Matrix; 3]>, Stages)> = Vec::with_capacity(o.heads);
    let mut extras = Vec::with_capacity(o.heads);
    for i in 0..o.heads {
        // Query head i reads kv head ⌊i / (heads / kv_heads)⌋ (GQA; PyTorch's enable_gqa repeats K and V so).
        let g = i / group;
        let sliced = (o.heads > 1).then(|| [q.columns(i * dk, dk), k.columns(g * dk, dk), v.columns(g * dv, dv)]);
        let [qi, ki, vi] = sliced.as_ref().map_or([&q, &k, &v], |[a, b, c]| [a, b, c]);
        let named = |e: Overflow| if o.heads == 1 { e } else { Overflow(format!("head {i}: {e}")) };
        let e = head_extras(o, qi, ki, &theta, slopes.get(i).copied()).map_err(named)?;
        let (qs, ks) = HeadExtras::scored(Some(&e), qi, ki);
        let stages = attend_biased(qs, ks, vi, &how, e.bias.as_ref(), keep_scores);
        check_stages(&stages, allowed.as_ref()).map_err(named)?;
        extras.push(e);
        runs.push((sliced, stages));
    }
    let extras = if extras.iter().any(|e| *e != HeadExtras::default()) { extras } else { vec![] };
    let (sliced, st) = &runs[o.head];
    let [hq, hk, hv] = sliced.as_ref().map_or([&q, &k, &v], |[a, b, c]| [a, b, c]);
    let (fq, fk) = HeadExtras::scored(extras.get(o.head), hq, hk);
    let query = match wanted.wants("query") {
        true => {
            let mut query = breakdown(config.query, st, hv);
            query.head = o.head;
            query.masked = mask_reasons_row(o, config.query, n);
            query.features = o.scoring.features(fq.row(config.query), fk);
            query
        }
        false => QueryBreakdown::empty(config.query, o.head),
    };
    let decode = o.decode_step.filter(|_| wanted.wants("decode")).map(|t| {
        let bias = extras.get(o.head).and_then(|e| e.bias.as_ref());
        decode_step(t, fq, fk, hv, &how, allowed.as_ref(), bias, config, projections)
    });
    let flash = o.tiles.filter(|_| wanted.wants("flash")).map(|tiles| flash(tiles, st.logits(), hv));
    let empty = || Matrix::zeros(0, 0);
    let (scores, scaled, capped, weights, naive_weights, context, heads) = if o.heads == 1 {
        let (_, stages) = runs.pop().expect("one head");
        let naive_weights = match wanted.wants("naive_weights") {
            true => naive_rows(stages.logits(), &stages.weights),
            false => empty(),
        };
        let Stages { scores, scaled, capped, weights, context } = stages;
        (scores, scaled, capped, weights, naive_weights, context, Vec::new())
    } else {
        let context = Matrix::hconcat(&runs.iter().map(|(_, s)| &s.context).collect::<Vec<_>>());
        let heads = runs
            .into_iter()
            .map(|(sliced, stages)| {
                let [q, k, v] = sliced.expect("several heads' slices");
                HeadTrace { q, k, v, stages }
            })
            .collect();
        (empty(), empty(), None, empty(), empty(), context, heads)
    };
    let output = project(&context, o)?;
    Ok(Trace::SelfAttention(SelfTrace {
        q,
        k,
        v,
        scores,
        scaled,
        capped,
        weights,
        naive_weights,
        context,
        scale,
        query,
        heads,
        output,
        pe,
        extras,
        decode,
        flash,
    }))
}

/// Q, K and V of the inputs `x`: X·W_Q + b_q, X·W_K + b_k, X·W_V + b_v (each bias when given), or X itself without
/// projections; refused when one overflows.
fn project_inputs(
    x: Cow<Matrix>,
    projections: Option<&Projections>,
    o: &Options,
) -> Result<(Matrix, Matrix, Matrix), Overflow> {
    let l = &o.layers;
    let (q, k, v) = match projections {
        Some(p) => {
            let biased = |w: &Matrix, b: &Option<Vec<f64>>| {
                let mut m = x.matmul(w);
                if let Some(b) = b {
                    add_to_rows(&mut m, b);
                }
                m
            };
            (biased(&p.w_q, &l.b_q), biased(&p.w_k, &l.b_k), biased(&p.w_v, &l.b_v))
        }
        None => (x.clone().into_owned(), x.clone().into_owned(), x.into_owned()),
    };
    for (name, m) in [("Q", &q), ("K", &k), ("V", &v)] {
        check_finite(name, m)?;
    }
    Ok((q, k, v))
}

/// `m` with `b` added to each of its rows (a bias: one number per column).
fn add_to_rows(m: &mut Matrix, b: &[f64]) {
    for i in 0..m.rows() {
        for (x, y) in m.row_mut(i).iter_mut().zip(b) {
            *x += y;
        }
    }
}

/// One head's extras from its q and k rows: normed by `q_norm` and `k_norm`, then rotated by RoPE (pair i by p·θ_i,
/// `theta` its frequencies), and ALiBi's bias of slope `slope`.
fn head_extras(o: &Options, q: &Matrix, k: &Matrix, theta: &[f64], slope: Option<f64>) -> Result<HeadExtras, Overflow> {
    let normed = |m: &Matrix, norm: &Option<Norm>, name: &str| -> Result<Option<Matrix>, Overflow> {
        let Some(norm) = norm else { return Ok(None) };
        let mut out = m.clone();
        for i in 0..out.rows() {
            if !norm.apply(out.row_mut(i)) {
                return Err(overflow(name, i, 0, f64::INFINITY));
            }
        }
        check_finite(name, &out)?;
        Ok(Some(out))
    };
    let q_normed = normed(q, &o.layers.q_norm, "q_normed")?;
    let k_normed = normed(k, &o.layers.k_norm, "k_normed")?;
    let (q_rot, k_rot) = match &o.position {
        Some(Position::Rope { pairs, offset, attention_factor, .. }) => {
            let interleaved = *pairs == Pairs::Interleaved;
            let rot = |x: &Matrix| position::rope_partial(x, theta, interleaved, *offset, *attention_factor);
            (Some(rot(q_normed.as_ref().unwrap_or(q))), Some(rot(k_normed.as_ref().unwrap_or(k))))
        }
        _ => (None, None),
    };
    let bias = slope.map(|m| position::alibi(q.rows(), k.rows(), m));
    Ok(HeadExtras { q_normed, k_normed, q_rot, k_rot, bias })
}

/// Generation at step t: the query of token t against the KV cache of tokens 0 … t (the followed head's, rotated
/// when RoPE is on), scored, masked and biased as row t of the full attention is.
#[allow(clippy::too_many_arguments)]
fn decode_step(
    t: usize,
    q: &Matrix,
    k: &Matrix,
    v: &Matrix,
    how: &Attend,
    allowed: Option<&Matrix>,
    bias: Option<&Matrix>,
    config: &Config,
    projections: Option<&Projections>,
) -> Decode {
    let keys = t + 1;
    let rows = |m: &Matrix| Matrix::from_vec(keys, m.cols(), m.data()[..keys * m.cols()].to_vec()).expect("rows 0 … t");
    let (k_cache, v_cache) = (rows(k), rows(v));
    let row_of = |m: &Matrix| Matrix::row_vector(&m.row(t)[..keys]);
    let allowed_row = allowed.map(row_of);
    let bias_row = bias.map(row_of);
    let how = Attend { allowed: allowed_row.as_ref(), ..*how };
    let stages = attend_biased(&Matrix::row_vector(q.row(t)), &k_cache, &v_cache, &how, bias_row.as_ref(), true);
    let o = &config.options;
    let kv = o.kv_heads() as f64;
    let (d_k, d_v) = (k.cols() as f64, v.cols() as f64);
    let (cache_size, recompute_cost) = match projections {
        // K and V of every kv head for tokens 0 … t; without a cache, step t projects them all again.
        Some(p) => (keys as f64 * kv * (d_k + d_v), keys as f64 * p.w_k.rows() as f64 * kv * (d_k + d_v)),
        // K = V = X: nothing to compute, the cache is the inputs themselves (K and V: two copies).
        None => (keys as f64 * (d_k + d_v), 0.0),
    };
    Decode {
        step: t as f64,
        q: q.row(t).to_vec(),
        k_cache,
        v_cache,
        scores: stages.scores.row(0).to_vec(),
        scaled: stages.scaled.row(0).to_vec(),
        capped: stages.capped.as_ref().map(|c| c.row(0).to_vec()),
        weights: stages.weights.row(0).to_vec(),
        context: stages.context.row(0).to_vec(),
        cache_size,
        recompute_cost,
    }
}

/// FlashAttention-2's forward pass (Dao 2023, Algorithm 1) over a head's scaled scores (masked entries −∞, ALiBi's
/// bias added) and its values, in blocks of `rows` queries × `cols` keys: query blocks outer, key blocks inner; after
/// each tile the running row maximum m, the running sum l = Σ exp(scaled − m) and the unnormalised output
/// o = Σ exp(scaled − m)·v, both rescaled by exp(m_old − m_new). o / l after a query block's last tile is its
/// context (for every query with a key to attend).
pub fn flash(tiles: [u64; 2], scaled: &Matrix, v: &Matrix) -> Flash {
    let (n, m, d_v) = (scaled.rows(), scaled.cols(), v.cols());
    let [rows, cols] = tile_size(tiles.map(|x| x as f64), n, m);
    let mut steps = Vec::with_capacity(n.div_ceil(rows) * m.div_ceil(cols));
    for qb in 0..n.div_ceil(rows) {
        let (r0, r1) = (qb * rows, ((qb + 1) * rows).min(n));
        let mut run_max = vec![f64::NEG_INFINITY; r1 - r0];
        let mut run_sum = vec![0.0; r1 - r0];
        let mut out = Matrix::zeros(r1 - r0, d_v);
        for kb in 0..m.div_ceil(cols) {
            let (c0, c1) = (kb * cols, ((kb + 1) * cols).min(m));
            for (r, i) in (r0..r1).enumerate() {
                let tile = &scaled.row(i)[c0..c1];
                let new_max = tile.iter().fold(run_max[r], |a, &b| a.max(b));
                if new_max == f64::NEG_INFINITY {
                    continue; // every key so far masked: l and o stay 0, m −∞
                }
                let alpha = if run_max[r] == f64::NEG_INFINITY { 0.0 } else { exp(run_max[r] - new_max) };
                let mut sum = 0.0;
                let row = out.row_mut(r);
                for x in row.iter_mut() {
                    *x *= alpha;
                }
                for (j, &s) in (c0..c1).zip(tile) {
                    let p = exp(s - new_max);
                    sum += p;
                    for (x, &vj) in row.iter_mut().zip(v.row(j)) {
                        *x += p * vj;
                    }
                }
                run_sum[r] = alpha * run_sum[r] + sum;
                run_max[r] = new_max;
            }
            steps.push(FlashStep {
                q_block: qb as f64,
                k_block: kb as f64,
                m: run_max.clone(),
                l: run_sum.clone(),
                o: out.clone(),
            });
        }
    }
    Flash { tiles: tiles.map(|x| x as f64), steps }
}

/// Step `s` of FlashAttention's tiles as the flash panel shows it ([`Flash::tile`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FlashTile {
    /// The query rows r0..r1 and the key columns c0..c1 the tile covers (the last blocks may be smaller).
    pub rows: [usize; 2],
    pub cols: [usize; 2],
    /// Whether it is its query block's last tile: o / l is then the block's context.
    pub last: bool,
    /// o / l row by row (rows × d_v); NaN in a row whose l is 0 (every key so far masked).
    pub normalized: Matrix,
    /// Numbers a query block keeps while it runs: a tile of scores and the block's accumulator o, rows × cols +
    /// rows × d_v (the tile's size, at most n × m).
    pub memory: f64,
    /// What the standard computation materialises instead: the n × m scores.
    pub full: f64,
}

/// A tile's rows and columns over n queries and m keys: a tile wider than the matrix is the whole of it (the trace
/// reports the tiles as given).
fn tile_size(tiles: [f64; 2], n: usize, m: usize) -> [usize; 2] {
    [tiles[0].min(n.max(1) as f64) as usize, tiles[1].min(m.max(1) as f64) as usize]
}

/// The numbers of a step in [`Flash::table`].
pub const FLASH_STEP_NUMBERS: usize = 6;

impl Flash {
    /// Every step as [`FLASH_STEP_NUMBERS`] numbers, one step after another, from which a shell builds the trace's
    /// `flash.steps[s]` = {q_block, k_block, m, l, o}: q_block, k_block, the block's rows (m's and l's length, o's
    /// rows; o has [`Flash::o_cols`] columns), then where m, l and o start as `place` puts them (their offset in the
    /// module's memory, or in a copy of their values). One list of numbers instead of five named fields a step.
    pub fn table(&self, mut place: impl FnMut(&[f64]) -> usize) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.steps.len() * FLASH_STEP_NUMBERS);
        for step in &self.steps {
            let (m, l, o) = (place(&step.m), place(&step.l), place(step.o.data()));
            out.extend([step.q_block, step.k_block, step.m.len() as f64, m as f64, l as f64, o as f64]);
        }
        out
    }

    /// The columns of each step's o (the head's d_v).
    pub fn o_cols(&self) -> usize {
        self.steps.first().map_or(0, |s| s.o.cols())
    }

    /// Step `s` over `n` queries and `m` keys, or `None` past the last step.
    pub fn tile(&self, s: usize, n: usize, m: usize) -> Option<FlashTile> {
        let step = self.steps.get(s)?;
        let [rows, cols] = tile_size(self.tiles, n, m);
        let (qb, kb) = (step.q_block as usize, step.k_block as usize);
        let d_v = step.o.cols();
        let mut normalized = step.o.clone();
        for (r, &l) in step.l.iter().enumerate() {
            for x in normalized.row_mut(r) {
                *x = if l == 0.0 { f64::NAN } else { *x / l };
            }
        }
        Some(FlashTile {
            rows: [qb * rows, ((qb + 1) * rows).min(n)],
            cols: [kb * cols, ((kb + 1) * cols).min(m)],
            last: (kb + 1) * cols >= m,
            normalized,
            memory: (rows * cols + rows * d_v) as f64,
            full: (n * m) as f64,
        })
    }
}

/// Row i of [`mask_reasons`].
pub(crate) fn mask_reasons_row(options: &Options, i: usize, m: usize) -> Vec<f64> {
    (0..m).map(|j| f64::from(options.reason(i, j))).collect()
}

/// W_O applied to the heads' contexts (and b_o added), when there is a W_O.
pub(crate) fn project(context: &Matrix, options: &Options) -> Result<Option<Matrix>, Overflow> {
    let Some(w_o) = &options.w_o else { return Ok(None) };
    let mut out = context.matmul(w_o);
    if let Some(b) = &options.layers.b_o {
        add_to_rows(&mut out, b);
    }
    // A row left NaN on purpose (masked_row "nan") stays NaN; anything else must be finite.
    for i in 0..out.rows() {
        if context.row(i).iter().any(|x| x.is_nan()) {
            continue;
        }
        if let Some(j) = out.row(i).iter().position(|x| !x.is_finite()) {
            return Err(overflow("output", i, j, out.get(i, j)));
        }
    }
    Ok(Some(out))
}

/// Overflow checks that let masking's own −∞ and NaN through: masked entries of
/// `scaled`, and the rows a fully masked query leaves NaN.
pub(crate) fn check_stages(stages: &Stages, allowed: Option<&Matrix>) -> Result<(), Overflow> {
    // Capped, the scaled scores are finite wherever they do not overflow (the cap hides an overflow: tanh(∞) = 1).
    if stages.capped.is_some() {
        check_finite("scores", &stages.scaled)?;
    }
    let logits = stages.logits();
    let Some(allowed) = allowed else {
        check_finite("scores", logits)?;
        return check_finite("context", &stages.context);
    };
    for i in 0..logits.rows() {
        for (j, (&x, &a)) in logits.row(i).iter().zip(allowed.row(i)).enumerate() {
            if a != 0.0 && !x.is_finite() {
                return Err(overflow("scores", i, j, x));
            }
        }
        if stages.weights.row(i).iter().any(|w| w.is_nan()) {
            continue;
        }
        if let Some(j) = stages.context.row(i).iter().position(|x| !x.is_finite()) {
            return Err(overflow("context", i, j, stages.context.get(i, j)));
        }
    }
    Ok(())
}

/// The divisor of the scores: √d_k, 1, or the user's number.
pub fn resolve_scale(scale: Scale, d_k: usize) -> f64 {
    match scale {
        Scale::SqrtDk => (d_k as f64).sqrt(),
        Scale::None => 1.0,
        Scale::Value(s) => s,
    }
}

/// The single-query walk-through for query `index`, from one head's stages and values.
pub(crate) fn breakdown(index: usize, stages: &Stages, v: &Matrix) -> QueryBreakdown {
    breakdown_of(index, [&stages.scores, &stages.scaled], stages.capped.as_ref(), &stages.weights, v)
}

/// [`breakdown`] of stages held apart: `scores` and `scaled`, `capped` with a soft cap, `weights`.
pub(crate) fn breakdown_of(
    index: usize,
    [scores, scaled]: [&Matrix; 2],
    capped: Option<&Matrix>,
    weights: &Matrix,
    v: &Matrix,
) -> QueryBreakdown {
    let w = weights.row(index).to_vec();
    let row = capped.unwrap_or(scaled).row(index);
    let (_, max) = min_max(row);
    let mut exp = vec![0.0; row.len()];
    // A fully masked row has no maximum: its exponentials are all exp(−∞) = 0.
    let sum = if max == f64::NEG_INFINITY { 0.0 } else { exp_shifted_into(row, max, &mut exp) };
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
        scaled: scaled.row(index).to_vec(),
        capped: capped.map(|c| c.row(index).to_vec()),
        exp,
        sum,
        weights: w,
        terms,
        context,
        head: 0,
        masked: vec![0.0; row.len()],
        features: None,
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
    /// FlashAttention's steps are not among them: [`Trace::flash`] gives them as one table ([`Flash::table`]), which
    /// the shells nest under `flash.steps` (as five named fields a step, 28,900 tiles of 1 × 1 would be 144,500
    /// fields for every layout and snapshot to write and read: most of a second).
    pub fn fields(&self) -> Vec<Field<'_>> {
        match self {
            Trace::SelfAttention(t) => {
                let mut out = vec![Field::matrix("q", &t.q), Field::matrix("k", &t.k), Field::matrix("v", &t.v)];
                if t.heads.is_empty() {
                    out.extend([Field::matrix("scores", &t.scores), Field::matrix("scaled", &t.scaled)]);
                    out.extend(t.capped.as_ref().map(|c| Field::matrix("capped", c)));
                    out.extend([
                        Field::matrix("weights", &t.weights),
                        Field::matrix("naive_weights", &t.naive_weights),
                    ]);
                }
                out.push(Field::matrix("context", &t.context));
                if let Some(o) = &t.output {
                    out.push(Field::matrix("output", o));
                }
                if let Some(pe) = &t.pe {
                    out.push(Field::matrix("pe", pe));
                }
                for i in 0..t.head_count() {
                    let h = t.head(i);
                    for (name, m) in [
                        ("q", Some(h.q)),
                        ("k", Some(h.k)),
                        ("v", Some(h.v)),
                        ("scores", Some(h.scores)),
                        ("scaled", Some(h.scaled)),
                        ("capped", h.capped),
                        ("weights", Some(h.weights)),
                        ("context", Some(h.context)),
                    ] {
                        let Some(m) = m else { continue };
                        out.push(Field { name: Cow::Owned(format!("heads.{i}.{name}")), ..Field::matrix("", m) });
                    }
                    let Some(e) = t.extras.get(i) else { continue };
                    let extra = [
                        ("q_normed", &e.q_normed),
                        ("k_normed", &e.k_normed),
                        ("q_rot", &e.q_rot),
                        ("k_rot", &e.k_rot),
                        ("bias", &e.bias),
                    ];
                    for (name, m) in extra {
                        if let Some(m) = m {
                            out.push(Field { name: Cow::Owned(format!("heads.{i}.{name}")), ..Field::matrix("", m) });
                        }
                    }
                }
                out.extend([
                    Field::vector("query.scores", &t.query.scores),
                    Field::vector("query.scaled", &t.query.scaled),
                ]);
                out.extend(t.query.capped.as_ref().map(|c| Field::vector("query.capped", c)));
                out.extend([
                    Field::vector("query.exp", &t.query.exp),
                    // A scalar, as a vector of length 1 (`Field` has no scalar shape).
                    Field::vector("query.sum", std::slice::from_ref(&t.query.sum)),
                    Field::vector("query.weights", &t.query.weights),
                    Field::matrix("query.terms", &t.query.terms),
                    Field::vector("query.context", &t.query.context),
                    Field::vector("query.masked", &t.query.masked),
                ]);
                if let Some(f) = &t.query.features {
                    out.push(Field::matrix("query.features", f));
                }
                if let Some(d) = &t.decode {
                    out.extend([
                        Field::scalar("decode.step", &d.step),
                        Field::vector("decode.q", &d.q),
                        Field::matrix("decode.k_cache", &d.k_cache),
                        Field::matrix("decode.v_cache", &d.v_cache),
                        Field::vector("decode.scores", &d.scores),
                        Field::vector("decode.scaled", &d.scaled),
                    ]);
                    out.extend(d.capped.as_ref().map(|c| Field::vector("decode.capped", c)));
                    out.extend([
                        Field::vector("decode.weights", &d.weights),
                        Field::vector("decode.context", &d.context),
                        Field::scalar("decode.cache_size", &d.cache_size),
                        Field::scalar("decode.recompute_cost", &d.recompute_cost),
                    ]);
                }
                if let Some(f) = &t.flash {
                    out.push(Field::vector("flash.tiles", &f.tiles));
                }
                out
            }
            Trace::Cross(t) => {
                let mut out = vec![
                    Field::vector("scores", &t.scores),
                    Field::vector("scaled", &t.scaled),
                    Field::vector("weights", &t.weights),
                    Field::vector("naive_weights", &t.naive_weights),
                    Field::matrix("applied", &t.applied),
                    Field::vector("context", &t.context),
                    Field::vector("query.masked", &t.masked),
                ];
                if let Some(f) = &t.features {
                    out.push(Field::matrix("query.features", f));
                }
                out
            }
            Trace::Weights(t) => {
                let [layers, heads, _, _] = t.attention.shape();
                let mut out = vec![Field {
                    name: Cow::Borrowed("attention"),
                    shape: t.attention.shape().to_vec(),
                    data: t.attention.data(),
                }];
                for (name, values) in SUMMARY_NAMES.iter().zip(&t.summaries) {
                    out.push(Field {
                        name: Cow::Owned(format!("summary.{name}")),
                        shape: vec![layers, heads],
                        data: values,
                    });
                }
                out
            }
        }
    }

    /// The stage named `name`: one of [`Trace::fields`], or a FlashAttention step's part,
    /// `flash.steps.{s}.{q_block | k_block | m | l | o}`.
    pub fn field(&self, name: &str) -> Option<Field<'_>> {
        if let Some(rest) = name.strip_prefix("flash.steps.") {
            let (s, part) = rest.split_once('.')?;
            let step = self.flash()?.steps.get(s.parse::<usize>().ok()?)?;
            let field = match part {
                "q_block" => Field::scalar("", &step.q_block),
                "k_block" => Field::scalar("", &step.k_block),
                "m" => Field::vector("", &step.m),
                "l" => Field::vector("", &step.l),
                "o" => Field::matrix("", &step.o),
                _ => return None,
            };
            return Some(Field { name: Cow::Owned(name.to_string()), ..field });
        }
        self.fields().into_iter().find(|f| f.name == name)
    }

    /// FlashAttention's tiles of the followed head (`flash`), with `tiles`.
    pub fn flash(&self) -> Option<&Flash> {
        match self {
            Trace::SelfAttention(t) => t.flash.as_ref(),
            _ => None,
        }
    }

    pub fn scale(&self) -> f64 {
        match self {
            Trace::SelfAttention(t) => t.scale,
            Trace::Cross(t) => t.scale,
            Trace::Weights(_) => 1.0,
        }
    }
}

/// A view of one stage: a number (`shape` empty: `decode.step`, `decode.cache_size`…), a vector
/// (`shape.len() == 1`), a matrix, or a model's whole stack (`attention`, 4 axes).
#[derive(Clone, Debug, PartialEq)]
pub struct Field<'a> {
    pub name: Cow<'static, str>,
    pub shape: Vec<usize>,
    pub data: &'a [f64],
}

impl<'a> Field<'a> {
    fn matrix(name: &'static str, m: &'a Matrix) -> Self {
        Field { name: Cow::Borrowed(name), shape: vec![m.rows(), m.cols()], data: m.data() }
    }

    fn vector(name: &'static str, v: &'a [f64]) -> Self {
        Field { name: Cow::Borrowed(name), shape: vec![v.len()], data: v }
    }

    /// A number: no axes (`shape` empty), one value.
    fn scalar(name: &'static str, x: &'a f64) -> Self {
        Field { name: Cow::Borrowed(name), shape: vec![], data: std::slice::from_ref(x) }
    }
}
