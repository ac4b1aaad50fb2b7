//! Share links round-trip exactly and refuse malformed or hostile fragments.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::edits::Distribution;
use attention_viz::presets::{preset, NAMES};
use attention_viz::share::{base64url_decode, base64url_encode, decode, encode, State};

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
