#![cfg(not(target_arch = "wasm32"))]
//! Checks `attention_viz::random::RandomState` against vectors recorded from NumPy 2.4.6.
//! The fixture's `call` strings are interpreted rather than mapped by index, so adding a
//! vector to the fixture tests it without touching this file.

use attention_viz::random::RandomState;
use serde_json::Value;

const VECTORS: &str = include_str!("fixtures/numpy-random-vectors.json");

fn vectors() -> Value {
    serde_json::from_str(VECTORS).expect("fixture is valid JSON")
}

fn seed_entry(v: &Value, seed: &str) -> Value {
    v["seeds"][seed].clone()
}

fn u32s(v: &Value) -> Vec<u32> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| u32::try_from(x.as_u64().expect("unsigned integer")).expect("fits u32"))
        .collect()
}

fn i64s(v: &Value) -> Vec<i64> {
    v.as_array().expect("array").iter().map(|x| x.as_i64().expect("integer")).collect()
}

/// Results are nested like NumPy's output shape; C order is the flattening order.
fn leaves(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(items) => items.iter().flat_map(leaves).collect(),
        other => vec![other.clone()],
    }
}

#[derive(Debug)]
enum Drawn {
    Ints(Vec<i64>),
    Bools(Vec<bool>),
    Floats(Vec<f64>),
}

/// Splits on commas that are not inside parentheses, e.g. `3,size=(3,3)`.
fn split_args(args: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in args.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        parts.push(cur.trim().to_string());
    }
    parts
}

/// Integer literals as they appear in the fixture: `5`, `-5`, `2**32`.
fn int_expr(s: &str) -> i64 {
    match s.split_once("**") {
        Some((base, exp)) => base
            .trim()
            .parse::<i64>()
            .expect("base")
            .checked_pow(exp.trim().parse().expect("exponent"))
            .expect("power fits i64"),
        None => s.trim().parse().expect("integer literal"),
    }
}

/// `3` or `(3,3)` -> number of elements.
fn size_count(s: &str) -> usize {
    let inner = s.trim().trim_start_matches('(').trim_end_matches(')');
    split_args(inner).iter().map(|d| usize::try_from(int_expr(d)).expect("non-negative dimension")).product()
}

/// Runs one fixture call such as `randint(0,100,size=12)` or `rand(2,3) [note]`.
fn run_call(rs: &mut RandomState, call: &str) -> Drawn {
    let open = call.find('(').expect("call has '('");
    let name = call[..open].trim();
    let mut depth = 0;
    let mut close = None;
    for (i, c) in call[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close.expect("call has matching ')'");
    let mut positional = Vec::new();
    let mut size = None;
    let mut dtype = None;
    for arg in split_args(&call[open + 1..close]) {
        match arg.split_once('=') {
            Some(("size", v)) => size = Some(size_count(v)),
            Some(("dtype", v)) => dtype = Some(v.trim().to_string()),
            Some((k, _)) => panic!("unsupported keyword {k} in {call}"),
            None => positional.push(arg),
        }
    }
    match name {
        "rand" | "randn" => {
            // rand(*shape): no shape means a single value.
            let count: usize = positional.iter().map(|d| usize::try_from(int_expr(d)).expect("dimension")).product();
            Drawn::Floats(if name == "rand" { rs.rand(count) } else { rs.randn(count) })
        }
        "randint" => {
            let ints: Vec<i64> = positional.iter().map(|p| int_expr(p)).collect();
            let (low, high) = match ints.as_slice() {
                [high] => (0, *high),
                [low, high] => (*low, *high),
                _ => panic!("unsupported randint arguments in {call}"),
            };
            let count = size.unwrap_or(1);
            match dtype.as_deref() {
                // int32 takes the same 32-bit masked path as the default int64.
                None | Some("int") | Some("int64") | Some("int32") => {
                    Drawn::Ints(rs.randint(low, high, count).expect("valid range"))
                }
                Some("uint8") => Drawn::Ints(
                    rs.randint_u8(low, high, count).expect("valid range").into_iter().map(i64::from).collect(),
                ),
                Some("int16") => Drawn::Ints(
                    rs.randint_i16(low, high, count).expect("valid range").into_iter().map(i64::from).collect(),
                ),
                Some("bool") => Drawn::Bools(rs.randint_bool(low, high, count).expect("valid range")),
                Some(other) => panic!("unsupported dtype {other} in {call}"),
            }
        }
        other => panic!("unsupported method {other} in {call}"),
    }
}

fn assert_matches(drawn: &Drawn, expected: &Value, what: &str) {
    let want = leaves(expected);
    match drawn {
        Drawn::Ints(got) => {
            let want: Vec<i64> = want.iter().map(|x| x.as_i64().expect("integer")).collect();
            assert_eq!(got, &want, "{what}");
        }
        Drawn::Bools(got) => {
            let want: Vec<bool> = want.iter().map(|x| x.as_bool().expect("bool")).collect();
            assert_eq!(got, &want, "{what}");
        }
        Drawn::Floats(got) => {
            // Python reprs round-trip, so parsing them gives NumPy's exact doubles.
            let want: Vec<f64> =
                want.iter().map(|x| x.as_str().expect("float repr").parse::<f64>().expect("float")).collect();
            assert_eq!(got.len(), want.len(), "{what}: length");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.to_bits(), w.to_bits(), "{what}[{i}]: got {g:?}, want {w:?}");
            }
        }
    }
}

