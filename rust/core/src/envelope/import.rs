//! Import bundles (formats.md section 12): the signed target the client encrypts to, its legacy
//! v0 form, and the encrypted bundle the enclave opens.

use zeroize::Zeroizing;

use super::otp::{seal_target_data, signed_target, target_key};
use super::signed::{check_legacy_signature, open_signed};
use super::{
    parse_public_object, parse_sealed, pinned_key, seal_profile, size_checked, text_field, unhex,
    KeyInput, Sealed, ENCRYPTED_IMPORT, IMPORT, LEGACY_IMPORT, MALFORMED,
};
use crate::error::{Error, Result};
use crate::json::{compact_json, Object};
use crate::p256::{KeyPair, PublicKey};

/// Server (enclave): the import bundle for a target key (SEC1), the signed envelope whose data
/// is `{"targetPublic", "organizationId", "userId"}`; `signer = None` writes the sandbox form.
/// An empty `user_id` is allowed (organization-level secrets). Errors: `InvalidKey` for the
/// target, then `ENVELOPE_PARAMETERS_INVALID` for an empty organization id.
pub fn seal_import(
    target_public_key: KeyInput<'_>,
    organization_id: &str,
    user_id: &str,
    signer: Option<&KeyPair>,
) -> Result<String> {
    seal_target_data(target_public_key, organization_id, user_id, false, signer)
}

