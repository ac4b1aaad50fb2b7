//! What the element's decode and flash panels ask of the core: the decode views (`decode.q`, `decode.k_cache`,
//! …, drawn by the decode panel), FlashAttention's tile as the flash panel shows it (`Flash::tile`: its rows and
//! columns, o / l, the memory it needs) and the tile's outline (`HighlightKind::Tile`). The numbers are checked against
//! tests/fixtures/modern-goldens.json (NumPy's transcription of the papers, cross-checked against JAX and
//! FlashAttention-2's Algorithm 1), never against the core's own output.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::attention::{compute, Trace};
use attention_viz::config::Config;
use attention_viz::heatmap::draw::{inner_ring, outline, Colors, Highlight, HighlightKind, Layout, Style, Theme};
use attention_viz::heatmap::to_svg;
use attention_viz::views::{self, DECODE_VIEWS};
use common::{modern_cases as cases, num};
use serde_json::Value;

const REL: f64 = 1e-12;

fn rows_of(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().unwrap().iter().map(|r| r.as_array().unwrap().iter().map(num).collect()).collect()
}

fn close(got: f64, want: f64) -> bool {
    got == want || (got - want).abs() <= REL * want.abs().max(1e-300)
}

fn config_of(case: &Value) -> Config {
    Config::from_value(&case["config"]).unwrap_or_else(|e| panic!("{}: {e}", case["name"]))
}

#[test]
fn a_query_blocks_last_tile_gives_numpys_context_rows() {
    let mut checked = 0;
    for case in cases().iter().filter(|c| c["config"].get("tiles").is_some()) {
        let name = case["name"].as_str().unwrap();
        let config = config_of(case);
        let Trace::SelfAttention(t) = compute(&config).unwrap() else { panic!("{name}: self-attention") };
        let flash = t.flash.as_ref().unwrap();
        let head = config.options.head;
        let context = rows_of(&case["expect"][format!("heads.{head}.context")]);
        let (n, d_v) = (context.len(), context[0].len());
        let [rows, cols] = [0, 1].map(|k| case["config"]["tiles"][k].as_u64().unwrap() as usize);
        let (tr, tc) = (rows.min(n), cols.min(n));
        let mut lasts = 0;
        for s in 0..flash.steps.len() {
            let tile = flash.tile(s, n, n).unwrap();
            let (qb, kb) = (s / n.div_ceil(cols), s % n.div_ceil(cols));
            assert_eq!(tile.rows, [qb * rows, ((qb + 1) * rows).min(n)], "{name} step {s}");
            assert_eq!(tile.cols, [kb * cols, ((kb + 1) * cols).min(n)], "{name} step {s}");
            assert_eq!(tile.memory, (tr * tc + tr * d_v) as f64, "{name}: rows × cols + rows × d_v");
            assert_eq!(tile.full, (n * n) as f64);
            assert_eq!(tile.last, kb + 1 == n.div_ceil(cols), "{name} step {s}");
            if !tile.last {
                continue;
            }
            lasts += 1;
            for (r, i) in (tile.rows[0]..tile.rows[1]).enumerate() {
                // A query with every key masked has l = 0: o / l is NaN there (masked_row decides its context).
                if flash.steps[s].l[r] == 0.0 {
                    assert!(tile.normalized.row(r).iter().all(|x| x.is_nan()), "{name} row {i}");
                    continue;
                }
                for (j, (&got, &want)) in tile.normalized.row(r).iter().zip(&context[i]).enumerate() {
                    assert!(close(got, want), "{name}: o / l [{i}][{j}] = {got:e}, NumPy's context {want:e}");
                    checked += 1;
                }
            }
        }
        assert_eq!(lasts, n.div_ceil(rows), "{name}: one last tile a query block");
        assert!(flash.tile(flash.steps.len(), n, n).is_none());
    }
    assert!(checked > 200, "{checked} numbers checked");
}

