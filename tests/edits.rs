//! Edits keep a config valid and its shapes consistent; Randomize replays NumPy.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::attention::{compute, Trace};
use attention_viz::config::{Config, Mechanism, Scale};
use attention_viz::edits::Distribution;
use attention_viz::presets::preset;

fn shapes(c: &Config) -> Vec<(usize, usize)> {
    match &c.mechanism {
        Mechanism::SelfAttention { embeddings, projections } => {
            let mut v = vec![embeddings.shape()];
            if let Some(p) = projections {
                v.extend([p.w_q.shape(), p.w_k.shape(), p.w_v.shape()]);
            }
            v
        }
        Mechanism::Cross { decoder_state, annotations } => vec![(1, decoder_state.len()), annotations.shape()],
        Mechanism::Weights { attention, .. } => vec![(attention.shape()[2], attention.shape()[3])],
    }
}

/// The weights documents 000/001 print (tests/fixtures/seed-values.json), not the preset: the preset draws them with
/// the same `RandomState` as `randomized`, so a wrong draw would agree with itself.
#[test]
fn randomize_seed_42_randint_3_gives_the_documents_weights() {
    let c = preset("seed-001").unwrap().randomized(0, Distribution::Randint(5)).unwrap();
    let c = c.randomized(42, Distribution::Randint(3)).unwrap();
    let Mechanism::SelfAttention { projections: Some(p), .. } = &c.mechanism else { panic!("projections") };
    let printed = &common::seed_values()["seed_000_001"];
    for (name, got) in [("W_Q", &p.w_q), ("W_K", &p.w_k), ("W_V", &p.w_v)] {
        assert_eq!(got.to_rows(), common::matrix(&printed[name]), "{name}");
    }
    assert_eq!(c, preset("seed-001").unwrap(), "the rest of the config is untouched");
}

#[test]
fn randomize_without_projections_fills_embeddings_like_rand() {
    let c = preset("seed-002").unwrap().randomized(42, Distribution::Rand).unwrap();
    let Mechanism::SelfAttention { embeddings, .. } = &c.mechanism else { panic!() };
    assert_eq!(embeddings.get(0, 0), 0.3745401188473625);
    assert_eq!(embeddings.get(0, 1), 0.9507143064099162);
    let c = preset("seed-003").unwrap().randomized(42, Distribution::Randn).unwrap();
    let Mechanism::Cross { decoder_state, .. } = &c.mechanism else { panic!() };
    assert_eq!(decoder_state[0], 0.4967141530112327);
    assert!(Distribution::parse("randint", 0.0).is_err() && Distribution::parse("normal", 1.0).is_err());
}

#[test]
fn one_value_edits() {
    let c = preset("seed-001").unwrap();
    let e = c.with_value("embeddings", 0, 2, 5.0).unwrap();
    let Trace::SelfAttention(t) = compute(&e).unwrap() else { panic!() };
    assert_eq!(t.q.row(0), &[12.0, 5.0, 12.0]);
    assert!(c.with_value("embeddings", 4, 0, 1.0).unwrap_err().0.contains("no row 4"));
    assert!(c.with_value("embeddings", 0, 0, f64::NAN).is_err());
    assert!(c.with_value("decoder_state", 0, 0, 1.0).is_err());
    let x = preset("seed-003").unwrap().with_value("decoder_state", 0, 2, 1.0).unwrap();
    let Trace::Cross(t) = compute(&x).unwrap() else { panic!() };
    assert_eq!(t.scores[0], 5.0 * 3.0 + 12.0 + 45.0);
}

