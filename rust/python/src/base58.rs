//! Bindings of `base58.rs`: base58 and base58check (Bitcoin alphabet).

use ewc_core::base58;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::convert::{Base58Text, Bytes, DataName, IntoPy};

/// base58 is quadratic in the length: a key-sized value decodes in under a microsecond, far
/// cheaper than releasing the GIL, but a long one should not hold every other thread up.
fn off_gil_if_long<T: Send>(py: Python<'_>, len: usize, work: impl FnOnce() -> T + Send) -> T {
    const LONG: usize = 512;
    if len > LONG {
        py.detach(work)
    } else {
        work()
    }
}

#[pyfunction]
pub(crate) fn b58encode(data: Bytes<'_, DataName>) -> String {
    base58::encode(&data)
}

#[pyfunction]
pub(crate) fn b58decode<'py>(
    py: Python<'py>,
    text: Base58Text<'_>,
) -> PyResult<Bound<'py, PyBytes>> {
    let text = &*text.0;
    let decoded = off_gil_if_long(py, text.len(), || base58::decode(text)).py_err()?;
    Ok(PyBytes::new(py, &decoded))
}

#[pyfunction]
pub(crate) fn b58check_encode(data: Bytes<'_, DataName>) -> String {
    base58::check_encode(&data)
}

#[pyfunction]
pub(crate) fn b58check_decode<'py>(
    py: Python<'py>,
    text: Base58Text<'_>,
) -> PyResult<Bound<'py, PyBytes>> {
    let text = &*text.0;
    let decoded = off_gil_if_long(py, text.len(), || base58::check_decode(text)).py_err()?;
    Ok(PyBytes::new(py, &decoded))
}
