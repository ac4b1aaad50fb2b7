//! The attention-only transformer: its shape, parameters, initialisation, forward pass (with
//! every head's stages kept for the figure and for the backward pass) and its JSON form.
//!
//! x₀ = tok_emb[ids] + pos_emb[0..n]; for each layer x ← x + concat(heads)·W_O, where head h
//! is the core's [`attend`] on the columns h·d_h … (h+1)·d_h − 1 of x·W_Q, x·W_K, x·W_V
//! (PyTorch's in-projection layout, as `attention` splits heads), scaled by √d_h, under a
//! causal mask when the model is causal; logits = x_L·W_U.

use crate::attention::{attend, Attend, HeadTrace, Stages};
use crate::config::{describe, MaskedRow, Scoring};
use crate::math::Matrix;
use crate::random::RandomState;
use crate::text::quote;
use serde_json::{json, Map, Value};

/// Bounds on a model from JSON: far above the shipped ones, low enough that a forward pass of
/// any accepted model stays well under a second in the browser.
pub const MAX_VOCAB: usize = 1024;
pub const MAX_SEQ_LEN: usize = 256;
pub const MAX_D_MODEL: usize = 256;
pub const MAX_LAYERS: usize = 8;

/// The hyperparameters that fix every parameter's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// V: token ids are 0 … V − 1.
    pub vocab: usize,
    /// T: the longest input (rows of the position embedding).
    pub seq_len: usize,
    /// d: the width of the residual stream.
    pub d_model: usize,
    pub layers: usize,
    /// H per layer; each head is d / H wide.
    pub heads: usize,
    /// Whether position i attends only to positions ≤ i.
    pub causal: bool,
}

impl Shape {
    pub fn head_dim(&self) -> usize {
        self.d_model / self.heads
    }

    /// How many numbers the parameters hold.
    pub fn parameter_count(&self) -> usize {
        let Shape { vocab, seq_len, d_model: d, layers, .. } = *self;
        vocab * d + seq_len * d + layers * 4 * d * d + d * vocab
    }
}

/// One layer's projections, each d × d; head h uses columns h·d_h … (h+1)·d_h − 1 of W_Q,
/// W_K, W_V and rows h·d_h … of W_O.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerParams {
    pub w_q: Matrix,
    pub w_k: Matrix,
    pub w_v: Matrix,
    pub w_o: Matrix,
}

/// Every parameter. Gradients and Adam's moments have this type too.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// V × d.
    pub tok_emb: Matrix,
    /// T × d.
    pub pos_emb: Matrix,
    pub layers: Vec<LayerParams>,
    /// d × V.
    pub w_u: Matrix,
}

impl Params {
    /// Zeros of the shape's sizes.
    pub fn zeros(shape: &Shape) -> Params {
        let Shape { vocab, seq_len, d_model: d, layers, .. } = *shape;
        let square = || Matrix::zeros(d, d);
        Params {
            tok_emb: Matrix::zeros(vocab, d),
            pos_emb: Matrix::zeros(seq_len, d),
            layers: (0..layers)
                .map(|_| LayerParams { w_q: square(), w_k: square(), w_v: square(), w_o: square() })
                .collect(),
            w_u: Matrix::zeros(d, vocab),
        }
    }

    /// Every matrix in the one fixed order used everywhere (initialisation draws, Adam's
    /// moments, finite differences): tok_emb, pos_emb, then per layer w_q, w_k, w_v, w_o,
    /// then w_u.
    pub fn matrices(&self) -> Vec<&Matrix> {
        let mut out = vec![&self.tok_emb, &self.pos_emb];
        for l in &self.layers {
            out.extend([&l.w_q, &l.w_k, &l.w_v, &l.w_o]);
        }
        out.push(&self.w_u);
        out
    }

