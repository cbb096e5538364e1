//! RFC 9180 (HPKE) and RFC 5869 (HKDF-SHA256) known answers from the upstream vector files.

mod common;

use common::{arr, field, finish, h, kv_records, load_json, read_vector_file, u, unhex};
use ewc_core::hpke::{self, AeadId};
use ewc_core::primitives::{hkdf_expand, hkdf_extract};
use ewc_core::{KeyPair, PublicKey};
use serde_json::Value;

const RFC9180: &str = "hpke/rfc9180-test-vectors-p256-sha256-aesgcm.json";
const RFC5869: &str = "hpke/rfc5869_hkdf_sha256.txt";

/// Checks one derived key pair against `sk*m` / `pk*m`.
fn check_derived(
    id: &str,
    who: &str,
    key: &KeyPair,
    sk: &[u8],
    pk: &[u8],
    failures: &mut Vec<String>,
) {
    match key.private_key_bytes() {
        Ok(bytes) if bytes.as_slice() == sk => {}
        Ok(bytes) => failures.push(format!(
            "{id}: DeriveKeyPair(ikm{who}) sk = {}, expected {}",
            hex::encode(bytes.as_slice()),
            hex::encode(sk)
        )),
        Err(err) => failures.push(format!("{id}: private_key_bytes for {who}: {err}")),
    }
    if key.public_key().uncompressed().as_slice() != pk {
        failures.push(format!(
            "{id}: DeriveKeyPair(ikm{who}) pk = {}, expected {}",
            hex::encode(key.public_key().uncompressed()),
            hex::encode(pk)
        ));
    }
}

/// Runs one mode-0 suite object; returns (encryptions, exports) checked.
fn run_suite(id: &str, suite: &Value, failures: &mut Vec<String>) -> (usize, usize) {
    let aead = match AeadId::from_id(u(suite, "aead_id") as u16) {
        Ok(aead) => aead,
        Err(err) => {
            failures.push(format!("{id}: AeadId::from_id: {err}"));
            return (0, 0);
        }
    };
    let info = h(suite, "info");
    let (ephemeral, recipient) = match (
        hpke::derive_key_pair(&h(suite, "ikmE")),
        hpke::derive_key_pair(&h(suite, "ikmR")),
    ) {
        (Ok(e), Ok(r)) => (e, r),
        (e, r) => {
            failures.push(format!(
                "{id}: derive_key_pair failed: ikmE -> {:?}, ikmR -> {:?}",
                e.err(),
                r.err()
            ));
            return (0, 0);
        }
    };
    check_derived(
        id,
        "E",
        &ephemeral,
        &h(suite, "skEm"),
        &h(suite, "pkEm"),
        failures,
    );
    check_derived(
        id,
        "R",
        &recipient,
        &h(suite, "skRm"),
        &h(suite, "pkRm"),
        failures,
    );

    // The recipient as loaded from the vector's own bytes, independent of DeriveKeyPair.
    let pk_r = match PublicKey::from_sec1(&h(suite, "pkRm")) {
        Ok(pk) => pk,
        Err(err) => {
            failures.push(format!("{id}: PublicKey::from_sec1(pkRm): {err}"));
            return (0, 0);
        }
    };
    let sk_r = match KeyPair::from_private_bytes(&h(suite, "skRm")) {
        Ok(sk) => sk,
        Err(err) => {
            failures.push(format!("{id}: KeyPair::from_private_bytes(skRm): {err}"));
            return (0, 0);
        }
    };
    let expected_enc = h(suite, "enc");

    let (enc, mut sender) = match hpke::setup_base_s_with_ephemeral(&pk_r, &info, aead, &ephemeral)
    {
        Ok(pair) => pair,
        Err(err) => {
            failures.push(format!("{id}: setup_base_s_with_ephemeral: {err}"));
            return (0, 0);
        }
    };
    if enc.as_slice() != expected_enc {
        failures.push(format!(
            "{id}: enc = {}, expected {}",
            hex::encode(enc),
            hex::encode(&expected_enc)
        ));
    }
    let mut receiver = match hpke::setup_base_r(&expected_enc, &sk_r, &info, aead) {
        Ok(ctx) => ctx,
        Err(err) => {
            failures.push(format!("{id}: setup_base_r: {err}"));
            return (0, 0);
        }
    };

    let encryptions = arr(suite, "encryptions");
    let mut open_failed = false;
    for (seq, e) in encryptions.iter().enumerate() {
        let (aad, pt, ct) = (h(e, "aad"), h(e, "pt"), h(e, "ct"));
        match sender.seal(&aad, &pt) {
            Ok(got) if got == ct => {}
            Ok(got) => failures.push(format!(
                "{id} seq {seq}: seal ct = {}, expected {}",
                hex::encode(got),
                hex::encode(&ct)
            )),
            Err(err) => failures.push(format!("{id} seq {seq}: seal: {err}")),
        }
        // A failed open leaves the receiver's sequence number behind, so every later open
        // would fail too; report the first one only.
        if open_failed {
            continue;
        }
        let opened = receiver.open(&aad, &ct);
        if !matches!(&opened, Ok(got) if got.as_slice() == pt) {
            let got = match &opened {
                Ok(got) => hex::encode(got.as_slice()),
                Err(err) => err.to_string(),
            };
            failures.push(format!(
                "{id} seq {seq}: open gave {got}, expected {} (later opens skipped)",
                hex::encode(&pt)
            ));
            open_failed = true;
        }
    }
    for (name, ctx) in [("sender", &sender), ("receiver", &receiver)] {
        if ctx.sequence_number() != encryptions.len() as u64 && !(open_failed && name == "receiver")
        {
            failures.push(format!(
                "{id}: {name} sequence number {} after {} messages",
                ctx.sequence_number(),
                encryptions.len()
            ));
        }
    }

    let exports = arr(suite, "exports");
    for (i, x) in exports.iter().enumerate() {
        let context = h(x, "exporter_context");
        let length = u(x, "L") as usize;
        let expected = h(x, "exported_value");
        for (name, ctx) in [("sender", &sender), ("receiver", &receiver)] {
            match ctx.export(&context, length) {
                Ok(got) if got.as_slice() == expected => {}
                Ok(got) => failures.push(format!(
                    "{id} export {i} ({name}): {}, expected {}",
                    hex::encode(got.as_slice()),
                    hex::encode(&expected)
                )),
                Err(err) => failures.push(format!("{id} export {i} ({name}): {err}")),
            }
        }
    }
    (encryptions.len(), exports.len())
}

