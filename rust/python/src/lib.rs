//! PyO3 bindings of `ewc-core`: conversions only, one file per core module (pyca's shape).
//! EC and HPKE work runs with the GIL released, byte inputs are taken through the buffer
//! protocol (`convert.rs`), and every core error becomes the matching exception class of
//! `embedded_wallet_crypto.errors` with its stable `code`. This file is the module table.

mod base58;
mod convert;
mod envelope;
mod hpke;
mod keys;
mod stamps;
mod test_support;

use ewc_core::{hpke as core_hpke, stamp};
use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // keys.rs (p256)
    m.add_class::<keys::PyKeyPair>()?;
    m.add_function(wrap_pyfunction!(keys::parse_public_key, m)?)?;
    m.add_function(wrap_pyfunction!(keys::compress_public_key, m)?)?;
    m.add_function(wrap_pyfunction!(keys::verify_signature, m)?)?;
    m.add_function(wrap_pyfunction!(keys::verify_signature_p1363, m)?)?;
    m.add_function(wrap_pyfunction!(keys::der_to_p1363, m)?)?;
    m.add_function(wrap_pyfunction!(keys::p1363_to_der, m)?)?;
    m.add_class::<keys::PySecp256k1KeyPair>()?;
    m.add_class::<keys::PyEd25519KeyPair>()?;
    // hpke.rs
    m.add(
        "KEM_DHKEM_P256_HKDF_SHA256",
        core_hpke::KEM_DHKEM_P256_HKDF_SHA256,
    )?;
    m.add("KDF_HKDF_SHA256", core_hpke::KDF_HKDF_SHA256)?;
    m.add("AEAD_AES_128_GCM", core_hpke::AEAD_AES_128_GCM)?;
    m.add("AEAD_AES_256_GCM", core_hpke::AEAD_AES_256_GCM)?;
    m.add_class::<hpke::PyHpkeContext>()?;
    m.add_function(wrap_pyfunction!(hpke::hpke_seal, m)?)?;
    m.add_function(wrap_pyfunction!(
        hpke::hpke_seal_deterministic_for_tests,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(hpke::hpke_open, m)?)?;
    m.add_function(wrap_pyfunction!(hpke::hpke_derive_key_pair, m)?)?;
    m.add_function(wrap_pyfunction!(hpke::hpke_setup_sender, m)?)?;
    m.add_function(wrap_pyfunction!(hpke::hpke_setup_receiver, m)?)?;
    // stamps.rs (session, stamp)
    m.add("STAMP_SCHEME", stamp::SCHEME)?;
    m.add("STAMP_SCHEME_SECP256K1", stamp::SCHEME_SECP256K1)?;
    m.add("STAMP_SCHEME_ED25519", stamp::SCHEME_ED25519)?;
    m.add_function(wrap_pyfunction!(stamps::assemble_stamp, m)?)?;
    m.add_function(wrap_pyfunction!(stamps::seal_session_key, m)?)?;
    m.add_function(wrap_pyfunction!(stamps::open_session_key, m)?)?;
    m.add_function(wrap_pyfunction!(stamps::create_stamp, m)?)?;
    m.add_function(wrap_pyfunction!(stamps::verify_stamp, m)?)?;
    m.add_function(wrap_pyfunction!(stamps::verify_stamps, m)?)?;
    // base58.rs
    m.add_function(wrap_pyfunction!(base58::b58encode, m)?)?;
    m.add_function(wrap_pyfunction!(base58::b58decode, m)?)?;
    m.add_function(wrap_pyfunction!(base58::b58check_encode, m)?)?;
    m.add_function(wrap_pyfunction!(base58::b58check_decode, m)?)?;
    // envelope.rs
    envelope::register(m)?;
    // test_support.rs: a submodule, importable by its full name like any package module.
    let support = test_support::module(m.py())?;
    m.add("test_support", &support)?;
    let modules = m.py().import("sys")?.getattr("modules")?;
    modules.set_item(test_support::NAME, &support)?;
    Ok(())
}
