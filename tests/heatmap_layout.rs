//! Layout decisions every backend shares: numbers that never silently disappear (a smaller
//! font, then fewer digits, then a note), titles and labels that fit, the text colours of
//! `contrast = "more"`, the dark theme's gaps, the three kinds of outline, and the figure as
//! text (`describe`). The canvas runs the same `Layout` and `draw` as the SVG checked here.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::attention::compute;
use attention_viz::config::Config;
use attention_viz::heatmap::draw::{
    draw, inner_ring, outline, Colors, Contrast, Highlight, HighlightKind, Layout, Style, Theme, DARK_GAP, HIDDEN_NOTE,
    MIN_FONT,
};
use attention_viz::heatmap::palette::{by_name, contrast_ratio, Rgb, TEXT_LIGHT};
use attention_viz::heatmap::{cell_text, cell_texts, describe, preferred_size, raster, to_svg, to_svg_sized, Fmt};
use attention_viz::math::Matrix;
use attention_viz::presets::preset;
use attention_viz::views::{self, View};
use plotters::prelude::*;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The `<text>` elements of an SVG: (x, y, font-size, content).
fn svg_texts(svg: &str) -> Vec<(i32, i32, String)> {
    let mut out = vec![];
    let mut rest = svg;
    while let Some(p) = rest.find("<text ") {
        rest = &rest[p + 6..];
        let end = rest.find('>').unwrap();
        let head = &rest[..end];
        let attr = |name: &str| -> String {
            let key = format!("{name}=\"");
            let at = head.find(&key).map(|i| i + key.len()).unwrap();
            head[at..at + head[at..].find('"').unwrap()].to_string()
        };
        let body = rest[end + 1..rest.find("</text>").unwrap()].trim().to_string();
        out.push((attr("x").parse().unwrap(), attr("y").parse().unwrap(), body));
    }
    out
}

fn contents(svg: &str) -> Vec<String> {
    svg_texts(svg).into_iter().map(|(_, _, t)| t).collect()
}

fn view_of(config: &Config, name: &str) -> View<'static> {
    views::view(config, &compute(config).unwrap(), name).unwrap().into_owned()
}

/// Document 002's figure after the reader sets embedding row 1 to [30, 20, 10] (a score of 1400).
fn seed_002_with_1400() -> Config {
    let mut c = preset("seed-002").unwrap();
    for (j, v) in [30.0, 20.0, 10.0].into_iter().enumerate() {
        c = c.with_value("embeddings", 1, j, v).unwrap();
    }
    c
}

fn layout(view: &View, style: &Style, w: u32, h: u32) -> Layout {
    let colors = Colors::new(view.values.data(), style.palette.as_deref(), view.palette);
    Layout::new(view, &colors, style, w, h)
}

fn plain_view(values: Vec<Vec<f64>>, rows: Vec<&str>, cols: Vec<&str>, title: &str) -> View<'static> {
    View {
        name: "test".into(),
        title: title.into(),
        values: Matrix::from_rows(&values).unwrap().into(),
        row_labels: rows.into_iter().map(String::from).collect(),
        col_labels: cols.into_iter().map(String::from).collect(),
        palette: "purple",
        marks: Default::default(),
        range: None,
    }
}

/// Asserts that the SVG has the layout's annotation, centred, in every cell.
fn assert_numbers_drawn(view: &View, l: &Layout, svg: &str, what: &str) {
    let texts = svg_texts(svg);
    for i in 0..l.rows {
        for j in 0..l.cols {
            let r = l.cell(i, j);
            let want = l.annotation(view.values.get(i, j));
            let at = ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
            assert!(
                texts.iter().any(|(x, y, t)| (*x, *y) == at && *t == want),
                "{what}: no {want:?} in cell ({i}, {j}) at {at:?}"
            );
        }
    }
}

fn note_text(l: &Layout) -> Option<String> {
    l.note.as_ref().map(|n| n.lines.join(" "))
}

// ---------------------------------------------------------------------------
// Numbers never disappear silently
// ---------------------------------------------------------------------------

/// The bug: the element keeps each canvas at the size `preferredSize` gave before an edit;
/// a score of 1400 ("1.4e+03") no longer fit those cells at 12 px and the canvas silently
/// dropped every number, while the SVG (laid out at the new preferred size) kept them.
#[test]
fn a_score_of_1400_keeps_its_numbers_on_the_canvas_it_was_given() {
    let before = preset("seed-002").unwrap();
    let after = seed_002_with_1400();
    for name in ["scores", "scaled", "weights", "naive_weights", "q", "context"] {
        let stale = preferred_size(&view_of(&before, name), Fmt::default());
        let v = view_of(&after, name);
        assert_eq!(v.values.data().iter().cloned().fold(0.0, f64::max) >= 1400.0, name == "scores" || name == "scaled");
        for (dpr, show_title) in [(1.0, true), (2.0, true), (1.5, true), (2.0, false)] {
            let style = Style { dpr, show_title, ..Style::default() };
            let (w, h) = ((stale.0 as f64 * dpr).round() as u32, (stale.1 as f64 * dpr).round() as u32);
            let l = layout(&v, &style, w, h);
            assert!(l.annotate, "{name} at {w}×{h} (dpr {dpr}, title {show_title}): numbers dropped");
            let svg = to_svg_sized(&v, &style, w, h).unwrap();
            assert_numbers_drawn(&v, &l, &svg, &format!("{name} dpr {dpr}"));
            // Whatever changed is said under the title, in the same SVG.
            if let Some(note) = &l.note {
                for line in &note.lines {
                    assert!(contents(&svg).contains(line), "{name}: note line {line:?} not drawn");
                }
            }
            let smaller = l.annot_font_px < l.font_px - 1e-9;
            assert_eq!(l.note.is_some(), smaller || l.fmt != Fmt::default(), "{name}: a note exactly when needed");
        }
    }
    // At the stale size the big scores are written smaller (and say so); the fresh SVG is unchanged.
    let v = view_of(&after, "scores");
    let (w, h) = preferred_size(&view_of(&before, "scores"), Fmt::default());
    let l = layout(&v, &Style::default(), w, h);
    assert!(note_text(&l).unwrap().starts_with("numbers "), "{:?}", l.note);
    assert!(contents(&to_svg(&v, &Style::default()).unwrap()).contains(&"1.4e+03".to_string()));
    let fresh = preferred_size(&v, Fmt::default());
    let l = layout(&v, &Style::default(), fresh.0, fresh.1);
    assert!(l.annotate && l.note.is_none() && l.fmt == Fmt::default(), "at its own preferred size: as seaborn");
}

