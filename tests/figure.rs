//! `Figure::apply`: every `Edit` the element makes gives the config its `Config` function gives (or the core's own
//! message), a refused edit changes nothing at all, and what a figure remembers across edits (the last Randomize, the
//! reader's W_O and scoring, the author's config and stack) is kept, reset and restored as the element relies on.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention;
use attention_viz::config::{Config, Scale};
use attention_viz::edits::Distribution;
use attention_viz::figure::{scale, Edit, Figure};
use attention_viz::presets::preset;
use attention_viz::share;
use serde_json::json;

fn seed(name: &str) -> Figure {
    Figure::new(preset(name).unwrap()).unwrap()
}

/// The figure's trace is the one a full computation of its config gives.
fn consistent(f: &Figure) {
    let fresh = attention::compute(f.config()).unwrap();
    for (a, b) in f.trace().fields().iter().zip(fresh.fields().iter()) {
        assert_eq!(a.name, b.name);
        for (x, y) in a.data.iter().zip(b.data) {
            let same = x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-12 * (1.0 + y.abs());
            assert!(same, "{}: {x} vs {y}", a.name);
        }
    }
}

/// A weights config of `layers × heads × n × n`, every weight 1/n.
fn weights(layers: usize, heads: usize, n: usize) -> Config {
    let head = vec![vec![1.0 / n as f64; n]; n];
    Config::from_value(&json!({"mechanism": "weights", "attention": vec![vec![head; heads]; layers]})).unwrap()
}

#[test]
fn each_edit_gives_the_config_its_function_gives() {
    let base = preset("seed-001").unwrap();
    let cases: Vec<(Edit, Config)> = vec![
        (Edit::Value { matrix: "w_q".into(), row: 0, col: 1, value: 0.5 }, base.with_value("w_q", 0, 1, 0.5).unwrap()),
        (Edit::MaskCell { row: 0, col: 1, value: 0.0 }, base.with_value("mask", 0, 1, 0.0).unwrap()),
        (Edit::Query(2), base.with_query(2).unwrap()),
        (Edit::Fields(json!({"temperature": 0.5})), base.with_fields(&json!({"temperature": 0.5})).unwrap()),
        (Edit::Scale(Scale::None), base.with_scale(Scale::None).unwrap()),
        (Edit::InsertHead, base.insert_head().unwrap()),
        (Edit::InsertToken { at: 1, name: "x".into() }, base.insert_token(1, "x").unwrap()),
        (Edit::RemoveToken(0), base.remove_token(0).unwrap()),
        (Edit::RenameToken { at: 0, name: "first".into() }, base.rename_token(0, "first").unwrap()),
        (Edit::InsertDim(0), base.insert_dim(0).unwrap()),
        (Edit::RemoveDim(1), base.remove_dim(1).unwrap()),
        (Edit::Randomize { seed: 7, dist: Distribution::Randn }, base.randomized(7, Distribution::Randn).unwrap()),
        (Edit::Config(preset("seed-002").unwrap()), preset("seed-002").unwrap()),
    ];
    for (edit, want) in cases {
        let mut f = seed("seed-001");
        assert_eq!(f.apply(edit.clone()).unwrap(), None, "{edit:?}");
        assert_eq!(f.config(), &want, "{edit:?}");
        consistent(&f);
    }
}

