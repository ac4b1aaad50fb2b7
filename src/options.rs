//! The element options a caller gives beside a config (`views`, `palette`, `fmt`, `height`, `editable`, `theme`,
//! `contrast`): their names, and each one's rule: the value as the caller gave it (JSON: a text, a number, a bool, a
//! list; `null` for anything else) becomes the attribute's text, or the message that refuses it. Also the message for
//! a name that is neither an option nor a field, and what the element says of a `height` attribute it clamps
//! (`height_note`). Python's `show()`, `show_attention()` and `Widget` ask this through
//! `ffi::av_options`; whether a `palette`, `fmt` or `contrast` text is one the heatmaps know is
//! `picture::Options::style`'s to say.

use crate::config::{FIELDS, WEIGHTS_FIELDS};
use crate::heatmap::draw::{MAX_HEIGHT, MIN_HEIGHT};
use crate::text::{closest, quote};
use serde_json::{Map, Value};

/// The element options, in the order a message lists them.
pub const OPTIONS: &[&str] = &["views", "palette", "fmt", "height", "editable", "theme", "contrast"];

/// The values of `theme`: the host page's (`auto`), or one of the heatmaps' two themes.
pub const THEMES: &[&str] = &["auto", "light", "dark"];

/// The options whose text the heatmaps judge (`picture::Options::style`); here only their being a text. A preset's
/// picture is drawn without them: any of them changes what its live figure shows.
pub const STYLE: &[&str] = &["palette", "fmt", "contrast"];

/// The options that change which heatmaps a figure shows or their size: a preset's picture still shows with them,
/// but cannot reserve its live figure's height.
pub const LAYOUT: &[&str] = &["views", "height", "editable"];

/// Option `name`'s attribute text for `value`, or the message refusing it. `shown` is the value as the caller's
/// language writes it (Python's `repr`, cut as [`crate::text::cut`] cuts), which a message quotes.
pub fn attribute(name: &str, value: &Value, shown: &str) -> Result<String, String> {
    match name {
        "views" => views(value, shown),
        "editable" => editable(value, shown),
        "height" => height(value, shown),
        "theme" => theme(value, shown),
        _ if STYLE.contains(&name) => match value {
            Value::String(text) => Ok(text.clone()),
            _ => Err(format!("{name} must be a text (a name or format spec the core knows), got {shown}")),
        },
        _ => Err(unknown(name, Among::Fields)),
    }
}

/// `views`: heatmaps' and panels' names, a list of them or one text of them separated by commas; the attribute is
/// the names, trimmed, joined by commas. Which names exist is the element's to say when it resolves them.
fn views(value: &Value, shown: &str) -> Result<String, String> {
    let names: Vec<Option<&str>> = match value {
        Value::String(text) => text.split(',').map(Some).collect(),
        Value::Array(items) => items.iter().map(Value::as_str).collect(),
        _ => {
            return Err(format!(
                "views must name heatmaps or panels (a list of names, or one text of them separated by commas), \
                 got {shown}"
            ))
        }
    };
    let trimmed: Option<Vec<&str>> = names.into_iter().map(|n| n.map(trim).filter(|n| !n.is_empty())).collect();
    trimmed.map(|names| names.join(",")).ok_or_else(|| format!("views must name heatmaps or panels, got {shown}"))
}

/// Text without the white space around it, as Python's `str.strip()` sees white space (Unicode's, and the four
/// information separators U+001C … U+001F).
fn trim(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// `editable`: a bool, or the attribute's own text ("true", "false").
fn editable(value: &Value, shown: &str) -> Result<String, String> {
    match value {
        Value::Bool(b) => Ok(b.to_string()),
        Value::String(text) if text == "true" || text == "false" => Ok(text.clone()),
        _ => Err(format!("editable must be True or False, got {shown}")),
    }
}

/// `height`: CSS pixels from [`MIN_HEIGHT`] to [`MAX_HEIGHT`], a number or a text of one (the attribute's own); the
/// attribute is the number, whole ones without a fraction.
fn height(value: &Value, shown: &str) -> Result<String, String> {
    let x = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(text) => number_of(text),
        _ => None,
    };
    let Some(x) = x.filter(|x| x.is_finite() && *x > 0.0) else {
        return Err(format!("height must be a positive number of CSS pixels, got {shown}"));
    };
    if !(f64::from(MIN_HEIGHT)..=f64::from(MAX_HEIGHT)).contains(&x) {
        return Err(format!("height must be from {MIN_HEIGHT} to {MAX_HEIGHT} CSS pixels, got {shown}"));
    }
    Ok(if x.fract() == 0.0 { format!("{}", x as u32) } else { x.to_string() })
}

