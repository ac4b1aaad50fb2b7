//! Incremental edits equal a full recompute (to 1e-12), whatever the edit does
//! to a row's maximum, and a refused edit leaves the session as it was.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention::{compute, Trace};
use attention_viz::config::Config;
use attention_viz::edits::Distribution;
use attention_viz::incremental::Session;
use attention_viz::math::Matrix;
use attention_viz::presets::preset;
use attention_viz::random::RandomState;

/// Entry-wise |a − b| ≤ 1e-12 · max(|b|, largest |value| of b's row): relative,
/// with a floor at the row's scale where a value sits near zero by cancellation.
fn assert_matrix_eq(what: &str, a: &Matrix, b: &Matrix) {
    assert_eq!(a.shape(), b.shape(), "{what} shape");
    for i in 0..b.rows() {
        let scale = b.row(i).iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for j in 0..b.cols() {
            let (x, y) = (a.get(i, j), b.get(i, j));
            let ok = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= 1e-12 * y.abs().max(scale);
            assert!(ok, "{what}[{i}][{j}]: incremental {x:e} vs full {y:e}");
        }
    }
}

fn assert_same(session: &Session) {
    let (Trace::SelfAttention(a), Trace::SelfAttention(b)) = (session.trace(), &compute(session.config()).unwrap())
    else {
        panic!("self-attention expected")
    };
    for (name, x, y) in [
        ("q", &a.q, &b.q),
        ("k", &a.k, &b.k),
        ("v", &a.v, &b.v),
        ("scores", &a.scores, &b.scores),
        ("scaled", &a.scaled, &b.scaled),
        ("weights", &a.weights, &b.weights),
        ("naive_weights", &a.naive_weights, &b.naive_weights),
        ("context", &a.context, &b.context),
        ("query.terms", &a.query.terms, &b.query.terms),
    ] {
        assert_matrix_eq(name, x, y);
    }
    assert_matrix_eq("query.context", &Matrix::row_vector(&a.query.context), &Matrix::row_vector(&b.query.context));
    assert_matrix_eq("query.exp", &Matrix::row_vector(&a.query.exp), &Matrix::row_vector(&b.query.exp));
    assert_matrix_eq("query.sum", &Matrix::row_vector(&[a.query.sum]), &Matrix::row_vector(&[b.query.sum]));
}

fn random_config(seed: u32, n: usize, d: usize, projections: bool) -> Config {
    let mut rng = RandomState::new(seed);
    let m = |rng: &mut RandomState, r: usize, c: usize| -> Vec<Vec<f64>> { (0..r).map(|_| rng.randn(c)).collect() };
    let mut obj = serde_json::json!({"embeddings": m(&mut rng, n, d)});
    if projections {
        obj["w_q"] = serde_json::json!(m(&mut rng, d, d));
        obj["w_k"] = serde_json::json!(m(&mut rng, d, d));
        obj["w_v"] = serde_json::json!(m(&mut rng, d, d));
    }
    Config::from_value(&obj).unwrap()
}

#[test]
fn edits_of_the_seed_documents_match_a_full_recompute() {
    let mut s = Session::new(preset("seed-001").unwrap()).unwrap();
    for (r, c, x) in [(0, 2, 5.0), (3, 0, -2.0), (1, 1, 0.0), (0, 2, 0.0), (2, 1, 30.0), (2, 1, -30.0)] {
        s.set_value("embeddings", r, c, x).unwrap();
        assert_same(&s);
    }
    let mut s = Session::new(preset("seed-002").unwrap()).unwrap();
    s.set_value("embeddings", 1, 0, 30.0).unwrap(); // scores pass 709: naive softmax overflows
    assert_same(&s);
    let Trace::SelfAttention(t) = s.trace() else { panic!() };
    assert!(t.naive_weights.data().iter().any(|w| w.is_nan()));
    s.set_value("embeddings", 1, 0, 0.1).unwrap();
    assert_same(&s);
}

