"""Same-currency transfers and external accounts over real HTTP: every transfer suffix row
(005 pending about thirty scaled seconds, then failed), balances, idempotency, the three
account-info variants, beneficiary verification by suffix and the default UMA deposit account."""

from __future__ import annotations

from typing import Any

import pytest

from ._client import SandboxClient
from ._payments import accounts, balance, fund, settled, usd_external
from ._server import SandboxServer
from .conftest import server_fixture

TIME_SCALE = 0.05  # suffix 005: 30 simulated seconds are 1.5 s


server = server_fixture("transfers", time_scale=TIME_SCALE)


@pytest.fixture
def customer(client: SandboxClient) -> dict[str, Any]:
    made = client.create_customer(currencies=["USD", "EUR"])
    found = accounts(client, made["id"])
    fund(client, found["USD"]["id"], 100_000)
    return {"id": made["id"], **{name: a["id"] for name, a in found.items()}}


def out(source: str, destination: str, amount: int = 2_500) -> dict[str, Any]:
    return {
        "source": {"accountId": source},
        "destination": {"accountId": destination, "paymentRail": "ACH"},
        "amount": amount,
    }


#: Transfer out, by the external account number's last three digits.
TRANSFER_ROWS = [
    ("002", ["FAILED"], "FUNDING_AMOUNT_MISMATCH", True),
    ("003", ["FAILED"], "ACCOUNT_INVALID", True),
    ("004", ["PROCESSING"], "ACCOUNT_CANNOT_RECEIVE", True),
    ("005", ["PENDING"], "COUNTERPARTY_POST_TX_FAILED", True),
    ("010", ["PROCESSING"], None, False),
]
FINAL_STATUS = {
    "002": "FAILED",
    "003": "FAILED",
    "004": "REJECTED",
    "005": "FAILED",
    "010": "COMPLETED",
}


@pytest.mark.parametrize(("suffix", "first", "reason", "returned"), TRANSFER_ROWS)
def test_transfer_out_outcomes(
    client: SandboxClient,
    customer: dict[str, Any],
    suffix: str,
    first: list[str],
    reason: str | None,
    returned: bool,
) -> None:
    external = usd_external(client, customer["id"], suffix)
    response = client.post("/transfer-out", out(customer["USD"], external["id"]))
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["status"] in first
    assert created["type"] == "OUTGOING" and created["sentAmount"]["amount"] == 2_500
    done = settled(client, created["id"])
    assert done["status"] == FINAL_STATUS[suffix]
    assert done.get("failureReason") == reason
    assert balance(client, customer["id"], "USD") == (100_000 if returned else 97_500)


@pytest.mark.parametrize(
    ("suffix", "status"), [("002", "FAILED"), ("005", "FAILED"), ("123", "COMPLETED")]
)
def test_transfer_in_outcomes(
    client: SandboxClient, customer: dict[str, Any], suffix: str, status: str
) -> None:
    external = usd_external(client, customer["id"], suffix)
    body = {
        "source": {"accountId": external["id"]},
        "destination": {"accountId": customer["USD"]},
        "amount": 7_000,
    }
    response = client.post("/transfer-in", body)
    assert response.status_code == 201, response.text
    assert response.json()["type"] == "INCOMING"
    done = settled(client, response.json()["id"])
    assert done["status"] == status
    assert balance(client, customer["id"], "USD") == 100_000 + (
        7_000 if status == "COMPLETED" else 0
    )


def test_transfers_are_same_currency(client: SandboxClient, customer: dict[str, Any]) -> None:
    external = usd_external(client, customer["id"], "010")
    response = client.post("/transfer-out", out(customer["EUR"], external["id"]))
    assert response.status_code == 400
    assert response.json()["code"] == "CURRENCY_MISMATCH"


def test_transfer_out_needs_the_funds(client: SandboxClient, customer: dict[str, Any]) -> None:
    external = usd_external(client, customer["id"], "010")
    response = client.post("/transfer-out", out(customer["USD"], external["id"], 100_001))
    assert response.status_code == 400
    assert response.json()["code"] == "INSUFFICIENT_FUNDS"
    assert balance(client, customer["id"], "USD") == 100_000


def test_transfer_idempotency(client: SandboxClient, customer: dict[str, Any]) -> None:
    external = usd_external(client, customer["id"], "010")
    headers = {"Idempotency-Key": f"transfer-{customer['id']}"}
    first = client.post("/transfer-out", out(customer["USD"], external["id"]), headers=headers)
    second = client.post("/transfer-out", out(customer["USD"], external["id"]), headers=headers)
    assert first.status_code == second.status_code == 201
    assert first.json()["id"] == second.json()["id"]
    assert balance(client, customer["id"], "USD") == 97_500


