//! Strict JSON: the crate's one JSON reader, and the compact writer of the JSON it produces.
//!
//! Everything the crate reads as JSON goes through [`read_object`]: the signed envelopes, their
//! signed data, the `encryptedOtpBundle` and its plaintext, and the stamp. It reads what Python's
//! `json.loads` reads, and refuses what could make two readers of the same bytes disagree: at
//! most one occurrence of each key in every object (serde_json's `Value` and Python keep the
//! last one, so a signed value could be read two ways), UTF-8 only, no NaN or Infinity, no
//! integer longer than [`MAX_INT_DIGITS`] digits, no float that overflows, at most
//! [`MAX_NESTING`] levels (serde_json stops at 128, Python near 1000), no control character or
//! escaped lone surrogate in a string. Only the top-level object's fields are kept (a string's
//! text, or that the value is something else): the formats read nothing deeper. A hand-written
//! reader rather than serde_json because serde_json has no switch for the first three of these
//! (its derive refuses a repeated key only for the fields of one struct, not inside nested
//! values), and because the callers need the verdict, not the values.
//!
//! The writer is compact, in the caller's key order, with ASCII escaped exactly as Python's
//! `json.dumps` does and everything else raw UTF-8, as the real infrastructure writes it.

use std::collections::{BTreeMap, HashSet};

use zeroize::Zeroize;

/// The deepest nesting of arrays and objects accepted: about what Python's `json` reaches under
/// its default recursion limit (1000 frames, less the caller's).
pub const MAX_NESTING: usize = 990;
/// The longest integer accepted in JSON, in digits.
pub const MAX_INT_DIGITS: usize = 64;

/// A top-level field of a parsed JSON object: its text when it is a string, else only its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    Text(String),
    Other,
}

/// A JSON object as the envelope reads it: each key once, string values kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    fields: BTreeMap<String, Field>,
    /// Whether the string values are wiped on drop ([`read_object`]), or are known to be public
    /// ([`read_public_object`]).
    wipe: bool,
}

impl Default for Object {
    fn default() -> Self {
        Self {
            fields: BTreeMap::new(),
            wipe: true,
        }
    }
}

impl Drop for Object {
    /// The fields may hold a secret (the sealed OTP code): wiped, like every secret here. A
    /// wipe writes every byte once (volatile), which costs more than the parse for kilobytes of
    /// hex: the objects of public JSON skip it.
    fn drop(&mut self) {
        if !self.wipe {
            return;
        }
        for field in self.fields.values_mut() {
            if let Field::Text(text) = field {
                text.zeroize();
            }
        }
    }
}

impl Object {
    /// Whether the object has the key (whatever its value).
    pub fn contains(&self, name: &str) -> bool {
        self.fields.contains_key(name)
    }

    /// The value of a string field; None when it is absent or not a string.
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.fields.get(name) {
            Some(Field::Text(text)) => Some(text),
            _ => None,
        }
    }

    /// The value of a field, string or not; None when it is absent.
    pub fn get(&self, name: &str) -> Option<&Field> {
        self.fields.get(name)
    }

    /// How many fields the object has.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

/// A step of the parser failed: the text is not (strict) JSON.
#[derive(Debug)]
struct Invalid;

enum Parsed {
    Object(Object),
    Text(String),
    Other,
}

struct Parser<'a> {
    /// The input, checked to be UTF-8 once: `bytes` is `text`'s bytes.
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

