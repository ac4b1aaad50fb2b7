//! The scenario model: what the user set up, validated.
//!
//! A config arrives as JSON (from JS, a preset, later a share link). Parsing
//! checks every field and fails with a message that names the field, the row
//! and the column, so a learner can find the bad number. A `Config` that
//! exists is always computable: shapes agree, every value is finite.

use crate::math::Matrix;
use crate::text::quote;
use crate::weights::{Stack, MAX_HEADS, MAX_VALUES};
use serde_json::{json, Map, Value};

pub mod json;
mod layers;
pub use layers::{Layers, Norm, Shapes, BIASES, LAYER_FIELDS};

/// Tokens and dimensions beyond these are refused rather than freezing the tab.
pub const MAX_TOKENS: usize = 4096;
pub const MAX_DIMS: usize = 1024;

/// The longest list a config holds outside its matrices: the tokens' names, `valid_lens`, a mask's rows and each of
/// them, a vector (`decoder_state`, `v_a`, `position.slopes`); none is longer than the tokens or the dimensions allow.
pub const MAX_LIST: usize = if MAX_TOKENS > MAX_DIMS { MAX_TOKENS } else { MAX_DIMS };

/// The one key of a long list's stand-in, `{"$list_length": N}`: what the shells send instead of a list of
/// N > [`MAX_LIST`] items anywhere in a config outside its matrices. No field can hold such a list, whatever its items,
/// so writing them out as JSON and reading them back (seconds for 4,000,000 of them) would only end in its refusal:
/// every parser here reads the stand-in as a list of N items, and refuses it in the words the list itself gets
/// ("sinks must be … got a list of N items", "window has N values; …").
pub const LIST_LENGTH: &str = "$list_length";

/// The most work a config may need: a full compute of it takes at most about a quarter
/// of a second natively and half a second in a browser (the wasm core is ~2× slower),
/// so no call blocks the page for a second. Measured (native release, scalar core) as
/// seconds per unit of [`Config::cost`]: n = 512, d = 64, d_k = d_v = 64: 32 ms for
/// 6.6e7 (0.49 ns); n = 1024, same: 96 ms for 2.5e8 (0.38 ns); n = 2048, d = 1:
/// 0.25 s for 4.3e8 (0.58 ns). At 3e8, about 0.18 s natively, 0.35 s in a browser.
pub const MAX_COST: f64 = 3e8;

/// The most work a read-only self-attention figure may need when a Web Worker computes it: the page's
/// main thread then only puts the worker's images and reads values under the cursor, so the bound is the worker's
/// time and memory, not a frame's. n = 4096, d = 64 with projections costs 3.9e9 (a few seconds in the worker; its
/// three 4096 × 4096 stages hold 400 MB, which the worker releases when it ends); 8e9 admits d_k = 128 at n = 4096.
pub const MAX_WORKER_COST: f64 = 8e9;

std::thread_local! {
    /// Whether [`Work::check`] applies the worker's bound: [`MAX_WORKER_COST`] to what the worker computes (the
    /// followed head, [`Config::worker_cost`]) instead of [`MAX_COST`] to every head. True inside [`with_worker_limit`].
    static WORKER_LIMIT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (a config's parsing, for the worker's large figure) under the worker's bound: [`MAX_WORKER_COST`] on the
/// work of the followed head alone, the only one the worker computes. A bound kept beside the parser instead of passed
/// through each parse function: only the worker's one call changes it.
pub fn with_worker_limit<T>(f: impl FnOnce() -> T) -> T {
    let old = WORKER_LIMIT.with(|c| c.replace(true));
    let out = f();
    WORKER_LIMIT.with(|c| c.set(old));
    out
}

/// Whether a config the page's bound refuses is one the worker's large figure computes: self-attention (with or
/// without projections, any heads, scoring, mask and temperature) within [`MAX_WORKER_COST`], with none of the parts
/// its stages do not show (positions, W_O, the decode step, FlashAttention's tiles, a real layer's biases, norms and
/// soft cap). `rest` and `shapes` as
/// [`check_declared_shapes`] reads them.
pub fn worker_takes(rest: &Value, shapes: &[(&str, Vec<usize>)]) -> bool {
    let Value::Object(obj) = rest else { return false };
    let has = |name: &str| shapes.iter().any(|(k, _)| *k == name) || obj.contains_key(name);
    let mechanism = match obj.get("mechanism") {
        Some(m) => m.as_str(),
        None => inferred_mechanism(has).ok(),
    };
    let self_attention = mechanism == Some("self")
        && shapes.iter().any(|(k, _)| *k == "embeddings")
        && !shapes.iter().any(|(k, _)| matches!(*k, "attention" | "annotations" | "decoder_state" | "w_o"));
    let shown = ["position", "decode_step", "tiles", "w_o"].iter().chain(&LAYER_FIELDS);
    let plain = shown.into_iter().all(|k| obj.get(*k).is_none_or(Value::is_null));
    self_attention
        && plain
        && check_declared_shapes(rest, shapes).is_err()
        && with_worker_limit(|| check_declared_shapes(rest, shapes)).is_ok()
}

/// What each entry of an n × n attention matrix costs beyond its multiply-adds, in
/// multiply-adds: the stable softmax's exponential and division, the naive one's where
/// it runs, and the four n × n stages of the trace (measured: ~58 ns an entry natively
/// at d = 1, where a multiply-add takes 0.4–0.8 ns).
pub const COST_PER_WEIGHT: f64 = 100.0;

/// What each number a trace keeps beyond the stages costs, in multiply-adds: ALiBi's bias and FlashAttention's m, l
/// and o after each tile are written once and read out (COST_PER_WEIGHT counts five such numbers an entry).
pub const COST_PER_STORED: f64 = 20.0;

/// What each FlashAttention tile of the trace costs besides its numbers, in multiply-adds: its step's entry in the
/// trace object (`flash.steps[s]`, built from one row of a table, `attention::Flash::table`). Measured (Node, idle,
/// compute() of n = 170, d = 1, tiles 1 × 1: 28,900 steps) at about 1 µs a step, nested or typed, where 1e4 stands
/// for ~12 µs: tiles of 1 × 1 on 1000 tokens (10⁶ steps) are refused, 30,000 steps pass.
pub const COST_PER_TILE: f64 = 1e4;

/// What each weight of a model's stack (`mechanism: "weights"`) costs the figure, in multiply-adds:
/// read from JS and copied in, checked, its summaries (a logarithm, a division) and the figure's thumbnail.
/// Measured in Chromium (bench/hostile.mjs), el.config of 12 × 12 heads at n = 240 (8.3 M weights, BERT-base's
/// attentions for 240 tokens) takes 3.2× as long as 1600 tokens × 4 at 2.8e8, about 90 a weight; it is counted at
/// 30 so that this stack, which MAX_VALUES was sized for, stays within the bound (2.6e8): it is loaded once, when
/// the page sets it, and picking its heads is cheap. 1 × 12 heads at n = 512 cost 1.1e8.
pub const COST_PER_SHOWN_WEIGHT: f64 = 30.0;

/// What each weight of the head a weights figure shows in full costs besides, in multiply-adds: its cell of
/// the heatmap (a colour, a pixel block). The selected head is any one of the stack's: the size of one counts.
/// One head of 2896 × 2896 (within MAX_VALUES) costs 6.7e8 and is refused; ~1930 × 1930 is the largest.
pub const COST_PER_DRAWN_WEIGHT: f64 = 50.0;

/// What each head of a model's stack costs whatever its size, in multiply-adds: its summary, its
/// thumbnail in the element's grid (a few thousand pixels coloured) and its labels.
pub const COST_PER_HEAD: f64 = 5e4;

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub mechanism: Mechanism,
    /// Labels of the tokens (self) or of the encoder states (cross); always one per row.
    pub tokens: Vec<String>,
    pub scale: Scale,
    /// The query the single-query breakdown follows.
    pub query: usize,
    /// Heads, W_O, the scoring function, temperature, masks and the modern fields; the
    /// defaults are the seed documents' single dot-product head.
    pub options: Options,
}

/// What a transformer adds to the documents' attention. Every field is optional
/// in the JSON and defaults to the documents' behaviour (see [`Options::default`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Self-attention heads; head i uses columns i·d_k … (i+1)·d_k − 1 of Q and K
    /// (i·d_v … of V), PyTorch's in-projection layout. Always 1 for cross-attention.
    pub heads: usize,
    /// The head the breakdown and the element's stage-by-stage view follow.
    pub head: usize,
    /// (h·d_v) × d_out: output = the heads' contexts side by side · W_O (self only).
    pub w_o: Option<Matrix>,
    pub scoring: Scoring,
    /// scaled = scores / scale / temperature.
    pub temperature: f64,
    pub mask: Mask,
    /// Query i may attend keys 0 … valid_lens[i] − 1 (d2l's valid lengths).
    pub valid_lens: Option<Vec<usize>>,
    pub masked_row: MaskedRow,
    /// How the tokens' order enters: absent, sinusoidal (added to X), RoPE (q, k rotated), ALiBi (a bias).
    pub position: Option<Position>,
    /// Key/value heads when fewer than `heads` (GQA; 1 = multi-query): query head h uses kv head
    /// ⌊h / (heads / kv_heads)⌋. `None`: one per query head (kept `None` when it equals `heads`).
    pub kv_heads: Option<usize>,
    /// `[left, right]`: query i may attend keys i − left … i + right only (JAX's `local_window_size`).
    pub window: Option<[u64; 2]>,
    /// Keys 0 … sinks − 1 are attended where the window alone would forbid them (StreamingLLM's sinks).
    pub sinks: u64,
    /// Generation at step t (causal mask only): the trace's `decode` (the query of token t and the KV cache 0 … t).
    pub decode_step: Option<usize>,
    /// `[rows, cols]`: FlashAttention-2's blocks, for the trace's `flash`.
    pub tiles: Option<[u64; 2]>,
    /// What real models' layers add: the projections' biases, the q/k norms, the soft cap (self only).
    pub layers: Layers,
}

/// How a token's position p (its index) enters the attention.
#[derive(Clone, Debug, PartialEq)]
pub enum Position {
    /// X + PE, PE[p, j] = sin / cos(p / base^(2⌊j/2⌋/d_model)) (Vaswani et al. 2017 §3.5); token r is at position
    /// p = r + offset (`position.offset`, default 0: every position shifted by it).
    Sinusoidal { base: f64, offset: u64 },
    /// Each head's q and k rows rotated pairwise by p·θ_i, θ_i = base^(−2i/d_k) (Su et al. 2021); p = r + offset as
    /// above (the scores stay the same whatever the offset: q_p·k_p' depends on p − p' only). Only the first
    /// `rotary_dim` values of a row rotate (`None`: all d_k; GPT-NeoX, Phi, GPT-J rotate fewer), θ_i =
    /// base^(−2i/rotary_dim) unless `frequencies` gives the θ_i (scaled RoPE), and cos and sin are both multiplied by
    /// `attention_factor` (transformers' `attention_scaling`, 1 by default).
    Rope {
        base: f64,
        pairs: Pairs,
        offset: u64,
        rotary_dim: Option<usize>,
        frequencies: Option<Vec<f64>>,
        attention_factor: f64,
    },
    /// scaled += −m_h·|i − j| (Press et al. 2022); `None`: the default m_h = 2^(−8(h+1)/H).
    Alibi { slopes: Option<Vec<f64>> },
}

/// Which entries of a head's q and k RoPE rotates together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pairs {
    /// (x_2i, x_2i+1): RoFormer (Su et al. 2021, eq. 34), the complex-number form.
    Interleaved,
    /// (x_i, x_i+d/2): GPT-NeoX's and LLaMA's "rotate half".
    Halves,
}

/// RoPE's and the sinusoidal encoding's default base.
pub const DEFAULT_BASE: f64 = 10000.0;

