//! The edits a learner makes to a config: one value, a token or a dimension
//! more or less, a new name. Each returns a new, valid `Config` or says why not;
//! the caller's config is never half-changed.
//!
//! Shapes stay consistent: adding an embedding dimension adds a row to W_Q,
//! W_K and W_V; adding a cross-attention dimension extends the decoder state
//! and every annotation. New numbers start at 0.

use crate::config::{Config, ConfigError, Mask, Mechanism, Position, Scoring, MAX_DIMS, MAX_TOKENS};
use crate::math::Matrix;

type Result<T> = std::result::Result<T, ConfigError>;

fn err<T>(message: impl Into<String>) -> Result<T> {
    Err(ConfigError(message.into()))
}

impl Config {
    /// A model's weights (`mechanism: "weights"`) are shown as they are: only the selection
    /// (`with_fields` of layer, head, query) and the token names change.
    fn editable(&self) -> Result<()> {
        match self.mechanism {
            Mechanism::Weights { .. } => {
                err("a model's attention weights are shown as they are and cannot be edited here")
            }
            _ => Ok(()),
        }
    }

    /// The config with `matrix[row][col] = value` (`decoder_state[0][col]` for the vector).
    pub fn with_value(&self, matrix: &str, row: usize, col: usize, value: f64) -> Result<Config> {
        self.editable()?;
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
            (_, "w_o") if next.options.w_o.is_some() => next.options.w_o.as_mut().expect("checked"),
            (_, "w_a") => match &mut next.options.scoring {
                Scoring::General { w_a } | Scoring::Additive { w_a, .. } => w_a,
                _ => return err("this figure has no input \"w_a\": it belongs to general or additive scoring"),
            },
            (_, "u_a") => match &mut next.options.scoring {
                Scoring::Additive { u_a, .. } => u_a,
                _ => return err("this figure has no input \"u_a\": it belongs to additive scoring"),
            },
            (_, "v_a") => match &mut next.options.scoring {
                Scoring::Additive { v_a, .. } if row == 0 && col < v_a.len() => {
                    v_a[col] = value;
                    return Ok(next);
                }
                Scoring::Additive { v_a, .. } => return err(format!("v_a has no value {col} (it has {})", v_a.len())),
                _ => return err("this figure has no input \"v_a\": it belongs to additive scoring"),
            },
            (_, "mask") => return self.with_mask_entry(row, col, value),
            (Mechanism::SelfAttention { .. }, "b_q" | "b_k" | "b_v" | "b_o") => {
                let l = &mut next.options.layers;
                let bias = match matrix {
                    "b_q" => &mut l.b_q,
                    "b_k" => &mut l.b_k,
                    "b_v" => &mut l.b_v,
                    _ => &mut l.b_o,
                };
                return match bias {
                    Some(b) if row == 0 && col < b.len() => {
                        b[col] = value;
                        Ok(next)
                    }
                    Some(b) => err(format!("{matrix} has no value {col} (it has {})", b.len())),
                    None => err(no_input(matrix)),
                };
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

    /// The config with a block of values written into `matrix` from (`row`, `col`) down and right (a paste; a vector,
    /// `decoder_state` or `v_a`, is its one row), validated as the whole config it makes: the messages are those of
    /// that config set whole.
    pub fn with_block(&self, matrix: &str, row: usize, col: usize, values: &[Vec<f64>]) -> Result<Config> {
        self.editable()?;
        let width = values.iter().map(Vec::len).max().unwrap_or(0);
        if let Some(why) = self.block_refused(matrix, row, col, values.len(), width) {
            return err(why);
        }
        let mut value = self.to_value();
        let vector = crate::config::VECTORS.contains(&matrix);
        let target = value.get_mut(matrix).filter(|_| crate::config::INPUTS.contains(&matrix));
        let Some(serde_json::Value::Array(rows)) = target else { return err(no_input(matrix)) };
        for (i, line) in values.iter().enumerate() {
            for (j, &x) in line.iter().enumerate() {
                let slot = if vector { rows.get_mut(col + j) } else { rows[row + i].get_mut(col + j) };
                if let Some(slot) = slot {
                    *slot = serde_json::json!(x);
                }
            }
        }
        Config::from_value(&value)
    }

    /// Why a block of `rows` × `width` values pasted into input `matrix` at (`row`, `col`) cannot be written there, in
    /// the words the input grid shows under it: past the input's end (from the cell pasted into: pasting into the
    /// first cell replaces the whole input, which the element offers), or no such input; `None` when it fits.
    pub fn block_refused(&self, matrix: &str, row: usize, col: usize, rows: usize, width: usize) -> Option<String> {
        let (n, m) = match self.input_shape(matrix).as_deref() {
            Some(&[len]) => (1, len),
            Some(&[n, m]) => (n, m),
            _ => return Some(no_input(matrix)),
        };
        (row + rows > n || col + width > m).then(|| {
            format!(
                "the pasted block ({rows} × {width}) does not fit in {matrix} from here ({} × {} to its end); nothing \
                 was pasted. To replace all of {matrix}, paste into its first cell",
                n.saturating_sub(row),
                m.saturating_sub(col)
            )
        })
    }

    /// A new token (self) or encoder state (cross) of zeros at `at` (≤ len), named `name`.
    pub fn insert_token(&self, at: usize, name: &str) -> Result<Config> {
        self.editable()?;
        let n = self.tokens.len();
        if at > n {
            return err(format!("cannot insert a token at {at}: there are {n}"));
        }
        if n >= MAX_TOKENS {
            return err(format!("at most {MAX_TOKENS} tokens are supported"));
        }
        let mut next = self.with_token_rows(|m| insert_row(m, at));
        let is_self = matches!(next.mechanism, Mechanism::SelfAttention { .. });
        // A new token may attend and be attended wherever the mask is the user's own.
        if let Mask::Matrix(a) = &mut next.options.mask {
            let ones = |m: &Matrix, at: usize| {
                let mut rows = m.to_rows();
                rows.insert(at, vec![1.0; m.cols()]);
                Matrix::from_rows(&rows).expect("equal rows")
            };
            let wider = ones(&a.transpose(), at).transpose();
            *a = if is_self { ones(&wider, at) } else { wider };
        }
        if let (true, Some(lens)) = (is_self, &mut next.options.valid_lens) {
            lens.insert(at, n + 1);
        }
        next.tokens.insert(at, name.to_string());
        let is_self = matches!(next.mechanism, Mechanism::SelfAttention { .. });
        if is_self && next.query >= at && at < n {
            next.query += 1;
        }
        // The decode step follows its token, as the query does.
        if let Some(t) = next.options.decode_step.as_mut().filter(|t| **t >= at && at < n) {
            *t += 1;
        }
        next.within_cost()
    }

    pub fn remove_token(&self, at: usize) -> Result<Config> {
        self.editable()?;
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
        if let Mask::Matrix(a) = &mut next.options.mask {
            let narrower = remove_row(&a.transpose(), at).transpose();
            *a = if is_self { remove_row(&narrower, at) } else { narrower };
        }
        if let (true, Some(lens)) = (is_self, &mut next.options.valid_lens) {
            lens.remove(at);
        }
        if is_self && (next.query > at || next.query >= n - 1) {
            next.query = next.query.saturating_sub(1);
        }
        if let Some(t) = next.options.decode_step.as_mut().filter(|t| **t > at || **t >= n - 1) {
            *t = t.saturating_sub(1);
        }
        next.within_cost()
    }

    /// Applies a row edit to the matrix with one row per token.
    fn with_token_rows(&self, edit: impl Fn(&Matrix) -> Matrix) -> Config {
        let mut next = self.clone();
        match &mut next.mechanism {
            Mechanism::SelfAttention { embeddings, .. } => *embeddings = edit(embeddings),
            Mechanism::Cross { annotations, .. } => *annotations = edit(annotations),
            Mechanism::Weights { .. } => {} // not editable (see `editable`)
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
            Mechanism::Weights { .. } => 0,
        }
    }

    /// A new input dimension of zeros at `at` (≤ dims); weight matrices get a zero row.
    pub fn insert_dim(&self, at: usize) -> Result<Config> {
        self.editable()?;
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
        self.editable()?;
        let d = self.dims();
        if d <= 1 {
            return err("the last dimension cannot be removed: vectors need at least one number");
        }
        if at >= d {
            return err(format!("there is no dimension {at}: there are {d}"));
        }
        // Re-checked: without projections d_k is d_model, and RoPE needs it even.
        self.with_dim_rows(|m| remove_row(m, at)).within_cost()
    }

    /// Applies a row edit to every matrix laid out with one row per input
    /// dimension: the embeddings or annotations (transposed), the decoder state
    /// (as a column), and the rows of W_Q, W_K and W_V.
    fn with_dim_rows(&self, edit: impl Fn(&Matrix) -> Matrix) -> Config {
        let mut next = self.clone();
        // Without projections (and in cross-attention) queries and keys are the inputs
        // themselves: W_a's and U_a's rows, general W_a's columns, W_O's rows and the q/k norms' weights follow them.
        let tied = !matches!(next.mechanism, Mechanism::SelfAttention { projections: Some(_), .. });
        if tied {
            let l = &mut next.options.layers;
            for norm in [&mut l.q_norm, &mut l.k_norm].into_iter().flatten() {
                let column = Matrix::from_vec(norm.weight.len(), 1, norm.weight.clone()).expect("d × 1");
                norm.weight = edit(&column).into_data();
            }
            match &mut next.options.scoring {
                Scoring::General { w_a } => *w_a = edit(&edit(w_a).transpose()).transpose(),
                Scoring::Additive { w_a, u_a, .. } => {
                    *w_a = edit(w_a);
                    *u_a = edit(u_a);
                }
                Scoring::Dot | Scoring::Cosine => {}
            }
            if let Some(w_o) = &mut next.options.w_o {
                *w_o = edit(w_o);
            }
        }
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
            Mechanism::Weights { .. } => {}
        }
        next
    }
}

impl Config {
    /// The config with one mask entry set (0 or 1). A "none" or "causal" mask becomes
    /// the matrix it stands for, with that entry changed.
    fn with_mask_entry(&self, row: usize, col: usize, value: f64) -> Result<Config> {
        if value != 0.0 && value != 1.0 {
            return err(format!("mask row {row}, column {col} must be 0 or 1 (1 = may attend), got {value}"));
        }
        let m = self.tokens.len();
        let n = if matches!(self.mechanism, Mechanism::Cross { .. }) { 1 } else { m };
        if row >= n || col >= m {
            return err(format!("mask has no row {row}, column {col} (it is {n} × {m})"));
        }
        let mut a = self.options.mask.matrix(n, m);
        a.set(row, col, value);
        let mut next = self.clone();
        next.options.mask = Mask::Matrix(a);
        // A decode step needs the causal mask: a changed entry is refused with that rule's message.
        next.within_cost()
    }

