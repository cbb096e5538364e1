//! ECDSA P-256 / SHA-256 verification and public-key validation against Wycheproof and NIST CAVP.

mod common;

use common::{
    describe, expect, field, finish, h, kv_records, left_pad, load_json, read_vector_file, s, tc,
    unhex, wycheproof_tests, Expect,
};
use ewc_core::p256::VerifyingKey;
use ewc_core::{PublicKey, Result};

const WYCHEPROOF_DER: &str = "wycheproof/ecdsa_secp256r1_sha256_test.json";
const WYCHEPROOF_P1363: &str = "wycheproof/ecdsa_secp256r1_sha256_p1363_test.json";
const NIST_SIGVER: &str = "nist/ecdsa_fips186-3_SigVer_P-256_SHA-256.rsp";
const NIST_PKV: &str = "nist/ecdsa_fips186-3_PKV_P-256.rsp";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Der,
    P1363,
}

/// True when `result` is an acceptable rejection: `Ok(false)` or a signature-encoding error.
fn is_rejection(result: &Result<bool>) -> bool {
    match result {
        Ok(verified) => !verified,
        Err(err) => err.code() == "INVALID_SIGNATURE_ENCODING",
    }
}

fn run_wycheproof(file: &str, format: Format) {
    let Some(doc) = load_json(file) else {
        return;
    };
    let mut failures = Vec::new();
    let (mut valid, mut invalid, mut acceptable_ok, mut acceptable_rejected) = (0, 0, 0, 0);
    let (mut invalid_false, mut invalid_err) = (0, 0);
    let mut current_key: Option<(String, Option<VerifyingKey>)> = None;
    for (group, test) in wycheproof_tests(&doc) {
        let id = tc(test);
        let key_hex = s(&group["publicKey"], "uncompressed");
        if current_key.as_ref().map(|(k, _)| k.as_str()) != Some(key_hex) {
            let parsed = match VerifyingKey::parse(&unhex(key_hex)) {
                Ok(key) => Some(key),
                Err(err) => {
                    failures.push(format!("group key {key_hex}: VerifyingKey::parse: {err}"));
                    None
                }
            };
            current_key = Some((key_hex.to_string(), parsed));
        }
        let Some((_, Some(key))) = current_key.as_ref() else {
            continue;
        };
        let msg = h(test, "msg");
        let sig = h(test, "sig");
        let result = match format {
            Format::Der => key.verify_der(&msg, &sig),
            Format::P1363 => key.verify_p1363(&msg, &sig),
        };
        match expect(test) {
            Expect::Valid => {
                valid += 1;
                if !matches!(result, Ok(true)) {
                    failures.push(format!("{id}: valid, got {}", describe(&result)));
                }
            }
            Expect::Invalid => {
                invalid += 1;
                if !is_rejection(&result) {
                    failures.push(format!("{id}: invalid, got {}", describe(&result)));
                } else if result.is_ok() {
                    invalid_false += 1;
                } else {
                    invalid_err += 1;
                }
            }
            Expect::Acceptable => {
                if matches!(result, Ok(true)) {
                    acceptable_ok += 1;
                } else if is_rejection(&result) {
                    acceptable_rejected += 1;
                } else {
                    failures.push(format!("{id}: acceptable, got {}", describe(&result)));
                }
            }
        }
    }
    let name = match format {
        Format::Der => "wycheproof ecdsa der",
        Format::P1363 => "wycheproof ecdsa p1363",
    };
    println!(
        "{name}: valid={valid} invalid={invalid} (Ok(false)={invalid_false} \
         Err(INVALID_SIGNATURE_ENCODING)={invalid_err}) acceptable accepted={acceptable_ok} \
         rejected={acceptable_rejected}"
    );
    if valid + invalid + acceptable_ok + acceptable_rejected == 0 {
        failures.push("no test case ran".into());
    }
    finish(file, &failures);
}

#[test]
fn wycheproof_ecdsa_der() {
    run_wycheproof(WYCHEPROOF_DER, Format::Der);
}

#[test]
fn wycheproof_ecdsa_p1363() {
    run_wycheproof(WYCHEPROOF_P1363, Format::P1363);
}

/// `04 || Qx || Qy`, each coordinate left-padded to 32 bytes; a coordinate longer than 32 bytes
/// is kept as is, so the encoding comes out over-long (and must be rejected).
fn sec1_point(qx: &[u8], qy: &[u8]) -> Vec<u8> {
    let mut out = vec![0x04];
    out.extend(left_pad(qx, 32).unwrap_or_else(|| qx.to_vec()));
    out.extend(left_pad(qy, 32).unwrap_or_else(|| qy.to_vec()));
    out
}

