"""Every decoder of attacker-controlled text, fed 1 MB of hostile input (issue 12, length caps).

Each either refuses the input at its documented cap before any work, or is linear, so 1 MB
returns in milliseconds. base58 was quadratic with no cap (1 MB took 14 s); it now refuses text
longer than ``ewc.base58.MAX_DECODE_CHARS`` (8192 characters). The caps of the others:

- base58 / base58check: 8192 characters (``INVALID_BASE58``); ``open_session_key`` 117;
- stamps: linear (base64url, then the core's JSON reader);
- export envelopes and OTP bundles: 1 MiB in the core (``ENVELOPE_MALFORMED``);
- OIDC tokens: 32 KiB (``OIDC_TOKEN_MALFORMED``); JWKS documents 256 KiB;
- passkey fields: 1 MiB of base64url, JSON 1 MiB, CBOR 16 levels deep;
- the webhook header: 1024 characters; keys: 65 bytes (130 hex characters);
- ``check_payload_binding``: linear (the strict JSON reader, integers of at most 64 digits).

Every benchmark is also a test: it checks the error and that one call takes well under a second.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import oidc, otp, passkeys

pytestmark = pytest.mark.benchmark(max_time=0.5, min_rounds=3)

MB = 1_000_000
KEY = ewc.KeyPair.from_private_hex("11" * 32)
PUB = KEY.public_key_hex()
BASE58 = "2" * MB
JSON_STRING = '{"a":"' + "x" * MB + '"}'
# A budget far above the milliseconds these take, far below the seconds of a quadratic decoder.
BUDGET_SECONDS = 0.5


def _assertion() -> None:
    passkeys.verify_assertion(
        {
            "credentialId": "AA",
            "clientDataJson": "e" * MB,
            "authenticatorData": "AA",
            "signature": "AA",
        },
        credential_public_key=b"x",
        expected_challenge=b"x",
        rp_id="wallet.example",
        origin="https://wallet.example",
        current_sign_count=0,
    )


DECODERS: dict[str, tuple[Callable[[], object], type[Exception], str]] = {
    "b58decode": (lambda: ewc.b58decode(BASE58), ewc.DecodeError, "INVALID_BASE58"),
    "b58check_decode": (lambda: ewc.b58check_decode(BASE58), ewc.DecodeError, "INVALID_BASE58"),
    "open_session_key": (
        lambda: ewc.open_session_key(BASE58, KEY),
        ewc.DecodeError,
        "INVALID_LENGTH",
    ),
    "verify_stamp": (
        lambda: ewc.verify_stamp(
            base64.urlsafe_b64encode(JSON_STRING.encode()).decode(), b"payload"
        ),
        ewc.StampError,
        "WALLET_SIGNATURE_MALFORMED",
    ),
    "check_payload_binding": (
        lambda: ewc.check_payload_binding("[" + "1," * (MB // 2) + "1", PUB),
        ewc.StampError,
        "PAYLOAD_MALFORMED",
    ),
    "open_export_bundle": (
        lambda: ewc.open_export_bundle(JSON_STRING + " " * (1 << 20), KEY),
        ewc.EnvelopeError,
        "ENVELOPE_MALFORMED",
    ),
    "decrypt_otp_bundle": (
        lambda: otp.decrypt_otp_bundle(JSON_STRING + " " * (1 << 20), KEY),
        ewc.EnvelopeError,
        "ENVELOPE_MALFORMED",
    ),
    "oidc_token": (
        lambda: oidc.check_token_shape("a." * (MB // 2)),
        ewc.OidcError,
        "OIDC_TOKEN_MALFORMED",
    ),
    "passkey_assertion": (_assertion, ewc.PasskeyError, "PASSKEY_CLIENT_DATA_MALFORMED"),
    "webhook_header": (
        lambda: ewc.verify_webhook_signature("x" * MB, b"", KEY.public_key_bytes()),
        ewc.WalletCryptoError,
        "",
    ),
    "parse_public_key": (
        lambda: ewc.parse_public_key("a" * MB),
        ewc.InvalidKey,
        "INVALID_KEY_LENGTH",
    ),
}


def _refuse(call: Callable[[], object], error: type[Exception], code: str) -> None:
    try:
        call()
    except error as caught:
        assert not code or getattr(caught, "code", None) == code
    else:
        raise AssertionError("1 MB of hostile input was accepted")


@pytest.mark.parametrize("name", sorted(DECODERS))
def test_decoder_at_1mb(benchmark: Any, name: str) -> None:
    call, error, code = DECODERS[name]
    benchmark.group = "decoders at 1 MB of hostile input"
    benchmark.extra_info["impl"] = "ours"
    start = time.perf_counter()
    _refuse(call, error, code)
    assert time.perf_counter() - start < BUDGET_SECONDS, f"{name} is slow at 1 MB"
    benchmark(_refuse, call, error, code)
