//! A read-only figure of up to 4,096 tokens: which configs it hands to its Worker (`config::worker_takes`, the page
//! asks it with the declared shapes alone) and the raised bound the worker parses them under
//! (`config::with_worker_limit`).

use attention_viz::config::{self, Config, MAX_COST, MAX_WORKER_COST};
use serde_json::json;

fn takes(rest: serde_json::Value, shapes: &[(&str, &[usize])]) -> bool {
    let shapes: Vec<(&str, Vec<usize>)> = shapes.iter().map(|(k, s)| (*k, s.to_vec())).collect();
    config::worker_takes(&rest, &shapes)
}

const PROJECTED: [(&str, &[usize]); 4] =
    [("embeddings", &[4096, 64]), ("w_q", &[64, 64]), ("w_k", &[64, 64]), ("w_v", &[64, 64])];

#[test]
fn n_4096_self_attention_over_the_page_bound_goes_to_the_worker() {
    assert!(takes(json!({}), &PROJECTED));
    assert!(takes(json!({"mechanism": "self", "heads": 2, "mask": "causal"}), &PROJECTED));
    assert!(takes(json!({}), &[("embeddings", &[4096, 64])]));
}

#[test]
fn what_the_page_computes_itself_or_the_worker_cannot_show_stays_refused() {
    // Within the page's bound: the usual figure.
    assert!(!takes(
        json!({}),
        &[("embeddings", &[512, 64]), ("w_q", &[64, 64]), ("w_k", &[64, 64]), ("w_v", &[64, 64])]
    ));
    // Over the worker's bound.
    assert!(!takes(
        json!({}),
        &[("embeddings", &[4096, 1024]), ("w_q", &[1024, 1024]), ("w_k", &[1024, 1024]), ("w_v", &[1024, 1024])]
    ));
    // Parts the worker's stages do not show.
    for extra in [json!({"position": {"kind": "rope"}}), json!({"tiles": [64, 64]}), json!({"decode_step": 3})] {
        assert!(!takes(extra.clone(), &PROJECTED), "{extra}");
    }
    let mut with_w_o = PROJECTED.to_vec();
    with_w_o.push(("w_o", &[64, 64]));
    assert!(!takes(json!({}), &with_w_o));
    // Other mechanisms, and more tokens than any figure takes.
    assert!(!takes(json!({"mechanism": "weights"}), &[("attention", &[12, 12, 512, 512])]));
    assert!(!takes(json!({}), &[("embeddings", &[5000, 64])]));
}

#[test]
fn the_worker_parses_under_its_own_bound_and_only_there() {
    // 2048 tokens × 4 dimensions: 4.5e8 multiply-adds, over MAX_COST, within MAX_WORKER_COST.
    let rows: Vec<Vec<f64>> =
        (0..2048).map(|i| (0..4).map(|j| ((i * 7 + j * 3) % 11) as f64 / 11.0).collect()).collect();
    let text = json!({ "embeddings": rows }).to_string();
    let refused = Config::from_json(&text).unwrap_err().0;
    assert!(refused.contains(&format!("the limit is {MAX_COST:.1e}")), "{refused}");
    let config = config::with_worker_limit(|| Config::from_json(&text)).expect("within the worker's bound");
    assert!(config.cost() > MAX_COST && config.cost() <= MAX_WORKER_COST);
    // The bound is back once the worker's parse is done.
    assert!(Config::from_json(&text).is_err());
}

