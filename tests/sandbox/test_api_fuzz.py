"""Schemathesis against the sandbox service's own OpenAPI document, over real HTTP.

A real ``ewc serve`` process (SQLite, sandbox environment) serves ``/2025-10-13/openapi.json``;
Schemathesis generates requests for every operation in it (valid and invalid bodies, queries
and path parameters, with the platform's Basic credentials), and every response must:
- not be a server error (no 5xx),
- conform to the service's own document (a documented status, its content type and body schema),
- where the real service's published OpenAPI has the same operation, conform to its success
  schema too. Those operations (``GRID_CHECKED``): ``GET /customers/internal-accounts`` (200),
  ``GET /auth/credentials`` (200), ``POST /auth/credentials`` (201, 202),
  ``POST /auth/credentials/{id}/challenge`` (200), ``POST /auth/credentials/{id}/verify`` (200),
  ``DELETE /auth/credentials/{id}`` (202), ``GET /auth/sessions`` (200),
  ``DELETE /auth/sessions/{id}`` (202), ``POST /internal-accounts/{id}/export`` (200, 202).
  Not compared: the error body (the interface's ``{status, code, reason}``, the published
  ``{status, code, message}``), ``POST /customers`` (the sandbox echoes fields such as
  ``address`` as sent, which the published ``Customer`` constrains), and the 204 answers.

The published document is read from ``/work/shared/spec/grid-openapi.yaml`` when present, or
from ``$EWC_GRID_OPENAPI``; without it that one check is skipped with a message (it is never
copied into the project). Bounded for CI: ``FUZZ_EXAMPLES`` examples per operation and variant
(default 40; variants: random ids valid and invalid, and the ids of a real wallet),
derandomized under ``CI=true`` (the project's Hypothesis profile).
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from ._server import SandboxServer

GRID_DEFAULT = Path("/work/shared/spec/grid-openapi.yaml")
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))

#: The operations whose success responses are also checked against the published document,
#: (method, path) -> the statuses compared. Listed, not discovered: a new endpoint joins here
#: once its shape is known to be the published one.
GRID_CHECKED: dict[tuple[str, str], tuple[int, ...]] = {
    ("GET", "/customers/internal-accounts"): (200,),  # InternalAccountListResponse
    ("GET", "/auth/credentials"): (200,),  # AuthCredentialListResponse (AuthMethod)
    ("POST", "/auth/credentials"): (201, 202),  # AuthMethodResponse, AuthSignedRequestChallenge
    ("POST", "/auth/credentials/{id}/verify"): (200,),  # AuthSession
    ("GET", "/auth/sessions"): (200,),  # SessionListResponse
    ("DELETE", "/auth/sessions/{id}"): (202,),  # AuthSignedRequestChallenge
    ("DELETE", "/auth/credentials/{id}"): (202,),  # AuthSignedRequestChallenge
    ("POST", "/internal-accounts/{id}/export"): (200, 202),  # InternalAccountExportResponse, ...
    ("POST", "/auth/credentials/{id}/challenge"): (200,),  # AuthCredentialResponseOneOf
}

STATS: dict[str, int] = {}


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    running = SandboxServer(tmp_path_factory.mktemp("sandbox-fuzz"))
    running.start()
    yield running
    assert running.stop() == 0
    from conftest import report_counts

    report_counts("sandbox API fuzz", **STATS)


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


@cache
def _grid_validator(method: str, path: str, status: int) -> Any:
    """A validator of the published success body for one operation and status (None: none)."""
    import jsonschema_rs

    document = _grid_document()
    operation = document["paths"].get(path, {}).get(method.lower())
    if operation is None:
        return None
    response = operation.get("responses", {}).get(str(status))
    if response is None:
        return None
    if "$ref" in response:
        response = _resolve(document, response["$ref"])
    schema = response.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return None
    return jsonschema_rs.Draft202012Validator({**schema, "components": document["components"]})


def _resolve(document: dict[str, Any], ref: str) -> Any:
    node: Any = document
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def _template(case: Any) -> str:
    """The operation's path without the base path, its parameter named ``{id}`` (as published)."""
    return re.sub(r"\{[^}]+\}", "{id}", re.sub(r"^/\d{4}-\d{2}-\d{2}", "", case.operation.path))


