//! P-256 point decoding against aws-lc's own code path, the oracle: for compressed keys, whether
//! the point is accepted and which point it is; for uncompressed keys, whether it is accepted.
//!
//! The core decompresses and checks points on fiat-crypto's field arithmetic (src/field.rs);
//! aws-lc decodes through its generic big-number square root (`EC_POINT_oct2point`). The two
//! share no code, so any disagreement (a carry, a reduction, the parity, the range of x) shows.
//! The `public_key` fuzz target makes the same comparison on the fuzzer's inputs.

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use aws_lc_rs::signature::{ParsedPublicKey, ECDSA_P256_SHA256_ASN1};
use ewc_core::p256::VerifyingKey;
use ewc_core::{KeyPair, PublicKey};

/// aws-lc's decoding of a SEC1 point: the uncompressed point it holds (the last 65 bytes of the
/// SubjectPublicKeyInfo it writes), or None when it refuses the input.
fn aws_lc_point(sec1: &[u8]) -> Option<Vec<u8>> {
    let parsed = ParsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, sec1).ok()?;
    let spki = parsed.as_der().expect("aws-lc writes a parsed key's SPKI");
    let spki = spki.as_ref();
    assert_eq!(spki.len(), 91, "a P-256 SPKI with an uncompressed point");
    Some(spki[26..].to_vec())
}

/// Ours: the uncompressed point `PublicKey::from_sec1` gives, and `VerifyingKey::parse` must
/// agree with it (it adds aws-lc's own parse of the point ours produced).
fn ours(sec1: &[u8]) -> Option<Vec<u8>> {
    let key = PublicKey::from_sec1(sec1)
        .ok()
        .map(|k| k.uncompressed().to_vec());
    let verifying = VerifyingKey::parse(sec1)
        .ok()
        .map(|k| k.public_key().uncompressed().to_vec());
    assert_eq!(key, verifying, "{}", hex::encode(sec1));
    if key.is_none() {
        let err = PublicKey::from_sec1(sec1).unwrap_err();
        assert_eq!(err.code(), "INVALID_POINT", "{}", hex::encode(sec1));
    }
    key
}

fn compressed(prefix: u8, x: &[u8; 32]) -> [u8; 33] {
    let mut out = [prefix; 33];
    out[1..].copy_from_slice(x);
    out
}

fn be(text: &str) -> [u8; 32] {
    hex::decode(text).unwrap().try_into().unwrap()
}

/// x at the field's edges and carry boundaries: 0, 1, 2, 3, p - 1, p - 2, p - 3, (p - 1) / 2,
/// (p + 1) / 2, 2^255, 2^224, 2^256 - 2^224, R mod p = 2^256 - p, all-ones limbs below p, b,
/// the generator's x; then x >= p: p, p + 1, 2^256 - 1.
const EDGE_X: [&str; 19] = [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000001",
    "0000000000000000000000000000000000000000000000000000000000000002",
    "0000000000000000000000000000000000000000000000000000000000000003",
    "ffffffff00000001000000000000000000000000fffffffffffffffffffffffe",
    "ffffffff00000001000000000000000000000000fffffffffffffffffffffffd",
    "ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
    "7fffffff800000008000000000000000000000007fffffffffffffffffffffff",
    "7fffffff80000000800000000000000000000000800000000000000000000000",
    "8000000000000000000000000000000000000000000000000000000000000000",
    "0000000100000000000000000000000000000000000000000000000000000000",
    "ffffffff00000000000000000000000000000000000000000000000000000000",
    "00000000fffffffeffffffffffffffffffffffff000000000000000000000001",
    "ffffffff00000000ffffffffffffffffffffffffffffffffffffffffffffffff",
    "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
    "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
    "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
    "ffffffff00000001000000000000000000000001000000000000000000000000",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
];

const P: &str = "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff";