impl Position {
    pub fn kind(&self) -> &'static str {
        match self {
            Position::Sinusoidal { .. } => "sinusoidal",
            Position::Rope { .. } => "rope",
            Position::Alibi { .. } => "alibi",
        }
    }

    /// The `position` field as the config's JSON writes it (the offset only when there is one; the slopes only when
    /// given).
    pub fn to_value(&self) -> Value {
        match self {
            Position::Sinusoidal { base, offset } => {
                let mut p = json!({"kind": "sinusoidal", "base": number_value(*base)});
                if *offset != 0 {
                    p["offset"] = json!(offset);
                }
                p
            }
            Position::Rope { base, pairs, offset, rotary_dim, frequencies, attention_factor } => {
                let mut p = json!({"kind": "rope", "base": number_value(*base), "pairs": pairs.name()});
                if *offset != 0 {
                    p["offset"] = json!(offset);
                }
                if let Some(r) = rotary_dim {
                    p["rotary_dim"] = json!(r);
                }
                if let Some(f) = frequencies {
                    p["frequencies"] = numbers_value(f);
                }
                if *attention_factor != 1.0 {
                    p["attention_factor"] = number_value(*attention_factor);
                }
                p
            }
            Position::Alibi { slopes } => {
                let mut p = Map::new();
                p.insert("kind".into(), json!("alibi"));
                if let Some(s) = slopes {
                    p.insert("slopes".into(), numbers_value(s));
                }
                Value::Object(p)
            }
        }
    }

    /// How far every position is shifted (`position.offset`): token r is at position r + offset; 0 for ALiBi.
    pub fn offset(&self) -> u64 {
        match self {
            Position::Sinusoidal { offset, .. } | Position::Rope { offset, .. } => *offset,
            Position::Alibi { .. } => 0,
        }
    }

    /// RoPE's θ_i for a head `d_k` wide: `frequencies` as given, else base^(−2i/rotary_dim) for the rotated
    /// dimensions' pairs; empty for the other kinds.
    pub fn rope_frequencies(&self, d_k: usize) -> Vec<f64> {
        match self {
            Position::Rope { frequencies: Some(f), .. } => f.clone(),
            Position::Rope { base, rotary_dim, .. } => {
                crate::math::position::rope_frequencies(rotary_dim.unwrap_or(d_k), *base)
            }
            _ => vec![],
        }
    }

    /// ALiBi's slope of each of `heads` heads (the given ones, or 2^(−8(h+1)/H)); empty for the other kinds.
    pub fn slopes(&self, heads: usize) -> Vec<f64> {
        match self {
            Position::Alibi { slopes: Some(s) } => s.clone(),
            Position::Alibi { slopes: None } => {
                (0..heads).map(|h| (-8.0 * (h + 1) as f64 / heads as f64).exp2()).collect()
            }
            _ => vec![],
        }
    }
}

impl Pairs {
    pub fn name(self) -> &'static str {
        match self {
            Pairs::Interleaved => "interleaved",
            Pairs::Halves => "halves",
        }
    }
}

/// [`Options::reason`]'s bits: key j is masked by `mask`, lies beyond `valid_lens`, or lies outside the window (not a
/// sink).
pub const BY_MASK: u8 = 1;
pub const BY_VALID_LENS: u8 = 2;
pub const BY_WINDOW: u8 = 4;

impl Options {
    /// The rules that forbid query i key j: [`BY_MASK`], [`BY_VALID_LENS`] and [`BY_WINDOW`] added; 0 when key j is
    /// attended. Cross-attention's one query is 0. The one masking rule: attention masks by it, the mask view and
    /// the tooltips say it, and a decode step's row is checked by it.
    pub fn reason(&self, i: usize, j: usize) -> u8 {
        let by_mask = match &self.mask {
            Mask::None => false,
            Mask::Causal => j > i,
            Mask::Matrix(a) => a.get(i, j) == 0.0,
        };
        let by_len = self.valid_lens.as_ref().is_some_and(|lens| j >= lens[i]);
        let by_window = self.outside_window(i, j) && j as u64 >= self.sinks;
        BY_MASK * u8::from(by_mask) + BY_VALID_LENS * u8::from(by_len) + BY_WINDOW * u8::from(by_window)
    }

    /// Whether key j is outside query i's `window` (sinks aside; false without a window).
    fn outside_window(&self, i: usize, j: usize) -> bool {
        let (i, j) = (i as u64, j as u64);
        self.window.is_some_and(|[left, right]| j.saturating_add(left) < i || j > i.saturating_add(right))
    }

    /// Whether key j is attended by query i only as a sink: outside the window, among keys 0 … sinks − 1 (the
    /// tooltips say so).
    pub fn sink_opens(&self, i: usize, j: usize) -> bool {
        (j as u64) < self.sinks && self.outside_window(i, j)
    }

    /// Key/value heads (`heads` unless fewer were set).
    pub fn kv_heads(&self) -> usize {
        self.kv_heads.unwrap_or(self.heads)
    }

    /// The key/value head counts this config's `heads` allows: its divisors (each K/V head serves heads / kv_heads
    /// query heads). The kv panel offers exactly these.
    pub fn kv_heads_choices(&self) -> Vec<usize> {
        (1..=self.heads).filter(|d| self.heads % d == 0).collect()
    }

    /// Whether any modern field (position, kv_heads, window, sinks, decode_step, tiles, a real layer's biases, norms
    /// or soft cap) is set: the incremental patches know none of them.
    pub fn has_modern(&self) -> bool {
        self.layers.any()
            || self.position.is_some()
            || self.kv_heads.is_some()
            || self.window.is_some()
            || self.sinks != 0
            || self.decode_step.is_some()
            || self.tiles.is_some()
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            heads: 1,
            head: 0,
            w_o: None,
            scoring: Scoring::Dot,
            temperature: 1.0,
            mask: Mask::None,
            valid_lens: None,
            masked_row: MaskedRow::Zero,
            position: None,
            kv_heads: None,
            window: None,
            sinks: 0,
            decode_step: None,
            tiles: None,
            layers: Layers::default(),
        }
    }
}

/// How a query is compared with a key.
#[derive(Clone, Debug, PartialEq)]
pub enum Scoring {
    /// q · k.
    Dot,
    /// Luong et al. 2015: q · W_a · kᵀ, W_a d_q × d_k.
    General { w_a: Matrix },
    /// Bahdanau et al. 2015: v_a · tanh(q·W_a + k·U_a), W_a d_q × d_a, U_a d_k × d_a.
    Additive { w_a: Matrix, u_a: Matrix, v_a: Vec<f64> },
    /// q·k / max(‖q‖·‖k‖, 1e-8), the eps of PyTorch's `cosine_similarity`.
    Cosine,
}

impl Scoring {
    pub fn name(&self) -> &'static str {
        match self {
            Scoring::Dot => "dot",
            Scoring::General { .. } => "general",
            Scoring::Additive { .. } => "additive",
            Scoring::Cosine => "cosine",
        }
    }
}

/// Which keys each query may attend (besides `valid_lens`).
#[derive(Clone, Debug, PartialEq)]
pub enum Mask {
    None,
    /// Query i attends keys 0 … i.
    Causal,
    /// n × m of 0/1 (cross-attention: 1 × m), 1 = may attend (PyTorch's boolean `attn_mask`).
    Matrix(Matrix),
}

/// What a query whose every key is masked gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MaskedRow {
    /// Weights 0 and context 0 (PyTorch ≥ 2.5's `scaled_dot_product_attention`).
    Zero,
    /// 1/m over all keys (d2l's `masked_softmax` with its −1e6 fill).
    Uniform,
    /// 0/0: NaN weights and context, the literal mathematics.
    Nan,
}

impl MaskedRow {
    pub fn name(self) -> &'static str {
        match self {
            MaskedRow::Zero => "zero",
            MaskedRow::Uniform => "uniform",
            MaskedRow::Nan => "nan",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Mechanism {
    SelfAttention {
        embeddings: Matrix,
        projections: Option<Projections>,
    },
    Cross {
        decoder_state: Vec<f64>,
        annotations: Matrix,
    },
    /// A model's attention, shown as it is: `tokens` label the n queries, `key_tokens` the m keys;
    /// `layer` and `head` pick the head the full heatmap shows.
    Weights {
        attention: Stack,
        key_tokens: Vec<String>,
        layer: usize,
        head: usize,
    },
}

impl Mechanism {
    /// Its `mechanism` field's value.
    pub fn name(&self) -> &'static str {
        match self {
            Mechanism::SelfAttention { .. } => "self",
            Mechanism::Cross { .. } => "cross",
            Mechanism::Weights { .. } => "weights",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Projections {
    pub w_q: Matrix,
    pub w_k: Matrix,
    pub w_v: Matrix,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    SqrtDk,
    None,
    Value(f64),
}

/// A config the user must fix; the message says what and where.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

type Result<T> = std::result::Result<T, ConfigError>;

fn err<T>(message: impl Into<String>) -> Result<T> {
    Err(ConfigError(message.into()))
}

/// Every field a figure's config may hold (any other is refused by name). README.md's config table documents each
/// once; `tests/config.rs` checks that its names are these.
pub const FIELDS: &[&str] = &[
    "mechanism",
    "embeddings",
    "w_q",
    "w_k",
    "w_v",
    "tokens",
    "scale",
    "query",
    "decoder_state",
    "annotations",
    "heads",
    "head",
    "w_o",
    "scoring",
    "w_a",
    "u_a",
    "v_a",
    "temperature",
    "mask",
    "valid_lens",
    "masked_row",
    "position",
    "kv_heads",
    "window",
    "sinks",
    "decode_step",
    "tiles",
    "b_q",
    "b_k",
    "b_v",
    "b_o",
    "q_norm",
    "k_norm",
    "softcap",
    "attention",
    "key_tokens",
    "layer",
];

/// The fields that can be sent flat (`Config::from_parts`): the matrices (compute()'s JS side reads them from
/// `www/element/facts.js`).
pub const MATRICES: &[&str] = &["embeddings", "w_q", "w_k", "w_v", "annotations", "w_o", "w_a", "u_a", "attention"];

/// Every input a reader edits in the grids, matrices and vectors, in the grids' reading order (also the order an
/// import draws the random values of the inputs it resizes in).
pub const INPUTS: &[&str] = &[
    "embeddings",
    "w_q",
    "w_k",
    "w_v",
    "b_q",
    "b_k",
    "b_v",
    "decoder_state",
    "annotations",
    "w_a",
    "u_a",
    "v_a",
    "w_o",
    "b_o",
];

/// The inputs that are one list of numbers rather than rows of them.
pub const VECTORS: &[&str] = &["decoder_state", "v_a", "b_q", "b_k", "b_v", "b_o"];

/// The projections, given all three or none.
pub const PROJECTIONS: [&str; 3] = ["w_q", "w_k", "w_v"];

/// The fields only self-attention has (a cross-attention config holding one is refused).
pub const SELF_ONLY: &[&str] = &[
    "embeddings",
    "w_q",
    "w_k",
    "w_v",
    "heads",
    "head",
    "w_o",
    "position",
    "kv_heads",
    "window",
    "sinks",
    "decode_step",
    "tiles",
    "b_q",
    "b_k",
    "b_v",
    "b_o",
    "q_norm",
    "k_norm",
    "softcap",
];

/// The fields only cross-attention has.
pub const CROSS_ONLY: &[&str] = &["decoder_state", "annotations"];

/// The fields of a model's weights config (`mechanism: "weights"`) besides `mechanism`: `attention`, the weights, and
/// what labels and picks them. Any other field is refused there; Python's `show_attention` takes these as arguments.
pub const WEIGHTS_FIELDS: &[&str] = &["attention", "tokens", "key_tokens", "layer", "head", "query"];

/// The fields that pick the head a weights figure shows, layer then head (Python's overview of a stack over the limit
/// asks for one head by them).
pub const WEIGHTS_PICK: [&str; 2] = ["layer", "head"];

/// The fields that say which mechanism a config is: `mechanism`, and each mechanism's own input (self: `embeddings`;
/// cross: `decoder_state`, `annotations`; weights: `attention`). Python's `show(preset=…)` drops the preset's fields
/// when one of these is given: it is another figure, not the preset's changed.
pub const MECHANISM_FIELDS: &[&str] = &["mechanism", "embeddings", "decoder_state", "annotations", "attention"];

/// What a shell sends [`check_declared_shapes`] before it reads any value: these fields when each is a text or a
/// number, and the declared shapes of the matrices ([`MATRICES`]) and of these vectors.
pub const DECLARED_FIELDS: &[&str] = &["mechanism", "heads", "scoring"];
pub const DECLARED_VECTORS: &[&str] = &["decoder_state"];

/// A matrix sent flat instead of as JSON (compute()'s fast path): `rows` rows
/// of `cols` finite values, one row after another.
#[derive(Clone, Copy, Debug)]
pub struct Flat<'a> {
    rows: usize,
    cols: usize,
    data: &'a [f64],
    /// Leading axes (layers, heads) of a stack of matrices: `attention` only, else (1, 1).
    lead: (usize, usize),
    /// How many axes the caller's array had (2 … 4): messages name positions as it does.
    axes: usize,
    /// A stack already holding exactly `data` (`attention` whose buffer the caller handed over, `Flat::sharing`):
    /// the config takes it as it is instead of a copy.
    shared: Option<&'a Stack>,
}

impl<'a> Flat<'a> {
    /// `None` unless `data` holds `rows × cols` values, every one finite.
    pub fn new(rows: usize, cols: usize, data: &'a [f64]) -> Option<Flat<'a>> {
        let ok = rows.checked_mul(cols) == Some(data.len()) && data.iter().all(|x| x.is_finite());
        ok.then_some(Flat { rows, cols, data, lead: (1, 1), axes: 2, shared: None })
    }

    /// `Flat::stacked` over `stack`'s own values (its shape, from an array of `axes` axes): the config validates
    /// them as any flat stack and then shares `stack` (no copy).
    pub fn sharing(stack: &'a Stack, axes: usize) -> Option<Flat<'a>> {
        let [layers, heads, rows, cols] = stack.shape();
        Flat::stacked(layers, heads, rows, cols, axes, stack.data()).map(|f| Flat { shared: Some(stack), ..f })
    }

    /// `layers × heads` matrices of `rows × cols` values one after another (`attention` sent flat),
    /// from an array of `axes` axes (3: heads × rows × cols, with layers 1; 4: all).
    pub fn stacked(
        layers: usize,
        heads: usize,
        rows: usize,
        cols: usize,
        axes: usize,
        data: &'a [f64],
    ) -> Option<Flat<'a>> {
        let all = layers.checked_mul(heads)?.checked_mul(rows)?;
        let axes = axes.clamp(2, 4);
        Flat::new(all, cols, data).map(|f| Flat { rows, lead: (layers, heads), axes, ..f })
    }
}

/// A matrix field as it arrived: JSON, or flat.
#[derive(Clone, Copy)]
enum Rows<'a> {
    Json(&'a Value),
    Flat(Flat<'a>),
}

/// A list of numbers (a row) as it arrived: JSON, or a row of a flat matrix.
#[derive(Clone, Copy)]
enum Numbers<'a> {
    Json(&'a Value),
    Flat(&'a [f64]),
}

/// A config's fields: its JSON object, and the matrices sent flat.
struct Fields<'a> {
    obj: &'a Map<String, Value>,
    flat: &'a [(&'a str, Flat<'a>)],
}

impl<'a> Fields<'a> {
    fn has(&self, key: &str) -> bool {
        self.obj.contains_key(key) || self.flat.iter().any(|(k, _)| *k == key)
    }

    fn matrix(&self, key: &str) -> Option<Rows<'a>> {
        match self.flat.iter().find(|(k, _)| *k == key) {
            Some((_, flat)) => Some(Rows::Flat(*flat)),
            None => self.obj.get(key).map(Rows::Json),
        }
    }
}

/// A config's JSON text as a value, or the message that places what does not parse in it.
pub fn parse_json(text: &str) -> Result<Value> {
    json::parse(text).map_err(|e| {
        if let Some(path) = too_deep(text, &e) {
            return ConfigError(nested_message(path.first().map_or("config", String::as_str)));
        }
        let e = e.to_string();
        match e.strip_prefix("number out of range") {
            Some(at) => ConfigError(format!("config has a number too large for float64 (beyond ±1.8e308){at}")),
            None => ConfigError(format!("config is not valid JSON: {e}")),
        }
    })
}

/// serde_json stops at this many nested lists and objects (its recursion limit, which keeps a deep input from
/// overflowing the stack).
pub const MAX_NESTING: usize = 128;

/// What a field nested past [`MAX_NESTING`] gets: a JS object or a Python list can be nested so, and "not valid
/// JSON" would blame a text the caller never wrote.
pub fn nested_message(field: &str) -> String {
    format!(
        "{} is nested more than {MAX_NESTING} lists or objects deep; no field holds more than 4 levels (attention: \
         layers × heads × n × m)",
        if FIELDS.contains(&field) || field == "config" { field.to_string() } else { quote(field) }
    )
}

/// When `e` is serde_json's recursion limit, the object keys that lead to where `text` went too deep (outermost
/// first; empty at the top level), else `None`.
pub fn too_deep(text: &str, e: &json::Error) -> Option<Vec<String>> {
    if !e.to_string().starts_with("recursion limit exceeded") {
        return None;
    }
    let start = text.split_inclusive('\n').take(e.line().saturating_sub(1)).map(str::len).sum::<usize>();
    let mut end = (start + e.column()).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    // The keys of the open objects, one per level (None for a list's level), as the text is read up to `end`.
    let (mut open, mut key, mut in_string, mut escaped, mut last) = (vec![], None, false, false, String::new());
    for c in text[..end].chars() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => last.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                last.clear();
            }
            ':' => key = Some(last.clone()),
            '{' | '[' => open.push(key.take()),
            '}' | ']' => {
                open.pop();
            }
            ',' => key = None,
            _ => {}
        }
    }
    Some(open.into_iter().flatten().collect())
}

impl Config {
    pub fn from_json(text: &str) -> Result<Config> {
        Config::from_value(&parse_json(text)?)
    }

