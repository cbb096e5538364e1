//! ECDH P-256 against Wycheproof, with the public key as a raw SEC1 point and as X.509 SPKI.

mod common;

use common::{describe, expect, finish, h, left_pad, load_json, tc, wycheproof_tests, Expect};
use ewc_core::{KeyPair, PublicKey};

const ECPOINT: &str = "wycheproof/ecdh_secp256r1_ecpoint_test.json";
const SPKI: &str = "wycheproof/ecdh_secp256r1_test.json";

/// The codes `PublicKey::from_sec1` may use to reject a point.
const POINT_ERRORS: [&str; 3] = ["INVALID_POINT", "INVALID_KEY_PREFIX", "INVALID_KEY_LENGTH"];

/// The SPKI prefix (SEQUENCE, AlgorithmIdentifier{id-ecPublicKey, prime256v1}, BIT STRING
/// header) for an uncompressed point (65 bytes) and for a compressed one (33 bytes).
const SPKI_UNCOMPRESSED: &str = "3059301306072a8648ce3d020106082a8648ce3d030107034200";
const SPKI_COMPRESSED: &str = "3039301306072a8648ce3d020106082a8648ce3d030107032200";

/// The SEC1 point inside a P-256 SPKI in exactly the standard encoding, else `None`.
fn spki_point(der: &[u8]) -> Option<&[u8]> {
    for (prefix, point_len) in [(SPKI_UNCOMPRESSED, 65), (SPKI_COMPRESSED, 33)] {
        let prefix = hex::decode(prefix).expect("constant hex");
        if der.len() == prefix.len() + point_len && der.starts_with(&prefix) {
            return Some(&der[prefix.len()..]);
        }
    }
    None
}

/// Wycheproof private keys are minimal signed integers: strip a leading 00 of a 33-byte value,
/// left-pad shorter ones to 32 bytes.
fn normalise_private(private: &[u8]) -> Option<Vec<u8>> {
    match private {
        [0, rest @ ..] if rest.len() == 32 => Some(rest.to_vec()),
        _ => left_pad(private, 32),
    }
}

/// Computes the shared secret from a parsed public key; `Err(description)` on any failure.
fn agree(private: &[u8], public: &PublicKey) -> Result<Vec<u8>, String> {
    let scalar = normalise_private(private)
        .ok_or_else(|| format!("private key of {} bytes", private.len()))?;
    let key = KeyPair::from_private_bytes(&scalar)
        .map_err(|err| format!("KeyPair::from_private_bytes: {err}"))?;
    let shared = key.ecdh(public).map_err(|err| format!("ecdh: {err}"))?;
    Ok(shared.to_vec())
}

/// Checks that `public` agrees with `test`'s private key on `test`'s shared secret.
fn check_shared(
    id: &str,
    test: &serde_json::Value,
    public: &PublicKey,
    failures: &mut Vec<String>,
) {
    let expected = h(test, "shared");
    match agree(&h(test, "private"), public) {
        Ok(shared) if shared == expected => {}
        Ok(shared) => failures.push(format!(
            "{id}: shared = {}, expected {}",
            hex::encode(shared),
            hex::encode(expected)
        )),
        Err(err) => failures.push(format!("{id}: {err}")),
    }
}

