"""The sandbox page (``GET /``) in a real browser: headless Chromium driven by Playwright.

Two parts:
- the page's own cryptography (``sandbox/static/page.js``: base58check, P-256 point
  decompression, the HPKE open, DER signatures and the stamp), run in Chromium against known
  answers: the project's vectors and values made by the Python library (the oracle);
- the page end to end against a real ``ewc serve`` process, with a CDP virtual authenticator:
  create a customer, register a passkey, log in, open the session key, show and fund the
  wallet's balance, create a quote from the wallet, stamp its payloadToSign in the browser and
  execute it (the transaction followed until it completes), export the wallet with a signed
  retry and open the envelope, revoke the session with a signed retry; and the refusals the
  page shows: a tampered payloadToSign (by the page itself, or by the service when the page
  stamped other bytes) and a stamp by a key the service never issued.

Debian's ``/usr/bin/chromium`` is used (``EWC_CHROMIUM`` overrides); without a browser the tests
skip and say so, except under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

import embedded_wallet_crypto as ewc
import httpx
import pytest
from conftest import REPO, load_upstream_json
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from ._client import SandboxClient
from ._payments import accounts, balance, settled, usd_external
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


# ---- a quote's payloadToSign: the page's check and its stamp ------------------------------

#: A quote from an embedded wallet as the sandbox answers it (fixed values), and the summary its
#: payloadToSign carries in ``unsignedTransaction``.
QUOTE = {
    "id": "Quote:page-kat",
    "destination": {"destinationType": "ACCOUNT", "accountId": "InternalAccount:usd"},
    "sendingCurrency": {"code": "USDC", "name": "USD Coin", "symbol": "USDC", "decimals": 6},
    "receivingCurrency": {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2},
    "totalSendingAmount": 10_150_000,
    "totalReceivingAmount": 1_000,
}
WALLET = "InternalAccount:wallet"


def _quote_payload(summary_changes: dict[str, Any] | None = None, **parameters: Any) -> str:
    summary = {
        "quoteId": QUOTE["id"],
        "sendingCurrency": "USDC",
        "totalSendingAmount": QUOTE["totalSendingAmount"],
        "receivingCurrency": "USD",
        "totalReceivingAmount": QUOTE["totalReceivingAmount"],
        "destination": QUOTE["destination"],
        **(summary_changes or {}),
    }
    unsigned = json.dumps(summary, separators=(",", ":"), sort_keys=True).encode().hex()
    fields = {
        "signWith": WALLET,
        "unsignedTransaction": unsigned,
        "type": "TRANSACTION_TYPE_QUOTE",
        **parameters,
    }
    return json.dumps(
        {
            "organizationId": "org-page",
            "parameters": fields,
            "timestampMs": "1700000000000",
            "type": "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        },
        separators=(",", ":"),
    )


CHECK_QUOTE_PAYLOAD = """
try { return {summary: m.checkQuotePayload(arg.payload, arg.quote, arg.wallet)}; }
catch (error) { return {error: String(error)}; }
"""


def test_the_page_checks_a_quote_payload_before_stamping(js: Any) -> None:
    good = _quote_payload()
    got = js(CHECK_QUOTE_PAYLOAD, {"payload": good, "quote": QUOTE, "wallet": WALLET})
    assert got["summary"]["quoteId"] == QUOTE["id"]
    refused = {
        "another wallet": _quote_payload(signWith="InternalAccount:other"),
        "another quote": _quote_payload({"quoteId": "Quote:other"}),
        "another amount": _quote_payload({"totalSendingAmount": 10_150_001}),
        "another currency": _quote_payload({"receivingCurrency": "EUR"}),
        "another destination": _quote_payload({"destination": {"accountId": "X"}}),
        "not hex": _quote_payload(unsignedTransaction="zz"),
        "odd hex": _quote_payload(unsignedTransaction="7b2"),
        "not a summary": _quote_payload(unsignedTransaction=b"[1]".hex()),
        "another activity": good.replace("SIGN_TRANSACTION_V2", "EXPORT_WALLET"),
        "not JSON": good[:-1],
    }
    for why, payload in refused.items():
        got = js(CHECK_QUOTE_PAYLOAD, {"payload": payload, "quote": QUOTE, "wallet": WALLET})
        assert "payloadToSign is not this quote" in got.get("error", ""), why


def test_the_page_stamps_quote_payloads_known_answer(js: Any) -> None:
    """Upstream's P-256 fixture key: the browser derives its published public key, and its
    stamps over fixed quote payloads verify with the library under that key (and only over
    those bytes, and only for that key)."""
    (fixture,) = [
        case
        for case in load_upstream_json("turnkey-sdk/api_key_stamps.json")["cases"]
        if case["id"] == "p256-fixture-key"
    ]
    private_key = fixture["input"]["private_key_hex"]
    public_key = fixture["expected"]["public_key_compressed_hex"]
    (scenario,) = [
        case
        for case in json.loads((VECTORS / "signed_retry.json").read_text())["cases"]
        if case["id"] == "execute-quote-once"
    ]
    vector_payload = next(
        outcome["challenge"]["payloadToSign"]
        for outcome in scenario["expected"]["outcomes"]
        if "challenge" in outcome
    )
    assert json.loads(vector_payload)["type"] == "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
    payloads = [vector_payload, _quote_payload()]
    got = js(
        """const session = await m.importScalar(m.unhex(arg.key), "sign");
        const stamps = [];
        for (const payload of arg.payloads) stamps.push(await m.createStamp(session, payload));
        return {publicKey: m.hex(m.compress(session.publicKey)), stamps};""",
        {"key": private_key, "payloads": payloads},
    )
    assert got["publicKey"] == public_key
    other = ewc.KeyPair.from_private_hex("44" * 32).public_key_hex(compressed=True)
    for payload, stamp in zip(payloads, got["stamps"], strict=True):
        verified = ewc.verify_stamp(stamp, payload, expected_public_key=public_key)
        assert verified.public_key == public_key
        assert verified.scheme == "SIGNATURE_SCHEME_TK_API_P256"
        with pytest.raises(ewc.StampError):
            ewc.verify_stamp(stamp, payload.replace("1700000000000", "1700000000001"))
        with pytest.raises(ewc.StampError):
            ewc.verify_stamp(stamp, payload, expected_public_key=other)


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
        # Payments settle in half a second; quotes and challenges still live over a minute.
        time_scale=0.25,
    )
    running.start()
    running.origin = f"http://localhost:{port}"
    yield running
    assert running.stop() == 0


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
        page.goto(server.origin + "/")
        page.fill("#credentials", ":".join(server.auth))
        yield page
    finally:
        context.close()


#: What the page funds the wallet with by default (50 USDC) and quotes (10.00 USD to arrive).
FUND = 50_000_000
RECEIVE = 1_000


def _deposit(api: SandboxClient, customer_id: str, wallet_id: str) -> None:
    """Production has no funding endpoint: the platform's backend (here, the test) moves money
    in through the interface: a transfer-in of USD from the customer's bank account, then a
    USD to USDC quote executed at once into the wallet."""
    usd = accounts(api, customer_id)["USD"]["id"]
    bank = usd_external(api, customer_id, "999")
    pulled = api.post(
        "/transfer-in",
        {"source": {"accountId": bank["id"]}, "destination": {"accountId": usd}, "amount": 10_000},
    )
    assert pulled.status_code == 201, pulled.text
    assert settled(api, pulled.json()["id"])["status"] == "COMPLETED"
    quote = api.post(
        "/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": usd},
            "destination": {"destinationType": "ACCOUNT", "accountId": wallet_id},
            "lockedCurrencySide": "RECEIVING",
            "lockedCurrencyAmount": FUND,
            "immediatelyExecute": True,
        },
    )
    assert quote.status_code == 201, quote.text
    assert settled(api, quote.json()["transactionId"])["status"] == "COMPLETED"


def _log_in_and_fund(page: Any, api: SandboxClient, environment: str) -> dict[str, Any]:
    """Customer, passkey, session key, and a wallet holding FUND: funded by the page in the
    sandbox; in production the page shows that funding is sandbox-only and the platform
    deposits instead. Returns the account step's answer."""
    account = _step(page, "account")
    _step(page, "register")
    _step(page, "login")
    _step(page, "open")
    assert _step(page, "balance")["amount"] == 0
    if environment == "sandbox":
        funded = _step(page, "fund")
    else:
        refused = _refused(page, "fund")
        assert "sandbox-only" in refused and "403" in refused and "FORBIDDEN" in refused
        _deposit(api, account["customerId"], account["accountId"])
        funded = _step(page, "balance")
    assert funded["amount"] == FUND
    assert funded["balance"] == "50.000000 USDC"
    assert balance(api, account["customerId"], "WALLET") == FUND
    return dict(account)


