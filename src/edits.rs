//! The edits a learner makes to a config: one value, a token or a dimension
//! more or less, a new name. Each returns a new, valid `Config` or says why not;
//! the caller's config is never half-changed.
//!
//! Shapes stay consistent: adding an embedding dimension adds a row to W_Q,
//! W_K and W_V; adding a cross-attention dimension extends the decoder state
//! and every annotation. New numbers start at 0.

use crate::config::{Config, ConfigError, Mechanism, MAX_DIMS, MAX_TOKENS};
use crate::math::Matrix;

type Result<T> = std::result::Result<T, ConfigError>;

fn err<T>(message: impl Into<String>) -> Result<T> {
    Err(ConfigError(message.into()))
}

/// The input matrices of a config by field name (vectors as 1 × d).
pub const INPUTS: [&str; 6] = ["embeddings", "w_q", "w_k", "w_v", "decoder_state", "annotations"];

impl Config {
    /// The config with `matrix[row][col] = value` (`decoder_state[0][col]` for the vector).
    pub fn with_value(&self, matrix: &str, row: usize, col: usize, value: f64) -> Result<Config> {
        if !value.is_finite() {
            return err(format!("{matrix} row {row}, column {col} must be a finite number, got {value}"));
        }
        let mut next = self.clone();
        let target: &mut Matrix = match (&mut next.mechanism, matrix) {
            (Mechanism::SelfAttention { embeddings, .. }, "embeddings") => embeddings,
            (Mechanism::SelfAttention { projections: Some(p), .. }, "w_q") => &mut p.w_q,
            (Mechanism::SelfAttention { projections: Some(p), .. }, "w_k") => &mut p.w_k,
            (Mechanism::SelfAttention { projections: Some(p), .. }, "w_v") => &mut p.w_v,
            (Mechanism::Cross { annotations, .. }, "annotations") => annotations,
            (Mechanism::Cross { decoder_state, .. }, "decoder_state") => {
                if row != 0 || col >= decoder_state.len() {
                    return err(format!("decoder_state has no value {col} (it has {})", decoder_state.len()));
                }
                decoder_state[col] = value;
                return Ok(next);
            }
            _ => return err(format!("this figure has no input {}", crate::text::quote(matrix))),
        };
        if row >= target.rows() || col >= target.cols() {
            return err(format!(
                "{matrix} has no row {row}, column {col} (it is {} × {})",
                target.rows(),
                target.cols()
            ));
        }
        target.set(row, col, value);
        Ok(next)
    }

    /// A new token (self) or encoder state (cross) of zeros at `at` (≤ len), named `name`.
    pub fn insert_token(&self, at: usize, name: &str) -> Result<Config> {
        let n = self.tokens.len();
        if at > n {
            return err(format!("cannot insert a token at {at}: there are {n}"));
        }
        if n >= MAX_TOKENS {
            return err(format!("at most {MAX_TOKENS} tokens are supported"));
        }
        let mut next = self.with_token_rows(|m| insert_row(m, at));
        next.tokens.insert(at, name.to_string());
        let is_self = matches!(next.mechanism, Mechanism::SelfAttention { .. });
        if is_self && next.query >= at && at < n {
            next.query += 1;
        }
        next.within_cost()
    }

    pub fn remove_token(&self, at: usize) -> Result<Config> {
        let n = self.tokens.len();
        if n <= 1 {
            return err("the last token cannot be removed: attention needs at least one");
        }
        if at >= n {
            return err(format!("there is no token {at}: there are {n}"));
        }
        let mut next = self.with_token_rows(|m| remove_row(m, at));
        next.tokens.remove(at);
        let is_self = matches!(next.mechanism, Mechanism::SelfAttention { .. });
        if is_self && (next.query > at || next.query >= n - 1) {
            next.query = next.query.saturating_sub(1);
        }
        Ok(next)
    }

    /// Applies a row edit to the matrix with one row per token.
    fn with_token_rows(&self, edit: impl Fn(&Matrix) -> Matrix) -> Config {
        let mut next = self.clone();
        match &mut next.mechanism {
            Mechanism::SelfAttention { embeddings, .. } => *embeddings = edit(embeddings),
            Mechanism::Cross { annotations, .. } => *annotations = edit(annotations),
        }
        next
    }

    pub fn rename_token(&self, at: usize, name: &str) -> Result<Config> {
        if at >= self.tokens.len() {
            return err(format!("there is no token {at}"));
        }
        let mut next = self.clone();
        next.tokens[at] = name.to_string();
        Ok(next)
    }

    /// Number of input dimensions (d_model for self, d for cross).
    pub fn dims(&self) -> usize {
        match &self.mechanism {
            Mechanism::SelfAttention { embeddings, .. } => embeddings.cols(),
            Mechanism::Cross { decoder_state, .. } => decoder_state.len(),
        }
    }

    /// A new input dimension of zeros at `at` (≤ dims); weight matrices get a zero row.
    pub fn insert_dim(&self, at: usize) -> Result<Config> {
        let d = self.dims();
        if at > d {
            return err(format!("cannot insert a dimension at {at}: there are {d}"));
        }
        if d >= MAX_DIMS {
            return err(format!("at most {MAX_DIMS} dimensions are supported"));
        }
        self.with_dim_rows(|m| insert_row(m, at)).within_cost()
    }