    /// The config with these fields replaced (JSON, the config's own field names: `heads`,
    /// `scoring`, `temperature`, `mask`, …), validated as a whole; `null` removes a field.
    pub fn with_fields(&self, fields: &serde_json::Value) -> Result<Config> {
        let serde_json::Value::Object(patch) = fields else {
            return err("the fields to change must be an object such as {\"temperature\": 0.5}");
        };
        let mut value = self.to_value();
        let obj = value.as_object_mut().expect("to_value gives an object");
        for (key, v) in patch {
            if v.is_null() {
                obj.remove(key);
            } else {
                obj.insert(key.clone(), v.clone());
            }
        }
        Config::from_value(&value)
    }

    /// Switches the scoring function, filling its matrices with starting values a learner
    /// can edit: the identity for general (so it starts as the dot product), seeded random
    /// numbers in [−1, 1) with one decimal for additive (d_a = the query width).
    pub fn with_scoring(&self, name: &str, seed: u32) -> Result<Config> {
        self.editable()?;
        let (dq, dk) = self.score_widths();
        let scoring = match name {
            "dot" => Scoring::Dot,
            "cosine" => Scoring::Cosine,
            "general" => {
                let mut w_a = Matrix::zeros(dq, dk);
                for i in 0..dq.min(dk) {
                    w_a.set(i, i, 1.0);
                }
                Scoring::General { w_a }
            }
            "additive" => {
                let mut rng = crate::random::RandomState::new(seed);
                let mut draw = |rows: usize, cols: usize| {
                    let values = rng.rand(rows * cols).into_iter().map(|x| ((2.0 * x - 1.0) * 10.0).round() / 10.0);
                    Matrix::from_vec(rows, cols, values.collect()).expect("rows × cols")
                };
                let d_a = dq;
                let (w_a, u_a, v_a) = (draw(dq, d_a), draw(dk, d_a), draw(1, d_a).into_data());
                Scoring::Additive { w_a, u_a, v_a }
            }
            other => {
                return err(format!(
                    "scoring must be \"dot\", \"general\", \"additive\" or \"cosine\", got {}",
                    crate::text::quote(other)
                ))
            }
        };
        let mut next = self.clone();
        next.options.scoring = scoring;
        // Re-read so the scale's default and the one-head rule apply as for any config.
        let mut value = next.to_value();
        let obj = value.as_object_mut().expect("object");
        if obj.get("scale") == Some(&serde_json::json!("sqrt_dk")) && name != "dot" {
            obj.remove("scale");
        }
        Config::from_value(&value)
    }

