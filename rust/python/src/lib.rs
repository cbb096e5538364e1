//! PyO3 bindings of `ewc-core`: conversions only. EC and HPKE work runs with the GIL released,
//! byte inputs are taken through the buffer protocol, and every core error becomes the matching
//! exception class of `embedded_wallet_crypto.errors` with its stable `code`.

use std::borrow::Cow;

use ewc_core::{
    base58, hpke, p256, primitives, session, stamp, Error, ErrorKind, KeyPair, PublicKey,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyString, PyTuple};

mod envelope;

// ---------------------------------------------------------------------------------------------
// Errors

fn error_class(py: Python<'_>, kind: ErrorKind) -> PyResult<Bound<'_, PyAny>> {
    static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let module = ERRORS.get_or_try_init(py, || {
        py.import("embedded_wallet_crypto.errors")
            .map(Bound::unbind)
    })?;
    let name = match kind {
        ErrorKind::InvalidKey => "InvalidKey",
        ErrorKind::Decode => "DecodeError",
        ErrorKind::Decryption => "DecryptionError",
        ErrorKind::Stamp => "StampError",
        ErrorKind::Envelope => "EnvelopeError",
        ErrorKind::Unsupported => "WalletCryptoError",
    };
    module.bind(py).getattr(name)
}

/// Converts a core error into the library's Python exception (never a panic, never a secret).
fn to_py_err(err: Error) -> PyErr {
    Python::attach(|py| {
        match error_class(py, err.kind()).and_then(|cls| cls.call1((err.reason(), err.code()))) {
            Ok(instance) => PyErr::from_value(instance),
            Err(import_failure) => import_failure,
        }
    })
}

trait IntoPy<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for ewc_core::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py_err)
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs

/// A bytes-like argument: `bytes` is borrowed, `bytearray` copied, anything else goes through
/// the buffer protocol with `bytes(obj)` (the limited API of CPython 3.10 has no `PyBuffer`).
fn bytes_arg<'a>(obj: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(bytes.as_bytes()));
    }
    if let Ok(array) = obj.cast::<PyByteArray>() {
        return Ok(Cow::Owned(array.to_vec()));
    }
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be bytes-like, not str"
        )));
    }
    // Only the buffer protocol: `bytes(obj)` would also turn an int into that many zero bytes.
    let builtins = obj.py().import("builtins")?;
    match builtins.getattr("memoryview")?.call1((obj,)) {
        Ok(view) => Ok(Cow::Owned(
            view.call_method0("tobytes")?
                .cast::<PyBytes>()?
                .as_bytes()
                .to_vec(),
        )),
        Err(err) if err.is_instance_of::<PyTypeError>(obj.py()) => {
            Err(PyTypeError::new_err(format!(
                "{what} must be bytes, bytearray or memoryview, not {}",
                type_name(obj)
            )))
        }
        Err(err) => Err(err),
    }
}

/// A text argument. A `str` that cannot be UTF-8 (a lone surrogate) is the parser's own error.
fn text_arg<'a>(obj: &'a Bound<'_, PyAny>, invalid: fn() -> Error) -> PyResult<Cow<'a, str>> {
    let text = obj
        .cast::<PyString>()
        .map_err(|_| PyTypeError::new_err(format!("expected str, not {}", type_name(obj))))?;
    text.to_cow().map_err(|_| to_py_err(invalid()))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// A non-negative integer argument; anything out of range is `invalid()`, not an OverflowError.
fn int_arg<T>(obj: &Bound<'_, PyAny>, invalid: fn() -> Error) -> PyResult<T>
where
    T: for<'a, 'py> FromPyObject<'a, 'py>,
{
    // bool is an int subclass, but True is no AEAD id or length.
    if obj.cast::<pyo3::types::PyInt>().is_err() || obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "expected int, not {}",
            type_name(obj)
        )));
    }
    obj.extract::<T>().map_err(|_| to_py_err(invalid()))
}

fn invalid_key_text() -> Error {
    Error::key_encoding("key")
}

fn invalid_base58_text() -> Error {
    Error::base58("text contains a character outside the base58 alphabet")
}

fn invalid_length() -> Error {
    Error::length("the requested length is out of range")
}

