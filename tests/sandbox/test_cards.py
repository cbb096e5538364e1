"""Cards over real HTTP, in both environments, on SQLite and PostgreSQL: issue, list, read,
update, the reveal through a signed short-lived URL (followed; tampered; never in the request
log), the ten card simulations and their effects on the funding source's balance; production
has no magic values (its KYC waits for manual review) and answers 403 to the simulations."""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._server import SandboxServer

AUTH = {"amount": 1_250, "currency": {"code": "USD"}, "merchant": {"descriptor": "BLUE BOTTLE"}}


def _code(response: httpx.Response) -> str:
    return f"{response.status_code} {response.json()['code']}"


def _holder(client: SandboxClient, *, verified: bool = True, funds: int = 10_000) -> dict[str, Any]:
    customer = client.create_customer(fullName="Jane Doe")
    if verified:
        made = client.post("/verifications", {"customerId": customer["id"]})
        assert made.json()["verificationStatus"] in ("APPROVED", "PENDING_MANUAL_REVIEW")
    listed = client.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    usd = next(a["id"] for a in listed.json()["data"] if a["type"] == "INTERNAL_FIAT")
    if funds:
        client.post(f"/sandbox/internal-accounts/{usd}/fund", {"amount": funds})
    return {"id": customer["id"], "usd": usd}


def _balance(client: SandboxClient, holder: dict[str, Any]) -> int:
    listed = client.get("/customers/internal-accounts", params={"customerId": holder["id"]})
    account = next(a for a in listed.json()["data"] if a["id"] == holder["usd"])
    amount: int = account["balance"]["amount"]
    return amount


def _card(client: SandboxClient, holder: dict[str, Any], **fields: Any) -> dict[str, Any]:
    body = {"cardholderId": holder["id"], "form": "VIRTUAL", "fundingSources": [holder["usd"]]}
    made = client.post("/cards", {**body, **fields})
    assert made.status_code == 201, made.text
    card: dict[str, Any] = made.json()
    assert card["state"] == "PROCESSING"
    return card


def _simulate(client: SandboxClient, card: str, event: str, body: Any) -> httpx.Response:
    return client.post(f"/sandbox/cards/{card}/simulate/{event}", body)


def test_production_serves_cards_without_simulations(
    client: SandboxClient, environment: str
) -> None:
    """Production: cards without the magic values; the simulations 403 after the credentials."""
    if environment != "production":
        pytest.skip("the production answers")
    holder = _holder(client, funds=0)
    assert client.get("/verifications", params={"customerId": holder["id"]}).json()["data"]
    body = {"cardholderId": holder["id"], "form": "VIRTUAL", "fundingSources": [holder["usd"]]}
    # Production has no simulated KYC outcome: the verification waits for manual review.
    assert _code(client.post("/cards", body)) == "400 CARDHOLDER_KYC_NOT_APPROVED"
    assert client.get("/cards", params={"cardholderId": holder["id"]}).json()["data"] == []
    assert _code(client.get("/cards/Card:x")) == "404 NOT_FOUND"
    assert _code(_simulate(client, "Card:x", "authorization", AUTH)) == "403 FORBIDDEN"
    base = str(client.http.base_url).rstrip("/")
    anonymous = httpx.post(f"{base}/sandbox/cards/Card:x/simulate/clearing")
    assert anonymous.status_code == 401


@pytest.fixture
def sandbox_only(environment: str) -> None:
    if environment != "sandbox":
        pytest.skip("the card issuer is simulated in the sandbox only")