    pub fn from_value(value: &Value) -> Result<Config> {
        Config::from_parts(value, &[])
    }

    /// `from_value` for a config whose matrices (any of embeddings, w_q, w_k,
    /// w_v, annotations) were sent flat; `value` holds the other fields. The
    /// config, or the message, is the one `from_value` gives for `value` with
    /// those matrices put back in as lists of rows.
    pub fn from_parts<'a>(value: &'a Value, flat: &'a [(&'a str, Flat<'a>)]) -> Result<Config> {
        let Value::Object(obj) = value else {
            return err(format!("config must be an object, got {}", describe(value)));
        };
        // A trained model's run is not a figure's config: compute() (www/train.js) and the element take it and turn
        // it into a "weights" figure; every other entry point lands here, before its fields are called unknown.
        if obj.get("mechanism").and_then(Value::as_str) == Some("model") {
            return err("mechanism \"model\" runs a trained model: compute() and <attention-viz> take it; here give a figure's config (\"self\", \"cross\" or \"weights\": the weights are compute()'s trace.layers[l].heads[h].weights)");
        }
        for key in obj.keys() {
            if !FIELDS.contains(&key.as_str()) {
                return err(unknown_field(key));
            }
        }
        if let Some((key, _)) = flat.iter().find(|(k, _)| !MATRICES.contains(k)) {
            return err(format!("{} cannot be sent flat: only {} can", quote(key), MATRICES.join(", ")));
        }
        let fields = Fields { obj, flat };
        let mechanism = match obj.get("mechanism") {
            None => inferred_mechanism(|name| fields.has(name))?,
            Some(Value::String(s)) if ["self", "cross", "weights"].contains(&s.as_str()) => s.as_str(),
            Some(other) => {
                return err(format!("mechanism must be \"self\", \"cross\" or \"weights\", got {}", describe(other)))
            }
        };
        match mechanism {
            "self" => parse_self(&fields),
            "cross" => parse_cross(&fields),
            _ => parse_weights(&fields),
        }
    }

    /// The config as JSON, in the shape `from_value` reads back.
    pub fn to_value(&self) -> Value {
        self.value(true, true)
    }

    /// `to_value` without a model's weights (`attention`, up to 2²³ numbers): what the element
    /// reads after every change (the selected head, the tokens) without a 60 MB round trip.
    pub fn to_value_without_stack(&self) -> Value {
        self.value(false, true)
    }

    /// `to_value_without_stack` with the mechanism's matrices (embeddings, projections, annotations) written as their
    /// shapes, "rows×cols": what `controls::structure` reads, without writing 65,536 embeddings at n = 1024, d = 64
    /// on every edit.
    pub fn to_value_shaped(&self) -> Value {
        self.value(false, false)
    }

    fn value(&self, with_stack: bool, numbers: bool) -> Value {
        let matrix = |m: &Matrix| if numbers { matrix_value(m) } else { format!("{}×{}", m.rows(), m.cols()).into() };
        let mut obj = Map::new();
        match &self.mechanism {
            Mechanism::SelfAttention { embeddings, projections } => {
                obj.insert("mechanism".into(), json!("self"));
                obj.insert("embeddings".into(), matrix(embeddings));
                if let Some(p) = projections {
                    obj.insert("w_q".into(), matrix(&p.w_q));
                    obj.insert("w_k".into(), matrix(&p.w_k));
                    obj.insert("w_v".into(), matrix(&p.w_v));
                }
            }
            Mechanism::Cross { decoder_state, annotations } => {
                obj.insert("mechanism".into(), json!("cross"));
                obj.insert("decoder_state".into(), numbers_value(decoder_state));
                obj.insert("annotations".into(), matrix(annotations));
            }
            Mechanism::Weights { attention, key_tokens, layer, head } => {
                // Weights figures have no scale, query steps or options: only what they read.
                obj.insert("mechanism".into(), json!("weights"));
                if with_stack {
                    obj.insert("attention".into(), stack_value(attention));
                }
                obj.insert("tokens".into(), json!(self.tokens));
                if *key_tokens != self.tokens {
                    obj.insert("key_tokens".into(), json!(key_tokens));
                }
                if *layer != 0 {
                    obj.insert("layer".into(), json!(layer));
                }
                if *head != 0 {
                    obj.insert("head".into(), json!(head));
                }
                if self.query != 0 {
                    obj.insert("query".into(), json!(self.query));
                }
                return Value::Object(obj);
            }
        }
        obj.insert("tokens".into(), json!(self.tokens));
        obj.insert(
            "scale".into(),
            match self.scale {
                Scale::SqrtDk => json!("sqrt_dk"),
                Scale::None => json!("none"),
                Scale::Value(s) => json!(s),
            },
        );
        obj.insert("query".into(), json!(self.query));
        self.options.write(&mut obj);
        Value::Object(obj)
    }

    /// The work a full compute of this config needs, in multiply-adds (see [`Work::cost`]).
    pub fn cost(&self) -> f64 {
        self.work().cost()
    }

    /// The work a large figure's worker does for this config (web/large.rs `LargeJob`): the followed head's Q, K and
    /// V columns, its scores, weights and context; the other heads are not computed. What [`MAX_WORKER_COST`] bounds.
    pub fn worker_cost(&self) -> f64 {
        self.work().followed_head().cost()
    }

    /// The shapes the cost depends on.
    fn work(&self) -> Work {
        let o = &self.options;
        let w_a_cols = match &o.scoring {
            Scoring::Dot | Scoring::Cosine => None,
            Scoring::General { w_a } | Scoring::Additive { w_a, .. } => Some(w_a.cols()),
        };
        let additive = matches!(o.scoring, Scoring::Additive { .. });
        match &self.mechanism {
            Mechanism::SelfAttention { embeddings, projections } => Work::SelfAttention {
                n: embeddings.rows(),
                d: embeddings.cols(),
                projections: projections.as_ref().map(|p| (p.w_q.cols(), p.w_v.cols())),
                heads: o.heads,
                w_o: o.w_o.as_ref().map(Matrix::shape),
                w_a_cols,
                additive,
                kv_heads: o.kv_heads(),
                bias: matches!(o.position, Some(Position::Alibi { .. })),
                capped: o.layers.softcap.is_some(),
                tiles: o.tiles,
            },
            Mechanism::Cross { decoder_state, annotations } => {
                Work::Cross { m: annotations.rows(), d: decoder_state.len(), w_a_cols, additive }
            }
            Mechanism::Weights { attention, .. } => Work::Weights { shape: attention.shape() },
        }
    }

    /// The config, or an error saying its size and the limit when its cost passes [`MAX_COST`].
    pub(crate) fn within_cost(self) -> Result<Config> {
        self.check_tied()?;
        self.work().check()?;
        Ok(self)
    }

    /// The rules tying the modern fields to the shapes and the mask, checked when parsing and again here for the
    /// edits that change a shape or the mask: kv_heads divides heads, the real layers' fields fit the widths
    /// ([`Layers::check`]), ALiBi's slopes are one per head, RoPE's d_k is even and its rotary_dim and frequencies fit
    /// it, decode_step is a token's index under a causal mask.
    fn check_tied(&self) -> Result<()> {
        let o = &self.options;
        let Mechanism::SelfAttention { embeddings, projections } = &self.mechanism else { return Ok(()) };
        let kv = o.kv_heads();
        if !o.kv_heads_choices().contains(&kv) {
            return err(format!(
                "kv_heads must be a whole number that divides heads ({}): each key/value head serves heads / kv_heads \
                 query heads (1 = multi-query), got {kv}",
                o.heads
            ));
        }
        let d_k = projections.as_ref().map_or(embeddings.cols(), |p| p.w_q.cols() / o.heads);
        let d_v = projections.as_ref().map_or(embeddings.cols(), |p| p.w_v.cols() / kv);
        let shapes = Shapes {
            heads: o.heads,
            kv_heads: kv,
            d_k,
            d_v,
            projections: projections.is_some(),
            d_out: o.w_o.as_ref().map(Matrix::cols),
        };
        o.layers.check(shapes)?;
        match &o.position {
            Some(Position::Rope { .. }) if d_k % 2 != 0 => return err(odd_rope(d_k)),
            Some(Position::Rope { rotary_dim, frequencies, .. }) => {
                check_rotary(*rotary_dim, frequencies.as_deref(), d_k)?
            }
            Some(Position::Alibi { slopes: Some(s) }) if s.len() != o.heads => {
                return err(slopes_count(s.len(), o.heads))
            }
            _ => {}
        }
        if let Some(t) = o.decode_step {
            if t >= embeddings.rows() {
                return err(decode_out_of_range(t as u64, embeddings.rows()));
            }
            if o.mask != Mask::Causal {
                return err(DECODE_NEEDS_CAUSAL);
            }
        }
        Ok(())
    }

