//! secp256k1 on libsecp256k1 (the core) against aws-lc (the oracle), on the fuzzer's inputs.
//!
//! First byte even: the next 33 bytes are a compressed key (prefix forced to 02/03) and the rest
//! a DER signature over an empty message: the core accepts exactly the keys aws-lc accepts, with
//! the same point, and gives the same verdict on the signature (strict DER first, an encoding
//! error where `der::parse_signature` refuses it).
//! First byte odd: the next 32 bytes are a scalar, the rest the message; where both accept the
//! scalar, they derive the same key, each side's signature verifies on the other, the high-S
//! twin and a signature with the fuzzer's bytes mixed in get the same verdict from both.
#![no_main]
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    EcdsaKeyPair, KeyPair as _, ParsedPublicKey, ECDSA_P256K1_SHA256_ASN1,
    ECDSA_P256K1_SHA256_ASN1_SIGNING,
};
use ewc_core::der;
use ewc_core::secp256k1::{KeyPair, VerifyingKey};
use libfuzzer_sys::fuzz_target;

fn aws_lc_point(sec1: &[u8]) -> Option<Vec<u8>> {
    let parsed = ParsedPublicKey::new(&ECDSA_P256K1_SHA256_ASN1, sec1).ok()?;
    let spki = parsed.as_der().expect("aws-lc writes a parsed key's SPKI");
    let spki = spki.as_ref();
    let point = &spki[spki.len() - 65..];
    let mut compressed = vec![0x02 | (point[64] & 1)];
    compressed.extend_from_slice(&point[1..33]);
    Some(compressed)
}

/// Both verdicts on one signature: None for an encoding error (strict DER refuses it).
fn same_verdict(ours: &VerifyingKey, theirs: &ParsedPublicKey, msg: &[u8], sig: &[u8]) -> bool {
    let oracle = der::parse_signature(sig)
        .ok()
        .map(|_| theirs.verify_sig(msg, sig).is_ok());
    let mine = ours.verify_der(msg, sig).ok();
    assert_eq!(mine, oracle, "verdicts differ on {}", hex::encode(sig));
    mine == Some(true)
}

/// s replaced by n - s (DER of r and n - s), for s in [1, n - 1].
fn high_s_twin(sig: &[u8]) -> Option<Vec<u8>> {
    const N: [u8; 32] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36,
        0x41, 0x41,
    ];
    let (r, s) = der::parse_signature(sig).ok()?;
    if r.len() > 32 || s.len() > 32 {
        return None;
    }
    let mut fixed = [0u8; 64];
    fixed[32 - r.len()..32].copy_from_slice(r);
    fixed[64 - s.len()..].copy_from_slice(s);
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let d = i16::from(N[i]) - i16::from(fixed[32 + i]) - borrow;
        borrow = i16::from(d < 0);
        fixed[32 + i] = d.rem_euclid(256) as u8;
    }
    (borrow == 0).then(|| der::p1363_to_der(&fixed).ok())?
}

fn keys_and_signatures(scalar: &[u8], msg: &[u8], mix: &[u8]) {
    let mut document = vec![0x30, 0x2e, 0x02, 0x01, 0x01, 0x04, 0x20];
    document.extend_from_slice(scalar);
    document.extend_from_slice(&[0xa0, 0x07, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a]);
    let theirs = EcdsaKeyPair::from_private_key_der(&ECDSA_P256K1_SHA256_ASN1_SIGNING, &document);
    let ours = KeyPair::from_private_bytes(scalar);
    assert_eq!(
        ours.is_ok(),
        theirs.is_ok(),
        "scalar accepted by one side only"
    );
    let (Ok(ours), Ok(theirs)) = (ours, theirs) else {
        return;
    };
    let public = ours.public_key().compressed();
    assert_eq!(
        aws_lc_point(theirs.public_key().as_ref()).as_deref(),
        Some(&public[..])
    );
    let verifier = VerifyingKey::parse(public).expect("our own key parses");
    let oracle = ParsedPublicKey::new(&ECDSA_P256K1_SHA256_ASN1, public).expect("aws-lc parses");
    let by_us = ours.sign(msg).expect("sign");
    let by_them = theirs
        .sign(&SystemRandom::new(), msg)
        .expect("aws-lc signs")
        .as_ref()
        .to_vec();
    for sig in [by_us, by_them] {
        assert!(
            same_verdict(&verifier, &oracle, msg, &sig),
            "a valid signature fails"
        );
        if let Some(twin) = high_s_twin(&sig) {
            assert!(
                same_verdict(&verifier, &oracle, msg, &twin),
                "the twin fails"
            );
        }
        let mut mixed = sig.clone();
        for (i, b) in mix.iter().enumerate().take(mixed.len()) {
            mixed[(i * 7) % sig.len()] ^= b;
        }
        same_verdict(&verifier, &oracle, msg, &mixed);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        if rest.len() < 33 {
            return;
        }
        let (key, sig) = rest.split_at(33);
        let mut key = key.to_vec();
        key[0] = 0x02 | (key[0] & 1);
        let ours = VerifyingKey::parse(&key).ok();
        assert_eq!(
            ours.as_ref().map(|k| k.public_key().compressed().to_vec()),
            aws_lc_point(&key),
            "the core and aws-lc decode {} differently",
            hex::encode(&key)
        );
        if let Some(ours) = ours {
            let oracle = ParsedPublicKey::new(&ECDSA_P256K1_SHA256_ASN1, &key).expect("parsed");
            same_verdict(&ours, &oracle, b"", sig);
        }
    } else if rest.len() >= 32 {
        let (scalar, msg) = rest.split_at(32);
        keys_and_signatures(scalar, msg, &data[..data.len().min(8)]);
    }
});
