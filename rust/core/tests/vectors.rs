//! Runs every file in `vectors/` (the project's own known-answer vectors, schema in
//! `vectors/README.md`) through the Rust API. pytest and `ewc vectors verify` run the same files
//! through the Python API.

mod envelope;

use std::path::{Path, PathBuf};

use envelope::Failure;
use ewc_core::hpke::{self, Aad, PROFILE_INFO};
use ewc_core::{base58, p256, session, stamp, KeyPair, PublicKey};
use serde_json::Value;

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

fn text<'a>(inputs: &'a Value, field: &str) -> &'a str {
    inputs[field]
        .as_str()
        .unwrap_or_else(|| panic!("field {field} is not a string"))
}

fn bytes(inputs: &Value, field: &str) -> Vec<u8> {
    hex::decode(text(inputs, field)).unwrap_or_else(|_| panic!("field {field} is not hex"))
}

/// `null` selects the wallet profile's AAD.
fn aad(inputs: &Value) -> Option<Vec<u8>> {
    inputs["aad"]
        .as_str()
        .map(|h| hex::decode(h).expect("aad is hex"))
}

fn aad_ref(aad: &Option<Vec<u8>>) -> Aad<'_> {
    aad.as_deref().map_or(Aad::Profile, Aad::Explicit)
}

/// What an operation produced: its outputs as JSON, or the error's code.
type Outcome = Result<Value, Failure>;

fn run_case(operation: &str, inputs: &Value) -> Outcome {
    match operation {
        "hpke_seal_open" => {
            let recipient = KeyPair::from_private_bytes(&bytes(inputs, "recipient_private_key"))?;
            let ephemeral = KeyPair::from_private_bytes(&bytes(inputs, "ephemeral_private_key"))?;
            let (info, plaintext, aad) = (
                bytes(inputs, "info"),
                bytes(inputs, "plaintext"),
                aad(inputs),
            );
            let (enc, ciphertext) = hpke::seal_with_ephemeral(
                recipient.public_key(),
                &info,
                aad_ref(&aad),
                &plaintext,
                &ephemeral,
            )?;
            let opened = hpke::open(&recipient, &enc, &info, aad_ref(&aad), &ciphertext)?;
            assert_eq!(opened.as_slice(), plaintext, "round trip");
            Ok(serde_json::json!({"enc": hex::encode(enc), "ciphertext": hex::encode(ciphertext)}))
        }
        "hpke_open" => {
            let recipient = KeyPair::from_private_bytes(&bytes(inputs, "recipient_private_key"))?;
            let aad = aad(inputs);
            let plaintext = hpke::open(
                &recipient,
                &bytes(inputs, "enc"),
                &bytes(inputs, "info"),
                aad_ref(&aad),
                &bytes(inputs, "ciphertext"),
            )?;
            Ok(serde_json::json!({"plaintext": hex::encode(plaintext.as_slice())}))
        }
        "hpke_derive_key_pair" => {
            let key = hpke::derive_key_pair(&bytes(inputs, "ikm"))?;
            Ok(serde_json::json!({
                "private_key": hex::encode(key.private_key_bytes()?.as_ref()),
                "public_key": hex::encode(key.public_key().uncompressed()),
            }))
        }
        "public_key_parse" => {
            let key = PublicKey::from_hex(text(inputs, "public_key"))?;
            Ok(serde_json::json!({
                "uncompressed": hex::encode(key.uncompressed()),
                "compressed": hex::encode(key.compressed()),
            }))
        }
        "private_key_load" => {
            let key = KeyPair::from_private_bytes(&bytes(inputs, "private_key"))?;
            Ok(serde_json::json!({
                "public_key": hex::encode(key.public_key().uncompressed()),
                "public_key_compressed": hex::encode(key.public_key().compressed()),
            }))
        }
        "ecdsa_verify" => {
            let public_key = p256::decode_key_hex(text(inputs, "public_key"))?;
            let verified = p256::verify_signature(
                &public_key,
                &bytes(inputs, "message"),
                &bytes(inputs, "signature"),
            )?;
            Ok(serde_json::json!({ "verified": verified }))
        }
        "b58check_encode" => {
            let payload = bytes(inputs, "payload");
            let text = base58::check_encode(&payload);
            assert_eq!(base58::check_decode(&text)?, payload, "decode of encode");
            Ok(serde_json::json!({ "text": text }))
        }
        "b58check_decode" => {
            let payload = base58::check_decode(text(inputs, "text"))?;
            Ok(serde_json::json!({ "payload": hex::encode(payload) }))
        }
        "session_key_seal" => {
            let client = p256::decode_key_hex(text(inputs, "client_public_key"))?;
            let session_key = KeyPair::from_private_bytes(&bytes(inputs, "session_private_key"))?;
            let ephemeral = KeyPair::from_private_bytes(&bytes(inputs, "ephemeral_private_key"))?;
            // The real seal first: its errors (CLIENT_HELD_KEY, invalid points) are the case's.
            let sealed = session::seal_session_key(&client, &session_key)?;
            assert_eq!(base58::check_decode(&sealed)?.len(), session::SEALED_LEN);
            // The core has no deterministic session-key seal: the same steps with a fixed
            // ephemeral key (FORMATS.md section 3).
            let scalar = session_key.private_key_bytes()?;
            let (enc, ciphertext) = hpke::seal_with_ephemeral(
                &PublicKey::from_sec1(&client)?,
                PROFILE_INFO,
                Aad::Profile,
                scalar.as_ref(),
                &ephemeral,
            )?;
            let mut wire = PublicKey::from_sec1(&enc)?.compressed().to_vec();
            wire.extend_from_slice(&ciphertext);
            Ok(serde_json::json!({ "encrypted": base58::check_encode(&wire) }))
        }
        "session_key_open" => {
            let client = KeyPair::from_private_bytes(&bytes(inputs, "client_private_key"))?;
            let opened = session::open_session_key(text(inputs, "encrypted"), &client)?;
            Ok(serde_json::json!({
                "session_private_key": hex::encode(opened.private_key_bytes()?.as_ref()),
                "session_public_key": hex::encode(opened.public_key().uncompressed()),
            }))
        }
        "stamp_verify" => {
            let expected = inputs["expected_public_key"]
                .as_str()
                .map(PublicKey::from_hex)
                .transpose()?;
            let verified = stamp::verify(
                text(inputs, "stamp"),
                &bytes(inputs, "payload"),
                expected.as_ref(),
            )?;
            Ok(serde_json::json!({
                "public_key": hex::encode(verified.public_key.compressed()),
                "signature": hex::encode(&verified.signature),
            }))
        }
        envelope_op if envelope::OPERATIONS.contains(&envelope_op) => {
            envelope::run(envelope_op, inputs)
        }
        other => panic!("unknown operation {other}"),
    }
}