#[test]
fn same_inputs_same_texts_on_every_size_of_device_pixel() {
    // The canvas (dpr 2) and the SVG (dpr 1) of the same CSS size decide the same numbers.
    let v = view_of(&seed_002_with_1400(), "scores");
    for w in (150..420).step_by(7) {
        let l1 = layout(&v, &Style::default(), w, 164);
        let l2 = layout(&v, &Style { dpr: 2.0, ..Style::default() }, 2 * w, 328);
        assert_eq!(l1.annotate, l2.annotate, "width {w}");
        assert_eq!(l1.fmt, l2.fmt, "width {w}");
        assert_eq!(note_text(&l1), note_text(&l2), "width {w}");
    }
}

#[test]
fn numbers_shrink_then_lose_digits_then_hide() {
    let v = plain_view(
        vec![vec![0.123456, 0.234567, 0.345678, 0.456789]],
        vec!["a"],
        vec!["w", "x", "y", "z"],
        "four numbers",
    );
    let style = Style { fmt: Fmt::parse(".3g").unwrap(), ..Style::default() };
    let mut seen = vec![];
    for w in (80..400).rev().step_by(2) {
        let l = layout(&v, &style, w, 120);
        let state = match (&l.note, l.annotate) {
            (None, true) => "normal".to_string(),
            (Some(_), true) if l.fmt == style.fmt => "smaller".to_string(),
            (Some(_), true) => format!("fewer digits {}", l.fmt),
            (Some(n), false) => {
                // Cut with "…" only on a canvas too narrow for two lines of it at 8 px.
                let said = n.lines.join(" ");
                assert!(said == HIDDEN_NOTE || (said.contains('…') && w < 170), "{said:?} at {w}");
                "hidden".to_string()
            }
            (None, false) => panic!("numbers dropped without a note at width {w}"),
        };
        if l.annotate {
            assert!(l.annot_font_px >= MIN_FONT - 1e-9, "font {} at width {w}", l.annot_font_px);
            let widest = v.values.data().iter().map(|&x| l.annotation(x).chars().count()).max().unwrap();
            let cell = l.cell(0, 0).width() + l.gap;
            assert!(widest as f64 * l.annot_font_px * 0.6 + 4.0 <= cell as f64 + 1.0, "fits at {w}");
        }
        if seen.last() != Some(&state) {
            seen.push(state);
        }
    }
    assert_eq!(seen, ["normal", "smaller", "fewer digits .2g", "fewer digits .1g", "hidden"], "{seen:?}");
    // The notes say what happened.
    let texts: Vec<Option<String>> =
        [300, 200, 150, 130].iter().map(|&w| note_text(&layout(&v, &style, w, 120))).collect();
    assert!(texts.iter().flatten().any(|t| t.starts_with("numbers at ") && t.ends_with(" px")), "{texts:?}");
    let short = (80..400).rev().map(|w| layout(&v, &style, w, 120)).find(|l| l.fmt == Fmt::General(1)).unwrap();
    // One digit lets the font grow again: the largest that fits, down to 8 px.
    let said = note_text(&short).unwrap();
    let px = (short.annot_font_px).to_string();
    assert_eq!(said, format!("numbers to 1 significant digit at {px} px (fmt .3g does not fit)"));
    let narrowest = (80..400).map(|w| layout(&v, &style, w, 120)).find(|l| l.fmt == Fmt::General(1)).unwrap();
    assert_eq!(narrowest.annot_font_px, MIN_FONT);
}

#[test]
fn a_big_grid_says_its_numbers_are_hidden() {
    let n = 300;
    let rows: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| ((i * 31 + j * 17) % 97) as f64 / 7.0).collect()).collect();
    let labels: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let v = View {
        name: "big".into(),
        title: "a big grid".into(),
        values: Matrix::from_rows(&rows).unwrap().into(),
        row_labels: labels.clone().into(),
        col_labels: labels.into(),
        palette: "purple",
        marks: Default::default(),
        range: None,
    };
    let style = Style::default();
    let (w, h) = preferred_size(&v, style.fmt);
    let l = layout(&v, &style, w, h);
    assert!(!l.annotate);
    assert_eq!(note_text(&l).unwrap(), HIDDEN_NOTE);
    let note = l.note.as_ref().unwrap();
    let (left, right) = note.extent();
    assert!(left >= 0.0 && right <= w as f64, "the note fits: {left}..{right} of {w}");
    assert!(note.y > l.title.y && (note.y as f64) < l.grid.y0 as f64, "under the title, above the grid");
    // The canvas path for big grids: raster for the cells, `draw` for the text, which includes the note.
    let colors = Colors::new(v.values.data(), None, v.palette);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        draw(&root, &v, &colors, &l, &style, false).unwrap();
    }
    let texts = contents(&svg);
    for line in &note.lines {
        assert!(texts.contains(line), "{line:?} not drawn");
    }
    // Asked for no numbers: no numbers and no note.
    let l = layout(&v, &Style { annotate: Some(false), ..Style::default() }, w, h);
    assert!(!l.annotate && l.note.is_none());
}

