//! The `Service-Wallet-Signature` stamp (formats.md sections 4 and 15):
//! `base64url_nopad(JSON {"publicKey", "scheme", "signature"})`, a signature over the payload
//! bytes exactly as received, in one of three schemes: DER ECDSA P-256 / SHA-256 (the session
//! keys'), DER ECDSA secp256k1 / SHA-256, or Ed25519 (64 bytes over the raw payload).
//!
//! Creation writes the keys in the order publicKey, scheme, signature with no whitespace.
//! Verification takes any key order and whitespace, padded or unpadded base64url, high-S or
//! low-S; it rejects an unknown scheme, a key or signature of the wrong form for its scheme
//! (non-strict DER, a key that is not a valid compressed point, wrong lengths), duplicate or
//! unknown fields, and a signature over other bytes. A well-formed stamp whose scheme the caller
//! does not accept is `WALLET_SIGNATURE_SCHEME_UNSUPPORTED`.

use std::sync::Arc;
use std::thread;

use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;

use crate::der;
use crate::ed25519;
use crate::error::{Error, Result};
use crate::json;
use crate::p256::{cached_verifying_key, KeyPair, PublicKey, VerifyingKey, COMPRESSED_LEN};
use crate::secp256k1;

/// The P-256 scheme (formats.md section 4), the one session keys use.
pub const SCHEME: &str = "SIGNATURE_SCHEME_TK_API_P256";
/// The secp256k1 scheme (formats.md section 15).
pub const SCHEME_SECP256K1: &str = "SIGNATURE_SCHEME_TK_API_SECP256K1";
/// The Ed25519 scheme (formats.md section 15).
pub const SCHEME_ED25519: &str = "SIGNATURE_SCHEME_TK_API_ED25519";

/// A stamp scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    P256,
    Secp256k1,
    Ed25519,
}

impl Scheme {
    pub const ALL: [Scheme; 3] = [Scheme::P256, Scheme::Secp256k1, Scheme::Ed25519];

    /// The scheme's name as a stamp writes it.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::P256 => SCHEME,
            Scheme::Secp256k1 => SCHEME_SECP256K1,
            Scheme::Ed25519 => SCHEME_ED25519,
        }
    }

    /// The scheme of an exact name (case-sensitive), if it is one of the three.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    fn bit(self) -> u8 {
        match self {
            Scheme::P256 => 1,
            Scheme::Secp256k1 => 2,
            Scheme::Ed25519 => 4,
        }
    }
}

/// The set of schemes a verifier accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Schemes(u8);

impl Schemes {
    /// P-256 only: what a server that issues P-256 session keys accepts (the default).
    pub const P256_ONLY: Schemes = Schemes(1);
    /// All three schemes.
    pub const ALL: Schemes = Schemes(7);
    /// No scheme: every stamp is refused.
    pub const NONE: Schemes = Schemes(0);

    pub fn contains(self, scheme: Scheme) -> bool {
        self.0 & scheme.bit() != 0
    }

    pub fn with(self, scheme: Scheme) -> Self {
        Schemes(self.0 | scheme.bit())
    }
}

impl FromIterator<Scheme> for Schemes {
    fn from_iter<I: IntoIterator<Item = Scheme>>(iter: I) -> Self {
        iter.into_iter().fold(Schemes::NONE, Schemes::with)
    }
}

/// A stamp is written unpadded; it is read padded (canonical `=`s) or unpadded, nothing between.
fn decode_base64url(stamp: &str) -> Result<Vec<u8>> {
    let engine = if stamp.ends_with('=') {
        &URL_SAFE
    } else {
        &URL_SAFE_NO_PAD
    };
    engine
        .decode(stamp)
        .map_err(|_| Error::stamp_malformed("the stamp is not valid base64url"))
}

