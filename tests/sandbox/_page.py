"""Driving the sandbox page (``GET /``) in Chromium, for ``test_page``: a fresh browser context
with a virtual authenticator on the service's page, and its steps (a button clicked, the step's
outcome read from its output box)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from _chromium import add_virtual_authenticator

from ._server import SandboxServer


def _click(page: Any, name: str) -> tuple[str, str]:
    page.click(f"button[data-step={name}]")
    page.wait_for_selector(f"#out-{name}.ok, #out-{name}.error", timeout=60_000)
    return page.get_attribute(f"#out-{name}", "class"), page.inner_text(f"#out-{name}")


def _step(page: Any, name: str) -> Any:
    state, text = _click(page, name)
    assert state == "ok", f"{name}: {text}"
    return json.loads(text)


def _refused(page: Any, name: str) -> str:
    """The step fails and the page shows why."""
    state, text = _click(page, name)
    assert state == "error", f"{name} should have failed: {text}"
    return text


@contextmanager
def _browser_page(browser: Any, server: SandboxServer) -> Iterator[Any]:
    """A fresh browser context with a CDP virtual authenticator, on the service's page, with
    the platform credentials filled in."""
    context = browser.new_context()
    page = context.new_page()
    add_virtual_authenticator(page)
    try:
        page.goto(server.origin + "/")
        page.fill("#credentials", ":".join(server.auth))
        yield page
    finally:
        context.close()
