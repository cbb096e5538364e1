//! The stamp schemes beyond P-256 (formats.md section 15) against Wycheproof: ECDSA secp256k1 /
//! SHA-256 (DER, P1363 and the Bitcoin low-S set) and Ed25519, each case both on the key layer
//! and as a whole stamp through `stamp::verify_with`.

mod common;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use common::{expect, finish, h, load_json, s, tc, unhex, wycheproof_tests, Expect};
use ewc_core::stamp::{self, Scheme, Schemes};
use ewc_core::{der, ed25519, secp256k1};
use serde_json::Value;

/// The SEC1 compressed form of a Wycheproof `uncompressed` key.
fn compress(uncompressed: &[u8]) -> Vec<u8> {
    let mut out = vec![0x02 | (uncompressed[64] & 1)];
    out.extend_from_slice(&uncompressed[1..33]);
    out
}

fn stamp_of(scheme: Scheme, key: &[u8], signature: &[u8]) -> String {
    let json = format!(
        r#"{{"publicKey":"{}","scheme":"{}","signature":"{}"}}"#,
        hex::encode(key),
        scheme.name(),
        hex::encode(signature)
    );
    URL_SAFE_NO_PAD.encode(json)
}

#[derive(Default)]
struct Counts {
    valid: usize,
    invalid: usize,
    acceptable: usize,
    high_s_accepted: usize,
}

/// `key_verdict` is the key layer's verdict (Ok(true) verified, Ok(false) or an encoding error
/// rejected), `stamp_verdict` the stamp layer's (Ok verified).
#[allow(clippy::too_many_arguments)]
fn check(
    counts: &mut Counts,
    failures: &mut Vec<String>,
    test: &Value,
    key_verdict: ewc_core::Result<bool>,
    stamp_verdict: bool,
    accept_invalid: bool,
) {
    let key_ok = matches!(key_verdict, Ok(true));
    if let Err(err) = &key_verdict {
        if err.code() != "INVALID_SIGNATURE_ENCODING" {
            failures.push(format!("{}: unexpected error {err}", tc(test)));
        }
    }
    if key_ok != stamp_verdict {
        failures.push(format!(
            "{}: key layer {key_ok}, stamp layer {stamp_verdict}",
            tc(test)
        ));
    }
    match expect(test) {
        Expect::Valid => {
            counts.valid += 1;
            if !key_ok {
                failures.push(format!("{}: valid, rejected", tc(test)));
            }
        }
        Expect::Invalid if accept_invalid => {
            counts.invalid += 1;
            counts.high_s_accepted += usize::from(key_ok);
            if !key_ok {
                failures.push(format!(
                    "{}: a high-S signature we accept, rejected",
                    tc(test)
                ));
            }
        }
        Expect::Invalid => {
            counts.invalid += 1;
            if key_ok {
                failures.push(format!("{}: invalid, accepted", tc(test)));
            }
        }
        Expect::Acceptable => counts.acceptable += 1,
    }
}

/// The order n of secp256k1, big-endian.
const ORDER: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
    0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
];

/// For a strict-DER signature with n/2 < s < n: the same signature with s replaced by n - s.
fn low_s_twin(sig: &[u8]) -> Option<Vec<u8>> {
    let (r, s) = der::parse_signature(sig).ok()?;
    if r.len() > 32 || s.len() > 32 {
        return None;
    }
    let mut s_full = [0u8; 32];
    s_full[32 - s.len()..].copy_from_slice(s);
    let mut twin = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let d = i16::from(ORDER[i]) - i16::from(s_full[i]) - borrow;
        borrow = i16::from(d < 0);
        twin[i] = d.rem_euclid(256) as u8;
    }
    // n - s < s exactly when s is high (and s < n means no borrow out).
    if borrow != 0 || twin >= s_full {
        return None;
    }
    let mut p1363 = [0u8; 64];
    p1363[32 - r.len()..32].copy_from_slice(r);
    p1363[32..].copy_from_slice(&twin);
    der::p1363_to_der(&p1363).ok()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Der,
    P1363,
    Bitcoin,
}

