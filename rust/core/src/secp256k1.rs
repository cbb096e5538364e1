//! secp256k1 keys and ECDSA secp256k1 / SHA-256 on libsecp256k1, through the `secp256k1` crate
//! (formats.md section 15).
//!
//! aws-lc has no dedicated secp256k1 code (it runs the curve on its generic prime-curve
//! arithmetic, about five times slower than libsecp256k1), so signing, verification and key
//! parsing go to libsecp256k1, Bitcoin Core's library; aws-lc stays the oracle the differential
//! tests compare with (`tests/secp256k1_differential.rs`, and Wycheproof through both).
//!
//! The behaviour is the one the stamp contract fixes, whatever the backend:
//! - a signature is strict DER, checked by [`der::parse_signature`] before anything else (a
//!   malformed one is `INVALID_SIGNATURE_ENCODING`); r and s are then read as fixed-width
//!   scalars, and one out of [1, n-1] (wider than 32 bytes, zero, n or more) is a well-formed
//!   signature that does not verify (`Ok(false)`);
//! - high-S verifies as well as low-S: libsecp256k1 accepts low-S only, so s is normalized to
//!   `min(s, n - s)` first, which is the same verdict (both forms of s verify under ECDSA);
//! - public keys are 33-byte 02/03 or 65-byte 04 SEC1 points on the curve, kept compressed;
//!   a 65-byte hybrid form (06/07), which libsecp256k1 would read, is refused by prefix first.
//!
//! Signatures made here are RFC 6979 (deterministic) and low-S, as libsecp256k1 makes them. The
//! private scalar lives in libsecp256k1's `SecretKey`, erased when the key pair is dropped; the
//! scalar only leaves as a [`Zeroizing`] copy on request.

use std::sync::Arc;

use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use secp256k1::ecdsa::{self, Signature};
use secp256k1::{Message, SecretKey};
use zeroize::Zeroizing;

use crate::der;
use crate::error::{Error, Result};
use crate::key_cache::KeyCache;
use crate::primitives::sha256;

pub const SCALAR_LEN: usize = 32;
pub const COMPRESSED_LEN: usize = 33;
pub const UNCOMPRESSED_LEN: usize = 65;

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

    fn from_point(point: &secp256k1::PublicKey) -> Self {
        Self {
            compressed: point.serialize(),
        }
    }
}

/// A public key parsed once for ECDSA verification (libsecp256k1's point), with its compressed
/// form.
pub struct VerifyingKey {
    point: secp256k1::PublicKey,
    public: PublicKey,
}

