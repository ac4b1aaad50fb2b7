//! The static picture (`picture`) and the C-ABI surface Python calls (`ffi`), natively: what the Python package gets
//! through wasmtime from the same functions (tests/python/test_core.py holds it against the page).

mod common;

use attention_viz::attention;
use attention_viz::config::Config;
use attention_viz::ffi;
use attention_viz::picture::{self, Options};
use attention_viz::presets;
use common::ffi_call as call;

#[test]
fn every_preset_and_a_model_stack_give_a_picture_that_is_xml() {
    let mut configs: Vec<Config> = presets::NAMES.iter().map(|n| presets::preset(n).unwrap()).collect();
    let stack: Vec<Vec<Vec<Vec<f64>>>> = vec![vec![vec![vec![0.25; 4]; 4]; 3]; 2];
    configs.push(
        Config::from_json(&serde_json::json!({"attention": stack, "tokens": ["a\u{1}", "<b>", "c", "d"]}).to_string())
            .unwrap(),
    );
    for config in &configs {
        let trace = attention::compute(config).unwrap();
        for dark in [false, true] {
            let options = Options { palette: Some("rocket_r".into()), dark, ..Options::default() };
            let (svg, alt) = picture::picture(config, &trace, &options).unwrap();
            let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not XML ({e})"));
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            assert!(!alt.is_empty() && !alt.contains('\u{1}'));
        }
    }
}

#[test]
fn a_big_grid_is_one_image_and_a_refusal_is_a_picture_of_its_message() {
    let n = 100;
    let weights: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
    let config = Config::from_json(&serde_json::json!({"attention": weights}).to_string()).unwrap();
    let trace = attention::compute(&config).unwrap();
    let (svg, _) = picture::picture(&config, &trace, &Options::default()).unwrap();
    assert!(svg.matches("<rect").count() < 50, "a 100 × 100 grid drawn as shapes");
    assert!(svg.contains("data:image/png;base64,"));
    let (svg, alt) = picture::refused("embeddings row 1 has 1 value, expected 2 (like row 0)", false);
    assert!(roxmltree::Document::parse(&svg).is_ok());
    assert!(svg.contains("expected 2 (like row 0)") && alt.contains("like row 0"));
}

