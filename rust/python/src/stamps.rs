//! Bindings of `session.rs` and `stamp.rs`: session-key envelopes and request stamps.

use ewc_core::{session, stamp, PublicKey};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::convert::{
    Base58Text, ClientPublicKeyName, ExpectedPublicKeyName, ExpectedPublicKeysName, IntoPy, Key,
    Payload, Public, StampText,
};
use crate::keys::{PrivateKey, PyKeyPair};

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

#[pyfunction]
pub(crate) fn create_stamp(
    py: Python<'_>,
    payload: Payload<'_>,
    key: &Bound<'_, PyKeyPair>,
) -> PyResult<String> {
    let key = &key.get().inner;
    py.detach(|| stamp::create(&payload.0, key)).py_err()
}

/// Returns `(public_key compressed hex, scheme, DER signature)` of a stamp that verified.
#[pyfunction]
#[pyo3(signature = (stamp, payload, expected_public_key = None))]
pub(crate) fn verify_stamp<'py>(
    py: Python<'py>,
    stamp: StampText<'_>,
    payload: Payload<'_>,
    expected_public_key: Option<Public<ExpectedPublicKeyName>>,
) -> PyResult<(String, &'static str, Bound<'py, PyBytes>)> {
    let (stamp, expected) = (&*stamp.0, expected_public_key.as_ref().map(|k| &k.0));
    let verified = py
        .detach(|| stamp::verify(stamp, &payload.0, expected))
        .py_err()?;
    Ok((
        hex::encode(verified.public_key.compressed()),
        stamp::SCHEME,
        PyBytes::new(py, &verified.signature),
    ))
}

/// The batch form: the inputs are any iterables, converted here; their shape is the core's check.
#[pyfunction]
#[pyo3(signature = (stamps, payloads, expected_public_keys = None))]
pub(crate) fn verify_stamps(
    py: Python<'_>,
    stamps: &Bound<'_, PyAny>,
    payloads: &Bound<'_, PyAny>,
    expected_public_keys: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<bool>> {
    let stamps: Vec<String> = stamps
        .try_iter()?
        .map(|s| Ok(s?.extract::<StampText<'_>>()?.0.into_owned()))
        .collect::<PyResult<_>>()?;
    let payloads: Vec<Vec<u8>> = payloads
        .try_iter()?
        .map(|p| Ok(p?.extract::<Payload<'_>>()?.0.into_owned()))
        .collect::<PyResult<_>>()?;
    let expected: Option<Vec<Option<PublicKey>>> = match expected_public_keys {
        Some(keys) if !keys.is_none() => Some(
            keys.try_iter()?
                .map(|k| {
                    Ok(k?
                        .extract::<Option<Public<ExpectedPublicKeysName>>>()?
                        .map(|k| k.0))
                })
                .collect::<PyResult<_>>()?,
        ),
        _ => None,
    };
    py.detach(|| stamp::verify_many(&stamps, &payloads, expected.as_deref()))
        .py_err()
}