    /// [`Params::matrices`], mutable, same order.
    pub fn matrices_mut(&mut self) -> Vec<&mut Matrix> {
        let mut out = vec![&mut self.tok_emb, &mut self.pos_emb];
        for l in &mut self.layers {
            out.extend([&mut l.w_q, &mut l.w_k, &mut l.w_v, &mut l.w_o]);
        }
        out.push(&mut self.w_u);
        out
    }

    /// The names of [`Params::matrices`], as the JSON and messages write them.
    pub fn names(&self) -> Vec<String> {
        let mut out = vec!["tok_emb".to_string(), "pos_emb".to_string()];
        for l in 0..self.layers.len() {
            out.extend(["w_q", "w_k", "w_v", "w_o"].map(|w| format!("layers[{l}].{w}")));
        }
        out.push("w_u".to_string());
        out
    }
}

/// Where a model's weights came from (written to its JSON by the trainer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trained {
    pub seed: u32,
    pub steps: usize,
}

/// An attention-only transformer. The fields are public so that a figure can edit a weight;
/// [`Model::forward`] checks the shapes again, so an inconsistent edit is an error, not a panic.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The task it was trained for ("reversal", "induction"), if any.
    pub task: Option<String>,
    pub shape: Shape,
    /// The names of token ids 0 … V − 1 (e.g. "0" … "9"); ids are shown as numbers without them.
    pub tokens: Option<Vec<String>>,
    pub params: Params,
    pub trained: Option<Trained>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LayerTrace {
    /// The residual stream entering the layer (n × d): the token and position embeddings' sum at layer 0, then the
    /// layer before's input plus its heads' contexts times W_O. The figure of a layer's head shows it as X.
    pub residual: Matrix,
    /// Each head's Q, K, V (n × d_h) and stages: scores = QKᵀ, scaled = scores / √d_h (−∞ where masked),
    /// weights = softmax(scaled), context = weights·V.
    pub heads: Vec<HeadTrace>,
}

/// A forward pass over one input of n ≤ T token ids.
#[derive(Clone, Debug, PartialEq)]
pub struct Forward {
    pub input: Vec<usize>,
    /// The input's token names (the model's `tokens`, or the ids written out).
    pub tokens: Vec<String>,
    /// n × V.
    pub logits: Matrix,
    /// n × V: the softmax of each row of the logits.
    pub probabilities: Matrix,
    /// The most probable token id at each position (the first one on a tie).
    pub prediction: Vec<usize>,
    pub layers: Vec<LayerTrace>,
}

impl Forward {
    /// The trace as the web API names it: `{tokens, input, prediction, logits, probabilities,
    /// layers: [{residual, heads: [{q, k, v, scores, scaled, weights, context}]}], repeats}`, matrices as lists of
    /// rows. JSON has no −∞: masked entries of `scaled` are written as `null`.
    pub fn to_json(&self) -> Value {
        let heads = |l: &LayerTrace| -> Vec<Value> {
            l.heads
                .iter()
                .map(|h| {
                    json!({
                        "q": rows(&h.q), "k": rows(&h.k), "v": rows(&h.v), "scores": rows(&h.stages.scores),
                        "scaled": rows(&h.stages.scaled), "weights": rows(&h.stages.weights), "context": rows(&h.stages.context),
                    })
                })
                .collect()
        };
        json!({
            "tokens": self.tokens,
            "input": self.input,
            "prediction": self.prediction,
            "logits": rows(&self.logits),
            "probabilities": rows(&self.probabilities),
            "layers": self.layers.iter().map(|l| json!({ "residual": rows(&l.residual), "heads": heads(l) })).collect::<Vec<_>>(),
            "repeats": self.repeats().to_json(),
        })
    }

