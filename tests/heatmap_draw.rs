//! The heatmap renderer against seaborn: cell colours, annotation strings and
//! text colours of real `sns.heatmap` figures (tests/fixtures/seaborn-goldens.json,
//! rendered by seaborn 0.13.2 itself), through the same code path the browser
//! uses, drawn into SVG and into a bitmap.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::attention::compute;
use attention_viz::config::Config;
use attention_viz::heatmap::draw::{
    colorbar_scale, colorbar_tick_space, draw, hatch_color, Colors, Contrast, Layout, Style, Theme, HATCH_CONTRAST,
    NAN_FILL,
};
use attention_viz::heatmap::format::{Fmt, NEG_INF_TEXT};
use attention_viz::heatmap::palette::{contrast_ratio, parse_hex, to_hex, Rgb};
use attention_viz::heatmap::{raster, to_svg, to_svg_sized};
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

/// A golden's table of strings; a cell seaborn leaves undrawn (NaN: null in the fixture) is "".
fn strings(v: &Value) -> Vec<Vec<String>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().iter().map(|x| x.as_str().unwrap_or("").to_string()).collect())
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
            if fills[i][j].is_empty() {
                continue; // NaN: seaborn draws nothing there, the core its grey (nan_cells_are_grey_…)
            }
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

fn seed_view(preset_name: &str, view: &str) -> View<'static> {
    let config = preset(preset_name).unwrap();
    let trace = compute(&config).unwrap();
    views::view(&config, &trace, view).unwrap().into_owned()
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

