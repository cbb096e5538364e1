//! embedded-wallet-crypto core: HPKE (RFC 9180), P-256 keys and ECDSA, secp256k1 ECDSA and
//! Ed25519 (stamp schemes), base58check, session keys, stamps and the signed export/OTP
//! envelopes, on aws-lc-rs (secp256k1 on libsecp256k1, through the `secp256k1` crate).
//!
//! Rust with no Python in it: the PyO3 crate (`rust/python`) is a thin layer over this one,
//! and Rust servers can use it directly. Every fallible function returns [`Error`], whose `code`
//! is stable (see `vectors/README.md`).

#![forbid(unsafe_code)]

pub mod base58;
pub mod der;
pub mod ed25519;
pub mod envelope;
pub mod error;
mod field;
pub mod hpke;
pub mod json;
mod key_cache;
pub mod p256;
pub mod primitives;
pub mod secp256k1;
pub mod session;
pub mod stamp;

pub use error::{Error, ErrorKind, Result};
pub use p256::{KeyPair, PublicKey};
