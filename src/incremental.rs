//! Incremental recompute: when one embedding value changes, update only what
//! depends on it instead of redoing the whole O(n²·d) computation.
//!
//! Changing `embeddings[r][c]` changes row r of Q, K and V, so row r and column
//! r of the scores, hence every softmax row (one entry each, row r entirely),
//! hence every context row. A `Session` keeps, per softmax row i, the row's
//! maximum m_i, the exponentials E_ij = exp(s_ij − m_i), their sum and the
//! unnormalised context U_i = Σ_j E_ij v_j — the online-softmax state. An edit
//! then costs O(n·d) for the new row and column, O(n) exponentials, and O(n²)
//! divisions to renormalise the weights, instead of O(n²·d) multiplications and
//! O(n²) exponentials.
//!
//! The reference m_i is always the row's true maximum: a row whose maximum the
//! edit moves (up or down) is recomputed. (An older version let the reference
//! drift up to 600 above the maximum; entries exp(s − m) that had underflowed to 0
//! under the old maximum then stayed 0 when they became significant — a weight of
//! 2.6e-66 times a value of 1e70 lost from a context.) So the exponentials, their
//! sum and the weights are the full computation's, bit for bit; only U_i is patched,
//! and each patch adds its rounding to an error bound per entry: when a bound passes
//! 1e-13 of its entry (cancellation), that row is recomputed exactly. The
//! result stays within 1e-12 of a full recompute (relative to the size of the terms
//! a context sum adds up, where it cancels; beyond float64's own underflow level,
//! where the full computation's weights are rounded to a multiple of 2^-1074).
//! A value of W_V changes one column of V and so one column of the context: that
//! is all an edit of it recomputes. A value of W_Q (W_K) changes one column of Q (K), so
//! every score by a rank-1 term: scores += δ·k_cᵀ (q_c·δᵀ), n² multiply-adds instead of
//! n²·d, then the softmax and the context as the full computation takes them. The patched
//! scores are not the full computation's bits: each row keeps a bound on the patches'
//! rounding, and a row whose bound plus the full computation's own rounding (`dot_rounding`)
//! passes 2e-13 of its largest score, or of the scale (the softmax turns an absolute error
//! of the scaled scores into a relative one of the weights), is recomputed with the full
//! computation's dot products. Every other edit (cross-attention,
//! shape) recomputes fully, and so does every edit of a config with heads, W_O, a mask,
//! a temperature or another scoring function (those cost a few ms at the sizes the
//! element edits; see bench/) — except that with several heads a value of W_Q, W_K or
//! W_V recomputes only the head whose columns it is in.

use crate::attention::{self, check_finite, HeadTrace, Overflow, SelfTrace, Trace};
use crate::config::{Config, Mechanism, Options};
use crate::math::kernels::{
    divide, exact_reciprocal, exp_shifted_into, matmul_transposed_into, min_max, multiply, pair_sum,
};
use crate::math::{dot, exp, softmax_stable_into, Matrix};

/// A figure's config and trace, plus the softmax state that makes edits incremental.
#[derive(Clone, Debug)]
pub struct Session {
    config: Config,
    trace: Trace,
    cache: Option<SoftmaxState>,
    /// Once a W_Q or W_K edit patched the scores: per row, a bound on the patches' rounding
    /// plus the full computation's own (see `update_score_column`).
    score_error: Option<Vec<f64>>,
}

/// Per-row online-softmax state of a self-attention trace.
#[derive(Clone, Debug)]
struct SoftmaxState {
    /// The maximum of each row of `scaled` (always the true one: see the module doc).
    max: Vec<f64>,
    /// exp(scaled_ij − max_i).
    exps: Matrix,
    sums: Vec<f64>,
    /// Σ_j exps_ij · v_j, one row per query.
    unnormalised: Matrix,
    /// Patches applied to each row since it was last computed exactly.
    age: Vec<u32>,
    /// A bound on the rounding error the patches since then added to each entry of
    /// `unnormalised`.
    error: Matrix,
}

