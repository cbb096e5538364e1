"""Beneficial owners and documents over real HTTP, in both environments, on SQLite and
PostgreSQL, as the published document writes them; bad input is 4xx with a stable code; and,
across two ``ewc serve`` processes on one database, a business's owners never hold more than
100% (two 60% owners at once: one is created) and the platform's internal accounts stay one per
currency when first listed through both processes at once.

``EWC_RACE_ROUNDS`` sets the rounds of the races (20 by default).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._pair import clients_of, race, running_pair
from ._server import SandboxServer
from .conftest import database_url

ROUNDS = int(os.environ.get("EWC_RACE_ROUNDS", "20"))
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
PERSON = {
    "firstName": "Jane",
    "lastName": "Smith",
    "birthDate": "1978-06-15",
    "nationality": "US",
    "address": {"line1": "1 Main St", "postalCode": "94105", "country": "US"},
    "idType": "SSN",
    "identifier": "123-45-6789",
}


def _code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["code"]


def _business(client: SandboxClient) -> str:
    customer_id: str = client.create_customer(customerType="BUSINESS")["id"]
    return customer_id


def _owner(client: SandboxClient, customer_id: str, share: int) -> httpx.Response:
    body = {
        "customerId": customer_id,
        "roles": ["UBO"],
        "ownershipPercentage": share,
        "personalInfo": PERSON,
    }
    return client.post("/beneficial-owners", body)


def _upload(client: SandboxClient, holder: str, content: bytes = PNG, **fields: str) -> Any:
    data = {"documentType": "PASSPORT", "country": "US", "documentHolder": holder, **fields}
    return client.http.post("/documents", data=data, files={"file": ("scan.png", content)})


def test_beneficial_owners(client: SandboxClient, environment: str) -> None:
    business = _business(client)
    created = _owner(client, business, 60)
    assert created.status_code == 201, created.text
    owner = created.json()
    expected = "APPROVED" if environment == "sandbox" else "PENDING"
    assert owner["kycStatus"] == expected and owner["personalInfo"]["birthDate"] == "1978-06-15"
    assert _code(_owner(client, business, 41)) == (400, "INVALID_INPUT")  # 101%
    assert _owner(client, business, 40).status_code == 201
    read = client.get(f"/beneficial-owners/{owner['id']}")
    assert read.json() == owner
    patch = {"roles": ["UBO", "DIRECTOR"], "personalInfo": {"middleName": "Q"}}
    updated = client.request("PATCH", f"/beneficial-owners/{owner['id']}", json=patch)
    assert updated.status_code == 200, updated.text
    assert updated.json()["roles"] == ["UBO", "DIRECTOR"]
    assert updated.json()["personalInfo"] == {**PERSON, "middleName": "Q"}
    renamed = client.request(
        "PATCH", f"/beneficial-owners/{owner['id']}", json={"personalInfo": {"lastName": "Li002"}}
    )
    assert renamed.json()["kycStatus"] == ("REJECTED" if environment == "sandbox" else "PENDING")
    over = client.request(
        "PATCH", f"/beneficial-owners/{owner['id']}", json={"ownershipPercentage": 61}
    )
    assert _code(over) == (400, "INVALID_INPUT")
    listed = client.get("/beneficial-owners", params={"customerId": business}).json()
    assert listed["totalCount"] == 2 and listed["data"][0]["id"] == owner["id"]
    assert listed["data"][0]["personalInfo"]["lastName"] == "Li002"


@pytest.mark.sqlite_only
def test_bad_beneficial_owners(client: SandboxClient) -> None:
    business = _business(client)
    person = client.create_customer()["id"]
    assert _code(_owner(client, person, 10)) == (400, "INVALID_INPUT")
    assert _code(_owner(client, "Customer:missing", 10)) == (404, "USER_NOT_FOUND")
    for share in (-1, 101, "50", 1.5, None):
        assert _code(_owner(client, business, share)) == (400, "INVALID_INPUT"), share  # type: ignore[arg-type]
    for broken in (
        {**PERSON, "birthDate": "15/06/1978"},
        {**PERSON, "nationality": "USA"},
        {**PERSON, "phoneNumber": "555"},
        {**PERSON, "idType": "PASSPORT"},
        {**PERSON, "address": {"line1": "x"}},
        {key: value for key, value in PERSON.items() if key != "lastName"},
    ):
        body = {"customerId": business, "roles": ["UBO"], "ownershipPercentage": 1}
        answer = client.post("/beneficial-owners", {**body, "personalInfo": broken})
        assert _code(answer) == (400, "INVALID_INPUT"), broken
    twice = {"customerId": business, "roles": ["UBO", "UBO"], "ownershipPercentage": 1}
    assert _code(client.post("/beneficial-owners", {**twice, "personalInfo": PERSON})) == (
        400,
        "INVALID_INPUT",
    )
    assert _code(client.get("/beneficial-owners")) == (400, "INVALID_INPUT")
    assert _code(client.get("/beneficial-owners/BeneficialOwner:none")) == (404, "NOT_FOUND")
    missing = client.request("PATCH", "/beneficial-owners/BeneficialOwner:none", json={})
    assert _code(missing) == (404, "NOT_FOUND")


def test_documents(client: SandboxClient) -> None:
    business = _business(client)
    owner = _owner(client, business, 10).json()
    uploaded = _upload(client, owner["id"], side="FRONT", documentNumber="A123")
    assert uploaded.status_code == 201, uploaded.text
    document = uploaded.json()
    assert document["documentHolder"] == owner["id"] and document["fileName"] == "scan.png"
    assert document["side"] == "FRONT" and document["documentNumber"] == "A123"
    assert _upload(client, business, b"%PDF-1.7\n...").status_code == 201
    assert client.get(f"/documents/{document['id']}").json() == document
    mine = client.get("/documents", params={"documentHolder": owner["id"]}).json()
    assert [item["id"] for item in mine["data"]] == [document["id"]]
    replaced = client.http.put(
        f"/documents/{document['id']}",
        data={"documentType": "NATIONAL_ID", "country": "GB"},
        files={"file": ("id.jpg", b"\xff\xd8\xff\xe0 jpeg")},
    )
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["documentType"] == "NATIONAL_ID"
    assert replaced.json()["fileName"] == "id.jpg" and "side" not in replaced.json()
    assert replaced.json()["documentHolder"] == owner["id"]
    assert client.request("DELETE", f"/documents/{document['id']}").status_code == 204
    assert _code(client.get(f"/documents/{document['id']}")) == (404, "NOT_FOUND")
    assert _code(client.request("DELETE", f"/documents/{document['id']}")) == (404, "NOT_FOUND")


@pytest.mark.sqlite_only
def test_bad_documents(client: SandboxClient, server: SandboxServer) -> None:
    business = _business(client)
    assert _code(_upload(client, business, b"GIF89a")) == (400, "UNSUITABLE_DOCUMENT")
    assert _code(_upload(client, business, b"")) == (400, "UNSUITABLE_DOCUMENT")
    assert _code(_upload(client, "Customer:none")) == (404, "USER_NOT_FOUND")
    assert _code(_upload(client, business, documentType="VISA")) == (400, "INVALID_INPUT")
    assert _code(_upload(client, business, country="usa")) == (400, "INVALID_INPUT")
    assert _code(_upload(client, business, side="LEFT")) == (400, "INVALID_INPUT")
    no_file = client.http.post(
        "/documents",
        data={"documentType": "PASSPORT", "country": "US", "documentHolder": business},
        files={"other": ("x.png", PNG)},
    )
    assert _code(no_file) == (400, "INVALID_INPUT")
    assert _code(client.post("/documents", {"documentHolder": business})) == (400, "INVALID_INPUT")
    garbage = client.http.post(
        "/documents",
        content=b"\x00\x01garbage",
        headers={"Content-Type": "multipart/form-data; boundary=zz"},
    )
    assert _code(garbage) == (400, "INVALID_INPUT")
    too_big = PNG + b"\x00" * (1024 * 1024)  # past --max-body-size (1 MiB by default)
    assert _code(_upload(client, business, too_big)) == (413, "BODY_TOO_LARGE")
    missing = client.http.put(
        "/documents/Document:none",
        data={"documentType": "PASSPORT", "country": "US"},
        files={"file": ("a.png", PNG)},
    )
    assert _code(missing) == (404, "NOT_FOUND")
    assert _code(client.get("/documents", params={"limit": "0"})) == (400, "INVALID_INPUT")
    assert server.process is not None and server.process.poll() is None


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    with running_pair(
        tmp_path_factory.mktemp(f"kyc-races-{backend}"), database_url(request, backend, "kyc")
    ) as servers:
        yield servers


def test_two_majority_owners_at_once_create_one(pair: tuple[SandboxServer, SandboxServer]) -> None:
    """Two 60% owners of one business through the two processes at the same moment: one is
    created, the other refused, every round; the business then holds 60%."""
    outcomes: Counter[tuple[int, ...]] = Counter()
    with clients_of(pair) as clients:
        for _ in range(ROUNDS):
            business = _business(clients[0])
            answers = race([lambda c=c, b=business: _owner(c, b, 60) for c in clients])  # type: ignore[misc]
            outcomes[tuple(sorted(answer.status_code for answer in answers))] += 1
            listed = clients[1].get("/beneficial-owners", params={"customerId": business}).json()
            assert sum(owner["ownershipPercentage"] for owner in listed["data"]) <= 100
    assert outcomes == Counter({(201, 400): ROUNDS}), outcomes


def test_platform_accounts_first_listed_at_once(pair: tuple[SandboxServer, SandboxServer]) -> None:
    """The first lists of the platform's internal accounts, through both processes at once,
    make one account per supported currency (both see the same ones)."""
    with clients_of(pair) as clients:
        answers = race([lambda c=c: c.get("/platform/internal-accounts") for c in clients])  # type: ignore[misc]
        assert [answer.status_code for answer in answers] == [200, 200]
        ids = [sorted(account["id"] for account in answer.json()["data"]) for answer in answers]
        assert ids[0] == ids[1]
        codes = [account["balance"]["currency"]["code"] for account in answers[0].json()["data"]]
        assert len(codes) == len(set(codes)) >= 1