/// Strict hex (either case, even length), as `hex::decode` reads it, but decoded in one pass
/// into a buffer of the final size (`hex::decode` collects through an iterator, which showed in
/// the profile of a stamp verification).
fn unhex(text: &str) -> Option<Vec<u8>> {
    let mut out = vec![0u8; text.len() / 2];
    hex::decode_to_slice(text, &mut out).ok()?;
    Some(out)
}

const NOT_AN_OBJECT: &str =
    "the stamp is not a JSON object with exactly publicKey, scheme and signature strings";

/// The stamp's JSON, read by the crate's strict JSON reader ([`crate::json`]): exactly
/// `publicKey`, `scheme` and `signature`, each once, each a string.
fn read_fields(json: &[u8]) -> Result<json::Object> {
    // A stamp is public (a key, a scheme, a signature): not wiped on drop.
    let object =
        json::read_public_object(json).map_err(|_| Error::stamp_malformed(NOT_AN_OBJECT))?;
    let strings = ["publicKey", "scheme", "signature"];
    if object.len() != strings.len() || strings.iter().any(|name| object.text(name).is_none()) {
        return Err(Error::stamp_malformed(NOT_AN_OBJECT));
    }
    Ok(object)
}

/// The signer's public key of a stamp, by scheme.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StampKey {
    P256(PublicKey),
    Secp256k1(secp256k1::PublicKey),
    Ed25519(ed25519::PublicKey),
}

impl StampKey {
    pub fn scheme(&self) -> Scheme {
        match self {
            StampKey::P256(_) => Scheme::P256,
            StampKey::Secp256k1(_) => Scheme::Secp256k1,
            StampKey::Ed25519(_) => Scheme::Ed25519,
        }
    }

    /// The key's bytes in the stamp's form: compressed SEC1 (33) or the Ed25519 encoding (32).
    pub fn stamp_bytes(&self) -> Vec<u8> {
        match self {
            StampKey::P256(key) => key.compressed().to_vec(),
            StampKey::Secp256k1(key) => key.compressed().to_vec(),
            StampKey::Ed25519(key) => key.as_bytes().to_vec(),
        }
    }

    /// The P-256 key, if the stamp is a P-256 one.
    pub fn p256(&self) -> Option<&PublicKey> {
        match self {
            StampKey::P256(key) => Some(key),
            _ => None,
        }
    }
}

/// A stamp whose shape has been checked: a valid key of its scheme and a signature of the
/// scheme's form (strict DER for ECDSA, 64 bytes for Ed25519).
#[derive(Clone, Debug)]
pub struct Stamp {
    pub public_key: StampKey,
    pub signature: Vec<u8>,
}

impl Stamp {
    pub fn scheme(&self) -> Scheme {
        self.public_key.scheme()
    }
}

/// The key a caller expects to have signed, in every allowed scheme it is a valid key of:
/// 33-byte or 65-byte SEC1 (P-256 or secp256k1) or a 32-byte Ed25519 key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpectedKey {
    p256: Option<PublicKey>,
    secp256k1: Option<secp256k1::PublicKey>,
    ed25519: Option<ed25519::PublicKey>,
}

impl From<PublicKey> for ExpectedKey {
    fn from(key: PublicKey) -> Self {
        Self {
            p256: Some(key),
            ..Self::default()
        }
    }
}

impl ExpectedKey {
    /// Parses `bytes` as a key of each scheme in `schemes`; it must be valid in at least one
    /// (otherwise the error of the first scheme tried: P-256, then secp256k1, then Ed25519).
    pub fn parse(bytes: &[u8], schemes: Schemes) -> Result<Self> {
        let mut first_error = None;
        let mut keep = |result: Result<()>| {
            if let Err(err) = result {
                first_error.get_or_insert(err);
            }
        };
        let mut out = Self::default();
        if schemes.contains(Scheme::P256) {
            keep(PublicKey::from_sec1(bytes).map(|k| out.p256 = Some(k)));
        }
        if schemes.contains(Scheme::Secp256k1) {
            keep(secp256k1::PublicKey::from_sec1(bytes).map(|k| out.secp256k1 = Some(k)));
        }
        if schemes.contains(Scheme::Ed25519) {
            keep(ed25519::PublicKey::from_bytes(bytes).map(|k| out.ed25519 = Some(k)));
        }
        if out == Self::default() {
            return Err(first_error.unwrap_or_else(|| {
                Error::key_length("public key", "a key of an accepted scheme", bytes.len())
            }));
        }
        Ok(out)
    }

