"""The operations of the API fuzz: those the sandbox service serves and those of the published
document.

- ``SHARED_OPERATIONS`` and ``SANDBOX_ONLY_OPERATIONS``: every operation the service serves (the
  control plane left out), by its published path where it has one: those the published document
  shares, then the sandbox-only ones it does not have (``test_api_fuzz_operations`` pins both);
- ``_served_operations``: what the service's own document serves, by method and path;
- the published document: read from ``$EWC_GRID_OPENAPI``, or else from
  ``../shared/spec/grid-openapi.yaml`` next to the checkout (it is never copied into the
  project; ``_grid_path`` is None without it), its operations by path shape (``_published``),
  and the statuses and body validator of each (``_grid_statuses``, ``_grid_validator``).

Shared by the API fuzz (``test_api_fuzz``, ``test_api_fuzz_operations``), the operations index
(``test_operations_index``) and the names test (``test_names``).
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path
from typing import Any

from embedded_wallet_crypto.sandbox.faults import CONTROL_PREFIXES

REPO = Path(__file__).resolve().parents[2]
GRID_DEFAULT = REPO.parent / "shared" / "spec" / "grid-openapi.yaml"
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


def _served_operations(tmp_path: Path) -> set[tuple[str, str]]:
    """What the service's own document serves: (method, path without the base path), the
    control plane left out."""
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


def path_shape(path: str) -> str:
    """``path`` with each parameter written ``{}`` (to match a served path to a published one)."""
    return re.sub(r"\{[^}]+\}", "{}", path)


@cache
def _grid_operations() -> dict[tuple[str, str], str]:
    """(method, path with its parameters as ``{}``) -> the published path."""
    found = {}
    for path, item in _grid_document()["paths"].items():
        for method in item:
            if method in ("get", "put", "post", "patch", "delete"):
                found[(method.upper(), path_shape(path))] = path
    return found


def _published(method: str, served_path: str) -> tuple[str, str] | None:
    """The published operation of a served one (path without the base path), if any."""
    path = _grid_operations().get((method.upper(), path_shape(BASE.sub("", served_path))))
    return None if path is None else (method.upper(), path)


def resolve_ref(document: dict[str, Any], node: Any) -> Any:
    """``node`` with its ``$ref`` chain followed inside ``document``."""
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
    response = resolve_ref(document, operation.get("responses", {}).get(str(status)))
    if response is None:
        return None
    schema = response.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return None
    return jsonschema_rs.Draft202012Validator({**schema, "components": document["components"]})