    /// Where the input repeats and what each head does there ([`Repeats`]).
    pub fn repeats(&self) -> Repeats {
        let ids = &self.input;
        let n = ids.len();
        let earlier: Vec<Option<usize>> = (0..n).map(|i| ids[..i].iter().position(|&x| x == ids[i])).collect();
        let next: Vec<Option<usize>> = earlier.iter().map(|j| j.map(|j| ids[j + 1])).collect();
        let copies: Vec<Option<bool>> =
            next.iter().zip(&self.prediction).map(|(want, &p)| want.map(|w| w == p)).collect();
        // The mean of `at(i)`'s weight in row i over the positions where it is defined, in position order.
        let mean = |w: &Matrix, at: &dyn Fn(usize) -> Option<usize>| {
            let xs: Vec<f64> = (0..n).filter_map(|i| at(i).map(|j| w.get(i, j))).collect();
            (!xs.is_empty()).then(|| xs.iter().fold(0.0, |a, b| a + b) / xs.len() as f64)
        };
        let per_head = |at: &dyn Fn(usize) -> Option<usize>| -> Vec<Vec<Option<f64>>> {
            self.layers.iter().map(|l| l.heads.iter().map(|h| mean(&h.stages.weights, at)).collect()).collect()
        };
        Repeats {
            scored: copies.iter().flatten().count(),
            copied: copies.iter().flatten().filter(|&&c| c).count(),
            previous: per_head(&|i| i.checked_sub(1)),
            first_run: per_head(&|i| i.checked_sub(1).filter(|_| earlier.contains(&Some(i)))),
            copy: per_head(&|i| earlier[i].map(|j| j + 1)),
            earlier,
            next,
            copies,
        }
    }
}

/// Where an input repeats and what the heads do there (the measures of an induction head, Olsson et al. 2022, that
/// the guided page's chapter 9 reports). Per position: the first earlier position of its token (`earlier`, `None` for
/// a first occurrence), the token that followed it then (`next`), and whether the prediction is that token
/// (`copies`); `scored` positions have an earlier occurrence, and at `copied` of them the prediction copies. Per layer
/// and head (`[layer][head]`), a mean of its weights: on the previous token over positions 1 … n − 1 (`previous`);
/// the same at the positions of a first run, those a later position finds earlier (`first_run`); and at each repeated
/// position on the token after its earlier occurrence, the one an induction head copies (`copy`). `None` where no
/// position counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Repeats {
    pub earlier: Vec<Option<usize>>,
    pub next: Vec<Option<usize>>,
    pub copies: Vec<Option<bool>>,
    pub scored: usize,
    pub copied: usize,
    pub previous: Vec<Vec<Option<f64>>>,
    pub first_run: Vec<Vec<Option<f64>>>,
    pub copy: Vec<Vec<Option<f64>>>,
}

impl Repeats {
    /// `{earlier, next, copies, scored, copied, previous, first_run, copy}` (see [`Repeats`]; `None` is null).
    pub fn to_json(&self) -> Value {
        json!({
            "earlier": self.earlier, "next": self.next, "copies": self.copies, "scored": self.scored,
            "copied": self.copied, "previous": self.previous, "first_run": self.first_run, "copy": self.copy,
        })
    }
}

/// Everything a batched forward pass computes that the backward pass reads. All sequences of a
/// batch have the same length n; row b·n + t of a stacked matrix is position t of sequence b.
pub(crate) struct Run {
    pub n: usize,
    /// The residual stream entering each layer, and after the last (L + 1 matrices, B·n × d).
    pub xs: Vec<Matrix>,
    /// Per layer: x·W_Q, x·W_K, x·W_V (B·n × d).
    pub qkv: Vec<[Matrix; 3]>,
    /// Per layer: the heads' contexts side by side (B·n × d).
    pub concat: Vec<Matrix>,
    /// Per layer, per (sequence b, head h) at index b·H + h: the kernel's stages.
    pub stages: Vec<Vec<Stages>>,
    /// B·n × V.
    pub logits: Matrix,
}

/// Rows r0 … r0 + rows − 1, columns c0 … c0 + cols − 1 of `m`.
pub(crate) fn block(m: &Matrix, r0: usize, rows: usize, c0: usize, cols: usize) -> Matrix {
    let mut out = Matrix::zeros(rows, cols);
    for i in 0..rows {
        out.row_mut(i).copy_from_slice(&m.row(r0 + i)[c0..c0 + cols]);
    }
    out
}