/// The patches of a row may add up to this much rounding error, relative to each
/// unnormalised context entry, before the row is recomputed (10× below 1e-12). Each
/// entry by itself: another entry's scale can change (a W_V edit) and leave this one
/// compared with nothing larger than itself.
const TOLERANCE: f64 = 1e-13;
/// Unit roundoff of f64.
const EPS: f64 = f64::EPSILON / 2.0;
/// The smallest subnormal: an underflowed product is off by at most this.
const TINY: f64 = 4.9406564584124654e-324;
/// Rounding errors of patches add up: a row patched this many times is
/// recomputed exactly (amortised, 1/32 of a full recompute per edit).
const MAX_AGE: u32 = 32;

impl Session {
    pub fn new(config: Config) -> Result<Session, Overflow> {
        let trace = attention::compute(&config)?;
        // The softmax state is built on the first embedding edit, not here: loading
        // a figure (or a full recompute) should not pay for edits that may never come.
        Ok(Session { config, trace, cache: None, score_error: None })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Sets `matrix[row][col] = value` (see `Config::with_value`) and brings the
    /// trace up to date. On any error the session is unchanged.
    pub fn set_value(&mut self, matrix: &str, row: usize, col: usize, value: f64) -> Result<(), String> {
        let config = self.config.with_value(matrix, row, col, value).map_err(|e| e.0)?;
        // The head patch knows plain heads only: not kv heads shared by several, positions, windows, decode or tiles.
        if config.options.heads > 1 && !config.options.has_modern() && matches!(matrix, "w_q" | "w_k" | "w_v") {
            if let Trace::SelfAttention(t) = &mut self.trace {
                update_head(&config, t, matrix, col).map_err(|e| e.0)?;
                self.config = config;
                return Ok(());
            }
        }
        // The patches below know the documents' single unmasked dot-product head only.
        if config.options != Options::default() {
            return self.replace(config).map_err(|e| e.0);
        }
        if matches!(matrix, "w_q" | "w_k") {
            if let Trace::SelfAttention(t) = &mut self.trace {
                let errors =
                    update_score_column(&config, t, self.score_error.as_deref(), matrix, col).map_err(|e| e.0)?;
                self.score_error = Some(errors);
                // Every score moved: the softmax state is rebuilt on the next embedding edit.
                self.cache = None;
                self.config = config;
                return Ok(());
            }
        }
        if matrix == "w_v" {
            if let Trace::SelfAttention(t) = &mut self.trace {
                update_value_column(&config, t, self.cache.as_mut(), col).map_err(|e| e.0)?;
                self.config = config;
                return Ok(());
            }
        }
        if matrix == "embeddings" {
            if let Trace::SelfAttention(t) = &mut self.trace {
                let cache = self.cache.get_or_insert_with(|| SoftmaxState::new(t));
                // Updated in place: a copy of an n×n trace and its softmax state would
                // double the memory of a large figure on every edit.
                match update_token(&config, t, cache, row) {
                    Ok(()) => {
                        if let Some(errors) = &mut self.score_error {
                            // Row and column `row` were recomputed exactly: each row's bound covers them.
                            let full = dot_rounding(&t.q, &t.k);
                            errors.iter_mut().zip(full).for_each(|(e, f)| *e = e.max(f));
                        }
                        self.config = config;
                        return Ok(());
                    }
                    Err(Refused::Unchanged(e)) => return Err(e.0),
                    // Q/K/V and score overflows are refused above before anything changes;
                    // this means the context overflowed mid-update (inputs near 1e308):
                    // the full recompute below decides.
                    Err(Refused::Midway) => {}
                }
            }
        }
        self.replace(config).map_err(|e| e.0)
    }

    /// Shows head (`layer`, `head`) of a model's weights in full: the same as
    /// `replace(config.with_selection(layer, head))`, without copying the stack or
    /// recomputing the summaries, which only depend on the stack.
    pub fn select_head(&mut self, layer: usize, head: usize) -> Result<(), String> {
        let Mechanism::Weights { attention, layer: l, head: h, .. } = &mut self.config.mechanism else {
            return Err("only a model's weights (mechanism \"weights\") have layers to pick".into());
        };
        crate::edits::check_selection(attention, layer, head).map_err(|e| e.0)?;
        (*l, *h) = (layer, head);
        if let Trace::Weights(t) = &mut self.trace {
            t.selected = t.attention.matrix(layer, head);
        }
        Ok(())
    }

    /// Any other change: a full recompute. On an error the session is unchanged
    /// (its trace recomputed from the same config, equal to what it was to 1e-12).
    pub fn replace(&mut self, config: Config) -> Result<(), Overflow> {
        // The old trace and softmax state are freed before the new trace is built:
        // at n = 1024 each is tens of MB, wasm memory never shrinks, and holding
        // both would set the page's peak. A refused config then recomputes the old
        // one, which gives the old trace bit for bit — unless edits patched it
        // (the softmax state exists): then its rounding differs from a full
        // compute's (by ~1e-16), so that trace is kept aside instead, and a refused
        // edit changes nothing at all. So is a trace whose scores a W_Q or W_K edit patched.
        let previous = std::mem::replace(&mut self.config, config);
        let (cache, score_error) = (self.cache.take(), self.score_error.take());
        let patched = (cache.is_some() || score_error.is_some())
            .then(|| (cache, score_error, std::mem::replace(&mut self.trace, empty_trace())));
        self.trace = empty_trace();
        match attention::compute(&self.config) {
            Ok(trace) => {
                self.trace = trace;
                Ok(())
            }
            Err(e) => {
                self.config = previous;
                match patched {
                    Some((cache, score_error, trace)) => {
                        (self.cache, self.score_error) = (cache, score_error);
                        self.trace = trace;
                    }
                    None => self.trace = attention::compute(&self.config).expect("the previous config computed before"),
                }
                Err(e)
            }
        }
    }
}

/// A trace that holds no memory, in place for the moment a session is recomputed.
fn empty_trace() -> Trace {
    Trace::Cross(attention::CrossTrace {
        scores: Vec::new(),
        scaled: Vec::new(),
        weights: Vec::new(),
        naive_weights: Vec::new(),
        applied: Matrix::zeros(0, 0),
        context: Vec::new(),
        scale: 1.0,
        masked: Vec::new(),
        features: None,
    })
}

impl SoftmaxState {
    fn new(t: &SelfTrace) -> SoftmaxState {
        let n = t.scaled.rows();
        let mut state = SoftmaxState {
            max: vec![0.0; n],
            exps: Matrix::zeros(n, n),
            sums: vec![0.0; n],
            unnormalised: Matrix::zeros(n, t.v.cols()),
            age: vec![0; n],
            error: Matrix::zeros(n, t.v.cols()),
        };
        for i in 0..n {
            state.recompute_row(i, &t.scaled, &t.v);
        }
        state
    }

