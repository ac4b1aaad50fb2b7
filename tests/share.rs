//! Share links round-trip exactly and refuse malformed or hostile fragments.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::config::{Config, Mask, MaskedRow, Options};
use attention_viz::edits::Distribution;
use attention_viz::presets::{preset, NAMES};
use attention_viz::share::{base64url_decode, base64url_encode, decode, encode, State};
use serde_json::{json, Value};

#[test]
fn base64url_round_trips() {
    for len in 0..40 {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
        assert_eq!(base64url_decode(&base64url_encode(&bytes)).unwrap(), bytes);
    }
    assert_eq!(base64url_encode(b"hi?>"), "aGk_Pg");
}

#[test]
fn every_preset_round_trips_exactly() {
    for name in NAMES {
        let state = State { config: preset(name).unwrap(), naive: true, random: Some((42, Distribution::Randint(3))) };
        assert_eq!(decode(&encode(&state)).unwrap(), state, "{name}");
    }
    let odd = preset("seed-002")
        .unwrap()
        .randomized(9, Distribution::Randn)
        .unwrap()
        .with_value("embeddings", 1, 1, 1e-300)
        .unwrap();
    let state =
        State { config: odd.rename_token(0, "<img src=x onerror=alert(1)>").unwrap(), naive: false, random: None };
    assert_eq!(decode(&encode(&state)).unwrap(), state, "floats and names survive bit for bit");
}

#[test]
fn malformed_and_hostile_fragments_are_refused_clearly() {
    let enc = |s: &str| base64url_encode(s.as_bytes());
    let cases = [
        ("", "JSON is broken"),
        ("%%%", "not base64url"),
        ("a", "not base64url"),
        (&enc("not json"), "JSON is broken"),
        (&enc("[1,2]"), "does not hold a figure"),
        (&enc("{\"config\":{}}"), "no version"),
        (&enc("{\"v\":2,\"config\":{}}"), "newer version"),
        (&enc("{\"v\":1}"), "no config"),
        (&enc("{\"v\":1,\"config\":{\"embeddings\":[[1],[1,2]]}}"), "embeddings row 1 has 2 values"),
        (&enc("{\"v\":1,\"config\":{\"embeddings\":[[1]]},\"random\":{\"seed\":-1}}"), "random-seed record"),
        (&enc("{\"v\":1,\"config\":{\"embeddings\":[[\"<script>\"]]}}"), "not a number"),
    ];
    for (text, want) in cases {
        let e = decode(text).unwrap_err();
        assert!(e.starts_with("this share link cannot be read") && e.contains(want), "{text:?}: {e}");
    }
    assert!(decode(&"A".repeat(5_000_000)).unwrap_err().contains("characters long"));
}