    /// The widths of one head's queries and keys, which W_a and U_a are shaped by.
    pub fn score_widths(&self) -> (usize, usize) {
        match &self.mechanism {
            Mechanism::SelfAttention { projections: Some(p), .. } => {
                let dk = p.w_q.cols() / self.options.heads;
                (dk, dk)
            }
            Mechanism::SelfAttention { embeddings, projections: None } => (embeddings.cols(), embeddings.cols()),
            Mechanism::Cross { decoder_state, .. } => (decoder_state.len(), decoder_state.len()),
            Mechanism::Weights { .. } => (0, 0),
        }
    }

    /// One more head at the end: W_Q and W_K gain d_k columns of zeros, W_V d_v, W_O d_v rows.
    pub fn insert_head(&self) -> Result<Config> {
        self.editable()?;
        let h = self.options.heads;
        let Mechanism::SelfAttention { projections: Some(p), .. } = &self.mechanism else {
            return err("heads need projections: this figure has no W_Q, W_K and W_V to split into heads");
        };
        // Shared K/V heads (kv_heads < heads) stay as they are: the new query head reads the last of them.
        let grouped = self.options.kv_heads.is_some();
        let (dk, dv) = (p.w_q.cols() / h, p.w_v.cols() / self.options.kv_heads());
        if p.w_q.cols() + dk > MAX_DIMS || p.w_v.cols() + dv > MAX_DIMS {
            return err(format!("at most {MAX_DIMS} columns of W_Q, W_K and W_V are supported"));
        }
        let wider = |m: &Matrix, extra: usize| {
            let mut out = Matrix::zeros(m.rows(), m.cols() + extra);
            for i in 0..m.rows() {
                out.row_mut(i)[..m.cols()].copy_from_slice(m.row(i));
            }
            out
        };
        let mut next = self.clone();
        if let Mechanism::SelfAttention { projections: Some(p), .. } = &mut next.mechanism {
            p.w_q = wider(&p.w_q, dk);
            if !grouped {
                p.w_k = wider(&p.w_k, dk);
                p.w_v = wider(&p.w_v, dv);
            }
        }
        if let Some(w_o) = &mut next.options.w_o {
            *w_o = wider(&w_o.transpose(), dv).transpose();
        }
        // Each bias follows its matrix's columns: zeros for the new head's.
        let l = &mut next.options.layers;
        let kv_biases =
            if grouped { [None, None] } else { [l.b_k.as_mut().map(|b| (b, dk)), l.b_v.as_mut().map(|b| (b, dv))] };
        for (b, width) in kv_biases.into_iter().flatten().chain(l.b_q.as_mut().map(|b| (b, dk))) {
            b.resize(b.len() + width, 0.0);
        }
        if let Some(Position::Alibi { slopes: Some(s) }) = &mut next.options.position {
            // The default slope of the last of h + 1 heads: 2^(−8).
            s.push((-8f64).exp2());
        }
        next.options.heads = h + 1;
        next.check_heads()?;
        next.within_cost()
    }

