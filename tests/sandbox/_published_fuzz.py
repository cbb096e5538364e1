"""The API fuzz's checks of ``ewc serve --names published``: every answer of every served
operation the published document has (found through the served document's paths, so that a
new operation is covered as soon as it is served) is compared with the published document's
schema for that operation and status, errors included:

- the status must be one the published document gives the operation;
- the body must validate against the published schema of that status (``ErrorNNN`` for an
  error; for a status the operation leaves out, the component ``ErrorNNN`` of the status, else
  the published ``GridError``).

What does not hold is a failure unless :data:`DIVERGENCES` names it: by operation (or ``*``),
status, and the service's own code (``details.sandboxCode``) or the body's failing field; each
with its reason (the same list is on the docs page ``sandbox-names.md``).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from ._fuzz_operations import path_shape, resolve_ref

__all__ = ["DIVERGENCES", "STATS", "Grid", "checks", "divergence_of"]

#: (method or ``*``, published path or ``*``, status, the service's code or field) -> why. A
#: key names one narrow case: an answer of this operation and status whose service code
#: (``details.sandboxCode``) is this one, or whose body fails the published schema only at a
#: field of this name.
DIVERGENCES: dict[tuple[str, str, int, str], str] = {
    ("*", "*", 413, "BODY_TOO_LARGE"): (
        "a body over --max-body-size is refused before it is read; the published document has "
        "no 413 (its answer has the published error fields)"
    ),
    ("*", "*", 422, "IDEMPOTENCY_KEY_REUSED"): (
        "an Idempotency-Key sent again with another request; the published document documents "
        "no answer for it (its answer has the published error fields)"
    ),
    ("*", "*", 409, "IDEMPOTENCY_REQUEST_IN_PROGRESS"): (
        "an Idempotency-Key whose first request is still running; the published document "
        "documents no answer for it"
    ),
    ("GET", "/agents/me/actions", 400, "INVALID_INPUT"): (
        "a limit outside 1 to 100, a malformed cursor or an unknown status is refused, as the "
        "published GET /agents/me/transactions documents; the published operation lists no 400"
    ),
    **{
        (method, path, 400, "INVALID_INPUT"): (
            "a request without its required customerId query parameter (or with a malformed "
            "one) is refused as every malformed request is; the published operation lists no 400"
        )
        for method, path in (
            ("GET", "/sca/factors"),
            ("GET", "/sca/factors/reset/{resetId}"),
            ("DELETE", "/sca/factors/{credentialId}"),
        )
    },
    ("GET", "/stablecoins/{stablecoinId}/operations", 400, "INVALID_INPUT"): (
        "a limit outside 1 to 100, a malformed cursor or an unknown operationType is refused, "
        "as the published GET /stablecoins documents; the published operation lists no 400"
    ),
    ("*", "*", 200, "accountOrWalletInfo (unpublished accountType)"): (
        "the sandbox takes any currency code; funding details of a currency the published "
        "document has no payment account variant for are the sandbox's own"
    ),
    ("GET", "/agents/me/internal-accounts", 400, "INVALID_INPUT"): (
        "a limit outside 1 to 100, a cursor this service did not issue or an unknown type is "
        "refused, as the published GET /agents/me/external-accounts documents; the published "
        "operation lists no 400"
    ),
    ("GET", "/uma-providers", 400, "INVALID_INPUT"): (
        "a limit, cursor, sortOrder or hasBlockedProviders that breaks the published schema is "
        "refused, as every other list answers it; the published operation lists no 400"
    ),
    ("POST", "/sandbox/webhooks/test", 403, "FORBIDDEN"): (
        "sandbox-only like every /sandbox operation: 403 in the production environment; the "
        "published operation lists no 403"
    ),
    **{
        ("POST", "/customers/bulk/csv", 400, code): (
            "a file that is not a readable CSV of the published columns (or past the row limit) "
            "is refused before a job is made; the published operation lists no 400"
        )
        for code in (
            "INVALID_INPUT",
            "INVALID_CSV",
            "CSV_EMPTY",
            "CSV_MISSING_COLUMNS",
            "CSV_TOO_MANY_ROWS",
        )
    },
    **{
        (method, path, status, "customerId"): (
            "a platform's own external account has customerId null, as the interface says and "
            "the published description says, where the published type is a string"
        )
        for method, path, status in (
            ("POST", "/platform/external-accounts", 201),
            ("GET", "/platform/external-accounts", 200),
            ("GET", "/platform/external-accounts/{externalAccountId}", 200),
        )
    },
}


class Grid:
    """The published document, its operations by path shape, and validators per status."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.components = document["components"]
        self.operations: dict[tuple[str, str], str] = {}
        for path, item in document["paths"].items():
            for method in item:
                if method in ("get", "put", "post", "patch", "delete"):
                    self.operations[(method.upper(), path_shape(path))] = path

    def published(self, method: str, served_path: str) -> tuple[str, str] | None:
        path = self.operations.get((method.upper(), path_shape(_BASE.sub("", served_path))))
        return None if path is None else (method.upper(), path)

    def statuses(self, method: str, path: str) -> frozenset[str]:
        return _statuses(self, method, path)

    def validator(self, method: str, path: str, status: int, body: Any) -> Any:
        """The validator of the body (of a ``oneOf`` with a discriminator: of the branch the
        body names, so that a failure names its field)."""
        found = _validator(self, method, path, status, "")
        mapping = found[1] if found is not None else None
        if mapping is not None and isinstance(body, dict):
            branch = mapping[1].get(str(body.get(mapping[0])))
            if branch is not None:
                found = _validator(self, method, path, status, branch)
        return None if found is None else found[0]