fn invalid_aead() -> Error {
    Error::unsupported("HPKE AEAD must be AES-128-GCM (1) or AES-256-GCM (2)")
}

/// A key argument: hex text (either case) or SEC1 bytes.
fn key_arg<'a>(obj: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Cow<'a, [u8]>> {
    if obj.is_instance_of::<PyString>() {
        let text = text_arg(obj, invalid_key_text)?;
        return p256::decode_key_hex(&text).map(Cow::Owned).py_err();
    }
    bytes_arg(obj, what)
}

/// A payload: `str` means its UTF-8 bytes; anything else is bytes-like, taken byte for byte.
fn payload_arg<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    if obj.is_instance_of::<PyString>() {
        let text = text_arg(obj, || Error::text("payload"))?;
        return Ok(Cow::Owned(text.into_owned().into_bytes()));
    }
    bytes_arg(obj, "payload")
}

/// An HPKE `enc`: a malformed value is one more way to fail to open (the one generic error); a
/// value of the wrong Python type is the caller's TypeError.
fn enc_arg<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    key_arg(obj, "enc").map_err(|err| {
        if err.is_instance_of::<PyTypeError>(obj.py()) {
            err
        } else {
            to_py_err(hpke::open_failure())
        }
    })
}

fn optional_bytes_arg<'a>(
    obj: Option<&'a Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Option<Cow<'a, [u8]>>> {
    obj.filter(|o| !o.is_none())
        .map(|o| bytes_arg(o, what))
        .transpose()
}

/// `KeyPair` or 32 private-key bytes.
enum PrivateKeyArg<'a> {
    Handle(&'a KeyPair),
    Owned(KeyPair),
}

impl PrivateKeyArg<'_> {
    fn key(&self) -> &KeyPair {
        match self {
            Self::Handle(key) => key,
            Self::Owned(key) => key,
        }
    }
}

fn private_key_arg<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<PrivateKeyArg<'a>> {
    if let Ok(handle) = obj.cast::<PyKeyPair>() {
        return Ok(PrivateKeyArg::Handle(&handle.get().inner));
    }
    let scalar = zeroize::Zeroizing::new(bytes_arg(obj, "recipient_key")?.into_owned());
    KeyPair::from_private_bytes(&scalar)
        .map(PrivateKeyArg::Owned)
        .py_err()
}

