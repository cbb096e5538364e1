"""The sandbox page (``GET /``) in a real browser: headless Chromium driven by Playwright.

Two parts:
- the page's own cryptography (``sandbox/static/page.js``: base58check, P-256 point
  decompression, the HPKE open, DER signatures and the stamp), run in Chromium against known
  answers: the project's vectors and values made by the Python library (the oracle);
- the page end to end against a real ``ewc serve`` process, with a CDP virtual authenticator:
  create a customer, register a passkey, log in, open the session key, export the wallet with a
  signed retry and open the envelope, revoke the session with a signed retry.

Debian's ``/usr/bin/chromium`` is used (``EWC_CHROMIUM`` overrides); without a browser the tests
skip and say so, except under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

import embedded_wallet_crypto as ewc
import httpx
import pytest
from conftest import REPO
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from ._server import SandboxServer

STATIC = resources.files("embedded_wallet_crypto") / "sandbox" / "static"
VECTORS = REPO / "vectors"


def _unavailable(message: str) -> NoReturn:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: the browser test is required)")
    pytest.skip(message)


def _chromium() -> str:
    path = os.environ.get("EWC_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        _unavailable(
            f"no Chromium binary at {path} (apt-get install chromium, or set EWC_CHROMIUM)"
        )
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = _chromium()
    try:
        from playwright import sync_api
    except ImportError:
        _unavailable("playwright is not installed (pip install -r requirements-dev.txt)")
    # Chromium refuses to run as root with its sandbox; containers often have a tiny /dev/shm.
    args = ["--disable-dev-shm-usage", *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True, args=args)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def static_origin() -> Iterator[str]:
    """The static files alone on a loopback origin (a secure context), no service behind them."""
    handler = partial(SimpleHTTPRequestHandler, directory=str(STATIC))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def js(browser: Any, static_origin: str) -> Iterator[Any]:
    """Calls into page.js: ``js(expression, argument)`` evaluates with ``m`` the module."""
    page = browser.new_page()
    page.goto(static_origin + "/index.html")

    def call(body: str, argument: Any = None) -> Any:
        return page.evaluate(
            f"async (arg) => {{ const m = await import('/page.js'); {body} }}", argument
        )

    yield call
    page.close()


def _cases(name: str, operation: str) -> list[dict[str, Any]]:
    cases = json.loads((VECTORS / f"{name}.json").read_text())["cases"]
    return [case for case in cases if case["operation"] == operation]


# ---- the page's cryptography against known answers ---------------------------------------

OPEN_SESSION_KEY = """
const client = await m.importScalar(m.unhex(arg.client_private_key), "derive");
try {
  const session = await m.openSessionKey(arg.encrypted, client);
  const jwk = await crypto.subtle.exportKey("jwk", session.privateKey);
  return {scalar: m.hex(m.unb64url(jwk.d)), publicKey: m.hex(session.publicKey)};
} catch (error) { return {error: String(error)}; }
"""


@pytest.mark.parametrize(
    "case", _cases("session_key", "session_key_open"), ids=lambda case: case["id"]
)
def test_the_page_opens_the_session_key_vectors(js: Any, case: dict[str, Any]) -> None:
    inputs = dict(case["inputs"], client_private_key=case["inputs"]["client_private_key"].lower())
    got = js(OPEN_SESSION_KEY, inputs)
    if case["valid"]:
        assert got == {
            "scalar": case["expected"]["session_private_key"],
            "publicKey": case["expected"]["session_public_key"],
        }
    else:
        assert "error" in got, case["error"]


def test_the_page_opens_what_the_library_seals(js: Any) -> None:
    # Fixed ephemeral keys of both parities (the compressed enc starts 02 or 03), so the
    # decompression takes both branches on every run.
    client = ewc.KeyPair.from_private_hex("11" * 32)
    parities = set()
    for seed in range(1, 9):
        ephemeral = ewc.KeyPair.from_private_hex(f"{seed:064x}")
        session = ewc.KeyPair.from_private_hex(f"{seed + 1000:064x}")
        enc, ciphertext = ewc.hpke.seal_deterministic_for_tests(
            client.public_key_hex(), session.private_key_bytes(), ephemeral_key=ephemeral
        )
        compressed = ewc.compress_public_key(enc)
        parities.add(compressed[0])
        encrypted = ewc.b58check_encode(compressed + ciphertext)
        assert ewc.open_session_key(encrypted, client).private_key_bytes() == (
            session.private_key_bytes()
        )
        got = js(OPEN_SESSION_KEY, {"client_private_key": "11" * 32, "encrypted": encrypted})
        assert got == {
            "scalar": session.private_key_bytes().hex(),
            "publicKey": session.public_key_hex(),
        }
    assert parities == {2, 3}


def test_the_page_decompresses_points_like_the_library(js: Any) -> None:
    points = [ewc.KeyPair.from_private_hex(f"{d:064x}").public_key_hex() for d in range(1, 17)]
    compressed = [ewc.compress_public_key(point).hex() for point in points]
    got = js("return arg.map((p) => m.hex(m.decompress(m.unhex(p))));", compressed)
    assert got == points
    # Not on the curve: x = 1 has no y (the library refuses the same point).
    not_a_point = "02" + "00" * 31 + "01"
    with pytest.raises(ewc.InvalidKey):
        ewc.parse_public_key(not_a_point)
    assert (
        js(
            "try { m.decompress(m.unhex(arg)); return 'opened'; } catch (e) { return 'refused'; }",
            not_a_point,
        )
        == "refused"
    )


def test_the_page_opens_export_envelopes(js: Any) -> None:
    cases = [
        case
        for case in _cases("export", "export_open")
        if case["valid"] and json.loads(case["inputs"]["bundle"]).get("version") == "v1.0.0"
    ]
    assert cases
    for case in cases:
        got = js(
            """const client = await m.importScalar(m.unhex(arg.key), "derive");
            const opened = await m.openExportEnvelope(arg.bundle, client);
            return m.hex(new TextEncoder().encode(opened.plaintext));""",
            {"key": case["inputs"]["client_private_key"], "bundle": case["inputs"]["bundle"]},
        )
        if case["expected"]["plaintext"].startswith("6c6567616c"):  # the mnemonic (text)
            assert got == case["expected"]["plaintext"], case["id"]
    # The sandbox form (unsigned), sealed by the library.
    client = ewc.KeyPair.from_private_hex("22" * 32)
    bundle = ewc.seal_export_bundle(
        client.public_key_hex(), "legal winner thank year", organization_id="org-page"
    )
    assert json.loads(bundle)["dataSignature"] == ""
    got = js(
        """const client = await m.importScalar(m.unhex(arg.key), "derive");
        return await m.openExportEnvelope(arg.bundle, client);""",
        {"key": "22" * 32, "bundle": bundle},
    )
    assert got == {
        "signed": False,
        "organizationId": "org-page",
        "plaintext": "legal winner thank year",
    }


def test_der_signatures_match_cryptography(js: Any) -> None:
    # r and s with a high first bit (a 0x00 is prepended), with leading zero bytes (stripped),
    # and the smallest values.
    values = [
        1,
        0x7F,
        0x80,
        0xFF << 248,
        0x7F << 248,
        0x80 << 240,
        0x01 << 200,
        0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632550,
    ]
    pairs = [(r, s) for r in values for s in values]
    raws = [r.to_bytes(32, "big").hex() + s.to_bytes(32, "big").hex() for r, s in pairs]
    got = js("return arg.map((raw) => m.hex(m.derSignature(m.unhex(raw))));", raws)
    assert got == [encode_dss_signature(r, s).hex() for r, s in pairs]


def test_the_library_accepts_the_page_stamps(js: Any) -> None:
    payloads = [
        _cases("stamp", "stamp_verify")[0]["inputs"]["payload"],
        '{"organizationId":"org","parameters":{"apiKeyIds":["Session:1"],"userId":"u"},'
        '"timestampMs":"1700000000000","type":"ACTIVITY_TYPE_DELETE_API_KEYS"}',
        "not json at all, ünïcödé ✓ \n trailing space ",
    ]
    session = ewc.KeyPair.from_private_hex("33" * 32)
    stamps = js(
        """const session = await m.importScalar(m.unhex(arg.key), "sign");
        const out = [];
        for (const payload of arg.payloads) {
          for (let i = 0; i < 8; i++) out.push([payload, await m.createStamp(session, payload)]);
        }
        return out;""",
        {"key": "33" * 32, "payloads": payloads},
    )
    reference = ewc.create_stamp("x", session)
    for payload, stamp in stamps:
        verified = ewc.verify_stamp(stamp, payload, expected_public_key=session.public_key_hex())
        assert verified.public_key == ewc.compress_public_key(session.public_key_hex()).hex()
        # The same JSON as the library writes: keys in order, no whitespace, no padding.
        assert "=" not in stamp
        assert _stamp_keys(stamp) == _stamp_keys(reference)
        with pytest.raises(ewc.StampError):
            ewc.verify_stamp(stamp, payload + " ")


def _stamp_keys(stamp: str) -> list[str]:
    import base64

    text = base64.urlsafe_b64decode(stamp + "=" * (-len(stamp) % 4)).decode()
    assert ", " not in text and ": " not in text
    return list(json.loads(text))


# ---- the page against a real ``ewc serve`` ---------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module", params=["sandbox", "production"])
def page_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    """``ewc serve`` whose WebAuthn origin is the page's own: ``http://localhost:PORT``."""
    port = _free_port()
    running = SandboxServer(
        tmp_path_factory.mktemp(f"page-{request.param}"),
        environment=request.param,
        extra=["--port", str(port), "--origin", f"http://localhost:{port}"],
    )
    running.start()
    running.origin = f"http://localhost:{port}"
    yield running
    assert running.stop() == 0


