#![cfg(not(target_arch = "wasm32"))]
//! Property tests of the core (proptest, 256 random cases each unless noted): the stable
//! softmax stays a probability distribution for any finite row up to ±1e308; permuting the
//! tokens of self-attention permutes every stage the same way; `compute` is deterministic and
//! finite for inputs in ±1e3; configs round-trip bit for bit through JSON and share links;
//! `RandomState` keeps the guarantees NumPy's legacy generator makes (and equals NumPy, run by
//! python3, bit for bit on random seeds and calls); any sequence of
//! edits yields a config the parser and `compute` accept with consistent shapes; and the
//! incremental `Session` always holds the trace a full `compute` of its config gives.
//! Failures are not persisted to files: proptest prints the minimal failing input instead.

mod common;

use attention_viz::attention::{compute, Trace};
use attention_viz::config::{Config, Mechanism, Projections, Scale};
use attention_viz::edits::Distribution;

/// What a value edit may target: the config's inputs (`config::INPUTS`) and the mask (0/1).
const INPUT_COUNT: usize = attention_viz::config::INPUTS.len() + 1;
fn input(i: usize) -> &'static str {
    attention_viz::config::INPUTS.get(i).copied().unwrap_or("mask")
}
use attention_viz::math::{softmax_stable, Matrix};
use attention_viz::random::RandomState;
use attention_viz::share::{self, State};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// `n` cases (PROPTEST_CASES overrides it for a longer soak); no regression files are
/// written next to the sources.
fn cases(n: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(n);
    ProptestConfig { cases: n, failure_persistence: None, ..ProptestConfig::default() }
}

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

/// Values in ±`r`, with small integers mixed in so that exact ties happen.
fn val(r: f64) -> BoxedStrategy<f64> {
    prop_oneof![3 => -r..r, 1 => (-3i32..=3).prop_map(f64::from)].boxed()
}

/// Every finite f64: normals of all magnitudes, subnormals, ±0.
fn any_finite() -> BoxedStrategy<f64> {
    use proptest::num::f64 as f;
    prop_oneof![
        4 => f::POSITIVE | f::NEGATIVE | f::NORMAL | f::SUBNORMAL | f::ZERO,
        1 => val(10.0),
        1 => prop_oneof![Just(f64::MAX), Just(-f64::MAX), Just(f64::MIN_POSITIVE), Just(-0.0), Just(9.0e15), Just(-9.0e15 + 1.0)],
    ]
    .boxed()
}

fn matrix(rows: usize, cols: usize, v: BoxedStrategy<f64>) -> BoxedStrategy<Matrix> {
    prop::collection::vec(v, rows * cols).prop_map(move |d| Matrix::from_vec(rows, cols, d).unwrap()).boxed()
}

fn token_name() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "[a-z]{1,6}",
        1 => any::<String>(),
        1 => Just(String::new()),
        1 => Just("<img src=x onerror=alert(1)>".to_string()),
    ]
    .boxed()
}

fn scale(v: BoxedStrategy<f64>) -> BoxedStrategy<Scale> {
    prop_oneof![
        Just(Scale::SqrtDk),
        Just(Scale::None),
        v.prop_filter_map("positive", |s| (s.is_finite() && s > 0.0).then_some(Scale::Value(s)))
    ]
    .boxed()
}

/// Self-attention with n ≤ `max_n` tokens, d_model ≤ `max_d`, with or without projections
/// (d_k, d_v ≤ `max_d`), values from `v`.
fn self_config(max_n: usize, max_d: usize, v: BoxedStrategy<f64>, s: BoxedStrategy<f64>) -> BoxedStrategy<Config> {
    (1..=max_n, 1..=max_d, prop::option::of((1..=max_d, 1..=max_d)))
        .prop_flat_map(move |(n, d, proj)| {
            let projections = match proj {
                None => Just(None).boxed(),
                Some((dk, dv)) => (matrix(d, dk, v.clone()), matrix(d, dk, v.clone()), matrix(d, dv, v.clone()))
                    .prop_map(|(w_q, w_k, w_v)| Some(Projections { w_q, w_k, w_v }))
                    .boxed(),
            };
            (matrix(n, d, v.clone()), projections, prop::collection::vec(token_name(), n), scale(s.clone()), 0..n)
                .prop_map(|(embeddings, projections, tokens, scale, query)| Config {
                    options: Default::default(),
                    mechanism: Mechanism::SelfAttention { embeddings, projections },
                    tokens,
                    scale,
                    query,
                })
        })
        .boxed()
}

/// Encoder–decoder attention with m ≤ `max_m` encoder states of d ≤ `max_d` values.
fn cross_config(max_m: usize, max_d: usize, v: BoxedStrategy<f64>, s: BoxedStrategy<f64>) -> BoxedStrategy<Config> {
    (1..=max_m, 1..=max_d)
        .prop_flat_map(move |(m, d)| {
            (
                prop::collection::vec(v.clone(), d),
                matrix(m, d, v.clone()),
                prop::collection::vec(token_name(), m),
                scale(s.clone()),
            )
                .prop_map(|(decoder_state, annotations, tokens, scale)| Config {
                    options: Default::default(),
                    mechanism: Mechanism::Cross { decoder_state, annotations },
                    tokens,
                    scale,
                    query: 0,
                })
        })
        .boxed()
}

fn any_config(max_n: usize, max_d: usize, v: BoxedStrategy<f64>, s: BoxedStrategy<f64>) -> BoxedStrategy<Config> {
    prop_oneof![2 => self_config(max_n, max_d, v.clone(), s.clone()), 1 => cross_config(max_n, max_d, v, s)].boxed()
}

