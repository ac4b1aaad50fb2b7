//! Issue 25's panels as a learner sees them: the mask's colour bar, short colour bars' ticks.

use attention_viz::attention::compute;
use attention_viz::config::Config;
use attention_viz::heatmap::{self, Style};
use attention_viz::views::view;
use serde_json::{json, Value};

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

/// The texts of an SVG's `<text>` elements.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim().to_string()))
        .collect()
}

/// A 0/1 mask is coloured and barred on 0 … 1 whatever it holds: with every key allowed (mask none, a window that
/// crosses some 1s) its colour bar runs 0.0 … 1.0, not 0.900 … 1.100 around its one value.
#[test]
fn mask_colour_bar_is_zero_to_one() {
    for extra in [json!({"window": [1, 0]}), json!({"valid_lens": [5, 5, 5, 5, 5]}), json!({"mask": "causal"})] {
        let c = Config::from_value(&config(extra.clone())).unwrap();
        let t = compute(&c).unwrap();
        let v = view(&c, &t, "mask").unwrap();
        let colors = heatmap::Colors::of_view(&v, None);
        assert_eq!((colors.vmin, colors.vmax), (0.0, 1.0), "{extra}");
        let labels = texts(&heatmap::to_svg(&v, &Style::default()).unwrap());
        for want in ["0.0", "1.0"] {
            assert!(labels.iter().any(|l| l == want), "{extra}: no tick {want} in {labels:?}");
        }
        assert!(!labels.iter().any(|l| l.contains("1.1") || l.contains("0.9")), "{extra}: {labels:?}");
    }
}