    /// Head `at`'s own numbers (see [`HeadWeights`]), or `None` for a config without heads to take apart.
    pub fn head_weights(&self, at: usize) -> Option<HeadWeights> {
        let Mechanism::SelfAttention { projections: Some(p), .. } = &self.mechanism else { return None };
        let h = self.options.heads;
        if at >= h {
            return None;
        }
        let (dk, dv) = (p.w_q.cols() / h, p.w_v.cols() / self.options.kv_heads());
        let kv = self.options.kv_heads.is_none().then(|| (columns(&p.w_k, at * dk, dk), columns(&p.w_v, at * dv, dv)));
        let w_o = self.options.w_o.as_ref().map(|w| columns(&w.transpose(), at * dv, dv).transpose());
        let slope = match &self.options.position {
            Some(Position::Alibi { slopes: Some(s) }) => s.get(at).copied(),
            _ => None,
        };
        let l = &self.options.layers;
        let slice = |b: &Option<Vec<f64>>, width: usize| b.as_ref().map(|b| b[at * width..(at + 1) * width].to_vec());
        let b_kv = self.options.kv_heads.is_none().then(|| (slice(&l.b_k, dk), slice(&l.b_v, dv)));
        Some(HeadWeights { at, w_q: columns(&p.w_q, at * dk, dk), kv, w_o, slope, b_q: slice(&l.b_q, dk), b_kv })
    }

