//! Bindings of `ewc_core::envelope`: export envelopes, OTP target bundles and the
//! `encryptedOtpBundle` (formats.md sections 8, 9). Conversions only; the checks, their order
//! and their messages are the core's. The caller (the Python layer) resolves the sandbox policy
//! and passes a bool.
//! Arguments are converted by hand (`convert::bytes_arg`, `text_arg`, `keys::private_key_arg`)
//! rather than through the argument newtypes, so that each is converted when the core's check
//! order reaches it and the first failing check reports, as in the Python layer before.

use std::borrow::Cow;

use ewc_core::{envelope, Error, KeyPair};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

use crate::convert::{bytes_arg, text_arg, to_py_err, type_name, IntoPy};
use crate::keys::{private_key_arg, PyKeyPair};

const MALFORMED: &str = "ENVELOPE_MALFORMED";
const PARAMETERS_INVALID: &str = "ENVELOPE_PARAMETERS_INVALID";

/// A wire value: `str` (its UTF-8) or `bytes`/`bytearray`/`memoryview`. Anything else, or a
/// `str` that has no UTF-8 form, is `ENVELOPE_MALFORMED` (the value came from the wire).
fn wire_arg<'a>(obj: &'a Bound<'_, PyAny>, what: &'static str) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(text) = obj.cast::<PyString>() {
        return match text.to_cow() {
            Ok(Cow::Borrowed(text)) => Ok(Cow::Borrowed(text.as_bytes())),
            Ok(Cow::Owned(text)) => Ok(Cow::Owned(text.into_bytes())),
            Err(_) => Err(to_py_err(Error::envelope(
                MALFORMED,
                format!("{what} is not valid UTF-8 text"),
            ))),
        };
    }
    if obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_instance_of::<PyMemoryView>()
    {
        return bytes_arg(obj, what);
    }
    Err(to_py_err(Error::envelope(
        MALFORMED,
        format!("{what} must be str or bytes, not {}", type_name(obj)),
    )))
}

/// A key argument, parsed by the core where its checks reach it: hex text (either case) or SEC1
/// bytes. A `str` with no UTF-8 form is `INVALID_KEY_ENCODING`, as everywhere.
enum KeyText<'a> {
    Hex(Cow<'a, str>),
    Sec1(Cow<'a, [u8]>),
}

impl KeyText<'_> {
    fn input(&self) -> envelope::KeyInput<'_> {
        match self {
            Self::Hex(text) => envelope::KeyInput::Hex(text),
            Self::Sec1(bytes) => envelope::KeyInput::Sec1(bytes),
        }
    }
}

fn key_text_arg<'a>(obj: &'a Bound<'_, PyAny>, what: &str) -> PyResult<KeyText<'a>> {
    if obj.is_instance_of::<PyString>() {
        return text_arg(obj, || Error::key_encoding("key")).map(KeyText::Hex);
    }
    bytes_arg(obj, what).map(KeyText::Sec1)
}

/// A required id of a sealing call: anything but a non-empty `str` is
/// `ENVELOPE_PARAMETERS_INVALID` (the core refuses the empty string with the same reason).
fn id_arg<'a>(obj: &'a Bound<'_, PyAny>, name: &'static str) -> PyResult<Cow<'a, str>> {
    let Ok(text) = obj.cast::<PyString>() else {
        return Ok(Cow::Borrowed(""));
    };
    text.to_cow().map_err(|_| {
        to_py_err(Error::envelope(
            PARAMETERS_INVALID,
            format!("{name} is not valid UTF-8 text"),
        ))
    })
}

/// An expected id of an opening call: `None`, or a `str` the signed value must equal.
fn expected_arg<'a>(
    obj: Option<&'a Bound<'_, PyAny>>,
    name: &'static str,
) -> PyResult<Option<Cow<'a, str>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let text = obj.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be str or None, not {}",
            type_name(obj)
        ))
    })?;
    text.to_cow().map(Some).map_err(|_| {
        to_py_err(Error::envelope(
            PARAMETERS_INVALID,
            format!("{name} is not valid UTF-8 text"),
        ))
    })
}

