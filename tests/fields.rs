//! The fields real models' layers add (`b_q`, `b_k`, `b_v`, `b_o`, `q_norm`, `k_norm`, `softcap`, RoPE's
//! `rotary_dim`, `frequencies`, `attention_factor`): each malformed one refused with the message naming it and the
//! shape it needs, their JSON round trip (defaults omitted) and share links, the edits that change shapes keeping
//! the config valid (a head's bias slices taken away and brought back, kv_heads, dimensions, imports), and an edited
//! session's trace equal to a fresh `compute` (a property test). Their values are tests/modern.rs's goldens.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention::{compute, Trace};
use attention_viz::config::{Config, Position};
use attention_viz::edits::Kept;
use attention_viz::figure::{Edit, Figure};
use attention_viz::import::{Array, Found, Import};
use attention_viz::incremental::Session;
use proptest::prelude::*;
use serde_json::{json, Value};

/// 3 tokens of 2 dimensions; `heads` heads of d_k = 2 (W_Q, W_K, W_V 2 × 2·heads), then `extra`'s fields.
fn with(heads: usize, extra: Value) -> Value {
    let w: Vec<Vec<f64>> =
        (0..2).map(|i| (0..2 * heads).map(|j| ((i * 7 + j * 3) % 5) as f64 / 4.0 - 0.5).collect()).collect();
    let mut c = json!({"embeddings": [[1, 0], [0, 1], [1, 1]], "w_q": w, "w_k": w, "w_v": w});
    if heads > 1 {
        c["heads"] = json!(heads);
    }
    c.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    c
}

fn refused(config: &Value) -> String {
    match Config::from_value(config) {
        Ok(_) => panic!("accepted: {config}"),
        Err(e) => e.0,
    }
}

#[test]
fn malformed_fields_are_refused_by_name_and_shape() {
    let w4 = |cols: usize| vec![vec![0.5; cols]; 2];
    let gqa = json!({"embeddings": [[1, 0], [0, 1]], "w_q": w4(16), "w_k": w4(8), "w_v": w4(8), "heads": 4,
                     "kv_heads": 2, "b_k": [0, 0, 0, 0, 0, 0]});
    let cases: Vec<(Value, &str)> = vec![
        (gqa, "b_k must be a list of 8 numbers (kv_heads·d_k = 2·4), got 6"),
        (with(2, json!({"b_q": [1, 2, 3]})), "b_q must be a list of 4 numbers (heads·d_k = 2·2), got 3"),
        (with(1, json!({"b_v": [1]})), "b_v must be a list of 2 numbers (kv_heads·d_v = 1·2), got 1"),
        (with(1, json!({"b_q": "zero"})), "b_q must be a list of numbers, got the text \"zero\""),
        (with(1, json!({"b_k": [1, "NaN"]})), "b_k, column 1 is NaN; every value must be a finite number"),
        (with(1, json!({"b_q": {"$list_length": 5000}})), "b_q has 5000 values; that is more than supported"),
        (
            json!({"embeddings": [[1, 0], [0, 1]], "b_q": [1, 2]}),
            "b_q needs the projections: it is added to X·W_Q (w_q, w_k and w_v), and this config has none",
        ),
        (
            json!({"embeddings": [[1, 0], [0, 1]], "b_v": [1, 2]}),
            "b_v needs the projections: it is added to X·W_V (w_q, w_k and w_v), and this config has none",
        ),
        (with(1, json!({"b_o": [1, 2]})), "b_o needs w_o: output = the heads' contexts·W_O + b_o, and this config has no w_o"),
        (
            with(1, json!({"w_o": [[1, 0, 1], [0, 1, 1]], "b_o": [1, 2]})),
            "b_o must be a list of 3 numbers (d_out, the columns of w_o), got 2",
        ),
        (
            with(1, json!({"q_norm": {"weight": [1, 1, 1], "eps": 1e-6}})),
            "q_norm.weight must be a list of 2 numbers (d_k, one per value of a head's q row), got 3",
        ),
        (
            with(1, json!({"k_norm": {"weight": [1, 1], "eps": 0}})),
            "k_norm.eps must be a number > 0 (added to the mean square before its root; Qwen3: 1e-6), got 0",
        ),
        (
            with(1, json!({"q_norm": {"weight": [1, 1], "eps": -1}})),
            "q_norm.eps must be a number > 0 (added to the mean square before its root; Qwen3: 1e-6), got -1",
        ),
        (
            with(1, json!({"q_norm": {"weight": [1, 1]}})),
            "q_norm needs eps: {\"weight\": [d_k numbers], \"eps\": a number > 0} (RMSNorm of each head's rows)",
        ),
        (
            with(1, json!({"q_norm": [1, 1]})),
            "q_norm must be an object {\"weight\": [d_k numbers], \"eps\": a number > 0} (RMSNorm of each head's rows), \
             got a list of 2 items",
        ),
        (with(1, json!({"k_norm": {"weight": [1, 1], "eps": 1e-6, "bias": 0}})), "k_norm has no field \"bias\" (it takes weight, eps)"),
        (
            with(1, json!({"softcap": 0})),
            "softcap must be a number > 0: each head's capped = softcap·tanh(scaled / softcap) (Gemma 2: 50), got 0",
        ),
        (
            with(1, json!({"softcap": -50})),
            "softcap must be a number > 0: each head's capped = softcap·tanh(scaled / softcap) (Gemma 2: 50), got -50",
        ),
        (
            with(1, json!({"softcap": "50"})),
            "softcap must be a number > 0: each head's capped = softcap·tanh(scaled / softcap) (Gemma 2: 50), got the \
             text \"50\"",
        ),
    ];
    for (config, want) in cases {
        assert_eq!(refused(&config), want, "{config}");
    }
}

