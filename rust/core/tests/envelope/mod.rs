//! The export and OTP envelope operations of `vectors/export.json` and `vectors/otp.json`
//! (FORMATS.md sections 8 and 9) through the Rust API. The core verifies the signatures
//! (`p256::verify_signature` over the exact data bytes) and seals and opens HPKE
//! (`hpke::seal_with_ephemeral`, `hpke::open`); the envelope checks around them are the Python
//! layer's (`python/embedded_wallet_crypto/_envelope.py`), written again here on serde_json in
//! the same order, so that both layers must reach the same verdicts and codes.

use ewc_core::hpke::{self, Aad, PROFILE_INFO};
use ewc_core::{p256, Error, KeyPair, PublicKey};
use serde_json::{json, Map, Value};

/// The operations this module runs.
pub const OPERATIONS: &[&str] = &[
    "export_open",
    "export_seal",
    "otp_target_seal",
    "otp_encrypt",
    "otp_decrypt",
];

const VERSION: &str = "v1.0.0";
const MALFORMED: &str = "ENVELOPE_MALFORMED";
const DATA_MALFORMED: &str = "ENVELOPE_DATA_MALFORMED";
const PARAMETERS_INVALID: &str = "ENVELOPE_PARAMETERS_INVALID";

/// The stable code of a failed case: a core error's, or an envelope check's.
#[derive(Debug)]
pub struct Failure(pub String);

impl From<Error> for Failure {
    fn from(err: Error) -> Self {
        Failure(err.code().to_string())
    }
}

type Object = Map<String, Value>;
type Outcome = Result<Value, Failure>;

fn fail<T>(code: &str) -> Result<T, Failure> {
    Err(Failure(code.to_string()))
}

fn input<'a>(inputs: &'a Value, field: &str) -> &'a str {
    inputs[field]
        .as_str()
        .unwrap_or_else(|| panic!("input {field} is not a string"))
}

fn input_key(inputs: &Value, field: &str) -> Result<KeyPair, Failure> {
    let scalar = hex::decode(input(inputs, field)).expect("a private key input is hex");
    Ok(KeyPair::from_private_bytes(&scalar)?)
}

fn optional_input<'a>(inputs: &'a Value, field: &str) -> Option<&'a str> {
    inputs[field].as_str()
}

fn sandbox(inputs: &Value) -> bool {
    inputs["sandbox"].as_bool().expect("sandbox is a bool")
}

/// A JSON object (serde_json also refuses invalid UTF-8, deep nesting and numbers out of range).
fn json_object(bytes: &[u8], code: &str) -> Result<Object, Failure> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(object)) => Ok(object),
        _ => fail(code),
    }
}

fn text<'a>(object: &'a Object, field: &str, code: &str) -> Result<&'a str, Failure> {
    object
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| Failure(code.to_string()))
}

fn hex_field(object: &Object, field: &str, code: &str) -> Result<Vec<u8>, Failure> {
    hex::decode(text(object, field, code)?).map_err(|_| Failure(code.to_string()))
}

fn pinned_key(inputs: &Value) -> Result<Vec<u8>, Failure> {
    let key = PublicKey::from_hex(input(inputs, "signer_public_key"))?;
    Ok(key.uncompressed().to_vec())
}

/// Signer pinned (the embedded key is the pinned key), then the signature with the pinned key.
fn verify_by_pinned(pinned: &[u8], embedded: &str, message: &[u8], signature: &str) -> Outcome {
    if hex::decode(embedded).ok().as_deref() != Some(pinned) {
        return fail("ENVELOPE_SIGNER_NOT_PINNED");
    }
    let signature = hex::decode(signature).unwrap_or_default();
    match p256::verify_signature(pinned, message, &signature) {
        Ok(true) => Ok(Value::Null),
        _ => fail("ENVELOPE_SIGNATURE_INVALID"),
    }
}

fn refuse_unsigned(sandbox: bool) -> Outcome {
    if sandbox {
        Ok(Value::Null)
    } else {
        fail("ENVELOPE_UNSIGNED")
    }
}

