//! JSON text read into a `serde_json::Value`: every config, share link, request and model the core reads as text comes
//! through [`parse`]. It reads what serde_json's `from_str::<Value>` reads, into the same value, and refuses what it
//! refuses with the same words at the same line and column (tests/json.rs holds it to serde_json on every input), but
//! it is a fraction of serde_json's reader in the .wasm: numbers go to `str::parse::<f64>` (correctly rounded, as
//! serde_json's `float_roundtrip` reads them) instead of a second float parser, and there is no serde machinery.

use serde_json::{Map, Number, Value};
use std::fmt;

/// How deep lists and objects may nest: serde_json's recursion limit (a 128th level is refused).
const DEPTH: usize = 128;

/// Why a text is not JSON, and where: serde_json's message, line (from 1) and column (bytes into the line).
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    what: &'static str,
    line: usize,
    column: usize,
}

impl Error {
    pub fn line(&self) -> usize {
        self.line
    }

    pub fn column(&self) -> usize {
        self.column
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} at line {} column {}", self.what, self.line, self.column)
    }
}

const EOF_LIST: &str = "EOF while parsing a list";
const EOF_OBJECT: &str = "EOF while parsing an object";
const EOF_STRING: &str = "EOF while parsing a string";
const EOF_VALUE: &str = "EOF while parsing a value";
const INVALID_NUMBER: &str = "invalid number";
const INVALID_ESCAPE: &str = "invalid escape";
const OUT_OF_RANGE: &str = "number out of range";
const LONE_SURROGATE: &str = "lone leading surrogate in hex escape";
const END_OF_ESCAPE: &str = "unexpected end of hex escape";
const TRAILING: &str = "trailing characters";

