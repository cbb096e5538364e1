//! Bindings of `hpke.rs`: single-shot seal and open, DeriveKeyPair, and RFC 9180 contexts.

use ewc_core::hpke;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::convert::{
    self, AadName, AeadArg, Bytes, CiphertextName, Enc, ExporterContextName, IkmName, InfoName,
    IntoPy, Length, PlaintextName, Public, RecipientPublicKeyName,
};
use crate::keys::{PrivateKey, PyKeyPair};

fn enc_ct_tuple<'py>(py: Python<'py>, enc: &[u8], ct: &[u8]) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [PyBytes::new(py, enc), PyBytes::new(py, ct)])
}

#[pyfunction]
#[pyo3(signature = (recipient_public_key, plaintext, info, aad = None))]
pub(crate) fn hpke_seal<'py>(
    py: Python<'py>,
    recipient_public_key: Public<RecipientPublicKeyName>,
    plaintext: Bytes<'_, PlaintextName>,
    info: Bytes<'_, InfoName>,
    aad: Option<Bytes<'_, AadName>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let recipient = &recipient_public_key.0;
    let (enc, ct) = py
        .detach(|| hpke::seal(recipient, &info, convert::aad(&aad), &plaintext))
        .py_err()?;
    enc_ct_tuple(py, &enc, &ct)
}

#[pyfunction]
#[pyo3(signature = (recipient_public_key, plaintext, ephemeral_key, info, aad = None))]
pub(crate) fn hpke_seal_deterministic_for_tests<'py>(
    py: Python<'py>,
    recipient_public_key: Public<RecipientPublicKeyName>,
    plaintext: Bytes<'_, PlaintextName>,
    ephemeral_key: &Bound<'py, PyKeyPair>,
    info: Bytes<'_, InfoName>,
    aad: Option<Bytes<'_, AadName>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (recipient, ephemeral) = (&recipient_public_key.0, &ephemeral_key.get().inner);
    let aad = convert::aad(&aad);
    let (enc, ct) = py
        .detach(|| hpke::seal_with_ephemeral(recipient, &info, aad, &plaintext, ephemeral))
        .py_err()?;
    enc_ct_tuple(py, &enc, &ct)
}

#[pyfunction]
#[pyo3(signature = (recipient_key, enc, ciphertext, info, aad = None))]
pub(crate) fn hpke_open<'py>(
    py: Python<'py>,
    recipient_key: PrivateKey<'_>,
    enc: Enc<'_>,
    ciphertext: Bytes<'_, CiphertextName>,
    info: Bytes<'_, InfoName>,
    aad: Option<Bytes<'_, AadName>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, aad) = (recipient_key.key(), convert::aad(&aad));
    let plaintext = py
        .detach(|| hpke::open(key, &enc.0, &info, aad, &ciphertext))
        .py_err()?;
    Ok(PyBytes::new(py, &plaintext))
}

#[pyfunction]
pub(crate) fn hpke_derive_key_pair(py: Python<'_>, ikm: Bytes<'_, IkmName>) -> PyResult<PyKeyPair> {
    let inner = py.detach(|| hpke::derive_key_pair(&ikm)).py_err()?;
    Ok(PyKeyPair { inner })
}

/// An RFC 9180 context with sequence numbers and secret export.
#[pyclass(name = "HpkeContext", module = "embedded_wallet_crypto._native")]
pub(crate) struct PyHpkeContext {
    inner: hpke::Context,
}

#[pymethods]
impl PyHpkeContext {
    #[getter]
    fn sequence_number(&self) -> u64 {
        self.inner.sequence_number()
    }

    fn seal<'py>(
        &mut self,
        py: Python<'py>,
        aad: Bytes<'_, AadName>,
        plaintext: Bytes<'_, PlaintextName>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let ct = self.inner.seal(&aad, &plaintext).py_err()?;
        Ok(PyBytes::new(py, &ct))
    }

    fn open<'py>(
        &mut self,
        py: Python<'py>,
        aad: Bytes<'_, AadName>,
        ciphertext: Bytes<'_, CiphertextName>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let pt = self.inner.open(&aad, &ciphertext).py_err()?;
        Ok(PyBytes::new(py, &pt))
    }

    fn export<'py>(
        &self,
        py: Python<'py>,
        exporter_context: Bytes<'_, ExporterContextName>,
        length: Length,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let secret = self.inner.export(&exporter_context, length.0).py_err()?;
        Ok(PyBytes::new(py, &secret))
    }

    fn __repr__(&self) -> String {
        format!(
            "HpkeContext(sequence_number={})",
            self.inner.sequence_number()
        )
    }
}

#[pyfunction]
#[pyo3(signature = (recipient_public_key, info, aead_id, ephemeral_key = None))]
pub(crate) fn hpke_setup_sender<'py>(
    py: Python<'py>,
    recipient_public_key: Public<RecipientPublicKeyName>,
    info: Bytes<'_, InfoName>,
    aead_id: AeadArg,
    ephemeral_key: Option<&Bound<'py, PyKeyPair>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (recipient, aead) = (
        &recipient_public_key.0,
        hpke::AeadId::from_id(aead_id.0).py_err()?,
    );
    let ephemeral = ephemeral_key.map(|k| &k.get().inner);
    let (enc, context) = py
        .detach(|| match ephemeral {
            Some(key) => hpke::setup_base_s_with_ephemeral(recipient, &info, aead, key),
            None => hpke::setup_base_s(recipient, &info, aead),
        })
        .py_err()?;
    let context = Bound::new(py, PyHpkeContext { inner: context })?;
    PyTuple::new(py, [PyBytes::new(py, &enc).into_any(), context.into_any()])
}

#[pyfunction]
pub(crate) fn hpke_setup_receiver(
    py: Python<'_>,
    recipient_key: PrivateKey<'_>,
    enc: Enc<'_>,
    info: Bytes<'_, InfoName>,
    aead_id: AeadArg,
) -> PyResult<PyHpkeContext> {
    let (key, aead) = (
        recipient_key.key(),
        hpke::AeadId::from_id(aead_id.0).py_err()?,
    );
    let inner = py
        .detach(|| hpke::setup_base_r(&enc.0, key, &info, aead))
        .py_err()?;
    Ok(PyHpkeContext { inner })
}