    /// [`Config::insert_head`], or, when `kept` holds the head − head took away and it still fits (the same widths,
    /// K and V shared or not as then), that head back where it was, followed.
    pub fn insert_head_kept(&self, kept: &Kept) -> Result<Config> {
        let zeros = self.insert_head()?;
        let Some(w) = &kept.head else { return Ok(zeros) };
        let Mechanism::SelfAttention { projections: Some(p), .. } = &self.mechanism else { return Ok(zeros) };
        let h = self.options.heads;
        let (dk, dv) = (p.w_q.cols() / h, p.w_v.cols() / self.options.kv_heads());
        let fits = w.at <= h
            && (w.w_q.rows(), w.w_q.cols()) == (p.w_q.rows(), dk)
            && w.kv.is_some() == self.options.kv_heads.is_none()
            && w.kv
                .as_ref()
                .is_none_or(|(k, v)| (k.rows(), k.cols(), v.rows(), v.cols()) == (p.w_k.rows(), dk, p.w_v.rows(), dv))
            && w.w_o
                .as_ref()
                .is_none_or(|o| self.options.w_o.as_ref().is_some_and(|w_o| (o.rows(), o.cols()) == (dv, w_o.cols())))
            && w.slope.is_some() == matches!(&self.options.position, Some(Position::Alibi { slopes: Some(_) }))
            && w.biases_fit(&self.options.layers);
        if !fits {
            return Ok(zeros);
        }
        let mut next = zeros;
        if let Mechanism::SelfAttention { projections: Some(q), .. } = &mut next.mechanism {
            q.w_q = with_columns(&p.w_q, w.at * dk, &w.w_q);
            if let Some((k, v)) = &w.kv {
                q.w_k = with_columns(&p.w_k, w.at * dk, k);
                q.w_v = with_columns(&p.w_v, w.at * dv, v);
            }
        }
        if let (Some(w_o), Some(old)) = (&mut next.options.w_o, &self.options.w_o) {
            let rows = w.w_o.clone().unwrap_or_else(|| Matrix::zeros(dv, old.cols()));
            *w_o = with_columns(&old.transpose(), w.at * dv, &rows.transpose()).transpose();
        }
        // The head's bias slices back where they were, as its columns are.
        let (old, new) = (&self.options.layers, &mut next.options.layers);
        let (b_k, b_v) = w.b_kv.clone().unwrap_or_default();
        for (slot, was, slice, width) in [
            (&mut new.b_q, &old.b_q, &w.b_q, dk),
            (&mut new.b_k, &old.b_k, &b_k, dk),
            (&mut new.b_v, &old.b_v, &b_v, dv),
        ] {
            if let (Some(b), Some(was), Some(slice)) = (slot.as_mut(), was, slice) {
                let mut back = was.clone();
                back.splice(w.at * width..w.at * width, slice.iter().copied());
                *b = back;
            }
        }
        if let (Some(Position::Alibi { slopes: Some(s) }), Some(slope)) = (&mut next.options.position, w.slope) {
            let mut back = match &self.options.position {
                Some(Position::Alibi { slopes: Some(old) }) => old.clone(),
                _ => unreachable!("fits checked the slopes"),
            };
            back.insert(w.at, slope);
            *s = back;
        }
        next.options.head = w.at;
        next.check_heads()?;
        next.within_cost()
    }

