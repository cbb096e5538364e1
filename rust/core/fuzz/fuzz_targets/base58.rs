//! base58 decode and check-decode: no panic; an Ok decode re-encodes to the same text (the
//! alphabet has one spelling per value), and check_decode agrees with decode + checksum.
#![no_main]
use ewc_core::base58;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Decoding is quadratic by design; long inputs only slow the fuzzer down.
    if data.len() > 512 {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(decoded) = base58::decode(text) {
        assert_eq!(base58::encode(&decoded), text, "decode is not canonical");
    }
    match base58::check_decode(text) {
        Ok(payload) => {
            assert_eq!(
                base58::check_encode(&payload),
                text,
                "check_decode is not canonical"
            );
            assert!(base58::decode(text).is_ok());
        }
        Err(error) => assert!(!error.code().is_empty()),
    }
});