/// Operations that exist only in the Python layer: the signed-retry protocol (its stores and
/// clock live there). `ewc vectors verify` and pytest run them.
const PYTHON_LAYER_OPERATIONS: &[&str] = &[
    "signed_retry_scenario",
    // OIDC ID tokens: JWS, JWKS and claim rules live in the Python layer (PyJWT).
    "oidc_nonce",
    "oidc_verify",
    "oidc_token_shape",
    // Passkeys: WebAuthn parsing, attestation (py_webauthn) and the sandbox policy live in the
    // Python layer; only the ES256 signature check reaches the core (`verify_signature`).
    "passkey_registration",
    "passkey_assertion",
    "passkey_session_challenge",
    "passkey_session_login",
];

/// Skipped here and counted as skipped: sandbox acceptance (`sandbox-valid-signature`) is a
/// policy of the Python layer, not of the core, and so are the Python-layer operations. The
/// envelope operations run their sandbox cases: `envelope` applies the case's `sandbox` input.
fn skipped(case: &Value) -> bool {
    let operation = case["operation"].as_str().unwrap_or_default();
    (case["inputs"]["sandbox"].as_bool() == Some(true)
        && !envelope::OPERATIONS.contains(&operation))
        || PYTHON_LAYER_OPERATIONS.contains(&operation)
}

/// Checks one case; returns a failure message, or None when it passed.
fn check_case(case: &Value) -> Option<String> {
    let id = case["id"].as_str().unwrap_or("<no id>");
    let operation = case["operation"].as_str().unwrap_or("<no operation>");
    let outcome = run_case(operation, &case["inputs"]);
    let valid = case["valid"].as_bool().expect("valid is a bool");
    match (valid, outcome) {
        (true, Ok(outputs)) => {
            let expected = case["expected"].as_object().expect("expected is an object");
            let wrong: Vec<&String> = expected
                .iter()
                .filter(|(field, value)| outputs.get(field.as_str()) != Some(*value))
                .map(|(field, _)| field)
                .collect();
            (!wrong.is_empty()).then(|| format!("{id}: wrong {wrong:?}: got {outputs}"))
        }
        (true, Err(err)) => Some(format!("{id}: expected success, got {}", err.0)),
        (false, Ok(outputs)) => Some(format!("{id}: expected an error, got {outputs}")),
        (false, Err(err)) => {
            let code = case["error"].as_str().expect("error is a string");
            (err.0 != code).then(|| format!("{id}: expected {code}, got {}", err.0))
        }
    }
}

#[test]
fn every_vector_file_passes_through_the_rust_api() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .expect("vectors/ exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vector files in {:?}", vectors_dir());
    let mut failures = Vec::new();
    for path in &files {
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("readable file"))
                .expect("valid JSON");
        assert_eq!(file["schema"], "ewc-vectors/1", "{path:?}");
        let cases = file["cases"].as_array().expect("cases is an array");
        let before = failures.len();
        let run: Vec<&Value> = cases.iter().filter(|case| !skipped(case)).collect();
        failures.extend(run.iter().copied().filter_map(check_case));
        let failed = failures.len() - before;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        println!(
            "vectors/{name}: cases={} passed={} failed={failed} skipped={}",
            cases.len(),
            run.len() - failed,
            cases.len() - run.len(),
        );
    }
    assert!(
        failures.is_empty(),
        "failed cases:\n{}",
        failures.join("\n")
    );
}
