//! Where `open_export_bundle`'s time goes, below Python: the export benchmark's own bundle
//! (`benches/test_bench_export.py`: the same keys, mnemonic and organization) opened by the core,
//! beside the aws-lc calls it cannot do without.
//!
//! ```text
//! cargo run --release --locked -p ewc-core --example export_floor
//! ```
//!
//! Prints the median of 15 rounds of 2,000 calls each, in µs:
//! - `aws-lc verify`: ECDSA P-256 verification of the signed data with the parsed pinned key;
//! - `aws-lc ecdh`: the agreement with the bundle's `encappedPublic` (parsed and validated by
//!   aws-lc, as on every open);
//! - `core hpke open`: `hpke::open` of the sealed mnemonic (that ECDH, the key schedule's HMACs,
//!   the AES-256-GCM open);
//! - `core open_export`: every check of the envelope, then that open.
//!
//! `aws-lc verify + core hpke open` is the floor of an export open built on aws-lc; what
//! `open_export` costs above it is the envelope's own reading (JSON, hex, the checks). This is a
//! measurement for the benchmarks' notes, not a test: it asserts only that each call works.

use std::time::Instant;

use aws_lc_rs::agreement::{self, UnparsedPublicKey, ECDH_P256};
use aws_lc_rs::digest::{digest, SHA256};
use aws_lc_rs::signature::{ParsedPublicKey, ECDSA_P256_SHA256_ASN1};
use ewc_core::envelope::{self, KeyInput};
use ewc_core::hpke::{self, Aad, PROFILE_INFO};
use ewc_core::json::read_object;
use ewc_core::KeyPair;

const ORGANIZATION: &str = "8d3b1a0c-5f7e-4a2b-9c1d-0e6f4a3b2c1d";
const MNEMONIC: &[u8] = b"legal winner thank year wave sausage worth useful legal winner thank \
year wave sausage worth useful legal winner thank year wave sausage worth title";
const ROUNDS: usize = 15;
const CALLS: u32 = 2_000;

/// The bench's `_scalar(label)`: SHA-256 of a fixed prefix and the label.
fn key(label: &str) -> KeyPair {
    let scalar = digest(
        &SHA256,
        format!("embedded-wallet-crypto export bench {label}").as_bytes(),
    );
    KeyPair::from_private_bytes(scalar.as_ref()).expect("a valid scalar")
}

fn field(object: &ewc_core::json::Object, name: &str) -> Vec<u8> {
    hex::decode(object.text(name).expect("the field")).expect("hex")
}

/// Median µs per call of `CALLS` calls, over `ROUNDS` rounds.
fn median_us(mut call: impl FnMut()) -> f64 {
    let mut rounds: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..CALLS {
                call();
            }
            start.elapsed().as_secs_f64() * 1e6 / f64::from(CALLS)
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    rounds[ROUNDS / 2]
}

fn main() {
    let signer = key("enclave signer");
    let client = key("client");
    let client_public = hex::encode(client.public_key().uncompressed());
    let pinned = hex::encode(signer.public_key().uncompressed());
    let bundle = envelope::seal_export(
        KeyInput::Hex(&client_public),
        MNEMONIC,
        ORGANIZATION,
        Some(&signer),
    )
    .expect("a sealed bundle");

    // The pieces the open works on, read once here.
    let document = read_object(bundle.as_bytes()).expect("the envelope");
    let data = field(&document, "data");
    let signature = field(&document, "dataSignature");
    let inner = read_object(&data).expect("the signed data");
    let enc = field(&inner, "encappedPublic");
    let ciphertext = field(&inner, "ciphertext");
    let verifier =
        ParsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, signer.public_key().uncompressed())
            .expect("the pinned key");
    let private = agreement::PrivateKey::from_private_key(
        &ECDH_P256,
        client.private_key_bytes().expect("the scalar").as_ref(),
    )
    .expect("the client key");

    let open = || {
        envelope::open_export(
            bundle.as_bytes(),
            &client,
            Some(ORGANIZATION),
            KeyInput::Hex(&pinned),
            false,
        )
        .expect("the export opens")
    };
    assert_eq!(open().as_slice(), MNEMONIC);

    let verify = median_us(|| {
        assert!(verifier.verify_sig(&data, &signature).is_ok());
    });
    let ecdh = median_us(|| {
        let peer = UnparsedPublicKey::new(&ECDH_P256, &enc);
        agreement::agree(&private, peer, (), |secret| Ok(secret.len())).expect("the agreement");
    });
    let hpke_open = median_us(|| {
        hpke::open(&client, &enc, PROFILE_INFO, Aad::Profile, &ciphertext).expect("the open");
    });
    let core = median_us(|| {
        open();
    });
    let floor = verify + hpke_open;
    println!("aws-lc verify                      {verify:7.2} µs");
    println!("aws-lc ecdh                        {ecdh:7.2} µs");
    println!("core hpke open                     {hpke_open:7.2} µs");
    println!("floor (aws-lc verify + hpke open)  {floor:7.2} µs");
    println!(
        "core open_export                   {core:7.2} µs ({:+.2} µs, {:+.1}% above the floor)",
        core - floor,
        (core / floor - 1.0) * 100.0
    );
}
