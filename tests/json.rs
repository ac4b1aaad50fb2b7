//! The core's JSON reader (`config::json::parse`) against serde_json's (`from_str::<Value>`, with `float_roundtrip`):
//! every text gives the same value, numbers bit for bit, or the same message at the same line and column. serde_json
//! is the golden: hand-picked edge cases (numbers at every limit, escapes and surrogates, each malformed shape, nesting
//! at the recursion limit), then proptest's texts: JSON of random values written compactly and pretty, random floats in
//! every notation, and those texts cut, with a byte dropped or one put in.

use attention_viz::config::json;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunConfig, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::Value;

/// Both readers' answers as text: the value written by serde_json (`-0.0` apart from `0`, `1.0` from `1`, every
/// float's shortest digits), or the message with its line and column.
fn both(text: &str) -> (String, String) {
    let ours = match json::parse(text) {
        Ok(v) => format!("ok {}", kinds(&v)),
        Err(e) => format!("error {e} ({}, {})", e.line(), e.column()),
    };
    let theirs = match serde_json::from_str::<Value>(text) {
        Ok(v) => format!("ok {}", kinds(&v)),
        Err(e) => format!("error {e} ({}, {})", e.line(), e.column()),
    };
    (ours, theirs)
}

/// The value as JSON text, each number tagged with how it is held (u64, i64, f64), which `==` does not compare.
fn kinds(v: &Value) -> String {
    match v {
        Value::Number(n) => {
            let kind = if n.is_u64() {
                "u"
            } else if n.is_i64() {
                "i"
            } else {
                "f"
            };
            format!("{kind}{n}")
        }
        Value::Array(items) => format!("[{}]", items.iter().map(kinds).collect::<Vec<_>>().join(",")),
        Value::Object(map) => {
            format!("{{{}}}", map.iter().map(|(k, v)| format!("{k:?}:{}", kinds(v))).collect::<Vec<_>>().join(","))
        }
        other => other.to_string(),
    }
}

fn same(text: &str) -> Result<(), String> {
    let (ours, theirs) = both(text);
    if ours == theirs {
        Ok(())
    } else {
        Err(format!("{text:?}\n  ours:       {ours}\n  serde_json: {theirs}"))
    }
}

