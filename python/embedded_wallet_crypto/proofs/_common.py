"""What the proof modules share: the error codes and strict readers of hex, base64 and JSON
objects (formats.md section 16)."""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping
from typing import Any, NoReturn

from .. import _strict_json as strict_json
from ..errors import ProofError

# The codes of ProofError (status 400).
MALFORMED = "PROOF_MALFORMED"
SCHEME_UNSUPPORTED = "PROOF_SCHEME_UNSUPPORTED"
PUBLIC_KEY_INVALID = "PROOF_PUBLIC_KEY_INVALID"
SIGNATURE_MALFORMED = "PROOF_SIGNATURE_MALFORMED"
SIGNATURE_INVALID = "PROOF_SIGNATURE_INVALID"
PAYLOAD_INVALID = "PROOF_PAYLOAD_INVALID"
KEY_MISMATCH = "PROOF_KEY_MISMATCH"
BOOT_MALFORMED = "BOOT_PROOF_MALFORMED"
BOOT_ALGORITHM_UNSUPPORTED = "BOOT_PROOF_ALGORITHM_UNSUPPORTED"
BOOT_CHAIN_INVALID = "BOOT_PROOF_CHAIN_INVALID"
BOOT_SIGNATURE_INVALID = "BOOT_PROOF_SIGNATURE_INVALID"
BOOT_MANIFEST_MISMATCH = "BOOT_PROOF_MANIFEST_MISMATCH"
# The QOS manifest and its envelope (verify_boot_proof of a whole boot proof).
BOOT_MANIFEST_MALFORMED = "BOOT_PROOF_MANIFEST_MALFORMED"
BOOT_ENVELOPE_MISMATCH = "BOOT_PROOF_ENVELOPE_MISMATCH"
BOOT_PCR_MISMATCH = "BOOT_PROOF_PCR_MISMATCH"
BOOT_ROOT_MISMATCH = "BOOT_PROOF_MANIFEST_ROOT_MISMATCH"
BOOT_APPROVAL_INVALID = "BOOT_PROOF_APPROVAL_INVALID"
BOOT_APPROVER_UNKNOWN = "BOOT_PROOF_APPROVER_UNKNOWN"
BOOT_APPROVAL_DUPLICATE = "BOOT_PROOF_APPROVAL_DUPLICATE"
BOOT_APPROVALS_INSUFFICIENT = "BOOT_PROOF_APPROVALS_INSUFFICIENT"
# The auditor's pins.
BOOT_PINS_INVALID = "BOOT_PROOF_PINS_INVALID"
BOOT_PIN_PCR_MISMATCH = "BOOT_PROOF_PIN_PCR_MISMATCH"
BOOT_PIN_MANIFEST_MISMATCH = "BOOT_PROOF_PIN_MANIFEST_MISMATCH"
BOOT_PIN_THRESHOLD_MISMATCH = "BOOT_PROOF_PIN_THRESHOLD_MISMATCH"

#: The largest proof object or attestation document read (real ones are under 8 KB).
MAX_PROOF_LENGTH = 64 * 1024

_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def fail(code: str, reason: str) -> NoReturn:
    raise ProofError(reason, code)


def proof_object(value: object, what: str) -> Mapping[str, Any]:
    """A proof given as a mapping or as JSON text (decoded strictly: no repeated members)."""
    if isinstance(value, str):
        if len(value) > MAX_PROOF_LENGTH:
            fail(MALFORMED, f"the {what} is longer than {MAX_PROOF_LENGTH} characters")
        return strict_json.json_object(
            value, what=f"the {what}", error=lambda reason: ProofError(reason, MALFORMED)
        )
    if isinstance(value, Mapping):
        return value
    raise TypeError(f"the {what} must be a dict or JSON text, not {type(value).__name__}")


def text_member(proof: Mapping[str, Any], name: str, what: str, code: str = MALFORMED) -> str:
    value = proof.get(name)
    if not isinstance(value, str):
        fail(code, f"the {what} has no string {name!r}")
    if len(value) > MAX_PROOF_LENGTH:
        fail(code, f"the {what}'s {name!r} is longer than {MAX_PROOF_LENGTH} characters")
    return value


def hex_bytes(text: str, what: str, code: str) -> bytes:
    if not _HEX.fullmatch(text):
        fail(code, f"the {what} is not hex")
    return binascii.unhexlify(text)


def base64_bytes(text: str, what: str, code: str) -> bytes:
    """Standard padded base64, canonical (the unused bits zero), nothing else."""
    if len(text) > MAX_PROOF_LENGTH * 2 or not _BASE64.fullmatch(text):
        fail(code, f"the {what} is not base64")
    data = binascii.a2b_base64(text)
    if binascii.b2a_base64(data, newline=False).decode("ascii") != text:
        fail(code, f"the {what} is not canonical base64")
    return data
