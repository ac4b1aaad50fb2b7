//! Training: Adam and the [`Trainer`] that the example and the browser's worker drive a few
//! steps at a time.

use super::grad::{backward, inputs, mean_loss_of};
use super::model::{Model, Params, Shape, Trained};
use super::task::Task;
use crate::random::RandomState;

/// Adam (Kingma & Ba 2015) with bias correction: for each parameter p with gradient g,
/// m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g², p ← p − lr · (m / (1 − β₁ᵗ)) / (√(v / (1 − β₂ᵗ)) + ε).
/// β₁ᵗ and β₂ᵗ are running products (not `powi`), so every platform computes the same bits.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    beta1_t: f64,
    beta2_t: f64,
    m: Params,
    v: Params,
}

impl Adam {
    /// β₁ = 0.9, β₂ = 0.999, ε = 1e-8, moments at zero.
    pub fn new(shape: &Shape, lr: f64) -> Adam {
        let zeros = Params::zeros(shape);
        Adam { lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, beta1_t: 1.0, beta2_t: 1.0, m: zeros.clone(), v: zeros }
    }

    /// One step of every parameter along its gradient (`grads` has the parameters' shapes).
    pub fn update(&mut self, params: &mut Params, grads: &Params) {
        let Adam { lr, beta1, beta2, eps, .. } = *self;
        self.beta1_t *= beta1;
        self.beta2_t *= beta2;
        let (c1, c2) = (1.0 - self.beta1_t, 1.0 - self.beta2_t);
        let all = params
            .matrices_mut()
            .into_iter()
            .zip(grads.matrices())
            .zip(self.m.matrices_mut())
            .zip(self.v.matrices_mut());
        for (((p, g), m), v) in all {
            for i in 0..p.rows() {
                let rows = p.row_mut(i).iter_mut().zip(g.row(i)).zip(m.row_mut(i)).zip(v.row_mut(i));
                for (((p, &g), m), v) in rows {
                    *m = beta1 * *m + (1.0 - beta1) * g;
                    *v = beta2 * *v + (1.0 - beta2) * (g * g);
                    *p -= lr * (*m / c1) / ((*v / c2).sqrt() + eps);
                }
            }
        }
    }
}

/// Where training stands after a call of [`Trainer::step`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Steps taken so far.
    pub step: usize,
    /// The mean cross-entropy of the last step's batch, before its update.
    pub loss: f64,
    /// The fraction of the last step's batch's scored positions predicted right, before its
    /// update (free: the forward pass of the step computes it; the held-out accuracy is
    /// [`Task::accuracy`] on [`Task::held_out`]).
    pub accuracy: f64,
}

/// Trains a model for a task from a seed: `RandomState::new(seed)` draws the initial weights
/// (see [`crate::learn::Model::init`]), then every batch, so the same seed and number of steps
/// give the same weights bit for bit, however the steps are split between calls.
#[derive(Clone, Debug)]
pub struct Trainer {
    task: Task,
    model: Model,
    adam: Adam,
    rng: RandomState,
    last: Progress,
}

impl Trainer {
    pub fn new(task: Task, seed: u32) -> Trainer {
        let mut rng = RandomState::new(seed);
        let mut model = task.init(&mut rng);
        model.trained = Some(Trained { seed, steps: 0 });
        let adam = Adam::new(&model.shape, task.learning_rate());
        // The untrained model's standing, on held-out examples so the training stream is untouched.
        let probe = task.held_out(task.batch_size());
        let loss = mean_loss_of(&model, &probe);
        let accuracy = task.accuracy(&model, &probe).expect("a task's examples suit its model");
        let last = Progress { step: 0, loss, accuracy };
        Trainer { task, model, adam, rng, last }
    }

    /// Takes `n` training steps (a batch of [`Task::batch_size`] examples each) and says where
    /// training stands; `step(0)` only reports.
    pub fn step(&mut self, n: usize) -> Progress {
        for i in 0..n {
            let batch = self.task.batch(&mut self.rng, self.task.batch_size());
            let run = self.model.run(&inputs(&batch));
            // ln is the slow part of the loss and the gradient does not need it: only the
            // last step of a call reports one.
            let b = backward(&self.model, &run, &batch, i + 1 == n);
            self.adam.update(&mut self.model.params, &b.grads);
            let step = self.last.step + 1;
            if let Some(t) = &mut self.model.trained {
                t.steps = step;
            }
            let accuracy = if b.scored == 0 { 1.0 } else { b.correct as f64 / b.scored as f64 };
            self.last = Progress { step, loss: b.loss.unwrap_or(self.last.loss), accuracy };
        }
        self.last
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    pub fn task(&self) -> Task {
        self.task
    }

    pub fn progress(&self) -> Progress {
        self.last
    }
}
