//! Public-key parse, bytes and hex, compressed and uncompressed: no panic; an Ok parse gives a
//! point whose compressed and uncompressed forms parse back to the same key, and the input is one
//! of those two forms.
#![no_main]
use ewc_core::p256::{PublicKey, VerifyingKey};
use libfuzzer_sys::fuzz_target;

fn check(bytes: &[u8], key: &PublicKey) {
    let compressed = key.compressed();
    let uncompressed = key.uncompressed();
    assert!(
        bytes == compressed.as_slice() || bytes == uncompressed.as_slice(),
        "a parsed key is not its own SEC1 form"
    );
    let again = PublicKey::from_sec1(&compressed).expect("compressed form re-parses");
    assert_eq!(again.uncompressed(), uncompressed);
    let again = PublicKey::from_sec1(uncompressed).expect("uncompressed form re-parses");
    assert_eq!(again.compressed(), compressed);
}

fuzz_target!(|data: &[u8]| {
    match PublicKey::from_sec1(data) {
        Ok(key) => {
            check(data, &key);
            let verifying = VerifyingKey::parse(data).expect("VerifyingKey agrees with PublicKey");
            assert_eq!(verifying.public_key().uncompressed(), key.uncompressed());
        }
        Err(_) => assert!(
            VerifyingKey::parse(data).is_err(),
            "VerifyingKey accepts more"
        ),
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(key) = PublicKey::from_hex(text) {
            let bytes = hex::decode(text).expect("an Ok hex key is hex");
            check(&bytes, &key);
        }
    }
    // The same bytes behind each prefix, so the fuzzer reaches point validation often.
    if data.len() >= 64 {
        let mut compressed = [0u8; 33];
        compressed[0] = 0x02 | (data[0] & 1);
        compressed[1..].copy_from_slice(&data[..32]);
        if let Ok(key) = PublicKey::from_sec1(&compressed) {
            check(&compressed, &key);
        }
        let mut uncompressed = [0u8; 65];
        uncompressed[0] = 0x04;
        uncompressed[1..].copy_from_slice(&data[..64]);
        if let Ok(key) = PublicKey::from_sec1(&uncompressed) {
            check(&uncompressed, &key);
        }
    }
});
