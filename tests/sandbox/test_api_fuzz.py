"""Schemathesis over the sandbox service's whole OpenAPI document, over real HTTP.

A real ``ewc serve`` process (SQLite), once in the sandbox and once in the production
environment, serves ``/2025-10-13/openapi.json``; Schemathesis generates requests for every
operation in it (valid and invalid bodies, queries, headers and path parameters), first with
random ids, then with the ids of real resources made beforehand (a customer and its wallet,
fiat accounts, credential and session, external accounts, a quote and its transaction, an agent
with its Bearer token, its quote, action and transaction, a device code, an invitation and a
verification), each with the operation's own authentication (HTTP Basic for the platform, the
agent's Bearer token under ``/agents/me``, none to redeem a device code). Every response must:

- not be a server error (no 5xx);
- be a status the service's own document gives the operation (then conform to its content
  type and body schema), or an error in the service's shape ``{status, code, reason}``;
- where the real service's published OpenAPI has the operation, be a status it documents and,
  for a success, validate against its body schema (the interface's ``serviceApi*`` rate fields
  under their published ``gridApi*`` names); the exceptions, where the interface differs, are
  listed with their reason (``GRID_STATUS_EXEMPT`` by operation, ``GRID_BODY_EXEMPT`` by
  operation, ``GRID_FIELD_EXEMPT`` by field value). The error body is never compared: the
  interface's is ``{status, code, reason}``, the published one ``{status, code, message}``.

Each environment runs twice: with the interface's names (the checks above), and with ``ewc serve
--names published``, where every answer of every served operation the published document has,
errors included, is compared with that operation's published status and schema, with no
exemption beyond the named list ``_published_fuzz.DIVERGENCES`` (documented in
``docs/sandbox-names.md``).

``test_the_operations_are_the_expected_ones`` pins the served operations: those the published
document shares, plus the sandbox-only ``GET /sandbox/webhook-public-key`` and the events tools
(``GET /sandbox/events``, resend, trigger).

The published document is read from ``$EWC_GRID_OPENAPI``, or else from
``../shared/spec/grid-openapi.yaml`` next to the checkout (it is never copied into the
project); without it the comparisons are skipped with a message, and under ``CI=true`` its
absence fails both tests. Bounded for CI: ``FUZZ_EXAMPLES`` examples per operation and variant
(default 12; four variants: random and real ids, valid and invalid requests), on the run's
seed (drawn anew each run and printed; ``EWC_TEST_SEED`` replays it: see the conftest). The
counts (operations, requests, responses validated against each document, statuses) are
printed in the run's summary.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from _ci import skip_or_fail, under_ci
from embedded_wallet_crypto.sandbox.faults import CONTROL_PREFIXES
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from . import _published_fuzz as published_fuzz
from ._agents import POLICY, Agent, connect, create_agent
from ._client import SandboxClient
from ._flows import Wallet
from ._payments import card_transaction, fund, usd_external
from ._published_fuzz import Grid
from ._server import SandboxServer

REPO = Path(__file__).resolve().parents[2]
GRID_DEFAULT = REPO.parent / "shared" / "spec" / "grid-openapi.yaml"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))
BASE = re.compile(r"^/\d{4}-\d{2}-\d{2}")
#: The control plane (docs/sandbox-control.md, CONTROL_PREFIXES) is left out: a generated reset,
#: clock advance or fault would change what every other operation answers; test_control.py
#: checks its input.

#: Every operation the service serves, by its published path where it has one: those the
#: published document shares, then the sandbox-only ones it does not have.
SHARED_OPERATIONS: frozenset[tuple[str, str]] = frozenset(
    {
        ("POST", "/customers"),
        ("GET", "/customers/internal-accounts"),
        ("POST", "/auth/credentials"),
        ("GET", "/auth/credentials"),
        ("POST", "/auth/credentials/{id}/challenge"),
        ("POST", "/auth/credentials/{id}/verify"),
        ("DELETE", "/auth/credentials/{id}"),
        ("GET", "/auth/sessions"),
        ("DELETE", "/auth/sessions/{id}"),
        ("POST", "/internal-accounts/{id}/export"),
        ("PATCH", "/internal-accounts/{id}"),
        ("POST", "/quotes"),
        ("GET", "/quotes/{quoteId}"),
        ("POST", "/quotes/{quoteId}/execute"),
        ("GET", "/transactions"),
        ("GET", "/transactions/{transactionId}"),
        ("POST", "/transactions/{transactionId}/approve"),
        ("GET", "/config"),
        ("PATCH", "/config"),
        ("POST", "/sandbox/internal-accounts/{accountId}/fund"),
        ("POST", "/sandbox/send"),
        ("POST", "/sandbox/uma/receive"),
        ("POST", "/sandbox/webhooks/test"),
        ("POST", "/transfer-in"),
        ("POST", "/transfer-out"),
        ("POST", "/platform/external-accounts"),
        ("GET", "/platform/external-accounts"),
        ("GET", "/platform/external-accounts/{externalAccountId}"),
        ("POST", "/customers/external-accounts"),
        ("GET", "/customers/external-accounts"),
        ("GET", "/customers/external-accounts/{externalAccountId}"),
        ("POST", "/agents"),
        ("GET", "/agents"),
        ("GET", "/agents/approvals"),
        ("GET", "/agents/{agentId}"),
        ("PATCH", "/agents/{agentId}"),
        ("DELETE", "/agents/{agentId}"),
        ("PATCH", "/agents/{agentId}/policy"),
        ("POST", "/agents/{agentId}/device-codes"),
        ("POST", "/agents/{agentId}/actions/{actionId}/approve"),
        ("POST", "/agents/{agentId}/actions/{actionId}/reject"),
        ("GET", "/agents/device-codes/{code}/status"),
        ("POST", "/agents/device-codes/{code}/redeem"),
        ("GET", "/agents/me"),
        ("GET", "/agents/me/actions"),
        ("GET", "/agents/me/actions/{actionId}"),
        ("POST", "/agents/me/quotes"),
        ("GET", "/agents/me/quotes/{quoteId}"),
        ("POST", "/agents/me/quotes/{quoteId}/execute"),
        ("GET", "/agents/me/transactions"),
        ("GET", "/agents/me/transactions/{transactionId}"),
        ("POST", "/invitations"),
        ("GET", "/invitations/{invitationCode}"),
        ("POST", "/invitations/{invitationCode}/claim"),
        ("POST", "/invitations/{invitationCode}/cancel"),
        ("POST", "/verifications"),
        ("GET", "/verifications/{verificationId}"),
        ("POST", "/agents/me/transfer-out"),
        ("POST", "/agents/me/transfer-in"),
        ("GET", "/receiver/uma/{receiverUmaAddress}"),
        ("GET", "/receiver/external-account/{accountId}"),
        ("GET", "/platform/internal-accounts"),
        ("POST", "/tokens"),
        ("GET", "/tokens"),
        ("GET", "/tokens/{tokenId}"),
        ("DELETE", "/tokens/{tokenId}"),
        ("GET", "/exchange-rates"),
        ("GET", "/uma-providers"),
        ("GET", "/vasps"),
        ("GET", "/discoveries"),
        ("POST", "/beneficial-owners"),
        ("GET", "/beneficial-owners"),
        ("GET", "/beneficial-owners/{beneficialOwnerId}"),
        ("PATCH", "/beneficial-owners/{beneficialOwnerId}"),
        ("POST", "/documents"),
        ("GET", "/documents"),
        ("GET", "/documents/{documentId}"),
        ("PUT", "/documents/{documentId}"),
        ("DELETE", "/documents/{documentId}"),
        ("GET", "/customers"),
        ("GET", "/customers/{customerId}"),
        ("PATCH", "/customers/{customerId}"),
        ("DELETE", "/customers/{customerId}"),
        ("POST", "/customers/{customerId}/kyc-link"),
        ("POST", "/customers/bulk/csv"),
        ("GET", "/customers/bulk/jobs/{jobId}"),
        ("POST", "/transactions/{transactionId}/reject"),
        ("POST", "/transactions/{transactionId}/cancel"),
        ("POST", "/transactions/{transactionId}/confirm"),
        ("DELETE", "/customers/external-accounts/{externalAccountId}"),
        ("POST", "/customers/external-accounts/{externalAccountId}/challenge"),
        ("POST", "/customers/external-accounts/{externalAccountId}/verify"),
        ("DELETE", "/platform/external-accounts/{externalAccountId}"),
        ("POST", "/platform/external-accounts/{externalAccountId}/challenge"),
        ("POST", "/platform/external-accounts/{externalAccountId}/verify"),
        ("GET", "/agents/me/internal-accounts"),
        ("GET", "/agents/me/external-accounts"),
        ("POST", "/agents/me/external-accounts"),
        ("GET", "/agents/me/external-accounts/{externalAccountId}"),
        ("DELETE", "/agents/me/external-accounts/{externalAccountId}"),
        # Strong customer authentication, contact verification, delegated keys, refresh.
        ("GET", "/sca/factors"),
        ("POST", "/sca/factors"),
        ("POST", "/sca/factors/confirm"),
        ("DELETE", "/sca/factors/{credentialId}"),
        ("POST", "/sca/login/start"),
        ("POST", "/sca/login/complete"),
        ("POST", "/sca/record-event"),
        ("POST", "/sca/factors/reset"),
        ("GET", "/sca/factors/reset/{resetId}"),
        ("POST", "/sca/factors/reset/{resetId}/complete"),
        ("POST", "/customers/external-accounts/{externalAccountId}/trust"),
        ("POST", "/customers/external-accounts/{externalAccountId}/trust/confirm"),
        ("POST", "/customers/external-accounts/{externalAccountId}/untrust"),
        ("POST", "/customers/external-accounts/{externalAccountId}/untrust/confirm"),
        ("POST", "/quotes/{quoteId}/authorize"),
        ("POST", "/quotes/{quoteId}/authorize/resend"),
        ("POST", "/customers/{customerId}/verify-email"),
        ("POST", "/customers/{customerId}/verify-email/confirm"),
        ("POST", "/customers/{customerId}/verify-phone"),
        ("POST", "/customers/{customerId}/verify-phone/confirm"),
        ("POST", "/auth/sessions/{id}/refresh"),
        ("POST", "/auth/delegated-keys"),
        ("GET", "/auth/delegated-keys"),
        ("GET", "/auth/delegated-keys/{id}"),
        ("DELETE", "/auth/delegated-keys/{id}"),
        ("GET", "/verifications"),
        ("GET", "/customers/end-user-terms"),
        ("POST", "/crypto/estimate-withdrawal-fee"),
        ("POST", "/cards"),
        ("GET", "/cards"),
        ("GET", "/cards/{id}"),
        ("PATCH", "/cards/{id}"),
        ("POST", "/cards/{id}/reveal"),
        *(
            ("POST", f"/sandbox/cards/{{id}}/simulate/{event}")
            for event in (
                "authorization",
                "authorization_advice",
                "balance_inquiry",
                "clearing",
                "credit_authorization",
                "credit_authorization_advice",
                "financial_authorization",
                "financial_credit_authorization",
                "return",
                "return_reversal",
            )
        ),
        ("POST", "/stablecoins"),
        ("GET", "/stablecoins"),
        ("GET", "/stablecoins/{stablecoinId}"),
        ("POST", "/stablecoins/{stablecoinId}/mints"),
        ("POST", "/stablecoins/{stablecoinId}/burns"),
        ("GET", "/stablecoins/{stablecoinId}/operations"),
        ("GET", "/stablecoin-operations/{stablecoinOperationId}"),
        ("POST", "/stablecoin-provider-accounts"),
        ("GET", "/stablecoin-provider-accounts"),
        ("GET", "/stablecoin-provider-accounts/{stablecoinProviderAccountId}"),
    }
)
SANDBOX_ONLY_OPERATIONS = frozenset(
    {
        ("GET", "/sandbox/webhook-public-key"),
        ("GET", "/sandbox/events"),
        ("POST", "/sandbox/events/{eventId}/resend"),
        ("POST", "/sandbox/events/trigger"),
    }
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


@pytest.fixture(
    scope="module",
    params=[
        ("sandbox", "interface"),
        ("production", "interface"),
        ("sandbox", "published"),
        ("production", "published"),
    ],
    ids=lambda param: "-".join(param),
)
def fuzz_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    environment, names = request.param
    running = SandboxServer(
        tmp_path_factory.mktemp(f"fuzz-{environment}-{names}"),
        environment=environment,
        extra=["--names", names],
    )
    running.start()
    yield running
    assert running.stop() == 0


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    from conftest import report_counts

    report_counts("sandbox API fuzz", **STATS, **published_fuzz.STATS)


# --- the published document ---------------------------------------------------------------------


_GRID_MISSING = (
    f"the published OpenAPI is not at {os.environ.get('EWC_GRID_OPENAPI') or GRID_DEFAULT} "
    "(EWC_GRID_OPENAPI, else next to the checkout): the service is not compared with it"
)


def _grid_path() -> Path | None:
    override = os.environ.get("EWC_GRID_OPENAPI")
    path = Path(override) if override else GRID_DEFAULT
    return path if path.is_file() else None


@cache
def _grid_document() -> dict[str, Any]:
    import yaml

    path = _grid_path()
    assert path is not None
    document: dict[str, Any] = yaml.safe_load(path.read_text())
    return document


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


@cache
def _grid_operations() -> dict[tuple[str, str], str]:
    """(method, path with its parameters as ``{}``) -> the published path."""
    found = {}
    for path, item in _grid_document()["paths"].items():
        for method in item:
            if method in ("get", "put", "post", "patch", "delete"):
                found[(method.upper(), _shape(path))] = path
    return found


def _published(method: str, served_path: str) -> tuple[str, str] | None:
    """The published operation of a served one (path without the base path), if any."""
    path = _grid_operations().get((method.upper(), _shape(BASE.sub("", served_path))))
    return None if path is None else (method.upper(), path)


def _resolve(document: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


@cache
def _grid_statuses(method: str, path: str) -> frozenset[str]:
    operation = _grid_document()["paths"][path][method.lower()]
    return frozenset(str(status) for status in operation.get("responses", {}))


@cache
def _grid_validator(method: str, path: str, status: int) -> Any:
    """A validator of the published body of one operation and status (None: no JSON body)."""
    import jsonschema_rs

    document = _grid_document()
    operation = document["paths"][path][method.lower()]
    response = _resolve(document, operation.get("responses", {}).get(str(status)))
    if response is None:
        return None
    schema = response.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return None
    return jsonschema_rs.Draft202012Validator({**schema, "components": document["components"]})


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


# --- real resources -----------------------------------------------------------------------------


class Known:
    """Real resources of one server, by the names the document gives its parameters: the
    platform's, and overrides by path pattern where one name means different resources (the
    agent's own under ``/agents/me``)."""

    def __init__(self, server: SandboxServer, made: list[Agent]) -> None:
        client = SandboxClient(server.base_url, server.auth)
        sandbox = server.environment == "sandbox"
        try:
            uma = f"$fuzz.{server.environment}@sandbox.test"
            wallet = Wallet(client, server)
            customer_id = client.create_customer(
                currencies=["USD", "EUR"], umaAddress=uma, email="fuzz@example.com"
            )["id"]
            fiat = {
                a["balance"]["currency"]["code"]: a["id"]
                for a in client.get(
                    "/customers/internal-accounts",
                    params={"customerId": customer_id, "type": "INTERNAL_FIAT"},
                ).json()["data"]
            }
            if sandbox:
                fund(client, fiat["USD"], 1_000_000_00)
                card_transaction(client)  # GET /transactions lists a CARD one
            credential = wallet.add("EMAIL_OTP")
            session, _ = wallet.login(credential)
            customer_external = usd_external(client, customer_id, "000")["id"]
            platform_external = usd_external(client, None, "000")["id"]
            quote = self._quote(client.post, "/quotes", fiat, 10_00)
            manage = [*POLICY["permissions"], "MANAGE_EXTERNAL_ACCOUNTS"]
            agent = connect(server, client, made, customer_id, {**POLICY, "permissions": manage})
            agent_quote = self._quote(agent.post, "/agents/me/quotes", fiat, 10_00)
            executed = agent.post(f"/agents/me/quotes/{agent_quote['id']}/execute").json()
            pending, to_reject = (  # above the approval threshold: one to approve, one to reject
                agent.post(f"/agents/me/quotes/{q['id']}/execute").json()
                for q in (
                    self._quote(agent.post, "/agents/me/quotes", fiat, 500_00) for _ in range(2)
                )
            )
            assert pending["status"] == to_reject["status"] == "PENDING_APPROVAL", pending
            idle = create_agent(client, customer_id)  # not redeemed: its device code is live
            invitation = client.post("/invitations", {"inviterUma": uma, "amountToSend": 1})
            verification = client.post("/verifications", {"customerId": customer_id})
            assert invitation.status_code == 201 and verification.status_code == 200
            business, owner, document, token = _kyc_and_token(client)
            job = client.http.post(
                "/customers/bulk/csv",
                files={
                    "file": ("c.csv", b"umaAddress,platformCustomerId,customerType\n$a@b.c,p,X\n")
                },
            )
            assert job.status_code == 202, job.text
        finally:
            client.close()
        self.agent_token = agent.token
        self.bodies = _valid_bodies(
            uma, customer_id, wallet.account_id, fiat, customer_external, platform_external
        )
        self.bodies[("POST", "/beneficial-owners")] = {**OWNER, "customerId": business}
        self.platform: dict[str, str] = {
            "account_id": wallet.account_id,
            "accountId": fiat["USD"],
            "customerId": customer_id,
            "credential_id": credential["id"],
            "session_id": session["id"],
            "externalAccountId": customer_external,
            "quoteId": quote["id"],
            "transactionId": quote["transactionId"],
            "agentId": agent.id,
            "actionId": pending["id"],
            "code": idle["deviceCode"]["code"],
            "invitationCode": invitation.json()["code"],
            "verificationId": verification.json()["id"],
            "jobId": job.json()["jobId"],
            "currency": "USD",
            "receiverUmaAddress": "$success.usd@sandbox.test",
            "tokenId": token,
            "beneficialOwnerId": owner,
            "documentId": document,
            "documentHolder": owner,
        }
        self.overrides: list[tuple[str, dict[str, str]]] = [  # path pattern, ids
            ("^/auth/", {"accountId": wallet.account_id}),
            ("^/platform/external-accounts", {"externalAccountId": platform_external}),
            ("^/receiver/external-account", {"accountId": customer_external}),
            ("/reject$", {"actionId": to_reject["id"]}),
            ("^/beneficial-owners", {"customerId": business}),
            (
                "^/agents/me",
                {
                    "quoteId": agent_quote["id"],
                    "transactionId": executed.get("transaction", {}).get("id", ""),
                    "actionId": executed["id"],
                    "accountIdentifier": fiat["USD"],
                },
            ),
        ]

    @staticmethod
    def _quote(post: Any, path: str, fiat: dict[str, str], cents: int) -> dict[str, Any]:
        """A USD to EUR quote between the customer's fiat accounts."""
        response = post(
            path,
            {
                "source": {"sourceType": "ACCOUNT", "accountId": fiat["USD"]},
                "destination": {"destinationType": "ACCOUNT", "accountId": fiat["EUR"]},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": cents,
            },
        )
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    def ids_for(self, path: str) -> dict[str, str]:
        """The real ids (path and query names) for an operation's path (without base path)."""
        ids = dict(self.platform)
        for pattern, override in self.overrides:
            if re.search(pattern, path):
                ids.update(override)
        return {name: value for name, value in ids.items() if value}


