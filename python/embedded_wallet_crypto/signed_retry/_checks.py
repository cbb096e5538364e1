"""The guarded checks of ``SignedRetry``, one per refusal code (service interface,
Authentication rule 8): the caller's own arguments (400), then, for leg two, the headers, the
stored record, the request the id was issued for, the signing session and its credential, and
the bound client key (401). Each raises its own code; none claims anything."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._types import KeyLike
from ..errors import SignedRetryError, StampError
from ..keys import same_public_key
from ..stores import ChallengeRecord, StoreError
from ._credentials import SessionKeys, session_credentials
from ._operations import CREDENTIAL_TYPES, Operation, canonical_json, resolve_operation

__all__ = [
    "check_bound_key",
    "check_lifetimes",
    "check_other_credential",
    "check_payload_request",
    "check_same_request",
    "check_usable",
    "empty",
    "expected_request",
    "fail",
    "is_unicode",
    "session_credential",
    "stored_request",
]


MAX_PAYLOAD_LENGTH = 64 * 1024
MAX_SECONDS = 10**9  # about 30 years


def fail(reason: str, code: str, status: int = 401) -> SignedRetryError:
    return SignedRetryError(reason, code, status)


def is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def empty(header: object) -> bool:
    """An empty header; never ``bool()`` of another object (a released memoryview raises)."""
    return isinstance(header, (str, bytes, bytearray)) and not header


def check_lifetimes(ttl_seconds: float, keep_expired_seconds: float) -> None:
    if not ttl_seconds > 0 or not keep_expired_seconds >= 0:
        raise fail(
            "ttl_seconds must be positive and keep_expired_seconds not negative",
            "INVALID_PARAMETERS",
            400,
        )
    if not (ttl_seconds <= MAX_SECONDS and keep_expired_seconds <= MAX_SECONDS):
        raise fail(  # infinity or a huge number overflows the millisecond times
            f"ttl_seconds and keep_expired_seconds must be at most {MAX_SECONDS}",
            "INVALID_PARAMETERS",
            400,
        )


def check_payload_request(
    account_id: object, payload_to_sign: object, credential_type: object
) -> None:
    """The arguments of ``issue_payload``."""
    if not isinstance(account_id, str) or not account_id:
        raise fail("account_id must be a non-empty string", "INVALID_PARAMETERS", 400)
    if (
        not isinstance(payload_to_sign, str)
        or not 0 < len(payload_to_sign) <= MAX_PAYLOAD_LENGTH
        or not is_unicode(payload_to_sign)
    ):
        raise fail(
            f"payload_to_sign must be Unicode text of 1 to {MAX_PAYLOAD_LENGTH} characters",
            "INVALID_PARAMETERS",
            400,
        )
    if credential_type is not None and credential_type not in CREDENTIAL_TYPES:
        raise fail(
            f"credential_type must be one of {', '.join(CREDENTIAL_TYPES)}",
            "INVALID_PARAMETERS",
            400,
        )


def expected_request(
    expected_operation: Operation | str | None, expected_parameters: object
) -> Operation | None:
    """The request ``verify`` is told to expect, checked before any header is read:
    ``UNKNOWN_OPERATION`` or ``INVALID_PARAMETERS`` (400) for one that cannot be."""
    if expected_parameters is not None:
        if not isinstance(expected_parameters, Mapping):
            raise fail("expected_parameters must be an object", "INVALID_PARAMETERS", 400)
        canonical_json(expected_parameters)
    return None if expected_operation is None else resolve_operation(expected_operation)


def stored_request(record: ChallengeRecord) -> tuple[Operation, dict[str, Any]]:
    """The operation and the parameters exactly as signed; STORE_CORRUPT (500) if unreadable."""
    try:
        parameters = json.loads(record.payload_to_sign)["parameters"]
        operation = Operation[record.operation]
    except (KeyError, TypeError, ValueError):
        parameters = None
    if not isinstance(parameters, dict):
        raise StoreError("a stored signed-retry challenge is corrupt", "STORE_CORRUPT", 500)
    return operation, parameters


def check_usable(record: ChallengeRecord, now_ms: int) -> None:
    if record.claimed:
        raise fail("the request id has already been used", "REQUEST_ID_USED")
    if now_ms >= record.expires_at_ms:
        raise fail("the signed-retry challenge has expired", "REQUEST_ID_EXPIRED")


def check_same_request(
    operation: Operation,
    parameters: Mapping[str, Any],
    expected_operation: Operation | None,
    expected_parameters: Mapping[str, Any] | None,
) -> None:
    """The retry repeats the request its id was issued for (``REQUEST_MISMATCH``).

    The parameters must serialize to exactly those signed. For export and refresh the signed
    ``targetPublicKey`` is the bound key, which :func:`check_bound_key` checks against the
    retry's ``clientPublicKey``: it may be left out of ``expected_parameters``, and when given
    it must be the same key in either encoding.
    """
    mismatch = fail(
        "the request id was issued for a different request; repeat the identical request",
        "REQUEST_MISMATCH",
    )
    if expected_operation is not None and expected_operation is not operation:
        raise mismatch
    if expected_parameters is None:
        return
    expected, signed = dict(expected_parameters), dict(parameters)
    if operation.binds_client_key:
        target, bound = expected.pop("targetPublicKey", None), signed.pop("targetPublicKey", None)
        if target is not None and not (
            isinstance(target, str) and isinstance(bound, str) and same_public_key(target, bound)
        ):
            raise mismatch
    if canonical_json(expected) != canonical_json(signed):
        raise mismatch


def check_bound_key(record: ChallengeRecord, client_public_key: KeyLike | None) -> None:
    bound = record.bound_client_public_key
    if bound is None:
        return
    if client_public_key is None:
        raise fail(
            "the retry carries no clientPublicKey; it must repeat the bound one",
            "CLIENT_PUBLIC_KEY_MISMATCH",
        )
    # The bound text was validated at issue, so the very same text needs no parse again.
    if client_public_key != bound and not same_public_key(client_public_key, bound):
        raise fail(
            "the retry's clientPublicKey differs from the one bound in step 1",
            "CLIENT_PUBLIC_KEY_MISMATCH",
        )


def session_credential(public_key: str, account_session_keys: SessionKeys) -> str | None:
    sessions = session_credentials(account_session_keys)
    if public_key not in sessions:
        raise StampError(
            "the stamp was not made by an active session key of the account",
            "WALLET_SIGNATURE_KEY_MISMATCH",
            401,
        )
    return sessions[public_key]


def check_other_credential(credential_id: str | None, revoking: list[str]) -> None:
    if credential_id is None:
        raise fail(
            "revoking a credential needs to know which credential issued the signing "
            "session: pass account_session_keys as a mapping key -> credential id",
            "SESSION_CREDENTIAL_UNKNOWN",
        )
    if credential_id in revoking:
        raise fail(
            "revoking a credential needs a session of a different credential",
            "SESSION_OF_REVOKED_CREDENTIAL",
        )
