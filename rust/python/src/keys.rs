//! Bindings of `p256.rs`: the `KeyPair` class, public keys and ECDSA verification.

use ewc_core::{p256, KeyPair};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::convert::{
    self, Bytes, IntoPy, Key, KeyName, MessageName, PrivateHex, Public, PublicKeyName,
    SignatureDerName, SignatureName,
};

/// A P-256 key pair. The private scalar stays in Rust; repr shows only the public key.
#[pyclass(frozen, name = "KeyPair", module = "embedded_wallet_crypto._native")]
pub(crate) struct PyKeyPair {
    pub(crate) inner: KeyPair,
}

#[pymethods]
impl PyKeyPair {
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        let inner = py.detach(KeyPair::generate).py_err()?;
        Ok(Self { inner })
    }

    #[staticmethod]
    fn from_private_bytes(
        py: Python<'_>,
        private_key: Bytes<'_, convert::PrivateKeyName>,
    ) -> PyResult<Self> {
        let scalar = zeroize::Zeroizing::new(private_key.into_owned());
        let inner = py
            .detach(|| KeyPair::from_private_bytes(&scalar))
            .py_err()?;
        Ok(Self { inner })
    }

    #[staticmethod]
    fn from_private_hex(py: Python<'_>, private_key_hex: PrivateHex) -> PyResult<Self> {
        let text = private_key_hex.0;
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
        message: Bytes<'_, MessageName>,
    ) -> PyResult<Bound<'py, PyBytes>> {
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

/// `KeyPair` or 32 private-key bytes. It lives here rather than in `convert.rs`, which would
/// otherwise import this file while this file imports it.
pub(crate) enum PrivateKey<'a> {
    Handle(&'a KeyPair),
    Owned(KeyPair),
}

impl PrivateKey<'_> {
    pub(crate) fn key(&self) -> &KeyPair {
        match self {
            Self::Handle(key) => key,
            Self::Owned(key) => key,
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for PrivateKey<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(handle) = obj.cast::<PyKeyPair>() {
            return Ok(Self::Handle(&handle.get().inner));
        }
        let scalar = Bytes::<convert::RecipientKeyName>::extract(obj)?;
        let scalar = zeroize::Zeroizing::new(scalar.into_owned());
        KeyPair::from_private_bytes(&scalar)
            .map(Self::Owned)
            .py_err()
    }
}

/// A private key converted by hand, for bindings that must defer the conversion until their
/// checks reach it (`envelope.rs`).
pub(crate) fn private_key_arg<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<PrivateKey<'a>> {
    PrivateKey::extract(obj.as_borrowed())
}

#[pyfunction]
pub(crate) fn parse_public_key<'py>(py: Python<'py>, key: Public<KeyName>) -> Bound<'py, PyBytes> {
    PyBytes::new(py, key.0.uncompressed())
}

#[pyfunction]
pub(crate) fn compress_public_key<'py>(
    py: Python<'py>,
    key: Public<KeyName>,
) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &key.0.compressed())
}

#[pyfunction]
pub(crate) fn verify_signature(
    py: Python<'_>,
    public_key: Key<'_, PublicKeyName>,
    message: Bytes<'_, MessageName>,
    signature_der: Bytes<'_, SignatureDerName>,
) -> PyResult<bool> {
    py.detach(|| p256::verify_signature(&public_key, &message, &signature_der))
        .py_err()
}

#[pyfunction]
pub(crate) fn verify_signature_p1363(
    py: Python<'_>,
    public_key: Key<'_, PublicKeyName>,
    message: Bytes<'_, MessageName>,
    signature: Bytes<'_, SignatureName>,
) -> PyResult<bool> {
    py.detach(|| p256::cached_verifying_key(&public_key)?.verify_p1363(&message, &signature))
        .py_err()
}

/// The `der_to_p1363` / `p1363_to_der` conversions of a P-256 ECDSA signature.
#[pyfunction]
pub(crate) fn der_to_p1363<'py>(
    py: Python<'py>,
    signature: Bytes<'_, SignatureName>,
) -> PyResult<Bound<'py, PyBytes>> {
    let fixed = ewc_core::der::der_to_p1363(&signature).py_err()?;
    Ok(PyBytes::new(py, &fixed))
}

