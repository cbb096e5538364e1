"""The project's known-answer vectors (vectors/README.md, schema ``ewc-vectors/1``).

``generate(directory)`` writes hpke.json, keys.json, signatures.json, base58check.json,
session_key.json, stamp.json, signed_retry.json, oidc.json, export.json, otp.json,
passkey.json, import.json, key_formats.json, stamp_schemes.json and turnkey_webhook.json, the
same bytes on every run: keys come from RFC 9180 DeriveKeyPair over fixed inputs (Ed25519 seeds
from fixed streams), and every expected value is computed by an independent reference (the
``generate`` subpackage: pyca/cryptography and the standard library), never by the library under
test.
``verify(directory)`` runs every case of every ``*.json`` file through the public Python API
and reports per-file counts and failures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import WalletCryptoError
from ._verify import OPERATIONS, Failure, FileReport, Report, run_case, verify, verify_file
from .generate import (
    base58check,
    export,
    hpke,
    import_,
    key_formats,
    keys,
    oidc,
    otp,
    passkey,
    session_key,
    signatures,
    signed_retry,
    stamp,
    stamp_schemes,
    turnkey_webhook,
)
from .generate._common import SCHEMA, write

__all__ = [
    "FILES",
    "OPERATIONS",
    "SCHEMA",
    "Failure",
    "FileReport",
    "Report",
    "generate",
    "run_case",
    "verify",
    "verify_file",
]

FILES: dict[str, Callable[[], dict[str, Any]]] = {
    "hpke.json": hpke.build,
    "keys.json": keys.build,
    "signatures.json": signatures.build,
    "base58check.json": base58check.build,
    "session_key.json": session_key.build,
    "stamp.json": stamp.build,
    "signed_retry.json": signed_retry.build,
    "oidc.json": oidc.build,
    "export.json": export.build,
    "otp.json": otp.build,
    "passkey.json": passkey.build,
    "import.json": import_.build,
    "key_formats.json": key_formats.build,
    "stamp_schemes.json": stamp_schemes.build,
    "turnkey_webhook.json": turnkey_webhook.build,
}


def generate(directory: str | Path) -> list[Path]:
    """Write every vector file into ``directory`` (created if needed); returns the paths.

    Raises:
        WalletCryptoError: code ``VECTORS_WRITE_FAILED`` when the directory cannot be created
            or a file cannot be written.
    """
    path = Path(directory)
    try:
        path.mkdir(parents=True, exist_ok=True)
        return [write(path, name, build()) for name, build in FILES.items()]
    except OSError as problem:
        reason = problem.strerror or type(problem).__name__
        raise WalletCryptoError(
            f"cannot write vectors to {path}: {reason}", code="VECTORS_WRITE_FAILED"
        ) from None