/// Writes `src` into `m` with its top-left corner at (r0, c0).
pub(crate) fn put_block(m: &mut Matrix, r0: usize, c0: usize, src: &Matrix) {
    for i in 0..src.rows() {
        m.row_mut(r0 + i)[c0..c0 + src.cols()].copy_from_slice(src.row(i));
    }
}

/// `a + b`, elementwise.
pub(crate) fn add(a: &Matrix, b: &Matrix) -> Matrix {
    let mut out = a.clone();
    for i in 0..a.rows() {
        for (x, y) in out.row_mut(i).iter_mut().zip(b.row(i)) {
            *x += y;
        }
    }
    out
}

/// The causal mask as the kernel takes it: 1 where key j ≤ query i.
pub(crate) fn causal_mask(n: usize) -> Matrix {
    let mut m = Matrix::zeros(n, n);
    for i in 0..n {
        m.row_mut(i)[..=i].fill(1.0);
    }
    m
}

impl Model {
    /// A model whose every parameter is uniform on [−√(3/d), √(3/d)) (standard deviation
    /// 1/√d, so x·W keeps x's scale and the first attention is close to uniform), drawn as
    /// NumPy draws it: with `rs = np.random.RandomState(seed)`, each matrix in the order of
    /// [`Params::matrices`] is `(2.0 * rs.rand(rows, cols) - 1.0) * np.sqrt(3.0 / d)`.
    /// `rand` rather than `randn`, because `randn` goes through the platform's `log` and would
    /// not give the same bits in WebAssembly.
    pub fn init(shape: Shape, rng: &mut RandomState) -> Model {
        let mut params = Params::zeros(&shape);
        let a = (3.0 / shape.d_model as f64).sqrt();
        for m in params.matrices_mut() {
            for i in 0..m.rows() {
                let draws = rng.rand(m.cols());
                for (x, u) in m.row_mut(i).iter_mut().zip(draws) {
                    *x = (2.0 * u - 1.0) * a;
                }
            }
        }
        Model { task: None, shape, tokens: None, params, trained: None }
    }

    /// Whether every parameter has the shape's size (a figure may have edited them).
    pub fn check(&self) -> Result<(), String> {
        check_shape(&self.shape)?;
        if self.params.layers.len() != self.shape.layers {
            return Err(format!(
                "params.layers has {} layers, expected {}",
                self.params.layers.len(),
                self.shape.layers
            ));
        }
        let want = Params::zeros(&self.shape);
        for ((got, want), name) in self.params.matrices().iter().zip(want.matrices()).zip(self.params.names()) {
            if got.shape() != want.shape() {
                let ((r, c), (wr, wc)) = (got.shape(), want.shape());
                return Err(format!("{name} is {r} × {c}, expected {wr} × {wc}"));
            }
            if let Some((i, j)) = got.first_non_finite() {
                return Err(format!("{name}[{i}][{j}] is {}; every parameter must be a finite number", got.get(i, j)));
            }
        }
        Ok(())
    }

    /// The name of token id `id`.
    pub fn token_name(&self, id: usize) -> String {
        self.tokens.as_ref().and_then(|t| t.get(id).cloned()).unwrap_or_else(|| id.to_string())
    }

    /// Checks one input: 1 … T ids, each below V.
    pub fn check_input(&self, input: &[usize]) -> Result<(), String> {
        let Shape { vocab, seq_len, .. } = self.shape;
        if input.is_empty() || input.len() > seq_len {
            return Err(format!("input has {} tokens; this model reads 1 to {seq_len}", input.len()));
        }
        if let Some((i, id)) = input.iter().enumerate().find(|(_, &id)| id >= vocab) {
            return Err(format!("input[{i}] is {id}; token ids go from 0 to {}", vocab - 1));
        }
        Ok(())
    }