    /// The shape of input `name` (one of [`INPUTS`]) as this config holds it: `[rows, columns]`, or `[length]` for
    /// a vector; `None` when this config has no such input.
    pub fn input_shape(&self, name: &str) -> Option<Vec<usize>> {
        let matrix = |m: &Matrix| Some(vec![m.rows(), m.cols()]);
        match (&self.mechanism, name) {
            (Mechanism::SelfAttention { embeddings, .. }, "embeddings") => matrix(embeddings),
            (Mechanism::SelfAttention { projections: Some(p), .. }, "w_q") => matrix(&p.w_q),
            (Mechanism::SelfAttention { projections: Some(p), .. }, "w_k") => matrix(&p.w_k),
            (Mechanism::SelfAttention { projections: Some(p), .. }, "w_v") => matrix(&p.w_v),
            (Mechanism::SelfAttention { .. }, "b_q" | "b_k" | "b_v" | "b_o") => {
                let l = &self.options.layers;
                let bias = match name {
                    "b_q" => &l.b_q,
                    "b_k" => &l.b_k,
                    "b_v" => &l.b_v,
                    _ => &l.b_o,
                };
                bias.as_ref().map(|b| vec![b.len()])
            }
            (Mechanism::Cross { decoder_state, .. }, "decoder_state") => Some(vec![decoder_state.len()]),
            (Mechanism::Cross { annotations, .. }, "annotations") => matrix(annotations),
            (Mechanism::Weights { .. }, _) => None,
            (_, "w_o") => self.options.w_o.as_ref().and_then(matrix),
            (_, "w_a") => match &self.options.scoring {
                Scoring::General { w_a } | Scoring::Additive { w_a, .. } => matrix(w_a),
                _ => None,
            },
            (_, "u_a") => match &self.options.scoring {
                Scoring::Additive { u_a, .. } => matrix(u_a),
                _ => None,
            },
            (_, "v_a") => match &self.options.scoring {
                Scoring::Additive { v_a, .. } => Some(vec![v_a.len()]),
                _ => None,
            },
            _ => None,
        }
    }

    /// Number of rows of the attention (tokens for self, encoder states for cross).
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

/// What a config's compute costs depends on: its shapes, its number of heads and its scoring. A config's
/// own ([`Config::cost`]) or the one its matrices' declared shapes promise ([`check_declared`]), so a
/// config too costly to compute is refused before its matrices are read, in the same words.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Work {
    SelfAttention {
        n: usize,
        d: usize,
        /// W_Q's and W_V's columns (all heads).
        projections: Option<(usize, usize)>,
        heads: usize,
        w_o: Option<(usize, usize)>,
        /// W_a's columns (general and additive scoring).
        w_a_cols: Option<usize>,
        additive: bool,
        /// W_K's and W_V's heads (W_V's columns are kv_heads · d_v).
        kv_heads: usize,
        /// ALiBi: an n × n bias per head.
        bias: bool,
        /// A soft cap: an n × n stage more per head (a tanh each).
        capped: bool,
        /// FlashAttention's blocks: the trace keeps m, l and o after every tile.
        tiles: Option<[u64; 2]>,
    },
    Cross {
        m: usize,
        d: usize,
        w_a_cols: Option<usize>,
        additive: bool,
    },
    Weights {
        shape: [usize; 4],
    },
}

impl Work {
    /// In multiply-adds: Q, K, V (n·d_model·(2·d_k + d_v)), the scores and the context (n²·(d_k + d_v);
    /// n²·2d without projections, m·d·2 for cross-attention), and [`COST_PER_WEIGHT`] for each attention
    /// weight; a model's weights: [`COST_PER_SHOWN_WEIGHT`] a weight, [`COST_PER_DRAWN_WEIGHT`] a weight of one
    /// head (the one drawn in full) and [`COST_PER_HEAD`] a head.
    fn cost(&self) -> f64 {
        // What the scoring function adds to the dot product's work for n queries, m keys, queries dq wide.
        let scoring = |w_a_cols: Option<usize>, additive: bool, n: f64, m: f64, dq: f64| match w_a_cols {
            None => 0.0,
            Some(a) if !additive => n * dq * a as f64,
            // A tanh costs about as much as an exponential.
            Some(a) => (n + m) * dq * a as f64 + n * m * a as f64 * 20.0,
        };
        match *self {
            Work::SelfAttention {
                n,
                d,
                projections,
                heads,
                w_o,
                w_a_cols,
                additive,
                kv_heads,
                bias,
                capped,
                tiles,
            } => {
                // Each query head reads its kv head's d_v columns: the contexts are heads · d_v wide.
                let d_v = projections.map_or(d, |(_, v)| v / kv_heads.max(1));
                let (n, d) = (n as f64, d as f64);
                let (products, dq) = match projections {
                    Some((q, v)) => {
                        let (dk, dv) = (q as f64, v as f64);
                        (n * d * (2.0 * dk + dv) + n * n * (dk + heads as f64 * d_v as f64), dk)
                    }
                    None => (n * n * 2.0 * d, d),
                };
                let w_o = w_o.map_or(0.0, |(r, c)| n * r as f64 * c as f64);
                let stored = usize::from(bias) + usize::from(capped);
                let bias = heads as f64 * n * n * COST_PER_STORED * stored as f64;
                let flash = tiles.map_or(0.0, |[rows, cols]| {
                    // After each tile: m and l (a number per query row) and o (d_v per row), for every key block.
                    let (query_blocks, key_blocks) = ((n / rows as f64).ceil(), (n / cols as f64).ceil());
                    n * key_blocks * (2.0 + d_v as f64) * COST_PER_STORED + query_blocks * key_blocks * COST_PER_TILE
                });
                products
                    + w_o
                    + scoring(w_a_cols, additive, n, n, dq)
                    + heads as f64 * n * n * COST_PER_WEIGHT
                    + bias
                    + flash
            }
            Work::Cross { m, d, w_a_cols, additive } => {
                let (m, d) = (m as f64, d as f64);
                m * d * 2.0 + scoring(w_a_cols, additive, 1.0, m, d) + m * COST_PER_WEIGHT
            }
            Work::Weights { shape: [layers, heads, n, m] } => {
                let (heads, head) = ((layers * heads) as f64, (n * m) as f64);
                heads * head * COST_PER_SHOWN_WEIGHT + head * COST_PER_DRAWN_WEIGHT + heads * COST_PER_HEAD
            }
        }
    }

    /// What a worker computing only the followed head does ([`Config::worker_cost`]): its d_k columns of W_Q and
    /// W_K and its kv head's d_v of W_V (without projections: its d / heads columns of X), one n × n attention.
    fn followed_head(self) -> Work {
        match self {
            Work::SelfAttention { n, d, projections, heads, w_a_cols, additive, kv_heads, .. } if heads > 1 => {
                let (d, projections) = match projections {
                    Some((q, v)) => (d, Some((q / heads, v / kv_heads.max(1)))),
                    None => (d / heads, None),
                };
                Work::SelfAttention {
                    n,
                    d,
                    projections,
                    heads: 1,
                    w_o: None,
                    w_a_cols,
                    additive,
                    kv_heads: 1,
                    bias: false,
                    capped: false,
                    tiles: None,
                }
            }
            _ => self,
        }
    }

    /// An error saying the size and the limit when the cost passes [`MAX_COST`] (inside [`with_worker_limit`]: when
    /// the followed head's passes [`MAX_WORKER_COST`]).
    fn check(&self) -> Result<()> {
        let worker = WORKER_LIMIT.with(|c| c.get());
        let (cost, limit) =
            if worker { (self.followed_head().cost(), MAX_WORKER_COST) } else { (self.cost(), MAX_COST) };
        if cost <= limit {
            return Ok(());
        }
        let (size, fewer) = match *self {
            Work::SelfAttention { n, d, projections: None, .. } => {
                (format!("{n} tokens × {d} dimensions"), "tokens or dimensions")
            }
            Work::SelfAttention { n, d, projections: Some((q, v)), heads, .. } if heads > 1 => (
                format!("{n} tokens × {d} dimensions, {heads} heads of d_k = {}, d_v = {}", q / heads, v / heads),
                "tokens, dimensions or heads",
            ),
            Work::SelfAttention { n, d, projections: Some((q, v)), .. } => {
                (format!("{n} tokens × {d} dimensions, d_k = {q}, d_v = {v}"), "tokens or dimensions")
            }
            Work::Cross { m, d, .. } => {
                (format!("{m} encoder states × {d} dimensions"), "encoder states or dimensions")
            }
            Work::Weights { shape: [l, h, n, m] } => (
                format!("{l} layer{} × {h} head{} of {n} × {m} weights", plural(l), plural(h)),
                "layers, heads or tokens",
            ),
        };
        if worker {
            return err(format!(
                "this config needs {cost:.1e} multiply-adds for its followed head ({size}); the limit of a \
                 background worker is {limit:.1e}: use fewer {fewer}"
            ));
        }
        // FlashAttention's tiles, when their steps tip it over: said with the way out they offer.
        let mut untiled = *self;
        if let Work::SelfAttention { tiles, .. } = &mut untiled {
            *tiles = None;
        }
        let (size, fewer) = match *self {
            Work::SelfAttention { n, tiles: Some([rows, cols]), .. } if untiled.cost() <= limit => {
                let steps = n.div_ceil((rows as usize).min(n.max(1))) * n.div_ceil((cols as usize).min(n.max(1)));
                (format!("{size}, tiles of {rows} × {cols}: {steps} steps"), format!("larger tiles, or fewer {fewer}"))
            }
            _ => (size, format!("fewer {fewer}")),
        };
        err(format!(
            "this config needs {cost:.1e} multiply-adds ({size}); the limit is {limit:.1e} (about half a second \
             of computing): use {fewer}"
        ))
    }
}

