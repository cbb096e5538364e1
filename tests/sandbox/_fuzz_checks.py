"""The API fuzz's checks of the interface's names: what every response must be.

- ``service_status_conformance``: a status the service's own document gives the operation, or
  an error in the service's shape ``{status, code, reason}``;
- ``own_schema_conformance``: the content type and body schema of the service's document, where
  it documents the status;
- ``grid_conformance``: where the published document has the operation, a status it documents
  and, for a success, its body schema (the interface's ``serviceApi*`` rate fields under their
  published ``gridApi*`` names, ``RENAMED``); the exceptions, where the interface differs, are
  listed with their reason (``GRID_STATUS_EXEMPT`` by operation, ``GRID_BODY_EXEMPT`` by
  operation, ``GRID_FIELD_EXEMPT`` by field value). The error body is never compared.

``CHECKS`` is the list (with Schemathesis's own ``not_a_server_error`` and
``negative_data_rejection``), ``CONFIG`` the Schemathesis configuration, and ``STATS`` the counts
the run reports (``_count``). The checks of ``--names published`` are ``_published_fuzz``'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from ._fuzz_operations import (
    _grid_document,
    _grid_path,
    _grid_statuses,
    _grid_validator,
    _published,
)

#: Statuses some shared operations answer although the published document leaves them out
#: of those operations: (method, path) -> (statuses, why).
_UNKNOWN_ID_IN_BODY = (
    "an id in the body that names no resource is 404 NOT_FOUND, the service's answer for a "
    "missing resource everywhere (the interface's Errors table leaves this status open)"
)
_KEY_REUSED = (
    "an Idempotency-Key reused with another request is 422 IDEMPOTENCY_KEY_REUSED, as on every "
    "operation that takes the key"
)
_KEY_TAKEN = (
    "the service also takes an Idempotency-Key here (a retried decision gets its first answer); "
    "a key reused with another request is 422 IDEMPOTENCY_KEY_REUSED, one still in use 409 "
    "IDEMPOTENCY_REQUEST_IN_PROGRESS"
)
_NO_CUSTOMER_ID = (
    "a request without its required customerId query parameter is 400 INVALID_INPUT, as every "
    "malformed request (the published document leaves 400 out of this operation)"
)
_CODES_LIMITED = (
    "a one-time code is sent at most once every 30 seconds (429 OTP_RATE_LIMITED with "
    "Retry-After), and a customer without the phone or email is 400; the published document "
    "leaves these out of this operation"
)
GRID_STATUS_EXEMPT: dict[tuple[str, str], tuple[tuple[int, ...], str]] = {
    ("POST", "/sandbox/webhooks/test"): (
        (403,),
        "sandbox-only like every /sandbox operation: 403 in production after the credentials",
    ),
    ("GET", "/sca/factors"): ((400,), _NO_CUSTOMER_ID),
    ("GET", "/sca/factors/reset/{resetId}"): ((400,), _NO_CUSTOMER_ID),
    ("DELETE", "/sca/factors/{credentialId}"): ((400,), _NO_CUSTOMER_ID),
    ("POST", "/sca/login/start"): ((429,), _CODES_LIMITED),
    ("POST", "/customers/external-accounts/{externalAccountId}/trust"): ((429,), _CODES_LIMITED),
    ("POST", "/customers/external-accounts/{externalAccountId}/untrust"): (
        (429,),
        _CODES_LIMITED,
    ),
    ("POST", "/customers/{customerId}/verify-email"): ((400, 429), _CODES_LIMITED),
    ("POST", "/customers/{customerId}/verify-phone"): ((400, 429), _CODES_LIMITED),
    ("POST", "/quotes"): ((404,), _UNKNOWN_ID_IN_BODY),
    ("POST", "/agents/me/quotes"): ((404,), _UNKNOWN_ID_IN_BODY),
    ("POST", "/agents"): ((404,), _UNKNOWN_ID_IN_BODY),
    ("POST", "/customers/external-accounts"): ((404,), _UNKNOWN_ID_IN_BODY),
    ("GET", "/uma-providers"): (
        (400,),
        "a limit, cursor, sortOrder or hasBlockedProviders that breaks the published schema is "
        "400 INVALID_INPUT, as every other list answers it (the published operation lists no "
        "400)",
    ),
    ("GET", "/agents/me/actions"): (
        (400,),
        "a limit outside the interface's 1 to 100 (or an unknown status) is 400 INVALID_INPUT, "
        "as the published /agents/me/transactions documents",
    ),
    ("GET", "/agents/me/internal-accounts"): (
        (400,),
        "a limit outside 1 to 100, a cursor this service did not issue or an unknown type is "
        "400 INVALID_INPUT, as the published /agents/me/external-accounts documents",
    ),
    ("POST", "/customers/bulk/csv"): (
        (400, 413),
        "the published document lists no error but 401 for the upload; a body that is not a "
        "readable CSV file (or past the row limit) is 400, past the body size limit 413",
    ),
    ("POST", "/customers/{customerId}/kyc-link"): ((422,), _KEY_REUSED),
    ("POST", "/transactions/{transactionId}/reject"): ((422,), _KEY_TAKEN),
    ("POST", "/transactions/{transactionId}/cancel"): ((422,), _KEY_TAKEN),
    ("POST", "/transactions/{transactionId}/confirm"): ((409, 422), _KEY_TAKEN),
    ("GET", "/stablecoins/{stablecoinId}/operations"): (
        (400,),
        "a limit outside 1 to 100, a malformed cursor or an unknown operationType is 400 "
        "INVALID_INPUT, as the published GET /stablecoins documents",
    ),
    **{
        ("POST", path): (
            (422,),
            "an Idempotency-Key (required here) sent again with another request is 422 "
            "IDEMPOTENCY_KEY_REUSED, as for every keyed operation",
        )
        for path in (
            "/stablecoins",
            "/stablecoins/{stablecoinId}/mints",
            "/stablecoins/{stablecoinId}/burns",
            "/stablecoin-provider-accounts",
        )
    },
}

#: Shared operations whose success body is not compared with the published schema, and why
#: (none now: a customer's address and businessInfo are the published objects).
GRID_BODY_EXEMPT: dict[tuple[str, str], str] = {}

#: Fields of success bodies left out of the comparison where their value is one the interface
#: gives and the published document does not: field -> (which values, why).
GRID_FIELD_EXEMPT: dict[str, tuple[Callable[[Any], bool], str]] = {
    "accountInfo": (
        lambda value: value.get("beneficiary", {}).get("beneficiaryType", "BUSINESS") == "BUSINESS",
        "the interface makes an external account's beneficiary optional and names a business "
        "beneficiary by fullName; the published document requires a beneficiary, and a business "
        "by legalName",
    ),
    "customerId": (
        lambda value: value is None,
        "a platform-owned external account has customerId null, as the interface says",
    ),
    "accountOrWalletInfo": (
        lambda value: not _has_published_variant(value.get("accountType", "")),
        "the service takes any currency code; where the published document has no account "
        "variant for it, the sandbox's funding details are its own",
    ),
}

#: The interface's names of published fields (compared under the published name).
RENAMED = {
    "serviceApiMultiplier": "gridApiMultiplier",
    "serviceApiFixedFee": "gridApiFixedFee",
    "serviceApiVariableFeeRate": "gridApiVariableFeeRate",
    "serviceApiVariableFeeAmount": "gridApiVariableFeeAmount",
}


def _has_published_variant(account_type: str) -> bool:
    """Whether the published document has payment account details of this type."""
    code, _, kind = account_type.partition("_")
    schemas = _grid_document()["components"]["schemas"]
    return kind != "ACCOUNT" or f"Payment{code.title()}AccountInfo" in schemas


STATS: dict[str, int] = {}


def _count(name: str) -> None:
    STATS[name] = STATS.get(name, 0) + 1


# --- the checks ---------------------------------------------------------------------------------


def service_status_conformance(ctx: Any, response: Any, case: Any) -> bool | None:
    """A status the service's document gives the operation, or an error in the service's
    shape (the document need not list every error status of every operation)."""
    if response.status_code < 400:
        return status_code_conformance(ctx, response, case)
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"status", "code", "reason"}, body
    assert body["status"] == response.status_code, body
    assert isinstance(body["code"], str) and re.fullmatch(r"[A-Z][A-Z0-9_]*", body["code"]), body
    assert isinstance(body["reason"], str) and body["reason"], body
    return True


def own_schema_conformance(ctx: Any, response: Any, case: Any) -> bool | None:
    """The content type and body schema of the service's document, where it documents the
    status (counted)."""
    documented = case.operation.responses.status_codes
    if str(response.status_code) not in documented:
        return None
    content_type_conformance(ctx, response, case)
    response_schema_conformance(ctx, response, case)
    _count("responses validated (own document)")
    return True


def grid_conformance(ctx: Any, response: Any, case: Any) -> bool | None:
    """A status the published document gives the operation, and the published success body."""
    if _grid_path() is None:
        return None
    key = _published(case.method, case.operation.path)
    if key is None:
        return None
    status = response.status_code
    exempt, _ = GRID_STATUS_EXEMPT.get(key, ((), ""))
    assert str(status) in _grid_statuses(*key) or status in exempt, (
        f"{key}: status {status} is not in the published {sorted(_grid_statuses(*key))}"
    )
    if status >= 400 or key in GRID_BODY_EXEMPT:
        return True
    validator = _grid_validator(*key, status)
    if validator is not None:
        body = _published_names(response.json())
        errors = [
            error.message for error in validator.iter_errors(body) if not _exempt(body, error)
        ]
        assert not errors, f"{key} {status} breaks the published schema: {errors[:3]}"
    _count("responses validated (published document)")
    return True


def _published_names(body: Any) -> Any:
    """``body`` with the interface's field names (``RENAMED``) replaced by the published ones."""
    if isinstance(body, dict):
        return {RENAMED.get(key, key): _published_names(value) for key, value in body.items()}
    if isinstance(body, list):
        return [_published_names(value) for value in body]
    return body


def _exempt(body: Any, error: Any) -> bool:
    """The error is about a field value ``GRID_FIELD_EXEMPT`` leaves out."""
    path = list(error.instance_path)
    if not path or path[-1] not in GRID_FIELD_EXEMPT:
        return False
    value = body
    for part in path:
        value = value[part]
    which, _ = GRID_FIELD_EXEMPT[path[-1]]
    return which(value)


CHECKS = [
    not_a_server_error,
    service_status_conformance,
    own_schema_conformance,
    grid_conformance,
    negative_data_rejection,
]

#: Every request carries its operation's valid credentials (the security requirement is not
#: one of the things a negative case breaks), so that a negative case reaches validation; it
#: must then be refused with a client error (``negative_data_rejection``; a 5xx is never one).
CONFIG = SchemathesisConfig.from_dict(
    {
        "generation": {"with-security-parameters": False},
        "checks": {
            "negative_data_rejection": {
                "expected-statuses": [
                    *("400", "401", "403", "404", "405", "406", "409"),
                    *("413", "415", "422", "428", "429"),
                ]
            }
        },
    }
)