/// `text` as a JSON value, or where and why it is not one.
pub fn parse(text: &str) -> Result<Value, Error> {
    let mut r = Reader { bytes: text.as_bytes(), at: 0, depth: DEPTH };
    let Some(first) = r.skip_space() else { return Err(r.peek_error(EOF_VALUE)) };
    let value = r.value(first)?;
    match r.skip_space() {
        Some(_) => Err(r.peek_error(TRAILING)),
        None => Ok(value),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    /// The bytes read so far.
    at: usize,
    /// How many more lists and objects may open.
    depth: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    /// The next byte that is not JSON whitespace, not read.
    fn skip_space(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
        self.peek()
    }

    /// An error at byte `i`: serde_json's line and column of the bytes before it.
    fn error_at(&self, what: &'static str, i: usize) -> Error {
        let start = self.bytes[..i].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let line = 1 + self.bytes[..start].iter().filter(|&&b| b == b'\n').count();
        Error { what, line, column: i - start }
    }

    /// An error about the byte last read.
    fn error(&self, what: &'static str) -> Error {
        self.error_at(what, self.at)
    }

    /// An error about the byte not yet read.
    fn peek_error(&self, what: &'static str) -> Error {
        self.error_at(what, (self.at + 1).min(self.bytes.len()))
    }

    /// The value that starts with `first` (peeked, not read).
    fn value(&mut self, first: u8) -> Result<Value, Error> {
        Ok(match first {
            b'n' => self.word(b"null", Value::Null)?,
            b't' => self.word(b"true", Value::Bool(true))?,
            b'f' => self.word(b"false", Value::Bool(false))?,
            b'-' | b'0'..=b'9' => Value::Number(self.number()?),
            b'"' => {
                self.at += 1;
                Value::String(self.string()?)
            }
            b'[' | b'{' => {
                self.depth -= 1;
                if self.depth == 0 {
                    return Err(self.peek_error("recursion limit exceeded"));
                }
                self.at += 1;
                let value = if first == b'[' { self.list()? } else { Value::Object(self.object()?) };
                self.depth += 1;
                value
            }
            _ => return Err(self.peek_error("expected value")),
        })
    }

    fn word(&mut self, word: &[u8], value: Value) -> Result<Value, Error> {
        self.at += 1;
        for &expected in &word[1..] {
            match self.next() {
                None => return Err(self.error(EOF_VALUE)),
                Some(b) if b != expected => return Err(self.error("expected ident")),
                Some(_) => {}
            }
        }
        Ok(value)
    }

    /// The items after `[`, and the `]`.
    fn list(&mut self) -> Result<Value, Error> {
        let mut items = vec![];
        loop {
            let Some(b) = self.skip_space() else { return Err(self.peek_error(EOF_LIST)) };
            if b == b']' {
                self.at += 1;
                return Ok(Value::Array(items));
            }
            let first = if items.is_empty() {
                b
            } else if b == b',' {
                self.at += 1;
                match self.skip_space() {
                    Some(b']') => return Err(self.peek_error("trailing comma")),
                    Some(b) => b,
                    None => return Err(self.peek_error(EOF_VALUE)),
                }
            } else {
                return Err(self.peek_error("expected `,` or `]`"));
            };
            items.push(self.value(first)?);
        }
    }

    /// The members after `{`, and the `}`; a key given twice keeps its last value.
    fn object(&mut self) -> Result<Map<String, Value>, Error> {
        let mut map = Map::new();
        let mut first = true;
        loop {
            let Some(b) = self.skip_space() else { return Err(self.peek_error(EOF_OBJECT)) };
            if b == b'}' {
                self.at += 1;
                return Ok(map);
            }
            let quote = if first {
                b
            } else if b == b',' {
                self.at += 1;
                match self.skip_space() {
                    Some(b'}') => return Err(self.peek_error("trailing comma")),
                    Some(b) => b,
                    None => return Err(self.peek_error(EOF_VALUE)),
                }
            } else {
                return Err(self.peek_error("expected `,` or `}`"));
            };
            first = false;
            if quote != b'"' {
                return Err(self.peek_error("key must be a string"));
            }
            self.at += 1;
            let key = self.string()?;
            match self.skip_space() {
                Some(b':') => self.at += 1,
                Some(_) => return Err(self.peek_error("expected `:`")),
                None => return Err(self.peek_error(EOF_OBJECT)),
            }
            let Some(b) = self.skip_space() else { return Err(self.peek_error(EOF_VALUE)) };
            let value = self.value(b)?;
            map.insert(key, value);
        }
    }

    /// A number: a whole one as serde_json keeps it (u64, i64; -0 and one beyond i64 as f64), any other through
    /// `str::parse::<f64>`, refused when it is beyond float64.
    fn number(&mut self) -> Result<Number, Error> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        match self.next() {
            None => return Err(self.error(EOF_VALUE)),
            Some(b'0') => {
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.peek_error(INVALID_NUMBER));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            Some(_) => return Err(self.error(INVALID_NUMBER)),
        }
        let whole = !matches!(self.peek(), Some(b'.' | b'e' | b'E'));
        let mut zero = self.bytes[start..self.at].iter().all(|&b| matches!(b, b'-' | b'0'));
        if self.peek() == Some(b'.') {
            self.at += 1;
            let from = self.at;
            self.digits();
            if self.at == from {
                return Err(self.peek_error(if self.peek().is_some() { INVALID_NUMBER } else { EOF_VALUE }));
            }
            zero &= self.bytes[from..self.at].iter().all(|&b| b == b'0');
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            let positive = match self.peek() {
                Some(b'-') => {
                    self.at += 1;
                    false
                }
                Some(b'+') => {
                    self.at += 1;
                    true
                }
                _ => true,
            };
            let mut exponent: i32 = match self.next() {
                None => return Err(self.error(EOF_VALUE)),
                Some(c @ b'0'..=b'9') => (c - b'0') as i32,
                Some(_) => return Err(self.error(INVALID_NUMBER)),
            };
            // serde_json stops at an exponent past i32: beyond float64 (unless the number is 0), or 0.
            while let Some(c @ b'0'..=b'9') = self.peek() {
                self.at += 1;
                match exponent.checked_mul(10).and_then(|e| e.checked_add((c - b'0') as i32)) {
                    Some(e) => exponent = e,
                    None if positive && !zero => return Err(self.error(OUT_OF_RANGE)),
                    None => {
                        self.digits();
                        return Ok(Number::from_f64(if negative { -0.0 } else { 0.0 }).expect("finite"));
                    }
                }
            }
        }
        let text = &self.bytes[start..self.at];
        // The bytes are a JSON number's: ASCII.
        let text = std::str::from_utf8(text).unwrap_or_default();
        if whole {
            if let Some(n) = if negative {
                text.parse::<i64>().ok().filter(|&n| n != 0).map(Number::from)
            } else {
                text.parse::<u64>().ok().map(Number::from)
            } {
                return Ok(n);
            }
        }
        let x: f64 = text.parse().unwrap_or(f64::NAN);
        Number::from_f64(x).ok_or_else(|| self.error(OUT_OF_RANGE))
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
    }

    /// The rest of a string after its `"`, and the closing `"`.
    fn string(&mut self) -> Result<String, Error> {
        let mut out: Vec<u8> = vec![];
        loop {
            let Some(b) = self.next() else { return Err(self.error(EOF_STRING)) };
            match b {
                b'"' => break,
                b'\\' => self.escape(&mut out)?,
                0..=0x1f => return Err(self.error("control character (\\u0000-\\u001F) found while parsing a string")),
                _ => out.push(b),
            }
        }
        // Bytes of the text, and escapes written as UTF-8 (a surrogate only in a pair): UTF-8.
        Ok(String::from_utf8(out).unwrap_or_default())
    }

    /// The escape after a `\`, written into `out`.
    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), Error> {
        let Some(b) = self.next() else { return Err(self.error(EOF_STRING)) };
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\x08',
            b'f' => '\x0c',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode(out),
            _ => return Err(self.error(INVALID_ESCAPE)),
        };
        out.push(c as u8);
        Ok(())
    }

    /// Four hex digits.
    fn hex(&mut self) -> Result<u32, Error> {
        let Some(digits) = self.bytes.get(self.at..self.at + 4) else {
            self.at = self.bytes.len();
            return Err(self.error(EOF_STRING));
        };
        self.at += 4;
        let digits = std::str::from_utf8(digits).ok().filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        digits.and_then(|d| u32::from_str_radix(d, 16).ok()).ok_or_else(|| self.error(INVALID_ESCAPE))
    }

    /// The code point of a `\u` escape, written into `out`: a surrogate must be a leading one followed by a trailing
    /// one's escape.
    fn unicode(&mut self, out: &mut Vec<u8>) -> Result<(), Error> {
        let n = self.hex()?;
        let code = match n {
            0xDC00..=0xDFFF => return Err(self.error(LONE_SURROGATE)),
            0xD800..=0xDBFF => {
                for expected in [b'\\', b'u'] {
                    match self.next() {
                        None => return Err(self.error(EOF_STRING)),
                        Some(b) if b != expected => return Err(self.error(END_OF_ESCAPE)),
                        Some(_) => {}
                    }
                }
                let n2 = self.hex()?;
                if !(0xDC00..=0xDFFF).contains(&n2) {
                    return Err(self.error(LONE_SURROGATE));
                }
                (((n - 0xD800) << 10) | (n2 - 0xDC00)) + 0x1_0000
            }
            _ => n,
        };
        let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        Ok(())
    }
}