#[test]
fn edge_x_decompress_as_aws_lc_does() {
    let (mut points, mut no_root) = (0, 0);
    for text in EDGE_X {
        let x = be(text);
        let both: Vec<Option<Vec<u8>>> = [0x02u8, 0x03]
            .iter()
            .map(|&prefix| {
                let candidate = compressed(prefix, &x);
                let ours = ours(&candidate);
                assert_eq!(
                    ours,
                    aws_lc_point(&candidate),
                    "x = {text}, prefix {prefix:02x}"
                );
                if let Some(point) = &ours {
                    assert_eq!(point[1..33], x, "x kept");
                    assert_eq!(point[64] & 1, prefix & 1, "parity of y");
                }
                ours
            })
            .collect();
        // An x has a point under both prefixes or under neither (y and -y; y = 0 has no x here).
        assert_eq!(both[0].is_some(), both[1].is_some(), "{text}");
        if both[0].is_some() {
            points += 1;
        } else if x < be(P) {
            no_root += 1; // x^3 - 3x + b is a non-residue
        }
    }
    // Both kinds occur among the edges below p (the three x >= p are refused by range).
    assert!(points >= 5 && no_root >= 5, "{points} {no_root}");
}

#[test]
fn random_x_decompress_as_aws_lc_does() {
    let rng = SystemRandom::new();
    let (mut accepted, mut rejected) = (0, 0);
    for i in 0..4000u32 {
        let mut x = [0u8; 32];
        rng.fill(&mut x).unwrap();
        match i % 8 {
            0 => {
                x.copy_from_slice(&KeyPair::generate().unwrap().public_key().uncompressed()[1..33])
            }
            1 => x[..4].fill(0xff), // near or above p
            2 => x[..12].fill(0),   // small x
            _ => {}
        }
        for prefix in [0x02u8, 0x03] {
            let candidate = compressed(prefix, &x);
            let ours = ours(&candidate);
            assert_eq!(ours, aws_lc_point(&candidate), "{}", hex::encode(candidate));
            if ours.is_some() {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
    }
    // About half of all x have a point; every real key's x does.
    assert!(accepted > 2500 && rejected > 2500, "{accepted} {rejected}");
}

#[test]
fn real_keys_round_trip_through_both() {
    for _ in 0..500 {
        let key = KeyPair::generate().unwrap();
        let public = key.public_key();
        let compressed = public.compressed();
        assert_eq!(
            ours(&compressed).as_deref(),
            Some(&public.uncompressed()[..])
        );
        assert_eq!(
            aws_lc_point(&compressed).as_deref(),
            Some(&public.uncompressed()[..])
        );
    }
}

#[test]
fn uncompressed_check_agrees_with_aws_lc() {
    let rng = SystemRandom::new();
    let p = be(P);
    let (mut accepted, mut rejected) = (0, 0);
    let mut check = |point: &[u8; 65]| {
        let ours = ours(point);
        let theirs = aws_lc_point(point);
        assert_eq!(ours, theirs, "{}", hex::encode(point));
        if let Some(ours) = ours {
            assert_eq!(&ours[..], &point[..]);
            accepted += 1;
        } else {
            rejected += 1;
        }
    };
    for i in 0..3000u32 {
        let mut point = *KeyPair::generate().unwrap().public_key().uncompressed();
        match i % 6 {
            0 => {}
            1 => point[64] ^= 1 << (i % 8),          // y off by a bit
            2 => rng.fill(&mut point[1..]).unwrap(), // random coordinates
            3 => point[1..33].copy_from_slice(&p),   // x = p
            4 => point[33..].copy_from_slice(&p),    // y = p
            _ => point[33..].fill(0xff),             // y >= p
        }
        check(&point);
    }
    // Every edge x with its points, and y replaced by y + p where that still fits (y < 2^256 - p).
    for text in EDGE_X {
        let x = be(text);
        for prefix in [0x02u8, 0x03] {
            let Some(point) = aws_lc_point(&compressed(prefix, &x)) else {
                continue;
            };
            let mut point: [u8; 65] = point.try_into().unwrap();
            check(&point);
            let y = &mut point[33..];
            let mut carry = 0u16;
            for (byte, add) in y.iter_mut().rev().zip(p.iter().rev()) {
                let sum = u16::from(*byte) + u16::from(*add) + carry;
                *byte = sum as u8;
                carry = sum >> 8;
            }
            if carry == 0 {
                check(&point); // the same y mod p, not reduced: refused by both
            }
        }
    }
    check(&[0x04; 65]);
    check(&{
        let mut zero = [0u8; 65];
        zero[0] = 0x04;
        zero
    });
    assert!(accepted >= 500 && rejected >= 2000, "{accepted} {rejected}");
}