@pytest.mark.usefixtures("sandbox_only")
def test_issue_rules(client: SandboxClient) -> None:
    unverified = _holder(client, verified=False, funds=0)
    body = {
        "cardholderId": unverified["id"],
        "form": "VIRTUAL",
        "fundingSources": [unverified["usd"]],
    }
    assert _code(client.post("/cards", body)) == "400 CARDHOLDER_KYC_NOT_APPROVED"
    holder = _holder(client, funds=0)
    foreign = {**body, "cardholderId": holder["id"]}  # another customer's account
    assert _code(client.post("/cards", foreign)) == "400 FUNDING_SOURCE_INELIGIBLE"
    twice = {**foreign, "fundingSources": [holder["usd"], holder["usd"]]}
    assert _code(client.post("/cards", twice)) == "400 FUNDING_SOURCE_INELIGIBLE"
    for bad in (
        {**foreign, "fundingSources": []},
        {**foreign, "form": "PHYSICAL"},
        {**foreign, "fundingSources": [holder["usd"]], "maxSpendPerTransaction": 0},
        {**foreign, "fundingSources": [holder["usd"]], "threeDSecurePassword": "pw"},
        {**foreign, "fundingSources": [holder["usd"]], "platformCardId": "x" * 201},
        {**foreign, "fundingSources": ["A" * 201]},
    ):
        assert _code(client.post("/cards", bad)) == "400 INVALID_INPUT", bad
    card = _card(client, holder, platformCardId=f"emp-{uuid.uuid4().hex}", maxSpendPerTransaction=5)
    read = client.get(f"/cards/{card['id']}").json()
    assert read["state"] == "ACTIVE" and read["currency"] == "USD" and read["last4"].isdigit()
    rejected = _card(client, holder, platformCardId=f"emp-{uuid.uuid4().hex}-002")
    read = client.get(f"/cards/{rejected['id']}").json()
    assert (read["state"], read["stateReason"]) == ("CLOSED", "ISSUER_REJECTED")
    listed = client.get("/cards", params={"accountId": holder["usd"], "state": "ACTIVE"}).json()
    assert [c["id"] for c in listed["data"]] == [card["id"]]
    by_platform = client.get("/cards", params={"platformCardId": card["platformCardId"]}).json()
    assert by_platform["totalCount"] == 1
    assert _code(client.get("/cards", params={"state": "LOST"})) == "400 INVALID_INPUT"
    assert _code(client.get("/cards/Card:missing")) == "404 NOT_FOUND"


@pytest.mark.usefixtures("sandbox_only")
def test_state_transitions(client: SandboxClient) -> None:
    holder = _holder(client, funds=0)
    card = _card(client, holder)["id"]
    patch = lambda body: client.request("PATCH", f"/cards/{card}", json=body)  # noqa: E731
    assert _code(patch({})) == "400 INVALID_INPUT"
    assert _code(patch({"state": "CLOSED", "maxSpendPerTransaction": 5})) == "400 INVALID_INPUT"
    assert _code(patch({"state": "ACTIVE"})) == "409 INVALID_STATE_TRANSITION"
    assert patch({"state": "FROZEN"}).json()["state"] == "FROZEN"
    assert _simulate(client, card, "authorization", AUTH).status_code == 202  # declined
    assert patch({"maxSpendPerTransaction": 10}).json()["maxSpendPerTransaction"] == 10
    assert patch({"maxSpendPerTransaction": None}).json()["maxSpendPerTransaction"] is None
    assert patch({"state": "ACTIVE"}).json()["state"] == "ACTIVE"
    closed = patch({"state": "CLOSED"}).json()
    assert (closed["state"], closed["stateReason"], closed["fundingSources"]) == (
        "CLOSED", "CLOSED_BY_PLATFORM", [],
    )  # fmt: skip
    assert _code(patch({"state": "CLOSED"})) == "409 CARD_ALREADY_CLOSED"
    assert _code(patch({"state": "ACTIVE"})) == "409 INVALID_STATE_TRANSITION"
    assert _code(patch({"maxSpendPerTransaction": 3})) == "409 CARD_NOT_MUTABLE"


@pytest.mark.usefixtures("sandbox_only")
def test_reveal_url_is_signed_short_lived_and_never_logged(
    client: SandboxClient, server: SandboxServer
) -> None:
    holder = _holder(client, funds=0)
    card = _card(client, holder)
    answer = client.post(f"/cards/{card['id']}/reveal")
    assert answer.status_code == 200, answer.text
    url = answer.json()["panEmbedUrl"]
    assert "signature=" in url and "expires=" in url and answer.json()["expiresAt"]
    page = httpx.get(url, timeout=30)  # no credentials: the URL is the bearer secret
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    last4 = client.get(f"/cards/{card['id']}").json()["last4"]
    assert last4 in page.text.replace(" ", "") and "CVV" in page.text
    signature = url.rsplit("signature=", 1)[1]
    tampered = url.replace(signature, ("A" if signature[0] != "A" else "B") + signature[1:])
    assert _code(httpx.get(tampered, timeout=30)) == "401 URL_SIGNATURE_INVALID"
    later = url.replace("expires=", "expires=1")
    assert httpx.get(later, timeout=30).status_code == 401
    other = url.replace(card["id"], "Card:" + str(uuid.uuid4()))
    assert _code(httpx.get(other, timeout=30)) == "401 URL_SIGNATURE_INVALID"
    log = server.log_path.read_text()
    assert "/card-reveal/" in log and signature not in log
    assert _code(client.post("/cards/Card:missing/reveal")) == "404 NOT_FOUND"