    /// Removes head `at`: its columns of W_Q, W_K, W_V and its rows of W_O.
    pub fn remove_head(&self, at: usize) -> Result<Config> {
        self.editable()?;
        let h = self.options.heads;
        if h <= 1 {
            return err("the last head cannot be removed: attention needs at least one");
        }
        if at >= h {
            return err(format!("there is no head {at}: there are {h}"));
        }
        let mut next = self.clone();
        let without = |m: &Matrix, width: usize| {
            let keep: Vec<Vec<f64>> = m
                .to_rows()
                .into_iter()
                .map(|row| row.iter().enumerate().filter(|(j, _)| j / width != at).map(|(_, &x)| x).collect())
                .collect();
            Matrix::from_rows(&keep).expect("equal rows")
        };
        let grouped = self.options.kv_heads.is_some();
        if let Mechanism::SelfAttention { projections: Some(p), .. } = &mut next.mechanism {
            let (dk, dv) = (p.w_q.cols() / h, p.w_v.cols() / self.options.kv_heads());
            p.w_q = without(&p.w_q, dk);
            if !grouped {
                p.w_k = without(&p.w_k, dk);
                p.w_v = without(&p.w_v, dv);
            }
            if let Some(w_o) = &mut next.options.w_o {
                *w_o = without(&w_o.transpose(), dv).transpose();
            }
            // Each bias loses the removed head's slice, as its matrix loses the head's columns.
            let l = &mut next.options.layers;
            let kv_biases =
                if grouped { [None, None] } else { [l.b_k.as_mut().map(|b| (b, dk)), l.b_v.as_mut().map(|b| (b, dv))] };
            for (b, width) in kv_biases.into_iter().flatten().chain(l.b_q.as_mut().map(|b| (b, dk))) {
                b.drain(at * width..(at + 1) * width);
            }
        }
        if let Some(Position::Alibi { slopes: Some(s) }) = &mut next.options.position {
            s.remove(at);
        }
        next.options.heads = h - 1;
        if next.options.kv_heads == Some(h - 1) {
            next.options.kv_heads = None;
        }
        if next.options.head > at || next.options.head >= h - 1 {
            next.options.head = next.options.head.saturating_sub(1);
        }
        // With shared K/V heads, h − 1 query heads must still split evenly among them.
        next.within_cost()
    }

    /// `kv` key/value heads (GQA; 1 = multi-query, `heads` = one each), W_K's and W_V's columns regrouped: each query
    /// head's K/V columns as it reads them now (PyTorch's `repeat_kv`), then each new group's mean (Ainslie et al. 2023
    /// §2.1, "mean-pooling all the original heads within that group"). From one each to fewer and back, the K/V heads
    /// of a group are then the same columns repeated.
    pub fn with_kv_heads(&self, kv: usize) -> Result<Config> {
        self.editable()?;
        let h = self.options.heads;
        let Mechanism::SelfAttention { projections: Some(p), .. } = &self.mechanism else {
            return err("kv_heads needs projections: this figure has no W_K and W_V to share among heads");
        };
        if kv == 0 || h % kv != 0 {
            return err(format!(
                "kv_heads must be a whole number that divides heads ({h}): each key/value head serves heads / kv_heads \
                 query heads (1 = multi-query), got {kv}"
            ));
        }
        let old = self.options.kv_heads();
        let (old_group, group) = (h / old, h / kv);
        let regroup = |m: &Matrix| {
            let width = m.cols() / old;
            let mut out = Matrix::zeros(m.rows(), kv * width);
            for g in 0..kv {
                // Query heads g·group … (g + 1)·group − 1 read old kv heads ⌊q / old_group⌋, each as many times as
                // the others: their mean is the mean of those distinct heads (one: its columns exactly).
                let mut from: Vec<usize> = (g * group..(g + 1) * group).map(|q| q / old_group).collect();
                from.dedup();
                for i in 0..m.rows() {
                    for (c, x) in out.row_mut(i)[g * width..(g + 1) * width].iter_mut().enumerate() {
                        let sum: f64 = from.iter().map(|&f| m.get(i, f * width + c)).sum();
                        *x = sum / from.len() as f64;
                    }
                }
            }
            out
        };
        let mut next = self.clone();
        if let Mechanism::SelfAttention { projections: Some(p2), .. } = &mut next.mechanism {
            p2.w_k = regroup(&p.w_k);
            p2.w_v = regroup(&p.w_v);
        }
        // The biases are regrouped as their matrices' columns are (a bias is one row of them).
        let l = &mut next.options.layers;
        for b in [&mut l.b_k, &mut l.b_v].into_iter().flatten() {
            *b = regroup(&Matrix::row_vector(b)).into_data();
        }
        next.options.kv_heads = (kv != h).then_some(kv);
        next.check_heads()?;
        next.within_cost()
    }

