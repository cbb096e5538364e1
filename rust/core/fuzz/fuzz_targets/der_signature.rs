//! DER signature parse and verify: no panic; a parsed signature with scalars of at most 32 bytes
//! re-encodes (through P1363) to the same DER; random signatures never verify against a fixed key.
#![no_main]
use ewc_core::der;
use ewc_core::p256::{verify_signature, KeyPair};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const PRIVATE_KEY: &str = "1f18ae50f7349ec47d8dbd7b4520b0e2d49786d718436edd70f8b3cee80b7785";

fn keys() -> &'static (Vec<u8>, Vec<u8>) {
    static KEYS: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let pair = KeyPair::from_private_hex(PRIVATE_KEY).expect("fixed key");
        let public = pair.public_key();
        (public.uncompressed().to_vec(), public.compressed().to_vec())
    })
}

fuzz_target!(|data: &[u8]| {
    // First byte: how much of the rest is the message (the signature is the remainder).
    let Some((&split, rest)) = data.split_first() else {
        return;
    };
    let split = usize::from(split).min(rest.len());
    let (message, signature) = rest.split_at(split);
    if let Ok((r, s)) = der::parse_signature(signature) {
        if r.len() <= 32 && s.len() <= 32 {
            let mut p1363 = [0u8; 64];
            p1363[32 - r.len()..32].copy_from_slice(r);
            p1363[64 - s.len()..].copy_from_slice(s);
            let again = der::p1363_to_der(&p1363).expect("64 bytes");
            assert_eq!(again, signature, "strict DER is not canonical");
        }
    }
    let (uncompressed, compressed) = keys();
    for key in [uncompressed, compressed] {
        if let Ok(valid) = verify_signature(key, message, signature) {
            assert!(!valid, "a fuzzed signature verified against the fixed key");
        }
    }
    // The whole input as a signature over a fixed message too.
    if let Ok(valid) = verify_signature(uncompressed, b"fixed message", data) {
        assert!(!valid, "a fuzzed signature verified against the fixed key");
    }
});
