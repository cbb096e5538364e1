//! OTP target bundles and the `encryptedOtpBundle` (formats.md sections 9 and 12). The signed
//! target data `{"targetPublic", "organizationId", "userId"}` is also the import bundle's.

use zeroize::Zeroizing;

use super::signed::{build_signed, open_signed};
use super::{
    mismatch, parse_object, parse_public_object, parse_sealed, require_text, seal_profile,
    size_checked, text_field, KeyInput, Sealed, DATA_MALFORMED, MALFORMED, OTP_BUNDLE, TARGET,
};
use crate::error::{Error, Result};
use crate::json::{compact_json, Object};
use crate::p256::{KeyPair, PublicKey};

/// Server: the `otpEncryptionTargetBundle` for a target key (SEC1); `signer = None` writes the
/// sandbox form. Errors: `InvalidKey` for the target, then `ENVELOPE_PARAMETERS_INVALID` for an
/// empty organization or user id.
pub fn seal_target(
    target_public_key: KeyInput<'_>,
    organization_id: &str,
    user_id: &str,
    signer: Option<&KeyPair>,
) -> Result<String> {
    seal_target_data(target_public_key, organization_id, user_id, true, signer)
}

/// The signed `{"targetPublic", "organizationId", "userId"}` of target and import bundles, checked
/// in that order (an empty `userId` only where `user_required` is false).
pub(super) fn seal_target_data(
    target_public_key: KeyInput<'_>,
    organization_id: &str,
    user_id: &str,
    user_required: bool,
    signer: Option<&KeyPair>,
) -> Result<String> {
    let target = target_public_key.parse()?;
    let organization_id = require_text(organization_id, "organization_id")?;
    let user_id = if user_required {
        require_text(user_id, "user_id")?
    } else {
        user_id
    };
    let data = compact_json(&[
        ("targetPublic", &hex::encode(target.uncompressed())),
        ("organizationId", organization_id),
        ("userId", user_id),
    ]);
    build_signed(data.as_bytes(), signer)
}

/// Client: verify a target bundle (version, signer pinned, signature, organization, user) and
/// return its target key (`ENVELOPE_TARGET_KEY_INVALID` when it is no valid P-256 key).
pub fn verify_target(
    target_bundle: &[u8],
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<PublicKey> {
    let bytes = size_checked(target_bundle, "the OTP target bundle")?;
    let document = parse_public_object(bytes, TARGET, MALFORMED)?;
    let data = open_signed(&document, pinned, sandbox_allowed, TARGET)?;
    signed_target(&data, TARGET, organization_id, user_id)
}

/// The target key of the signed data `{"targetPublic", "organizationId", "userId"}` of a
/// target or import bundle, after the organization and user checks (each when given).
pub(super) fn signed_target(
    data: &Object,
    what: &str,
    organization_id: Option<&str>,
    user_id: Option<&str>,
) -> Result<PublicKey> {
    let data_what = format!("the {what} data");
    let target = text_field(data, "targetPublic", &data_what, DATA_MALFORMED)?;
    let signed_organization = text_field(data, "organizationId", &data_what, DATA_MALFORMED)?;
    let signed_user = text_field(data, "userId", &data_what, DATA_MALFORMED)?;
    if organization_id.is_some_and(|given| given != signed_organization) {
        return Err(mismatch(
            what,
            "organization",
            "ENVELOPE_ORGANIZATION_MISMATCH",
        ));
    }
    if user_id.is_some_and(|given| given != signed_user) {
        return Err(mismatch(what, "user", "ENVELOPE_USER_MISMATCH"));
    }
    target_key(target, what)
}

pub(super) fn target_key(target: &str, what: &str) -> Result<PublicKey> {
    PublicKey::from_hex(target).map_err(|_| {
        Error::envelope(
            "ENVELOPE_TARGET_KEY_INVALID",
            format!("the {what}'s targetPublic is not a valid P-256 public key"),
        )
    })
}

/// An OTP code as the client seals it: 1 to 64 ASCII letters or digits. (The Python layer
/// checks it first and raises its own `OtpError`.)
pub fn check_otp_code(otp_code: &str) -> Result<()> {
    if (1..=64).contains(&otp_code.len()) && otp_code.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Ok(());
    }
    Err(Error::envelope(
        "OTP_MALFORMED",
        "the OTP code must be 1 to 64 ASCII letters or digits",
    ))
}

