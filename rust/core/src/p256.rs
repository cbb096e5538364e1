//! P-256 keys and ECDSA P-256 / SHA-256 on aws-lc-rs.
//!
//! Public keys are validated fully on the way in (length, prefix, coordinates < p, on the curve,
//! not the identity) and kept as 65-byte uncompressed SEC1. Private keys live in aws-lc (which
//! clears key memory on free); the scalar only leaves as a [`Zeroizing`] copy on request.

use std::sync::{Arc, OnceLock};

use aws_lc_rs::agreement::{self, ECDH_P256};
use aws_lc_rs::encoding::{AsBigEndian, EcPrivateKeyBin};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    EcdsaKeyPair, ParsedPublicKey, ECDSA_P256_SHA256_ASN1, ECDSA_P256_SHA256_ASN1_SIGNING,
};
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::der;
use crate::error::{Error, Result};
use crate::field;
use crate::key_cache::KeyCache;

pub const SCALAR_LEN: usize = 32;
pub const UNCOMPRESSED_LEN: usize = 65;
pub const COMPRESSED_LEN: usize = 33;

/// The order n of the P-256 base point, big-endian (SEC 2, section 2.4.2).
const ORDER: [u8; SCALAR_LEN] = [
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
];

/// True when the big-endian `scalar` is in [1, n-1], in constant time.
pub(crate) fn scalar_in_range(scalar: &[u8; SCALAR_LEN]) -> Choice {
    // Subtract n byte by byte from the least significant end; a final borrow means scalar < n.
    let mut borrow: u16 = 0;
    for (d, n) in scalar.iter().rev().zip(ORDER.iter().rev()) {
        let diff = u16::from(*d)
            .wrapping_sub(u16::from(*n))
            .wrapping_sub(borrow);
        borrow = (diff >> 8) & 1;
    }
    let below_order = Choice::from(borrow as u8);
    let is_zero = scalar.ct_eq(&[0u8; SCALAR_LEN]);
    below_order & !is_zero
}

/// A validated P-256 public key.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PublicKey {
    uncompressed: [u8; UNCOMPRESSED_LEN],
}

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PublicKey({})", hex::encode(self.compressed()))
    }
}

impl PublicKey {
    /// Parses SEC1 bytes, compressed (33) or uncompressed (65), with full validation.
    pub fn from_sec1(bytes: &[u8]) -> Result<Self> {
        parse_sec1(bytes)
    }

    /// Parses SEC1 hex (either case), compressed or uncompressed.
    pub fn from_hex(text: &str) -> Result<Self> {
        Self::from_sec1(&decode_key_hex(text)?)
    }

    pub fn uncompressed(&self) -> &[u8; UNCOMPRESSED_LEN] {
        &self.uncompressed
    }

    /// SEC1 compressed form: 02 or 03 by the parity of y, then x.
    pub fn compressed(&self) -> [u8; COMPRESSED_LEN] {
        let mut out = [0u8; COMPRESSED_LEN];
        out[0] = 0x02 | (self.uncompressed[UNCOMPRESSED_LEN - 1] & 1);
        out[1..].copy_from_slice(&self.uncompressed[1..COMPRESSED_LEN]);
        out
    }
}

/// Decodes a key given as hex text; a non-hex string is an invalid key, not a decode error.
pub fn decode_key_hex(text: &str) -> Result<Vec<u8>> {
    decode_hex(text).ok_or_else(|| Error::key_encoding("public key"))
}

/// The crate's strict hex reader: either case, even length, nothing else. (const-hex, which
/// decodes with SIMD, would also take a leading `0x` or `0X`: refused here first.)
pub(crate) fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if matches!(text.as_bytes(), [b'0', b'x' | b'X', ..]) {
        return None;
    }
    const_hex::decode(text).ok()
}

/// A public key parsed once for ECDSA verification (aws-lc's EC_KEY), with its SEC1 form.
pub struct VerifyingKey {
    parsed: ParsedPublicKey,
    public: PublicKey,
}

/// Validates SEC1 bytes. Only 33-byte 02/03 and 65-byte 04 encodings pass the format check.
/// Then a coordinate >= p, a point off the curve, or an x with no point is `INVALID_POINT`
/// (field.rs; aws-lc validates again wherever it takes the point, for ECDSA or ECDH).
fn parse_sec1(bytes: &[u8]) -> Result<PublicKey> {
    match (bytes.len(), bytes.first()) {
        (COMPRESSED_LEN, Some(0x02 | 0x03)) => Ok(PublicKey {
            uncompressed: decompress(bytes)?,
        }),
        (UNCOMPRESSED_LEN, Some(0x04)) => {
            let uncompressed: [u8; UNCOMPRESSED_LEN] =
                bytes.try_into().map_err(|_| Error::internal())?;
            let (x, y) = uncompressed[1..].split_at(SCALAR_LEN);
            let (x, y) = (x.try_into(), y.try_into());
            match (x, y) {
                (Ok(x), Ok(y)) if field::is_on_curve(x, y) => Ok(PublicKey { uncompressed }),
                _ => Err(Error::invalid_point()),
            }
        }
        (COMPRESSED_LEN | UNCOMPRESSED_LEN, _) => Err(Error::key_prefix(
            "public key must start with 02 or 03 (33 bytes) or 04 (65 bytes)",
        )),
        (len, _) => Err(Error::key_length(
            "public key",
            "33 bytes (compressed) or 65 bytes (uncompressed)",
            len,
        )),
    }
}

