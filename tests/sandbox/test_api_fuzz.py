"""Schemathesis against the sandbox service's own OpenAPI document, over real HTTP.

A real ``ewc serve`` process (SQLite, sandbox environment) serves ``/2025-10-13/openapi.json``;
Schemathesis generates requests for every operation in it (valid and invalid bodies, queries
and path parameters, with the platform's Basic credentials), and every response must:
- not be a server error (no 5xx),
- conform to the service's own document (content type, and the body schema of every status
  the document lists; the statuses it does not list are counted, not failed: the error
  statuses are described once in the service's docs rather than on every operation),
- where the real service's published OpenAPI has the same operation, conform to its success
  schema too (see ``GRID_CHECKED``; the error body is not compared: the interface's
  ``{status, code, reason}`` differs from the published ``{status, code, message}``).

The published document is read from ``/work/shared/spec/grid-openapi.yaml`` when present, or
from ``$EWC_GRID_OPENAPI``; without it that one check is skipped with a message (it is never
copied into the project). Bounded for CI: ``FUZZ_EXAMPLES`` examples per operation (default 25),
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
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from ._server import SandboxServer

GRID_DEFAULT = Path("/work/shared/spec/grid-openapi.yaml")
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))

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
    return re.sub(r"^/\d{4}-\d{2}-\d{2}", "", case.operation.path)


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
    failures: list[str] = []
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case: Any) -> None:
                response = case.call(headers={"Authorization": f"Basic {token}"})
                STATS["requests"] = STATS.get("requests", 0) + 1
                kind = f"status {response.status_code}"
                if str(response.status_code) not in case.operation.definition.raw.get(
                    "responses", {}
                ):
                    kind += " (not in the document)"
                STATS[kind] = STATS.get(kind, 0) + 1
                case.validate_response(
                    response,
                    checks=[
                        not_a_server_error,
                        content_type_conformance,
                        response_schema_conformance,
                        grid_schema_conformance,
                    ],
                )

            try:
                run()
            except Exception as failure:  # every operation runs; the failures are listed below
                failures.append(f"{operation.label} ({mode}): {failure}")
    assert not failures, "\n\n".join(failures)