#[test]
fn adding_a_token_grows_every_token_matrix() {
    let c = preset("seed-001").unwrap().insert_token(4, "word_5").unwrap();
    assert_eq!(shapes(&c), vec![(5, 3), (3, 3), (3, 3), (3, 3)]);
    let Trace::SelfAttention(t) = compute(&c).unwrap() else { panic!() };
    assert_eq!((t.scores.shape(), t.context.shape()), ((5, 5), (5, 3)));
    let back = c.remove_token(4).unwrap();
    assert_eq!(back, preset("seed-001").unwrap());
    let one = Config::from_json(r#"{"embeddings": [[1]]}"#).unwrap();
    assert!(one.remove_token(0).is_err());
}

#[test]
fn adding_a_dimension_grows_the_weights() {
    let c = preset("seed-001").unwrap().insert_dim(3).unwrap();
    assert_eq!(shapes(&c), vec![(4, 4), (4, 3), (4, 3), (4, 3)]);
    assert_eq!(c.remove_dim(3).unwrap(), preset("seed-001").unwrap());
    let x = preset("seed-003").unwrap().insert_dim(1).unwrap();
    assert_eq!(shapes(&x), vec![(1, 4), (4, 4)]);
    assert!(Config::from_json(r#"{"embeddings": [[1]]}"#).unwrap().remove_dim(0).is_err());
}

#[test]
fn query_follows_token_edits() {
    let c = preset("seed-001").unwrap().with_query(3).unwrap();
    assert_eq!(c.remove_token(3).unwrap().query, 2);
    assert_eq!(c.remove_token(0).unwrap().query, 2);
    assert_eq!(c.insert_token(0, "new").unwrap().query, 4);
    assert_eq!(c.rename_token(1, "cat").unwrap().tokens[1], "cat");
    assert!(c.with_query(4).is_err());
    assert!(c.with_scale(Scale::Value(0.0)).is_err());
}

// ---------------------------------------------------------------------------
// Heads, W_O, scoring and masks
// ---------------------------------------------------------------------------

fn cfg(json: serde_json::Value) -> Config {
    Config::from_value(&json).unwrap()
}

fn two_heads() -> Config {
    cfg(serde_json::json!({
        "embeddings": [[1, 0, 1], [0, 2, 0], [1, 1, 1]],
        "w_q": [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]],
        "w_k": [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]],
        "w_v": [[1, 2, 3, 4, 5, 6], [0, 1, 0, 1, 0, 1], [2, 2, 2, 2, 2, 2]],
        "heads": 2, "head": 1,
        "w_o": [[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, 0]]
    }))
}

fn weights(c: &Config) -> (Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let Mechanism::SelfAttention { projections: Some(p), .. } = &c.mechanism else { panic!() };
    (p.w_q.to_rows(), p.w_k.to_rows(), p.w_v.to_rows())
}

#[test]
fn a_new_head_is_zeros_at_the_end_and_w_o_grows_with_it() {
    let c = two_heads().insert_head().unwrap();
    assert_eq!(c.options.heads, 3);
    let (q, _, v) = weights(&c);
    assert_eq!(q[1], vec![5.0, 6.0, 7.0, 8.0, 0.0, 0.0]);
    assert_eq!(v[0], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0, 0.0]);
    let w_o = c.options.w_o.as_ref().unwrap();
    assert_eq!(w_o.shape(), (9, 2));
    assert_eq!(w_o.row(8), &[0.0, 0.0]);
    let Trace::SelfAttention(t) = compute(&c).unwrap() else { panic!() };
    assert_eq!(t.heads.len(), 3);
    // A head of zeros scores every key 0: uniform weights.
    assert!(t.heads[2].stages.weights.data().iter().all(|&w| (w - 1.0 / 3.0).abs() < 1e-15));
    assert!(preset("seed-002").unwrap().insert_head().unwrap_err().0.contains("projections"));
}

#[test]
fn removing_a_head_takes_its_columns_and_w_o_rows() {
    let c = two_heads().remove_head(0).unwrap();
    assert_eq!(c.options.heads, 1);
    assert_eq!(c.options.head, 0, "the followed head 1 is now head 0");
    let (q, k, v) = weights(&c);
    assert_eq!((q[0].clone(), k[0].clone(), v[0].clone()), (vec![3.0, 4.0], vec![0.0, 1.0], vec![4.0, 5.0, 6.0]));
    assert_eq!(c.options.w_o.as_ref().unwrap().to_rows(), vec![vec![2.0, 0.0], vec![0.0, 2.0], vec![1.0, 0.0]]);
    assert!(c.remove_head(0).unwrap_err().0.contains("last head"));
    assert!(two_heads().remove_head(2).is_err());
}

#[test]
fn tokens_keep_the_mask_and_valid_lens_in_shape() {
    let c = cfg(serde_json::json!({
        "embeddings": [[1, 0], [0, 1], [1, 1]],
        "mask": [[1, 0, 0], [1, 1, 0], [0, 1, 1]],
        "valid_lens": [1, 2, 3]
    }));
    let c2 = c.insert_token(1, "new").unwrap();
    let attention_viz::config::Mask::Matrix(m) = &c2.options.mask else { panic!() };
    assert_eq!(
        m.to_rows(),
        vec![vec![1.0, 1.0, 0.0, 0.0], vec![1.0; 4], vec![1.0, 1.0, 1.0, 0.0], vec![0.0, 1.0, 1.0, 1.0]]
    );
    assert_eq!(c2.options.valid_lens, Some(vec![1, 4, 2, 3]));
    let c3 = c2.remove_token(1).unwrap();
    assert_eq!(c3.options, c.options);
    // A causal mask needs no change.
    let causal = cfg(serde_json::json!({"embeddings": [[1], [2]], "mask": "causal"}));
    assert_eq!(causal.insert_token(0, "x").unwrap().options.mask, attention_viz::config::Mask::Causal);
    compute(&c2).unwrap();
}