fn aws_lc_parse(uncompressed: &[u8; UNCOMPRESSED_LEN]) -> Result<ParsedPublicKey> {
    ParsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, uncompressed).map_err(|_| Error::invalid_point())
}

impl VerifyingKey {
    /// Parses and validates SEC1 bytes, compressed or uncompressed, ready to verify with.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let public = parse_sec1(bytes)?;
        let parsed = aws_lc_parse(public.uncompressed())?;
        Ok(Self { parsed, public })
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// Verifies a strict-DER signature over `message` (SHA-256 inside). A malformed encoding is
    /// an error; a well-formed signature that does not verify is `Ok(false)`. High-S verifies.
    pub fn verify_der(&self, message: &[u8], signature: &[u8]) -> Result<bool> {
        der::parse_signature(signature)?;
        Ok(self.parsed.verify_sig(message, signature).is_ok())
    }

    /// Verifies a fixed-width r || s signature (IEEE P1363, as in JWS ES256).
    pub fn verify_p1363(&self, message: &[u8], signature: &[u8]) -> Result<bool> {
        let der = der::p1363_to_der(signature)?;
        Ok(self.parsed.verify_sig(message, &der).is_ok())
    }
}

/// SEC 1 section 2.3.4 for a 33-byte 02/03 point: x must be below p and x^3 - 3x + b a square.
fn decompress(compressed: &[u8]) -> Result<[u8; UNCOMPRESSED_LEN]> {
    let x: &[u8; SCALAR_LEN] = compressed[1..].try_into().map_err(|_| Error::internal())?;
    let y = field::decompress_y(x, compressed[0] == 0x03).ok_or_else(Error::invalid_point)?;
    let mut out = [0u8; UNCOMPRESSED_LEN];
    out[0] = 0x04;
    out[1..=SCALAR_LEN].copy_from_slice(x);
    out[1 + SCALAR_LEN..].copy_from_slice(&y);
    Ok(out)
}

static CACHE: KeyCache<VerifyingKey> = KeyCache::new();
/// The same for ECDH peers (aws-lc's parsed form of a validated [`PublicKey`]).
static AGREEMENT_CACHE: KeyCache<agreement::ParsedPublicKey> = KeyCache::new();

/// [`VerifyingKey::parse`] through the bounded process-wide cache keyed by the SEC1 bytes (a
/// session key stamps many requests: its point is decompressed and validated once).
pub fn cached_verifying_key(bytes: &[u8]) -> Result<Arc<VerifyingKey>> {
    CACHE.get_or_parse(bytes, VerifyingKey::parse)
}

/// Verifies a DER ECDSA P-256 / SHA-256 signature with a SEC1 public key (bytes).
pub fn verify_signature(public_key: &[u8], message: &[u8], signature_der: &[u8]) -> Result<bool> {
    cached_verifying_key(public_key)?.verify_der(message, signature_der)
}

/// A P-256 private key with its public key, usable for ECDSA and ECDH.
pub struct KeyPair {
    agreement: agreement::PrivateKey,
    signing: OnceLock<EcdsaKeyPair>,
    public: PublicKey,
}

impl core::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "KeyPair(public_key={})",
            hex::encode(self.public.compressed())
        )
    }
}

impl KeyPair {
    /// A fresh key from the system CSPRNG.
    pub fn generate() -> Result<Self> {
        let key = agreement::PrivateKey::generate(&ECDH_P256).map_err(|_| Error::internal())?;
        Self::from_agreement_key(key)
    }

    /// Loads a 32-byte big-endian scalar; rejects 0 and values >= n.
    pub fn from_private_bytes(scalar: &[u8]) -> Result<Self> {
        let scalar: &[u8; SCALAR_LEN] = scalar
            .try_into()
            .map_err(|_| Error::key_length("private key", "32 bytes", scalar.len()))?;
        if !bool::from(scalar_in_range(scalar)) {
            return Err(Error::private_key_range());
        }
        let key = agreement::PrivateKey::from_private_key(&ECDH_P256, scalar)
            .map_err(|_| Error::private_key_range())?;
        Self::from_agreement_key(key)
    }

    /// Loads a scalar given as 64 hex characters.
    pub fn from_private_hex(text: &str) -> Result<Self> {
        let scalar =
            Zeroizing::new(hex::decode(text).map_err(|_| Error::key_encoding("private key"))?);
        Self::from_private_bytes(&scalar)
    }