/// The signer of a sealing call: a `KeyPair`, or `None` for the sandbox form.
fn signer_arg<'a>(obj: Option<&'a Bound<'_, PyAny>>) -> PyResult<Option<&'a KeyPair>> {
    match obj.filter(|o| !o.is_none()) {
        None => Ok(None),
        Some(obj) => match obj.cast::<PyKeyPair>() {
            Ok(handle) => Ok(Some(&handle.get().inner)),
            Err(_) => Err(PyTypeError::new_err(format!(
                "signer must be an ewc.KeyPair or None, not {}",
                type_name(obj)
            ))),
        },
    }
}

fn ephemeral_arg<'a>(obj: Option<&'a Bound<'_, PyKeyPair>>) -> Option<&'a KeyPair> {
    obj.map(|key| &key.get().inner)
}

/// Client: every check of an export envelope, then the decryption with `client_key`. The client
/// key is converted before but reported after the checks, where the Python layer used it.
#[pyfunction]
#[pyo3(signature = (bundle, client_key, signer_public_key, sandbox_allowed, organization_id = None))]
fn open_export_bundle<'py>(
    py: Python<'py>,
    bundle: &Bound<'py, PyAny>,
    client_key: &Bound<'py, PyAny>,
    signer_public_key: &Bound<'py, PyAny>,
    sandbox_allowed: bool,
    organization_id: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bundle = wire_arg(bundle, "the export envelope")?;
    let pinned = key_text_arg(signer_public_key, "signer_public_key")?;
    let organization_id = expected_arg(organization_id, "organization_id")?;
    let key = private_key_arg(client_key);
    // One release of the GIL for the checks and the decryption. A client key that did not
    // convert is reported after the checks, as before: the checks run alone then.
    let key = match key {
        Ok(key) => key,
        Err(err) => {
            py.detach(|| {
                envelope::verify_export(
                    &bundle,
                    pinned.input(),
                    organization_id.as_deref(),
                    sandbox_allowed,
                )
            })
            .py_err()?;
            return Err(err);
        }
    };
    let plaintext = py
        .detach(|| {
            envelope::open_export(
                &bundle,
                key.key(),
                organization_id.as_deref(),
                pinned.input(),
                sandbox_allowed,
            )
        })
        .py_err()?;
    Ok(PyBytes::new(py, &plaintext))
}

/// Server: a v1.0.0 export envelope (`ephemeral_key` only for known-answer vectors).
#[pyfunction]
#[pyo3(signature = (client_public_key, secret, organization_id, signer = None, ephemeral_key = None))]
fn seal_export_bundle(
    py: Python<'_>,
    client_public_key: &Bound<'_, PyAny>,
    secret: &Bound<'_, PyAny>,
    organization_id: &Bound<'_, PyAny>,
    signer: Option<&Bound<'_, PyAny>>,
    ephemeral_key: Option<&Bound<'_, PyKeyPair>>,
) -> PyResult<String> {
    let signer = signer_arg(signer)?;
    let organization_id = id_arg(organization_id, "organization_id")?;
    let secret = zeroize::Zeroizing::new(if secret.is_instance_of::<PyString>() {
        text_arg(secret, || Error::text("secret"))?
            .into_owned()
            .into_bytes()
    } else {
        bytes_arg(secret, "secret")?.into_owned()
    });
    let client = key_text_arg(client_public_key, "client_public_key")?;
    let ephemeral = ephemeral_arg(ephemeral_key);
    py.detach(|| match ephemeral {
        None => envelope::seal_export(client.input(), &secret, &organization_id, signer),
        Some(key) => envelope::seal_export_with_ephemeral(
            client.input(),
            &secret,
            &organization_id,
            signer,
            key,
        ),
    })
    .py_err()
}