    /// The forward pass over one input of 1 … T token ids, with every head's stages.
    pub fn forward(&self, input: &[usize]) -> Result<Forward, String> {
        self.check()?;
        self.check_input(input)?;
        let run = self.run(&[input]);
        let dh = self.shape.head_dim();
        let layers = (0..self.shape.layers)
            .map(|l| {
                let heads = (0..self.shape.heads)
                    .map(|h| {
                        let [q, k, v] = &run.qkv[l];
                        let cols = |m: &Matrix| m.columns(h * dh, dh);
                        HeadTrace { q: cols(q), k: cols(k), v: cols(v), stages: run.stages[l][h].clone() }
                    })
                    .collect();
                LayerTrace { residual: run.xs[l].clone(), heads }
            })
            .collect();
        let probabilities = softmax_rows(&run.logits);
        let prediction = argmax_rows(&run.logits);
        let tokens = input.iter().map(|&id| self.token_name(id)).collect();
        Ok(Forward { input: input.to_vec(), tokens, logits: run.logits, probabilities, prediction, layers })
    }

    /// The batched forward pass. The caller has checked the model and that every sequence has
    /// the same length n, 1 ≤ n ≤ T, with ids below V.
    pub(crate) fn run(&self, batch: &[&[usize]]) -> Run {
        let Shape { d_model: d, heads, causal, .. } = self.shape;
        let n = batch.first().map_or(0, |s| s.len());
        let dh = self.shape.head_dim();
        let p = &self.params;
        let mut x = Matrix::zeros(batch.len() * n, d);
        for (b, seq) in batch.iter().enumerate() {
            for (t, &id) in seq.iter().enumerate() {
                for ((o, e), q) in x.row_mut(b * n + t).iter_mut().zip(p.tok_emb.row(id)).zip(p.pos_emb.row(t)) {
                    *o = e + q;
                }
            }
        }
        let mask = causal.then(|| causal_mask(n));
        let how = Attend {
            scoring: &Scoring::Dot,
            scale: (dh as f64).sqrt(),
            temperature: 1.0,
            allowed: mask.as_ref(),
            // The diagonal is always allowed, so no row is ever fully masked.
            masked_row: MaskedRow::Zero,
            softcap: None,
        };
        let (mut xs, mut qkv, mut concat, mut stages) = (vec![], vec![], vec![], vec![]);
        for layer in &p.layers {
            let proj = [x.matmul(&layer.w_q), x.matmul(&layer.w_k), x.matmul(&layer.w_v)];
            let mut heads_out = Matrix::zeros(batch.len() * n, d);
            let mut layer_stages = Vec::with_capacity(batch.len() * heads);
            for b in 0..batch.len() {
                for h in 0..heads {
                    let [q, k, v] = proj.each_ref().map(|m| block(m, b * n, n, h * dh, dh));
                    let s = attend(&q, &k, &v, &how);
                    put_block(&mut heads_out, b * n, h * dh, &s.context);
                    layer_stages.push(s);
                }
            }
            let next = add(&x, &heads_out.matmul(&layer.w_o));
            xs.push(x);
            x = next;
            qkv.push(proj);
            concat.push(heads_out);
            stages.push(layer_stages);
        }
        let logits = x.matmul(&p.w_u);
        xs.push(x);
        Run { n, xs, qkv, concat, stages, logits }
    }

    /// The argmax of each output position for many inputs of one length (the trainer's
    /// accuracy), without building traces. Unchecked, like [`Model::run`].
    pub(crate) fn predict_batch(&self, batch: &[&[usize]]) -> Vec<Vec<usize>> {
        let run = self.run(batch);
        let all = argmax_rows(&run.logits);
        all.chunks(run.n.max(1)).map(<[usize]>::to_vec).collect()
    }

