//! `_native.test_support`: primitives exposed only for tests and upstream vectors (Wycheproof
//! ECDH, AES-GCM and HKDF, RFC 5869), kept out of the main namespace as pyca keeps its
//! `test_support` module.

use ewc_core::primitives;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::convert::{
    AadName, Bytes, DataName, IkmName, InfoName, InputName, IntoPy, KeyName, Length, NonceName,
    PeerPublicKeyName, PrkName, Public, SaltName,
};
use crate::keys::PrivateKey;

/// The full name under which `import embedded_wallet_crypto._native.test_support` finds it.
pub(crate) const NAME: &str = "embedded_wallet_crypto._native.test_support";

/// Builds the submodule; the parent module adds it and registers it in `sys.modules`.
pub(crate) fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, NAME)?;
    m.add_function(wrap_pyfunction!(ecdh_for_tests, &m)?)?;
    m.add_function(wrap_pyfunction!(aes_gcm_seal, &m)?)?;
    m.add_function(wrap_pyfunction!(aes_gcm_open, &m)?)?;
    m.add_function(wrap_pyfunction!(hkdf_extract, &m)?)?;
    m.add_function(wrap_pyfunction!(hkdf_expand, &m)?)?;
    m.add_function(wrap_pyfunction!(sha256, &m)?)?;
    Ok(m)
}

#[pyfunction]
fn ecdh_for_tests<'py>(
    py: Python<'py>,
    private_key: PrivateKey<'_>,
    peer_public_key: Public<PeerPublicKeyName>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, peer) = (private_key.key(), &peer_public_key.0);
    let secret = py.detach(|| key.ecdh(peer)).py_err()?;
    Ok(PyBytes::new(py, secret.as_ref()))
}

/// `AesGcm::new(key)` then `seal` or `open` over the input (the key is wiped after use).
fn aes_gcm<'py, T: AsRef<[u8]>>(
    py: Python<'py>,
    key: Bytes<'_, KeyName>,
    run: impl FnOnce(&primitives::AesGcm) -> ewc_core::Result<T>,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = zeroize::Zeroizing::new(key.into_owned());
    let output = primitives::AesGcm::new(&key)
        .and_then(|k| run(&k))
        .py_err()?;
    Ok(PyBytes::new(py, output.as_ref()))
}

#[pyfunction]
fn aes_gcm_seal<'py>(
    py: Python<'py>,
    key: Bytes<'_, KeyName>,
    nonce: Bytes<'_, NonceName>,
    aad: Bytes<'_, AadName>,
    plaintext: Bytes<'_, InputName>,
) -> PyResult<Bound<'py, PyBytes>> {
    aes_gcm(py, key, |k| k.seal(&nonce, &aad, &plaintext))
}

#[pyfunction]
fn aes_gcm_open<'py>(
    py: Python<'py>,
    key: Bytes<'_, KeyName>,
    nonce: Bytes<'_, NonceName>,
    aad: Bytes<'_, AadName>,
    ciphertext: Bytes<'_, InputName>,
) -> PyResult<Bound<'py, PyBytes>> {
    aes_gcm(py, key, |k| k.open(&nonce, &aad, &ciphertext))
}

#[pyfunction]
fn hkdf_extract<'py>(
    py: Python<'py>,
    salt: Bytes<'_, SaltName>,
    ikm: Bytes<'_, IkmName>,
) -> Bound<'py, PyBytes> {
    let prk = primitives::hkdf_extract(&salt, &[&ikm]);
    PyBytes::new(py, prk.as_ref())
}

#[pyfunction]
fn hkdf_expand<'py>(
    py: Python<'py>,
    prk: Bytes<'_, PrkName>,
    info: Bytes<'_, InfoName>,
    length: Length,
) -> PyResult<Bound<'py, PyBytes>> {
    primitives::check_hkdf_output_len(length.0).py_err()?;
    let mut okm = zeroize::Zeroizing::new(vec![0u8; length.0]);
    primitives::hkdf_expand(&prk, &[&info], &mut okm).py_err()?;
    Ok(PyBytes::new(py, &okm))
}

#[pyfunction]
fn sha256<'py>(py: Python<'py>, data: Bytes<'_, DataName>) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &primitives::sha256(&data))
}