_BASE = re.compile(r"^/\d{4}-\d{2}-\d{2}")


@cache
def _statuses(grid: Grid, method: str, path: str) -> frozenset[str]:
    operation = grid.document["paths"][path][method.lower()]
    return frozenset(str(status) for status in operation.get("responses", {}))


@cache
def _validator(grid: Grid, method: str, path: str, status: int, branch: str) -> Any:
    """The published body schema's validator of the operation's ``status`` (None: no JSON
    body), with the schema's discriminator (property, mapping) if it has one; an error status
    the operation leaves out: ``ErrorNNN``, else ``GridError``. A ``branch`` (a reference)
    replaces the schema."""
    import jsonschema_rs

    operation = grid.document["paths"][path][method.lower()]
    response = resolve_ref(grid.document, operation.get("responses", {}).get(str(status)))
    if response is not None:
        schema = response.get("content", {}).get("application/json", {}).get("schema")
    elif status >= 400:
        name = f"Error{status}"
        schema = {"$ref": f"#/components/schemas/{name if name in _schemas(grid) else 'GridError'}"}
    else:
        schema = None
    if schema is None:
        return None
    if branch:
        schema = {"$ref": branch}
    resolved = resolve_ref(grid.document, schema)
    discriminator = resolved.get("discriminator") if isinstance(resolved, dict) else None
    mapping = None
    if discriminator and "mapping" in discriminator:
        mapping = (discriminator["propertyName"], discriminator["mapping"])
    validator = jsonschema_rs.Draft202012Validator({**schema, "components": grid.components})
    return validator, mapping


def _schemas(grid: Grid) -> dict[str, Any]:
    schemas: dict[str, Any] = grid.components["schemas"]
    return schemas


def _unpublished_account(grid: Grid, value: Any) -> list[str]:
    """``["accountOrWalletInfo (unpublished accountType)"]`` for payment account details of an
    account type the published document has no variant for."""
    if not isinstance(value, dict) or not isinstance(value.get("accountType"), str):
        return []
    published = _schemas(grid)["PaymentAccountType"].get("enum", [])
    if value["accountType"] in published:
        return []
    return ["accountOrWalletInfo (unpublished accountType)"]


def divergence_of(key: tuple[str, str], status: int, names: list[str]) -> str | None:
    """The reason of the listed divergence that covers this answer, if one does: ``names``
    are the service's code and the fields the published schema failed at."""
    method, path = key
    for name in names:
        for found in (
            (method, path, status, name),
            ("*", path, status, name),
            ("*", "*", status, name),
        ):
            if found in DIVERGENCES:
                return DIVERGENCES[found]
    return None


STATS: dict[str, int] = {}


def _count(name: str) -> None:
    STATS[name] = STATS.get(name, 0) + 1


def published_conformance(grid: Grid, response: Any, case: Any) -> bool | None:
    """The published status and body of the operation (see the module)."""
    key = grid.published(case.method, case.operation.path)
    if key is None:
        return None
    status = response.status_code
    body = response.json() if response.content else None
    code = body.get("details", {}).get("sandboxCode") if isinstance(body, dict) else None
    problems: list[str] = []
    if str(status) not in grid.statuses(*key):
        if divergence_of(key, status, [str(code)]) is None:
            listed = sorted(grid.statuses(*key))
            problems.append(f"status {status} is not in the published {listed}")
        else:
            _count("published divergences (listed status)")
    validator = grid.validator(*key, status, body)
    if validator is not None and body is not None:
        for error in validator.iter_errors(body):
            fields = [str(part) for part in error.instance_path if isinstance(part, str)]
            names = [str(code), *fields[-1:], *_unpublished_account(grid, error.instance)]
            if divergence_of(key, status, names) is None:
                problems.append(f"/{'/'.join(map(str, error.instance_path))}: {error.message}")
            else:
                _count("published divergences (listed field)")
    assert not problems, f"{key} {status} ({code}) breaks the published document: {problems[:3]}"
    _count("responses validated (published document, published names)")
    return True


def published_error_shape(ctx: Any, response: Any, case: Any) -> bool | None:
    """A status the service's document gives the operation, or an error in the published
    shape ``{status, code, message, details}``."""
    if response.status_code < 400:
        return status_code_conformance(ctx, response, case)
    body = response.json()
    assert isinstance(body, dict) and {"status", "code", "message"} <= set(body), body
    assert set(body) <= {"status", "code", "message", "details"}, body
    assert body["status"] == response.status_code, body
    assert isinstance(body["message"], str) and body["message"], body
    return True


def own_schema(ctx: Any, response: Any, case: Any) -> bool | None:
    """The content type and body schema of the served document, where it has the status."""
    if str(response.status_code) not in case.operation.responses.status_codes:
        return None
    content_type_conformance(ctx, response, case)
    response_schema_conformance(ctx, response, case)
    _count("responses validated (own document, published names)")
    return True


def checks(grid: Grid) -> list[Any]:
    """The checks of a ``--names published`` server."""

    def published(ctx: Any, response: Any, case: Any) -> bool | None:
        return published_conformance(grid, response, case)

    published.__name__ = "published_conformance"
    return [
        not_a_server_error,
        published_error_shape,
        own_schema,
        published,
        negative_data_rejection,
    ]