fn golden_view(golden: &Value) -> View<'_> {
    let rows: Vec<Vec<f64>> =
        strings(&golden["data"]).iter().map(|r| r.iter().map(|x| x.parse().unwrap()).collect()).collect();
    let values = Matrix::from_rows(&rows).unwrap();
    View {
        name: golden["name"].as_str().unwrap().into(),
        title: "golden".into(),
        row_labels: (0..values.rows()).map(|i| i.to_string()).collect(),
        col_labels: (0..values.cols()).map(|i| i.to_string()).collect(),
        values: values.into(),
        palette: "sequential",
        marks: Default::default(),
        range: None,
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

/// A view whose finite values are all equal is drawn as seaborn draws it: matplotlib's colour bar widens the singular
/// range in place (0 to ±0.1, else ±10 %) and the cells are coloured with it, so zeros take rocket's middle, a red,
/// not its lowest colour, and the bar reads −0.1 … 0.1. `sns.heatmap(np.zeros((4, 4)), annot=True)`, and seed 003's
/// naive weights as the core computes them (inf / inf where exp overflows, 0 elsewhere).
#[test]
fn constant_views_are_coloured_as_seaborn_colours_them() {
    let zeros = figure("zeros_default_cmap");
    assert_like_seaborn(&golden_view(&zeros), None, &zeros);
    let config = preset("seed-003").unwrap();
    let trace = compute(&config).unwrap();
    let naive = views::view(&config, &trace, "naive_weights").unwrap();
    let golden = figure("seed003_naive_weights");
    let want: Vec<String> = strings(&golden["data"])[0].iter().map(|x| x.replace(".0", "")).collect();
    let got: Vec<String> = naive.values.row(0).iter().map(|x| x.to_string().to_lowercase()).collect();
    assert_eq!(got, want, "the core's naive weights are the golden's data");
    assert_like_seaborn(&naive, None, &golden);
    let (w, h) = attention_viz::heatmap::preferred_size(&naive, Fmt::default());
    let texts: Vec<String> = parse_svg(&to_svg_sized(&naive, &Style::default(), w, h).unwrap())
        .into_iter()
        .filter(|e| e.tag == "text")
        .map(|e| e.text)
        .collect();
    for end in ["\u{2212}0.1", "0.1"] {
        assert!(texts.contains(&end.to_string()), "the bar's end {end}: {texts:?}");
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
fn nan_cells_are_grey_and_infinite_cells_hatched() {
    let values = Matrix::from_rows(&[[1.0, f64::NAN], [f64::INFINITY, 0.5]]).unwrap();
    let view = View {
        name: "nan".into(),
        title: "nan".into(),
        row_labels: vec!["a".into(), "b".into()].into(),
        col_labels: vec!["x".into(), "y".into()].into(),
        values: values.into(),
        palette: "purple",
        marks: Default::default(),
        range: None,
    };
    let svg = to_svg(&view, &Style::default()).unwrap();
    assert!(svg.contains("#d0d0d0"), "grey not-a-number fill");
    assert!(svg.contains(&to_hex(hatch_color(&Theme::light()))), "hatched +inf");
    let texts: Vec<String> = parse_svg(&svg).into_iter().filter(|e| e.tag == "text").map(|e| e.text).collect();
    assert!(texts.contains(&"nan".to_string()) && texts.contains(&"∞".to_string()), "{texts:?}");
    // A constant matrix draws in one colour, without dividing by zero.
    let view = View { values: Matrix::from_rows(&[[2.0, 2.0]]).unwrap().into(), ..view };
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
fn raster_of_more_cells_than_pixels_paints_every_pixel_its_cells_colour() {
    // 400 × 400 values on a 300 × 300 canvas: most cells are a pixel or none (the n = 1024 case); the raster skips the
    // colours of rows and columns no pixel shows, and every pixel it paints is still its own cell's colour.
    let n = 400;
    let values: Vec<f64> = (0..n * n).map(|k| ((k * 7919) % 1000) as f64 / 999.0).collect();
    let v = View { values: Matrix::from_vec(n, n, values).unwrap().into(), ..seed_view("seed-003", "annotations") };
    let v = View {
        row_labels: (0..n).map(|i| i.to_string()).collect(),
        col_labels: (0..n).map(|i| i.to_string()).collect(),
        ..v
    };
    let style = Style::default();
    let colors = Colors::new(v.values.data(), None, v.palette);
    let layout = Layout::new(&v, &colors, &style, 300, 300);
    let grid = &raster(&v, &colors, &layout, &style.theme)[0];
    let px = |x: i32, y: i32| {
        let o = (((y - grid.y) as u32 * grid.width + (x - grid.x) as u32) * 4) as usize;
        [grid.rgba[o], grid.rgba[o + 1], grid.rgba[o + 2]]
    };
    // Where cells share a pixel, the later row and column own it (cells are drawn in reading order).
    let mut want = std::collections::HashMap::new();
    for i in 0..layout.rows {
        for j in 0..layout.cols {
            let r = layout.cell(i, j);
            for y in r.y0..r.y1 {
                for x in r.x0..r.x1 {
                    want.insert((x, y), (i, j));
                }
            }
        }
    }
    for (&(x, y), &(i, j)) in &want {
        assert_eq!(px(x, y), colors.color(v.values.get(i, j)).unwrap(), "cell [{i}, {j}] at ({x}, {y})");
    }
    assert!(want.len() > 10_000, "{} pixels checked", want.len());
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

/// Every colour bar in tests/fixtures/colorbar-ticks.json (tests/goldens/gen_colorbar_ticks.py: real
/// `sns.heatmap` figures, seaborn 0.13.2, the seed documents' figure sizes and more): the same
/// tick values, labels and offset text for the same range and tick space.
#[test]
fn colour_bar_ticks_are_seaborns() {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/colorbar-ticks.json")).unwrap();
    let float = |v: &Value| v.as_str().unwrap().parse::<f64>().unwrap();
    let cases: Vec<&Value> =
        fixture["seed_figures"].as_array().unwrap().iter().chain(fixture["more"].as_array().unwrap()).collect();
    assert!(cases.len() > 100);
    let mut wrong = vec![];
    for case in cases {
        let (vmin, vmax) = (float(&case["vmin"]), float(&case["vmax"]));
        // matplotlib's tick space, from the bar's length and label size the fixture recorded.
        let space =
            colorbar_tick_space(case["bar_length_pt"].as_f64().unwrap(), case["label_size_pt"].as_f64().unwrap());
        assert_eq!(space as u64, case["tick_space"].as_u64().unwrap(), "{}", case["name"]);
        let got = colorbar_scale(vmin, vmax, space);
        let labels: Vec<&str> = got.ticks.iter().map(|(_, l)| l.as_str()).collect();
        let want: Vec<&str> = case["labels"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        let want_at: Vec<f64> = case["ticks"].as_array().unwrap().iter().map(float).collect();
        let span = vmax - vmin;
        let at_ok = got.ticks.len() == want_at.len()
            && got.ticks.iter().zip(&want_at).all(|((v, _), w)| (v - w).abs() <= 1e-12 * span.abs().max(1.0));
        if labels != want || !at_ok || got.offset != case["offset_text"].as_str().unwrap() {
            wrong.push(format!(
                "{}: got {labels:?} {:?} at {:?}, seaborn {want:?} {:?} at {want_at:?}",
                case["name"],
                got.offset,
                got.ticks.iter().map(|t| t.0).collect::<Vec<_>>(),
                case["offset_text"]
            ));
        }
    }
    assert!(wrong.is_empty(), "{} colour bars differ from seaborn's:\n{}", wrong.len(), wrong.join("\n"));
}

/// The drawn figure writes the ticks the colour bar's length allows, and matplotlib's offset
/// text above the bar when the labels leave out a common exponent.
#[test]
fn the_colour_bar_draws_its_ticks_and_offset() {
    let view = |rows: &[Vec<f64>]| {
        let values = Matrix::from_rows(rows).unwrap();
        View {
            name: "v".into(),
            title: "t".into(),
            row_labels: (0..values.rows()).map(|i| i.to_string()).collect(),
            col_labels: (0..values.cols()).map(|i| i.to_string()).collect(),
            values: values.into(),
            palette: "sequential",
            marks: Default::default(),
            range: None,
        }
    };
    let texts = |v: &View, w: u32, h: u32| -> Vec<String> {
        parse_svg(&to_svg_sized(v, &Style::default(), w, h).unwrap())
            .into_iter()
            .filter(|e| e.tag == "text")
            .map(|e| e.text)
            .collect()
    };
    let tiny = view(&[vec![1e-6, 5e-6], vec![9e-6, 2e-6]]);
    let got = texts(&tiny, 300, 300);
    assert!(got.contains(&"1e\u{2212}6".to_string()), "{got:?}");
    // A tall bar has room for more ticks than a short one, as in matplotlib.
    let weights = view(&[vec![0.0, 0.8807970779778823]]);
    let ticks = |h| texts(&weights, 300, h).into_iter().filter(|t| t.starts_with("0.")).count();
    assert!(ticks(400) > ticks(120), "{} ≤ {}", ticks(400), ticks(120));
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
/// normalise. Checked with Python's XML parser (xml.etree: python3 is one of the project's
/// requirements), and by scanning for the forbidden characters.
#[test]
fn svg_export_is_well_formed_xml_and_keeps_texts_as_written() {
    let view = View {
        name: "weights".into(),
        title: "#ABCDEF title \u{1} <&>".into(),
        row_labels: vec!["a\u{1}b".into(), "#ABCDEF".into(), "tab\there".into()].into(),
        col_labels: vec!["\u{FFFE}x\u{1F}".into(), "#C0FFEE".into(), "'\"".into()].into(),
        values: Matrix::from_rows(&[vec![0.1, 0.2, 0.3], vec![0.4, 0.5, 0.6], vec![0.7, 0.8, 0.9]]).unwrap().into(),
        palette: "sequential",
        marks: Default::default(),
        range: None,
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
        Err(e) => panic!("python3 cannot run ({e}): it parses the SVG"),
    }
}

// ---------------------------------------------------------------------------
// Masked scores (−∞) and the NaN rows of masked_row "nan"
// ---------------------------------------------------------------------------

fn masked_view(json: &str, name: &str) -> View<'static> {
    let config = Config::from_json(json).unwrap();
    let trace = compute(&config).unwrap();
    views::view(&config, &trace, name).unwrap().into_owned()
}

const CAUSAL: &str = r#"{"embeddings": [[1,0],[0,1],[1,1]], "mask": "causal"}"#;

/// The `<polyline>`s of an SVG in one stroke colour, as point lists.
fn polylines(svg: &str, stroke: &str) -> Vec<Vec<(i32, i32)>> {
    let mut out = vec![];
    let mut rest = svg;
    while let Some(p) = rest.find("<polyline ") {
        rest = &rest[p..];
        let head = &rest[..rest.find('>').unwrap()];
        rest = &rest[1..];
        if !head.contains(&format!("stroke=\"{stroke}\"")) {
            continue;
        }
        let at = head.find("points=\"").unwrap() + 8;
        let points = &head[at..at + head[at..].find('"').unwrap()];
        out.push(
            points
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect(),
        );
    }
    out
}

/// Whether a "/" hatch line (lower left to upper right, x + y constant) crosses the inside of a cell.
fn crosses(line: &[(i32, i32)], r: attention_viz::heatmap::draw::Rect) -> bool {
    let [(xa, ya), (xb, yb)] = line[..] else { panic!("a hatch line has two points: {line:?}") };
    assert_eq!(xa + ya, xb + yb, "{line:?} is not a / diagonal");
    let k = xa + ya;
    let (lo, hi) = (xa.max(r.x0).max(k - r.y1), xb.min(r.x1).min(k - r.y0));
    hi > lo
}

/// The values of a view that are finite, for the colour range seaborn would compute without them.
fn finite(view: &View) -> Vec<f64> {
    view.values.data().iter().copied().filter(|v| v.is_finite()).collect()
}

/// The causal mask's scaled scores in SVG, in both themes and both contrasts: each −∞ cell is
/// the background (never a palette colour) with diagonal lines in the hatch colour and "−∞" in
/// the text colour; every other cell has the colour it gets when the −∞ cells are left out.
#[test]
fn masked_scores_are_hatched_with_minus_infinity_and_leave_the_palette_alone() {
    let view = masked_view(CAUSAL, "scaled");
    let (rows, cols) = view.values.shape();
    let masked: Vec<(usize, usize)> =
        (0..rows).flat_map(|i| (0..cols).map(move |j| (i, j))).filter(|&(i, j)| j > i).collect();
    for &(i, j) in &masked {
        assert_eq!(view.values.get(i, j), f64::NEG_INFINITY, "scaled[{i}][{j}]");
    }
    // The palette's range ignores ±∞: the same as the finite values' alone.
    let colors = Colors::new(view.values.data(), None, view.palette);
    let without = Colors::new(&finite(&view), None, view.palette);
    assert_eq!((colors.vmin, colors.vmax), (without.vmin, without.vmax));
    assert!(colors.vmin.is_finite() && colors.vmax.is_finite() && colors.vmin < colors.vmax);
    assert_eq!(colors.palette_name(), without.palette_name());
    for theme in [Theme::light(), Theme::dark()] {
        for contrast in [Contrast::Seaborn, Contrast::More] {
            let style = Style { theme: theme.clone(), contrast, ..Style::default() };
            let what = format!("{:?}/{contrast:?}", theme.background);
            let svg = to_svg(&view, &style).unwrap();
            let elements = parse_svg(&svg);
            let (w, h) = attention_viz::heatmap::preferred_size(&view, style.fmt);
            let layout = Layout::new(&view, &colors, &style, w, h);
            let hatch = to_hex(hatch_color(&theme));
            let lines = polylines(&svg, &hatch);
            let palette: Vec<Rgb> = finite(&view).iter().map(|&v| colors.color(v).unwrap()).collect();
            for i in 0..rows {
                for j in 0..cols {
                    let r = layout.cell(i, j);
                    let rect = elements
                        .iter()
                        .find(|e| {
                            e.tag == "rect" && e.num("x") == r.x0 && e.num("y") == r.y0 && e.num("width") == r.width()
                        })
                        .unwrap_or_else(|| panic!("{what}: no rect for cell ({i}, {j})"));
                    let fill = parse_hex(rect.attr("fill")).unwrap();
                    let (cx, cy) = ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
                    let text = elements
                        .iter()
                        .find(|e| e.tag == "text" && e.num("x") == cx && e.num("y") == cy)
                        .unwrap_or_else(|| panic!("{what}: no annotation in cell ({i}, {j})"));
                    let hatched = lines.iter().filter(|l| crosses(l, r)).count();
                    if masked.contains(&(i, j)) {
                        assert_eq!(fill, theme.background, "{what}: −∞ cell ({i}, {j}) is the background");
                        assert!(!palette.contains(&fill), "{what}: −∞ cell ({i}, {j}) in a palette colour");
                        assert!(hatched >= 3, "{what}: −∞ cell ({i}, {j}) has {hatched} hatch lines");
                        assert_eq!(text.text, NEG_INF_TEXT, "{what}: cell ({i}, {j})");
                        assert_eq!(text.text, "\u{2212}\u{221e}");
                        let ink = parse_hex(text.attr("fill")).unwrap();
                        assert_eq!(ink, theme.text, "{what}: −∞ in the theme's text colour");
                        assert!(contrast_ratio(ink, theme.background) >= 4.5, "{what}: −∞ text contrast");
                    } else {
                        let v = view.values.get(i, j);
                        assert_eq!(fill, without.color(v).unwrap(), "{what}: cell ({i}, {j}) = {v}");
                        assert_eq!(hatched, 0, "{what}: finite cell ({i}, {j}) hatched");
                        assert_ne!(text.text, NEG_INF_TEXT);
                    }
                }
            }
            // The hatch: a muted line colour at 3:1 at least on the background, unlike the NaN grey.
            let hc = hatch_color(&theme);
            assert!(contrast_ratio(hc, theme.background) >= HATCH_CONTRAST, "{what}: hatch {hatch}");
            assert!(contrast_ratio(hc, theme.background) < contrast_ratio(theme.text, theme.background));
            assert_ne!(hc, NAN_FILL);
        }
    }
    // The colour bar's ticks and the figure's size are those of the finite values.
    let (w, h) = attention_viz::heatmap::preferred_size(&view, Fmt::default());
    assert!(w < 900 && h < 900);
}

/// The bitmap backend and `raster` (the browser's path for big grids) paint each −∞ cell in
/// the background and the hatch colour only, and the same pixels as hatch.
#[test]
fn masked_cells_are_hatched_in_the_bitmap_and_the_raster() {
    let view = masked_view(CAUSAL, "scaled");
    for theme in [Theme::light(), Theme::dark()] {
        for dpr in [1.0, 2.0] {
            let style = Style {
                theme: theme.clone(),
                dpr,
                annotate: Some(false),
                show_title: false,
                show_labels: false,
                ..Style::default()
            };
            let (w, h) = ((240.0 * dpr) as u32, (160.0 * dpr) as u32);
            let colors = Colors::new(view.values.data(), None, view.palette);
            let layout = Layout::new(&view, &colors, &style, w, h);
            let mut buf = vec![0u8; (w * h * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
                draw(&root, &view, &colors, &layout, &style, true).unwrap();
            }
            let bitmap = |x: i32, y: i32| {
                let o = ((y as u32 * w + x as u32) * 3) as usize;
                [buf[o], buf[o + 1], buf[o + 2]]
            };
            let blits = raster(&view, &colors, &layout, &style.theme);
            let grid = &blits[0];
            let rastered = |x: i32, y: i32| {
                let o = (((y - grid.y) as u32 * grid.width + (x - grid.x) as u32) * 4) as usize;
                [grid.rgba[o], grid.rgba[o + 1], grid.rgba[o + 2]]
            };
            let hatch = hatch_color(&theme);
            let what = format!("{:?} at {dpr}", theme.background);
            for i in 0..layout.rows {
                for j in 0..layout.cols {
                    let r = layout.cell(i, j);
                    let v = view.values.get(i, j);
                    if v.is_finite() {
                        let c = colors.color(v).unwrap();
                        assert_eq!(bitmap((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2), c, "{what}: ({i}, {j})");
                        assert_eq!(rastered((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2), c, "{what}: ({i}, {j})");
                        continue;
                    }
                    // The gap to the right of a masked cell whose neighbour is masked too: lines cross
                    // it, then the gap is painted again.
                    if j + 1 < layout.cols && view.values.get(i, j + 1).is_infinite() {
                        let gap = theme.gap_color(&colors);
                        for y in r.y0..r.y1 {
                            for x in r.x1..layout.cell(i, j + 1).x0 {
                                assert_eq!(bitmap(x, y), gap, "{what}: gap pixel ({x}, {y}) right of ({i}, {j})");
                                assert_eq!(rastered(x, y), gap, "{what}: raster gap pixel ({x}, {y})");
                            }
                        }
                    }
                    let (mut on_bitmap, mut on_raster, mut agree, mut total) = (0, 0, 0, 0);
                    for y in r.y0..r.y1 {
                        for x in r.x0..r.x1 {
                            let (b, p) = (bitmap(x, y), rastered(x, y));
                            assert!(
                                p == hatch || p == theme.background,
                                "{what}: raster ({x}, {y}) of ({i}, {j}) is {p:?}"
                            );
                            assert_eq!(p == hatch, layout.on_hatch(x, y), "{what}: raster ({x}, {y})");
                            // The bitmap's lines are anti-aliased at their ends: a mix of the two colours.
                            let between = (0..3).all(|k| {
                                let (lo, hi) = (hatch[k].min(theme.background[k]), hatch[k].max(theme.background[k]));
                                b[k] >= lo && b[k] <= hi
                            });
                            assert!(between, "{what}: bitmap ({x}, {y}) of ({i}, {j}) is {b:?}");
                            on_bitmap += usize::from(b == hatch);
                            on_raster += usize::from(p == hatch);
                            // plotters' bitmap puts a line through pixel corners on the pixels below
                            // and right of it; `raster` (like an anti-aliased canvas) on those whose
                            // centres it crosses: one diagonal apart.
                            agree += usize::from((b == hatch) == layout.on_hatch(x - 1, y));
                            total += 1;
                        }
                    }
                    // About one pixel in 6 (one in 3 at 2 px lines) is on a line.
                    assert!(
                        on_raster * 10 >= total && on_raster * 2 <= total,
                        "{what}: ({i}, {j}) {on_raster}/{total}"
                    );
                    assert!(on_bitmap * 10 >= total, "{what}: ({i}, {j}) bitmap {on_bitmap}/{total}");
                    // At 1 px the two paint the same lines (plotters' bitmap widens a 2 px line with
                    // vertices cut to whole pixels, so only 1 px lines compare).
                    if layout.hatch_width() == 1 {
                        assert!(
                            agree * 10 >= total * 9,
                            "{what}: ({i}, {j}) bitmap and raster agree on {agree}/{total}"
                        );
                    }
                }
            }
        }
    }
}

/// A causal mask on a grid too big for one shape per cell (the browser rasters it): the upper
/// triangle is hatched across its tiny cells, never in a palette colour; the lower keeps its colours.
#[test]
fn a_big_causal_mask_is_one_hatched_triangle() {
    let n = 40;
    let rows: Vec<String> =
        (0..n).map(|i| format!("[{}, {}]", (i as f64 * 0.37).sin(), (i as f64 * 0.11).cos())).collect();
    let json = format!(r#"{{"embeddings": [{}], "mask": "causal"}}"#, rows.join(","));
    let view = masked_view(&json, "scaled");
    assert!(n * n > attention_viz::heatmap::draw::SHAPES_MAX_CELLS);
    let style = Style::default();
    let colors = Colors::new(view.values.data(), None, view.palette);
    let without = Colors::new(&finite(&view), None, view.palette);
    assert_eq!((colors.vmin, colors.vmax), (without.vmin, without.vmax));
    let (w, h) = attention_viz::heatmap::preferred_size(&view, style.fmt);
    let layout = Layout::new(&view, &colors, &style, w, h);
    let blits = raster(&view, &colors, &layout, &style.theme);
    let grid = &blits[0];
    let px = |x: i32, y: i32| {
        let o = (((y - grid.y) as u32 * grid.width + (x - grid.x) as u32) * 4) as usize;
        [grid.rgba[o], grid.rgba[o + 1], grid.rgba[o + 2]]
    };
    let hatch = hatch_color(&style.theme);
    let (mut on, mut total) = (0, 0);
    for i in 0..n {
        for j in 0..n {
            let r = layout.cell(i, j);
            for y in r.y0..r.y1 {
                for x in r.x0..r.x1 {
                    let p = px(x, y);
                    if j > i {
                        assert!(p == hatch || p == style.theme.background, "({i}, {j}) pixel ({x}, {y}) is {p:?}");
                        on += usize::from(p == hatch);
                        total += 1;
                    } else {
                        assert_eq!(p, colors.color(view.values.get(i, j)).unwrap(), "({i}, {j})");
                    }
                }
            }
        }
    }
    assert!(on * 10 >= total && on * 3 <= total, "{on} of {total} masked pixels on the hatch");
    // Its SVG (one shape per cell) is hatched too, and draws no "−∞" where numbers are hidden.
    let svg = to_svg(&view, &style).unwrap();
    assert!(!polylines(&svg, &to_hex(hatch)).is_empty());
}

/// masked_row "nan": a query whose every key is masked gets a row of NaN weights, drawn as
/// before (grey, "nan"), distinct from the hatched −∞ of its scaled scores.
#[test]
fn a_fully_masked_row_is_nan_and_grey() {
    let json = r#"{"embeddings": [[1,0],[0,1],[1,1]], "mask": [[0,0,0],[1,1,0],[1,1,1]], "masked_row": "nan"}"#;
    let weights = masked_view(json, "weights");
    assert!(weights.values.row(0).iter().all(|v| v.is_nan()), "{:?}", weights.values.row(0));
    let svg = to_svg(&weights, &Style::default()).unwrap();
    let colors = Colors::new(weights.values.data(), None, weights.palette);
    let (w, h) = attention_viz::heatmap::preferred_size(&weights, Fmt::default());
    let layout = Layout::new(&weights, &colors, &Style::default(), w, h);
    let elements = parse_svg(&svg);
    for j in 0..3 {
        let r = layout.cell(0, j);
        let rect = elements
            .iter()
            .find(|e| e.tag == "rect" && e.num("x") == r.x0 && e.num("y") == r.y0 && e.num("width") == r.width())
            .unwrap();
        assert_eq!(parse_hex(rect.attr("fill")).unwrap(), NAN_FILL);
        let (cx, cy) = ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
        assert!(elements.iter().any(|e| e.tag == "text" && e.num("x") == cx && e.num("y") == cy && e.text == "nan"));
    }
    assert!(polylines(&svg, &to_hex(hatch_color(&Theme::light()))).is_empty(), "weights are never hatched");
    // The masked weights of the other rows are 0: coloured like any 0.
    assert_eq!(weights.values.get(1, 2), 0.0);
    // Its scaled scores: row 0 all −∞, hatched.
    let scaled = masked_view(json, "scaled");
    let svg = to_svg(&scaled, &Style::default()).unwrap();
    let minus: usize = parse_svg(&svg).iter().filter(|e| e.tag == "text" && e.text == NEG_INF_TEXT).count();
    assert_eq!(minus, 4, "three in row 0, one in row 1");
}

/// Every fmt spec writes −∞, ∞ and NaN cells without a panic, as "−∞", "∞" and "nan".
#[test]
fn every_fmt_draws_the_masked_cells() {
    let view = masked_view(CAUSAL, "scaled");
    let odd = View {
        values: Matrix::from_rows(&[[f64::NEG_INFINITY, f64::INFINITY, f64::NAN], [1.0, -2.0, 3.0], [0.0, 4.0, 5.0]])
            .unwrap()
            .into(),
        ..view.clone()
    };
    for spec in [".2g", ".3g", ".1g", "g", ".2f", ".0f", "f", ".2e", "e", ".1%", ".0%", "%", "d", ".17g", ".100f"] {
        let fmt = Fmt::parse(spec).unwrap();
        for v in [&view, &odd] {
            let style = Style { fmt, ..Style::default() };
            let svg = match (fmt, to_svg(v, &style)) {
                (Fmt::Int, Err(e))
                    if v.name == "scaled" && v.values.data().iter().any(|x| x.is_finite() && x.fract() != 0.0) =>
                {
                    assert!(e.contains("whole numbers"), "{e}");
                    continue;
                }
                (_, r) => r.unwrap_or_else(|e| panic!("{spec}: {e}")),
            };
            let texts: Vec<String> = parse_svg(&svg).into_iter().filter(|e| e.tag == "text").map(|e| e.text).collect();
            let want = v.values.data().iter().filter(|x| **x == f64::NEG_INFINITY).count();
            let got = texts.iter().filter(|t| *t == NEG_INF_TEXT).count();
            // Every −∞ cell says so, unless the note says the numbers are hidden.
            if !texts.iter().any(|t| t.starts_with("numbers hidden")) {
                assert_eq!(got, want, "{spec}: {texts:?}");
            }
            assert!(!texts.iter().any(|t| t.contains("inf")), "{spec}: Python's inf in a cell: {texts:?}");
            if v.values.data().iter().any(|x| x.is_nan()) {
                assert!(texts.contains(&"nan".to_string()), "{spec}: {texts:?}");
            }
        }
    }
}

/// Property: any mask (matrix, causal, valid lengths), any masked_row, theme, dpr and size —
/// drawing never panics, and no −∞ cell is ever in a palette colour (raster and SVG alike);
/// the colour range is the finite values' range.
#[test]
fn any_mask_draws_hatched_never_coloured() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestRng, TestRunner};
    let case = (
        1usize..7,
        1usize..4,
        any::<u64>(),
        any::<u64>(),
        0usize..3,
        any::<bool>(),
        0usize..4,
        120u32..500,
        80u32..400,
    );
    let config = RunnerConfig {
        cases: 48,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        ..RunnerConfig::default()
    };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let checked = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&case, |(n, d, seed, bits, kind, dark, dpr, w, h)| {
            let mut x = seed;
            let mut next = || {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((x >> 33) as f64 / (1u64 << 31) as f64) * 4.0 - 2.0
            };
            let emb: Vec<String> = (0..n)
                .map(|_| format!("[{}]", (0..d).map(|_| format!("{:.3}", next())).collect::<Vec<_>>().join(",")))
                .collect();
            let mask: Vec<String> = (0..n)
                .map(|i| {
                    format!(
                        "[{}]",
                        (0..n).map(|j| ((bits >> ((i * n + j) % 64)) & 1).to_string()).collect::<Vec<_>>().join(",")
                    )
                })
                .collect();
            let masked_row = ["zero", "uniform", "nan"][kind];
            let json = format!(
                r#"{{"embeddings": [{}], "mask": [{}], "masked_row": "{masked_row}"}}"#,
                emb.join(","),
                mask.join(",")
            );
            let config = Config::from_json(&json).map_err(|e| TestCaseError::fail(e.0))?;
            let trace = compute(&config).map_err(|e| TestCaseError::fail(e.0))?;
            let theme = if dark { Theme::dark() } else { Theme::light() };
            let dpr = [1.0, 1.5, 2.0, 3.0][dpr];
            // Canvas sizes in CSS pixels, so every dpr gets figures of every size.
            let (w, h) = ((w as f64 * dpr) as u32, (h as f64 * dpr) as u32);
            for name in ["scaled", "weights", "mask"] {
                let view = views::view(&config, &trace, name).map_err(TestCaseError::fail)?;
                let colors = Colors::new(view.values.data(), None, view.palette);
                let without = Colors::new(&finite(&view), None, view.palette);
                prop_assert_eq!((colors.vmin, colors.vmax), (without.vmin, without.vmax));
                let style = Style { theme: theme.clone(), dpr, ..Style::default() };
                let layout = Layout::new(&view, &colors, &style, w, h);
                let grid = &raster(&view, &colors, &layout, &style.theme)[0];
                let hatch = hatch_color(&theme);
                // On a canvas too small for its chrome, cells shrink to one shared pixel: nothing to compare.
                let distinct =
                    layout.grid.width() as usize >= 2 * layout.cols && layout.grid.height() as usize >= 2 * layout.rows;
                for i in 0..if distinct { layout.rows } else { 0 } {
                    for j in 0..layout.cols {
                        let v = view.values.get(i, j);
                        let r = layout.cell(i, j);
                        for (x, y) in [(r.x0, r.y0), ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2), (r.x1 - 1, r.y1 - 1)] {
                            let o = (((y - grid.y) as u32 * grid.width + (x - grid.x) as u32) * 4) as usize;
                            let p = [grid.rgba[o], grid.rgba[o + 1], grid.rgba[o + 2]];
                            if v.is_infinite() {
                                prop_assert!(p == hatch || p == theme.background, "{}: ({}, {}) {:?}", name, i, j, p);
                            } else if v.is_nan() {
                                prop_assert!(p != theme.background || theme.background == NAN_FILL);
                            } else {
                                prop_assert_eq!(p, colors.color(v).unwrap());
                            }
                        }
                    }
                }
                let svg = to_svg_sized(&view, &style, w, h).map_err(TestCaseError::fail)?;
                let lines = !polylines(&svg, &to_hex(hatch)).is_empty();
                prop_assert!(lines <= view.values.data().iter().any(|v| v.is_infinite()), "{}: hatch without ±∞", name);
                // Each ±∞ cell that is on the canvas and a hatch period wide and high has lines.
                let (p, g) = (layout.hatch_period(), layout.grid);
                let roomy = g.x1 as u32 <= w && g.y1 as u32 <= h && {
                    let c = layout.cell(0, 0);
                    c.width() >= p && c.height() >= p
                };
                if roomy {
                    checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    prop_assert_eq!(lines, view.values.data().iter().any(|v| v.is_infinite()), "{}", name);
                }
                prop_assert!(!svg.contains(">-inf<") && !svg.contains(">inf<"));
            }
            Ok(())
        })
        .unwrap();
    let checked = checked.into_inner();
    assert!(checked >= 80, "only {checked} views roomy enough to check their hatch: the generator drifted");
}

/// Every heatmap SVG parses as XML 1.0 whatever the token names hold: C0 controls, U+FFFE/U+FFFF and
/// markup characters, on every view of a self- and a cross-attention config, in both themes.
#[test]
fn heatmap_svgs_are_xml_for_hostile_tokens() {
    let tokens = ["a\u{1}b", "<&>\"'", "\u{FFFE}\u{FFFF}", "\u{0}\u{1F}\u{B}"];
    let configs = [
        serde_json::json!({ "embeddings": [[1, 0], [0, 1], [1, 1], [0.5, 2]], "tokens": tokens, "mask": "causal" }),
        serde_json::json!({ "decoder_state": [1, 2], "annotations": [[1, 0], [0, 1], [1, 1], [2, 2]], "tokens": tokens }),
    ];
    for json in configs {
        let config = Config::from_value(&json).unwrap();
        let trace = compute(&config).unwrap();
        for view in views::names(&config) {
            let v = views::view(&config, &trace, &view).unwrap();
            for theme in [Theme::light(), Theme::dark()] {
                let svg = to_svg(&v, &Style { theme, ..Style::default() }).unwrap();
                let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{view}: not XML ({e})"));
                let text: String = doc.descendants().filter_map(|n| n.text()).collect();
                assert!(!text.contains('\u{1}') && !text.contains('\u{FFFE}'), "{view}: forbidden characters dropped");
            }
        }
    }
}

#[test]
fn the_raster_of_a_small_plain_grid_is_its_shapes_pixel_for_pixel() {
    // The browser blits every grid whose cells are all palette colours (`plain`), small ones too: its cells, gaps and
    // colour bar (in the shapes' 2 px bands) are the pixels the shapes give, in both themes.
    for dark in [false, true] {
        for (name, view) in [("seed-001", "weights"), ("seed-001", "q"), ("seed-003", "annotations")] {
            let v = seed_view(name, view);
            let theme = if dark { Theme::dark() } else { Theme::light() };
            let style =
                Style { annotate: Some(false), show_title: false, show_labels: false, theme, ..Style::default() };
            let colors = Colors::new(v.values.data(), None, v.palette);
            let (w, h) = (300u32, 200u32);
            let l = Layout::new(&v, &colors, &style, w, h);
            assert!(attention_viz::heatmap::draw::plain(&v, &colors), "{name} {view}");
            let mut buf = vec![0u8; (w * h * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
                draw(&root, &v, &colors, &l, &style, true).unwrap();
            }
            for blit in raster(&v, &colors, &l, &style.theme) {
                for y in 0..blit.height {
                    for x in 0..blit.width {
                        let o = ((y * blit.width + x) * 4) as usize;
                        let (ax, ay) = (blit.x as u32 + x, blit.y as u32 + y);
                        let b = ((ay * w + ax) * 3) as usize;
                        assert_eq!(blit.rgba[o..o + 3], buf[b..b + 3], "{name} {view} dark={dark}: pixel ({ax}, {ay})");
                    }
                }
            }
        }
    }
}