def test_the_page_runs_every_step_against_the_service(
    browser: Any, page_server: SandboxServer
) -> None:
    served = httpx.get(page_server.origin + "/page.js")
    assert served.status_code == 200
    assert served.headers["content-type"].startswith("text/javascript")
    api = SandboxClient(page_server.base_url, page_server.auth)
    assert "/page.js" not in api.get("/openapi.json").json()["paths"]
    with _browser_page(browser, page_server) as page:
        account = _step(page, "account")
        account_id = account["accountId"]
        registered = _step(page, "register")
        assert registered["type"] == "PASSKEY"
        assert registered["accountId"] == account_id
        session = _step(page, "login")
        assert session["id"].startswith("Session:")
        opened = _step(page, "open")

        # The wallet's balance, funded where the environment allows it.
        shown = _step(page, "balance")
        assert shown == {
            "accountId": account_id,
            "type": "EMBEDDED_WALLET",
            "amount": 0,
            "balance": "0.000000 USDC",
        }
        if page_server.environment == "sandbox":
            assert _step(page, "fund")["amount"] == FUND
        else:
            assert "sandbox-only" in _refused(page, "fund")
            _deposit(api, account["customerId"], account_id)
            assert _step(page, "balance")["amount"] == FUND

        # A quote from the wallet, its payloadToSign stamped in the browser, executed.
        usd_before = balance(api, account["customerId"], "USD")
        quote = _step(page, "quote")
        assert quote["receiving"] == "10.00 USD"
        issued = api.get(f"/quotes/{quote['id']}").json()
        assert issued["source"]["accountId"] == account_id
        (instruction,) = issued["paymentInstructions"]
        assert quote["payloadToSign"] == instruction["payloadToSign"]
        executed = _step(page, "execute")
        assert executed["quoteId"] == quote["id"]
        assert executed["payloadToSign"] == instruction["payloadToSign"]
        assert executed["quoteStatus"] == "PROCESSING"
        # The stamp the browser made verifies over exactly those bytes, by the session key.
        stamp = ewc.verify_stamp(
            executed["stamp"],
            instruction["payloadToSign"],
            expected_public_key=opened["sessionPublicKey"],
        )
        assert stamp.public_key == opened["sessionPublicKey"]
        # The page followed the transaction until it completed.
        assert executed["status"] == "COMPLETED"
        assert executed["statuses"][-1] == "COMPLETED"
        assert executed["transactionId"] == issued["transactionId"]
        transaction = api.get(f"/transactions/{issued['transactionId']}").json()
        assert transaction["status"] == "COMPLETED"
        assert api.get(f"/quotes/{quote['id']}").json()["status"] == "COMPLETED"
        assert executed["wallet"]["amount"] == FUND - issued["totalSendingAmount"]
        assert balance(api, account["customerId"], "WALLET") == FUND - issued["totalSendingAmount"]
        assert balance(api, account["customerId"], "USD") == usd_before + RECEIVE

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
    api.close()


