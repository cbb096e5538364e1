//! Point decompression for P-256: y = sqrt(x^3 - 3x + b) mod p, in Montgomery arithmetic on four
//! 64-bit limbs.
//!
//! aws-lc decompresses through its generic big-number square root, which made parsing a
//! compressed key (what every stamp carries) several times slower than everything else on the
//! path. Only public data goes through here (a public key's x), so it need not be constant time;
//! the field arithmetic selects with masks all the same, because data-dependent branches there
//! mispredict on distinct keys and cost more than the masks (only the final checks branch). The tests check it against aws-lc's own decompression, which stays the oracle.

/// p = 2^256 - 2^224 + 2^192 + 2^96 - 1 (SEC 2, section 2.4.2), little-endian 64-bit limbs.
const P: [u64; 4] = [
    0xffff_ffff_ffff_ffff,
    0x0000_0000_ffff_ffff,
    0x0000_0000_0000_0000,
    0xffff_ffff_0000_0001,
];
/// R^2 mod p with R = 2^256, to enter the Montgomery domain.
const R2: [u64; 4] = [
    0x0000_0000_0000_0003,
    0xffff_fffb_ffff_ffff,
    0xffff_ffff_ffff_fffe,
    0x0000_0004_ffff_fffd,
];
/// The curve coefficient b (SEC 2, section 2.4.2), big-endian.
const B: [u8; 32] = [
    0x5a, 0xc6, 0x35, 0xd8, 0xaa, 0x3a, 0x93, 0xe7, 0xb3, 0xeb, 0xbd, 0x55, 0x76, 0x98, 0x86, 0xbc,
    0x65, 0x1d, 0x06, 0xb0, 0xcc, 0x53, 0xb0, 0xf6, 0x3b, 0xce, 0x3c, 0x3e, 0x27, 0xd2, 0x60, 0x4b,
];

/// A field element in Montgomery form (a * R mod p), fully reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fe([u64; 4]);

/// Returns a - b and the final borrow.
fn sub_with_borrow(a: &[u64; 4], b: &[u64; 4]) -> ([u64; 4], bool) {
    let mut out = [0u64; 4];
    let mut borrow = false;
    for i in 0..4 {
        let (d1, b1) = a[i].overflowing_sub(b[i]);
        let (d2, b2) = d1.overflowing_sub(u64::from(borrow));
        out[i] = d2;
        borrow = b1 || b2;
    }
    (out, borrow)
}

/// All ones when `bit` is set, else zero: selects without a data-dependent branch, which the
/// CPU would mispredict about half the time on distinct keys (and which would leak timing).
fn mask(bit: bool) -> u64 {
    0u64.wrapping_sub(u64::from(bit))
}

fn select(mask: u64, if_set: &[u64; 4], if_clear: &[u64; 4]) -> [u64; 4] {
    core::array::from_fn(|i| (if_set[i] & mask) | (if_clear[i] & !mask))
}

/// Reduces a value below 2p (given as limbs plus a carry bit) into [0, p).
fn reduce_once(limbs: [u64; 4], carry: bool) -> [u64; 4] {
    let (diff, borrow) = sub_with_borrow(&limbs, &P);
    select(mask(carry || !borrow), &diff, &limbs)
}

/// Montgomery reduction of a 512-bit product t < p^2: returns t / 2^256 mod p, fully reduced.
///
/// Each round adds m * p at limb i with m = t[i] (since -p^-1 = 1 mod 2^64), which clears that
/// limb. P-256's limbs make three of the four products free: m * (2^64 - 1) at limb 0 leaves
/// exactly m as the carry, so limb 1 gains m * (2^32 - 1) + m = m << 32; limb 2 of p is zero;
/// only m * (2^64 - 2^32 + 1) at limb 3 is a real multiplication. A round's carry out of limb
/// i + 4 waits for the next round, which adds at limb i + 5 anyway, instead of rippling up to the
/// top limb each time.
fn montgomery_reduce(mut t: [u64; 8]) -> Fe {
    let mut pending = 0u64;
    for i in 0..4 {
        let m = u128::from(t[i]);
        let uv = u128::from(t[i + 1]) + (m << 32);
        t[i + 1] = uv as u64;
        let uv = u128::from(t[i + 2]) + (uv >> 64);
        t[i + 2] = uv as u64;
        let uv = u128::from(t[i + 3]) + m * u128::from(P[3]) + (uv >> 64);
        t[i + 3] = uv as u64;
        let uv = u128::from(t[i + 4]) + (uv >> 64) + u128::from(pending);
        t[i + 4] = uv as u64;
        pending = (uv >> 64) as u64;
    }
    Fe(reduce_once([t[4], t[5], t[6], t[7]], pending != 0))
}

