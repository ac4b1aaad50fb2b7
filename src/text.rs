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

/// 4000000 → "4,000,000" (as the element writes numbers in its messages).
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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

/// A number as the element's tables and sentences write it: integers whole (below 1e15), others in [1e-3, 1e6) to 4
/// significant digits with no trailing zeros, the rest as `d.dde±x`; `nan`, `inf`, `-inf`. It is JavaScript's
/// `String(Number(x.toPrecision(4)))` and `x.toExponential(2)` (ties of the exact binary value round away from zero,
/// as ECMAScript says), so a number reads the same in the breakdown, the steps, the panels and the tooltips.
pub fn number(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    if (1e-3..1e6).contains(&x.abs()) {
        return significant(x, 4);
    }
    let (digits, exp) = round_digits(x.abs(), 3);
    format!(
        "{}{}.{}e{}{}",
        if x < 0.0 { "-" } else { "" },
        &digits[..1],
        &digits[1..],
        if exp < 0 { "-" } else { "+" },
        exp.abs()
    )
}

/// `x` to `p` significant digits, written as briefly as that number reads back (JavaScript's
/// `String(Number(x.toPrecision(p)))`, for |x| in [1e-7, 1e21) where JavaScript writes no exponent); non-finite as Rust
/// writes it.
pub fn significant(x: f64, p: usize) -> String {
    if !x.is_finite() || x == 0.0 {
        return if x == 0.0 { "0".into() } else { format!("{x}") };
    }
    let (digits, exp) = round_digits(x.abs(), p);
    let rounded: f64 =
        format!("{}{}.{}e{exp}", if x < 0.0 { "-" } else { "" }, &digits[..1], &digits[1..]).parse().unwrap_or(x);
    format!("{rounded}")
}

/// The `p` significant digits of `x` (> 0, finite) rounded half away from zero, and the decimal exponent of the first.
fn round_digits(x: f64, p: usize) -> (String, i32) {
    // Rust rounds an exact tie to even: one digit more says whether the exact value may be a tie (a last digit 5),
    // and only then are the exact digits written out to decide it.
    let longer = format!("{x:.p$e}");
    let (mantissa, exp) = longer.split_once('e').expect("an exponent");
    let mut exp: i32 = exp.parse().expect("a decimal exponent");
    let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let up = match digits[p] {
        b'5' => {
            let exact = format!("{x:.800e}");
            let exact: Vec<u8> =
                exact.split_once('e').expect("an exponent").0.bytes().filter(u8::is_ascii_digit).collect();
            exact[p] >= b'5'
        }
        d => d > b'5',
    };
    // A carry of the longer form's rounding into the first p digits (…4996 → …5000) is already in them.
    digits.truncate(p);
    if up {
        let mut k = p;
        loop {
            if k == 0 {
                digits.insert(0, b'1');
                digits.truncate(p);
                exp += 1;
                break;
            }
            k -= 1;
            if digits[k] == b'9' {
                digits[k] = b'0';
            } else {
                digits[k] += 1;
                break;
            }
        }
    }
    (String::from_utf8(digits).expect("ASCII digits"), exp)
}

/// `x` as JavaScript's `String(x)` writes it (ECMAScript's Number::toString): the shortest digits that read back as
/// `x`, without an exponent for 1e-6 ≤ |x| < 1e21 (`2.5`, `1e-7`, `1e+21`); `NaN`, `Infinity`, `-Infinity`. A field
/// holding a number shows every digit of it this way (a field is edited, not read at a glance).
pub fn js_string(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x == 0.0 {
            "0".into()
        } else {
            format!("{}Infinity", if x < 0.0 { "-" } else { "" })
        };
    }
    // The shortest digits that read back as x, and the power of ten of the first.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let n = exp.parse::<i32>().unwrap_or(0) + 1;
    let k = digits.len() as i32;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let sign = if e < 0 { '-' } else { '+' };
        let rest = if k > 1 { format!(".{}", &digits[1..]) } else { String::new() };
        format!("{}{rest}e{sign}{}", &digits[..1], e.abs())
    };
    if x < 0.0 {
        format!("-{body}")
    } else {
        body
    }
}

/// What a reader typed into a number field (a grid's cell, the toolbar's seed, a custom scale): a finite number, or
/// the message the field shows. JavaScript's number syntax without its words (`Infinity`) and hexadecimals: digits
/// with an optional sign, point and exponent; "−" (U+2212, as typeset text writes it) is a minus; surrounding
/// whitespace is dropped as JavaScript's `trim` drops it.
pub fn cell_number(text: &str) -> Result<f64, String> {
    let t = js_trim(text).replace('\u{2212}', "-");
    let bare = t.strip_prefix(['+', '-']).unwrap_or(&t);
    if t.is_empty() {
        return Err("empty: type a number".into());
    }
    if bare.eq_ignore_ascii_case("nan") {
        return Err("NaN is not allowed: every value must be a finite number".into());
    }
    if bare.eq_ignore_ascii_case("inf") || bare.eq_ignore_ascii_case("infinity") {
        return Err(format!("{t} is not allowed: every value must be a finite number"));
    }
    if !is_decimal(bare) {
        return Err(format!("“{}” is not a number", cut(&t)));
    }
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("{} is too large for float64 (the largest is about 1.8e308)", cut(&t))),
    }
}

/// What a reader typed into a whole-number field (a window's side, the sinks, a shift): its value when it is digits
/// alone, surrounding whitespace dropped; the core judges the number itself where it is used.
pub fn whole_number(text: &str) -> Option<f64> {
    let t = js_trim(text);
    (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse().unwrap_or(f64::INFINITY))
}

/// `text` without the whitespace JavaScript's `trim` drops around it (Unicode's, less U+0085, and U+FEFF).
fn js_trim(text: &str) -> &str {
    text.trim_matches(|c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}')
}

/// `12`, `1.`, `.5`, `1.5e-3`: ASCII digits with at most one point (and a digit on one side of it), then an optional
/// exponent of digits with an optional sign.
fn is_decimal(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(at) => (&s[..at], Some(&s[at + 1..])),
        None => (s, None),
    };
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mantissa_ok = digits(whole) && digits(fraction) && !(whole.is_empty() && fraction.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}
