//! The signed envelope of wallet exports and OTP target bundles (formats.md sections 8, 9, 12),
//! the legacy v0 export, and the `encryptedOtpBundle` the client sends back.
//!
//! `{"version": "v1.0.0", "data": hex, "dataSignature": hex, "enclaveQuorumPublic": hex}`:
//! `data` hex-decodes to UTF-8 JSON, signed (DER ECDSA P-256 / SHA-256) over those exact bytes by
//! the key in `enclaveQuorumPublic`. Opening never trusts that embedded key: it must be the
//! pinned one, and the signature is checked with the pinned key. The checks run in a fixed
//! order: version, signer pinned, signature, the signed data, the organization (and user), and
//! only then the decryption. The sandbox form has both signature fields empty and opens only
//! when the caller says the sandbox is allowed (the decision is the caller's: the Python layer's
//! `policy`); otherwise an envelope that names no signer is `ENVELOPE_UNSIGNED` whatever
//! signature it carries.
//!
//! JSON from the wire is parsed strictly (see [`parse_object`]): at most [`MAX_ENVELOPE_BYTES`],
//! UTF-8 only, no repeated keys (serde_json's `Value` keeps the last one, so two readers could
//! disagree about a signed value), no NaN/Infinity, no integer longer than 64 digits, no float
//! that overflows, at most [`MAX_NESTING`] levels. The JSON this module writes is compact, in a
//! fixed key order, with non-ASCII characters raw (as the real infrastructure writes it) and
//! ASCII escaped exactly as Python's `json.dumps` does.
//!
//! Every envelope check fails with an [`ErrorKind::Envelope`](crate::ErrorKind::Envelope) error
//! with a stable `ENVELOPE_*` code; every failure to open is the one `DECRYPTION_FAILED`.

use std::collections::{BTreeMap, HashSet};

use zeroize::{Zeroize, Zeroizing};

use crate::error::{Error, Result};
use crate::hpke::{self, Aad, PROFILE_INFO};
use crate::p256::{self, KeyPair, PublicKey};

/// The envelope version this module reads and writes.
pub const VERSION: &str = "v1.0.0";
/// The largest envelope (or `encryptedOtpBundle`) accepted, in bytes.
pub const MAX_ENVELOPE_BYTES: usize = 1 << 20;
/// The deepest nesting of arrays and objects accepted: about what Python's `json` reaches under
/// its default recursion limit (1000 frames, less the caller's).
pub const MAX_NESTING: usize = 990;
/// The longest integer accepted in JSON, in digits.
pub const MAX_INT_DIGITS: usize = 64;

const MALFORMED: &str = "ENVELOPE_MALFORMED";
const DATA_MALFORMED: &str = "ENVELOPE_DATA_MALFORMED";
const PARAMETERS_INVALID: &str = "ENVELOPE_PARAMETERS_INVALID";

const EXPORT: &str = "export envelope";
const LEGACY: &str = "legacy export envelope";
const TARGET: &str = "OTP target bundle";
const OTP_BUNDLE: &str = "the encryptedOtpBundle";
const IMPORT: &str = "import bundle";
const LEGACY_IMPORT: &str = "legacy import bundle";
const ENCRYPTED_IMPORT: &str = "the encrypted import bundle";

// ---------------------------------------------------------------------------------------------
// Strict JSON

/// A top-level field of a parsed JSON object: its text when it is a string, else only its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    Text(String),
    Other,
}

/// A JSON object as the envelope reads it: each key once, string values kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Object {
    fields: BTreeMap<String, Field>,
}

