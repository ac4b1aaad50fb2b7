//! What an edit changed (src/changed.rs through `Figure::view`): the cells each view marks and its status in words,
//! on the guided page's own figures (tests/fixtures/chapters-goldens.json), and that a new document marks nothing.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::changed::{compare, SIGNIFICANT_DIGITS};
use attention_viz::config::Config;
use attention_viz::figure::{Edit, Figure};
use attention_viz::views::View;
use serde_json::{json, Value};

/// A figure of the chapters' golden file (its config as the page gives it).
fn chapter(name: &str) -> Figure {
    let text = std::fs::read_to_string("tests/fixtures/chapters-goldens.json").unwrap();
    let goldens: Value = serde_json::from_str(&text).unwrap();
    let config = Config::from_value(&goldens["figures"][name]["config"]).unwrap();
    Figure::new(config).unwrap()
}

fn status(f: &Figure, view: &str) -> Option<String> {
    f.view(view).unwrap().1
}

fn marked(f: &Figure, view: &str) -> usize {
    f.view(view).unwrap().0.marks.changed.iter().filter(|&&c| c).count()
}

#[test]
fn a_fresh_figure_marks_nothing() {
    let f = chapter("chapter-11-gqa");
    for view in ["heads.0.weights", "k", "context"] {
        assert_eq!(status(&f, view), None, "{view}");
        assert_eq!(marked(&f, view), 0, "{view}");
    }
}

/// Chapter 11: W_K's column 0 is K/V head 0's, which query heads 0 and 1 share; heads 2 and 3 read K/V head 1.
#[test]
fn a_w_k_edit_under_gqa_changes_the_heads_that_share_it_only() {
    let mut f = chapter("chapter-11-gqa");
    f.apply(Edit::Value { matrix: "w_k".into(), row: 1, col: 0, value: 0.0 }).unwrap();
    for head in [0, 1] {
        let view = format!("heads.{head}.weights");
        let s = status(&f, &view).unwrap();
        assert!(s.ends_with(" changed"), "{view}: {s}");
        assert!(marked(&f, &view) > 0, "{view}");
    }
    for head in [2, 3] {
        let view = format!("heads.{head}.weights");
        assert_eq!(status(&f, &view).as_deref(), Some("unchanged"), "{view}");
        assert_eq!(marked(&f, &view), 0, "{view}");
    }
    // word_2's key is W_K's row 1 (its embedding is [0, 1, 0]), and word_3's ([1, 1, 0]) has it too: column 0 of them.
    assert_eq!(status(&f, "k").as_deref(), Some("2 of 16 changed"));
    let k = f.view("k").unwrap().0;
    let at: Vec<usize> = k.marks.changed.iter().enumerate().filter(|(_, c)| **c).map(|(i, _)| i).collect();
    assert_eq!(at, [4, 8]);
    assert_eq!(status(&f, "v").as_deref(), Some("unchanged"));
    // Following a query is no edit of the numbers: the marks stay.
    f.apply(Edit::Query(2)).unwrap();
    assert_eq!(status(&f, "k").as_deref(), Some("2 of 16 changed"));
    // Reset is a new document: nothing changed.
    f.apply(Edit::ResetToAuthored).unwrap();
    assert_eq!(status(&f, "heads.0.weights"), None);
    assert_eq!(marked(&f, "heads.0.weights"), 0);
}

/// Chapter 10: a shift of every position rotates q and k anew, while RoPE's scores depend on p − p' only: the same
/// to the 12 digits the status names (floating point may move their last bits).
#[test]
fn a_rope_shift_changes_q_rot_and_k_rot_and_not_the_scores() {
    let mut f = chapter("chapter-10-rope");
    f.apply(Edit::Fields(json!({"position": {"kind": "rope", "offset": 3}}))).unwrap();
    for view in ["heads.0.q_rot", "heads.0.k_rot"] {
        let s = status(&f, view).unwrap_or_else(|| panic!("no status for {view}"));
        assert!(s.ends_with(" changed"), "{view}: {s}");
    }
    for view in ["scores", "weights", "context"] {
        let s = status(&f, view).unwrap();
        assert!(s == "unchanged" || s == format!("unchanged to {SIGNIFICANT_DIGITS} digits"), "{view}: {s}");
        assert_eq!(marked(&f, view), 0, "{view}");
    }
    // A config from the page is a new document too.
    let config = f.config().clone();
    f.apply(Edit::Config(config)).unwrap();
    assert_eq!(status(&f, "heads.0.q_rot"), None);
}

