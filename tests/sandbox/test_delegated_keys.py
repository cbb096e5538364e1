"""Delegated signing keys over real HTTP, both environments, SQLite and PostgreSQL: created by
three legs, each a signed retry stamped with a session key of the wallet, the payloads being
the library's delegated-key operations over the service-held key's public key; then revoked,
which a second process sees at once; the rules (one ACTIVE key per funding source, the same
body on every leg, a replayed leg, a stranger's stamp, a real card funded by the wallet) with
their codes; a card funded by the wallet is authorized only while the key is ACTIVE.

The flows need a card, which production cannot issue (its KYC waits for manual review): there
they are skipped, and production answers the first leg for a card that does not exist."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._server import SandboxServer
from ._stored import stored_rows

PATH = "/auth/delegated-keys"


@pytest.fixture
def sandbox_only(environment: str) -> None:
    if environment != "sandbox":
        pytest.skip("production issues no card without a manual KYC review")


@pytest.fixture(scope="module")
def other(server: SandboxServer) -> Iterator[SandboxClient]:
    """A client of a second process on the same database."""
    second = server.start_another("delegated-second")
    api = SandboxClient(second.base_url, second.auth)
    yield api
    api.close()
    assert second.stop() == 0


def _leg(
    client: SandboxClient, body: dict[str, Any], challenge: dict[str, Any], key: ewc.KeyPair
) -> Any:
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    return client.retry("POST", PATH, body, challenge, stamp)


def three_legs(
    client: SandboxClient, body: dict[str, Any], key: ewc.KeyPair
) -> tuple[list[dict[str, Any]], Any]:
    first = client.post(PATH, body)
    assert first.status_code == 202, first.text
    second = _leg(client, body, first.json(), key)
    assert second.status_code == 202, second.text
    third = _leg(client, body, second.json(), key)
    return [first.json(), second.json()], third


def _code(response: Any) -> str:
    return f"{response.status_code} {response.json()['code']}"


@pytest.mark.usefixtures("sandbox_only")
def test_three_signed_legs_then_revoked(
    client: SandboxClient, server: SandboxServer, other: SandboxClient
) -> None:
    wallet = Wallet(client, server)
    _, session_key = wallet.first_login()
    card = wallet.card()
    body = {"cardId": card["id"], "internalAccountId": wallet.account_id, "nickname": "Card key"}
    challenges, created = three_legs(client, body, session_key)
    assert created.status_code == 201, created.text
    key = created.json()
    assert key["status"] == "ACTIVE" and key["accountId"] == wallet.account_id
    # The private key is stored sealed: neither it (as hex) nor anything that opens as it.
    ((stored,),) = stored_rows(
        server.database, "SELECT private_key FROM sandbox_delegated_keys WHERE id = :i", i=key["id"]
    )
    assert len(ewc.b58check_decode(stored)) == 81  # compressed enc, 32 bytes sealed, the tag
    with pytest.raises(ewc.InvalidKey):
        ewc.KeyPair.from_private_hex(stored)
    assert set(key) == {
        "id", "cardId", "fundingSourceId", "accountId", "publicKey", "nickname", "status",
        "createdAt", "updatedAt",
    }  # fmt: skip
    first, second = (json.loads(c["payloadToSign"]) for c in challenges)
    assert first["type"] == "ACTIVITY_TYPE_CREATE_USERS_V3"
    (user,) = first["parameters"]["users"]
    assert user["apiKeys"][0]["publicKey"] == key["publicKey"]  # the service-held key
    ewc.parse_public_key(key["publicKey"])
    assert second["type"] == "ACTIVITY_TYPE_CREATE_POLICIES"
    assert wallet.account_id in second["parameters"]["policies"][0]["condition"]
    # A replayed third leg is refused; a second key for the funding source is refused.
    replay = _leg(client, body, challenges[1], session_key)
    assert replay.status_code == 401, replay.text
    _, again = three_legs(client, body, session_key)
    assert (again.status_code, again.json()["code"]) == (409, "DELEGATED_KEY_ALREADY_ACTIVE")
    listed = other.get(PATH, params={"accountId": wallet.account_id}).json()["data"]
    assert sorted(k["status"] for k in listed) == ["ACTIVE", "PENDING"]
    # Revoked through one process: the other sees it at once; a second revoke is refused.
    revoked = client.request("DELETE", f"{PATH}/{key['id']}")
    assert revoked.status_code == 204, revoked.text
    assert other.get(f"{PATH}/{key['id']}").json()["status"] == "REVOKED"
    twice = other.request("DELETE", f"{PATH}/{key['id']}")
    assert (twice.status_code, twice.json()["code"]) == (400, "DELEGATED_KEY_NOT_ACTIVE")
    _, renewed = three_legs(client, body, session_key)  # a new ACTIVE key after the revoke
    assert renewed.status_code == 201, renewed.text
    by_source = client.get(PATH, params={"fundingSourceId": key["fundingSourceId"]}).json()
    assert len(by_source["data"]) == 3


@pytest.mark.usefixtures("sandbox_only")
def test_the_legs_are_checked(client: SandboxClient, server: SandboxServer) -> None:
    wallet = Wallet(client, server)
    _, session_key = wallet.first_login()
    body = {"cardId": wallet.card()["id"], "internalAccountId": wallet.account_id, "nickname": "K"}
    first = client.post(PATH, body).json()
    stranger = _leg(client, body, first, ewc.KeyPair.generate())
    assert stranger.status_code == 401, stranger.text
    changed = _leg(client, {**body, "nickname": "Other"}, first, session_key)
    assert (changed.status_code, changed.json()["code"]) == (401, "UNAUTHORIZED"), changed.text
    unknown = client.retry("POST", PATH, body, {"requestId": "Request:nope"}, "x")
    assert unknown.status_code == 401, unknown.text


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [
        ("POST", PATH, {"cardId": "nocard", "internalAccountId": "x", "nickname": "k"}, 400, None),
        ("POST", PATH, {"cardId": "Card:1", "internalAccountId": "x", "nickname": ""}, 400, None),
        (
            "POST",
            PATH,
            {"cardId": "Card:1", "internalAccountId": "InternalAccount:x", "nickname": "k"},
            404,
            "NOT_FOUND",
        ),
        ("GET", PATH, None, 400, "INVALID_INPUT"),
        ("GET", f"{PATH}/DelegatedKey:none", None, 404, "NOT_FOUND"),
        ("DELETE", f"{PATH}/DelegatedKey:none", None, 404, "NOT_FOUND"),
    ],
)
def test_bad_requests(
    client: SandboxClient, method: str, path: str, body: Any, status: int, code: str | None
) -> None:
    answer = client.request(method, path, json=body)
    assert answer.status_code == status, answer.text
    assert set(answer.json()) == {"status", "code", "reason"}
    if code is not None:
        assert answer.json()["code"] == code


@pytest.mark.usefixtures("sandbox_only")
def test_first_legs_in_flight_are_bounded(client: SandboxClient, server: SandboxServer) -> None:
    """At most 10 first legs of an account wait for their retry (429 RATE_LIMITED after)."""
    wallet = Wallet(client, server)
    wallet.first_login()
    body = {"cardId": wallet.card()["id"], "internalAccountId": wallet.account_id, "nickname": "K"}
    for _ in range(10):
        assert client.post(PATH, body).status_code == 202
    refused = client.post(PATH, body)
    assert (refused.status_code, refused.json()["code"]) == (429, "RATE_LIMITED"), refused.text
    assert int(refused.headers["Retry-After"]) >= 1


def test_a_card_that_does_not_exist_is_404(client: SandboxClient, server: SandboxServer) -> None:
    """Both environments: the first leg for a card that does not exist is refused."""
    wallet = Wallet(client, server)
    body = {"cardId": "Card:none", "internalAccountId": wallet.account_id, "nickname": "Key"}
    assert _code(client.post(PATH, body)) == "404 NOT_FOUND"


@pytest.mark.usefixtures("sandbox_only")
def test_the_card_funding_source_is_checked(client: SandboxClient, server: SandboxServer) -> None:
    """The pair must name a funding source of a card that is not closed, on every leg."""
    wallet = Wallet(client, server)
    _, session_key = wallet.first_login()
    stranger = Wallet(client, server)
    foreign = stranger.card()  # a card of another customer, funded by that customer's wallet
    body = {"cardId": foreign["id"], "internalAccountId": wallet.account_id, "nickname": "K"}
    assert _code(client.post(PATH, body)) == "404 FUNDING_SOURCE_NOT_FOUND"
    listed = client.get("/customers/internal-accounts", params={"customerId": wallet.customer_id})
    usd = next(a["id"] for a in listed.json()["data"] if a["type"] == "INTERNAL_FIAT")
    fiat_card = wallet.card(fundingSources=[usd])  # the customer's card, not funded by the wallet
    body = {"cardId": fiat_card["id"], "internalAccountId": wallet.account_id, "nickname": "K"}
    assert _code(client.post(PATH, body)) == "404 FUNDING_SOURCE_NOT_FOUND"
    # A card closed between the legs: the next leg is refused, and no key becomes ACTIVE.
    card = wallet.card()
    body = {"cardId": card["id"], "internalAccountId": wallet.account_id, "nickname": "K"}
    first = client.post(PATH, body)
    assert first.status_code == 202, first.text
    second = _leg(client, body, first.json(), session_key)
    assert second.status_code == 202, second.text
    closed = client.request("PATCH", f"/cards/{card['id']}", json={"state": "CLOSED"})
    assert closed.status_code == 200, closed.text
    assert _code(_leg(client, body, second.json(), session_key)) == "409 CARD_NOT_MUTABLE"
    assert _code(client.post(PATH, body)) == "409 CARD_NOT_MUTABLE"
    keys = client.get(PATH, params={"accountId": wallet.account_id}).json()["data"]
    assert [k["status"] for k in keys] == ["PENDING"]


def _wallet_balance(client: SandboxClient, wallet: Wallet) -> int:
    listed = client.get("/customers/internal-accounts", params={"customerId": wallet.customer_id})
    amount: int = next(
        a["balance"]["amount"] for a in listed.json()["data"] if a["id"] == wallet.account_id
    )
    return amount


@pytest.mark.usefixtures("sandbox_only")
def test_a_wallet_funds_its_card_only_with_an_active_key(
    client: SandboxClient, server: SandboxServer
) -> None:
    """Authorization decisioning pulls from the wallet only while the card funding source has
    an ACTIVE delegated key: declined before, approved while ACTIVE, declined once revoked."""
    wallet = Wallet(client, server)
    _, session_key = wallet.first_login()
    card = wallet.card()
    funded = client.post(f"/sandbox/internal-accounts/{wallet.account_id}/fund", {"amount": 5_000})
    assert funded.status_code == 200, funded.text
    spend = {"amount": 1_000, "currency": {"code": "USDC"}, "merchant": {"descriptor": "SHOP"}}

    def authorize() -> None:
        answer = client.post(f"/sandbox/cards/{card['id']}/simulate/authorization", spend)
        assert answer.status_code == 202, answer.text

    authorize()
    assert _wallet_balance(client, wallet) == 5_000  # declined: no key
    body = {"cardId": card["id"], "internalAccountId": wallet.account_id, "nickname": "K"}
    _, created = three_legs(client, body, session_key)
    assert created.status_code == 201, created.text
    authorize()
    assert _wallet_balance(client, wallet) == 4_000  # approved: the wallet is debited
    revoked = client.request("DELETE", f"{PATH}/{created.json()['id']}")
    assert revoked.status_code == 204, revoked.text
    authorize()
    assert _wallet_balance(client, wallet) == 4_000  # declined again
