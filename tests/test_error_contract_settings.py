"""Regression tests of the error contract (issue 12, fuzz findings 6-7, and what the property tests
found): a bad setting was a bare ValueError, base58 decoding had no length cap, infinite or
wrong-typed settings and timestamps slipped through. Each failed before its fix."""

from __future__ import annotations

import math
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _error_contract_support import (
    KEY,
    ORIGIN,
    PUB,
    RP_ID,
    released,
    typed,
)
from embedded_wallet_crypto import oidc, otp, passkeys, signed_retry
from embedded_wallet_crypto.passkeys import SoftwareAuthenticator

# --- 6. bad configuration is a typed error --------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {"max_age_seconds": math.nan},
        {"clock_skew_seconds": math.nan},
        {"max_age_seconds": -1},
        {"algorithms": ["ES256", "HS256"]},
        {"algorithms": ["none"]},
        {"algorithms": ["XX999"]},
    ],
)
def test_oidc_configuration_errors_are_typed(changes: dict[str, Any]) -> None:
    error = typed(
        lambda: oidc.verify_id_token("a.b.c", jwks={"keys": []}, audience="aud", **changes),
        ewc.OidcError,
        "OIDC_CONFIG_INVALID",
    )
    assert error.status == 500
    assert isinstance(error, ValueError)  # as in earlier releases


def test_jwks_provider_configuration_errors_are_typed() -> None:
    typed(lambda: oidc.JwksProvider(), ewc.OidcError, "OIDC_CONFIG_INVALID")
    typed(lambda: oidc.JwksProvider(jwks_uri="http://idp.example/k"), ewc.OidcError)


def test_cose_algorithm_ids() -> None:
    attestation = SoftwareAuthenticator(KEY, credential_id=b"c" * 16).register(
        rp_id=RP_ID, origin=ORIGIN, challenge=b"x" * 32
    )

    def register(algorithms: list[Any]) -> object:
        return passkeys.verify_registration(
            attestation,
            expected_challenge=b"x" * 32,
            rp_id=RP_ID,
            origin=ORIGIN,
            supported_algorithms=algorithms,
        )

    for bad_type in ("ES256", 1.5, None, True):
        with pytest.raises(TypeError):
            register([bad_type])
    error = typed(lambda: register([12345]), ewc.PasskeyError, "PASSKEY_CONFIG_INVALID")
    assert isinstance(error, ValueError)
    typed(lambda: register([10**400]), ewc.PasskeyError, "PASSKEY_CONFIG_INVALID")


def test_software_authenticator_settings() -> None:
    typed(
        lambda: SoftwareAuthenticator(attestation="x"), ewc.PasskeyError, "PASSKEY_CONFIG_INVALID"
    )
    typed(lambda: SoftwareAuthenticator(aaguid=b"x"), ewc.PasskeyError, "PASSKEY_CONFIG_INVALID")
    typed(lambda: SoftwareAuthenticator(sign_count=-1), ewc.PasskeyError, "PASSKEY_CONFIG_INVALID")


# --- 7. length caps -------------------------------------------------------------------------


def test_base58_decoding_is_capped() -> None:
    cap = ewc.base58.MAX_DECODE_CHARS
    assert cap == 8192
    assert ewc.b58decode("2" * cap)  # at the cap: decoded
    for decode in (ewc.b58decode, ewc.b58check_decode):
        for length in (1_000_000, cap + 1):
            with pytest.raises(ewc.DecodeError) as caught:
                decode("2" * length)
            assert caught.value.code == "INVALID_BASE58"
            # The length is refused before any character is read (decoding is quadratic: 1 MB
            # took 14 s): text over the cap that starts with a character outside the alphabet
            # gets the cap's reason, not the alphabet's, which the first character read would.
            with pytest.raises(ewc.DecodeError) as caught:
                decode("0" + "2" * (length - 1))
            assert caught.value.reason == f"base58 text is longer than the {cap}-character cap"
        with pytest.raises(ewc.DecodeError) as caught:
            decode("0" + "2" * (cap - 1))  # at the cap: read, and refused for the character
        assert "alphabet" in caught.value.reason
    payload = bytes(range(256)) * 20  # 5120 bytes: about 7000 characters, under the cap
    assert ewc.b58check_decode(ewc.b58check_encode(payload)) == payload


# --- found by the property tests (tests/test_contract_*.py) ---------------------------------