    /// Row i from scratch: its maximum, exponentials, sum and context.
    fn recompute_row(&mut self, i: usize, scaled: &Matrix, v: &Matrix) {
        let row = scaled.row(i);
        let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        self.max[i] = max;
        // The same exponentials and sum order as the full computation's softmax.
        self.sums[i] = exp_shifted_into(row, max, self.exps.row_mut(i));
        let mut u = vec![0.0; v.cols()];
        for (j, &e) in self.exps.row(i).iter().enumerate() {
            for (uk, &vk) in u.iter_mut().zip(v.row(j)) {
                *uk += e * vk;
            }
        }
        self.unnormalised.row_mut(i).copy_from_slice(&u);
        self.age[i] = 0;
        self.error.row_mut(i).fill(0.0);
    }
}

/// Why an incremental update stopped.
enum Refused {
    /// The edit overflows; nothing was changed.
    Unchanged(Overflow),
    /// The update overflowed part-way; the state is no longer consistent.
    Midway,
}

impl From<Overflow> for Refused {
    fn from(e: Overflow) -> Self {
        Refused::Unchanged(e)
    }
}

/// Brings `t` and `state` up to date after row `r` of the embeddings changed in `config`.
fn update_token(config: &Config, t: &mut SelfTrace, state: &mut SoftmaxState, r: usize) -> Result<(), Refused> {
    let Mechanism::SelfAttention { embeddings, projections } = &config.mechanism else {
        unreachable!("only self-attention sessions keep a softmax state")
    };
    let n = embeddings.rows();
    let x = Matrix::row_vector(embeddings.row(r));
    let (q, k, v) = match projections {
        Some(p) => (x.matmul(&p.w_q), x.matmul(&p.w_k), x.matmul(&p.w_v)),
        None => (x.clone(), x.clone(), x),
    };
    for (name, m) in [("Q", &q), ("K", &k), ("V", &v)] {
        check_finite(name, m).map_err(|e| Refused::Unchanged(Overflow(e.0.replace("row 0", &format!("row {r}")))))?;
    }
    // Row r and column r of the scores (the rest only depend on unchanged rows),
    // computed and checked before anything is changed, so an overflow leaves `t` as it was.
    let score_row: Vec<f64> = (0..n).map(|j| dot(q.row(0), if j == r { k.row(0) } else { t.k.row(j) })).collect();
    let score_col: Vec<f64> = (0..n).map(|i| if i == r { score_row[r] } else { dot(t.q.row(i), k.row(0)) }).collect();
    let scaled_ok = |s: &f64| (s / t.scale).is_finite();
    if let Some(j) = score_row.iter().position(|s| !scaled_ok(s)) {
        return Err(overflow_at(r, j, score_row[j] / t.scale).into());
    }
    if let Some(i) = score_col.iter().position(|s| !scaled_ok(s)) {
        return Err(overflow_at(i, r, score_col[i] / t.scale).into());
    }
    let old_v = t.v.row(r).to_vec();
    t.q.row_mut(r).copy_from_slice(q.row(0));
    t.k.row_mut(r).copy_from_slice(k.row(0));
    t.v.row_mut(r).copy_from_slice(v.row(0));
    for j in 0..n {
        t.scores.set(r, j, score_row[j]);
        t.scaled.set(r, j, score_row[j] / t.scale);
        t.scores.set(j, r, score_col[j]);
        t.scaled.set(j, r, score_col[j] / t.scale);
    }
    // Softmax rows i ≠ r: one entry and one value vector changed. A row whose maximum
    // moved is recomputed: rescaling its exponentials cannot bring back the ones that
    // underflowed under the old maximum, nor round as the full computation does.
    for i in (0..n).filter(|&i| i != r) {
        let (_, max) = min_max(t.scaled.row(i));
        if max != state.max[i] || !apply_entry(state, i, r, &old_v, t) {
            state.recompute_row(i, &t.scaled, &t.v);
        }
    }
    state.recompute_row(r, &t.scaled, &t.v);
    // Renormalise: weights, context, naive weights.
    for i in 0..n {
        let sum = state.sums[i];
        for (w, &e) in t.weights.row_mut(i).iter_mut().zip(state.exps.row(i)) {
            *w = e / sum;
        }
        for (c, &u) in t.context.row_mut(i).iter_mut().zip(state.unnormalised.row(i)) {
            *c = u / sum;
        }
    }
    attention::naive_rows_into(&t.scaled, &t.weights, &mut t.naive_weights);
    check_finite("context", &t.context).map_err(|_| Refused::Midway)?;
    t.query = attention::breakdown_of(config.query, [&t.scores, &t.scaled], None, &t.weights, &t.v);
    Ok(())
}

/// The message `attention::compute` gives for the same overflow.
fn overflow_at(i: usize, j: usize, value: f64) -> Overflow {
    attention::overflow("scores", i, j, value)
}

/// Brings `t` (and `state`, if built) up to date after a value in column `c` of W_V
/// changed in `config`: only column c of V and of the context depend on it, an O(n·d + n²)
/// update instead of O(n²·d). Both columns are summed in the order the full
/// computation's matrix products sum them, so the result is the same to the bit
/// (given the same weights). On an overflow nothing is changed.
fn update_value_column(
    config: &Config,
    t: &mut SelfTrace,
    state: Option<&mut SoftmaxState>,
    c: usize,
) -> Result<(), Overflow> {
    let Mechanism::SelfAttention { embeddings, projections: Some(p) } = &config.mechanism else {
        unreachable!("W_V exists only with projections")
    };
    let n = embeddings.rows();
    // `dot` sums left to right from 0, as the matrix products do for each element.
    let w_v: Vec<f64> = (0..p.w_v.rows()).map(|k| p.w_v.get(k, c)).collect();
    let v: Vec<f64> = (0..n).map(|i| dot(embeddings.row(i), &w_v)).collect();
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(attention::overflow("V", i, c, v[i]));
    }
    let context: Vec<f64> = (0..n).map(|i| dot(t.weights.row(i), &v)).collect();
    if let Some(i) = context.iter().position(|x| !x.is_finite()) {
        return Err(attention::overflow("context", i, c, context[i]));
    }
    for i in 0..n {
        t.v.set(i, c, v[i]);
        t.context.set(i, c, context[i]);
    }
    if let Some(state) = state {
        for i in 0..n {
            state.unnormalised.set(i, c, dot(state.exps.row(i), &v));
            state.error.set(i, c, 0.0);
        }
    }
    t.query = attention::breakdown_of(config.query, [&t.scores, &t.scaled], None, &t.weights, &t.v);
    Ok(())
}