#[test]
fn malformed_rope_fields_are_refused() {
    // d_k = 4: W_Q and W_K 2 × 4.
    let rope = |position: Value| with(2, json!({"position": position}));
    let rotary = |got: &str| {
        format!(
            "position.rotary_dim must be an even whole number from 2 to d_k (2): RoPE rotates the first rotary_dim \
             values of each head's q and k in pairs (the rest pass unchanged), got {got}"
        )
    };
    let cases: Vec<(Value, String)> = vec![
        (rope(json!({"kind": "rope", "rotary_dim": 3})), rotary("3")),
        (rope(json!({"kind": "rope", "rotary_dim": 4})), rotary("4")),
        (rope(json!({"kind": "rope", "rotary_dim": 0})), rotary("0")),
        (rope(json!({"kind": "rope", "rotary_dim": 1.5})), rotary("1.5")),
        (
            rope(json!({"kind": "rope", "frequencies": [1, 0.5]})),
            "position.frequencies must be a list of 1 numbers (rotary_dim / 2 = 2 / 2: one θ_i per pair of rotated \
             dimensions), got 2"
                .into(),
        ),
        (
            rope(json!({"kind": "rope", "frequencies": [0]})),
            "position.frequencies, column 0 is 0: each θ_i must be a number > 0".into(),
        ),
        (
            rope(json!({"kind": "rope", "frequencies": [-0.5]})),
            "position.frequencies, column 0 is -0.5: each θ_i must be a number > 0".into(),
        ),
        (
            rope(json!({"kind": "rope", "attention_factor": 0})),
            "position.attention_factor must be a number > 0 (RoPE's cos and sin are multiplied by it; default 1), got 0"
                .into(),
        ),
        (
            rope(json!({"kind": "sinusoidal", "rotary_dim": 2})),
            "position \"sinusoidal\" has no field \"rotary_dim\" (it takes kind, base, offset)".into(),
        ),
        (
            rope(json!({"kind": "alibi", "frequencies": [1]})),
            "position \"alibi\" has no field \"frequencies\" (it takes kind, slopes)".into(),
        ),
    ];
    for (config, want) in cases {
        assert_eq!(refused(&config), want, "{config}");
    }
    // A whole head's width is the default: written back as no rotary_dim at all.
    let wide = Config::from_value(&with(1, json!({"position": {"kind": "rope", "rotary_dim": 2}}))).unwrap();
    assert!(wide.to_value()["position"].get("rotary_dim").is_none());
}

