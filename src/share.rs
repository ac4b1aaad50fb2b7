//! Share links: the whole state of a figure in a URL fragment, versioned and
//! validated, so a link restores exactly what its author saw and a malformed
//! or hostile one is refused with a message instead of half-applied.
//!
//! Format: base64url (no padding) of the JSON `{"v": 1, "config": {…},
//! "naive": bool, "random": {"seed": s, "dist": "randint"|"rand"|"randn",
//! "high": h} | null}`. Floats round-trip exactly through JSON.

use crate::config::{Config, Mechanism};
use crate::edits::Distribution;
use crate::text::thousands;
use serde_json::{json, Value};

pub const VERSION: u64 = 1;
/// Longer fragments are refused before decoding (a 4096-token figure fits well below). The
/// element's `persist` never saves a longer state (it could not be restored): [`saved`] refuses
/// one here, so the element keeps no copy of the number to drift.
pub const MAX_LEN: usize = 4_000_000;

/// What `persist` saves of a model's weights figure (`mechanism: "weights"`) whose stack is still
/// the author's: the stack is the page's and comes back with it, so only the reader's picks are
/// saved — `{"v": 1, "selection": {"layer", "head", "query"}}`, a few dozen characters instead of
/// a state of up to 2²³ numbers (hundreds of MB, far over [`MAX_LEN`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Selection {
    pub layer: usize,
    pub head: usize,
    pub query: usize,
}

/// A saved state (`persist`): a whole state, or a weights figure's selection on the author's stack.
#[derive(Clone, Debug, PartialEq)]
pub enum Saved {
    State(Box<State>),
    Selection(Selection),
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub config: Config,
    /// Whether the naive-softmax comparison is shown.
    pub naive: bool,
    /// The Randomize call the inputs came from, for "Copy as NumPy".
    pub random: Option<(u32, Distribution)>,
}

/// The share-link fragment of `state`: base64url of [`state_json`].
pub fn encode(state: &State) -> String {
    base64url_encode(state_json(state).as_bytes())
}

/// The versioned JSON text a fragment carries (the element's `toJSON()`, parsed).
pub fn state_json(state: &State) -> String {
    let random = state.random.map(|(seed, dist)| {
        let (name, high) = match dist {
            Distribution::Randint(h) => ("randint", h),
            Distribution::Rand => ("rand", 0),
            Distribution::Randn => ("randn", 0),
        };
        json!({"seed": seed, "dist": name, "high": high})
    });
    json!({"v": VERSION, "config": state.config.to_value(), "naive": state.naive, "random": random}).to_string()
}

/// The selection of a weights figure as `persist` saves it (see [`Selection`]).
pub fn encode_selection(s: Selection) -> String {
    let value = json!({"v": VERSION, "selection": {"layer": s.layer, "head": s.head, "query": s.query}});
    base64url_encode(value.to_string().as_bytes())
}

/// What `persist` saves of `state`: a weights figure's selection when its stack is the author's
/// (`stack_authored`), else the whole state — or, when that is longer than [`MAX_LEN`] (it could
/// not be restored), the message saying so. The length is judged from the sizes first
/// ([`at_least`]): a state that cannot be saved is never written out.
pub fn saved(state: &State, stack_authored: bool) -> Result<String, String> {
    if let (true, Mechanism::Weights { layer, head, .. }) = (stack_authored, &state.config.mechanism) {
        return Ok(encode_selection(Selection { layer: *layer, head: *head, query: state.config.query }));
    }
    let least = at_least(&state.config);
    if least > MAX_LEN {
        return Err(too_long_to_save(least, false));
    }
    let text = encode(state);
    if text.len() > MAX_LEN {
        return Err(too_long_to_save(text.len(), true));
    }
    Ok(text)
}

/// A lower bound of the length of `encode`'s text for `config`, from its sizes alone: every
/// number of its matrices (and a model's stack) is at least one digit and a separator in the
/// JSON, which base64 makes 4/3 as long.
pub fn at_least(config: &Config) -> usize {
    let numbers = match &config.mechanism {
        Mechanism::SelfAttention { embeddings, projections } => {
            embeddings.data().len()
                + projections.as_ref().map_or(0, |p| p.w_q.data().len() + p.w_k.data().len() + p.w_v.data().len())
        }
        Mechanism::Cross { decoder_state, annotations } => decoder_state.len() + annotations.data().len(),
        Mechanism::Weights { attention, .. } => attention.data().len(),
    };
    (numbers * 2).saturating_mul(4) / 3
}

/// The message of a state `persist` cannot save: `len` characters (`exact`, or at least that many).
pub fn too_long_to_save(len: usize, exact: bool) -> String {
    format!(
        "This figure is too large to save (its state is {}{} characters, more than the {} that can be restored); \
         your edits last until you leave the page.",
        if exact { "" } else { "at least " },
        thousands(len),
        thousands(MAX_LEN)
    )
}

/// A saved state: a whole state (as [`decode`]) or a weights figure's selection ([`encode_selection`]).
pub fn decode_saved(text: &str) -> Result<Saved, String> {
    let value = decode_value(text)?;
    let Some(selection) = value.get("selection") else { return state_of(&value).map(|s| Saved::State(Box::new(s))) };
    let fail = |why: &str| Err(format!("this share link cannot be read: {why}"));
    let index = |name: &str| selection.get(name).and_then(Value::as_u64).and_then(|x| usize::try_from(x).ok());
    match (index("layer"), index("head"), index("query")) {
        (Some(layer), Some(head), Some(query)) => Ok(Saved::Selection(Selection { layer, head, query })),
        _ => fail("its selection is malformed"),
    }
}

pub fn decode(text: &str) -> Result<State, String> {
    state_of(&decode_value(text)?)
}

/// The state of [`state_json`]'s text (the element's `.config = toJSON()'s object`): what [`decode`] gives for its
/// fragment, word for word, without the base64url round trip.
pub fn decode_json(json: &str) -> Result<State, String> {
    let len = base64url_len(json.len());
    if len > MAX_LEN {
        return Err(too_long_to_read(len));
    }
    state_of(&json_value(json)?)
}

fn too_long_to_read(len: usize) -> String {
    format!("this share link cannot be read: it is {len} characters long, more than the {MAX_LEN} allowed")
}

/// The versioned JSON object of a fragment, or why it cannot be read.
fn decode_value(text: &str) -> Result<Value, String> {
    let fail = |why: String| Err(format!("this share link cannot be read: {why}"));
    if text.len() > MAX_LEN {
        return Err(too_long_to_read(text.len()));
    }
    let Some(bytes) = base64url_decode(text.trim()) else {
        return fail("it is not base64url text (it may have been cut or edited)".into());
    };
    let Ok(json) = String::from_utf8(bytes) else { return fail("it does not decode to text".into()) };
    json_value(&json)
}

/// The versioned JSON object of a fragment's text, or why it cannot be read.
fn json_value(json: &str) -> Result<Value, String> {
    let fail = |why: String| Err(format!("this share link cannot be read: {why}"));
    let value: Value = match crate::config::json::parse(json) {
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
    Ok(value)
}

/// The state a versioned fragment's object holds.
fn state_of(value: &Value) -> Result<State, String> {
    let fail = |why: String| Err(format!("this share link cannot be read: {why}"));
    let Value::Object(obj) = value else { return fail("it does not hold a figure".into()) };
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

/// The length of [`base64url_encode`]'s text for `bytes` bytes.
pub fn base64url_len(bytes: usize) -> usize {
    bytes / 3 * 4 + [0, 2, 3][bytes % 3]
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
