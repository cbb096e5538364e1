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

The served operations are pinned by ``test_api_fuzz_operations``. The operations and the
published document are ``_fuzz_operations``'s, the checks of the interface's names
``_fuzz_checks``'s, the real resources and valid bodies ``_fuzz_known``'s.

The published document is read from ``$EWC_GRID_OPENAPI``, or else from
``../shared/spec/grid-openapi.yaml`` next to the checkout (it is never copied into the
project); without it the comparisons are skipped with a message, and under ``CI=true`` its
absence fails this test and ``test_api_fuzz_operations``. Bounded for CI: ``FUZZ_EXAMPLES``
examples per operation and variant (default 12; four variants: random and real ids, valid and
invalid requests), on the run's seed (drawn anew each run and printed; ``EWC_TEST_SEED``
replays it: see the conftest). The counts (operations, requests, responses validated against
each document, statuses) are printed in the run's summary.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from _ci import under_ci
from embedded_wallet_crypto.sandbox.faults import CONTROL_PREFIXES
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Ok

from . import _published_fuzz as published_fuzz
from ._agents import Agent
from ._fuzz_checks import CHECKS, CONFIG, STATS, _count
from ._fuzz_known import Known
from ._fuzz_operations import (
    _GRID_MISSING,
    BASE,
    SANDBOX_ONLY_OPERATIONS,
    SHARED_OPERATIONS,
    _grid_document,
    _grid_path,
)
from ._published_fuzz import Grid
from ._server import SandboxServer

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))


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


@pytest.fixture(scope="module")
def known(fuzz_server: SandboxServer) -> Iterator[Known]:
    made: list[Agent] = []
    yield Known(fuzz_server, made)
    for agent in made:
        agent.http.close()


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