/// A validated public key. Only decompression (a square root, microseconds) is worth releasing
/// the GIL for; checking an uncompressed point costs less than the release itself.
fn public_key_arg(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<PublicKey> {
    let bytes = key_arg(obj, what)?;
    if bytes.len() == p256::COMPRESSED_LEN {
        py.detach(|| PublicKey::from_sec1(&bytes)).py_err()
    } else {
        PublicKey::from_sec1(&bytes).py_err()
    }
}

fn aad_arg<'a>(aad: &'a Option<Cow<'a, [u8]>>) -> hpke::Aad<'a> {
    match aad {
        Some(bytes) => hpke::Aad::Explicit(bytes),
        None => hpke::Aad::Profile,
    }
}

// ---------------------------------------------------------------------------------------------
// Keys

/// A P-256 key pair. The private scalar stays in Rust; repr shows only the public key.
#[pyclass(frozen, name = "KeyPair", module = "embedded_wallet_crypto._native")]
struct PyKeyPair {
    inner: KeyPair,
}

#[pymethods]
impl PyKeyPair {
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        let inner = py.detach(KeyPair::generate).py_err()?;
        Ok(Self { inner })
    }

    #[staticmethod]
    fn from_private_bytes(py: Python<'_>, private_key: &Bound<'_, PyAny>) -> PyResult<Self> {
        let scalar = zeroize::Zeroizing::new(bytes_arg(private_key, "private_key")?.into_owned());
        let inner = py
            .detach(|| KeyPair::from_private_bytes(&scalar))
            .py_err()?;
        Ok(Self { inner })
    }

    #[staticmethod]
    fn from_private_hex(py: Python<'_>, private_key_hex: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = zeroize::Zeroizing::new(
            text_arg(private_key_hex, || Error::key_encoding("private key"))?.into_owned(),
        );
        let inner = py.detach(|| KeyPair::from_private_hex(&text)).py_err()?;
        Ok(Self { inner })
    }

    #[pyo3(signature = (compressed = false))]
    fn public_key_bytes<'py>(&self, py: Python<'py>, compressed: bool) -> Bound<'py, PyBytes> {
        let public = self.inner.public_key();
        if compressed {
            PyBytes::new(py, &public.compressed())
        } else {
            PyBytes::new(py, public.uncompressed())
        }
    }

    #[pyo3(signature = (compressed = false))]
    fn public_key_hex(&self, compressed: bool) -> String {
        let public = self.inner.public_key();
        if compressed {
            hex::encode(public.compressed())
        } else {
            hex::encode(public.uncompressed())
        }
    }

    /// Explicit export of the 32-byte scalar: the one way the secret leaves Rust.
    fn private_key_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let scalar = self.inner.private_key_bytes().py_err()?;
        Ok(PyBytes::new(py, scalar.as_ref()))
    }

    fn sign<'py>(
        &self,
        py: Python<'py>,
        message: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let message = bytes_arg(message, "message")?;
        let signature = py.detach(|| self.inner.sign(&message)).py_err()?;
        Ok(PyBytes::new(py, &signature))
    }

    fn __repr__(&self) -> String {
        format!(
            "KeyPair(public_key='{}')",
            hex::encode(self.inner.public_key().compressed())
        )
    }

    /// Refuses pickling under every protocol: the scalar leaves only through `private_key_bytes`.
    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "KeyPair cannot be pickled; export the scalar explicitly with private_key_bytes()",
        ))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyKeyPair>()
            .is_ok_and(|o| o.get().inner.public_key() == self.inner.public_key())
    }

    fn __hash__(&self) -> u64 {
        let x = &self.inner.public_key().uncompressed()[1..9];
        u64::from_be_bytes(x.try_into().unwrap_or([0; 8]))
    }
}

#[pyfunction]
fn parse_public_key<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let public = public_key_arg(py, key, "key")?;
    Ok(PyBytes::new(py, public.uncompressed()))
}

#[pyfunction]
fn compress_public_key<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let public = public_key_arg(py, key, "key")?;
    Ok(PyBytes::new(py, &public.compressed()))
}

#[pyfunction]
fn verify_signature(
    py: Python<'_>,
    public_key: &Bound<'_, PyAny>,
    message: &Bound<'_, PyAny>,
    signature_der: &Bound<'_, PyAny>,
) -> PyResult<bool> {
    let public_key = key_arg(public_key, "public_key")?;
    let message = bytes_arg(message, "message")?;
    let signature = bytes_arg(signature_der, "signature_der")?;
    py.detach(|| p256::verify_signature(&public_key, &message, &signature))
        .py_err()
}

#[pyfunction]
fn verify_signature_p1363(
    py: Python<'_>,
    public_key: &Bound<'_, PyAny>,
    message: &Bound<'_, PyAny>,
    signature: &Bound<'_, PyAny>,
) -> PyResult<bool> {
    let public_key = key_arg(public_key, "public_key")?;
    let message = bytes_arg(message, "message")?;
    let signature = bytes_arg(signature, "signature")?;
    py.detach(|| p256::cached_verifying_key(&public_key)?.verify_p1363(&message, &signature))
        .py_err()
}

#[pyfunction]
fn ecdh_for_tests<'py>(
    py: Python<'py>,
    private_key: &Bound<'py, PyAny>,
    peer_public_key: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = private_key_arg(private_key)?;
    let peer = public_key_arg(py, peer_public_key, "peer_public_key")?;
    let secret = py.detach(|| key.key().ecdh(&peer)).py_err()?;
    Ok(PyBytes::new(py, secret.as_ref()))
}

// ---------------------------------------------------------------------------------------------
// HPKE

fn enc_ct_tuple<'py>(py: Python<'py>, enc: &[u8], ct: &[u8]) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [PyBytes::new(py, enc), PyBytes::new(py, ct)])
}

