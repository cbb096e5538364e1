"""``ewc demo`` steps 1-6: one wallet through a session and a signed export retry (formats.md
sections 2-5, 11), with the attacks the server must reject."""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import embedded_wallet_crypto as ewc

from ...signed_retry import Operation, SignedRequestChallenge, SignedRetry, VerifiedRetry
from ._show import (
    ACCOUNT_ID,
    ORGANIZATION_ID,
    WALLET_ID,
    CheckFailed,
    Show,
    check,
    rejected,
    short,
    short_json,
)

__all__ = ["Wallet"]


def _one_byte_changed(payload: str) -> str:
    """``payload`` with the last digit of its timestamp changed (still valid JSON)."""
    marker = '"timestampMs":"'
    end = payload.index('"', payload.index(marker) + len(marker))
    digit = "1" if payload[end - 1] != "1" else "2"
    return payload[: end - 1] + digit + payload[end:]


@dataclass
class Wallet:
    """What client and server hold between the steps of the end-to-end flow."""

    server: SignedRetry = field(default_factory=SignedRetry)
    client_key: ewc.KeyPair | None = None
    session_key: ewc.KeyPair | None = None  # the client's copy, opened from the sealed text
    session_public_key: str = ""  # the server's record of the account's session
    export_key: ewc.KeyPair | None = None
    challenge: SignedRequestChallenge | None = None
    stamp: str = ""

    def need(self, value: ewc.KeyPair | None, what: str) -> ewc.KeyPair:
        if value is None:
            raise CheckFailed(f"an earlier step did not produce the {what}")
        return value

    def need_challenge(self) -> SignedRequestChallenge:
        if self.challenge is None:
            raise CheckFailed("an earlier step did not produce the challenge")
        return self.challenge

    def issue_export(self, export_public_key: str) -> SignedRequestChallenge:
        return self.server.issue(
            account_id=ACCOUNT_ID,
            operation=Operation.EXPORT_WALLET,
            parameters={"walletId": WALLET_ID},
            organization_id=ORGANIZATION_ID,
            bound_client_public_key=export_public_key,
        )

    def verify(self, request_id: str, stamp: str, client_public_key: str) -> VerifiedRetry:
        return self.server.verify(
            request_id=request_id,
            stamp=stamp,
            account_session_keys=[self.session_public_key],
            request_body_client_public_key=client_public_key,
        )

    # 1
    def client_generates_key(self, show: Show) -> None:
        self.client_key = ewc.KeyPair.generate()
        show(f"client -> server  clientPublicKey {short(self.client_key.public_key_hex())}")

    # 2
    def session_key_sealed_and_opened(self, show: Show) -> None:
        client = self.need(self.client_key, "client key")
        session_key = ewc.KeyPair.generate()
        sealed = ewc.seal_session_key(client.public_key_hex(), session_key)
        self.session_public_key = session_key.public_key_hex(compressed=True)
        show(f"server -> client  encryptedSessionSigningKey {short(sealed)}")
        show(f"server keeps      session public key {self.session_public_key}")
        self.session_key = ewc.open_session_key(sealed, client)
        check(self.session_key == session_key, "the client opened another session key")
        show("client opened it: the same session key (the private scalar never left Rust)")
        other = ewc.KeyPair.generate()
        code = rejected(lambda: ewc.open_session_key(sealed, other), ewc.DecryptionError)
        show(f"opened with another client key -> {code}")

    # 3
    def server_issues_export_challenge(self, show: Show) -> None:
        self.export_key = ewc.KeyPair.generate()
        export_public = self.export_key.public_key_hex()
        show(f"client -> server  POST export {{clientPublicKey: {short(export_public)}}}")
        self.challenge = self.issue_export(export_public)
        response = self.challenge.to_response()
        payload = json.loads(response.pop("payloadToSign"))
        show(f"server -> client  202 {short_json(response)}")
        show(f"                  payloadToSign {short_json(payload)}")

    # 4
    def client_checks_binding_and_stamps(self, show: Show) -> None:
        export_key = self.need(self.export_key, "export key")
        session_key = self.need(self.session_key, "session key")
        challenge = self.need_challenge()
        payload = challenge.payload_to_sign
        ewc.check_payload_binding(payload, export_key.public_key_hex())
        show("client: payloadToSign binds the clientPublicKey it sent")
        swapped = payload.replace(
            export_key.public_key_hex(), ewc.KeyPair.generate().public_key_hex()
        )
        code = rejected(
            lambda: ewc.check_payload_binding(swapped, export_key.public_key_hex()), ewc.StampError
        )
        show(f"client: a payload binding another key -> {code} (refuses to stamp)")
        self.stamp = ewc.create_stamp(payload, session_key)
        show(f"client -> server  Service-Wallet-Signature {short(self.stamp)}")
        inside = base64.urlsafe_b64decode(self.stamp + "=" * (-len(self.stamp) % 4))
        show(f"                  = base64url of {short_json(json.loads(inside))}")
        show(f"client -> server  Request-Id {challenge.request_id}")

    # 5
    def server_verifies_retry(self, show: Show) -> None:
        export_key = self.need(self.export_key, "export key")
        challenge = self.need_challenge()
        verified = self.verify(challenge.request_id, self.stamp, export_key.public_key_hex())
        check(verified.session_public_key == self.session_public_key, "another signer")
        show(
            f"server: accepted {verified.operation.name} of {verified.parameters['walletId']} "
            f"signed by session {short(verified.session_public_key)}"
        )

    # 6
    def server_rejects_attacks(self, show: Show) -> None:
        export_key = self.need(self.export_key, "export key")
        session_key = self.need(self.session_key, "session key")
        accepted = self.need_challenge()
        export_public = export_key.public_key_hex()
        replay = rejected(
            functools.partial(self.verify, accepted.request_id, self.stamp, export_public),
            ewc.WalletCryptoError,
        )
        show(f"{'the same retry again (a replay)':<52}-> {replay}")
        # (what the attacker sends, the code the server must answer with, how it is forged)
        attempts: list[tuple[str, str, Callable[[SignedRequestChallenge], tuple[str, str]]]] = [
            (
                "a stamp over the payload with one byte changed",
                "WALLET_SIGNATURE_INVALID",
                lambda c: (
                    ewc.create_stamp(_one_byte_changed(c.payload_to_sign), session_key),
                    export_public,
                ),
            ),
            (
                "a stamp by a key that is no session of the account",
                "WALLET_SIGNATURE_KEY_MISMATCH",
                lambda c: (
                    ewc.create_stamp(c.payload_to_sign, ewc.KeyPair.generate()),
                    export_public,
                ),
            ),
            (
                "an export retry carrying a swapped clientPublicKey",
                "CLIENT_PUBLIC_KEY_MISMATCH",
                lambda c: (
                    ewc.create_stamp(c.payload_to_sign, session_key),
                    ewc.KeyPair.generate().public_key_hex(),
                ),
            ),
        ]
        check(replay == "REQUEST_ID_USED", f"a replay gave {replay}")
        for label, wanted, forge in attempts:
            challenge = self.issue_export(export_public)
            stamp, client_public_key = forge(challenge)
            code = rejected(
                functools.partial(self.verify, challenge.request_id, stamp, client_public_key),
                ewc.WalletCryptoError,
            )
            show(f"{label:<52}-> {code}")
            check(code == wanted, f"{label}: expected {wanted}, got {code}")