    /// Read back through the parser: the heads' rules (general/additive have one) apply.
    fn check_heads(&self) -> Result<()> {
        Config::from_value(&self.to_value()).map(|_| ())
    }
}

/// `Ok` when the stack has head (`layer`, `head`).
pub(crate) fn check_selection(attention: &crate::weights::Stack, layer: usize, head: usize) -> Result<()> {
    let [layers, heads, _, _] = attention.shape();
    if layer >= layers || head >= heads {
        return err(format!("there is no layer {layer}, head {head}: the model has {layers} layers of {heads} heads"));
    }
    Ok(())
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

/// The W_O and scoring matrices a reader had when an option took them away (W_O off, another
/// scoring): kept for the figure's lifetime so that turning the option back on brings back the
/// reader's numbers instead of the starting ones, when their shapes still fit the config.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kept {
    w_o: Option<Matrix>,
    /// The output bias that went with the kept W_O.
    b_o: Option<Vec<f64>>,
    general: Option<Matrix>,
    additive: Option<(Matrix, Matrix, Vec<f64>)>,
    /// The head − head last took away, for + head to bring back (once).
    pub head: Option<HeadWeights>,
}

/// One head's own numbers, as − head takes them away: its d_k columns of W_Q (and of W_K, and its d_v of W_V, when
/// every head has its own K and V), its d_v rows of W_O, its ALiBi slope, its slices of the biases b_q (and b_k,
/// b_v, when its K and V are its own); `at`: where it was.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadWeights {
    at: usize,
    w_q: Matrix,
    kv: Option<(Matrix, Matrix)>,
    w_o: Option<Matrix>,
    slope: Option<f64>,
    b_q: Option<Vec<f64>>,
    b_kv: Option<(Option<Vec<f64>>, Option<Vec<f64>>)>,
}

impl HeadWeights {
    /// Whether its bias slices are those `layers` has: each bias there, or not, as when the head was taken.
    fn biases_fit(&self, layers: &crate::config::Layers) -> bool {
        let (b_k, b_v) = self.b_kv.clone().unwrap_or_default();
        let kv =
            self.b_kv.is_none() || (b_k.is_some() == layers.b_k.is_some() && b_v.is_some() == layers.b_v.is_some());
        self.b_q.is_some() == layers.b_q.is_some() && kv
    }
}

/// Columns `from..from + width` of `m`.
fn columns(m: &Matrix, from: usize, width: usize) -> Matrix {
    let rows: Vec<Vec<f64>> = (0..m.rows()).map(|i| m.row(i)[from..from + width].to_vec()).collect();
    Matrix::from_rows(&rows).expect("equal rows")
}

/// `m` with `cols` (as many rows) put in before its column `at`.
fn with_columns(m: &Matrix, at: usize, cols: &Matrix) -> Matrix {
    let mut out = Matrix::zeros(m.rows(), m.cols() + cols.cols());
    for i in 0..m.rows() {
        let row = out.row_mut(i);
        row[..at].copy_from_slice(&m.row(i)[..at]);
        row[at..at + cols.cols()].copy_from_slice(cols.row(i));
        row[at + cols.cols()..].copy_from_slice(&m.row(i)[at..]);
    }
    out
}

impl Kept {
    /// Keeps the W_O and scoring a config had (`w_o`, `scoring`: taken from it before the change,
    /// which may be a model's stack too large to copy whole) when `after` has them no more. Call it
    /// with every accepted change.
    pub fn keep(&mut self, w_o: Option<Matrix>, scoring: Scoring, after: &Config) {
        if let (Some(w), None) = (w_o, &after.options.w_o) {
            self.w_o = Some(w);
            self.b_o = None;
        }
        if std::mem::discriminant(&scoring) != std::mem::discriminant(&after.options.scoring) {
            match scoring {
                Scoring::General { w_a } => self.general = Some(w_a),
                Scoring::Additive { w_a, u_a, v_a } => self.additive = Some((w_a, u_a, v_a)),
                Scoring::Dot | Scoring::Cosine => {}
            }
        }
    }
}