#[test]
fn long_random_edit_sequences_stay_within_1e_12() {
    for (seed, projections) in [(1, true), (2, false), (3, true)] {
        let (n, d) = (12, 5);
        let mut s = Session::new(random_config(seed, n, d, projections)).unwrap();
        let mut rng = RandomState::new(seed + 100);
        for step in 0..300 {
            let r = rng.randint(0, n as i64, 1).unwrap()[0] as usize;
            let c = rng.randint(0, d as i64, 1).unwrap()[0] as usize;
            // Mostly small moves, sometimes a jump that makes or unmakes a row maximum.
            let x = if step % 7 == 0 { rng.randn(1)[0] * 40.0 } else { rng.randn(1)[0] };
            s.set_value("embeddings", r, c, x).unwrap();
            if step % 10 == 0 {
                assert_same(&s);
            }
        }
        assert_same(&s);
    }
}

#[test]
fn other_edits_recompute_fully_and_refused_edits_change_nothing() {
    let mut s = Session::new(preset("seed-001").unwrap().randomized(3, Distribution::Randn).unwrap()).unwrap();
    s.set_value("w_q", 0, 0, 2.5).unwrap();
    assert_same(&s);
    s.set_value("embeddings", 0, 0, 1.5).unwrap();
    assert_same(&s);
    let before = s.config().clone();
    assert!(s.set_value("embeddings", 0, 0, 1e200).unwrap_err().contains("overflowed"));
    assert!(s.set_value("embeddings", 9, 0, 1.0).is_err());
    assert_eq!(s.config(), &before);
    assert_same(&s);
    let mut x = Session::new(preset("seed-003").unwrap()).unwrap();
    x.set_value("annotations", 3, 2, 50.0).unwrap();
    // Cross-attention recomputes fully: identical, NaN of the naive softmax included.
    assert_eq!(format!("{:?}", x.trace()), format!("{:?}", compute(x.config()).unwrap()));
}

/// A W_V value changes one column of V and of the context, recomputed in the full
/// computation's order: on a session with no embedding edits, bit for bit the full trace.
#[test]
fn a_w_v_edit_updates_one_column_exactly() {
    let config = random_config(11, 37, 9, true);
    let mut session = Session::new(config.clone()).unwrap();
    for (step, (r, c, x)) in [(0, 0, 2.5), (8, 3, -1e3), (4, 8, 0.0), (8, 3, 7.25)].into_iter().enumerate() {
        session.set_value("w_v", r, c, x).unwrap();
        let full = compute(session.config()).unwrap();
        let bits = |t: &Trace| {
            t.fields().iter().map(|f| f.data.iter().map(|x| x.to_bits()).collect::<Vec<_>>()).collect::<Vec<_>>()
        };
        assert_eq!(bits(session.trace()), bits(&full), "step {step}: w_v[{r}][{c}] = {x}");
    }
    // After an embedding edit (the softmax state is built) W_V edits keep it in step.
    session.set_value("embeddings", 5, 2, 3.0).unwrap();
    session.set_value("w_v", 1, 4, -2.0).unwrap();
    session.set_value("embeddings", 6, 1, -1.5).unwrap();
    assert_same(&session);
    // An overflowing W_V value is refused and changes nothing.
    let before = session.trace().clone();
    assert!(session.set_value("w_v", 0, 0, f64::MAX).unwrap_err().contains("overflowed"));
    assert_eq!(session.trace(), &before);
}

/// A row's reference maximum went stale: K = [0, 1000, 250] puts row 0's maximum at 1000, so
/// exp(0 − 1000) and exp(250 − 1000) underflow to 0 in the softmax state; the edit K[1] = 401
/// lowers the maximum by 599 (under the old 600 drift allowance) and the state kept those zeros,
/// although exp(250 − 401) = 2.6e-66 times v = 1e70 is the whole context. Golden values from
/// NumPy/SciPy: scipy.special.softmax([0, 401, 250]) = [7.0455e-175, 1, 2.6396e-66], context
/// 2.6396e-66 · 1e70 = 26395.70… (mpmath agrees to 17 digits).
#[test]
fn an_edit_that_lowers_a_row_maximum_keeps_the_terms_it_makes_significant() {
    let c = Config::from_json(
        r#"{"embeddings": [[1, 0, 0], [0, 1000, 0], [0, 250, 1e70]],
            "w_q": [[1], [0], [0]], "w_k": [[0], [1], [0]], "w_v": [[0], [0], [1]]}"#,
    )
    .unwrap();
    let mut s = Session::new(c).unwrap();
    s.set_value("embeddings", 1, 1, 401.0).unwrap();
    let Trace::SelfAttention(t) = s.trace() else { panic!() };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
    assert!(close(t.context.get(0, 0), 26395.702_969_591_894), "context {:e}", t.context.get(0, 0));
    assert!(close(t.weights.get(0, 0), 7.045_515_209_876_85e-175), "weight {:e}", t.weights.get(0, 0));
    assert!(close(t.weights.get(0, 2), 2.639_570_296_959_189e-66), "weight {:e}", t.weights.get(0, 2));
    assert_same(&s);
}

