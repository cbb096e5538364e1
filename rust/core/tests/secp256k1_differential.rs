//! secp256k1 on libsecp256k1 (the core's backend) against aws-lc (the oracle): the same keys
//! from the same scalars, the same accept/reject for key encodings, and the same verdict for
//! signatures: random keys and messages, signatures made by either side, their high-S twins,
//! out-of-range and mutated r and s, malformed DER, other messages and other keys.
//!
//! The oracle's verdict on a signature is the contract's: strict DER first (`der::parse_signature`,
//! which both layers share: a malformed encoding is an error), then aws-lc's ECDSA verification,
//! which accepts high-S as the stamp contract does.

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use aws_lc_rs::signature::{
    EcdsaKeyPair, KeyPair as _, ParsedPublicKey, ECDSA_P256K1_SHA256_ASN1,
    ECDSA_P256K1_SHA256_ASN1_SIGNING,
};
use ewc_core::der;
use ewc_core::secp256k1::{KeyPair, VerifyingKey};
use ewc_core::stamp::{self, Scheme, Schemes, SigningKey};

/// The order n of the base point, big-endian (SEC 2, section 2.4.1).
const N: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
    0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
];
/// The field prime p, big-endian.
const P: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xfc, 0x2f,
];

/// The RFC 5915 `ECPrivateKey` around a scalar (version 1, the key, `[0] OID secp256k1`), the
/// form in which aws-lc loads a raw secp256k1 scalar.
fn aws_lc_key(scalar: &[u8]) -> Option<EcdsaKeyPair> {
    let mut document = vec![0x30, 0x2e, 0x02, 0x01, 0x01, 0x04, 0x20];
    document.extend_from_slice(scalar);
    document.extend_from_slice(&[0xa0, 0x07, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a]);
    EcdsaKeyPair::from_private_key_der(&ECDSA_P256K1_SHA256_ASN1_SIGNING, &document).ok()
}

/// aws-lc's uncompressed point for SEC1 bytes, or None when it refuses them.
fn aws_lc_point(sec1: &[u8]) -> Option<Vec<u8>> {
    let parsed = ParsedPublicKey::new(&ECDSA_P256K1_SHA256_ASN1, sec1).ok()?;
    let spki = parsed.as_der().expect("aws-lc writes a parsed key's SPKI");
    Some(spki.as_ref()[spki.as_ref().len() - 65..].to_vec())
}

fn compress(uncompressed: &[u8]) -> Vec<u8> {
    let mut out = vec![0x02 | (uncompressed[64] & 1)];
    out.extend_from_slice(&uncompressed[1..33]);
    out
}

/// a - b for 32-byte big-endian values (a >= b).
fn sub(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let d = i16::from(a[i]) - i16::from(b[i]) - borrow;
        borrow = i16::from(d < 0);
        out[i] = d.rem_euclid(256) as u8;
    }
    assert_eq!(borrow, 0);
    out
}

fn fixed(magnitude: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[32 - magnitude.len()..].copy_from_slice(magnitude);
    out
}

/// DER of r and s given as big-endian magnitudes of any width (leading zeros trimmed).
fn der_of(r: &[u8], s: &[u8]) -> Vec<u8> {
    let mut p1363 = Vec::new();
    for part in [r, s] {
        let trimmed = &part[part.iter().position(|&b| b != 0).unwrap_or(part.len())..];
        let mut int = vec![0x02];
        let pad = trimmed.first().is_none_or(|b| b & 0x80 != 0);
        int.push((trimmed.len() + usize::from(pad)) as u8);
        if pad {
            int.push(0);
        }
        int.extend_from_slice(trimmed);
        p1363.extend(int);
    }
    let mut out = vec![0x30, p1363.len() as u8];
    out.extend(p1363);
    out
}

struct Verdicts {
    agreed: usize,
    accepted: usize,
    malformed: usize,
}

