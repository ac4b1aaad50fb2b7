//! The tasks the models learn: what an example looks like, which positions are scored, the
//! shape of the model that learns it, and its training settings.
//!
//! - `reversal`: 6 digits in, the same digits reversed out, all at once (no mask): output
//!   position i must read input position 5 − i, so the one head's weights become the
//!   anti-diagonal.
//! - `induction`: next-token prediction (causal) on a sequence of distinct random tokens in
//!   which one segment occurs twice, both occurrences at random places. Within the second
//!   occurrence the next token is predictable only by finding the current token earlier and
//!   copying what followed it: a previous-token head in layer 0 and an induction head in
//!   layer 1. Tokens are distinct so that the earlier occurrence is unambiguous, and both
//!   places are random so that no fixed positional shortcut works.

use super::model::{Model, Shape};
use crate::random::RandomState;

/// One training or test sequence: the input ids and, per position, the token the model must
/// predict there (`None`: not scored).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Example {
    pub input: Vec<usize>,
    pub targets: Vec<Option<usize>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    Reversal,
    Induction,
}

/// Held-out examples come from this seed; training draws from the trainer's seed after the
/// initial weights, so the two streams differ even for a trainer seeded with this number.
pub const HELD_OUT_SEED: u32 = 1_000_003;

/// Induction: vocabulary, sequence length and the repeated segment's length.
const INDUCTION_VOCAB: usize = 16;
const INDUCTION_LEN: usize = 16;
const INDUCTION_SEGMENT: usize = 5;

impl Task {
    pub const ALL: [Task; 2] = [Task::Reversal, Task::Induction];

    pub fn name(self) -> &'static str {
        match self {
            Task::Reversal => "reversal",
            Task::Induction => "induction",
        }
    }

    pub fn from_name(name: &str) -> Option<Task> {
        Task::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The model that learns the task.
    pub fn shape(self) -> Shape {
        match self {
            // d = 8: 464 parameters, few enough to read, and 100 % in ~250 steps.
            Task::Reversal => Shape { vocab: 10, seq_len: 6, d_model: 8, layers: 1, heads: 1, causal: false },
            Task::Induction => {
                Shape { vocab: INDUCTION_VOCAB, seq_len: INDUCTION_LEN, d_model: 32, layers: 2, heads: 1, causal: true }
            }
        }
    }

    /// The names of the token ids: digits for reversal, letters for induction.
    pub fn tokens(self) -> Vec<String> {
        match self {
            Task::Reversal => (0..10).map(|i| i.to_string()).collect(),
            Task::Induction => (0..INDUCTION_VOCAB as u8).map(|i| char::from(b'A' + i).to_string()).collect(),
        }
    }

    /// Sequences a training step averages the loss over.
    pub fn batch_size(self) -> usize {
        match self {
            Task::Reversal => 32,
            Task::Induction => 32,
        }
    }

    /// Adam's step size.
    pub fn learning_rate(self) -> f64 {
        match self {
            // 0.01 reaches 100 % sooner, too soon to watch the heads form in the browser.
            Task::Reversal => 0.003,
            Task::Induction => 0.003,
        }
    }

    /// The training steps of the shipped model (`cargo run --release --example train`).
    pub fn steps(self) -> usize {
        match self {
            // 100 % on held-out sequences after about 250 (reversal) and 500–750 (induction)
            // steps from seeds 0–7; the rest sharpens the heads.
            Task::Reversal => 1000,
            Task::Induction => 1500,
        }
    }

    /// A fresh model for the task, its parameters drawn from `rng` (see [`Model::init`]).
    pub fn init(self, rng: &mut RandomState) -> Model {
        let mut model = Model::init(self.shape(), rng);
        model.task = Some(self.name().to_string());
        model.tokens = Some(self.tokens());
        model
    }

    /// One example drawn from `rng`.
    pub fn example(self, rng: &mut RandomState) -> Example {
        match self {
            Task::Reversal => {
                let input = draw(rng, 0, 10, 6);
                let targets = (0..6).map(|i| Some(input[5 - i])).collect();
                Example { input, targets }
            }
            Task::Induction => induction(rng),
        }
    }

    /// `count` examples drawn from `rng`, one after the other.
    pub fn batch(self, rng: &mut RandomState, count: usize) -> Vec<Example> {
        (0..count).map(|_| self.example(rng)).collect()
    }

    /// `count` examples from [`HELD_OUT_SEED`]: the same examples every time.
    pub fn held_out(self, count: usize) -> Vec<Example> {
        self.batch(&mut RandomState::new(HELD_OUT_SEED), count)
    }

    /// The fraction of scored positions of `examples` that `model` predicts right (1 when there
    /// are none); an error when the examples do not suit the model (another task's model).
    pub fn accuracy(self, model: &Model, examples: &[Example]) -> Result<f64, String> {
        check_examples(model, examples)?;
        let (mut right, mut total) = (0usize, 0usize);
        // In chunks, so that the stacked matrices stay small.
        for chunk in examples.chunks(256) {
            let inputs: Vec<&[usize]> = chunk.iter().map(|e| e.input.as_slice()).collect();
            for (e, predicted) in chunk.iter().zip(model.predict_batch(&inputs)) {
                for (target, got) in e.targets.iter().zip(predicted) {
                    if let Some(t) = target {
                        total += 1;
                        right += usize::from(*t == got);
                    }
                }
            }
        }
        Ok(if total == 0 { 1.0 } else { right as f64 / total as f64 })
    }
}

