//! Errors and arguments: every core error becomes the matching exception class of
//! `embedded_wallet_crypto.errors`, and every argument type is a `FromPyObject` newtype, so that a
//! binding's signature says what it takes (pyca's `CffiBuf` shape).

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Deref;

use ewc_core::{hpke, p256, Error, ErrorKind, PublicKey};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyInt, PyString};

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
pub(crate) fn to_py_err(err: Error) -> PyErr {
    Python::attach(|py| {
        match error_class(py, err.kind()).and_then(|cls| cls.call1((err.reason(), err.code()))) {
            Ok(instance) => PyErr::from_value(instance),
            Err(import_failure) => import_failure,
        }
    })
}

pub(crate) trait IntoPy<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for ewc_core::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py_err)
    }
}

// ---------------------------------------------------------------------------------------------
// Argument names (they appear in the TypeError of a wrong Python type)

/// The name a byte or key argument has in its TypeError message.
pub(crate) trait ArgName {
    const NAME: &'static str;
}

macro_rules! arg_names {
    ($($ty:ident = $name:literal),* $(,)?) => {$(
        #[doc = concat!("The argument `", $name, "`.")]
        pub(crate) enum $ty {}
        impl ArgName for $ty {
            const NAME: &'static str = $name;
        }
    )*};
}

arg_names! {
    AadName = "aad",
    CiphertextName = "ciphertext",
    ClientPublicKeyName = "client_public_key",
    DataName = "data",
    ExpectedPublicKeyName = "expected_public_key",
    ExpectedPublicKeysName = "expected_public_keys",
    ExporterContextName = "exporter_context",
    IkmName = "ikm",
    InfoName = "info",
    InputName = "input",
    KeyName = "key",
    MessageName = "message",
    NonceName = "nonce",
    PeerPublicKeyName = "peer_public_key",
    PlaintextName = "plaintext",
    PrivateKeyName = "private_key",
    PrkName = "prk",
    RecipientKeyName = "recipient_key",
    PublicKeyName = "public_key",
    RecipientPublicKeyName = "recipient_public_key",
    SaltName = "salt",
    SignatureDerName = "signature_der",
    SignatureName = "signature",
}

// ---------------------------------------------------------------------------------------------
// Bytes, text and integers

/// A bytes-like argument: `bytes` is borrowed, `bytearray` copied, anything else goes through
/// the buffer protocol with `memoryview(obj)` (the limited API of CPython 3.10 has no `PyBuffer`).
fn buffer<'a>(obj: Borrowed<'a, '_, PyAny>, what: &str) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(bytes) = obj.extract::<&'a [u8]>() {
        return Ok(Cow::Borrowed(bytes));
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
        // A released memoryview raises ValueError: it is no buffer any more, so a wrong type.
        Err(err) if err.is_instance_of::<PyValueError>(obj.py()) => Err(PyTypeError::new_err(
            format!("{what} is a released memoryview, not a buffer"),
        )),
        Err(err) if err.is_instance_of::<PyTypeError>(obj.py()) => {
            Err(PyTypeError::new_err(format!(
                "{what} must be bytes, bytearray or memoryview, not {}",
                type_name(&obj)
            )))
        }
        Err(err) => Err(err),
    }
}

/// A text argument. A `str` that cannot be UTF-8 (a lone surrogate) is the parser's own error.
fn text<'a>(obj: Borrowed<'a, '_, PyAny>, invalid: fn() -> Error) -> PyResult<Cow<'a, str>> {
    if !obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "expected str, not {}",
            type_name(&obj)
        )));
    }
    obj.extract::<Cow<'a, str>>()
        .map_err(|_| to_py_err(invalid()))
}

/// A bytes-like argument converted by hand, for bindings that must convert their arguments in
/// the order the checks reach them (`envelope.rs`).
pub(crate) fn bytes_arg<'a>(obj: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Cow<'a, [u8]>> {
    buffer(obj.as_borrowed(), what)
}

/// A text argument converted by hand (see `bytes_arg`).
pub(crate) fn text_arg<'a>(
    obj: &'a Bound<'_, PyAny>,
    invalid: fn() -> Error,
) -> PyResult<Cow<'a, str>> {
    text(obj.as_borrowed(), invalid)
}

pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// A non-negative integer argument; anything out of range is `invalid()`, not an OverflowError.
fn int<'a, 'py, T>(obj: Borrowed<'a, 'py, PyAny>, invalid: fn() -> Error) -> PyResult<T>
where
    T: FromPyObject<'a, 'py>,
{
    // bool is an int subclass, but True is no AEAD id or length.
    if obj.cast::<PyInt>().is_err() || obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "expected int, not {}",
            type_name(&obj)
        )));
    }
    obj.extract::<T>().map_err(|_| to_py_err(invalid()))
}

/// Bytes-like, through the buffer protocol only; `N` names the argument in a TypeError.
pub(crate) struct Bytes<'a, N>(Cow<'a, [u8]>, PhantomData<N>);

impl<'a, 'py, N: ArgName> FromPyObject<'a, 'py> for Bytes<'a, N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        buffer(obj, N::NAME).map(|bytes| Self(bytes, PhantomData))
    }
}