impl Drop for Object {
    /// The fields may hold a secret (the sealed OTP code): wiped, like every secret here.
    fn drop(&mut self) {
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

    fn get(&self, name: &str) -> Option<&Field> {
        self.fields.get(name)
    }
}

/// Why the strict parser refused a text (the caller turns it into its own error).
#[derive(Debug)]
struct Invalid;

enum Parsed {
    Object(Object),
    Text(String),
    Other,
}

struct Parser<'a> {
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
                    return Ok(Parsed::Object(Object { fields: kept }));
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
            let run = self.pos;
            while self
                .peek()
                .is_some_and(|b| b != b'"' && b != b'\\' && b >= 0x20)
            {
                self.pos += 1;
            }
            out.push_str(core::str::from_utf8(&self.bytes[run..self.pos]).map_err(|_| Invalid)?);
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

/// Parses strict JSON (see the module doc) that must be an object. `what` and `code` name the
/// error: "{what} is not valid JSON" or "{what} is not a JSON object".
pub fn parse_object(bytes: &[u8], what: &str, code: &'static str) -> Result<Object> {
    let not_json = || Error::envelope(code, format!("{what} is not valid JSON"));
    if core::str::from_utf8(bytes).is_err() {
        return Err(not_json());
    }
    let mut parser = Parser { bytes, pos: 0 };
    let parsed = parser.value(0, true).map_err(|_| not_json())?;
    parser.skip_whitespace();
    if parser.pos != bytes.len() {
        return Err(not_json());
    }
    match parsed {
        Parsed::Object(object) => Ok(object),
        _ => Err(Error::envelope(
            code,
            format!("{what} is not a JSON object"),
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Writing JSON

/// `s` as a JSON string: ASCII escaped exactly as Python's `json.dumps` does (so ASCII ids give
/// today's bytes), everything else raw UTF-8, as the real infrastructure writes it.
fn push_json_string(out: &mut String, s: &str) {
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
fn compact_json(fields: &[(&str, &str)]) -> String {
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

// ---------------------------------------------------------------------------------------------
// Reading fields

fn size_checked<'a>(bytes: &'a [u8], what: &str) -> Result<&'a [u8]> {
    if bytes.len() > MAX_ENVELOPE_BYTES {
        return Err(Error::envelope(
            MALFORMED,
            format!("{what} is larger than {MAX_ENVELOPE_BYTES} bytes"),
        ));
    }
    Ok(bytes)
}

fn text_field<'a>(
    object: &'a Object,
    name: &str,
    what: &str,
    code: &'static str,
) -> Result<&'a str> {
    object
        .text(name)
        .ok_or_else(|| Error::envelope(code, format!("{what} has no string field '{name}'")))
}

/// Strict hex: either case, even length, nothing else.
fn unhex(text: &str) -> Option<Vec<u8>> {
    hex::decode(text).ok()
}

fn hex_field(object: &Object, name: &str, what: &str, code: &'static str) -> Result<Vec<u8>> {
    unhex(text_field(object, name, what, code)?)
        .ok_or_else(|| Error::envelope(code, format!("{what} field '{name}' is not hex")))
}

/// A public key as a caller has it: SEC1 bytes, or their hex text (either case), parsed only
/// where the checks reach it, so that an earlier check's error comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyInput<'a> {
    Sec1(&'a [u8]),
    Hex(&'a str),
}

impl KeyInput<'_> {
    /// The validated key (`InvalidKey` when malformed or not a valid point).
    pub fn parse(self) -> Result<PublicKey> {
        match self {
            Self::Sec1(bytes) => PublicKey::from_sec1(bytes),
            Self::Hex(text) => PublicKey::from_hex(text),
        }
    }
}

impl<'a> From<&'a [u8]> for KeyInput<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Self::Sec1(bytes)
    }
}

impl<'a> From<&'a str> for KeyInput<'a> {
    fn from(text: &'a str) -> Self {
        Self::Hex(text)
    }
}

/// The pinned signer, parsed where the checks reach it.
fn pinned_key(pinned: KeyInput<'_>) -> Result<PublicKey> {
    pinned.parse()
}

/// Signer pinned (the embedded key, hex of the 65-byte form, must be the pinned key), then the
/// DER signature over `message` with the pinned key (high-S accepted).
fn verify_by_pinned(
    pinned: &PublicKey,
    embedded_signer: &str,
    message: &[u8],
    signature_hex: &str,
    what: &str,
) -> Result<()> {
    let pinned = pinned.uncompressed();
    if unhex(embedded_signer).as_deref() != Some(pinned.as_slice()) {
        return Err(Error::envelope(
            "ENVELOPE_SIGNER_NOT_PINNED",
            format!("the {what} is signed by a key that is not the pinned signer"),
        ));
    }
    let invalid = || {
        Error::envelope(
            "ENVELOPE_SIGNATURE_INVALID",
            format!("the {what} signature does not verify"),
        )
    };
    let signature = unhex(signature_hex).ok_or_else(invalid)?;
    match p256::verify_signature(pinned, message, &signature) {
        Ok(true) => Ok(()),
        _ => Err(invalid()), // not strict DER (an empty signature included), or wrong
    }
}

fn refuse_unsigned(sandbox_allowed: bool, what: &str) -> Result<()> {
    if sandbox_allowed {
        return Ok(());
    }
    Err(Error::envelope(
        "ENVELOPE_UNSIGNED",
        format!("the {what} names no signer; only the sandbox opens the unsigned form"),
    ))
}

fn require_text<'a>(value: &'a str, name: &str) -> Result<&'a str> {
    if value.is_empty() {
        return Err(Error::envelope(
            PARAMETERS_INVALID,
            format!("{name} must be a non-empty string"),
        ));
    }
    Ok(value)
}

fn mismatch(what: &str, name: &str, code: &'static str) -> Error {
    Error::envelope(code, format!("the {what} was made for another {name}"))
}

// ---------------------------------------------------------------------------------------------
// The signed envelope

