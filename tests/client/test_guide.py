"""The client guide (docs/client.md) runs as written against a real ``ewc serve`` over HTTP in
both environments: the page reads ``EWC_GUIDE_ENVIRONMENT`` (default ``sandbox``, the run of
tests/test_readme.py) and starts its service with ``--environment`` set to it. Its sync blocks
and its async block (login by email code and passkey, signed retries, export, a quote from the
wallet, a webhook verified, pages) run in each; tests/client/test_flows.py runs every flow
through ``Client`` and ``AsyncClient`` in both environments besides."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from conftest import REPO

_spec = importlib.util.spec_from_file_location("doc_examples", REPO / "scripts" / "doc_examples.py")
assert _spec is not None and _spec.loader is not None
doc_examples = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(doc_examples)

GUIDE = REPO / "docs" / "client.md"


@pytest.mark.parametrize("environment", ["sandbox", "production"])
def test_client_guide_runs_in_each_environment(
    environment: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EWC_GUIDE_ENVIRONMENT", environment)
    page: dict[str, Any] = {}
    try:
        assert doc_examples.run_page(GUIDE, page) >= 10
    finally:
        service = page.get("service")
        if service is not None and service.poll() is None:
            service.kill()
            service.wait(timeout=30)
    # The run took this environment's way: the service it started, the client's settings,
    # the export envelope (signed by the production service's key, pinned from its bundle).
    assert page["ENVIRONMENT"] == environment
    assert "--environment" in page["service"].args
    assert page["service"].args[page["service"].args.index("--environment") + 1] == environment
    assert page["service"].returncode == 0
    production = environment == "production"
    assert (page["SIGNER_KEY"] is not None) is production
    assert page["exported"].signed is production
    assert page["executed"].transactionId and page["event"]["data"]["id"] == page["pulled"].id