def _unkeyed_digits(card_id: str, label: str, count: int) -> str:
    """The digits an id alone determines (what the cards' details were once derived as)."""
    digest = hashlib.sha256(f"{label}:{card_id}".encode()).digest()
    return "".join(str(byte % 10) for byte in digest[:count])


@pytest.mark.usefixtures("sandbox_only")
def test_card_details_are_not_computable_from_the_public_id(client: SandboxClient) -> None:
    """Anyone who sees a card id (a VIEW token, a webhook, the request log) must not be able to
    derive its number or CVV: both are keyed by a secret of the service."""
    holder = _holder(client, funds=0)
    card = _card(client, holder)
    page = httpx.get(client.post(f"/cards/{card['id']}/reveal").json()["panEmbedUrl"], timeout=30)
    digits = re.sub(r"\D", "", page.text)
    pan = re.search(r"4000(?: ?\d{4}){3}", page.text)
    cvv = re.search(r"CVV\D*(\d{3})", page.text)
    assert pan is not None and cvv is not None, digits
    number = pan.group(0).replace(" ", "")
    checksum = sum(
        (d * 2 - 9 if d * 2 > 9 else d * 2) if i % 2 else d
        for i, d in enumerate(int(c) for c in reversed(number))
    )
    assert checksum % 10 == 0 and number.endswith(card["last4"])
    assert number[4:15] != _unkeyed_digits(card["id"], "pan", 11)
    assert cvv.group(1) != _unkeyed_digits(card["id"], "cvv", 3)


@pytest.mark.usefixtures("sandbox_only")
def test_authorization_outcomes_and_balances(client: SandboxClient) -> None:
    holder = _holder(client)
    card = _card(client, holder, maxSpendPerTransaction=5_000)["id"]
    client.get(f"/cards/{card}")  # provisioned
    for descriptor in ("SHOP-002", "SHOP-003"):
        merchant = {"descriptor": descriptor}
        assert (
            _simulate(client, card, "authorization", {**AUTH, "merchant": merchant}).status_code
            == 202
        )
    assert _simulate(client, card, "authorization", {**AUTH, "amount": 5_001}).status_code == 202
    assert _balance(client, holder) == 10_000  # every decline moved nothing
    too_much = _simulate(client, card, "authorization", {**AUTH, "currency": {"code": "EUR"}})
    assert _code(too_much) == "400 INVALID_CURRENCY"
    token = _simulate(client, card, "authorization", AUTH).json()["issuerTransactionToken"]
    ref = {"cardTransactionId": f"CardTransaction:{token}"}
    assert _balance(client, holder) == 10_000 - 1_250
    assert (
        _simulate(client, card, "authorization_advice", {**ref, "amount": 1_000}).status_code == 202
    )
    assert _balance(client, holder) == 10_000 - 1_000
    assert _simulate(client, card, "clearing", {**ref, "amount": 1_500}).status_code == 202
    assert _balance(client, holder) == 10_000 - 1_500  # the tip pulled after the fact
    assert _code(_simulate(client, card, "clearing", {**ref, "amount": 1})) == "400 INVALID_STATE"
    big = _simulate(client, card, "return", {**ref, "amount": 1_501})
    assert _code(big) == "400 INVALID_AMOUNT"
    assert _simulate(client, card, "return", {**ref, "amount": 500}).status_code == 202
    assert _balance(client, holder) == 10_000 - 1_000
    assert _code(_simulate(client, card, "return_reversal", ref)) == "400 INVALID_STATE"
    assert _simulate(client, card, "return", {**ref, "amount": 1_000}).status_code == 202
    assert _balance(client, holder) == 10_000
    assert _simulate(client, card, "return_reversal", ref).status_code == 202
    assert _balance(client, holder) == 10_000 - 1_500
    expiring = _simulate(client, card, "authorization", AUTH).json()["issuerTransactionToken"]
    zero = {"cardTransactionId": f"CardTransaction:{expiring}", "amount": 0}
    assert _simulate(client, card, "clearing", zero).status_code == 202
    assert _balance(client, holder) == 10_000 - 1_500  # the hold released
    for event in (
        "credit_authorization",
        "credit_authorization_advice",
        "financial_credit_authorization",
    ):
        assert _simulate(client, card, event, {**AUTH, "amount": 100}).status_code == 202
    assert (
        _simulate(client, card, "financial_authorization", {**AUTH, "amount": 300}).status_code
        == 202
    )
    assert (
        _simulate(client, card, "balance_inquiry", {"merchant": AUTH["merchant"]}).status_code
        == 202
    )
    assert _balance(client, holder) == 10_000 - 1_500 + 300 - 300


