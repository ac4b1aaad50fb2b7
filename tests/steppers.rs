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

// ---- the panels' model (src/steppers.rs), against what the element shows (tests/e2e/steppers.test.mjs) ----------

fn case(name: &str) -> Value {
    cases().iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no case {name}")).clone()
}

fn part_of(config: &Config, name: &str) -> Value {
    let trace = compute(config).unwrap();
    attention_viz::steppers::part(config, &trace, name).unwrap_or(Value::Null)
}

#[test]
fn the_decode_panel_says_the_step_the_cache_and_the_moves() {
    let c = case("decode_step_3");
    let config = config_of(&c);
    let d = part_of(&config, "decode");
    let t = d["text"].as_str().unwrap();
    assert!(t.starts_with("token 3 of 0 … 5: "), "{t}");
    let cost = d["cost"].as_str().unwrap();
    assert!(cost.contains(&format!("holds {} numbers", c["expect"]["decode.cache_size"])), "{cost}");
    assert!(cost.contains(&format!("{} multiply-adds", c["expect"]["decode.recompute_cost"])), "{cost}");
    assert!(cost.ends_with("The weights are row 3 of the causal weights, entries 0 … 3."), "{cost}");
    assert_eq!(d["why"], Value::Null);
    assert_eq!(d["prev_off"], false);
    assert_eq!(d["next_off"], false);
    let moves = &d["moves"];
    assert_eq!(moves["back"], serde_json::json!({"decode_step": 2, "query": 2}));
    assert_eq!(moves["on"], serde_json::json!({"decode_step": 4, "query": 4}));
    assert_eq!(moves["first"], serde_json::json!({"decode_step": 0, "query": 0}));
    assert_eq!(moves["last"], serde_json::json!({"decode_step": 5, "query": 5}));
    let views: Vec<&str> = d["views"].as_array().unwrap().iter().map(|v| v["view"].as_str().unwrap()).collect();
    assert_eq!(views, DECODE_VIEWS);
    assert_eq!(d["stop"]["fields"], serde_json::json!({"decode_step": null}));

    // At the last token → is off and moves nowhere; not generating, ← is off and → starts at token 0.
    let last = config.with_fields(&serde_json::json!({"decode_step": 5})).unwrap();
    let d = part_of(&last, "decode");
    assert_eq!((d["prev_off"].as_bool(), d["next_off"].as_bool()), (Some(false), Some(true)));
    assert_eq!(d["moves"]["on"], Value::Null);
    assert_eq!(d["moves"]["last"], Value::Null);
    let idle = config.with_fields(&serde_json::json!({"decode_step": null})).unwrap();
    let d = part_of(&idle, "decode");
    assert_eq!(d["text"], "not generating (→ starts at token 0 of 6)");
    assert!(d["cost"].as_str().unwrap().starts_with("Generating token t, the model attends with q_t"));
    assert_eq!((d["prev_off"].as_bool(), d["next_off"].as_bool()), (Some(true), Some(false)));
    assert_eq!(d["moves"]["back"], serde_json::json!({"decode_step": 0, "query": 0}));
    assert_eq!(d["moves"]["on"], serde_json::json!({"decode_step": 0, "query": 0}));
    assert_eq!(d["views"], serde_json::json!([]));
    assert_eq!(d["stop"], Value::Null);
}

#[test]
fn without_a_causal_mask_the_decode_panel_says_the_cores_reason_and_offers_the_fix() {
    let config =
        config_of(&case("decode_step_3")).with_fields(&serde_json::json!({"decode_step": null, "mask": null})).unwrap();
    let d = part_of(&config, "decode");
    assert!(d["why"].as_str().unwrap().starts_with("decode_step needs mask \"causal\""), "{}", d["why"]);
    assert_eq!(d["offer"]["fields"], serde_json::json!({"mask": "causal", "decode_step": 0, "query": 0}));
    assert_eq!(d["offer"]["text"], "Turn on the causal mask and generate token 0");
    assert_eq!(d.get("text"), None);
}