/// Every layer field belongs to self-attention: a cross-attention config refuses each by name, and a model's weights
/// too.
#[test]
fn layer_fields_are_self_attentions() {
    let values = [
        ("b_q", json!([1])),
        ("b_k", json!([1])),
        ("b_v", json!([1])),
        ("b_o", json!([1])),
        ("q_norm", json!({"weight": [1], "eps": 1e-6})),
        ("k_norm", json!({"weight": [1], "eps": 1e-6})),
        ("softcap", json!(50)),
    ];
    for (name, value) in values {
        let mut cross = json!({"decoder_state": [1, 0], "annotations": [[1, 0], [0, 1]]});
        cross[name] = value.clone();
        assert_eq!(refused(&cross), format!("{name} belongs to self-attention, but mechanism is \"cross\""));
        let mut weights = json!({"attention": [[1.0]]});
        weights[name] = value;
        assert!(refused(&weights).starts_with(&format!("{name} belongs to computed attention")));
    }
}

/// A config of every layer field, and RoPE's three: what the JSON, a share link and the element's saved state carry.
fn full() -> Config {
    Config::from_value(&with(
        2,
        json!({
            "b_q": [0.5, -1, 0.25, 2], "b_k": [1, 0, -0.5, 0.75], "b_v": [0, 1, 2, -1],
            "w_o": [[1, 0], [0, 1], [1, 1], [0.5, 0]], "b_o": [0.5, -0.25],
            "q_norm": {"weight": [1, 0.5], "eps": 1e-6}, "k_norm": {"weight": [2, 1], "eps": 0.01},
            "softcap": 30,
            "position": {"kind": "rope", "pairs": "halves", "frequencies": [0.125], "attention_factor": 1.25},
            "mask": "causal"
        }),
    ))
    .unwrap()
}

#[test]
fn layer_fields_round_trip_and_defaults_are_omitted() {
    let c = full();
    let v = c.to_value();
    for name in ["b_q", "b_k", "b_v", "b_o", "q_norm", "k_norm", "softcap"] {
        assert!(v.get(name).is_some(), "{name} written");
    }
    assert_eq!(v["position"]["frequencies"], json!([0.125]));
    assert_eq!(v["position"]["attention_factor"], json!(1.25));
    assert_eq!(Config::from_value(&v).unwrap(), c);
    let state = attention_viz::share::State { config: c.clone(), naive: false, random: None };
    assert_eq!(attention_viz::share::decode(&attention_viz::share::encode(&state)).unwrap().config, c);
    // The defaults: no field written.
    let plain = Config::from_value(&with(1, json!({"position": {"kind": "rope", "attention_factor": 1}}))).unwrap();
    let v = plain.to_value();
    for name in ["b_q", "b_k", "b_v", "b_o", "q_norm", "k_norm", "softcap"] {
        assert!(v.get(name).is_none(), "{name} omitted");
    }
    assert_eq!(v["position"], json!({"kind": "rope", "base": 10000, "pairs": "interleaved"}));
}