#[pyfunction]
#[pyo3(signature = (recipient_public_key, plaintext, info, aad = None))]
fn hpke_seal<'py>(
    py: Python<'py>,
    recipient_public_key: &Bound<'py, PyAny>,
    plaintext: &Bound<'py, PyAny>,
    info: &Bound<'py, PyAny>,
    aad: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let recipient = public_key_arg(py, recipient_public_key, "recipient_public_key")?;
    let plaintext = bytes_arg(plaintext, "plaintext")?;
    let info = bytes_arg(info, "info")?;
    let aad = optional_bytes_arg(aad, "aad")?;
    let (enc, ct) = py
        .detach(|| hpke::seal(&recipient, &info, aad_arg(&aad), &plaintext))
        .py_err()?;
    enc_ct_tuple(py, &enc, &ct)
}

#[pyfunction]
#[pyo3(signature = (recipient_public_key, plaintext, ephemeral_key, info, aad = None))]
fn hpke_seal_deterministic_for_tests<'py>(
    py: Python<'py>,
    recipient_public_key: &Bound<'py, PyAny>,
    plaintext: &Bound<'py, PyAny>,
    ephemeral_key: &Bound<'py, PyKeyPair>,
    info: &Bound<'py, PyAny>,
    aad: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let recipient = public_key_arg(py, recipient_public_key, "recipient_public_key")?;
    let plaintext = bytes_arg(plaintext, "plaintext")?;
    let info = bytes_arg(info, "info")?;
    let aad = optional_bytes_arg(aad, "aad")?;
    let ephemeral = &ephemeral_key.get().inner;
    let (enc, ct) = py
        .detach(|| {
            hpke::seal_with_ephemeral(&recipient, &info, aad_arg(&aad), &plaintext, ephemeral)
        })
        .py_err()?;
    enc_ct_tuple(py, &enc, &ct)
}

#[pyfunction]
#[pyo3(signature = (recipient_key, enc, ciphertext, info, aad = None))]
fn hpke_open<'py>(
    py: Python<'py>,
    recipient_key: &Bound<'py, PyAny>,
    enc: &Bound<'py, PyAny>,
    ciphertext: &Bound<'py, PyAny>,
    info: &Bound<'py, PyAny>,
    aad: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = private_key_arg(recipient_key)?;
    let enc = enc_arg(enc)?;
    let ciphertext = bytes_arg(ciphertext, "ciphertext")?;
    let info = bytes_arg(info, "info")?;
    let aad = optional_bytes_arg(aad, "aad")?;
    let plaintext = py
        .detach(|| hpke::open(key.key(), &enc, &info, aad_arg(&aad), &ciphertext))
        .py_err()?;
    Ok(PyBytes::new(py, &plaintext))
}

#[pyfunction]
fn hpke_derive_key_pair(py: Python<'_>, ikm: &Bound<'_, PyAny>) -> PyResult<PyKeyPair> {
    let ikm = bytes_arg(ikm, "ikm")?;
    let inner = py.detach(|| hpke::derive_key_pair(&ikm)).py_err()?;
    Ok(PyKeyPair { inner })
}

/// An RFC 9180 context with sequence numbers and secret export.
#[pyclass(name = "HpkeContext", module = "embedded_wallet_crypto._native")]
struct PyHpkeContext {
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
        aad: &Bound<'py, PyAny>,
        plaintext: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let aad = bytes_arg(aad, "aad")?;
        let plaintext = bytes_arg(plaintext, "plaintext")?;
        let ct = self.inner.seal(&aad, &plaintext).py_err()?;
        Ok(PyBytes::new(py, &ct))
    }

    fn open<'py>(
        &mut self,
        py: Python<'py>,
        aad: &Bound<'py, PyAny>,
        ciphertext: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let aad = bytes_arg(aad, "aad")?;
        let ciphertext = bytes_arg(ciphertext, "ciphertext")?;
        let pt = self.inner.open(&aad, &ciphertext).py_err()?;
        Ok(PyBytes::new(py, &pt))
    }

    fn export<'py>(
        &self,
        py: Python<'py>,
        exporter_context: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let length: usize = int_arg(length, invalid_length)?;
        let exporter_context = bytes_arg(exporter_context, "exporter_context")?;
        let secret = self.inner.export(&exporter_context, length).py_err()?;
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
fn hpke_setup_sender<'py>(
    py: Python<'py>,
    recipient_public_key: &Bound<'py, PyAny>,
    info: &Bound<'py, PyAny>,
    aead_id: &Bound<'py, PyAny>,
    ephemeral_key: Option<&Bound<'py, PyKeyPair>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let aead_id: u16 = int_arg(aead_id, invalid_aead)?;
    let recipient = public_key_arg(py, recipient_public_key, "recipient_public_key")?;
    let info = bytes_arg(info, "info")?;
    let aead = hpke::AeadId::from_id(aead_id).py_err()?;
    let ephemeral = ephemeral_key.map(|k| &k.get().inner);
    let (enc, context) = py
        .detach(|| match ephemeral {
            Some(key) => hpke::setup_base_s_with_ephemeral(&recipient, &info, aead, key),
            None => hpke::setup_base_s(&recipient, &info, aead),
        })
        .py_err()?;
    let context = Bound::new(py, PyHpkeContext { inner: context })?;
    PyTuple::new(py, [PyBytes::new(py, &enc).into_any(), context.into_any()])
}

