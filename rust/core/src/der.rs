//! Strict DER for ECDSA signatures: `SEQUENCE { INTEGER r, INTEGER s }` (SEC 1 / RFC 3279).
//!
//! Only the distinguished encoding is accepted: short-form lengths (a P-256 signature is at most
//! 72 bytes, so a long form is never minimal), minimal positive integers, no trailing bytes.
//! Whether r and s are in [1, n-1] is left to the verifier: an out-of-range value (zero, n, or
//! wider than 256 bits) is well-formed but does not verify.

use crate::error::{Error, Result};

const TAG_SEQUENCE: u8 = 0x30;
const TAG_INTEGER: u8 = 0x02;
/// Big-endian size of a P-256 scalar.
pub const SCALAR_LEN: usize = 32;

/// Splits a strict-DER ECDSA signature into the magnitudes of r and s (no leading zeros).
pub fn parse_signature(der: &[u8]) -> Result<(&[u8], &[u8])> {
    let (tag, body, rest) = read_tlv(der)?;
    if tag != TAG_SEQUENCE {
        return Err(Error::signature_encoding("signature is not a DER SEQUENCE"));
    }
    if !rest.is_empty() {
        return Err(Error::signature_encoding(
            "signature has trailing bytes after the DER SEQUENCE",
        ));
    }
    let (r, body) = read_integer(body)?;
    let (s, body) = read_integer(body)?;
    if !body.is_empty() {
        return Err(Error::signature_encoding(
            "signature SEQUENCE has bytes after s",
        ));
    }
    Ok((r, s))
}

/// Converts a fixed-width IEEE P1363 signature (r || s, 64 bytes) to DER.
pub fn p1363_to_der(signature: &[u8]) -> Result<Vec<u8>> {
    if signature.len() != 2 * SCALAR_LEN {
        return Err(Error::signature_encoding(
            "a P1363 signature must be 64 bytes (r || s)",
        ));
    }
    let (r, s) = signature.split_at(SCALAR_LEN);
    let r = encode_integer(r);
    let s = encode_integer(s);
    let mut out = Vec::with_capacity(2 + r.len() + s.len());
    out.push(TAG_SEQUENCE);
    out.push(u8::try_from(r.len() + s.len()).map_err(|_| Error::internal())?);
    out.extend_from_slice(&r);
    out.extend_from_slice(&s);
    Ok(out)
}

/// Converts a strict-DER ECDSA P-256 signature to fixed-width IEEE P1363 (r || s, 64 bytes).
/// r or s wider than 32 bytes is an encoding error; their range is the verifier's check.
pub fn der_to_p1363(der: &[u8]) -> Result<[u8; 2 * SCALAR_LEN]> {
    let (r, s) = parse_signature(der)?;
    if r.len() > SCALAR_LEN || s.len() > SCALAR_LEN {
        return Err(Error::signature_encoding(
            "a P-256 signature's r and s are at most 32 bytes",
        ));
    }
    let mut out = [0u8; 2 * SCALAR_LEN];
    out[SCALAR_LEN - r.len()..SCALAR_LEN].copy_from_slice(r);
    out[2 * SCALAR_LEN - s.len()..].copy_from_slice(s);
    Ok(out)
}

fn encode_integer(magnitude: &[u8]) -> Vec<u8> {
    let first_nonzero = magnitude
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(magnitude.len() - 1);
    let trimmed = &magnitude[first_nonzero..];
    let pad = trimmed[0] & 0x80 != 0;
    let mut out = Vec::with_capacity(3 + trimmed.len());
    out.push(TAG_INTEGER);
    out.push((trimmed.len() + usize::from(pad)) as u8);
    if pad {
        out.push(0);
    }
    out.extend_from_slice(trimmed);
    out
}

/// Reads one tag-length-value with a short-form length; returns (tag, value, rest).
fn read_tlv(input: &[u8]) -> Result<(u8, &[u8], &[u8])> {
    let [tag, len, rest @ ..] = input else {
        return Err(Error::signature_encoding("signature DER is truncated"));
    };
    if len & 0x80 != 0 {
        return Err(Error::signature_encoding(
            "signature DER uses a long-form length where the short form is required",
        ));
    }
    let len = usize::from(*len);
    if rest.len() < len {
        return Err(Error::signature_encoding("signature DER is truncated"));
    }
    let (value, rest) = rest.split_at(len);
    Ok((*tag, value, rest))
}

fn read_integer(input: &[u8]) -> Result<(&[u8], &[u8])> {
    let (tag, value, rest) = read_tlv(input)?;
    if tag != TAG_INTEGER {
        return Err(Error::signature_encoding(
            "signature component is not a DER INTEGER",
        ));
    }
    match value {
        [] => Err(Error::signature_encoding("signature INTEGER is empty")),
        [first, ..] if first & 0x80 != 0 => {
            Err(Error::signature_encoding("signature INTEGER is negative"))
        }
        [0, second, ..] if second & 0x80 == 0 => Err(Error::signature_encoding(
            "signature INTEGER has a non-minimal leading zero",
        )),
        _ => {
            // A value above n is well-formed DER; the verifier rejects it as out of range.
            let magnitude = value
                .strip_prefix(&[0])
                .filter(|m| !m.is_empty())
                .unwrap_or(value);
            Ok((magnitude, rest))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_p1363() {
        let mut fixed = [0u8; 64];
        fixed[0] = 0x80;
        fixed[63] = 1;
        let der = p1363_to_der(&fixed).unwrap();
        let (r, s) = parse_signature(&der).unwrap();
        assert_eq!(r, &fixed[..32]);
        assert_eq!(s, &[1]);
        assert_eq!(der_to_p1363(&der).unwrap(), fixed);
        let zero = [0u8; 64];
        assert_eq!(der_to_p1363(&p1363_to_der(&zero).unwrap()).unwrap(), zero);
        let wide = [
            0x30, 0x26, 0x02, 0x21, 0x01, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
            1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0x02, 0x01, 0x01,
        ];
        assert_eq!(
            der_to_p1363(&wide).unwrap_err().code(),
            "INVALID_SIGNATURE_ENCODING"
        );
    }

    #[test]
    fn rejects_non_minimal_forms() {
        let good = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01];
        assert!(parse_signature(&good).is_ok());
        let long_form = [0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01];
        let leading_zero = [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01];
        let negative = [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01];
        let mut trailing = good.to_vec();
        trailing.push(0);
        for bad in [
            &long_form[..],
            &leading_zero,
            &negative,
            &trailing,
            &good[..7],
            &[],
        ] {
            let err = parse_signature(bad).unwrap_err();
            assert_eq!(err.code(), "INVALID_SIGNATURE_ENCODING");
        }
    }
}