@pytest.mark.usefixtures("sandbox_only")
def test_a_transaction_pulls_at_most_the_largest_amount_in_all(client: SandboxClient) -> None:
    """Re-sizing an authorization up and down pulls again each time: the total a transaction
    has pulled is bounded (400 INVALID_AMOUNT), never a stored number past the database's."""
    largest = 9_000_000_000_000_000
    holder = _holder(client, funds=largest)
    card = _card(client, holder)["id"]
    client.get(f"/cards/{card}")  # provisioned
    token = _simulate(client, card, "authorization", {**AUTH, "amount": 1}).json()[
        "issuerTransactionToken"
    ]
    ref = {"cardTransactionId": f"CardTransaction:{token}"}
    assert (
        _simulate(client, card, "authorization_advice", {**ref, "amount": largest}).status_code
        == 202
    )
    assert _simulate(client, card, "authorization_advice", {**ref, "amount": 1}).status_code == 202
    again = _simulate(client, card, "authorization_advice", {**ref, "amount": largest})
    assert _code(again) == "400 INVALID_AMOUNT"
    assert _balance(client, holder) == largest - 1  # the refused pull moved nothing
    clearing = _simulate(client, card, "clearing", {**ref, "amount": largest})
    assert _code(clearing) == "400 INVALID_AMOUNT"


@pytest.mark.usefixtures("sandbox_only")
def test_a_deleted_customer_is_issued_no_card(client: SandboxClient) -> None:
    holder = _holder(client, funds=0)
    body = {"cardholderId": holder["id"], "form": "VIRTUAL", "fundingSources": [holder["usd"]]}
    assert client.request("DELETE", f"/customers/{holder['id']}").status_code == 200
    refused = client.post("/cards", body)
    assert _code(refused) == "400 INVALID_INPUT", refused.text
    assert "cardholderId" in refused.json()["reason"]


@pytest.mark.usefixtures("sandbox_only")
def test_a_cardholder_holds_at_most_50_cards(client: SandboxClient) -> None:
    holder = _holder(client, funds=0)
    for _ in range(50):
        _card(client, holder)
    body = {"cardholderId": holder["id"], "form": "VIRTUAL", "fundingSources": [holder["usd"]]}
    over = client.post("/cards", body)
    assert _code(over) == "409 COLLECTION_LIMIT_REACHED", over.text


@pytest.mark.usefixtures("sandbox_only")
def test_bad_simulations_are_4xx(client: SandboxClient) -> None:
    holder = _holder(client)
    card = _card(client, holder)["id"]
    missing = f"CardTransaction:{uuid.uuid4()}"
    cases = [
        ("authorization", {**AUTH, "amount": 0}, "400 INVALID_INPUT"),
        ("authorization", {**AUTH, "amount": "12"}, "400 INVALID_INPUT"),
        ("authorization", {**AUTH, "merchant": {"descriptor": "x" * 201}}, "400 INVALID_INPUT"),
        ("authorization", {**AUTH, "merchant": {"descriptor": "A\x00B"}}, "400 INVALID_INPUT"),
        (
            "authorization",
            {**AUTH, "merchant": {"descriptor": "A", "mcc": "12"}},
            "400 INVALID_INPUT",
        ),
        ("balance_inquiry", {}, "400 INVALID_INPUT"),
        ("clearing", {"cardTransactionId": missing, "amount": -1}, "400 INVALID_INPUT"),
        ("clearing", {"cardTransactionId": missing, "amount": 1}, "404 NOT_FOUND"),
        ("return", {"cardTransactionId": missing, "amount": 1}, "404 NOT_FOUND"),
        ("return_reversal", {"cardTransactionId": missing}, "404 NOT_FOUND"),
        (
            "authorization_advice",
            {"cardTransactionId": "x" * 201, "amount": 1},
            "400 INVALID_INPUT",
        ),
    ]
    for event, body, expected in cases:
        assert _code(_simulate(client, card, event, body)) == expected, (event, body)
    assert _code(_simulate(client, "Card:missing", "authorization", AUTH)) == "404 NOT_FOUND"