def grid_schema_conformance(ctx: Any, response: Any, case: Any) -> bool | None:
    """The success body also validates against the published document's schema."""
    key = (case.method.upper(), _template(case))
    if _grid_path() is None or response.status_code not in GRID_CHECKED.get(key, ()):
        return None
    validator = _grid_validator(*key, response.status_code)
    if validator is None:
        return None
    errors = [error.message for error in validator.iter_errors(response.json())]
    STATS["grid-validated responses"] = STATS.get("grid-validated responses", 0) + 1
    assert not errors, f"{key} {response.status_code} breaks the published schema: {errors[:3]}"
    return True


def _existing_ids(server: SandboxServer) -> dict[str, str]:
    """A customer's wallet with an EMAIL_OTP credential and a session (sandbox OTP), by the
    names the document gives their parameters."""
    import embedded_wallet_crypto as ewc
    import httpx

    with httpx.Client(base_url=server.base_url, auth=server.auth) as api:
        customer = api.post(
            "/customers",
            json={"customerType": "INDIVIDUAL", "currencies": ["USD"], "email": "f@example.com"},
        ).json()
        wallet = api.get(
            "/customers/internal-accounts",
            params={"customerId": customer["id"], "type": "EMBEDDED_WALLET"},
        ).json()["data"][0]["id"]
        credential = api.post(
            "/auth/credentials", json={"type": "EMAIL_OTP", "accountId": wallet}
        ).json()["id"]
        session = api.post(
            f"/auth/credentials/{credential}/verify",
            json={
                "type": "EMAIL_OTP",
                "otp": "000000",
                "clientPublicKey": ewc.KeyPair.generate().public_key_hex(),
            },
        ).json()["id"]
    return {
        "account_id": wallet,
        "accountId": wallet,
        "customerId": customer["id"],
        "credential_id": credential,
        "session_id": session,
    }


def test_the_published_document_is_there_for_the_shape_check() -> None:
    if _grid_path() is None:
        pytest.skip(
            f"the published OpenAPI is not at {GRID_DEFAULT} and EWC_GRID_OPENAPI is not set: "
            "responses are checked against the service's own document only"
        )
    paths = _grid_document()["paths"]
    assert all(path in paths for _, path in GRID_CHECKED)


def test_api_fuzz(fuzz_server: SandboxServer) -> None:
    """Every operation of the document, positive and negative examples; all failures listed."""
    api = schemathesis.openapi.from_url(fuzz_server.base_url + "/openapi.json")
    operations = []
    for result in api.get_all_operations():
        assert isinstance(result, Ok), result.err()
        operations.append(result.ok())
    STATS["operations"] = len(operations)
    token = base64.b64encode(":".join(fuzz_server.auth).encode()).decode()
    known = _existing_ids(fuzz_server)
    failures: list[str] = []
    for operation in operations:
        # Random ids (mostly 404 or empty lists), then the ids of a real wallet, credential and
        # session, so that the generated bodies and headers reach the checks behind the lookup.
        path_names = re.findall(r"\{(\w+)\}", operation.path)
        query_names = {
            parameter["name"]
            for parameter in operation.definition.raw.get("parameters", [])
            if parameter.get("in") == "query"
        }
        real = {
            "path_parameters": {name: known[name] for name in path_names if name in known} or None,
            "query": {name: known[name] for name in query_names if name in known} or None,
        }
        variants: list[tuple[str, GenerationMode, dict[str, Any]]] = [
            ("random ids", GenerationMode.POSITIVE, {}),
            ("random ids", GenerationMode.NEGATIVE, {}),
        ]
        if real["path_parameters"] or real["query"]:
            variants.append(("real ids", GenerationMode.POSITIVE, real))
        for label, mode, fixed in variants:

            @settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(generation_mode=mode, **fixed))
            def run(case: Any) -> None:
                response = case.call(headers={"Authorization": f"Basic {token}"})
                STATS["requests"] = STATS.get("requests", 0) + 1
                kind = f"status {response.status_code}"
                STATS[kind] = STATS.get(kind, 0) + 1
                case.validate_response(
                    response,
                    checks=[
                        not_a_server_error,
                        status_code_conformance,
                        content_type_conformance,
                        response_schema_conformance,
                        grid_schema_conformance,
                    ],
                )

            try:
                run()
            except Exception as failure:  # every operation runs; the failures are listed below
                failures.append(f"{operation.label} ({mode}, {label}): {failure}")
    assert not failures, "\n\n".join(failures)
