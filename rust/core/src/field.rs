//! Point decompression and the on-curve check for P-256, on fiat-crypto's formally verified
//! field arithmetic (the `fiat-crypto` crate's `p256_64`: Montgomery multiplication, squaring,
//! addition, subtraction and negation on four 64-bit limbs, generated from proofs in Coq).
//!
//! aws-lc decompresses through its generic big-number square root, which made parsing a
//! compressed key (what every stamp carries) several times slower than everything else on the
//! path; so the square root is composed here of fiat's operations (an addition chain for
//! `(p + 1) / 4`), and no field arithmetic in this crate is written by hand. What stays here is
//! the glue the proofs do not cover: the range check `x < p` (fiat's byte decoding requires it),
//! byte order, and the chain's exponent. The tests and the `public_key` fuzz target compare
//! both functions with aws-lc's own point decoding (accept or reject, and the point), which stays
//! the oracle. Only public data goes through here (a public key's coordinates).

use fiat_crypto::p256_64::{
    fiat_p256_add, fiat_p256_from_bytes, fiat_p256_from_montgomery,
    fiat_p256_montgomery_domain_field_element as Montgomery, fiat_p256_mul,
    fiat_p256_non_montgomery_domain_field_element as Plain, fiat_p256_opp, fiat_p256_square,
    fiat_p256_sub, fiat_p256_to_bytes, fiat_p256_to_montgomery,
};

/// p = 2^256 - 2^224 + 2^192 + 2^96 - 1 (SEC 2, section 2.4.2), big-endian.
const P: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
];

/// The curve coefficient b (SEC 2, section 2.4.2), big-endian.
const B: [u8; 32] = [
    0x5a, 0xc6, 0x35, 0xd8, 0xaa, 0x3a, 0x93, 0xe7, 0xb3, 0xeb, 0xbd, 0x55, 0x76, 0x98, 0x86, 0xbc,
    0x65, 0x1d, 0x06, 0xb0, 0xcc, 0x53, 0xb0, 0xf6, 0x3b, 0xce, 0x3c, 0x3e, 0x27, 0xd2, 0x60, 0x4b,
];

/// A field element in fiat's Montgomery form, always fully reduced (fiat's postcondition), so
/// equal values have equal limbs.
#[derive(Clone, Copy)]
struct Fe(Montgomery);

impl PartialEq for Fe {
    fn eq(&self, other: &Self) -> bool {
        self.0 .0 == other.0 .0
    }
}

impl Fe {
    /// Parses a big-endian integer, refusing values >= p (fiat's decoding requires x < p).
    /// Equal-length big-endian byte strings compare as the numbers they encode.
    fn from_be_bytes(bytes: &[u8; 32]) -> Option<Self> {
        if *bytes >= P {
            return None;
        }
        let mut le = *bytes;
        le.reverse();
        let mut limbs = [0u64; 4];
        fiat_p256_from_bytes(&mut limbs, &le);
        let mut out = Montgomery([0; 4]);
        fiat_p256_to_montgomery(&mut out, &Plain(limbs));
        Some(Self(out))
    }

    fn to_be_bytes(self) -> [u8; 32] {
        let mut plain = Plain([0; 4]);
        fiat_p256_from_montgomery(&mut plain, &self.0);
        let mut out = [0u8; 32];
        fiat_p256_to_bytes(&mut out, &plain.0);
        out.reverse();
        out
    }

    fn add(self, other: Self) -> Self {
        let mut out = Montgomery([0; 4]);
        fiat_p256_add(&mut out, &self.0, &other.0);
        Self(out)
    }

    fn sub(self, other: Self) -> Self {
        let mut out = Montgomery([0; 4]);
        fiat_p256_sub(&mut out, &self.0, &other.0);
        Self(out)
    }

    fn neg(self) -> Self {
        let mut out = Montgomery([0; 4]);
        fiat_p256_opp(&mut out, &self.0);
        Self(out)
    }

    fn mul(self, other: Self) -> Self {
        let mut out = Montgomery([0; 4]);
        fiat_p256_mul(&mut out, &self.0, &other.0);
        Self(out)
    }