@pytest.mark.parametrize(
    "setting",
    ["ttl_seconds", "min_reissue_interval_seconds", "issue_window_seconds", "max_issues"],
)
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 10**400])
def test_otp_settings_out_of_range(setting: str, value: float) -> None:
    with pytest.raises(ewc.OtpError) as caught:
        otp.OneTimeCodes(hash_key=b"k" * 32, **{setting: value})  # type: ignore[arg-type]
    assert caught.value.code == "INVALID_PARAMETERS"


@pytest.mark.parametrize("setting", ["ttl_seconds", "keep_expired_seconds"])
def test_signed_retry_infinite_times(setting: str) -> None:
    with pytest.raises(ewc.SignedRetryError) as caught:
        signed_retry.SignedRetry(**{setting: math.inf})  # type: ignore[arg-type]
    assert caught.value.code == "INVALID_PARAMETERS"


def test_signed_retry_headers_are_never_truth_tested() -> None:
    engine = signed_retry.SignedRetry()
    with pytest.raises((TypeError, ewc.WalletCryptoError)):
        engine.verify(request_id="r", stamp=released(), account_session_keys=[PUB])  # type: ignore[arg-type]
    with pytest.raises(ewc.SignedRetryError):
        engine.verify(request_id=released(), stamp="s", account_session_keys=[PUB])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        signed_retry.ensure_credential_remains(released(), ["a"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        signed_retry.ensure_credential_remains(["a", "b"], released())  # type: ignore[arg-type]


def test_passkey_settings_of_the_wrong_type() -> None:
    authenticator = SoftwareAuthenticator(KEY, credential_id=b"c" * 16)
    attestation = authenticator.register(rp_id=RP_ID, origin=ORIGIN, challenge=b"x" * 32)
    assertion = authenticator.authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=b"x" * 32)

    def register(**changes: Any) -> object:
        options: dict[str, Any] = {"expected_challenge": b"x" * 32, "rp_id": RP_ID}
        return passkeys.verify_registration(attestation, **{"origin": ORIGIN, **options, **changes})

    def verify(**changes: Any) -> object:
        options: dict[str, Any] = {
            "credential_public_key": authenticator.public_key,
            "expected_challenge": b"x" * 32,
            "rp_id": RP_ID,
            "origin": ORIGIN,
            "current_sign_count": 0,
        }
        return passkeys.verify_assertion(assertion, **{**options, **changes})

    for call in (
        lambda: register(origin=released()),
        lambda: register(origin=b"https://wallet.example"),
        lambda: register(require_user_presence=released()),
        lambda: register(supported_algorithms=released()),
        lambda: register(pem_root_certs_by_fmt="packed"),
        lambda: verify(origin=released()),
        lambda: verify(expected_challenge=released()),
        lambda: verify(require_user_verification=released()),
        lambda: authenticator.register(
            rp_id=RP_ID, origin=ORIGIN, challenge=b"x", transports=released()
        ),
        lambda: authenticator.authenticate(
            rp_id=RP_ID, origin=ORIGIN, challenge=b"x", user_handle=released()
        ),
        lambda: authenticator.authenticate(
            rp_id=RP_ID, origin=ORIGIN, challenge=b"x", user_verified=released()
        ),
    ):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(ewc.PasskeyError) as caught:
        register(pem_root_certs_by_fmt={"no such format": []})
    assert caught.value.code == "PASSKEY_CONFIG_INVALID"


@pytest.mark.parametrize("timestamp", ["1", 1.5, math.nan, None, b"1"])
def test_session_body_timestamp_of_the_wrong_type(timestamp: object) -> None:
    with pytest.raises(TypeError):
        passkeys.session_creation_body(
            client_public_key=PUB,
            request_id="r",
            organization_id="o",
            account_id="a",
            timestamp_ms=timestamp,  # type: ignore[arg-type]
        )


@pytest.mark.parametrize("timestamp", [-1, 10**400])
def test_session_body_timestamp_out_of_range(timestamp: int) -> None:
    with pytest.raises(ewc.PasskeyError) as caught:
        passkeys.session_creation_body(
            client_public_key=PUB,
            request_id="r",
            organization_id="o",
            account_id="a",
            timestamp_ms=timestamp,
        )
    assert caught.value.code == "PASSKEY_SESSION_BODY_INVALID"
