"""The customer side's limits over real HTTP, in both environments, on SQLite and PostgreSQL:

- a stablecoin mint is funded only in the coin's base currency (400 ``INVALID_CURRENCY``, the
  funding account untouched);
- a deleted customer takes nothing new: beneficial owners, documents, SCA, contact
  verification and a mint naming its account are 404 ``USER_NOT_FOUND``;
- a contact verification holds for the contact it was made for: a changed email is
  ``PENDING`` again and a code sent to the old address does not confirm the new one;
- an SMS_OTP reset changes the number as the customers ``PATCH`` does (the phone is ``PENDING``
  again, a second completion 409 ``RESET_ALREADY_COMPLETED``);
- the per-parent caps (beneficial owners, documents): 409 ``COLLECTION_LIMIT_REACHED``;
- stablecoins belong to the platform: an API token sees the ones the configured credentials
  registered.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from ._client import SandboxClient
from ._server import SandboxServer
from .test_kyc import PERSON, _upload
from .test_sca import eu_customer

_CENTS = 5_000_000  # what a mint of 50000000000 units takes


def _code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json().get("code", "")


def _keyed() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def _created(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _coin(client: SandboxClient) -> str:
    link = {"provider": "BRALE", "apiClientId": uuid.uuid4().hex, "apiClientSecret": "s"}
    link_id = _created(client.post("/stablecoin-provider-accounts", link, headers=_keyed()))["id"]
    register = {
        "providerTokenIdentifier": "acme",
        "networkTokenIdentifier": f"btkn{uuid.uuid4().hex}",
        "network": "SPARK",
        "stablecoinProviderAccountId": link_id,
    }
    return str(_created(client.post("/stablecoins", register, headers=_keyed()))["id"])


def _account(client: SandboxClient, customer_id: str, code: str) -> dict[str, Any]:
    listed = client.get("/customers/internal-accounts", params={"customerId": customer_id})
    assert listed.status_code == 200, listed.text
    return next(
        a
        for a in listed.json()["data"]
        if a["type"] != "EMBEDDED_WALLET" and a["balance"]["currency"]["code"] == code
    )


def _mint(client: SandboxClient, coin: str, account: str, wallet: str) -> httpx.Response:
    body = {
        "amount": "50000000000",  # 50000.00 of a 6-decimal coin: 5000000 cents
        "fundingSource": {"type": "GRID_INTERNAL_ACCOUNT", "accountId": account},
        "destination": {"accountId": wallet},
    }
    return client.post(f"/stablecoins/{coin}/mints", body, headers=_keyed())


def test_a_mint_is_funded_in_the_coins_currency(client: SandboxClient, environment: str) -> None:
    customer = client.create_customer(currencies=["USD", "BTC"])["id"]
    btc, usd = _account(client, customer, "BTC")["id"], _account(client, customer, "USD")["id"]
    if environment == "sandbox":
        for account in (btc, usd):
            funded = client.post(f"/sandbox/internal-accounts/{account}/fund", {"amount": _CENTS})
            assert funded.status_code == 200, funded.text
    coin, wallet = _coin(client), client.wallet_of(customer)
    assert _code(_mint(client, coin, btc, wallet)) == (400, "INVALID_CURRENCY")
    held = _CENTS if environment == "sandbox" else 0
    assert _account(client, customer, "BTC")["balance"]["amount"] == held  # untouched
    operations = client.get(f"/stablecoins/{coin}/operations").json()
    assert operations["totalCount"] == 0
    if environment == "sandbox":  # the base currency's account funds it
        _created(_mint(client, coin, usd, wallet))
        assert _account(client, customer, "USD")["balance"]["amount"] == 0


def test_a_deleted_customer_takes_nothing_new(client: SandboxClient) -> None:
    business = client.create_customer(customerType="BUSINESS", region="DE", email="b@example.com")
    owner = {"customerId": business["id"], "roles": ["UBO"], "ownershipPercentage": 10}
    made = _created(client.post("/beneficial-owners", {**owner, "personalInfo": PERSON}))
    person = eu_customer(client, currencies=["USD"])
    usd = _account(client, person, "USD")["id"]
    coin, wallet = _coin(client), client.wallet_of(person)
    for customer_id in (business["id"], person):
        gone = client.request("DELETE", f"/customers/{customer_id}")
        assert gone.status_code == 200, gone.text
    gone_answers = [
        client.post("/beneficial-owners", {**owner, "personalInfo": PERSON}),
        client.request("PATCH", f"/beneficial-owners/{made['id']}", json={"roles": ["UBO"]}),
        _upload(client, business["id"]),
        _upload(client, made["id"]),
        client.get("/sca/factors", params={"customerId": person}),
        client.post("/sca/factors", {"type": "TOTP"}, params={"customerId": person}),
        client.post("/sca/factors/reset", {"factor": "SMS_OTP"}, params={"customerId": person}),
        client.post(f"/customers/{person}/verify-email"),
        client.post(f"/customers/{person}/verify-phone/confirm", {"code": "123456"}),
        _mint(client, coin, usd, wallet),
    ]
    assert [_code(answer) for answer in gone_answers] == [(404, "USER_NOT_FOUND")] * len(
        gone_answers
    ), [answer.text for answer in gone_answers]
    # What was there stays readable.
    assert client.get(f"/beneficial-owners/{made['id']}").status_code == 200


def _sent_code(server: SandboxServer, before: set[Any]) -> str:
    mail = sorted(set(server.mail_dir.glob("*.eml")) - before)[-1].read_text()
    return mail.rsplit("code is: ", 1)[1].split()[0]


def test_a_changed_email_is_verified_again(client: SandboxClient, server: SandboxServer) -> None:
    customer_id = eu_customer(client, email=f"{uuid.uuid4().hex[:10]}@example.com")
    path = f"/customers/{customer_id}/verify-email"
    before = set(server.mail_dir.glob("*.eml"))
    assert client.post(path).status_code == 204
    done = client.post(f"{path}/confirm", {"code": _sent_code(server, before)})
    assert done.json()["contactVerification"]["email"] == "VERIFIED", done.text
    before = set(server.mail_dir.glob("*.eml"))
    patch = {"customerType": "INDIVIDUAL", "email": f"{uuid.uuid4().hex[:10]}@example.com"}
    changed = client.request("PATCH", f"/customers/{customer_id}", json=patch)
    assert changed.status_code == 200, changed.text
    again = client.post(path)
    assert again.status_code == 204, again.text  # PENDING again: not 409 ALREADY_VERIFIED
    confirmed = client.post(f"{path}/confirm", {"code": _sent_code(server, before)})
    assert confirmed.json()["contactVerification"]["email"] == "VERIFIED", confirmed.text


def test_an_old_address_code_does_not_confirm_a_new_address(
    client: SandboxClient, server: SandboxServer
) -> None:
    customer_id = eu_customer(client, email=f"{uuid.uuid4().hex[:10]}@example.com")
    path = f"/customers/{customer_id}/verify-email"
    before = set(server.mail_dir.glob("*.eml"))
    assert client.post(path).status_code == 204
    old_code = _sent_code(server, before)
    patch = {"customerType": "INDIVIDUAL", "email": f"{uuid.uuid4().hex[:10]}@example.com"}
    assert client.request("PATCH", f"/customers/{customer_id}", json=patch).status_code == 200
    stale = client.post(f"{path}/confirm", {"code": old_code})
    assert _code(stale) == (400, "OTP_NOT_ISSUED"), stale.text  # none for this address


def test_an_sms_reset_changes_the_number_as_a_patch_does(
    client: SandboxClient, environment: str
) -> None:
    customer_id = eu_customer(client, phoneNumber=f"+49151{uuid.uuid4().int % 10**8:08d}")
    params = {"customerId": customer_id}
    verified = client.post(f"/customers/{customer_id}/verify-phone/confirm", {"code": "123456"})
    if environment == "production":  # the sandbox code is refused; no liveness either
        assert verified.status_code == 400, verified.text
        return
    assert verified.json()["contactVerification"]["phone"] == "VERIFIED", verified.text
    wallet = client.wallet_of(customer_id)
    sms = {"type": "SMS_OTP", "accountId": wallet}
    assert client.post("/auth/credentials", sms).status_code == 201
    started = client.post("/sca/factors/reset", {"factor": "SMS_OTP"}, params=params)
    assert started.status_code == 201, started.text
    reset = started.json()["resetId"]
    new = {"countryCode": "+49", "number": f"151{uuid.uuid4().int % 10**8:08d}"}
    body = {"mobile": new}
    done = client.post(f"/sca/factors/reset/{reset}/complete", body, params=params)
    assert done.status_code == 204, done.text
    customer = client.get(f"/customers/{customer_id}").json()
    assert customer["phoneNumber"] == new["countryCode"] + new["number"]
    listed = client.get("/auth/credentials", params={"accountId": wallet}).json()["data"]
    assert [c["nickname"] for c in listed] == [customer["phoneNumber"]]  # the credential follows
    again = client.post(f"/customers/{customer_id}/verify-phone")
    assert again.status_code == 204, again.text  # PENDING again
    twice = client.post(f"/sca/factors/reset/{reset}/complete", body, params=params)
    assert _code(twice) == (409, "RESET_ALREADY_COMPLETED")


def test_beneficial_owners_and_documents_are_capped(client: SandboxClient) -> None:
    business = client.create_customer(customerType="BUSINESS")["id"]
    owner = {"customerId": business, "roles": ["DIRECTOR"], "ownershipPercentage": 0}
    for _ in range(25):
        _created(client.post("/beneficial-owners", {**owner, "personalInfo": PERSON}))
    over = client.post("/beneficial-owners", {**owner, "personalInfo": PERSON})
    assert _code(over) == (409, "COLLECTION_LIMIT_REACHED"), over.text
    listed = client.get("/beneficial-owners", params={"customerId": business, "limit": 100})
    assert listed.json()["totalCount"] == 25
    for _ in range(50):
        assert _upload(client, business).status_code == 201
    assert _code(_upload(client, business)) == (409, "COLLECTION_LIMIT_REACHED")
    listed = client.get("/documents", params={"documentHolder": business, "limit": 100})
    assert listed.json()["totalCount"] == 50, listed.text


def test_stablecoins_belong_to_the_platform(client: SandboxClient, server: SandboxServer) -> None:
    coin = _coin(client)
    made = client.post("/tokens", {"name": "coins", "permissions": ["VIEW", "TRANSACT", "MANAGE"]})
    assert made.status_code == 201, made.text
    token = made.json()
    other = SandboxClient(server.base_url, (token["clientId"], token["clientSecret"]))
    try:
        seen = other.get(f"/stablecoins/{coin}")
        assert seen.status_code == 200, seen.text
        listed = other.get("/stablecoins", params={"limit": 100}).json()
        assert coin in {item["id"] for item in listed["data"]}
        mine = _coin(other)
    finally:
        other.close()
    assert client.request("DELETE", f"/tokens/{token['id']}").status_code == 204
    assert client.get(f"/stablecoins/{mine}").status_code == 200