/// The verdict on fixed-width r || s: an r or s out of [1, n-1] does not verify; high-S is
/// normalized to low-S first (the same verdict under ECDSA), since libsecp256k1 takes low-S only.
fn verify_compact(point: &secp256k1::PublicKey, message: &[u8], compact: &[u8; 64]) -> bool {
    // from_compact refuses r or s >= n; libsecp256k1's verify refuses r or s = 0.
    let Ok(mut signature) = Signature::from_compact(compact) else {
        return false;
    };
    signature.normalize_s();
    ecdsa::verify(&signature, Message::from_digest(sha256(message)), point).is_ok()
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
        let point = secp256k1::PublicKey::from_slice(bytes).map_err(|_| Error::invalid_point())?;
        Ok(Self {
            point,
            public: PublicKey::from_point(&point),
        })
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// Verifies a strict-DER signature over `message` (SHA-256 inside). A malformed encoding is
    /// an error; a well-formed signature that does not verify is `Ok(false)`. High-S verifies.
    pub fn verify_der(&self, message: &[u8], signature: &[u8]) -> Result<bool> {
        let (r, s) = der::parse_signature(signature)?;
        if r.len() > SCALAR_LEN || s.len() > SCALAR_LEN {
            return Ok(false); // at least 2^256: not below n
        }
        let mut compact = [0u8; 2 * SCALAR_LEN];
        compact[SCALAR_LEN - r.len()..SCALAR_LEN].copy_from_slice(r);
        compact[2 * SCALAR_LEN - s.len()..].copy_from_slice(s);
        Ok(verify_compact(&self.point, message, &compact))
    }

    /// Verifies a fixed-width r || s signature (64 bytes; another length is an encoding error).
    pub fn verify_p1363(&self, message: &[u8], signature: &[u8]) -> Result<bool> {
        let compact: &[u8; 2 * SCALAR_LEN] = signature.try_into().map_err(|_| {
            Error::signature_encoding("a P1363 signature must be 64 bytes (r || s)")
        })?;
        Ok(verify_compact(&self.point, message, compact))
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

/// The scalar, erased (best effort: libsecp256k1's `SecretKey` is `Copy`) when dropped.
struct Secret(SecretKey);

impl Drop for Secret {
    fn drop(&mut self) {
        self.0.non_secure_erase();
    }
}

/// A secp256k1 private key with its public key, for ECDSA / SHA-256.
pub struct KeyPair {
    secret: Secret,
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
    /// A fresh key from the system CSPRNG (aws-lc's): 32 random bytes, drawn again in the
    /// negligible case that they are 0 or not below n.
    pub fn generate() -> Result<Self> {
        let rng = SystemRandom::new();
        let mut scalar = Zeroizing::new([0u8; SCALAR_LEN]);
        for _ in 0..64 {
            rng.fill(scalar.as_mut()).map_err(|_| Error::internal())?;
            if let Ok(secret) = SecretKey::from_secret_bytes(*scalar) {
                return Ok(Self::from_secret(secret));
            }
        }
        Err(Error::internal())
    }

    /// Loads a 32-byte big-endian scalar; rejects 0 and values >= n.
    pub fn from_private_bytes(scalar: &[u8]) -> Result<Self> {
        let scalar: &[u8; SCALAR_LEN] = scalar
            .try_into()
            .map_err(|_| Error::key_length("private key", "32 bytes", scalar.len()))?;
        let secret =
            SecretKey::from_secret_bytes(*scalar).map_err(|_| Error::private_key_range())?;
        Ok(Self::from_secret(secret))
    }

    fn from_secret(secret: SecretKey) -> Self {
        let secret = Secret(secret);
        let public = PublicKey::from_point(&secp256k1::PublicKey::from_secret_key(&secret.0));
        Self { secret, public }
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The scalar, big-endian, in a buffer that is wiped when dropped.
    pub fn private_key_bytes(&self) -> Result<Zeroizing<[u8; SCALAR_LEN]>> {
        Ok(Zeroizing::new(*self.secret.0.as_secret_bytes()))
    }

    /// ECDSA secp256k1 / SHA-256 over `message`, DER-encoded: RFC 6979, low-S.
    pub fn sign(&self, message: &[u8]) -> Result<Vec<u8>> {
        let signature = ecdsa::sign(Message::from_digest(sha256(message)), &self.secret.0);
        Ok(signature.serialize_der().to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order n of the secp256k1 base point, big-endian (SEC 2, section 2.4.1).
    const ORDER: [u8; SCALAR_LEN] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36,
        0x41, 0x41,
    ];

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
        // The hybrid form (06/07), which libsecp256k1 reads, is refused by its prefix.
        let key = KeyPair::generate().unwrap();
        let point = secp256k1::PublicKey::from_slice(key.public_key().compressed()).unwrap();
        let mut hybrid = point.serialize_uncompressed();
        hybrid[0] = 0x06 | (hybrid[64] & 1);
        assert_eq!(
            VerifyingKey::parse(&hybrid).err().unwrap().code(),
            "INVALID_KEY_PREFIX"
        );
    }

    #[test]
    fn signatures_are_rfc6979_and_low_s() {
        let key = KeyPair::from_private_bytes(&[0x11; 32]).unwrap();
        let first = key.sign(b"hello from TKHQ!").unwrap();
        assert_eq!(first, key.sign(b"hello from TKHQ!").unwrap());
        // formats.md section 15's example: the same key and payload.
        assert_eq!(
            hex::encode(&first),
            "3045022100eafcc8a285bd9fa59bfd606fd696f7a7083eedaadea0ea1b9c3953c8835a8d3f\
             02200e89a65e04e762e309aa2206b0a392a90a2c58d2baa3eb9bac4ec247c05095f4"
        );
        let mut low = Signature::from_der(&first).unwrap();
        low.normalize_s();
        assert_eq!(low.serialize_der().to_vec(), first, "already low-S");
    }
}
