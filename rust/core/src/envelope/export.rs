//! Export bundles (formats.md section 8): the v1.0.0 envelope whose signed data is
//! `{"encappedPublic", "ciphertext", "organizationId"}`, and the legacy v0 form.

use zeroize::Zeroizing;

use super::signed::{build_signed, check_legacy_signature, open_signed};
use super::{
    hex_field, mismatch, parse_public_object, pinned_key, require_text, seal_profile, size_checked,
    text_field, KeyInput, Sealed, DATA_MALFORMED, EXPORT, LEGACY, MALFORMED,
};
use crate::error::{Error, Result};
use crate::json::{compact_json, Object};
use crate::p256::KeyPair;

/// Client: the envelope checks of an export bundle (v1.0.0, or legacy v0), every one before the
/// decryption: version, signer pinned, signature, the signed data, the organization. Returns the
/// sealed secret, to [`Sealed::open`] with the client key.
///
/// `organization_id`, when given, must equal the signed `organizationId`; a v0 envelope names
/// none, so it opens only with `None`.
pub fn verify_export(
    bundle: &[u8],
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<Sealed> {
    let document = parse_public_object(
        size_checked(bundle, "the export envelope")?,
        EXPORT,
        MALFORMED,
    )?;
    if !document.contains("version") {
        return verify_legacy(&document, pinned, organization_id, sandbox_allowed);
    }
    let data = open_signed(&document, pinned, sandbox_allowed, EXPORT)?;
    let what = "the export envelope data";
    let enc = hex_field(&data, "encappedPublic", what, DATA_MALFORMED)?;
    let ciphertext = hex_field(&data, "ciphertext", what, DATA_MALFORMED)?;
    let signed_organization = text_field(&data, "organizationId", what, DATA_MALFORMED)?;
    if organization_id.is_some_and(|expected| expected != signed_organization) {
        return Err(mismatch(
            EXPORT,
            "organization",
            "ENVELOPE_ORGANIZATION_MISMATCH",
        ));
    }
    Ok(Sealed { enc, ciphertext })
}

/// Legacy v0 `{encappedPublic, encappedPublicSignature, ciphertext}`: the signature covers the
/// hex-decoded `encappedPublic` bytes; an `enclaveQuorumPublic` it carries must be the pinned
/// key; an empty signature is the unsigned form, which needs the sandbox.
fn verify_legacy(
    document: &Object,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<Sealed> {
    let pinned = pinned_key(pinned)?;
    let enc = hex_field(document, "encappedPublic", LEGACY, MALFORMED)?;
    let signature = text_field(document, "encappedPublicSignature", LEGACY, MALFORMED)?;
    let ciphertext = hex_field(document, "ciphertext", LEGACY, MALFORMED)?;
    check_legacy_signature(document, &pinned, &enc, signature, LEGACY, sandbox_allowed)?;
    if organization_id.is_some() {
        return Err(Error::envelope(
            "ENVELOPE_ORGANIZATION_MISMATCH",
            "a legacy v0 export envelope names no organization, so it cannot match \
             organization_id; open it with organization_id=None",
        ));
    }
    Ok(Sealed { enc, ciphertext })
}

/// Client: [`verify_export`], then open with the client key. Returns the plaintext: the UTF-8
/// mnemonic of a wallet export, the 32 key bytes of a key export.
pub fn open_export(
    bundle: &[u8],
    client_key: &KeyPair,
    organization_id: Option<&str>,
    pinned: KeyInput<'_>,
    sandbox_allowed: bool,
) -> Result<Zeroizing<Vec<u8>>> {
    verify_export(bundle, pinned, organization_id, sandbox_allowed)?.open(client_key)
}

/// Server: seal `secret` to the client's SEC1 key as a v1.0.0 export envelope; `signer = None`
/// writes the sandbox form. Errors: `ENVELOPE_PARAMETERS_INVALID` for an empty organization id,
/// then `InvalidKey` for the client key.
pub fn seal_export(
    client_public_key: KeyInput<'_>,
    secret: &[u8],
    organization_id: &str,
    signer: Option<&KeyPair>,
) -> Result<String> {
    seal_export_inner(client_public_key, secret, organization_id, signer, None)
}

/// [`seal_export`] with a caller-chosen HPKE ephemeral key, for known-answer vectors only:
/// reusing an ephemeral key destroys the confidentiality HPKE provides.
pub fn seal_export_with_ephemeral(
    client_public_key: KeyInput<'_>,
    secret: &[u8],
    organization_id: &str,
    signer: Option<&KeyPair>,
    ephemeral: &KeyPair,
) -> Result<String> {
    seal_export_inner(
        client_public_key,
        secret,
        organization_id,
        signer,
        Some(ephemeral),
    )
}

fn seal_export_inner(
    client_public_key: KeyInput<'_>,
    secret: &[u8],
    organization_id: &str,
    signer: Option<&KeyPair>,
    ephemeral: Option<&KeyPair>,
) -> Result<String> {
    let organization_id = require_text(organization_id, "organization_id")?;
    let recipient = client_public_key.parse()?;
    let (enc, ciphertext) = seal_profile(&recipient, secret, ephemeral)?;
    let data = compact_json(&[
        ("encappedPublic", &enc),
        ("ciphertext", &ciphertext),
        ("organizationId", organization_id),
    ]);
    build_signed(data.as_bytes(), signer)
}

#[cfg(test)]
mod tests {
    use crate::envelope::*;
    use crate::p256::KeyPair;

    #[test]
    fn export_round_trip_and_checks() {
        let signer = KeyPair::generate().unwrap();
        let client = KeyPair::generate().unwrap();
        let pinned = signer.public_key().uncompressed().to_vec();
        let client_pub = client.public_key().uncompressed().to_vec();
        let bundle = seal_export(
            KeyInput::Sec1(&client_pub[..]),
            b"secret",
            "org-é",
            Some(&signer),
        )
        .unwrap();
        let opened = open_export(
            bundle.as_bytes(),
            &client,
            Some("org-é"),
            KeyInput::Sec1(&pinned[..]),
            false,
        );
        assert_eq!(opened.unwrap().as_slice(), b"secret");
        let err = open_export(
            bundle.as_bytes(),
            &client,
            Some("org"),
            KeyInput::Sec1(&pinned[..]),
            false,
        );
        assert_eq!(err.unwrap_err().code(), "ENVELOPE_ORGANIZATION_MISMATCH");
        let sandbox = seal_export(KeyInput::Sec1(&client_pub[..]), b"secret", "org", None).unwrap();
        let err = open_export(
            sandbox.as_bytes(),
            &client,
            None,
            KeyInput::Sec1(&pinned[..]),
            false,
        )
        .unwrap_err();
        assert_eq!(err.code(), "ENVELOPE_UNSIGNED");
        assert!(open_export(
            sandbox.as_bytes(),
            &client,
            None,
            KeyInput::Sec1(&pinned[..]),
            true
        )
        .is_ok());
        let err = seal_export(KeyInput::Sec1(&client_pub[..]), b"secret", "", None).unwrap_err();
        assert_eq!(err.code(), PARAMETERS_INVALID);
    }
}