#[test]
fn edge_cases_read_as_serde_json_reads_them() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let deep_objects = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
    let mut cases: Vec<String> = [
        "",
        " ",
        "\n\n  ",
        "null",
        "true",
        "false",
        "nul",
        "tru",
        "fals",
        "nulx",
        "truex",
        "n",
        "x",
        "[",
        "]",
        "{",
        "}",
        "0",
        "-0",
        "-",
        "--1",
        "+1",
        "00",
        "-00",
        "01",
        "0.",
        "0.e1",
        ".5",
        "1.5",
        "-1.5",
        "1e",
        "1e+",
        "1e-",
        "1E5",
        "1e5",
        "1.0",
        "-0.0",
        "0e0",
        "0e99999999999",
        "-0e99999999999",
        "1e99999999999",
        "1e-99999999999",
        "-1e-99999999999",
        "1e2147483647",
        "1e2147483648",
        "1e308",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1e309",
        "-1e309",
        "1e400",
        "1e-400",
        "4.9e-324",
        "2.4e-324",
        "2.5e-324",
        "2.2250738585072011e-308",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "9223372036854775808",
        "-18446744073709551616",
        "123456789012345678901234567890",
        "0.1",
        "0.30000000000000004",
        "3.141592653589793238462643383279",
        "1x",
        "1 2",
        "[1 2]",
        "[1,]",
        "[,1]",
        "[1,,2]",
        "[1",
        "[1,",
        "[ ]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{\"a\":}",
        "{\"a\"",
        "{\"a\":1",
        "{1:2}",
        "{\"a\":1 \"b\":2}",
        "{,}",
        "{\"a\":1,\"a\":2}",
        "{\"b\":1,\"a\":[true,null,{}]}",
        "\"",
        "\"abc",
        "\"a\\\"",
        "\"\\u00e9\"",
        "\"\\u00E9\"",
        "\"\\uD83D\\uDE00\"",
        "\"\\uD83D\"",
        "\"\\uD83Dx\"",
        "\"\\uD83D\\x\"",
        "\"\\uD83D\\u0041\"",
        "\"\\uDE00\"",
        "\"\\u12\"",
        "\"\\u12G4\"",
        "\"\\uD83D\\uDE0\"",
        "\"\\q\"",
        "\"\\",
        "\"tab\there\"",
        "\"nl\nhere\"",
        "\"\\b\\f\\n\\r\\t\\/\\\\\"",
        "\"é ü 中 😀\"",
        "[\"a\"\n,\n1\n,x]",
        "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": tru\n}",
        "  \r\n\t[1]\r\n  ",
        "[1]x",
        "[1] ",
        "\u{feff}1",
        "[1e400]",
        "{\"embeddings\": [[1e400]]}",
        "[-]",
        "[-x]",
        "[1.]",
        "[1.x]",
        "[1e]",
        "[1ex]",
        "[0x1]",
        "[\"\u{1}\"]",
        "[\"\u{7f}\"]",
        "1e-2147483648",
        "1e-2147483649",
        "0.000000000000000000000000000001e30",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for n in [1, 126, 127, 128, 129, 300] {
        cases.push(deep(n));
        cases.push(deep_objects(n));
        cases.push(format!("{{\"w_q\": {}}}", deep(n)));
    }
    let failures: Vec<String> = cases.iter().filter_map(|t| same(t).err()).collect();
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// A float in one of the ways a text may write it: Rust's shortest, exponent forms, fixed digits (long, with
/// trailing zeros), and JSON integers of it.
fn float_text() -> impl Strategy<Value = String> {
    (any::<u64>(), 0usize..6, 0usize..30).prop_map(|(bits, how, digits)| {
        let x = f64::from_bits(bits);
        let x = if x.is_finite() { x } else { (bits % 1000) as f64 * 0.001 };
        match how {
            0 => format!("{x:?}"),
            1 => format!("{x:e}"),
            2 => format!("{x:.digits$e}"),
            3 => format!("{:.digits$}", x.clamp(-1e30, 1e30)),
            4 => format!("{}", x.trunc().clamp(-3e19, 3e19) as i128),
            _ => format!("{x:E}").replace('E', "E+").replace("E+-", "E-"),
        }
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![Just("a".to_string()), Just("w_q".to_string()), "[a-z\\\\\"é\u{1F600}\u{1}]{0,6}"]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |x| x.is_finite()).prop_map(Value::from),
        "[ -~\u{1}\t\n\"\\\\é😀]{0,12}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..5).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A text: JSON written compactly or pretty, or floats in a list, then maybe cut, with a byte dropped or one put in.
fn text() -> impl Strategy<Value = String> {
    let written = prop_oneof![
        value().prop_map(|v| v.to_string()),
        value().prop_map(|v| serde_json::to_string_pretty(&v).unwrap_or_default()),
        prop::collection::vec(float_text(), 1..6).prop_map(|f| format!("[{}]", f.join(", "))),
    ];
    let noise = prop::sample::select(&b"[]{},:\"\\-+.eE0123456789 \n\tnulltruefalsex\x01\xc3"[..]);
    (written, 0usize..4, any::<prop::sample::Index>(), noise).prop_map(|(text, how, at, byte)| {
        let mut bytes = text.into_bytes();
        let i = if bytes.is_empty() { 0 } else { at.index(bytes.len()) };
        match how {
            1 => bytes.truncate(i),
            2 if !bytes.is_empty() => {
                bytes.remove(i);
            }
            3 => bytes.insert(i, byte),
            _ => {}
        }
        // A cut through a character, or a lone byte, leaves text that is not UTF-8: the readers take &str.
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

#[test]
fn random_texts_read_as_serde_json_reads_them() {
    let config = RunConfig { cases: 20_000, failure_persistence: None, ..RunConfig::default() };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    runner.run(&text(), |t| same(&t).map_err(TestCaseError::fail)).unwrap();
}
