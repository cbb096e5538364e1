"""The service's error codes as the published document's, in one table (``--names published``).

The published document gives each error status a schema (``Error400``, ``Error401``, ...) with
``status``, ``message``, a ``code`` from a fixed list per status, and free ``details``. With
``--names published`` the service's ``{"status", "code", "reason"}`` is answered as
:func:`published_error` makes it:

- ``message``: the service's ``reason``;
- ``code``: :data:`MAPPED` for the service's code at that status; else the code itself when the
  published list of that status has it; else the status's default (:data:`DEFAULTS`);
- ``details``: ``{"sandboxCode": <the service's own code>}``, so that nothing is lost.

A plain ``NOT_FOUND`` for the id in the path of a quote, a transaction or an invitation
(``/quotes/{quoteId}``, ``/agents/me/transactions/{transactionId}/...``) is that resource's
published code (:data:`NOT_FOUND_IN_PATH`); any other is ``REFERENCE_NOT_FOUND``.

An id in a request's body that names nothing is 404 in the service (``interface`` mode); the
published operations that take such ids answer 400 for it, so with ``--names published`` a 404
of an operation of :data:`BODY_ID_OPERATIONS` with one of its codes is answered 400
``INVALID_INPUT`` (:func:`published_status`).

A status the published document has no error schema for (408, 413, 422) keeps the service's
code, in the same shape (the published ``GridError``: ``code``, ``message``, ``details``).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "BODY_ID_OPERATIONS",
    "DEFAULTS",
    "MAPPED",
    "NOT_FOUND_IN_PATH",
    "PUBLISHED_CODES",
    "published_code",
    "published_error",
    "published_status",
]

#: The published codes of each error status the service answers (the enums of the published
#: ``ErrorNNN`` schemas; the API fuzz checks them against the document).
PUBLISHED_CODES: dict[int, frozenset[str]] = {
    400: frozenset(
        {
            "INVALID_INPUT",
            "MISSING_MANDATORY_USER_INFO",
            "INVITATION_ALREADY_CLAIMED",
            "INVALID_UMA_ADDRESS",
            "INVITATION_CANCELLED",
            "INVALID_RECEIVER",
            "AMOUNT_OUT_OF_RANGE",
            "INVALID_CURRENCY",
            "INVALID_REQUEST_FORMAT",
            "INVALID_BANK_ACCOUNT",
            "SELF_PAYMENT",
            "INVALID_AMOUNT",
            "EXPIRED",
            "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS",
            "SMS_OTP_CREDENTIAL_ALREADY_EXISTS",
            "PASSKEY_CREDENTIAL_ALREADY_EXISTS",
            "TRANSACTION_SIZE_LIMIT_EXCEEDED",
        }
    ),
    401: frozenset(
        {
            "UNAUTHORIZED",
            "INVALID_SIGNATURE",
            "WALLET_SIGNATURE_MISSING",
            "WALLET_SIGNATURE_MALFORMED",
            "WALLET_SIGNATURE_BODY_MISMATCH",
            "WALLET_SIGNATURE_INVALID",
            "REQUEST_ID_MISSING",
        }
    ),
    403: frozenset({"FORBIDDEN", "USER_NOT_READY", "VELOCITY_LIMIT_EXCEEDED"}),
    404: frozenset(
        {
            "TRANSACTION_NOT_FOUND",
            "INVITATION_NOT_FOUND",
            "USER_NOT_FOUND",
            "QUOTE_NOT_FOUND",
            "LOOKUP_REQUEST_NOT_FOUND",
            "TOKEN_NOT_FOUND",
            "REFERENCE_NOT_FOUND",
            "UMA_NOT_FOUND",
        }
    ),
    405: frozenset({"METHOD_NOT_ALLOWED"}),
    409: frozenset(
        {
            "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL",
            "UMA_ADDRESS_EXISTS",
            "EMAIL_OTP_EMAIL_ALREADY_EXISTS",
            "CONFLICT",
        }
    ),
    410: frozenset({"CUSTOMER_DELETED"}),
    423: frozenset({"ACCOUNT_LOCKED"}),
    429: frozenset({"RATE_LIMITED", "DAILY_VOLUME_LIMIT_EXCEEDED"}),
    500: frozenset({"INTERNAL_ERROR"}),
    501: frozenset({"NOT_IMPLEMENTED"}),
    503: frozenset({"SERVICE_UNAVAILABLE"}),
}

#: The published code of a status when neither :data:`MAPPED` nor the published list has the
#: service's code.
DEFAULTS: dict[int, str] = {
    400: "INVALID_INPUT",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "REFERENCE_NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    409: "CONFLICT",
    410: "CUSTOMER_DELETED",
    423: "ACCOUNT_LOCKED",
    429: "RATE_LIMITED",
    500: "INTERNAL_ERROR",
    501: "NOT_IMPLEMENTED",
    503: "SERVICE_UNAVAILABLE",
}

#: (status, the service's code) -> the published code, for every code the service answers that
#: the published list of its status does not have (a test scans the sandbox's source for them).
MAPPED: dict[tuple[int, str], str] = {
    # The SCA, delegated-key, card, stablecoin and control-plane operations' own refusals:
    # the published lists of these operations name no finer code.
    **{
        (400, code): "INVALID_INPUT"
        for code in (
            "CARDHOLDER_KYC_NOT_APPROVED",
            "CHALLENGE_NOT_FOUND",
            "CLOCK_LIMIT_REACHED",
            "CONTACT_MISSING",
            "DELEGATED_KEY_NOT_ACTIVE",
            "ENROLLMENT_NOT_FOUND",
            "FACTOR_NOT_ENROLLED",
            "FUNDING_SOURCE_INELIGIBLE",
            "INSUFFICIENT_SUPPLY",
            "INVALID_CLOCK_ADVANCE",
            "INVALID_STATE",
            "NO_PENDING_CHALLENGE",
            "OPERATION_NOT_FAULTABLE",
            "ORIGIN_NOT_ALLOWED",
            "PHONE_NUMBER_MISSING",
            "RESET_NOT_READY",
            "STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED",
            "UNKNOWN_OPERATION",
            "UNSUPPORTED_FAULT_STATUS",
        )
    },
    **{
        (409, code): "CONFLICT"
        for code in (
            "ALREADY_VERIFIED",
            "CARD_ALREADY_CLOSED",
            "CARD_NOT_MUTABLE",
            "COLLECTION_LIMIT_REACHED",
            "CONTACT_CHANGED",
            "CONTACT_VERIFICATION_NOT_REQUIRED",
            "DELEGATED_KEY_ALREADY_ACTIVE",
            "INVALID_STATE_TRANSITION",
            "NO_PENDING_CHALLENGE",
            "RESET_ALREADY_COMPLETED",
            "SCA_NOT_REQUIRED",
        )
    },
    **{
        (400, code): "INVALID_INPUT"
        for code in (
            "CLIENT_PUBLIC_KEY_REUSED",
            "DEVICE_CODE_USED",
            "EVENT_TYPE_NOT_SUPPORTED",
            "IMMEDIATE_EXECUTION_NOT_SUPPORTED",
            "INVALID_EVENT_TYPE",
            "INVITATION_NOT_PENDING",
            "PASSKEY_CHALLENGE_USED",
            "QUOTE_NEEDS_FUNDING",
            "TRANSACTION_NOT_CANCELLABLE_TYPE",
            "UNSUITABLE_DOCUMENT",
            "WEBHOOK_DELIVERY_FAILED",
            "WEBHOOK_ENDPOINT_NOT_SET",
        )
    },
    **{
        (400, code): "INVALID_REQUEST_FORMAT"
        for code in ("CSV_EMPTY", "CSV_MISSING_COLUMNS", "CSV_TOO_MANY_ROWS", "INVALID_CSV")
    },
    (400, "BALANCE_LIMIT_EXCEEDED"): "AMOUNT_OUT_OF_RANGE",
    (400, "INSUFFICIENT_FUNDS"): "INVALID_AMOUNT",
    (400, "MISSING_MANDATORY_PAYEE_DATA"): "MISSING_MANDATORY_USER_INFO",
    (400, "SAME_CURRENCY"): "INVALID_CURRENCY",
    (400, "UMA_ADDRESS_NOT_FOUND"): "INVALID_UMA_ADDRESS",
    **{
        (403, code): "FORBIDDEN"
        for code in (
            "AGENT_PAUSED",
            "PERMISSION_NOT_HELD",
            "POLICY_ACCOUNT_NOT_ALLOWED",
            "POLICY_PERMISSION_DENIED",
        )
    },
    **{
        (404, code): "REFERENCE_NOT_FOUND"
        for code in (
            "ACTION_NOT_FOUND",
            "AGENT_NOT_FOUND",
            "BULK_UPLOAD_JOB_NOT_FOUND",
            "EVENT_NOT_FOUND",
            "FUNDING_SOURCE_NOT_FOUND",
            "VERIFICATION_NOT_FOUND",
        )
    },
    **{
        (409, code): "CONFLICT"
        for code in (
            "ACTION_NOT_PENDING",
            "AGENT_CONNECTED",
            "EVENT_IN_PROGRESS",
            "IDEMPOTENCY_REQUEST_IN_PROGRESS",
            "NO_OWNERSHIP_CHALLENGE",
            "OWNERSHIP_VERIFICATION_NOT_APPLICABLE",
            "QUOTE_ALREADY_EXECUTED",
            "QUOTE_EXPIRED",
            "QUOTE_PENDING_APPROVAL",
            "QUOTE_PENDING_AUTHORIZATION",
            "TRANSACTION_NOT_CANCELLABLE",
        )
    },
    (400, "UNSUPPORTED_CURRENCY"): "INVALID_CURRENCY",
    (400, "CURRENCY_MISMATCH"): "INVALID_CURRENCY",
    (400, "POLICY_CURRENCY_UNSUPPORTED"): "INVALID_CURRENCY",
    (400, "AMOUNT_TOO_SMALL"): "AMOUNT_OUT_OF_RANGE",
    (400, "AMOUNT_TOO_LARGE"): "AMOUNT_OUT_OF_RANGE",
    (400, "INVALID_ACCOUNT"): "INVALID_BANK_ACCOUNT",
    (400, "DEVICE_CODE_EXPIRED"): "EXPIRED",
    (400, "OTP_EXPIRED"): "EXPIRED",
    (401, "WALLET_SIGNATURE_KEY_MISMATCH"): "WALLET_SIGNATURE_INVALID",
    (401, "REQUEST_ID_UNKNOWN"): "UNAUTHORIZED",
    (403, "POLICY_LIMIT_EXCEEDED"): "VELOCITY_LIMIT_EXCEEDED",
    (404, "NOT_FOUND"): "REFERENCE_NOT_FOUND",
    (404, "CUSTOMER_NOT_FOUND"): "USER_NOT_FOUND",
    (404, "UMA_ADDRESS_NOT_FOUND"): "UMA_NOT_FOUND",
    (404, "DEVICE_CODE_NOT_FOUND"): "TOKEN_NOT_FOUND",
    (409, "TRANSACTION_NOT_AWAITING_APPROVAL"): "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL",
    (429, "OTP_RATE_LIMITED"): "RATE_LIMITED",
    (503, "STORE_UNAVAILABLE"): "SERVICE_UNAVAILABLE",
}


#: The collection before the id in a request's path -> the published code of a plain
#: ``NOT_FOUND`` answer to it.
NOT_FOUND_IN_PATH: dict[str, str] = {
    "quotes": "QUOTE_NOT_FOUND",
    "transactions": "TRANSACTION_NOT_FOUND",
    "invitations": "INVITATION_NOT_FOUND",
}
_PATH_ID = re.compile(r"/(quotes|transactions|invitations)/[^/]+(?:/[a-z-]+)?$")


#: (method, path after the base path) of a published operation that answers 400 for an id in
#: its body that names nothing -> the service's 404 codes for such an id there.
BODY_ID_OPERATIONS: dict[tuple[str, str], frozenset[str]] = {
    ("POST", "/quotes"): frozenset({"NOT_FOUND", "LOOKUP_REQUEST_NOT_FOUND"}),
    ("POST", "/agents/me/quotes"): frozenset({"NOT_FOUND", "LOOKUP_REQUEST_NOT_FOUND"}),
    ("POST", "/agents"): frozenset({"NOT_FOUND", "CUSTOMER_NOT_FOUND"}),
    ("POST", "/customers/external-accounts"): frozenset({"NOT_FOUND", "CUSTOMER_NOT_FOUND"}),
}
_BASE = re.compile(r"^/\d{4}-\d{2}-\d{2}")


def published_status(status: int, code: str, method: str = "", path: str = "") -> int:
    """The status ``--names published`` answers for the service's ``status`` and ``code`` to
    ``method path``: 400 for an id in the body that names nothing (:data:`BODY_ID_OPERATIONS`),
    else ``status``."""
    if status == 404:
        codes = BODY_ID_OPERATIONS.get((method.upper(), _BASE.sub("", path, count=1)))
        if codes is not None and code in codes:
            return 400
    return status


def published_code(status: int, code: str, path: str = "") -> str:
    """The published code of the service's ``code`` at ``status`` (see the module), for a
    request to ``path``."""
    if (status, code) == (404, "NOT_FOUND") and (found := _PATH_ID.search(path)):
        return NOT_FOUND_IN_PATH[found.group(1)]
    mapped = MAPPED.get((status, code))
    if mapped is not None:
        return mapped
    published = PUBLISHED_CODES.get(status)
    if published is None or code in published:
        return code
    return DEFAULTS[status]


def published_error(body: dict[str, Any], path: str = "", method: str = "") -> dict[str, Any]:
    """The published error body of the service's ``{"status", "code", "reason"}`` answered to
    a request ``method path`` (its status as :func:`published_status` makes it)."""
    code = str(body["code"])
    status = published_status(int(body["status"]), code, method, path)
    return {
        "status": status,
        "code": published_code(status, code, path),
        "message": str(body["reason"]),
        "details": {"sandboxCode": code},
    }
