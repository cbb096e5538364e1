//! base58 and base58check against Bitcoin Core, bitcoinjs/bs58check and cryptocoinjs/base-x.

mod common;

use common::{arr, describe, finish, load_json, s, unhex};
use ewc_core::base58;

const BITCOIN: &str = "base58/bitcoin_base58_encode_decode.json";
const BS58CHECK: &str = "base58/bs58check_fixtures.json";
const BASE_X: &str = "base58/base-x_fixtures_base58only.json";

/// Plain base58 both ways.
fn check_plain(id: &str, bytes: &[u8], text: &str, failures: &mut Vec<String>) {
    let encoded = base58::encode(bytes);
    if encoded != text {
        failures.push(format!(
            "{id}: encode({}) = {encoded:?}, expected {text:?}",
            hex::encode(bytes)
        ));
    }
    match base58::decode(text) {
        Ok(decoded) if decoded == bytes => {}
        other => failures.push(format!(
            "{id}: decode({text:?}) = {}, expected {}",
            describe(&other.map(hex::encode)),
            hex::encode(bytes)
        )),
    }
}

#[test]
fn bitcoin_base58_encode_decode() {
    let Some(doc) = load_json(BITCOIN) else {
        return;
    };
    let mut failures = Vec::new();
    let cases = doc.as_array().expect("a JSON array of [hex, base58] pairs");
    for (index, case) in cases.iter().enumerate() {
        let pair = case.as_array().expect("a [hex, base58] pair");
        let (Some(hex_text), Some(text)) = (pair[0].as_str(), pair[1].as_str()) else {
            panic!("case {index} is not a pair of strings: {case}");
        };
        check_plain(
            &format!("case {index}"),
            &unhex(hex_text),
            text,
            &mut failures,
        );
    }
    println!("bitcoin base58: cases={}", cases.len());
    if cases.is_empty() {
        failures.push("no test case parsed".into());
    }
    finish(BITCOIN, &failures);
}

#[test]
fn bs58check_fixtures() {
    let Some(doc) = load_json(BS58CHECK) else {
        return;
    };
    let mut failures = Vec::new();
    let valid = arr(&doc, "valid");
    for (index, case) in valid.iter().enumerate() {
        let id = format!("valid #{index}");
        let (text, payload) = (s(case, "string"), unhex(s(case, "payload")));
        let encoded = base58::check_encode(&payload);
        if encoded != text {
            failures.push(format!(
                "{id}: check_encode = {encoded:?}, expected {text:?}"
            ));
        }
        match base58::check_decode(text) {
            Ok(decoded) if decoded == payload => {}
            other => failures.push(format!(
                "{id}: check_decode({text:?}) = {}, expected {}",
                describe(&other.map(hex::encode)),
                hex::encode(&payload)
            )),
        }
    }
    let invalid = arr(&doc, "invalid");
    for (index, case) in invalid.iter().enumerate() {
        let text = s(case, "string");
        let exception = s(case, "exception");
        // Upstream names the failure; the core's codes distinguish the same two.
        let want = if exception.contains("checksum") {
            "INVALID_CHECKSUM"
        } else {
            "INVALID_BASE58"
        };
        let result = base58::check_decode(text);
        if !matches!(&result, Err(err) if err.code() == want) {
            failures.push(format!(
                "invalid #{index} ({exception}): check_decode({text:?}) = {}, expected Err({want})",
                describe(&result.map(hex::encode))
            ));
        }
    }
    println!("bs58check: valid={} invalid={}", valid.len(), invalid.len());
    if valid.is_empty() || invalid.is_empty() {
        failures.push("no test case parsed".into());
    }
    finish(BS58CHECK, &failures);
}

#[test]
fn base_x_base58_fixtures() {
    let Some(doc) = load_json(BASE_X) else {
        return;
    };
    let mut failures = Vec::new();
    let valid = arr(&doc, "valid");
    let invalid = arr(&doc, "invalid");
    let mut other_alphabet = 0;
    for (index, case) in valid.iter().enumerate() {
        if s(case, "alphabet") != "base58" {
            other_alphabet += 1;
            continue;
        }
        check_plain(
            &format!("valid #{index}"),
            &unhex(s(case, "hex")),
            s(case, "string"),
            &mut failures,
        );
    }
    for (index, case) in invalid.iter().enumerate() {
        if s(case, "alphabet") != "base58" {
            other_alphabet += 1;
            continue;
        }
        let text = s(case, "string");
        let result = base58::decode(text);
        if !matches!(&result, Err(err) if err.code() == "INVALID_BASE58") {
            failures.push(format!(
                "invalid #{index} ({}): decode({text:?}) = {}, expected Err(INVALID_BASE58)",
                case["description"].as_str().unwrap_or(""),
                describe(&result.map(hex::encode))
            ));
        }
    }
    println!(
        "base-x base58: valid={} invalid={} (other alphabets skipped={other_alphabet})",
        valid.len(),
        invalid.len()
    );
    if valid.is_empty() || invalid.is_empty() {
        failures.push("no test case parsed".into());
    }
    finish(BASE_X, &failures);
}
