//! Colour bars as a learner sees them: a 0/1 mask barred on 0 … 1 whatever it holds (`View::range`), and a short
//! bar's tick labels never overlapping (`colorbar_drawn`; the decode panel's one-row heatmaps).

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

/// A one-row heatmap (the decode panel's q, scores, weights, context) has a short colour bar, shorter still when a
/// narrow page (390 px) wraps its title: its tick labels stand at least a label's height apart.
#[test]
fn short_colour_bars_ticks_do_not_overlap() {
    use attention_viz::heatmap::draw::colorbar_drawn;
    use attention_viz::heatmap::{preferred_size, Colors, Fmt, Layout};
    let mut bars = 0;
    for step in 0..5 {
        let c = Config::from_value(&config(json!({"mask": "causal", "decode_step": step}))).unwrap();
        let t = compute(&c).unwrap();
        for name in ["decode.q", "decode.scores", "decode.weights", "decode.context"] {
            let v = view(&c, &t, name).unwrap();
            let (w, h) = preferred_size(&v, Fmt::default());
            // The element's widths: the natural one, and what a phone leaves (it keeps the height).
            for width in [w, 200, 160, 120] {
                for dpr in [1.0, 2.0] {
                    let style = Style { dpr, ..Style::default() };
                    let colors = Colors::of_view(&v, None);
                    let layout = Layout::new(&v, &colors, &style, (width as f64 * dpr) as u32, (h as f64 * dpr) as u32);
                    let ticks = colorbar_drawn(&colors, &layout).ticks;
                    assert!(!ticks.is_empty(), "{name} at step {step}");
                    let label = layout.font_px * 0.9;
                    for pair in ticks.windows(2) {
                        let gap = (pair[0].0 - pair[1].0).abs() as f64;
                        assert!(
                            gap >= label,
                            "{name} at step {step}, {width} px wide, {dpr}×: {pair:?} are {gap} px apart"
                        );
                    }
                    bars += 1;
                }
            }
        }
    }
    assert_eq!(bars, 160);
}