fn ordinary_scale() -> BoxedStrategy<f64> {
    (0.1f64..10.0).boxed()
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Every input of a config as (name, matrix); the decoder state is 1 × d.
fn inputs(c: &Config) -> Vec<(&'static str, Matrix)> {
    match &c.mechanism {
        Mechanism::Weights { .. } => unreachable!("the strategies make self and cross configs only"),
        Mechanism::SelfAttention { embeddings, projections } => {
            let mut v = vec![("embeddings", embeddings.clone())];
            if let Some(p) = projections {
                v.extend([("w_q", p.w_q.clone()), ("w_k", p.w_k.clone()), ("w_v", p.w_v.clone())]);
            }
            v
        }
        Mechanism::Cross { decoder_state, annotations } => {
            vec![("decoder_state", Matrix::row_vector(decoder_state)), ("annotations", annotations.clone())]
        }
    }
}

fn bits(m: &Matrix) -> Vec<u64> {
    m.data().iter().map(|x| x.to_bits()).collect()
}

/// Equal, and every float equal bit for bit (so -0.0 ≠ 0.0).
fn same_bits(a: &Config, b: &Config) -> bool {
    let scale_bits = |s: Scale| match s {
        Scale::Value(x) => Some(x.to_bits()),
        _ => None,
    };
    a == b
        && scale_bits(a.scale) == scale_bits(b.scale)
        && inputs(a).iter().zip(inputs(b).iter()).all(|((n1, m1), (n2, m2))| n1 == n2 && bits(m1) == bits(m2))
}

/// |a − b| ≤ 1e-12 · max(|a|, |b|, floor).
fn close(a: f64, b: f64, floor: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(floor)
}

fn max_abs(row: &[f64]) -> f64 {
    row.iter().fold(0.0, |m, x| m.max(x.abs()))
}

fn self_trace(c: &Config) -> attention_viz::attention::SelfTrace {
    match compute(c) {
        Ok(Trace::SelfAttention(t)) => t,
        other => panic!("expected a self-attention trace, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Softmax
// ---------------------------------------------------------------------------

fn softmax_entry() -> BoxedStrategy<f64> {
    prop_oneof![
        3 => -1e3f64..1e3,
        1 => (-3i32..=3).prop_map(f64::from),
        2 => 1e300f64..1e308,
        2 => (1e300f64..1e308).prop_map(|x| -x),
        1 => Just(-f64::MAX),
        1 => Just(f64::MAX),
        1 => Just(0.0),
        1 => any_finite(),
    ]
    .boxed()
}

fn softmax_row() -> BoxedStrategy<Vec<f64>> {
    prop_oneof![
        // Mixed magnitudes.
        3 => prop::collection::vec(softmax_entry(), 1..=16),
        // Exact ties: every entry is one of two values.
        1 => (softmax_entry(), softmax_entry(), prop::collection::vec(any::<bool>(), 1..=16))
            .prop_map(|(a, b, pick)| pick.into_iter().map(|p| if p { a } else { b }).collect()),
        // All equal (including all -f64::MAX).
        1 => (softmax_entry(), 1usize..=16).prop_map(|(a, n)| vec![a; n]),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn softmax_stable_is_a_distribution_for_any_finite_row(row in softmax_row()) {
        let w = softmax_stable(&row);
        prop_assert_eq!(w.len(), row.len());
        for &x in &w {
            prop_assert!(x.is_finite() && (0.0..=1.0).contains(&x), "weight {x} of {row:?}");
        }
        let sum: f64 = w.iter().sum();
        prop_assert!((sum - 1.0).abs() <= 1e-12, "sum {sum} of {row:?}");
        // Exactly monotone: exp and the shared division preserve order and ties.
        for i in 0..row.len() {
            for j in 0..row.len() {
                if row[i] == row[j] {
                    prop_assert_eq!(w[i].to_bits(), w[j].to_bits());
                } else if row[i] < row[j] {
                    prop_assert!(w[i] <= w[j]);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Permutation equivariance
// ---------------------------------------------------------------------------

fn permuted(c: &Config, perm: &[usize]) -> Config {
    let Mechanism::SelfAttention { embeddings, projections } = &c.mechanism else { unreachable!() };
    let rows: Vec<Vec<f64>> = perm.iter().map(|&p| embeddings.row(p).to_vec()).collect();
    Config {
        options: Default::default(),
        mechanism: Mechanism::SelfAttention {
            embeddings: Matrix::from_rows(&rows).unwrap(),
            projections: projections.clone(),
        },
        tokens: perm.iter().map(|&p| c.tokens[p].clone()).collect(),
        scale: c.scale,
        query: perm.iter().position(|&p| p == c.query).unwrap(),
    }
}

/// The scale of the rounding error of context[i][c] = Σ_j w_ij·v_jc: Σ_j |w_ij·v_jc| (and at
/// least the row's largest entry). Two summation orders differ by ~1e-16 of it, however much
/// the sum cancels.
fn term_scale(t: &attention_viz::attention::SelfTrace, i: usize, c: usize) -> f64 {
    let terms: f64 = (0..t.v.rows()).map(|j| (t.weights.get(i, j) * t.v.get(j, c)).abs()).sum();
    terms.max(max_abs(t.context.row(i)))
}

fn config_and_permutation() -> BoxedStrategy<(Config, Vec<usize>)> {
    self_config(6, 4, val(10.0), ordinary_scale())
        .prop_flat_map(|c| {
            let n = c.len();
            (Just(c), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
        })
        .boxed()
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn permuting_the_tokens_permutes_every_stage((c, perm) in config_and_permutation()) {
        let a = self_trace(&c);
        let b = self_trace(&permuted(&c, &perm));
        let n = c.len();
        for (name, ma, mb) in [("q", &a.q, &b.q), ("k", &a.k, &b.k), ("v", &a.v, &b.v), ("context", &a.context, &b.context)] {
            for i in 0..n {
                for (j, (&x, &y)) in mb.row(i).iter().zip(ma.row(perm[i])).enumerate() {
                    // A context entry is a sum that may cancel: it is only defined to rounding of its terms.
                    let floor = if name == "context" { term_scale(&a, perm[i], j) } else { max_abs(ma.row(perm[i])) };
                    prop_assert!(close(x, y, floor), "{name}[{i}][{j}]: {x} vs {y} (perm {perm:?})");
                }
            }
        }
        for (name, ma, mb) in [("scores", &a.scores, &b.scores), ("scaled", &a.scaled, &b.scaled), ("weights", &a.weights, &b.weights)] {
            for i in 0..n {
                let floor = max_abs(ma.row(perm[i]));
                for j in 0..n {
                    let (x, y) = (mb.get(i, j), ma.get(perm[i], perm[j]));
                    prop_assert!(close(x, y, floor), "{name}[{i}][{j}]: {x} vs {y} (perm {perm:?})");
                }
            }
        }
        // The followed query moves with its token.
        prop_assert_eq!(b.query.index, perm.iter().position(|&p| p == c.query).unwrap());
        for (c, (x, y)) in b.query.context.iter().zip(&a.query.context).enumerate() {
            let floor = (0..n).map(|j| a.query.terms.get(j, c).abs()).sum::<f64>();
            prop_assert!(close(*x, *y, floor), "query.context {x} vs {y}");
        }
        for j in 0..n {
            prop_assert!(close(b.query.weights[j], a.query.weights[perm[j]], 1.0));
        }
    }
}

// ---------------------------------------------------------------------------
// compute: deterministic, finite, rows sum to 1
// ---------------------------------------------------------------------------

fn field_bits(t: &Trace) -> Vec<(String, Vec<usize>, Vec<u64>)> {
    t.fields()
        .into_iter()
        .map(|f| (f.name.to_string(), f.shape.clone(), f.data.iter().map(|x| x.to_bits()).collect()))
        .collect()
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn compute_is_deterministic_finite_and_normalised(c in any_config(6, 4, val(1e3), ordinary_scale())) {
        let t1 = compute(&c).map_err(|e| TestCaseError::fail(format!("compute failed on ±1e3 inputs: {e}")))?;
        let t2 = compute(&c.clone()).unwrap();
        prop_assert_eq!(field_bits(&t1), field_bits(&t2));
        for f in t1.fields() {
            // The naive softmax overflows to NaN on purpose (the documents' lesson).
            if f.name != "naive_weights" {
                prop_assert!(f.data.iter().all(|x| x.is_finite()), "{} has a non-finite value", f.name);
            }
        }
        let n = c.len();
        match &t1 {
            Trace::Weights(_) => unreachable!("the strategies make self and cross configs only"),
            Trace::SelfAttention(t) => {
                prop_assert_eq!(t.weights.shape(), (n, n));
                prop_assert_eq!(t.q.rows(), n);
                for i in 0..n {
                    let s: f64 = t.weights.row(i).iter().sum();
                    prop_assert!((s - 1.0).abs() <= 1e-12, "row {i} sums to {s}");
                }
                let s: f64 = t.query.weights.iter().sum();
                prop_assert!((s - 1.0).abs() <= 1e-12);
            }
            Trace::Cross(t) => {
                prop_assert_eq!(t.weights.len(), n);
                let s: f64 = t.weights.iter().sum();
                prop_assert!((s - 1.0).abs() <= 1e-12, "weights sum to {s}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// JSON and share-link round trips
// ---------------------------------------------------------------------------

fn state() -> BoxedStrategy<State> {
    let dist = prop_oneof![
        (1i64..=1_000_000_000_000_000).prop_map(Distribution::Randint),
        (1i64..=10).prop_map(Distribution::Randint),
        Just(Distribution::Rand),
        Just(Distribution::Randn),
    ];
    (any_config(5, 4, any_finite(), any_finite()), any::<bool>(), prop::option::of((any::<u32>(), dist)))
        .prop_map(|(config, naive, random)| State { config, naive, random })
        .boxed()
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn config_json_round_trips_bit_for_bit(c in any_config(5, 4, any_finite(), any_finite())) {
        let back = Config::from_value(&c.to_value()).map_err(|e| TestCaseError::fail(e.0))?;
        prop_assert!(same_bits(&back, &c), "{:?}\nread back as\n{:?}", c, back);
        let text = c.to_value().to_string();
        let back = Config::from_json(&text).map_err(|e| TestCaseError::fail(e.0))?;
        prop_assert!(same_bits(&back, &c), "through text {text}");
    }

    #[test]
    fn share_links_round_trip_bit_for_bit(s in state()) {
        let link = share::encode(&s);
        prop_assert!(link.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        let back = share::decode(&link).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&back, &s);
        prop_assert!(same_bits(&back.config, &s.config));
    }
}

// ---------------------------------------------------------------------------
// RandomState: NumPy's guarantees
// ---------------------------------------------------------------------------

/// (low, high) with low < high, biased to the 32/64-bit boundaries of the sampler.
fn int_range() -> BoxedStrategy<(i64, i64)> {
    prop_oneof![
        (0i64..5, 1i64..20).prop_map(|(l, w)| (l, l + w)),
        (any::<i64>(), any::<i64>()).prop_filter_map("low < high", |(a, b)| (a != b).then(|| (a.min(b), a.max(b)))),
        (
            any::<i32>(),
            prop_oneof![
                Just(1i64 << 32),
                Just((1i64 << 32) + 1),
                Just((1i64 << 32) - 1),
                Just(1i64 << 31),
                1i64..(1 << 40)
            ]
        )
            .prop_map(|(l, w)| (l as i64, l as i64 + w)),
        Just((i64::MIN, i64::MAX)),
        Just((-1, 0)),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn randint_stays_in_range_and_does_not_buffer(seed in any::<u32>(), (low, high) in int_range(), n in 1usize..60, k in 0usize..60) {
        let k = k.min(n);
        let mut a = RandomState::new(seed);
        let all = a.randint(low, high, n).unwrap();
        prop_assert_eq!(all.len(), n);
        prop_assert!(all.iter().all(|&x| low <= x && x < high), "{all:?} not in [{low}, {high})");
        // int64 draws whole words: splitting one call in two gives the same stream.
        let mut b = RandomState::new(seed);
        let mut parts = b.randint(low, high, k).unwrap();
        parts.extend(b.randint(low, high, n - k).unwrap());
        prop_assert_eq!(&parts, &all);
        prop_assert_eq!(&a, &b);
        let mut z = RandomState::new(seed);
        let mut parts0 = z.randint(0, high.max(1), k).unwrap();
        parts0.extend(z.randint(0, high.max(1), n - k).unwrap());
        prop_assert_eq!(parts0, RandomState::new(seed).randint(0, high.max(1), n).unwrap());
    }

    #[test]
    fn same_seed_same_stream_and_rand_in_unit_interval(seed in any::<u32>(), n in 1usize..80, m in 1usize..20) {
        let run = |s: u32| {
            let mut r = RandomState::new(s);
            let a = r.rand(n);
            let b = r.randn(m);
            let c = r.randint(-5, 7, m).unwrap();
            let d = r.randn(m);
            (a, b, c, d, r)
        };
        let (a, b, c, d, r1) = run(seed);
        let (a2, b2, c2, d2, r2) = run(seed);
        prop_assert!(a.iter().all(|x| (0.0..1.0).contains(x)), "{a:?}");
        prop_assert!(b.iter().chain(&d).all(|x| x.is_finite()));
        prop_assert_eq!(a.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), a2.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        prop_assert_eq!(b.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), b2.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        prop_assert_eq!(c, c2);
        prop_assert_eq!(d.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), d2.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        prop_assert_eq!(r1, r2);
    }

    #[test]
    fn reseeding_resets_the_gauss_cache(s1 in any::<u32>(), s2 in any::<u32>(), odd in 0usize..10, n in 1usize..10) {
        let mut r = RandomState::new(s1);
        r.rand(3);
        r.randn(2 * odd + 1); // leaves a cached gaussian
        prop_assert!(r.cached_gauss().is_some());
        r.seed(s2);
        prop_assert_eq!(&r, &RandomState::new(s2));
        let got: Vec<u64> = r.randn(n).iter().map(|x| x.to_bits()).collect();
        let fresh: Vec<u64> = RandomState::new(s2).randn(n).iter().map(|x| x.to_bits()).collect();
        prop_assert_eq!(got, fresh);
    }

    #[test]
    fn rand_and_randn_split_like_one_call(seed in any::<u32>(), n in 0usize..30, k in 0usize..30) {
        let k = k.min(n);
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        let mut a = RandomState::new(seed);
        let mut b = RandomState::new(seed);
        let mut parts = b.randn(k);
        parts.extend(b.randn(n - k));
        prop_assert_eq!(bits(a.randn(n)), bits(parts));
        let mut parts = b.rand(k);
        parts.extend(b.rand(n - k));
        prop_assert_eq!(bits(a.rand(n)), bits(parts));
        prop_assert_eq!(a, b);
    }
}

/// A small xorshift-style generator for the NumPy comparison plan (seeded per run, printed).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Debug)]
enum Call {
    Randint(i64, i64, usize),
    Rand(usize),
    Randn(usize),
}

const NUMPY_SCRIPT: &str = r#"
import json, sys
import numpy as np
plan = json.load(sys.stdin)
out = []
for case in plan:
    np.random.seed(case["seed"])
    res = []
    for call in case["calls"]:
        if call[0] == "randint":
            res.append([int(x) for x in np.random.randint(call[1], call[2], size=call[3])])
        elif call[0] == "rand":
            res.append([int(x) for x in np.random.rand(call[1]).view(np.uint64)])
        else:
            res.append([int(x) for x in np.random.randn(call[1]).view(np.uint64)])
    out.append(res)
print(json.dumps({"numpy": np.__version__, "out": out}))
"#;

/// ~20 random seeds, each followed by a random sequence of randint/rand/randn calls on one
/// state (odd randn counts leave a cached gaussian for the next calls), compared bit for bit
/// with NumPy in one python3 process. Set ATTENTION_VIZ_NUMPY_PLAN_SEED to replay a plan.
#[test]
fn random_state_equals_numpy_on_random_seeds_and_calls() {
    let Some(mut python) = common::numpy_python() else { return };
    let plan_seed =
        std::env::var("ATTENTION_VIZ_NUMPY_PLAN_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
        });
    let mut g = SplitMix(plan_seed);
    let mut seeds: Vec<u32> = vec![0, 42, u32::MAX];
    while seeds.len() < 20 {
        seeds.push(g.next() as u32);
    }
    let mut plan: Vec<(u32, Vec<Call>)> = Vec::new();
    for &seed in &seeds {
        let calls = (0..1 + g.below(6))
            .map(|_| match g.below(4) {
                0 => Call::Rand(g.below(12) as usize),
                1 => Call::Randn(g.below(12) as usize),
                _ => {
                    let (low, high) = match g.below(6) {
                        0 => (0, 1 + g.below(10) as i64),
                        1 => (-(g.below(1000) as i64), 1 + g.below(1000) as i64),
                        2 => {
                            let low = g.next() as i32 as i64;
                            (low, low + [1i64 << 32, (1 << 32) + 1, (1 << 32) - 1, 1][g.below(4) as usize])
                        }
                        3 => {
                            let (a, b) = (g.next() as i64, g.next() as i64);
                            (a.min(b), a.max(b))
                        }
                        4 => (i64::MIN, i64::MAX),
                        _ => (0, 1 + (g.next() >> (1 + g.below(62))) as i64),
                    };
                    let (low, high) = match (low, high) {
                        (l, h) if h > l => (l, h),
                        (l, _) if l == i64::MAX => (l - 1, l),
                        (l, _) => (l, l + 1),
                    };
                    Call::Randint(low, high, 1 + g.below(12) as usize)
                }
            })
            .collect();
        plan.push((seed, calls));
    }
    let json_plan = serde_json::Value::Array(
        plan.iter()
            .map(|(seed, calls)| {
                let calls: Vec<serde_json::Value> = calls
                    .iter()
                    .map(|c| match *c {
                        Call::Randint(l, h, n) => serde_json::json!(["randint", l, h, n]),
                        Call::Rand(n) => serde_json::json!(["rand", n]),
                        Call::Randn(n) => serde_json::json!(["randn", n]),
                    })
                    .collect();
                serde_json::json!({"seed": seed, "calls": calls})
            })
            .collect(),
    );
    let mut child = python
        .args(["-c", NUMPY_SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 starts");
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(json_plan.to_string().as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python failed: {}", String::from_utf8_lossy(&out.stderr));
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).expect("python printed JSON");
    let mut checked = 0;
    for (case, (seed, calls)) in plan.iter().enumerate() {
        let mut r = RandomState::new(*seed);
        for (i, call) in calls.iter().enumerate() {
            let want = &result["out"][case][i];
            let got: Vec<serde_json::Value> = match *call {
                Call::Randint(l, h, n) => {
                    r.randint(l, h, n).unwrap().into_iter().map(serde_json::Value::from).collect()
                }
                Call::Rand(n) => r.rand(n).into_iter().map(|x| serde_json::Value::from(x.to_bits())).collect(),
                Call::Randn(n) => r.randn(n).into_iter().map(|x| serde_json::Value::from(x.to_bits())).collect(),
            };
            assert_eq!(
                &serde_json::Value::Array(got),
                want,
                "seed {seed}, call {i} {call:?} (after {:?}); replay with ATTENTION_VIZ_NUMPY_PLAN_SEED={plan_seed}",
                &calls[..i]
            );
            checked += 1;
        }
    }
    eprintln!(
        "numpy {}: {checked} calls on {} seeds agree bit for bit (plan seed {plan_seed})",
        result["numpy"],
        plan.len()
    );
}

// ---------------------------------------------------------------------------
// Edits keep configs valid
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Edit {
    Value(usize, usize, usize, f64),
    InsertToken(usize, String),
    RemoveToken(usize),
    InsertDim(usize),
    RemoveDim(usize),
    Rename(usize, String),
    Query(usize),
    Randomize(u32, Distribution),
}

fn edit() -> BoxedStrategy<Edit> {
    let dist = prop_oneof![
        (1i64..=5).prop_map(Distribution::Randint),
        (1i64..=1_000_000_000_000_000).prop_map(Distribution::Randint),
        Just(Distribution::Rand),
        Just(Distribution::Randn),
    ];
    prop_oneof![
        4 => (0..INPUT_COUNT, 0usize..8, 0usize..6, prop_oneof![4 => val(1e3), 1 => any_finite(), 1 => Just(f64::NAN), 1 => Just(f64::INFINITY)])
            .prop_map(|(m, r, c, v)| Edit::Value(m, r, c, v)),
        2 => (0usize..9, token_name()).prop_map(|(a, n)| Edit::InsertToken(a, n)),
        2 => (0usize..9).prop_map(Edit::RemoveToken),
        1 => (0usize..7).prop_map(Edit::InsertDim),
        1 => (0usize..7).prop_map(Edit::RemoveDim),
        1 => (0usize..9, token_name()).prop_map(|(a, n)| Edit::Rename(a, n)),
        1 => (0usize..9).prop_map(Edit::Query),
        1 => (any::<u32>(), dist).prop_map(|(s, d)| Edit::Randomize(s, d)),
    ]
    .boxed()
}

fn apply(c: &Config, e: &Edit) -> Result<Config, String> {
    let r = match e {
        Edit::Value(m, r, col, v) => c.with_value(input(*m), *r, *col, *v),
        Edit::InsertToken(at, name) => c.insert_token(*at, name),
        Edit::RemoveToken(at) => c.remove_token(*at),
        Edit::InsertDim(at) => c.insert_dim(*at),
        Edit::RemoveDim(at) => c.remove_dim(*at),
        Edit::Rename(at, name) => c.rename_token(*at, name),
        Edit::Query(q) => c.with_query(*q),
        Edit::Randomize(s, d) => c.randomized(*s, *d),
    };
    r.map_err(|e| e.0)
}

/// The structural invariants of a valid config and its trace.
fn check_valid(c: &Config, history: &[Edit]) -> Result<(), TestCaseError> {
    let n = c.len();
    prop_assert!(n >= 1 && c.query < n, "query {} of {n} after {history:?}", c.query);
    let all_finite = inputs(c).iter().all(|(_, m)| m.data().iter().all(|x| x.is_finite()));
    prop_assert!(all_finite, "non-finite input after {history:?}");
    match &c.mechanism {
        Mechanism::Weights { .. } => unreachable!("the strategies make self and cross configs only"),
        Mechanism::SelfAttention { embeddings, projections } => {
            prop_assert_eq!(embeddings.rows(), n);
            prop_assert!(embeddings.cols() >= 1);
            if let Some(p) = projections {
                let d = embeddings.cols();
                prop_assert!(p.w_q.rows() == d && p.w_k.rows() == d && p.w_v.rows() == d);
                prop_assert!(p.w_q.cols() == p.w_k.cols() && p.w_q.cols() >= 1 && p.w_v.cols() >= 1);
            }
        }
        Mechanism::Cross { decoder_state, annotations } => {
            prop_assert_eq!(annotations.rows(), n);
            prop_assert!(!decoder_state.is_empty());
            prop_assert_eq!(annotations.cols(), decoder_state.len());
        }
    }
    // A valid config is one the parser accepts: it must survive JSON (and so share links).
    match Config::from_value(&c.to_value()) {
        Ok(back) => prop_assert!(back == *c, "JSON changed the config after {history:?}"),
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "the parser refuses the edited config: {e}\nafter edits {history:?}\nconfig {c:?}"
            )))
        }
    }
    match compute(c) {
        Ok(Trace::Weights(_)) => unreachable!("the strategies make self and cross configs only"),
        Ok(Trace::SelfAttention(t)) => {
            let Mechanism::SelfAttention { embeddings, .. } = &c.mechanism else { unreachable!() };
            prop_assert_eq!(t.q.rows(), n);
            prop_assert_eq!(t.k.rows(), n);
            prop_assert_eq!(t.v.rows(), n);
            prop_assert_eq!(t.q.cols(), t.k.cols());
            prop_assert_eq!(t.scores.shape(), (n, n));
            prop_assert_eq!(t.weights.shape(), (n, n));
            prop_assert_eq!(t.context.shape(), (n, t.v.cols()));
            prop_assert_eq!(t.query.index, c.query);
            prop_assert_eq!(t.query.terms.shape(), t.v.shape());
            if embeddings.max_abs() <= 1e3 {
                prop_assert!(t.weights.data().iter().all(|x| x.is_finite()));
            }
        }
        Ok(Trace::Cross(t)) => {
            let Mechanism::Cross { decoder_state, .. } = &c.mechanism else { unreachable!() };
            prop_assert_eq!(t.scores.len(), n);
            prop_assert_eq!(t.weights.len(), n);
            prop_assert_eq!(t.applied.shape(), (decoder_state.len(), n));
            prop_assert_eq!(t.context.len(), decoder_state.len());
        }
        // Overflow is the one failure a valid config may have; it names where.
        Err(e) => prop_assert!(e.0.contains("overflowed"), "compute failed oddly: {e}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn any_sequence_of_edits_keeps_the_config_valid(
        start in any_config(4, 3, val(10.0), ordinary_scale()),
        edits in prop::collection::vec(edit(), 1..=20),
    ) {
        let mut c = start;
        let mut history = Vec::new();
        for e in edits {
            history.push(e.clone());
            match apply(&c, &e) {
                Ok(next) => {
                    check_valid(&next, &history)?;
                    c = next;
                }
                Err(msg) => prop_assert!(!msg.is_empty() && msg.len() <= 500, "bad message {msg:?}"),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Incremental recompute (`attention_viz::incremental::Session`)
// ---------------------------------------------------------------------------

mod incremental {
    use super::*;
    use attention_viz::incremental::Session;

    /// One `set_value`: which input (an index into the config's own inputs, or any name of
    /// `INPUTS` when `foreign`), where (taken modulo the shape unless `outside`), and what.
    #[derive(Clone, Debug)]
    struct SetValue {
        input: usize,
        foreign: bool,
        hot: bool,
        row: usize,
        col: usize,
        outside: bool,
        value: f64,
    }

    fn value() -> BoxedStrategy<f64> {
        prop_oneof![
            4 => val(10.0),
            3 => val(1e3),
            // Spikes that become, and then stop being, a row's maximum score.
            2 => prop_oneof![Just(1e3), Just(-1e3), Just(500.0), Just(0.0), Just(-0.0)],
            1 => 1e-3f64..1e-1,
            // Refused: not finite, or overflows a product.
            1 => prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(1e200), Just(-1e300)],
        ]
        .boxed()
    }

    fn set_value() -> BoxedStrategy<SetValue> {
        (
            0usize..8,
            prop::bool::weighted(0.05),
            any::<bool>(),
            0usize..8,
            0usize..8,
            prop::bool::weighted(0.05),
            value(),
        )
            .prop_map(|(input, foreign, hot, row, col, outside, value)| SetValue {
                input,
                foreign,
                hot,
                row,
                col,
                outside,
                value,
            })
            .boxed()
    }

    /// The matrix name, row and column a `SetValue` means on this config.
    fn target(c: &Config, e: &SetValue, hot: (usize, usize, usize)) -> (&'static str, usize, usize) {
        if e.foreign {
            return (input(e.input % INPUT_COUNT), e.row, e.col);
        }
        let ins = inputs(c);
        let (input, row, col) = if e.hot { hot } else { (e.input, e.row, e.col) };
        let (name, m) = &ins[input % ins.len()];
        if e.outside {
            (name, row + m.rows(), col)
        } else {
            (name, row % m.rows(), col % m.cols())
        }
    }

    fn same_class(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a.is_infinite() && a == b)
    }

    /// The session's trace against a full recompute of its config: every field, same shape,
    /// each value within 1e-12 relative with an absolute floor of 1e-12 × the largest finite
    /// magnitude of its row; non-finite values (the naive softmax) must agree exactly.
    ///
    /// Two refinements of the floor, where "the row" is not the scale of the rounding error:
    /// - a context entry Σ_j w_ij·v_jc can cancel to far below its terms, and then any two
    ///   summation orders differ by ~1e-16 × Σ_j |w_ij·v_jc| however small the result is (the
    ///   full recompute is itself that far from the exact value), so its floor is
    ///   1e-12 × Σ_j |w_ij·v_jc| (at least the row maximum);
    /// - row j of `query.terms` is w_j·v_j: its floor is 1e-12 × the largest |v_j|, since the
    ///   weight w_j is only known to 1e-12 of its softmax row (a weight of 1e-317 is 0 there);
    /// - below float64's underflow level relative error means nothing: the full computation
    ///   rounds each weight to a multiple of 2^-1074 and each product w_ij·v_jc too, so a context
    ///   entry also gets an absolute allowance of 4 · 2^-1074 · (n + Σ_j |v_jc|) (a term
    ///   2.6e-66 · 1e70 = 26395 is far above it).
    fn check_trace(got: &Trace, want: &Trace, context: &dyn Fn() -> String) -> Result<(), TestCaseError> {
        let (g, w) = (got.fields(), want.fields());
        prop_assert_eq!(g.len(), w.len());
        // Σ_j |w_ij · v_jc| for every context entry (self: n × d_v, cross: d), and for query.context.
        // The underflow allowance of each context column: 4 · 2^-1074 · (n + Σ_j |v_jc|).
        let mut underflow: Vec<f64> = Vec::new();
        let term_sums: Vec<(&str, Vec<f64>)> = match want {
            Trace::Weights(_) => unreachable!("the strategies make self and cross configs only"),
            Trace::SelfAttention(t) => {
                let (n, dv) = t.v.shape();
                underflow = (0..dv)
                    .map(|c| {
                        4.0 * 4.9406564584124654e-324 * (n as f64 + (0..n).map(|j| t.v.get(j, c).abs()).sum::<f64>())
                    })
                    .collect();
                let ctx: Vec<f64> = (0..n)
                    .flat_map(|i| (0..dv).map(move |c| (i, c)))
                    .map(|(i, c)| (0..n).map(|j| (t.weights.get(i, j) * t.v.get(j, c)).abs()).sum())
                    .collect();
                let q = (0..dv).map(|c| (0..n).map(|j| t.query.terms.get(j, c).abs()).sum()).collect();
                // heads.0.context is the one head's view of `context`.
                vec![("context", ctx.clone()), ("heads.0.context", ctx), ("query.context", q)]
            }
            Trace::Cross(t) => {
                vec![(
                    "context",
                    (0..t.applied.rows()).map(|c| t.applied.row(c).iter().map(|x| x.abs()).sum()).collect(),
                )]
            }
        };
        let v = want.field("v");
        for (fg, fw) in g.iter().zip(&w) {
            prop_assert_eq!(&fg.name, &fw.name);
            prop_assert_eq!(&fg.shape, &fw.shape, "{}", fg.name);
            let cols = *fw.shape.last().unwrap();
            let sums = term_sums.iter().find(|(name, _)| *name == fw.name).map(|(_, s)| s);
            for (r, (rg, rw)) in fg.data.chunks(cols.max(1)).zip(fw.data.chunks(cols.max(1))).enumerate() {
                let floor_row = match (&*fw.name, &v) {
                    ("query.terms", Some(v)) => &v.data[r * cols..(r + 1) * cols],
                    _ => rw,
                };
                let row_max = floor_row.iter().filter(|x| x.is_finite()).fold(0.0f64, |m, x| m.max(x.abs()));
                for (c, (&a, &b)) in rg.iter().zip(rw).enumerate() {
                    let floor = sums.map_or(row_max, |s| row_max.max(s[r * cols + c]));
                    let under = if sums.is_some() { underflow.get(c).copied().unwrap_or(0.0) } else { 0.0 };
                    let ok = if a.is_finite() && b.is_finite() {
                        (a - b).abs() <= 1e-12 * b.abs().max(floor) + under
                    } else {
                        same_class(a, b)
                    };
                    prop_assert!(
                        ok,
                        "{}[{r}][{c}]: session {a:e}, compute {b:e} (diff {:e}, floor {floor:e})\n{}",
                        fg.name,
                        (a - b).abs(),
                        context()
                    );
                }
            }
        }
        Ok(())
    }

    fn config() -> BoxedStrategy<Config> {
        prop_oneof![
            3 => self_config(6, 4, val(10.0), ordinary_scale()),
            1 => self_config(6, 4, val(1e3), ordinary_scale()),
            1 => cross_config(6, 4, val(10.0), ordinary_scale()),
        ]
        .boxed()
    }

    proptest! {
        #![proptest_config(cases(256))]

        #[test]
        fn session_trace_equals_a_full_recompute(
            start in config(),
            edits in prop::collection::vec(set_value(), 1..=20),
            hot in (0usize..8, 0usize..8, 0usize..8),
        ) {
            let mut session = Session::new(start.clone()).map_err(|e| TestCaseError::fail(e.0))?;
            let mut model = start.clone();
            let mut done: Vec<(&str, usize, usize, f64)> = Vec::new();
            for e in &edits {
                let (name, row, col) = target(&model, e, hot);
                let expected = model.with_value(name, row, col, e.value).ok().filter(|c| compute(c).is_ok());
                let before = (session.config().clone(), field_bits(session.trace()));
                let result = session.set_value(name, row, col, e.value);
                done.push((name, row, col, e.value));
                let history = || format!("start {start:?}\nedits (matrix, row, col, value) {done:?}");
                match (result, expected) {
                    (Ok(()), Some(next)) => {
                        prop_assert!(*session.config() == next, "config differs\n{}", history());
                        model = next;
                        let full = compute(session.config()).unwrap();
                        check_trace(session.trace(), &full, &history)?;
                    }
                    (Err(msg), None) => {
                        prop_assert!(!msg.is_empty());
                        prop_assert!(*session.config() == before.0, "a refused edit changed the config\n{}", history());
                        prop_assert!(field_bits(session.trace()) == before.1, "a refused edit changed the trace\n{}", history());
                    }
                    (Ok(()), None) => prop_assert!(false, "the session accepted an edit that with_value/compute refuse\n{}", history()),
                    (Err(msg), Some(_)) => prop_assert!(false, "the session refused an edit compute accepts: {msg}\n{}", history()),
                }
            }
        }
    }

    /// Values of every magnitude from 1e-300 to 1e150, either sign, with zeros and small integers:
    /// softmax rows whose exponentials underflow under one maximum and matter under another.
    fn extreme() -> BoxedStrategy<f64> {
        prop_oneof![
            4 => (-300i32..=150, 1.0f64..10.0, any::<bool>())
                .prop_map(|(e, m, neg)| if neg { -m * 10f64.powi(e) } else { m * 10f64.powi(e) }),
            2 => val(1e3),
            1 => val(10.0),
            1 => prop_oneof![Just(0.0), Just(1e70), Just(250.0), Just(401.0), Just(1e3)],
        ]
        .boxed()
    }

    /// Scales from 1e-300 to 1e300 as well as ordinary ones.
    fn extreme_scale() -> BoxedStrategy<f64> {
        prop_oneof![
            2 => ordinary_scale(),
            1 => (-300i32..=300, 1.0f64..10.0).prop_map(|(e, m)| m * 10f64.powi(e)),
        ]
        .boxed()
    }

    fn extreme_edit() -> BoxedStrategy<(usize, usize, f64)> {
        (0usize..8, 0usize..8, prop_oneof![2 => extreme(), 1 => val(40.0)]).boxed()
    }

    /// Self-attention where the softmax is interesting at extreme magnitudes: scores in the
    /// hundreds (W_Q, W_K of moderate size, so that exponentials underflow under one row
    /// maximum and not under the next) and values V of any magnitude (W_V extreme); or every
    /// input extreme, with or without projections.
    fn extreme_config() -> BoxedStrategy<Config> {
        let moderate = || prop_oneof![3 => val(30.0), 1 => val(1.0)].boxed();
        let weight = || prop_oneof![3 => val(1.5), 1 => val(10.0)].boxed();
        let tuned = (1usize..=5, 1usize..=3, 1usize..=3, 1usize..=3)
            .prop_flat_map(move |(n, d, dk, dv)| {
                (
                    matrix(n, d, prop_oneof![3 => moderate(), 1 => extreme()].boxed()),
                    matrix(d, dk, weight()),
                    matrix(d, dk, weight()),
                    matrix(d, dv, extreme()),
                    prop_oneof![Just(Scale::SqrtDk), Just(Scale::None), extreme_scale().prop_map(Scale::Value)],
                    0..n,
                )
                    .prop_map(move |(embeddings, w_q, w_k, w_v, scale, query)| Config {
                        options: Default::default(),
                        mechanism: Mechanism::SelfAttention {
                            embeddings,
                            projections: Some(Projections { w_q, w_k, w_v }),
                        },
                        tokens: (0..n).map(|i| format!("t{i}")).collect(),
                        scale,
                        query,
                    })
            })
            .boxed();
        prop_oneof![3 => tuned, 1 => self_config(5, 3, extreme(), extreme_scale())].boxed()
    }

    proptest! {
        #![proptest_config(cases(1536))]

        /// Embedding and W_V edits of extreme magnitude (the incremental paths): the session
        /// holds what a full recompute gives, whatever the edits do to each row's maximum.
        #[test]
        fn session_trace_equals_a_full_recompute_at_extreme_magnitudes(
            start in extreme_config(),
            edits in prop::collection::vec((prop::bool::weighted(0.2), extreme_edit()), 1..=12),
        ) {
            // A start that overflows is rejected, not passed: proptest then draws another, and fails the run if too
            // many are rejected (a session that refused every config would otherwise pass unseen).
            let session = Session::new(start.clone());
            prop_assume!(session.is_ok());
            let mut session = session.unwrap();
            let mut done = Vec::new();
            for (w_v, (row, col, value)) in edits {
                let has_w_v = matches!(&session.config().mechanism, Mechanism::SelfAttention { projections: Some(_), .. });
                let name = if w_v && has_w_v { "w_v" } else { "embeddings" };
                let m = inputs(session.config()).into_iter().find(|(n, _)| *n == name).unwrap().1;
                let (row, col) = (row % m.rows(), col % m.cols());
                let expected = session.config().with_value(name, row, col, value).ok().filter(|c| compute(c).is_ok());
                let result = session.set_value(name, row, col, value);
                done.push((name, row, col, value));
                prop_assert_eq!(result.is_ok(), expected.is_some(), "{:?}", result);
                let full = compute(session.config()).unwrap();
                check_trace(session.trace(), &full, &|| format!("start {start:?}\nedits {done:?}"))?;
            }
        }
    }

    /// Editing the same embedding value many times (past the patch-age limit) and back and
    /// forth across every row's maximum stays within tolerance of a full recompute.
    #[test]
    fn many_edits_of_one_value_stay_exact() {
        let c = Config::from_json(
            r#"{"embeddings": [[1, 0, 1], [0, 2, 0], [1, 1, 1], [3, 0, -1]],
            "w_q": [[1, 0], [0, 1], [1, 1]], "w_k": [[0, 1], [1, 0], [1, 1]], "w_v": [[1, 2], [3, 4], [5, 6]]}"#,
        )
        .unwrap();
        let mut s = Session::new(c).unwrap();
        for step in 0..200 {
            let v = match step % 5 {
                0 => 1e3,
                1 => -1e3,
                2 => 0.5,
                3 => 7.0 * (step as f64).sin(),
                _ => 123.456,
            };
            s.set_value("embeddings", step % 4, step % 3, v).unwrap();
            let full = compute(s.config()).unwrap();
            check_trace(s.trace(), &full, &|| format!("step {step}")).unwrap();
        }
    }

    /// An ill-conditioned context (terms of magnitude ~4 cancel to -1.0e-4): the session and the
    /// full recompute differ by 2.1e-16, 1.7e-12 of the result, because any two summation orders
    /// do (the full recompute itself is 3.8e-13 from the exact value). The comparison's floor is
    /// therefore 1e-12 × Σ_j |w_ij·v_jc|; found by the property above.
    #[test]
    fn an_ill_conditioned_context_is_compared_at_the_scale_of_its_terms() {
        let c = Config::from_json(
            r#"{"embeddings": [[8.313114659656621], [0], [0], [0], [-0.06061173939635851]], "scale": "sqrt_dk"}"#,
        )
        .unwrap();
        let mut s = Session::new(c).unwrap();
        for (row, value) in [(1, 1000.0), (3, 3.0), (2, -5.385019960969704)] {
            s.set_value("embeddings", row, 0, value).unwrap();
        }
        let full = compute(s.config()).unwrap();
        check_trace(s.trace(), &full, &|| "three edits".into()).unwrap();
    }

    /// Values near float64's limit: the session must accept exactly the edits `compute` accepts.
    /// Here Q = K = 0, so every weight is 1/2 and context = ½·1e308 + ½·1e308 = 1e308, finite.
    #[test]
    fn session_accepts_what_compute_accepts_near_the_float_limit() {
        let c =
            Config::from_json(r#"{"embeddings": [[1], [1]], "w_q": [[0]], "w_k": [[0]], "w_v": [[1e308]]}"#).unwrap();
        let full = compute(&c).expect("compute accepts the config");
        let mut s = Session::new(c.clone()).expect("the session accepts it");
        check_trace(s.trace(), &full, &|| "new".into()).unwrap();
        let edited = c.with_value("embeddings", 0, 0, 1.0).unwrap();
        assert!(compute(&edited).is_ok());
        let result = s.set_value("embeddings", 0, 0, 1.0);
        assert!(result.is_ok(), "compute accepts the edited config, the session refuses it: {result:?}");
    }
}

// ---------------------------------------------------------------------------
// Heads, masks, temperature and scorings
// ---------------------------------------------------------------------------

mod options {
    use super::*;
    use serde_json::{json, Value};

    fn rows(m: &Matrix) -> Value {
        json!(m.to_rows())
    }

    /// A self-attention config with every new field drawn: h heads of width d_k/d_v on an n × d input, a 0/1 mask,
    /// valid lengths, a masked_row, a temperature, a scoring (general/additive with one head) and maybe W_O.
    fn transformer() -> BoxedStrategy<Value> {
        (1..=5usize, 1..=3usize, 1..=3usize, 1..=3usize, 1..=3usize, 0..4usize)
            .prop_flat_map(|(n, d, h, dk, dv, scoring)| {
                let h = if scoring >= 2 { 1 } else { h };
                (
                    matrix(n, d, val(3.0)),
                    (matrix(d, h * dk, val(2.0)), matrix(d, h * dk, val(2.0)), matrix(d, h * dv, val(2.0))),
                    prop::collection::vec(prop::bool::ANY, n * n),
                    prop::option::of(prop::collection::vec(0..=n + 1, n)),
                    (0..3usize, 0.05f64..20.0, prop::option::of(matrix(h * dv, 2, val(2.0)))),
                    (
                        matrix(dk, dk, val(1.0)),
                        matrix(dk, 2, val(1.0)),
                        matrix(dk, 2, val(1.0)),
                        prop::collection::vec(val(1.0), 2),
                    ),
                    (Just((n, h, scoring)), 0..n, 0..h),
                )
            })
            .prop_map(
                |(x, (wq, wk, wv), mask, lens, (row, t, w_o), (w_g, w_a, u_a, v_a), ((n, h, scoring), query, head))| {
                    let masked_row = ["zero", "uniform", "nan"][row];
                    let scoring_name = ["dot", "cosine", "general", "additive"][scoring];
                    let mut c = json!({
                        "embeddings": rows(&x), "w_q": rows(&wq), "w_k": rows(&wk), "w_v": rows(&wv),
                        "heads": h, "head": head, "query": query, "temperature": t,
                        "masked_row": masked_row,
                        "mask": mask.chunks(n).collect::<Vec<_>>(),
                        "scoring": scoring_name,
                    });
                    if let Some(l) = lens {
                        c["valid_lens"] = json!(l);
                    }
                    if let Some(w) = w_o {
                        c["w_o"] = rows(&w);
                    }
                    match scoring {
                        2 => c["w_a"] = rows(&w_g),
                        3 => {
                            c["w_a"] = rows(&w_a);
                            c["u_a"] = rows(&u_a);
                            c["v_a"] = json!(v_a);
                        }
                        _ => {}
                    }
                    c
                },
            )
            .boxed()
    }

    proptest! {
        #![proptest_config(cases(256))]

        /// Masked weights are exactly 0 and masked scaled entries exactly −∞; an attending row sums to 1; a fully
        /// masked row is what masked_row says; the context is the heads' contexts side by side; the config
        /// round-trips; a token added then removed gives the config back.
        #[test]
        fn masks_heads_and_scorings_keep_their_invariants(value in transformer()) {
            let config = Config::from_value(&value).map_err(|e| TestCaseError::fail(format!("{e}: {value}")))?;
            prop_assert_eq!(&Config::from_value(&config.to_value()).unwrap(), &config);
            let trace = compute(&config).map_err(|e| TestCaseError::fail(format!("{e}: {value}")))?;
            let Trace::SelfAttention(t) = &trace else { unreachable!() };
            let o = &config.options;
            let n = config.len();
            let allowed = attention_viz::attention::allowed(o, n, n);
            let mut parts = vec![];
            for i in 0..t.head_count() {
                let hd = t.head(i);
                parts.push(hd.context);
                for r in 0..n {
                    let open = |j: usize| allowed.as_ref().map_or(true, |a| a.get(r, j) == 1.0);
                    let w = hd.weights.row(r);
                    if (0..n).any(open) {
                        let sum: f64 = w.iter().sum();
                        prop_assert!((sum - 1.0).abs() < 1e-12, "row {} sums to {}", r, sum);
                        for j in 0..n {
                            if !open(j) {
                                prop_assert_eq!(w[j], 0.0);
                                prop_assert_eq!(hd.scaled.get(r, j), f64::NEG_INFINITY);
                            } else {
                                prop_assert!(hd.scaled.get(r, j).is_finite());
                            }
                        }
                    } else {
                        for &x in w {
                            match o.masked_row {
                                attention_viz::config::MaskedRow::Zero => prop_assert_eq!(x, 0.0),
                                attention_viz::config::MaskedRow::Uniform => prop_assert_eq!(x, 1.0 / n as f64),
                                attention_viz::config::MaskedRow::Nan => prop_assert!(x.is_nan()),
                            }
                        }
                    }
                }
            }
            let concat = Matrix::hconcat(&parts);
            prop_assert_eq!(concat.data().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                t.context.data().iter().map(|x| x.to_bits()).collect::<Vec<_>>());
            prop_assert_eq!(t.output.is_some(), o.w_o.is_some());
            let back = config.insert_token(0, "x").and_then(|c| c.remove_token(0)).unwrap();
            prop_assert_eq!(&back, &config);
        }

        /// With several heads, W_Q/W_K/W_V edits recompute one head: the session's trace is a full
        /// compute's bit for bit, and a refused edit (an overflow) changes nothing.
        #[test]
        fn a_head_edit_equals_a_full_recompute(
            value in transformer(),
            edits in prop::collection::vec((0..3usize, 0..16usize, 0..16usize, prop_oneof![4 => val(5.0), 1 => Just(1e300)]), 1..8),
        ) {
            let config = Config::from_value(&value).unwrap();
            let mut session = attention_viz::incremental::Session::new(config.clone()).unwrap();
            for (m, r, c, x) in edits {
                let name = ["w_q", "w_k", "w_v"][m];
                let Mechanism::SelfAttention { projections: Some(p), .. } = &session.config().mechanism else { unreachable!() };
                let w = [&p.w_q, &p.w_k, &p.w_v][m];
                let (r, c) = (r % w.rows(), c % w.cols());
                let before = (session.config().clone(), field_bits(session.trace()));
                let expected = session.config().with_value(name, r, c, x).ok().filter(|c| compute(c).is_ok());
                match (session.set_value(name, r, c, x), expected) {
                    (Ok(()), Some(next)) => {
                        prop_assert_eq!(session.config(), &next);
                        prop_assert_eq!(field_bits(session.trace()), field_bits(&compute(&next).unwrap()));
                    }
                    (Err(_), None) => {
                        prop_assert_eq!(session.config(), &before.0);
                        prop_assert!(field_bits(session.trace()) == before.1, "a refused edit changed the trace");
                    }
                    (got, want) => prop_assert!(false, "session {:?}, compute {:?}", got, want.is_some()),
                }
            }
        }
    }
}