/// Refuses a config by the shapes its matrices declare, before anything reads them: `rest` holds the config's
/// [`DECLARED_FIELDS`], `mechanism`, `heads` and `scoring` (any other field only says it is there: [`inferred_mechanism`]), `shapes` each
/// matrix's declared shape (a matrix: its number of rows and its first row's length; `attention`: the lengths down its
/// first elements; `decoder_state`: its length). A matrix over the size limits, or a config whose
/// compute would pass [`MAX_COST`], gets the message its full validation would give; anything else is left to
/// it (`Ok`). compute()'s JS side asks this before it copies an 8,000,000-row list.
pub fn check_declared_shapes(rest: &Value, shapes: &[(&str, Vec<usize>)]) -> Result<()> {
    let shape = |name: &str| shapes.iter().find(|(k, _)| *k == name).map(|(_, s)| s.as_slice());
    // Which mechanism first, as the full validation judges it first.
    let mechanism = match rest.get("mechanism") {
        Some(m) => m.as_str().unwrap_or_default(),
        None => inferred_mechanism(|name| shape(name).is_some() || rest.get(name).is_some())?,
    };
    for (name, shape) in shapes {
        if *name == "attention" {
            if (2..=4).contains(&shape.len()) && !shape.contains(&0) {
                check_stack_size(shape)?;
            }
            continue;
        }
        if let ("decoder_state", [len]) = (*name, &shape[..]) {
            if *len > MAX_LIST {
                return err(format!("decoder_state has {len} values; that is more than supported"));
            }
            if *len > MAX_DIMS {
                return err(format!("decoder_state has {len} values; at most {MAX_DIMS} are supported"));
            }
        }
        if let [rows, cols] = shape[..] {
            if rows > MAX_TOKENS {
                return err(format!("{name} has {rows} rows; at most {MAX_TOKENS} are supported"));
            }
            if cols > MAX_LIST {
                return err(format!("{name} row 0 has {cols} values; that is more than supported"));
            }
            if cols > MAX_DIMS {
                return err(format!("{name} row 0 has {cols} values; at most {MAX_DIMS} are supported"));
            }
        }
    }
    let Value::Object(obj) = rest else { return Ok(()) };
    let matrix = |name: &str| match shape(name) {
        Some(&[rows, cols]) if rows > 0 && cols > 0 => Some((rows, cols)),
        _ => None,
    };
    let scoring = obj.get("scoring").and_then(Value::as_str);
    let (w_a_cols, additive) = (matrix("w_a").map(|(_, c)| c), scoring == Some("additive"));
    let w_a_cols = if matches!(scoring, Some("general" | "additive")) { w_a_cols } else { None };
    let work = match mechanism {
        "self" => {
            let Some((n, d)) = matrix("embeddings") else { return Ok(()) };
            let heads = obj.get("heads").and_then(Value::as_u64).map_or(1, |h| h.clamp(1, MAX_DIMS as u64) as usize);
            let projections = match (matrix("w_q"), matrix("w_v")) {
                (Some((_, q)), Some((_, v))) => Some((q, v)),
                _ => None,
            };
            let kv_heads =
                obj.get("kv_heads").and_then(Value::as_u64).map_or(heads, |k| k.clamp(1, heads as u64) as usize);
            let bias = obj.get("position").and_then(|p| p.get("kind")).and_then(Value::as_str) == Some("alibi");
            let capped = obj.get("softcap").is_some_and(|c| !c.is_null());
            let tiles = match obj.get("tiles").and_then(Value::as_array).map(Vec::as_slice) {
                Some([r, c]) => match (r.as_u64(), c.as_u64()) {
                    (Some(r), Some(c)) if r >= 1 && c >= 1 => Some([r, c]),
                    _ => None,
                },
                _ => None,
            };
            Work::SelfAttention {
                n,
                d,
                projections,
                heads,
                w_o: matrix("w_o"),
                w_a_cols,
                additive,
                kv_heads,
                bias,
                capped,
                tiles,
            }
        }
        "cross" => {
            let Some((m, _)) = matrix("annotations") else { return Ok(()) };
            let Some(&[d]) = shape("decoder_state") else { return Ok(()) };
            Work::Cross { m, d, w_a_cols, additive }
        }
        "weights" => match shape("attention") {
            Some(s) if (2..=4).contains(&s.len()) && !s.contains(&0) => {
                let mut full = [1; 4];
                full[4 - s.len()..].copy_from_slice(s);
                Work::Weights { shape: full }
            }
            _ => return Ok(()),
        },
        _ => return Ok(()),
    };
    work.check()
}

/// The mechanism of a config without a `mechanism` field, from the fields it holds (`has`): `attention` is a model's
/// weights ("weights"), `decoder_state` or `annotations` cross-attention ("cross"), anything else self-attention.
/// A config holding both kinds is refused: which one it shows is the reader's to say. The one rule of every path
/// (`Config::from_parts`, `check_declared_shapes`; Python's repr asks the core).
pub fn inferred_mechanism(has: impl Fn(&str) -> bool) -> Result<&'static str> {
    let cross = ["annotations", "decoder_state"].into_iter().find(|name| has(name));
    match (has("attention"), cross) {
        (true, Some(name)) => err(format!(
            "attention (mechanism \"weights\") and {name} (mechanism \"cross\") are both given: set mechanism to \
             the one the figure shows"
        )),
        (true, None) => Ok("weights"),
        (false, Some(_)) => Ok("cross"),
        (false, None) => Ok("self"),
    }
}

fn parse_self(fields: &Fields) -> Result<Config> {
    for field in CROSS_ONLY {
        if fields.has(field) {
            return err(format!("{field} belongs to cross-attention, but mechanism is \"self\""));
        }
    }
    let Some(emb) = fields.matrix("embeddings") else {
        return err("embeddings is missing: self-attention needs one row of numbers per token");
    };
    let embeddings = parse_matrix("embeddings", emb, None)?;
    let (n, d_model) = embeddings.shape();
    let weights = PROJECTIONS;
    let projections = match weights.map(|w| fields.matrix(w)) {
        [None, None, None] => None,
        [Some(w_q), Some(w_k), Some(w_v)] => {
            let w_q = parse_weight("w_q", w_q, d_model)?;
            let w_k = parse_weight("w_k", w_k, d_model)?;
            let w_v = parse_weight("w_v", w_v, d_model)?;
            // With fewer kv heads W_K is narrower than W_Q: parse_heads compares their per-head widths.
            let grouped = matches!(fields.obj.get("kv_heads"), Some(v) if !v.is_null());
            if w_k.cols() != w_q.cols() && !grouped {
                return err(format!(
                    "w_k has {} columns but w_q has {}: queries and keys must have the same length d_k",
                    w_k.cols(),
                    w_q.cols()
                ));
            }
            Some(Projections { w_q, w_k, w_v })
        }
        _ => {
            let missing: Vec<&str> = weights.into_iter().filter(|w| !fields.has(w)).collect();
            return err(format!("w_q, w_k and w_v go together: {} missing", missing.join(" and ")));
        }
    };
    let (heads, kv_heads) = parse_heads(fields.obj, projections.as_ref())?;
    // Per-head widths: what the scoring matrices and W_O are shaped by.
    let (d_k, d_v) = match &projections {
        Some(p) => (p.w_q.cols() / heads, p.w_v.cols() / kv_heads.unwrap_or(heads)),
        None => (d_model, d_model),
    };
    let scoring = parse_scoring(&fields, d_k, d_k, heads, "the query width d_k", "the key width d_k")?;
    let w_o = match fields.matrix("w_o") {
        None => None,
        Some(w) => {
            let rows = heads * d_v;
            let got = parse_matrix("w_o", w, None)?;
            if got.rows() != rows {
                return err(format!(
                    "w_o has {} rows, expected {rows}: one per column of the heads' contexts side by side \
                     (heads × d_v = {heads} × {d_v})",
                    got.rows()
                ));
            }
            Some(got)
        }
    };
    let dot = matches!(scoring, Scoring::Dot);
    let default_scale = if projections.is_some() && dot { Scale::SqrtDk } else { Scale::None };
    let options = Options {
        heads,
        head: parse_index(fields.obj, "head", heads, "heads")?,
        w_o,
        scoring,
        temperature: parse_temperature(fields.obj)?,
        mask: parse_mask(fields.obj, n, n, false)?,
        valid_lens: parse_valid_lens(fields.obj, n)?,
        masked_row: parse_masked_row(fields.obj)?,
        position: parse_position(fields.obj, heads, d_k)?,
        kv_heads,
        window: parse_pair(fields.obj, "window", 0)?,
        sinks: parse_count(fields.obj, "sinks", "keys 0 … sinks − 1 are always attended")?,
        decode_step: None,
        tiles: parse_pair(fields.obj, "tiles", 1)?,
        layers: Layers::parse(fields.obj)?,
    };
    let decode_step = parse_decode_step(fields.obj, n, &options.mask)?;
    let options = Options { decode_step, ..options };
    check_decode_row(&options, n)?;
    Config {
        tokens: parse_tokens(fields.obj, n, "embeddings", SELF_TOKENS)?,
        scale: parse_scale(fields.obj, default_scale)?,
        query: parse_query(fields.obj, n)?,
        mechanism: Mechanism::SelfAttention { embeddings, projections },
        options,
    }
    .within_cost()
}

fn parse_cross(fields: &Fields) -> Result<Config> {
    for field in SELF_ONLY {
        if fields.has(field) {
            return err(format!("{field} belongs to self-attention, but mechanism is \"cross\""));
        }
    }
    let Some(h) = fields.obj.get("decoder_state") else {
        return err("decoder_state is missing: cross-attention needs the decoder's hidden state, a list of numbers");
    };
    let decoder_state = parse_numbers("decoder_state", Numbers::Json(h))?;
    if decoder_state.is_empty() {
        return err("decoder_state is empty: it needs at least one number");
    }
    if decoder_state.len() > MAX_DIMS {
        return err(format!("decoder_state has {} values; at most {MAX_DIMS} are supported", decoder_state.len()));
    }
    let Some(a) = fields.matrix("annotations") else {
        return err("annotations is missing: cross-attention needs the encoder states, one list of numbers each");
    };
    let annotations = parse_matrix("annotations", a, Some(("the length of decoder_state", decoder_state.len())))?;
    let m = annotations.rows();
    let d = decoder_state.len();
    let options = Options {
        scoring: parse_scoring(fields, d, d, 1, "the length of decoder_state", "the annotations' length")?,
        temperature: parse_temperature(fields.obj)?,
        mask: parse_mask(fields.obj, 1, m, true)?,
        valid_lens: parse_valid_lens(fields.obj, 1)?,
        masked_row: parse_masked_row(fields.obj)?,
        ..Options::default()
    };
    Config {
        tokens: parse_tokens(fields.obj, m, "annotations", CROSS_TOKENS)?,
        scale: parse_scale(fields.obj, Scale::None)?,
        query: parse_query(fields.obj, 1)?,
        mechanism: Mechanism::Cross { decoder_state, annotations },
        options,
    }
    .within_cost()
}

fn parse_weights(fields: &Fields) -> Result<Config> {
    for field in FIELDS.iter().filter(|f| **f != "mechanism" && !WEIGHTS_FIELDS.contains(f)) {
        if fields.has(field) {
            return err(format!(
                "{field} belongs to computed attention (self or cross), but mechanism is \"weights\": a model's weights \
                 are shown as they are"
            ));
        }
    }
    let attention = match fields.matrix("attention") {
        None => {
            return err("attention is missing: mechanism \"weights\" needs the weights, n × m, heads × n × m or \
                        layers × heads × n × m")
        }
        Some(Rows::Json(value)) => stack_from_json(value)?,
        Some(Rows::Flat(f)) => stack_from_flat(f)?,
    };
    let [layers, heads, n, m] = attention.shape();
    let tokens = parse_tokens(fields.obj, n, "attention", "t")?;
    let key_tokens = match fields.obj.get("key_tokens") {
        None | Some(Value::Null) if m == n => tokens.clone(),
        None | Some(Value::Null) => (1..=m).map(|j| format!("k_{j}")).collect(),
        Some(value) => {
            let mut obj = Map::new();
            obj.insert("tokens".into(), value.clone());
            parse_tokens(&obj, m, "attention's keys (its last axis)", "k")
                .map_err(|e| ConfigError(e.0.replacen("tokens", "key_tokens", 1)))?
        }
    };
    Config {
        tokens,
        scale: Scale::None,
        query: parse_query(fields.obj, n)?,
        mechanism: Mechanism::Weights {
            attention,
            key_tokens,
            layer: parse_index(fields.obj, "layer", layers, "layers")?,
            head: parse_index(fields.obj, "head", heads, "heads")?,
        },
        options: Options::default(),
    }
    .within_cost()
}

const WEIGHTS_SHAPES: &str = "n × m, heads × n × m or layers × heads × n × m";

/// `attention[1, 0, 2]`: a position in a stack, NumPy's way.
fn at(index: &[usize]) -> String {
    let parts: Vec<String> = index.iter().map(usize::to_string).collect();
    format!("attention[{}]", parts.join(", "))
}

/// A weight: finite and ≥ 0.
fn check_weight(x: f64, index: &[usize]) -> Result<f64> {
    if x >= 0.0 && x.is_finite() {
        Ok(x)
    } else if x.is_finite() {
        err(format!("{} is {x}: attention weights must be ≥ 0", at(index)))
    } else {
        err(format!("{} is {x}; every weight must be a finite number ≥ 0", at(index)))
    }
}

