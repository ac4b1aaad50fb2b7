//! What a hovered weight links to (src/links.rs), checked against the definition of each link rather than the
//! code: a weight of query i on key j of head h reads row i of Q in head h's d_k columns and row j of K and V in the
//! columns of K/V head h / (heads / kv_heads) (grouped-query attention: PyTorch's `enable_gqa` repeats each K/V
//! head for heads / kv_heads query heads in a row), and feeds row i of the context in head h's d_v columns.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention::compute;
use attention_viz::config::Config;
use attention_viz::heatmap::{Highlight, HighlightKind};
use attention_viz::links::links;
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn cfg(json: Value) -> Config {
    Config::from_value(&json).unwrap()
}

/// The outlines as (view, r0, c0, r1, c1), all of kind Link.
fn linked(c: &Config, view: &str, i: usize, j: usize) -> BTreeSet<(String, usize, usize, usize, usize)> {
    let trace = compute(c).unwrap();
    links(c, &trace, view, i, j)
        .into_iter()
        .map(|(v, Highlight { kind, r0, c0, r1, c1 })| {
            assert_eq!(kind, HighlightKind::Link, "{v}: a link outline");
            (v, r0, c0, r1, c1)
        })
        .collect()
}

fn set(items: &[(&str, usize, usize, usize, usize)]) -> BTreeSet<(String, usize, usize, usize, usize)> {
    items.iter().map(|&(v, a, b, c, d)| (v.to_string(), a, b, c, d)).collect()
}

/// 0/1 pattern, `rows` × `cols`.
fn grid(rows: usize, cols: usize) -> Value {
    json!((0..rows).map(|i| (0..cols).map(|j| ((i + 2 * j) % 3) as f64 - 0.5).collect::<Vec<_>>()).collect::<Vec<_>>())
}

/// Four tokens, d_model 4, `heads` query heads of d_k = d_v = 2 and `kv` K/V heads (W_K and W_V 2·kv wide).
fn heads(heads: usize, kv: usize, extra: Value) -> Config {
    let mut c = json!({
        "embeddings": grid(4, 4), "tokens": ["a", "b", "c", "d"], "heads": heads, "w_q": grid(4, 2 * heads),
        "w_k": grid(4, 2 * kv), "w_v": grid(4, 2 * kv),
    });
    if kv != heads {
        c["kv_heads"] = json!(kv);
    }
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    cfg(c)
}

#[test]
fn one_head_a_weight_links_its_stages_its_query_row_its_key_and_value_rows_and_its_context_row() {
    let c = cfg(json!({
        "embeddings": grid(4, 3), "tokens": ["a", "b", "c", "d"], "w_q": grid(3, 2), "w_k": grid(3, 2), "w_v": grid(3, 3),
    }));
    let expected = set(&[
        ("scores", 1, 3, 2, 4),
        ("scaled", 1, 3, 2, 4),
        ("weights", 1, 3, 2, 4),
        ("naive_weights", 1, 3, 2, 4),
        ("q", 1, 0, 2, 2),
        ("k", 3, 0, 4, 2),
        ("v", 3, 0, 4, 3),
        ("context", 1, 0, 2, 3),
    ]);
    for view in ["scores", "scaled", "weights", "naive_weights"] {
        assert_eq!(linked(&c, view, 1, 3), expected, "hovering {view}[1][3]");
    }
    // Inputs and Q, K, V link nothing; a cell off the grid, or a view the figure has not, neither.
    for (view, i, j) in
        [("q", 1, 0), ("embeddings", 0, 0), ("weights", 4, 0), ("weights", 0, 4), ("heads.0.weights", 0, 0)]
    {
        assert!(linked(&c, view, i, j).is_empty(), "{view}[{i}][{j}] links nothing");
    }
}

#[test]
fn with_grouped_query_attention_a_query_head_reads_the_k_and_v_columns_of_its_k_v_head() {
    for kv in [1, 2, 4] {
        let group = 4 / kv;
        for h in 0..4 {
            let c = heads(4, kv, json!({}));
            let g = h / group;
            let expected = set(&[
                (&format!("heads.{h}.weights"), 1, 2, 2, 3),
                ("q", 1, 2 * h, 2, 2 * h + 2),
                ("k", 2, 2 * g, 3, 2 * g + 2),
                ("v", 2, 2 * g, 3, 2 * g + 2),
                ("context", 1, 2 * h, 2, 2 * h + 2),
            ]);
            let mut expected = expected;
            if h == 0 {
                // Head 0 is followed: the stage heatmaps are its own.
                expected.extend(set(&[("scores", 1, 2, 2, 3), ("scaled", 1, 2, 2, 3), ("weights", 1, 2, 2, 3)]));
            }
            assert_eq!(linked(&c, &format!("heads.{h}.weights"), 1, 2), expected, "{kv} K/V heads, query head {h}");
        }
    }
}