OWNER: dict[str, Any] = {
    "roles": ["UBO"],
    "ownershipPercentage": 1,
    "personalInfo": {
        "firstName": "Jo",
        "lastName": "Doe",
        "birthDate": "1980-01-01",
        "nationality": "US",
        "address": {"line1": "1 Main St", "postalCode": "94105", "country": "US"},
        "idType": "SSN",
        "identifier": "123-45-6789",
    },
}


def _kyc_and_token(client: SandboxClient) -> tuple[str, str, str, str]:
    """A business customer, its beneficial owner with a document, and an API token."""
    business = client.create_customer(customerType="BUSINESS")["id"]
    owner = client.post("/beneficial-owners", {**OWNER, "customerId": business})
    assert owner.status_code == 201, owner.text
    document = client.http.post(
        "/documents",
        data={"documentType": "PASSPORT", "country": "US", "documentHolder": owner.json()["id"]},
        files={"file": ("passport.pdf", b"%PDF-1.7 fuzz")},
    )
    assert document.status_code == 201, document.text
    token = client.post("/tokens", {"name": "fuzz", "permissions": ["VIEW"]})
    assert token.status_code == 201, token.text
    return business, owner.json()["id"], document.json()["id"], token.json()["id"]


def _valid_bodies(
    uma: str,
    customer_id: str,
    wallet: str,
    fiat: dict[str, str],
    customer_external: str,
    platform_external: str,
) -> dict[tuple[str, str], Any]:
    """A valid body with real ids for the operations whose generated bodies rarely are (their
    ids would have to be guessed), by method and served path: each is sent once, so that the
    success answers meet the checks too."""
    quote = {
        "source": {"sourceType": "ACCOUNT", "accountId": fiat["USD"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": fiat["EUR"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 5_00,
    }
    usd_info = {
        "accountType": "USD_ACCOUNT",
        "accountNumber": "9876543010",
        "routingNumber": "021000021",
        "bankAccountType": "CHECKING",
        "bankName": "Test Bank",
        "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
    }
    return {
        ("POST", "/customers"): {"customerType": "INDIVIDUAL", "currencies": ["USD"]},
        ("POST", "/quotes"): quote,
        ("POST", "/agents/me/quotes"): quote,
        ("POST", "/transfer-out"): {
            "source": {"accountId": fiat["USD"]},
            "destination": {"accountId": customer_external},
            "amount": 1_00,
        },
        ("POST", "/transfer-in"): {
            "source": {"accountId": customer_external},
            "destination": {"accountId": fiat["USD"]},
            "amount": 1_00,
        },
        ("POST", "/customers/external-accounts"): {
            "customerId": customer_id,
            "currency": "USD",
            "accountInfo": usd_info,
        },
        ("POST", "/platform/external-accounts"): {"currency": "USD", "accountInfo": usd_info},
        ("POST", "/agents/me/external-accounts"): {"currency": "USD", "accountInfo": usd_info},
        ("POST", "/agents"): {"name": "Fuzz bot", "customerId": customer_id, "policy": POLICY},
        ("POST", "/invitations"): {"inviterUma": uma, "firstName": "Ann", "amountToSend": 1},
        ("POST", "/invitations/{invitationCode}/claim"): {"inviteeUma": "$bob@other.test"},
        ("POST", "/verifications"): {"customerId": customer_id},
        ("POST", "/sandbox/uma/receive"): {
            "senderUmaAddress": "$sender@other.test",
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": 1_00,
            "customerId": customer_id,
        },
        ("PATCH", "/config"): {"umaDomain": "fuzz.sandbox.test"},
        ("PATCH", "/internal-accounts/{account_id}"): {"privateEnabled": True},  # its 202
        ("POST", "/sandbox/events/trigger"): {"type": "TEST"},
        ("PATCH", "/agents/{agentId}"): {"name": "Renamed bot"},
        ("PATCH", "/agents/{agentId}/policy"): {"spendingLimits": {"dailyLimit": 1_000_000}},
        ("POST", "/agents/{agentId}/actions/{actionId}/approve"): {},
        ("POST", "/agents/{agentId}/actions/{actionId}/reject"): {"reason": "Not today."},
        ("POST", "/tokens"): {"name": "Fuzz token", "permissions": ["VIEW", "TRANSACT"]},
        ("PATCH", "/beneficial-owners/{beneficialOwnerId}"): {"roles": ["UBO", "DIRECTOR"]},
        ("PATCH", "/customers/{customerId}"): {"customerType": "INDIVIDUAL", "fullName": "Fuzz"},
        ("POST", "/customers/{customerId}/kyc-link"): {"redirectUri": "https://app.test/done"},
        ("POST", "/transactions/{transactionId}/confirm"): {},
    }


@pytest.fixture(scope="module")
def known(fuzz_server: SandboxServer) -> Iterator[Known]:
    made: list[Agent] = []
    yield Known(fuzz_server, made)
    for agent in made:
        agent.http.close()


# --- the tests ----------------------------------------------------------------------------------


def _served_operations(tmp_path: Path) -> set[tuple[str, str]]:
    from embedded_wallet_crypto.sandbox import create_app
    from embedded_wallet_crypto.sandbox.settings import Settings

    app = create_app(
        Settings(database=f"sqlite:///{tmp_path / 'ops.db'}", platform_credentials=[("a", "b")])
    )
    return {
        (method.upper(), BASE.sub("", path))
        for path, item in app.openapi()["paths"].items()
        for method in item
        if not BASE.sub("", path).startswith(CONTROL_PREFIXES)
    }


def test_the_operations_are_the_expected_ones(tmp_path: Path) -> None:
    served = _served_operations(tmp_path)
    assert len(served) == len(SHARED_OPERATIONS) + len(SANDBOX_ONLY_OPERATIONS)
    if _grid_path() is None:
        skip_or_fail(_GRID_MISSING)
    published = {_published(method, path) for method, path in served}
    assert published - {None} == SHARED_OPERATIONS
    assert {op for op in served if _published(*op) is None} == SANDBOX_ONLY_OPERATIONS
    assert set(GRID_BODY_EXEMPT) | set(GRID_STATUS_EXEMPT) <= SHARED_OPERATIONS


def _auth(path: str, basic: str, bearer: str) -> dict[str, str]:
    """The operation's own authentication: the agent's token under ``/agents/me``, none to
    redeem a device code (the code is the proof), the platform's Basic credentials otherwise."""
    if path.startswith("/agents/me"):
        return {"Authorization": f"Bearer {bearer}"}
    if path.endswith("/redeem"):
        return {}
    return {"Authorization": f"Basic {basic}"}


#: Where a generated ``webhookEndpoint`` that is a URL is pointed instead: the service posts to
#: the endpoint it is given, and the fuzz sends no traffic off this machine (port 9, discard:
#: refused at once). Strings that are not URLs stay, so the refusals are still fuzzed.
_LOCAL_WEBHOOK = "http://127.0.0.1:9/fuzz-webhooks"


def _keep_webhooks_local(case: Any) -> None:
    body = case.body
    if isinstance(body, dict):
        endpoint = body.get("webhookEndpoint")
        if isinstance(endpoint, str) and endpoint.lower().startswith(("http:", "https:")):
            body["webhookEndpoint"] = _LOCAL_WEBHOOK


def _fuzz(
    operation: Any, mode: GenerationMode, fixed: dict[str, Any], headers: Any, checks: list[Any]
) -> None:
    """``EXAMPLES`` generated requests to one operation, every response checked."""

    @settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(generation_mode=mode, **fixed))
    def run(case: Any) -> None:
        _keep_webhooks_local(case)
        response = case.call(headers=headers)
        _count("requests")
        _count(f"status {response.status_code}")
        _count(f"{mode.value} status {response.status_code}")
        case.validate_response(response, checks=checks)

    run()


def _plan(
    operation: Any, known: Known, basic: str
) -> tuple[Any, str, dict[str, Any], dict[str, str]]:
    """(operation, its path without the base path, its real ids, its authentication)."""
    path = BASE.sub("", operation.path)
    ids = known.ids_for(path)
    query_names = {
        parameter["name"]
        for parameter in operation.definition.raw.get("parameters", [])
        if parameter.get("in") == "query"
    }
    real = {
        "path_parameters": {
            name: ids[name] for name in re.findall(r"\{(\w+)\}", path) if name in ids
        }
        or None,
        "query": {name: ids[name] for name in query_names if name in ids} or None,
    }
    return operation, path, real, _auth(path, basic, known.agent_token)


def test_api_fuzz(fuzz_server: SandboxServer, known: Known) -> None:
    """Every operation of the document, valid and invalid requests, random and real ids; all
    failures listed."""
    if _grid_path() is None and under_ci():
        pytest.fail(_GRID_MISSING + " (CI=true: the comparison is required)", pytrace=False)
    api = schemathesis.openapi.from_url(fuzz_server.base_url + "/openapi.json", config=CONFIG)
    operations = []
    for result in api.get_all_operations():
        assert isinstance(result, Ok), result.err()
        if not BASE.sub("", result.ok().path).startswith(CONTROL_PREFIXES):
            operations.append(result.ok())
    assert len(operations) == len(SHARED_OPERATIONS) + len(SANDBOX_ONLY_OPERATIONS)
    STATS["operations"] = len(operations)
    published = "--names" in fuzz_server.extra and "published" in fuzz_server.extra
    if published and _grid_path() is None:
        pytest.skip(_GRID_MISSING)
    checks = published_fuzz.checks(Grid(_grid_document())) if published else CHECKS
    label = f"{fuzz_server.environment} ({'published' if published else 'interface'} names)"
    _count("environments")
    basic = base64.b64encode(":".join(fuzz_server.auth).encode()).decode()
    failures: list[str] = []
    # The deletions last: deleting the real agent first would leave its token nothing to reach.
    operations.sort(key=lambda operation: operation.method.upper() == "DELETE")
    plans = [_plan(operation, known, basic) for operation in operations]
    # First the valid requests with real ids (before the generated ones change the state, such
    # as the configuration's currencies), then the generated ones.
    for operation, path, real, headers in plans:
        body = known.bodies.get((operation.method.upper(), path))
        if body is None:
            continue
        case = operation.Case(
            body=body,
            media_type="application/json",
            path_parameters=real["path_parameters"],
            query=real["query"],
        )
        response = case.call(headers=headers)
        _count("requests")
        _count("valid requests with real ids")
        _count(f"status {response.status_code}")
        try:
            case.validate_response(response, checks=checks)
        except (Exception, FailureGroup) as failure:
            failures.append(f"{label}: {operation.label} (valid): {failure}")
        if fuzz_server.environment == "sandbox":
            assert response.status_code < 300, (operation.label, response.text)
    for operation, _, real, headers in plans:
        variants: list[tuple[str, GenerationMode, dict[str, Any]]] = [
            ("random ids", GenerationMode.POSITIVE, {}),
            ("random ids", GenerationMode.NEGATIVE, {}),
        ]
        if real["path_parameters"] or real["query"]:
            variants.append(("real ids", GenerationMode.POSITIVE, real))
            variants.append(("real ids", GenerationMode.NEGATIVE, real))
        for variant, mode, fixed in variants:
            try:
                _fuzz(operation, mode, fixed, headers, checks)
            except Unsatisfiable:  # nothing of the operation can be made invalid (no input)
                assert mode == GenerationMode.NEGATIVE, operation.label
                _count("negative variants without input to break")
            except (Exception, FailureGroup) as failure:  # listed below, after every run
                failures.append(f"{label}: {operation.label} ({mode}, {variant}): {failure}")
    assert not failures, "\n\n".join(failures)
