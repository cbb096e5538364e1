"""``ewc.otp.OtpLogin``: the OTP login's two legs end to end on every store (client: verify the
target bundle and seal the code with its TEK; server: open, check the code, answer 202 with a
challenge over a verification token bound to the TEK; client: stamp the token with the TEK;
server: accept exactly that key's stamp once, the TEK becomes the session key), and the
negatives: a wrong code, stamps by other keys, a replay, expiry, a token for another key."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import otp, signed_retry, tokens

T0 = 1_700_000_000.0
HASH_KEY = b"otp login test hash key 01234567"
ORG = "org-login"
SERVER_TARGET = ewc.hpke.derive_key_pair(b"otp login server target key ikm1")
ENVELOPE_SIGNER = ewc.hpke.derive_key_pair(b"otp login envelope signer ikm 01")
TOKEN_SIGNER = ewc.hpke.derive_key_pair(b"otp login token signer key ikm01")
TEK = ewc.hpke.derive_key_pair(b"otp login client target key ikm1")
OTHER = ewc.hpke.derive_key_pair(b"otp login another client key ikm")


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def fails(call: Any, code: str, status: int = 401) -> ewc.WalletCryptoError:
    with pytest.raises(ewc.WalletCryptoError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == (code, status), repr(raised.value)
    return raised.value


def server(store: Any, clock: Clock | None = None) -> otp.OtpLogin:
    codes = otp.OneTimeCodes(store, hash_key=HASH_KEY, sandbox=False)
    retries = signed_retry.SignedRetry(store, clock=clock or Clock(), sandbox=False)
    return otp.OtpLogin(codes=codes, signed_retry=retries, token_signer=TOKEN_SIGNER)


def client_bundle(code: str, key: ewc.KeyPair = TEK) -> str:
    """The client's side of leg one: check the target bundle, seal the code and its TEK."""
    target_bundle = otp.seal_target_bundle(
        SERVER_TARGET.public_key_hex(),
        organization_id=ORG,
        user_id="User:1",
        signer=ENVELOPE_SIGNER,
    )
    return otp.encrypt_otp_code(
        target_bundle, code, key.public_key_hex(),
        signer_public_key=ENVELOPE_SIGNER.public_key_hex(), organization_id=ORG,
    )  # fmt: skip


def leg_one(login: otp.OtpLogin, code: str, key: ewc.KeyPair = TEK) -> otp.OtpLoginChallenge:
    return login.accept_code(
        encrypted_otp_bundle=client_bundle(code, key), target_key=SERVER_TARGET,
        credential_id="AuthMethod:email", account_id="Account:1", organization_id=ORG,
        contact="user@example.com",
    )  # fmt: skip


def test_the_two_legs_end_to_end(store: Any) -> None:
    login = server(store)
    issued = login.codes.issue("AuthMethod:email")
    answer = leg_one(login, issued.code)
    tek = ewc.compress_public_key(TEK.public_key_hex()).hex()
    body = answer.to_response()
    assert body["payloadToSign"] == answer.verification_token and body["type"] == "EMAIL_OTP"
    assert (answer.target_public_key, answer.credential_id, answer.sandbox) == (
        tek, "AuthMethod:email", False,
    )  # fmt: skip
    # The client may check the token it is asked to sign, then stamps it with its TEK.
    token = tokens.verify_verification_token(
        body["payloadToSign"], signer_public_key=TOKEN_SIGNER.public_key_hex(),
        now=datetime.fromtimestamp(T0, tz=timezone.utc),
    )  # fmt: skip
    assert (token.public_key, token.organization_id, token.contact) == (
        tek, ORG, "user@example.com",
    )  # fmt: skip
    assert token.expires_at == datetime.fromtimestamp(T0 + 300, tz=timezone.utc)
    stamp = ewc.create_stamp(body["payloadToSign"], TEK)
    session = login.complete(request_id=body["requestId"], stamp=stamp, account_id="Account:1")
    assert session.session_public_key == tek and session.account_id == "Account:1"
    assert session.verification.id == token.id and session.request_id == body["requestId"]
    fails(lambda: login.complete(request_id=body["requestId"], stamp=stamp), "REQUEST_ID_USED")
    # the code was used up by leg one
    fails(lambda: leg_one(login, issued.code), "OTP_USED")


def test_a_wrong_code_issues_nothing() -> None:
    store = otp.MemoryStore()
    login = server(store)
    issued = login.codes.issue("AuthMethod:email")
    wrong = f"{(int(issued.code) + 1) % 10**6:06d}"
    fails(lambda: leg_one(login, wrong), "OTP_INVALID")
    assert len(store) == 1  # the code state only: no challenge was stored
    assert leg_one(login, issued.code).target_public_key  # the right code still works