#[test]
fn fmt_reaches_every_cell() {
    let config = preset("seed-003").unwrap();
    for (view, spec) in [("annotations", ".1f"), ("decoder_state", "d"), ("weights", ".1%"), ("scores", ".2e")] {
        let v = view_of(&config, view);
        let fmt = Fmt::parse(spec).unwrap();
        let style = Style { fmt, ..Style::default() };
        let (w, h) = preferred_size(&v, fmt);
        let l = layout(&v, &style, w, h);
        assert!(l.annotate && l.fmt == fmt && l.note.is_none(), "{view} {spec} at its preferred size");
        let svg = to_svg(&v, &style).unwrap();
        assert_numbers_drawn(&v, &l, &svg, &format!("{view} {spec}"));
    }
    // seed-003's weights are not whole: Python's format refuses "d" for them, so the figure writes them with .2g and
    // says why in its note (the heatmap used to stay blank, its error uncaught).
    let v = view_of(&config, "weights");
    let style = Style { fmt: Fmt::Int, ..Style::default() };
    let (w, h) = preferred_size(&v, Fmt::Int);
    let l = layout(&v, &style, w, h);
    assert!(l.annotate && l.fmt == Fmt::default(), "written with .2g");
    let note = l.note.as_ref().expect("a note says why").lines.join(" ");
    assert_eq!(note, "fmt d needs whole numbers (0.119… here): written with .2g");
    let svg = to_svg(&v, &style).unwrap();
    assert!(svg.contains("written with .2g"), "the SVG says it too");
    assert_numbers_drawn(&v, &l, &svg, "weights d");
}

// ---------------------------------------------------------------------------
// Titles and labels
// ---------------------------------------------------------------------------

#[test]
fn titles_fit_their_canvas_at_the_preferred_size() {
    // "scaled = scores / √d_k = scores / 1.73" over a 1 × 1 heatmap was cut at both ends.
    let one = Config::from_json(r#"{"embeddings": [[1, 2, 3]], "w_q": [[1],[0],[0]], "w_k": [[1],[0],[0]], "w_v": [[1],[0],[0]], "scale": "sqrt_dk"}"#)
        .unwrap();
    let mut checked = 0;
    let configs: Vec<Config> =
        [one].into_iter().chain(attention_viz::presets::NAMES.iter().map(|n| preset(n).unwrap())).collect();
    for config in &configs {
        let trace = compute(config).unwrap();
        for name in views::names(config) {
            let v = views::view(config, &trace, &name).unwrap();
            for dpr in [1.0, 2.0, 1.25] {
                let style = Style { dpr, ..Style::default() };
                let (w, h) = preferred_size(&v, style.fmt);
                let (w, h) = ((w as f64 * dpr).round() as u32, (h as f64 * dpr).round() as u32);
                let l = layout(&v, &style, w, h);
                let (left, right) = l.title.extent();
                assert!(left >= 0.0 && right <= w as f64, "{}: title {left}..{right} outside 0..{w}", v.title);
                assert!(l.title.width() <= w as f64);
                assert_eq!(l.title.lines.join(" "), v.title, "never cut at the preferred size");
                assert!((l.title.y as f64 + (l.title.lines.len() - 1) as f64 * l.title.line_height) < l.grid.y0 as f64);
                checked += 1;
            }
        }
    }
    assert!(checked > 50);
    // Narrower than preferred: wrapped, then smaller, then cut with "…", never wider than the canvas.
    let v = plain_view(vec![vec![1.0]], vec!["a"], vec!["b"], "scaled = scores / √d_k = scores / 1.73");
    for w in [60u32, 90, 120, 160, 200, 260, 400] {
        let l = layout(&v, &Style::default(), w, 120);
        let (left, right) = l.title.extent();
        assert!(left >= 0.0 && right <= w as f64, "width {w}: {:?} at {left}..{right}", l.title.lines);
        assert!(l.title.lines.len() <= 2);
    }
    let l = layout(&v, &Style::default(), 200, 120);
    assert_eq!(l.title.lines, ["scaled = scores / √d_k", "= scores / 1.73"]);
}

/// Guided page, chapter 10: the base slider's right end (10⁷) writes PE's slow column as 0.00032 … 0.0013 under .2g,
/// two characters more than at 10⁴. The preferred width grows by those characters in each of its 4 columns and by
/// nothing else: the title stays on the two lines it had (taking it to one line as well added 58 px more, and the
/// figure's context heatmap dropped to a new row at 1280 px). At every base the numbers are drawn as seaborn writes
/// them, at 12 px, and the title is whole.
#[test]
fn a_value_edit_widens_the_cells_not_the_title() {
    let at = |base: f64| {
        let json = format!(
            r#"{{"embeddings":[[1,0,1,0],[0,1,0,1],[1,1,0,0],[1,0,1,0],[0,1,0,1]],"tokens":["a","rose","is","a","rose"],
            "w_q":[[1,0,1,0],[0,1,0,1],[1,1,0,0],[0,0,1,1]],"w_k":[[0,1,1,0],[1,0,0,1],[1,0,1,0],[0,1,0,1]],
            "w_v":[[1,0],[0,1],[1,1],[0,0]],"position":{{"kind":"sinusoidal","base":{base}}}}}"#
        );
        view_of(&Config::from_json(&json).unwrap(), "pe")
    };
    let sizes: Vec<(u32, u32)> = [1e4, 1e5, 1e6, 1e7].iter().map(|&b| preferred_size(&at(b), Fmt::default())).collect();
    let (narrow, wide) = (at(1e4), at(1e7));
    let texts = cell_texts(&wide, 0..5, 2..3, Fmt::default()).unwrap();
    assert_eq!(texts, ["0", "0.00032", "0.00063", "0.00095", "0.0013"], "10⁷: the slow hand, column 2");
    let grown = sizes[3].0 - sizes[0].0;
    // 7-character numbers instead of 5 at 12 px (7.2 px a character): 2 × 7.2 × 4 columns, rounded.
    assert!((57..=59).contains(&grown), "PE grew by {grown} px at 10⁷: {sizes:?}");
    for (v, (w, h)) in [(&narrow, sizes[0]), (&wide, sizes[3])] {
        let l = layout(v, &Style::default(), w, h);
        assert_eq!(l.title.lines.len(), 2, "{w} px: {:?}", l.title.lines);
        assert_eq!(l.title.lines.join(" "), v.title);
        assert!(l.annotate && l.note.is_none() && l.annot_font_px == l.font_px, "{w} px: as seaborn, at 12 px");
    }
    assert!(sizes.iter().all(|s| s.1 == sizes[0].1), "one height at every base: {sizes:?}");
}