def _tamper_quotes(page: Any, change: Any) -> None:
    """Between the service and the page: ``POST /quotes`` answers with ``change`` applied to
    the quote's payloadToSign (the service's own record is untouched)."""

    def handle(route: Any) -> None:
        response = route.fetch()
        quote = response.json()
        for instruction in quote.get("paymentInstructions", []):
            instruction["payloadToSign"] = change(instruction["payloadToSign"])
        route.fulfill(response=response, json=quote)

    page.route("**/2025-10-13/quotes", handle)


def _with_summary(payload: str, **changes: Any) -> str:
    fields = json.loads(payload)
    summary = json.loads(bytes.fromhex(fields["parameters"]["unsignedTransaction"]))
    summary.update(changes)
    unsigned = json.dumps(summary, separators=(",", ":"), sort_keys=True).encode().hex()
    fields["parameters"]["unsignedTransaction"] = unsigned
    return json.dumps(fields, separators=(",", ":"))


def test_the_page_shows_refused_executions(browser: Any, page_server: SandboxServer) -> None:
    """A tampered payloadToSign and a stamp by another key are refused, and the page shows why;
    the quote stays unexecuted and the wallet untouched, and the honest execution then
    succeeds."""
    api = SandboxClient(page_server.base_url, page_server.auth)
    with _browser_page(browser, page_server) as page:
        account = _log_in_and_fund(page, api, page_server.environment)
        executions: list[str] = []
        page.on(
            "request",
            lambda request: executions.append(request.url) if "/execute" in request.url else None,
        )

        # 1. A payloadToSign that names other amounts: the page refuses to stamp it.
        _tamper_quotes(page, lambda payload: _with_summary(payload, totalSendingAmount=1))
        first = _step(page, "quote")
        refused = _refused(page, "execute")
        assert "payloadToSign is not this quote: totalSendingAmount differs" in refused
        assert executions == []
        page.unroute("**/2025-10-13/quotes")

        # 2. Other bytes that still name this quote (another timestamp): the page stamps them,
        # the service refuses the stamp over bytes it did not issue.
        _tamper_quotes(
            page, lambda payload: re.sub(r'"timestampMs":"\d+"', '"timestampMs":"1"', payload)
        )
        second = _step(page, "quote")
        assert '"timestampMs":"1"' in second["payloadToSign"]
        refused = _refused(page, "execute")
        assert "401" in refused and "Invalid Service-Wallet-Signature" in refused
        assert len(executions) == 1
        page.unroute("**/2025-10-13/quotes")
        for quote in (first, second):
            assert api.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING"
        assert balance(api, account["customerId"], "WALLET") == FUND

        # 3. A session key the service never issued: log in again, and between the service and
        # the page seal a fixed foreign key to the page's clientPublicKey instead.
        foreign = ewc.KeyPair.from_private_hex("44" * 32)
        client_keys: list[str] = []

        def capture(route: Any) -> None:
            client_keys.append(route.request.post_data_json["clientPublicKey"])
            route.continue_()

        def swap(route: Any) -> None:
            response = route.fetch()
            session = response.json()
            session["encryptedSessionSigningKey"] = ewc.seal_session_key(client_keys[-1], foreign)
            route.fulfill(response=response, json=session)

        page.route("**/challenge", capture)
        page.route("**/verify", swap)
        _step(page, "login")
        page.unroute("**/challenge")
        page.unroute("**/verify")
        opened = _step(page, "open")
        assert opened["sessionPublicKey"] == foreign.public_key_hex(compressed=True)
        third = _step(page, "quote")
        refused = _refused(page, "execute")
        assert "401" in refused and "Invalid Service-Wallet-Signature" in refused
        assert api.get(f"/quotes/{third['id']}").json()["status"] == "PENDING"
        assert balance(api, account["customerId"], "WALLET") == FUND

        # The refusals left the last quote executable: the wallet's own session key pays it.
        _step(page, "login")
        _step(page, "open")
        executed = _step(page, "execute")
        assert executed["quoteId"] == third["id"]
        assert executed["status"] == "COMPLETED"
        assert executed["wallet"]["amount"] == FUND - _sent(api, third["id"])
    api.close()


