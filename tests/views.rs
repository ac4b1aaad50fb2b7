//! How an author's `views` list shows once the reader's edits have changed the figure:
//! a named view the edit took away gives way to what remains of it, never to an error; a name that
//! is no view of the author's config is said.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::config::Config;
use attention_viz::views::{names, resolve, Resolved};

const PANELS: [&str; 8] = ["inputs", "steps", "breakdown", "controls", "heads", "mask", "temperature", "scoring"];

fn cfg(json: serde_json::Value) -> Config {
    Config::from_value(&json).unwrap()
}

fn list(s: &str) -> Vec<String> {
    s.split(',').map(String::from).collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Chapter 5 of the guided page: two heads and W_O.
fn chapter_5() -> Config {
    cfg(serde_json::json!({
        "embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
        "heads": 2,
        "w_q": [[2, 0, 2, 2, 0, 0], [2, 1, 2, 2, 2, 2], [0, 2, 1, 0, 1, 1]],
        "w_k": [[1, 1, 0, 0, 1, 1], [0, 0, 0, 2, 2, 2], [1, 2, 1, 1, 2, 1]],
        "w_v": [[2, 2, 0, 2, 0, 2], [2, 0, 0, 2, 1, 0], [1, 1, 1, 0, 1, 0]],
        "w_o": [[1, 2, 2], [0, 2, 2], [1, 0, 1], [1, 1, 1], [1, 1, 1], [0, 2, 1]]
    }))
}

const CHAPTER_5: &str = "heads,inputs,heads.0.weights,heads.1.weights,context,output,breakdown";

#[test]
fn the_authors_own_config_shows_what_the_list_names_in_reading_order() {
    let c = chapter_5();
    let r = resolve(&names(&c), &c, &list(CHAPTER_5), &PANELS);
    assert_eq!(
        r,
        Resolved { views: strings(&["heads.0.weights", "heads.1.weights", "context", "output"]), unknown: vec![] }
    );
    // "heads" names every head's weights, also heads the reader adds.
    let three = c.insert_head().unwrap();
    let r = resolve(&names(&c), &three, &list("heads,context"), &PANELS);
    assert_eq!(r.views, strings(&["heads.0.weights", "heads.1.weights", "heads.2.weights", "context"]));
}

#[test]
fn one_head_left_shows_its_weights() {
    let c = chapter_5();
    let one = c.remove_head(1).unwrap();
    let r = resolve(&names(&c), &one, &list(CHAPTER_5), &PANELS);
    assert_eq!(r, Resolved { views: strings(&["weights", "context", "output"]), unknown: vec![] });
    // Named on its own too, and with `weights` already named it shows once.
    let r = resolve(&names(&c), &one, &list("heads.1.weights,weights"), &PANELS);
    assert_eq!(r.views, strings(&["weights"]));
    // Back to two heads: the list's own names again.
    let two = one.insert_head().unwrap();
    assert_eq!(
        resolve(&names(&c), &two, &list(CHAPTER_5), &PANELS).views,
        strings(&["heads.0.weights", "heads.1.weights", "context", "output"])
    );
}

#[test]
fn a_head_removed_of_several_leaves_the_others() {
    let three = chapter_5().insert_head().unwrap();
    let two = three.remove_head(2).unwrap();
    let r = resolve(&names(&three), &two, &list("heads.0.weights,heads.2.weights,context"), &PANELS);
    assert_eq!(r, Resolved { views: strings(&["heads.0.weights", "context"]), unknown: vec![] });
}

#[test]
fn w_o_off_shows_the_context_and_drops_its_input() {
    let c = chapter_5();
    let mut v = c.to_value();
    v.as_object_mut().unwrap().remove("w_o");
    let off = Config::from_value(&v).unwrap();
    let r = resolve(&names(&c), &off, &list("w_o,output"), &PANELS);
    assert_eq!(r, Resolved { views: strings(&["context"]), unknown: vec![] });
}

#[test]
fn another_scoring_drops_the_features_and_shows_the_scores() {
    // Chapter 8's second figure.
    let c = cfg(serde_json::json!({
        "decoder_state": [5, 1, 20],
        "annotations": [[3, 12, 45], [59, 2, 5], [1, 43, 5], [4, 3, 45.3]],
        "scoring": "additive",
        "w_a": [[-0.3, 0.9, 0.5], [0.2, -0.7, -0.7], [-0.9, 0.7, 0.2]],
        "u_a": [[0.4, -1, 0.9], [0.7, -0.6, -0.6], [-0.6, -0.4, 0]],
        "v_a": [-0.1, -0.4, 0.2]
    }));
    let requested = list("scoring,inputs,scores,query.features,weights,context,breakdown");
    for scoring in ["dot", "general", "cosine"] {
        let other = c.with_scoring(scoring, 42).unwrap();
        let r = resolve(&names(&c), &other, &requested, &PANELS);
        assert_eq!(r, Resolved { views: strings(&["scores", "weights", "context"]), unknown: vec![] }, "{scoring}");
    }
    // Only the features named: the scores show in their place.
    let r = resolve(&names(&c), &c.with_scoring("dot", 42).unwrap(), &list("query.features"), &PANELS);
    assert_eq!(r.views, strings(&["scores"]));
    // Inputs that are gone (W_a, U_a, v_a) leave nothing in their place.
    let r = resolve(&names(&c), &c.with_scoring("dot", 42).unwrap(), &list("w_a,u_a,v_a,weights"), &PANELS);
    assert_eq!(r, Resolved { views: strings(&["weights"]), unknown: vec![] });
}

#[test]
fn a_mask_set_to_none_leaves_no_mask_view_and_no_complaint() {
    let c = cfg(serde_json::json!({"embeddings": [[1, 0], [0, 1]], "mask": "causal"}));
    let none = c.with_fields(&serde_json::json!({"mask": null})).unwrap();
    let r = resolve(&names(&c), &none, &list("mask,weights"), &PANELS);
    assert_eq!(r, Resolved { views: strings(&["weights"]), unknown: vec![] });
}

#[test]
fn an_authors_typo_is_still_said_and_the_callers_panels_are_not() {
    let c = chapter_5();
    let r = resolve(
        &names(&c),
        &c,
        &list("heads,wieghts,heads.2.weights,inputs,steps,breakdown,controls,temperature"),
        &PANELS,
    );
    assert_eq!(r.unknown, strings(&["wieghts", "heads.2.weights"]));
    // After − head the typo is still a typo; the removed head's name is not.
    let one = c.remove_head(1).unwrap();
    let r = resolve(&names(&c), &one, &list("wieghts,heads.1.weights"), &PANELS);
    assert_eq!(r, Resolved { views: strings(&["weights"]), unknown: strings(&["wieghts"]) });
    // A name the reader's edit brings (W_O on a figure without it) shows once it exists.
    let plain = cfg(serde_json::json!({"embeddings": [[1, 0], [0, 1]]}));
    let r = resolve(&names(&plain), &plain, &list("output"), &PANELS);
    assert_eq!(r.unknown, strings(&["output"]));
    let with_w_o = plain.with_w_o(true, &Default::default()).unwrap();
    assert_eq!(
        resolve(&names(&plain), &with_w_o, &list("output"), &PANELS),
        Resolved { views: strings(&["output"]), unknown: vec![] }
    );
}

/// A weights config has one view, `attention`: asking for another names it (renderSVG used to say "internal
/// error: the trace does not belong to this config").
#[test]
fn a_weights_config_names_its_view() {
    let c = cfg(serde_json::json!({"attention": [[0.5, 0.5], [1.0, 0.0]]}));
    let trace = attention_viz::attention::compute(&c).unwrap();
    let e = attention_viz::views::view(&c, &trace, "weights").unwrap_err();
    assert_eq!(e, "there is no view \"weights\" here; views are attention");
}

/// The modern panels asked of a figure that is not self-attention are said, not silently left out.
#[test]
fn modern_panels_asked_of_another_mechanism_are_said() {
    use attention_viz::views::modern_panels_message;
    let cross = cfg(serde_json::json!({"decoder_state": [1, 0], "annotations": [[1, 0], [0, 1]]}));
    assert_eq!(
        modern_panels_message(&cross, &strings(&["context", "decode"])).unwrap(),
        "views: the decode panel is for self-attention; this figure is encoder–decoder attention, with one query \
         (the decoder state)."
    );
    let weights = cfg(serde_json::json!({"attention": [[0.5, 0.5], [1.0, 0.0]]}));
    let m = modern_panels_message(&weights, &strings(&["position", "kv"])).unwrap();
    assert!(m.starts_with("views: the position, kv panels are for self-attention; this figure is a model's"), "{m}");
    assert_eq!(modern_panels_message(&cross, &strings(&["context"])), None);
    assert_eq!(modern_panels_message(&chapter_5(), &strings(&["decode", "flash"])), None);
}

/// The message for unknown `views` names quotes each cut short, and only a few of them (one name of
/// 100,000 characters used to give a 100,193-character message).
#[test]
fn unknown_views_are_said_in_a_short_message() {
    use attention_viz::views::unknown_message;
    let known = strings(&["weights", "inputs"]);
    assert_eq!(unknown_message(&[], &known), None);
    assert_eq!(
        unknown_message(&strings(&["wieghts"]), &known).unwrap(),
        "views: no panel \"wieghts\"; the panels are weights, inputs."
    );
    let long = vec!["x".repeat(100_000)];
    let m = unknown_message(&long, &known).unwrap();
    assert!(m.chars().count() < 120, "{m}");
    let many: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
    let m = unknown_message(&many, &known).unwrap();
    assert!(m.contains("\"v4\", and 99995 more;") && m.chars().count() < 150, "{m}");
}

#[test]
fn a_stage_view_borrows_the_traces_values_and_the_tokens() {
    // A scrub at n = 1024 builds each view twice (its key, its drawing): a copy of every n × n stage and 2n labels each
    // time was a fifth of the scrub's work. The matrices and labels drawn as they are in the config and trace are read
    // in place.
    use attention_viz::attention::compute;
    use attention_viz::views::view;
    use std::borrow::Cow;
    let config = cfg(serde_json::json!({
        "embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
        "w_q": [[2, 0], [2, 1], [0, 2]],
        "w_k": [[1, 1], [0, 0], [1, 2]],
        "w_v": [[2, 2], [2, 0], [1, 1]]
    }));
    let trace = compute(&config).unwrap();
    for (name, field) in [("weights", "weights"), ("scores", "scores"), ("context", "context"), ("q", "q")] {
        let v = view(&config, &trace, name).unwrap();
        assert!(matches!(v.values, Cow::Borrowed(_)), "{name}: values copied");
        assert!(
            std::ptr::eq(v.values.data().as_ptr(), trace.field(field).unwrap().data.as_ptr()),
            "{name}: not the trace's"
        );
        assert!(matches!(v.row_labels, Cow::Borrowed(_)), "{name}: row labels copied");
        assert!(std::ptr::eq(v.row_labels.as_ptr(), config.tokens.as_ptr()), "{name}: not the config's tokens");
    }
    let v = view(&config, &trace, "weights").unwrap();
    assert!(matches!(v.col_labels, Cow::Borrowed(_)), "the keys' labels copied");
    // Kept beyond the config and trace, it owns them.
    let owned = v.clone().into_owned();
    assert!(matches!(owned.values, Cow::Owned(_)) && owned == v);
}

/// The view lists the element reads from facts.js: every name a view, and every input grid of an editable
/// self-attention figure (with W_a, U_a, v_a, W_O and the biases) one of the inputs not drawn again as a heatmap.
#[test]
fn the_input_and_weight_view_lists_name_views() {
    use attention_viz::views::{ALL_VIEWS, INPUT_VIEWS, WEIGHT_VIEWS};
    assert!(WEIGHT_VIEWS.iter().all(|v| ALL_VIEWS.contains(v)));
    let c = attention_viz::config::Config::from_json(
        r#"{"embeddings": [[1, 0], [0, 1]], "w_q": [[1, 0], [0, 1]], "w_k": [[1, 0], [0, 1]], "w_v": [[1, 0], [0, 1]],
            "scoring": "additive", "w_a": [[1, 0], [0, 1]], "u_a": [[1, 0], [0, 1]], "v_a": [1, 1],
            "w_o": [[1, 0], [0, 1]], "mask": "causal", "b_q": [1, 2], "b_k": [0, 1], "b_v": [1, 0], "b_o": [2, 2]}"#,
    )
    .unwrap();
    let grids: Vec<&str> = attention_viz::controls::grids(&c).iter().map(|g| g.name).collect();
    assert_eq!(grids, ["embeddings", "w_q", "w_k", "w_v", "b_q", "b_k", "b_v", "w_a", "u_a", "v_a", "w_o", "b_o"]);
    assert!(grids.iter().all(|g| INPUT_VIEWS.contains(g)));
    let drawn = names(&c);
    assert!(INPUT_VIEWS.iter().all(|v| drawn.iter().any(|d| d == v)), "every input is a view of {drawn:?}");
}

