//! Shared helpers for the upstream-vector tests (`tests/upstream_*.rs`).
//!
//! The vectors live outside the repository: `$EWC_UPSTREAM_VECTORS`, else
//! `<workspace root>/../shared/upstream-vectors`. A missing file fails the test when `CI=true`
//! and is skipped (with a printed notice) otherwise.

#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// The upstream vector directory.
pub fn vectors_dir() -> PathBuf {
    match std::env::var_os("EWC_UPSTREAM_VECTORS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("..")
            .join("..")
            .join("shared")
            .join("upstream-vectors"),
    }
}

fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Reads `<vectors_dir>/<rel>`; `None` (after printing SKIPPED) when absent outside CI.
pub fn read_vector_file(rel: &str) -> Option<String> {
    let dir = vectors_dir();
    let path = dir.join(rel);
    if !path.is_file() {
        let message = format!(
            "{rel} not found under {} (set EWC_UPSTREAM_VECTORS)",
            dir.display()
        );
        if in_ci() {
            panic!("upstream vector file missing in CI: {message}");
        }
        println!("SKIPPED: {message}");
        return None;
    }
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(err) => panic!("cannot read {}: {err}", path.display()),
    }
}

/// Reads and parses a JSON vector file; `None` when skipped.
pub fn load_json(rel: &str) -> Option<Value> {
    let text = read_vector_file(rel)?;
    match serde_json::from_str(&text) {
        Ok(value) => Some(value),
        Err(err) => panic!("{rel} is not valid JSON: {err}"),
    }
}

/// Decodes hex, left-padding an odd-length string with one `0` (NIST files do that).
pub fn unhex(text: &str) -> Vec<u8> {
    let text = text.trim();
    let result = if text.len() % 2 == 1 {
        hex::decode(format!("0{text}"))
    } else {
        hex::decode(text)
    };
    result.unwrap_or_else(|err| panic!("bad hex in vector file ({err}): {text:?}"))
}

/// A string field of a JSON object; panics (a broken vector file) when missing.
pub fn s<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj[key]
        .as_str()
        .unwrap_or_else(|| panic!("field {key:?} missing or not a string in {obj}"))
}

/// A hex field of a JSON object, decoded.
pub fn h(obj: &Value, key: &str) -> Vec<u8> {
    unhex(s(obj, key))
}

/// An integer field of a JSON object.
pub fn u(obj: &Value, key: &str) -> u64 {
    obj[key]
        .as_u64()
        .unwrap_or_else(|| panic!("field {key:?} missing or not an integer in {obj}"))
}

/// An array field of a JSON object.
pub fn arr<'a>(obj: &'a Value, key: &str) -> &'a Vec<Value> {
    obj[key]
        .as_array()
        .unwrap_or_else(|| panic!("field {key:?} missing or not an array in {obj}"))
}

/// Iterates `(group, test)` over a Wycheproof file's `testGroups[].tests[]`.
pub fn wycheproof_tests(doc: &Value) -> impl Iterator<Item = (&Value, &Value)> {
    arr(doc, "testGroups")
        .iter()
        .flat_map(|group| arr(group, "tests").iter().map(move |test| (group, test)))
}

/// The Wycheproof `result` of a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Valid,
    Invalid,
    Acceptable,
}

pub fn expect(test: &Value) -> Expect {
    match s(test, "result") {
        "valid" => Expect::Valid,
        "invalid" => Expect::Invalid,
        "acceptable" => Expect::Acceptable,
        other => panic!("unknown Wycheproof result {other:?} in {test}"),
    }
}

/// A short `tcId N (comment)` label for failure messages.
pub fn tc(test: &Value) -> String {
    format!(
        "tcId {} ({})",
        u(test, "tcId"),
        test["comment"].as_str().unwrap_or("")
    )
}

/// `key = value` records from a NIST/CAVP-style text file. Comment (`#`) and section (`[...]`)
/// lines are skipped; a record is closed by the line whose key is `last_key`.
pub fn kv_records(text: &str, last_key: &str) -> Vec<Vec<(String, String)>> {
    let mut records = Vec::new();
    let mut current = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('[') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            panic!("unexpected line in vector file: {line:?}");
        };
        let key = key.trim().to_string();
        let done = key == last_key;
        current.push((key, value.trim().to_string()));
        if done {
            records.push(std::mem::take(&mut current));
        }
    }
    assert!(
        current.is_empty(),
        "vector file ends with an unterminated record: {current:?}"
    );
    records
}

/// The value of `key` in a record from [`kv_records`].
pub fn field<'a>(record: &'a [(String, String)], key: &str) -> &'a str {
    record
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("record has no {key:?}: {record:?}"))
}

/// Left-pads `bytes` with zeros to `len`; `None` if it is longer.
pub fn left_pad(bytes: &[u8], len: usize) -> Option<Vec<u8>> {
    if bytes.len() > len {
        return None;
    }
    let mut out = vec![0u8; len - bytes.len()];
    out.extend_from_slice(bytes);
    Some(out)
}

/// `Err` code of a result, or a description of the `Ok` value.
pub fn describe<T: core::fmt::Debug>(result: &ewc_core::Result<T>) -> String {
    match result {
        Ok(value) => format!("Ok({value:?})"),
        Err(err) => format!("Err({err})"),
    }
}

/// Panics with every failure of one file listed, if there are any.
pub fn finish(file: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{file}: {} failure(s):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}
