//! The symmetric primitives HPKE is built from, on aws-lc-rs: SHA-256, HKDF-SHA256 (RFC 5869)
//! and AES-GCM with 96-bit nonces. HKDF-Extract is done as an HMAC so that the PRK is available
//! as bytes for RFC 9180's labeled steps; every PRK and derived key sits in a [`Zeroizing`] buffer.

use std::sync::OnceLock;

use aws_lc_rs::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey, NONCE_LEN};
use aws_lc_rs::{digest, hmac};
use zeroize::Zeroizing;

use crate::error::{Error, Result};

/// Hash output size of SHA-256 (RFC 9180 `Nh` for HKDF-SHA256).
pub const HASH_LEN: usize = 32;
/// AES-GCM tag size (RFC 9180 `Nt`).
pub const TAG_LEN: usize = 16;
/// HKDF-Expand output limit (RFC 5869 section 2.3).
pub const HKDF_MAX_OUTPUT: usize = 255 * HASH_LEN;

pub fn sha256(data: &[u8]) -> [u8; HASH_LEN] {
    let mut out = [0u8; HASH_LEN];
    out.copy_from_slice(digest::digest(&digest::SHA256, data).as_ref());
    out
}

/// HKDF-Extract(salt, IKM) over the concatenation of `ikm_parts`.
pub fn hkdf_extract(salt: &[u8], ikm_parts: &[&[u8]]) -> Zeroizing<[u8; HASH_LEN]> {
    let mut ctx = if salt.is_empty() {
        // RFC 9180 extracts with an empty salt (the KEM's shared secret, DeriveKeyPair, the
        // key-schedule hashes): HMAC's key setup for it (two SHA-256 blocks) is done once.
        static EMPTY_SALT: OnceLock<hmac::Key> = OnceLock::new();
        hmac::Context::with_key(EMPTY_SALT.get_or_init(|| hmac::Key::new(hmac::HMAC_SHA256, b"")))
    } else {
        hmac::Context::with_key(&hmac::Key::new(hmac::HMAC_SHA256, salt))
    };
    for part in ikm_parts {
        ctx.update(part);
    }
    let mut prk = Zeroizing::new([0u8; HASH_LEN]);
    prk.copy_from_slice(ctx.sign().as_ref());
    prk
}

/// A PRK ready for HKDF-Expand: HMAC's key setup done once for every expansion from it (aws-lc
/// wipes the HMAC state when it is dropped).
pub struct Prk(hmac::Key);

impl Prk {
    pub fn new(prk: &[u8]) -> Self {
        Self(hmac::Key::new(hmac::HMAC_SHA256, prk))
    }

    /// HKDF-Expand(PRK, info, L) with `info` the concatenation of `info_parts`, filling `out`.
    pub fn expand(&self, info_parts: &[&[u8]], out: &mut [u8]) -> Result<()> {
        check_hkdf_output_len(out.len())?;
        let mut previous = Zeroizing::new([0u8; HASH_LEN]);
        for (index, chunk) in out.chunks_mut(HASH_LEN).enumerate() {
            let mut ctx = hmac::Context::with_key(&self.0);
            if index > 0 {
                ctx.update(previous.as_ref());
            }
            for part in info_parts {
                ctx.update(part);
            }
            // index < 255 by the length check above.
            ctx.update(&[(index + 1) as u8]);
            previous.copy_from_slice(ctx.sign().as_ref());
            chunk.copy_from_slice(&previous[..chunk.len()]);
        }
        Ok(())
    }
}

/// HKDF-Expand(PRK, info, L) with `info` the concatenation of `info_parts`, filling `out`.
pub fn hkdf_expand(prk: &[u8], info_parts: &[&[u8]], out: &mut [u8]) -> Result<()> {
    check_hkdf_output_len(out.len())?;
    Prk::new(prk).expand(info_parts, out)
}