/// The trace carries the new stages: each head's `capped` (top level with one head), the normed rows, the biased q;
/// with softcap `scaled` holds no −∞ and `capped` holds the mask's.
#[test]
fn the_trace_carries_capped_and_the_normed_rows() {
    let Trace::SelfAttention(t) = compute(&full()).unwrap() else { panic!() };
    let trace = Trace::SelfAttention(t.clone());
    for name in ["heads.0.capped", "heads.1.capped", "heads.0.q_normed", "heads.1.k_normed", "query.capped"] {
        assert!(trace.field(name).is_some(), "{name}");
    }
    let h = t.head(0);
    let capped = h.capped.unwrap();
    assert!(h.scaled.data().iter().all(|x| x.is_finite()), "scaled: scores / scale alone");
    assert_eq!(capped.get(0, 1), f64::NEG_INFINITY, "capped: −∞ where masked");
    assert!(capped.data().iter().filter(|x| x.is_finite()).all(|x| x.abs() < 30.0));
    // Q = X·W_Q + b_q: row 0 of X is [1, 0], so q's row 0 is W_Q's row 0 plus b_q.
    let Config { mechanism: attention_viz::config::Mechanism::SelfAttention { projections: Some(p), .. }, .. } = full()
    else {
        panic!()
    };
    let b_q = [0.5, -1.0, 0.25, 2.0];
    for (j, &b) in b_q.iter().enumerate() {
        assert_eq!(t.q.get(0, j), p.w_q.get(0, j) + b);
    }
    let one = Config::from_value(&with(1, json!({"softcap": 2}))).unwrap();
    let one = compute(&one).unwrap();
    assert!(one.field("capped").is_some() && one.field("heads.0.capped").is_some());
}

/// − head keeps the removed head's bias slices and + head brings them back where they were; kv_heads regroups b_k
/// and b_v as W_K's and W_V's columns; W_O off and on again brings b_o back.
#[test]
fn head_edits_carry_the_bias_slices() {
    let c = full();
    let mut figure = Figure::new(c.clone()).unwrap();
    figure.apply(Edit::RemoveHead(0)).unwrap();
    let l = &figure.config().options.layers;
    assert_eq!(l.b_q.as_deref(), Some(&[0.25, 2.0][..]));
    assert_eq!(l.b_k.as_deref(), Some(&[-0.5, 0.75][..]));
    assert_eq!(l.b_v.as_deref(), Some(&[2.0, -1.0][..]));
    figure.apply(Edit::InsertHead).unwrap();
    assert_eq!(figure.config().options.layers, c.options.layers, "the head's slices back at 0");
    // + head without a kept head: zeros for its slices.
    let wider = c.insert_head().unwrap();
    assert_eq!(wider.options.layers.b_q.as_deref(), Some(&[0.5, -1.0, 0.25, 2.0, 0.0, 0.0][..]));
    // One K/V head: b_k and b_v are the mean of the two heads' slices.
    let mqa = c.with_kv_heads(1).unwrap();
    assert_eq!(mqa.options.layers.b_k.as_deref(), Some(&[0.25, 0.375][..]));
    assert_eq!(mqa.options.layers.b_v.as_deref(), Some(&[1.0, 0.0][..]));
    assert!(compute(&mqa).is_ok());
    // W_O off drops b_o with it; on again, both come back.
    figure.apply(Edit::OutputProjection(false)).unwrap();
    assert_eq!(figure.config().options.layers.b_o, None);
    figure.apply(Edit::OutputProjection(true)).unwrap();
    assert_eq!(figure.config().options.layers.b_o.as_deref(), Some(&[0.5, -0.25][..]));
    assert_eq!(figure.config().options.w_o, c.options.w_o);
    let _ = Kept::default();
}

/// Without projections the q/k norms' weights follow d_model (+ and − dimension); every edit's config is valid.
#[test]
fn dimension_edits_keep_the_norms_fitting() {
    let c = Config::from_value(&json!({"embeddings": [[1, 0], [0, 1]], "q_norm": {"weight": [1, 2], "eps": 1e-6},
                                       "k_norm": {"weight": [3, 4], "eps": 1e-6}, "softcap": 5}))
    .unwrap();
    let more = c.insert_dim(1).unwrap();
    assert_eq!(more.options.layers.q_norm.as_ref().unwrap().weight, [1.0, 0.0, 2.0]);
    let fewer = more.remove_dim(0).unwrap();
    assert_eq!(fewer.options.layers.k_norm.as_ref().unwrap().weight, [0.0, 4.0]);
    for config in [more, fewer] {
        assert_eq!(Config::from_value(&config.to_value()).unwrap(), config);
        assert!(compute(&config).is_ok());
    }
}

