//! Attention as today's language models use it: sinusoidal positions, RoPE, ALiBi, kv_heads, windows and
//! sinks, the decode step and FlashAttention's tiles, against tests/fixtures/modern-goldens.json
//! (tests/goldens/gen_modern_goldens.py: a float64 NumPy transcription of the papers' formulas, cross-checked against
//! `jax.nn.dot_product_attention`, RoPE's complex and rotate_half forms and FlashAttention-2's Algorithm 1), at 1e-12
//! relative; and the two identities the figure teaches, checked on the core's own trace.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::attention::{compute, Trace};
use attention_viz::config::Config;
use common::{modern_cases as cases, num};
use serde_json::{json, Value};

const REL: f64 = 1e-12;

/// A fixture value as (shape, row-major values): a number has no axes.
fn flatten(v: &Value) -> (Vec<usize>, Vec<f64>) {
    match v {
        Value::Array(items) if items.first().is_some_and(Value::is_array) => {
            let mut data = vec![];
            for row in items {
                data.extend(flatten(row).1);
            }
            let cols = flatten(&items[0]).0[0];
            (vec![items.len(), cols], data)
        }
        Value::Array(items) => (vec![items.len()], items.iter().map(num).collect()),
        other => (vec![], vec![num(other)]),
    }
}

fn agree(got: f64, want: f64) -> bool {
    if !want.is_finite() {
        return got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
    }
    got == want || (got - want).abs() <= REL * want.abs().max(1e-300)
}

fn trace_of(case: &Value) -> Trace {
    let config = Config::from_value(&case["config"]).unwrap_or_else(|e| panic!("{}: {e}", case["name"]));
    compute(&config).unwrap_or_else(|e| panic!("{}: {e}", case["name"]))
}