#[test]
fn one_long_token_does_not_hide_the_other_labels() {
    let tokens = vec!["the", "incomprehensibilities", "of", "cats"];
    let rows = vec![vec![0.1, 0.2, 0.3, 0.4]; 4];
    let v = plain_view(rows, tokens.clone(), tokens.clone(), "weights = softmax(scaled)");
    let natural = preferred_size(&v, Fmt::default());
    for (w, h) in [natural, (natural.0 - 40, 180), (300, 160)] {
        let l = layout(&v, &Style::default(), w, h);
        let labels = l.col_labels(&v);
        assert_eq!(labels.iter().map(|(j, _)| *j).collect::<Vec<_>>(), [0, 1, 2, 3], "all four at {w}×{h}");
        for (j, label) in &labels {
            let cell = l.cell(0, *j).width() as f64 + l.gap as f64;
            assert!(label.chars().count() as f64 * l.font_px * 0.6 <= cell, "{label:?} wider than its cell at {w}");
            if label != tokens[*j] {
                assert!(label.ends_with('…') && tokens[*j].starts_with(label.trim_end_matches('…')), "{label:?}");
            }
        }
        assert!(labels[1].1.ends_with('…'), "the long one is cut at {w}: {:?}", labels[1]);
        if (w, h) == natural {
            assert_eq!(labels[3].1, "cats");
        }
        // And the SVG draws them all.
        let svg = to_svg_sized(&v, &Style::default(), w, h).unwrap();
        let texts = contents(&svg);
        for (_, label) in &labels {
            assert!(texts.contains(label), "{label:?} not drawn at {w}");
        }
    }
    // Hundreds of columns: every k-th label, still without overlaps.
    let n = 200;
    let labels: Vec<String> = (0..n).map(|i| format!("token{i}")).collect();
    let v = View {
        name: "wide".into(),
        title: "wide".into(),
        values: Matrix::zeros(2, n).into(),
        row_labels: vec!["a".into(), "b".into()].into(),
        col_labels: labels.into(),
        palette: "purple",
        marks: Default::default(),
        range: None,
    };
    let l = layout(&v, &Style::default(), 900, 200);
    let drawn = l.col_labels(&v);
    assert!(drawn.len() > 5 && drawn.len() < n);
    let step = drawn[1].0 - drawn[0].0;
    assert!(step as f64 * (l.grid.width() as f64 / n as f64) >= 7.0 * 0.6 * l.font_px);
}

// ---------------------------------------------------------------------------
// Colours: contrast = "more", dark gaps, outlines
// ---------------------------------------------------------------------------

fn palettes() -> Vec<(String, Vec<Rgb>)> {
    let mut out = vec![];
    for name in ["rocket", "rocket_r", "vlag", "vlag_r", "purple", "orange", "Blue", "light:#1f77b4"] {
        out.push((name.to_string(), by_name(name).unwrap().rgb8_table()));
    }
    // Signed data: vlag re-centred on 0.
    let colors = Colors::new(&[-3.0, 10.0], None, "purple");
    assert!(colors.diverging);
    out.push(("diverging, centred".into(), (0..256).map(|k| colors.cmap.entry(k)).collect()));
    out
}

#[test]
fn contrast_more_reaches_4_5_on_every_colour_of_every_palette() {
    let mut worst = f64::INFINITY;
    for (name, entries) in palettes() {
        assert_eq!(entries.len(), 256, "{name}");
        // A figure whose values land on each entry in turn (signed ones on the centred map).
        let centred = name.contains(' ');
        let values: Vec<f64> = (0..256).map(|k| k as f64 + 0.5 - if centred { 128.0 } else { 0.0 }).collect();
        let colors = Colors::new(&values, if centred { None } else { Some(&name) }, "purple");
        assert_eq!(colors.diverging, centred || name.starts_with("vlag"));
        for &v in &values {
            let fill = colors.color(v).unwrap();
            let text = colors.annotation_color(v, Contrast::More);
            let ratio = contrast_ratio(fill, text);
            worst = worst.min(ratio);
            assert!(ratio >= 4.5, "{name}: text {text:?} on {fill:?} is {ratio:.2}:1");
            // seaborn's rule stays seaborn's.
            assert_eq!(colors.annotation_color(v, Contrast::Seaborn), colors.text_color(v));
        }
        for fill in entries {
            let best = contrast_ratio(fill, [0, 0, 0]).max(contrast_ratio(fill, TEXT_LIGHT));
            assert!(best >= 4.5, "{name}: {fill:?} {best:.2}");
        }
    }
    assert!(worst < 4.7, "the bound is tight ({worst:.2}), so the test means something");
    assert_eq!(Contrast::parse("more"), Ok(Contrast::More));
    assert_eq!(Contrast::parse("seaborn"), Ok(Contrast::Seaborn));
    assert!(Contrast::parse("most").unwrap_err().contains("\"seaborn\""));
    // seaborn's own pair cannot promise it: some cell of rocket is under 4.5:1 with both.
    let rocket = by_name("rocket").unwrap().rgb8_table();
    assert!(rocket.iter().any(|&c| contrast_ratio(c, [0x26, 0x26, 0x26]).max(contrast_ratio(c, TEXT_LIGHT)) < 4.5));
}