#[test]
fn a_token_added_is_a_new_row_of_k_and_a_new_shape_of_the_weights() {
    let mut f = chapter("chapter-11-gqa");
    f.apply(Edit::AppendToken).unwrap();
    // K gains the new token's row, its other rows as they were: that row is marked.
    assert_eq!(status(&f, "k").as_deref(), Some("1 new row"));
    assert_eq!(marked(&f, "k"), 4);
    // Every weight moves when a key joins (each row sums to 1 over one more key): a new shape, no cell marked.
    assert_eq!(status(&f, "heads.0.weights").as_deref(), Some("new shape"));
    assert_eq!(marked(&f, "heads.0.weights"), 0);
}

#[test]
fn a_decode_step_marks_the_kv_caches_new_row() {
    let mut f = chapter("chapter-11-decode");
    let step = f.config().options.decode_step.unwrap();
    f.apply(Edit::Fields(serde_json::json!({"decode_step": step + 1, "query": step + 1}))).unwrap();
    for cache in ["decode.k_cache", "decode.v_cache"] {
        assert_eq!(status(&f, cache).as_deref(), Some("1 new row"), "{cache}");
        assert_eq!(marked(&f, cache), 2, "{cache}: one row of d = 2");
    }
}

#[test]
fn following_another_head_marks_nothing() {
    let mut f = chapter("chapter-11-gqa");
    f.apply(Edit::Fields(serde_json::json!({"head": 2}))).unwrap();
    assert_eq!(status(&f, "weights"), None);
    assert_eq!(marked(&f, "weights"), 0);
}

#[test]
fn cells_compare_by_bits_nan_as_nan_and_within_twelve_digits() {
    let view = |values: Vec<f64>| {
        let m = attention_viz::math::Matrix::from_rows(&[values]).unwrap();
        let labels = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>();
        View {
            name: "v".into(),
            title: "v".into(),
            values: m.into(),
            row_labels: labels(1).into(),
            col_labels: labels(4).into(),
            palette: "rocket",
            marks: Default::default(),
            range: None,
        }
    };
    let a = view(vec![1.0, f64::NAN, f64::NEG_INFINITY, 2.0]);
    let same = compare(&a, &view(vec![1.0, f64::NAN, f64::NEG_INFINITY, 2.0 + 1e-15]));
    assert_eq!((same.count, same.rounded, same.status().as_str()), (0, true, "unchanged to 12 digits"));
    let moved = compare(&a, &view(vec![1.0, 0.0, f64::NEG_INFINITY, 2.0 + 1e-9]));
    assert_eq!(moved.cells, [false, true, false, true]);
    assert_eq!(moved.status(), "2 of 4 changed");
    assert_eq!(compare(&a, &a).status(), "unchanged");
}

/// A changed cell is drawn with a triangle in its top-right corner in its number's colour (legible on the cell as its
/// number is); an unchanged cell's corner keeps the cell's colour.
#[test]
fn a_changed_cell_is_drawn_with_a_corner_in_its_numbers_colour() {
    use attention_viz::heatmap::draw::{changed_corner, draw, Colors, Contrast, Layout, Style};
    use plotters::prelude::*;
    let f = chapter("chapter-11-gqa");
    let mut view = f.view("k").unwrap().0;
    view.marks.changed = vec![false; 16];
    view.marks.changed[4] = true; // (1, 0)
    let style = Style { annotate: Some(false), show_title: false, show_labels: false, ..Style::default() };
    let (w, h) = (240u32, 240u32);
    let mut buf = vec![0u8; (w * h * 3) as usize];
    let colors = Colors::new(view.values.data(), None, view.palette);
    let layout = Layout::new(&view, &colors, &style, w, h);
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        draw(&root, &view, &colors, &layout, &style, true).unwrap();
    }
    let px = |x: i32, y: i32| {
        let o = ((y as u32 * w + x as u32) * 3) as usize;
        [buf[o], buf[o + 1], buf[o + 2]]
    };
    for (i, changed) in [(0, false), (1, true), (2, false)] {
        let r = layout.cell(i, 0);
        let (x, y) = (r.x1 - 2, r.y0 + 1);
        let corner = changed_corner(&layout, i, 0, 1.0);
        assert!(corner[0].0 < x && corner[2].1 > y, "the triangle covers ({x}, {y}): {corner:?}");
        let v = view.values.get(i, 0);
        let want = if changed { colors.annotation_color(v, Contrast::Seaborn) } else { colors.color(v).unwrap() };
        assert_eq!(px(x, y), want, "row {i}'s corner");
        assert_eq!(
            px((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2),
            colors.color(v).unwrap(),
            "row {i}'s middle keeps its colour"
        );
    }
}