def _sent(api: SandboxClient, quote_id: str) -> int:
    """The quote's totalSendingAmount, as the service recorded it."""
    total: int = api.get(f"/quotes/{quote_id}").json()["totalSendingAmount"]
    return total


# ---- what a first-time user meets: every error in words ------------------------------------


def test_the_page_explains_missing_and_wrong_credentials(
    browser: Any, page_server: SandboxServer
) -> None:
    with _browser_page(browser, page_server) as page:
        page.fill("#credentials", "")
        assert "Paste the platform credentials first" in _refused(page, "account")
        page.fill("#credentials", "platform-test:not-the-secret")
        # Answered in words (the browser's own login dialog never opens: it would hang here).
        refused = _refused(page, "account")
        assert "refused the platform credentials" in refused
        assert "401 UNAUTHORIZED" in refused and "Invalid platform credentials." in refused
        assert "{" not in refused  # the reason, not the raw JSON body


def test_the_page_says_which_step_comes_first(browser: Any, page_server: SandboxServer) -> None:
    with _browser_page(browser, page_server) as page:
        assert "Create a customer first" in _refused(page, "register")
        _step(page, "account")
        assert "Register a passkey first" in _refused(page, "login")
        assert "Log in first" in _refused(page, "open")
        assert "Create a quote first" in _refused(page, "execute")
        assert "Log in and open the session key first" in _refused(page, "export")
        assert "TypeError" not in page.inner_text("body")


def test_the_page_on_an_ip_address_points_to_localhost(
    browser: Any, page_server: SandboxServer
) -> None:
    port = page_server.origin.rsplit(":", 1)[1]
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector("#host-warning:not([hidden])", timeout=10_000)
        warning = page.inner_text("#host-warning")
        assert "Passkeys need a domain name" in warning and f"http://localhost:{port}/" in warning
        page.fill("#credentials", ":".join(page_server.auth))
        _step(page, "account")
        assert f"http://localhost:{port}/" in _refused(page, "register")
    finally:
        context.close()