def test_transaction_list(client: SandboxClient, customer: dict[str, Any]) -> None:
    external = usd_external(client, customer["id"], "010")
    ids = [
        client.post("/transfer-out", out(customer["USD"], external["id"], 100)).json()["id"]
        for _ in range(3)
    ]
    listed = client.get("/transactions", params={"customerId": customer["id"], "limit": 2}).json()
    assert listed["totalCount"] == 3 and listed["hasMore"] is True
    following = client.get(
        "/transactions",
        params={"customerId": customer["id"], "limit": 2, "cursor": listed["nextCursor"]},
    ).json()
    assert following["hasMore"] is False and "nextCursor" not in following
    newest_first = [t["id"] for t in listed["data"] + following["data"]]
    assert newest_first == ids[::-1]
    ascending = client.get(
        "/transactions", params={"customerId": customer["id"], "sortOrder": "asc"}
    ).json()
    assert [t["id"] for t in ascending["data"]] == ids
    assert client.get("/transactions", params={"limit": 0}).status_code == 400
    assert client.get("/transactions", params={"limit": 101}).status_code == 400
    assert client.get("/transactions", params={"cursor": "nonsense!"}).status_code == 400
    typed = client.get(
        "/transactions", params={"customerId": customer["id"], "type": "INCOMING"}
    ).json()
    assert typed["totalCount"] == 0


def test_a_transaction_has_its_direction(client: SandboxClient, customer: dict[str, Any]) -> None:
    # The published Transaction requires ``direction``: CREDIT for money in, DEBIT for money out.
    external = usd_external(client, customer["id"], "010")
    sent = client.post("/transfer-out", out(customer["USD"], external["id"], 100)).json()
    assert (sent["type"], sent["direction"]) == ("OUTGOING", "DEBIT")
    body = {
        "source": {"accountId": external["id"]},
        "destination": {"accountId": customer["USD"]},
        "amount": 100,
    }
    pulled = client.post("/transfer-in", body)
    assert pulled.status_code == 201, pulled.text
    assert (pulled.json()["type"], pulled.json()["direction"]) == ("INCOMING", "CREDIT")
    assert client.get(f"/transactions/{sent['id']}").json()["direction"] == "DEBIT"


# --- external accounts --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "status"),
    [
        ("102", "NOT_MATCHED"),
        ("103", "PARTIAL_MATCH"),
        ("104", "PENDING"),
        ("106", "UNSUPPORTED"),
        ("107", "CHECKED_BY_RECEIVING_FI"),
        ("555", "MATCHED"),
    ],
)
def test_beneficiary_verification(client: SandboxClient, suffix: str, status: str) -> None:
    account = usd_external(client, None, suffix)
    assert account["beneficiaryVerificationStatus"] == status
    assert account["customerId"] is None
    if status == "MATCHED":
        assert account["beneficiaryVerifiedData"] == {"fullName": "Jane Doe"}


def test_suffix_105_is_an_invalid_account(client: SandboxClient) -> None:
    body = {
        "currency": "USD",
        "accountInfo": {
            "accountType": "USD_ACCOUNT",
            "accountNumber": "1234567105",
            "routingNumber": "021000021",
        },
    }
    response = client.post("/platform/external-accounts", body)
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_ACCOUNT"


