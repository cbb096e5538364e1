"""A verification time for py_webauthn's attestation checks, per call and thread-safe.

py_webauthn 3.0.1 validates certificate chains at the current time and has no parameter for
another: its ``validate_certificate_chain._generate_new_cert_store`` is the seam its own tests
patch (its docstring says so). Recorded samples need a fixed time (their certificates have
expired since), so this module replaces that seam, once, with a function that reads a
``ContextVar``: unset, it returns the same plain ``X509Store`` as before; set, the store
verifies at the given time. The SafetyNet JWS freshness check (``timestampMs`` within 10 s of
"now") gets the same treatment, and can be switched off as py_webauthn's own tests do.
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

_CHAIN_MODULE = "webauthn.helpers.validate_certificate_chain"
_SAFETYNET_MODULE = "webauthn.registration.formats.android_safetynet"
_SAFETYNET_GRACE_MS = 10 * 1000  # py_webauthn's verify_safetynet_timestamp


@dataclass(frozen=True)
class _Settings:
    verification_time: datetime | None
    check_safetynet_timestamp: bool


_settings: ContextVar[_Settings | None] = ContextVar("ewc_passkeys_webauthn_time", default=None)
_lock = threading.Lock()
_original_safetynet_timestamp: Callable[[int], None] | None = None


def _cert_store() -> X509Store:
    store = X509Store()
    settings = _settings.get()
    if settings is not None and settings.verification_time is not None:
        store.set_time(settings.verification_time)
    return store


def _safetynet_timestamp(timestamp_ms: int) -> None:
    settings = _settings.get()
    if settings is not None and not settings.check_safetynet_timestamp:
        return
    if settings is None or settings.verification_time is None:
        assert _original_safetynet_timestamp is not None
        _original_safetynet_timestamp(timestamp_ms)
        return
    now_ms = int(settings.verification_time.timestamp()) * 1000
    if timestamp_ms > now_ms + _SAFETYNET_GRACE_MS:
        raise ValueError(f"Payload timestamp {timestamp_ms} was later than the verification time")
    if timestamp_ms < now_ms - _SAFETYNET_GRACE_MS:
        raise ValueError("Payload has expired")


def _install() -> None:
    global _original_safetynet_timestamp
    with _lock:
        if _original_safetynet_timestamp is not None:
            return
        chain: Any = importlib.import_module(_CHAIN_MODULE)
        safetynet: Any = importlib.import_module(_SAFETYNET_MODULE)
        if not callable(getattr(chain, "_generate_new_cert_store", None)) or not callable(
            getattr(safetynet, "verify_safetynet_timestamp", None)
        ):
            raise RuntimeError("this py_webauthn has no seam for a verification time")
        _original_safetynet_timestamp = safetynet.verify_safetynet_timestamp
        chain._generate_new_cert_store = _cert_store
        safetynet.verify_safetynet_timestamp = _safetynet_timestamp


@contextmanager
def webauthn_time(
    verification_time: datetime | None, *, check_safetynet_timestamp: bool = True
) -> Iterator[None]:
    """Within the block, py_webauthn checks certificates (and SafetyNet freshness) at
    ``verification_time`` (None: now) in this thread or task only."""
    if verification_time is None and check_safetynet_timestamp:
        yield
        return
    _install()
    token = _settings.set(_Settings(verification_time, check_safetynet_timestamp))
    try:
        yield
    finally:
        _settings.reset(token)