#[test]
fn the_flash_panel_walks_the_tiles_in_order_with_their_outline_and_tables() {
    let config = config_of(&case("tiles_causal_3_2"));
    let f = part_of(&config, "flash:0");
    assert_eq!(f["text"], "tile 1 of 12: queries 0 … 2 × keys 0 … 1");
    assert_eq!(f["outline"], serde_json::json!([3, 0, 0, 3, 2]));
    assert_eq!((f["prev_off"].as_bool(), f["next_off"].as_bool()), (Some(true), Some(false)));
    assert_eq!(f["moves"], serde_json::json!({"back": null, "on": 1, "first": null, "last": 11}));
    for s in 0..12 {
        let f = part_of(&config, &format!("flash:{s}"));
        let (qb, kb) = (s / 4, s % 4);
        let want = format!(
            "tile {} of 12: queries {} … {} × keys {} … {}",
            s + 1,
            qb * 3,
            (qb * 3 + 3).min(7) - 1,
            kb * 2,
            (kb * 2 + 2).min(7) - 1
        );
        assert_eq!(f["text"], want.as_str());
        assert_eq!(f["step"], s);
        let mlo = &f["mlo"];
        assert_eq!(mlo["rows"].as_array().unwrap().len(), (qb * 3 + 3).min(7) - qb * 3);
        let head: Vec<&str> = mlo["head"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
        assert_eq!(&head[..3], ["m", "l", "o[0]"]);
        if kb == 3 {
            assert!(f["equal"]
                .as_str()
                .unwrap()
                .starts_with(&format!("Block {qb}'s last tile: o / l is its rows of the context (")));
            assert_eq!(f["check"]["caption"], "o / l against the context");
        } else {
            assert_eq!((&f["equal"], &f["check"]), (&Value::Null, &Value::Null));
        }
    }
    // A step past the last shows the first.
    assert_eq!(part_of(&config, "flash:12")["step"], 0);
    let four = config.with_fields(&serde_json::json!({"tiles": [4, 4]})).unwrap();
    let f = part_of(&four, "flash:1");
    assert_eq!(f["text"], "tile 2 of 4: queries 0 … 3 × keys 4 … 6");
    let d_v = f["mlo"]["head"].as_array().unwrap().iter().filter(|h| h.as_str().unwrap().starts_with("o[")).count();
    assert_eq!(
        f["memory"],
        format!(
            "Memory a query block needs: 4 × 4 scores + 4 × {d_v} outputs = {} numbers, against 7 × 7 = 49 for the whole score matrix.",
            16 + 4 * d_v
        )
        .as_str()
    );
    let sizes = &f["sizes"];
    assert_eq!(sizes[0]["value"], 4);
    assert_eq!(sizes[1]["label"], "Tile columns: keys a tile holds (1 to 7; empty: no tiles)");
    let none = config.with_fields(&serde_json::json!({"tiles": null})).unwrap();
    let f = part_of(&none, "flash:0");
    assert!(f["hint"].as_str().unwrap().starts_with("Give a tile size"));
    assert_eq!(f["sizes"][0]["value"], Value::Null);
    assert_eq!(f.get("text"), None);
}

#[test]
fn the_flash_tables_write_numbers_as_javascript_does() {
    use attention_viz::steppers::short;
    use attention_viz::text::js_string;
    // JavaScript's String(Number(x.toPrecision(6))) and String(x).
    for (x, want) in [
        (0.1 + 0.2, "0.3"),
        (1234567.0, "1234570"),
        (1.234567e-9, "1.23457e-9"),
        (2.5e21, "2.5e+21"),
        (-0.000123456789, "-0.000123457"),
        (f64::NEG_INFINITY, "-inf"),
        (f64::NAN, "nan"),
    ] {
        assert_eq!(short(x), want, "{x}");
    }
    for (x, want) in [
        (0.1 + 0.2, "0.30000000000000004"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (1.5e-7, "1.5e-7"),
        (123e-9, "1.23e-7"),
        (1e20, "100000000000000000000"),
        (-0.0, "0"),
        (f64::NEG_INFINITY, "-Infinity"),
        (f64::NAN, "NaN"),
    ] {
        assert_eq!(js_string(x), want, "{x}");
    }
}

#[test]
fn no_steppers_outside_self_attention() {
    let config = Config::from_value(&serde_json::json!({
        "mechanism": "cross", "decoder_state": [1, 0], "annotations": [[1, 0], [0, 1]], "tokens": ["a", "b"]
    }))
    .unwrap();
    assert_eq!(part_of(&config, "decode"), Value::Null);
    assert!(!attention_viz::steppers::applies(&config));
}

/// The flash panel's two size fields as typed: one size alone is a square tile, both empty no tiles, a whole number
/// an integer (what the config takes), anything else sent as it is for the config to refuse by name.
#[test]
fn the_tile_size_as_typed_is_the_fields_it_sets() {
    use attention_viz::steppers::typed_tiles;
    use serde_json::json;
    assert_eq!(typed_tiles("4", "4"), json!({"tiles": [4, 4]}));
    assert_eq!(typed_tiles(" 3 ", ""), json!({"tiles": [3, 3]}));
    assert_eq!(typed_tiles("", "2"), json!({"tiles": [2, 2]}));
    assert_eq!(typed_tiles("", " "), json!({"tiles": null}));
    assert_eq!(typed_tiles("2", "1e1"), json!({"tiles": [2, 10]}));
    assert_eq!(typed_tiles("2.5", "-1"), json!({"tiles": [2.5, -1]}));
    assert_eq!(typed_tiles("x", "1e999"), json!({"tiles": [null, null]}));
    let c = config_of(&case("tiles_causal_3_2"));
    assert_eq!(c.with_fields(&typed_tiles("3", "")).unwrap().options.tiles, Some([3, 3]));
    assert_eq!(c.with_fields(&typed_tiles("", "")).unwrap().options.tiles, None);
    let refused = c.with_fields(&typed_tiles("0", "2")).unwrap_err().to_string();
    assert!(refused.starts_with("tiles[0] (rows) is 0"), "{refused}");
    let refused = c.with_fields(&typed_tiles("2.5", "")).unwrap_err().to_string();
    assert!(refused.starts_with("tiles[0] (rows) is 2.5"), "{refused}");
}

/// Chapter 13's walk: at the second tile of word_1's block the panel gives the factor l and o were rescaled by,
/// exp(m_old − m_new) = exp(8/√3 − 10/√3) = exp(−2/√3) ≈ 0.315 (the scaled scores q·k/√3 of the chapter's prose);
/// word_2's maximum did not grow (1). A block's first tile has no such column.
#[test]
fn the_flash_panel_gives_the_rescale_factor_after_a_blocks_first_tile() {
    let config = Config::from_value(&serde_json::json!({
        "embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], "tokens": ["word_1", "word_2", "word_3", "word_4"],
        "w_q": [[2, 0, 2], [2, 0, 0], [2, 1, 2]], "w_k": [[2, 2, 2], [0, 2, 1], [0, 1, 1]],
        "w_v": [[1, 1, 0], [0, 1, 1], [0, 0, 0]], "tiles": [2, 2]
    }))
    .unwrap();
    let head = |f: &Value| -> Vec<String> {
        f["mlo"]["head"].as_array().unwrap().iter().map(|h| h.as_str().unwrap().to_string()).collect()
    };
    let first = part_of(&config, "flash:0");
    assert!(!head(&first).iter().any(|h| h.starts_with("exp(")), "{:?}", head(&first));
    let second = part_of(&config, "flash:1");
    let h = head(&second);
    let at = h.iter().position(|x| x == "exp(m_old − m_new)").expect("the rescale column");
    let cell = |r: usize| second["mlo"]["rows"][r]["cells"][at]["title"].as_str().unwrap().parse::<f64>().unwrap();
    assert!((cell(0) - (-2.0 / 3f64.sqrt()).exp()).abs() < 1e-15, "word_1: {}", cell(0));
    assert_eq!(second["mlo"]["rows"][0]["cells"][at]["text"], "0.315152");
    assert_eq!(cell(1), 1.0, "word_2's maximum is in the first tile");
}

/// Chapter 13's walk again: at the second tile of word_1's block its running maximum grows from 8/√3 to 10/√3, so its
/// m cell says `4.6188 → 5.7735` and it and its rescale factor are marked changed; word_2's maximum stayed (nothing
/// marked). Its bytes: 4 tokens, d_k = d_v = 3, tiles of 2 × 2 at 8 bytes a number; after the fourth tile each query
/// block's Q (2 × 3) was read once and each tile's K and V (2 × 6): 2·6 + 4·12 = 60 numbers, 480 bytes; each block
/// wrote its o, m and l (2 × 5): 20 numbers, 160 bytes; the 4 × 4 scores (128 bytes) never.
#[test]
fn the_flash_panel_marks_the_maxima_that_grew_and_counts_the_bytes_it_moves() {
    let config = Config::from_value(&serde_json::json!({
        "embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], "tokens": ["word_1", "word_2", "word_3", "word_4"],
        "w_q": [[2, 0, 2], [2, 0, 0], [2, 1, 2]], "w_k": [[2, 2, 2], [0, 2, 1], [0, 1, 1]],
        "w_v": [[1, 1, 0], [0, 1, 1], [0, 0, 0]], "tiles": [2, 2]
    }))
    .unwrap();
    let second = part_of(&config, "flash:1");
    let row = |r: usize| second["mlo"]["rows"][r]["cells"].as_array().unwrap().clone();
    let (grew, stayed) = (row(0), row(1));
    assert_eq!(grew[0]["text"], "4.6188 → 5.7735", "m_old → m_new");
    assert!((grew[0]["title"].as_str().unwrap().parse::<f64>().unwrap() - 10.0 / 3f64.sqrt()).abs() < 1e-14);
    let marked = |cells: &[Value]| -> Vec<usize> {
        cells.iter().enumerate().filter(|(_, c)| c["changed"] == true).map(|(k, _)| k).collect()
    };
    assert_eq!(marked(&grew), [0, grew.len() - 1], "m and exp(m_old − m_new) of word_1");
    assert_eq!(marked(&stayed), Vec::<usize>::new(), "word_2's maximum stayed");
    assert!(part_of(&config, "flash:0")["mlo"]["rows"][0]["cells"][0].get("changed").is_none());
    assert_eq!(
        part_of(&config, "flash:0")["traffic"],
        "Main memory, tiles 1 … 1: 144 bytes read (each query block's Q once, each tile's K and V), 0 bytes written \
         (each finished block's o, m and l); the 4 × 4 scores, 128 bytes at 8 bytes a number, are never written."
    );
    assert_eq!(
        part_of(&config, "flash:3")["traffic"],
        "Main memory, tiles 1 … 4: 480 bytes read (each query block's Q once, each tile's K and V), 160 bytes written \
         (each finished block's o, m and l); the 4 × 4 scores, 128 bytes at 8 bytes a number, are never written."
    );
}