/// Client: verify an import bundle and return its target key. A v1.0.0 bundle is checked in
/// order: version, signer pinned, signature, the signed data, the organization and the user
/// (each when given). The legacy v0 form `{"targetPublic", "targetPublicSignature"}` (signed over
/// the 65 raw key bytes, naming no organization or user) is read only when both
/// `organization_id` and `user_id` are `None`: the caller's explicit opt-out of those checks.
pub fn verify_import(
    import_bundle: &[u8],
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<PublicKey> {
    let bytes = size_checked(import_bundle, "the import bundle")?;
    let document = parse_public_object(bytes, IMPORT, MALFORMED)?;
    if !document.contains("version") && document.contains("targetPublicSignature") {
        return verify_import_legacy(&document, pinned, organization_id, user_id, sandbox_allowed);
    }
    let data = open_signed(&document, pinned, sandbox_allowed, IMPORT)?;
    signed_target(&data, IMPORT, organization_id, user_id)
}

fn verify_import_legacy(
    document: &Object,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<PublicKey> {
    let pinned = pinned_key(pinned)?;
    let target = text_field(document, "targetPublic", LEGACY_IMPORT, MALFORMED)?;
    let raw_target = unhex(target).ok_or_else(|| {
        Error::envelope(
            MALFORMED,
            format!("the {LEGACY_IMPORT} field 'targetPublic' is not hex"),
        )
    })?;
    let signature = text_field(document, "targetPublicSignature", LEGACY_IMPORT, MALFORMED)?;
    check_legacy_signature(
        document,
        &pinned,
        &raw_target,
        signature,
        LEGACY_IMPORT,
        sandbox_allowed,
    )?;
    if organization_id.is_some() {
        return Err(Error::envelope(
            "ENVELOPE_ORGANIZATION_MISMATCH",
            "a legacy v0 import bundle names no organization, so it cannot match \
             organization_id; accept it with organization_id=None and user_id=None",
        ));
    }
    if user_id.is_some() {
        return Err(Error::envelope(
            "ENVELOPE_USER_MISMATCH",
            "a legacy v0 import bundle names no user, so it cannot match user_id; accept it \
             with organization_id=None and user_id=None",
        ));
    }
    target_key(target, LEGACY_IMPORT)
}

/// Client: HPKE-seal `plaintext` (section 1 profile) to a verified import target and write
/// `{"encappedPublic", "ciphertext"}` as the real SDKs do. `ephemeral` only for known-answer
/// vectors: reusing an ephemeral key destroys the confidentiality HPKE provides.
pub fn seal_to_import_target(
    target: &PublicKey,
    plaintext: &[u8],
    ephemeral: Option<&KeyPair>,
) -> Result<String> {
    let (enc, ciphertext) = seal_profile(target, plaintext, ephemeral)?;
    Ok(compact_json(&[
        ("encappedPublic", &enc),
        ("ciphertext", &ciphertext),
    ]))
}

/// Client: [`verify_import`], then [`seal_to_import_target`] (the plaintext is the caller's to
/// check: a mnemonic, or 32 key bytes).
pub fn encrypt_import(
    import_bundle: &[u8],
    plaintext: &[u8],
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<String> {
    let target = verify_import(
        import_bundle,
        pinned,
        organization_id,
        user_id,
        sandbox_allowed,
    )?;
    seal_to_import_target(&target, plaintext, None)
}

/// Server (enclave): open an encrypted import bundle `{"encappedPublic", "ciphertext"}` with
/// the target key. Errors: `ENVELOPE_MALFORMED`, then `DECRYPTION_FAILED`.
pub fn open_import(encrypted_bundle: &[u8], target_key: &KeyPair) -> Result<Zeroizing<Vec<u8>>> {
    parse_import(encrypted_bundle)?.open(target_key)
}

/// Server: the envelope checks of an encrypted import bundle, before the key is needed.
pub fn parse_import(encrypted_bundle: &[u8]) -> Result<Sealed> {
    parse_sealed(encrypted_bundle, ENCRYPTED_IMPORT)
}

#[cfg(test)]
mod tests {
    use crate::envelope::*;
    use crate::p256::KeyPair;

    #[test]
    fn import_round_trip_and_checks() {
        let signer = KeyPair::generate().unwrap();
        let target = KeyPair::generate().unwrap();
        let pinned = signer.public_key().uncompressed().to_vec();
        let pin = || KeyInput::Sec1(&pinned[..]);
        let target_pub = KeyInput::Sec1(target.public_key().uncompressed());
        let bundle = seal_import(target_pub, "org", "", Some(&signer)).unwrap();
        let sealed = encrypt_import(
            bundle.as_bytes(),
            b"words",
            pin(),
            Some("org"),
            Some(""),
            false,
        )
        .unwrap();
        assert!(sealed.starts_with(r#"{"encappedPublic":""#));
        assert_eq!(
            open_import(sealed.as_bytes(), &target).unwrap().as_slice(),
            b"words"
        );
        let err = encrypt_import(
            bundle.as_bytes(),
            b"w",
            pin(),
            Some("org"),
            Some("u"),
            false,
        );
        assert_eq!(err.unwrap_err().code(), "ENVELOPE_USER_MISMATCH");
        let err = seal_import(target_pub, "", "u", None).unwrap_err();
        assert_eq!(err.code(), PARAMETERS_INVALID);
        // v0: signed over the raw key bytes, read only with both checks opted out.
        let raw = target.public_key().uncompressed();
        let v0 = format!(
            r#"{{"targetPublic":"{}","targetPublicSignature":"{}"}}"#,
            hex::encode(raw),
            hex::encode(signer.sign(raw).unwrap())
        );
        assert!(verify_import(v0.as_bytes(), pin(), None, None, false).is_ok());
        let err = verify_import(v0.as_bytes(), pin(), Some("org"), None, false).unwrap_err();
        assert_eq!(err.code(), "ENVELOPE_ORGANIZATION_MISMATCH");
        let err = verify_import(v0.as_bytes(), pin(), None, Some(""), false).unwrap_err();
        assert_eq!(err.code(), "ENVELOPE_USER_MISMATCH");
        let other = KeyPair::generate().unwrap();
        let other_pin = other.public_key().uncompressed().to_vec();
        let err = verify_import(v0.as_bytes(), KeyInput::Sec1(&other_pin), None, None, false);
        assert_eq!(err.unwrap_err().code(), "ENVELOPE_SIGNATURE_INVALID");
    }
}
