"""The session-key and stamp operations of the vector files (vectors/README.md), run through
the public Python API: ``session_key_seal``, ``session_key_open``, ``stamp_verify``,
``stamp_verify_schemes`` and ``stamp_create_ed25519``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc

from ._inputs import (
    Inputs,
    MalformedCase,
    Mismatch,
    agree,
    input_bool,
    input_bytes,
    input_text,
)

# formats.md section 3: compressed enc (33) || ciphertext of the 32-byte scalar with its tag (48).
SEALED_SESSION_KEY_LEN = 81


def _session_key_seal(inputs: Inputs) -> dict[str, Any]:
    """The real seal first (its errors are the case's errors), then the same composition with
    the fixed ephemeral key: the public API has no deterministic session-key seal."""
    client_public_key = input_text(inputs, "client_public_key")
    session_key = ewc.KeyPair.from_private_bytes(input_bytes(inputs, "session_private_key"))
    ephemeral = ewc.KeyPair.from_private_bytes(input_bytes(inputs, "ephemeral_private_key"))
    sealed = ewc.seal_session_key(client_public_key, session_key)
    if len(ewc.b58check_decode(sealed)) != SEALED_SESSION_KEY_LEN:
        raise Mismatch("seal_session_key did not produce 81 bytes under base58check")
    enc, ciphertext = ewc.hpke.seal_deterministic_for_tests(
        client_public_key, session_key.private_key_bytes(), ephemeral_key=ephemeral
    )
    text = ewc.b58check_encode(ewc.compress_public_key(enc) + ciphertext)
    return {"encrypted": text}


def _session_key_open(inputs: Inputs) -> dict[str, Any]:
    client_scalar = input_bytes(inputs, "client_private_key")
    encrypted = input_text(inputs, "encrypted")
    client = ewc.KeyPair.from_private_bytes(client_scalar)
    from_handle, from_bytes = agree(
        ("open_session_key(KeyPair)", lambda: ewc.open_session_key(encrypted, client)),
        ("open_session_key(bytes)", lambda: ewc.open_session_key(encrypted, client_scalar)),
    )
    if from_handle != from_bytes:
        raise Mismatch("opening with a KeyPair and with its bytes gave different session keys")
    return {
        "session_private_key": from_handle.private_key_bytes().hex(),
        "session_public_key": from_handle.public_key_hex(),
    }


def _stamp_verify(inputs: Inputs) -> dict[str, Any]:
    """``verify_stamp``, checked against ``verify_stamps`` (which has no sandbox mode) and
    against the payload given as ``str`` when it is UTF-8."""
    stamp = input_text(inputs, "stamp")
    payload = input_bytes(inputs, "payload")
    expected_key = inputs.get("expected_public_key")
    if expected_key is not None:
        expected_key = input_text(inputs, "expected_public_key")
    sandbox = input_bool(inputs, "sandbox")

    def single(data: str | bytes) -> Callable[[], ewc.Stamp]:
        return lambda: ewc.verify_stamp(
            stamp, data, expected_public_key=expected_key, sandbox=sandbox
        )

    calls = [("verify_stamp(bytes)", single(payload))]
    try:
        calls.append(("verify_stamp(str)", single(payload.decode("utf-8"))))
    except UnicodeDecodeError:
        pass
    try:
        verified = agree(*calls)[0]
    except ewc.WalletCryptoError as error:
        _check_batch(stamp, payload, expected_key, sandbox, error)
        raise
    _check_batch(stamp, payload, expected_key, sandbox, None)
    return {"public_key": verified.public_key, "signature": verified.signature.hex()}


def _check_batch(
    stamp: str,
    payload: bytes,
    expected_key: str | None,
    sandbox: bool,
    error: ewc.WalletCryptoError | None,
) -> None:
    """``verify_stamps`` must give the verdict ``verify_stamp`` gave (a malformed expected key
    is an error in both)."""
    if sandbox:
        return
    try:
        (verdict,) = ewc.verify_stamps([stamp], [payload], [expected_key])
    except ewc.WalletCryptoError as batch_error:
        if error is None or isinstance(error, ewc.StampError) or batch_error.code != error.code:
            raise Mismatch(f"verify_stamps raised {batch_error.code}") from None
        return
    if verdict != (error is None):
        single = "succeeded" if error is None else f"raised {error.code}"
        raise Mismatch(f"verify_stamp {single} but verify_stamps returned {verdict}")


def _schemes(inputs: Inputs) -> list[str]:
    value = inputs.get("schemes")
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise MalformedCase("input 'schemes' must be a list of scheme names")
    return value


def _stamp_verify_schemes(inputs: Inputs) -> dict[str, Any]:
    """``verify_stamp`` with ``schemes=``, checked against ``verify_stamps`` and against the
    payload given as ``str`` when it is UTF-8."""
    stamp = input_text(inputs, "stamp")
    payload = input_bytes(inputs, "payload")
    expected_key = inputs.get("expected_public_key")
    if expected_key is not None:
        expected_key = input_text(inputs, "expected_public_key")
    schemes = _schemes(inputs)

    def single(data: str | bytes) -> Callable[[], ewc.Stamp]:
        return lambda: ewc.verify_stamp(
            stamp, data, expected_public_key=expected_key, schemes=schemes
        )

    calls = [("verify_stamp(bytes)", single(payload))]
    try:
        calls.append(("verify_stamp(str)", single(payload.decode("utf-8"))))
    except UnicodeDecodeError:
        pass
    error: ewc.WalletCryptoError | None = None
    try:
        verified = agree(*calls)[0]
    except ewc.WalletCryptoError as raised:
        error = raised
    try:
        (verdict,) = ewc.verify_stamps([stamp], [payload], [expected_key], schemes=schemes)
    except ewc.WalletCryptoError as batch_error:
        if error is None or isinstance(error, ewc.StampError) or batch_error.code != error.code:
            raise Mismatch(f"verify_stamps raised {batch_error.code}") from None
    else:
        if verdict != (error is None):
            raise Mismatch(f"verify_stamp and verify_stamps disagree (batch: {verdict})")
    if error is not None:
        raise error
    return {
        "scheme": verified.scheme,
        "public_key": verified.public_key,
        "signature": verified.signature.hex(),
    }


class _ExternalSigner:
    """A StampSigner around a key pair: the path a key held elsewhere takes."""

    def __init__(self, key: ewc.Ed25519KeyPair) -> None:
        self._key = key
        self.scheme = key.scheme

    def public_key_hex(self) -> str:
        return self._key.public_key_hex()

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)


def _stamp_create_ed25519(inputs: Inputs) -> dict[str, Any]:
    """``create_stamp`` with an ``Ed25519KeyPair`` and with a StampSigner around it: Ed25519 is
    deterministic, so both must give the vector's bytes."""
    key = ewc.Ed25519KeyPair.from_private_bytes(input_bytes(inputs, "private_key"))
    payload = input_bytes(inputs, "payload")
    direct, external = agree(
        ("create_stamp(Ed25519KeyPair)", lambda: ewc.create_stamp(payload, key)),
        ("create_stamp(StampSigner)", lambda: ewc.create_stamp(payload, _ExternalSigner(key))),
    )
    if direct != external:
        raise Mismatch("the key pair and the StampSigner around it wrote different stamps")
    return {"stamp": direct}


SESSION_STAMP_OPERATIONS: dict[str, Callable[[Inputs], dict[str, Any]]] = {
    "session_key_seal": _session_key_seal,
    "session_key_open": _session_key_open,
    "stamp_verify": _stamp_verify,
    "stamp_verify_schemes": _stamp_verify_schemes,
    "stamp_create_ed25519": _stamp_create_ed25519,
}
