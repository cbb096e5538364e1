"""The offline API explorer (``/2025-10-13/docs``) and the root ``/docs`` and ``/openapi.json``.

The browser test opens the explorer in headless Chromium with every request to anything but
127.0.0.1 aborted, and checks that Swagger UI rendered the service's operations and that the
page asked for nothing off the machine. Without Chromium it skips and says so, except under
``CI=true`` (the sandbox conftest's ``browser``, from ``tests/_chromium.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from embedded_wallet_crypto.sandbox import BASE_PATH
from embedded_wallet_crypto.sandbox.api.explorer import ASSETS, ASSETS_PATH

from ._server import SandboxServer

pytestmark = pytest.mark.sqlite_only  # nothing stored


@pytest.fixture(scope="module")
def explorer_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    running = SandboxServer(tmp_path_factory.mktemp("explorer"))
    running.start()
    yield running
    assert running.stop() == 0


def _origin(server: SandboxServer) -> str:
    return server.base_url.removesuffix(BASE_PATH)


def test_root_docs_and_openapi(explorer_server: SandboxServer) -> None:
    with httpx.Client(base_url=_origin(explorer_server), timeout=30) as http:
        docs = http.get("/docs")
        assert docs.status_code == 307
        assert docs.headers["location"] == f"{BASE_PATH}/docs"
        root = http.get("/openapi.json")
        versioned = http.get(f"{BASE_PATH}/openapi.json")
        assert root.status_code == versioned.status_code == 200
        assert root.json() == versioned.json()
        assert f"{BASE_PATH}/customers" in root.json()["paths"]


def test_the_explorer_page_names_only_its_own_files(explorer_server: SandboxServer) -> None:
    with httpx.Client(base_url=_origin(explorer_server), timeout=30) as http:
        page = http.get(f"{BASE_PATH}/docs")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        urls = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", page.text)
        assert urls, page.text
        for url in urls:
            assert not urlsplit(url).netloc, url  # nothing from another host
        for name in ASSETS:
            asset = http.get(f"{ASSETS_PATH}/{name}")
            assert asset.status_code == 200, name
            assert len(asset.content) > 1000, name
        assert (
            http.get(f"{ASSETS_PATH}/swagger-ui.css").headers["content-type"].startswith("text/css")
        )


def test_the_explorer_renders_with_no_network(
    browser: Any,
    explorer_server: SandboxServer,
) -> None:
    blocked: list[str] = []
    context = browser.new_context()

    def route(request_route: Any) -> None:
        host = urlsplit(request_route.request.url).hostname
        if host == "127.0.0.1":
            request_route.continue_()
        else:
            blocked.append(request_route.request.url)
            request_route.abort()

    context.route("**/*", route)
    try:
        page = context.new_page()
        page.goto(explorer_server.base_url + "/docs")
        page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
        title = page.locator(".swagger-ui .info .title").inner_text()
        assert "Embedded-wallet sandbox service" in title
        operations = page.locator(".swagger-ui .opblock").count()
        assert operations > 30, operations
        assert page.locator(".swagger-ui .errors-wrapper").count() == 0
    finally:
        context.close()
    assert blocked == []


def test_assets_come_from_the_installed_package() -> None:
    """The files are the dependency's, not a copy in this repository."""
    from importlib.resources import files

    directory = Path(str(files("fastapi_offline").joinpath("static")))
    for name in ASSETS:
        assert (directory / name).is_file(), name