#[test]
fn more_contrast_is_drawn() {
    let v = view_of(&preset("seed-001").unwrap(), "weights");
    let style = Style { palette: Some("rocket".into()), contrast: Contrast::More, ..Style::default() };
    let svg = to_svg(&v, &style).unwrap();
    assert!(svg.contains("fill=\"#000000\""), "black text on the light cells");
    // seaborn's grey is left to the labels and title.
    let bare = to_svg(&v, &Style { annotate: Some(false), ..style.clone() }).unwrap();
    assert_eq!(svg.matches("#262626").count(), bare.matches("#262626").count(), "no seaborn grey on cells");
}

#[test]
fn dark_gaps_stand_out_from_the_darkest_cells() {
    for (name, _) in palettes().into_iter().filter(|(n, _)| !n.contains(' ')) {
        let colors = Colors::new(&[0.0, 1.0], Some(&name), "purple");
        let dark = Theme::dark().gap_color(&colors);
        let ratio = contrast_ratio(dark, colors.darkest());
        assert!(ratio >= 3.0, "{name}: dark gaps {dark:?} on the darkest cell {:?}: {ratio:.2}:1", colors.darkest());
        assert_eq!(Theme::light().gap_color(&colors), [255, 255, 255], "{name}: light gaps are seaborn's white");
    }
    // rocket's near-black end gets the light gap colour.
    let rocket = Colors::new(&[0.0, 1.0], Some("rocket"), "purple");
    assert_eq!(Theme::dark().gap_color(&rocket), DARK_GAP);
    // Any colour at all: the better of the two is at least 3:1.
    for r in (0..=255).step_by(15) {
        for g in (0..=255).step_by(15) {
            for b in (0..=255).step_by(51) {
                let c = [r as u8, g as u8, b as u8];
                let best = contrast_ratio(c, Theme::dark().background).max(contrast_ratio(c, DARK_GAP));
                assert!(best >= 3.0, "{c:?}: {best:.2}");
            }
        }
    }
}

#[test]
fn dark_gaps_are_drawn_by_shapes_and_raster_alike() {
    let v = view_of(&preset("seed-001").unwrap(), "weights");
    let style = Style {
        theme: Theme::dark(),
        palette: Some("rocket".into()),
        annotate: Some(false),
        show_title: false,
        show_labels: false,
        ..Style::default()
    };
    let colors = Colors::new(v.values.data(), style.palette.as_deref(), v.palette);
    let (w, h) = (240u32, 200u32);
    let l = Layout::new(&v, &colors, &style, w, h);
    let mut buf = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        draw(&root, &v, &colors, &l, &style, true).unwrap();
    }
    let bitmap = |x: i32, y: i32| {
        let o = ((y as u32 * w + x as u32) * 3) as usize;
        [buf[o], buf[o + 1], buf[o + 2]]
    };
    let blits = raster(&v, &colors, &l, &style.theme);
    let grid = &blits[0];
    let rastered = |x: i32, y: i32| {
        let o = (((y - grid.y) as u32 * grid.width + (x - grid.x) as u32) * 4) as usize;
        [grid.rgba[o], grid.rgba[o + 1], grid.rgba[o + 2]]
    };
    let r = l.cell(0, 0);
    let mid = (r.y0 + r.y1) / 2;
    let bg = Theme::dark().background;
    for (x, y, want, what) in [
        (r.x1, mid, DARK_GAP, "gap right of cell (0, 0)"),
        ((r.x0 + r.x1) / 2, r.y1, DARK_GAP, "gap below cell (0, 0)"),
        (l.grid.x1 - 1, mid, bg, "after the last column"),
        ((r.x0 + r.x1) / 2, l.grid.y1 - 1, bg, "after the last row"),
    ] {
        assert_eq!(bitmap(x, y), want, "shapes: {what}");
        assert_eq!(rastered(x, y), want, "raster: {what}");
    }
    for i in 0..l.rows {
        for j in 0..l.cols {
            let c = l.cell(i, j);
            let at = ((c.x0 + c.x1) / 2, (c.y0 + c.y1) / 2);
            assert_eq!(bitmap(at.0, at.1), rastered(at.0, at.1), "cell ({i}, {j})");
        }
    }
}