/// The patched scores may differ from the full computation's by this much of a row's largest
/// score, and of the scale, before the row is recomputed (5× below the 1e-12 the trace keeps,
/// and the weights' relative error is about twice the scaled scores' absolute one).
const SCORE_TOLERANCE: f64 = 2e-13;

/// Per row i, the size of the full computation's rounding of its scores s_ij = q_i·k_j (each
/// summed in k order): ε · |q_i| · max_j |k_j|, plus d underflowed products. An estimate, not a
/// bound: d roundings of partial sums add up like a random walk, to about this (Cauchy–Schwarz
/// over the terms); the worst case, d times it, would recompute every row at d = 64, where the
/// two differ by ~1e-13. Infinite when a norm overflows: that row is then always recomputed.
fn dot_rounding(q: &Matrix, k: &Matrix) -> Vec<f64> {
    let d = q.cols() as f64;
    let norm = |row: &[f64]| dot(row, row).sqrt() * 1.01;
    let k_max = (0..k.rows()).map(|j| norm(k.row(j))).fold(0.0, f64::max);
    (0..q.rows()).map(|i| EPS * norm(q.row(i)) * k_max + d * TINY).collect()
}

/// Brings `t` up to date after a value in column `c` of W_Q or W_K changed in `config`, given
/// each score row's error bound (`None`: the scores are the full computation's). Column c of
/// Q (K) is summed as the full computation's product sums it; the scores move by the rank-1
/// term δ_i·k_jc (q_ic·δ_j), and a row whose bound passes `SCORE_TOLERANCE` is recomputed
/// exactly (see the module doc); the softmax, the naive softmax, the context and the
/// breakdown are then the full computation's, of these scores. Returns the new bounds. On an
/// overflow nothing is changed.
fn update_score_column(
    config: &Config,
    t: &mut SelfTrace,
    errors: Option<&[f64]>,
    matrix: &str,
    c: usize,
) -> Result<Vec<f64>, Overflow> {
    let Mechanism::SelfAttention { embeddings, projections: Some(p) } = &config.mechanism else {
        unreachable!("W_Q and W_K exist only with projections")
    };
    let n = embeddings.rows();
    let (w, name) = if matrix == "w_q" { (&p.w_q, "Q") } else { (&p.w_k, "K") };
    let weights: Vec<f64> = (0..w.rows()).map(|k| w.get(k, c)).collect();
    let column: Vec<f64> = (0..n).map(|i| dot(embeddings.row(i), &weights)).collect();
    if let Some(i) = column.iter().position(|x| !x.is_finite()) {
        return Err(attention::overflow(name, i, c, column[i]));
    }
    let old_full = || dot_rounding(&t.q, &t.k);
    let mut bounds = errors.map_or_else(old_full, <[f64]>::to_vec);
    let (mut q, mut k) = (t.q.clone(), t.k.clone());
    let changed = if matrix == "w_q" { &mut q } else { &mut k };
    let delta: Vec<f64> = (0..n).map(|i| column[i] - changed.get(i, c)).collect();
    for (i, &x) in column.iter().enumerate() {
        changed.set(i, c, x);
    }
    let full = dot_rounding(&q, &k);
    let delta_max = delta.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let k_c: Vec<f64> = (0..n).map(|j| k.get(j, c)).collect();
    let k_max = k_c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let mut scores = t.scores.clone();
    let mut exact = Vec::new();
    for i in 0..n {
        let row = scores.row_mut(i);
        // (δ_i·k_jc or q_ic·δ_j): each product rounds by ε of itself, δ by ε of itself.
        let product_bound = if matrix == "w_q" {
            let d = delta[i];
            for (s, &kjc) in row.iter_mut().zip(&k_c) {
                *s += d * kjc;
            }
            d.abs() * k_max
        } else {
            let qc = q.get(i, c);
            for (s, &d) in row.iter_mut().zip(&delta) {
                *s += qc * d;
            }
            qc.abs() * delta_max
        };
        let largest = row.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        bounds[i] += EPS * (2.0 * product_bound + largest) + 2.0 * TINY;
        let limit = SCORE_TOLERANCE * largest.min(t.scale);
        if !(bounds[i] + full[i] <= limit) {
            exact.push(i);
        }
    }
    // The rows past their bound, recomputed in one product (the SIMD kernel the full computation's Q·Kᵀ runs, so
    // the same numbers): at d = 64 every row passes its bound every few edits, and n²·d scalar dot products in
    // this crate's size-optimised code were most of such an edit.
    if !exact.is_empty() {
        let d = q.cols();
        let mut rows = Vec::with_capacity(exact.len() * d);
        exact.iter().for_each(|&i| rows.extend_from_slice(q.row(i)));
        let mut fresh = vec![0.0; exact.len() * n];
        matmul_transposed_into(&rows, k.data(), &mut fresh, exact.len(), d, n);
        for (&i, row) in exact.iter().zip(fresh.chunks_exact(n)) {
            scores.row_mut(i).copy_from_slice(row);
            bounds[i] = full[i];
        }
    }
    let stages = stages_of(scores, t.scale, &t.v)?;
    let mut naive = Matrix::zeros(n, n);
    attention::naive_rows_into(&stages.scaled, &stages.weights, &mut naive);
    // Checked: from here on nothing can fail.
    (t.q, t.k, t.naive_weights) = (q, k, naive);
    (t.scores, t.scaled, t.weights, t.context) = (stages.scores, stages.scaled, stages.weights, stages.context);
    t.query = attention::breakdown_of(config.query, [&t.scores, &t.scaled], None, &t.weights, &t.v);
    Ok(bounds)
}

