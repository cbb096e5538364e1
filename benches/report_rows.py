"""The rows that benches/report.py expects and prints: ``Row``, one line of the ratio table (a
benchmark group, the ``extra_info["impl"]`` of ours and of the peer, and the target), the
tables of rows per benchmark file, the SignedRetry.verify rows per store and the import-time
group. Imported by report.py, whose own directory is on sys.path when it runs as a script."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    label: str
    group: str
    ours: str  # extra_info["impl"] of the row measured as "ours"
    peer: str  # extra_info["impl"] of the baseline
    kind: str  # "speedup" (peer/ours >= value), "within" (ours <= value * peer), "info"
    value: float = 0.0


def _hpke_rows() -> list[Row]:
    rows = []
    for op in ("seal", "open"):
        for size, shown in (("32B", "32 B"), ("1KiB", "1 KiB")):
            group = f"hpke-{op}-{size}"
            rows += [
                Row(f"HPKE {op} {shown} vs pyhpke", group, "ours", "pyhpke", "speedup", 2.0),
                Row(
                    f"HPKE {op} {shown} vs cryptography hpke.Suite",
                    group,
                    "ours",
                    "cryptography",
                    "speedup",
                    1.2,
                ),
                Row(
                    f"HPKE {op} {shown}, profile AAD (aad=None) vs pyhpke same AAD",
                    group,
                    "ours-profile-aad",
                    "pyhpke-profile-aad",
                    "speedup",
                    2.0,
                ),
            ]
    return rows


ROWS: list[Row] = [
    *_hpke_rows(),
    Row("ECDSA P-256 sign vs cryptography", "ecdsa-sign", "ours", "cryptography", "info"),
    Row(
        "ECDSA P-256 verify vs cryptography", "ecdsa-verify", "ours", "cryptography", "within", 1.15
    ),
    Row(
        "Compressed key parse (8192 distinct keys) vs cryptography from_encoded_point",
        "p256-parse-compressed",
        "ours",
        "cryptography",
        "speedup",
        3.0,
    ),
    Row(
        "Compressed key parse, one key repeated (any cache hot)",
        "p256-parse-compressed-same-key",
        "ours",
        "cryptography",
        "info",
    ),
    Row("Compress public key vs cryptography", "p256-compress", "ours", "cryptography", "info"),
    Row("base58check encode 81 B vs base58", "b58check-encode", "ours", "base58", "speedup", 20.0),
    Row("base58check decode 81 B vs base58", "b58check-decode", "ours", "base58", "speedup", 20.0),
]

# Issue 3 (benches/test_bench_protocol.py): stamps and the encryptedSessionSigningKey.
STAMP_BATCH = 10_000
PROTOCOL_ROWS: list[Row] = [
    Row(
        "Stamp verify, one session key (key cache hot) vs Python (base64+json+cryptography)",
        "stamp-verify",
        "ours",
        "python-cryptography",
        "speedup",
        1.8,
    ),
    Row(
        "Stamp verify, 8192 distinct keys (no cache help) vs the same Python",
        "stamp-verify-distinct-keys",
        "ours",
        "python-cryptography",
        "info",
    ),
    Row(
        f"verify_stamps x{STAMP_BATCH:,} (2 cores) vs verify_stamp in a Python loop",
        f"stamp-verify-batch-x{STAMP_BATCH}",
        "ours-verify_stamps",
        "ours-verify_stamp-loop",
        "speedup",
        1.7,
    ),
    Row(
        "open_session_key vs base58 + cryptography + pyhpke",
        "session-key-open",
        "ours",
        "base58+cryptography+pyhpke",
        "speedup",
        2.5,
    ),
    Row(
        "Generate + seal_session_key vs base58 + cryptography + pyhpke",
        "session-key-seal",
        "ours",
        "base58+cryptography+pyhpke",
        "speedup",
        2.0,
    ),
]

# benches/test_bench_stamp_schemes.py: stamps in the secp256k1 and Ed25519 schemes.
STAMP_SCHEME_BATCH = 9_000
STAMP_SCHEME_ROWS: list[Row] = [
    Row(
        "secp256k1 stamp verify vs Python (base64+json+coincurve)",
        "stamp-verify-secp256k1",
        "ours",
        "python-coincurve",
        "speedup",
        1.3,
    ),
    Row(
        "secp256k1 stamp verify vs Python (base64+json+cryptography)",
        "stamp-verify-secp256k1",
        "ours",
        "python-cryptography",
        "speedup",
        1.0,
    ),
    Row(
        "Ed25519 stamp verify vs Python (base64+json+cryptography)",
        "stamp-verify-ed25519",
        "ours",
        "python-cryptography",
        "speedup",
        1.0,
    ),
    Row(
        f"verify_stamps x{STAMP_SCHEME_BATCH:,}, three schemes mixed (2 cores) vs a Python loop",
        f"stamp-verify-mixed-batch-x{STAMP_SCHEME_BATCH}",
        "ours-verify_stamps",
        "ours-verify_stamp-loop",
        "speedup",
        1.5,
    ),
]

# Issue 4 (benches/test_bench_export.py): opening an export envelope (encryptedWalletCredentials).
EXPORT_ROWS: list[Row] = [
    Row(
        "open_export_bundle (pin, verify, org, HPKE open) vs json + cryptography + pyhpke",
        "export-open",
        "ours",
        "json+cryptography+pyhpke",
        "speedup",
        1.8,
    ),
]

# SignedRetry.verify per store (benches/test_bench_signed_retry.py): ops/s, no peer and no
# target. (label, impl, required)
RETRY_GROUP = "signed-retry-verify"
RETRY_ROWS: list[tuple[str, str, bool]] = [
    ("MemoryStore", "memory", True),
    ("SqliteStore (file in the pytest tmp dir; WAL, synchronous=FULL)", "sqlite", True),
    ("RedisStore (local redis-server, AOF appendfsync always)", "redis", False),
    ("PostgresStore (local PostgreSQL 15, fsync and synchronous_commit on)", "postgres", False),
]

# Issue 6 (benches/test_bench_oidc.py): verify_id_token vs PyJWT with the same checks.
OIDC_ROWS: list[Row] = [
    Row(
        "verify_id_token ES256 (cached JWKS) vs PyJWT decode + iat/nonce checks",
        "oidc-verify-es256",
        "ours",
        "pyjwt",
        "speedup",
        1.0,
    ),
    Row(
        "verify_id_token RS256 (cached JWKS) vs the same PyJWT verifier",
        "oidc-verify-rs256",
        "ours",
        "pyjwt",
        "info",
    ),
]

# Issue 5 (benches/test_bench_passkeys.py): a passkey login assertion, ES256.
PASSKEY_ROWS: list[Row] = [
    Row(
        "passkeys.verify_assertion ES256 vs webauthn.verify_authentication_response",
        "passkey-verify-assertion-es256",
        "ours",
        "py_webauthn",
        "speedup",
        1.5,
    ),
    Row(
        "passkeys.verify_assertion ES256, standard WebAuthn JSON input, vs the same",
        "passkey-verify-assertion-es256",
        "ours-standard-json",
        "py_webauthn",
        "info",
    ),
]


# Tokens (benches/test_bench_tokens.py): session JWT and OTP verification token verification.
TOKEN_ROWS: list[Row] = [
    Row(
        "verify_session_jwt vs PyJWT decode + cryptography double-hash verify, same checks",
        "session-jwt-verify",
        "ours",
        "pyjwt+cryptography",
        "speedup",
        1.0,
    ),
    Row(
        "verify_verification_token vs PyJWT decode (ES256) + the same claim checks",
        "verification-token-verify",
        "ours",
        "pyjwt",
        "speedup",
        1.0,
    ),
]

# Issue 10 (benches/test_bench_import.py): a fresh process importing the package.
IMPORT_GROUP = "import"
IMPORT_TARGET_SECONDS = 0.050


def _thread_rows(batch: int) -> list[Row]:
    return [
        Row(
            f"ECDSA verify x{batch}: 2 threads vs 1 thread (ours)",
            f"threads-ecdsa-verify-x{batch}",
            "ours-2thread",
            "ours-1thread",
            "speedup",
            1.7,
        ),
        Row(
            f"HPKE open 32 B x{batch}: 2 threads vs 1 thread (ours)",
            f"threads-hpke-open-32B-x{batch}",
            "ours-2thread",
            "ours-1thread",
            "speedup",
            1.7,
        ),
        Row(
            f"ECDSA verify x{batch}: 2 threads vs 1 thread (cryptography)",
            f"threads-ecdsa-verify-cryptography-x{batch}",
            "cryptography-2thread",
            "cryptography-1thread",
            "info",
        ),
    ]