    /// The model as plain JSON: `{task, vocab, seq_len, d_model, layers, heads, causal, tokens,
    /// trained: {seed, steps}, params: {tok_emb, pos_emb, layers: [{w_q, w_k, w_v, w_o}], w_u}}`,
    /// every matrix a list of rows. Numbers are written so that they read back bit for bit.
    pub fn to_json(&self) -> Value {
        let Shape { vocab, seq_len, d_model, layers, heads, causal } = self.shape;
        let p = &self.params;
        let mut out = Map::new();
        if let Some(task) = &self.task {
            out.insert("task".into(), json!(task));
        }
        out.insert("vocab".into(), json!(vocab));
        out.insert("seq_len".into(), json!(seq_len));
        out.insert("d_model".into(), json!(d_model));
        out.insert("layers".into(), json!(layers));
        out.insert("heads".into(), json!(heads));
        out.insert("causal".into(), json!(causal));
        if let Some(tokens) = &self.tokens {
            out.insert("tokens".into(), json!(tokens));
        }
        if let Some(Trained { seed, steps }) = self.trained {
            out.insert("trained".into(), json!({ "seed": seed, "steps": steps }));
        }
        let layer_json = |l: &LayerParams| json!({ "w_q": rows(&l.w_q), "w_k": rows(&l.w_k), "w_v": rows(&l.w_v), "w_o": rows(&l.w_o) });
        out.insert(
            "params".into(),
            json!({
                "tok_emb": rows(&p.tok_emb),
                "pos_emb": rows(&p.pos_emb),
                "layers": p.layers.iter().map(layer_json).collect::<Vec<_>>(),
                "w_u": rows(&p.w_u),
            }),
        );
        Value::Object(out)
    }

    /// [`Model::to_json`] as text laid out for reading and for diffs: one matrix row a line.
    pub fn to_json_string(&self) -> String {
        let mut out = String::new();
        write_pretty(&self.to_json(), 0, &mut out);
        out.push('\n');
        out
    }

    /// A model from its JSON text (see [`Model::from_json`]).
    pub fn from_json_str(text: &str) -> Result<Model, String> {
        let value: Value = crate::config::json::parse(text).map_err(|e| format!("model is not valid JSON: {e}"))?;
        Model::from_json(&value)
    }

    /// A model from its JSON object (the form [`Model::to_json`] writes; `task`, `tokens` and
    /// `trained` may be left out, `causal` defaults to false), every field and shape checked;
    /// the message names the field and position that is wrong (`params.layers[0].w_q row 3 has 15 values, expected 16
    /// (d_model)`).
    pub fn from_json(value: &Value) -> Result<Model, String> {
        let Some(obj) = value.as_object() else {
            return Err(format!("a model must be an object, got {}", describe(value)));
        };
        const FIELDS: [&str; 10] =
            ["task", "vocab", "seq_len", "d_model", "layers", "heads", "causal", "tokens", "trained", "params"];
        if let Some(key) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(format!("unknown model field {}; known fields are {}", quote(key), FIELDS.join(", ")));
        }
        let task = match obj.get("task") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return Err(format!("task must be a name, got {}", describe(other))),
        };
        let vocab = whole(obj, "vocab", 1, MAX_VOCAB)?;
        let seq_len = whole(obj, "seq_len", 1, MAX_SEQ_LEN)?;
        let d_model = whole(obj, "d_model", 1, MAX_D_MODEL)?;
        let layers = whole(obj, "layers", 1, MAX_LAYERS)?;
        let heads = whole(obj, "heads", 1, d_model)?;
        let causal = match obj.get("causal") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(format!("causal must be true or false, got {}", describe(other))),
        };
        let shape = Shape { vocab, seq_len, d_model, layers, heads, causal };
        check_shape(&shape)?;
        let tokens = match obj.get("tokens") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => {
                if items.len() != vocab {
                    return Err(format!("tokens has {} names, expected {vocab} (vocab)", items.len()));
                }
                let names = items.iter().enumerate().map(|(i, t)| match t {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(format!("tokens[{i}] must be a name, got {}", describe(other))),
                });
                Some(names.collect::<Result<Vec<_>, _>>()?)
            }
            Some(other) => return Err(format!("tokens must be a list of {vocab} names, got {}", describe(other))),
        };
        let trained = match obj.get("trained") {
            None | Some(Value::Null) => None,
            Some(Value::Object(t)) => {
                let seed = whole(t, "seed", 0, u32::MAX as usize).map_err(|e| format!("trained.{e}"))? as u32;
                let steps = whole(t, "steps", 0, usize::MAX).map_err(|e| format!("trained.{e}"))?;
                Some(Trained { seed, steps })
            }
            Some(other) => return Err(format!("trained must be {{seed, steps}}, got {}", describe(other))),
        };
        let params = parse_params(obj.get("params"), &shape)?;
        Ok(Model { task, shape, tokens, params, trained })
    }
}