#[test]
fn three_kinds_of_outline() {
    let v = view_of(&preset("seed-001").unwrap(), "weights");
    for theme in [Theme::light(), Theme::dark()] {
        // Distinct colours, each visible on the page (WCAG non-text 3:1).
        assert_ne!(theme.accent, theme.link);
        assert!(contrast_ratio(theme.accent, theme.background) >= 3.0);
        assert!(contrast_ratio(theme.link, theme.background) >= 3.0);
        assert!(contrast_ratio(theme.text, theme.background) >= 4.5);
        for dpr in [1.0, 2.0] {
            let style = Style { dpr, theme: theme.clone(), ..Style::default() };
            let l = layout(&v, &style, (362.0 * dpr) as u32, (164.0 * dpr) as u32);
            let h = |kind| Highlight { kind, r0: 1, c0: 0, r1: 2, c1: 4 };
            let selected = outline(&l, &h(HighlightKind::Selected), dpr);
            let link = outline(&l, &h(HighlightKind::Link), dpr);
            let cursor = outline(&l, &h(HighlightKind::Cursor), dpr);
            let thickness = |r: &attention_viz::heatmap::draw::Rect| r.width().min(r.height());
            assert_eq!(selected.len(), 4, "solid: four bars");
            assert!(selected.iter().all(|r| thickness(r) == (2.0 * dpr) as i32));
            assert_eq!(cursor.len(), 4);
            assert!(cursor.iter().all(|r| thickness(r) == (3.0 * dpr) as i32), "the cursor is thicker");
            assert!(link.len() > 12, "dashed: many short pieces");
            assert!(link
                .iter()
                .all(|r| r.width().max(r.height()) <= (5.0 * dpr) as i32 && thickness(r) == (2.0 * dpr) as i32));
            // The same rectangle outlined: the dashes lie on the solid outline.
            let covered = |p: (i32, i32), rs: &[attention_viz::heatmap::draw::Rect]| {
                rs.iter().any(|r| p.0 >= r.x0 && p.0 < r.x1 && p.1 >= r.y0 && p.1 < r.y1)
            };
            for d in &link {
                assert!(covered((d.x0, d.y0), &selected), "{d:?}");
            }
        }
        // Drawn in their colours.
        let style = Style {
            theme: theme.clone(),
            highlights: vec![
                Highlight { kind: HighlightKind::Selected, r0: 0, c0: 0, r1: 1, c1: 4 },
                Highlight { kind: HighlightKind::Link, r0: 1, c0: 1, r1: 2, c1: 2 },
                Highlight { kind: HighlightKind::Cursor, r0: 3, c0: 3, r1: 4, c1: 4 },
            ],
            ..Style::default()
        };
        let svg = to_svg(&v, &style).unwrap();
        let hex = |c: Rgb| format!("fill=\"#{:02x}{:02x}{:02x}\"", c[0], c[1], c[2]);
        assert_eq!(svg.matches(&hex(theme.accent)).count(), 4);
        assert!(svg.matches(&hex(theme.link)).count() > 12);
        // The cursor's bars, besides the title and tick labels in the text colour.
        let plain = to_svg(&v, &Style { theme: theme.clone(), ..Style::default() }).unwrap();
        assert_eq!(svg.matches(&hex(theme.text)).count(), plain.matches(&hex(theme.text)).count() + 4);
    }
    assert_eq!(HighlightKind::from_code(0), Some(HighlightKind::Selected));
    assert_eq!(HighlightKind::from_code(1), Some(HighlightKind::Link));
    assert_eq!(HighlightKind::from_code(2), Some(HighlightKind::Cursor));
    assert_eq!(HighlightKind::from_code(3), Some(HighlightKind::Tile));
    assert_eq!(HighlightKind::from_code(4), None);
}

#[test]
fn the_cursor_stands_out_on_its_darkest_and_lightest_cells_in_both_themes() {
    // Its outer ring is the text colour and its inner ring the background colour: whatever the cell's colour,
    // one of the two reaches WCAG's 3:1 for non-text against it.
    let v = view_of(&preset("seed-001").unwrap(), "weights");
    for theme in [Theme::light(), Theme::dark()] {
        for (_, colors) in palettes() {
            for c in [colors[0], colors[colors.len() - 1]] {
                let best = contrast_ratio(theme.text, c).max(contrast_ratio(theme.background, c));
                assert!(best >= 3.0, "{c:?} in {theme:?}: {best}");
            }
        }
        for dpr in [1.0, 2.0] {
            let style = Style { dpr, theme: theme.clone(), ..Style::default() };
            let l = layout(&v, &style, (362.0 * dpr) as u32, (164.0 * dpr) as u32);
            let h = Highlight { kind: HighlightKind::Cursor, r0: 2, c0: 1, r1: 3, c1: 2 };
            let ring = inner_ring(&l, &h, dpr);
            let cell = l.cell(2, 1);
            assert_eq!(ring.len(), 4);
            for r in &ring {
                assert!(r.width().min(r.height()) >= 1);
                // Inside the cell, touching the outer ring: together they read as one two-tone outline.
                assert!(r.x0 >= cell.x0 && r.y0 >= cell.y0 && r.x1 <= cell.x1 && r.y1 <= cell.y1, "{r:?} in {cell:?}");
            }
            // outline()'s first bar is the top one, its third the left one: the inner ring starts where they end.
            let outer = outline(&l, &h, dpr);
            assert_eq!(outer[0].y1, ring[0].y0);
            assert_eq!(outer[2].x1, ring[0].x0);
        }
        let style = Style {
            theme: theme.clone(),
            highlights: vec![Highlight { kind: HighlightKind::Cursor, r0: 3, c0: 3, r1: 4, c1: 4 }],
            ..Style::default()
        };
        let svg = to_svg(&v, &style).unwrap();
        let plain = to_svg(&v, &Style { theme: theme.clone(), ..Style::default() }).unwrap();
        let hex = |c: Rgb| format!("fill=\"#{:02x}{:02x}{:02x}\"", c[0], c[1], c[2]);
        assert_eq!(svg.matches(&hex(theme.background)).count(), plain.matches(&hex(theme.background)).count() + 4);
    }
}

// ---------------------------------------------------------------------------
// The figure as text
// ---------------------------------------------------------------------------