#[pyfunction]
fn hpke_setup_receiver(
    py: Python<'_>,
    recipient_key: &Bound<'_, PyAny>,
    enc: &Bound<'_, PyAny>,
    info: &Bound<'_, PyAny>,
    aead_id: &Bound<'_, PyAny>,
) -> PyResult<PyHpkeContext> {
    let aead_id: u16 = int_arg(aead_id, invalid_aead)?;
    let key = private_key_arg(recipient_key)?;
    let enc = enc_arg(enc)?;
    let info = bytes_arg(info, "info")?;
    let aead = hpke::AeadId::from_id(aead_id).py_err()?;
    let inner = py
        .detach(|| hpke::setup_base_r(&enc, key.key(), &info, aead))
        .py_err()?;
    Ok(PyHpkeContext { inner })
}

// ---------------------------------------------------------------------------------------------
// Primitives (for upstream vectors: Wycheproof AES-GCM and HKDF, RFC 5869)

/// `AesGcm::seal` or `AesGcm::open`: (key, nonce, aad, input) to output.
type AesGcmDirection<T> = fn(&primitives::AesGcm, &[u8], &[u8], &[u8]) -> ewc_core::Result<T>;

/// Runs one AES-GCM direction over bytes-like arguments (the key is wiped after use).
fn aes_gcm<'py, T: AsRef<[u8]>>(
    py: Python<'py>,
    args: [&Bound<'py, PyAny>; 4],
    direction: AesGcmDirection<T>,
) -> PyResult<Bound<'py, PyBytes>> {
    let [key, nonce, aad, input] = args;
    let key = zeroize::Zeroizing::new(bytes_arg(key, "key")?.into_owned());
    let (nonce, aad, input) = (
        bytes_arg(nonce, "nonce")?,
        bytes_arg(aad, "aad")?,
        bytes_arg(input, "input")?,
    );
    let output = primitives::AesGcm::new(&key)
        .and_then(|k| direction(&k, &nonce, &aad, &input))
        .py_err()?;
    Ok(PyBytes::new(py, output.as_ref()))
}

#[pyfunction]
fn aes_gcm_seal<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    nonce: &Bound<'py, PyAny>,
    aad: &Bound<'py, PyAny>,
    plaintext: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    aes_gcm(py, [key, nonce, aad, plaintext], primitives::AesGcm::seal)
}

#[pyfunction]
fn aes_gcm_open<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    nonce: &Bound<'py, PyAny>,
    aad: &Bound<'py, PyAny>,
    ciphertext: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    aes_gcm(py, [key, nonce, aad, ciphertext], primitives::AesGcm::open)
}

#[pyfunction]
fn hkdf_extract<'py>(
    py: Python<'py>,
    salt: &Bound<'py, PyAny>,
    ikm: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (salt, ikm) = (bytes_arg(salt, "salt")?, bytes_arg(ikm, "ikm")?);
    let prk = primitives::hkdf_extract(&salt, &[&ikm]);
    Ok(PyBytes::new(py, prk.as_ref()))
}

