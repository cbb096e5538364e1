//! Bindings of `session.rs` and `stamp.rs`: session-key envelopes and request stamps.

use ewc_core::stamp::{self, ExpectedKey, Scheme, Schemes};
use ewc_core::{session, Error};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

use crate::convert::{
    text_arg, type_name, Base58Text, Bytes, ClientPublicKeyName, ExpectedPublicKeyName,
    ExpectedPublicKeysName, IntoPy, Key, Payload, SignatureName, StampText,
};
use crate::keys::{PrivateKey, PyEd25519KeyPair, PyKeyPair, PySecp256k1KeyPair};

#[pyfunction]
pub(crate) fn seal_session_key(
    py: Python<'_>,
    client_public_key: Key<'_, ClientPublicKeyName>,
    session_key: &Bound<'_, PyKeyPair>,
) -> PyResult<String> {
    let session_key = &session_key.get().inner;
    py.detach(|| session::seal_session_key(&client_public_key, session_key))
        .py_err()
}

#[pyfunction]
pub(crate) fn open_session_key(
    py: Python<'_>,
    encrypted_session_signing_key: Base58Text<'_>,
    client_key: PrivateKey<'_>,
) -> PyResult<PyKeyPair> {
    let (sealed, key) = (&*encrypted_session_signing_key.0, client_key.key());
    let inner = py
        .detach(|| session::open_session_key(sealed, key))
        .py_err()?;
    Ok(PyKeyPair { inner })
}

/// A signing key of any scheme: one of the three key pair classes.
fn signing_key<'a>(key: &'a Bound<'_, PyAny>) -> PyResult<stamp::SigningKey<'a>> {
    if let Ok(key) = key.cast::<PyKeyPair>() {
        return Ok(stamp::SigningKey::P256(&key.get().inner));
    }
    if let Ok(key) = key.cast::<PySecp256k1KeyPair>() {
        return Ok(stamp::SigningKey::Secp256k1(&key.get().inner));
    }
    if let Ok(key) = key.cast::<PyEd25519KeyPair>() {
        return Ok(stamp::SigningKey::Ed25519(&key.get().inner));
    }
    Err(PyTypeError::new_err(format!(
        "key must be a KeyPair, Secp256k1KeyPair or Ed25519KeyPair, not {}",
        type_name(key)
    )))
}

#[pyfunction]
pub(crate) fn create_stamp(
    py: Python<'_>,
    payload: Payload<'_>,
    key: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let key = signing_key(key)?;
    py.detach(|| stamp::create_with(&payload.0, key)).py_err()
}

/// The stamp of a signature made outside the library (formats.md section 15): the key and
/// signature are checked for their scheme's form, and the signature must verify over `payload`.
#[pyfunction]
pub(crate) fn assemble_stamp(
    py: Python<'_>,
    payload: Payload<'_>,
    scheme: &Bound<'_, PyAny>,
    public_key: &Bound<'_, PyAny>,
    signature: Bytes<'_, SignatureName>,
) -> PyResult<String> {
    let scheme = scheme_arg(scheme)?;
    let public_key = text_arg(public_key, || {
        Error::stamp_malformed("the signer's public key is not valid text")
    })?;
    let public_key = hex::decode(public_key.as_ref())
        .map_err(|_| Error::stamp_malformed("the signer's public key is not hex"))
        .py_err()?;
    py.detach(|| stamp::assemble(&payload.0, scheme, &public_key, &signature))
        .py_err()
}

/// One scheme name; an unknown name is a stamp scheme this library does not support.
fn scheme_arg(obj: &Bound<'_, PyAny>) -> PyResult<Scheme> {
    let name = text_arg(obj, Error::stamp_scheme_unsupported)?;
    Scheme::from_name(&name)
        .ok_or_else(Error::stamp_scheme_unsupported)
        .py_err()
}

