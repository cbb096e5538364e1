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
//! JSON from the wire is read strictly by the crate's JSON reader ([`crate::json`]: no repeated
//! keys, no NaN/Infinity, at most [`MAX_NESTING`] levels...), at most [`MAX_ENVELOPE_BYTES`]. The
//! JSON written here is compact, in a fixed key order (see [`crate::json`]).
//!
//! One module per kind: [`signed`] (the v1.0.0 envelope and its pinned-signer checks), [`export`]
//! (wallet and key exports, and the legacy v0 form), [`otp`] (target bundles and the
//! `encryptedOtpBundle`), [`import`] (import bundles and the encrypted bundle). Their functions
//! are re-exported here, so `envelope::verify_export` and the like name them.
//!
//! Every envelope check fails with an [`ErrorKind::Envelope`](crate::ErrorKind::Envelope) error
//! with a stable `ENVELOPE_*` code; every failure to open is the one `DECRYPTION_FAILED`.

use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::hpke::{self, Aad, PROFILE_INFO};
use std::sync::Arc;

use crate::p256::{cached_verifying_key, decode_key_hex, KeyPair, PublicKey, VerifyingKey};

pub mod export;
pub mod import;
pub mod otp;
pub mod signed;

pub use crate::json::{Field, Object, MAX_INT_DIGITS, MAX_NESTING};
pub use export::{open_export, seal_export, seal_export_with_ephemeral, verify_export};
pub use import::{
    encrypt_import, open_import, parse_import, seal_import, seal_to_import_target, verify_import,
};
pub use otp::{
    check_otp_code, open_otp_submission, otp_decrypt, otp_encrypt, otp_encrypt_with_ephemeral,
    parse_otp_bundle, seal_target, verify_target, OtpSubmission,
};
pub use signed::{build_signed, open_signed};

/// The envelope version this module reads and writes.
pub const VERSION: &str = "v1.0.0";
/// The largest envelope (or `encryptedOtpBundle`) accepted, in bytes.
pub const MAX_ENVELOPE_BYTES: usize = 1 << 20;

pub(crate) const MALFORMED: &str = "ENVELOPE_MALFORMED";
pub(crate) const DATA_MALFORMED: &str = "ENVELOPE_DATA_MALFORMED";
pub(crate) const PARAMETERS_INVALID: &str = "ENVELOPE_PARAMETERS_INVALID";

pub(crate) const EXPORT: &str = "export envelope";
pub(crate) const LEGACY: &str = "legacy export envelope";
pub(crate) const TARGET: &str = "OTP target bundle";
pub(crate) const OTP_BUNDLE: &str = "the encryptedOtpBundle";
pub(crate) const IMPORT: &str = "import bundle";
pub(crate) const LEGACY_IMPORT: &str = "legacy import bundle";
pub(crate) const ENCRYPTED_IMPORT: &str = "the encrypted import bundle";

/// Reads strict JSON (see [`crate::json`]) that must be an object. `what` and `code` name the
/// error: "{what} is not valid JSON" or "{what} is not a JSON object".
///
/// The object's string values are wiped when it is dropped (it may carry a secret); the
/// envelopes' public JSON goes through [`parse_public_object`].
pub fn parse_object(bytes: &[u8], what: &str, code: &'static str) -> Result<Object> {
    crate::json::read_object(bytes).map_err(|refusal| refused(refusal, what, code))
}

/// [`parse_object`] for JSON whose every value is public (an envelope, its signed data): not
/// wiped on drop.
pub(crate) fn parse_public_object(bytes: &[u8], what: &str, code: &'static str) -> Result<Object> {
    crate::json::read_public_object(bytes).map_err(|refusal| refused(refusal, what, code))
}

pub(crate) fn refused(refusal: crate::json::Refusal, what: &str, code: &'static str) -> Error {
    let reason = match refusal {
        crate::json::Refusal::NotJson => "is not valid JSON",
        crate::json::Refusal::NotObject => "is not a JSON object",
    };
    Error::envelope(code, format!("{what} {reason}"))
}

pub(crate) fn size_checked<'a>(bytes: &'a [u8], what: &str) -> Result<&'a [u8]> {
    if bytes.len() > MAX_ENVELOPE_BYTES {
        return Err(Error::envelope(
            MALFORMED,
            format!("{what} is larger than {MAX_ENVELOPE_BYTES} bytes"),
        ));
    }
    Ok(bytes)
}

pub(crate) fn text_field<'a>(
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
pub(crate) fn unhex(text: &str) -> Option<Vec<u8>> {
    crate::p256::decode_hex(text)
}

pub(crate) fn hex_field(
    object: &Object,
    name: &str,
    what: &str,
    code: &'static str,
) -> Result<Vec<u8>> {
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

/// The pinned signer, parsed where the checks reach it, through the process-wide cache of
/// verifying keys (one signer pins every envelope: its point is validated once).
pub(crate) fn pinned_key(pinned: KeyInput<'_>) -> Result<Arc<VerifyingKey>> {
    match pinned {
        KeyInput::Sec1(bytes) => cached_verifying_key(bytes),
        KeyInput::Hex(text) => cached_verifying_key(&decode_key_hex(text)?),
    }
}

pub(crate) fn require_text<'a>(value: &'a str, name: &str) -> Result<&'a str> {
    if value.is_empty() {
        return Err(Error::envelope(
            PARAMETERS_INVALID,
            format!("{name} must be a non-empty string"),
        ));
    }
    Ok(value)
}

pub(crate) fn mismatch(what: &str, name: &str, code: &'static str) -> Error {
    Error::envelope(code, format!("the {what} was made for another {name}"))
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

pub(crate) fn seal_profile(
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

/// `{"encappedPublic": hex, "ciphertext": hex}` (`ENVELOPE_MALFORMED` otherwise).
pub(crate) fn parse_sealed(bytes: &[u8], what: &str) -> Result<Sealed> {
    let bytes = size_checked(bytes, what)?;
    let document = parse_public_object(bytes, what, MALFORMED)?;
    let enc = hex_field(&document, "encappedPublic", what, MALFORMED)?;
    let ciphertext = hex_field(&document, "ciphertext", what, MALFORMED)?;
    Ok(Sealed { enc, ciphertext })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_object_words_its_errors() {
        let parse = |text: &str| parse_object(text.as_bytes(), "x", MALFORMED);
        assert_eq!(parse("[]").unwrap_err().reason(), "x is not a JSON object");
        assert_eq!(parse("[").unwrap_err().reason(), "x is not valid JSON");
        assert_eq!(parse("[").unwrap_err().code(), MALFORMED);
        assert_eq!(parse(r#"{"a":"b"}"#).unwrap().text("a"), Some("b"));
    }

    #[test]
    fn unhex_is_strict() {
        assert_eq!(unhex("00aBff"), Some(vec![0, 0xab, 0xff]));
        assert_eq!(unhex(""), Some(vec![]));
        for bad in ["0x00", "0X00", "abc", "zz", " 00", "00 ", "0g"] {
            assert_eq!(unhex(bad), None, "{bad}");
        }
        let long = "0123456789ABCDEFabcdef".repeat(50);
        assert_eq!(unhex(&long), hex::decode(&long).ok());
        assert_eq!(unhex(&format!("{long}x")), None);
    }
}