    pub fn remove_dim(&self, at: usize) -> Result<Config> {
        let d = self.dims();
        if d <= 1 {
            return err("the last dimension cannot be removed: vectors need at least one number");
        }
        if at >= d {
            return err(format!("there is no dimension {at}: there are {d}"));
        }
        Ok(self.with_dim_rows(|m| remove_row(m, at)))
    }

    /// Applies a row edit to every matrix laid out with one row per input
    /// dimension: the embeddings or annotations (transposed), the decoder state
    /// (as a column), and the rows of W_Q, W_K and W_V.
    fn with_dim_rows(&self, edit: impl Fn(&Matrix) -> Matrix) -> Config {
        let mut next = self.clone();
        match &mut next.mechanism {
            Mechanism::SelfAttention { embeddings, projections } => {
                *embeddings = edit(&embeddings.transpose()).transpose();
                if let Some(p) = projections {
                    for w in [&mut p.w_q, &mut p.w_k, &mut p.w_v] {
                        *w = edit(w);
                    }
                }
            }
            Mechanism::Cross { decoder_state, annotations } => {
                let column = Matrix::from_vec(decoder_state.len(), 1, decoder_state.clone()).expect("d × 1");
                *decoder_state = edit(&column).into_data();
                *annotations = edit(&annotations.transpose()).transpose();
            }
        }
        next
    }
}

fn insert_row(m: &Matrix, at: usize) -> Matrix {
    let mut rows = m.to_rows();
    rows.insert(at, vec![0.0; m.cols()]);
    Matrix::from_rows(&rows).expect("equal rows")
}

fn remove_row(m: &Matrix, at: usize) -> Matrix {
    let mut rows = m.to_rows();
    rows.remove(at);
    Matrix::from_rows(&rows).expect("equal rows")
}

/// How Randomize draws numbers: one NumPy legacy call per matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    /// `randint(high, size=shape)`
    Randint(i64),
    /// `rand(*shape)`
    Rand,
    /// `randn(*shape)`
    Randn,
}

impl Distribution {
    pub fn parse(name: &str, high: f64) -> Result<Distribution> {
        match name {
            "randint" if high.fract() == 0.0 && high >= 1.0 && high <= 1e15 => Ok(Distribution::Randint(high as i64)),
            "randint" => err(format!("randint needs a whole number high ≥ 1, got {high}")),
            "rand" => Ok(Distribution::Rand),
            "randn" => Ok(Distribution::Randn),
            other => err(format!("distribution must be randint, rand or randn, got {}", crate::text::quote(other))),
        }
    }
}

impl Config {
    /// Which inputs Randomize fills, in the order the documents draw them:
    /// W_Q, W_K, W_V when there are projections (documents 000/001), the
    /// embeddings when there are none (document 002), the decoder state then
    /// the annotations for cross-attention.
    pub fn random_targets(&self) -> Vec<&'static str> {
        match &self.mechanism {
            Mechanism::SelfAttention { projections: Some(_), .. } => vec!["w_q", "w_k", "w_v"],
            Mechanism::SelfAttention { projections: None, .. } => vec!["embeddings"],
            Mechanism::Cross { .. } => vec!["decoder_state", "annotations"],
        }
    }

    /// `np.random.seed(seed)`, then one call of `dist` per target, shaped like it.
    pub fn randomized(&self, seed: u32, dist: Distribution) -> Result<Config> {
        let mut rng = crate::random::RandomState::new(seed);
        let mut draw = |count: usize| -> Result<Vec<f64>> {
            Ok(match dist {
                Distribution::Randint(high) => {
                    rng.randint(0, high, count).map_err(ConfigError)?.into_iter().map(|x| x as f64).collect()
                }
                Distribution::Rand => rng.rand(count),
                Distribution::Randn => rng.randn(count),
            })
        };
        let mut next = self.clone();
        match &mut next.mechanism {
            Mechanism::SelfAttention { projections: Some(p), .. } => {
                for w in [&mut p.w_q, &mut p.w_k, &mut p.w_v] {
                    *w = Matrix::from_vec(w.rows(), w.cols(), draw(w.rows() * w.cols())?).expect("shape");
                }
            }
            Mechanism::SelfAttention { embeddings, projections: None } => {
                let (r, c) = embeddings.shape();
                *embeddings = Matrix::from_vec(r, c, draw(r * c)?).expect("shape");
            }
            Mechanism::Cross { decoder_state, annotations } => {
                *decoder_state = draw(decoder_state.len())?;
                let (r, c) = annotations.shape();
                *annotations = Matrix::from_vec(r, c, draw(r * c)?).expect("shape");
            }
        }
        Ok(next)
    }

    pub fn with_query(&self, query: usize) -> Result<Config> {
        if let Mechanism::Cross { .. } = self.mechanism {
            // The decoder state is the only query of cross-attention.
            return if query == 0 {
                Ok(self.clone())
            } else {
                err("cross-attention has one query, the decoder state (query 0)")
            };
        }
        if query >= self.tokens.len() {
            return err(format!("query {query} is out of range: there are {} tokens", self.tokens.len()));
        }
        Ok(Config { query, ..self.clone() })
    }

    pub fn with_scale(&self, scale: crate::config::Scale) -> Result<Config> {
        if let crate::config::Scale::Value(s) = scale {
            if !(s.is_finite() && s > 0.0) {
                return err(format!("scale must be a positive number, got {s}"));
            }
        }
        Ok(Config { scale, ..self.clone() })
    }
}