/// The stack's shape from its first elements, then every element checked against it.
fn stack_from_json(value: &Value) -> Result<Stack> {
    let mut shape = vec![];
    let mut first = value;
    while let Value::Array(items) = first {
        shape.push(items.len());
        match items.first() {
            Some(item) => first = item,
            None => break,
        }
    }
    if shape.is_empty() {
        return err(format!("attention must be a list ({WEIGHTS_SHAPES}), got {}", describe(value)));
    }
    if shape.len() == 1 {
        return err(format!(
            "attention is a list of numbers; it must be {WEIGHTS_SHAPES} (one row of weights per query)"
        ));
    }
    if shape.len() > 4 {
        return err(format!(
            "attention has {} axes; it must be {WEIGHTS_SHAPES}: for a batch (Hugging Face's outputs.attentions), \
             pick one sentence",
            shape.len()
        ));
    }
    if let Some(axis) = shape.iter().position(|&s| s == 0) {
        return err(format!("attention's axis {axis} is empty: every axis needs at least one entry"));
    }
    check_stack_size(&shape)?;
    let mut data = Vec::with_capacity(shape.iter().product());
    let mut index = vec![];
    read_stack(value, &shape, &mut index, &mut data)?;
    let full: Vec<usize> = std::iter::repeat(1).take(4 - shape.len()).chain(shape.iter().copied()).collect();
    Ok(Stack::new(full[0], full[1], full[2], full[3], data).expect("checked shape"))
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

fn check_stack_size(shape: &[usize]) -> Result<()> {
    let (n, m) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    if n > MAX_TOKENS || m > MAX_TOKENS {
        return err(format!("attention is {n} × {m}; at most {MAX_TOKENS} queries and keys are supported"));
    }
    let heads = shape[..shape.len() - 2].iter().try_fold(1usize, |a, &b| a.checked_mul(b)).unwrap_or(usize::MAX);
    if heads > MAX_HEADS {
        let what = match shape {
            [l, h, _, _] => format!("{l} layer{} × {h} head{}", plural(*l), plural(*h)),
            _ if heads == 1 => "1 head".to_string(),
            _ => format!("{heads} heads"),
        };
        return err(format!(
            "attention has {what}; at most {MAX_HEADS} heads in all (layers × heads) are supported: each is a \
             thumbnail and a summary of its own. Pass fewer layers or heads"
        ));
    }
    let total = shape.iter().try_fold(1usize, |a, &b| a.checked_mul(b)).unwrap_or(usize::MAX);
    if total > MAX_VALUES {
        let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
        return err(format!(
            "attention has {total} values ({}); at most {MAX_VALUES} are supported: pass fewer layers or heads, or a \
             shorter sentence",
            dims.join(" × ")
        ));
    }
    Ok(())
}

fn read_stack(value: &Value, shape: &[usize], index: &mut Vec<usize>, data: &mut Vec<f64>) -> Result<()> {
    let depth = index.len();
    let Value::Array(items) = value else {
        let what = if depth + 1 == shape.len() { "a row of weights" } else { "a list" };
        return err(format!("{} must be {what}, got {}", at(index), describe(value)));
    };
    if items.len() != shape[depth] {
        let noun = match shape.len() - depth {
            1 => "values (one per key)",
            2 => "rows (one per query)",
            3 => "heads",
            _ => "layers",
        };
        let place = if depth == 0 { "attention".to_string() } else { at(index) };
        return err(format!("{place} has {} {noun}, expected {} as in the first", items.len(), shape[depth]));
    }
    for (i, item) in items.iter().enumerate() {
        index.push(i);
        if depth + 1 == shape.len() {
            let x = parse_number(item).map_err(|why| ConfigError(format!("{} {why}", at(index))))?;
            data.push(check_weight(x, index)?);
        } else {
            read_stack(item, shape, index, data)?;
        }
        index.pop();
    }
    Ok(())
}

fn stack_from_flat(f: Flat) -> Result<Stack> {
    let (layers, heads) = f.lead;
    let shape = [layers, heads, f.rows, f.cols];
    check_stack_size(&shape[4 - f.axes..])?;
    let (n, m) = (f.rows, f.cols);
    if let Some(k) = f.data.iter().position(|&x| x < 0.0) {
        let index = [k / (heads * n * m), k / (n * m) % heads, k / m % n, k % m];
        check_weight(f.data[k], &index[4 - f.axes..])?;
    }
    if let Some(stack) = f.shared.filter(|s| s.shape() == shape && std::ptr::eq(s.data(), f.data)) {
        return Ok(stack.clone());
    }
    Ok(Stack::new(layers, heads, n, m, f.data.to_vec()).expect("checked shape"))
}

/// `heads`: ≥ 1; more than one needs projections whose widths it divides. `kv_heads` (`None` when absent or equal
/// to `heads`): dividing `heads`; W_K and W_V then have kv_heads · d_k (d_v) columns.
fn parse_heads(obj: &Map<String, Value>, projections: Option<&Projections>) -> Result<(usize, Option<usize>)> {
    let heads = match obj.get("heads") {
        None | Some(Value::Null) => 1,
        Some(Value::Number(x)) => match x.as_u64() {
            Some(h) if h >= 1 && h <= MAX_DIMS as u64 => h as usize,
            _ => return err(format!("heads must be a whole number from 1 to {MAX_DIMS}, got {x}")),
        },
        Some(other) => return err(format!("heads must be a whole number (1, 2, 4, …), got {}", describe(other))),
    };
    let kv = match obj.get("kv_heads") {
        None | Some(Value::Null) => heads,
        Some(Value::Number(x)) => match x.as_u64() {
            Some(k) if k >= 1 && k <= heads as u64 && heads as u64 % k == 0 => k as usize,
            _ => {
                return err(format!(
                    "kv_heads must be a whole number that divides heads ({heads}): each key/value head serves \
                     heads / kv_heads query heads (1 = multi-query), got {x}"
                ))
            }
        },
        Some(other) => {
            return err(format!("kv_heads must be a whole number dividing heads ({heads}), got {}", describe(other)))
        }
    };
    let kv_heads = (kv != heads).then_some(kv);
    if heads == 1 {
        if let Some(p) = projections.filter(|p| p.w_k.cols() != p.w_q.cols()) {
            return err(format!(
                "w_k has {} columns but w_q has {}: queries and keys must have the same length d_k",
                p.w_k.cols(),
                p.w_q.cols()
            ));
        }
        return Ok((1, None));
    }
    let Some(p) = projections else {
        return err(format!(
            "heads is {heads}, but there are no projections: several heads need w_q, w_k and w_v \
             (d_model × heads·d_k) to split"
        ));
    };
    for (name, w, count) in [("w_q", &p.w_q, heads), ("w_k", &p.w_k, kv), ("w_v", &p.w_v, kv)] {
        if w.cols() % count != 0 {
            let (who, what) = if count == heads { ("heads", "heads") } else { ("kv_heads", "kv_heads") };
            return err(format!(
                "{name} has {} columns, which {count} {who} cannot split evenly: it needs {what} × d (a multiple of \
                 {count}) columns",
                w.cols()
            ));
        }
    }
    if p.w_k.cols() / kv != p.w_q.cols() / heads {
        let d_k = p.w_q.cols() / heads;
        return err(format!(
            "w_k has {} columns, expected kv_heads × d_k = {kv} × {d_k} = {}: keys must be as wide as each head's \
             queries (w_q: {heads} heads × {d_k})",
            p.w_k.cols(),
            kv * d_k
        ));
    }
    Ok((heads, kv_heads))
}

/// `position`: absent, or `{"kind": "sinusoidal" | "rope" | "alibi", …}` (see [`Position`]).
fn parse_position(obj: &Map<String, Value>, heads: usize, d_k: usize) -> Result<Option<Position>> {
    let value = match obj.get("position") {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    let kinds = "\"sinusoidal\", \"rope\" or \"alibi\"";
    let (Value::Object(p), None) = (value, long_list(value)) else {
        return err(format!(
            "position must be an object such as {{\"kind\": \"rope\"}} (kind {kinds}), got {}",
            describe(value)
        ));
    };
    let kind = match p.get("kind") {
        Some(Value::String(k)) if ["sinusoidal", "rope", "alibi"].contains(&k.as_str()) => k.as_str(),
        None => return err(format!("position needs a kind: {kinds}")),
        Some(other) => return err(format!("position.kind must be {kinds}, got {}", describe(other))),
    };
    let takes: &[&str] = match kind {
        "sinusoidal" => &["kind", "base", "offset"],
        "rope" => &["kind", "base", "pairs", "offset", "rotary_dim", "frequencies", "attention_factor"],
        _ => &["kind", "slopes"],
    };
    if let Some(key) = p.keys().find(|k| !takes.contains(&k.as_str())) {
        return err(format!("position {} has no field {} (it takes {})", quote(kind), quote(key), takes.join(", ")));
    }
    let base = match p.get("base") {
        None | Some(Value::Null) => DEFAULT_BASE,
        // Below 1 the frequencies grow with i: a base near 0 sends them (and the angles) to ∞, whose sine is NaN.
        Some(Value::Number(x)) => match x.as_f64() {
            Some(b) if b.is_finite() && b >= 1.0 => b,
            _ => return err(format!("position.base must be a number ≥ 1 (default 10000), got {x}")),
        },
        Some(other) => {
            return err(format!("position.base must be a number ≥ 1 (default 10000), got {}", describe(other)))
        }
    };
    // ALiBi takes none: its bias depends on i − j only, so a shift could change nothing.
    let offset = match p.get("offset") {
        None | Some(Value::Null) => 0,
        Some(Value::Number(x)) => match x.as_u64().filter(|&k| k <= MAX_OFFSET) {
            Some(k) => k,
            None => return err(offset_message(&x.to_string())),
        },
        Some(other) => return err(offset_message(&describe(other))),
    };
    Ok(Some(match kind {
        "sinusoidal" => Position::Sinusoidal { base, offset },
        "rope" => {
            let pairs = match p.get("pairs") {
                None | Some(Value::Null) => Pairs::Interleaved,
                Some(Value::String(s)) if s == "interleaved" => Pairs::Interleaved,
                Some(Value::String(s)) if s == "halves" => Pairs::Halves,
                Some(other) => {
                    return err(format!(
                        "position.pairs must be \"interleaved\" or \"halves\", got {}",
                        describe(other)
                    ))
                }
            };
            if d_k % 2 != 0 {
                return err(odd_rope(d_k));
            }
            let rotary_dim = match p.get("rotary_dim") {
                None | Some(Value::Null) => None,
                Some(v) => match v.as_u64() {
                    Some(r) if r % 2 == 0 && r >= 2 && r <= d_k as u64 => Some(r as usize).filter(|&r| r != d_k),
                    _ => return err(rotary_dim_message(d_k, &describe(v))),
                },
            };
            let frequencies = match p.get("frequencies") {
                None | Some(Value::Null) => None,
                Some(v) => Some(parse_numbers("position.frequencies", Numbers::Json(v))?),
            };
            if let Some((j, x)) = frequencies.iter().flatten().enumerate().find(|(_, x)| **x <= 0.0) {
                return err(format!(
                    "position.frequencies, column {j} is {}: each θ_i must be a number > 0",
                    number_value(*x)
                ));
            }
            check_rotary(rotary_dim, frequencies.as_deref(), d_k)?;
            let attention_factor = match p.get("attention_factor") {
                None | Some(Value::Null) => 1.0,
                Some(Value::Number(x)) => match x.as_f64() {
                    Some(f) if f.is_finite() && f > 0.0 => f,
                    _ => return err(attention_factor_message(&x.to_string())),
                },
                Some(other) => return err(attention_factor_message(&describe(other))),
            };
            Position::Rope { base, pairs, offset, rotary_dim, frequencies, attention_factor }
        }
        _ => {
            let slopes = match p.get("slopes") {
                None | Some(Value::Null) => None,
                Some(v) => {
                    let slopes = parse_numbers("position.slopes", Numbers::Json(v))?;
                    if slopes.len() != heads {
                        return err(slopes_count(slopes.len(), heads));
                    }
                    Some(slopes)
                }
            };
            Position::Alibi { slopes }
        }
    }))
}

/// The largest `position.offset`: positions stay exact integers in f64 (2^53) with room for n; a model's context is
/// far shorter.
pub const MAX_OFFSET: u64 = 1 << 40;

fn offset_message(got: &str) -> String {
    format!(
        "position.offset must be a whole number from 0 to {MAX_OFFSET} (every position shifted by it; default 0), got {got}"
    )
}

fn odd_rope(d_k: usize) -> String {
    format!(
        "position \"rope\" needs an even d_k (it rotates each head's queries and keys in pairs), but d_k is {d_k}: \
         give each head an even number of columns"
    )
}

/// RoPE's rotated dimensions and their frequencies against a head's width: rotary_dim even, 2 … d_k; the
/// frequencies one per pair of them.
fn check_rotary(rotary_dim: Option<usize>, frequencies: Option<&[f64]>, d_k: usize) -> Result<()> {
    let r = rotary_dim.unwrap_or(d_k);
    if r % 2 != 0 || r < 2 || r > d_k {
        return err(rotary_dim_message(d_k, &r.to_string()));
    }
    match frequencies {
        Some(f) if f.len() != r / 2 => err(format!(
            "position.frequencies must be a list of {} numbers (rotary_dim / 2 = {r} / 2: one θ_i per pair of rotated \
             dimensions), got {}",
            r / 2,
            f.len()
        )),
        _ => Ok(()),
    }
}

fn rotary_dim_message(d_k: usize, got: &str) -> String {
    format!(
        "position.rotary_dim must be an even whole number from 2 to d_k ({d_k}): RoPE rotates the first rotary_dim \
         values of each head's q and k in pairs (the rest pass unchanged), got {got}"
    )
}

fn attention_factor_message(got: &str) -> String {
    format!(
        "position.attention_factor must be a number > 0 (RoPE's cos and sin are multiplied by it; default 1), got {got}"
    )
}

fn slopes_count(got: usize, heads: usize) -> String {
    format!("position.slopes has {got} values, expected {heads}: one per head")
}

/// `window` (`least` 0) or `tiles` (`least` 1): `[a, b]`, two whole numbers ≥ `least`.
fn parse_pair(obj: &Map<String, Value>, key: &str, least: u64) -> Result<Option<[u64; 2]>> {
    let value = match obj.get(key) {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    let (sides, what) = if key == "window" {
        (["left", "right"], "query i attends keys i − left … i + right")
    } else {
        (["rows", "cols"], "FlashAttention's block of queries × keys")
    };
    let expected = format!("[{}, {}]: two whole numbers ≥ {least} ({what})", sides[0], sides[1]);
    let Some(list) = as_list(value) else {
        return err(format!("{key} must be {expected}, got {}", describe(value)));
    };
    if list.len() != 2 {
        return err(format!("{key} has {} values; it must be {expected}", list.len()));
    }
    let mut out = [0; 2];
    for (k, item) in list.items().iter().enumerate() {
        out[k] = match item.as_u64() {
            Some(x) if x >= least => x,
            _ => {
                return err(format!(
                    "{key}[{k}] ({}) is {}: it must be a whole number ≥ {least} ({key} is {expected})",
                    sides[k],
                    describe(item)
                ))
            }
        };
    }
    Ok(Some(out))
}

/// A whole number ≥ 0 (`sinks`), 0 when absent.
fn parse_count(obj: &Map<String, Value>, key: &str, what: &str) -> Result<u64> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(0),
        Some(v) => match v.as_u64() {
            Some(x) => Ok(x),
            None => err(format!("{key} must be a whole number ≥ 0 ({what}), got {}", describe(v))),
        },
    }
}

/// `decode_step`: a token index, with a causal mask.
fn parse_decode_step(obj: &Map<String, Value>, n: usize, mask: &Mask) -> Result<Option<usize>> {
    let t = match obj.get("decode_step") {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => match v.as_u64() {
            Some(t) => t,
            None => return err(format!("decode_step must be a token index (0, 1, 2, …), got {}", describe(v))),
        },
    };
    if t >= n as u64 {
        return err(decode_out_of_range(t, n));
    }
    if *mask != Mask::Causal {
        return err(DECODE_NEEDS_CAUSAL);
    }
    Ok(Some(t as usize))
}

/// The decode step's weights are row t of the weights, over the KV cache's keys 0 … t. A query whose every key is
/// masked gets 1/n on each of all n keys under masked_row "uniform": past the cache while t + 1 < n, so that pair is
/// refused (masked_row "zero" and "nan" fill the cache's part of the row alike).
fn check_decode_row(options: &Options, n: usize) -> Result<()> {
    let Some(t) = options.decode_step else { return Ok(()) };
    if options.masked_row != MaskedRow::Uniform || t + 1 == n || (0..n).any(|j| options.reason(t, j) == 0) {
        return Ok(());
    }
    err(format!(
        "decode_step {t}: every key of query {t} is masked, and masked_row \"uniform\" gives its row 1/{n} on each \
         of the {n} keys, but at step {t} the KV cache holds only keys 0 … {t}: choose masked_row \"zero\" or \"nan\", \
         or another step"
    ))
}

fn decode_out_of_range(t: u64, n: usize) -> String {
    format!("decode_step {t} is out of range: there are {n} tokens, numbered 0 to {}", n - 1)
}

const DECODE_NEEDS_CAUSAL: &str = "decode_step needs mask \"causal\": generating token by token, each query sees only \
     the tokens so far (add \"mask\": \"causal\")";

/// `scoring` and the matrices it needs: queries `dq` wide, keys `dk` wide.
fn parse_scoring(fields: &Fields, dq: usize, dk: usize, heads: usize, q_what: &str, k_what: &str) -> Result<Scoring> {
    let name = match fields.obj.get("scoring") {
        None | Some(Value::Null) => "dot",
        Some(Value::String(s)) if ["dot", "general", "additive", "cosine"].contains(&s.as_str()) => s.as_str(),
        Some(other) => {
            return err(format!(
                "scoring must be \"dot\", \"general\", \"additive\" or \"cosine\", got {}",
                describe(other)
            ))
        }
    };
    let allowed: &[&str] = match name {
        "general" => &["w_a"],
        "additive" => &["w_a", "u_a", "v_a"],
        _ => &[],
    };
    for field in ["w_a", "u_a", "v_a"] {
        if fields.has(field) && !allowed.contains(&field) {
            return err(format!("{field} belongs to {} scoring, but scoring is {}", owner(field), quote(name)));
        }
    }
    if heads > 1 && (name == "general" || name == "additive") {
        return err(format!(
            "{name} scoring has one head only (its W_a is one matrix), but heads is {heads}: use \"dot\" or \"cosine\" \
             with several heads"
        ));
    }
    let need = |field: &str, shape: &str| match fields.matrix(field) {
        Some(m) => Ok(m),
        None => err(format!("{field} is missing: {name} scoring needs {field}, {shape}")),
    };
    Ok(match name {
        "general" => {
            let shape = format!("a {dq} × {dk} matrix (rows: {q_what}; columns: {k_what})");
            let w_a = parse_matrix("w_a", need("w_a", &shape)?, Some((k_what, dk)))?;
            check_rows("w_a", &w_a, dq, q_what)?;
            Scoring::General { w_a }
        }
        "additive" => {
            let w_a = parse_matrix("w_a", need("w_a", &format!("a {dq} × d_a matrix ({dq} = {q_what})"))?, None)?;
            check_rows("w_a", &w_a, dq, q_what)?;
            let d_a = w_a.cols();
            let shape = format!("a {dk} × {d_a} matrix ({dk} = {k_what}; {d_a} = d_a, the columns of w_a)");
            let u_a = parse_matrix("u_a", need("u_a", &shape)?, Some(("d_a, the columns of w_a", d_a)))?;
            check_rows("u_a", &u_a, dk, k_what)?;
            let Some(v) = fields.obj.get("v_a") else {
                return err(format!("v_a is missing: additive scoring needs v_a, a list of {d_a} numbers (d_a)"));
            };
            let v_a = parse_numbers("v_a", Numbers::Json(v))?;
            if v_a.len() != d_a {
                return err(format!("v_a has {} values, expected {d_a} (d_a, the columns of w_a)", v_a.len()));
            }
            Scoring::Additive { w_a, u_a, v_a }
        }
        "cosine" => Scoring::Cosine,
        _ => Scoring::Dot,
    })
}

/// The scorings a scoring field belongs to: "general or additive" for `w_a`, "additive" for `u_a` and `v_a`.
pub fn owner(field: &str) -> &'static str {
    if field == "w_a" {
        "general or additive"
    } else {
        "additive"
    }
}