/// An import resizes the biases with their matrices (seeded rand values), the norms' weights follow the new d_k
/// (their first values kept) and a rotary_dim past it is dropped, each said in the message.
#[test]
fn imports_keep_the_layer_fields_fitting() {
    // d_k = 6, of which RoPE turns 4.
    let w = json!([[1, 0, 0, 1, 0.5, 0], [0, 1, 1, 0, 0, 0.5]]);
    let c = Config::from_value(&json!({
        "embeddings": [[1, 0], [0, 1], [1, 1]], "w_q": w, "w_k": w, "w_v": [[1, 0], [0, 1]],
        "b_q": [1, 2, 3, 4, 5, 6], "b_k": [3, 4, 5, 6, 7, 8], "q_norm": {"weight": [0.5, 1.5, 1, 1, 1, 1], "eps": 1e-6},
        "position": {"kind": "rope", "rotary_dim": 4}
    }))
    .unwrap();
    // W_Q and W_K of 2 columns: d_k = 2.
    let narrow = Array::rows(&[vec![1.0, 0.5], vec![0.25, 1.0]]).unwrap();
    let found = vec![
        Found { member: "w_q".into(), named: true, array: narrow.clone() },
        Found { member: "w_k".into(), named: true, array: narrow },
    ];
    let (import, _) = Import::new(&c, found, None, "qk.npz").unwrap();
    let applied = import.apply(&c).unwrap();
    let next = c.with_fields(&applied.fields).unwrap();
    let l = &next.options.layers;
    assert_eq!(l.b_q.as_ref().map(Vec::len), Some(2));
    assert_eq!(l.b_k.as_ref().map(Vec::len), Some(2));
    assert_eq!(l.q_norm.as_ref().unwrap().weight, [0.5, 1.5]);
    assert!(matches!(next.options.position, Some(Position::Rope { rotary_dim: None, .. })));
    assert!(applied.message.contains("q_norm's weight follows d_k = 2"), "{}", applied.message);
    assert!(applied.message.contains("RoPE's rotary_dim 4 no longer fits d_k = 2: dropped"), "{}", applied.message);
    assert!(compute(&next).is_ok());
    // A bias imported alone into a figure without projections is not taken, with the reason.
    let plain = Config::from_value(&json!({"embeddings": [[1, 0], [0, 1]]})).unwrap();
    let found = vec![Found { member: "b_q".into(), named: true, array: Array::vector(&[1.0, 2.0]) }];
    let why = Import::new(&plain, found, None, "b.npz").unwrap_err();
    assert!(why.contains("b_q is added to X·W: this figure has no W_Q, W_K and W_V"), "{why}");
}

/// The bias values are inputs: a value edit sets one, and a block pasted into one writes it.
#[test]
fn bias_values_are_editable() {
    let c = full();
    let next = c.with_value("b_k", 0, 2, 7.0).unwrap();
    assert_eq!(next.options.layers.b_k.as_deref(), Some(&[1.0, 0.0, 7.0, 0.75][..]));
    assert_eq!(c.with_value("b_k", 0, 4, 7.0).unwrap_err().0, "b_k has no value 4 (it has 4)");
    let plain = Config::from_value(&with(1, json!({}))).unwrap();
    assert_eq!(plain.with_value("b_q", 0, 0, 1.0).unwrap_err().0, "this figure has no input \"b_q\"");
    let pasted = c.with_block("b_o", 0, 0, &[vec![3.0, 4.0]]).unwrap();
    assert_eq!(pasted.options.layers.b_o.as_deref(), Some(&[3.0, 4.0][..]));
    assert_eq!(c.input_shape("b_q"), Some(vec![4]));
}

