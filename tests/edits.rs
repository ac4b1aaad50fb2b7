//! Edits keep a config valid and its shapes consistent; Randomize replays NumPy.
#![cfg(not(target_arch = "wasm32"))]

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
    }
}

#[test]
fn randomize_seed_42_randint_3_gives_the_documents_weights() {
    let c = preset("seed-001").unwrap().randomized(0, Distribution::Randint(5)).unwrap();
    let c = c.randomized(42, Distribution::Randint(3)).unwrap();
    assert_eq!(c, preset("seed-001").unwrap());
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