fn check_rows(name: &str, m: &Matrix, rows: usize, what: &str) -> Result<()> {
    if m.rows() != rows {
        return err(format!("{name} has {} rows, expected {rows} ({what})", m.rows()));
    }
    Ok(())
}

/// `head` (or any index field) below `count`.
fn parse_index(obj: &Map<String, Value>, key: &str, count: usize, what: &str) -> Result<usize> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(x)) => match x.as_u64() {
            Some(i) if i < count as u64 => Ok(i as usize),
            _ => err(format!("{key} must be a whole number from 0 to {} ({what} is {count}), got {x}", count - 1)),
        },
        Some(other) => err(format!("{key} must be a whole number from 0 to {}, got {}", count - 1, describe(other))),
    }
}

fn parse_temperature(obj: &Map<String, Value>) -> Result<f64> {
    match obj.get("temperature") {
        None | Some(Value::Null) => Ok(1.0),
        Some(Value::Number(x)) => match x.as_f64() {
            Some(t) if t.is_finite() && t > 0.0 => Ok(t),
            _ => err(format!("temperature must be a positive number (1 leaves the scores as they are), got {x}")),
        },
        Some(other) => err(format!("temperature must be a positive number, got {}", describe(other))),
    }
}

/// `mask`: "none", "causal", or rows × cols of 0/1 or booleans (`list`: one list of cols, for cross-attention).
fn parse_mask(obj: &Map<String, Value>, rows: usize, cols: usize, list: bool) -> Result<Mask> {
    let shape = if list { format!("a list of {cols} values") } else { format!("a {rows} × {cols} matrix") };
    let expected = format!("\"none\", \"causal\" or {shape} of 0/1 or true/false (1 = may attend)");
    let (value, outer) = match obj.get("mask") {
        None | Some(Value::Null) => return Ok(Mask::None),
        Some(Value::String(s)) if s == "none" => return Ok(Mask::None),
        Some(Value::String(s)) if s == "causal" && !list => return Ok(Mask::Causal),
        Some(Value::String(s)) if s == "causal" => {
            return err("mask \"causal\" needs several queries; cross-attention has one: give a list of 0/1 per key")
        }
        Some(v) => match as_list(v) {
            Some(outer) => (v, outer),
            None => return err(format!("mask must be {expected}, got {}", describe(v))),
        },
    };
    // Cross-attention's one query: the mask is that query's row.
    let row_values: Vec<&Value> = if list { vec![value] } else { outer.items().iter().collect() };
    if !list && outer.len() != rows {
        return err(format!("mask has {} rows, expected {rows}: it must be {shape} (one row per query)", outer.len()));
    }
    let mut data = Vec::with_capacity(rows * cols);
    for (i, row) in row_values.iter().enumerate() {
        let at = if list { String::new() } else { format!(" row {i}") };
        let Some(items) = as_list(row) else {
            return err(format!("mask{at} must be a list of 0/1 values, got {}", describe(row)));
        };
        if items.len() != cols {
            return err(format!(
                "mask{at} has {} values, expected {cols} (one per key): it must be {shape}",
                items.len()
            ));
        }
        for (j, item) in items.items().iter().enumerate() {
            data.push(match item {
                Value::Bool(b) => f64::from(u8::from(*b)),
                Value::Number(x) if x.as_f64() == Some(0.0) || x.as_f64() == Some(1.0) => x.as_f64().unwrap_or(0.0),
                other => {
                    return err(format!(
                        "mask{at}, column {j} is {}: each entry must be 0 or 1 (or false/true), 1 = may attend",
                        describe(other)
                    ))
                }
            });
        }
    }
    Ok(Mask::Matrix(Matrix::from_vec(rows, cols, data).expect("rows × cols")))
}