    fn square(self) -> Self {
        self.square_n(1)
    }

    /// self^(2^n). The one place that calls fiat's squaring, so the compiler inlines it into
    /// this loop and the limbs stay in registers from one squaring to the next: the square root
    /// is 253 dependent squarings, and when each went through a separate call with its result
    /// copied out (a fold over `square`), the copies stalled on store forwarding and took a
    /// quarter of a decompression.
    fn square_n(self, n: usize) -> Self {
        let mut cur = self.0;
        for _ in 0..n {
            let mut out = Montgomery([0; 4]);
            fiat_p256_square(&mut out, &cur);
            cur = out;
        }
        Self(cur)
    }

    /// A square root candidate: self^((p+1)/4), since p = 3 mod 4. The caller checks it.
    ///
    /// (p+1)/4 = 2^94 * ((2^32 - 1) * 2^128 + 2^96 + 1): 253 squarings and 7 multiplications.
    fn sqrt_candidate(self) -> Self {
        let x2 = self.square().mul(self); // 2^2 - 1
        let x4 = x2.square_n(2).mul(x2); // 2^4 - 1
        let x8 = x4.square_n(4).mul(x4); // 2^8 - 1
        let x16 = x8.square_n(8).mul(x8); // 2^16 - 1
        let x32 = x16.square_n(16).mul(x16); // 2^32 - 1
        let r = x32.square_n(32).mul(self); // (2^32 - 1) * 2^32 + 1
        let r = r.square_n(96).mul(self); // (2^32 - 1) * 2^128 + 2^96 + 1
        r.square_n(94)
    }
}

/// x^3 - 3x + b for x below p, or None when x >= p.
fn curve_rhs(x: &[u8; 32]) -> Option<Fe> {
    let x = Fe::from_be_bytes(x)?;
    let b = Fe::from_be_bytes(&B)?;
    let three_x = x.add(x).add(x);
    Some(x.square().mul(x).sub(three_x).add(b))
}

/// Given x (big-endian) and the parity of y, returns y for the point on P-256, or None when x is
/// not below p or x^3 - 3x + b has no square root (no point has that x).
pub fn decompress_y(x: &[u8; 32], y_is_odd: bool) -> Option<[u8; 32]> {
    let rhs = curve_rhs(x)?;
    let y = rhs.sqrt_candidate();
    if y.square() != rhs {
        return None;
    }
    let bytes = y.to_be_bytes();
    if (bytes[31] & 1 == 1) == y_is_odd {
        Some(bytes)
    } else {
        Some(y.neg().to_be_bytes())
    }
}

/// True when (x, y) is a point of P-256: both coordinates below p and y^2 = x^3 - 3x + b. The
/// identity has no affine coordinates, so it never passes.
pub fn is_on_curve(x: &[u8; 32], y: &[u8; 32]) -> bool {
    match (curve_rhs(x), Fe::from_be_bytes(y)) {
        (Some(rhs), Some(y)) => y.square() == rhs,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn be(text: &str) -> [u8; 32] {
        hex::decode(text).unwrap().try_into().unwrap()
    }

    #[test]
    fn bytes_round_trip_and_range() {
        for text in [
            "0000000000000000000000000000000000000000000000000000000000000000",
            "0000000000000000000000000000000000000000000000000000000000000007",
            "ffffffff00000001000000000000000000000000fffffffffffffffffffffffe",
            "1200000000000000000000000000000000000000000000000000000000000007",
        ] {
            assert_eq!(
                Fe::from_be_bytes(&be(text)).unwrap().to_be_bytes(),
                be(text)
            );
        }
        assert!(Fe::from_be_bytes(&P).is_none());
        assert!(Fe::from_be_bytes(&[0xff; 32]).is_none());
    }

    #[test]
    fn generator_decompresses() {
        let gx = be("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296");
        let gy = be("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5");
        assert_eq!(decompress_y(&gx, true), Some(gy));
        let neg = decompress_y(&gx, false).unwrap();
        assert_ne!(neg, gy);
        assert!(is_on_curve(&gx, &gy) && is_on_curve(&gx, &neg));
    }
}