def _step(page: Any, name: str) -> Any:
    page.click(f"button[data-step={name}]")
    page.wait_for_selector(f"#out-{name}.ok, #out-{name}.error", timeout=30_000)
    text = page.inner_text(f"#out-{name}")
    assert page.get_attribute(f"#out-{name}", "class") == "ok", f"{name}: {text}"
    return json.loads(text)


def test_the_page_runs_every_step_against_the_service(
    browser: Any, page_server: SandboxServer
) -> None:
    with httpx.Client(base_url=page_server.base_url, auth=page_server.auth) as api:
        served = httpx.get(page_server.origin + "/page.js")
        assert served.status_code == 200
        assert served.headers["content-type"].startswith("text/javascript")
        assert "/page.js" not in api.get("/openapi.json").json()["paths"]

        context = browser.new_context()
        page = context.new_page()
        cdp = context.new_cdp_session(page)
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
        try:
            page.goto(page_server.origin + "/")
            page.fill("#credentials", ":".join(page_server.auth))

            account = _step(page, "account")
            account_id = account["accountId"]
            registered = _step(page, "register")
            assert registered["type"] == "PASSKEY"
            assert registered["accountId"] == account_id
            session = _step(page, "login")
            assert session["id"].startswith("Session:")
            opened = _step(page, "open")

            # The session key the browser opened is the one the server now expects stamps from.
            exported = _step(page, "export")
            assert exported["status"] == 200
            assert exported["signed"] is (page_server.environment == "production")
            assert ewc.export.check_mnemonic(exported["plaintext"])
            listed = api.get("/auth/sessions", params={"accountId": account_id}).json()["data"]
            assert [item["id"] for item in listed] == [session["id"]]

            revoked = _step(page, "revoke")
            assert revoked["status"] in (200, 204)
            stamp = ewc.verify_stamp(
                revoked["stamp"],
                revoked["payloadToSign"],
                expected_public_key=opened["sessionPublicKey"],
            )
            assert stamp.public_key == opened["sessionPublicKey"]
            listed = api.get("/auth/sessions", params={"accountId": account_id}).json()["data"]
            assert listed == []
        finally:
            context.close()