#[test]
fn describe_writes_what_the_cells_show() {
    let v = view_of(&preset("seed-001").unwrap(), "weights");
    let d = describe(&v, Fmt::default()).unwrap();
    assert_eq!(d.title, "weights = softmax(scaled)");
    assert_eq!(d.row_labels, ["word_1", "word_2", "word_3", "word_4"]);
    assert_eq!(d.col_labels, d.row_labels);
    assert_eq!(d.cells[0], ["0.24", "0.0074", "0.75", "0.0074"]);
    assert_eq!(d.note, None);
    let d = describe(&v, Fmt::parse(".1%").unwrap()).unwrap();
    assert_eq!(d.cells[0], ["23.6%", "0.7%", "74.9%", "0.7%"]);
    // NaN is "nan" whatever the spec.
    let nan = plain_view(vec![vec![f64::NAN, 0.5]], vec!["a"], vec!["x", "y"], "t");
    assert_eq!(describe(&nan, Fmt::parse(".1%").unwrap()).unwrap().cells, [["nan", "50.0%"]]);
    // "d" on values that are not whole: written as the heatmap writes them, with .2g.
    assert_eq!(describe(&v, Fmt::Int).unwrap().cells, describe(&v, Fmt::default()).unwrap().cells);
    // The keyboard cursor's cell.
    let c = cell_text(&v, 0, 2, Fmt::default()).unwrap().unwrap();
    assert_eq!((c.row.as_str(), c.col.as_str(), c.value.as_str()), ("word_1", "word_3", "0.75"));
    assert_eq!(c.full, v.values.get(0, 2));
    assert_eq!(cell_text(&v, 4, 0, Fmt::default()).unwrap(), None);
    assert_eq!(cell_text(&v, 0, 4, Fmt::default()).unwrap(), None);
    // An input grid's window of cells: row by row, clipped to the grid, as describe writes them.
    let d = describe(&v, Fmt::default()).unwrap();
    let window = cell_texts(&v, 0..2, 1..9, Fmt::default()).unwrap();
    assert_eq!(window[..3], ["0.0074", "0.75", "0.0074"]);
    assert_eq!(window, [&d.cells[0][1..], &d.cells[1][1..]].concat());
    assert_eq!(cell_texts(&v, 0..1, 0..1, Fmt::Int).unwrap(), cell_texts(&v, 0..1, 0..1, Fmt::default()).unwrap());
}

#[test]
fn describe_gives_the_corner_of_a_big_grid() {
    let (rows, cols) = (40, 50);
    let v = View {
        name: "big".into(),
        title: "big".into(),
        values: Matrix::from_vec(rows, cols, (0..rows * cols).map(|k| k as f64).collect()).unwrap().into(),
        row_labels: (0..rows).map(|i| format!("r{i}")).collect(),
        col_labels: (0..cols).map(|j| format!("c{j}")).collect(),
        palette: "purple",
        marks: Default::default(),
        range: None,
    };
    let d = describe(&v, Fmt::Int).unwrap();
    assert_eq!((d.cells.len(), d.cells[0].len(), d.row_labels.len(), d.col_labels.len()), (32, 32, 32, 32));
    assert_eq!(d.note.as_deref(), Some("first 32 of 40 rows and 32 of 50 columns"));
    assert_eq!(d.cells[1][0], "50");
    // 32 × 32 = 1024 cells: whole.
    let small = View {
        values: Matrix::zeros(32, 32).into(),
        row_labels: v.row_labels[..32].to_vec().into(),
        col_labels: v.col_labels[..32].to_vec().into(),
        ..v.clone()
    };
    assert_eq!(describe(&small, Fmt::default()).unwrap().note, None);
    // A tall, narrow grid: all of its columns.
    let tall = View {
        values: Matrix::zeros(2000, 1).into(),
        row_labels: (0..2000).map(|i| i.to_string()).collect(),
        col_labels: vec!["0".into()].into(),
        ..v
    };
    assert_eq!(
        describe(&tall, Fmt::default()).unwrap().note.as_deref(),
        Some("first 32 of 2000 rows and 1 of 1 columns")
    );
}

#[test]
fn the_palette_in_use_can_be_pinned() {
    // paletteOf: the name of the palette a view uses now; passing it back gives the same colours.
    let config = preset("seed-001").unwrap();
    let trace = compute(&config).unwrap();
    let signed = plain_view(vec![vec![-2.0, 0.5, 3.0]], vec!["a"], vec!["x", "y", "z"], "signed");
    let mut views: Vec<View> = views::names(&config).iter().map(|n| views::view(&config, &trace, n).unwrap()).collect();
    views.push(signed);
    for v in &views {
        for asked in [None, Some("rocket"), Some("vlag_r"), Some("nonsense"), Some("Blue")] {
            let colors = Colors::new(v.values.data(), asked, v.palette);
            let pinned = Colors::new(v.values.data(), Some(colors.palette_name()), v.palette);
            for &x in v.values.data() {
                assert_eq!(colors.color(x), pinned.color(x), "{} {asked:?} → {}", v.name, colors.palette_name());
            }
            assert_eq!(pinned.palette_name(), colors.palette_name());
        }
    }
    let colors = Colors::new(&[-2.0, 3.0], None, "purple");
    assert_eq!(colors.palette_name(), "diverging");
    assert_eq!(Colors::new(&[2.0, 3.0], None, "purple").palette_name(), "purple");
    assert_eq!(Colors::new(&[2.0, 3.0], Some("nonsense"), "purple").palette_name(), "purple");
}

// ---------------------------------------------------------------------------
// Masked scores as text and in the layout
// ---------------------------------------------------------------------------

