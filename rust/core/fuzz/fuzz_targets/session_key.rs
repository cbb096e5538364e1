//! encryptedSessionSigningKey open against a fixed client key: no panic, and nothing opens
//! except the committed vector's own text (a fuzzed ciphertext cannot pass AES-GCM).
#![no_main]
use ewc_core::p256::KeyPair;
use ewc_core::session;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const CLIENT_KEY: &str = "1f18ae50f7349ec47d8dbd7b4520b0e2d49786d718436edd70f8b3cee80b7785";
/// session-open of vectors/session_key.json: the one text known to open under CLIENT_KEY.
const KNOWN: &str = "2A7hxu1bY7wp6rWV5QHN998kDmPBD82aaMfYNEdaDdxuwMAbVbNVczZwaPoJevUQUvotiSG6PjEe5KTh7mZHsZAxQfAXXs7w412v9Sm4FQgbVPCTuVF8";

fn client() -> &'static KeyPair {
    static KEY: OnceLock<KeyPair> = OnceLock::new();
    KEY.get_or_init(|| KeyPair::from_private_hex(CLIENT_KEY).expect("fixed key"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match session::open_session_key(text, client()) {
        Ok(_) => assert_eq!(text, KNOWN, "a fuzzed encryptedSessionSigningKey opened"),
        Err(error) => assert!(!error.code().is_empty()),
    }
});
