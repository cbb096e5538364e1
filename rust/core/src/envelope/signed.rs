//! The signed v1.0.0 envelope (formats.md section 8): the pinned-signer checks, in order
//! (version, signer pinned, signature over the exact data bytes), the sandbox's unsigned form,
//! and the legacy v0 signature checks that export and import bundles share.

use super::{
    hex_field, pinned_key, refused, text_field, unhex, KeyInput, DATA_MALFORMED, MALFORMED, VERSION,
};
use crate::error::{Error, Result};
use crate::json::{compact_json, Field, Object};
use crate::p256::{KeyPair, VerifyingKey};

/// Signer pinned (the embedded key, hex of the 65-byte form, must be the pinned key), then the
/// DER signature over `message` with the pinned key (high-S accepted).
fn verify_by_pinned(
    pinned: &VerifyingKey,
    embedded_signer: &str,
    message: &[u8],
    signature_hex: &str,
    what: &str,
) -> Result<()> {
    if unhex(embedded_signer).as_deref() != Some(pinned.public_key().uncompressed().as_slice()) {
        return Err(Error::envelope(
            "ENVELOPE_SIGNER_NOT_PINNED",
            format!("the {what} is signed by a key that is not the pinned signer"),
        ));
    }
    let invalid = || {
        Error::envelope(
            "ENVELOPE_SIGNATURE_INVALID",
            format!("the {what} signature does not verify"),
        )
    };
    let signature = unhex(signature_hex).ok_or_else(invalid)?;
    match pinned.verify_der(message, &signature) {
        Ok(true) => Ok(()),
        _ => Err(invalid()), // not strict DER (an empty signature included), or wrong
    }
}

fn refuse_unsigned(sandbox_allowed: bool, what: &str) -> Result<()> {
    if sandbox_allowed {
        return Ok(());
    }
    Err(Error::envelope(
        "ENVELOPE_UNSIGNED",
        format!("the {what} names no signer; only the sandbox opens the unsigned form"),
    ))
}

/// Checks a v1.0.0 envelope in order (version, signer pinned, signature over the exact data
/// bytes) and returns the signed data as a JSON object. `pinned` is the pinned signer's key
/// (parsed here: `InvalidKey` when malformed); `what` names the envelope in messages.
///
/// Errors: `ENVELOPE_VERSION_UNSUPPORTED`, `ENVELOPE_MALFORMED`, `ENVELOPE_UNSIGNED`,
/// `ENVELOPE_SIGNER_NOT_PINNED`, `ENVELOPE_SIGNATURE_INVALID`, `ENVELOPE_DATA_MALFORMED`.
pub fn open_signed(
    document: &Object,
    pinned: KeyInput<'_>,
    sandbox_allowed: bool,
    what: &str,
) -> Result<Object> {
    let pinned = pinned_key(pinned)?;
    if document.text("version") != Some(VERSION) {
        return Err(Error::envelope(
            "ENVELOPE_VERSION_UNSUPPORTED",
            format!("the {what} version is not {VERSION}"),
        ));
    }
    let data = hex_field(document, "data", what, MALFORMED)?;
    let signature = text_field(document, "dataSignature", what, MALFORMED)?;
    let signer = text_field(document, "enclaveQuorumPublic", what, MALFORMED)?;
    if signer.is_empty() {
        // No signer key: only the sandbox form (no signature either) may open.
        refuse_unsigned(sandbox_allowed && signature.is_empty(), what)?;
    } else {
        verify_by_pinned(&pinned, signer, &data, signature, what)?;
    }
    // The signed data of every envelope kind is public (keys, ids, sealed values). The error's
    // wording is only built on the error path.
    crate::json::read_public_object(&data)
        .map_err(|refusal| refused(refusal, &format!("the {what} data"), DATA_MALFORMED))
}

/// The v1.0.0 envelope around `data`; `signer = None` writes the sandbox form.
pub fn build_signed(data: &[u8], signer: Option<&KeyPair>) -> Result<String> {
    let (signature, quorum) = match signer {
        Some(signer) => (
            hex::encode(signer.sign(data)?),
            hex::encode(signer.public_key().uncompressed()),
        ),
        None => (String::new(), String::new()),
    };
    Ok(compact_json(&[
        ("version", VERSION),
        ("data", &hex::encode(data)),
        ("dataSignature", &signature),
        ("enclaveQuorumPublic", &quorum),
    ]))
}

/// The signature of a legacy v0 envelope over `signed`: an `enclaveQuorumPublic` it carries must
/// be the pinned key; an empty signature is the unsigned form, which needs the sandbox (and then
/// it may name no signer).
pub(super) fn check_legacy_signature(
    document: &Object,
    pinned: &VerifyingKey,
    signed: &[u8],
    signature: &str,
    what: &str,
    sandbox_allowed: bool,
) -> Result<()> {
    let signer = match document.get("enclaveQuorumPublic") {
        None => "",
        Some(Field::Text(text)) => text.as_str(),
        Some(Field::Other) => {
            return Err(Error::envelope(
                MALFORMED,
                format!("the {what} has a non-string enclaveQuorumPublic"),
            ))
        }
    };
    if signature.is_empty() {
        if !signer.is_empty() {
            return Err(Error::envelope(
                "ENVELOPE_SIGNATURE_INVALID",
                format!("the {what} signature does not verify"),
            ));
        }
        return refuse_unsigned(sandbox_allowed, what);
    }
    let pinned_hex;
    let signer = if signer.is_empty() {
        pinned_hex = hex::encode(pinned.public_key().uncompressed());
        pinned_hex.as_str()
    } else {
        signer
    };
    verify_by_pinned(pinned, signer, signed, signature, what)
}