#[test]
fn the_followed_heads_stages_link_as_its_own_weights_do() {
    // kv_heads 2 of 4, head 3 followed: K/V head 1, columns 2 … 3.
    let c = heads(4, 2, json!({"head": 3}));
    let expected = set(&[
        ("scores", 0, 1, 1, 2),
        ("scaled", 0, 1, 1, 2),
        ("weights", 0, 1, 1, 2),
        ("heads.3.weights", 0, 1, 1, 2),
        ("q", 0, 6, 1, 8),
        ("k", 1, 2, 2, 4),
        ("v", 1, 2, 2, 4),
        ("context", 0, 6, 1, 8),
    ]);
    assert_eq!(linked(&c, "weights", 0, 1), expected);
    assert_eq!(linked(&c, "heads.3.weights", 0, 1), expected);
    // Another head's weight does not outline the followed head's stages.
    assert!(!linked(&c, "heads.2.weights", 0, 1).iter().any(|l| l.0 == "weights"));
}

#[test]
fn w_o_links_the_output_row_and_a_mask_its_cell_both_ways() {
    let c = heads(2, 2, json!({"mask": "causal", "w_o": grid(4, 3)}));
    let from_weights = linked(&c, "weights", 2, 1);
    for l in set(&[("output", 2, 0, 3, 3), ("mask", 2, 1, 3, 2), ("weights", 2, 1, 3, 2), ("k", 1, 0, 2, 2)]) {
        assert!(from_weights.contains(&l), "{l:?} in {from_weights:?}");
    }
    // The mask's cell links the followed head's weight of that query and key.
    assert_eq!(linked(&c, "mask", 2, 1), from_weights);
    // A masked key links as any other: what it would have read.
    assert!(linked(&c, "weights", 0, 3).contains(&("k".to_string(), 3, 0, 4, 2)));
}

#[test]
fn additive_scorings_features_are_the_followed_querys_row_of_each_key() {
    // d_k 2, d_a 3; query 2 followed.
    let c = heads(
        1,
        1,
        json!({"query": 2, "scoring": "additive", "w_a": grid(2, 3), "u_a": grid(2, 3), "v_a": [1, -1, 0.5]}),
    );
    assert!(linked(&c, "weights", 2, 3).contains(&("query.features".to_string(), 3, 0, 4, 3)));
    // Another query's weight did not read these features.
    assert!(!linked(&c, "weights", 1, 3).iter().any(|l| l.0 == "query.features"));
    // A row of the features is a key: it links the followed query's weight of it.
    assert_eq!(linked(&c, "query.features", 3, 1), linked(&c, "weights", 2, 3));
}

#[test]
fn cross_attention_links_annotation_j_everywhere() {
    let c = cfg(json!({"decoder_state": [1, 2], "annotations": [[1, 0], [0, 1], [1, 1]]}));
    let expected = set(&[
        ("scores", 0, 2, 1, 3),
        ("scaled", 0, 2, 1, 3),
        ("weights", 0, 2, 1, 3),
        ("naive_weights", 0, 2, 1, 3),
        ("annotations", 0, 2, 2, 3),
        ("applied", 0, 2, 2, 3),
    ]);
    for view in ["scores", "weights", "annotations", "applied"] {
        assert_eq!(
            linked(&c, view, if view == "annotations" || view == "applied" { 1 } else { 0 }, 2),
            expected,
            "{view}"
        );
    }
    assert!(linked(&c, "decoder_state", 0, 0).is_empty());
    assert!(linked(&c, "weights", 0, 3).is_empty(), "no key 3");
    // Additive scoring: feature row j is annotation j's; a masked key links as any.
    let c = cfg(json!({"decoder_state": [1, 2], "annotations": [[1, 0], [0, 1], [1, 1]], "scoring": "additive",
        "w_a": [[1, 0, 1], [0, 1, 1]], "u_a": [[1, 0, 0], [0, 1, 0]], "v_a": [1, 1, 1], "valid_lens": [2]}));
    let l = linked(&c, "query.features", 2, 0);
    assert!(
        l.contains(&("query.features".to_string(), 2, 0, 3, 3)) && l.contains(&("mask".to_string(), 0, 2, 1, 3)),
        "{l:?}"
    );
    assert_eq!(l, linked(&c, "weights", 0, 2));
}

#[test]
fn a_weights_figure_links_nothing_here() {
    let c = cfg(json!({"attention": [[[[1.0, 0.0], [0.5, 0.5]]]], "tokens": ["a", "b"]}));
    assert!(linked(&c, "attention", 1, 0).is_empty());
}

#[test]
fn the_followed_heads_rotated_q_and_k_rows_and_alibis_bias_cell_are_linked() {
    // RoPE: the scores are the rotated q row i's and k row j's (d_k 2).
    let c = heads(2, 2, json!({"position": {"kind": "rope"}}));
    let l = linked(&c, "weights", 1, 3);
    for want in [("q_rot", 1, 0, 2, 2), ("k_rot", 3, 0, 4, 2)] {
        assert!(l.contains(&(want.0.to_string(), want.1, want.2, want.3, want.4)), "{want:?} in {l:?}");
    }
    // Head 1 is not followed: the rotated views are head 0's.
    assert!(!linked(&c, "heads.1.weights", 1, 3).iter().any(|l| l.0.ends_with("_rot")));
    // ALiBi: the bias added to the scaled score (i, j), and hovering it links that weight.
    let c = heads(1, 1, json!({"position": {"kind": "alibi"}}));
    let l = linked(&c, "weights", 2, 1);
    assert!(l.contains(&("bias".to_string(), 2, 1, 3, 2)), "{l:?}");
    assert_eq!(linked(&c, "bias", 2, 1), l);
}