/// The reader's table and the keyboard cursor say "−∞ (masked)" where the figure draws a
/// hatched "−∞"; NaN stays "nan", and the finite cells are written as before.
#[test]
fn masked_cells_are_described_as_masked() {
    let config = Config::from_json(r#"{"embeddings": [[1,0],[0,1],[1,1]], "mask": "causal"}"#).unwrap();
    let v = view_of(&config, "scaled");
    for fmt in [Fmt::default(), Fmt::parse(".1%").unwrap(), Fmt::parse(".3f").unwrap(), Fmt::parse("e").unwrap()] {
        let d = describe(&v, fmt).unwrap();
        for i in 0..3 {
            for j in 0..3 {
                let want = if j > i { "\u{2212}\u{221e} (masked)".to_string() } else { fmt.format(v.values.get(i, j)) };
                assert_eq!(d.cells[i][j], want, "{fmt} ({i}, {j})");
                let c = cell_text(&v, i, j, fmt).unwrap().unwrap();
                assert_eq!(c.value, want);
                assert_eq!(c.full.to_bits(), v.values.get(i, j).to_bits());
            }
        }
    }
    // `d` takes the masked cells (non-finite values aside) when the others are whole.
    let whole = plain_view(
        vec![vec![1.0, f64::NEG_INFINITY], vec![f64::INFINITY, f64::NAN]],
        vec!["a", "b"],
        vec!["x", "y"],
        "t",
    );
    let d = describe(&whole, Fmt::Int).unwrap();
    assert_eq!(d.cells, [["1", "\u{2212}\u{221e} (masked)"], ["\u{221e}", "nan"]]);
}

/// "−∞" is two characters: a masked cell does not make the numbers smaller than the finite
/// cells need (Python's "-inf" would have), and the drawn numbers are the layout's.
#[test]
fn minus_infinity_takes_no_more_room_than_the_numbers() {
    let finite = plain_view(vec![vec![0.25, 0.5], vec![0.75, 1.0]], vec!["a", "b"], vec!["x", "y"], "t");
    let masked = plain_view(vec![vec![0.25, f64::NEG_INFINITY], vec![0.75, 1.0]], vec!["a", "b"], vec!["x", "y"], "t");
    let style = Style::default();
    for (w, h) in [(140, 90), (120, 80), (300, 200)] {
        let (a, b) = (layout(&finite, &style, w, h), layout(&masked, &style, w, h));
        assert_eq!((a.annot_font_px, a.fmt, a.annotate), (b.annot_font_px, b.fmt, b.annotate), "{w}×{h}");
        if b.annotate {
            let svg = to_svg_sized(&masked, &style, w, h).unwrap();
            assert_numbers_drawn(&masked, &b, &svg, &format!("{w}×{h}"));
            assert!(contents(&svg).contains(&"\u{2212}\u{221e}".to_string()));
        }
    }
    assert_eq!(preferred_size(&finite, Fmt::default()), preferred_size(&masked, Fmt::default()));
}

/// In the "more" contrast mode and the dark theme, "−∞" is the theme's text colour on the
/// background (≥ 4.5:1), and the hatch is left out behind it, so no line crosses the glyphs.
#[test]
fn minus_infinity_is_legible_in_every_theme_and_contrast() {
    use attention_viz::heatmap::draw::hatch_color;
    let config = Config::from_json(r#"{"embeddings": [[1,0],[0,1],[1,1]], "mask": "causal"}"#).unwrap();
    let v = view_of(&config, "scaled");
    for theme in [Theme::light(), Theme::dark()] {
        for contrast in [Contrast::Seaborn, Contrast::More] {
            for dpr in [1.0, 2.0] {
                let style = Style { theme: theme.clone(), contrast, dpr, ..Style::default() };
                let (w, h) = preferred_size(&v, style.fmt);
                let (w, h) = ((w as f64 * dpr) as u32, (h as f64 * dpr) as u32);
                let l = layout(&v, &style, w, h);
                assert!(l.annotate);
                let colors = Colors::new(v.values.data(), None, v.palette);
                let grid = &raster(&v, &colors, &l, &style.theme)[0];
                let px = |x: i32, y: i32| {
                    let o = (((y - grid.y) as u32 * grid.width + (x - grid.x) as u32) * 4) as usize;
                    [grid.rgba[o], grid.rgba[o + 1], grid.rgba[o + 2]]
                };
                let r = l.cell(0, 2);
                let hole = l.hatch_hole(r, f64::NEG_INFINITY).expect("a box behind −∞");
                assert!(
                    hole.width() >= (2.0 * 0.6 * l.annot_font_px) as i32 && hole.height() as f64 >= l.annot_font_px
                );
                for y in hole.y0..hole.y1 {
                    for x in hole.x0..hole.x1 {
                        assert_eq!(px(x, y), theme.background, "({x}, {y}) behind −∞");
                    }
                }
                // Beside it, the hatch.
                let hatch = hatch_color(&theme);
                let beside = (r.y0..r.y1)
                    .flat_map(|y| (r.x0..hole.x0).map(move |x| (x, y)))
                    .filter(|&(x, y)| px(x, y) == hatch)
                    .count();
                assert!(beside > 0);
                assert!(contrast_ratio(theme.text, theme.background) >= 4.5);
                let svg = to_svg_sized(&v, &style, w, h).unwrap();
                let fill = format!("fill=\"{}\"", attention_viz::heatmap::palette::to_hex(theme.text));
                let minus = svg.split("<text ").filter(|t| t.contains("\u{2212}\u{221e}")).collect::<Vec<_>>();
                assert_eq!(minus.len(), 3);
                assert!(minus.iter().all(|t| t.contains(&fill)), "{minus:?}");
            }
        }
    }
}