type Step<T> = core::result::Result<T, Invalid>;

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Step<()> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Invalid)
        }
    }

    fn literal(&mut self, word: &[u8]) -> Step<Parsed> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(Parsed::Other)
        } else {
            Err(Invalid)
        }
    }

    /// One value; `keep` says whether an object's fields are kept (only the top level's are).
    fn value(&mut self, depth: usize, keep: bool) -> Step<Parsed> {
        self.skip_whitespace();
        match self.peek().ok_or(Invalid)? {
            b'{' => self.object(depth + 1, keep),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(Parsed::Text),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Invalid),
        }
    }

    fn object(&mut self, depth: usize, keep: bool) -> Step<Parsed> {
        if depth > MAX_NESTING {
            return Err(Invalid);
        }
        self.pos += 1; // '{'
        let mut kept = BTreeMap::new();
        let mut seen = HashSet::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Parsed::Object(Object::default()));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(Invalid);
            }
            let key = self.string()?;
            self.skip_whitespace();
            self.expect(b':')?;
            let value = self.value(depth, false)?;
            if keep {
                let field = match value {
                    Parsed::Text(text) => Field::Text(text),
                    _ => Field::Other,
                };
                if kept.insert(key, field).is_some() {
                    return Err(Invalid); // a repeated key
                }
            } else if !seen.insert(key) {
                return Err(Invalid);
            }
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Parsed::Object(Object {
                        fields: kept,
                        wipe: true,
                    }));
                }
                _ => return Err(Invalid),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Step<Parsed> {
        if depth > MAX_NESTING {
            return Err(Invalid);
        }
        self.pos += 1; // '['
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Parsed::Other);
        }
        loop {
            self.value(depth, false)?;
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Parsed::Other);
                }
                _ => return Err(Invalid),
            }
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`, Python's grammar: an integer of at most
    /// [`MAX_INT_DIGITS`] digits, a float that does not overflow.
    fn number(&mut self) -> Step<Parsed> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits_start = self.pos;
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Invalid),
        }
        let int_digits = self.pos - digits_start;
        let mut float = false;
        if self.peek() == Some(b'.') && self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit)
        {
            self.pos += 1;
            self.digits();
            float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let mut ahead = self.pos + 1;
            if matches!(self.bytes.get(ahead), Some(b'+' | b'-')) {
                ahead += 1;
            }
            if self.bytes.get(ahead).is_some_and(u8::is_ascii_digit) {
                self.pos = ahead;
                self.digits();
                float = true;
            }
        }
        if !float {
            return if int_digits > MAX_INT_DIGITS {
                Err(Invalid)
            } else {
                Ok(Parsed::Other)
            };
        }
        let text = core::str::from_utf8(&self.bytes[start..self.pos]).map_err(|_| Invalid)?;
        match text.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(Parsed::Other),
            _ => Err(Invalid),
        }
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
    }

    fn hex4(&mut self) -> Step<u32> {
        let chunk = self.bytes.get(self.pos..self.pos + 4).ok_or(Invalid)?;
        let mut value = 0u32;
        for &b in chunk {
            value = value << 4 | char::from(b).to_digit(16).ok_or(Invalid)?;
        }
        self.pos += 4;
        Ok(value)
    }

    /// A string (the input is known to be UTF-8). Control characters are refused, as Python's
    /// strict mode does; so is an escaped lone surrogate, which has no UTF-8 form.
    fn string(&mut self) -> Step<String> {
        self.pos += 1; // '"'
        let mut out = String::new();
        loop {
            // A run of plain characters ends at the closing quote or an escape (the signed data
            // of an envelope is one run of about 1 KB of hex); a control character in it is
            // refused. It ends at an ASCII byte, so on a char boundary of `text`.
            let run = self.pos;
            let end = memchr::memchr2(b'"', b'\\', &self.bytes[run..])
                .map_or(self.bytes.len(), |i| run + i);
            let plain = &self.bytes[run..end];
            if plain.iter().fold(false, |control, &b| control | (b < 0x20)) {
                return Err(Invalid);
            }
            self.pos = end;
            out.push_str(self.text.get(run..end).ok_or(Invalid)?);
            match self.peek().ok_or(Invalid)? {
                b'"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.pos += 1;
                    let escape = self.peek().ok_or(Invalid)?;
                    self.pos += 1;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return Err(Invalid),
                    };
                    out.push(c);
                }
                _ => return Err(Invalid), // a control character
            }
        }
    }

    fn unicode_escape(&mut self) -> Step<char> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) && self.bytes[self.pos..].starts_with(b"\\u") {
            let save = self.pos;
            self.pos += 2;
            let second = self.hex4()?;
            if (0xDC00..0xE000).contains(&second) {
                return char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
                    .ok_or(Invalid);
            }
            self.pos = save;
        }
        char::from_u32(first).ok_or(Invalid)
    }
}

/// Why [`read_object`] refused a text (each caller words its own error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not strict JSON (see the module doc).
    NotJson,
    /// Valid JSON, but not an object.
    NotObject,
}

/// Reads strict JSON (see the module doc) that must be an object. Its string values are wiped
/// when it is dropped: use this for JSON that may carry a secret (a decrypted plaintext).
pub fn read_object(bytes: &[u8]) -> Result<Object, Refusal> {
    read(bytes, true)
}

/// [`read_object`] for JSON whose every value is public (an envelope, its signed data, a
/// stamp): the same checks, no wipe on drop.
pub fn read_public_object(bytes: &[u8]) -> Result<Object, Refusal> {
    read(bytes, false)
}

fn read(bytes: &[u8], wipe: bool) -> Result<Object, Refusal> {
    let Ok(text) = core::str::from_utf8(bytes) else {
        return Err(Refusal::NotJson);
    };
    let mut parser = Parser {
        text,
        bytes,
        pos: 0,
    };
    let parsed = parser.value(0, true).map_err(|_| Refusal::NotJson)?;
    parser.skip_whitespace();
    if parser.pos != bytes.len() {
        return Err(Refusal::NotJson);
    }
    match parsed {
        Parsed::Object(mut object) => {
            object.wipe = wipe;
            Ok(object)
        }
        _ => Err(Refusal::NotObject),
    }
}

/// `s` as a JSON string: ASCII escaped exactly as Python's `json.dumps` does (so ASCII ids give
/// today's bytes), everything else raw UTF-8, as the real infrastructure writes it.
pub(crate) fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Compact JSON of string fields in the given order.
pub(crate) fn compact_json(fields: &[(&str, &str)]) -> String {
    let mut out = String::from("{");
    for (i, (name, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(&mut out, name);
        out.push(':');
        push_json_string(&mut out, value);
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Object, Refusal> {
        read_object(text.as_bytes())
    }

    #[test]
    fn refuses_what_python_refuses() {
        for bad in [
            r#"{"a":1,"a":1}"#,
            r#"{"a":{"b":1,"b":2}}"#,
            r#"{"a":NaN}"#,
            r#"{"a":Infinity}"#,
            r#"{"a":1e999}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":"\ud800"}"#,
            "{\"a\":\"\t\"}",
            "{\"a\":\"abc\u{1f}def\"}",
            "{\"a\":\"\\n\u{1}\"}",
            "{\"a\":\"unterminated}",
            "{\"a\":\"ends in an escape\\",
            "{\"a\":\"\\x\"}",
            r#"{"a":1,}"#,
            r#"{"a":1} x"#,
            "",
        ] {
            assert_eq!(parse(bad).unwrap_err(), Refusal::NotJson, "{bad}");
            let public = read_public_object(bad.as_bytes());
            assert_eq!(public.unwrap_err(), Refusal::NotJson, "{bad}");
        }
        assert!(read_object(b"{\"a\":\"\xff\"}").is_err());
        let long = format!(r#"{{"a":{}}}"#, "9".repeat(MAX_INT_DIGITS + 1));
        assert!(parse(&long).is_err());
        let deep = |n: usize| format!(r#"{{"a":{}{}}}"#, "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep(MAX_NESTING - 1)).is_ok());
        assert!(parse(&deep(MAX_NESTING)).is_err());
        assert_eq!(parse("[]").unwrap_err(), Refusal::NotObject);
        assert_eq!(parse(r#""a""#).unwrap_err(), Refusal::NotObject);
        assert_eq!(parse("[").unwrap_err(), Refusal::NotJson);
    }

    #[test]
    fn accepts_what_python_accepts() {
        let object = parse(
            r#" {"a":"\u00e9\ud83d\ude00\/","b":[1,-0,1.5e-3,2E+2,true,false,null,{}],"c":{"a":1}} "#,
        )
        .unwrap();
        assert_eq!(object.text("a"), Some("\u{e9}\u{1f600}/"));
        assert!(object.contains("b") && object.text("b").is_none());
        assert_eq!(object.get("c"), Some(&Field::Other));
        assert_eq!(object.len(), 3);
        let long = format!(r#"{{"a":-{}}}"#, "9".repeat(MAX_INT_DIGITS));
        assert!(parse(&long).is_ok());
        assert!(parse("{}").unwrap().is_empty());
        let hex = "0123456789abcdef".repeat(100);
        let object = parse(&format!(r#"{{"a":"{hex}","b":"x\"y\\z\n{hex}é"}}"#)).unwrap();
        assert_eq!(object.text("a"), Some(hex.as_str()));
        assert_eq!(object.text("b"), Some(format!("x\"y\\z\n{hex}é").as_str()));
        assert!(object.wipe, "read_object wipes on drop");
        let text = format!(r#"{{"a":"{hex}","b":[1]}}"#);
        let public = read_public_object(text.as_bytes()).unwrap();
        assert!(!public.wipe);
        assert_eq!(public.text("a"), Some(hex.as_str()));
        assert_eq!(public.get("b"), Some(&Field::Other));
        assert_eq!(read_public_object(b"[]").unwrap_err(), Refusal::NotObject);
    }

    #[test]
    fn writes_ascii_as_python_and_the_rest_raw() {
        let mut out = String::new();
        push_json_string(&mut out, "a\"\\\n\u{1}\u{7f}/é😀");
        assert_eq!(out, "\"a\\\"\\\\\\n\\u0001\\u007f/é😀\"");
        assert_eq!(
            compact_json(&[("b", "1"), ("a", "")]),
            r#"{"b":"1","a":""}"#
        );
    }
}