/// The shape's bounds (again, for a shape edited after parsing).
fn check_shape(shape: &Shape) -> Result<(), String> {
    let Shape { vocab, seq_len, d_model, layers, heads, .. } = *shape;
    let bounds = [("vocab", vocab, MAX_VOCAB), ("seq_len", seq_len, MAX_SEQ_LEN), ("d_model", d_model, MAX_D_MODEL)];
    for (name, x, max) in bounds.into_iter().chain([("layers", layers, MAX_LAYERS)]) {
        if !(1..=max).contains(&x) {
            return Err(format!("{name} must be a whole number from 1 to {max}, got {x}"));
        }
    }
    if heads == 0 || d_model % heads != 0 {
        return Err(format!("heads must divide d_model: {d_model} is not a multiple of {heads}"));
    }
    Ok(())
}

fn parse_params(value: Option<&Value>, shape: &Shape) -> Result<Params, String> {
    let Shape { vocab, seq_len, d_model: d, layers, .. } = *shape;
    let Some(obj) = value.and_then(Value::as_object) else {
        let got = value.map_or("nothing".to_string(), describe);
        return Err(format!("params must be an object {{tok_emb, pos_emb, layers, w_u}}, got {got}"));
    };
    const FIELDS: [&str; 4] = ["tok_emb", "pos_emb", "layers", "w_u"];
    if let Some(key) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!("unknown field params.{}; known fields are {}", quote(key), FIELDS.join(", ")));
    }
    let tok_emb = matrix(obj.get("tok_emb"), "params.tok_emb", (vocab, "vocab"), (d, "d_model"))?;
    let pos_emb = matrix(obj.get("pos_emb"), "params.pos_emb", (seq_len, "seq_len"), (d, "d_model"))?;
    let w_u = matrix(obj.get("w_u"), "params.w_u", (d, "d_model"), (vocab, "vocab"))?;
    let list = match obj.get("layers") {
        Some(Value::Array(list)) if list.len() == layers => list,
        Some(Value::Array(list)) => {
            return Err(format!("params.layers has {} layers, expected {layers} (layers)", list.len()));
        }
        other => {
            let got = other.map_or("nothing".to_string(), describe);
            return Err(format!("params.layers must be a list of {layers} {{w_q, w_k, w_v, w_o}}, got {got}"));
        }
    };
    let mut parsed = Vec::with_capacity(layers);
    for (l, layer) in list.iter().enumerate() {
        let Some(layer) = layer.as_object() else {
            return Err(format!(
                "params.layers[{l}] must be an object {{w_q, w_k, w_v, w_o}}, got {}",
                describe(layer)
            ));
        };
        if let Some(key) = layer.keys().find(|k| !["w_q", "w_k", "w_v", "w_o"].contains(&k.as_str())) {
            return Err(format!(
                "unknown field params.layers[{l}].{}; known fields are w_q, w_k, w_v, w_o",
                quote(key)
            ));
        }
        let m =
            |name: &str| matrix(layer.get(name), &format!("params.layers[{l}].{name}"), (d, "d_model"), (d, "d_model"));
        parsed.push(LayerParams { w_q: m("w_q")?, w_k: m("w_k")?, w_v: m("w_v")?, w_o: m("w_o")? });
    }
    Ok(Params { tok_emb, pos_emb, layers: parsed, w_u })
}