/// A minimal positive DER INTEGER.
fn der_integer(magnitude: &[u8]) -> Vec<u8> {
    let start = magnitude
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(magnitude.len());
    let mut value = magnitude[start..].to_vec();
    if value.first().is_none_or(|&b| b & 0x80 != 0) {
        value.insert(0, 0);
    }
    let mut out = vec![0x02, value.len() as u8];
    out.extend(value);
    out
}

fn der_signature(r: &[u8], s: &[u8]) -> Vec<u8> {
    let mut body = der_integer(r);
    body.extend(der_integer(s));
    let mut out = vec![0x30, body.len() as u8];
    out.extend(body);
    out
}

/// `P (0 )` -> true, `F (...)` -> false.
fn passes(result: &str) -> bool {
    match result.chars().next() {
        Some('P') => true,
        Some('F') => false,
        _ => panic!("unexpected Result {result:?}"),
    }
}

#[test]
fn nist_sigver_p256_sha256() {
    let Some(text) = read_vector_file(NIST_SIGVER) else {
        return;
    };
    let mut failures = Vec::new();
    let records = kv_records(&text, "Result");
    let (mut pass, mut fail, mut fail_bad_key) = (0, 0, 0);
    for (index, record) in records.iter().enumerate() {
        let result_text = field(record, "Result");
        let id = format!("record {} (Result = {result_text})", index + 1);
        let point = sec1_point(&unhex(field(record, "Qx")), &unhex(field(record, "Qy")));
        let msg = unhex(field(record, "Msg"));
        let sig = der_signature(&unhex(field(record, "R")), &unhex(field(record, "S")));
        let expected = passes(result_text);
        if expected {
            pass += 1;
        } else {
            fail += 1;
        }
        let key = match VerifyingKey::parse(&point) {
            Ok(key) => key,
            Err(err) if !expected => {
                fail_bad_key += 1;
                println!("  sigver {id}: key rejected by parse ({})", err.code());
                continue;
            }
            Err(err) => {
                failures.push(format!("{id}: VerifyingKey::parse: {err}"));
                continue;
            }
        };
        let result = key.verify_der(&msg, &sig);
        if !matches!(result, Ok(v) if v == expected) {
            failures.push(format!(
                "{id}: expected Ok({expected}), got {}",
                describe(&result)
            ));
        }
    }
    println!(
        "nist sigver: cases={} P={pass} F={fail} (F with key rejected={fail_bad_key})",
        records.len()
    );
    if records.is_empty() {
        failures.push("no test case parsed".into());
    }
    finish(NIST_SIGVER, &failures);
}

#[test]
fn nist_pkv_p256() {
    let Some(text) = read_vector_file(NIST_PKV) else {
        return;
    };
    let mut failures = Vec::new();
    let records = kv_records(&text, "Result");
    let (mut pass, mut fail, mut over_long) = (0, 0, 0);
    for (index, record) in records.iter().enumerate() {
        let result_text = field(record, "Result");
        let id = format!("record {} (Result = {result_text})", index + 1);
        let (qx, qy) = (unhex(field(record, "Qx")), unhex(field(record, "Qy")));
        let point = sec1_point(&qx, &qy);
        let too_long = qx.len() > 32 || qy.len() > 32;
        if too_long {
            over_long += 1;
        }
        let result = PublicKey::from_sec1(&point);
        if passes(result_text) {
            pass += 1;
            match &result {
                Ok(pk) if pk.uncompressed().as_slice() == point => {}
                _ => failures.push(format!("{id}: expected Ok, got {}", describe(&result))),
            }
        } else {
            fail += 1;
            // An over-long coordinate fails the length check; the others reach the curve check.
            let want = if too_long {
                "INVALID_KEY_LENGTH"
            } else {
                "INVALID_POINT"
            };
            if !matches!(&result, Err(err) if err.code() == want) {
                failures.push(format!(
                    "{id}: expected Err({want}), got {}",
                    describe(&result)
                ));
            }
        }
    }
    println!(
        "nist pkv: cases={} P={pass} F={fail} (over-long coordinate={over_long})",
        records.len()
    );
    if records.is_empty() {
        failures.push("no test case parsed".into());
    }
    finish(NIST_PKV, &failures);
}
