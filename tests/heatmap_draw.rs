//! The heatmap renderer against seaborn: cell colours, annotation strings and
//! text colours of real `sns.heatmap` figures (tests/fixtures/seaborn-goldens.json,
//! rendered by seaborn 0.13.2 itself), through the same code path the browser
//! uses, drawn into SVG and into a bitmap.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::attention::compute;
use attention_viz::heatmap::draw::{colorbar_ticks, draw, Colors, Layout, Style};
use attention_viz::heatmap::palette::{parse_hex, Rgb};
use attention_viz::heatmap::{raster, to_svg};
use attention_viz::math::Matrix;
use attention_viz::presets::preset;
use attention_viz::views::{self, View};
use common::seaborn_goldens as goldens;
use plotters::prelude::*;
use serde_json::Value;

fn figure(name: &str) -> Value {
    goldens()["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("{name}"))
        .clone()
}

fn strings(v: &Value) -> Vec<Vec<String>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect())
        .collect()
}

/// One `<rect>` or `<text>` of plotters' SVG output.
#[derive(Debug)]
struct Element {
    tag: &'static str,
    attrs: Vec<(String, String)>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> &str {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).unwrap_or("")
    }
    fn num(&self, name: &str) -> i32 {
        self.attr(name).parse::<f64>().unwrap_or(f64::NAN) as i32
    }
}

fn parse_svg(svg: &str) -> Vec<Element> {
    let mut out = vec![];
    for (tag, open) in [("rect", "<rect "), ("text", "<text ")] {
        let mut rest = svg;
        while let Some(p) = rest.find(open) {
            rest = &rest[p + open.len()..];
            let end = rest.find('>').unwrap();
            let head = &rest[..end];
            let mut attrs = vec![];
            for part in head.split('"').collect::<Vec<_>>().chunks(2) {
                if part.len() == 2 {
                    attrs.push((part[0].trim().trim_end_matches('=').to_string(), part[1].to_string()));
                }
            }
            let text = if tag == "text" {
                rest[end + 1..rest.find("</text>").unwrap()].trim().to_string()
            } else {
                String::new()
            };
            out.push(Element { tag, attrs, text });
        }
    }
    out
}

/// Asserts that every cell of `view`, drawn to SVG, has seaborn's fill, text and text colour.
fn assert_like_seaborn(view: &View, palette: Option<&str>, golden: &Value) {
    let style = Style { palette: palette.map(String::from), ..Style::default() };
    let svg = to_svg(view, &style).unwrap();
    let elements = parse_svg(&svg);
    let colors = Colors::new(view.values.data(), style.palette.as_deref(), view.palette);
    let (w, h) = attention_viz::heatmap::preferred_size(view, style.fmt);
    let layout = Layout::new(view, &colors, &style, w, h);
    let fills = strings(&golden["facecolors"]);
    let texts = strings(&golden["texts"]);
    let text_colors = strings(&golden["text_colors"]);
    for i in 0..layout.rows {
        for j in 0..layout.cols {
            let r = layout.cell(i, j);
            let rect = elements
                .iter()
                .find(|e| e.tag == "rect" && e.num("x") == r.x0 && e.num("y") == r.y0 && e.num("width") == r.width())
                .unwrap_or_else(|| panic!("{}: no rect for cell ({i}, {j})", view.name));
            let want: Rgb = parse_hex(&fills[i][j]).unwrap();
            let got: Rgb = parse_hex(rect.attr("fill")).unwrap();
            for c in 0..3 {
                assert!(
                    got[c].abs_diff(want[c]) <= 2,
                    "{} cell ({i},{j}): fill {} vs seaborn {}",
                    view.name,
                    rect.attr("fill"),
                    fills[i][j]
                );
            }
            assert!(rect.attr("fill").chars().all(|c| !c.is_ascii_uppercase()), "fills are lower-case #rrggbb");
            let (cx, cy) = ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
            let text = elements
                .iter()
                .find(|e| e.tag == "text" && e.num("x") == cx && e.num("y") == cy)
                .unwrap_or_else(|| panic!("{}: no annotation in cell ({i}, {j})", view.name));
            assert_eq!(text.text, texts[i][j], "{} cell ({i},{j}) annotation", view.name);
            assert_eq!(text.attr("fill"), text_colors[i][j], "{} cell ({i},{j}) text colour", view.name);
        }
    }
}

