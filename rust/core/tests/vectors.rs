//! Runs every file in `vectors/` (the project's own known-answer vectors, schema in
//! `vectors/README.md`) through the Rust API. pytest and `ewc vectors verify` run the same files
//! through the Python API.

use std::path::{Path, PathBuf};

use ewc_core::hpke::{self, Aad, PROFILE_INFO};
use ewc_core::{base58, envelope, p256, session, stamp, Error, KeyPair, PublicKey};
use serde_json::{json, Value};

/// The stable code of a failed case.
#[derive(Debug)]
struct Failure(String);

impl From<Error> for Failure {
    fn from(err: Error) -> Self {
        Failure(err.code().to_string())
    }
}

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
            // ephemeral key (formats.md section 3).
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
            let public_key = verified.public_key.p256().expect("a P-256 stamp");
            Ok(serde_json::json!({
                "public_key": hex::encode(public_key.compressed()),
                "signature": hex::encode(&verified.signature),
            }))
        }
        "stamp_verify_schemes" => {
            let schemes: stamp::Schemes = inputs["schemes"]
                .as_array()
                .expect("schemes is a list")
                .iter()
                .map(|name| {
                    stamp::Scheme::from_name(name.as_str().expect("a scheme name"))
                        .expect("a known scheme")
                })
                .collect();
            let expected = inputs["expected_public_key"]
                .as_str()
                .map(|text| {
                    let key = p256::decode_key_hex(text)?;
                    stamp::ExpectedKey::parse(&key, schemes)
                })
                .transpose()?;
            let verified = stamp::verify_with(
                text(inputs, "stamp"),
                &bytes(inputs, "payload"),
                expected.as_ref(),
                schemes,
            )?;
            Ok(serde_json::json!({
                "scheme": verified.scheme().name(),
                "public_key": hex::encode(verified.public_key.stamp_bytes()),
                "signature": hex::encode(&verified.signature),
            }))
        }
        "stamp_create_ed25519" => {
            let key =
                ewc_core::ed25519::KeyPair::from_private_bytes(&bytes(inputs, "private_key"))?;
            let stamp =
                stamp::create_with(&bytes(inputs, "payload"), stamp::SigningKey::Ed25519(&key))?;
            Ok(serde_json::json!({ "stamp": stamp }))
        }
        envelope_op if ENVELOPE_OPERATIONS.contains(&envelope_op) => {
            run_envelope(envelope_op, inputs)
        }
        other => panic!("unknown operation {other}"),
    }
}

/// The export, OTP and import envelope operations (formats.md sections 8, 9 and 12), run through
/// `ewc_core::envelope` with the case's `sandbox` input as the caller's sandbox decision.
const ENVELOPE_OPERATIONS: &[&str] = &[
    "export_open",
    "export_seal",
    "otp_target_seal",
    "otp_encrypt",
    "otp_decrypt",
    "import_seal",
    "import_encrypt_wallet",
    "import_open",
];

fn optional_text<'a>(inputs: &'a Value, field: &str) -> Option<&'a str> {
    inputs[field].as_str()
}

fn sandbox(inputs: &Value) -> bool {
    inputs["sandbox"].as_bool().expect("sandbox is a bool")
}

fn optional_key(inputs: &Value, field: &str) -> Result<Option<KeyPair>, Failure> {
    match optional_text(inputs, field) {
        Some(_) => Ok(Some(KeyPair::from_private_bytes(&bytes(inputs, field))?)),
        None => Ok(None),
    }
}

