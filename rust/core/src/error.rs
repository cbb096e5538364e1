//! One error type for the whole core, with stable codes (see `vectors/README.md`).
//!
//! Each error belongs to a family ([`ErrorKind`]) that the bindings map to one Python exception
//! class, and carries a stable upper-case `code` and a one-sentence reason. Reasons never contain
//! secret material: they are either static text or built from public lengths.

use core::fmt;
use std::borrow::Cow;

/// The family of an error; the bindings map each to one Python exception class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A key is malformed or out of range (`InvalidKey`).
    InvalidKey,
    /// An encoding is malformed (`DecodeError`).
    Decode,
    /// A ciphertext did not authenticate (`DecryptionError`).
    Decryption,
    /// A `Service-Wallet-Signature` stamp is missing, malformed or invalid (`StampError`).
    Stamp,
    /// An export or OTP envelope failed a check: version, signer, signature, organization, or
    /// its JSON (`EnvelopeError`).
    Envelope,
    /// Anything else the caller asked for that cannot be done (`WalletCryptoError`).
    Unsupported,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    code: &'static str,
    reason: Cow<'static, str>,
}

impl Error {
    fn new(kind: ErrorKind, code: &'static str, reason: impl Into<Cow<'static, str>>) -> Self {
        Self {
            kind,
            code,
            reason: reason.into(),
        }
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The stable upper-case code, e.g. `INVALID_POINT`.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// One human sentence saying what was wrong.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    pub fn key_encoding(what: &'static str) -> Self {
        Self::new(
            ErrorKind::InvalidKey,
            "INVALID_KEY_ENCODING",
            format!("{what} is not valid hex"),
        )
    }

    pub fn key_length(what: &'static str, expected: &'static str, got: usize) -> Self {
        Self::new(
            ErrorKind::InvalidKey,
            "INVALID_KEY_LENGTH",
            format!("{what} must be {expected}, got {got} bytes"),
        )
    }

    pub fn key_prefix(reason: &'static str) -> Self {
        Self::new(ErrorKind::InvalidKey, "INVALID_KEY_PREFIX", reason)
    }

    pub fn invalid_point() -> Self {
        Self::new(
            ErrorKind::InvalidKey,
            "INVALID_POINT",
            "public key is not a valid P-256 point (coordinate out of range or not on the curve)",
        )
    }

    pub fn private_key_range() -> Self {
        Self::new(
            ErrorKind::InvalidKey,
            "INVALID_PRIVATE_KEY",
            "private key must be an integer in [1, n-1] for P-256",
        )
    }

    pub fn derive_key_pair() -> Self {
        Self::new(
            ErrorKind::InvalidKey,
            "DERIVE_KEY_PAIR_FAILED",
            "DeriveKeyPair found no valid scalar in 256 candidates",
        )
    }

    pub fn base58(reason: &'static str) -> Self {
        Self::new(ErrorKind::Decode, "INVALID_BASE58", reason)
    }

    pub fn checksum(reason: &'static str) -> Self {
        Self::new(ErrorKind::Decode, "INVALID_CHECKSUM", reason)
    }

    pub fn signature_encoding(reason: &'static str) -> Self {
        Self::new(ErrorKind::Decode, "INVALID_SIGNATURE_ENCODING", reason)
    }

    pub fn length(reason: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Decode, "INVALID_LENGTH", reason)
    }

    /// Parallel inputs of a batch call ([`crate::stamp::verify_many`]) whose lengths differ.
    pub(crate) fn batch_length() -> Self {
        Self::new(
            ErrorKind::Decode,
            "INVALID_LENGTH",
            "stamps, payloads and expected keys must have the same length",
        )
    }

    pub fn unsupported(reason: &'static str) -> Self {
        Self::new(ErrorKind::Unsupported, "UNSUPPORTED_ALGORITHM", reason)
    }

    pub fn message_limit() -> Self {
        Self::new(
            ErrorKind::Unsupported,
            "MESSAGE_LIMIT_REACHED",
            "the HPKE context's sequence number is exhausted",
        )
    }

    pub fn text(what: &'static str) -> Self {
        Self::new(
            ErrorKind::Decode,
            "INVALID_TEXT",
            format!("{what} is not valid Unicode text (it cannot be encoded as UTF-8)"),
        )
    }

    pub fn stamp_missing() -> Self {
        Self::new(
            ErrorKind::Stamp,
            "WALLET_SIGNATURE_MISSING",
            "the request has no Service-Wallet-Signature stamp",
        )
    }

    pub fn stamp_malformed(reason: &'static str) -> Self {
        Self::new(ErrorKind::Stamp, "WALLET_SIGNATURE_MALFORMED", reason)
    }

    /// A well-formed stamp whose scheme is not among the schemes the verifier accepts.
    pub fn stamp_scheme_unsupported() -> Self {
        Self::new(
            ErrorKind::Stamp,
            "WALLET_SIGNATURE_SCHEME_UNSUPPORTED",
            "the stamp's scheme is not one this verifier accepts",
        )
    }

    pub fn stamp_invalid() -> Self {
        Self::new(
            ErrorKind::Stamp,
            "WALLET_SIGNATURE_INVALID",
            "the stamp's signature does not verify over this payload",
        )
    }

    pub fn stamp_key_mismatch() -> Self {
        Self::new(
            ErrorKind::Stamp,
            "WALLET_SIGNATURE_KEY_MISMATCH",
            "the stamp is signed by a key other than the expected session key",
        )
    }

    pub fn client_held_key() -> Self {
        Self::new(
            ErrorKind::InvalidKey,
            "CLIENT_HELD_KEY",
            "a compressed clientPublicKey selects the client-held-key flow: the client's own key \
             is the session key and there is nothing to seal; send the uncompressed (04...) key \
             to receive a sealed session key",
        )
    }

    /// The single error for any failure to open: nothing about which step failed leaks out.
    pub fn decryption() -> Self {
        Self::new(
            ErrorKind::Decryption,
            "DECRYPTION_FAILED",
            "decryption failed: the ciphertext, enc, key, info or aad do not match",
        )
    }

    /// An envelope check failed (`envelope.rs`): `code` is one of its stable `ENVELOPE_*` codes
    /// (or `OTP_MALFORMED`), the reason names the envelope and the check, never a secret.
    pub fn envelope(code: &'static str, reason: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorKind::Envelope, code, reason)
    }

    /// A failure inside the backend that input validation should have made impossible.
    pub fn internal() -> Self {
        Self::new(
            ErrorKind::Unsupported,
            "INTERNAL_ERROR",
            "the cryptographic backend reported an unexpected failure",
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.reason)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = core::result::Result<T, Error>;