fn seed_view(preset_name: &str, view: &str) -> View {
    let config = preset(preset_name).unwrap();
    let trace = compute(&config).unwrap();
    views::view(&config, &trace, view).unwrap()
}

#[test]
fn seed_003_figures_read_like_the_document() {
    // The document's four figures, with the document's palettes as the views' defaults.
    for (view, golden) in [
        ("decoder_state", "seed003_decoder_state"),
        ("annotations", "seed003_annotations"),
        ("applied", "seed003_applied_attention"),
        ("context", "seed003_context_vector"),
    ] {
        let v = seed_view("seed-003", view);
        let g = figure(golden);
        assert_eq!(v.palette, g["cmap"].as_str().unwrap(), "{view} default palette");
        assert_like_seaborn(&v, None, &g);
    }
}

#[test]
fn seed_001_weights_with_rocket() {
    let v = seed_view("seed-001", "weights");
    assert_like_seaborn(&v, Some("rocket"), &figure("seed001_weights"));
    assert_like_seaborn(&seed_view("seed-001", "scaled"), Some("rocket"), &figure("seed001_scaled_scores"));
}

fn golden_view(golden: &Value) -> View {
    let rows: Vec<Vec<f64>> =
        strings(&golden["data"]).iter().map(|r| r.iter().map(|x| x.parse().unwrap()).collect()).collect();
    let values = Matrix::from_rows(&rows).unwrap();
    View {
        name: golden["name"].as_str().unwrap().into(),
        title: "golden".into(),
        row_labels: (0..values.rows()).map(|i| i.to_string()).collect(),
        col_labels: (0..values.cols()).map(|i| i.to_string()).collect(),
        values,
        palette: "sequential",
    }
}

#[test]
fn constant_and_signed_matrices() {
    for name in ["constant_matrix", "all_zeros", "negative_constant", "near_constant", "diverging_mixed"] {
        let g = figure(name);
        let palette = match g["cmap"].as_str().unwrap() {
            "vlag" => "diverging".to_string(),
            other => other.to_string(),
        };
        assert_like_seaborn(&golden_view(&g), Some(&palette), &g);
    }
}

#[test]
fn signed_data_defaults_to_the_diverging_map_centred_on_zero() {
    let g = figure("diverging_mixed");
    let view = golden_view(&g);
    let colors = Colors::new(view.values.data(), None, "purple");
    assert!(colors.diverging);
    assert_like_seaborn(&view, None, &g);
}

#[test]
fn nan_and_infinite_cells_are_grey_and_labelled() {
    let values = Matrix::from_rows(&[[1.0, f64::NAN], [f64::INFINITY, 0.5]]).unwrap();
    let view = View {
        name: "nan".into(),
        title: "nan".into(),
        row_labels: vec!["a".into(), "b".into()],
        col_labels: vec!["x".into(), "y".into()],
        values,
        palette: "purple",
    };
    let svg = to_svg(&view, &Style::default()).unwrap();
    assert!(svg.contains("#d0d0d0"), "grey not-a-number fill");
    let texts: Vec<String> = parse_svg(&svg).into_iter().filter(|e| e.tag == "text").map(|e| e.text).collect();
    assert!(texts.contains(&"nan".to_string()) && texts.contains(&"inf".to_string()), "{texts:?}");
    // A constant matrix draws in one colour, without dividing by zero.
    let view = View { values: Matrix::from_rows(&[[2.0, 2.0]]).unwrap(), ..view };
    assert!(to_svg(&view, &Style::default()).unwrap().contains("#ba78ba"));
}

