//! The `Service-Wallet-Signature` stamp (formats.md section 4):
//! `base64url_nopad(JSON {"publicKey", "scheme", "signature"})`, a DER ECDSA P-256 / SHA-256
//! signature over the payload bytes exactly as received.
//!
//! Creation writes the keys in the order publicKey, scheme, signature with no whitespace.
//! Verification takes any key order and whitespace, padded or unpadded base64url, high-S or
//! low-S; it rejects an unknown scheme, non-strict DER, a key that is not a valid compressed
//! point, duplicate or unknown fields, and a signature over other bytes.

use std::sync::Arc;
use std::thread;

use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;
use serde::Deserialize;

use crate::der;
use crate::error::{Error, Result};
use crate::p256::{cached_verifying_key, KeyPair, PublicKey, VerifyingKey, COMPRESSED_LEN};

/// The only scheme (formats.md section 4).
pub const SCHEME: &str = "SIGNATURE_SCHEME_TK_API_P256";

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

const NOT_AN_OBJECT: &str =
    "the stamp is not a JSON object with exactly publicKey, scheme and signature strings";

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StampJson<'a> {
    #[serde(borrow)]
    public_key: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    scheme: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    signature: std::borrow::Cow<'a, str>,
}

/// A stamp whose shape has been checked: a valid compressed key and a strict-DER signature.
#[derive(Clone, Debug)]
pub struct Stamp {
    pub public_key: PublicKey,
    pub signature: Vec<u8>,
}

/// Signs `payload` with `key` and writes the stamp.
pub fn create(payload: &[u8], key: &KeyPair) -> Result<String> {
    let signature = key.sign(payload)?;
    let json = format!(
        r#"{{"publicKey":"{}","scheme":"{SCHEME}","signature":"{}"}}"#,
        hex::encode(key.public_key().compressed()),
        hex::encode(signature),
    );
    Ok(URL_SAFE_NO_PAD.encode(json))
}

/// Checks the stamp's shape (base64url, JSON, scheme, key, DER) without verifying it.
pub fn parse(stamp: &str) -> Result<Stamp> {
    parse_with_key(stamp).map(|(parsed, _)| parsed)
}

/// [`parse`], also returning the signer's key as parsed (and cached) for verification.
fn parse_with_key(stamp: &str) -> Result<(Stamp, Arc<VerifyingKey>)> {
    if stamp.is_empty() {
        return Err(Error::stamp_missing());
    }
    let json = decode_base64url(stamp)?;
    // serde's derived Deserialize would also read the struct from a JSON array.
    if json.trim_ascii_start().first() != Some(&b'{') {
        return Err(Error::stamp_malformed(NOT_AN_OBJECT));
    }
    let fields: StampJson<'_> =
        serde_json::from_slice(&json).map_err(|_| Error::stamp_malformed(NOT_AN_OBJECT))?;
    if fields.scheme != SCHEME {
        return Err(Error::stamp_malformed(
            "the stamp's scheme is not SIGNATURE_SCHEME_TK_API_P256",
        ));
    }
    let key_bytes = hex::decode(fields.public_key.as_ref())
        .map_err(|_| Error::stamp_malformed("the stamp's publicKey is not hex"))?;
    if key_bytes.len() != COMPRESSED_LEN {
        return Err(Error::stamp_malformed(
            "the stamp's publicKey must be a 33-byte compressed P-256 key",
        ));
    }
    let key = cached_verifying_key(&key_bytes)
        .map_err(|_| Error::stamp_malformed("the stamp's publicKey is not a valid P-256 point"))?;
    let signature = hex::decode(fields.signature.as_ref())
        .map_err(|_| Error::stamp_malformed("the stamp's signature is not hex"))?;
    der::parse_signature(&signature).map_err(|_| {
        Error::stamp_malformed("the stamp's signature is not a strict-DER ECDSA signature")
    })?;
    let parsed = Stamp {
        public_key: key.public_key().clone(),
        signature,
    };
    Ok((parsed, key))
}

/// Verifies a stamp over `payload` and, when given, that it was made by `expected_public_key`.
pub fn verify(
    stamp: &str,
    payload: &[u8],
    expected_public_key: Option<&PublicKey>,
) -> Result<Stamp> {
    let (parsed, key) = parse_with_key(stamp)?;
    if !key.verify_der(payload, &parsed.signature)? {
        return Err(Error::stamp_invalid());
    }
    if expected_public_key.is_some_and(|expected| *expected != parsed.public_key) {
        return Err(Error::stamp_key_mismatch());
    }
    Ok(parsed)
}

/// Verifies many stamps on every core; `true` exactly where [`verify`] would succeed.
///
/// `stamps[i]` is checked over `payloads[i]` and, when `expected` is given, against
/// `expected[i]` (a `None` entry expects no particular key). The three inputs must have the same
/// length, or the whole batch is refused.
pub fn verify_many<S, P>(
    stamps: &[S],
    payloads: &[P],
    expected: Option<&[Option<PublicKey>]>,
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
        verify(stamps[i].as_ref(), payloads[i].as_ref(), expected).is_ok()
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
        assert_eq!(parsed.public_key, *key.public_key());
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
        assert_eq!(parse(&stamp).unwrap().public_key, *key.public_key());
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
}