#[test]
fn the_decode_views_draw_the_traces_decode_with_the_caches_tokens() {
    let mut seen = 0;
    for case in cases().iter().filter(|c| c["config"].get("decode_step").is_some()) {
        let name = case["name"].as_str().unwrap();
        let config = config_of(case);
        let trace = compute(&config).unwrap();
        let t = case["config"]["decode_step"].as_u64().unwrap() as usize;
        let expect = &case["expect"];
        let k_cache = views::view(&config, &trace, "decode.k_cache").unwrap();
        assert_eq!(k_cache.row_labels[..], config.tokens[..=t], "{name}");
        assert_eq!(k_cache.values.rows(), t + 1);
        let want_k = rows_of(&expect["decode.k_cache"]);
        for (i, row) in want_k.iter().enumerate() {
            for (j, &w) in row.iter().enumerate() {
                assert!(close(k_cache.values.get(i, j), w), "{name}: k_cache [{i}][{j}]");
            }
        }
        for (view, field) in [("decode.weights", "decode.weights"), ("decode.scores", "decode.scores")] {
            let v = views::view(&config, &trace, view).unwrap();
            assert_eq!(v.row_labels[..], [config.tokens[t].clone()], "{name} {view}");
            assert_eq!(v.col_labels[..], config.tokens[..=t], "{name} {view}");
            let want: Vec<f64> = expect[field].as_array().unwrap().iter().map(num).collect();
            assert_eq!(v.values.cols(), want.len());
            for (j, &w) in want.iter().enumerate() {
                assert!(close(v.values.get(0, j), w), "{name}: {view}[{j}] = {}, NumPy {w}", v.values.get(0, j));
            }
            assert!(v.title.contains(&format!("token {t}")), "{}", v.title);
        }
        let context = views::view(&config, &trace, "decode.context").unwrap();
        let want: Vec<f64> = expect["decode.context"].as_array().unwrap().iter().map(num).collect();
        assert!(want.iter().enumerate().all(|(j, &w)| close(context.values.get(0, j), w)), "{name}: context");
        for v in DECODE_VIEWS {
            assert!(views::view(&config, &trace, v).is_ok(), "{name}: {v}");
        }
        // The decode panel draws them: the stage heatmaps do not repeat them.
        assert!(views::names(&config).iter().all(|v| !v.starts_with("decode.")));
        seen += 1;
    }
    assert!(seen >= 3);
    // Without a decode step there is nothing to draw: the message lists the views there are.
    let plain = config_of(&cases()[0]);
    let err = views::view(&plain, &compute(&plain).unwrap(), "decode.weights").unwrap_err();
    assert!(err.contains("there is no view") && err.contains("weights"), "{err}");
}

#[test]
fn the_tile_outline_is_thick_amber_with_an_inner_ring() {
    assert_eq!(HighlightKind::from_code(3), Some(HighlightKind::Tile));
    assert_eq!(HighlightKind::from_code(4), None);
    let config = config_of(&cases()[0]);
    let trace = compute(&config).unwrap();
    let v = views::view(&config, &trace, "scaled").unwrap();
    for theme in [Theme::light(), Theme::dark()] {
        for dpr in [1.0, 2.0] {
            let style = Style { dpr, theme: theme.clone(), ..Style::default() };
            let colors = Colors::new(v.values.data(), None, v.palette);
            let l = Layout::new(&v, &colors, &style, (362.0 * dpr) as u32, (200.0 * dpr) as u32);
            let h = Highlight { kind: HighlightKind::Tile, r0: 0, c0: 2, r1: 2, c1: 5 };
            let bars = outline(&l, &h, dpr);
            assert_eq!(bars.len(), 4, "solid");
            assert!(bars.iter().all(|r| r.width().min(r.height()) == (3.0 * dpr) as i32), "thick");
            assert_eq!(inner_ring(&l, &h, dpr).len(), 4);
        }
        let tile = Highlight { kind: HighlightKind::Tile, r0: 0, c0: 2, r1: 2, c1: 5 };
        let svg = to_svg(&v, &Style { theme: theme.clone(), highlights: vec![tile], ..Style::default() }).unwrap();
        let plain = to_svg(&v, &Style { theme: theme.clone(), ..Style::default() }).unwrap();
        let hex = |c: [u8; 3]| format!("fill=\"#{:02x}{:02x}{:02x}\"", c[0], c[1], c[2]);
        assert_eq!(
            svg.matches(&hex(theme.link)).count(),
            plain.matches(&hex(theme.link)).count() + 4,
            "four amber bars"
        );
        assert_eq!(svg.matches(&hex(theme.background)).count(), plain.matches(&hex(theme.background)).count() + 4);
    }
}