/// Server: an `otpEncryptionTargetBundle` for the target key.
#[pyfunction]
#[pyo3(signature = (target_public_key, organization_id, user_id, signer = None))]
fn seal_target_bundle(
    py: Python<'_>,
    target_public_key: &Bound<'_, PyAny>,
    organization_id: &Bound<'_, PyAny>,
    user_id: &Bound<'_, PyAny>,
    signer: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let signer = signer_arg(signer)?;
    let target = key_text_arg(target_public_key, "target_public_key")?;
    let organization_id = id_arg(organization_id, "organization_id")?;
    let user_id = id_arg(user_id, "user_id")?;
    py.detach(|| envelope::seal_target(target.input(), &organization_id, &user_id, signer))
        .py_err()
}

/// The client key as the text the submission binds: a `str` as given, bytes as lowercase hex.
fn client_key_text<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, str>> {
    if obj.is_instance_of::<PyString>() {
        return text_arg(obj, || Error::key_encoding("public key"));
    }
    Ok(Cow::Owned(hex::encode(bytes_arg(
        obj,
        "client_public_key",
    )?)))
}

/// Client: verify the target bundle, then seal the code and the client key to its target
/// (`ephemeral_key` only for known-answer vectors).
#[pyfunction]
#[pyo3(signature = (
    target_bundle, otp_code, client_public_key, signer_public_key, sandbox_allowed,
    organization_id = None, user_id = None, ephemeral_key = None,
))]
#[allow(clippy::too_many_arguments)]
fn encrypt_otp_code(
    py: Python<'_>,
    target_bundle: &Bound<'_, PyAny>,
    otp_code: &Bound<'_, PyAny>,
    client_public_key: &Bound<'_, PyAny>,
    signer_public_key: &Bound<'_, PyAny>,
    sandbox_allowed: bool,
    organization_id: Option<&Bound<'_, PyAny>>,
    user_id: Option<&Bound<'_, PyAny>>,
    ephemeral_key: Option<&Bound<'_, PyKeyPair>>,
) -> PyResult<String> {
    let otp_code = zeroize::Zeroizing::new(
        text_arg(otp_code, || envelope::check_otp_code("").unwrap_err())?.into_owned(),
    );
    let client = client_key_text(client_public_key)?;
    let bundle = wire_arg(target_bundle, "the OTP target bundle")?;
    let pinned = key_text_arg(signer_public_key, "signer_public_key")?;
    let organization_id = expected_arg(organization_id, "organization_id")?;
    let user_id = expected_arg(user_id, "user_id")?;
    let ephemeral = ephemeral_arg(ephemeral_key);
    let (organization_id, user_id) = (organization_id.as_deref(), user_id.as_deref());
    py.detach(|| match ephemeral {
        None => envelope::otp_encrypt(
            &bundle,
            &otp_code,
            &client,
            pinned.input(),
            organization_id,
            user_id,
            sandbox_allowed,
        ),
        Some(key) => envelope::otp_encrypt_with_ephemeral(
            &bundle,
            &otp_code,
            &client,
            pinned.input(),
            organization_id,
            user_id,
            sandbox_allowed,
            key,
        ),
    })
    .py_err()
}

/// Server: open an `encryptedOtpBundle`; returns `(otp_code, public_key)`. The target key is
/// reported after the envelope checks, where the Python layer used it.
#[pyfunction]
fn decrypt_otp_bundle(
    py: Python<'_>,
    encrypted_otp_bundle: &Bound<'_, PyAny>,
    target_key: &Bound<'_, PyAny>,
) -> PyResult<(String, String)> {
    let bundle = wire_arg(encrypted_otp_bundle, "the encryptedOtpBundle")?;
    let key = private_key_arg(target_key);
    let sealed = envelope::parse_otp_bundle(&bundle).py_err()?;
    let key = key?;
    let submission = py
        .detach(|| envelope::open_otp_submission(&sealed, key.key()))
        .py_err()?;
    Ok((submission.otp_code.to_string(), submission.public_key))
}

