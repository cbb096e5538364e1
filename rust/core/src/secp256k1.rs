//! secp256k1 keys and ECDSA secp256k1 / SHA-256 on aws-lc-rs (formats.md section 15).
//!
//! Public keys are validated by aws-lc (on the curve, not the identity) and kept in their
//! 33-byte compressed SEC1 form, the form a stamp carries. Private keys live in aws-lc (which
//! clears key memory on free); the scalar only leaves as a [`Zeroizing`] copy on request.

use std::sync::Arc;

use aws_lc_rs::encoding::{AsBigEndian, EcPrivateKeyBin};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    EcdsaKeyPair, KeyPair as _, ParsedPublicKey, ECDSA_P256K1_SHA256_ASN1,
    ECDSA_P256K1_SHA256_ASN1_SIGNING,
};
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::der;
use crate::error::{Error, Result};
use crate::key_cache::KeyCache;

pub const SCALAR_LEN: usize = 32;
pub const COMPRESSED_LEN: usize = 33;
pub const UNCOMPRESSED_LEN: usize = 65;

/// The order n of the secp256k1 base point, big-endian (SEC 2, section 2.4.1).
const ORDER: [u8; SCALAR_LEN] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
    0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
];

/// The RFC 5915 `ECPrivateKey` around a scalar, without the optional public key: version 1,
/// the 32-byte key, then `[0] OID secp256k1` (1.3.132.0.10). aws-lc computes the public key.
const RFC5915_PREFIX: [u8; 7] = [0x30, 0x2e, 0x02, 0x01, 0x01, 0x04, 0x20];
const RFC5915_SUFFIX: [u8; 9] = [0xa0, 0x07, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a];

/// True when the big-endian `scalar` is in [1, n-1], in constant time.
fn scalar_in_range(scalar: &[u8; SCALAR_LEN]) -> Choice {
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

/// SEC1 compressed form of a 65-byte uncompressed point: 02 or 03 by the parity of y, then x.
fn compress(uncompressed: &[u8]) -> Result<[u8; COMPRESSED_LEN]> {
    if uncompressed.len() != UNCOMPRESSED_LEN || uncompressed[0] != 0x04 {
        return Err(Error::internal());
    }
    let mut out = [0u8; COMPRESSED_LEN];
    out[0] = 0x02 | (uncompressed[UNCOMPRESSED_LEN - 1] & 1);
    out[1..].copy_from_slice(&uncompressed[1..COMPRESSED_LEN]);
    Ok(out)
}

/// A validated secp256k1 public key, kept compressed.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PublicKey {
    compressed: [u8; COMPRESSED_LEN],
}

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Secp256k1PublicKey({})", hex::encode(self.compressed))
    }
}

impl PublicKey {
    /// Parses SEC1 bytes, compressed (33) or uncompressed (65), with full validation.
    pub fn from_sec1(bytes: &[u8]) -> Result<Self> {
        Ok(cached_verifying_key(bytes)?.public.clone())
    }

    pub fn compressed(&self) -> &[u8; COMPRESSED_LEN] {
        &self.compressed
    }
}

/// A public key parsed once for ECDSA verification (aws-lc's EC_KEY), with its compressed form.
pub struct VerifyingKey {
    parsed: ParsedPublicKey,
    public: PublicKey,
}

impl VerifyingKey {
    /// Parses and validates SEC1 bytes: 33 bytes with 02/03 or 65 bytes with 04 only.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        match (bytes.len(), bytes.first()) {
            (COMPRESSED_LEN, Some(0x02 | 0x03)) | (UNCOMPRESSED_LEN, Some(0x04)) => {}
            (COMPRESSED_LEN | UNCOMPRESSED_LEN, _) => {
                return Err(Error::key_prefix(
                    "public key must start with 02 or 03 (33 bytes) or 04 (65 bytes)",
                ))
            }
            (len, _) => {
                return Err(Error::key_length(
                    "public key",
                    "33 bytes (compressed) or 65 bytes (uncompressed)",
                    len,
                ))
            }
        }
        let parsed = ParsedPublicKey::new(&ECDSA_P256K1_SHA256_ASN1, bytes)
            .map_err(|_| Error::invalid_point())?;
        let compressed = if bytes.len() == COMPRESSED_LEN {
            bytes.try_into().map_err(|_| Error::internal())?
        } else {
            compress(bytes)?
        };
        Ok(Self {
            parsed,
            public: PublicKey { compressed },
        })
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

    /// Verifies a fixed-width r || s signature (64 bytes).
    pub fn verify_p1363(&self, message: &[u8], signature: &[u8]) -> Result<bool> {
        let der = der::p1363_to_der(signature)?;
        Ok(self.parsed.verify_sig(message, &der).is_ok())
    }
}

static CACHE: KeyCache<VerifyingKey> = KeyCache::new();

/// [`VerifyingKey::parse`] through a bounded process-wide cache keyed by the SEC1 bytes.
pub fn cached_verifying_key(bytes: &[u8]) -> Result<Arc<VerifyingKey>> {
    CACHE.get_or_parse(bytes, VerifyingKey::parse)
}