fn run_secp256k1(file: &str, form: Form) {
    let Some(doc) = load_json(file) else {
        return;
    };
    let (mut counts, mut failures) = (Counts::default(), Vec::new());
    for (group, test) in wycheproof_tests(&doc) {
        let uncompressed = unhex(s(&group["publicKey"], "uncompressed"));
        let compressed = compress(&uncompressed);
        let key = match secp256k1::VerifyingKey::parse(&compressed) {
            Ok(key) => key,
            Err(err) => {
                failures.push(format!("{}: key {err}", tc(test)));
                continue;
            }
        };
        let (msg, sig) = (h(test, "msg"), h(test, "sig"));
        let (key_verdict, der_sig) = match form {
            Form::Der | Form::Bitcoin => (key.verify_der(&msg, &sig), Some(sig.clone())),
            Form::P1363 => (key.verify_p1363(&msg, &sig), der::p1363_to_der(&sig).ok()),
        };
        let stamp_verdict = der_sig.is_some_and(|der_sig| {
            let text = stamp_of(Scheme::Secp256k1, &compressed, &der_sig);
            stamp::verify_with(&text, &msg, None, Schemes::ALL).is_ok()
        });
        // The Bitcoin set refuses high-S; stamps accept both forms, as the P-256 scheme does
        // (formats.md section 4): a high-S case must get the verdict of its low-S twin.
        if form == Form::Bitcoin && expect(test) == Expect::Invalid {
            if let Some(low) = low_s_twin(&sig) {
                counts.invalid += 1;
                let twin = key.verify_der(&msg, &low);
                let ours = matches!(key_verdict, Ok(true));
                counts.high_s_accepted += usize::from(ours);
                if ours != matches!(twin, Ok(true)) || ours != stamp_verdict {
                    failures.push(format!("{}: high-S verdict differs from low-S", tc(test)));
                }
                continue;
            }
        }
        check(
            &mut counts,
            &mut failures,
            test,
            key_verdict,
            stamp_verdict,
            false,
        );
    }
    println!(
        "{file}: valid={} invalid={} acceptable={} (of the invalid, high-S ones accepted by design: {})",
        counts.valid, counts.invalid, counts.acceptable, counts.high_s_accepted
    );
    if counts.valid + counts.invalid == 0 {
        failures.push("no test case ran".into());
    }
    finish(file, &failures);
}

#[test]
fn wycheproof_secp256k1_der() {
    run_secp256k1("wycheproof/ecdsa_secp256k1_sha256_test.json", Form::Der);
}

#[test]
fn wycheproof_secp256k1_p1363() {
    run_secp256k1(
        "wycheproof/ecdsa_secp256k1_sha256_p1363_test.json",
        Form::P1363,
    );
}

#[test]
fn wycheproof_secp256k1_bitcoin() {
    run_secp256k1(
        "wycheproof/ecdsa_secp256k1_sha256_bitcoin_test.json",
        Form::Bitcoin,
    );
}

#[test]
fn wycheproof_ed25519() {
    let file = "wycheproof/ed25519_test.json";
    let Some(doc) = load_json(file) else {
        return;
    };
    let (mut counts, mut failures) = (Counts::default(), Vec::new());
    for (group, test) in wycheproof_tests(&doc) {
        let public = unhex(s(&group["publicKey"], "pk"));
        let key = match ed25519::VerifyingKey::parse(&public) {
            Ok(key) => key,
            Err(err) => {
                failures.push(format!("{}: key {err}", tc(test)));
                continue;
            }
        };
        let (msg, sig) = (h(test, "msg"), h(test, "sig"));
        let text = stamp_of(Scheme::Ed25519, &public, &sig);
        let stamp_verdict = stamp::verify_with(&text, &msg, None, Schemes::ALL).is_ok();
        check(
            &mut counts,
            &mut failures,
            test,
            key.verify(&msg, &sig),
            stamp_verdict,
            false,
        );
    }
    println!(
        "{file}: valid={} invalid={} acceptable={}",
        counts.valid, counts.invalid, counts.acceptable
    );
    if counts.valid + counts.invalid == 0 {
        failures.push("no test case ran".into());
    }
    finish(file, &failures);
}
