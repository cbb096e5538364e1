"""POST /verifications over real HTTP: the KYB (registrationNumber) and KYC (lastName) sandbox
outcomes, missing data, and production, where no outcome is simulated."""

from __future__ import annotations

from typing import Any

import pytest

from ._client import SandboxClient
from ._server import SandboxServer


def verify(client: SandboxClient, **body: Any) -> dict[str, Any]:
    response = client.post("/verifications", body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    assert result["id"].startswith("Verification:")
    assert client.get(f"/verifications/{result['id']}").json() == result
    return result


def business(client: SandboxClient, registration: str | None) -> str:
    info = {"legalName": "Acme"} | ({"registrationNumber": registration} if registration else {})
    customer: dict[str, Any] = client.create_customer(customerType="BUSINESS", businessInfo=info)
    return str(customer["id"])


@pytest.mark.parametrize(
    ("registration", "kyb", "status"),
    [
        ("5523001", "PENDING", "PENDING_MANUAL_REVIEW"),
        ("5523002", "REJECTED", "REJECTED"),
        ("5523003", "APPROVED", "APPROVED"),
    ],
)
def test_kyb_by_registration_number(
    server: SandboxServer, client: SandboxClient, registration: str, kyb: str, status: str
) -> None:
    result = verify(client, customerId=business(client, registration))
    if server.environment == "production":  # no simulated outcome: a person reviews it
        kyb, status = "PENDING", "PENDING_MANUAL_REVIEW"
    assert result["kybStatus"] == kyb
    assert result["verificationStatus"] == status
    assert result["errors"] == []


@pytest.mark.parametrize(
    ("last_name", "kyc", "status"),
    [
        ("Smith001", "PENDING", "PENDING_MANUAL_REVIEW"),
        ("Smith002", "REJECTED", "REJECTED"),
        ("Smith", "APPROVED", "APPROVED"),
    ],
)
def test_kyc_by_last_name(
    server: SandboxServer, client: SandboxClient, last_name: str, kyc: str, status: str
) -> None:
    by_name = client.create_customer(fullName=f"Jane {last_name}")["id"]
    given = client.create_customer()["id"]
    for result in (
        verify(client, customerId=by_name),
        verify(client, customerId=given, personalInfo={"lastName": last_name}),
    ):
        expected = (
            (kyc, status)
            if server.environment == "sandbox"
            else ("PENDING", "PENDING_MANUAL_REVIEW")
        )
        assert (result["kycStatus"], result["verificationStatus"]) == expected


def test_beneficial_owners_join_the_business(server: SandboxServer, client: SandboxClient) -> None:
    result = verify(
        client,
        customerId=business(client, "BRN-777"),
        beneficialOwners=[
            {"personalInfo": {"firstName": "A", "lastName": "Doe"}},
            {"personalInfo": {"firstName": "B", "lastName": "Roe002"}},
        ],
    )
    if server.environment == "sandbox":
        assert result["kybStatus"] == "APPROVED"
        assert [o["kycStatus"] for o in result["beneficialOwners"]] == ["APPROVED", "REJECTED"]
        assert result["verificationStatus"] == "REJECTED"
    else:
        assert result["verificationStatus"] == "PENDING_MANUAL_REVIEW"


def test_missing_data_gives_resolve_errors(client: SandboxClient) -> None:
    result = verify(client, customerId=business(client, None))
    assert result["verificationStatus"] == "RESOLVE_ERRORS"
    (error,) = result["errors"]
    assert error["type"] == "MISSING_FIELD"
    assert error["field"] == "customer.businessInfo.registrationNumber"
    # Given in the request, the number completes it.
    customer = result["customerId"]
    fixed = verify(client, customerId=customer, businessInfo={"registrationNumber": "9"})
    assert fixed["errors"] == [] and fixed["verificationStatus"] != "RESOLVE_ERRORS"
    person = verify(client, customerId=client.create_customer()["id"])
    assert person["verificationStatus"] == "RESOLVE_ERRORS"


def test_bad_requests(client: SandboxClient) -> None:
    assert client.post("/verifications", {}).status_code == 400
    assert client.post("/verifications", {"customerId": 5}).status_code == 400
    missing = client.post("/verifications", {"customerId": "Customer:none"})
    assert missing.status_code == 404
    assert client.get("/verifications/Verification:none").status_code == 404
