//! A real model's attention (`mechanism: "weights"`): weights a transformer computed
//! (Hugging Face's `output_attentions=True` for one sentence), shown rather than computed.
//!
//! The weights are a stack of layers × heads × n × m matrices; shorter inputs gain leading
//! axes of 1. Besides the weights themselves, each head gets the summaries people use to
//! find the interesting heads of a model (Clark et al. 2019, "What does BERT look at?";
//! Voita et al. 2019): how spread its weights are, how far from the diagonal they sit, and
//! how much goes to the previous and to the first token.

use crate::math::Matrix;

/// The most values a stack may hold: 8 Mi float64s are 64 MiB, about what a page can hold
/// twice (the trace and the figure's copy) without trouble (12 layers × 12 heads at n = 240). The cost bound
/// (`config::COST_PER_SHOWN_WEIGHT`) is the tighter limit for one big head: about 1,930 × 1,930.
pub const MAX_VALUES: usize = 1 << 23;

/// The most heads a stack may hold (layers × heads): each is a summary, a thumbnail of the
/// element's grid and its labels, whatever its size, so 180,000 layers of one 1 × 1 head cost
/// more than 12 × 12 heads at n = 240. 4096 is 64 layers of 64 heads (GPT-2 XL is 48 × 25).
pub const MAX_HEADS: usize = 4096;

/// Row sums further than this from 1 are said in the figure ("rows do not sum to 1").
pub const ROW_SUM_TOLERANCE: f64 = 1e-6;

/// layers × heads × n × m weights, row-major (the last axis is the keys).
#[derive(Clone, Debug, PartialEq)]
pub struct Stack {
    layers: usize,
    heads: usize,
    n: usize,
    m: usize,
    /// Shared: the config, its trace and the element's authored config hold one copy of a stack (up to 64 MiB).
    /// An `Rc<Vec>`, not an `Rc<[f64]>`: a Vec becomes one without a copy (an `Rc<[f64]>` copies it behind its
    /// counts), so the buffer a Float64Array arrived in is the stack itself (peak memory ≤ 2× the stack).
    data: std::rc::Rc<Vec<f64>>,
}

impl Stack {
    /// `None` unless `data` holds layers·heads·n·m values and every axis is at least 1. Takes `data` as it is.
    pub fn new(layers: usize, heads: usize, n: usize, m: usize, data: Vec<f64>) -> Option<Stack> {
        let len = layers.checked_mul(heads)?.checked_mul(n)?.checked_mul(m)?;
        (len == data.len() && len > 0).then(|| Stack { layers, heads, n, m, data: std::rc::Rc::new(data) })
    }

    /// [layers, heads, n, m].
    pub fn shape(&self) -> [usize; 4] {
        [self.layers, self.heads, self.n, self.m]
    }

    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// One head's n × m weights, row-major.
    pub fn head(&self, layer: usize, head: usize) -> &[f64] {
        let size = self.n * self.m;
        let start = (layer * self.heads + head) * size;
        &self.data[start..start + size]
    }

    pub fn matrix(&self, layer: usize, head: usize) -> Matrix {
        Matrix::from_vec(self.n, self.m, self.head(layer, head).to_vec()).expect("n × m")
    }

    /// Every head's summary, layer by layer (index layer · heads + head).
    pub fn summaries(&self) -> Vec<Summary> {
        (0..self.layers).flat_map(|l| (0..self.heads).map(move |h| (l, h))).map(|(l, h)| self.summary(l, h)).collect()
    }

    /// Head (`layer`, `head`)'s summary (`summaries()[layer · heads + head]`).
    pub fn summary(&self, layer: usize, head: usize) -> Summary {
        let w = self.head(layer, head);
        let mut s = Summary::default();
        let (mut rows, mut previous_rows) = (0usize, 0usize);
        for i in 0..self.n {
            let row = &w[i * self.m..(i + 1) * self.m];
            let sum: f64 = row.iter().sum();
            s.row_sum_error = s.row_sum_error.max((sum - 1.0).abs());
            if sum <= 0.0 {
                continue; // a row of zeros (a fully masked query) attends nowhere: no share to summarise
            }
            rows += 1;
            let mut distance = 0.0;
            for (j, &x) in row.iter().enumerate() {
                distance += x / sum * (i as f64 - j as f64).abs();
            }
            s.entropy += crate::math::entropy_bits(row).unwrap_or(0.0);
            s.distance += distance;
            s.first += row[0] / sum;
            if i >= 1 && i - 1 < self.m {
                s.previous += row[i - 1] / sum;
                previous_rows += 1;
            }
        }
        let mean = |total: f64, count: usize| if count == 0 { 0.0 } else { total / count as f64 };
        s.entropy = mean(s.entropy, rows);
        s.distance = mean(s.distance, rows);
        s.first = mean(s.first, rows);
        s.previous = mean(s.previous, previous_rows);
        s
    }
}

/// One head at a glance, each a mean over its queries of the query's weights as shares
/// of their sum (queries whose weights are all 0 are left out).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// −Σ p log₂ p, in bits: 0 for a head that looks at one key, log₂ m for uniform weights.
    pub entropy: f64,
    /// Σ_j p_j·|i − j|: 0 on the diagonal, 1 for a head that looks one token away.
    pub distance: f64,
    /// The share of query i on key i − 1 (queries 1 … n − 1): near 1 for a previous-token head.
    pub previous: f64,
    /// The share on key 0 (a [CLS]/BOS "sink" head when near 1).
    pub first: f64,
    /// max over the queries of |Σ_j w_ij − 1|: how far the rows are from summing to 1.
    pub row_sum_error: f64,
}

/// The summaries' names in the trace (`summary.entropy` …), in [`Summary::values`]' order.
pub const SUMMARY_NAMES: [&str; 5] = ["entropy", "distance", "previous", "first", "row_sum_error"];

impl Summary {
    pub fn values(&self) -> [f64; 5] {
        [self.entropy, self.distance, self.previous, self.first, self.row_sum_error]
    }
}