fn parse_valid_lens(obj: &Map<String, Value>, n: usize) -> Result<Option<Vec<usize>>> {
    let value = match obj.get("valid_lens") {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    let what = if n == 1 {
        "a list of one whole number (the decoder state's)".to_string()
    } else {
        format!("a list of {n} whole numbers, one per query")
    };
    let Some(list) = as_list(value) else {
        return err(format!("valid_lens must be {what}, got {}", describe(value)));
    };
    if list.len() != n {
        return err(format!("valid_lens has {} values, expected {n}: it must be {what}", list.len()));
    }
    list.items()
        .iter()
        .enumerate()
        .map(|(i, item)| match item.as_u64() {
            Some(l) => Ok(l.min(MAX_TOKENS as u64) as usize),
            None => err(format!(
                "valid_lens entry {i} is {}: each must be a whole number ≥ 0 (query {i} attends keys 0 … valid_lens[{i}] − 1)",
                describe(item)
            )),
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

fn parse_masked_row(obj: &Map<String, Value>) -> Result<MaskedRow> {
    match obj.get("masked_row") {
        None | Some(Value::Null) => Ok(MaskedRow::Zero),
        Some(Value::String(s)) if s == "zero" => Ok(MaskedRow::Zero),
        Some(Value::String(s)) if s == "uniform" => Ok(MaskedRow::Uniform),
        Some(Value::String(s)) if s == "nan" => Ok(MaskedRow::Nan),
        Some(other) => err(format!("masked_row must be \"zero\", \"uniform\" or \"nan\", got {}", describe(other))),
    }
}

impl Mask {
    /// Entry (i, j) as the user set it, 1 (may attend) or 0 ([`Mask::matrix`]'s, without the matrix); 1 off a custom
    /// mask's grid.
    pub fn entry(&self, i: usize, j: usize) -> f64 {
        match self {
            Mask::Matrix(a) if i < a.rows() && j < a.cols() => a.get(i, j),
            Mask::Causal => f64::from(u8::from(j <= i)),
            _ => 1.0,
        }
    }

    /// The mask as the user set it, n × m of 0/1 (every key allowed under "none"; `valid_lens` apart).
    pub fn matrix(&self, n: usize, m: usize) -> Matrix {
        match self {
            Mask::Matrix(a) => a.clone(),
            Mask::Causal => {
                let mut out = Matrix::zeros(n, m);
                for i in 0..n {
                    for (j, x) in out.row_mut(i).iter_mut().enumerate() {
                        *x = f64::from(u8::from(j <= i));
                    }
                }
                out
            }
            Mask::None => Matrix::from_vec(n, m, vec![1.0; n * m]).expect("n × m"),
        }
    }
}

impl Options {
    /// Writes the fields that differ from the defaults, in the shape `from_value` reads.
    fn write(&self, obj: &mut Map<String, Value>) {
        if self.heads != 1 {
            obj.insert("heads".into(), json!(self.heads));
        }
        if self.head != 0 {
            obj.insert("head".into(), json!(self.head));
        }
        if let Some(w) = &self.w_o {
            obj.insert("w_o".into(), matrix_value(w));
        }
        if self.scoring != Scoring::Dot {
            obj.insert("scoring".into(), json!(self.scoring.name()));
        }
        match &self.scoring {
            Scoring::General { w_a } => {
                obj.insert("w_a".into(), matrix_value(w_a));
            }
            Scoring::Additive { w_a, u_a, v_a } => {
                obj.insert("w_a".into(), matrix_value(w_a));
                obj.insert("u_a".into(), matrix_value(u_a));
                obj.insert("v_a".into(), numbers_value(v_a));
            }
            Scoring::Dot | Scoring::Cosine => {}
        }
        if self.temperature != 1.0 {
            obj.insert("temperature".into(), json!(self.temperature));
        }
        match &self.mask {
            Mask::None => {}
            Mask::Causal => {
                obj.insert("mask".into(), json!("causal"));
            }
            Mask::Matrix(m) if m.rows() == 1 && obj.get("mechanism") == Some(&json!("cross")) => {
                obj.insert("mask".into(), numbers_value(m.row(0)));
            }
            Mask::Matrix(m) => {
                obj.insert("mask".into(), matrix_value(m));
            }
        }
        if let Some(lens) = &self.valid_lens {
            obj.insert("valid_lens".into(), json!(lens));
        }
        if self.masked_row != MaskedRow::Zero {
            obj.insert("masked_row".into(), json!(self.masked_row.name()));
        }
        if let Some(p) = &self.position {
            obj.insert("position".into(), p.to_value());
        }
        if let Some(kv) = self.kv_heads {
            obj.insert("kv_heads".into(), json!(kv));
        }
        if let Some(w) = self.window {
            obj.insert("window".into(), json!(w));
        }
        if self.sinks != 0 {
            obj.insert("sinks".into(), json!(self.sinks));
        }
        if let Some(t) = self.decode_step {
            obj.insert("decode_step".into(), json!(t));
        }
        if let Some(t) = self.tiles {
            obj.insert("tiles".into(), json!(t));
        }
        self.layers.write(obj);
    }
}

/// A list of rows of numbers. `expected_cols` names what fixes the row length.
fn parse_matrix(name: &str, value: Rows, expected_cols: Option<(&str, usize)>) -> Result<Matrix> {
    // The count first: nothing is built for a list too long to take.
    let count = match value {
        Rows::Json(Value::Array(rows)) => rows.len(),
        Rows::Flat(f) => f.rows,
        Rows::Json(_) => 0,
    };
    if count > MAX_TOKENS {
        return err(format!("{name} has {count} rows; at most {MAX_TOKENS} are supported"));
    }
    let rows: Vec<Numbers> = match value {
        Rows::Json(Value::Array(rows)) => rows.iter().map(Numbers::Json).collect(),
        Rows::Json(other) => return err(format!("{name} must be a list of rows, got {}", describe(other))),
        Rows::Flat(f) => (0..f.rows).map(|i| Numbers::Flat(&f.data[i * f.cols..(i + 1) * f.cols])).collect(),
    };
    if rows.is_empty() {
        return err(format!("{name} is empty: it needs at least one row"));
    }
    if rows.len() > MAX_TOKENS {
        return err(format!("{name} has {} rows; at most {MAX_TOKENS} are supported", rows.len()));
    }
    let mut parsed = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let row_name = format!("{name} row {i}");
        if let Numbers::Json(value) = row {
            if !value.is_array() {
                return err(format!("{row_name} must be a list of numbers, got {}", describe(value)));
            }
        }
        let numbers = parse_numbers(&row_name, *row)?;
        let expected = match (expected_cols, parsed.first()) {
            (Some((_, cols)), _) => Some(cols),
            (None, Some(first)) => Some(Vec::len(first)),
            (None, None) => None,
        };
        if numbers.is_empty() {
            return err(format!("{row_name} is empty: every row needs at least one number"));
        }
        if numbers.len() > MAX_DIMS {
            return err(format!("{row_name} has {} values; at most {MAX_DIMS} are supported", numbers.len()));
        }
        if let Some(cols) = expected {
            if numbers.len() != cols {
                let why = match expected_cols {
                    Some((what, _)) => format!(" ({what})"),
                    None => " (like row 0)".to_string(),
                };
                let values = if numbers.len() == 1 { "value" } else { "values" };
                return err(format!("{row_name} has {} {values}, expected {cols}{why}", numbers.len()));
            }
        }
        parsed.push(numbers);
    }
    Ok(Matrix::from_rows(&parsed).expect("rows checked to have equal length"))
}

fn parse_weight(name: &str, value: Rows, d_model: usize) -> Result<Matrix> {
    let rows = match value {
        Rows::Json(Value::Array(rows)) => rows.len(),
        Rows::Json(other) => return err(format!("{name} must be a list of rows, got {}", describe(other))),
        Rows::Flat(f) => f.rows,
    };
    if rows != d_model {
        return err(format!("{name} has {rows} rows, expected {d_model}: one row per embedding dimension"));
    }
    parse_matrix(name, value, None)
}

fn parse_numbers(name: &str, value: Numbers) -> Result<Vec<f64>> {
    let limit = MAX_LIST;
    let too_many = |count: usize| err(format!("{name} has {count} values; that is more than supported"));
    let items = match value {
        Numbers::Json(v) => match as_list(v) {
            Some(list) if list.len() > limit => return too_many(list.len()),
            Some(list) => list.items(),
            None => return err(format!("{name} must be a list of numbers, got {}", describe(v))),
        },
        Numbers::Flat(values) if values.len() > limit => return too_many(values.len()),
        Numbers::Flat(values) => return Ok(values.to_vec()), // finite: checked by Flat::new
    };
    items
        .iter()
        .enumerate()
        .map(|(j, item)| parse_number(item).map_err(|why| ConfigError(format!("{name}, column {j} {why}"))))
        .collect()
}

/// One finite number. JS sends NaN and ±Infinity as the strings "NaN",
/// "Infinity", "-Infinity" (JSON has no such numbers), so they get their own message.
fn parse_number(value: &Value) -> std::result::Result<f64, String> {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(format!("is {n}, which is too large for float64")),
        },
        Value::String(s) if s == "NaN" => Err("is NaN; every value must be a finite number".into()),
        Value::String(s) if s == "Infinity" || s == "-Infinity" => {
            Err(format!("is {s}; every value must be a finite number (at most about 1.8e308)"))
        }
        other => Err(format!("is {}, not a number", describe(other))),
    }
}

/// The default token names' prefixes: `word_1` … for self-attention's embeddings, `h_1` … for cross-attention's
/// annotations (the seed documents' names).
pub const SELF_TOKENS: &str = "word";
pub const CROSS_TOKENS: &str = "h";

/// The name of row `i` (from 0) of a config whose `tokens` names none: `{prefix}_{i + 1}`.
pub fn token_name(prefix: &str, i: usize) -> String {
    format!("{prefix}_{}", i + 1)
}

fn parse_tokens(obj: &Map<String, Value>, n: usize, rows_of: &str, prefix: &str) -> Result<Vec<String>> {
    let Some(value) = obj.get("tokens") else {
        return Ok((0..n).map(|i| token_name(prefix, i)).collect());
    };
    let Some(list) = as_list(value) else {
        return err(format!("tokens must be a list of names, got {}", describe(value)));
    };
    if list.len() != n {
        return err(format!("tokens has {} names but {rows_of} has {n} rows", list.len()));
    }
    list.items()
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s.clone()),
            Value::Number(x) => Ok(x.to_string()),
            other => err(format!("tokens entry {i} must be a name (a string), got {}", describe(other))),
        })
        .collect()
}

fn parse_scale(obj: &Map<String, Value>, default: Scale) -> Result<Scale> {
    match obj.get("scale") {
        None | Some(Value::Null) => Ok(default),
        Some(Value::String(s)) if s == "sqrt_dk" => Ok(Scale::SqrtDk),
        Some(Value::String(s)) if s == "none" => Ok(Scale::None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(s) if s.is_finite() && s > 0.0 => Ok(Scale::Value(s)),
            _ => err(format!("scale must be a positive number, got {n}")),
        },
        Some(other) => {
            err(format!("scale must be \"sqrt_dk\", \"none\" or a positive number, got {}", describe(other)))
        }
    }
}

fn parse_query(obj: &Map<String, Value>, n: usize) -> Result<usize> {
    match obj.get("query") {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(x)) => match x.as_u64() {
            Some(i) if (i as usize) < n && i < n as u64 => Ok(i as usize),
            Some(i) => err(format!("query {i} is out of range: there are {n} tokens, numbered 0 to {}", n - 1)),
            None => err(format!("query must be a token index (0, 1, 2, …), got {x}")),
        },
        Some(other) => err(format!("query must be a token index (0, 1, 2, …), got {}", describe(other))),
    }
}

/// A short, human description of a JSON value for error messages.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the text {}", quote(s)),
        Value::Array(a) => format!("a list of {} items", a.len()),
        Value::Object(_) => match long_list(value) {
            Some(len) => format!("a list of {len} items"),
            None => "an object".into(),
        },
    }
}

/// The length a long list's stand-in stands for (`{"$list_length": N}`, that key alone, N > [`MAX_LIST`]); `None` for
/// any other value (an object with that key and a length a list of the config may have is an object).
pub fn long_list(value: &Value) -> Option<usize> {
    let Value::Object(o) = value else { return None };
    let len = o.get(LIST_LENGTH).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok())?;
    (o.len() == 1 && len > MAX_LIST).then_some(len)
}

/// A list as a field's parser reads it: its items, or a long list's stand-in, of which only the length is known.
#[derive(Clone, Copy)]
enum List<'a> {
    Items(&'a [Value]),
    Long(usize),
}

impl<'a> List<'a> {
    fn len(self) -> usize {
        match self {
            List::Items(items) => items.len(),
            List::Long(len) => len,
        }
    }

    /// Its items; none for a stand-in, which every parser refuses by its length (longer than any a field takes)
    /// before it reads an item.
    fn items(self) -> &'a [Value] {
        match self {
            List::Items(items) => items,
            List::Long(_) => &[],
        }
    }
}

/// `value` as a list: a JSON array, or a long list's stand-in ([`long_list`]); `None` for anything else.
fn as_list(value: &Value) -> Option<List<'_>> {
    match value {
        Value::Array(items) => Some(List::Items(items)),
        _ => long_list(value).map(List::Long),
    }
}

fn unknown_field(key: &str) -> String {
    let key_short = quote(key);
    match crate::text::closest(key, FIELDS) {
        Some(f) => format!("unknown config field {key_short} (did you mean \"{f}\"?)"),
        None => format!("unknown config field {key_short}; known fields are {}", FIELDS.join(", ")),
    }
}

/// Numbers as a JSON list, each as [`number_value`] writes it.
pub(crate) fn numbers_value(v: &[f64]) -> Value {
    Value::Array(v.iter().map(|&x| number_value(x)).collect())
}

/// A stack as JSON: layers × heads × n × m nested lists.
fn stack_value(stack: &Stack) -> Value {
    let [layers, heads, _, m] = stack.shape();
    let rows = |l, h| Value::Array(stack.head(l, h).chunks(m).map(numbers_value).collect());
    Value::Array((0..layers).map(|l| Value::Array((0..heads).map(|h| rows(l, h)).collect())).collect())
}

fn matrix_value(m: &Matrix) -> Value {
    Value::Array((0..m.rows()).map(|i| numbers_value(m.row(i))).collect())
}

/// Integral values are written as integers so presets read like the documents.
pub(crate) fn number_value(x: f64) -> Value {
    // -0.0 stays a float so it reads back as -0.0 (an integer 0 would not).
    if x.fract() == 0.0 && x.abs() < 9.0e15 && !(x == 0.0 && x.is_sign_negative()) {
        json!(x as i64)
    } else {
        json!(x)
    }
}
