//! `mechanism: "weights"` (a model's attention): the stack as given, padded to
//! layers × heads × n × m, and each head's summaries against NumPy's, computed loop by loop
//! from their definitions (tests/fixtures/weights-goldens.json, tests/goldens/gen_weights_goldens.py).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::attention::{compute, Trace};
use attention_viz::config::Config;
use attention_viz::heatmap::model::{grid, lines_svg, thumb_origin};
use attention_viz::heatmap::Theme;
use attention_viz::views;
use attention_viz::weights::SUMMARY_NAMES;
use serde_json::{json, Value};

fn cases() -> Vec<Value> {
    let v: Value = serde_json::from_str(include_str!("fixtures/weights-goldens.json")).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn flat(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::Array(items) => items.iter().for_each(|x| flat(x, out)),
        x => out.push(x.as_f64().unwrap()),
    }
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-12 * want.abs().max(1.0)
}

#[test]
fn summaries_match_numpy() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let config = Config::from_value(&json!({ "attention": case["attention"] }))
            .unwrap_or_else(|e| panic!("{name}: {}", e.0));
        let trace = compute(&config).unwrap();
        let Trace::Weights(t) = &trace else { panic!("{name}: not a weights trace") };
        let shape: Vec<usize> =
            case["shape"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
        assert_eq!(t.attention.shape().to_vec(), shape, "{name}: shape");
        let mut given = vec![];
        flat(&case["attention"], &mut given);
        assert_eq!(t.attention.data(), &given[..], "{name}: the weights are kept exactly");
        for (k, key) in SUMMARY_NAMES.iter().enumerate() {
            let mut want = vec![];
            flat(&case["summary"][key], &mut want);
            assert_eq!(t.summaries[k].len(), want.len(), "{name}: summary.{key}: one per head");
            for (i, (&g, &w)) in t.summaries[k].iter().zip(&want).enumerate() {
                assert!(close(g, w), "{name}: summary.{key}[{i}] = {g}, NumPy {w}");
            }
            let field = trace.field(&format!("summary.{key}")).unwrap();
            assert_eq!(field.shape, vec![shape[0], shape[1]]);
        }
    }
}

#[test]
fn tokens_key_tokens_and_selection() {
    let a = json!([[[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]);
    let config = Config::from_value(&json!({ "attention": a, "tokens": ["le", "chat"], "head": 1 })).unwrap();
    assert_eq!(config.tokens, ["le", "chat"]);
    let value = config.to_value();
    assert_eq!(value["mechanism"], "weights");
    assert_eq!(value["key_tokens"], json!(["k_1", "k_2", "k_3"]));
    assert_eq!(value["head"], 1);
    assert_eq!(Config::from_value(&value).unwrap(), config, "round trip");
    let trace = compute(&config).unwrap();
    let view = views::view(&config, &trace, "attention").unwrap();
    assert_eq!(view.title, "layer 0, head 1: attention weights");
    assert_eq!(view.values.row(0), &[1.0, 0.0, 0.0]);
    assert_eq!(view.col_labels[..], ["k_1", "k_2", "k_3"]);
    assert_eq!(views::names(&config), ["attention"]);
    let next = config.with_selection(0, 0).unwrap();
    assert_eq!(views::view(&next, &compute(&next).unwrap(), "attention").unwrap().values.row(1), &[0.2, 0.3, 0.5]);
    assert!(config.with_selection(1, 0).unwrap_err().0.contains("there is no layer 1, head 0"));
    assert!(config.with_value("embeddings", 0, 0, 1.0).unwrap_err().0.contains("cannot be edited"));
    assert!(config.insert_token(0, "x").is_err());
}

#[test]
fn rows_that_do_not_sum_to_one_are_said() {
    let config = Config::from_value(&json!({ "attention": [[0.5, 0.25], [0.5, 0.5]] })).unwrap();
    let trace = compute(&config).unwrap();
    assert!(views::view(&config, &trace, "attention").unwrap().title.ends_with("(rows do not sum to 1)"));
}

#[test]
fn grid_pools_each_block_by_its_largest_weight() {
    // One head, 4 × 4, a single 1 at (3, 0) among zeros; a 2-pixel thumbnail still shows it.
    let mut w = vec![vec![0.0; 4]; 4];
    w[3][0] = 1.0;
    let config = Config::from_value(&json!({ "attention": [w.clone(), w] })).unwrap();
    let Trace::Weights(t) = compute(&config).unwrap() else { unreachable!() };
    let theme = Theme::light();
    let g = grid(&t.attention, 2, 1, None, &theme);
    assert_eq!((g.width, g.height), (5, 2));
    let px = |x: usize, y: usize| &g.rgba[(y * g.width as usize + x) * 4..][..3];
    // The bottom-left pixel of each head holds the 1 (the palette's top), the others 0 (its bottom).
    for head in 0..2 {
        let (x0, y0) = thumb_origin(0, head, 2, 1);
        assert_ne!(px(x0, y0 + 1), px(x0 + 1, y0 + 1), "head {head}: the 1 stays visible");
        assert_eq!(px(x0, y0), px(x0 + 1, y0));
    }
    assert_eq!(px(2, 0), &theme.background[..], "the gap");
}

#[test]
fn line_view_svg_names_every_token() {
    let config = Config::from_value(&json!({ "attention": [[0.9, 0.1], [0.0, 1.0]], "tokens": ["a<b", "c"] })).unwrap();
    let Trace::Weights(t) = compute(&config).unwrap() else { unreachable!() };
    let svg = lines_svg(&t.selected, &t.tokens, &t.key_tokens, None, &Theme::light());
    assert!(svg.contains("a&lt;b") && !svg.contains("a<b"), "token names are escaped");
    assert_eq!(svg.matches("<path").count() + svg.matches("<polyline").count(), 3, "weights ≥ 0.01 only");
}

/// "Copy as NumPy" of a weights figure runs in Python and gives NumPy's summaries (the goldens).
#[test]
fn numpy_snippet_gives_the_summaries() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let config = Config::from_value(&json!({ "attention": case["attention"] })).unwrap();
        let mut py = attention_viz::export::numpy_snippet(&config, None);
        py.push_str(
            "\nimport json\nprint(json.dumps({k: globals()[k].tolist() for k in \
             ['entropy', 'distance', 'previous', 'first', 'row_sum_error']}))\n",
        );
        let Some(mut python) = common::numpy_python() else { return };
        let out = python.args(["-W", "error", "-c", &py]).output().expect("python3 starts");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: the snippet failed:\n{stderr}\n{py}");
        let got: Value = serde_json::from_str(stdout.trim()).unwrap();
        for key in SUMMARY_NAMES {
            let (mut g, mut w) = (vec![], vec![]);
            flat(&got[key], &mut g);
            flat(&case["summary"][key], &mut w);
            assert_eq!(g.len(), w.len());
            for (a, b) in g.iter().zip(&w) {
                assert!(close(*a, *b), "{name}: snippet {key} {a} vs NumPy {b}");
            }
        }
    }
}