/// A patch that cancels one context entry (7.7e55 − 7.7e55 + 1.7e22, true value 7.2e31) is no
/// error at the scale of its row (another entry is 1e69), until a W_V edit makes that entry
/// 5045: the error is bounded entry by entry. Found by the extreme-magnitude property; the
/// golden value is NumPy's `(softmax(Q Kᵀ/√2) V)[0, 1]` of the final config.
#[test]
fn a_cancelled_context_entry_is_recomputed_even_beside_a_larger_one() {
    let c = Config::from_json(
        r#"{"embeddings": [[20.179379636367138, 0.0], [14.594630478976555, 3.0]],
            "w_q": [[-0.5134445097235961, 0.0], [0.0, 0.0]], "w_k": [[-3.0, 0.0], [-5.215117223520106, 0.0]],
            "w_v": [[1.0, 1.0, 5.123193266044959e67], [1.0, 8.636664260341223e58, 0.0]]}"#,
    )
    .unwrap();
    let mut s = Session::new(c).unwrap();
    s.set_value("embeddings", 0, 1, 8.293739100170998e-28).unwrap();
    s.set_value("embeddings", 1, 1, 1.0).unwrap();
    s.set_value("w_v", 0, 2, 250.0).unwrap();
    let Trace::SelfAttention(t) = s.trace() else { panic!() };
    let want = 7.163_024_008_768_824e31;
    assert!((t.context.get(0, 1) - want).abs() <= 1e-12 * want, "context {:e}", t.context.get(0, 1));
    assert_same(&s);
}

/// A refused edit after incremental ones leaves the patched trace as it was, bit for bit (found by
/// tests/properties.rs: the old config recomputed in full rounded its context differently, by ~1e-16).
#[test]
fn a_refused_edit_after_patches_changes_no_bit() {
    let c = Config::from_json(
        r#"{"embeddings": [[3.0865691027928217, -2.7612547044929636], [-0.06743975354877609, 3.0]],
            "w_q": [[-7.248568585117671], [-7.806079328669506]], "w_k": [[-0.2330350410614831], [-3.823715892790492]],
            "w_v": [[-8.956608656363356], [-7.930888452243643]]}"#,
    )
    .unwrap();
    let mut s = Session::new(c).unwrap();
    s.set_value("embeddings", 1, 1, 3.6298477603085613).unwrap();
    s.set_value("w_k", 1, 0, 0.0).unwrap();
    s.set_value("embeddings", 1, 1, 1e200).unwrap();
    let bits = |s: &Session| -> Vec<Vec<u64>> {
        s.trace().fields().iter().map(|f| f.data.iter().map(|x| x.to_bits()).collect()).collect()
    };
    let before = bits(&s);
    assert!(s.set_value("w_k", 1, 0, 1000.0).unwrap_err().contains("overflowed"));
    assert_eq!(bits(&s), before);
    // And the softmax state came back with it: the next edit is still incremental and right.
    s.set_value("embeddings", 0, 0, 1.0).unwrap();
    assert_same(&s);
}