/// What the element says of its own `height` attribute, `text` as the page wrote it and `value` the number the element
/// reads from it (JavaScript's `Number(text)`): nothing when the heatmaps are drawn that high; else that it is not a
/// positive number (the heatmaps keep their natural height), or that it is outside [`MIN_HEIGHT`]–[`MAX_HEIGHT`] and
/// the height they are drawn at, the nearer bound (the element clamps it so). The text is quoted as its first 40
/// UTF-16 units.
pub fn height_note(text: &str, value: f64) -> Option<String> {
    let shown = String::from_utf16_lossy(&text.encode_utf16().take(40).collect::<Vec<u16>>());
    if !(value.is_finite() && value > 0.0) {
        return Some(format!(
            "height \"{shown}\" is not a positive number of CSS pixels: the heatmaps keep their natural height."
        ));
    }
    let drawn = value.clamp(f64::from(MIN_HEIGHT), f64::from(MAX_HEIGHT));
    (drawn != value).then(|| {
        format!("height {shown} is outside {MIN_HEIGHT}–{MAX_HEIGHT} CSS pixels: the heatmaps are {drawn} px high.")
    })
}

/// The number a text writes as Python's `float()` reads it: white space around it (Unicode's, which `float()` strips
/// but for the four separators `str.strip()` also takes), `_` between digits; `None` for a text that is no number.
fn number_of(text: &str) -> Option<f64> {
    let text = text.trim();
    let bytes = text.as_bytes();
    let digit = |i: Option<usize>| i.and_then(|i| bytes.get(i)).is_some_and(u8::is_ascii_digit);
    let between_digits = text.match_indices('_').all(|(i, _)| digit(i.checked_sub(1)) && digit(Some(i + 1)));
    if !between_digits {
        return None;
    }
    text.replace('_', "").parse().ok()
}

/// `theme`: one of [`THEMES`].
fn theme(value: &Value, shown: &str) -> Result<String, String> {
    match value {
        Value::String(text) if THEMES.contains(&text.as_str()) => Ok(text.clone()),
        _ => {
            let allowed: Vec<String> = THEMES.iter().map(|t| format!("'{t}'")).collect();
            let near = value.as_str().and_then(|text| closest(text, THEMES));
            let hint = near.map(|n| format!(" (did you mean \"{n}\"?)")).unwrap_or_default();
            Err(format!("theme must be {}, got {shown}{hint}", allowed.join(", ")))
        }
    }
}

/// Where a caller gave a name that is none of its names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Among {
    /// Beside a config's fields (Python's `show()`, `Widget`): a name that is neither a field nor an option.
    Fields,
    /// Among `show_attention()`'s arguments: the weights config's fields it names (its first argument, the weights,
    /// aside) and the options.
    Arguments,
}

/// The message for `name`, unknown `among` those names: the nearest one offered, or all of them listed.
pub fn unknown(name: &str, among: Among) -> String {
    let (what, known): (&str, Vec<&str>) = match among {
        Among::Fields => ("config field or element option", FIELDS.iter().chain(OPTIONS).copied().collect()),
        Among::Arguments => {
            let named = WEIGHTS_FIELDS.iter().filter(|f| **f != "attention");
            ("argument", OPTIONS.iter().chain(named).copied().collect())
        }
    };
    match closest(name, &known) {
        Some(near) => format!("unknown {what} {} (did you mean \"{near}\"?)", quote(name)),
        None => format!("unknown {what} {}; known ones are {}", quote(name), known.join(", ")),
    }
}

/// A shell's request (`ffi::av_options`): `{"option": name, "value": …, "shown": text}` answers [`attribute`];
/// `{"unknown": name, "among": "fields" | "arguments"}` answers [`unknown`]'s message, as a refusal. `None` for any
/// other request.
pub fn answer(request: &Map<String, Value>) -> Option<Result<String, String>> {
    let text = |key: &str| request.get(key).and_then(Value::as_str);
    if let Some(name) = text("option") {
        return Some(attribute(name, request.get("value").unwrap_or(&Value::Null), text("shown").unwrap_or_default()));
    }
    let among = match text("among") {
        Some("fields") => Among::Fields,
        Some("arguments") => Among::Arguments,
        _ => return None,
    };
    text("unknown").map(|name| Err(unknown(name, among)))
}
