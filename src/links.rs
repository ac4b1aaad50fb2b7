//! What a heatmap cell links to: the cells of every view that a hovered, tapped or cursor cell reads or feeds, which
//! the element outlines dashed (`HighlightKind::Link`) and keeps its tooltip clear of. The element draws what
//! [`links`] says and derives none of it, so which K/V head a query head reads is decided here, once.
//!
//! In self-attention a weight of query i on key j of head h links: its cell on the followed head's score and weight
//! stages (and ALiBi's bias), head h's small multiple, row i of Q and of the context in head h's columns, row j of K
//! and of V in the columns of the K/V head h reads (h / (heads / kv_heads) with grouped-query attention), the
//! output's row i, the mask's cell, the followed head's normed and rotated q row i and k row j, and, for the followed
//! query, row j of additive scoring's features. In an encoder–decoder figure every link is annotation j's.

use crate::attention::{SelfTrace, Trace};
use crate::config::{Config, Mechanism};
use crate::heatmap::{Highlight, HighlightKind};
use crate::math::Matrix;
use crate::views::{self, head_of, WEIGHT_VIEWS};

/// One outline: the view it is drawn on and its cells.
pub type Outline = (String, Highlight);

/// The outlines cell (i, j) of `view` links to, on the views this config has (`views::names`); none for a cell off
/// its view, a view that links nothing (an input, Q, K, V) or a weights figure (model.js outlines its tokens).
pub fn links(config: &Config, trace: &Trace, view: &str, i: usize, j: usize) -> Vec<Outline> {
    let names = views::names(config);
    let mut out = Outlines { names: &names, list: vec![] };
    let n = config.tokens.len();
    match (&config.mechanism, trace) {
        (Mechanism::SelfAttention { .. }, Trace::SelfAttention(t)) => {
            let followed = config.options.head;
            let weight = match (view, head_of(view)) {
                (_, Some(h)) => Some((h, i, j)),
                ("mask" | "bias", _) => Some((followed, i, j)),
                (v, _) if WEIGHT_VIEWS.contains(&v) => Some((followed, i, j)),
                // A row of the features is key i's, for the followed query.
                ("query.features", _) => Some((followed, config.query, i)),
                _ => None,
            };
            match weight {
                Some((h, i, j)) if h < t.head_count() && i < n && j < n && names.iter().any(|v| v == view) => {
                    self_weight(config, t, &mut out, h, i, j)
                }
                _ => {}
            }
        }
        (Mechanism::Cross { .. }, Trace::Cross(t)) => {
            let key = match view {
                v if WEIGHT_VIEWS.contains(&v) || v == "mask" => (i == 0).then_some(j),
                "annotations" | "applied" => Some(j),
                "query.features" => Some(i),
                _ => None,
            };
            if let Some(j) = key.filter(|&j| j < n && names.iter().any(|v| v == view)) {
                let d = t.applied.rows();
                for v in WEIGHT_VIEWS.iter().chain(&["mask"]) {
                    out.add(v, 0, j, 1, j + 1);
                }
                out.add("annotations", 0, j, d, j + 1);
                out.add("applied", 0, j, d, j + 1);
                out.row("query.features", j, t.features.as_ref());
            }
        }
        _ => {}
    }
    out.list
}

/// The links of head h's weight of query i on key j.
fn self_weight(config: &Config, t: &SelfTrace, out: &mut Outlines, h: usize, i: usize, j: usize) {
    let o = &config.options;
    let followed = h == o.head;
    // The K/V head query head h reads (attention::compute slices K and V so).
    let group = (o.heads / o.kv_heads().max(1)).max(1);
    let kv = h / group;
    let head = t.head(h);
    let (dq, dk, dv) = (head.q.cols(), head.k.cols(), head.v.cols());
    if followed {
        for v in WEIGHT_VIEWS.iter().chain(&["bias"]) {
            out.add(v, i, j, i + 1, j + 1);
        }
        let extras = t.extras.get(h);
        out.row("q_normed", i, extras.and_then(|e| e.q_normed.as_ref()));
        out.row("k_normed", j, extras.and_then(|e| e.k_normed.as_ref()));
        out.row("q_rot", i, extras.and_then(|e| e.q_rot.as_ref()));
        out.row("k_rot", j, extras.and_then(|e| e.k_rot.as_ref()));
    }
    if o.heads > 1 {
        out.add(&format!("heads.{h}.weights"), i, j, i + 1, j + 1);
    }
    out.add("q", i, h * dq, i + 1, (h + 1) * dq);
    out.add("k", j, kv * dk, j + 1, (kv + 1) * dk);
    out.add("v", j, kv * dv, j + 1, (kv + 1) * dv);
    out.add("context", i, h * dv, i + 1, (h + 1) * dv);
    out.row("output", i, t.output.as_ref());
    out.add("mask", i, j, i + 1, j + 1);
    if followed && i == config.query {
        out.row("query.features", j, t.query.features.as_ref());
    }
}

/// The outlines so far, kept only on the views the config has.
struct Outlines<'a> {
    names: &'a [String],
    list: Vec<Outline>,
}

impl Outlines<'_> {
    fn add(&mut self, view: &str, r0: usize, c0: usize, r1: usize, c1: usize) {
        if self.names.iter().any(|v| v == view) {
            self.list.push((view.to_string(), Highlight { kind: HighlightKind::Link, r0, c0, r1, c1 }));
        }
    }

    /// Row r of a view drawn from `m`, across all its columns.
    fn row(&mut self, view: &str, r: usize, m: Option<&Matrix>) {
        if let Some(m) = m {
            self.add(view, r, 0, r + 1, m.cols());
        }
    }
}
