//! base58 (Bitcoin alphabet) and base58check: payload || first 4 bytes of SHA-256(SHA-256(payload)),
//! no version byte (formats.md section 3). Decoding is strict: no whitespace, nothing outside the
//! alphabet, and the checksum must match.
//!
//! The conversion works on limbs, not single digits: encoding reads the input 32 bits at a time
//! into base-58^5 limbs, and decoding reads five characters at a time into 32-bit limbs, which
//! cuts the quadratic work about twentyfold against digit-at-a-time codecs. Every session key
//! crosses the wire in base58check, so this is on the hot path. The `bs58` crate is the oracle in
//! the tests.
//!
//! Decoding is quadratic in the length, so `decode` and `check_decode` refuse text longer than
//! [`MAX_DECODE_CHARS`] (8192 characters, about 6 KB decoded) with `INVALID_BASE58` before any
//! arithmetic: a session key is about 50 characters and a sealed one about 150, and at the cap a
//! decode takes well under a millisecond, where 1 MB of text would take seconds.

use crate::error::{Error, Result};
use crate::primitives::sha256;

pub const CHECKSUM_LEN: usize = 4;
/// The longest text `decode` and `check_decode` accept, in characters (bytes: the alphabet is
/// ASCII). Longer text is `INVALID_BASE58` before any work; encoding has no cap.
pub const MAX_DECODE_CHARS: usize = 8192;

const ALPHABET: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/// 58^5, the largest power of 58 below 2^32.
const LIMB_BASE: u64 = 58 * 58 * 58 * 58 * 58;
const LIMB_DIGITS: usize = 5;
const INVALID: u8 = 0xff;