/// Version, signer pinned, signature over the data bytes; returns the signed data object.
fn open_signed(document: &Object, pinned: &[u8], sandbox: bool) -> Result<Object, Failure> {
    if document.get("version") != Some(&Value::from(VERSION)) {
        return fail("ENVELOPE_VERSION_UNSUPPORTED");
    }
    let data = hex_field(document, "data", MALFORMED)?;
    let signature = text(document, "dataSignature", MALFORMED)?;
    let signer = text(document, "enclaveQuorumPublic", MALFORMED)?;
    if signer.is_empty() {
        // No signer key: only the sandbox form (no signature either) may open.
        refuse_unsigned(sandbox && signature.is_empty())?;
    } else {
        verify_by_pinned(pinned, signer, &data, signature)?;
    }
    json_object(&data, DATA_MALFORMED)
}

/// Legacy v0: the signature covers the encappedPublic bytes; no organization is named.
fn open_legacy(
    document: &Object,
    pinned: &[u8],
    sandbox: bool,
) -> Result<(Vec<u8>, Vec<u8>), Failure> {
    let enc = hex_field(document, "encappedPublic", MALFORMED)?;
    let signature = text(document, "encappedPublicSignature", MALFORMED)?;
    let ciphertext = hex_field(document, "ciphertext", MALFORMED)?;
    let embedded = match document.get("enclaveQuorumPublic") {
        None => "",
        Some(Value::String(key)) => key.as_str(),
        Some(_) => return fail(MALFORMED),
    };
    if signature.is_empty() {
        if !embedded.is_empty() {
            return fail("ENVELOPE_SIGNATURE_INVALID");
        }
        refuse_unsigned(sandbox)?;
    } else {
        let embedded = if embedded.is_empty() {
            hex::encode(pinned)
        } else {
            embedded.to_string()
        };
        verify_by_pinned(pinned, &embedded, &enc, signature)?;
    }
    Ok((enc, ciphertext))
}

fn check_same(expected: Option<&str>, signed: &str, code: &str) -> Outcome {
    match expected {
        Some(expected) if expected != signed => fail(code),
        _ => Ok(Value::Null),
    }
}

fn export_open(inputs: &Value) -> Outcome {
    let client = input_key(inputs, "client_private_key")?;
    let organization = optional_input(inputs, "organization_id");
    let pinned = pinned_key(inputs)?;
    let document = json_object(input(inputs, "bundle").as_bytes(), MALFORMED)?;
    let (enc, ciphertext) = if document.contains_key("version") {
        let data = open_signed(&document, &pinned, sandbox(inputs))?;
        let enc = hex_field(&data, "encappedPublic", DATA_MALFORMED)?;
        let ciphertext = hex_field(&data, "ciphertext", DATA_MALFORMED)?;
        let signed = text(&data, "organizationId", DATA_MALFORMED)?;
        check_same(organization, signed, "ENVELOPE_ORGANIZATION_MISMATCH")?;
        (enc, ciphertext)
    } else {
        let (enc, ciphertext) = open_legacy(&document, &pinned, sandbox(inputs))?;
        if organization.is_some() {
            return fail("ENVELOPE_ORGANIZATION_MISMATCH");
        }
        (enc, ciphertext)
    };
    let plaintext = hpke::open(&client, &enc, PROFILE_INFO, Aad::Profile, &ciphertext)?;
    Ok(json!({ "plaintext": hex::encode(plaintext.as_slice()) }))
}

/// The envelope fields of a sealing case: the signature (when signed) must verify.
fn signed_fields(data: &str, inputs: &Value) -> Outcome {
    let signer = match optional_input(inputs, "signer_private_key") {
        Some(_) => Some(input_key(inputs, "signer_private_key")?),
        None => None,
    };
    let quorum = match &signer {
        Some(signer) => {
            let signature = signer.sign(data.as_bytes())?;
            let public = signer.public_key().uncompressed();
            assert!(p256::verify_signature(public, data.as_bytes(), &signature)?);
            hex::encode(public)
        }
        None => String::new(),
    };
    Ok(json!({ "data": hex::encode(data), "enclave_quorum_public": quorum }))
}

fn required_text<'a>(inputs: &'a Value, field: &str) -> Result<&'a str, Failure> {
    let value = input(inputs, field);
    if value.is_empty() {
        return fail(PARAMETERS_INVALID);
    }
    Ok(value)
}

fn json_string(value: &str) -> String {
    serde_json::to_string(value).expect("a string serialises")
}