/// `count` values of NumPy's `randint(low, high, count)`.
fn draw(rng: &mut RandomState, low: usize, high: usize, count: usize) -> Vec<usize> {
    // low < high and both small: randint cannot fail here.
    rng.randint(low as i64, high as i64, count).expect("a valid range").into_iter().map(|x| x as usize).collect()
}

/// Distinct tokens (a partial Fisher–Yates shuffle of 0 … V − 1), a segment of the first S of
/// them placed at a and again at b ≥ a + S, the rest filling the other places in order.
/// Scored: positions b … b + S − 2, whose next token is the segment's next token.
fn induction(rng: &mut RandomState) -> Example {
    let (v, t, s) = (INDUCTION_VOCAB, INDUCTION_LEN, INDUCTION_SEGMENT);
    let distinct = t - s;
    let mut perm: Vec<usize> = (0..v).collect();
    for i in 0..distinct {
        let j = i + draw(rng, 0, v - i, 1)[0];
        perm.swap(i, j);
    }
    let a = draw(rng, 0, t - 2 * s + 1, 1)[0];
    let b = draw(rng, a + s, t - s + 1, 1)[0];
    let (segment, mut filler) = (&perm[..s], perm[s..distinct].iter());
    let input: Vec<usize> = (0..t)
        .map(|i| match i {
            i if (a..a + s).contains(&i) => segment[i - a],
            i if (b..b + s).contains(&i) => segment[i - b],
            _ => *filler.next().expect("t − 2s fillers"),
        })
        .collect();
    let targets = (0..t).map(|i| (b..b + s - 1).contains(&i).then(|| input[i + 1])).collect();
    Example { input, targets }
}

/// Checks that the examples suit the model: one length for all, ids and targets below V.
pub(crate) fn check_examples(model: &Model, examples: &[Example]) -> Result<(), String> {
    model.check()?;
    let n = examples.first().map_or(0, |e| e.input.len());
    for (b, e) in examples.iter().enumerate() {
        model.check_input(&e.input).map_err(|m| format!("example {b}: {m}"))?;
        if e.input.len() != n || e.targets.len() != n {
            return Err(format!("example {b}: every input and its targets must have {n} positions, like the first"));
        }
        if let Some(t) = e.targets.iter().flatten().find(|&&t| t >= model.shape.vocab) {
            return Err(format!("example {b}: target {t} is not a token id (0 to {})", model.shape.vocab - 1));
        }
    }
    Ok(())
}