/// Checks an HKDF-Expand output length before anything is allocated for it.
pub fn check_hkdf_output_len(len: usize) -> Result<()> {
    if len > HKDF_MAX_OUTPUT {
        return Err(Error::length(format!(
            "HKDF-SHA256 output is limited to {HKDF_MAX_OUTPUT} bytes, {len} requested"
        )));
    }
    Ok(())
}

/// An AES-GCM key (128 or 256 bits) for 96-bit nonces and 128-bit tags.
pub struct AesGcm {
    key: LessSafeKey,
}

impl AesGcm {
    pub fn new(key: &[u8]) -> Result<Self> {
        let algorithm = match key.len() {
            16 => &aead::AES_128_GCM,
            32 => &aead::AES_256_GCM,
            len => {
                return Err(Error::length(format!(
                    "AES-GCM key must be 16 or 32 bytes, got {len}"
                )))
            }
        };
        let key = UnboundKey::new(algorithm, key).map_err(|_| Error::internal())?;
        Ok(Self {
            key: LessSafeKey::new(key),
        })
    }

    fn nonce(nonce: &[u8]) -> Result<Nonce> {
        Nonce::try_assume_unique_for_key(nonce)
            .map_err(|_| Error::length(format!("AES-GCM nonce must be {NONCE_LEN} bytes")))
    }

    /// Encrypts and returns ciphertext || tag.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
        let nonce = Self::nonce(nonce)?;
        let mut in_out = Vec::with_capacity(plaintext.len() + TAG_LEN);
        in_out.extend_from_slice(plaintext);
        self.key
            .seal_in_place_append_tag(nonce, Aad::from(aad), &mut in_out)
            .map_err(|_| Error::internal())?;
        Ok(in_out)
    }

    /// Decrypts ciphertext || tag; any failure is the one generic decryption error.
    pub fn open(&self, nonce: &[u8], aad: &[u8], ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let nonce = Self::nonce(nonce)?;
        let mut in_out = Zeroizing::new(ciphertext.to_vec());
        let len = self
            .key
            .open_in_place(nonce, Aad::from(aad), &mut in_out)
            .map_err(|_| Error::decryption())?
            .len();
        in_out.truncate(len);
        Ok(in_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hkdf_rfc5869_case_1() {
        let ikm = [0x0b; 22];
        let salt: Vec<u8> = (0x00..=0x0c).collect();
        let info: Vec<u8> = (0xf0..=0xf9).collect();
        let prk = hkdf_extract(&salt, &[&ikm]);
        assert_eq!(
            hex::encode(prk.as_ref()),
            "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"
        );
        let mut okm = [0u8; 42];
        hkdf_expand(prk.as_ref(), &[&info], &mut okm).unwrap();
        assert_eq!(
            hex::encode(okm),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        );
    }

    #[test]
    fn aes_gcm_rejects_tampering() {
        let key = AesGcm::new(&[7u8; 32]).unwrap();
        let mut sealed = key.seal(&[1u8; 12], b"aad", b"hello").unwrap();
        assert_eq!(
            key.open(&[1u8; 12], b"aad", &sealed).unwrap().as_slice(),
            b"hello"
        );
        sealed[0] ^= 1;
        assert_eq!(
            key.open(&[1u8; 12], b"aad", &sealed).unwrap_err().code(),
            "DECRYPTION_FAILED"
        );
    }

    #[test]
    fn aes_gcm_length_negatives() {
        assert_eq!(
            AesGcm::new(&[0u8; 24]).err().unwrap().code(),
            "INVALID_LENGTH"
        );
        let key = AesGcm::new(&[7u8; 16]).unwrap();
        assert_eq!(
            key.seal(&[0u8; 8], b"", b"x").unwrap_err().code(),
            "INVALID_LENGTH"
        );
        assert_eq!(
            key.open(&[0u8; 16], b"", &[0u8; 17]).unwrap_err().code(),
            "INVALID_LENGTH"
        );
    }
}