/// The mask panel's click switches the mask's own entry, whatever else masks that key: its heatmap shows every rule
/// (a key the window closes is 0 there), the edit changes the mask alone. Chapter 12's window [2, 0] with one sink.
#[test]
fn a_mask_toggle_switches_the_masks_entry_only() {
    use attention_viz::views::view;
    let window = Config::from_value(&json!({"embeddings": [[2, 0], [1, 1], [1, -1], [0, 2], [1, 0]], "window": [2, 0],
        "sinks": 1}))
    .unwrap();
    let mut f = Figure::new(window.clone()).unwrap();
    let shown = |f: &Figure| view(f.config(), f.trace(), "mask").unwrap().values.row(4).to_vec();
    // Query 4, the last, attends the sink 0 and keys 2 … 4; key 1 is outside its window.
    assert_eq!(shown(&f), [1.0, 0.0, 1.0, 1.0, 1.0]);
    // Outside the window: the entry goes 1 → 0 → 1, the key stays closed, the window stays.
    f.apply(Edit::ToggleMask { row: 4, col: 1 }).unwrap();
    assert_eq!(f.config(), &window.with_value("mask", 4, 1, 0.0).unwrap());
    assert_eq!(shown(&f), [1.0, 0.0, 1.0, 1.0, 1.0]);
    f.apply(Edit::ToggleMask { row: 4, col: 1 }).unwrap();
    assert_eq!(f.config().options.mask.entry(4, 1), 1.0);
    assert_eq!(shown(&f), [1.0, 0.0, 1.0, 1.0, 1.0]);
    // Inside it: the key closes, then opens again.
    f.apply(Edit::ToggleMask { row: 4, col: 3 }).unwrap();
    assert_eq!(shown(&f), [1.0, 0.0, 1.0, 0.0, 1.0]);
    f.apply(Edit::ToggleMask { row: 4, col: 3 }).unwrap();
    assert_eq!(shown(&f), [1.0, 0.0, 1.0, 1.0, 1.0]);
    assert_eq!(f.config().options.window, Some([2, 0]));
    consistent(&f);
}

#[test]
fn a_refused_edit_changes_nothing_and_says_the_cores_message() {
    let base = preset("seed-001").unwrap();
    let refused = [
        (Edit::Value { matrix: "w_q".into(), row: 9, col: 0, value: 1.0 }, "w_q has no row 9"),
        (Edit::Query(99), "query 99 is out of range"),
        (Edit::Fields(json!({"temperature": -1})), "temperature"),
        (Edit::Scale(Scale::Value(0.0)), "scale must be a positive number, got 0"),
        (Edit::RemoveHead(5), ""),
        (Edit::SelectHead { layer: 0, head: 0 }, "only a model's weights"),
        (Edit::Value { matrix: "embeddings".into(), row: 0, col: 0, value: 1e308 }, ""),
        (Edit::RestoreSaved("!!".into()), "this share link cannot be read"),
        (Edit::ShareState { text: "{".into(), json: true }, "this share link cannot be read"),
    ];
    for (edit, message) in refused {
        let mut f = seed("seed-001");
        f.apply(Edit::Randomize { seed: 3, dist: Distribution::Rand }).unwrap();
        let before = f.config().clone();
        let e = f.apply(edit.clone()).unwrap_err();
        assert!(e.contains(message), "{edit:?}: {e}");
        assert_eq!(f.config(), &before, "{edit:?} changed the config");
        assert_eq!(f.random(), Some((3, Distribution::Rand)), "{edit:?} forgot the Randomize");
        consistent(&f);
    }
    assert_eq!(base, preset("seed-001").unwrap());
}

#[test]
fn a_scale_is_named_as_the_menu_names_it() {
    assert_eq!(scale("sqrt_dk", f64::NAN).unwrap(), Scale::SqrtDk);
    assert_eq!(scale("none", 1.0).unwrap(), Scale::None);
    assert_eq!(scale("custom", 2.5).unwrap(), Scale::Value(2.5));
    assert_eq!(scale("sqrt", 1.0).unwrap_err(), "scale must be sqrt_dk, none or custom, got \"sqrt\"");
}