#[test]
fn ffi_refuses_with_the_cores_message_and_computes_flat_matrices() {
    // The message Config::from_json gives, word for word.
    let bad = r#"{"config": {"embeddings": [[1, 2], [3]]}}"#;
    let (code, message, _) = call(ffi::av_check, bad, &[]);
    let want = Config::from_json(r#"{"embeddings": [[1, 2], [3]]}"#).unwrap_err().0;
    assert_eq!((code, message), (1, want));
    // A config the core takes: the mechanism it shows, as it infers it.
    let good = r#"{"config": {"decoder_state": [1, 0], "annotations": [[1, 2]]}}"#;
    assert_eq!(call(ffi::av_check, good, &[]), (0, "cross".to_string(), vec![]));
    // A matrix sent flat: the same trace as its JSON.
    let flat = r#"{"config": {"tokens": ["a", "b"]}, "flat": [{"name": "embeddings", "shape": [2, 2]}]}"#;
    let (code, layout, values) = call(ffi::av_compute, flat, &[1.0, 0.0, 0.5, 2.0]);
    assert_eq!(code, 0, "{layout}");
    let config = Config::from_json(r#"{"embeddings": [[1, 0], [0.5, 2]], "tokens": ["a", "b"]}"#).unwrap();
    let trace = attention::compute(&config).unwrap();
    let layout: serde_json::Value = serde_json::from_str(&layout).unwrap();
    let entries = layout["fields"].as_array().unwrap();
    assert_eq!(entries.len(), trace.fields().len(), "one layout entry a field");
    for (entry, field) in entries.iter().zip(trace.fields()) {
        assert_eq!(entry[0], field.name.as_ref());
        let at = entry[2].as_u64().unwrap() as usize;
        let got = &values[at..at + field.data.len()];
        assert!(got.iter().zip(field.data).all(|(a, b)| a.to_bits() == b.to_bits()), "{}", field.name);
    }
    // A stack over the limit: refused from its declared shape alone, no values sent.
    let huge = r#"{"config": {"mechanism": "weights"}, "flat": [{"name": "attention", "shape": [12, 12, 256, 256]}]}"#;
    let (code, message, _) = call(ffi::av_check_declared, huge, &[]);
    assert_eq!(code, 1);
    assert!(message.contains("at most 8388608 are supported"), "{message}");
}

#[test]
fn av_call_is_any_request_by_its_kind() {
    let good = r#"{"config": {"decoder_state": [1, 0], "annotations": [[1, 2]]}}"#;
    let named = r#"{"kind": "check", "config": {"decoder_state": [1, 0], "annotations": [[1, 2]]}}"#;
    assert_eq!(call(ffi::av_call, named, &[]), call(ffi::av_check, good, &[]));
    let (code, text, _) = call(ffi::av_call, r#"{"kind": "text", "cut": "word_2"}"#, &[]);
    assert_eq!((code, text.as_str()), (0, "word_2"));
    let (code, text, _) = call(ffi::av_call, r#"{"config": {}}"#, &[]);
    assert_eq!(code, 1);
    assert!(text.starts_with("attention-viz internal error"), "{text}");
}

/// The PNGs of a picture (its `<image href="data:image/png;base64,…">`s) decoded: (width, height, RGB pixels). The core
/// writes them with stored deflate blocks, read here by hand; an indexed PNG's pixels through its PLTE.
fn pngs(svg: &str) -> Vec<(usize, usize, bool, Vec<[u8; 3]>)> {
    let b64 = |s: &str| -> Vec<u8> {
        let value = |c: u8| match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            _ => 63,
        };
        let clean: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
        let mut out = Vec::new();
        for chunk in clean.chunks(4) {
            let n = chunk.iter().enumerate().fold(0u32, |n, (i, &c)| n | (value(c) as u32) << (18 - 6 * i));
            out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
        }
        out
    };
    svg.split("data:image/png;base64,")
        .skip(1)
        .map(|rest| {
            let png = b64(&rest[..rest.find('"').unwrap()]);
            let (mut at, mut ihdr, mut plte, mut z) = (8, vec![], vec![], vec![]);
            while at < png.len() {
                let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
                let (kind, body) = (&png[at + 4..at + 8], &png[at + 8..at + 8 + len]);
                match kind {
                    b"IHDR" => ihdr = body.to_vec(),
                    b"PLTE" => plte = body.to_vec(),
                    b"IDAT" => z.extend_from_slice(body),
                    _ => {}
                }
                at += 12 + len;
            }
            let (w, h) = (
                u32::from_be_bytes(ihdr[0..4].try_into().unwrap()) as usize,
                u32::from_be_bytes(ihdr[4..8].try_into().unwrap()) as usize,
            );
            let mut raw = Vec::new();
            let mut at = 2; // zlib header; then stored blocks: BFINAL/BTYPE byte, LEN, NLEN, the bytes
            loop {
                let last = z[at] & 1 == 1;
                let len = u16::from_le_bytes([z[at + 1], z[at + 2]]) as usize;
                raw.extend_from_slice(&z[at + 5..at + 5 + len]);
                at += 5 + len;
                if last {
                    break;
                }
            }
            let indexed = ihdr[9] == 3;
            let bpp = if indexed { 1 } else { 3 };
            let mut pixels = Vec::with_capacity(w * h);
            for row in raw.chunks_exact(w * bpp + 1) {
                assert_eq!(row[0], 0, "filter none");
                for p in row[1..].chunks_exact(bpp) {
                    let i = p[0] as usize * 3;
                    pixels.push(if indexed { [plte[i], plte[i + 1], plte[i + 2]] } else { [p[0], p[1], p[2]] });
                }
            }
            (w, h, indexed, pixels)
        })
        .collect()
}

#[test]
fn a_model_s_grid_is_max_pooled_thumbnails_in_an_indexed_png() {
    use attention_viz::heatmap::{draw::Theme, model};
    // 12 × 12 heads of 64 tokens: each thumbnail 16 raster pixels (4 × 4 cells, their largest weight), shown 3 times
    // as large; the PNG's pixels are the element's grid raster's (`model::grid`), through a palette.
    let (layers, heads, n) = (12, 12, 64);
    let mut seed = 7u64;
    let data: Vec<f64> = (0..layers * heads * n * n)
        .map(|_| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 / n as f64
        })
        .collect();
    let stack = attention_viz::weights::Stack::new(layers, heads, n, n, data.clone()).unwrap();
    let rows: Vec<Vec<Vec<Vec<f64>>>> = data
        .chunks(heads * n * n)
        .map(|l| l.chunks(n * n).map(|h| h.chunks(n).map(<[f64]>::to_vec).collect()).collect())
        .collect();
    let config = Config::from_json(&serde_json::json!({"attention": rows}).to_string()).unwrap();
    let trace = attention::compute(&config).unwrap();
    let (svg, _) = picture::picture(&config, &trace, &Options::default()).unwrap();
    let images = pngs(&svg);
    let grid = model::grid(&stack, picture::PICTURE_THUMB, 1, None, &Theme::light());
    assert_eq!((grid.thumb, grid.gap), (16, 1));
    let (w, h, indexed, pixels) = images.iter().find(|i| i.0 == grid.width as usize).expect("the grid's PNG").clone();
    assert_eq!((w, h, indexed), (12 * 16 + 11, 12 * 16 + 11, true));
    let want: Vec<[u8; 3]> = grid.rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect();
    assert!(pixels == want, "the PNG's pixels are not the grid raster's");
    assert!(
        svg.contains(&format!(r#"width="{:.1}" height="{:.1}""#, (w * 3) as f64, (h * 3) as f64)),
        "not shown 3 times as large"
    );

    // A small head: a whole number of pixels a cell (10 tokens: 1 pixel, shown 4 times as large).
    let small = serde_json::json!({"attention": vec![vec![vec![vec![0.1; 10]; 10]; 4]; 2]});
    let config = Config::from_json(&small.to_string()).unwrap();
    let (svg, _) = picture::picture(&config, &attention::compute(&config).unwrap(), &Options::default()).unwrap();
    assert!(
        pngs(&svg).iter().any(|i| (i.0, i.1) == (4 * 10 + 3, 2 * 10 + 1)),
        "{:?}",
        pngs(&svg).iter().map(|i| (i.0, i.1)).collect::<Vec<_>>()
    );
}

/// A stack a figure cannot hold is shown from Python as one head beside an overview: the core says when (over
/// `MAX_VALUES`, each head within it, more than one head, at most `MAX_HEADS`) and at what side its thumbnails are.
#[test]
fn a_stack_over_the_limit_gets_an_overview_of_thumbnails_with_a_target_per_head() {
    use attention_viz::weights::{MAX_HEADS, MAX_VALUES};
    assert_eq!(picture::overview_raster([12, 12, 240, 240]), None, "within the limit: the figure holds it");
    assert_eq!(picture::overview_raster([12, 12, 512, 512]), Some(picture::PICTURE_THUMB));
    assert_eq!(picture::overview_raster([32, 32, 1024, 1024]), Some(picture::PICTURE_THUMB));
    assert_eq!(picture::overview_raster([64, 64, 1024, 1024]), Some(picture::grid_raster(64, 1024).0));
    assert!(picture::grid_raster(64, 1024).0 < picture::PICTURE_THUMB, "64 heads a row leave less room");
    assert_eq!(picture::overview_raster([1, 1, 3000, 3000]), None, "one head: nothing to pick from");
    assert_eq!(picture::overview_raster([1, MAX_HEADS + 1, 100, 100]), None, "too many heads whatever their size");
    assert_eq!(picture::overview_raster([2, 2, MAX_VALUES, 2]), None, "one head over the limit alone");
    assert_eq!(picture::overview_raster([usize::MAX, 2, 2, 2]), None);

    let side = picture::PICTURE_THUMB;
    let thumbs: Vec<f64> = (0..3 * 4 * side * side).map(|i| (i % 7) as f64 / 7.0).collect();
    let (svg, alt) = picture::overview(thumbs.clone(), [3, 4, 1500, 1500], (2, 1), &Options::default()).unwrap();
    assert_eq!(svg.matches("data-layer=").count(), 12, "a click target per head");
    assert!(svg.contains(r#"data-layer="2" data-head="1""#));
    let doc = roxmltree::Document::parse(&svg).expect("the overview is XML");
    let said: Vec<&str> = doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).collect();
    let said = said.join(" ");
    assert!(said.contains("27,000,000 values, over the 8,388,608 a figure holds"), "{said}");
    assert!(said.contains("layer 2, head 1 is drawn in full"), "{said}");
    assert!(said.contains("show_attention(attention, layer=L, head=H)"), "{said}");
    assert!(alt.contains("all 3 × 4 heads (1500 queries × 1500 keys each)"));
    let short = picture::overview(thumbs[1..].to_vec(), [3, 4, 1500, 1500], (2, 1), &Options::default());
    assert!(short.unwrap_err().contains("internal error"), "thumbnails that do not fit the shape");
    let outside = picture::overview(thumbs, [3, 4, 1500, 1500], (3, 0), &Options::default());
    assert!(outside.unwrap_err().contains("internal error"), "a head the stack does not have");
}