/// The documents' stages after `scores` (one head, dot product, no mask, temperature 1), as
/// `attention::attend` takes them: scaled, the stable softmax, the context; an overflow of
/// the scaled scores or the context refused with the full computation's message.
fn stages_of(scores: Matrix, scale: f64, v: &Matrix) -> Result<attention::Stages, Overflow> {
    let mut scaled = scores.clone();
    for i in 0..scaled.rows() {
        match exact_reciprocal(scale) {
            Some(r) => multiply(scaled.row_mut(i), r),
            None => divide(scaled.row_mut(i), scale),
        }
    }
    check_finite("scores", &scaled)?;
    let mut weights = Matrix::zeros(scaled.rows(), scaled.cols());
    for i in 0..scaled.rows() {
        softmax_stable_into(scaled.row(i), weights.row_mut(i));
    }
    let context = weights.matmul(v);
    check_finite("context", &context)?;
    Ok(attention::Stages { scores, scaled, capped: None, weights, context })
}

/// With several heads, a value in column `c` of W_Q, W_K or W_V changes one column of Q, K or
/// V, which belongs to one head: only that head is recomputed — its stages, its block of the
/// context, then the output and (if it is the followed head) the breakdown. The column is summed
/// as the full computation's product sums it, and the head goes through the same `attend`, so the
/// trace is the full computation's bit for bit. On an overflow nothing is changed.
fn update_head(config: &Config, t: &mut SelfTrace, matrix: &str, c: usize) -> Result<(), Overflow> {
    let Mechanism::SelfAttention { embeddings, projections: Some(p) } = &config.mechanism else {
        unreachable!("heads exist only with projections")
    };
    let o = &config.options;
    let (w, name) = match matrix {
        "w_q" => (&p.w_q, "Q"),
        "w_k" => (&p.w_k, "K"),
        _ => (&p.w_v, "V"),
    };
    let n = embeddings.rows();
    let weights: Vec<f64> = (0..w.rows()).map(|k| w.get(k, c)).collect();
    let column: Vec<f64> = (0..n).map(|i| dot(embeddings.row(i), &weights)).collect();
    if let Some(i) = column.iter().position(|x| !x.is_finite()) {
        return Err(attention::overflow(name, i, c, column[i]));
    }
    let width = w.cols() / o.heads;
    let (h, at) = (c / width, c % width);
    let head = &t.heads[h];
    let (mut q, mut k, mut v) = (head.q.clone(), head.k.clone(), head.v.clone());
    let slice = match matrix {
        "w_q" => &mut q,
        "w_k" => &mut k,
        _ => &mut v,
    };
    for (i, &x) in column.iter().enumerate() {
        slice.set(i, at, x);
    }
    let allowed = attention::allowed(o, n, n);
    let stages = attention::attend(&q, &k, &v, &attention::Attend::of(o, t.scale, allowed.as_ref()));
    attention::check_stages(&stages, allowed.as_ref()).map_err(|e| Overflow(format!("head {h}: {e}")))?;
    let mut context = t.context.clone();
    let dv = stages.context.cols();
    for i in 0..n {
        context.row_mut(i)[h * dv..(h + 1) * dv].copy_from_slice(stages.context.row(i));
    }
    let output = attention::project(&context, o)?;
    // Checked: from here on nothing can fail.
    let whole = match matrix {
        "w_q" => &mut t.q,
        "w_k" => &mut t.k,
        _ => &mut t.v,
    };
    for (i, &x) in column.iter().enumerate() {
        whole.set(i, c, x);
    }
    t.heads[h] = HeadTrace { q, k, v, stages };
    t.context = context;
    t.output = output;
    if o.head == h {
        let f = &t.heads[h];
        let mut query = attention::breakdown(config.query, &f.stages, &f.v);
        query.head = h;
        query.masked = attention::mask_reasons_row(o, config.query, n);
        t.query = query;
    }
    Ok(())
}

