"""The sandbox page (``GET /``) end to end in a real browser: headless Chromium driven by
Playwright, with a CDP virtual authenticator, against a real ``ewc serve`` process (sandbox and
production): create a customer, register a passkey, log in, open the session key, show and fund
the wallet's balance, create a quote from the wallet, stamp its payloadToSign in the browser and
execute it (the transaction followed until it completes), export the wallet with a signed retry
and open the envelope, revoke the session with a signed retry; the refusals the page shows: a
tampered payloadToSign (by the page itself, or by the service when the page stamped other bytes)
and a stamp by a key the service never issued; and what a first-time user meets: every error in
words. The page's own cryptography against known answers is ``test_page_crypto``.

Debian's ``/usr/bin/chromium`` is used (``EWC_CHROMIUM`` overrides); without a browser the tests
skip and say so, except under ``CI=true``.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import httpx
import pytest

from ._client import SandboxClient
from ._page import _browser_page, _refused, _step
from ._payments import accounts, balance, settled, usd_external
from ._server import SandboxServer

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
