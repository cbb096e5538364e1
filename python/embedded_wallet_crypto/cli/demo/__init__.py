"""``ewc demo``: every flow end to end, client and server side, showing what crosses the wire.

Each step is a name and a function that prints what it sends through ``show`` and raises (any
exception) when the flow misbehaves. The first steps, here, exercise the primitives; the rest
follow one wallet through a session and a signed export retry (``_wallet``, formats.md sections
2-5, 11), the export, OTP and import envelopes (``_envelopes``), passkeys (``_passkeys``) and
the OTP login's second leg (``_otp_login``), with the attacks the server must reject.
``_show`` holds what every step shares.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

import embedded_wallet_crypto as ewc

from ._envelopes import export_round_trip, import_round_trip, otp_round_trip
from ._otp_login import otp_two_leg_login
from ._passkeys import PasskeyDemo
from ._show import Show, check, rejected, short, short_json
from ._wallet import Wallet

__all__ = ["DemoStep", "Show", "StepResult", "default_steps", "format_result", "run", "run_steps"]

DemoStep = tuple[str, Callable[[Show], None]]


# --- primitives ------------------------------------------------------------------------------


def _keys(show: Show) -> None:
    key = ewc.KeyPair.generate()
    show(f"public key (uncompressed)  {short(key.public_key_hex())}")
    show(f"public key (compressed)    {key.public_key_hex(compressed=True)}")
    check(
        ewc.parse_public_key(key.public_key_hex(compressed=True)) == key.public_key_bytes(),
        "the compressed public key does not parse back to the uncompressed one",
    )
    check(
        ewc.KeyPair.from_private_bytes(key.private_key_bytes()) == key,
        "reloading the private scalar gave another key",
    )


def _hpke(show: Show) -> None:
    client = ewc.KeyPair.generate()
    message = b"wire-profile round trip"
    enc, ciphertext = ewc.hpke.seal(client.public_key_bytes(), message)
    show(f"enc         {short(enc.hex())}")
    show(f"ciphertext  {ciphertext.hex()} ({len(message)} bytes + 16-byte tag)")
    check(len(enc) == 65, "enc is not 65 bytes")
    check(ewc.hpke.open(client, enc, ciphertext) == message, "open did not return the message")
    tampered = ciphertext[:-1] + bytes([ciphertext[-1] ^ 1])
    code = rejected(lambda: ewc.hpke.open(client, enc, tampered), ewc.DecryptionError)
    show(f"one tag bit flipped -> {code}")


def _signatures(show: Show) -> None:
    key = ewc.KeyPair.generate()
    message = b'{"type":"ACTIVITY_TYPE_EXPORT_WALLET"}'
    signature = key.sign(message)
    compressed = key.public_key_hex(compressed=True)
    show(f"DER signature  {short(signature.hex())}")
    check(ewc.verify_signature(compressed, message, signature), "a fresh signature failed")
    check(
        not ewc.verify_signature(compressed, message + b" ", signature),
        "a signature verified over other bytes",
    )
    show("the same signature over the message plus one space -> False")


def _sealed_session_key_bytes(show: Show) -> None:
    # formats.md section 3: base58check(compressed enc || ciphertext), 81 bytes decoded.
    client = ewc.KeyPair.generate()
    text = ewc.seal_session_key(client.public_key_bytes(), ewc.KeyPair.generate())
    payload = ewc.b58check_decode(text)
    show(f"base58check text  {short(text)}")
    show(
        f"decoded           {len(payload)} bytes: enc {payload[:33].hex()[:16]}... (33), "
        f"ciphertext + tag ({len(payload) - 33})"
    )
    check(len(payload) == 81, f"decoded payload is {len(payload)} bytes, not 81")
    changed = text[:-1] + ("2" if text[-1] == "1" else "1")
    code = rejected(lambda: ewc.b58check_decode(changed), ewc.DecodeError)
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
    show(f"sender -> receiver  signature header {short_json(json.loads(header))}")
    ewc.verify_webhook_signature(header, body, spki_pem)
    code = rejected(
        lambda: ewc.verify_webhook_signature(header, body + b" ", spki_pem), ewc.StampError
    )
    show(f"receiver: body with one byte more -> {code}")


def default_steps() -> list[DemoStep]:
    """The demo's steps, with fresh client and server state."""
    wallet, passkey = Wallet(), PasskeyDemo()
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
        ("11 wallet and Solana key import to the enclave; forgeries rejected", import_round_trip),
        (
            "12 OTP login, second leg: the TEK stamps the token, becomes the session",
            otp_two_leg_login,
        ),
    ]


@dataclass(frozen=True)
class StepResult:
    """One demo step's outcome: its name, whether it passed, what it showed, and why it failed."""

    name: str
    ok: bool
    shown: tuple[str, ...]
    error: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "shown": list(self.shown), "error": self.error}


def run_steps(
    steps: Sequence[DemoStep] | None = None, *, progress: Show | None = None
) -> list[StepResult]:
    """Run the steps and return each one's outcome; ``progress`` is told each result's line as
    soon as its step ends (``ewc demo`` and ``ewc report`` print as they go)."""
    steps = default_steps() if steps is None else steps
    results: list[StepResult] = []
    for name, step in steps:
        shown: list[str] = []
        error = ""
        try:
            step(shown.append)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as problem:  # PyO3's PanicException derives from BaseException
            error = f"{type(problem).__name__}: {problem}"
        result = StepResult(name, not error, tuple(shown), error)
        results.append(result)
        if progress is not None:
            for line in format_result(result):
                progress(line)
    return results


def format_result(result: StepResult) -> list[str]:
    """The lines ``ewc demo`` prints for one step."""
    head = f"OK      {result.name}" if result.ok else f"FAILED  {result.name}: {result.error}"
    return [head, *(f"          {line}" for line in result.shown)]


def run(steps: Sequence[DemoStep] | None = None, *, write: Show = print) -> int:
    """Run the steps, printing each one's status and what it showed; returns the exit status
    (0 when every step passed, 1 otherwise)."""
    results = run_steps(steps, progress=write)
    passed = sum(result.ok for result in results)
    write(f"\n{passed} of {len(results)} steps OK")
    return 0 if passed == len(results) else 1
