"""The operation table against the app and the documents: every route the app serves has a
client method with the route's response model, the typed groups are the table (and are
generated from it), the table is consistent, its groups and paths are the published
document's tags and paths, and the client guide lists every operation."""

from __future__ import annotations

import os
import re
import runpy
import typing

import pytest
import yaml
from conftest import REPO
from embedded_wallet_crypto.client import GROUPS, OPERATIONS, AsyncClient, Client
from embedded_wallet_crypto.client._group_types import (
    ASYNC_GROUPS,
    SYNC_GROUPS,
    AsyncGroups,
    SyncGroups,
)
from embedded_wallet_crypto.client._groups import AsyncListOperation, SyncListOperation
from embedded_wallet_crypto.client._operations import AREAS
from embedded_wallet_crypto.sandbox.app import ROUTERS
from embedded_wallet_crypto.sandbox.models.wallet import SignedRequestChallengeOut
from embedded_wallet_crypto.sandbox.settings import BASE_PATH
from fastapi.routing import APIRoute

from ._support import _template

PUBLISHED = REPO.parent / "shared" / "spec" / "grid-openapi.yaml"
#: Served by the sandbox service only (not in the published document).
SANDBOX_ONLY = {
    "sandbox.webhook_public_key",
    "sandbox.list_events",
    "sandbox.resend_event",
    "sandbox.trigger_event",
    "sandbox.get_clock",
    "sandbox.advance_clock",
    "sandbox.reset",
    "sandbox.list_requests",
    "sandbox.add_fault",
    "sandbox.list_faults",
    "sandbox.clear_faults",
}


def _served() -> dict[tuple[str, str], APIRoute]:
    """Every operation the app serves under its base path, from its routers (what the app
    routes, whether or not its OpenAPI document shows it)."""
    served = {}
    for prefix, router in ROUTERS:
        for route in router.routes:
            if prefix != BASE_PATH or not isinstance(route, APIRoute):
                continue
            for method in route.methods - {"HEAD", "OPTIONS"}:
                served[(method, _template(route.path))] = route
    return served


def test_every_route_of_the_app_has_a_client_method_with_the_routes_model() -> None:
    served = _served()
    table = {(op.method, _template(op.path)): op for op in OPERATIONS}
    missing = sorted(f"{method} {path}" for method, path in served.keys() - table.keys())
    assert missing == [], f"served without a client method: {missing}"
    unserved = sorted(table[key].qualified_name for key in table.keys() - served.keys())
    assert unserved == [], f"client methods the app does not serve: {unserved}"
    drift = []
    for key, route in served.items():
        op = table[key]
        if route.status_code == 204:
            expected: object = None
        elif op.qualified_name == "sandbox.webhook_public_key":  # PEM text
            expected = str
        else:
            expected = route.response_model
        if expected is None and route.status_code != 204:
            drift.append(f"{op.qualified_name}: the route declares no response_model")
        elif op.response_model != expected:
            drift.append(f"{op.qualified_name}: route {expected}, client {op.response_model}")
    assert drift == [], drift


def _declared(group_class: type) -> dict[str, object]:
    hints = typing.get_type_hints(group_class)
    return {name: hint for name, hint in hints.items() if not name.startswith("_")}


def test_the_typed_groups_are_the_tables() -> None:
    """What a type checker sees (the group classes' annotations) is what the table does."""
    assert set(SYNC_GROUPS) == set(ASYNC_GROUPS) == set(GROUPS)
    for group, kinds in ((g, (SYNC_GROUPS[g], ASYNC_GROUPS[g])) for g in GROUPS):
        rows = {op.name: op for op in OPERATIONS if op.group == group}
        for kind in kinds:
            declared = _declared(kind)
            assert set(declared) == set(rows), (kind.__name__, set(rows) ^ set(declared))
            for name, annotation in declared.items():
                op = rows[name]
                arguments = typing.get_args(annotation)
                origin = typing.get_origin(annotation)
                model = type(None) if op.response_model is None else op.response_model
                expected: object = model
                if op.signing == "retry":
                    expected = typing.Union[model, SignedRequestChallengeOut]  # noqa: UP007
                assert arguments[0] == expected, (op.qualified_name, arguments[0], expected)
                is_list = origin in (SyncListOperation, AsyncListOperation)
                assert is_list is op.paginated, op.qualified_name
                if op.paginated:
                    item = typing.get_args(op.response_model.model_fields["data"].annotation)[0]
                    assert arguments[1] == item, op.qualified_name


def test_the_typed_groups_are_generated_from_the_table() -> None:
    """The typed groups are written from the table (``scripts/client_group_types.py``): one
    source of truth, the sync and async classes derived from its rows."""
    generator = runpy.run_path(str(REPO / "scripts" / "client_group_types.py"))
    assert generator["stale"]() == [], "run scripts/client_group_types.py"


def test_the_table_is_consistent() -> None:
    # One area (a module of the table) per group: its GROUPS name it, its ROWS are all of it.
    owners = [group for area in AREAS for group in area.GROUPS]
    assert len(owners) == len(set(owners)) == len(GROUPS)
    for area in AREAS:
        assert {op.group for op in area.ROWS} == set(area.GROUPS), area.__name__
    names = [op.qualified_name for op in OPERATIONS]
    assert len(set(names)) == len(names)
    assert {op.group for op in OPERATIONS} == set(GROUPS)
    assert issubclass(Client, SyncGroups) and issubclass(AsyncClient, AsyncGroups)
    for typed in (SyncGroups, AsyncGroups):  # one typed attribute per group
        assert set(typing.get_type_hints(typed)) == set(GROUPS)
    for op in OPERATIONS:
        assert op.method in ("GET", "POST", "PUT", "PATCH", "DELETE")
        assert not op.multipart or op.method in ("POST", "PUT")
        assert op.idempotent is (op.method != "POST"), op.qualified_name
        assert set(op.secret_params) <= set(op.path_params)
        assert (op.signing == "payload") is (op.payload_from is not None)
        if op.payload_from:
            reader = next(o for o in OPERATIONS if o.qualified_name == op.payload_from)
            assert reader.path_params == op.path_params
        assert (op.auth == "agent") is op.path.startswith("/agents/me")


def test_groups_and_paths_are_the_published_documents() -> None:
    if not PUBLISHED.is_file():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{PUBLISHED} not found (CI=true: the published document is required)")
        pytest.skip(f"{PUBLISHED} not found")
    document = yaml.safe_load(PUBLISHED.read_text())
    published = {
        operation["operationId"]: (method.upper(), path, operation["tags"][0])
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if isinstance(operation, dict) and "operationId" in operation
    }
    for op in OPERATIONS:
        if op.qualified_name in SANDBOX_ONLY:
            assert op.operation_id not in published
            continue
        method, path, tag = published[op.operation_id]
        assert (op.method, op.path) == (method, path), op.qualified_name
        assert GROUPS[op.group] == tag, op.qualified_name


def test_the_guide_lists_every_operation() -> None:
    rows = re.findall(
        r"^\| `(\w+)` \(([^)]*)\) \| (.+) \|$", (REPO / "docs" / "client.md").read_text(), re.M
    )
    listed = {
        f"{group}.{name}" for group, _, names in rows for name in re.findall(r"`(\w+)`", names)
    }
    assert listed == {op.qualified_name for op in OPERATIONS}
    assert {group: tag.split(",")[0] for group, tag, _ in rows} == GROUPS
