//! User text in messages: a name, a spec or a number as the user wrote it is quoted
//! escaped and cut short, so a message stays readable however long the input (a
//! 100,000-character token name, a 100,000-digit number). std only: every module may use it.

/// The longest quoted text, in characters (escapes included), before it is cut with "…".
pub const QUOTE_MAX: usize = 40;

/// User text quoted for a message: escaped, then cut to at most [`QUOTE_MAX`] characters
/// (cutting after escaping keeps a message short even for unprintable text).
pub fn quote(text: &str) -> String {
    // Only the first QUOTE_MAX + 1 characters can be shown: escaping the rest is wasted.
    let head: String = text.chars().take(QUOTE_MAX + 1).collect();
    let escaped = format!("{head:?}");
    let inner = &escaped[1..escaped.len() - 1];
    if inner.chars().count() <= QUOTE_MAX && head.len() == text.len() {
        escaped
    } else {
        format!("\"{}…\"", inner.chars().take(QUOTE_MAX - 1).collect::<String>())
    }
}

/// Text the user wrote that is not quoted (a number): cut to [`QUOTE_MAX`] characters, the last one [`CUT_MARK`].
pub fn cut(text: &str) -> String {
    if text.chars().count() <= QUOTE_MAX {
        text.to_string()
    } else {
        format!("{}{CUT_MARK}", text.chars().take(QUOTE_MAX - 1).collect::<String>())
    }
}

/// What ends a cut text ([`cut`]; JavaScript's `cut`, generated from this by src/facts.rs).
pub const CUT_MARK: char = '…';
