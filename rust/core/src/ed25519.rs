//! Ed25519 keys and signatures (RFC 8032) on aws-lc-rs (formats.md section 15).
//!
//! A public key is its 32-byte encoding and a signature 64 bytes over the raw message (no
//! prehash). aws-lc decodes the key point and checks S < L when it verifies, so a key that is
//! not a valid point, or a non-canonical S, simply does not verify. The 32-byte seed lives in
//! aws-lc (cleared on free) and only leaves as a [`Zeroizing`] copy on request.

use std::sync::Arc;

use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair as _, ParsedPublicKey, ED25519};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::key_cache::KeyCache;

pub const PUBLIC_KEY_LEN: usize = 32;
pub const SEED_LEN: usize = 32;
pub const SIGNATURE_LEN: usize = 64;

/// An Ed25519 public key (its 32-byte encoding).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PublicKey {
    bytes: [u8; PUBLIC_KEY_LEN],
}

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Ed25519PublicKey({})", hex::encode(self.bytes))
    }
}

impl PublicKey {
    /// Takes the 32-byte encoding; any other length is `INVALID_KEY_LENGTH`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bytes = bytes
            .try_into()
            .map_err(|_| Error::key_length("Ed25519 public key", "32 bytes", bytes.len()))?;
        Ok(Self { bytes })
    }

    pub fn as_bytes(&self) -> &[u8; PUBLIC_KEY_LEN] {
        &self.bytes
    }
}

/// A public key parsed once by aws-lc for verification.
pub struct VerifyingKey {
    parsed: ParsedPublicKey,
    public: PublicKey,
}

impl VerifyingKey {
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let public = PublicKey::from_bytes(bytes)?;
        let parsed =
            ParsedPublicKey::new(&ED25519, public.bytes).map_err(|_| Error::invalid_point())?;
        Ok(Self { parsed, public })
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// Verifies a 64-byte signature over `message`. A signature of another length is an
    /// error; one that does not verify is `Ok(false)`.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> Result<bool> {
        if signature.len() != SIGNATURE_LEN {
            return Err(Error::signature_encoding(
                "an Ed25519 signature must be 64 bytes",
            ));
        }
        Ok(self.parsed.verify_sig(message, signature).is_ok())
    }
}

static CACHE: KeyCache<VerifyingKey> = KeyCache::new();

/// [`VerifyingKey::parse`] through a bounded process-wide cache.
pub fn cached_verifying_key(bytes: &[u8]) -> Result<Arc<VerifyingKey>> {
    CACHE.get_or_parse(bytes, VerifyingKey::parse)
}

/// Verifies a 64-byte Ed25519 signature with a 32-byte public key.
pub fn verify_signature(public_key: &[u8], message: &[u8], signature: &[u8]) -> Result<bool> {
    cached_verifying_key(public_key)?.verify(message, signature)
}

/// An Ed25519 key pair (RFC 8032 seed and public key).
pub struct KeyPair {
    inner: Ed25519KeyPair,
    public: PublicKey,
}

impl core::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Ed25519KeyPair(public_key={})",
            hex::encode(self.public.bytes)
        )
    }
}

impl KeyPair {
    /// A fresh key from the system CSPRNG.
    pub fn generate() -> Result<Self> {
        Self::from_inner(Ed25519KeyPair::generate().map_err(|_| Error::internal())?)
    }

    /// Loads the 32-byte RFC 8032 seed (the private key).
    pub fn from_private_bytes(seed: &[u8]) -> Result<Self> {
        if seed.len() != SEED_LEN {
            return Err(Error::key_length("private key", "32 bytes", seed.len()));
        }
        let inner =
            Ed25519KeyPair::from_seed_unchecked(seed).map_err(|_| Error::private_key_range())?;
        Self::from_inner(inner)
    }

    fn from_inner(inner: Ed25519KeyPair) -> Result<Self> {
        let public = PublicKey::from_bytes(inner.public_key().as_ref())?;
        Ok(Self { inner, public })
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The 32-byte seed, in a buffer that is wiped when dropped.
    pub fn private_key_bytes(&self) -> Result<Zeroizing<[u8; SEED_LEN]>> {
        use aws_lc_rs::encoding::AsBigEndian;
        let seed = self.inner.seed().map_err(|_| Error::internal())?;
        let bin = seed.as_be_bytes().map_err(|_| Error::internal())?;
        let bytes: &[u8] = bin.as_ref();
        let mut out = Zeroizing::new([0u8; SEED_LEN]);
        if bytes.len() != SEED_LEN {
            return Err(Error::internal());
        }
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// The 64-byte signature over `message`.
    pub fn sign(&self, message: &[u8]) -> Result<[u8; SIGNATURE_LEN]> {
        let signature = self
            .inner
            .try_sign(message)
            .map_err(|_| Error::internal())?;
        signature.as_ref().try_into().map_err(|_| Error::internal())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc8032_test_1() {
        // RFC 8032 section 7.1, TEST 1 (empty message).
        let seed = hex::decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
            .unwrap();
        let key = KeyPair::from_private_bytes(&seed).unwrap();
        assert_eq!(
            hex::encode(key.public_key().as_bytes()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
        let sig = key.sign(b"").unwrap();
        assert_eq!(
            hex::encode(sig),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155\
             5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        );
        assert!(verify_signature(key.public_key().as_bytes(), b"", &sig).unwrap());
        assert!(!verify_signature(key.public_key().as_bytes(), b"x", &sig).unwrap());
        assert_eq!(key.private_key_bytes().unwrap().as_ref(), &seed[..]);
        assert_eq!(
            verify_signature(key.public_key().as_bytes(), b"", &sig[..63])
                .unwrap_err()
                .code(),
            "INVALID_SIGNATURE_ENCODING"
        );
        assert_eq!(
            KeyPair::from_private_bytes(&seed[..31]).unwrap_err().code(),
            "INVALID_KEY_LENGTH"
        );
    }
}
