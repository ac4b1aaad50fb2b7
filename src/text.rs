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

/// The name of `known` nearest `name` when it is at most two edits away (the first of the nearest), for a message's
/// "did you mean": the config's unknown fields here, and Python's unknown options, presets and choices (`av_text`).
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known.iter().map(|&k| (edit_distance(k, name), k)).min_by_key(|&(d, _)| d).filter(|&(d, _)| d <= 2).map(|(_, k)| k)
}

/// Levenshtein distance over the first 64 characters of each (a pasted megabyte costs nothing).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().take(64).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().take(64).enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