#[test]
fn wycheproof_ecdh_ecpoint() {
    let Some(doc) = load_json(ECPOINT) else {
        return;
    };
    let mut failures = Vec::new();
    let (mut valid, mut invalid, mut acceptable_ok, mut acceptable_rejected) = (0, 0, 0, 0);
    for (_, test) in wycheproof_tests(&doc) {
        let id = tc(test);
        let parsed = PublicKey::from_sec1(&h(test, "public"));
        match expect(test) {
            Expect::Valid => {
                valid += 1;
                match &parsed {
                    Ok(public) => check_shared(&id, test, public, &mut failures),
                    Err(err) => failures.push(format!("{id}: valid, from_sec1: {err}")),
                }
            }
            Expect::Invalid => {
                invalid += 1;
                if !matches!(&parsed, Err(err) if POINT_ERRORS.contains(&err.code())) {
                    failures.push(format!(
                        "{id}: invalid, from_sec1 gave {}",
                        describe(&parsed)
                    ));
                }
            }
            Expect::Acceptable => match &parsed {
                Ok(public) => {
                    acceptable_ok += 1;
                    check_shared(&id, test, public, &mut failures);
                }
                Err(err) if POINT_ERRORS.contains(&err.code()) => acceptable_rejected += 1,
                Err(err) => failures.push(format!("{id}: acceptable, from_sec1: {err}")),
            },
        }
    }
    println!(
        "wycheproof ecdh ecpoint: valid={valid} invalid={invalid} acceptable \
         accepted={acceptable_ok} rejected={acceptable_rejected}"
    );
    if valid + invalid + acceptable_ok + acceptable_rejected == 0 {
        failures.push("no test case ran".into());
    }
    finish(ECPOINT, &failures);
}

#[test]
fn wycheproof_ecdh_spki() {
    let Some(doc) = load_json(SPKI) else {
        return;
    };
    let mut failures = Vec::new();
    let (mut valid, mut invalid, mut acceptable_ok, mut acceptable_rejected) = (0, 0, 0, 0);
    let (mut rejected_by_spki, mut rejected_by_sec1) = (0, 0);
    let mut valid_nonstandard_spki = Vec::new();
    for (_, test) in wycheproof_tests(&doc) {
        let id = tc(test);
        let der = h(test, "public");
        // None: the strict SPKI check rejected it; Some(result): what from_sec1 said.
        let parsed = spki_point(&der).map(PublicKey::from_sec1);
        let outcome = expect(test);
        match (&parsed, outcome) {
            (None, _) if outcome != Expect::Valid => rejected_by_spki += 1,
            (Some(Err(_)), _) if outcome != Expect::Valid => rejected_by_sec1 += 1,
            _ => {}
        }
        match outcome {
            Expect::Valid => {
                valid += 1;
                match &parsed {
                    Some(Ok(public)) => check_shared(&id, test, public, &mut failures),
                    Some(Err(err)) => failures.push(format!("{id}: valid, from_sec1: {err}")),
                    None => {
                        valid_nonstandard_spki.push(id.clone());
                        failures.push(format!(
                            "{id}: valid, but the SPKI is not the standard encoding: {}",
                            hex::encode(&der)
                        ));
                    }
                }
            }
            Expect::Invalid => {
                invalid += 1;
                match &parsed {
                    None => {}
                    Some(Err(err)) if POINT_ERRORS.contains(&err.code()) => {}
                    Some(other) => failures.push(format!(
                        "{id}: invalid, standard SPKI and from_sec1 gave {}",
                        describe(other)
                    )),
                }
            }
            Expect::Acceptable => match &parsed {
                None => acceptable_rejected += 1,
                Some(Ok(public)) => {
                    acceptable_ok += 1;
                    check_shared(&id, test, public, &mut failures);
                }
                Some(Err(err)) if POINT_ERRORS.contains(&err.code()) => acceptable_rejected += 1,
                Some(Err(err)) => failures.push(format!("{id}: acceptable, from_sec1: {err}")),
            },
        }
    }
    println!(
        "wycheproof ecdh spki: valid={valid} invalid={invalid} acceptable \
         accepted={acceptable_ok} rejected={acceptable_rejected}; non-valid rejected by SPKI \
         check={rejected_by_spki}, by from_sec1={rejected_by_sec1}; valid with non-standard \
         SPKI={}",
        valid_nonstandard_spki.len()
    );
    if valid + invalid + acceptable_ok + acceptable_rejected == 0 {
        failures.push("no test case ran".into());
    }
    finish(SPKI, &failures);
}