#[test]
fn a_pasted_block_is_the_config_set_whole_with_those_values() {
    let base = preset("seed-001").unwrap();
    let mut f = seed("seed-001");
    let values = vec![vec![1.5, -2.0], vec![0.25]];
    f.apply(Edit::Block { matrix: "embeddings".into(), row: 1, col: 1, values }).unwrap();
    let mut whole = base.to_value();
    whole["embeddings"][1][1] = json!(1.5);
    whole["embeddings"][1][2] = json!(-2.0);
    whole["embeddings"][2][1] = json!(0.25);
    assert_eq!(f.config(), &Config::from_value(&whole).unwrap());
    consistent(&f);
    // A vector is its one row.
    let mut cross = seed("seed-003");
    let d = cross.config().to_value()["decoder_state"].as_array().unwrap().len();
    cross.apply(Edit::Block { matrix: "decoder_state".into(), row: 0, col: d - 1, values: vec![vec![9.0]] }).unwrap();
    assert_eq!(cross.config().to_value()["decoder_state"][d - 1].as_f64(), Some(9.0));
    // A block that does not fit, a matrix the figure lacks, an overflow: refused, nothing changed.
    let before = f.config().clone();
    let e = f.apply(Edit::Block { matrix: "w_q".into(), row: 0, col: 0, values: vec![vec![0.0; 40]] }).unwrap_err();
    // The words the input grid shows under a paste there (www/element/inputs.js asks `blockFit`).
    assert_eq!(
        e,
        "the pasted block (1 × 40) does not fit in w_q from here (3 × 3 to its end); nothing was pasted. To replace all \
         of w_q, paste into its first cell"
    );
    assert_eq!(f.config().block_refused("w_q", 1, 2, 2, 1), None);
    assert_eq!(
        f.config().block_refused("w_q", 1, 2, 3, 1).unwrap(),
        e.replace("1 × 40", "3 × 1").replace("3 × 3", "2 × 1")
    );
    assert_eq!(cross.config().block_refused("decoder_state", 0, d - 1, 1, 1), None);
    assert!(cross.config().block_refused("decoder_state", 0, d - 1, 1, 2).unwrap().contains("(1 × 1 to its end)"));
    assert_eq!(cross.config().block_refused("mask", 0, 0, 1, 1).unwrap(), "this figure has no input \"mask\"");
    let e = f.apply(Edit::Block { matrix: "annotations".into(), row: 0, col: 0, values: vec![vec![0.0]] }).unwrap_err();
    assert_eq!(e, "this figure has no input \"annotations\"");
    let big = vec![vec![1e300; 3]];
    assert!(f.apply(Edit::Block { matrix: "embeddings".into(), row: 0, col: 0, values: big }).is_err());
    assert_eq!(f.config(), &before);
    consistent(&f);
}

#[test]
fn reset_comes_back_to_the_config_last_marked_as_the_authors() {
    let mut f = seed("seed-001");
    f.apply(Edit::InsertToken { at: 0, name: "new".into() }).unwrap();
    f.apply(Edit::ResetToAuthored).unwrap();
    assert_eq!(f.config(), &preset("seed-001").unwrap());
    f.apply(Edit::Config(preset("seed-002").unwrap())).unwrap();
    f.apply(Edit::MarkAuthored).unwrap();
    assert_eq!(f.authored_config(), &preset("seed-002").unwrap());
    assert_eq!(f.authored_views(), attention_viz::views::names(&preset("seed-002").unwrap()));
    f.apply(Edit::Query(1)).unwrap();
    f.apply(Edit::ResetToAuthored).unwrap();
    assert_eq!(f.config(), &preset("seed-002").unwrap());
}