#[test]
fn a_mask_entry_turns_a_named_mask_into_its_matrix() {
    let causal = cfg(serde_json::json!({"embeddings": [[1], [2], [3]], "mask": "causal"}));
    let c = causal.with_value("mask", 0, 2, 1.0).unwrap();
    let attention_viz::config::Mask::Matrix(m) = &c.options.mask else { panic!() };
    assert_eq!(m.to_rows(), vec![vec![1.0, 0.0, 1.0], vec![1.0, 1.0, 0.0], vec![1.0, 1.0, 1.0]]);
    assert!(causal.with_value("mask", 0, 0, 0.5).unwrap_err().0.contains("must be 0 or 1"));
    assert!(causal.with_value("mask", 3, 0, 1.0).unwrap_err().0.contains("no row 3"));
    let cross = cfg(serde_json::json!({"decoder_state": [1, 2], "annotations": [[1, 0], [0, 1]]}));
    let c = cross.with_value("mask", 0, 1, 0.0).unwrap();
    assert_eq!(c.to_value()["mask"], serde_json::json!([1, 0]));
}

#[test]
fn scoring_switches_fill_sensible_starting_values() {
    let c = preset("seed-001").unwrap();
    let general = c.with_scoring("general", 42).unwrap();
    let attention_viz::config::Scoring::General { w_a } = &general.options.scoring else { panic!() };
    assert_eq!(w_a.to_rows(), vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]]);
    // The identity W_a makes general scoring the dot product (scale: "none", the default away from dot).
    let (g, d) = (compute(&general).unwrap(), compute(&c.with_scale(Scale::None).unwrap()).unwrap());
    assert_eq!(g.field("scores").unwrap().data, d.field("scores").unwrap().data);
    let additive = c.with_scoring("additive", 42).unwrap();
    let attention_viz::config::Scoring::Additive { w_a, u_a, v_a } = &additive.options.scoring else { panic!() };
    assert_eq!((w_a.shape(), u_a.shape(), v_a.len()), ((3, 3), (3, 3), 3));
    // np.random.seed(42); np.random.rand(9): 0.3745… → round((2x − 1)·10)/10 = −0.3.
    assert_eq!(w_a.get(0, 0), -0.3);
    assert!(w_a.data().iter().chain(u_a.data()).chain(v_a).all(|x| (-1.0..=1.0).contains(x)));
    assert_eq!(additive, c.with_scoring("additive", 42).unwrap(), "seeded");
    assert_eq!(additive.with_scoring("dot", 0).unwrap().options.scoring, attention_viz::config::Scoring::Dot);
    assert!(c.with_scoring("bilinear", 0).unwrap_err().0.contains("scoring must be"));
    assert!(two_heads().with_scoring("general", 0).unwrap_err().0.contains("one head only"));
}

#[test]
fn dimensions_keep_tied_scoring_matrices_and_w_o_in_shape() {
    let c = cfg(serde_json::json!({
        "embeddings": [[1, 0], [0, 1]], "scoring": "general", "w_a": [[1, 2], [3, 4]], "w_o": [[1], [1]]
    }));
    let wider = c.insert_dim(1).unwrap();
    let attention_viz::config::Scoring::General { w_a } = &wider.options.scoring else { panic!() };
    assert_eq!(w_a.to_rows(), vec![vec![1.0, 0.0, 2.0], vec![0.0, 0.0, 0.0], vec![3.0, 0.0, 4.0]]);
    assert_eq!(wider.options.w_o.as_ref().unwrap().shape(), (3, 1));
    assert_eq!(wider.remove_dim(1).unwrap(), c);
    let cross = cfg(serde_json::json!({
        "decoder_state": [1, 2], "annotations": [[1, 0]], "scoring": "additive",
        "w_a": [[1, 0, 0], [0, 1, 0]], "u_a": [[1, 1, 1], [0, 0, 0]], "v_a": [1, 2, 3]
    }));
    let wider = cross.insert_dim(0).unwrap();
    compute(&wider).unwrap();
    assert_eq!(wider.remove_dim(0).unwrap(), cross);
}

#[test]
fn with_fields_validates_the_whole_config_and_null_removes() {
    let c = preset("seed-001").unwrap();
    let causal = c.with_fields(&serde_json::json!({"mask": "causal", "temperature": 0.5})).unwrap();
    assert_eq!((causal.options.mask.clone(), causal.options.temperature), (attention_viz::config::Mask::Causal, 0.5));
    assert_eq!(causal.with_fields(&serde_json::json!({"mask": null, "temperature": null})).unwrap(), c);
    assert!(c.with_fields(&serde_json::json!({"heads": 2})).unwrap_err().0.contains("cannot split evenly"));
    assert!(c.with_fields(&serde_json::json!([1])).is_err());
}