const SEEDS: [&str; 2] = ["0", "42"];

#[test]
fn state_after_seed_matches_numpy() {
    let v = vectors();
    for seed in SEEDS {
        let e = seed_entry(&v, seed);
        let rs = RandomState::new(seed.parse().unwrap());
        assert_eq!(rs.key()[..8].to_vec(), u32s(&e["state_key_first8_after_seed"]), "seed {seed}");
        assert_eq!(rs.key()[622..].to_vec(), u32s(&e["state_key_last2_after_seed"]), "seed {seed}");
        assert_eq!(rs.pos() as u64, e["state_pos_after_seed"].as_u64().unwrap(), "seed {seed}");
        assert_eq!(rs.cached_gauss(), None);
    }
}

#[test]
fn state_after_seed_for_documented_seeds() {
    let cases: [(u32, [u32; 3]); 4] = [
        (42, [42, 3107752595, 1895908407]),
        (0, [0, 1, 1812433255]),
        (1, [1, 1812433254, 3713160357]),
        (4294967295, [4294967295, 1340201581, 3941791902]),
    ];
    for (seed, first3) in cases {
        let rs = RandomState::new(seed);
        assert_eq!(rs.key()[..3], first3, "seed {seed}");
        assert_eq!(rs.pos(), 624);
    }
}

#[test]
fn raw_uint32_outputs_match_numpy() {
    let v = vectors();
    for seed in SEEDS {
        let e = seed_entry(&v, seed);
        let mut rs = RandomState::new(seed.parse().unwrap());
        let first10: Vec<u32> = (0..10).map(|_| rs.next_u32()).collect();
        assert_eq!(first10, u32s(&e["raw_uint32_first10"]), "seed {seed}");

        // Indices 623..=625 straddle the second twist.
        let mut rs = RandomState::new(seed.parse().unwrap());
        for _ in 0..623 {
            rs.next_u32();
        }
        let around: Vec<u32> = (0..3).map(|_| rs.next_u32()).collect();
        assert_eq!(around, u32s(&e["raw_uint32_index_623_624_625"]), "seed {seed}");
    }
}

#[test]
fn script_sequence_on_one_state_matches_numpy() {
    let v = vectors();
    for seed in SEEDS {
        let e = seed_entry(&v, seed);
        let mut rs = RandomState::new(seed.parse().unwrap());
        let script = e["script_sequence_fresh_seed"].as_array().unwrap();
        assert!(script.len() >= 16);
        for (i, step) in script.iter().enumerate() {
            let call = step["call"].as_str().unwrap();
            let drawn = run_call(&mut rs, call);
            assert_matches(&drawn, &step["result"], &format!("seed {seed} step {i} `{call}`"));
        }
    }
}

