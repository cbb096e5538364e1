"""Run every case of the vector files through the public Python API (vectors/README.md)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc

from ._inputs import (
    Inputs,
    MalformedCase,
    Mismatch,
    agree,
    input_bytes,
    input_text,
    optional_input_bytes,
)
from ._operations_envelopes import ENVELOPE_EXCEPTIONS, ENVELOPE_OPERATIONS
from ._operations_import import IMPORT_EXCEPTIONS, IMPORT_OPERATIONS
from ._operations_oidc import OIDC_EXCEPTIONS, OIDC_OPERATIONS
from ._operations_passkey import PASSKEY_EXCEPTIONS, PASSKEY_OPERATIONS
from ._operations_session_stamp import SESSION_STAMP_OPERATIONS
from ._operations_signed_retry import SIGNED_RETRY_EXCEPTIONS, SIGNED_RETRY_OPERATIONS
from ._operations_turnkey_webhook import TURNKEY_WEBHOOK_EXCEPTIONS, TURNKEY_WEBHOOK_OPERATIONS
from .generate._common import SCHEMA

# vectors/README.md, "Error codes": the exception class each code must come with.
EXCEPTION_FOR_CODE: dict[str, type[ewc.WalletCryptoError]] = {
    "INVALID_KEY_ENCODING": ewc.InvalidKey,
    "INVALID_KEY_LENGTH": ewc.InvalidKey,
    "INVALID_KEY_PREFIX": ewc.InvalidKey,
    "INVALID_POINT": ewc.InvalidKey,
    "INVALID_PRIVATE_KEY": ewc.InvalidKey,
    "DERIVE_KEY_PAIR_FAILED": ewc.InvalidKey,
    "INVALID_HEX": ewc.DecodeError,
    "INVALID_BASE58": ewc.DecodeError,
    "INVALID_CHECKSUM": ewc.DecodeError,
    "INVALID_SIGNATURE_ENCODING": ewc.DecodeError,
    "INVALID_LENGTH": ewc.DecodeError,
    "DECRYPTION_FAILED": ewc.DecryptionError,
    "CLIENT_HELD_KEY": ewc.InvalidKey,
    "WALLET_SIGNATURE_MISSING": ewc.StampError,
    "WALLET_SIGNATURE_MALFORMED": ewc.StampError,
    "WALLET_SIGNATURE_INVALID": ewc.StampError,
    "WALLET_SIGNATURE_KEY_MISMATCH": ewc.StampError,
    "WALLET_SIGNATURE_SCHEME_UNSUPPORTED": ewc.StampError,
    **SIGNED_RETRY_EXCEPTIONS,
    **OIDC_EXCEPTIONS,
    **ENVELOPE_EXCEPTIONS,
    **PASSKEY_EXCEPTIONS,
    **IMPORT_EXCEPTIONS,
    **TURNKEY_WEBHOOK_EXCEPTIONS,
}


@dataclass(frozen=True)
class Failure:
    """One case (or a whole file) that did not behave as its vector says."""

    file: str
    case_id: str
    message: str


@dataclass
class FileReport:
    file: str
    cases: int = 0
    passed: int = 0
    failed: int = 0


@dataclass
class Report:
    """Per-file counts and every failure of one ``verify`` run."""

    directory: str
    files: list[FileReport] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def cases(self) -> int:
        return sum(f.cases for f in self.files)

    @property
    def passed(self) -> int:
        return sum(f.passed for f in self.files)

    @property
    def failed(self) -> int:
        return sum(f.failed for f in self.files)

    @property
    def ok(self) -> bool:
        return bool(self.files) and not self.failures

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": self.directory,
            "ok": self.ok,
            "totals": {"cases": self.cases, "passed": self.passed, "failed": self.failed},
            "files": [vars(f).copy() for f in self.files],
            "failures": [
                {"file": f.file, "case": f.case_id, "message": f.message} for f in self.failures
            ],
        }


# --- operations ------------------------------------------------------------------------------


def _hpke_seal_open(inputs: Inputs) -> dict[str, Any]:
    recipient = ewc.KeyPair.from_private_bytes(input_bytes(inputs, "recipient_private_key"))
    ephemeral = ewc.KeyPair.from_private_bytes(input_bytes(inputs, "ephemeral_private_key"))
    info, aad = input_bytes(inputs, "info"), optional_input_bytes(inputs, "aad")
    plaintext = input_bytes(inputs, "plaintext")
    enc, ciphertext = ewc.hpke.seal_deterministic_for_tests(
        recipient.public_key_bytes(), plaintext, ephemeral_key=ephemeral, info=info, aad=aad
    )
    opened = ewc.hpke.open(recipient, enc, ciphertext, info=info, aad=aad)
    if opened != plaintext:
        raise Mismatch("hpke.open of the sealed ciphertext did not return the plaintext")
    return {"enc": enc.hex(), "ciphertext": ciphertext.hex()}


def _hpke_open(inputs: Inputs) -> dict[str, Any]:
    plaintext = ewc.hpke.open(
        input_bytes(inputs, "recipient_private_key"),
        input_bytes(inputs, "enc"),
        input_bytes(inputs, "ciphertext"),
        info=input_bytes(inputs, "info"),
        aad=optional_input_bytes(inputs, "aad"),
    )
    return {"plaintext": plaintext.hex()}


def _hpke_derive_key_pair(inputs: Inputs) -> dict[str, Any]:
    key_pair = ewc.hpke.derive_key_pair(input_bytes(inputs, "ikm"))
    return {
        "private_key": key_pair.private_key_bytes().hex(),
        "public_key": key_pair.public_key_hex(),
    }


def _public_key_parse(inputs: Inputs) -> dict[str, Any]:
    text = input_text(inputs, "public_key")
    uncompressed, compressed = agree(
        ("parse_public_key", lambda: ewc.parse_public_key(text)),
        ("compress_public_key", lambda: ewc.compress_public_key(text)),
    )
    return {"uncompressed": uncompressed.hex(), "compressed": compressed.hex()}


def _private_key_load(inputs: Inputs) -> dict[str, Any]:
    scalar = input_bytes(inputs, "private_key")
    from_bytes, from_hex = agree(
        ("KeyPair.from_private_bytes", lambda: ewc.KeyPair.from_private_bytes(scalar)),
        ("KeyPair.from_private_hex", lambda: ewc.KeyPair.from_private_hex(scalar.hex())),
    )
    if from_bytes.public_key_bytes() != from_hex.public_key_bytes():
        raise Mismatch("from_private_bytes and from_private_hex gave different keys")
    if from_bytes.private_key_bytes() != scalar:
        raise Mismatch("private_key_bytes() does not return the loaded scalar")
    return {
        "public_key": from_bytes.public_key_hex(),
        "public_key_compressed": from_bytes.public_key_hex(compressed=True),
    }


def _ecdsa_verify(inputs: Inputs) -> dict[str, Any]:
    verified = ewc.verify_signature(
        input_bytes(inputs, "public_key"),
        input_bytes(inputs, "message"),
        input_bytes(inputs, "signature"),
    )
    if not isinstance(verified, bool):
        raise Mismatch(f"verify_signature returned {type(verified).__name__}, not bool")
    return {"verified": verified}


def _b58check_encode(inputs: Inputs) -> dict[str, Any]:
    payload = input_bytes(inputs, "payload")
    text = ewc.b58check_encode(payload)
    if ewc.b58check_decode(text) != payload:
        raise Mismatch("b58check_decode(b58check_encode(payload)) is not the payload")
    return {"text": text}


def _b58check_decode(inputs: Inputs) -> dict[str, Any]:
    return {"payload": ewc.b58check_decode(input_text(inputs, "text")).hex()}


OPERATIONS: dict[str, Callable[[Inputs], dict[str, Any]]] = {
    "hpke_seal_open": _hpke_seal_open,
    "hpke_open": _hpke_open,
    "hpke_derive_key_pair": _hpke_derive_key_pair,
    "public_key_parse": _public_key_parse,
    "private_key_load": _private_key_load,
    "ecdsa_verify": _ecdsa_verify,
    "b58check_encode": _b58check_encode,
    "b58check_decode": _b58check_decode,
    **SESSION_STAMP_OPERATIONS,
    **SIGNED_RETRY_OPERATIONS,
    **OIDC_OPERATIONS,
    **ENVELOPE_OPERATIONS,
    **PASSKEY_OPERATIONS,
    **IMPORT_OPERATIONS,
    **TURNKEY_WEBHOOK_OPERATIONS,
}


# --- cases and files -------------------------------------------------------------------------


def _short(value: Any, limit: int = 90) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _difference(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> str:
    keys = sorted(set(expected) | set(actual))
    parts = [
        f"{k}: expected {_short(expected.get(k))}, got {_short(actual.get(k))}"
        for k in keys
        if expected.get(k) != actual.get(k) or type(expected.get(k)) is not type(actual.get(k))
    ]
    return "; ".join(parts)


def _check_error(error: ewc.WalletCryptoError, wanted: str) -> str | None:
    raised = f"{type(error).__name__}({error.code}): {error.reason}"
    if error.code != wanted:
        return f"expected error {wanted}, raised {raised}"
    family = EXCEPTION_FOR_CODE.get(wanted)
    if family is not None and not isinstance(error, family):
        return f"{wanted} must be raised as {family.__name__}, raised {raised}"
    return None


def run_case(case: Any) -> str | None:
    """Run one case; None when it passes, otherwise a one-line description of the failure."""
    if not isinstance(case, dict):
        return "malformed case: not a JSON object"
    operation, valid, inputs = case.get("operation"), case.get("valid"), case.get("inputs")
    runner = OPERATIONS.get(operation) if isinstance(operation, str) else None
    if runner is None:
        return f"unknown operation {operation!r}"
    if not isinstance(valid, bool) or not isinstance(inputs, dict):
        return "malformed case: 'valid' must be a bool and 'inputs' an object"
    expected, wanted = case.get("expected"), case.get("error")
    if valid and not isinstance(expected, dict):
        return "malformed case: a valid case needs an 'expected' object"
    if not valid and not isinstance(wanted, str):
        return "malformed case: an invalid case needs an 'error' code"
    try:
        actual = runner(inputs)
    except MalformedCase as problem:
        return f"malformed case: {problem}"
    except Mismatch as problem:
        return f"inconsistent results: {problem}"
    except ewc.WalletCryptoError as error:
        if valid:
            return f"expected success, raised {type(error).__name__}({error.code}): {error}"
        return _check_error(error, str(wanted))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # PyO3's PanicException derives from BaseException
        return f"raised {type(error).__name__} (not a WalletCryptoError): {_short(str(error))}"
    if not valid:
        return f"expected error {wanted}, but it succeeded with {_short(actual)}"
    assert isinstance(expected, dict)
    if actual != expected:
        return _difference(expected, actual)
    return None


def verify_file(path: Path) -> tuple[FileReport, list[Failure]]:
    """Check one vector file: its schema, unique ids, and every case. A problem with the file
    as a whole counts as one failure."""
    report = FileReport(path.name)
    failures: list[Failure] = []
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as problem:
        document = None
        failures.append(Failure(path.name, "(file)", f"not readable as JSON: {problem}"))
    cases = document.get("cases") if isinstance(document, dict) else None
    if isinstance(document, dict) and document.get("schema") != SCHEMA:
        failures.append(Failure(path.name, "(file)", f"'schema' is not {SCHEMA!r}"))
    if document is not None and (not isinstance(cases, list) or not cases):
        failures.append(Failure(path.name, "(file)", "no 'cases' array, or it is empty"))
    report.failed = len(failures)
    seen: set[str] = set()
    for index, case in enumerate(cases if isinstance(cases, list) else []):
        case_id = case.get("id") if isinstance(case, dict) else None
        if isinstance(case_id, str) and case_id:
            message = "duplicate case id" if case_id in seen else run_case(case)
            seen.add(case_id)
        else:
            case_id, message = f"(case #{index})", "malformed case: missing 'id'"
        report.cases += 1
        if message is None:
            report.passed += 1
        else:
            report.failed += 1
            failures.append(Failure(path.name, case_id, message))
    return report, failures


def verify(directory: str | Path) -> Report:
    """Run every ``*.json`` file of ``directory`` through the public Python API.

    Raises:
        WalletCryptoError: code ``VECTORS_NOT_FOUND`` when ``directory`` is not a directory or
            holds no ``*.json`` file. Problems inside files are failures in the report.
    """
    path = Path(directory)
    if not path.is_dir():
        raise ewc.WalletCryptoError(
            f"vector directory {path} does not exist or is not a directory",
            code="VECTORS_NOT_FOUND",
        )
    try:
        files = sorted(path.glob("*.json"))
    except OSError as problem:
        raise ewc.WalletCryptoError(
            f"cannot list {path}: {problem.strerror}", code="VECTORS_NOT_FOUND"
        ) from None
    if not files:
        raise ewc.WalletCryptoError(f"no *.json vector files in {path}", code="VECTORS_NOT_FOUND")
    report = Report(str(path))
    for file in files:
        file_report, failures = verify_file(file)
        report.files.append(file_report)
        report.failures.extend(failures)
    return report