/// Client: check the code and the client key (hex text, bound as lowercase), verify the target
/// bundle ([`verify_target`]), then seal `{"otp_code", "public_key"}` to its target. Returns
/// the `encryptedOtpBundle`, `{"encappedPublic", "ciphertext"}` encoded once.
pub fn otp_encrypt(
    target_bundle: &[u8],
    otp_code: &str,
    client_public_key: &str,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<String> {
    let target = otp_target(
        target_bundle,
        otp_code,
        client_public_key,
        pinned,
        organization_id,
        user_id,
        sandbox_allowed,
    )?;
    otp_seal(&target, otp_code, client_public_key, None)
}

/// [`otp_encrypt`] with a caller-chosen HPKE ephemeral key, for known-answer vectors only.
#[allow(clippy::too_many_arguments)]
pub fn otp_encrypt_with_ephemeral(
    target_bundle: &[u8],
    otp_code: &str,
    client_public_key: &str,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
    ephemeral: &KeyPair,
) -> Result<String> {
    let target = otp_target(
        target_bundle,
        otp_code,
        client_public_key,
        pinned,
        organization_id,
        user_id,
        sandbox_allowed,
    )?;
    otp_seal(&target, otp_code, client_public_key, Some(ephemeral))
}

fn otp_target(
    target_bundle: &[u8],
    otp_code: &str,
    client_public_key: &str,
    pinned: KeyInput<'_>,
    organization_id: Option<&str>,
    user_id: Option<&str>,
    sandbox_allowed: bool,
) -> Result<PublicKey> {
    check_otp_code(otp_code)?;
    PublicKey::from_hex(client_public_key)?;
    verify_target(
        target_bundle,
        pinned,
        organization_id,
        user_id,
        sandbox_allowed,
    )
}

fn otp_seal(
    target: &PublicKey,
    otp_code: &str,
    client_public_key: &str,
    ephemeral: Option<&KeyPair>,
) -> Result<String> {
    let public_key = client_public_key.to_ascii_lowercase();
    let plaintext = Zeroizing::new(compact_json(&[
        ("otp_code", otp_code),
        ("public_key", &public_key),
    ]));
    let (enc, ciphertext) = seal_profile(target, plaintext.as_bytes(), ephemeral)?;
    Ok(compact_json(&[
        ("encappedPublic", &enc),
        ("ciphertext", &ciphertext),
    ]))
}

/// What the client sealed: the code it typed and the public key to bind (lowercase hex).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OtpSubmission {
    pub otp_code: Zeroizing<String>,
    pub public_key: String,
}

/// Server: the envelope checks of an `encryptedOtpBundle` (a JSON object with hex
/// `encappedPublic` and `ciphertext`; a bundle JSON-encoded twice is `ENVELOPE_MALFORMED`).
pub fn parse_otp_bundle(encrypted_otp_bundle: &[u8]) -> Result<Sealed> {
    parse_sealed(encrypted_otp_bundle, OTP_BUNDLE)
}

/// Server: open a parsed `encryptedOtpBundle` with the target key and read the submission
/// (`ENVELOPE_DATA_MALFORMED` unless it is `{"otp_code", "public_key"}` with a valid key).
pub fn open_otp_submission(sealed: &Sealed, target_key: &KeyPair) -> Result<OtpSubmission> {
    let plaintext = sealed.open(target_key)?;
    let submission = parse_object(&plaintext, OTP_BUNDLE, DATA_MALFORMED)?;
    let what = "the encryptedOtpBundle plaintext";
    let otp_code =
        Zeroizing::new(text_field(&submission, "otp_code", what, DATA_MALFORMED)?.to_owned());
    let public_key = text_field(&submission, "public_key", what, DATA_MALFORMED)?;
    if PublicKey::from_hex(public_key).is_err() {
        return Err(Error::envelope(
            DATA_MALFORMED,
            format!("{OTP_BUNDLE} binds a public_key that is not a valid P-256 key"),
        ));
    }
    Ok(OtpSubmission {
        otp_code,
        public_key: public_key.to_ascii_lowercase(),
    })
}

/// Server: [`parse_otp_bundle`], then [`open_otp_submission`].
pub fn otp_decrypt(encrypted_otp_bundle: &[u8], target_key: &KeyPair) -> Result<OtpSubmission> {
    open_otp_submission(&parse_otp_bundle(encrypted_otp_bundle)?, target_key)
}

#[cfg(test)]
mod tests {
    use crate::envelope::*;
    use crate::p256::KeyPair;

    #[test]
    fn otp_round_trip() {
        let signer = KeyPair::generate().unwrap();
        let target = KeyPair::generate().unwrap();
        let client = KeyPair::generate().unwrap();
        let pinned = signer.public_key().uncompressed().to_vec();
        let bundle = seal_target(
            KeyInput::Sec1(target.public_key().uncompressed()),
            "org",
            "user",
            Some(&signer),
        )
        .unwrap();
        let client_hex = hex::encode(client.public_key().compressed()).to_uppercase();
        let sealed = otp_encrypt(
            bundle.as_bytes(),
            "123456",
            &client_hex,
            KeyInput::Sec1(&pinned[..]),
            Some("org"),
            Some("user"),
            false,
        )
        .unwrap();
        let submission = otp_decrypt(sealed.as_bytes(), &target).unwrap();
        assert_eq!(submission.otp_code.as_str(), "123456");
        assert_eq!(submission.public_key, client_hex.to_lowercase());
        let err = otp_encrypt(
            bundle.as_bytes(),
            "12 34",
            &client_hex,
            KeyInput::Sec1(&pinned[..]),
            None,
            None,
            false,
        );
        assert_eq!(err.unwrap_err().code(), "OTP_MALFORMED");
        let err = otp_encrypt(
            bundle.as_bytes(),
            "1234",
            &client_hex,
            KeyInput::Sec1(&pinned[..]),
            None,
            Some("u"),
            false,
        );
        assert_eq!(err.unwrap_err().code(), "ENVELOPE_USER_MISMATCH");
    }
}