/// Picking a head in a session (no recompute) gives what a full compute of the selection gives.
#[test]
fn session_select_head_equals_a_full_compute() {
    let a = json!([
        [[[0.5, 0.5], [0.2, 0.8]], [[1.0, 0.0], [0.0, 1.0]]],
        [[[0.9, 0.1], [0.3, 0.7]], [[0.6, 0.4], [0.5, 0.5]]]
    ]);
    let config = Config::from_value(&json!({ "attention": a })).unwrap();
    let mut session = attention_viz::incremental::Session::new(config.clone()).unwrap();
    session.select_head(1, 0).unwrap();
    let want = config.with_selection(1, 0).unwrap();
    assert_eq!(session.config(), &want);
    assert_eq!(session.trace(), &compute(&want).unwrap());
    assert!(session.select_head(2, 0).unwrap_err().contains("there is no layer 2, head 0"));
    assert_eq!(session.config(), &want, "a refused pick changes nothing");
}

/// Every SVG the core writes parses as XML 1.0, whatever the token names hold: controls, U+FFFE/U+FFFF,
/// markup characters. XML forbids most C0 controls even as character references: they come out as U+FFFD.
#[test]
fn line_view_svg_is_xml_for_hostile_tokens() {
    let hostile = ["a\u{1}b", "\u{FFFE}", "\u{FFFF}x", "<&>\"'", "\u{0}\u{8}\u{B}\u{C}\u{1F}", "tab\tnew\nline\r"];
    let n = hostile.len();
    let weights: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
    let config = Config::from_value(&json!({ "attention": weights, "tokens": hostile })).unwrap();
    let Trace::Weights(t) = compute(&config).unwrap() else { unreachable!() };
    for focus in [None, Some(0)] {
        let svg = lines_svg(&t.selected, &t.tokens, &t.key_tokens, focus, &Theme::dark());
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not XML ({e}):\n{svg}"));
        let texts: Vec<&str> = doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).collect();
        assert!(texts.iter().any(|t| t.contains("a\u{FFFD}b")), "a control shows as U+FFFD: {texts:?}");
        assert!(texts.iter().any(|t| t.contains("<&>\"'")), "markup characters are escaped, not lost: {texts:?}");
    }
}