    fn from_agreement_key(agreement: agreement::PrivateKey) -> Result<Self> {
        let public = agreement
            .compute_public_key()
            .map_err(|_| Error::internal())?;
        let uncompressed = public.as_ref().try_into().map_err(|_| Error::internal())?;
        Ok(Self {
            agreement,
            signing: OnceLock::new(),
            public: PublicKey { uncompressed },
        })
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The scalar, big-endian, in a buffer that is wiped when dropped.
    pub fn private_key_bytes(&self) -> Result<Zeroizing<[u8; SCALAR_LEN]>> {
        let bin: EcPrivateKeyBin<'static> = self
            .agreement
            .as_be_bytes()
            .map_err(|_| Error::internal())?;
        let mut out = Zeroizing::new([0u8; SCALAR_LEN]);
        let bytes: &[u8] = bin.as_ref();
        if bytes.len() != SCALAR_LEN {
            return Err(Error::internal());
        }
        out.copy_from_slice(bytes);
        Ok(out)
    }

    fn signing_key(&self) -> Result<&EcdsaKeyPair> {
        if let Some(key) = self.signing.get() {
            return Ok(key);
        }
        let scalar = self.private_key_bytes()?;
        let key = EcdsaKeyPair::from_private_key_and_public_key(
            &ECDSA_P256_SHA256_ASN1_SIGNING,
            scalar.as_ref(),
            self.public.uncompressed(),
        )
        .map_err(|_| Error::internal())?;
        Ok(self.signing.get_or_init(|| key))
    }

    /// ECDSA P-256 / SHA-256 over `message`, DER-encoded.
    pub fn sign(&self, message: &[u8]) -> Result<Vec<u8>> {
        let signature = self
            .signing_key()?
            .sign(&SystemRandom::new(), message)
            .map_err(|_| Error::internal())?;
        Ok(signature.as_ref().to_vec())
    }

    /// Raw ECDH: the x-coordinate of d * peer (SEC 1 section 3.3.1), wiped on drop. The peer's
    /// aws-lc key comes from a process-wide cache: a recipient that is sealed to again (a
    /// client's key, an enclave's) is parsed and validated by aws-lc once.
    pub fn ecdh(&self, peer: &PublicKey) -> Result<Zeroizing<[u8; SCALAR_LEN]>> {
        let parsed = AGREEMENT_CACHE.get_or_parse(peer.uncompressed(), |bytes| {
            agreement::ParsedPublicKey::try_from(agreement::UnparsedPublicKey::new(
                &ECDH_P256, bytes,
            ))
            .map_err(|_| Error::invalid_point())
        })?;
        self.agree(agreement::ParsedPublicKey::clone(&parsed))
    }

    /// ECDH with a 65-byte uncompressed point that has not been validated yet: aws-lc parses
    /// and validates it (coordinates < p, on the curve) as part of the agreement, so a caller
    /// on the hot path need not validate it a second time.
    pub(crate) fn ecdh_uncompressed(
        &self,
        peer: &[u8; UNCOMPRESSED_LEN],
    ) -> Result<Zeroizing<[u8; SCALAR_LEN]>> {
        self.agree(agreement::UnparsedPublicKey::new(&ECDH_P256, peer))
    }

    fn agree<B: TryInto<agreement::ParsedPublicKey>>(
        &self,
        peer: B,
    ) -> Result<Zeroizing<[u8; SCALAR_LEN]>> {
        agreement::agree(&self.agreement, peer, Error::invalid_point(), |secret| {
            let mut out = Zeroizing::new([0u8; SCALAR_LEN]);
            if secret.len() != SCALAR_LEN {
                return Err(Error::internal());
            }
            out.copy_from_slice(secret);
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_range_edges() {
        let mut n_minus_1 = ORDER;
        n_minus_1[31] -= 1;
        let mut one = [0u8; 32];
        one[31] = 1;
        assert!(bool::from(scalar_in_range(&one)));
        assert!(bool::from(scalar_in_range(&n_minus_1)));
        assert!(!bool::from(scalar_in_range(&ORDER)));
        assert!(!bool::from(scalar_in_range(&[0u8; 32])));
        assert!(!bool::from(scalar_in_range(&[0xff; 32])));
    }

    #[test]
    fn private_hex_negatives() {
        for text in ["zz", "abc", ""] {
            let err = KeyPair::from_private_hex(text).unwrap_err();
            assert!(
                ["INVALID_KEY_ENCODING", "INVALID_KEY_LENGTH"].contains(&err.code()),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn compress_and_decompress_agree() {
        let key = KeyPair::generate().unwrap();
        let compressed = key.public_key().compressed();
        let parsed = PublicKey::from_sec1(&compressed).unwrap();
        assert_eq!(&parsed, key.public_key());
    }

    #[test]
    fn sign_then_verify() {
        let key = KeyPair::generate().unwrap();
        let sig = key.sign(b"payload").unwrap();
        let public = key.public_key().uncompressed();
        assert!(verify_signature(public, b"payload", &sig).unwrap());
        assert!(!verify_signature(public, b"other", &sig).unwrap());
        let compressed = key.public_key().compressed();
        assert!(verify_signature(&compressed, b"payload", &sig).unwrap());
    }
}