/// Verifies a DER ECDSA secp256k1 / SHA-256 signature with a SEC1 public key (bytes).
pub fn verify_signature(public_key: &[u8], message: &[u8], signature_der: &[u8]) -> Result<bool> {
    cached_verifying_key(public_key)?.verify_der(message, signature_der)
}

/// A secp256k1 private key with its public key, for ECDSA / SHA-256.
pub struct KeyPair {
    signing: EcdsaKeyPair,
    public: PublicKey,
}

impl core::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Secp256k1KeyPair(public_key={})",
            hex::encode(self.public.compressed)
        )
    }
}

impl KeyPair {
    /// A fresh key from the system CSPRNG.
    pub fn generate() -> Result<Self> {
        let signing = EcdsaKeyPair::generate(&ECDSA_P256K1_SHA256_ASN1_SIGNING)
            .map_err(|_| Error::internal())?;
        Self::from_signing(signing)
    }

    /// Loads a 32-byte big-endian scalar; rejects 0 and values >= n.
    pub fn from_private_bytes(scalar: &[u8]) -> Result<Self> {
        let scalar: &[u8; SCALAR_LEN] = scalar
            .try_into()
            .map_err(|_| Error::key_length("private key", "32 bytes", scalar.len()))?;
        if !bool::from(scalar_in_range(scalar)) {
            return Err(Error::private_key_range());
        }
        let mut document = Zeroizing::new(Vec::with_capacity(48));
        document.extend_from_slice(&RFC5915_PREFIX);
        document.extend_from_slice(scalar);
        document.extend_from_slice(&RFC5915_SUFFIX);
        let signing =
            EcdsaKeyPair::from_private_key_der(&ECDSA_P256K1_SHA256_ASN1_SIGNING, &document)
                .map_err(|_| Error::private_key_range())?;
        Self::from_signing(signing)
    }

    fn from_signing(signing: EcdsaKeyPair) -> Result<Self> {
        let compressed = compress(signing.public_key().as_ref())?;
        Ok(Self {
            signing,
            public: PublicKey { compressed },
        })
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The scalar, big-endian, in a buffer that is wiped when dropped.
    pub fn private_key_bytes(&self) -> Result<Zeroizing<[u8; SCALAR_LEN]>> {
        let bin: EcPrivateKeyBin<'static> = self
            .signing
            .private_key()
            .as_be_bytes()
            .map_err(|_| Error::internal())?;
        let bytes: &[u8] = bin.as_ref();
        let mut out = Zeroizing::new([0u8; SCALAR_LEN]);
        if bytes.len() != SCALAR_LEN {
            return Err(Error::internal());
        }
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// ECDSA secp256k1 / SHA-256 over `message`, DER-encoded.
    pub fn sign(&self, message: &[u8]) -> Result<Vec<u8>> {
        let signature = self
            .signing
            .sign(&SystemRandom::new(), message)
            .map_err(|_| Error::internal())?;
        Ok(signature.as_ref().to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_range_edges() {
        let mut n_minus_1 = ORDER;
        n_minus_1[31] -= 1;
        assert!(KeyPair::from_private_bytes(&n_minus_1).is_ok());
        for bad in [ORDER, [0u8; 32], [0xff; 32]] {
            let err = KeyPair::from_private_bytes(&bad).unwrap_err();
            assert_eq!(err.code(), "INVALID_PRIVATE_KEY");
        }
        assert_eq!(
            KeyPair::from_private_bytes(&[1u8; 31]).unwrap_err().code(),
            "INVALID_KEY_LENGTH"
        );
    }

    #[test]
    fn known_key_and_round_trip() {
        // d = 1: the public key is the generator G.
        let mut one = [0u8; 32];
        one[31] = 1;
        let key = KeyPair::from_private_bytes(&one).unwrap();
        assert_eq!(
            hex::encode(key.public_key().compressed()),
            "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
        );
        assert_eq!(key.private_key_bytes().unwrap().as_ref(), &one);
        let sig = key.sign(b"payload").unwrap();
        assert!(verify_signature(key.public_key().compressed(), b"payload", &sig).unwrap());
        assert!(!verify_signature(key.public_key().compressed(), b"other", &sig).unwrap());
        let generated = KeyPair::generate().unwrap();
        let again =
            KeyPair::from_private_bytes(generated.private_key_bytes().unwrap().as_ref()).unwrap();
        assert_eq!(again.public_key(), generated.public_key());
    }

    #[test]
    fn rejects_bad_points() {
        assert_eq!(
            VerifyingKey::parse(&[0xff; 33]).err().unwrap().code(),
            "INVALID_KEY_PREFIX"
        );
        let mut off = [0xffu8; 33];
        off[0] = 0x02; // x >= p
        assert_eq!(
            VerifyingKey::parse(&off).err().unwrap().code(),
            "INVALID_POINT"
        );
        assert_eq!(
            VerifyingKey::parse(&[2u8; 32]).err().unwrap().code(),
            "INVALID_KEY_LENGTH"
        );
    }
}