    fn matches(&self, key: &StampKey) -> bool {
        match key {
            StampKey::P256(key) => self.p256.as_ref() == Some(key),
            StampKey::Secp256k1(key) => self.secp256k1.as_ref() == Some(key),
            StampKey::Ed25519(key) => self.ed25519.as_ref() == Some(key),
        }
    }
}

/// Writes a stamp from its parts (the signature already made), in creation order.
fn write(public_key: &[u8], scheme: Scheme, signature: &[u8]) -> String {
    let json = format!(
        r#"{{"publicKey":"{}","scheme":"{}","signature":"{}"}}"#,
        hex::encode(public_key),
        scheme.name(),
        hex::encode(signature),
    );
    URL_SAFE_NO_PAD.encode(json)
}

/// Signs `payload` with the P-256 `key` and writes the stamp.
pub fn create(payload: &[u8], key: &KeyPair) -> Result<String> {
    let signature = key.sign(payload)?;
    Ok(write(
        &key.public_key().compressed(),
        Scheme::P256,
        &signature,
    ))
}

/// A signing key of any scheme.
#[derive(Clone, Copy, Debug)]
pub enum SigningKey<'a> {
    P256(&'a KeyPair),
    Secp256k1(&'a secp256k1::KeyPair),
    Ed25519(&'a ed25519::KeyPair),
}

/// Signs `payload` with `key` in its scheme and writes the stamp.
pub fn create_with(payload: &[u8], key: SigningKey<'_>) -> Result<String> {
    match key {
        SigningKey::P256(key) => create(payload, key),
        SigningKey::Secp256k1(key) => Ok(write(
            key.public_key().compressed(),
            Scheme::Secp256k1,
            &key.sign(payload)?,
        )),
        SigningKey::Ed25519(key) => Ok(write(
            key.public_key().as_bytes(),
            Scheme::Ed25519,
            &key.sign(payload)?,
        )),
    }
}

/// Writes the stamp of a signature made elsewhere (an HSM, a KMS, a secure enclave): the key
/// and signature must have their scheme's form, and the signature must verify over `payload`
/// with that key (`WALLET_SIGNATURE_INVALID` otherwise), so a signer that signed other bytes
/// or returned garbage never yields a stamp.
pub fn assemble(
    payload: &[u8],
    scheme: Scheme,
    public_key: &[u8],
    signature: &[u8],
) -> Result<String> {
    let checked = checked_key(scheme, public_key, signature)?;
    if !checked.verify(payload, signature)? {
        return Err(Error::stamp_invalid());
    }
    Ok(write(public_key, scheme, signature))
}

/// Checks the stamp's shape (base64url, JSON, scheme, key, signature form) without verifying
/// it; P-256 stamps only.
pub fn parse(stamp: &str) -> Result<Stamp> {
    parse_with(stamp, Schemes::P256_ONLY)
}

/// [`parse`] for stamps of any scheme in `schemes`.
pub fn parse_with(stamp: &str, schemes: Schemes) -> Result<Stamp> {
    parse_with_key(stamp, schemes).map(|(parsed, _)| parsed)
}

/// A signer's key as parsed (and cached) for verification.
enum Checked {
    P256(Arc<VerifyingKey>),
    Secp256k1(Arc<secp256k1::VerifyingKey>),
    Ed25519(Arc<ed25519::VerifyingKey>),
}

impl Checked {
    fn verify(&self, payload: &[u8], signature: &[u8]) -> Result<bool> {
        match self {
            Checked::P256(key) => key.verify_der(payload, signature),
            Checked::Secp256k1(key) => key.verify_der(payload, signature),
            Checked::Ed25519(key) => key.verify(payload, signature),
        }
    }

    fn stamp_key(&self) -> StampKey {
        match self {
            Checked::P256(key) => StampKey::P256(key.public_key().clone()),
            Checked::Secp256k1(key) => StampKey::Secp256k1(key.public_key().clone()),
            Checked::Ed25519(key) => StampKey::Ed25519(key.public_key().clone()),
        }
    }
}

/// The form checks of a scheme's key and signature bytes, before the scheme is allowed.
fn check_form(scheme: Scheme, key: &[u8], signature: &[u8]) -> Result<()> {
    let key_len = match scheme {
        Scheme::P256 => COMPRESSED_LEN,
        Scheme::Secp256k1 => secp256k1::COMPRESSED_LEN,
        Scheme::Ed25519 => ed25519::PUBLIC_KEY_LEN,
    };
    if key.len() != key_len {
        return Err(Error::stamp_malformed(match scheme {
            Scheme::P256 => "the stamp's publicKey must be a 33-byte compressed P-256 key",
            Scheme::Secp256k1 => "the stamp's publicKey must be a 33-byte compressed secp256k1 key",
            Scheme::Ed25519 => "the stamp's publicKey must be a 32-byte Ed25519 key",
        }));
    }
    match scheme {
        Scheme::P256 | Scheme::Secp256k1 => {
            der::parse_signature(signature).map(|_| ()).map_err(|_| {
                Error::stamp_malformed("the stamp's signature is not a strict-DER ECDSA signature")
            })
        }
        Scheme::Ed25519 if signature.len() != ed25519::SIGNATURE_LEN => Err(
            Error::stamp_malformed("the stamp's Ed25519 signature must be 64 bytes"),
        ),
        Scheme::Ed25519 => Ok(()),
    }
}

/// The key of a scheme, parsed through its cache; a key that is not a valid point is malformed.
fn parse_key(scheme: Scheme, key: &[u8]) -> Result<Checked> {
    let point =
        |_| Error::stamp_malformed("the stamp's publicKey is not a valid point of its curve");
    Ok(match scheme {
        Scheme::P256 => Checked::P256(cached_verifying_key(key).map_err(point)?),
        Scheme::Secp256k1 => {
            if !matches!(key.first(), Some(0x02 | 0x03)) {
                return Err(point(Error::internal()));
            }
            Checked::Secp256k1(secp256k1::cached_verifying_key(key).map_err(point)?)
        }
        Scheme::Ed25519 => Checked::Ed25519(ed25519::cached_verifying_key(key).map_err(point)?),
    })
}

fn checked_key(scheme: Scheme, key: &[u8], signature: &[u8]) -> Result<Checked> {
    check_form(scheme, key, signature)?;
    parse_key(scheme, key)
}

/// [`parse_with`], also returning the signer's key as parsed (and cached) for verification.
///
/// Order: base64url and JSON, a known scheme name, the key's and signature's form for that
/// scheme (all `WALLET_SIGNATURE_MALFORMED`), then whether the scheme is accepted
/// (`WALLET_SIGNATURE_SCHEME_UNSUPPORTED`), then the key's point (`MALFORMED`).
fn parse_with_key(stamp: &str, schemes: Schemes) -> Result<(Stamp, Checked)> {
    if stamp.is_empty() {
        return Err(Error::stamp_missing());
    }
    let fields = read_fields(&decode_base64url(stamp)?)?;
    let field = |name| fields.text(name).unwrap_or_default();
    let (public_key, scheme, signature) = (field("publicKey"), field("scheme"), field("signature"));
    let scheme = Scheme::from_name(scheme)
        .ok_or_else(|| Error::stamp_malformed("the stamp's scheme is not a known stamp scheme"))?;
    let key_bytes = unhex(public_key)
        .ok_or_else(|| Error::stamp_malformed("the stamp's publicKey is not hex"))?;
    let signature = unhex(signature)
        .ok_or_else(|| Error::stamp_malformed("the stamp's signature is not hex"))?;
    check_form(scheme, &key_bytes, &signature)?;
    if !schemes.contains(scheme) {
        return Err(Error::stamp_scheme_unsupported());
    }
    let key = parse_key(scheme, &key_bytes)?;
    let parsed = Stamp {
        public_key: key.stamp_key(),
        signature,
    };
    Ok((parsed, key))
}

/// Verifies a P-256 stamp over `payload` and, when given, that it was made by
/// `expected_public_key`.
pub fn verify(
    stamp: &str,
    payload: &[u8],
    expected_public_key: Option<&PublicKey>,
) -> Result<Stamp> {
    let (parsed, key) = parse_with_key(stamp, Schemes::P256_ONLY)?;
    if !key.verify(payload, &parsed.signature)? {
        return Err(Error::stamp_invalid());
    }
    if expected_public_key.is_some_and(|expected| Some(expected) != parsed.public_key.p256()) {
        return Err(Error::stamp_key_mismatch());
    }
    Ok(parsed)
}

/// Verifies a stamp of any scheme in `schemes` over `payload` and, when given, that it was made
/// by `expected`.
pub fn verify_with(
    stamp: &str,
    payload: &[u8],
    expected: Option<&ExpectedKey>,
    schemes: Schemes,
) -> Result<Stamp> {
    let (parsed, key) = parse_with_key(stamp, schemes)?;
    if !key.verify(payload, &parsed.signature)? {
        return Err(Error::stamp_invalid());
    }
    if expected.is_some_and(|expected| !expected.matches(&parsed.public_key)) {
        return Err(Error::stamp_key_mismatch());
    }
    Ok(parsed)
}

/// Verifies many P-256 stamps on every core (see [`verify_many_with`]).
pub fn verify_many<S, P>(
    stamps: &[S],
    payloads: &[P],
    expected: Option<&[Option<PublicKey>]>,
) -> Result<Vec<bool>>
where
    S: AsRef<str> + Sync,
    P: AsRef<[u8]> + Sync,
{
    let expected: Option<Vec<Option<ExpectedKey>>> = expected.map(|keys| {
        keys.iter()
            .map(|k| k.clone().map(ExpectedKey::from))
            .collect()
    });
    verify_many_with(stamps, payloads, expected.as_deref(), Schemes::P256_ONLY)
}

/// Verifies many stamps on every core; `true` exactly where [`verify_with`] would succeed.
///
/// `stamps[i]` is checked over `payloads[i]` and, when `expected` is given, against
/// `expected[i]` (a `None` entry expects no particular key). The three inputs must have the same
/// length, or the whole batch is refused. Keys are parsed once per process (per-scheme caches).
pub fn verify_many_with<S, P>(
    stamps: &[S],
    payloads: &[P],
    expected: Option<&[Option<ExpectedKey>]>,
    schemes: Schemes,
) -> Result<Vec<bool>>
where
    S: AsRef<str> + Sync,
    P: AsRef<[u8]> + Sync,
{
    let len = stamps.len();
    if payloads.len() != len || expected.is_some_and(|keys| keys.len() != len) {
        return Err(Error::batch_length());
    }
    let verdict = |i: usize| {
        let expected = expected.and_then(|keys| keys[i].as_ref());
        verify_with(stamps[i].as_ref(), payloads[i].as_ref(), expected, schemes).is_ok()
    };
    let workers = thread::available_parallelism().map_or(1, |n| n.get());
    if workers <= 1 || len < 64 {
        return Ok((0..len).map(verdict).collect());
    }
    let chunk = len.div_ceil(workers);
    Ok(thread::scope(|scope| {
        let handles: Vec<_> = (0..len)
            .step_by(chunk)
            .map(|start| {
                let end = (start + chunk).min(len);
                scope.spawn(move || (start..end).map(verdict).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            // A worker that panicked would have lost its verdicts: re-raise, never fail open.
            .flat_map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_then_verify_and_reject() {
        let key = KeyPair::generate().unwrap();
        let stamp = create(b"{\"a\":1}", &key).unwrap();
        let parsed = verify(&stamp, b"{\"a\":1}", Some(key.public_key())).unwrap();
        assert_eq!(parsed.public_key.p256(), Some(key.public_key()));
        let code = |r: Result<Stamp>| r.unwrap_err().code();
        assert_eq!(
            code(verify(&stamp, b"{\"a\":2}", None)),
            "WALLET_SIGNATURE_INVALID"
        );
        let other = KeyPair::generate().unwrap();
        assert_eq!(
            code(verify(&stamp, b"{\"a\":1}", Some(other.public_key()))),
            "WALLET_SIGNATURE_KEY_MISMATCH"
        );
        assert_eq!(code(verify("", b"", None)), "WALLET_SIGNATURE_MISSING");
        assert_eq!(code(verify("!!", b"", None)), "WALLET_SIGNATURE_MALFORMED");
        let padded = format!("{stamp}{}", "=".repeat((4 - stamp.len() % 4) % 4));
        assert!(verify(&padded, b"{\"a\":1}", None).is_ok());
    }

    #[test]
    fn batch_matches_single() {
        let key = KeyPair::generate().unwrap();
        let good = create(b"p", &key).unwrap();
        let (stamps, payloads): (Vec<&str>, Vec<&[u8]>) = (0..200)
            .map(|i| match i % 3 {
                0 => (good.as_str(), &b"p"[..]),
                1 => (good.as_str(), &b"q"[..]),
                _ => ("garbage", &b"p"[..]),
            })
            .unzip();
        let verdicts = verify_many(&stamps, &payloads, None).unwrap();
        let expected: Vec<bool> = stamps
            .iter()
            .zip(&payloads)
            .map(|(s, p)| verify(s, p, None).is_ok())
            .collect();
        assert_eq!(verdicts, expected);
        assert_eq!(verdicts.iter().filter(|v| **v).count(), 67);
    }

    #[test]
    fn parse_checks_shape_only() {
        let key = KeyPair::generate().unwrap();
        let stamp = create(b"payload", &key).unwrap();
        // parse does not verify: any payload, the shape and key are what it checks.
        assert_eq!(
            parse(&stamp).unwrap().public_key.p256(),
            Some(key.public_key())
        );
        let array = URL_SAFE_NO_PAD.encode(r#"["a","b","c"]"#);
        assert_eq!(
            parse(&array).unwrap_err().code(),
            "WALLET_SIGNATURE_MALFORMED"
        );
        let padded_wrong = format!("{stamp}=");
        if stamp.len() % 4 != 3 {
            assert_eq!(
                parse(&padded_wrong).unwrap_err().code(),
                "WALLET_SIGNATURE_MALFORMED"
            );
        }
    }

    #[test]
    fn batch_with_expected_keys() {
        let key = KeyPair::generate().unwrap();
        let other = KeyPair::generate().unwrap();
        let stamp = create(b"p", &key).unwrap();
        let expected: Vec<Option<PublicKey>> = (0..100)
            .map(|i| {
                let key = if i % 2 == 0 { &key } else { &other };
                Some(key.public_key().clone())
            })
            .collect();
        let (stamps, payloads) = (vec![stamp.as_str(); 100], vec![&b"p"[..]; 100]);
        let verdicts = verify_many(&stamps, &payloads, Some(&expected)).unwrap();
        assert!(verdicts.iter().enumerate().all(|(i, v)| *v == (i % 2 == 0)));
    }

    #[test]
    fn batch_refuses_uneven_inputs() {
        let key = KeyPair::generate().unwrap();
        let stamp = create(b"p", &key).unwrap();
        let code = |r: Result<Vec<bool>>| r.unwrap_err().code();
        let keys = [None, None];
        assert_eq!(
            code(verify_many(&[&stamp], &[b"p", b"q"], None)),
            "INVALID_LENGTH"
        );
        assert_eq!(
            code(verify_many(&[&stamp], &[b"p"], Some(&keys))),
            "INVALID_LENGTH"
        );
        assert_eq!(
            verify_many(&[&stamp], &[b"p"], Some(&keys[..1])).unwrap(),
            [true]
        );
        assert!(verify_many::<&str, &[u8]>(&[], &[], None)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn other_schemes_round_trip_and_refusals() {
        let k1 = secp256k1::KeyPair::generate().unwrap();
        let ed = ed25519::KeyPair::generate().unwrap();
        let p = KeyPair::generate().unwrap();
        let code = |r: Result<Stamp>| r.unwrap_err().code();
        for (key, scheme) in [
            (SigningKey::Secp256k1(&k1), Scheme::Secp256k1),
            (SigningKey::Ed25519(&ed), Scheme::Ed25519),
            (SigningKey::P256(&p), Scheme::P256),
        ] {
            let stamp = create_with(b"payload", key).unwrap();
            let parsed = verify_with(&stamp, b"payload", None, Schemes::ALL).unwrap();
            assert_eq!(parsed.scheme(), scheme);
            let only = Schemes::NONE.with(scheme);
            assert!(verify_with(&stamp, b"payload", None, only).is_ok());
            assert_eq!(
                code(verify_with(&stamp, b"other", None, Schemes::ALL)),
                "WALLET_SIGNATURE_INVALID"
            );
            let others: Schemes = Scheme::ALL.into_iter().filter(|s| *s != scheme).collect();
            assert_eq!(
                code(verify_with(&stamp, b"payload", None, others)),
                "WALLET_SIGNATURE_SCHEME_UNSUPPORTED"
            );
            let expected =
                ExpectedKey::parse(&parsed.public_key.stamp_bytes(), Schemes::ALL).unwrap();
            assert!(verify_with(&stamp, b"payload", Some(&expected), Schemes::ALL).is_ok());
            let wrong = ExpectedKey::from(KeyPair::generate().unwrap().public_key().clone());
            assert_eq!(
                code(verify_with(&stamp, b"payload", Some(&wrong), Schemes::ALL)),
                "WALLET_SIGNATURE_KEY_MISMATCH"
            );
        }
        // A secp256k1 key stamped under the P-256 name (and the reverse) is malformed or invalid.
        let stamp = create_with(b"p", SigningKey::Secp256k1(&k1)).unwrap();
        let json = String::from_utf8(URL_SAFE_NO_PAD.decode(&stamp).unwrap()).unwrap();
        let swapped = URL_SAFE_NO_PAD.encode(json.replace(SCHEME_SECP256K1, SCHEME));
        assert!(verify_with(&swapped, b"p", None, Schemes::ALL).is_err());
    }

    #[test]
    fn assemble_checks_the_external_signature() {
        let k1 = secp256k1::KeyPair::generate().unwrap();
        let public = k1.public_key().compressed();
        let sig = k1.sign(b"p").unwrap();
        let stamp = assemble(b"p", Scheme::Secp256k1, public, &sig).unwrap();
        assert!(verify_with(&stamp, b"p", None, Schemes::ALL).is_ok());
        assert_eq!(
            assemble(b"q", Scheme::Secp256k1, public, &sig)
                .unwrap_err()
                .code(),
            "WALLET_SIGNATURE_INVALID"
        );
        assert_eq!(
            assemble(b"p", Scheme::Ed25519, public, &sig)
                .unwrap_err()
                .code(),
            "WALLET_SIGNATURE_MALFORMED"
        );
    }
}