/// A `rows × cols` matrix of finite numbers at `name`.
fn matrix(value: Option<&Value>, name: &str, rows: (usize, &str), cols: (usize, &str)) -> Result<Matrix, String> {
    let ((r, r_what), (c, c_what)) = (rows, cols);
    let list = match value {
        Some(Value::Array(list)) => list,
        other => {
            let got = other.map_or("nothing".to_string(), describe);
            return Err(format!("{name} must be a {r} × {c} matrix ({r_what} × {c_what}), got {got}"));
        }
    };
    if list.len() != r {
        return Err(format!("{name} has {} rows, expected {r} ({r_what})", list.len()));
    }
    let mut out = Matrix::zeros(r, c);
    for (i, row) in list.iter().enumerate() {
        let Some(row) = row.as_array() else {
            return Err(format!("{name} row {i} must be a list of numbers, got {}", describe(row)));
        };
        if row.len() != c {
            return Err(format!("{name} row {i} has {} values, expected {c} ({c_what})", row.len()));
        }
        for (j, x) in row.iter().enumerate() {
            match x.as_f64() {
                Some(x) if x.is_finite() => out.set(i, j, x),
                _ => return Err(format!("{name}[{i}][{j}] must be a finite number, got {}", describe(x))),
            }
        }
    }
    Ok(out)
}

/// A whole number from `min` to `max` at `key`.
fn whole(obj: &Map<String, Value>, key: &str, min: usize, max: usize) -> Result<usize, String> {
    let range = if max == usize::MAX { format!("≥ {min}") } else { format!("from {min} to {max}") };
    match obj.get(key) {
        None => Err(format!("{key} is missing: a whole number {range}")),
        Some(v) => match v.as_u64().and_then(|x| usize::try_from(x).ok()) {
            Some(x) if (min..=max).contains(&x) => Ok(x),
            _ => Err(format!("{key} must be a whole number {range}, got {}", describe(v))),
        },
    }
}

/// A matrix as a list of rows (non-finite numbers become `null`, as serde_json writes them).
fn rows(m: &Matrix) -> Value {
    json!(m.to_rows())
}

/// The softmax of each row.
pub(crate) fn softmax_rows(m: &Matrix) -> Matrix {
    let mut out = Matrix::zeros(m.rows(), m.cols());
    for i in 0..m.rows() {
        crate::math::softmax_stable_into(m.row(i), out.row_mut(i));
    }
    out
}

/// The index of each row's largest entry.
pub(crate) fn argmax_rows(m: &Matrix) -> Vec<usize> {
    (0..m.rows()).map(|i| argmax(m.row(i))).collect()
}

/// The index of the largest entry (the first on a tie), 0 for an empty row.
pub(crate) fn argmax(row: &[f64]) -> usize {
    row.iter().enumerate().fold((0, f64::NEG_INFINITY), |best, (j, &x)| if x > best.1 { (j, x) } else { best }).0
}

/// JSON with objects one key a line and lists of numbers on one line, so a matrix is one row
/// a line. Numbers go through serde_json, so they read back bit for bit.
fn write_pretty(value: &Value, indent: usize, out: &mut String) {
    let pad = |n: usize| "  ".repeat(n);
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            // Params last, so that a reader sees the shape first (the map itself is sorted).
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by_key(|(k, _)| k.as_str() == "params");
            for (i, (k, v)) in entries.into_iter().enumerate() {
                out.push_str(&pad(indent + 1));
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                write_pretty(v, indent + 1, out);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(indent));
            out.push('}');
        }
        Value::Array(items) if items.iter().any(|v| v.is_array() || v.is_object()) => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                write_pretty(v, indent + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(indent));
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