/// Both layers' verdict on (key, message, signature); they must be the same.
fn compare(
    verdicts: &mut Verdicts,
    ours: &VerifyingKey,
    oracle: &ParsedPublicKey,
    msg: &[u8],
    sig: &[u8],
) {
    let theirs = match der::parse_signature(sig) {
        Err(_) => None,
        Ok(_) => Some(oracle.verify_sig(msg, sig).is_ok()),
    };
    let mine = match ours.verify_der(msg, sig) {
        Err(err) => {
            assert_eq!(err.code(), "INVALID_SIGNATURE_ENCODING");
            None
        }
        Ok(verdict) => Some(verdict),
    };
    assert_eq!(
        mine,
        theirs,
        "sig {} msg {}",
        hex::encode(sig),
        hex::encode(msg)
    );
    verdicts.agreed += 1;
    verdicts.accepted += usize::from(mine == Some(true));
    verdicts.malformed += usize::from(mine.is_none());
}

#[test]
fn same_keys_from_the_same_scalars() {
    let rng = SystemRandom::new();
    for i in 0..300 {
        let mut scalar = [0u8; 32];
        rng.fill(&mut scalar).unwrap();
        match i {
            0 => scalar = N,                     // n: refused by both
            1 => scalar = sub(&N, &fixed(&[1])), // n - 1
            2 => scalar = fixed(&[1]),           // 1
            3 => scalar = [0; 32],               // 0: refused by both
            4 => scalar = [0xff; 32],            // above n
            _ => {}
        }
        let ours = KeyPair::from_private_bytes(&scalar).ok();
        let theirs = aws_lc_key(&scalar);
        assert_eq!(ours.is_some(), theirs.is_some(), "{}", hex::encode(scalar));
        if let (Some(ours), Some(theirs)) = (ours, theirs) {
            assert_eq!(
                ours.public_key().compressed().to_vec(),
                compress(theirs.public_key().as_ref())
            );
            assert_eq!(ours.private_key_bytes().unwrap().as_ref(), &scalar);
        }
    }
}