/// a + b * c + carry as (low, high) limbs; cannot overflow 128 bits.
fn mac(a: u64, b: u64, c: u64, carry: u64) -> (u64, u64) {
    let t = u128::from(a) + u128::from(b) * u128::from(c) + u128::from(carry);
    (t as u64, (t >> 64) as u64)
}

/// a + carry as (low, high) limbs.
fn add_carry(a: u64, carry: u64) -> (u64, u64) {
    let (sum, overflow) = a.overflowing_add(carry);
    (sum, u64::from(overflow))
}

impl Fe {
    /// Parses a big-endian integer, rejecting values >= p.
    fn from_be_bytes(bytes: &[u8; 32]) -> Option<Self> {
        let mut limbs = [0u64; 4];
        for (i, chunk) in bytes.rchunks_exact(8).enumerate() {
            limbs[i] = u64::from_be_bytes(chunk.try_into().ok()?);
        }
        let (_, borrow) = sub_with_borrow(&limbs, &P);
        borrow.then(|| Self(limbs).mul(&Self(R2)))
    }

    fn to_be_bytes(self) -> [u8; 32] {
        let plain = self.mul(&Self([1, 0, 0, 0])).0;
        let mut out = [0u8; 32];
        for (i, chunk) in out.rchunks_exact_mut(8).enumerate() {
            chunk.copy_from_slice(&plain[i].to_be_bytes());
        }
        out
    }

    fn add(&self, other: &Self) -> Self {
        let mut out = [0u64; 4];
        let mut carry = false;
        for (i, limb) in out.iter_mut().enumerate() {
            let (s1, c1) = self.0[i].overflowing_add(other.0[i]);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            *limb = s2;
            carry = c1 || c2;
        }
        Self(reduce_once(out, carry))
    }

    fn sub(&self, other: &Self) -> Self {
        let (diff, borrow) = sub_with_borrow(&self.0, &other.0);
        // Wrapped below zero: add p back (the carry out cancels the borrow).
        let addend = select(mask(borrow), &P, &[0; 4]);
        let mut out = [0u64; 4];
        let mut carry = false;
        for (i, limb) in out.iter_mut().enumerate() {
            let (s1, c1) = diff[i].overflowing_add(addend[i]);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            *limb = s2;
            carry = c1 || c2;
        }
        Self(out)
    }

    fn neg(&self) -> Self {
        Self([0; 4]).sub(self)
    }

    /// Montgomery multiplication: the full 512-bit product, then [`montgomery_reduce`].
    fn mul(&self, other: &Self) -> Self {
        let (a, b) = (&self.0, &other.0);
        let mut t = [0u64; 8];
        for i in 0..4 {
            let mut carry: u128 = 0;
            for j in 0..4 {
                let uv = u128::from(t[i + j]) + u128::from(a[i]) * u128::from(b[j]) + carry;
                t[i + j] = uv as u64;
                carry = uv >> 64;
            }
            t[i + 4] = carry as u64;
        }
        montgomery_reduce(t)
    }