/// The `data` and `enclave_quorum_public` of a sealed envelope; its signature must verify.
fn signed_fields(envelope: &str, signer: Option<&KeyPair>) -> Value {
    let document: Value = serde_json::from_str(envelope).expect("the envelope is JSON");
    let keys: Vec<&String> = document.as_object().expect("an object").keys().collect();
    assert_eq!(
        keys,
        ["data", "dataSignature", "enclaveQuorumPublic", "version"],
        "the envelope's fields"
    );
    assert!(
        envelope.starts_with(r#"{"version":"v1.0.0","data":""#),
        "key order"
    );
    let data = hex::decode(document["data"].as_str().expect("data")).expect("hex data");
    let signature = document["dataSignature"].as_str().expect("dataSignature");
    let quorum = document["enclaveQuorumPublic"].as_str().expect("quorum");
    match signer {
        Some(signer) => {
            let public = signer.public_key().uncompressed();
            assert_eq!(quorum, hex::encode(public));
            let signature = hex::decode(signature).expect("hex signature");
            assert!(p256::verify_signature(public, &data, &signature).expect("DER"));
        }
        None => assert_eq!((signature, quorum), ("", "")),
    }
    json!({ "data": hex::encode(data), "enclave_quorum_public": quorum })
}

fn run_envelope(operation: &str, inputs: &Value) -> Outcome {
    let pinned = || envelope::KeyInput::Hex(text(inputs, "signer_public_key"));
    match operation {
        "export_open" => {
            let sealed = envelope::verify_export(
                text(inputs, "bundle").as_bytes(),
                pinned(),
                optional_text(inputs, "organization_id"),
                sandbox(inputs),
            )?;
            // The client key is used (and parsed) only after every envelope check.
            let client = KeyPair::from_private_bytes(&bytes(inputs, "client_private_key"))?;
            let plaintext = sealed.open(&client)?;
            Ok(json!({ "plaintext": hex::encode(plaintext.as_slice()) }))
        }
        "export_seal" => {
            let signer = optional_key(inputs, "signer_private_key")?;
            let ephemeral = KeyPair::from_private_bytes(&bytes(inputs, "ephemeral_private_key"))?;
            let client = envelope::KeyInput::Hex(text(inputs, "client_public_key"));
            let (secret, organization) = (bytes(inputs, "secret"), text(inputs, "organization_id"));
            let real = envelope::seal_export(client, &secret, organization, signer.as_ref())?;
            signed_fields(&real, signer.as_ref());
            let fixed = envelope::seal_export_with_ephemeral(
                client,
                &secret,
                organization,
                signer.as_ref(),
                &ephemeral,
            )?;
            Ok(signed_fields(&fixed, signer.as_ref()))
        }
        "otp_target_seal" => {
            let signer = optional_key(inputs, "signer_private_key")?;
            let target = envelope::KeyInput::Hex(text(inputs, "target_public_key"));
            let bundle = envelope::seal_target(
                target,
                text(inputs, "organization_id"),
                text(inputs, "user_id"),
                signer.as_ref(),
            )?;
            Ok(signed_fields(&bundle, signer.as_ref()))
        }
        "otp_encrypt" => {
            let ephemeral = KeyPair::from_private_bytes(&bytes(inputs, "ephemeral_private_key"))?;
            let args = (
                text(inputs, "target_bundle").as_bytes(),
                text(inputs, "otp_code"),
                text(inputs, "client_public_key"),
                optional_text(inputs, "organization_id"),
                optional_text(inputs, "user_id"),
                sandbox(inputs),
            );
            let (bundle, code, client, organization, user, sandbox) = args;
            let real =
                envelope::otp_encrypt(bundle, code, client, pinned(), organization, user, sandbox)?;
            let real: Value = serde_json::from_str(&real).expect("JSON");
            let keys: Vec<&String> = real.as_object().expect("an object").keys().collect();
            assert_eq!(keys, ["ciphertext", "encappedPublic"]);
            let fixed = envelope::otp_encrypt_with_ephemeral(
                bundle,
                code,
                client,
                pinned(),
                organization,
                user,
                sandbox,
                &ephemeral,
            )?;
            Ok(json!({ "encrypted_otp_bundle": fixed }))
        }
        "otp_decrypt" => {
            let sealed =
                envelope::parse_otp_bundle(text(inputs, "encrypted_otp_bundle").as_bytes())?;
            let target = KeyPair::from_private_bytes(&bytes(inputs, "target_private_key"))?;
            let submission = envelope::open_otp_submission(&sealed, &target)?;
            Ok(json!({
                "otp_code": submission.otp_code.as_str(),
                "public_key": submission.public_key,
            }))
        }
        "import_seal" => {
            let signer = optional_key(inputs, "signer_private_key")?;
            let target = envelope::KeyInput::Hex(text(inputs, "target_public_key"));
            let bundle = envelope::seal_import(
                target,
                text(inputs, "organization_id"),
                text(inputs, "user_id"),
                signer.as_ref(),
            )?;
            Ok(signed_fields(&bundle, signer.as_ref()))
        }
        "import_encrypt_wallet" => {
            // The mnemonic check lives in the Python layer (cases expecting MNEMONIC_* are
            // skipped); the plaintext is the words joined by single spaces, then the passphrase.
            let ephemeral = KeyPair::from_private_bytes(&bytes(inputs, "ephemeral_private_key"))?;
            let target = envelope::verify_import(
                text(inputs, "import_bundle").as_bytes(),
                pinned(),
                optional_text(inputs, "organization_id"),
                optional_text(inputs, "user_id"),
                sandbox(inputs),
            )?;
            let mut plaintext = text(inputs, "mnemonic")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if let Some(passphrase) = optional_text(inputs, "passphrase").filter(|p| !p.is_empty())
            {
                plaintext.push_str("\n--PASS--\n");
                plaintext.push_str(passphrase);
            }
            let real = envelope::encrypt_import(
                text(inputs, "import_bundle").as_bytes(),
                plaintext.as_bytes(),
                pinned(),
                optional_text(inputs, "organization_id"),
                optional_text(inputs, "user_id"),
                sandbox(inputs),
            )?;
            let real: Value = serde_json::from_str(&real).expect("JSON");
            assert_eq!(real.as_object().expect("an object").len(), 2);
            let fixed =
                envelope::seal_to_import_target(&target, plaintext.as_bytes(), Some(&ephemeral))?;
            Ok(json!({ "encrypted_bundle": fixed }))
        }
        "import_open" => {
            let sealed = envelope::parse_import(text(inputs, "encrypted_bundle").as_bytes())?;
            let target = KeyPair::from_private_bytes(&bytes(inputs, "target_private_key"))?;
            let plaintext = sealed.open(&target)?;
            Ok(json!({ "plaintext": hex::encode(plaintext.as_slice()) }))
        }
        other => panic!("not an envelope operation: {other}"),
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
    // Private-key formats (Solana's Ed25519, bech32) and the typed export opens live in the
    // Python layer; so does the key decoding of a private-key import.
    "private_key_encode",
    "private_key_decode",
    "export_open_typed",
    "import_encrypt_private_key",
    // The key infrastructure's webhooks (Ed25519 by pyca/cryptography) live in the Python layer.
    "turnkey_webhook_verify",
    "turnkey_webhook_sign",
];

/// Skipped here and counted as skipped: sandbox acceptance (`sandbox-valid-signature`) is a
/// policy of the Python layer, not of the core, and so are the Python-layer operations. The
/// envelope operations run their sandbox cases: the case's `sandbox` input is the caller's
/// sandbox decision, passed to the core as a bool.
fn skipped(case: &Value) -> bool {
    let operation = case["operation"].as_str().unwrap_or_default();
    (case["inputs"]["sandbox"].as_bool() == Some(true) && !ENVELOPE_OPERATIONS.contains(&operation))
        || PYTHON_LAYER_OPERATIONS.contains(&operation)
        // The BIP-39 check of a wallet import is the Python layer's.
        || (operation == "import_encrypt_wallet"
            && case["error"].as_str().is_some_and(|code| code.starts_with("MNEMONIC_")))
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