/// Replaces entry (i, r) of row i's softmax state after its score and value
/// vector changed (the row's maximum did not). Returns false when the row must be
/// recomputed instead: it was patched too often, or the patches' rounding error
/// bound passed `TOLERANCE` of an entry (the update cancelled).
fn apply_entry(state: &mut SoftmaxState, i: usize, r: usize, old_v: &[f64], t: &SelfTrace) -> bool {
    state.age[i] += 1;
    if state.age[i] >= MAX_AGE {
        return false;
    }
    let old_e = state.exps.get(i, r);
    // The same exponential the full computation takes (same maximum, same kernel).
    let new_e = exp(t.scaled.get(i, r) - state.max[i]);
    state.exps.set(i, r, new_e);
    // The sum is re-added (O(n)) in the full computation's order: the same bits.
    state.sums[i] = pair_sum(state.exps.row(i));
    let new_v = t.v.row(r);
    let mut exact = true;
    let (u_row, error_row) = (state.unnormalised.row_mut(i), state.error.row_mut(i));
    for (((u, err), &ov), &nv) in u_row.iter_mut().zip(error_row).zip(old_v).zip(new_v) {
        let (added, removed) = (new_e * nv, old_e * ov);
        *u += added - removed;
        // Two products (each off by ε relative, or TINY if it underflowed), their
        // difference and the sum: each rounding at most ε of its result.
        let underflow =
            |p: f64, a: f64, b: f64| if p.abs() < f64::MIN_POSITIVE && a != 0.0 && b != 0.0 { TINY } else { 0.0 };
        let tiny = underflow(added, new_e, nv) + underflow(removed, old_e, ov);
        *err += 2.0 * EPS * (added.abs() + removed.abs()) + EPS * u.abs() + tiny;
        exact &= *err <= TOLERANCE * u.abs();
    }
    exact
}
