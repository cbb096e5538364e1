"""An independent ``Service-Wallet-Signature`` writer for the stamp vectors (formats.md section 4).

RFC 6979 signatures from pyca/cryptography, ``json`` and ``base64`` from the standard library:
never ``ewc.create_stamp``, so that the vectors test the library against another writer.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json

from . import _reference as ref
from ._common import Case, case, key

SCHEME = "SIGNATURE_SCHEME_TK_API_P256"
SANDBOX_STAMP = "sandbox-valid-signature"
FIELD_ORDER = ("publicKey", "scheme", "signature")
MALFORMED = "WALLET_SIGNATURE_MALFORMED"
INVALID = "WALLET_SIGNATURE_INVALID"

Fields = dict[str, str]


@functools.cache
def export_payload() -> bytes:
    """An export payloadToSign (formats.md section 5) bound to the session-key vectors' client."""
    payload = {
        "organizationId": "org-vectors",
        "parameters": {
            "targetPublicKey": key("session-client")[1].hex(),
            "walletId": "Wallet:vectors",
        },
        "timestampMs": "1700000000000",
        "type": "ACTIVITY_TYPE_EXPORT_WALLET",
    }
    return json.dumps(payload, separators=(",", ":")).encode()


def stamp_signature(signer: str, payload: bytes, *, high_s: bool = False) -> bytes:
    """DER of the RFC 6979 signature, in its low-S or its high-S form."""
    r, s = ref.sign_deterministic(key(signer)[0], payload)
    low = min(s, ref.N - s)
    return ref.der_signature(r, ref.N - low if high_s else low)


def stamp_fields(signer: str, payload: bytes, *, high_s: bool = False) -> Fields:
    return {
        "publicKey": ref.public_key_bytes(key(signer)[0], compressed=True).hex(),
        "scheme": SCHEME,
        "signature": stamp_signature(signer, payload, high_s=high_s).hex(),
    }


def compact_json(fields: Fields, order: tuple[str, ...] = FIELD_ORDER) -> str:
    return json.dumps({name: fields[name] for name in order}, separators=(",", ":"))


def encode_stamp(json_text: str | bytes, *, padded: bool = False) -> str:
    raw = json_text.encode() if isinstance(json_text, str) else json_text
    text = base64.urlsafe_b64encode(raw).decode("ascii")
    return text if padded else text.rstrip("=")


def result(fields: Fields) -> dict[str, str]:
    """What verification returns: the compressed key and the DER signature, lowercase hex."""
    return {"public_key": fields["publicKey"].lower(), "signature": fields["signature"].lower()}


def stamp_case(
    case_id: str,
    stamp: str,
    comment: str,
    *,
    payload: bytes | None = None,
    expected_public_key: str | None = None,
    sandbox: bool = False,
    result: dict[str, str] | None = None,
    error: str | None = None,
) -> Case:
    inputs = {
        "stamp": stamp,
        "payload": (export_payload() if payload is None else payload).hex(),
        "expected_public_key": expected_public_key,
        "sandbox": sandbox,
    }
    return case(case_id, "stamp_verify", inputs, expected=result, error=error, comment=comment)


def payload_for_json_length(remainder: int) -> bytes:
    """The first payload 'padding-<i>' whose compact stamp JSON has length = remainder mod 3."""
    for index in itertools.count():
        payload = f"padding-{index}".encode()
        if len(compact_json(stamp_fields("stamp-session", payload))) % 3 == remainder:
            return payload
    raise AssertionError("unreachable")
