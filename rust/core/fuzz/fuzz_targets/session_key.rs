//! encryptedSessionSigningKey open against a fixed client key: no panic, and nothing opens
//! except the committed vector's own text (a fuzzed ciphertext cannot pass AES-GCM).
#![no_main]
use ewc_core::p256::KeyPair;
use ewc_core::session;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const CLIENT_KEY: &str = "1f18ae50f7349ec47d8dbd7b4520b0e2d49786d718436edd70f8b3cee80b7785";
/// The valid session_key_open texts of vectors/session_key.json: the only ones known to open.
const KNOWN: &[&str] = &[
    "2A7hxu1bY7wp6rWV5QHN998kDmPBD82aaMfYNEdaDdxuwMAbVbNVczZwaPoJevUQUvotiSG6PjEe5KTh7mZHsZAxQfAXXs7w412v9Sm4FQgbVPCTuVF8",
    "gpP5Yh6NPxLk1Mi3w7SCFYMXaiTjnJvAhyELEywqnRR5oKuJbwPV7XhQhCz5py2pG5aLhch9Jg4FToCeF6p6gueUsZYeTrzXqZj8MqdDhQeSQKnMyzF",
    "f6zCsu7Kng7t57TNeSkmsg2Lyz6trjqVgRvHykayAwQrUZxA3KMnFcpXjYgNJtvDtf7nkRvVL5T4cucJajfjhDNYeXCvT2MFXH5f6NN4x3C5mRpWWXf",
    "21RPZVHd874HT85wz5Wvk89G8z2EyVJ7bCo69cxbFZ52bCs4U5TfgZtLy4hu71wXiNUTvxn5QSteX4Xqf5opqJAHorbEkyB9544ZhpHHAFB4ky8Jbj5E",
    "gByFLGiFJZwZ2Z5gUwY968PZh3BV3W6cmgrPAykYcv26erjY62QdeagYeGciBSdGjBvDDMWgfB4A6bQYcXLqtSQc86cDTTs7D61ynkXQsjVbpwUwdp8",
    "26RQWbYMxAutBPRswtsTKnHTEr5kZPDfF9d7RT3NrFVBwFNpoRViBKCuLHGGNiBZCqsbYcaUs7QDqvMiqx9dE7mLjNjXLs2nABd9LAd6wBV4HaBzawaj",
];

fn client() -> &'static KeyPair {
    static KEY: OnceLock<KeyPair> = OnceLock::new();
    KEY.get_or_init(|| KeyPair::from_private_hex(CLIENT_KEY).expect("fixed key"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match session::open_session_key(text, client()) {
        Ok(_) => assert!(
            KNOWN.contains(&text),
            "a fuzzed encryptedSessionSigningKey opened"
        ),
        Err(error) => assert!(!error.code().is_empty()),
    }
});
