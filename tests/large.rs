//! Issue 26 row 5: which configs a read-only figure hands to its Worker (`config::worker_takes`, the page asks it with
//! the declared shapes alone) and the raised bound the worker parses them under (`config::with_worker_limit`).

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