fn export_seal(inputs: &Value) -> Outcome {
    let organization = required_text(inputs, "organization_id")?;
    let client = PublicKey::from_hex(input(inputs, "client_public_key"))?;
    let secret = hex::decode(input(inputs, "secret")).expect("secret is hex");
    let ephemeral = input_key(inputs, "ephemeral_private_key")?;
    let (enc, ciphertext) =
        hpke::seal_with_ephemeral(&client, PROFILE_INFO, Aad::Profile, &secret, &ephemeral)?;
    let data = format!(
        r#"{{"encappedPublic":"{}","ciphertext":"{}","organizationId":{}}}"#,
        hex::encode(enc),
        hex::encode(ciphertext),
        json_string(organization),
    );
    signed_fields(&data, inputs)
}

fn otp_target_seal(inputs: &Value) -> Outcome {
    let target = PublicKey::from_hex(input(inputs, "target_public_key"))?;
    let organization = required_text(inputs, "organization_id")?;
    let user = required_text(inputs, "user_id")?;
    let data = format!(
        r#"{{"targetPublic":"{}","organizationId":{},"userId":{}}}"#,
        hex::encode(target.uncompressed()),
        json_string(organization),
        json_string(user),
    );
    signed_fields(&data, inputs)
}

fn otp_encrypt(inputs: &Value) -> Outcome {
    let code = input(inputs, "otp_code");
    if !(1..=64).contains(&code.len()) || !code.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return fail("OTP_MALFORMED");
    }
    let client = input(inputs, "client_public_key");
    PublicKey::from_hex(client)?;
    let pinned = pinned_key(inputs)?;
    let document = json_object(input(inputs, "target_bundle").as_bytes(), MALFORMED)?;
    let data = open_signed(&document, &pinned, sandbox(inputs))?;
    let target = text(&data, "targetPublic", DATA_MALFORMED)?;
    let organization = text(&data, "organizationId", DATA_MALFORMED)?;
    let user = text(&data, "userId", DATA_MALFORMED)?;
    let expected_organization = optional_input(inputs, "organization_id");
    check_same(
        expected_organization,
        organization,
        "ENVELOPE_ORGANIZATION_MISMATCH",
    )?;
    check_same(
        optional_input(inputs, "user_id"),
        user,
        "ENVELOPE_USER_MISMATCH",
    )?;
    let target = PublicKey::from_hex(target)
        .map_err(|_| Failure("ENVELOPE_TARGET_KEY_INVALID".to_string()))?;
    let plaintext = format!(
        r#"{{"otp_code":"{code}","public_key":"{}"}}"#,
        client.to_lowercase()
    );
    let ephemeral = input_key(inputs, "ephemeral_private_key")?;
    let (enc, ciphertext) = hpke::seal_with_ephemeral(
        &target,
        PROFILE_INFO,
        Aad::Profile,
        plaintext.as_bytes(),
        &ephemeral,
    )?;
    let bundle = format!(
        r#"{{"encappedPublic":"{}","ciphertext":"{}"}}"#,
        hex::encode(enc),
        hex::encode(ciphertext)
    );
    Ok(json!({ "encrypted_otp_bundle": bundle }))
}

fn otp_decrypt(inputs: &Value) -> Outcome {
    let target = input_key(inputs, "target_private_key")?;
    let document = json_object(input(inputs, "encrypted_otp_bundle").as_bytes(), MALFORMED)?;
    let enc = hex_field(&document, "encappedPublic", MALFORMED)?;
    let ciphertext = hex_field(&document, "ciphertext", MALFORMED)?;
    let plaintext = hpke::open(&target, &enc, PROFILE_INFO, Aad::Profile, &ciphertext)?;
    let sealed = json_object(&plaintext, DATA_MALFORMED)?;
    let code = text(&sealed, "otp_code", DATA_MALFORMED)?;
    let public_key = text(&sealed, "public_key", DATA_MALFORMED)?;
    PublicKey::from_hex(public_key).map_err(|_| Failure(DATA_MALFORMED.to_string()))?;
    Ok(json!({ "otp_code": code, "public_key": public_key.to_lowercase() }))
}

/// Runs one envelope operation (one of [`OPERATIONS`]).
pub fn run(operation: &str, inputs: &Value) -> Outcome {
    match operation {
        "export_open" => export_open(inputs),
        "export_seal" => export_seal(inputs),
        "otp_target_seal" => otp_target_seal(inputs),
        "otp_encrypt" => otp_encrypt(inputs),
        "otp_decrypt" => otp_decrypt(inputs),
        other => panic!("not an envelope operation: {other}"),
    }
}