#[test]
fn the_readers_w_o_and_additive_scoring_come_back_when_turned_on_again() {
    let mut f = seed("seed-001");
    f.apply(Edit::OutputProjection(true)).unwrap();
    f.apply(Edit::Value { matrix: "w_o".into(), row: 0, col: 1, value: 0.75 }).unwrap();
    let mine = f.config().options.w_o.clone().unwrap();
    f.apply(Edit::OutputProjection(false)).unwrap();
    assert!(f.config().options.w_o.is_none());
    f.apply(Edit::OutputProjection(true)).unwrap();
    assert_eq!(f.config().options.w_o.as_ref(), Some(&mine), "the reader's W_O, not the identity");

    let mut f = seed("seed-001");
    f.apply(Edit::Scoring { name: "additive".into(), seed: 5 }).unwrap();
    f.apply(Edit::Value { matrix: "v_a".into(), row: 0, col: 0, value: 0.5 }).unwrap();
    let mine = f.config().clone().to_value()["v_a"].clone();
    f.apply(Edit::Scoring { name: "dot".into(), seed: 5 }).unwrap();
    f.apply(Edit::Scoring { name: "additive".into(), seed: 6 }).unwrap();
    assert_eq!(f.config().to_value()["v_a"], mine);
}

#[test]
fn a_share_state_round_trips_through_edits_with_its_naive_flag_and_randomize() {
    let mut f = seed("seed-001");
    f.apply(Edit::Randomize { seed: 42, dist: Distribution::Randint(3) }).unwrap();
    let state = f.share_state(true);
    let mut g = seed("seed-002");
    assert_eq!(g.apply(Edit::ShareState { text: share::encode(&state), json: false }).unwrap(), Some(true));
    assert_eq!(g.config(), f.config());
    assert_eq!(g.random(), Some((42, Distribution::Randint(3))));
    let mut h = seed("seed-003");
    assert_eq!(h.apply(Edit::ShareState { text: share::state_json(&state), json: true }).unwrap(), Some(true));
    assert_eq!(h.config(), f.config());
    // What `persist` saves comes back whole.
    let saved = f.saved_state(false).unwrap();
    let mut k = seed("seed-002");
    assert_eq!(k.apply(Edit::RestoreSaved(saved)).unwrap(), Some(false));
    assert_eq!(k.config(), f.config());
    assert_eq!(k.random(), f.random());
}

#[test]
fn a_weights_figure_saves_its_selection_while_its_stack_is_the_authors() {
    let mut f = Figure::new(weights(2, 3, 4)).unwrap();
    f.apply(Edit::SelectHead { layer: 1, head: 2 }).unwrap();
    f.apply(Edit::Query(3)).unwrap();
    let saved = f.saved_state(false).unwrap();
    assert!(saved.len() < 100, "the selection alone: {saved}");
    let mut again = Figure::new(weights(2, 3, 4)).unwrap();
    assert_eq!(again.apply(Edit::RestoreSaved(saved)).unwrap(), Some(false));
    assert_eq!(again.config(), f.config());
    // A selection that does not fit this figure's stack is refused with the reason.
    let mut small = Figure::new(weights(1, 1, 4)).unwrap();
    let e = small.apply(Edit::RestoreSaved(f.saved_state(false).unwrap())).unwrap_err();
    assert!(e.starts_with("the saved selection does not fit this figure"), "{e}");
    // Another stack is not the author's: the whole state is saved.
    f.apply(Edit::Config(weights(1, 2, 4))).unwrap();
    assert_eq!(f.saved_state(false).unwrap(), share::encode(&f.share_state(false)));
    f.apply(Edit::MarkAuthored).unwrap();
    assert!(f.saved_state(false).unwrap().len() < 100);
}

#[test]
fn tokens_and_dimensions_are_added_and_removed_at_the_end_with_the_cores_names() {
    let mut f = seed("seed-000");
    let (n, d) = (f.config().tokens.len(), f.config().dims());
    f.apply(Edit::AppendToken).unwrap();
    assert_eq!(f.config().tokens.len(), n + 1);
    assert_eq!(f.config().tokens[n], format!("word_{}", n + 1));
    f.apply(Edit::RemoveLastToken).unwrap();
    assert_eq!(f.config().tokens.len(), n);
    f.apply(Edit::AppendDim).unwrap();
    assert_eq!(f.config().dims(), d + 1);
    f.apply(Edit::RemoveLastDim).unwrap();
    assert_eq!(f.config().dims(), d);
    let mut cross = seed("seed-003");
    let m = cross.config().tokens.len();
    cross.apply(Edit::AppendToken).unwrap();
    assert_eq!(cross.config().tokens[m], format!("h_{}", m + 1));
    consistent(&f);
}

