"""Headless Chromium through Playwright, for the browser tests (the passkeys test, the sandbox
page and its API explorer).

Debian's ``/usr/bin/chromium`` is used (``EWC_CHROMIUM`` overrides); Playwright never downloads
a browser. Without a browser or Playwright the tests skip and say so, except under ``CI=true``
(:func:`_ci.skip_or_fail`).

Tests import it as ``_chromium`` (``tests/`` is on the path).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _ci import skip_or_fail

__all__ = ["add_virtual_authenticator", "launched_chromium"]


def _executable() -> str:
    path = os.environ.get("EWC_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        skip_or_fail(
            f"no Chromium binary at {path} (apt-get install chromium, or set EWC_CHROMIUM)"
        )
    return path


@contextmanager
def launched_chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright's ``Browser``), closed afterwards."""
    executable = _executable()
    try:
        from playwright import sync_api
    except ImportError:
        skip_or_fail("playwright is not installed (pip install -r requirements-dev.txt)")
    # Chromium refuses to run as root with its sandbox; containers often have a tiny /dev/shm.
    args = ["--disable-dev-shm-usage", *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=args)
        try:
            yield browser
        finally:
            browser.close()


def add_virtual_authenticator(page: Any) -> None:
    """A CDP virtual authenticator (the DevTools WebAuthn domain) for ``page``'s context: an
    internal CTAP2 authenticator with resident keys that verifies the user and simulates their
    presence, so ``navigator.credentials`` answers without a prompt."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    options = {
        "protocol": "ctap2",
        "transport": "internal",
        "hasResidentKey": True,
        "hasUserVerification": True,
        "isUserVerified": True,
        "automaticPresenceSimulation": True,
    }
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})