/// Server: an import bundle for the target key (formats.md section 12); an empty `user_id` is
/// allowed, anything but a `str` is `ENVELOPE_PARAMETERS_INVALID`.
#[pyfunction]
#[pyo3(signature = (target_public_key, organization_id, user_id, signer = None))]
fn seal_import_bundle(
    py: Python<'_>,
    target_public_key: &Bound<'_, PyAny>,
    organization_id: &Bound<'_, PyAny>,
    user_id: &Bound<'_, PyAny>,
    signer: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let signer = signer_arg(signer)?;
    let target = key_text_arg(target_public_key, "target_public_key")?;
    let organization_id = id_arg(organization_id, "organization_id")?;
    if !user_id.is_instance_of::<PyString>() {
        return Err(to_py_err(Error::envelope(
            PARAMETERS_INVALID,
            "user_id must be a string (empty for an organization-level import)",
        )));
    }
    let user_id = id_arg(user_id, "user_id")?;
    py.detach(|| envelope::seal_import(target.input(), &organization_id, &user_id, signer))
        .py_err()
}

/// Client: verify an import bundle; returns its target key (65 bytes, uncompressed).
#[pyfunction]
#[pyo3(signature = (import_bundle, signer_public_key, sandbox_allowed, organization_id = None, user_id = None))]
fn verify_import_bundle<'py>(
    py: Python<'py>,
    import_bundle: &Bound<'py, PyAny>,
    signer_public_key: &Bound<'py, PyAny>,
    sandbox_allowed: bool,
    organization_id: Option<&Bound<'py, PyAny>>,
    user_id: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bundle = wire_arg(import_bundle, "the import bundle")?;
    let pinned = key_text_arg(signer_public_key, "signer_public_key")?;
    let organization_id = expected_arg(organization_id, "organization_id")?;
    let user_id = expected_arg(user_id, "user_id")?;
    let target = py
        .detach(|| {
            envelope::verify_import(
                &bundle,
                pinned.input(),
                organization_id.as_deref(),
                user_id.as_deref(),
                sandbox_allowed,
            )
        })
        .py_err()?;
    Ok(PyBytes::new(py, target.uncompressed()))
}

/// Client: seal a checked plaintext to a verified import target (`ephemeral_key` only for
/// known-answer vectors); returns `{"encappedPublic", "ciphertext"}`.
#[pyfunction]
#[pyo3(signature = (target_public_key, plaintext, ephemeral_key = None))]
fn seal_to_import_target(
    py: Python<'_>,
    target_public_key: &Bound<'_, PyAny>,
    plaintext: &Bound<'_, PyAny>,
    ephemeral_key: Option<&Bound<'_, PyKeyPair>>,
) -> PyResult<String> {
    let target = key_text_arg(target_public_key, "target_public_key")?;
    let plaintext = zeroize::Zeroizing::new(bytes_arg(plaintext, "plaintext")?.into_owned());
    let ephemeral = ephemeral_arg(ephemeral_key);
    py.detach(|| {
        let target = target.input().parse()?;
        envelope::seal_to_import_target(&target, &plaintext, ephemeral)
    })
    .py_err()
}

/// Server: open an encrypted import bundle with the target key. The key is reported after the
/// envelope checks.
#[pyfunction]
fn open_import_bundle<'py>(
    py: Python<'py>,
    encrypted_bundle: &Bound<'py, PyAny>,
    target_key: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bundle = wire_arg(encrypted_bundle, "the encrypted import bundle")?;
    let key = private_key_arg(target_key);
    let sealed = envelope::parse_import(&bundle).py_err()?;
    let key = key?;
    let plaintext = py.detach(|| sealed.open(key.key())).py_err()?;
    Ok(PyBytes::new(py, &plaintext))
}

/// Adds this module's functions to `_native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ENVELOPE_VERSION", envelope::VERSION)?;
    m.add("MAX_ENVELOPE_BYTES", envelope::MAX_ENVELOPE_BYTES)?;
    m.add_function(wrap_pyfunction!(open_export_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(seal_export_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(seal_target_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(encrypt_otp_code, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt_otp_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(seal_import_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(verify_import_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(seal_to_import_target, m)?)?;
    m.add_function(wrap_pyfunction!(open_import_bundle, m)?)?;
    Ok(())
}