#[test]
fn fresh_seed_each_matches_numpy() {
    let v = vectors();
    for seed in SEEDS {
        let e = seed_entry(&v, seed);
        let cases = e["fresh_seed_each"].as_object().unwrap();
        assert!(cases.len() >= 9);
        for (call, expected) in cases {
            let mut rs = RandomState::new(seed.parse().unwrap());
            let drawn = run_call(&mut rs, call);
            assert_matches(&drawn, expected, &format!("seed {seed} fresh `{call}`"));
        }
    }
}

#[test]
fn seed42_randint3_trace_matches_numpy() {
    let v = vectors();
    let t = &v["seed42_randint3_x27_trace"];
    let rng = t["rng"].as_u64().unwrap() as u32;
    let mask = t["mask"].as_u64().unwrap() as u32;
    let draws_used = t["draws_used"].as_u64().unwrap() as usize;
    let trace = t["trace"].as_array().unwrap();
    assert_eq!((rng, mask, draws_used, trace.len()), (2, 3, 39, 39));

    // The trace itself agrees with the raw stream and the rejection rule.
    let mut raw = RandomState::new(42);
    let mut accepted = Vec::new();
    let mut rejections = 0;
    for (i, step) in trace.iter().enumerate() {
        let word = raw.next_u32();
        assert_eq!(word as u64, step["raw"].as_u64().unwrap(), "trace[{i}].raw");
        assert_eq!((word & mask) as u64, step["masked"].as_u64().unwrap(), "trace[{i}].masked");
        let ok = word & mask <= rng;
        assert_eq!(ok, step["accepted"].as_bool().unwrap(), "trace[{i}].accepted");
        if ok {
            accepted.push((word & mask) as i64);
        } else {
            rejections += 1;
        }
    }
    assert_eq!(rejections, t["rejections"].as_u64().unwrap());
    assert_eq!(accepted, i64s(&t["values"]));

    // And the implementation produces the same values with exactly 39 words consumed.
    let mut rs = RandomState::new(42);
    let mut values = Vec::new();
    for _ in 0..3 {
        values.extend(rs.randint(0, 3, 9).unwrap());
    }
    assert_eq!(values, i64s(&t["values"]));
    assert_eq!(rs.next_u32(), raw.next_u32(), "word 40 follows the 39 consumed");
}

#[test]
fn seed42_weight_matrices() {
    let mut rs = RandomState::new(42);
    let w_q = rs.randint(0, 3, 9).unwrap();
    let w_k = rs.randint(0, 3, 9).unwrap();
    let w_v = rs.randint(0, 3, 9).unwrap();
    assert_eq!(w_q, [2, 0, 2, 2, 0, 0, 2, 1, 2]);
    assert_eq!(w_k, [2, 2, 2, 0, 2, 1, 0, 1, 1]);
    assert_eq!(w_v, [1, 1, 0, 0, 1, 1, 0, 0, 0]);

    // A following rand() uses words 40 and 41 of the stream.
    let mut raw = RandomState::new(42);
    for _ in 0..39 {
        raw.next_u32();
    }
    assert_eq!(rs.rand(1)[0].to_bits(), raw.next_double().to_bits());
}

#[test]
fn documented_first_values() {
    let mut rs = RandomState::new(42);
    assert_eq!(rs.rand(2), [0.3745401188473625, 0.9507143064099162]);
    rs.seed(42);
    assert_eq!(rs.randn(2), [0.4967141530112327, -0.13826430117118466]);
    rs.seed(42);
    assert_eq!(rs.randint(0, 100, 10).unwrap(), [51, 92, 14, 71, 60, 20, 82, 86, 74, 74]);
    rs.seed(42);
    assert_eq!(rs.randint(0, 10, 10).unwrap(), [6, 3, 7, 4, 6, 9, 2, 6, 7, 4]);
}

#[test]
fn next_u64_draws_high_word_first() {
    let mut a = RandomState::new(7);
    let mut b = RandomState::new(7);
    let hi = b.next_u32() as u64;
    let lo = b.next_u32() as u64;
    assert_eq!(a.next_u64(), hi << 32 | lo);
}