#[test]
fn same_points_accepted() {
    let rng = SystemRandom::new();
    let (mut accepted, mut rejected) = (0, 0);
    for i in 0..3000u32 {
        let real = EcdsaKeyPair::generate(&ECDSA_P256K1_SHA256_ASN1_SIGNING).unwrap();
        let mut point = real.public_key().as_ref().to_vec();
        match i % 6 {
            0 => {}
            1 => point[64] ^= 1 << (i % 8),
            2 => rng.fill(&mut point[1..]).unwrap(),
            3 => point[1..33].copy_from_slice(&P), // x = p
            4 => point[33..].copy_from_slice(&P),  // y = p
            _ => point[1..33].fill(0xff),          // x > p
        }
        let mut candidates = vec![point.clone(), compress(&point)];
        let mut random_x = [0u8; 33];
        rng.fill(&mut random_x).unwrap();
        random_x[0] = 0x02 | (random_x[0] & 1);
        candidates.push(random_x.to_vec());
        for candidate in candidates {
            let ours = VerifyingKey::parse(&candidate).ok();
            let theirs = aws_lc_point(&candidate);
            assert_eq!(
                ours.as_ref().map(|k| k.public_key().compressed().to_vec()),
                theirs.as_deref().map(compress),
                "{}",
                hex::encode(&candidate)
            );
            if ours.is_some() {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
    }
    assert!(accepted > 2000 && rejected > 4000, "{accepted} {rejected}");
}

#[test]
fn same_signature_verdicts() {
    let rng = SystemRandom::new();
    let mut verdicts = Verdicts {
        agreed: 0,
        accepted: 0,
        malformed: 0,
    };
    let (mut high_s, mut stamps) = (0, 0);
    for i in 0..300usize {
        let mut scalar = [0u8; 32];
        rng.fill(&mut scalar).unwrap();
        let (Ok(ours), Some(theirs)) = (KeyPair::from_private_bytes(&scalar), aws_lc_key(&scalar))
        else {
            continue;
        };
        let public = ours.public_key().compressed();
        let verifier = VerifyingKey::parse(public).unwrap();
        let oracle = ParsedPublicKey::new(&ECDSA_P256K1_SHA256_ASN1, public).unwrap();
        let mut msg = vec![0u8; i % 300];
        rng.fill(&mut msg).unwrap();

        let by_us = ours.sign(&msg).unwrap();
        let by_aws_lc = theirs.sign(&rng, &msg).unwrap().as_ref().to_vec();
        for sig in [&by_us, &by_aws_lc] {
            compare(&mut verdicts, &verifier, &oracle, &msg, sig);
            let (r, s) = der::parse_signature(sig).unwrap();
            let (r, s) = (fixed(r), fixed(s));
            // The other s (high-S for ours, which is always low-S): both layers accept it.
            let twin = der_of(&r, &sub(&N, &s));
            compare(&mut verdicts, &verifier, &oracle, &msg, &twin);
            high_s += usize::from(verifier.verify_der(&msg, &twin).unwrap());
            // Out-of-range r and s: 0, n, n + 1 (as 33 bytes when it overflows), p, 2^256 - 1,
            // and r + n where it fits: all well-formed, none verifies.
            let n_plus_1 = {
                let mut v = N;
                v[31] += 1;
                v
            };
            let mut r_plus_n = Vec::new();
            let mut carry = 0u16;
            for (a, b) in r.iter().rev().zip(N.iter().rev()) {
                let sum = u16::from(*a) + u16::from(*b) + carry;
                r_plus_n.push(sum as u8);
                carry = sum >> 8;
            }
            r_plus_n.push(carry as u8);
            r_plus_n.reverse();
            for bad in [
                &[0u8][..],
                &N[..],
                &n_plus_1[..],
                &P[..],
                &[0xff; 32][..],
                &[0x01; 33][..],
                &r_plus_n[..],
            ] {
                compare(&mut verdicts, &verifier, &oracle, &msg, &der_of(bad, &s));
                compare(&mut verdicts, &verifier, &oracle, &msg, &der_of(&r, bad));
            }
            // Mutations: a flipped bit anywhere in the DER (malformed or wrong), truncation,
            // a trailing byte, another message, another key.
            let bit = (i * 7) % (sig.len() * 8);
            let mut flipped = sig.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            compare(&mut verdicts, &verifier, &oracle, &msg, &flipped);
            compare(
                &mut verdicts,
                &verifier,
                &oracle,
                &msg,
                &sig[..sig.len() - 1],
            );
            let mut trailing = sig.clone();
            trailing.push(0);
            compare(&mut verdicts, &verifier, &oracle, &msg, &trailing);
            let mut other = msg.clone();
            other.push(1);
            compare(&mut verdicts, &verifier, &oracle, &other, sig);
        }
        let stranger = KeyPair::generate().unwrap();
        let stranger_verifier = VerifyingKey::parse(stranger.public_key().compressed()).unwrap();
        let stranger_oracle = ParsedPublicKey::new(
            &ECDSA_P256K1_SHA256_ASN1,
            stranger.public_key().compressed(),
        )
        .unwrap();
        compare(
            &mut verdicts,
            &stranger_verifier,
            &stranger_oracle,
            &msg,
            &by_us,
        );
        // The stamp layer on top: our stamp verifies, aws-lc's (as an external signer's) too.
        for sig in [&by_us, &by_aws_lc] {
            let text = stamp::assemble(&msg, Scheme::Secp256k1, public, sig).unwrap();
            let key = SigningKey::Secp256k1(&ours);
            assert!(stamp::verify_with(&text, &msg, None, Schemes::ALL).is_ok());
            if sig == &by_us {
                assert_eq!(text, stamp::create_with(&msg, key).unwrap());
            }
            stamps += 1;
        }
    }
    assert!(verdicts.agreed > 10_000, "{}", verdicts.agreed);
    assert!(verdicts.accepted > 1000 && verdicts.malformed > 100);
    assert!(high_s > 500 && stamps > 500, "{high_s} {stamps}");
}
