"""``ewc demo``: every flow end to end, client and server side, showing what crosses the wire.

Each step is a name and a function that prints what it sends through ``show`` and raises (any
exception) when the flow misbehaves. The first steps exercise the primitives; the rest follow
one wallet through a session and a signed export retry (FORMATS.md sections 2-5, 11), with the
attacks the server must reject.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

import embedded_wallet_crypto as ewc

from .signed_retry import Operation, SignedRequestChallenge, SignedRetry, VerifiedRetry

__all__ = ["DemoStep", "Show", "default_steps", "run"]

Show = Callable[[str], None]
DemoStep = tuple[str, Callable[[Show], None]]

ORGANIZATION_ID = "org-demo"
ACCOUNT_ID = "InternalAccount:demo"
WALLET_ID = "Wallet:demo"
_KEEP = 20  # characters kept at each end of a long value


class CheckFailed(Exception):
    """A demo step saw a wrong result."""


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def _rejected(call: Callable[[], object], family: type[ewc.WalletCryptoError]) -> str:
    """The code of the ``family`` error that ``call`` must raise."""
    try:
        call()
    except family as error:
        return error.code
    raise CheckFailed(f"expected {family.__name__}, but the call succeeded")


def _short(text: str) -> str:
    if len(text) <= 72:  # a compressed key (66 hex) stays whole
        return text
    return f"{text[:_KEEP]}...{text[-_KEEP // 2 :]} ({len(text)} chars)"


def _short_json(value: Any) -> str:
    """Compact JSON with long strings shortened, for display only."""

    def shorten(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: shorten(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [shorten(inner) for inner in item]
        return _short(item) if isinstance(item, str) else item

    return json.dumps(shorten(value), separators=(",", ":"))


def _one_byte_changed(payload: str) -> str:
    """``payload`` with the last digit of its timestamp changed (still valid JSON)."""
    marker = '"timestampMs":"'
    end = payload.index('"', payload.index(marker) + len(marker))
    digit = "1" if payload[end - 1] != "1" else "2"
    return payload[: end - 1] + digit + payload[end:]


# --- primitives ------------------------------------------------------------------------------


def _keys(show: Show) -> None:
    key = ewc.KeyPair.generate()
    show(f"public key (uncompressed)  {_short(key.public_key_hex())}")
    show(f"public key (compressed)    {key.public_key_hex(compressed=True)}")
    _check(
        ewc.parse_public_key(key.public_key_hex(compressed=True)) == key.public_key_bytes(),
        "the compressed public key does not parse back to the uncompressed one",
    )
    _check(
        ewc.KeyPair.from_private_bytes(key.private_key_bytes()) == key,
        "reloading the private scalar gave another key",
    )


def _hpke(show: Show) -> None:
    client = ewc.KeyPair.generate()
    message = b"wire-profile round trip"
    enc, ciphertext = ewc.hpke.seal(client.public_key_bytes(), message)
    show(f"enc         {_short(enc.hex())}")
    show(f"ciphertext  {ciphertext.hex()} ({len(message)} bytes + 16-byte tag)")
    _check(len(enc) == 65, "enc is not 65 bytes")
    _check(ewc.hpke.open(client, enc, ciphertext) == message, "open did not return the message")
    tampered = ciphertext[:-1] + bytes([ciphertext[-1] ^ 1])
    code = _rejected(lambda: ewc.hpke.open(client, enc, tampered), ewc.DecryptionError)
    show(f"one tag bit flipped -> {code}")


def _signatures(show: Show) -> None:
    key = ewc.KeyPair.generate()
    message = b'{"type":"ACTIVITY_TYPE_EXPORT_WALLET"}'
    signature = key.sign(message)
    compressed = key.public_key_hex(compressed=True)
    show(f"DER signature  {_short(signature.hex())}")
    _check(ewc.verify_signature(compressed, message, signature), "a fresh signature failed")
    _check(
        not ewc.verify_signature(compressed, message + b" ", signature),
        "a signature verified over other bytes",
    )
    show("the same signature over the message plus one space -> False")


def _sealed_session_key_bytes(show: Show) -> None:
    # FORMATS.md section 3: base58check(compressed enc || ciphertext), 81 bytes decoded.
    client = ewc.KeyPair.generate()
    text = ewc.seal_session_key(client.public_key_bytes(), ewc.KeyPair.generate())
    payload = ewc.b58check_decode(text)
    show(f"base58check text  {_short(text)}")
    show(
        f"decoded           {len(payload)} bytes: enc {payload[:33].hex()[:16]}... (33), "
        f"ciphertext + tag ({len(payload) - 33})"
    )
    _check(len(payload) == 81, f"decoded payload is {len(payload)} bytes, not 81")
    changed = text[:-1] + ("2" if text[-1] == "1" else "1")
    code = _rejected(lambda: ewc.b58check_decode(changed), ewc.DecodeError)
    show(f"last character changed -> {code}")


def _webhook(show: Show) -> None:
    sender = ewc.KeyPair.generate()
    point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender.public_key_bytes())
    spki_pem = point.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    body = b'{"type":"INCOMING_PAYMENT","id":"Transaction:demo"}'
    header = ewc.sign_webhook(body, sender)
    show(f"sender -> receiver  body {body.decode()}")
    show(f"sender -> receiver  signature header {_short_json(json.loads(header))}")
    ewc.verify_webhook_signature(header, body, spki_pem)
    code = _rejected(
        lambda: ewc.verify_webhook_signature(header, body + b" ", spki_pem), ewc.StampError
    )
    show(f"receiver: body with one byte more -> {code}")


# --- one wallet, end to end ------------------------------------------------------------------


@dataclass
class _Wallet:
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
        show(f"client -> server  clientPublicKey {_short(self.client_key.public_key_hex())}")

    # 2
    def session_key_sealed_and_opened(self, show: Show) -> None:
        client = self.need(self.client_key, "client key")
        session_key = ewc.KeyPair.generate()
        sealed = ewc.seal_session_key(client.public_key_hex(), session_key)
        self.session_public_key = session_key.public_key_hex(compressed=True)
        show(f"server -> client  encryptedSessionSigningKey {_short(sealed)}")
        show(f"server keeps      session public key {self.session_public_key}")
        self.session_key = ewc.open_session_key(sealed, client)
        _check(self.session_key == session_key, "the client opened another session key")
        show("client opened it: the same session key (the private scalar never left Rust)")
        other = ewc.KeyPair.generate()
        code = _rejected(lambda: ewc.open_session_key(sealed, other), ewc.DecryptionError)
        show(f"opened with another client key -> {code}")

    # 3
    def server_issues_export_challenge(self, show: Show) -> None:
        self.export_key = ewc.KeyPair.generate()
        export_public = self.export_key.public_key_hex()
        show(f"client -> server  POST export {{clientPublicKey: {_short(export_public)}}}")
        self.challenge = self.issue_export(export_public)
        response = self.challenge.to_response()
        payload = json.loads(response.pop("payloadToSign"))
        show(f"server -> client  202 {_short_json(response)}")
        show(f"                  payloadToSign {_short_json(payload)}")

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
        code = _rejected(
            lambda: ewc.check_payload_binding(swapped, export_key.public_key_hex()), ewc.StampError
        )
        show(f"client: a payload binding another key -> {code} (refuses to stamp)")
        self.stamp = ewc.create_stamp(payload, session_key)
        show(f"client -> server  Service-Wallet-Signature {_short(self.stamp)}")
        inside = base64.urlsafe_b64decode(self.stamp + "=" * (-len(self.stamp) % 4))
        show(f"                  = base64url of {_short_json(json.loads(inside))}")
        show(f"client -> server  Request-Id {challenge.request_id}")

    # 5
    def server_verifies_retry(self, show: Show) -> None:
        export_key = self.need(self.export_key, "export key")
        challenge = self.need_challenge()
        verified = self.verify(challenge.request_id, self.stamp, export_key.public_key_hex())
        _check(verified.session_public_key == self.session_public_key, "another signer")
        show(
            f"server: accepted {verified.operation.name} of {verified.parameters['walletId']} "
            f"signed by session {_short(verified.session_public_key)}"
        )

    # 6
    def server_rejects_attacks(self, show: Show) -> None:
        export_key = self.need(self.export_key, "export key")
        session_key = self.need(self.session_key, "session key")
        accepted = self.need_challenge()
        export_public = export_key.public_key_hex()
        replay = _rejected(
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
        _check(replay == "REQUEST_ID_USED", f"a replay gave {replay}")
        for label, wanted, forge in attempts:
            challenge = self.issue_export(export_public)
            stamp, client_public_key = forge(challenge)
            code = _rejected(
                functools.partial(self.verify, challenge.request_id, stamp, client_public_key),
                ewc.WalletCryptoError,
            )
            show(f"{label:<52}-> {code}")
            _check(code == wanted, f"{label}: expected {wanted}, got {code}")


def default_steps() -> list[DemoStep]:
    """The demo's steps, with fresh client and server state."""
    from ._demo_envelopes import export_round_trip, otp_round_trip  # they use this module
    from ._demo_passkeys import PasskeyDemo

    wallet, passkey = _Wallet(), PasskeyDemo()
    return [
        ("key generation and SEC1 encodings", _keys),
        ("HPKE wire-profile round trip, tampered ciphertext rejected", _hpke),
        ("ECDSA sign and verify", _signatures),
        ("base58check of a sealed session key", _sealed_session_key_bytes),
        ("webhook signature over the raw body", _webhook),
        ("1 client generates an ephemeral key", wallet.client_generates_key),
        ("2 server seals a session key, client opens it", wallet.session_key_sealed_and_opened),
        ("3 server issues an export challenge", wallet.server_issues_export_challenge),
        ("4 client checks the binding and stamps", wallet.client_checks_binding_and_stamps),
        ("5 server verifies the signed retry", wallet.server_verifies_retry),
        ("6 server rejects replay, tampering, strangers, swaps", wallet.server_rejects_attacks),
        ("7 export envelope: sealed, pinned, opened; tampering rejected", export_round_trip),
        ("8 encrypted email OTP round trip; tampering rejected", otp_round_trip),
        ("9 passkey registration with the software authenticator", passkey.register),
        ("10 passkey login bound to the client key; replays rejected", passkey.login),
    ]


def run(steps: Sequence[DemoStep] | None = None, *, write: Show = print) -> int:
    """Run the steps, printing each one's status and what it showed; returns the exit status
    (0 when every step passed, 1 otherwise)."""
    steps = default_steps() if steps is None else steps
    failed = 0
    for name, step in steps:
        shown: list[str] = []
        try:
            step(shown.append)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as problem:  # PyO3's PanicException derives from BaseException
            failed += 1
            write(f"FAILED  {name}: {type(problem).__name__}: {problem}")
        else:
            write(f"OK      {name}")
        for line in shown:
            write(f"          {line}")
    write(f"\n{len(steps) - failed} of {len(steps)} steps OK")
    return 1 if failed else 0
