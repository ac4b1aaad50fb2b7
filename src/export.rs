//! "Copy as NumPy": a self-contained Python snippet that rebuilds the current
//! inputs and computes the same stages with NumPy/SciPy, so a learner can paste
//! it into the notebook they came from and get our numbers.
//!
//! Inputs that Randomize produced are written as the NumPy calls that produce
//! them (`np.random.seed(s)` then one call per matrix) — checked by replaying
//! the calls through our `RandomState`, never assumed; everything else is
//! written as literal arrays with round-tripping float reprs.

use crate::config::{Config, Mechanism, Scale};
use crate::edits::Distribution;
use crate::math::Matrix;
use std::fmt::Write;

/// The snippet for `config`. `random` is the last Randomize (seed and call), if any.
pub fn numpy_snippet(config: &Config, random: Option<(u32, Distribution)>) -> String {
    // The documents' own draw (seed 42, randint(3)) is recognised too, so the
    // presets export as `np.random.seed(42)` like the documents.
    let candidates = random.into_iter().chain([(42, Distribution::Randint(3))]);
    let seeded =
        candidates.into_iter().find(|&(seed, dist)| config.randomized(seed, dist).ok().as_ref() == Some(config));
    let mut py = String::new();
    let _ = writeln!(py, "# attention-viz: the current figure, recomputed with NumPy/SciPy");
    let _ = writeln!(py, "import numpy as np");
    let _ = writeln!(py, "from scipy.special import softmax\n");
    let _ = writeln!(py, "tokens = {}", py_list_str(&config.tokens));
    let random_lines =
        |py: &mut String, names: &[&str], shapes: &[(usize, usize, bool)], seed: u32, dist: Distribution| {
            let _ = writeln!(py, "np.random.seed({seed})");
            for (name, &(rows, cols, vector)) in names.iter().zip(shapes) {
                let shape = if vector { format!("{cols}") } else { format!("{rows}, {cols}") };
                let call = match dist {
                    Distribution::Randint(high) => {
                        format!("np.random.randint({high}, size=({shape}{}))", if vector { "," } else { "" })
                    }
                    Distribution::Rand => format!("np.random.rand({shape})"),
                    Distribution::Randn => format!("np.random.randn({shape})"),
                };
                let cast = if matches!(dist, Distribution::Randint(_)) { ".astype(float)" } else { "" };
                let _ = writeln!(py, "{name} = {call}{cast}");
            }
        };
    match &config.mechanism {
        Mechanism::SelfAttention { embeddings, projections } => {
            match (projections, seeded) {
                (None, Some((seed, dist))) => {
                    random_lines(&mut py, &["X"], &[(embeddings.rows(), embeddings.cols(), false)], seed, dist);
                }
                _ => {
                    let _ = writeln!(py, "X = {}", py_array(embeddings));
                }
            }
            if let Some(p) = projections {
                match seeded {
                    Some((seed, dist)) => {
                        let shapes: Vec<(usize, usize, bool)> =
                            [&p.w_q, &p.w_k, &p.w_v].iter().map(|w| (w.rows(), w.cols(), false)).collect();
                        random_lines(&mut py, &["W_Q", "W_K", "W_V"], &shapes, seed, dist);
                    }
                    None => {
                        let _ = writeln!(py, "W_Q = {}", py_array(&p.w_q));
                        let _ = writeln!(py, "W_K = {}", py_array(&p.w_k));
                        let _ = writeln!(py, "W_V = {}", py_array(&p.w_v));
                    }
                }
                let _ = writeln!(py, "\nQ = X @ W_Q\nK = X @ W_K\nV = X @ W_V");
            } else {
                let _ = writeln!(py, "\nQ = K = V = X  # no learned projections");
            }
            let _ = writeln!(py, "scores = Q @ K.T");
            let _ = writeln!(py, "scaled = {}", scaled_expr(config.scale, "K.shape[1]"));
            let _ = writeln!(py, "weights = softmax(scaled, axis=1)");
            let _ = writeln!(py, "context = weights @ V\n");
            let _ = writeln!(py, "i = {}  # the query of the single-query breakdown", config.query);
            let _ = writeln!(py, "terms = weights[i][:, None] * V  # row j is w_j * v_j\n");
            let _ = writeln!(py, "np.set_printoptions(precision=8, suppress=True)");
            for name in ["Q", "K", "V", "scores", "scaled", "weights", "context"] {
                let _ = writeln!(py, "print(\"{name} =\", {name}, sep=\"\\n\")");
            }
            let _ = writeln!(py, "print(\"context of query\", tokens[i], \"=\", terms.sum(axis=0))");
        }
        Mechanism::Cross { decoder_state, annotations } => {
            match seeded {
                Some((seed, dist)) => {
                    let shapes = [(1, decoder_state.len(), true), (annotations.rows(), annotations.cols(), false)];
                    random_lines(&mut py, &["h", "A"], &shapes, seed, dist);
                    let _ = writeln!(py, "annotations = A.T  # one encoder state per column");
                }
                None => {
                    let _ = writeln!(
                        py,
                        "h = {}",
                        py_array(&Matrix::row_vector(decoder_state)).replacen("[[", "[", 1).replacen("]]", "]", 1)
                    );
                    let _ = writeln!(py, "annotations = {}.T  # one encoder state per column", py_array(annotations));
                }
            }
            let _ = writeln!(py, "\nscores = h @ annotations");
            let _ = writeln!(py, "scaled = {}", scaled_expr(config.scale, "h.shape[0]"));
            let _ = writeln!(py, "weights = softmax(scaled)  # stable: no float128 needed");
            let _ = writeln!(py, "applied = weights * annotations");
            let _ = writeln!(py, "context = applied.sum(axis=1)\n");
            let _ = writeln!(py, "np.set_printoptions(precision=8, suppress=False)");
            for name in ["scores", "weights", "applied", "context"] {
                let _ = writeln!(py, "print(\"{name} =\", {name}, sep=\"\\n\")");
            }
        }
    }
    py
}

fn scaled_expr(scale: Scale, dk: &str) -> String {
    match scale {
        Scale::SqrtDk => format!("scores / {dk} ** 0.5"),
        Scale::None => "scores".into(),
        Scale::Value(s) => format!("scores / {}", py_float(s)),
    }
}

/// A float as Python reads it back exactly (Rust's shortest round-trip repr).
fn py_float(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x:?}")
    }
}

fn py_array(m: &Matrix) -> String {
    let rows: Vec<String> = (0..m.rows())
        .map(|i| format!("[{}]", m.row(i).iter().map(|&x| py_float(x)).collect::<Vec<_>>().join(", ")))
        .collect();
    format!("np.array([{}])", rows.join(",\n    "))
}

fn py_list_str(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| py_string(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A Python string literal that is safe for any token name.
fn py_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