def test_only_the_tek_may_stamp() -> None:
    login = server(otp.MemoryStore())
    answer = leg_one(login, login.codes.issue("AuthMethod:email").code)
    body = answer.to_response()
    for key in (OTHER, TOKEN_SIGNER, SERVER_TARGET):
        stamp = ewc.create_stamp(body["payloadToSign"], key)
        fails(
            lambda: login.complete(request_id=body["requestId"], stamp=stamp),  # noqa: B023
            "WALLET_SIGNATURE_KEY_MISMATCH",
        )
    other_text = ewc.create_stamp(body["payloadToSign"] + ".", TEK)
    fails(lambda: login.complete(request_id=body["requestId"], stamp=other_text),
          "WALLET_SIGNATURE_INVALID")  # fmt: skip
    fails(
        lambda: login.complete(request_id=body["requestId"], stamp=None), "WALLET_SIGNATURE_MISSING"
    )
    stamp = ewc.create_stamp(body["payloadToSign"], TEK)
    fails(lambda: login.complete(request_id=body["requestId"], stamp=stamp, account_id="Account:2"),
          "REQUEST_ID_ACCOUNT_MISMATCH")  # fmt: skip
    assert login.complete(request_id=body["requestId"], stamp=stamp).account_id == "Account:1"


def test_the_challenge_expires() -> None:
    clock = Clock()
    login = server(otp.MemoryStore(), clock)
    body = leg_one(login, login.codes.issue("AuthMethod:email").code).to_response()
    clock.now += 300
    stamp = ewc.create_stamp(body["payloadToSign"], TEK)
    fails(lambda: login.complete(request_id=body["requestId"], stamp=stamp), "REQUEST_ID_EXPIRED")


def test_a_token_for_another_key_is_refused() -> None:
    login = server(otp.MemoryStore())
    expires = datetime.fromtimestamp(T0 + 300, tz=timezone.utc)
    for_other = tokens.mint_verification_token(
        TOKEN_SIGNER, verification_type="OTP_TYPE_EMAIL", contact="c", organization_id=ORG,
        public_key=ewc.compress_public_key(OTHER.public_key_hex()).hex(), expires_at=expires,
    )  # fmt: skip
    challenge = login.signed_retry.issue_payload(
        account_id="Account:1", payload_to_sign=for_other, signer_public_key=TEK.public_key_hex()
    )
    stamp = ewc.create_stamp(for_other, TEK)
    fails(lambda: login.complete(request_id=challenge.request_id, stamp=stamp),
          "WALLET_SIGNATURE_KEY_MISMATCH")  # fmt: skip
    forged = tokens.mint_verification_token(
        OTHER, verification_type="OTP_TYPE_EMAIL", contact="c", organization_id=ORG,
        public_key=ewc.compress_public_key(TEK.public_key_hex()).hex(), expires_at=expires,
    )  # fmt: skip
    challenge = login.signed_retry.issue_payload(
        account_id="Account:1", payload_to_sign=forged, signer_public_key=TEK.public_key_hex()
    )
    stamp = ewc.create_stamp(forged, TEK)
    fails(lambda: login.complete(request_id=challenge.request_id, stamp=stamp),
          "TOKEN_SIGNATURE_INVALID")  # fmt: skip


def test_the_bundle_must_be_sealed_to_the_server_target() -> None:
    login = server(otp.MemoryStore())
    code = login.codes.issue("AuthMethod:email").code
    with pytest.raises(ewc.DecryptionError):
        login.accept_code(
            encrypted_otp_bundle=client_bundle(code), target_key=OTHER,
            credential_id="AuthMethod:email", account_id="Account:1", organization_id=ORG,
            contact="user@example.com",
        )  # fmt: skip


def test_the_sandbox_code_logs_in_only_in_the_sandbox() -> None:
    store = otp.MemoryStore()
    codes = otp.OneTimeCodes(store, hash_key=HASH_KEY, sandbox=True)
    retries = signed_retry.SignedRetry(store, clock=Clock(), sandbox=True)
    login = otp.OtpLogin(codes=codes, signed_retry=retries, token_signer=TOKEN_SIGNER)
    answer = leg_one(login, otp.SANDBOX_CODE)
    assert answer.sandbox is True
    # even in the sandbox, the second leg needs the TEK's own stamp
    body = answer.to_response()
    sandbox_stamp = lambda: login.complete(  # noqa: E731
        request_id=body["requestId"], stamp="sandbox-valid-signature"
    )
    assert isinstance(fails(sandbox_stamp, "WALLET_SIGNATURE_MALFORMED"), ewc.StampError)
    stamp = ewc.create_stamp(body["payloadToSign"], TEK)
    assert login.complete(request_id=body["requestId"], stamp=stamp).session_public_key


def test_the_constructor_checks_types() -> None:
    store = otp.MemoryStore()
    codes = otp.OneTimeCodes(store, hash_key=HASH_KEY)
    retries = signed_retry.SignedRetry(store)
    for changes in ({"codes": store}, {"signed_retry": codes}, {"token_signer": "04"}):
        arguments: dict[str, Any] = {
            "codes": codes,
            "signed_retry": retries,
            "token_signer": TOKEN_SIGNER,
        }
        with pytest.raises(TypeError):
            otp.OtpLogin(**{**arguments, **changes})