#[pyfunction]
fn hkdf_expand<'py>(
    py: Python<'py>,
    prk: &Bound<'py, PyAny>,
    info: &Bound<'py, PyAny>,
    length: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let length: usize = int_arg(length, invalid_length)?;
    let (prk, info) = (bytes_arg(prk, "prk")?, bytes_arg(info, "info")?);
    primitives::check_hkdf_output_len(length).py_err()?;
    let mut okm = zeroize::Zeroizing::new(vec![0u8; length]);
    primitives::hkdf_expand(&prk, &[&info], &mut okm).py_err()?;
    Ok(PyBytes::new(py, &okm))
}

#[pyfunction]
fn sha256<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let data = bytes_arg(data, "data")?;
    Ok(PyBytes::new(py, &primitives::sha256(&data)))
}

// ---------------------------------------------------------------------------------------------
// Session keys and stamps

#[pyfunction]
fn seal_session_key(
    py: Python<'_>,
    client_public_key: &Bound<'_, PyAny>,
    session_key: &Bound<'_, PyKeyPair>,
) -> PyResult<String> {
    let client = key_arg(client_public_key, "client_public_key")?;
    let session_key = &session_key.get().inner;
    py.detach(|| session::seal_session_key(&client, session_key))
        .py_err()
}

#[pyfunction]
fn open_session_key(
    py: Python<'_>,
    encrypted_session_signing_key: &Bound<'_, PyAny>,
    client_key: &Bound<'_, PyAny>,
) -> PyResult<PyKeyPair> {
    let encrypted_session_signing_key =
        text_arg(encrypted_session_signing_key, invalid_base58_text)?;
    let encrypted_session_signing_key: &str = &encrypted_session_signing_key;
    let key = private_key_arg(client_key)?;
    let inner = py
        .detach(|| session::open_session_key(encrypted_session_signing_key, key.key()))
        .py_err()?;
    Ok(PyKeyPair { inner })
}

#[pyfunction]
fn create_stamp(
    py: Python<'_>,
    payload: &Bound<'_, PyAny>,
    key: &Bound<'_, PyKeyPair>,
) -> PyResult<String> {
    let payload = payload_arg(payload)?;
    let key = &key.get().inner;
    py.detach(|| stamp::create(&payload, key)).py_err()
}

/// Returns `(public_key compressed hex, scheme, DER signature)` of a stamp that verified.
#[pyfunction]
#[pyo3(signature = (stamp, payload, expected_public_key = None))]
fn verify_stamp<'py>(
    py: Python<'py>,
    stamp: &Bound<'py, PyAny>,
    payload: &Bound<'py, PyAny>,
    expected_public_key: Option<&Bound<'py, PyAny>>,
) -> PyResult<(String, &'static str, Bound<'py, PyBytes>)> {
    let stamp = text_arg(stamp, || {
        Error::stamp_malformed("the stamp is not valid text")
    })?;
    let stamp: &str = &stamp;
    let payload = payload_arg(payload)?;
    let expected = expected_public_key
        .filter(|k| !k.is_none())
        .map(|k| public_key_arg(py, k, "expected_public_key"))
        .transpose()?;
    let verified = py
        .detach(|| stamp::verify(stamp, &payload, expected.as_ref()))
        .py_err()?;
    Ok((
        hex::encode(verified.public_key.compressed()),
        stamp::SCHEME,
        PyBytes::new(py, &verified.signature),
    ))
}