#[test]
fn too_many_heads_for_the_limit_are_refused_naming_the_heads() {
    let n = 1024;
    let x: Vec<Vec<f64>> = (0..n).map(|i| vec![(i % 3) as f64, 1.0]).collect();
    let w = vec![vec![1.0; 16]; 2];
    let c = cfg(serde_json::json!({"embeddings": x, "w_q": w, "w_k": w, "w_v": w, "heads": 2}));
    let e = c.with_fields(&serde_json::json!({"heads": 8})).unwrap_err().0;
    assert!(e.contains("multiply-adds") && e.contains("8 heads of d_k = 2") && e.ends_with("or heads"), "{e}");
}

// ---------------------------------------------------------------------------
// What a reader had is kept while its option is off
// ---------------------------------------------------------------------------

type Kept = attention_viz::edits::Kept;

/// Applies an edit to `now` as the figure does (`Viz::replace`): what goes away is kept.
fn step(kept: &mut Kept, now: &Config, edit: impl FnOnce(&Config, &Kept) -> Config) -> Config {
    let next = edit(now, kept);
    kept.keep(now.options.w_o.clone(), now.options.scoring.clone(), &next);
    next
}

#[test]
fn w_o_comes_back_as_the_reader_left_it_when_it_still_fits() {
    let mut kept = attention_viz::edits::Kept::default();
    let c = two_heads().with_value("w_o", 2, 1, 7.5).unwrap();
    let off = step(&mut kept, &c, |c, k| c.with_w_o(false, k).unwrap());
    assert_eq!(off.options.w_o, None);
    let on = step(&mut kept, &off, |c, k| c.with_w_o(true, k).unwrap());
    assert_eq!(on.options.w_o, c.options.w_o, "the reader's W_O, 7.5 and all");
    // Off, then one head more: the kept 6 × 2 no longer fits 9 rows, so W_O starts again as the identity.
    let off = step(&mut kept, &on, |c, k| c.with_w_o(false, k).unwrap());
    let wider = step(&mut kept, &off, |c, _| c.insert_head().unwrap());
    let on = wider.with_w_o(true, &kept).unwrap();
    let w = on.options.w_o.as_ref().unwrap();
    assert_eq!(w.shape(), (9, 9));
    assert!((0..9).all(|i| (0..9).all(|j| w.get(i, j) == f64::from(u8::from(i == j)))));
    // Without anything kept: the identity, as wide as the heads' contexts side by side.
    let fresh = preset("seed-001").unwrap().with_w_o(true, &attention_viz::edits::Kept::default()).unwrap();
    assert_eq!(
        fresh.options.w_o.unwrap().to_rows(),
        vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]]
    );
    assert!(preset("seed-003").unwrap().with_w_o(true, &kept).is_err(), "cross-attention has no heads to mix");
}

#[test]
fn scoring_matrices_come_back_per_scoring_when_switched_back() {
    use attention_viz::config::Scoring;
    let mut kept = attention_viz::edits::Kept::default();
    let c = preset("seed-003").unwrap();
    let general = step(&mut kept, &c, |c, k| c.with_scoring_kept("general", 42, k).unwrap());
    let general = general.with_value("w_a", 2, 2, 2.0).unwrap();
    let dot = step(&mut kept, &general, |c, k| c.with_scoring_kept("dot", 42, k).unwrap());
    let additive = step(&mut kept, &dot, |c, k| c.with_scoring_kept("additive", 42, k).unwrap());
    let Scoring::Additive { w_a, .. } = &additive.options.scoring else { panic!() };
    assert_eq!(w_a.get(0, 0), -0.3, "additive starts from its seeded values, not general's W_a");
    let additive = additive.with_value("u_a", 0, 1, 0.02).unwrap().with_value("v_a", 0, 2, 0.5).unwrap();
    let cosine = step(&mut kept, &additive, |c, k| c.with_scoring_kept("cosine", 42, k).unwrap());
    let back = step(&mut kept, &cosine, |c, k| c.with_scoring_kept("general", 42, k).unwrap());
    assert_eq!(back.options.scoring, general.options.scoring, "general's W_a with its 2");
    let back = step(&mut kept, &back, |c, k| c.with_scoring_kept("additive", 42, k).unwrap());
    assert_eq!(back.options.scoring, additive.options.scoring, "additive's W_a, U_a and v_a as the reader left them");
    // A dimension more: the kept 3 × 3 W_a no longer fits, so general starts again from the identity.
    let dot = step(&mut kept, &back, |c, k| c.with_scoring_kept("dot", 42, k).unwrap());
    let wider = step(&mut kept, &dot, |c, _| c.insert_dim(3).unwrap());
    let g = wider.with_scoring_kept("general", 42, &kept).unwrap();
    assert_eq!(g.options.scoring, wider.with_scoring("general", 42).unwrap().options.scoring);
}
