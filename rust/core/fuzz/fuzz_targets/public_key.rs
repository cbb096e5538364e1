//! Public-key parse, bytes and hex, compressed and uncompressed: no panic; an Ok parse gives a
//! point whose compressed and uncompressed forms parse back to the same key, and the input is one
//! of those two forms. Every 33-byte 02/03 and 65-byte 04 input is also decoded by aws-lc (its
//! generic `EC_POINT_oct2point`, the oracle): the core (fiat-crypto's field arithmetic) must
//! accept exactly what aws-lc accepts, and give the same point.
#![no_main]
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::signature::{ParsedPublicKey, ECDSA_P256_SHA256_ASN1};
use ewc_core::p256::{PublicKey, VerifyingKey};
use libfuzzer_sys::fuzz_target;

/// aws-lc's uncompressed point for SEC1 bytes (the end of the SPKI it writes), or None.
fn aws_lc_point(sec1: &[u8]) -> Option<Vec<u8>> {
    let parsed = ParsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, sec1).ok()?;
    let spki = parsed.as_der().expect("aws-lc writes a parsed key's SPKI");
    Some(spki.as_ref()[spki.as_ref().len() - 65..].to_vec())
}

/// For the two SEC1 forms the core reads, the same verdict and point as aws-lc.
fn same_as_aws_lc(bytes: &[u8]) {
    let sec1_form = matches!(
        (bytes.len(), bytes.first()),
        (33, Some(0x02 | 0x03)) | (65, Some(0x04))
    );
    let ours = PublicKey::from_sec1(bytes).ok();
    if !sec1_form {
        assert!(
            ours.is_none(),
            "accepted a form other than 02/03 (33) or 04 (65)"
        );
        return;
    }
    assert_eq!(
        ours.map(|k| k.uncompressed().to_vec()),
        aws_lc_point(bytes),
        "the core and aws-lc decode {} differently",
        hex::encode(bytes)
    );
}

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
    same_as_aws_lc(data);
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
        same_as_aws_lc(&compressed);
        if let Ok(key) = PublicKey::from_sec1(&compressed) {
            check(&compressed, &key);
        }
        let mut uncompressed = [0u8; 65];
        uncompressed[0] = 0x04;
        uncompressed[1..].copy_from_slice(&data[..64]);
        same_as_aws_lc(&uncompressed);
        if let Ok(key) = PublicKey::from_sec1(&uncompressed) {
            check(&uncompressed, &key);
        }
    }
});
