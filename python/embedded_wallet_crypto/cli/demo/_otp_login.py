"""The demo's OTP login with its second leg (formats.md sections 9 and 14): the server answers
an accepted code with a challenge over a verification token bound to the client's target key
(the TEK); the client stamps it with the TEK, which then becomes the session key."""

from __future__ import annotations

import json

import embedded_wallet_crypto as ewc

from ._show import ORGANIZATION_ID, Show, check, rejected, short, short_json

USER_ID = "User:demo"

__all__ = ["otp_two_leg_login"]


def otp_two_leg_login(show: Show) -> None:
    fetcher = ewc.KeyPair.generate()  # stands in for the pinned TLS-fetcher signer
    target = ewc.KeyPair.generate()  # the server's OTP target key
    tek = ewc.KeyPair.generate()  # the client's target encryption key, never leaves it
    store = ewc.stores.MemoryStore()
    login = ewc.otp.OtpLogin(
        codes=ewc.otp.OneTimeCodes(store, hash_key=ewc.KeyPair.generate().private_key_bytes()),
        signed_retry=ewc.signed_retry.SignedRetry(store),
        token_signer=fetcher,
    )
    issued = login.codes.issue("AuthMethod:demo-email")
    show("server: emailed a 6-digit code; sends the otpEncryptionTargetBundle")
    bundle = ewc.otp.seal_target_bundle(
        target.public_key_hex(), organization_id=ORGANIZATION_ID, user_id=USER_ID, signer=fetcher
    )
    sealed = ewc.otp.encrypt_otp_code(
        bundle, issued.code, tek.public_key_hex(compressed=True),
        signer_public_key=fetcher.public_key_hex(), organization_id=ORGANIZATION_ID,
        user_id=USER_ID,
    )  # fmt: skip
    show(f"client -> server  encryptedOtpBundle {short_json(json.loads(sealed))} (code + TEK)")
    answer = login.accept_code(
        encrypted_otp_bundle=sealed, target_key=target, credential_id=issued.credential_id,
        account_id="InternalAccount:demo", organization_id=ORGANIZATION_ID,
        contact="user@example.com",
    )  # fmt: skip
    body = answer.to_response()
    show(f"server -> client  202 {short_json(body)}")
    token = ewc.tokens.verify_verification_token(
        body["payloadToSign"], signer_public_key=fetcher.public_key_hex()
    )
    check(token.public_key == tek.public_key_hex(compressed=True), "the token binds another key")
    show(f"client: payloadToSign is a verification token for its TEK {short(token.public_key)}")
    stamp = ewc.create_stamp(body["payloadToSign"], tek)
    stranger = ewc.create_stamp(body["payloadToSign"], ewc.KeyPair.generate())
    code = rejected(
        lambda: login.complete(request_id=body["requestId"], stamp=stranger), ewc.StampError
    )
    show(f"server: the token stamped by another key                     -> {code}")
    check(code == "WALLET_SIGNATURE_KEY_MISMATCH", f"another key gave {code}")
    session = login.complete(request_id=body["requestId"], stamp=stamp)
    check(session.session_public_key == token.public_key, "the session key is not the TEK")
    show(f"client -> server  retry with Request-Id and the TEK's stamp {short(stamp)}")
    show(f"server: accepted; the session key is the TEK {short(session.session_public_key)}")
    replay = rejected(
        lambda: login.complete(request_id=body["requestId"], stamp=stamp), ewc.SignedRetryError
    )
    show(f"server: the same retry again                                 -> {replay}")
    check(replay == "REQUEST_ID_USED", f"a replay gave {replay}")
