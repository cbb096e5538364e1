//! base58 (Bitcoin alphabet) and base58check: payload || first 4 bytes of SHA-256(SHA-256(payload)),
//! no version byte (FORMATS.md section 3). Decoding is strict: no whitespace, nothing outside the
//! alphabet, and the checksum must match.

use crate::error::{Error, Result};
use crate::primitives::sha256;

pub const CHECKSUM_LEN: usize = 4;

pub fn encode(data: &[u8]) -> String {
    bs58::encode(data).into_string()
}

pub fn decode(text: &str) -> Result<Vec<u8>> {
    bs58::decode(text).into_vec().map_err(|err| match err {
        bs58::decode::Error::InvalidCharacter { .. }
        | bs58::decode::Error::NonAsciiCharacter { .. } => {
            Error::base58("text contains a character outside the base58 alphabet")
        }
        _ => Error::base58("text is not valid base58"),
    })
}

fn checksum(payload: &[u8]) -> [u8; CHECKSUM_LEN] {
    let digest = sha256(&sha256(payload));
    let mut out = [0u8; CHECKSUM_LEN];
    out.copy_from_slice(&digest[..CHECKSUM_LEN]);
    out
}

pub fn check_encode(payload: &[u8]) -> String {
    let mut data = Vec::with_capacity(payload.len() + CHECKSUM_LEN);
    data.extend_from_slice(payload);
    data.extend_from_slice(&checksum(payload));
    encode(&data)
}

pub fn check_decode(text: &str) -> Result<Vec<u8>> {
    let mut data = decode(text)?;
    if data.len() < CHECKSUM_LEN {
        return Err(Error::checksum(
            "base58check text is shorter than its 4-byte checksum",
        ));
    }
    let payload_len = data.len() - CHECKSUM_LEN;
    if data[payload_len..] != checksum(&data[..payload_len]) {
        return Err(Error::checksum("base58check checksum does not match"));
    }
    data.truncate(payload_len);
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_round_trip_and_strictness() {
        let text = check_encode(&[0, 0, 1, 2, 3]);
        assert!(text.starts_with("11"));
        assert_eq!(check_decode(&text).unwrap(), vec![0, 0, 1, 2, 3]);
        assert_eq!(
            check_decode(&format!(" {text}")).unwrap_err().code(),
            "INVALID_BASE58"
        );
        assert_eq!(check_decode("0OIl").unwrap_err().code(), "INVALID_BASE58");
        assert_eq!(check_decode("1").unwrap_err().code(), "INVALID_CHECKSUM");
        let mut tampered = text.into_bytes();
        let last = tampered.len() - 1;
        tampered[last] = if tampered[last] == b'2' { b'3' } else { b'2' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(
            check_decode(&tampered).unwrap_err().code(),
            "INVALID_CHECKSUM"
        );
    }
}
