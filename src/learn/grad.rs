//! The loss, the mean cross-entropy over a batch's target positions, and its gradient with
//! respect to every parameter, written out by hand (reverse mode through the forward pass of
//! `model`, using the stages it kept). tests/learn.rs checks it against finite differences.

use super::model::{argmax, block, put_block, softmax_rows, Model, Params, Run};
use super::task::{check_examples, Example};
use crate::math::kernels::{exp_shifted_into, min_max};
use crate::math::log::ln;
use crate::math::Matrix;

/// What one backward pass gives: the gradient, the loss when asked for, and how many target
/// positions the forward pass already predicted right.
pub(crate) struct Backward {
    pub grads: Params,
    pub loss: Option<f64>,
    pub correct: usize,
    pub scored: usize,
}

/// The mean cross-entropy −ln p(target) over every position that has a target (0 when none).
pub fn loss(model: &Model, examples: &[Example]) -> Result<f64, String> {
    check_examples(model, examples)?;
    let run = model.run(&inputs(examples));
    Ok(mean_loss(&run.logits, examples))
}

/// The gradient of [`loss`] with respect to every parameter.
pub fn gradients(model: &Model, examples: &[Example]) -> Result<Params, String> {
    check_examples(model, examples)?;
    let run = model.run(&inputs(examples));
    Ok(backward(model, &run, examples, false).grads)
}

pub(crate) fn inputs(examples: &[Example]) -> Vec<&[usize]> {
    examples.iter().map(|e| e.input.as_slice()).collect()
}

/// (row of the stacked logits, target) for every scored position.
fn scored(examples: &[Example]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let n = examples.first().map_or(0, |e| e.targets.len());
    examples.iter().enumerate().flat_map(move |(b, e)| {
        e.targets.iter().enumerate().filter_map(move |(t, target)| target.map(|y| (b * n + t, y)))
    })
}

/// [`loss`] without the checks (for callers whose examples are the task's own).
pub(crate) fn mean_loss_of(model: &Model, examples: &[Example]) -> f64 {
    mean_loss(&model.run(&inputs(examples)).logits, examples)
}

fn mean_loss(logits: &Matrix, examples: &[Example]) -> f64 {
    let (mut total, mut count) = (0.0, 0usize);
    let mut e = vec![0.0; logits.cols()];
    for (r, y) in scored(examples) {
        // −ln softmax(z)_y = ln Σ exp(z − max) − (z_y − max): no exp can overflow.
        let z = logits.row(r);
        let (_, max) = min_max(z);
        let sum = exp_shifted_into(z, max, &mut e);
        total += ln(sum) - (z[y] - max);
        count += 1;
    }
    if count == 0 {
        0.0
    } else {
        total / count as f64
    }
}

/// Reverse mode through `run` (the forward pass of `examples`' inputs).
pub(crate) fn backward(model: &Model, run: &Run, examples: &[Example], want_loss: bool) -> Backward {
    let shape = model.shape;
    let (d, heads, dh) = (shape.d_model, shape.heads, shape.head_dim());
    let scale = (dh as f64).sqrt();
    let n = run.n;
    let p = &model.params;
    let mut g = Params::zeros(&shape);

    // ∂loss/∂logits = (softmax(z) − onehot(y)) / N on scored rows, 0 elsewhere.
    let count = scored(examples).count();
    let probs = softmax_rows(&run.logits);
    let mut dlogits = Matrix::zeros(run.logits.rows(), run.logits.cols());
    let mut correct = 0;
    for (r, y) in scored(examples) {
        for (o, &q) in dlogits.row_mut(r).iter_mut().zip(probs.row(r)) {
            *o = q / count as f64;
        }
        let row = dlogits.row_mut(r);
        row[y] -= 1.0 / count as f64;
        correct += usize::from(argmax(run.logits.row(r)) == y);
    }

    let top = &run.xs[shape.layers];
    g.w_u = top.transpose().matmul(&dlogits);
    let mut dx = dlogits.matmul_transposed(&p.w_u);

    for l in (0..shape.layers).rev() {
        let layer = &p.layers[l];
        let x = &run.xs[l];
        // x_{l+1} = x_l + concat·W_O: the residual passes dx straight through.
        g.layers[l].w_o = run.concat[l].transpose().matmul(&dx);
        let dconcat = dx.matmul_transposed(&layer.w_o);
        let [q_all, k_all, v_all] = &run.qkv[l];
        let mut dq_all = Matrix::zeros(x.rows(), d);
        let mut dk_all = Matrix::zeros(x.rows(), d);
        let mut dv_all = Matrix::zeros(x.rows(), d);
        for b in 0..examples.len() {
            for h in 0..heads {
                let a = &run.stages[l][b * heads + h].weights;
                let (r0, c0) = (b * n, h * dh);
                let dctx = block(&dconcat, r0, n, c0, dh);
                let (q, k, v) = (block(q_all, r0, n, c0, dh), block(k_all, r0, n, c0, dh), block(v_all, r0, n, c0, dh));
                // context = A·V
                let da = dctx.matmul_transposed(&v);
                let dv = a.transpose().matmul(&dctx);
                // A = softmax(S / √d_h) row by row: ∂S_ij = A_ij (∂A_ij − Σ_k A_ik ∂A_ik) / √d_h.
                // Masked entries have A_ij = 0 exactly, so they get no gradient.
                let mut ds = Matrix::zeros(n, n);
                for i in 0..n {
                    let (ai, dai) = (a.row(i), da.row(i));
                    let inner = ai.iter().zip(dai).fold(0.0, |acc, (x, y)| acc + x * y);
                    for ((o, &aij), &daij) in ds.row_mut(i).iter_mut().zip(ai).zip(dai) {
                        *o = aij * (daij - inner) / scale;
                    }
                }
                // S = Q·Kᵀ
                put_block(&mut dq_all, r0, c0, &ds.matmul(&k));
                put_block(&mut dk_all, r0, c0, &ds.transpose().matmul(&q));
                put_block(&mut dv_all, r0, c0, &dv);
            }
        }
        let xt = x.transpose();
        g.layers[l].w_q = xt.matmul(&dq_all);
        g.layers[l].w_k = xt.matmul(&dk_all);
        g.layers[l].w_v = xt.matmul(&dv_all);
        let through = [
            dq_all.matmul_transposed(&layer.w_q),
            dk_all.matmul_transposed(&layer.w_k),
            dv_all.matmul_transposed(&layer.w_v),
        ];
        for part in &through {
            dx = super::model::add(&dx, part);
        }
    }

    // x₀ = tok_emb[ids] + pos_emb[positions].
    for (b, e) in examples.iter().enumerate() {
        for (t, &id) in e.input.iter().enumerate() {
            let src = dx.row(b * n + t);
            for (o, s) in g.tok_emb.row_mut(id).iter_mut().zip(src) {
                *o += s;
            }
            for (o, s) in g.pos_emb.row_mut(t).iter_mut().zip(src) {
                *o += s;
            }
        }
    }
    let loss = want_loss.then(|| mean_loss(&run.logits, examples));
    Backward { grads: g, loss, correct, scored: count }
}