#[test]
fn rfc9180_base_mode_p256_sha256_aesgcm() {
    let Some(doc) = load_json(RFC9180) else {
        return;
    };
    let suites_all = doc.as_array().expect("RFC 9180 file is a JSON array");
    let mut failures = Vec::new();
    let (mut suites, mut encryptions, mut exports, mut other) = (0, 0, 0, 0);
    for (index, suite) in suites_all.iter().enumerate() {
        let selected = u(suite, "mode") == 0
            && u(suite, "kem_id") == 16
            && u(suite, "kdf_id") == 1
            && matches!(u(suite, "aead_id"), 1 | 2);
        if !selected {
            other += 1;
            continue;
        }
        let id = format!("suite #{index} (aead_id {})", u(suite, "aead_id"));
        let (enc, exp) = run_suite(&id, suite, &mut failures);
        suites += 1;
        encryptions += enc;
        exports += exp;
    }
    println!(
        "rfc9180: suites={suites} encryptions={encryptions} exports={exports} \
         (other modes/suites not run: {other})"
    );
    if suites == 0 {
        failures.push("no mode-0 P-256/SHA-256/AES-GCM suite found".into());
    }
    finish(RFC9180, &failures);
}

#[test]
fn rfc5869_hkdf_sha256() {
    let Some(text) = read_vector_file(RFC5869) else {
        return;
    };
    let mut failures = Vec::new();
    let records = kv_records(&text, "OKM");
    for record in &records {
        let id = format!("COUNT {}", field(record, "COUNT"));
        if field(record, "Hash") != "SHA-256" {
            failures.push(format!("{id}: unexpected Hash {}", field(record, "Hash")));
            continue;
        }
        let ikm = unhex(field(record, "IKM"));
        let salt = unhex(field(record, "salt"));
        let info = unhex(field(record, "info"));
        let length: usize = field(record, "L").parse().expect("L is a number");
        let prk = hkdf_extract(&salt, &[&ikm]);
        let expected_prk = unhex(field(record, "PRK"));
        if prk.as_slice() != expected_prk {
            failures.push(format!(
                "{id}: PRK = {}, expected {}",
                hex::encode(prk.as_slice()),
                hex::encode(&expected_prk)
            ));
        }
        let mut okm = vec![0u8; length];
        let expected_okm = unhex(field(record, "OKM"));
        match hkdf_expand(&expected_prk, &[&info], &mut okm) {
            Ok(()) if okm == expected_okm => {}
            Ok(()) => failures.push(format!(
                "{id}: OKM = {}, expected {}",
                hex::encode(&okm),
                hex::encode(&expected_okm)
            )),
            Err(err) => failures.push(format!("{id}: hkdf_expand: {err}")),
        }
    }
    println!("rfc5869: cases={}", records.len());
    if records.is_empty() {
        failures.push("no test case parsed".into());
    }
    finish(RFC5869, &failures);
}