/// Every expected field of every case; returns the largest relative error seen.
#[test]
fn modern_fields_match_numpy() {
    let mut failures = vec![];
    let (mut checked, mut worst) = (0, 0f64);
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let trace = trace_of(&case);
        for (field, want) in case["expect"].as_object().unwrap() {
            let (shape, want) = flatten(want);
            let Some(got) = trace.field(field) else {
                failures.push(format!("{name}: {field} missing from the trace"));
                continue;
            };
            if got.shape != shape {
                failures.push(format!("{name}: {field} shape {:?}, NumPy {shape:?}", got.shape));
                continue;
            }
            for (k, (&g, &w)) in got.data.iter().zip(&want).enumerate() {
                checked += 1;
                if w.is_finite() && w != 0.0 {
                    worst = worst.max((g - w).abs() / w.abs());
                }
                if !agree(g, w) && failures.len() < 20 {
                    failures.push(format!("{name}: {field}[{k}]: core {g:e}, NumPy {w:e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 10_000, "{checked} values");
    eprintln!("modern goldens: {checked} values, largest relative error {worst:.2e}");
}

/// Every trace field is in the fixture for the fields it has (nothing computed goes unchecked): the new fields of
/// each case are all there.
#[test]
fn fixture_covers_the_new_fields() {
    let cases = cases();
    let mut heads = std::collections::BTreeSet::new();
    for case in &cases {
        let c = &case["config"];
        heads.insert(c["heads"].as_u64().unwrap_or(1));
        let trace = trace_of(case);
        let expect = case["expect"].as_object().unwrap();
        for f in trace.fields() {
            let new = ["pe", "decode.", "flash.", "output"].iter().any(|p| f.name.starts_with(p))
                || ["q_rot", "k_rot", "bias", "capped", "q_normed", "k_normed"].iter().any(|s| f.name.ends_with(s));
            assert!(!new || expect.contains_key(f.name.as_ref()), "{}: {} unchecked", case["name"], f.name);
        }
    }
    assert_eq!(heads.into_iter().collect::<Vec<_>>(), (1..=8).collect::<Vec<_>>());
    assert!(cases.iter().any(|c| c["config"]["tiles"].as_array().is_some_and(|t| {
        let n = c["config"]["embeddings"].as_array().unwrap().len() as u64;
        t.iter().all(|x| n % x.as_u64().unwrap() != 0)
    })));
}

/// The decode step's weights are row t of the causal weights (entries 0 … t, the rest 0) and its context is row t of
/// the followed head's context; after a query block's last tile, o / l is the block's context rows.
#[test]
fn decode_is_the_causal_row_and_tiles_end_at_the_softmax() {
    let (mut decodes, mut blocks) = (0, 0);
    for case in cases() {
        let Trace::SelfAttention(t) = trace_of(&case) else { panic!() };
        let head = case["config"]["head"].as_u64().unwrap_or(0) as usize;
        let h = t.head(head);
        if let Some(d) = &t.decode {
            let step = d.step as usize;
            let row = h.weights.row(step);
            assert_eq!(d.weights.len(), step + 1);
            for (j, &w) in row.iter().enumerate() {
                let got = d.weights.get(j).copied().unwrap_or(0.0);
                assert!(agree(got, w), "{}: decode weight {j} {got}, causal row {w}", case["name"]);
            }
            for (c, &x) in h.context.row(step).iter().enumerate() {
                assert!(agree(d.context[c], x), "{}: decode context {c}", case["name"]);
            }
            decodes += 1;
        }
        if let Some(f) = &t.flash {
            let n = h.weights.rows();
            let (rows, cols) = (f.tiles[0] as usize, f.tiles[1] as usize);
            for step in f.steps.iter().filter(|s| s.k_block as usize == n.div_ceil(cols) - 1) {
                let r0 = step.q_block as usize * rows;
                for (r, &l) in step.l.iter().enumerate() {
                    if l == 0.0 {
                        assert!(h.weights.row(r0 + r).iter().all(|&w| w == 0.0), "l = 0 only for a masked row");
                        continue;
                    }
                    for (c, &o) in step.o.row(r).iter().enumerate() {
                        let want = h.context.get(r0 + r, c);
                        assert!(
                            agree(o / l, want),
                            "{}: o / l row {} col {c}: {} vs {want}",
                            case["name"],
                            r0 + r,
                            o / l
                        );
                    }
                }
                blocks += 1;
            }
        }
    }
    assert!(decodes >= 10 && blocks >= 50, "{decodes} decodes, {blocks} blocks");
}

fn config(extra: Value) -> Value {
    let mut c = json!({
        "embeddings": [[1, 0, 0, 1], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]],
        "w_q": [[1, 0, 2, 1], [0, 1, 0, 1], [1, 1, 0, 0], [0, 2, 1, 1]],
        "w_k": [[1, 0, 2, 1], [0, 1, 0, 1], [1, 1, 0, 0], [0, 2, 1, 1]],
        "w_v": [[1, 0, 2, 1], [0, 1, 0, 1], [1, 1, 0, 0], [0, 2, 1, 1]],
    });
    c.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    c
}

/// Each field round-trips through `to_value` (share links, `toJSON`, normalizeConfig), defaults filled in.
#[test]
fn new_fields_round_trip() {
    for extra in [
        json!({"position": {"kind": "sinusoidal"}}),
        json!({"position": {"kind": "rope", "pairs": "halves", "base": 500}, "heads": 2}),
        json!({"position": {"kind": "alibi", "slopes": [0.5, 0.25]}, "heads": 2}),
        json!({"position": {"kind": "alibi"}, "heads": 4, "kv_heads": 2, "w_k": [[1, 0], [0, 1], [1, 1], [0, 2]],
               "w_v": [[1, 0], [0, 1], [1, 1], [0, 2]]}),
        json!({"window": [2, 0], "sinks": 1, "mask": "causal", "decode_step": 3, "tiles": [2, 3]}),
    ] {
        let c = Config::from_value(&config(extra.clone())).unwrap();
        let again = Config::from_value(&c.to_value()).unwrap();
        assert_eq!(c, again, "{extra}");
        for (key, _) in extra.as_object().unwrap() {
            assert!(c.to_value().get(key).is_some(), "{key} written");
        }
    }
    // A share link carries every field (and the trace it restores is the same, bit for bit).
    let every = config(json!({"position": {"kind": "alibi", "slopes": [0.5, 0.25]}, "heads": 2, "kv_heads": 1,
        "w_k": [[1, 0], [0, 1], [1, 1], [0, 2]], "w_v": [[1, 0], [0, 1], [1, 1], [0, 2]], "window": [1, 0], "sinks": 1,
        "mask": "causal", "decode_step": 4, "tiles": [2, 3]}));
    let c = Config::from_value(&every).unwrap();
    let state = attention_viz::share::State { config: c.clone(), naive: false, random: None };
    let back = attention_viz::share::decode(&attention_viz::share::encode(&state)).unwrap();
    assert_eq!(back.config, c);
    assert_eq!(compute(&back.config).unwrap(), compute(&c).unwrap());
    let v = Config::from_value(&config(json!({"position": {"kind": "rope"}}))).unwrap().to_value();
    assert_eq!(v["position"], json!({"kind": "rope", "base": 10000, "pairs": "interleaved"}));
    // kv_heads equal to heads is the default and is not written.
    let v = Config::from_value(&config(json!({"heads": 2, "kv_heads": 2}))).unwrap().to_value();
    assert!(v.get("kv_heads").is_none());
}

/// Edits keep the new fields valid: a token removed below the decode step moves it, a head added with kv_heads 1
/// keeps one kv head, an edit that would break a rule is refused with the rule's message.
#[test]
fn edits_keep_the_new_fields_valid() {
    let c = Config::from_value(&config(json!({"mask": "causal", "decode_step": 4, "window": [1, 0]}))).unwrap();
    let fewer = c.remove_token(4).unwrap();
    assert_eq!(fewer.options.decode_step, Some(3));
    assert!(compute(&fewer).is_ok());
    let e = c.with_value("mask", 0, 0, 0.0).unwrap_err();
    assert!(e.0.contains("decode_step needs mask \"causal\""), "{e}");
    let mqa = Config::from_value(&config(json!({"heads": 2, "kv_heads": 1, "w_k": [[1, 0], [0, 1], [1, 1], [0, 2]],
                                                 "w_v": [[1, 0], [0, 1], [1, 1], [0, 2]]})))
    .unwrap();
    let more = mqa.insert_head().unwrap();
    assert_eq!((more.options.heads, more.options.kv_heads()), (3, 1));
    assert!(compute(&more).is_ok());
    let less = more.remove_head(0).unwrap();
    assert_eq!((less.options.heads, less.options.kv_heads()), (2, 1));
    let alibi =
        Config::from_value(&config(json!({"heads": 2, "position": {"kind": "alibi", "slopes": [0.5, 0.25]}}))).unwrap();
    let more = alibi.insert_head().unwrap();
    assert!(compute(&more).is_ok());
    assert!(more.remove_head(1).is_ok());
    let rope = Config::from_value(&json!({"embeddings": [[1, 0], [0, 1]], "position": {"kind": "rope"}})).unwrap();
    let e = rope.insert_dim(2).unwrap_err();
    assert!(e.0.contains("needs an even d_k"), "{e}");
}

/// The trace's extra numbers count in the cost bound: FlashAttention's m, l and o after every tile, each tile's entry,
/// ALiBi's n × n bias per head. Tiles of 1 × 1 on 1000 tokens are refused by name before anything is computed, from
/// the declared shapes too.
#[test]
fn tiles_count_in_the_cost_bound() {
    let n = 1000;
    let rows = |n: usize, d: usize| Value::Array((0..n).map(|i| json!(vec![(i % 7) as f64; d])).collect());
    let mut c = json!({"embeddings": rows(n, 2), "tiles": [1, 1]});
    let e = Config::from_value(&c).unwrap_err();
    assert!(e.0.contains("multiply-adds") && e.0.contains("limit"), "{e}");
    let declared =
        attention_viz::config::check_declared_shapes(&json!({"tiles": [1, 1]}), &[("embeddings", vec![n, 2])]);
    assert_eq!(declared.unwrap_err(), e);
    c["tiles"] = json!([64, 64]);
    assert!(Config::from_value(&c).is_ok());
    // Where the tiles' steps tip it over, the message says so and offers larger tiles.
    let c = json!({"embeddings": rows(173, 1), "tiles": [1, 1]});
    let e = Config::from_value(&c).unwrap_err().0;
    assert!(e.contains("(173 tokens × 1 dimensions, tiles of 1 × 1: 29929 steps)"), "{e}");
    assert!(e.ends_with("use larger tiles, or fewer tokens or dimensions"), "{e}");
}

/// FlashAttention's steps are one table of numbers (`Flash::table`), not five named fields a step: the trace's
/// fields, which every snapshot lists and compute() lays out, are as many with 28,900 tiles of 1 × 1 as with one
/// (144,500 fields took most of a second to write and read), and the table gives back every step's numbers.
#[test]
fn flash_steps_are_one_table_not_fields() {
    use attention_viz::attention::FLASH_STEP_NUMBERS;
    let rows = |n: usize| Value::Array((0..n).map(|i| json!([((i * 7) % 11) as f64 / 11.0])).collect());
    let fields = |tiles: Value| {
        let t = compute(&Config::from_value(&json!({"embeddings": rows(170), "tiles": tiles})).unwrap()).unwrap();
        (t.fields().len(), t.flash().unwrap().steps.len())
    };
    let (one, steps) = fields(json!([170, 170]));
    assert_eq!(steps, 1);
    assert_eq!(fields(json!([1, 1])), (one, 28_900));
    let config = Config::from_value(&config(json!({"mask": "causal", "tiles": [2, 3]}))).unwrap();
    let trace = compute(&config).unwrap();
    let flash = trace.flash().unwrap();
    let mut values = vec![];
    let table = flash.table(|v| {
        values.extend_from_slice(v);
        values.len() - v.len()
    });
    assert_eq!(table.len(), flash.steps.len() * FLASH_STEP_NUMBERS);
    for (step, row) in flash.steps.iter().zip(table.chunks(FLASH_STEP_NUMBERS)) {
        let [q_block, k_block, r, m, l, o] = [0, 1, 2, 3, 4, 5].map(|k| row[k]);
        let (r, m, l, o) = (r as usize, m as usize, l as usize, o as usize);
        assert_eq!([q_block, k_block], [step.q_block, step.k_block]);
        assert_eq!(&values[m..m + r], &step.m[..]);
        assert_eq!(&values[l..l + r], &step.l[..]);
        assert_eq!(&values[o..o + r * flash.o_cols()], step.o.data());
    }
}

/// The element's views of the modern inputs: `pe` after the embeddings, RoPE's `q_rot` and `k_rot` before the scores,
/// ALiBi's `bias` before the scaled scores, the mask view when a window is set (its title says the window and sinks);
/// each head's `q_rot`, `k_rot`, `bias` by name.
#[test]
fn views_show_positions_and_the_window() {
    use attention_viz::views::{names, view};
    let c = |extra: Value| Config::from_value(&config(extra)).unwrap();
    let order = |config: &Config| names(config).join(" ");
    let sin = c(json!({"position": {"kind": "sinusoidal"}}));
    assert!(order(&sin).starts_with("embeddings pe w_q"), "{}", order(&sin));
    let rope = c(json!({"position": {"kind": "rope"}, "heads": 2}));
    assert!(order(&rope).contains("v q_rot k_rot scores"), "{}", order(&rope));
    let alibi = c(json!({"position": {"kind": "alibi"}, "window": [1, 0], "sinks": 1}));
    assert!(order(&alibi).contains("scores bias scaled"), "{}", order(&alibi));
    let trace = compute(&alibi).unwrap();
    let mask = view(&alibi, &trace, "mask").unwrap();
    assert_eq!(
        mask.title,
        "effective (1 = attended): mask: none · window [1, 0] · sinks 1: dashed · crossed 0s: the mask allows them"
    );
    // The keys attended: query 3's key 1 is outside [3 − 1, 3] (0, crossed: the mask allows it), key 0 a sink and
    // key 2 inside (1), key 4 ahead of it (0); column 0 dashed.
    assert_eq!(mask.values.row(3), [1.0, 0.0, 1.0, 1.0, 0.0]);
    assert!(mask.marks.cell(3, 1, 5) && !mask.marks.cell(3, 0, 5) && !mask.marks.cell(3, 2, 5));
    assert_eq!(mask.marks.columns, vec![0]);
    let bias = view(&alibi, &trace, "bias").unwrap();
    assert_eq!(bias.values.get(0, 3), -3.0 * (-8f64).exp2());
    assert!(view(&alibi, &trace, "scaled").unwrap().title.contains("+ bias"));
    let trace = compute(&rope).unwrap();
    for name in ["q_rot", "k_rot", "heads.1.q_rot", "heads.0.k_rot"] {
        assert_eq!(view(&rope, &trace, name).unwrap().values.shape(), (5, 2), "{name}");
    }
    assert!(view(&rope, &trace, "bias").is_err() && view(&rope, &trace, "heads.0.bias").is_err());
    // The scores are the rotated q and k's: the title (and the heatmap's hidden table, which reads it) says so.
    assert_eq!(view(&rope, &trace, "scores").unwrap().title, "scores = Q_rot·K_rotᵀ (head 0)");
    assert_eq!(view(&alibi, &compute(&alibi).unwrap(), "scores").unwrap().title, "scores = Q·Kᵀ");
    let trace = compute(&sin).unwrap();
    assert_eq!(view(&sin, &trace, "pe").unwrap().values.get(1, 0), 1f64.sin());
}

/// An edit of W_Q, W_K or W_V with several heads is patched head by head (incremental::Session) only for plain heads:
/// with shared K/V heads, RoPE, ALiBi, a window, a decode step or tiles the whole trace is recomputed, and equals a
/// fresh computation bit for bit.
#[test]
fn incremental_edits_recompute_the_new_fields() {
    use attention_viz::incremental::Session;
    let w2 = json!([[1, 0.5], [0, 1], [0.25, 1], [1, 0]]);
    for extra in [
        json!({"heads": 2, "kv_heads": 1, "w_k": w2, "w_v": w2}),
        json!({"heads": 2, "position": {"kind": "rope"}}),
        json!({"heads": 2, "position": {"kind": "alibi"}, "tiles": [2, 2]}),
        json!({"heads": 2, "window": [1, 0], "sinks": 1}),
        json!({"heads": 2, "mask": "causal", "decode_step": 2}),
        json!({"position": {"kind": "sinusoidal"}}),
    ] {
        let c = Config::from_value(&config(extra.clone())).unwrap();
        for (matrix, col) in [("w_q", 1), ("w_k", 1), ("w_v", 0), ("embeddings", 2)] {
            let mut session = Session::new(c.clone()).unwrap();
            session.set_value(matrix, 1, col, 3.5).unwrap();
            let fresh = compute(&c.with_value(matrix, 1, col, 3.5).unwrap()).unwrap();
            assert!(session.trace() == &fresh, "{extra} {matrix}: the patched trace differs from a fresh one");
        }
    }
}

/// The modern panels (position, kv, window, decode, flash), by the names the `views` attribute gives them, shown when
/// the config uses their feature.
#[test]
fn modern_panels_follow_the_config() {
    use attention_viz::views::modern_panels;
    let c = |extra: Value| Config::from_value(&config(extra)).unwrap();
    assert!(modern_panels(&c(json!({}))).is_empty());
    assert_eq!(modern_panels(&c(json!({"position": {"kind": "alibi"}, "sinks": 1}))), ["position", "window"]);
    let all =
        c(json!({"position": {"kind": "rope"}, "heads": 2, "kv_heads": 1, "w_k": [[1, 0], [0, 1], [1, 1], [0, 2]],
                       "w_v": [[1, 0], [0, 1], [1, 1], [0, 2]], "window": [1, 0], "mask": "causal", "decode_step": 1,
                       "tiles": [2, 2]}));
    assert_eq!(modern_panels(&all), ["position", "kv", "window", "decode", "flash"]);
}

/// RoPE's point, which the element's "shift positions" control is to show: shifting every position by k leaves the
/// scores as they are (q_p·k_p' depends on p − p' only), for both layouts.
#[test]
fn rope_scores_depend_on_relative_positions_only() {
    use attention_viz::math::position::rope;
    use attention_viz::math::Matrix;
    let x = Matrix::from_rows(&[[0.5, -1.0, 2.0, 0.25], [1.5, 0.5, -0.75, 1.0], [-0.5, 2.0, 1.0, -1.25]]).unwrap();
    let y = Matrix::from_rows(&[[1.0, 0.25, -0.5, 2.0], [0.75, -1.5, 1.25, 0.5], [2.0, 1.0, 0.5, -0.25]]).unwrap();
    for interleaved in [true, false] {
        let scores = rope(&x, 100.0, interleaved, 0).matmul_transposed(&rope(&y, 100.0, interleaved, 0));
        for shift in [1, 5, 17] {
            // The same rows at positions shift … shift + 2: rows of zeros before them.
            let pad = |m: &Matrix| {
                let mut rows = vec![vec![0.0; 4]; shift];
                rows.extend(m.to_rows());
                Matrix::from_rows(&rows).unwrap()
            };
            let (qs, ks) = (rope(&pad(&x), 100.0, interleaved, 0), rope(&pad(&y), 100.0, interleaved, 0));
            for i in 0..3 {
                for j in 0..3 {
                    let s: f64 = qs.row(shift + i).iter().zip(ks.row(shift + j)).map(|(a, b)| a * b).sum();
                    let want = scores.get(i, j);
                    assert!((s - want).abs() <= 1e-12 * want.abs().max(1.0), "shift {shift}: {s} vs {want}");
                }
            }
        }
    }
}

/// `position.offset` ("Shift positions"): token r at position r + k. The trace with the offset equals the last n rows
/// of the same config with k tokens before them (the core's trace without offset, which the NumPy goldens above
/// check): sinusoidal's table and RoPE's rotated q, k move with the positions; RoPE's scores stay the same (they
/// depend on p − p' only) while sinusoidal's change (PE is added to X before the projections).
#[test]
fn position_offset_shifts_every_position() {
    let base = config(json!({"heads": 2}));
    let with = |position: Value| {
        let mut c = base.clone();
        c["position"] = position;
        let c = Config::from_value(&c).unwrap_or_else(|e| panic!("{e}"));
        match compute(&c).unwrap() {
            Trace::SelfAttention(t) => t,
            _ => unreachable!(),
        }
    };
    // k zero rows in front: positions 0 … k − 1 hold nothing; rows k … of the longer trace are ours at r + k.
    let padded = |position: Value, k: usize| {
        let mut c = base.clone();
        let e = c["embeddings"].as_array().unwrap().clone();
        let mut rows = vec![json!([0, 0, 0, 0]); k];
        rows.extend(e);
        c["embeddings"] = Value::Array(rows);
        c["position"] = position;
        match compute(&Config::from_value(&c).unwrap()).unwrap() {
            Trace::SelfAttention(t) => t,
            _ => unreachable!(),
        }
    };
    let close = |a: &[f64], b: &[f64], what: &str| {
        assert_eq!(a.len(), b.len(), "{what}");
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-12 * y.abs().max(1.0), "{what}: {x} vs {y}");
        }
    };
    let tail = |m: &attention_viz::math::Matrix, k: usize| m.to_rows()[k..].concat();
    for k in [1usize, 3, 1000] {
        // Sinusoidal: the table is the padded one's last rows, and the scores differ from the unshifted ones.
        let s0 = with(json!({"kind": "sinusoidal", "base": 100}));
        let s = with(json!({"kind": "sinusoidal", "base": 100, "offset": k}));
        if k < 10 {
            let p = padded(json!({"kind": "sinusoidal", "base": 100}), k);
            close(s.pe.as_ref().unwrap().data(), &tail(p.pe.as_ref().unwrap(), k), "PE shifted");
        }
        let moved = (0..2)
            .any(|h| s.head(h).scores.data().iter().zip(s0.head(h).scores.data()).any(|(a, b)| (a - b).abs() > 1e-9));
        assert!(moved, "sinusoidal scores change with offset {k}");
        for pairs in ["interleaved", "halves"] {
            let r0 = with(json!({"kind": "rope", "pairs": pairs}));
            let r = with(json!({"kind": "rope", "pairs": pairs, "offset": k}));
            for h in 0..2 {
                close(r.head(h).scores.data(), r0.head(h).scores.data(), &format!("RoPE {pairs} scores, offset {k}"));
                close(r.head(h).weights.data(), r0.head(h).weights.data(), "RoPE weights");
                let turned = r.extras[h].q_rot.as_ref().unwrap().data() != r0.extras[h].q_rot.as_ref().unwrap().data();
                assert!(turned, "q_rot moves with the positions");
            }
            if k < 10 {
                let p = padded(json!({"kind": "rope", "pairs": pairs}), k);
                for h in 0..2 {
                    close(
                        r.extras[h].q_rot.as_ref().unwrap().data(),
                        &tail(p.extras[h].q_rot.as_ref().unwrap(), k),
                        "q_rot",
                    );
                    close(
                        r.extras[h].k_rot.as_ref().unwrap().data(),
                        &tail(p.extras[h].k_rot.as_ref().unwrap(), k),
                        "k_rot",
                    );
                }
            }
        }
    }
}

/// `position.offset`: written only when not 0, read back; refused by name when not a whole number ≥ 0 (or too big),
/// and on ALiBi, whose bias has no positions to shift.
#[test]
fn position_offset_is_checked() {
    let c = Config::from_value(&config(json!({"position": {"kind": "rope", "offset": 4}}))).unwrap();
    assert_eq!(c.options.position.as_ref().unwrap().offset(), 4);
    assert_eq!(c.to_value()["position"]["offset"], json!(4));
    assert_eq!(Config::from_value(&c.to_value()).unwrap(), c);
    let zero = Config::from_value(&config(json!({"position": {"kind": "sinusoidal", "offset": 0}}))).unwrap();
    assert!(zero.to_value()["position"].get("offset").is_none());
    for bad in [json!(-1), json!(1.5), json!("3"), json!(1u64 << 41)] {
        let e = Config::from_value(&config(json!({"position": {"kind": "sinusoidal", "offset": bad}}))).unwrap_err();
        assert!(e.0.contains("position.offset must be a whole number from 0 to"), "{bad}: {e}");
    }
    let e = Config::from_value(&config(json!({"position": {"kind": "alibi", "offset": 2}}))).unwrap_err();
    assert!(e.0.contains("has no field \"offset\""), "{e}");
}

/// The `kv` panel's edit: W_K and W_V regrouped by each group's mean (GQA's mean-pooling, Ainslie et al. 2023 §2.1),
/// and back to one K/V head per query head by repeating (PyTorch's repeat_kv): the trace is then the grouped one.
#[test]
fn kv_heads_edit_mean_pools_and_repeats() {
    // 4 heads of d_k = 1: W_K's column h is head h's.
    let c = Config::from_value(&config(json!({"heads": 4}))).unwrap();
    let w_k = |c: &Config| match &c.mechanism {
        attention_viz::config::Mechanism::SelfAttention { projections: Some(p), .. } => p.w_k.to_rows(),
        _ => unreachable!(),
    };
    let two = c.with_kv_heads(2).unwrap();
    assert_eq!(two.options.kv_heads, Some(2));
    // Rows of W_K [1, 0, 2, 1] → means of columns (0, 1) and (2, 3).
    assert_eq!(w_k(&two)[0], vec![0.5, 1.5]);
    assert_eq!(w_k(&two)[3], vec![1.0, 1.0]);
    let one = two.with_kv_heads(1).unwrap();
    assert_eq!(w_k(&one)[0], vec![1.0]);
    let back = two.with_kv_heads(4).unwrap();
    assert_eq!(back.options.kv_heads, None);
    assert_eq!(w_k(&back)[0], vec![0.5, 0.5, 1.5, 1.5]);
    // Repeated K/V heads compute what the grouped ones do.
    let (a, b) = (compute(&two).unwrap(), compute(&back).unwrap());
    let (Trace::SelfAttention(a), Trace::SelfAttention(b)) = (a, b) else { unreachable!() };
    assert_eq!(a.context, b.context);
    for bad in [0, 3, 5] {
        let e = c.with_kv_heads(bad).unwrap_err();
        assert!(e.0.contains("kv_heads must be a whole number that divides heads (4)"), "{e}");
    }
    // The kv panel's menu is the same rule: exactly the counts with_kv_heads takes.
    assert_eq!(c.options.kv_heads_choices(), vec![1, 2, 4]);
    for k in 0..=6 {
        assert_eq!(c.with_kv_heads(k).is_ok(), c.options.kv_heads_choices().contains(&k), "kv_heads {k}");
    }
}

/// The window and sinks on the mask heatmap, drawn by the core: in the raster (the canvas of a big grid) exactly the
/// marked cells differ from the unmarked drawing; the SVG (shapes) has the marked cells' lines and the sinks' dashes.
#[test]
fn window_marks_are_drawn_on_the_mask() {
    use attention_viz::heatmap::{self, Colors, Layout, Style};
    use attention_viz::views::{view, Marks, View};
    let c = Config::from_value(&config(json!({"mask": "causal", "window": [1, 0], "sinks": 1}))).unwrap();
    let t = compute(&c).unwrap();
    let marked = view(&c, &t, "mask").unwrap();
    let plain = View { marks: Marks::default(), ..marked.clone() };
    let style = Style::default();
    let colors = Colors::new(marked.values.data(), None, marked.palette);
    let layout = Layout::new(&marked, &colors, &style, 420, 320);
    let (a, b) = (
        heatmap::raster(&marked, &colors, &layout, &style.theme),
        heatmap::raster(&plain, &colors, &layout, &style.theme),
    );
    let (ga, gb) = (&a[0], &b[0]);
    for i in 0..5 {
        for j in 0..5 {
            let r = layout.cell(i, j);
            let mut differs = false;
            for y in r.y0..r.y1 {
                for x in r.x0..r.x1 {
                    let k = (((y - ga.y) as usize) * ga.width as usize + (x - ga.x) as usize) * 4;
                    differs |= ga.rgba[k..k + 3] != gb.rgba[k..k + 3];
                }
            }
            assert_eq!(differs, marked.marks.cell(i, j, 5), "cell ({i}, {j})");
        }
    }
    let svg = |v: &View| heatmap::to_svg(v, &style).unwrap();
    let lines = |s: &str| s.matches("<polyline").count() + s.matches("<path").count() + s.matches("<line").count();
    let cols_only = View { marks: Marks { cells: vec![], columns: vec![0], ..Marks::default() }, ..marked.clone() };
    assert!(lines(&svg(&marked)) > lines(&svg(&cols_only)), "the crossed cells' lines");
    assert!(svg(&cols_only).matches("<rect").count() > svg(&plain).matches("<rect").count(), "the sinks' dashes");
}

/// A decode step is row t of the weights over the cache's keys 0 … t. When every key of query t is masked, masked_row
/// "uniform" would give that row 1/n on all n keys, past the cache: the pair is refused, saying why; at the last
/// token the cache holds every key and the pair is row t; "zero" and "nan" fill the cache's part of the row alike.
#[test]
fn a_fully_masked_decode_row_is_row_t_or_refused() {
    let config = |masked_row: &str, step: usize| {
        Config::from_value(&json!({
            "embeddings": [[1, 0], [0, 1], [1, 1], [2, 0]], "mask": "causal", "valid_lens": [1, 0, 3, 0],
            "masked_row": masked_row, "decode_step": step,
        }))
    };
    assert_eq!(
        config("uniform", 1).unwrap_err().0,
        "decode_step 1: every key of query 1 is masked, and masked_row \"uniform\" gives its row 1/4 on each of the 4 \
         keys, but at step 1 the KV cache holds only keys 0 … 1: choose masked_row \"zero\" or \"nan\", or another step"
    );
    // Query 0 attends key 0: a step whose row has an open key is row t whatever masked_row says.
    let open = Config::from_value(&json!({
        "embeddings": [[1, 0], [0, 1], [1, 1], [2, 0]], "mask": "causal", "valid_lens": [1, 0, 3, 0],
        "masked_row": "uniform", "decode_step": 0,
    }));
    let Trace::SelfAttention(t) = compute(&open.unwrap()).unwrap() else { panic!() };
    assert_eq!(t.decode.as_ref().unwrap().weights, [1.0]);
    let cases = [("uniform", 3, vec![0.25; 4]), ("zero", 1, vec![0.0; 2]), ("nan", 1, vec![f64::NAN; 2])];
    for (masked_row, step, want) in cases {
        let Trace::SelfAttention(t) = compute(&config(masked_row, step).unwrap()).unwrap() else { panic!() };
        let d = t.decode.as_ref().unwrap();
        let same =
            |a: &[f64], b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same(&d.weights, &want), "{masked_row}: decode weights {:?}", d.weights);
        assert!(same(&t.weights.row(step)[..=step], &want), "{masked_row}: row {step} {:?}", t.weights.row(step));
    }
}

/// Window sides, sinks and tiles past the figure's size are kept as given (the config the page keeps, saves and
/// shares, and the trace's `flash.tiles`), and mean the whole of it: a window wider than the keys forbids none.
#[test]
fn window_sinks_and_tiles_past_the_size_are_kept_as_given() {
    let base = json!({"embeddings": [[1, 0], [0, 1], [1, 1]], "mask": "causal"});
    let mut wide = base.clone();
    wide["window"] = json!([5000, 9_007_199_254_740_993u64]);
    wide["sinks"] = json!(5000);
    wide["tiles"] = json!([5000, 4097]);
    let config = Config::from_value(&wide).unwrap();
    let kept = config.to_value();
    assert_eq!(kept["window"], json!([5000, 9_007_199_254_740_993u64]));
    assert_eq!(kept["sinks"], json!(5000));
    assert_eq!(kept["tiles"], json!([5000, 4097]));
    let Trace::SelfAttention(t) = compute(&config).unwrap() else { panic!() };
    assert_eq!(t.flash.as_ref().unwrap().tiles, [5000.0, 4097.0]);
    let Trace::SelfAttention(plain) = compute(&Config::from_value(&base).unwrap()).unwrap() else { panic!() };
    assert_eq!(t.weights.data(), plain.weights.data(), "a window wider than the keys forbids none");
}