/// The value of each ASCII character in the alphabet, or INVALID.
const DIGIT_OF: [u8; 128] = {
    let mut table = [INVALID; 128];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

pub fn encode(data: &[u8]) -> String {
    let zeros = data.iter().take_while(|&&b| b == 0).count();
    let rest = &data[zeros..];
    // The number in base 58^5, least significant limb first.
    let mut limbs: Vec<u64> = Vec::with_capacity(rest.len() * 138 / 100 / LIMB_DIGITS + 2);
    // Leading partial word first, so every later word is a full 32 bits.
    let head = rest.len() % 4;
    let (first, words) = rest.split_at(head);
    let mut feed = |word: u64, shift: u32| {
        let mut carry = word;
        for limb in limbs.iter_mut() {
            let x = (*limb << shift) | carry;
            *limb = x % LIMB_BASE;
            carry = x / LIMB_BASE;
        }
        while carry > 0 {
            limbs.push(carry % LIMB_BASE);
            carry /= LIMB_BASE;
        }
    };
    if !first.is_empty() {
        feed(be_word(first), 8 * head as u32);
    }
    for word in words.chunks_exact(4) {
        feed(be_word(word), 32);
    }

    let mut digits = Vec::with_capacity(zeros + limbs.len() * LIMB_DIGITS);
    for mut limb in limbs.iter().copied() {
        for _ in 0..LIMB_DIGITS {
            digits.push(ALPHABET[(limb % 58) as usize]);
            limb /= 58;
        }
    }
    while digits.last() == Some(&ALPHABET[0]) {
        digits.pop();
    }
    digits.extend(std::iter::repeat_n(ALPHABET[0], zeros));
    digits.reverse();
    // Every byte pushed comes from ALPHABET, which is ASCII.
    String::from_utf8(digits).unwrap_or_default()
}

fn be_word(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Decode base58 text of at most [`MAX_DECODE_CHARS`] characters.
pub fn decode(text: &str) -> Result<Vec<u8>> {
    let text = text.as_bytes();
    if text.len() > MAX_DECODE_CHARS {
        return Err(Error::base58(
            "base58 text is longer than the 8192-character cap",
        ));
    }
    let mut values = Vec::with_capacity(text.len());
    for &c in text {
        let digit = DIGIT_OF.get(usize::from(c)).copied().unwrap_or(INVALID);
        if digit == INVALID {
            return Err(Error::base58(
                "text contains a character outside the base58 alphabet",
            ));
        }
        values.push(digit);
    }
    let ones = values.iter().take_while(|&&d| d == 0).count();
    let rest = &values[ones..];
    // The number in base 2^32, least significant limb first.
    let mut limbs: Vec<u64> = Vec::with_capacity(rest.len() * 733 / 1000 / 4 + 2);
    let head = rest.len() % LIMB_DIGITS;
    let (first, groups) = rest.split_at(head);
    let mut feed = |value: u64, multiplier: u64| {
        let mut carry = value;
        for limb in limbs.iter_mut() {
            let x = *limb * multiplier + carry;
            *limb = x & 0xffff_ffff;
            carry = x >> 32;
        }
        while carry > 0 {
            limbs.push(carry & 0xffff_ffff);
            carry >>= 32;
        }
    };
    if !first.is_empty() {
        feed(base58_group(first), 58u64.pow(head as u32));
    }
    for group in groups.chunks_exact(LIMB_DIGITS) {
        feed(base58_group(group), LIMB_BASE);
    }

    let mut out = Vec::with_capacity(ones + limbs.len() * 4);
    out.resize(ones, 0);
    let mut significant = false;
    for limb in limbs.iter().rev() {
        for byte in (*limb as u32).to_be_bytes() {
            significant |= byte != 0;
            if significant {
                out.push(byte);
            }
        }
    }
    Ok(out)
}

fn base58_group(digits: &[u8]) -> u64 {
    digits.iter().fold(0u64, |acc, &d| acc * 58 + u64::from(d))
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

/// Decode base58check text (at most [`MAX_DECODE_CHARS`] characters) and return the payload.
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
        assert_eq!(check_decode("é").unwrap_err().code(), "INVALID_BASE58");
        let mut tampered = text.into_bytes();
        let last = tampered.len() - 1;
        tampered[last] = if tampered[last] == b'2' { b'3' } else { b'2' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(
            check_decode(&tampered).unwrap_err().code(),
            "INVALID_CHECKSUM"
        );
    }

    /// The `bs58` crate is the oracle: same text for every input, same bytes back.
    #[test]
    fn matches_bs58_on_random_inputs() {
        use aws_lc_rs::rand::{SecureRandom, SystemRandom};
        let rng = SystemRandom::new();
        for len in 0..300 {
            for zeros in [0usize, 1, 3] {
                let mut data = vec![0u8; len];
                rng.fill(&mut data).unwrap();
                for byte in data.iter_mut().take(zeros) {
                    *byte = 0;
                }
                if len % 7 == 0 {
                    data.iter_mut().skip(zeros).for_each(|b| *b = 0xff);
                }
                let text = encode(&data);
                assert_eq!(text, bs58::encode(&data).into_string(), "{data:?}");
                assert_eq!(decode(&text).unwrap(), data);
            }
        }
        for text in ["", "1", "11", "z", "zzzzzz", "2", "1z1"] {
            assert_eq!(
                decode(text).unwrap(),
                bs58::decode(text).into_vec().unwrap()
            );
        }
    }

    #[test]
    fn decoding_is_capped_at_max_decode_chars() {
        let at_cap = "2".repeat(MAX_DECODE_CHARS);
        assert_eq!(
            decode(&at_cap).unwrap(),
            bs58::decode(&at_cap).into_vec().unwrap()
        );
        let start = std::time::Instant::now();
        for len in [MAX_DECODE_CHARS + 1, 1 << 20] {
            let text = "2".repeat(len);
            assert_eq!(decode(&text).unwrap_err().code(), "INVALID_BASE58");
            assert_eq!(check_decode(&text).unwrap_err().code(), "INVALID_BASE58");
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }
}