    /// Montgomery squaring: each cross product computed once and doubled (a sqrt is 253
    /// squarings, so this is where the time goes). Written out limb by limb: the looped form
    /// with a 128-bit carry made a decompression about 1.5 times slower.
    fn square(&self) -> Self {
        let a = &self.0;
        // The cross products a[i] * a[j], i < j, at limbs 1 to 6.
        let (t1, c) = mac(0, a[0], a[1], 0);
        let (t2, c) = mac(0, a[0], a[2], c);
        let (t3, t4) = mac(0, a[0], a[3], c);
        let (t3, c) = mac(t3, a[1], a[2], 0);
        let (t4, t5) = mac(t4, a[1], a[3], c);
        let (t5, t6) = mac(t5, a[2], a[3], 0);
        // Doubled: shifted left one bit across the limbs.
        let t7 = t6 >> 63;
        let t6 = (t6 << 1) | (t5 >> 63);
        let t5 = (t5 << 1) | (t4 >> 63);
        let t4 = (t4 << 1) | (t3 >> 63);
        let t3 = (t3 << 1) | (t2 >> 63);
        let t2 = (t2 << 1) | (t1 >> 63);
        let t1 = t1 << 1;
        // Plus the squares a[i]^2 at limbs 2i and 2i + 1.
        let (t0, c) = mac(0, a[0], a[0], 0);
        let (t1, c) = add_carry(t1, c);
        let (t2, c) = mac(t2, a[1], a[1], c);
        let (t3, c) = add_carry(t3, c);
        let (t4, c) = mac(t4, a[2], a[2], c);
        let (t5, c) = add_carry(t5, c);
        let (t6, c) = mac(t6, a[3], a[3], c);
        // The square is below 2^512, so nothing carries out of limb 7.
        let t7 = t7.wrapping_add(c);
        montgomery_reduce([t0, t1, t2, t3, t4, t5, t6, t7])
    }

    fn square_n(&self, n: usize) -> Self {
        (0..n).fold(*self, |acc, _| acc.square())
    }

    /// A square root candidate: self^((p+1)/4), since p = 3 mod 4. The caller checks it.
    ///
    /// (p+1)/4 = 2^94 * ((2^32 - 1) * 2^128 + 2^96 + 1): 253 squarings and 7 multiplications.
    fn sqrt_candidate(&self) -> Self {
        let x2 = self.square().mul(self); // 2^2 - 1
        let x4 = x2.square_n(2).mul(&x2); // 2^4 - 1
        let x8 = x4.square_n(4).mul(&x4); // 2^8 - 1
        let x16 = x8.square_n(8).mul(&x8); // 2^16 - 1
        let x32 = x16.square_n(16).mul(&x16); // 2^32 - 1
        let r = x32.square_n(32).mul(self); // (2^32 - 1) * 2^32 + 1
        let r = r.square_n(96).mul(self); // (2^32 - 1) * 2^128 + 2^96 + 1
        r.square_n(94)
    }
}

