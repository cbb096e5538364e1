"""Regression tests of the error contract (issue 12, fuzz findings 1-5): one test per finding and
per place of the same class. Each failed before its fix: a lone surrogate reached ``.encode()``,
an int was taken as a buffer size, a huge number overflowed a float, an iterable was read twice,
a wrong type raised AttributeError. Findings 6 and 7 and the property tests' findings are in
test_error_contract_settings.py."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _error_contract_support import (
    KEY,
    ORIGIN,
    PUB,
    RP_ID,
    SURROGATE,
    released,
    typed,
)
from _redis_server import RedisServer
from embedded_wallet_crypto import oidc, otp, passkeys, signed_retry, stores
from embedded_wallet_crypto.export import check_mnemonic, raw_key_hex
from embedded_wallet_crypto.oidc import _claims
from embedded_wallet_crypto.passkeys import SoftwareAuthenticator

# --- 1. lone surrogates ---------------------------------------------------------------------


def test_check_payload_binding_surrogate_target_key() -> None:
    payload = '{"parameters":{"targetPublicKey":"\\ud800"}}'
    typed(lambda: ewc.check_payload_binding(payload, PUB), ewc.StampError, "PAYLOAD_KEY_MISMATCH")
    raw = '{"parameters":{"targetPublicKey":"' + SURROGATE + '"}}'
    typed(lambda: ewc.check_payload_binding(raw, PUB), ewc.StampError, "PAYLOAD_KEY_MISMATCH")


def test_oidc_nonce_with_a_lone_surrogate_is_a_mismatch() -> None:
    nonce = oidc.nonce_for(PUB)
    typed(
        lambda: _claims.check_nonce({"nonce": SURROGATE}, nonce),
        ewc.OidcError,
        "OIDC_NONCE_MISMATCH",
    )
    _claims.check_nonce({"nonce": SURROGATE, "tknonce": nonce}, nonce)  # one match is enough


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "memory":
        yield stores.MemoryStore()
    else:
        sqlite = stores.SqliteStore(tmp_path / "s.db")
        yield sqlite
        sqlite.close()


def test_sqlite_store_keys_with_a_lone_surrogate(tmp_path: Path) -> None:
    sqlite = stores.SqliteStore(tmp_path / "s.db")
    for call in (
        lambda: sqlite.get(SURROGATE),
        lambda: sqlite.claim(SURROGATE, 0),
        lambda: sqlite.attempt(SURROGATE, 0, 5),
        lambda: sqlite.consume(SURROGATE, "issue"),
        lambda: sqlite.consume("credential", SURROGATE),
    ):
        typed(call, stores.StoreError, "STORE_KEY_INVALID")
    sqlite.close()


def test_redis_store_keys_with_a_lone_surrogate(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)
    server.start()
    try:
        redis_store = stores.RedisStore(server.url, key_prefix="contract:")
        for call in (
            lambda: redis_store.get(SURROGATE),
            lambda: redis_store.claim(SURROGATE, 0),
            lambda: redis_store.attempt(SURROGATE, 0, 5),
            lambda: redis_store.consume(SURROGATE, "issue"),
        ):
            typed(call, stores.StoreError, "STORE_KEY_INVALID")
        redis_store.close()
    finally:
        server.stop()


def test_sqlite_store_path_with_a_lone_surrogate_or_nul(tmp_path: Path) -> None:
    for name in ("a" + SURROGATE, "a\x00b"):
        with pytest.raises(stores.StoreError) as caught:
            stores.SqliteStore(tmp_path / name)
        assert caught.value.code == "STORE_CONFIG_INVALID"


@pytest.mark.parametrize("value", [math.nan, -1, 10**400, math.inf])
def test_sqlite_store_busy_timeout(tmp_path: Path, value: float) -> None:
    with pytest.raises(stores.StoreError) as caught:
        stores.SqliteStore(tmp_path / "s.db", busy_timeout_seconds=value)
    assert caught.value.code == "STORE_CONFIG_INVALID"
    with pytest.raises(TypeError):
        stores.SqliteStore(tmp_path / "s.db", busy_timeout_seconds="1")  # type: ignore[arg-type]


def test_signed_retry_request_id_with_a_lone_surrogate(store: Any) -> None:
    engine = signed_retry.SignedRetry(store)
    typed(
        lambda: engine.verify(request_id=SURROGATE, stamp="x", account_session_keys=[PUB]),
        ewc.SignedRetryError,
        "REQUEST_ID_UNKNOWN",
    )


def test_otp_credential_id_with_a_lone_surrogate(store: Any) -> None:
    codes = otp.OneTimeCodes(store, hash_key=b"k" * 32)
    typed(lambda: codes.issue("cred" + SURROGATE), ewc.OtpError, "INVALID_PARAMETERS")
    typed(lambda: codes.verify("cred" + SURROGATE, "123456"), ewc.OtpError, "INVALID_PARAMETERS")


def test_passkey_rp_id_with_a_lone_surrogate() -> None:
    authenticator = SoftwareAuthenticator(KEY, credential_id=b"c" * 16)
    assertion = authenticator.authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=b"x" * 32)
    error = typed(
        lambda: passkeys.verify_assertion(
            assertion,
            credential_public_key=authenticator.public_key,
            expected_challenge=b"x" * 32,
            rp_id="wallet" + SURROGATE,
            origin=ORIGIN,
            current_sign_count=0,
        ),
        ewc.PasskeyError,
        "PASSKEY_CONFIG_INVALID",
    )
    assert error.status == 500
    typed(
        lambda: authenticator.authenticate(rp_id=SURROGATE, origin=ORIGIN, challenge=b"x"),
        ewc.PasskeyError,
        "PASSKEY_CONFIG_INVALID",
    )


def test_jwks_provider_and_getter_urls_with_a_lone_surrogate() -> None:
    typed(lambda: oidc.JwksProvider(jwks_uri="https://" + SURROGATE), ewc.OidcError)
    typed(lambda: oidc.urllib_get("https://" + SURROGATE, 1.0), ewc.OidcError)
    typed(lambda: oidc.urllib_get("no-scheme", 1.0), ewc.OidcError, "OIDC_CONFIG_INVALID")


# --- 2. an int is never a buffer size -------------------------------------------------------


@pytest.mark.parametrize("size", [0, 32, -1, 2**64])
def test_ints_are_not_buffers(size: int) -> None:
    for call in (
        lambda: ewc.seal_export_bundle(PUB, size, organization_id="o"),  # type: ignore[arg-type]
        lambda: raw_key_hex(size),  # type: ignore[arg-type]
        lambda: check_mnemonic(size),  # type: ignore[arg-type]
        lambda: ewc.check_payload_binding(size, PUB),  # type: ignore[arg-type]
        lambda: ewc.verify_webhook_signature('{"v":"1","s":"AA=="}', b"", size),  # type: ignore[arg-type]
        lambda: passkeys.session_challenge(size),  # type: ignore[arg-type]
        lambda: oidc.check_token_shape(size),  # type: ignore[arg-type]
        lambda: SoftwareAuthenticator(KEY, credential_id=size),  # type: ignore[arg-type]
        lambda: SoftwareAuthenticator(KEY, aaguid=size),  # type: ignore[arg-type]
    ):
        with pytest.raises((TypeError, ewc.WalletCryptoError)) as caught:
            call()
        assert not isinstance(caught.value, ewc.DecodeError) or "MNEMONIC" in caught.value.code


def test_check_mnemonic_int_is_not_text() -> None:
    typed(lambda: check_mnemonic(32), ewc.DecodeError, "MNEMONIC_NOT_TEXT")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "call",
    [
        lambda view: ewc.b58encode(view),
        lambda view: ewc.parse_public_key(view),
        lambda view: ewc.hpke.derive_key_pair(view),
        lambda view: ewc.check_payload_binding(view, PUB),
        lambda view: ewc.verify_stamp(view, b"payload"),
        lambda view: ewc.verify_stamps(view, [b""]),
        lambda view: raw_key_hex(view),
        lambda view: passkeys.session_challenge(view),
        lambda view: oidc.check_token_shape(view),
        lambda view: ewc.verify_webhook_signature('{"v":"1","s":"AA=="}', b"", view),
    ],
)
def test_a_released_memoryview_is_a_type_error(call: Callable[[memoryview], object]) -> None:
    with pytest.raises(TypeError):
        call(released())


# --- 3. huge numbers ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["exp", "iat", "nbf"])
def test_huge_numeric_dates_are_claim_invalid(name: str) -> None:
    # The strict JSON reader already refuses integers of more than 64 digits in a token; this is
    # the check itself, for any other source of claims.
    rule = _claims.rules("aud", ["https://issuer"], None, 60, 5, ["ES256"])
    claims: dict[str, Any] = {"exp": time.time() + 60, "iat": time.time()}
    claims[name] = 10**400
    typed(lambda: _claims.check_times(claims, rule), ewc.OidcError, "OIDC_CLAIM_INVALID")


def test_huge_configured_seconds_are_config_invalid() -> None:
    typed(
        lambda: _claims.rules("aud", ["https://issuer"], None, 10**400, 5, ["ES256"]),
        ewc.OidcError,
        "OIDC_CONFIG_INVALID",
    )


# --- 4. verify_stamps reads its iterable once -----------------------------------------------


def test_verify_stamps_over_generators_with_a_sandbox_default() -> None:
    stamp = ewc.create_stamp(b"payload", KEY)
    previous = ewc.default_environment()
    ewc.set_default_environment(ewc.Environment.SANDBOX)
    try:
        verdicts = ewc.verify_stamps(
            (s for s in [stamp, "sandbox-valid-signature", "bad"]),
            (p for p in [b"payload", b"x", b"x"]),
        )
    finally:
        ewc.set_default_environment(previous)
    assert verdicts == [True, True, False]


# --- 5. wrong types are TypeError -----------------------------------------------------------


@pytest.mark.parametrize("rp_id", [None, 32, b"wallet.example", ["wallet.example"]])
def test_passkey_rp_id_of_another_type(rp_id: object) -> None:
    authenticator = SoftwareAuthenticator(KEY, credential_id=b"c" * 16)
    assertion = authenticator.authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=b"x" * 32)
    with pytest.raises(TypeError):
        passkeys.verify_assertion(
            assertion,
            credential_public_key=authenticator.public_key,
            expected_challenge=b"x" * 32,
            rp_id=rp_id,  # type: ignore[arg-type]
            origin=ORIGIN,
            current_sign_count=0,
        )


def test_other_wrong_types() -> None:
    with pytest.raises(TypeError):
        ewc.sign_webhook(b"body", "not a key")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        SoftwareAuthenticator("not a key")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        oidc.JwksProvider(issuer=32)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        oidc.verify_id_token("a.b.c", jwks={}, audience=b"aud")  # type: ignore[arg-type]
