//! The four seed documents as ready-made configs.
//!
//! Documents 000 and 001 draw their weight matrices with `np.random.seed(42)`
//! and three `randint(3, size=(3, 3))` calls; we replay those calls through our
//! `RandomState` port rather than typing the numbers in, so the presets stay
//! honest about where the numbers come from. Document 002's input was drawn
//! without a seed, so we take the matrix as printed.

use crate::config::{Config, Mechanism, Options, Projections, Scale};
use crate::math::Matrix;
use crate::random::RandomState;

pub const NAMES: [&str; 4] = ["seed-000", "seed-001", "seed-002", "seed-003"];

/// The preset of that name, or `None`.
pub fn preset(name: &str) -> Option<Config> {
    match name {
        "seed-000" => Some(word_embeddings(0)),
        "seed-001" => Some(word_embeddings(0)),
        "seed-002" => Some(no_projections()),
        "seed-003" => Some(encoder_decoder()),
        _ => None,
    }
}

/// `np.random.seed(seed)` followed by `randint(high, size=(rows, cols))` calls, one per matrix.
pub fn randint_matrices(seed: u32, high: i64, shapes: &[(usize, usize)]) -> Vec<Matrix> {
    let mut rng = RandomState::new(seed);
    shapes
        .iter()
        .map(|&(rows, cols)| {
            let values = rng.randint(0, high, rows * cols).expect("0 < high");
            Matrix::from_vec(rows, cols, values.into_iter().map(|x| x as f64).collect()).expect("rows*cols values")
        })
        .collect()
}

/// Documents 000/001: four one-hot-ish word embeddings and seeded random projections.
fn word_embeddings(query: usize) -> Config {
    let embeddings =
        Matrix::from_rows(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).expect("literal rows");
    let mut w = randint_matrices(42, 3, &[(3, 3), (3, 3), (3, 3)]).into_iter();
    let (w_q, w_k, w_v) = (w.next().unwrap(), w.next().unwrap(), w.next().unwrap());
    Config {
        mechanism: Mechanism::SelfAttention { embeddings, projections: Some(Projections { w_q, w_k, w_v }) },
        options: Options::default(),
        tokens: ["word_1", "word_2", "word_3", "word_4"].map(String::from).to_vec(),
        scale: Scale::SqrtDk,
        query,
    }
}

/// Document 002: the printed random input, attending to itself with no weights.
fn no_projections() -> Config {
    let embeddings = Matrix::from_rows(&[
        [0.86379499, 0.93042748, 0.82149658],
        [0.11288872, 0.23407153, 0.26185969],
        [0.79451453, 0.63626262, 0.39415654],
        [0.59248056, 0.70135167, 0.51830873],
    ])
    .expect("literal rows");
    Config {
        mechanism: Mechanism::SelfAttention { embeddings, projections: None },
        options: Options::default(),
        // The document's token ids, from its unseeded `randint(0, 100, size=4)`, named as ids: a bare
        // "72" beside the heatmaps' numbers reads as one of them.
        tokens: ["id 72", "id 3", "id 64", "id 69"].map(String::from).to_vec(),
        scale: Scale::None,
        query: 1,
    }
}

/// Document 003: a decoder state scored against four encoder annotations.
fn encoder_decoder() -> Config {
    let annotations = Matrix::from_rows(&[[3.0, 12.0, 45.0], [59.0, 2.0, 5.0], [1.0, 43.0, 5.0], [4.0, 3.0, 45.3]])
        .expect("literal rows");
    Config {
        mechanism: Mechanism::Cross { decoder_state: vec![5.0, 1.0, 20.0], annotations },
        options: Options::default(),
        tokens: ["h_1", "h_2", "h_3", "h_4"].map(String::from).to_vec(),
        scale: Scale::None,
        query: 0,
    }
}