/// x^3 - 3x + b for x below p, or None when x >= p.
fn curve_rhs(x: &[u8; 32]) -> Option<Fe> {
    let x = Fe::from_be_bytes(x)?;
    let b = Fe::from_be_bytes(&B)?;
    let three_x = x.add(&x).add(&x);
    Some(x.square().mul(&x).sub(&three_x).add(&b))
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

    #[test]
    fn montgomery_round_trip() {
        let mut bytes = [0u8; 32];
        bytes[31] = 7;
        bytes[0] = 0x12;
        assert_eq!(Fe::from_be_bytes(&bytes).unwrap().to_be_bytes(), bytes);
        let p_bytes: [u8; 32] =
            hex::decode("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
                .unwrap()
                .try_into()
                .unwrap();
        assert!(Fe::from_be_bytes(&p_bytes).is_none());
    }

    #[test]
    fn square_matches_mul() {
        use aws_lc_rs::rand::{SecureRandom, SystemRandom};
        let rng = SystemRandom::new();
        let mut edge = [0xffu8; 32];
        edge[0] = 0xfe; // below p, near it
        for i in 0..5000 {
            let mut bytes = [0u8; 32];
            rng.fill(&mut bytes).unwrap();
            if i == 0 {
                bytes = edge;
            }
            if let Some(x) = Fe::from_be_bytes(&bytes) {
                assert_eq!(x.square(), x.mul(&x));
            }
        }
    }

    /// The plain (not Montgomery) product a * b mod p by double-and-add: slow, and sharing
    /// nothing with the multiplication it checks but the final subtraction of p.
    fn reference_mul(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        let add_mod = |x: &[u64; 4], y: &[u64; 4]| {
            let mut out = [0u64; 4];
            let mut carry = false;
            for i in 0..4 {
                let (s1, c1) = x[i].overflowing_add(y[i]);
                let (s2, c2) = s1.overflowing_add(u64::from(carry));
                out[i] = s2;
                carry = c1 || c2;
            }
            reduce_once(out, carry)
        };
        let mut acc = [0u64; 4];
        for bit in (0..256).rev() {
            acc = add_mod(&acc, &acc);
            if (b[bit / 64] >> (bit % 64)) & 1 == 1 {
                acc = add_mod(&acc, a);
            }
        }
        acc
    }

    fn limbs(bytes: &[u8; 32]) -> [u64; 4] {
        core::array::from_fn(|i| {
            u64::from_be_bytes(bytes[24 - 8 * i..32 - 8 * i].try_into().unwrap())
        })
    }

    fn be_bytes(limbs: &[u64; 4]) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, chunk) in out.rchunks_exact_mut(8).enumerate() {
            chunk.copy_from_slice(&limbs[i].to_be_bytes());
        }
        out
    }

    /// Values whose limbs sit at carry boundaries: 0, 1, 2, p - 1, p - 2, (p - 1) / 2, 2^255,
    /// 2^224, all-ones limbs below p, R mod p, and the curve's b.
    const EDGES: [&str; 11] = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000001",
        "0000000000000000000000000000000000000000000000000000000000000002",
        "ffffffff00000001000000000000000000000000fffffffffffffffffffffffe",
        "ffffffff00000001000000000000000000000000fffffffffffffffffffffffd",
        "7fffffff800000008000000000000000000000007fffffffffffffffffffffff",
        "8000000000000000000000000000000000000000000000000000000000000000",
        "0000000100000000000000000000000000000000000000000000000000000000",
        "ffffffff00000000ffffffffffffffffffffffffffffffffffffffffffffffff",
        "00000000fffffffeffffffffffffffffffffffff000000000000000000000001",
        "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
    ];

    #[test]
    fn mul_and_square_match_reference() {
        use aws_lc_rs::rand::{SecureRandom, SystemRandom};
        let rng = SystemRandom::new();
        let mut values: Vec<[u64; 4]> = EDGES
            .iter()
            .map(|h| limbs(&hex::decode(h).unwrap().try_into().unwrap()))
            .collect();
        while values.len() < 64 {
            let mut bytes = [0u8; 32];
            rng.fill(&mut bytes).unwrap();
            if Fe::from_be_bytes(&bytes).is_some() {
                values.push(limbs(&bytes));
            }
        }
        for a in &values {
            let fa = Fe::from_be_bytes(&be_bytes(a)).unwrap();
            assert_eq!(
                fa.square().to_be_bytes(),
                be_bytes(&reference_mul(a, a)),
                "{a:x?}"
            );
            for b in &values {
                let fb = Fe::from_be_bytes(&be_bytes(b)).unwrap();
                let expected = be_bytes(&reference_mul(a, b));
                assert_eq!(fa.mul(&fb).to_be_bytes(), expected, "{a:x?} * {b:x?}");
            }
        }
    }

    #[test]
    fn generator_decompresses() {
        let gx: [u8; 32] =
            hex::decode("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
                .unwrap()
                .try_into()
                .unwrap();
        let gy = "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5";
        assert_eq!(hex::encode(decompress_y(&gx, true).unwrap()), gy);
        let neg = decompress_y(&gx, false).unwrap();
        assert_ne!(hex::encode(neg), gy);
    }
}
