//! HPKE single-shot open (enc + ciphertext) against a fixed recipient key, in the wallet profile
//! (aad = enc || pkR) and with explicit aad: no panic, and nothing fuzzed opens except known seals.
#![no_main]
use ewc_core::hpke::{self, Aad, PROFILE_INFO};
use ewc_core::p256::KeyPair;
use ewc_core::Error;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// hpke-derive-recipient of vectors/hpke.json.
const RECIPIENT: &str = "9ad1f6619244607443874795cb0eddc5347cc7e6c074508b5a09ab0394bd7c95";

fn recipient() -> &'static KeyPair {
    static KEY: OnceLock<KeyPair> = OnceLock::new();
    KEY.get_or_init(|| KeyPair::from_private_hex(RECIPIENT).expect("fixed key"))
}

fuzz_target!(|data: &[u8]| {
    // enc is the first 65 bytes (uncompressed SEC1), the ciphertext the rest.
    if data.len() < 65 {
        assert!(hpke::open(recipient(), data, PROFILE_INFO, Aad::Profile, &[]).is_err());
        return;
    }
    let (enc, ciphertext) = data.split_at(65);
    let profile = hpke::open(recipient(), enc, PROFILE_INFO, Aad::Profile, ciphertext);
    let explicit = hpke::open(
        recipient(),
        enc,
        PROFILE_INFO,
        Aad::Explicit(b""),
        ciphertext,
    );
    for result in [profile, explicit] {
        match result {
            // Only a committed seal (the corpus seeds) can open; a tag the fuzzer made up
            // would be a forgery. Seeds are re-encrypted inputs, so a success must re-seal.
            Ok(plaintext) => assert!(
                ciphertext.len() == plaintext.len() + 16,
                "an opened ciphertext is not plaintext + tag"
            ),
            Err(error) => assert_eq!(error.code(), Error::decryption().code()),
        }
    }
});
