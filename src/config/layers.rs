//! The fields real models' attention layers add to self-attention (Qwen2, Phi, GPT-2 and BERT's biases, Qwen3's and
//! Gemma 3's q/k norms, Gemma 2's soft cap): the biases of the projections (`b_q`, `b_k`, `b_v`, `b_o`), the RMSNorm
//! of each head's q and k rows (`q_norm`, `k_norm`) and the soft cap of the scaled scores (`softcap`). How each is
//! read from a config's JSON with its message, written back (defaults omitted), and the shapes it must keep while
//! the config's shapes change ([`Layers::check`], which `Config::check_tied` runs after every edit).

use super::{describe, err, long_list, number_value, numbers_value, parse_numbers, Numbers, Result};
use crate::text::quote;
use serde_json::{Map, Value};

/// The config fields of [`Layers`], in the docs' order.
pub const LAYER_FIELDS: [&str; 7] = ["b_q", "b_k", "b_v", "b_o", "q_norm", "k_norm", "softcap"];

/// The bias vectors: inputs a reader edits as the input grids show them (`config::INPUTS`).
pub const BIASES: [&str; 4] = ["b_q", "b_k", "b_v", "b_o"];

/// RMSNorm of one head's q (or k) row over its d_k values: x / sqrt(mean(x²) + eps) · weight (Qwen3, Gemma 3: after
/// the projection's bias, before RoPE).
#[derive(Clone, Debug, PartialEq)]
pub struct Norm {
    /// One factor per dimension of a head's row (d_k).
    pub weight: Vec<f64>,
    /// Added to the mean of the squares (> 0).
    pub eps: f64,
}

impl Norm {
    /// `{"weight": […], "eps": …}`, as the config writes it.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("weight".into(), numbers_value(&self.weight));
        m.insert("eps".into(), number_value(self.eps));
        Value::Object(m)
    }

    /// `row` normed: each value divided by the root of the mean square plus eps, times its weight. False (and `row`
    /// left as it was) when the squares overflow float64.
    pub fn apply(&self, row: &mut [f64]) -> bool {
        let mean = row.iter().map(|x| x * x).sum::<f64>() / row.len() as f64;
        if !mean.is_finite() {
            return false;
        }
        let root = (mean + self.eps).sqrt();
        for (x, w) in row.iter_mut().zip(&self.weight) {
            *x = *x / root * w;
        }
        true
    }
}

/// What a real model's layer adds to self-attention; every field `None` by default (the documents' attention).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layers {
    /// Q = X·W_Q + b_q (heads·d_k numbers).
    pub b_q: Option<Vec<f64>>,
    /// K = X·W_K + b_k (kv_heads·d_k numbers).
    pub b_k: Option<Vec<f64>>,
    /// V = X·W_V + b_v (kv_heads·d_v numbers).
    pub b_v: Option<Vec<f64>>,
    /// output = contexts·W_O + b_o (d_out numbers).
    pub b_o: Option<Vec<f64>>,
    /// RMSNorm of each head's q rows, after b_q, before RoPE.
    pub q_norm: Option<Norm>,
    /// RMSNorm of each head's k rows, after b_k, before RoPE.
    pub k_norm: Option<Norm>,
    /// capped = softcap·tanh(scaled / softcap), which the softmax reads (ALiBi's bias and the mask after it).
    pub softcap: Option<f64>,
}

/// The widths the layer fields are shaped by, as a self-attention config has them now.
#[derive(Clone, Copy, Debug)]
pub struct Shapes {
    pub heads: usize,
    pub kv_heads: usize,
    pub d_k: usize,
    pub d_v: usize,
    /// Whether the config has W_Q, W_K and W_V (each bias of theirs needs them).
    pub projections: bool,
    /// W_O's columns, when it has W_O.
    pub d_out: Option<usize>,
}