/// Configs with the layer fields, one or two heads; the edits a reader makes of their inputs.
fn layer_config() -> BoxedStrategy<Config> {
    let small = || prop::collection::vec(-2.0f64..2.0, 8);
    (1usize..=2, small(), small(), small(), small(), any::<[bool; 6]>(), prop_oneof![Just(0.5), Just(3.0)])
        .prop_map(|(heads, a, b, c, d, on, cap)| {
            let mut extra = json!({"mask": "causal"});
            let w = 2 * heads;
            if on[0] {
                extra["b_q"] = json!(a[..w]);
            }
            if on[1] {
                extra["b_k"] = json!(b[..w]);
            }
            if on[2] {
                extra["b_v"] = json!(c[..w]);
            }
            if on[3] {
                extra["q_norm"] = json!({"weight": [1.5, 0.5], "eps": 1e-6});
            }
            if on[4] {
                extra["softcap"] = json!(cap);
            }
            if on[5] {
                extra["w_o"] = json!([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.0]][..w]);
                extra["b_o"] = json!(d[..2]);
                extra["position"] = json!({"kind": "rope", "pairs": "halves", "attention_factor": 1.5});
            }
            Config::from_value(&with(heads, extra)).unwrap()
        })
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    /// An edited session's trace is a fresh compute of its config, bit for bit, whatever input each edit sets (the
    /// patches know none of these fields: with one, every edit recomputes).
    #[test]
    fn edits_of_a_layer_config_equal_a_fresh_compute(
        start in layer_config(),
        edits in prop::collection::vec((0usize..9, 0usize..4, 0usize..4, -3.0f64..3.0), 1..12),
    ) {
        const NAMES: [&str; 9] = ["embeddings", "w_q", "w_k", "w_v", "b_q", "b_k", "b_v", "w_o", "b_o"];
        let mut session = Session::new(start.clone()).unwrap();
        for (input, row, col, value) in edits {
            let name = NAMES[input];
            let Some(shape) = session.config().input_shape(name) else { continue };
            let (row, col) = match shape[..] {
                [len] => (0, col % len),
                [rows, cols] => (row % rows, col % cols),
                _ => unreachable!(),
            };
            session.set_value(name, row, col, value).unwrap();
            let fresh = compute(session.config()).unwrap();
            let bits = |t: &Trace| -> Vec<(String, Vec<u64>)> {
                t.fields().iter().map(|f| (f.name.to_string(), f.data.iter().map(|x| x.to_bits()).collect())).collect()
            };
            prop_assert_eq!(bits(session.trace()), bits(&fresh), "after {}[{}][{}] = {}", name, row, col, value);
        }
    }
}

/// A large read-only figure's worker shows none of the layer fields: a config with one (said by name, as compute()'s
/// `largeTakes` sends it) stays within the page's bound; a `views` list naming `capped` gives way to `scaled` once
/// the cap is off.
#[test]
fn the_worker_takes_no_layer_field_and_capped_gives_way_to_scaled() {
    use attention_viz::config::{worker_takes, LAYER_FIELDS};
    let shapes =
        vec![("embeddings", vec![4096, 64]), ("w_q", vec![64, 64]), ("w_k", vec![64, 64]), ("w_v", vec![64, 64])];
    assert!(worker_takes(&json!({"mechanism": "self"}), &shapes));
    for field in LAYER_FIELDS {
        assert!(!worker_takes(&json!({"mechanism": "self", field: true}), &shapes), "{field}");
    }
    let capped = Config::from_value(&with(1, json!({"softcap": 2}))).unwrap();
    let authored = attention_viz::views::names(&capped);
    assert!(authored.iter().any(|v| v == "capped"));
    let off = Config::from_value(&with(1, json!({}))).unwrap();
    let asked = vec!["capped".to_string(), "weights".to_string()];
    let r = attention_viz::views::resolve(&authored, &off, &asked, &[]);
    assert_eq!(r.views, ["scaled", "weights"]);
    assert!(r.unknown.is_empty());
}
