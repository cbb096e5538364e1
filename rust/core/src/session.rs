//! `encryptedSessionSigningKey` (formats.md section 3): the server seals a fresh session key to
//! the client's uncompressed clientPublicKey; the client opens it.
//!
//! Wire form: `base58check(compressed enc (33) || AES-256-GCM ciphertext of the 32-byte scalar
//! with its 16-byte tag)`, 81 bytes before base58check, sealed in the HPKE profile of section 1.

use crate::base58;
use crate::error::{Error, Result};
use crate::hpke::{self, Aad, PROFILE_INFO};
use crate::p256::{KeyPair, PublicKey, COMPRESSED_LEN, SCALAR_LEN};
use crate::primitives::TAG_LEN;

/// The decoded length of an encryptedSessionSigningKey.
pub const SEALED_LEN: usize = COMPRESSED_LEN + SCALAR_LEN + TAG_LEN;
/// The longest base58check text of SEALED_LEN bytes (plus the 4-byte checksum, leading zeros
/// included: one character per zero byte at worst).
const MAX_TEXT_LEN: usize = 117;

/// Server side: seals `session_key` to the client's uncompressed public key (SEC1 bytes).
/// A compressed key is the client-held-key flow, in which there is nothing to seal.
pub fn seal_session_key(client_public_key: &[u8], session_key: &KeyPair) -> Result<String> {
    if client_public_key.len() == COMPRESSED_LEN && matches!(client_public_key[0], 0x02 | 0x03) {
        return Err(Error::client_held_key());
    }
    let client = PublicKey::from_sec1(client_public_key)?;
    let scalar = session_key.private_key_bytes()?;
    let (enc, ciphertext) = hpke::seal(&client, PROFILE_INFO, Aad::Profile, scalar.as_ref())?;
    let enc = PublicKey::from_sec1(&enc)?.compressed();
    let mut sealed = Vec::with_capacity(SEALED_LEN);
    sealed.extend_from_slice(&enc);
    sealed.extend_from_slice(&ciphertext);
    Ok(base58::check_encode(&sealed))
}

/// Client side: opens an encryptedSessionSigningKey with the client's key.
pub fn open_session_key(encrypted: &str, client_key: &KeyPair) -> Result<KeyPair> {
    // base58 decoding is quadratic: refuse text far longer than 81 bytes can encode to before
    // decoding it (85 bytes with the checksum are at most 117 characters).
    if encrypted.len() > MAX_TEXT_LEN {
        return Err(Error::length(format!(
            "an encryptedSessionSigningKey is at most {MAX_TEXT_LEN} characters, got {}",
            encrypted.len()
        )));
    }
    let sealed = base58::check_decode(encrypted)?;
    if sealed.len() != SEALED_LEN {
        return Err(Error::length(format!(
            "an encryptedSessionSigningKey decodes to {SEALED_LEN} bytes, got {}",
            sealed.len()
        )));
    }
    let (enc, ciphertext) = sealed.split_at(COMPRESSED_LEN);
    let scalar = hpke::open(client_key, enc, PROFILE_INFO, Aad::Profile, ciphertext)?;
    KeyPair::from_private_bytes(&scalar)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_client_held_key() {
        let client = KeyPair::generate().unwrap();
        let session = KeyPair::generate().unwrap();
        let sealed = seal_session_key(client.public_key().uncompressed(), &session).unwrap();
        let opened = open_session_key(&sealed, &client).unwrap();
        assert_eq!(opened.public_key(), session.public_key());
        let err = seal_session_key(&client.public_key().compressed(), &session).unwrap_err();
        assert_eq!(err.code(), "CLIENT_HELD_KEY");
        let other = KeyPair::generate().unwrap();
        assert_eq!(
            open_session_key(&sealed, &other).unwrap_err().code(),
            "DECRYPTION_FAILED"
        );
    }

    #[test]
    fn malformed_inputs() {
        let client = KeyPair::generate().unwrap();
        let session = KeyPair::generate().unwrap();
        let mut not_a_key = client.public_key().compressed();
        not_a_key[0] = 0x05;
        assert_eq!(
            seal_session_key(&not_a_key, &session).unwrap_err().code(),
            "INVALID_KEY_PREFIX"
        );
        let too_long = "2".repeat(MAX_TEXT_LEN + 1);
        assert_eq!(
            open_session_key(&too_long, &client).unwrap_err().code(),
            "INVALID_LENGTH"
        );
        let short = base58::check_encode(&[1u8; SEALED_LEN - 1]);
        assert_eq!(
            open_session_key(&short, &client).unwrap_err().code(),
            "INVALID_LENGTH"
        );
    }
}