/// A large view's SVG (the element's toSVG of a worker-computed figure): the page's image and colour bar embedded as
/// the PNGs given, stretched over the picture's box, the ticks and the caption as text, and XML that parses; anything
/// but a PNG data URL is refused.
#[test]
fn a_large_views_svg_embeds_its_image_and_bar_with_the_ticks_and_caption() {
    use attention_viz::picture::{large_svg, LargeView, Pooling};
    let image = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    let bar = "data:image/png;base64,iVBORw0KGgo=";
    let ticks = vec![(0.0, "0.0".to_string()), (0.5, "0.5".to_string()), (1.0, "1.0".to_string())];
    let view = LargeView {
        title: "weights = softmax(scaled) <&>",
        rows: 4096,
        cols: 3072,
        block: [64, 48],
        pooling: Pooling::Max,
        image,
        bar,
        ticks: &ticks,
        offset: "",
        shown: [512.0, 384.0],
    };
    let svg = large_svg(&view).expect("an SVG");
    let doc = roxmltree::Document::parse(&svg).expect("the SVG is XML");
    let texts: Vec<&str> = doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).collect();
    assert!(texts.contains(&"weights = softmax(scaled) <&>"), "{texts:?}");
    for t in ["0.0", "0.5", "1.0"] {
        assert!(texts.contains(&t), "{t} in {texts:?}");
    }
    let caption = texts.iter().skip(4).copied().collect::<Vec<_>>().join(" ");
    assert!(
        caption.contains("4096 × 3072 cells: each pixel is the largest value of its block of 64 × 48 cells"),
        "{caption}"
    );
    assert!(!caption.contains("hover"), "an export has no cursor: {caption}");
    // The image over the picture's 512 × 384 box, the bar 14 px wide beside it, as on the page.
    let images: Vec<(&str, &str, &str)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("image"))
        .map(|n| (n.attribute("href").unwrap(), n.attribute("width").unwrap(), n.attribute("height").unwrap()))
        .collect();
    assert_eq!(images, vec![(image, "512.0", "384.0"), (bar, "14.0", "384.0")]);
    for bad in ["javascript:alert(1)", "data:image/png;base64,\"/><script>", ""] {
        let refused = large_svg(&LargeView { image: bad, ..view }).unwrap_err();
        assert_eq!(refused, "a large view's image is not a PNG data URL");
    }
}

/// The worker computes the followed head alone, so its bound counts that head's work: 4096 tokens with 8 heads of
/// d_k = 64 cost 3.1e10 multiply-adds in full (every head: refused before) but 3.9e9 for one head, and are taken; the
/// worker parses them, and says its own limit where one head is still too much.
#[test]
fn the_workers_bound_counts_the_followed_head_only() {
    let eight: [(&str, &[usize]); 4] =
        [("embeddings", &[4096, 64]), ("w_q", &[64, 512]), ("w_k", &[64, 512]), ("w_v", &[64, 512])];
    assert!(takes(json!({"heads": 8, "head": 3}), &eight));
    // Without projections each head reads d / heads columns of X.
    assert!(takes(json!({"heads": 4}), &[("embeddings", &[4096, 256])]));
    let one_head_too_big: [(&str, &[usize]); 4] =
        [("embeddings", &[4096, 64]), ("w_q", &[64, 2048]), ("w_k", &[64, 2048]), ("w_v", &[64, 2048])];
    assert!(!takes(json!({"heads": 4}), &one_head_too_big));

    let (n, d, heads) = (4096usize, 8usize, 8usize);
    let row =
        |i: usize, w: usize| -> Vec<f64> { (0..w).map(|j| ((i * 31 + j * 17) % 13) as f64 / 13.0 - 0.5).collect() };
    let x: Vec<Vec<f64>> = (0..n).map(|i| row(i, d)).collect();
    let w: Vec<Vec<f64>> = (0..d).map(|i| row(i + 7, 64 * heads)).collect();
    let text = json!({ "embeddings": x, "w_q": w, "w_k": w, "w_v": w, "heads": heads, "head": 5 }).to_string();
    assert!(Config::from_json(&text).is_err(), "over the page's bound");
    let config = config::with_worker_limit(|| Config::from_json(&text)).expect("one head within the worker's bound");
    assert!(config.cost() > MAX_WORKER_COST, "every head: {:.2e}", config.cost());
    assert!(config.worker_cost() <= MAX_WORKER_COST && config.worker_cost() > MAX_COST, "{:.2e}", config.worker_cost());
    // One head's cost is the same config's with one head of those columns.
    let dk = 64.0;
    let (nf, df) = (n as f64, d as f64);
    let want = nf * df * 3.0 * dk + nf * nf * 2.0 * dk + nf * nf * config::COST_PER_WEIGHT;
    assert_eq!(config.worker_cost(), want);

    let wide: Vec<Vec<f64>> = (0..d).map(|i| row(i, 1024)).collect();
    let text = json!({ "embeddings": (0..n).map(|i| row(i, d)).collect::<Vec<_>>(), "w_q": wide, "w_k": wide,
        "w_v": wide })
    .to_string();
    let refused = config::with_worker_limit(|| Config::from_json(&text)).unwrap_err().0;
    assert!(refused.contains("for its followed head") && refused.contains("background worker is 8.0e9"), "{refused}");
}
