//! AES-GCM and HKDF-SHA256 against Wycheproof, through `ewc_core::primitives`.

mod common;

use common::{arr, describe, expect, finish, h, load_json, tc, u, wycheproof_tests, Expect};
use ewc_core::primitives::{hkdf_expand, hkdf_extract, AesGcm};

const AES_GCM: &str = "wycheproof/aes_gcm_test.json";
const HKDF: &str = "wycheproof/hkdf_sha256_test.json";

#[test]
fn wycheproof_aes_gcm() {
    let Some(doc) = load_json(AES_GCM) else {
        return;
    };
    let mut failures = Vec::new();
    let (mut groups_run, mut groups_skipped, mut tests_skipped) = (0, 0, 0);
    let (mut valid, mut invalid) = (0, 0);
    for group in arr(&doc, "testGroups") {
        let tests = arr(group, "tests");
        // The HPKE AEADs: AES-128/256-GCM with 96-bit nonces and 128-bit tags.
        let supported = matches!(u(group, "keySize"), 128 | 256)
            && u(group, "ivSize") == 96
            && u(group, "tagSize") == 128;
        if !supported {
            groups_skipped += 1;
            tests_skipped += tests.len();
            continue;
        }
        groups_run += 1;
        for test in tests {
            let id = tc(test);
            let key = match AesGcm::new(&h(test, "key")) {
                Ok(key) => key,
                Err(err) => {
                    failures.push(format!("{id}: AesGcm::new: {err}"));
                    continue;
                }
            };
            let (iv, aad, msg) = (h(test, "iv"), h(test, "aad"), h(test, "msg"));
            let mut sealed = h(test, "ct");
            sealed.extend(h(test, "tag"));
            let opened = key.open(&iv, &aad, &sealed);
            let opened_text = match &opened {
                Ok(pt) => format!("Ok({})", hex::encode(pt.as_slice())),
                Err(err) => format!("Err({err})"),
            };
            match expect(test) {
                Expect::Valid => {
                    valid += 1;
                    match key.seal(&iv, &aad, &msg) {
                        Ok(got) if got == sealed => {}
                        Ok(got) => failures.push(format!(
                            "{id}: seal = {}, expected {}",
                            hex::encode(got),
                            hex::encode(&sealed)
                        )),
                        Err(err) => failures.push(format!("{id}: seal: {err}")),
                    }
                    if !matches!(&opened, Ok(pt) if pt.as_slice() == msg) {
                        failures.push(format!(
                            "{id}: open: expected Ok({}), got {opened_text}",
                            hex::encode(&msg)
                        ));
                    }
                }
                Expect::Invalid => {
                    invalid += 1;
                    if !matches!(&opened, Err(err) if err.code() == "DECRYPTION_FAILED") {
                        failures.push(format!("{id}: invalid, open gave {opened_text}"));
                    }
                }
                Expect::Acceptable => failures.push(format!("{id}: unexpected acceptable case")),
            }
        }
    }
    println!(
        "wycheproof aes-gcm: groups run={groups_run} skipped={groups_skipped} (tests \
         skipped={tests_skipped}) valid={valid} invalid={invalid}"
    );
    if valid + invalid == 0 {
        failures.push("no test case ran".into());
    }
    finish(AES_GCM, &failures);
}

#[test]
fn wycheproof_hkdf_sha256() {
    let Some(doc) = load_json(HKDF) else {
        return;
    };
    let mut failures = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for (_, test) in wycheproof_tests(&doc) {
        let id = tc(test);
        let prk = hkdf_extract(&h(test, "salt"), &[&h(test, "ikm")]);
        let mut okm = vec![0u8; u(test, "size") as usize];
        let result = hkdf_expand(prk.as_slice(), &[&h(test, "info")], &mut okm);
        match expect(test) {
            Expect::Valid => {
                valid += 1;
                let expected = h(test, "okm");
                match result {
                    Ok(()) if okm == expected => {}
                    Ok(()) => failures.push(format!(
                        "{id}: okm = {}, expected {}",
                        hex::encode(&okm),
                        hex::encode(&expected)
                    )),
                    Err(err) => failures.push(format!("{id}: hkdf_expand: {err}")),
                }
            }
            Expect::Invalid => {
                invalid += 1;
                if !matches!(&result, Err(err) if err.code() == "INVALID_LENGTH") {
                    failures.push(format!("{id}: invalid, got {}", describe(&result)));
                }
            }
            Expect::Acceptable => failures.push(format!("{id}: unexpected acceptable case")),
        }
    }
    println!("wycheproof hkdf-sha256: valid={valid} invalid={invalid}");
    if valid + invalid == 0 {
        failures.push("no test case ran".into());
    }
    finish(HKDF, &failures);
}