#[test]
fn raster_matches_the_shapes() {
    // The pixel-buffer path (large grids in the browser) gives the same cell
    // colours and white gaps as the shape path.
    let v = seed_view("seed-003", "annotations");
    let style = Style::default();
    let colors = Colors::new(v.values.data(), None, v.palette);
    let layout = Layout::new(&v, &colors, &style, 300, 200);
    let blits = raster(&v, &colors, &layout, &style.theme);
    let grid = &blits[0];
    let px = |x: i32, y: i32| {
        let o = (((y - grid.y) as u32 * grid.width + (x - grid.x) as u32) * 4) as usize;
        [grid.rgba[o], grid.rgba[o + 1], grid.rgba[o + 2]]
    };
    for i in 0..layout.rows {
        for j in 0..layout.cols {
            let r = layout.cell(i, j);
            assert_eq!(px((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2), colors.color(v.values.get(i, j)).unwrap());
        }
    }
    let r = layout.cell(0, 0);
    assert_eq!(px(r.x1, (r.y0 + r.y1) / 2), [255, 255, 255], "1 px white gap right of a cell");
    assert_eq!(px((r.x0 + r.x1) / 2, r.y1), [255, 255, 255], "1 px white gap below a cell");
}

#[test]
fn bitmap_backend_draws_the_same_cells() {
    let v = seed_view("seed-003", "decoder_state");
    // The bitmap backend has no font here: cells, gaps and colour bar only.
    let style = Style { annotate: Some(false), show_title: false, show_labels: false, ..Style::default() };
    let (w, h) = (160u32, 200u32);
    let mut buf = vec![0u8; (w * h * 3) as usize];
    let colors = Colors::new(v.values.data(), None, v.palette);
    let layout = Layout::new(&v, &colors, &style, w, h);
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        draw(&root, &v, &colors, &layout, &style, true).unwrap();
    }
    let px = |x: i32, y: i32| {
        let o = ((y as u32 * w + x as u32) * 3) as usize;
        [buf[o], buf[o + 1], buf[o + 2]]
    };
    for (i, want) in ["#dbbedb", "#f3f0f3", "#800080"].iter().enumerate() {
        let r = layout.cell(i, 0);
        assert_eq!(px((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2), parse_hex(want).unwrap(), "row {i}");
        assert_eq!(px((r.x0 + r.x1) / 2, r.y1), [255, 255, 255], "white gap below row {i}");
    }
}

#[test]
fn colour_bar_ticks_are_round() {
    let labels = |lo, hi| colorbar_ticks(lo, hi, 5).into_iter().map(|(_, l)| l).collect::<Vec<_>>();
    assert_eq!(labels(1.0, 20.0), vec!["5", "10", "15", "20"]);
    assert_eq!(labels(0.0, 0.8807970779778823), vec!["0.0", "0.2", "0.4", "0.6", "0.8"]);
    assert_eq!(labels(148.0, 929.0), vec!["200", "400", "600", "800"]);
}

#[test]
fn every_view_of_every_preset_renders() {
    for name in attention_viz::presets::NAMES {
        let config = preset(name).unwrap();
        let trace = compute(&config).unwrap();
        for view in views::names(&config) {
            let v = views::view(&config, &trace, &view).unwrap();
            let svg = to_svg(&v, &Style::default()).unwrap();
            assert!(svg.starts_with("<svg"), "{name}/{view}");
            // The title, on one line or two.
            let texts: Vec<String> = parse_svg(&svg).into_iter().filter(|e| e.tag == "text").map(|e| e.text).collect();
            let title = v.title.replace('<', "&lt;");
            let joined = (0..texts.len()).find_map(|k| {
                let two = texts.get(k + 1).map(|next| format!("{} {next}", texts[k]));
                (texts[k] == title || two.as_deref() == Some(&title)).then_some(())
            });
            assert!(joined.is_some(), "{name}/{view}: no title {title:?} in {texts:?}");
        }
        assert!(views::view(&config, &trace, "nonsense").unwrap_err().contains("views are"));
    }
}

#[test]
fn cell_at_agrees_with_the_drawn_cells_to_the_pixel() {
    // Every pixel inside a drawn cell maps back to that cell, including each cell's first column and row.
    let v = seed_view("seed-003", "naive_weights");
    let style = Style::default();
    let colors = Colors::new(v.values.data(), None, v.palette);
    for (w, h) in [(391, 164), (500, 97), (333, 211)] {
        let layout = Layout::new(&v, &colors, &style, w, h);
        for i in 0..layout.rows {
            for j in 0..layout.cols {
                let r = layout.cell(i, j);
                for (x, y) in [(r.x0, r.y0), (r.x1 - 1, r.y1 - 1), ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2)] {
                    assert_eq!(
                        layout.cell_at(x as f64 + 0.5, y as f64 + 0.5),
                        Some((i, j)),
                        "{w}×{h} pixel ({x}, {y})"
                    );
                }
            }
        }
    }
}

