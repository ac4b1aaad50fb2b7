//! Share links: the whole state of a figure in a URL fragment, versioned and
//! validated, so a link restores exactly what its author saw and a malformed
//! or hostile one is refused with a message instead of half-applied.
//!
//! Format: base64url (no padding) of the JSON `{"v": 1, "config": {…},
//! "naive": bool, "random": {"seed": s, "dist": "randint"|"rand"|"randn",
//! "high": h} | null}`. Floats round-trip exactly through JSON.

use crate::config::Config;
use crate::edits::Distribution;
use serde_json::{json, Value};

pub const VERSION: u64 = 1;
/// Longer fragments are refused before decoding (a 4096-token figure fits well below).
pub const MAX_LEN: usize = 4_000_000;

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub config: Config,
    /// Whether the naive-softmax comparison is shown.
    pub naive: bool,
    /// The Randomize call the inputs came from, for "Copy as NumPy".
    pub random: Option<(u32, Distribution)>,
}

pub fn encode(state: &State) -> String {
    let random = state.random.map(|(seed, dist)| {
        let (name, high) = match dist {
            Distribution::Randint(h) => ("randint", h),
            Distribution::Rand => ("rand", 0),
            Distribution::Randn => ("randn", 0),
        };
        json!({"seed": seed, "dist": name, "high": high})
    });
    let value = json!({"v": VERSION, "config": state.config.to_value(), "naive": state.naive, "random": random});
    base64url_encode(value.to_string().as_bytes())
}

pub fn decode(text: &str) -> Result<State, String> {
    let fail = |why: String| Err(format!("this share link cannot be read: {why}"));
    if text.len() > MAX_LEN {
        return fail(format!("it is {} characters long, more than the {MAX_LEN} allowed", text.len()));
    }
    let Some(bytes) = base64url_decode(text.trim()) else {
        return fail("it is not base64url text (it may have been cut or edited)".into());
    };
    let Ok(json) = String::from_utf8(bytes) else { return fail("it does not decode to text".into()) };
    let value: Value = match serde_json::from_str(&json) {
        Ok(v) => v,
        Err(e) => return fail(format!("its JSON is broken ({e})")),
    };
    let Value::Object(obj) = &value else { return fail("it does not hold a figure".into()) };
    match obj.get("v").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) => {
            return fail(format!("it was made by a newer version (state format {v}; this page reads {VERSION})"))
        }
        None => return fail("it has no version number".into()),
    }
    let config = match obj.get("config") {
        Some(c) => match Config::from_value(c) {
            Ok(config) => config,
            Err(e) => return fail(format!("its config is invalid: {e}")),
        },
        None => return fail("it has no config".into()),
    };
    let naive = obj.get("naive").and_then(Value::as_bool).unwrap_or(false);
    let random = match obj.get("random") {
        None | Some(Value::Null) => None,
        Some(r) => {
            let seed = r.get("seed").and_then(Value::as_u64).filter(|s| *s <= u32::MAX as u64);
            let dist = r.get("dist").and_then(Value::as_str);
            let high = r.get("high").and_then(Value::as_f64).unwrap_or(0.0);
            match (seed, dist.map(|d| Distribution::parse(d, high))) {
                (Some(seed), Some(Ok(dist))) => Some((seed as u32, dist)),
                _ => return fail("its random-seed record is malformed".into()),
            }
        }
    };
    Ok(State { config, naive, random })
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..chunk.len() + 1 {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = ALPHABET.iter().position(|&a| a == c).or(match c {
                b'+' => Some(62),
                b'/' => Some(63),
                _ => None,
            })? as u32;
            n |= v << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    Some(out)
}