#[test]
fn an_import_is_one_edit_planned_against_the_config_now() {
    use attention_viz::import::{Array, Found};
    let mut f = seed("seed-000");
    let shape = f.config().input_shape("w_v").unwrap();
    let count = shape.iter().product::<usize>();
    let array = Array::new(shape.clone(), (0..count).map(|k| k as f64).collect()).unwrap();
    let found = vec![Found { member: "v.csv".into(), named: false, array }];
    f.apply(Edit::Import { found, target: Some("w_v".into()), source: "v.csv".into() }).unwrap();
    assert_eq!(f.config().input_shape("w_v"), Some(shape));
    let bad = Array::new(vec![2, 2, 2], vec![0.; 8]).unwrap();
    let found = vec![Found { member: "x.npy".into(), named: false, array: bad }];
    let refused = f.apply(Edit::Import { found, target: Some("w_v".into()), source: "x.npy".into() }).unwrap_err();
    assert!(refused.starts_with("x.npy: W_V needs a 2-d array"), "{refused}");
    assert!(refused.ends_with("; nothing was imported"), "{refused}");
}

/// − head then + head brings back the head it took away, bit for bit (its columns of W_Q, W_K, W_V, its rows of W_O,
/// its ALiBi slope), followed; a fresh + head, or one after Reset, adds zeros.
#[test]
fn plus_head_brings_back_the_head_minus_head_took() {
    let start = json!({
        "embeddings": [[1, 0, 2, 1], [0, 1, 1, 3], [2, 2, 0, 1]],
        "w_q": [[1, 2, 3, 4], [5, 6, 7, 8], [9, 1, 2, 3], [4, 5, 6, 7]],
        "w_k": [[2, 1, 0, 1], [1, 3, 1, 0], [0, 1, 4, 1], [1, 0, 1, 5]],
        "w_v": [[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1], [1, 0, 0, 1]],
        "w_o": [[1, 2, 3, 4], [5, 6, 7, 8], [9, 8, 7, 6], [5, 4, 3, 2]],
        "heads": 2, "position": {"kind": "alibi", "slopes": [0.5, 0.25]}
    });
    let mut f = Figure::new(Config::from_value(&start).unwrap()).unwrap();
    f.apply(Edit::MarkAuthored).unwrap();
    let before = f.config().to_value();
    f.apply(Edit::RemoveHead(1)).unwrap();
    assert_eq!(f.config().to_value()["w_q"], json!([[1, 2], [5, 6], [9, 1], [4, 5]]));
    f.apply(Edit::InsertHead).unwrap();
    let mut want = before.clone();
    want["head"] = json!(1);
    assert_eq!(f.config().to_value(), want, "the removed head back where it was, followed");
    consistent(&f);
    // Once: the next + head is a head of zeros.
    f.apply(Edit::InsertHead).unwrap();
    let v = f.config().to_value();
    assert_eq!(v["w_q"][0], json!([1, 2, 3, 4, 0, 0]));
    assert_eq!(v["w_o"][4], json!([0, 0, 0, 0]));
    // Reset forgets a removed head.
    f.apply(Edit::RemoveHead(2)).unwrap();
    f.apply(Edit::RemoveHead(1)).unwrap();
    f.apply(Edit::ResetToAuthored).unwrap();
    f.apply(Edit::RemoveHead(1)).unwrap();
    f.apply(Edit::ResetToAuthored).unwrap();
    f.apply(Edit::InsertHead).unwrap();
    assert_eq!(f.config().to_value()["w_q"][1], json!([5, 6, 7, 8, 0, 0]));
}