/// `schemes=`: None is P-256 only; otherwise an iterable of scheme names (a lone `str` is a
/// TypeError, not its characters). An unknown name is `UNSUPPORTED_ALGORITHM`.
fn schemes_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Schemes> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Schemes::P256_ONLY);
    };
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_instance_of::<PyMemoryView>()
    {
        return Err(PyTypeError::new_err(format!(
            "schemes must be a collection of scheme names, not {}",
            type_name(obj)
        )));
    }
    let mut schemes = Schemes::NONE;
    for item in obj.try_iter()? {
        let name = text_arg(&item?, || {
            Error::unsupported("schemes lists a name that is not a stamp scheme")
        })?
        .into_owned();
        let scheme = Scheme::from_name(&name)
            .ok_or_else(|| Error::unsupported("schemes lists a name that is not a stamp scheme"))
            .py_err()?;
        schemes = schemes.with(scheme);
    }
    Ok(schemes)
}

/// Returns `(public_key hex in the stamp's form, scheme, signature)` of a stamp that verified.
#[pyfunction]
#[pyo3(signature = (stamp, payload, expected_public_key = None, schemes = None))]
pub(crate) fn verify_stamp<'py>(
    py: Python<'py>,
    stamp: StampText<'_>,
    payload: Payload<'_>,
    expected_public_key: Option<Key<'_, ExpectedPublicKeyName>>,
    schemes: Option<&Bound<'_, PyAny>>,
) -> PyResult<(String, &'static str, Bound<'py, PyBytes>)> {
    let schemes = schemes_arg(schemes)?;
    let (stamp, expected) = (&*stamp.0, expected_public_key.as_deref());
    let verified = py
        .detach(|| {
            let expected = expected
                .map(|key| ExpectedKey::parse(key, schemes))
                .transpose()?;
            stamp::verify_with(stamp, &payload.0, expected.as_ref(), schemes)
        })
        .py_err()?;
    Ok((
        hex::encode(verified.public_key.stamp_bytes()),
        verified.scheme().name(),
        PyBytes::new(py, &verified.signature),
    ))
}

/// The batch form: the inputs are any iterables, converted here; their shape is the core's check.
#[pyfunction]
#[pyo3(signature = (stamps, payloads, expected_public_keys = None, schemes = None))]
pub(crate) fn verify_stamps(
    py: Python<'_>,
    stamps: &Bound<'_, PyAny>,
    payloads: &Bound<'_, PyAny>,
    expected_public_keys: Option<&Bound<'_, PyAny>>,
    schemes: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<bool>> {
    let schemes = schemes_arg(schemes)?;
    let stamps: Vec<String> = stamps
        .try_iter()?
        .map(|s| Ok(s?.extract::<StampText<'_>>()?.0.into_owned()))
        .collect::<PyResult<_>>()?;
    let payloads: Vec<Vec<u8>> = payloads
        .try_iter()?
        .map(|p| Ok(p?.extract::<Payload<'_>>()?.0.into_owned()))
        .collect::<PyResult<_>>()?;
    let expected: Option<Vec<Option<Vec<u8>>>> = match expected_public_keys {
        Some(keys) if !keys.is_none() => Some(
            keys.try_iter()?
                .map(|k| {
                    Ok(k?
                        .extract::<Option<Key<'_, ExpectedPublicKeysName>>>()?
                        .map(|k| k.to_vec()))
                })
                .collect::<PyResult<_>>()?,
        ),
        _ => None,
    };
    py.detach(|| {
        let expected: Option<Vec<Option<ExpectedKey>>> = expected
            .map(|keys| {
                keys.iter()
                    .map(|k| {
                        k.as_deref()
                            .map(|k| ExpectedKey::parse(k, schemes))
                            .transpose()
                    })
                    .collect::<ewc_core::Result<_>>()
            })
            .transpose()?;
        stamp::verify_many_with(&stamps, &payloads, expected.as_deref(), schemes)
    })
    .py_err()
}
