"""The parameters of :data:`Operation.UPDATE_INTERNAL_ACCOUNT` (``PATCH /internal-accounts/{id}``),
built one way so that both legs of the signed retry (and every server) write the same payload
for the same request body.

The published interface's challenge for this update is an ``ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2``
activity signed with the wallet: its raw payload here is the SHA-256 of the update fields as
compact JSON with sorted keys, hex-encoded (``PAYLOAD_ENCODING_HEXADECIMAL``, no further hash:
``HASH_FUNCTION_NO_OP``). A retry whose body differs in any field rebuilds another digest, so
``SignedRetry.verify(expected_parameters=...)`` refuses it with ``REQUEST_MISMATCH``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ..errors import SignedRetryError
from ._operations import canonical_json

__all__ = ["INTERNAL_ACCOUNT_UPDATE_FIELDS", "internal_account_update"]

#: The update fields of ``InternalAccountUpdateRequest`` and the type each takes.
INTERNAL_ACCOUNT_UPDATE_FIELDS: Mapping[str, type] = {"privateEnabled": bool}
_MAX_WALLET_ID = 200


def _invalid(reason: str) -> SignedRetryError:
    return SignedRetryError(reason, "INVALID_PARAMETERS", 400)


def internal_account_update(*, wallet_id: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of :data:`Operation.UPDATE_INTERNAL_ACCOUNT`
    (``ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2``): ``signWith`` the wallet ``wallet_id``, ``payload``
    the hex SHA-256 of ``fields`` as compact JSON with sorted keys.

    Args:
        wallet_id: the internal account (its wallet) that signs; 1 to 200 characters.
        fields: at least one update field of :data:`INTERNAL_ACCOUNT_UPDATE_FIELDS`, each of
            its type (``{"privateEnabled": True}``); fields left out are not bound.

    Raises:
        SignedRetryError: ``INVALID_PARAMETERS`` (400): no field, an unknown field, or a value
            of the wrong type.
    """
    if not isinstance(wallet_id, str) or not 0 < len(wallet_id) <= _MAX_WALLET_ID:
        raise _invalid(f"wallet_id must be 1 to {_MAX_WALLET_ID} characters of text")
    if not isinstance(fields, Mapping) or not fields:
        raise _invalid(
            f"fields must name at least one of {', '.join(INTERNAL_ACCOUNT_UPDATE_FIELDS)}"
        )
    for name, value in fields.items():
        kind = INTERNAL_ACCOUNT_UPDATE_FIELDS.get(name) if isinstance(name, str) else None
        if kind is None:
            raise _invalid(
                f"{name!r} is not an update field; expected "
                f"{', '.join(INTERNAL_ACCOUNT_UPDATE_FIELDS)}"
            )
        if type(value) is not kind:
            raise _invalid(f"fields.{name} must be a {kind.__name__}")
    digest = hashlib.sha256(canonical_json(dict(fields)).encode()).hexdigest()
    return {
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
        "payload": digest,
        "signWith": wallet_id,
    }