#[pyfunction]
#[pyo3(signature = (stamps, payloads, expected_public_keys = None))]
fn verify_stamps(
    py: Python<'_>,
    stamps: &Bound<'_, PyAny>,
    payloads: &Bound<'_, PyAny>,
    expected_public_keys: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<bool>> {
    let stamps: Vec<String> = stamps
        .try_iter()?
        .map(|s| {
            s.and_then(|s| {
                text_arg(&s, || Error::stamp_malformed("the stamp is not valid text"))
                    .map(Cow::into_owned)
            })
        })
        .collect::<PyResult<_>>()?;
    let payloads: Vec<Vec<u8>> = payloads
        .try_iter()?
        .map(|p| p.and_then(|p| payload_arg(&p).map(Cow::into_owned)))
        .collect::<PyResult<_>>()?;
    let expected: Vec<Option<PublicKey>> = match expected_public_keys.filter(|k| !k.is_none()) {
        None => vec![None; stamps.len()],
        Some(keys) => keys
            .try_iter()?
            .map(|k| {
                let k = k?;
                if k.is_none() {
                    Ok(None)
                } else {
                    public_key_arg(py, &k, "expected_public_keys").map(Some)
                }
            })
            .collect::<PyResult<_>>()?,
    };
    if payloads.len() != stamps.len() || expected.len() != stamps.len() {
        return Err(to_py_err(Error::batch_length()));
    }
    let items: Vec<stamp::BatchItem<'_>> = stamps
        .iter()
        .zip(&payloads)
        .zip(&expected)
        .map(|((s, p), e)| (s.as_str(), p.as_slice(), e.as_ref()))
        .collect();
    Ok(py.detach(|| stamp::verify_many(&items)))
}

// ---------------------------------------------------------------------------------------------
// base58

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
fn b58encode(data: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(base58::encode(&bytes_arg(data, "data")?))
}

#[pyfunction]
fn b58decode<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let text = text_arg(text, invalid_base58_text)?;
    let decoded = off_gil_if_long(py, text.len(), || base58::decode(&text)).py_err()?;
    Ok(PyBytes::new(py, &decoded))
}

#[pyfunction]
fn b58check_encode(data: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(base58::check_encode(&bytes_arg(data, "data")?))
}

#[pyfunction]
fn b58check_decode<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let text = text_arg(text, invalid_base58_text)?;
    let decoded = off_gil_if_long(py, text.len(), || base58::check_decode(&text)).py_err()?;
    Ok(PyBytes::new(py, &decoded))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "KEM_DHKEM_P256_HKDF_SHA256",
        hpke::KEM_DHKEM_P256_HKDF_SHA256,
    )?;
    m.add("KDF_HKDF_SHA256", hpke::KDF_HKDF_SHA256)?;
    m.add("AEAD_AES_128_GCM", hpke::AEAD_AES_128_GCM)?;
    m.add("AEAD_AES_256_GCM", hpke::AEAD_AES_256_GCM)?;
    m.add_class::<PyKeyPair>()?;
    m.add_class::<PyHpkeContext>()?;
    m.add_function(wrap_pyfunction!(parse_public_key, m)?)?;
    m.add_function(wrap_pyfunction!(compress_public_key, m)?)?;
    m.add_function(wrap_pyfunction!(verify_signature, m)?)?;
    m.add_function(wrap_pyfunction!(verify_signature_p1363, m)?)?;
    m.add_function(wrap_pyfunction!(ecdh_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(hpke_seal, m)?)?;
    m.add_function(wrap_pyfunction!(hpke_seal_deterministic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(hpke_open, m)?)?;
    m.add_function(wrap_pyfunction!(hpke_derive_key_pair, m)?)?;
    m.add_function(wrap_pyfunction!(hpke_setup_sender, m)?)?;
    m.add_function(wrap_pyfunction!(hpke_setup_receiver, m)?)?;
    m.add_function(wrap_pyfunction!(aes_gcm_seal, m)?)?;
    m.add_function(wrap_pyfunction!(aes_gcm_open, m)?)?;
    m.add_function(wrap_pyfunction!(hkdf_extract, m)?)?;
    m.add_function(wrap_pyfunction!(hkdf_expand, m)?)?;
    m.add_function(wrap_pyfunction!(sha256, m)?)?;
    m.add_function(wrap_pyfunction!(seal_session_key, m)?)?;
    m.add_function(wrap_pyfunction!(open_session_key, m)?)?;
    m.add_function(wrap_pyfunction!(create_stamp, m)?)?;
    m.add_function(wrap_pyfunction!(verify_stamp, m)?)?;
    m.add_function(wrap_pyfunction!(verify_stamps, m)?)?;
    m.add("STAMP_SCHEME", stamp::SCHEME)?;
    m.add_function(wrap_pyfunction!(b58encode, m)?)?;
    m.add_function(wrap_pyfunction!(b58decode, m)?)?;
    m.add_function(wrap_pyfunction!(b58check_encode, m)?)?;
    m.add_function(wrap_pyfunction!(b58check_decode, m)?)?;
    envelope::register(m)?;
    Ok(())
}