/// The head count is bounded on its own: a million 1 × 1 heads are few values but a million summaries and
/// thumbnails. They are refused before anything is read, on the JSON and the flat path alike; the grid of the most
/// heads allowed stays within its raster bounds whatever thumbnail is asked (it used to overflow: "capacity overflow").
#[test]
fn huge_head_counts_are_refused_and_grids_stay_bounded() {
    use attention_viz::config::{check_declared_shapes, Flat, MAX_COST};
    use attention_viz::heatmap::model::{GRID_MAX_PIXELS, GRID_MAX_SIDE};
    use attention_viz::weights::MAX_HEADS;
    let million: Vec<Value> = (0..1_000_000).map(|_| json!([[1.0]])).collect();
    let e = Config::from_value(&json!({ "attention": million })).unwrap_err().0;
    assert_eq!(
        e,
        "attention has 1000000 heads; at most 4096 heads in all (layers × heads) are supported: each is a thumbnail \
         and a summary of its own. Pass fewer layers or heads"
    );
    let layers: Vec<Value> = (0..180_000).map(|_| json!([[[0.0]]])).collect();
    let e = Config::from_value(&json!({ "attention": layers })).unwrap_err().0;
    assert!(e.starts_with("attention has 180000 layers × 1 head; at most 4096 heads"), "{e}");
    let data = vec![1.0; 180_000];
    let flat = [("attention", Flat::stacked(180_000, 1, 1, 1, 4, &data).unwrap())];
    assert_eq!(Config::from_parts(&json!({}), &flat).unwrap_err().0, e, "the flat path says the same");
    assert_eq!(check_declared_shapes(&json!({}), &[("attention", vec![180_000, 1, 1, 1])]).unwrap_err().0, e);
    // The most heads allowed, in one layer or one head a layer: accepted, and drawn within bounds.
    for (l, h) in [(1, MAX_HEADS), (MAX_HEADS, 1), (64, 64)] {
        let data = vec![0.5; l * h * 4];
        let flat = [("attention", Flat::stacked(l, h, 2, 2, 4, &data).unwrap())];
        let config = Config::from_parts(&json!({}), &flat).unwrap();
        assert!(config.cost() <= MAX_COST);
        let Trace::Weights(t) = compute(&config).unwrap() else { unreachable!() };
        let g = grid(&t.attention, 1024, 64, None, &Theme::light());
        assert!(g.width as usize <= GRID_MAX_SIDE && g.height as usize <= GRID_MAX_SIDE, "{l} × {h}");
        assert!(g.width as usize * g.height as usize <= GRID_MAX_PIXELS, "{l} × {h}");
        assert_eq!(g.rgba.len(), g.width as usize * g.height as usize * 4);
        assert_eq!(g.width as usize, h * g.thumb + (h - 1) * g.gap, "the sizes drawn are the ones returned");
    }
}

/// The cost bound counts a weights figure's work: each weight is read, summarised and pooled into a
/// thumbnail, the selected head's weights are drawn too, and each head costs a summary and a thumbnail. A
/// 2896 × 2896 head (within 2²³ values, 5 s in a browser) is refused, and 2000 × 2000 too; BERT-base's 12 × 12 heads at
/// n = 240 (what MAX_VALUES was sized for) are not.
#[test]
fn the_cost_bound_counts_a_weights_figures_work() {
    use attention_viz::config::{check_declared_shapes, Flat};
    let big = vec![1.0 / 2896.0; 2896 * 2896];
    let flat = [("attention", Flat::new(2896, 2896, &big).unwrap())];
    let e = Config::from_parts(&json!({}), &flat).unwrap_err().0;
    assert!(
        e.starts_with(
            "this config needs 6.7e8 multiply-adds (1 layer × 1 head of 2896 × 2896 weights); the limit is 3.0e8"
        ),
        "{e}"
    );
    assert_eq!(
        check_declared_shapes(&json!({}), &[("attention", vec![2896, 2896])]).unwrap_err().0,
        e,
        "declared: the same words"
    );
    drop(big);
    let big = vec![1.0 / 2000.0; 2000 * 2000];
    let flat = [("attention", Flat::new(2000, 2000, &big).unwrap())];
    assert!(Config::from_parts(&json!({}), &flat).unwrap_err().0.contains("1 layer × 1 head of 2000 × 2000"));
    drop(big);
    let bert = vec![1.0 / 240.0; 12 * 12 * 240 * 240];
    let flat = [("attention", Flat::stacked(12, 12, 240, 240, 4, &bert).unwrap())];
    assert!(Config::from_parts(&json!({}), &flat).is_ok());
    assert!(check_declared_shapes(&json!({}), &[("attention", vec![12, 12, 240, 240])]).is_ok());
    let wide = vec![1.0 / 512.0; 12 * 512 * 512];
    let flat = [("attention", Flat::stacked(1, 12, 512, 512, 4, &wide).unwrap())];
    assert!(Config::from_parts(&json!({}), &flat).is_ok(), "bench/model.mjs's 1 × 12 heads at n = 512");
}