/// Colors caches the colour bar's range; its norm must stay palette::linear_norm bit for bit.
#[test]
fn colors_norm_is_linear_norm() {
    use attention_viz::heatmap::palette::linear_norm;
    for values in [vec![0.0, 1.0, 3.5], vec![2.0, 2.0], vec![0.0, 0.0], vec![-1e-300, 1e-300], vec![-5.0, 1e6], vec![]]
    {
        let colors = Colors::new(&values, None, "sequential");
        for v in values.iter().copied().chain([0.25, -7.0, 1e7, f64::NAN]) {
            let (a, b) = (colors.norm(v), linear_norm(v, colors.vmin, colors.vmax));
            assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{values:?} at {v}: {a} vs {b}");
        }
    }
}

/// Token names reach the SVG as text: a C0 control (XML 1.0 forbids U+0001–U+0008, U+000B,
/// U+000C, U+000E–U+001F, U+FFFE, U+FFFF even as character references) must not make the file
/// unreadable, and a name that looks like a colour (`#ABCDEF`) is text, not a colour to
/// normalise. Checked with Python's XML parser (xml.etree) when python3 is there, and by
/// scanning for the forbidden characters either way.
#[test]
fn svg_export_is_well_formed_xml_and_keeps_texts_as_written() {
    let view = View {
        name: "weights".into(),
        title: "#ABCDEF title \u{1} <&>".into(),
        row_labels: vec!["a\u{1}b".into(), "#ABCDEF".into(), "tab\there".into()],
        col_labels: vec!["\u{FFFE}x\u{1F}".into(), "#C0FFEE".into(), "'\"".into()],
        values: Matrix::from_rows(&[vec![0.1, 0.2, 0.3], vec![0.4, 0.5, 0.6], vec![0.7, 0.8, 0.9]]).unwrap(),
        palette: "sequential",
    };
    let svg = to_svg(&view, &Style::default()).unwrap();
    let forbidden = |c: char| (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{FFFE}' || c == '\u{FFFF}';
    assert!(!svg.chars().any(forbidden), "a character XML 1.0 forbids is in the SVG");
    assert!(svg.contains("#ABCDEF") && svg.contains("#C0FFEE"), "token names were rewritten");
    // Colours are still normalised, in fill and stroke attributes.
    for attr in ["fill=\"#", "stroke=\"#"] {
        for (at, _) in svg.match_indices(attr) {
            let hex = &svg[at + attr.len()..at + attr.len() + 6];
            assert_eq!(hex, hex.to_ascii_lowercase(), "{attr}{hex}");
        }
    }
    let path = std::env::temp_dir().join(format!("attention-viz-svg-{}.svg", std::process::id()));
    std::fs::write(&path, &svg).unwrap();
    let parsed = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, xml.etree.ElementTree as E; E.fromstring(open(sys.argv[1], encoding='utf-8').read())",
        ])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match parsed {
        Ok(out) => assert!(
            out.status.success(),
            "python3's XML parser refuses the SVG: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => eprintln!("skipping the XML parser check: python3 cannot run ({e})"),
    }
}