/// The element's `toJSON()` and `.config = state` go through the JSON text a link carries, never a second base64url
/// codec: the fragment is base64url of exactly that text, and the text restores what its fragment does, refusing in
/// the same words (the length judged as the fragment's).
#[test]
fn a_states_json_is_its_fragments_text_and_is_read_alike() {
    use attention_viz::share::{decode_json, state_json};
    for name in NAMES {
        let state = State { config: preset(name).unwrap(), naive: true, random: Some((7, Distribution::Rand)) };
        let json = state_json(&state);
        assert_eq!(encode(&state), base64url_encode(json.as_bytes()), "{name}");
        assert_eq!(decode_json(&json).unwrap(), state, "{name}");
    }
    // A link made before the element stopped encoding in JavaScript (its btoa of the same JSON) still opens.
    let link = "eyJ2IjoxLCJjb25maWciOnsiZW1iZWRkaW5ncyI6W1sxLDBdLFswLDFdXX0sIm5haXZlIjp0cnVlfQ";
    let state = decode(link).unwrap();
    assert!(state.naive);
    assert_eq!(decode_json(r#"{"v":1,"config":{"embeddings":[[1,0],[0,1]]},"naive":true}"#).unwrap(), state);
    let long = format!("{{\"v\":1,\"pad\":\"{}\"}}", "x".repeat(3_000_000));
    for text in [
        "",
        "not json",
        "[1,2]",
        "{\"v\":2,\"config\":{}}",
        "{\"v\":1}",
        "{\"v\":1,\"config\":{\"embeddings\":[[1],[1,2]]}}",
        &long,
    ] {
        assert_eq!(
            decode_json(text).unwrap_err(),
            decode(&base64url_encode(text.as_bytes())).unwrap_err(),
            "{text:.40}"
        );
    }
    assert_eq!(
        decode_json(&long).unwrap_err(),
        "this share link cannot be read: it is 4000022 characters long, more than the 4000000 allowed"
    );
}

/// Configs holding every field of `Options`, alone and together, on both mechanisms.
fn option_configs() -> Vec<Config> {
    let self_base = json!({
        "embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
        "w_q": [[2, 0, 2, 1], [2, 0.1, 0, 1], [2, 1, 2, 0]],
        "w_k": [[2, 2, 2, 0], [0, 2, 1, 1.5], [0, 1, 1, 2]],
        "w_v": [[1, 1, 0, 2, 0.25, 1], [0, 1, 1, 1, 2, 0], [3, 0, 1, 0, 1, 1]],
    });
    let cross_base =
        json!({"decoder_state": [5, 1, 20], "annotations": [[3, 12, 45], [59, 2, 5], [1, 43, 5], [4, 3, 45.3]]});
    let odd_w_o = json!([[1e-300, 0], [-0.0, 1], [0.30000000000000004, 1], [0.5, 0], [0, -2e10], [1, 0]]);
    let w_a = json!([[1, 0.5, 0], [0, 1, 2], [1, 0, 1]]);
    let additive = json!({"scoring": "additive", "w_a": [[0.5, 1], [0.25, 0], [1, 0.5]],
                          "u_a": [[1, 0], [0.5, 0.5], [0, 1]], "v_a": [1.5, -0.1]});
    let mask = json!([[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 0, 1], [0, 1, 1, 1]]);
    let self_cases = [
        json!({"heads": 2, "head": 1}),
        json!({"heads": 2, "w_o": odd_w_o}),
        json!({"heads": 3, "w_q": [[2, 0, 1], [1, 0.5, 0], [2, 1, 1]], "w_k": [[2, 2, 0], [0, 2, 1], [1, 1, 0]], "head": 2}),
        json!({"w_o": [[1, 0, 0.5], [0, 1, 0], [1, 1, 0], [2, 0, 1], [0, 0.5, 0], [1, 0, 0]]}),
        json!({"scoring": "general", "w_q": [[2, 0], [1, 0.5], [2, 1]], "w_k": [[2, 2], [0, 2], [1, 1]], "w_a": [[1, 0.5], [0, 1]]}),
        json!({"scoring": "additive", "w_q": [[2, 0, 1], [1, 0.5, 0], [2, 1, 1]], "w_k": [[2, 2, 0], [0, 2, 1], [1, 1, 0]],
               "w_a": [[0.5, 1], [0.25, 0], [1, 0.5]], "u_a": [[1, 0], [0.5, 0.5], [0, 1]], "v_a": [1.5, -0.1]}),
        json!({"scoring": "cosine", "heads": 2, "scale": "sqrt_dk"}),
        json!({"temperature": 0.1}),
        json!({"temperature": 3e-7, "scale": 2.5}),
        json!({"mask": "causal"}),
        json!({"mask": mask}),
        json!({"mask": [[true, false, true, false], [false, false, false, false], [true, true, true, true], [false, true, true, true]]}),
        json!({"valid_lens": [2, 0, 1, 4]}),
        json!({"valid_lens": [2, 0, 1, 4], "masked_row": "uniform"}),
        json!({"mask": mask, "masked_row": "nan"}),
        json!({"heads": 2, "head": 1, "w_o": odd_w_o, "scoring": "cosine", "temperature": 0.25, "mask": "causal",
               "valid_lens": [0, 1, 3, 2], "masked_row": "nan", "query": 3, "scale": "none"}),
    ];
    let cross_cases = [
        json!({"scoring": "general", "w_a": w_a}),
        additive.clone(),
        json!({"scoring": "cosine", "temperature": 0.5}),
        json!({"mask": [1, 0, 1, 1]}),
        json!({"mask": [true, false, false, true], "valid_lens": [3], "masked_row": "uniform"}),
        json!({"valid_lens": [0], "masked_row": "nan", "scale": "sqrt_dk"}),
    ];
    let with = |base: &Value, more: &Value| {
        let v = with_more(base, more.clone());
        Config::from_value(&v).unwrap_or_else(|e| panic!("{v}: {e}"))
    };
    let mut configs: Vec<Config> = self_cases.iter().map(|c| with(&self_base, c)).collect();
    configs.extend(cross_cases.iter().map(|c| with(&cross_base, c)));
    configs.push(with(&cross_base, &with_more(&additive, json!({"mask": [1, 1, 0, 1], "temperature": 2}))));
    configs
}

/// `base` with the fields of `more` added (or replaced).
fn with_more(base: &Value, more: Value) -> Value {
    let mut v = base.clone();
    v.as_object_mut().unwrap().extend(more.as_object().unwrap().clone());
    v
}

#[test]
fn every_option_round_trips_exactly() {
    let configs = option_configs();
    let mut changed = 0;
    for config in &configs {
        assert_eq!(&Config::from_value(&config.to_value()).unwrap(), config, "{}", config.to_value());
        let state = State { config: config.clone(), naive: true, random: Some((7, Distribution::Randn)) };
        assert_eq!(decode(&encode(&state)).unwrap(), state, "{}", config.to_value());
        let state = State { config: config.clone(), naive: false, random: None };
        assert_eq!(decode(&encode(&state)).unwrap(), state, "{}", config.to_value());
        changed += usize::from(config.options != Options::default());
    }
    assert_eq!(changed, configs.len(), "every case sets an option");
    // Every field of Options, every scoring function and every kind of mask and masked row appears.
    let seen = |f: &dyn Fn(&Options) -> bool| configs.iter().any(|c| f(&c.options));
    assert!(seen(&|o| o.heads == 3 && o.head == 2) && seen(&|o| o.w_o.is_some()));
    for scoring in ["general", "additive", "cosine"] {
        assert!(seen(&|o| o.scoring.name() == scoring), "{scoring}");
    }
    assert!(seen(&|o| o.temperature != 1.0) && seen(&|o| o.valid_lens.is_some()));
    assert!(seen(&|o| o.mask == Mask::Causal) && seen(&|o| matches!(o.mask, Mask::Matrix(_))));
    assert!(seen(&|o| o.masked_row == MaskedRow::Uniform) && seen(&|o| o.masked_row == MaskedRow::Nan));
    // Awkward floats survive bit for bit (-0.0 stays negative, 1e-300 and 0.30000000000000004 exact).
    let w_o = configs[1].options.w_o.as_ref().unwrap();
    let back = decode(&encode(&State { config: configs[1].clone(), naive: false, random: None })).unwrap();
    let w_o_back = back.config.options.w_o.unwrap();
    assert!(w_o.data().iter().zip(w_o_back.data()).all(|(a, b)| a.to_bits() == b.to_bits()));
    assert!(w_o_back.get(1, 0).is_sign_negative() && w_o_back.get(2, 0) == 0.1 + 0.2);
}

#[test]
fn malformed_options_in_a_link_are_refused_naming_the_field() {
    let self_base = json!({
        "embeddings": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
        "w_q": [[2, 0, 2, 1], [2, 0, 0, 1], [2, 1, 2, 0]],
        "w_k": [[2, 2, 2, 0], [0, 2, 1, 1], [0, 1, 1, 2]],
        "w_v": [[1, 1, 0, 2], [0, 1, 1, 1], [3, 0, 1, 0]],
    });
    let cross_base = json!({"decoder_state": [5, 1, 20], "annotations": [[3, 12, 45], [59, 2, 5], [1, 43, 5]]});
    let cases: Vec<(Value, &str)> = vec![
        (with_more(&self_base, json!({"heads": 0})), "heads must be a whole number from 1"),
        (with_more(&self_base, json!({"heads": 1.5})), "heads must be a whole number"),
        (with_more(&self_base, json!({"heads": "two"})), "heads must be a whole number"),
        (with_more(&self_base, json!({"heads": 3})), "w_q has 4 columns, which 3 heads cannot split evenly"),
        (with_more(&self_base, json!({"heads": 2, "head": 2})), "head must be a whole number from 0 to 1"),
        (with_more(&self_base, json!({"w_o": [[1], [2]]})), "w_o has 2 rows, expected 4"),
        (with_more(&self_base, json!({"w_o": [[1], [2], [3], ["NaN"]]})), "w_o row 3, column 0 is NaN"),
        (with_more(&self_base, json!({"scoring": "bilinear"})), "scoring must be \"dot\", \"general\""),
        (with_more(&self_base, json!({"scoring": "general"})), "w_a is missing"),
        (with_more(&self_base, json!({"scoring": "general", "w_a": [[1, 2]]})), "w_a row 0 has 2 values, expected 4"),
        (with_more(&self_base, json!({"w_a": [[1]]})), "w_a belongs to general or additive scoring"),
        (
            with_more(
                &self_base,
                json!({"scoring": "additive", "w_a": [[1], [1], [1], [1]], "u_a": [[1], [1], [1], [1]], "v_a": [1, 2]}),
            ),
            "v_a has 2 values, expected 1",
        ),
        (
            with_more(&self_base, json!({"scoring": "general", "heads": 2, "w_a": [[1, 0], [0, 1]]})),
            "general scoring has one head only",
        ),
        (with_more(&self_base, json!({"temperature": -1})), "temperature must be a positive number"),
        (with_more(&self_base, json!({"temperature": 0})), "temperature must be a positive number"),
        (with_more(&self_base, json!({"temperature": "hot"})), "temperature must be a positive number"),
        (
            with_more(&self_base, json!({"mask": [[1, 0, 0, 0], [2, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]})),
            "mask row 1, column 0 is 2",
        ),
        (with_more(&self_base, json!({"mask": [[1, 0, 0, 0]]})), "mask has 1 rows, expected 4"),
        (with_more(&self_base, json!({"mask": "future"})), "mask must be \"none\", \"causal\""),
        (with_more(&self_base, json!({"valid_lens": [1, 2]})), "valid_lens has 2 values, expected 4"),
        (with_more(&self_base, json!({"valid_lens": [1, -2, 3, 4]})), "valid_lens entry 1 is -2"),
        (with_more(&self_base, json!({"masked_row": "drop"})), "masked_row must be \"zero\", \"uniform\" or \"nan\""),
        (with_more(&cross_base, json!({"heads": 2})), "heads belongs to self-attention"),
        (with_more(&cross_base, json!({"w_o": [[1]]})), "w_o belongs to self-attention"),
        (with_more(&cross_base, json!({"mask": "causal"})), "mask \"causal\" needs several queries"),
        (with_more(&cross_base, json!({"mask": [1, 0]})), "mask has 2 values, expected 3"),
        (with_more(&cross_base, json!({"valid_lens": [1, 2]})), "valid_lens has 2 values, expected 1"),
    ];
    for (config, want) in cases {
        let text = base64url_encode(json!({"v": 1, "config": config}).to_string().as_bytes());
        let e = decode(&text).unwrap_err();
        assert!(
            e.starts_with("this share link cannot be read: its config is invalid: ") && e.contains(want),
            "{config}: {e}"
        );
    }
}

/// The LCG of tests/e2e/hostile.test.mjs's `rng`: the same fragments as its generator.
struct Lcg(u32);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(1103515245).wrapping_add(12345);
        self.0 as f64 / 4294967296.0
    }
}

/// What `new URLSearchParams(location.hash.slice(1)).get(key)` hands the element for a fragment written as is:
/// `+` is a space, `%XX` a byte (a lone `%` stays), the bytes read as UTF-8 with replacement characters.
fn form_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(a), Some(b)) => {
                    out.push((a * 16 + b) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The 200 malformed fragments of tests/e2e/hostile.test.mjs (which sends a sample of them through the element):
/// random bytes, truncations of a valid state, valid base64url of the wrong JSON, other encodings and versions,
/// text that is not base64url, and huge ones. Each is refused with the share-link message, not too long to show.
#[test]
fn the_hostile_fragments_of_the_browser_tests_are_refused() {
    let b64 = |bytes: &[u8]| base64url_encode(bytes);
    let b64text = |text: &str| base64url_encode(text.as_bytes());
    let preset = preset("seed-000").unwrap().to_value();
    let s = preset.to_string();
    let mut rand = Lcg(2024);
    let mut cases: Vec<(String, String)> = Vec::new();
    for i in 0..88 {
        let n = 1 + (rand.next().powi(2) * 3000.0).floor() as usize;
        let bytes: Vec<u8> = (0..n).map(|_| (rand.next() * 256.0).floor() as u8).collect();
        cases.push((format!("random bytes {i} ({n})"), b64(&bytes)));
    }
    let valid = b64text(
        &json!({"v": 1, "config": preset, "naive": true, "random": {"seed": 42, "dist": "randint", "high": 3}})
            .to_string(),
    );
    assert!(decode(&valid).is_ok(), "the uncut state is valid");
    for i in 0..40 {
        let cut = if i < 8 { valid.len() - 1 - i } else { (rand.next() * (valid.len() - 1) as f64).floor() as usize };
        cases.push((format!("valid state cut to {cut} of {}", valid.len()), valid[..cut.max(1)].to_string()));
    }
    let swap = |from: &str, to: &str| {
        assert!(s.contains(from), "{from} in {s}");
        s.replacen(from, to, 1)
    };
    let tokens5000 = format!("{{\"v\":1,\"config\":{{\"embeddings\":[{}]}}}}", vec!["[1]"; 5000].join(","));
    let wrong = [
        "null".to_string(),
        "[]".into(),
        "{}".into(),
        "\"x\"".into(),
        "1".into(),
        "true".into(),
        "{\"v\":1}".into(),
        "{\"v\":\"1\"}".into(),
        "{\"v\":1.5}".into(),
        "{\"v\":-1}".into(),
        format!("{{\"v\":0,\"config\":{s}}}"),
        "{\"v\":1,\"config\":null}".into(),
        "{\"v\":1,\"config\":[]}".into(),
        "{\"v\":1,\"config\":\"seed-000\"}".into(),
        "{\"v\":1,\"config\":{}}".into(),
        "{\"v\":1,\"config\":{\"embeddings\":[[1,2],[3]]}}".into(),
        "{\"v\":1,\"config\":{\"embeddings\":[[1,\"NaN\"]]}}".into(),
        "{\"v\":1,\"config\":{\"embeddings\":[[1,1e400]]}}".into(),
        "{\"v\":1,\"config\":{\"embeddings\":[[]]}}".into(),
        format!("{{\"v\":1,\"config\":{}}}", swap("\"embeddings\"", "\"__proto__\":{},\"embeddings\"")),
        format!("{{\"v\":1,\"config\":{}}}", swap("\"query\":0", "\"query\":99")),
        format!("{{\"v\":1,\"config\":{s},\"random\":{{\"seed\":-1,\"dist\":\"randint\",\"high\":3}}}}"),
        format!("{{\"v\":1,\"config\":{s},\"random\":{{\"seed\":4294967296,\"dist\":\"randint\",\"high\":3}}}}"),
        format!("{{\"v\":1,\"config\":{s},\"random\":{{\"seed\":1,\"dist\":\"uniform\",\"high\":3}}}}"),
        format!("{{\"v\":1,\"config\":{s},\"random\":5}}"),
        format!("{{\"v\":1,\"config\":{s},\"random\":{{\"seed\":1,\"dist\":\"randint\",\"high\":0}}}}"),
        format!("{{\"v\":1,\"config\":{s}}}xyz"),
        format!("{{\"v\":1,\"config\":{s}"),
        format!("[{{\"v\":1,\"config\":{s}}}]"),
        format!("{{\"v\":1,\"__proto__\":{{\"config\":{s}}}}}"),
        format!("{{\"V\":1,\"config\":{s}}}"),
        format!("{{\"v\":1,\"Config\":{s}}}"),
        "{\"v\":1,\"config\":{\"mechanism\":\"cross\",\"embeddings\":[[1]]}}".into(),
        "{\"v\":1,\"config\":{\"decoder_state\":[],\"annotations\":[[]]}}".into(),
        tokens5000,
        "\u{feff}{\"v\":1}".into(),
        "{\"v\":1,\"config\":{\"tokens\":[\"<img src=x onerror=window.__xss=1>\"],\"embeddings\":[[1],[2]]}}".into(),
    ];
    for (i, w) in wrong.iter().enumerate() {
        cases.push((format!("wrong JSON {i}: {}", w.chars().take(50).collect::<String>()), b64text(w)));
    }
    let utf16: Vec<u8> =
        json!({"v": 1, "config": preset}).to_string().encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    cases.push(("UTF-16 of a valid state".into(), b64(&utf16)));
    cases.push(("invalid UTF-8".into(), b64(&[0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])));
    let latin1: Vec<u8> =
        "{\"v\":1,\"config\":{\"embeddings\":[[1]],\"tokens\":[\"\u{e9}\u{ff}\"]}".chars().map(|c| c as u8).collect();
    cases.push(("Latin-1 token".into(), b64(&latin1)));
    for v in [json!(2), json!(99), json!(10_000_000_000u64), json!("2"), json!(true), json!(null), json!([1])] {
        let state = json!({"v": v, "config": preset, "naive": false, "random": null}).to_string();
        cases.push((format!("version {v}"), b64text(&state)));
    }
    for f in [
        "!!!",
        "A",
        "AAAAA",
        "====",
        "%FF%FE",
        "%00",
        "+/+/",
        "%20%20%20",
        "ü",
        "%F0%9F%92%A5",
        "<script>window.__xss=1</script>",
        "%22%3E%3Cimg%20src%3Dx%20onerror%3Dwindow.__xss%3D1%3E",
        "eyJ2Ijox",
        "e30",
        "..",
        "%%%",
        "a%2",
        "\u{202e}\u{202d}",
        "AA==AA",
        "A#B#C",
    ] {
        cases.push((format!("not base64url: {f}"), f.to_string()));
    }
    cases.push(("1.5 MB of A (NUL bytes)".into(), "A".repeat(1_500_000)));
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let random_text: String = (0..1_000_000).map(|_| ALPHABET[(rand.next() * 64.0).floor() as usize] as char).collect();
    cases.push(("1 MB of random base64url".into(), random_text));
    cases.push(("200 KB of \"[\" (nesting)".into(), b64text(&"[".repeat(200_000))));
    let deep = format!("{{\"v\":1,\"config\":{{\"embeddings\":{}1{}}}}}", "[".repeat(1000), "]".repeat(1000));
    cases.push(("1 000-deep nested config".into(), b64text(&deep)));
    cases.push(("4.1 MB (over the 4 000 000 limit)".into(), "A".repeat(4_100_000)));
    assert_eq!(cases.len(), 200);

    let mut failures = Vec::new();
    for (name, fragment) in &cases {
        // As written, and as the page reads it out of its URL.
        for text in [fragment.clone(), form_decoded(fragment)] {
            match decode(&text) {
                Ok(_) => failures.push(format!("{name}: accepted")),
                Err(e) if !e.starts_with("this share link cannot be read: ") => failures.push(format!("{name}: {e}")),
                Err(e) if e.chars().count() > 600 => {
                    failures.push(format!("{name}: a message of {} characters", e.chars().count()))
                }
                Err(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A weights config of `layers × heads × n × n`, every weight 1/n (n digits long in JSON).
fn weights(layers: usize, heads: usize, n: usize) -> Config {
    let row: Vec<f64> = vec![1.0 / n as f64; n];
    let head: Vec<Vec<f64>> = vec![row; n];
    Config::from_value(&json!({"mechanism": "weights", "attention": vec![vec![head; heads]; layers]})).unwrap()
}

#[test]
fn persist_saves_a_weights_figure_as_its_selection_and_restores_it() {
    use attention_viz::share::{decode_saved, saved, Saved, Selection};
    let config = weights(2, 3, 4).with_selection(1, 2).unwrap().with_query(3).unwrap();
    let state = State { config: config.clone(), naive: false, random: None };
    // The author's stack: the selection alone, a few dozen characters.
    let text = saved(&state, true).unwrap();
    assert!(text.len() < 100, "{text}");
    assert_eq!(decode_saved(&text).unwrap(), Saved::Selection(Selection { layer: 1, head: 2, query: 3 }));
    // Another stack: the whole state, as a share link holds it.
    let whole = saved(&state, false).unwrap();
    assert_eq!(whole, encode(&state));
    assert_eq!(decode_saved(&whole).unwrap(), Saved::State(Box::new(state)));
    // A malformed selection is refused, and a link reader never takes one for a state.
    let bad = base64url_encode(br#"{"v":1,"selection":{"layer":-1,"head":0,"query":0}}"#);
    assert!(decode_saved(&bad).unwrap_err().contains("selection is malformed"));
    assert!(decode(&text).unwrap_err().contains("no config"));
}

#[test]
fn a_state_too_long_to_restore_is_refused_from_its_sizes_with_a_message() {
    use attention_viz::share::{at_least, saved, MAX_LEN};
    use attention_viz::text::thousands;
    assert_eq!(
        (thousands(0).as_str(), thousands(999).as_str(), thousands(4_000_000).as_str()),
        ("0", "999", "4,000,000")
    );
    // 2 M weights: the bound alone says it is too long (nothing is written out).
    let big = weights(2, 4, 500);
    assert!(at_least(&big) > MAX_LEN);
    let e = saved(&State { config: big, naive: false, random: None }, false).unwrap_err();
    assert!(
        e.starts_with("This figure is too large to save (its state is at least ") && e.contains("4,000,000"),
        "{e}"
    );
    // The bound is a lower bound: never more than the real length.
    for config in [weights(1, 2, 30), preset("seed-001").unwrap(), preset("seed-003").unwrap()] {
        let state = State { config: config.clone(), naive: false, random: None };
        assert!(at_least(&config) <= encode(&state).len());
    }
}