impl Layers {
    /// The fields as a config's JSON holds them (`obj`), each checked for its type and values; their lengths against
    /// the config's shapes are [`Layers::check`]'s.
    pub(super) fn parse(obj: &Map<String, Value>) -> Result<Layers> {
        let vector = |name: &str| match obj.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => parse_numbers(name, Numbers::Json(v)).map(Some),
        };
        Ok(Layers {
            b_q: vector("b_q")?,
            b_k: vector("b_k")?,
            b_v: vector("b_v")?,
            b_o: vector("b_o")?,
            q_norm: parse_norm(obj, "q_norm")?,
            k_norm: parse_norm(obj, "k_norm")?,
            softcap: match obj.get("softcap") {
                None | Some(Value::Null) => None,
                Some(Value::Number(x)) => match x.as_f64() {
                    Some(c) if c.is_finite() && c > 0.0 => Some(c),
                    _ => return err(softcap_message(&x.to_string())),
                },
                Some(other) => return err(softcap_message(&describe(other))),
            },
        })
    }

    /// Each field against the config's shapes: a bias of W_Q, W_K or W_V needs the projections and one number per
    /// column, `b_o` needs W_O and one number per output column, a norm's weight is d_k long. The message names the
    /// field and the shape it needs.
    pub fn check(&self, s: Shapes) -> Result<()> {
        let columns = [
            ("b_q", &self.b_q, "W_Q", s.heads, "heads", s.d_k, "d_k"),
            ("b_k", &self.b_k, "W_K", s.kv_heads, "kv_heads", s.d_k, "d_k"),
            ("b_v", &self.b_v, "W_V", s.kv_heads, "kv_heads", s.d_v, "d_v"),
        ];
        for (name, bias, w, count, heads, width, d) in columns {
            let Some(b) = bias else { continue };
            if !s.projections {
                return err(format!(
                    "{name} needs the projections: it is added to X·{w} (w_q, w_k and w_v), and this config has none"
                ));
            }
            if b.len() != count * width {
                return err(format!(
                    "{name} must be a list of {} numbers ({heads}·{d} = {count}·{width}), got {}",
                    count * width,
                    b.len()
                ));
            }
        }
        if let Some(b) = &self.b_o {
            let Some(d_out) = s.d_out else {
                return err("b_o needs w_o: output = the heads' contexts·W_O + b_o, and this config has no w_o");
            };
            if b.len() != d_out {
                return err(format!(
                    "b_o must be a list of {d_out} numbers (d_out, the columns of w_o), got {}",
                    b.len()
                ));
            }
        }
        for (name, norm, row) in [("q_norm", &self.q_norm, "q"), ("k_norm", &self.k_norm, "k")] {
            let Some(n) = norm else { continue };
            if n.weight.len() != s.d_k {
                return err(format!(
                    "{name}.weight must be a list of {} numbers (d_k, one per value of a head's {row} row), got {}",
                    s.d_k,
                    n.weight.len()
                ));
            }
        }
        Ok(())
    }

    /// Writes the fields that are set, in the shape [`Layers::parse`] reads.
    pub(super) fn write(&self, obj: &mut Map<String, Value>) {
        for (name, bias) in [("b_q", &self.b_q), ("b_k", &self.b_k), ("b_v", &self.b_v), ("b_o", &self.b_o)] {
            if let Some(b) = bias {
                obj.insert(name.into(), numbers_value(b));
            }
        }
        for (name, norm) in [("q_norm", &self.q_norm), ("k_norm", &self.k_norm)] {
            if let Some(n) = norm {
                obj.insert(name.into(), n.to_value());
            }
        }
        if let Some(c) = self.softcap {
            obj.insert("softcap".into(), number_value(c));
        }
    }

    /// Whether any field is set.
    pub fn any(&self) -> bool {
        *self != Layers::default()
    }
}

fn softcap_message(got: &str) -> String {
    format!(
        "softcap must be a number > 0: each head's capped = softcap·tanh(scaled / softcap) (Gemma 2: 50), got {got}"
    )
}

/// `q_norm` or `k_norm`: absent, or `{"weight": [d_k numbers], "eps": a number > 0}`.
fn parse_norm(obj: &Map<String, Value>, name: &str) -> Result<Option<Norm>> {
    let value = match obj.get(name) {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    let shape = "{\"weight\": [d_k numbers], \"eps\": a number > 0} (RMSNorm of each head's rows)";
    let (Value::Object(fields), None) = (value, long_list(value)) else {
        return err(format!("{name} must be an object {shape}, got {}", describe(value)));
    };
    if let Some(key) = fields.keys().find(|k| !["weight", "eps"].contains(&k.as_str())) {
        return err(format!("{name} has no field {} (it takes weight, eps)", quote(key)));
    }
    let Some(weight) = fields.get("weight").filter(|w| !w.is_null()) else {
        return err(format!("{name} needs weight: {shape}"));
    };
    let weight = parse_numbers(&format!("{name}.weight"), Numbers::Json(weight))?;
    let eps = match fields.get("eps") {
        None | Some(Value::Null) => return err(format!("{name} needs eps: {shape}")),
        Some(Value::Number(x)) => match x.as_f64() {
            Some(e) if e.is_finite() && e > 0.0 => e,
            _ => return err(eps_message(name, &x.to_string())),
        },
        Some(other) => return err(eps_message(name, &describe(other))),
    };
    Ok(Some(Norm { weight, eps }))
}

fn eps_message(name: &str, got: &str) -> String {
    format!("{name}.eps must be a number > 0 (added to the mean square before its root; Qwen3: 1e-6), got {got}")
}