/// Checks a v1.0.0 envelope in order (version, signer pinned, signature over the exact data
/// bytes) and returns the signed data as a JSON object. `pinned` is the pinned signer's key
/// (parsed here: `InvalidKey` when malformed); `what` names the envelope in messages.
///
/// Errors: `ENVELOPE_VERSION_UNSUPPORTED`, `ENVELOPE_MALFORMED`, `ENVELOPE_UNSIGNED`,
/// `ENVELOPE_SIGNER_NOT_PINNED`, `ENVELOPE_SIGNATURE_INVALID`, `ENVELOPE_DATA_MALFORMED`.
pub fn open_signed(
    document: &Object,
    pinned: KeyInput<'_>,
    sandbox_allowed: bool,
    what: &str,
) -> Result<Object> {
    let pinned = pinned_key(pinned)?;
    if document.text("version") != Some(VERSION) {
        return Err(Error::envelope(
            "ENVELOPE_VERSION_UNSUPPORTED",
            format!("the {what} version is not {VERSION}"),
        ));
    }
    let data = hex_field(document, "data", what, MALFORMED)?;
    let signature = text_field(document, "dataSignature", what, MALFORMED)?;
    let signer = text_field(document, "enclaveQuorumPublic", what, MALFORMED)?;
    if signer.is_empty() {
        // No signer key: only the sandbox form (no signature either) may open.
        refuse_unsigned(sandbox_allowed && signature.is_empty(), what)?;
    } else {
        verify_by_pinned(&pinned, signer, &data, signature, what)?;
    }
    parse_object(&data, &format!("the {what} data"), DATA_MALFORMED)
}

/// The v1.0.0 envelope around `data`; `signer = None` writes the sandbox form.
pub fn build_signed(data: &[u8], signer: Option<&KeyPair>) -> Result<String> {
    let (signature, quorum) = match signer {
        Some(signer) => (
            hex::encode(signer.sign(data)?),
            hex::encode(signer.public_key().uncompressed()),
        ),
        None => (String::new(), String::new()),
    };
    Ok(compact_json(&[
        ("version", VERSION),
        ("data", &hex::encode(data)),
        ("dataSignature", &signature),
        ("enclaveQuorumPublic", &quorum),
    ]))
}

/// An HPKE-sealed value whose envelope checks have passed: open it with the recipient's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealed {
    pub enc: Vec<u8>,
    pub ciphertext: Vec<u8>,
}

impl Sealed {
    /// HPKE-open in the profile of formats.md section 1; any failure is `DECRYPTION_FAILED`.
    pub fn open(&self, key: &KeyPair) -> Result<Zeroizing<Vec<u8>>> {
        hpke::open(key, &self.enc, PROFILE_INFO, Aad::Profile, &self.ciphertext)
    }
}

fn seal_profile(
    recipient: &PublicKey,
    plaintext: &[u8],
    ephemeral: Option<&KeyPair>,
) -> Result<(String, String)> {
    let (enc, ciphertext) = match ephemeral {
        None => hpke::seal(recipient, PROFILE_INFO, Aad::Profile, plaintext)?,
        Some(key) => {
            hpke::seal_with_ephemeral(recipient, PROFILE_INFO, Aad::Profile, plaintext, key)?
        }
    };
    Ok((hex::encode(enc), hex::encode(ciphertext)))
}

// ---------------------------------------------------------------------------------------------
// Export (formats.md section 8)