/// Grouped-query attention shown: 4 query heads of d_k = 2 share 2 K/V heads, so Q's columns 0–3 (query heads 0–1)
/// and 4–7 (2–3) are outlined in K/V head 0's and 1's colours, as K's and V's columns 0–1 and 2–3 are; generating
/// token 2, K and V outline the cache, rows 0 … 2, dashed. The titles say it (the text alternative).
#[test]
fn gqa_colours_k_and_v_by_kv_head_groups_q_by_them_and_outlines_the_cache() {
    use attention_viz::views::Block;
    let eye = |n: usize, m: usize| -> Vec<Vec<f64>> {
        (0..n).map(|i| (0..m).map(|j| if (i + j) % 3 == 0 { 1.0 } else { 0.5 }).collect()).collect()
    };
    let base = serde_json::json!({
        "embeddings": eye(4, 4), "tokens": ["a", "b", "c", "d"], "heads": 4, "kv_heads": 2,
        "w_q": eye(4, 8), "w_k": eye(4, 4), "w_v": eye(4, 4), "mask": "causal"
    });
    let config = cfg(base.clone());
    let trace = attention_viz::attention::compute(&config).unwrap();
    let block = |c0, c1, r1, group| Block { r0: 0, c0, r1, c1, group };
    let q = attention_viz::views::view(&config, &trace, "q").unwrap();
    assert_eq!(q.marks.blocks, [block(0, 4, 4, Some(0)), block(4, 8, 4, Some(1))]);
    assert!(
        q.title.ends_with(" · coloured by K/V head: the query heads sharing each K/V head 0–1 | 2–3"),
        "{}",
        q.title
    );
    for name in ["k", "v"] {
        let v = attention_viz::views::view(&config, &trace, name).unwrap();
        assert_eq!(v.marks.blocks, [block(0, 2, 4, Some(0)), block(2, 4, 4, Some(1))], "{name}");
        assert!(v.title.ends_with(" · coloured by K/V head: K/V heads 0 | 1"), "{}", v.title);
    }
    let mut generating = base.clone();
    generating["decode_step"] = 2.into();
    let config = cfg(generating);
    let trace = attention_viz::attention::compute(&config).unwrap();
    let k = attention_viz::views::view(&config, &trace, "k").unwrap();
    assert_eq!(k.marks.blocks[2], block(0, 4, 3, None), "the cache: tokens 0 … 2");
    assert!(k.title.ends_with(" · dashed: the KV cache, tokens 0 … 2"), "{}", k.title);
    assert!(
        attention_viz::views::view(&config, &trace, "q").unwrap().marks.blocks.iter().all(|b| b.group.is_some()),
        "no cache in Q"
    );
    // One K/V head per query head, no kv_heads field: nothing shared, nothing outlined.
    let mut plain = base;
    plain.as_object_mut().unwrap().remove("kv_heads");
    plain["w_k"] = serde_json::json!(eye(4, 8));
    plain["w_v"] = serde_json::json!(eye(4, 8));
    let config = cfg(plain);
    let trace = attention_viz::attention::compute(&config).unwrap();
    assert!(attention_viz::views::view(&config, &trace, "k").unwrap().marks.blocks.is_empty());
}
