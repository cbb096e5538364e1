//! The envelope core (formats.md sections 8, 9 and 12): export bundle verify and open, OTP
//! target bundle verify, import bundle verify, OTP bundle decrypt, and the strict JSON parser.
//! The first input byte picks the entry point, the rest is the document. No panic; every
//! failure is a typed error with a stable code; with the sandbox off, no document verifies
//! under two different pinned signers (the embedded key is never trusted); the sandbox only
//! ever adds acceptances; open and decrypt succeed only where their envelope checks do.
#![no_main]
use ewc_core::envelope::{self, KeyInput};
use ewc_core::p256::KeyPair;
use ewc_core::ErrorKind;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The pinned signers and recipients of vectors/export.json, otp.json and import.json, so the
/// committed seeds (those vectors' documents) reach every check.
const EXPORT_SIGNER: &str = "045bbedd7025b6fdac66418a61372f0dcca3a9436a25c87340358569ea66675a9bdd4078ebf5ee504054391e040b49f47b0642b17dfe6ce421cd10c8ad67b1c149";
const EXPORT_CLIENT: &str = "c2a81cb320485a889b3aceca5b6e60436f9387fbecc565f3fd5285a9808eebac";
const TARGET_SIGNER: &str = "0442714f2c710a84fbb56507400418be4f30da701d9ccdcb0c2b8533cf3b8cdb9d89d22a7e64f765d007f8e6812bf40e49247bedc96151071a16b03bff08c146a3";
const IMPORT_SIGNER: &str = "04458d04aa48601d500858c023d442beeec70cb921c16440d7309138ec200fd72aeadab676dac54aabb98c4ed49e0e26474b9f757aa77e86004c38c5d859f2efd6";
const OTP_TARGET: &str = "093338e617623a84649f2a79d5e2a5dd7dd708b2c9ce9470a18c7cee5cc952e1";
/// A pinned key that signed none of the seeds: nothing may verify under it with the sandbox off.
const OTHER_SIGNER: &str = "1f18ae50f7349ec47d8dbd7b4520b0e2d49786d718436edd70f8b3cee80b7785";

fn key(hex: &'static str, cell: &'static OnceLock<KeyPair>) -> &'static KeyPair {
    cell.get_or_init(|| KeyPair::from_private_hex(hex).expect("fixed key"))
}

fn export_client() -> &'static KeyPair {
    static KEY: OnceLock<KeyPair> = OnceLock::new();
    key(EXPORT_CLIENT, &KEY)
}

fn otp_target() -> &'static KeyPair {
    static KEY: OnceLock<KeyPair> = OnceLock::new();
    key(OTP_TARGET, &KEY)
}

fn other_signer() -> &'static str {
    static HEX: OnceLock<String> = OnceLock::new();
    HEX.get_or_init(|| {
        let pair = KeyPair::from_private_hex(OTHER_SIGNER).expect("fixed key");
        hex::encode(pair.public_key().uncompressed())
    })
}

/// A failure is typed: a stable, non-empty code of an expected kind.
fn typed(error: &ewc_core::Error) {
    assert!(
        !error.code().is_empty(),
        "an error without a code: {error:?}"
    );
    assert!(
        matches!(
            error.kind(),
            ErrorKind::Envelope | ErrorKind::InvalidKey | ErrorKind::Decryption
        ),
        "an unexpected error kind: {error:?}"
    );
}

/// `check(pinned, sandbox)` under the real signer, another one, and with the sandbox on.
fn signed<T>(signer: &str, check: impl Fn(KeyInput<'_>, bool) -> ewc_core::Result<T>) {
    let strict = check(KeyInput::Hex(signer), false);
    let other = check(KeyInput::Hex(other_signer()), false);
    assert!(
        !(strict.is_ok() && other.is_ok()),
        "a document verified under two pinned signers"
    );
    let sandbox = check(KeyInput::Hex(signer), true);
    if strict.is_ok() {
        assert!(
            sandbox.is_ok(),
            "the sandbox refused what strict mode accepts"
        );
    }
    for result in [strict, other, sandbox] {
        if let Err(error) = result {
            typed(&error);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, document)) = data.split_first() else {
        return;
    };
    match mode % 5 {
        0 => {
            signed(EXPORT_SIGNER, |pinned, sandbox| {
                envelope::verify_export(document, pinned, None, sandbox)
            });
            let opened = envelope::open_export(
                document,
                export_client(),
                None,
                KeyInput::Hex(EXPORT_SIGNER),
                false,
            );
            match opened {
                Ok(_) => assert!(
                    envelope::verify_export(document, KeyInput::Hex(EXPORT_SIGNER), None, false)
                        .is_ok(),
                    "opened what does not verify"
                ),
                Err(error) => typed(&error),
            }
        }
        1 => signed(TARGET_SIGNER, |pinned, sandbox| {
            envelope::verify_target(document, pinned, None, None, sandbox)
        }),
        2 => signed(IMPORT_SIGNER, |pinned, sandbox| {
            envelope::verify_import(document, pinned, None, None, sandbox)
        }),
        3 => match envelope::otp_decrypt(document, otp_target()) {
            Ok(submission) => {
                assert!(envelope::parse_otp_bundle(document).is_ok());
                assert!(
                    submission
                        .public_key
                        .bytes()
                        .all(|b| !b.is_ascii_uppercase()),
                    "the bound key is not lowercase"
                );
                assert!(ewc_core::PublicKey::from_hex(&submission.public_key).is_ok());
            }
            Err(error) => typed(&error),
        },
        _ => match envelope::parse_object(document, "the fuzzed JSON", "FUZZ_JSON") {
            Ok(object) => {
                assert!(
                    std::str::from_utf8(document).is_ok(),
                    "non-UTF-8 JSON parsed"
                );
                let _ = object.contains("version");
            }
            Err(error) => {
                typed(&error);
                assert_eq!(error.code(), "FUZZ_JSON", "the parser raised another code");
            }
        },
    }
});