impl<N> Deref for Bytes<'_, N> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl<N> Bytes<'_, N> {
    pub(crate) fn into_owned(self) -> Vec<u8> {
        self.0.into_owned()
    }
}

/// The `aad` of a single-shot seal or open: given bytes, or the wallet profile's when `None`.
pub(crate) fn aad<'a>(aad: &'a Option<Bytes<'_, AadName>>) -> hpke::Aad<'a> {
    match aad {
        Some(bytes) => hpke::Aad::Explicit(bytes),
        None => hpke::Aad::Profile,
    }
}

/// A payload: `str` means its UTF-8 bytes; anything else is bytes-like, taken byte for byte.
pub(crate) struct Payload<'a>(pub(crate) Cow<'a, [u8]>);

impl<'a, 'py> FromPyObject<'a, 'py> for Payload<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() {
            let text = text(obj, || Error::text("payload"))?;
            return Ok(Self(match text {
                Cow::Borrowed(text) => Cow::Borrowed(text.as_bytes()),
                Cow::Owned(text) => Cow::Owned(text.into_bytes()),
            }));
        }
        buffer(obj, "payload").map(Self)
    }
}

/// A stamp's text; text that is not valid UTF-8 is a malformed stamp.
pub(crate) struct StampText<'a>(pub(crate) Cow<'a, str>);

impl<'a, 'py> FromPyObject<'a, 'py> for StampText<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        text(obj, || {
            Error::stamp_malformed("the stamp is not valid text")
        })
        .map(Self)
    }
}

/// base58 text; text that is not valid UTF-8 is outside the alphabet.
pub(crate) struct Base58Text<'a>(pub(crate) Cow<'a, str>);

impl<'a, 'py> FromPyObject<'a, 'py> for Base58Text<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let invalid = || Error::base58("text contains a character outside the base58 alphabet");
        text(obj, invalid).map(Self)
    }
}

/// A private key's hex text, wiped after use.
pub(crate) struct PrivateHex(pub(crate) zeroize::Zeroizing<String>);

impl<'py> FromPyObject<'_, 'py> for PrivateHex {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let text = text(obj, || Error::key_encoding("private key"))?;
        Ok(Self(zeroize::Zeroizing::new(text.into_owned())))
    }
}

/// An output length (HKDF-Expand, a context's secret export).
pub(crate) struct Length(pub(crate) usize);

impl<'py> FromPyObject<'_, 'py> for Length {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        int(obj, || {
            Error::length("the requested length is out of range")
        })
        .map(Self)
    }
}

/// An HPKE AEAD id: an int that fits `u16` (whether it is supported is the core's check).
pub(crate) struct AeadArg(pub(crate) u16);

impl<'py> FromPyObject<'_, 'py> for AeadArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let invalid = || Error::unsupported("HPKE AEAD must be AES-128-GCM (1) or AES-256-GCM (2)");
        int(obj, invalid).map(Self)
    }
}

// ---------------------------------------------------------------------------------------------
// Keys

/// A key's bytes: hex text (either case) or SEC1 bytes.
fn key_bytes<'a>(obj: Borrowed<'a, '_, PyAny>, what: &str) -> PyResult<Cow<'a, [u8]>> {
    if obj.is_instance_of::<PyString>() {
        let text = text(obj, || Error::key_encoding("key"))?;
        return p256::decode_key_hex(&text).map(Cow::Owned).py_err();
    }
    buffer(obj, what)
}

/// A public key's encoding, not yet validated (the core validates it where it is used).
pub(crate) struct Key<'a, N>(Cow<'a, [u8]>, PhantomData<N>);

impl<'a, 'py, N: ArgName> FromPyObject<'a, 'py> for Key<'a, N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        key_bytes(obj, N::NAME).map(|bytes| Self(bytes, PhantomData))
    }
}

impl<N> Deref for Key<'_, N> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// A validated public key. Only decompression (a square root, microseconds) is worth releasing
/// the GIL for; checking an uncompressed point costs less than the release itself.
pub(crate) struct Public<N>(pub(crate) PublicKey, PhantomData<N>);

impl<'py, N: ArgName> FromPyObject<'_, 'py> for Public<N> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let bytes = key_bytes(obj, N::NAME)?;
        let public = if bytes.len() == p256::COMPRESSED_LEN {
            obj.py().detach(|| PublicKey::from_sec1(&bytes)).py_err()?
        } else {
            PublicKey::from_sec1(&bytes).py_err()?
        };
        Ok(Self(public, PhantomData))
    }
}

/// An HPKE `enc`: a malformed value is one more way to fail to open (the one generic error); a
/// value of the wrong Python type is the caller's TypeError.
pub(crate) struct Enc<'a>(pub(crate) Cow<'a, [u8]>);

impl<'a, 'py> FromPyObject<'a, 'py> for Enc<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        key_bytes(obj, "enc").map(Self).map_err(|err| {
            if err.is_instance_of::<PyTypeError>(obj.py()) {
                err
            } else {
                to_py_err(Error::decryption())
            }
        })
    }
}
