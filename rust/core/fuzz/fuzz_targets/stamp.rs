//! Stamp parse and verify: no panic; parse and verify agree on shape; a fuzzed stamp never
//! verifies as made by the fixed key, and a stamp that verifies does so for its own key.
#![no_main]
use ewc_core::p256::{KeyPair, PublicKey};
use ewc_core::stamp;
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
    let _ = &parsed;
    match stamp::verify(text, payload, None) {
        Ok(verified) => {
            let parsed = parsed.expect("verify accepted what parse refused");
            assert_eq!(parsed.public_key, verified.public_key);
            assert_ne!(
                &verified.public_key,
                fixed_key(),
                "a fuzzed stamp verified under the fixed key"
            );
        }
        Err(error) => assert!(!error.code().is_empty()),
    }
    if let Ok(verified) = stamp::verify(text, payload, Some(fixed_key())) {
        panic!("a fuzzed stamp verified as the fixed key: {verified:?}");
    }
});