#[test]
fn single_value_range_consumes_no_draws() {
    let mut rs = RandomState::new(42);
    assert_eq!(rs.randint(5, 6, 4).unwrap(), [5, 5, 5, 5]);
    assert_eq!(rs.randint(i64::MIN, i64::MIN + 1, 2).unwrap(), [i64::MIN, i64::MIN]);
    assert_eq!(rs.randint(i64::MAX - 1, i64::MAX, 2).unwrap(), [i64::MAX - 1; 2]);
    assert_eq!(rs, RandomState::new(42));
}

#[test]
fn gauss_cache_survives_other_calls_and_is_cleared_by_seed() {
    let mut rs = RandomState::new(42);
    let first = rs.gauss();
    let cached = rs.cached_gauss().expect("second value of the pair is cached");
    rs.randint(0, 3, 5).unwrap();
    rs.rand(3);
    assert_eq!(rs.gauss().to_bits(), cached.to_bits());
    assert_eq!(rs.cached_gauss(), None);

    rs.seed(42);
    assert_eq!(rs.cached_gauss(), None);
    assert_eq!(rs.gauss().to_bits(), first.to_bits());
    rs.seed(42);
    assert_eq!(rs, {
        let mut fresh = RandomState::new(0);
        fresh.seed(42);
        fresh
    });
}

#[test]
fn empty_ranges_are_errors_not_panics() {
    let mut rs = RandomState::new(0);
    let before = rs.clone();
    assert_eq!(rs.randint(5, 5, 1), Err("low >= high".to_string()));
    assert_eq!(rs.randint(6, 5, 3), Err("low >= high".to_string()));
    assert_eq!(rs.randint(i64::MAX, i64::MIN, 1), Err("low >= high".to_string()));
    assert_eq!(rs.randint(i64::MIN, i64::MIN, 1), Err("low >= high".to_string()));
    assert!(rs.randint_u8(-1, 5, 1).is_err());
    assert!(rs.randint_u8(0, 257, 1).is_err());
    assert!(rs.randint_i16(i64::MIN, i64::MIN, 1).is_err());
    assert!(rs.randint_i16(0, i64::MAX, 1).is_err());
    assert!(rs.randint_bool(0, 3, 1).is_err());
    assert!(rs.randint_bool(1, 1, 1).is_err());
    // NumPy returns an empty array for size=0 before checking the bounds.
    assert_eq!(rs.randint(5, 5, 0), Ok(vec![]));
    assert_eq!(rs, before, "errors consume no draws");
}

#[test]
fn extreme_ranges_stay_in_bounds() {
    let mut rs = RandomState::new(123);
    for v in rs.randint(i64::MIN, i64::MAX, 200).unwrap() {
        assert!(v < i64::MAX);
    }
    for v in rs.randint(0, i64::MAX, 200).unwrap() {
        assert!((0..i64::MAX).contains(&v));
    }
    for v in rs.randint(-5, 5, 200).unwrap() {
        assert!((-5..5).contains(&v));
    }
    for v in rs.randint(i64::MIN, i64::MIN + 3, 200).unwrap() {
        assert!((i64::MIN..i64::MIN + 3).contains(&v));
    }
    for v in rs.randint(-(1 << 32), 1 << 32, 200).unwrap() {
        assert!((-(1 << 32)..1 << 32).contains(&v));
    }
    for v in rs.randint(-10, (1 << 32) - 10, 200).unwrap() {
        assert!((-10..(1 << 32) - 10).contains(&v));
    }
    // Every i16 is in range: what can go wrong over the full range is the draw, so 200 draws must reach both halves
    // (all in one half has probability 2 · 2⁻²⁰⁰).
    let full = rs.randint_i16(-32768, 32768, 200).unwrap();
    assert!(full.iter().any(|&v| v < 0) && full.iter().any(|&v| v >= 0), "{full:?}");
    for v in rs.randint_i16(-300, -200, 200).unwrap() {
        assert!((-300..-200).contains(&v));
    }
    for v in rs.randint_u8(250, 256, 200).unwrap() {
        assert!(v >= 250);
    }
    assert_eq!(rs.randint_bool(1, 2, 3).unwrap(), [true; 3]);
    for x in rs.rand(1000) {
        assert!((0.0..1.0).contains(&x));
    }
    assert!(rs.randn(1001).iter().all(|x| x.is_finite()));
}
