//! Stamp parse and verify, for every scheme (formats.md sections 4 and 15): no panic; parse and
//! verify agree on shape; the P-256-only verifier and the all-schemes verifier agree on P-256
//! stamps; a fuzzed stamp never verifies as made by the fixed keys, and a stamp that verifies
//! does so for its own key.
#![no_main]
use ewc_core::p256::{KeyPair, PublicKey};
use ewc_core::stamp::{self, ExpectedKey, Scheme, Schemes};
use ewc_core::{ed25519, secp256k1};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const PRIVATE_KEY: &str = "1f18ae50f7349ec47d8dbd7b4520b0e2d49786d718436edd70f8b3cee80b7785";

fn fixed_key() -> &'static PublicKey {
    static KEY: OnceLock<PublicKey> = OnceLock::new();
    KEY.get_or_init(|| {
        KeyPair::from_private_hex(PRIVATE_KEY)
            .expect("fixed key")
            .public_key()
            .clone()
    })
}

/// The fixed key's scalar as a secp256k1 key and as an Ed25519 seed, expected in every scheme.
fn fixed_keys() -> &'static [ExpectedKey; 3] {
    static KEYS: OnceLock<[ExpectedKey; 3]> = OnceLock::new();
    KEYS.get_or_init(|| {
        let scalar = hex::decode(PRIVATE_KEY).expect("hex");
        let k1 = secp256k1::KeyPair::from_private_bytes(&scalar).expect("secp256k1 key");
        let ed = ed25519::KeyPair::from_private_bytes(&scalar).expect("ed25519 key");
        [
            ExpectedKey::from(fixed_key().clone()),
            ExpectedKey::parse(k1.public_key().compressed(), Schemes::ALL).expect("k1"),
            ExpectedKey::parse(ed.public_key().as_bytes(), Schemes::ALL).expect("ed"),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    // Input: stamp text, then a NUL, then the payload (a vector's stamp and payload stay valid).
    let (stamp_bytes, payload) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b""[..]),
    };
    let Ok(text) = std::str::from_utf8(stamp_bytes) else {
        return;
    };
    let parsed = stamp::parse(text);
    match stamp::verify(text, payload, None) {
        Ok(verified) => {
            let parsed = parsed.expect("verify accepted what parse refused");
            assert_eq!(parsed.public_key, verified.public_key);
            assert_ne!(
                verified.public_key.p256(),
                Some(fixed_key()),
                "a fuzzed stamp verified under the fixed key"
            );
        }
        Err(error) => assert!(!error.code().is_empty()),
    }
    if let Ok(verified) = stamp::verify(text, payload, Some(fixed_key())) {
        panic!("a fuzzed stamp verified as the fixed key: {verified:?}");
    }
    // Every scheme: the same shape rules, and P-256 verdicts unchanged by allowing more.
    let any = stamp::verify_with(text, payload, None, Schemes::ALL);
    let parsed_any = stamp::parse_with(text, Schemes::ALL);
    match &any {
        Ok(verified) => {
            let parsed_any = parsed_any
                .as_ref()
                .expect("verify_with accepted what parse_with refused");
            assert_eq!(parsed_any.public_key, verified.public_key);
            let p256_only = stamp::verify(text, payload, None);
            assert_eq!(verified.scheme() == Scheme::P256, p256_only.is_ok());
            if verified.scheme() != Scheme::P256 {
                assert_eq!(
                    p256_only.unwrap_err().code(),
                    "WALLET_SIGNATURE_SCHEME_UNSUPPORTED"
                );
            }
        }
        Err(error) => {
            assert!(stamp::verify(text, payload, None).is_err());
            assert_ne!(error.code(), "WALLET_SIGNATURE_SCHEME_UNSUPPORTED");
        }
    }
    for expected in fixed_keys() {
        if let Ok(verified) = stamp::verify_with(text, payload, Some(expected), Schemes::ALL) {
            panic!("a fuzzed stamp verified as a fixed key: {verified:?}");
        }
    }
});