#[pyfunction]
pub(crate) fn p1363_to_der<'py>(
    py: Python<'py>,
    signature: Bytes<'_, SignatureName>,
) -> PyResult<Bound<'py, PyBytes>> {
    let der = ewc_core::der::p1363_to_der(&signature).py_err()?;
    Ok(PyBytes::new(py, &der))
}

/// The two stamp-scheme key classes share one shape; `$core` is the core's key pair type.
macro_rules! scheme_key_pair {
    ($py_ty:ident, $name:literal, $core:ty, $scheme:expr, $public:expr) => {
        #[doc = concat!("A ", $name, ": the secret stays in Rust; repr shows only the public key.")]
        #[pyclass(frozen, name = $name, module = "embedded_wallet_crypto._native")]
        pub(crate) struct $py_ty {
            pub(crate) inner: $core,
        }

        impl $py_ty {
            fn public(&self) -> Vec<u8> {
                let public: fn(&$core) -> Vec<u8> = $public;
                public(&self.inner)
            }
        }

        #[pymethods]
        impl $py_ty {
            #[staticmethod]
            fn generate(py: Python<'_>) -> PyResult<Self> {
                let inner = py.detach(<$core>::generate).py_err()?;
                Ok(Self { inner })
            }

            #[staticmethod]
            fn from_private_bytes(
                py: Python<'_>,
                private_key: Bytes<'_, convert::PrivateKeyName>,
            ) -> PyResult<Self> {
                let secret = zeroize::Zeroizing::new(private_key.into_owned());
                let inner = py
                    .detach(|| <$core>::from_private_bytes(&secret))
                    .py_err()?;
                Ok(Self { inner })
            }

            /// The stamp's scheme name for this key.
            #[getter]
            fn scheme(&self) -> &'static str {
                $scheme.name()
            }

            /// The public key as a stamp carries it.
            fn public_key_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, &self.public())
            }

            /// The public key's hex as a stamp carries it.
            fn public_key_hex(&self) -> String {
                hex::encode(self.public())
            }

            /// Explicit export of the 32 secret bytes: the one way the secret leaves Rust.
            fn private_key_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                let secret = self.inner.private_key_bytes().py_err()?;
                Ok(PyBytes::new(py, secret.as_ref()))
            }

            fn sign<'py>(
                &self,
                py: Python<'py>,
                message: Bytes<'_, MessageName>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                let signature = py.detach(|| self.inner.sign(&message)).py_err()?;
                Ok(PyBytes::new(py, signature.as_ref()))
            }

            fn __repr__(&self) -> String {
                format!(
                    concat!($name, "(public_key='{}')"),
                    hex::encode(self.public())
                )
            }

            /// Refuses pickling under every protocol.
            fn __reduce__(&self) -> PyResult<()> {
                Err(PyTypeError::new_err(concat!(
                    $name,
                    " cannot be pickled; export the secret explicitly with private_key_bytes()"
                )))
            }

            fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                other
                    .cast::<$py_ty>()
                    .is_ok_and(|o| o.get().inner.public_key() == self.inner.public_key())
            }

            fn __hash__(&self) -> u64 {
                let public = self.public();
                u64::from_be_bytes(public[1..9].try_into().unwrap_or([0; 8]))
            }
        }
    };
}

scheme_key_pair!(
    PySecp256k1KeyPair,
    "Secp256k1KeyPair",
    ewc_core::secp256k1::KeyPair,
    ewc_core::stamp::Scheme::Secp256k1,
    |key| key.public_key().compressed().to_vec()
);
scheme_key_pair!(
    PyEd25519KeyPair,
    "Ed25519KeyPair",
    ewc_core::ed25519::KeyPair,
    ewc_core::stamp::Scheme::Ed25519,
    |key| key.public_key().as_bytes().to_vec()
);
