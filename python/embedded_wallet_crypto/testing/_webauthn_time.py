"""``webauthn_time``: verify recorded WebAuthn attestation samples at the time they were made.

No verification in the library uses it, and importing it changes nothing. ``webauthn_time``
lets a test verify recorded WebAuthn attestation samples, whose certificates have since expired,
at the time they were made.

py_webauthn 3.0.1 checks certificate chains at the current time and has no parameter for
another. Its ``helpers.validate_certificate_chain._generate_new_cert_store`` is the seam its own
tests patch (its docstring says so), and the SafetyNet freshness check
(``registration.formats.android_safetynet.verify_safetynet_timestamp``, ``timestampMs`` within
10 s of now) can only be skipped by calling the format verifier directly, as its tests do. No
other route reaches either check (the trust roots only add anchors; OpenSSL reads the clock
itself), so ``webauthn_time`` replaces those two functions, and only while a block is open: the
first block to enter installs them, the last to leave puts py_webauthn's own back. Inside, they
read a ``ContextVar``, so the time applies to the thread or task that opened the block; other
verifications running meanwhile see py_webauthn's behaviour unchanged.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from OpenSSL.crypto import X509Store

__all__ = ["webauthn_time"]

_SAFETYNET_GRACE_MS = 10 * 1000  # py_webauthn's verify_safetynet_timestamp
# By module name: ``webauthn.helpers`` re-exports a function under this module's own name.
_chain: Any = importlib.import_module("webauthn.helpers.validate_certificate_chain")
_safetynet: Any = importlib.import_module("webauthn.registration.formats.android_safetynet")


@dataclass(frozen=True)
class _Settings:
    verification_time: datetime | None
    check_safetynet_timestamp: bool


_settings: ContextVar[_Settings | None] = ContextVar("ewc_testing_webauthn_time", default=None)
_lock = threading.Lock()
_open_blocks = 0
_originals: dict[str, Callable[..., Any]] = {}


def _cert_store() -> X509Store:
    store: X509Store = _originals["cert_store"]()
    settings = _settings.get()
    if settings is not None and settings.verification_time is not None:
        store.set_time(settings.verification_time)
    return store


def _safetynet_timestamp(timestamp_ms: int) -> None:
    settings = _settings.get()
    if settings is not None and not settings.check_safetynet_timestamp:
        return
    if settings is None or settings.verification_time is None:
        _originals["safetynet_timestamp"](timestamp_ms)
        return
    now_ms = int(settings.verification_time.timestamp()) * 1000
    if timestamp_ms > now_ms + _SAFETYNET_GRACE_MS:
        raise ValueError(f"Payload timestamp {timestamp_ms} was later than the verification time")
    if timestamp_ms < now_ms - _SAFETYNET_GRACE_MS:
        raise ValueError("Payload has expired")


def _install() -> None:
    global _open_blocks
    with _lock:
        if _open_blocks == 0:
            if not _originals:  # kept for good: a call already under way may still need them
                cert_store = getattr(_chain, "_generate_new_cert_store", None)
                timestamp = getattr(_safetynet, "verify_safetynet_timestamp", None)
                if not callable(cert_store) or not callable(timestamp):
                    raise RuntimeError("this py_webauthn has no seam for a verification time")
                _originals.update(cert_store=cert_store, safetynet_timestamp=timestamp)
            _chain._generate_new_cert_store = _cert_store
            _safetynet.verify_safetynet_timestamp = _safetynet_timestamp
        _open_blocks += 1


def _uninstall() -> None:
    global _open_blocks
    with _lock:
        _open_blocks -= 1
        if _open_blocks == 0:
            _chain._generate_new_cert_store = _originals["cert_store"]
            _safetynet.verify_safetynet_timestamp = _originals["safetynet_timestamp"]


@contextmanager
def webauthn_time(
    verification_time: datetime | None, *, check_safetynet_timestamp: bool = True
) -> Iterator[None]:
    """Within the block, ``ewc.passkeys.verify_registration`` has py_webauthn check attestation
    certificates (and SafetyNet freshness) at ``verification_time`` (None: now), in this thread
    or task only. ``check_safetynet_timestamp=False`` skips the SafetyNet freshness check, as
    py_webauthn's own tests do for their recorded sample. Test support only.

    Raises:
        RuntimeError: the installed py_webauthn lacks the two functions this replaces.
    """
    _install()
    token = _settings.set(_Settings(verification_time, check_safetynet_timestamp))
    try:
        yield
    finally:
        _settings.reset(token)
        _uninstall()