/// A W_Q or W_K value moves every score by a rank-1 term: the patched scores (and all after them)
/// stay within 1e-12 of a full recompute over long mixed sequences, and the patch is really taken
/// (the trace is not the full computation's bits, which only a recompute would give).
#[test]
fn w_q_and_w_k_edits_patch_the_scores_within_1e_12() {
    let bits = |t: &Trace| -> Vec<Vec<u64>> {
        t.fields().iter().map(|f| f.data.iter().map(|x| x.to_bits()).collect()).collect()
    };
    for (seed, n, d) in [(21, 16, 4), (22, 33, 8), (23, 9, 3)] {
        let mut s = Session::new(random_config(seed, n, d, true)).unwrap();
        let mut rng = RandomState::new(seed + 100);
        let mut patched = 0;
        for step in 0..300 {
            let matrix = ["w_q", "w_k", "w_q", "w_k", "embeddings", "w_v"][step % 6];
            let rows = if matrix == "embeddings" { n } else { d };
            let r = rng.randint(0, rows as i64, 1).unwrap()[0] as usize;
            let c = rng.randint(0, d as i64, 1).unwrap()[0] as usize;
            let x = if step % 11 == 0 { rng.randn(1)[0] * 30.0 } else { rng.randn(1)[0] };
            s.set_value(matrix, r, c, x).unwrap();
            assert_same(&s);
            patched += usize::from(bits(s.trace()) != bits(&compute(s.config()).unwrap()));
        }
        assert!(patched > 100, "seed {seed}: only {patched} of 300 traces were patched");
    }
}

/// A W_Q edit that cancels a score far below its terms (1e8 + 0.3, rounded to ~1e-8, then − 1e8)
/// would leave the rank-1 patch with an error of ~1e-8: the row's bound passes the tolerance and
/// it is recomputed.
#[test]
fn a_w_q_edit_that_cancels_a_score_recomputes_its_row() {
    let c = Config::from_json(
        r#"{"embeddings": [[1, 0], [0, 1]], "w_q": [[1e8, 0.3], [0, 0.1]], "w_k": [[1, 1], [-1, 0]],
            "w_v": [[1, 0], [0, 1]]}"#,
    )
    .unwrap();
    let mut s = Session::new(c).unwrap();
    s.set_value("w_q", 0, 0, 0.0).unwrap();
    let Trace::SelfAttention(t) = s.trace() else { panic!() };
    assert_eq!(t.scores.get(0, 0), 0.3, "q_0 = [0, 0.3], k_0 = [1, 1]");
    assert_same(&s);
}

/// A W_Q value that makes every score huge, then one that cancels them, passes every row's bound: each row
/// is recomputed, and the scores are then the full computation's bit for bit (odd n and d: the product's edges).
#[test]
fn rows_past_their_bound_are_the_full_computations_bits() {
    let mut s = Session::new(random_config(41, 37, 9, true)).unwrap();
    for (value, col) in [(1e9, 0), (0.5, 0), (-3e8, 4), (1.25, 4)] {
        for matrix in ["w_q", "w_k"] {
            s.set_value(matrix, 2, col, value).unwrap();
            let (Trace::SelfAttention(a), Trace::SelfAttention(b)) = (s.trace(), &compute(s.config()).unwrap()) else {
                panic!("self-attention expected")
            };
            let bits = |m: &Matrix| m.data().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a.scores), bits(&b.scores), "{matrix}[2][{col}] = {value}");
            assert_same(&s);
        }
    }
}

/// A refused W_Q or W_K value after a patch leaves the trace as it was, bit for bit, and the
/// edits after it go on patching from there.
#[test]
fn a_refused_w_q_edit_after_a_patch_changes_no_bit() {
    let mut s = Session::new(random_config(31, 20, 6, true)).unwrap();
    s.set_value("w_q", 2, 3, 0.75).unwrap();
    s.set_value("w_k", 1, 0, -0.5).unwrap();
    s.set_value("w_q", 0, 0, 1e160).unwrap();
    let before = s.trace().clone();
    // Q·Kᵀ overflows (1e160 · 1e160), then Q itself (1e308 · an embedding above 1.8).
    assert!(s.set_value("w_k", 0, 0, 1e160).unwrap_err().contains("scores"));
    assert!(s.set_value("w_q", 0, 0, 1e308).unwrap_err().contains("Q row"));
    assert_eq!(format!("{:?}", s.trace()), format!("{before:?}"));
    s.set_value("w_q", 0, 0, 2.0).unwrap();
    assert_same(&s);
}