/// Client: the envelope checks of an export bundle (v1.0.0, or legacy v0), every one before the
/// decryption: version, signer pinned, signature, the signed data, the organization. Returns the
/// sealed secret, to [`Sealed::open`] with the client key.
///
/// `organization_id`, when given, must equal the signed `organizationId`; a v0 envelope names
/// none, so it opens only with `None`.
pub fn verify_export(
    bundle: &[u8],
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<Sealed> {
    let document = parse_object(
        size_checked(bundle, "the export envelope")?,
        EXPORT,
        MALFORMED,
    )?;
    if !document.contains("version") {
        return verify_legacy(&document, pinned, organization_id, sandbox_allowed);
    }
    let data = open_signed(&document, pinned, sandbox_allowed, EXPORT)?;
    let what = "the export envelope data";
    let enc = hex_field(&data, "encappedPublic", what, DATA_MALFORMED)?;
    let ciphertext = hex_field(&data, "ciphertext", what, DATA_MALFORMED)?;
    let signed_organization = text_field(&data, "organizationId", what, DATA_MALFORMED)?;
    if organization_id.is_some_and(|expected| expected != signed_organization) {
        return Err(mismatch(
            EXPORT,
            "organization",
            "ENVELOPE_ORGANIZATION_MISMATCH",
        ));
    }
    Ok(Sealed { enc, ciphertext })
}

/// The signature of a legacy v0 envelope over `signed`: an `enclaveQuorumPublic` it carries must
/// be the pinned key; an empty signature is the unsigned form, which needs the sandbox (and then
/// it may name no signer).
fn check_legacy_signature(
    document: &Object,
    pinned: &PublicKey,
    signed: &[u8],
    signature: &str,
    what: &str,
    sandbox_allowed: bool,
) -> Result<()> {
    let signer = match document.get("enclaveQuorumPublic") {
        None => "",
        Some(Field::Text(text)) => text.as_str(),
        Some(Field::Other) => {
            return Err(Error::envelope(
                MALFORMED,
                format!("the {what} has a non-string enclaveQuorumPublic"),
            ))
        }
    };
    if signature.is_empty() {
        if !signer.is_empty() {
            return Err(Error::envelope(
                "ENVELOPE_SIGNATURE_INVALID",
                format!("the {what} signature does not verify"),
            ));
        }
        return refuse_unsigned(sandbox_allowed, what);
    }
    let pinned_hex;
    let signer = if signer.is_empty() {
        pinned_hex = hex::encode(pinned.uncompressed());
        pinned_hex.as_str()
    } else {
        signer
    };
    verify_by_pinned(pinned, signer, signed, signature, what)
}

/// Legacy v0 `{encappedPublic, encappedPublicSignature, ciphertext}`: the signature covers the
/// hex-decoded `encappedPublic` bytes; an `enclaveQuorumPublic` it carries must be the pinned
/// key; an empty signature is the unsigned form, which needs the sandbox.
fn verify_legacy(
    document: &Object,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<Sealed> {
    let pinned = pinned_key(pinned)?;
    let enc = hex_field(document, "encappedPublic", LEGACY, MALFORMED)?;
    let signature = text_field(document, "encappedPublicSignature", LEGACY, MALFORMED)?;
    let ciphertext = hex_field(document, "ciphertext", LEGACY, MALFORMED)?;
    check_legacy_signature(document, &pinned, &enc, signature, LEGACY, sandbox_allowed)?;
    if organization_id.is_some() {
        return Err(Error::envelope(
            "ENVELOPE_ORGANIZATION_MISMATCH",
            "a legacy v0 export envelope names no organization, so it cannot match \
             organization_id; open it with organization_id=None",
        ));
    }
    Ok(Sealed { enc, ciphertext })
}

/// Client: [`verify_export`], then open with the client key. Returns the plaintext: the UTF-8
/// mnemonic of a wallet export, the 32 key bytes of a key export.
pub fn open_export(
    bundle: &[u8],
    client_key: &KeyPair,
    organization_id: Option<&str>,
    pinned: KeyInput<'_>,
    sandbox_allowed: bool,
) -> Result<Zeroizing<Vec<u8>>> {
    verify_export(bundle, pinned, organization_id, sandbox_allowed)?.open(client_key)
}

/// Server: seal `secret` to the client's SEC1 key as a v1.0.0 export envelope; `signer = None`
/// writes the sandbox form. Errors: `ENVELOPE_PARAMETERS_INVALID` for an empty organization id,
/// then `InvalidKey` for the client key.
pub fn seal_export(
    client_public_key: KeyInput<'_>,
    secret: &[u8],
    organization_id: &str,
    signer: Option<&KeyPair>,
) -> Result<String> {
    seal_export_inner(client_public_key, secret, organization_id, signer, None)
}

/// [`seal_export`] with a caller-chosen HPKE ephemeral key, for known-answer vectors only:
/// reusing an ephemeral key destroys the confidentiality HPKE provides.
pub fn seal_export_with_ephemeral(
    client_public_key: KeyInput<'_>,
    secret: &[u8],
    organization_id: &str,
    signer: Option<&KeyPair>,
    ephemeral: &KeyPair,
) -> Result<String> {
    seal_export_inner(
        client_public_key,
        secret,
        organization_id,
        signer,
        Some(ephemeral),
    )
}

fn seal_export_inner(
    client_public_key: KeyInput<'_>,
    secret: &[u8],
    organization_id: &str,
    signer: Option<&KeyPair>,
    ephemeral: Option<&KeyPair>,
) -> Result<String> {
    let organization_id = require_text(organization_id, "organization_id")?;
    let recipient = client_public_key.parse()?;
    let (enc, ciphertext) = seal_profile(&recipient, secret, ephemeral)?;
    let data = compact_json(&[
        ("encappedPublic", &enc),
        ("ciphertext", &ciphertext),
        ("organizationId", organization_id),
    ]);
    build_signed(data.as_bytes(), signer)
}

// ---------------------------------------------------------------------------------------------
// OTP target bundles and the encryptedOtpBundle (formats.md sections 9, 12)

/// Server: the `otpEncryptionTargetBundle` for a target key (SEC1); `signer = None` writes the
/// sandbox form. Errors: `InvalidKey` for the target, then `ENVELOPE_PARAMETERS_INVALID` for an
/// empty organization or user id.
pub fn seal_target(
    target_public_key: KeyInput<'_>,
    organization_id: &str,
    user_id: &str,
    signer: Option<&KeyPair>,
) -> Result<String> {
    seal_target_data(target_public_key, organization_id, user_id, true, signer)
}

/// The signed `{"targetPublic", "organizationId", "userId"}` of target and import bundles, checked
/// in that order (an empty `userId` only where `user_required` is false).
fn seal_target_data(
    target_public_key: KeyInput<'_>,
    organization_id: &str,
    user_id: &str,
    user_required: bool,
    signer: Option<&KeyPair>,
) -> Result<String> {
    let target = target_public_key.parse()?;
    let organization_id = require_text(organization_id, "organization_id")?;
    let user_id = if user_required {
        require_text(user_id, "user_id")?
    } else {
        user_id
    };
    let data = compact_json(&[
        ("targetPublic", &hex::encode(target.uncompressed())),
        ("organizationId", organization_id),
        ("userId", user_id),
    ]);
    build_signed(data.as_bytes(), signer)
}

/// Client: verify a target bundle (version, signer pinned, signature, organization, user) and
/// return its target key (`ENVELOPE_TARGET_KEY_INVALID` when it is no valid P-256 key).
pub fn verify_target(
    target_bundle: &[u8],
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<PublicKey> {
    let bytes = size_checked(target_bundle, "the OTP target bundle")?;
    let document = parse_object(bytes, TARGET, MALFORMED)?;
    let data = open_signed(&document, pinned, sandbox_allowed, TARGET)?;
    signed_target(&data, TARGET, organization_id, user_id)
}

/// The target key of the signed data `{"targetPublic", "organizationId", "userId"}` of a
/// target or import bundle, after the organization and user checks (each when given).
fn signed_target(
    data: &Object,
    what: &str,
    organization_id: Option<&str>,
    user_id: Option<&str>,
) -> Result<PublicKey> {
    let data_what = format!("the {what} data");
    let target = text_field(data, "targetPublic", &data_what, DATA_MALFORMED)?;
    let signed_organization = text_field(data, "organizationId", &data_what, DATA_MALFORMED)?;
    let signed_user = text_field(data, "userId", &data_what, DATA_MALFORMED)?;
    if organization_id.is_some_and(|given| given != signed_organization) {
        return Err(mismatch(
            what,
            "organization",
            "ENVELOPE_ORGANIZATION_MISMATCH",
        ));
    }
    if user_id.is_some_and(|given| given != signed_user) {
        return Err(mismatch(what, "user", "ENVELOPE_USER_MISMATCH"));
    }
    target_key(target, what)
}

fn target_key(target: &str, what: &str) -> Result<PublicKey> {
    PublicKey::from_hex(target).map_err(|_| {
        Error::envelope(
            "ENVELOPE_TARGET_KEY_INVALID",
            format!("the {what}'s targetPublic is not a valid P-256 public key"),
        )
    })
}

/// An OTP code as the client seals it: 1 to 64 ASCII letters or digits. (The Python layer
/// checks it first and raises its own `OtpError`.)
pub fn check_otp_code(otp_code: &str) -> Result<()> {
    if (1..=64).contains(&otp_code.len()) && otp_code.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Ok(());
    }
    Err(Error::envelope(
        "OTP_MALFORMED",
        "the OTP code must be 1 to 64 ASCII letters or digits",
    ))
}

/// Client: check the code and the client key (hex text, bound as lowercase), verify the target
/// bundle ([`verify_target`]), then seal `{"otp_code", "public_key"}` to its target. Returns
/// the `encryptedOtpBundle`, `{"encappedPublic", "ciphertext"}` encoded once.
pub fn otp_encrypt(
    target_bundle: &[u8],
    otp_code: &str,
    client_public_key: &str,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<String> {
    let target = otp_target(
        target_bundle,
        otp_code,
        client_public_key,
        pinned,
        organization_id,
        user_id,
        sandbox_allowed,
    )?;
    otp_seal(&target, otp_code, client_public_key, None)
}

/// [`otp_encrypt`] with a caller-chosen HPKE ephemeral key, for known-answer vectors only.
#[allow(clippy::too_many_arguments)]
pub fn otp_encrypt_with_ephemeral(
    target_bundle: &[u8],
    otp_code: &str,
    client_public_key: &str,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
    ephemeral: &KeyPair,
) -> Result<String> {
    let target = otp_target(
        target_bundle,
        otp_code,
        client_public_key,
        pinned,
        organization_id,
        user_id,
        sandbox_allowed,
    )?;
    otp_seal(&target, otp_code, client_public_key, Some(ephemeral))
}

fn otp_target(
    target_bundle: &[u8],
    otp_code: &str,
    client_public_key: &str,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<PublicKey> {
    check_otp_code(otp_code)?;
    PublicKey::from_hex(client_public_key)?;
    verify_target(
        target_bundle,
        pinned,
        organization_id,
        user_id,
        sandbox_allowed,
    )
}

fn otp_seal(
    target: &PublicKey,
    otp_code: &str,
    client_public_key: &str,
    ephemeral: Option<&KeyPair>,
) -> Result<String> {
    let public_key = client_public_key.to_ascii_lowercase();
    let plaintext = Zeroizing::new(compact_json(&[
        ("otp_code", otp_code),
        ("public_key", &public_key),
    ]));
    let (enc, ciphertext) = seal_profile(target, plaintext.as_bytes(), ephemeral)?;
    Ok(compact_json(&[
        ("encappedPublic", &enc),
        ("ciphertext", &ciphertext),
    ]))
}

/// What the client sealed: the code it typed and the public key to bind (lowercase hex).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OtpSubmission {
    pub otp_code: Zeroizing<String>,
    pub public_key: String,
}

/// Server: the envelope checks of an `encryptedOtpBundle` (a JSON object with hex
/// `encappedPublic` and `ciphertext`; a bundle JSON-encoded twice is `ENVELOPE_MALFORMED`).
pub fn parse_otp_bundle(encrypted_otp_bundle: &[u8]) -> Result<Sealed> {
    parse_sealed(encrypted_otp_bundle, OTP_BUNDLE)
}

/// `{"encappedPublic": hex, "ciphertext": hex}` (`ENVELOPE_MALFORMED` otherwise).
fn parse_sealed(bytes: &[u8], what: &str) -> Result<Sealed> {
    let bytes = size_checked(bytes, what)?;
    let document = parse_object(bytes, what, MALFORMED)?;
    let enc = hex_field(&document, "encappedPublic", what, MALFORMED)?;
    let ciphertext = hex_field(&document, "ciphertext", what, MALFORMED)?;
    Ok(Sealed { enc, ciphertext })
}

/// Server: open a parsed `encryptedOtpBundle` with the target key and read the submission
/// (`ENVELOPE_DATA_MALFORMED` unless it is `{"otp_code", "public_key"}` with a valid key).
pub fn open_otp_submission(sealed: &Sealed, target_key: &KeyPair) -> Result<OtpSubmission> {
    let plaintext = sealed.open(target_key)?;
    let submission = parse_object(&plaintext, OTP_BUNDLE, DATA_MALFORMED)?;
    let what = "the encryptedOtpBundle plaintext";
    let otp_code =
        Zeroizing::new(text_field(&submission, "otp_code", what, DATA_MALFORMED)?.to_owned());
    let public_key = text_field(&submission, "public_key", what, DATA_MALFORMED)?;
    if PublicKey::from_hex(public_key).is_err() {
        return Err(Error::envelope(
            DATA_MALFORMED,
            format!("{OTP_BUNDLE} binds a public_key that is not a valid P-256 key"),
        ));
    }
    Ok(OtpSubmission {
        otp_code,
        public_key: public_key.to_ascii_lowercase(),
    })
}

/// Server: [`parse_otp_bundle`], then [`open_otp_submission`].
pub fn otp_decrypt(encrypted_otp_bundle: &[u8], target_key: &KeyPair) -> Result<OtpSubmission> {
    open_otp_submission(&parse_otp_bundle(encrypted_otp_bundle)?, target_key)
}

// ---------------------------------------------------------------------------------------------
// Import bundles (formats.md section 12)

/// Server (enclave): the import bundle for a target key (SEC1), the signed envelope whose data
/// is `{"targetPublic", "organizationId", "userId"}`; `signer = None` writes the sandbox form.
/// An empty `user_id` is allowed (organization-level secrets). Errors: `InvalidKey` for the
/// target, then `ENVELOPE_PARAMETERS_INVALID` for an empty organization id.
pub fn seal_import(
    target_public_key: KeyInput<'_>,
    organization_id: &str,
    user_id: &str,
    signer: Option<&KeyPair>,
) -> Result<String> {
    seal_target_data(target_public_key, organization_id, user_id, false, signer)
}

/// Client: verify an import bundle and return its target key. A v1.0.0 bundle is checked in
/// order: version, signer pinned, signature, the signed data, the organization and the user
/// (each when given). The legacy v0 form `{"targetPublic", "targetPublicSignature"}` (signed over
/// the 65 raw key bytes, naming no organization or user) is read only when both
/// `organization_id` and `user_id` are `None`: the caller's explicit opt-out of those checks.
pub fn verify_import(
    import_bundle: &[u8],
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<PublicKey> {
    let bytes = size_checked(import_bundle, "the import bundle")?;
    let document = parse_object(bytes, IMPORT, MALFORMED)?;
    if !document.contains("version") && document.contains("targetPublicSignature") {
        return verify_import_legacy(&document, pinned, organization_id, user_id, sandbox_allowed);
    }
    let data = open_signed(&document, pinned, sandbox_allowed, IMPORT)?;
    signed_target(&data, IMPORT, organization_id, user_id)
}

fn verify_import_legacy(
    document: &Object,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<PublicKey> {
    let pinned = pinned_key(pinned)?;
    let target = text_field(document, "targetPublic", LEGACY_IMPORT, MALFORMED)?;
    let raw_target = unhex(target).ok_or_else(|| {
        Error::envelope(
            MALFORMED,
            format!("the {LEGACY_IMPORT} field 'targetPublic' is not hex"),
        )
    })?;
    let signature = text_field(document, "targetPublicSignature", LEGACY_IMPORT, MALFORMED)?;
    check_legacy_signature(
        document,
        &pinned,
        &raw_target,
        signature,
        LEGACY_IMPORT,
        sandbox_allowed,
    )?;
    if organization_id.is_some() {
        return Err(Error::envelope(
            "ENVELOPE_ORGANIZATION_MISMATCH",
            "a legacy v0 import bundle names no organization, so it cannot match \
             organization_id; accept it with organization_id=None and user_id=None",
        ));
    }
    if user_id.is_some() {
        return Err(Error::envelope(
            "ENVELOPE_USER_MISMATCH",
            "a legacy v0 import bundle names no user, so it cannot match user_id; accept it \
             with organization_id=None and user_id=None",
        ));
    }
    target_key(target, LEGACY_IMPORT)
}

/// Client: HPKE-seal `plaintext` (section 1 profile) to a verified import target and write
/// `{"encappedPublic", "ciphertext"}` as the real SDKs do. `ephemeral` only for known-answer
/// vectors: reusing an ephemeral key destroys the confidentiality HPKE provides.
pub fn seal_to_import_target(
    target: &PublicKey,
    plaintext: &[u8],
    ephemeral: Option<&KeyPair>,
) -> Result<String> {
    let (enc, ciphertext) = seal_profile(target, plaintext, ephemeral)?;
    Ok(compact_json(&[
        ("encappedPublic", &enc),
        ("ciphertext", &ciphertext),
    ]))
}

/// Client: [`verify_import`], then [`seal_to_import_target`] (the plaintext is the caller's to
/// check: a mnemonic, or 32 key bytes).
pub fn encrypt_import(
    import_bundle: &[u8],
    plaintext: &[u8],
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<String> {
    let target = verify_import(
        import_bundle,
        pinned,
        organization_id,
        user_id,
        sandbox_allowed,
    )?;
    seal_to_import_target(&target, plaintext, None)
}

/// Server (enclave): open an encrypted import bundle `{"encappedPublic", "ciphertext"}` with
/// the target key. Errors: `ENVELOPE_MALFORMED`, then `DECRYPTION_FAILED`.
pub fn open_import(encrypted_bundle: &[u8], target_key: &KeyPair) -> Result<Zeroizing<Vec<u8>>> {
    parse_import(encrypted_bundle)?.open(target_key)
}

/// Server: the envelope checks of an encrypted import bundle, before the key is needed.
pub fn parse_import(encrypted_bundle: &[u8]) -> Result<Sealed> {
    parse_sealed(encrypted_bundle, ENCRYPTED_IMPORT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Object> {
        parse_object(text.as_bytes(), "x", MALFORMED)
    }

    #[test]
    fn strict_json_refuses_what_python_refuses() {
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
            r#"{"a":1,}"#,
            r#"{"a":1} x"#,
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let long = format!(r#"{{"a":{}}}"#, "9".repeat(MAX_INT_DIGITS + 1));
        assert!(parse(&long).is_err());
        let deep = |n: usize| format!(r#"{{"a":{}{}}}"#, "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep(MAX_NESTING - 1)).is_ok());
        assert!(parse(&deep(MAX_NESTING)).is_err());
        assert_eq!(parse("[]").unwrap_err().reason(), "x is not a JSON object");
        assert_eq!(parse("[").unwrap_err().reason(), "x is not valid JSON");
    }

    #[test]
    fn strict_json_accepts_what_python_accepts() {
        let object = parse(
            r#" {"a":"\u00e9\ud83d\ude00\/","b":[1,-0,1.5e-3,2E+2,true,false,null,{}],"c":{"a":1}} "#,
        )
        .unwrap();
        assert_eq!(object.text("a"), Some("\u{e9}\u{1f600}/"));
        assert!(object.contains("b") && object.text("b").is_none());
        let long = format!(r#"{{"a":-{}}}"#, "9".repeat(MAX_INT_DIGITS));
        assert!(parse(&long).is_ok());
    }

    #[test]
    fn writes_ascii_as_python_and_the_rest_raw() {
        let mut out = String::new();
        push_json_string(&mut out, "a\"\\\n\u{1}\u{7f}/é😀");
        assert_eq!(out, "\"a\\\"\\\\\\n\\u0001\\u007f/é😀\"");
    }

    #[test]
    fn export_round_trip_and_checks() {
        let signer = KeyPair::generate().unwrap();
        let client = KeyPair::generate().unwrap();
        let pinned = signer.public_key().uncompressed().to_vec();
        let client_pub = client.public_key().uncompressed().to_vec();
        let bundle = seal_export(
            KeyInput::Sec1(&client_pub[..]),
            b"secret",
            "org-é",
            Some(&signer),
        )
        .unwrap();
        let opened = open_export(
            bundle.as_bytes(),
            &client,
            Some("org-é"),
            KeyInput::Sec1(&pinned[..]),
            false,
        );
        assert_eq!(opened.unwrap().as_slice(), b"secret");
        let err = open_export(
            bundle.as_bytes(),
            &client,
            Some("org"),
            KeyInput::Sec1(&pinned[..]),
            false,
        );
        assert_eq!(err.unwrap_err().code(), "ENVELOPE_ORGANIZATION_MISMATCH");
        let sandbox = seal_export(KeyInput::Sec1(&client_pub[..]), b"secret", "org", None).unwrap();
        let err = open_export(
            sandbox.as_bytes(),
            &client,
            None,
            KeyInput::Sec1(&pinned[..]),
            false,
        )
        .unwrap_err();
        assert_eq!(err.code(), "ENVELOPE_UNSIGNED");
        assert!(open_export(
            sandbox.as_bytes(),
            &client,
            None,
            KeyInput::Sec1(&pinned[..]),
            true
        )
        .is_ok());
        let err = seal_export(KeyInput::Sec1(&client_pub[..]), b"secret", "", None).unwrap_err();
        assert_eq!(err.code(), PARAMETERS_INVALID);
    }

    #[test]
    fn otp_round_trip() {
        let signer = KeyPair::generate().unwrap();
        let target = KeyPair::generate().unwrap();
        let client = KeyPair::generate().unwrap();
        let pinned = signer.public_key().uncompressed().to_vec();
        let bundle = seal_target(
            KeyInput::Sec1(target.public_key().uncompressed()),
            "org",
            "user",
            Some(&signer),
        )
        .unwrap();
        let client_hex = hex::encode(client.public_key().compressed()).to_uppercase();
        let sealed = otp_encrypt(
            bundle.as_bytes(),
            "123456",
            &client_hex,
            KeyInput::Sec1(&pinned[..]),
            Some("org"),
            Some("user"),
            false,
        )
        .unwrap();
        let submission = otp_decrypt(sealed.as_bytes(), &target).unwrap();
        assert_eq!(submission.otp_code.as_str(), "123456");
        assert_eq!(submission.public_key, client_hex.to_lowercase());
        let err = otp_encrypt(
            bundle.as_bytes(),
            "12 34",
            &client_hex,
            KeyInput::Sec1(&pinned[..]),
            None,
            None,
            false,
        );
        assert_eq!(err.unwrap_err().code(), "OTP_MALFORMED");
        let err = otp_encrypt(
            bundle.as_bytes(),
            "1234",
            &client_hex,
            KeyInput::Sec1(&pinned[..]),
            None,
            Some("u"),
            false,
        );
        assert_eq!(err.unwrap_err().code(), "ENVELOPE_USER_MISMATCH");
    }

    #[test]
    fn import_round_trip_and_checks() {
        let signer = KeyPair::generate().unwrap();
        let target = KeyPair::generate().unwrap();
        let pinned = signer.public_key().uncompressed().to_vec();
        let pin = || KeyInput::Sec1(&pinned[..]);
        let target_pub = KeyInput::Sec1(target.public_key().uncompressed());
        let bundle = seal_import(target_pub, "org", "", Some(&signer)).unwrap();
        let sealed = encrypt_import(
            bundle.as_bytes(),
            b"words",
            pin(),
            Some("org"),
            Some(""),
            false,
        )
        .unwrap();
        assert!(sealed.starts_with(r#"{"encappedPublic":""#));
        assert_eq!(
            open_import(sealed.as_bytes(), &target).unwrap().as_slice(),
            b"words"
        );
        let err = encrypt_import(
            bundle.as_bytes(),
            b"w",
            pin(),
            Some("org"),
            Some("u"),
            false,
        );
        assert_eq!(err.unwrap_err().code(), "ENVELOPE_USER_MISMATCH");
        let err = seal_import(target_pub, "", "u", None).unwrap_err();
        assert_eq!(err.code(), PARAMETERS_INVALID);
        // v0: signed over the raw key bytes, read only with both checks opted out.
        let raw = target.public_key().uncompressed();
        let v0 = format!(
            r#"{{"targetPublic":"{}","targetPublicSignature":"{}"}}"#,
            hex::encode(raw),
            hex::encode(signer.sign(raw).unwrap())
        );
        assert!(verify_import(v0.as_bytes(), pin(), None, None, false).is_ok());
        let err = verify_import(v0.as_bytes(), pin(), Some("org"), None, false).unwrap_err();
        assert_eq!(err.code(), "ENVELOPE_ORGANIZATION_MISMATCH");
        let err = verify_import(v0.as_bytes(), pin(), None, Some(""), false).unwrap_err();
        assert_eq!(err.code(), "ENVELOPE_USER_MISMATCH");
        let other = KeyPair::generate().unwrap();
        let other_pin = other.public_key().uncompressed().to_vec();
        let err = verify_import(v0.as_bytes(), KeyInput::Sec1(&other_pin), None, None, false);
        assert_eq!(err.unwrap_err().code(), "ENVELOPE_SIGNATURE_INVALID");
    }
}