impl Kept {
    /// Keeps the output bias a config had (`b_o`, taken before the change) when `after` has no W_O: it comes back
    /// with the kept W_O. Call it after [`Kept::keep`] with every accepted change.
    pub fn keep_bias(&mut self, b_o: Option<Vec<f64>>, after: &Config) {
        if after.options.w_o.is_none() && b_o.is_some() {
            self.b_o = b_o;
        }
    }
}

impl Config {
    /// W_O on (the kept one when it fits, else the identity: the output starts as the heads'
    /// contexts side by side) or off (with its bias b_o).
    pub fn with_w_o(&self, on: bool, kept: &Kept) -> Result<Config> {
        self.editable()?;
        let Mechanism::SelfAttention { embeddings, projections } = &self.mechanism else {
            return err("W_O mixes the heads' contexts of self-attention: this figure has no heads");
        };
        if !on {
            let mut next = self.clone();
            next.options.w_o = None;
            next.options.layers.b_o = None;
            return Ok(next);
        }
        if self.options.w_o.is_some() {
            return Ok(self.clone());
        }
        let width = projections.as_ref().map_or(embeddings.cols(), |p| p.w_v.cols());
        let with = |w: Matrix, b_o: Option<Vec<f64>>| {
            let mut next = self.clone();
            next.options.w_o = Some(w);
            next.options.layers.b_o = b_o;
            Config::from_value(&next.to_value())
        };
        if let Some(Ok(next)) = kept.w_o.clone().map(|w| with(w, kept.b_o.clone())) {
            return Ok(next);
        }
        let mut eye = Matrix::zeros(width, width);
        for i in 0..width {
            eye.set(i, i, 1.0);
        }
        with(eye, None)
    }

    /// [`Config::with_scoring`], with the reader's W_a (general) or W_a, U_a, v_a (additive)
    /// back when they were kept and still fit.
    pub fn with_scoring_kept(&self, name: &str, seed: u32, kept: &Kept) -> Result<Config> {
        let start = self.with_scoring(name, seed)?;
        let scoring = match (&start.options.scoring, &kept.general, &kept.additive) {
            (Scoring::General { .. }, Some(w_a), _) => Scoring::General { w_a: w_a.clone() },
            (Scoring::Additive { .. }, _, Some((w_a, u_a, v_a))) => {
                Scoring::Additive { w_a: w_a.clone(), u_a: u_a.clone(), v_a: v_a.clone() }
            }
            _ => return Ok(start),
        };
        let mut next = start.clone();
        next.options.scoring = scoring;
        Ok(Config::from_value(&next.to_value()).unwrap_or(start))
    }
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
            Mechanism::Weights { .. } => vec![],
        }
    }

    /// `np.random.seed(seed)`, then one call of `dist` per target, shaped like it.
    pub fn randomized(&self, seed: u32, dist: Distribution) -> Result<Config> {
        self.editable()?;
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
            Mechanism::Weights { .. } => {}
        }
        Ok(next)
    }

    /// A model's weights with head (`layer`, `head`) the one the full heatmap shows.
    pub fn with_selection(&self, layer: usize, head: usize) -> Result<Config> {
        let Mechanism::Weights { attention, key_tokens, .. } = &self.mechanism else {
            return err("only a model's weights (mechanism \"weights\") have layers to pick");
        };
        check_selection(attention, layer, head)?;
        let mechanism =
            Mechanism::Weights { attention: attention.clone(), key_tokens: key_tokens.clone(), layer, head };
        Ok(Config { mechanism, ..self.clone() })
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
        self.editable()?;
        if let crate::config::Scale::Value(s) = scale {
            if !(s.is_finite() && s > 0.0) {
                return err(format!("scale must be a positive number, got {s}"));
            }
        }
        Ok(Config { scale, ..self.clone() })
    }
}

/// What a block pasted into an input the figure does not have is told.
fn no_input(matrix: &str) -> String {
    format!("this figure has no input {}", crate::text::quote(matrix))
}