def test_the_three_account_variants(client: SandboxClient) -> None:
    brl = client.post(
        "/platform/external-accounts",
        {
            "currency": "BRL",
            "accountInfo": {
                "accountType": "BRL_ACCOUNT",
                "pixKey": "joao102@example.com",
                "pixKeyType": "EMAIL",
                "taxId": "123.456.789-09",
            },
        },
    )
    assert brl.status_code == 201, brl.text
    assert brl.json()["beneficiaryVerificationStatus"] == "NOT_MATCHED"  # joao102@...
    aed = client.post(
        "/platform/external-accounts",
        {
            "currency": "AED",
            "platformAccountId": "ext-1",
            "accountInfo": {
                "accountType": "AED_ACCOUNT",
                "iban": "AE070331234567890123456",
                "swiftCode": "BOMLAEAD",
            },
        },
    )
    assert aed.status_code == 201, aed.text
    assert aed.json()["platformAccountId"] == "ext-1"
    mismatch = client.post(
        "/platform/external-accounts",
        {
            "currency": "EUR",
            "accountInfo": {
                "accountType": "AED_ACCOUNT",
                "iban": "AE070331234567890123456",
                "swiftCode": "BOMLAEAD",
            },
        },
    )
    assert mismatch.status_code == 400
    unknown = client.post(
        "/platform/external-accounts",
        {"currency": "USD", "accountInfo": {"accountType": "GBP_ACCOUNT"}},
    )
    assert unknown.status_code == 400
    listed = client.get("/platform/external-accounts", params={"currency": "AED"}).json()
    assert aed.json()["id"] in [a["id"] for a in listed["data"]]
    assert all(a["currency"] == "AED" for a in listed["data"])
    # The answer is the accountInfo sent plus the rails it can be paid on, as published.
    usd = usd_external(client, None, "201")
    assert usd["accountInfo"]["paymentRails"] == ["ACH", "WIRE", "RTP", "FEDNOW"]
    assert usd["accountInfo"]["accountNumber"].endswith("201")
    assert brl.json()["accountInfo"] == {
        "accountType": "BRL_ACCOUNT",
        "pixKey": "joao102@example.com",
        "pixKeyType": "EMAIL",
        "taxId": "123.456.789-09",
        "paymentRails": ["PIX"],
    }
    assert aed.json()["accountInfo"]["paymentRails"] == ["BANK_TRANSFER"]
    fetched = client.get(f"/platform/external-accounts/{aed.json()['id']}").json()
    assert fetched["accountInfo"] == aed.json()["accountInfo"]


def test_one_default_uma_deposit_account_per_customer(client: SandboxClient) -> None:
    customer = client.create_customer(currencies=["USD"])
    first = usd_external(client, customer["id"], "201", defaultUmaDepositAccount=True)
    second = usd_external(client, customer["id"], "202", defaultUmaDepositAccount=True)
    assert first["defaultUmaDepositAccount"] and second["defaultUmaDepositAccount"]
    listed = client.get(
        "/customers/external-accounts", params={"customerId": customer["id"]}
    ).json()
    defaults = [a["id"] for a in listed["data"] if a["defaultUmaDepositAccount"]]
    assert defaults == [second["id"]]
    # an incoming UMA payment goes to the default deposit account
    received = client.post(
        "/sandbox/uma/receive",
        {
            "senderUmaAddress": "$alice@other.example",
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": 1_234,
            "customerId": customer["id"],
        },
    )
    assert received.status_code == 200, received.text
    assert received.json()["destination"]["accountId"] == second["id"]


def test_a_pending_outcome_survives_a_restart(server: SandboxServer) -> None:
    """The schedule is stored: a 005 transfer pending at shutdown fails after the restart."""
    api = SandboxClient(server.base_url, server.auth)
    made = api.create_customer(currencies=["USD"])
    usd = accounts(api, made["id"])["USD"]["id"]
    fund(api, usd, 1_000)
    external = usd_external(api, made["id"], "005")
    created = api.post("/transfer-out", out(usd, external["id"], 400)).json()
    assert created["status"] == "PENDING"
    api.close()
    server.restart()
    api = SandboxClient(server.base_url, server.auth)
    done = settled(api, created["id"])
    assert done["status"] == "FAILED"
    assert balance(api, made["id"], "USD") == 1_000  # returned
    api.close()


def test_transaction_filters(client: SandboxClient, customer: dict[str, Any]) -> None:
    external = usd_external(client, customer["id"], "003")  # fails at once
    failed = client.post("/transfer-out", out(customer["USD"], external["id"], 100)).json()
    good = usd_external(client, customer["id"], "010")
    done = settled(
        client, client.post("/transfer-out", out(customer["USD"], good["id"], 100)).json()["id"]
    )
    base = {"customerId": customer["id"]}

    def ids(**params: Any) -> list[str]:
        response = client.get("/transactions", params={**base, **params})
        assert response.status_code == 200, response.text
        return [t["id"] for t in response.json()["data"]]

    assert ids(status="FAILED") == [failed["id"]]
    assert ids(status="COMPLETED") == [done["id"]]
    assert ids(reference=done["reconciliationInstructions"]["reference"]) == [done["id"]]
    assert ids(accountIdentifier=good["id"]) == [done["id"]]
    assert ids(receiverAccountIdentifier=external["id"]) == [failed["id"]]
    assert set(ids(senderAccountIdentifier=customer["USD"])) == {failed["id"], done["id"]}
    assert set(ids(startDate=failed["createdAt"], endDate=done["createdAt"])) == {
        failed["id"],
        done["id"],
    }
    assert ids(endDate="2000-01-01T00:00:00Z") == []
    assert client.get("/transactions", params={"status": "LOST"}).status_code == 400
    assert client.get("/transactions", params={"startDate": "yesterday"}).status_code == 400
