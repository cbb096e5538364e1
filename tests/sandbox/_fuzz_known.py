"""The API fuzz's real resources: one server's customer and its wallet, fiat accounts,
credential and session, external accounts, a quote and its transaction, an agent with its
Bearer token, its quote, action and transaction, a device code, an invitation, a verification,
a business customer's beneficial owner and document, an API token and a bulk import job
(``Known``, by the names the document gives its parameters), and a valid body with real ids
for the operations whose generated bodies rarely are valid (``_valid_bodies``).
"""

from __future__ import annotations

import re
from typing import Any

from ._agents import POLICY, Agent, connect, create_agent
from ._client import SandboxClient
from ._flows import Wallet
from ._payments import card_transaction, fund, usd_external
from ._server import SandboxServer


class Known:
    """Real resources of one server, by the names the document gives its parameters: the
    platform's, and overrides by path pattern where one name means different resources (the
    agent's own under ``/agents/me``)."""

    def __init__(self, server: SandboxServer, made: list[Agent]) -> None:
        client = SandboxClient(server.base_url, server.auth)
        sandbox = server.environment == "sandbox"
        try:
            uma = f"$fuzz.{server.environment}@sandbox.test"
            wallet = Wallet(client, server)
            customer_id = client.create_customer(
                currencies=["USD", "EUR"], umaAddress=uma, email="fuzz@example.com"
            )["id"]
            fiat = {
                a["balance"]["currency"]["code"]: a["id"]
                for a in client.get(
                    "/customers/internal-accounts",
                    params={"customerId": customer_id, "type": "INTERNAL_FIAT"},
                ).json()["data"]
            }
            if sandbox:
                fund(client, fiat["USD"], 1_000_000_00)
                card_transaction(client)  # GET /transactions lists a CARD one
            credential = wallet.add("EMAIL_OTP")
            session, _ = wallet.login(credential)
            customer_external = usd_external(client, customer_id, "000")["id"]
            platform_external = usd_external(client, None, "000")["id"]
            quote = self._quote(client.post, "/quotes", fiat, 10_00)
            manage = [*POLICY["permissions"], "MANAGE_EXTERNAL_ACCOUNTS"]
            agent = connect(server, client, made, customer_id, {**POLICY, "permissions": manage})
            agent_quote = self._quote(agent.post, "/agents/me/quotes", fiat, 10_00)
            executed = agent.post(f"/agents/me/quotes/{agent_quote['id']}/execute").json()
            pending, to_reject = (  # above the approval threshold: one to approve, one to reject
                agent.post(f"/agents/me/quotes/{q['id']}/execute").json()
                for q in (
                    self._quote(agent.post, "/agents/me/quotes", fiat, 500_00) for _ in range(2)
                )
            )
            assert pending["status"] == to_reject["status"] == "PENDING_APPROVAL", pending
            idle = create_agent(client, customer_id)  # not redeemed: its device code is live
            invitation = client.post("/invitations", {"inviterUma": uma, "amountToSend": 1})
            verification = client.post("/verifications", {"customerId": customer_id})
            assert invitation.status_code == 201 and verification.status_code == 200
            business, owner, document, token = _kyc_and_token(client)
            job = client.http.post(
                "/customers/bulk/csv",
                files={
                    "file": ("c.csv", b"umaAddress,platformCustomerId,customerType\n$a@b.c,p,X\n")
                },
            )
            assert job.status_code == 202, job.text
        finally:
            client.close()
        self.agent_token = agent.token
        self.bodies = _valid_bodies(
            uma, customer_id, wallet.account_id, fiat, customer_external, platform_external
        )
        self.bodies[("POST", "/beneficial-owners")] = {**OWNER, "customerId": business}
        self.platform: dict[str, str] = {
            "account_id": wallet.account_id,
            "accountId": fiat["USD"],
            "customerId": customer_id,
            "credential_id": credential["id"],
            "session_id": session["id"],
            "externalAccountId": customer_external,
            "quoteId": quote["id"],
            "transactionId": quote["transactionId"],
            "agentId": agent.id,
            "actionId": pending["id"],
            "code": idle["deviceCode"]["code"],
            "invitationCode": invitation.json()["code"],
            "verificationId": verification.json()["id"],
            "jobId": job.json()["jobId"],
            "currency": "USD",
            "receiverUmaAddress": "$success.usd@sandbox.test",
            "tokenId": token,
            "beneficialOwnerId": owner,
            "documentId": document,
            "documentHolder": owner,
        }
        self.overrides: list[tuple[str, dict[str, str]]] = [  # path pattern, ids
            ("^/auth/", {"accountId": wallet.account_id}),
            ("^/platform/external-accounts", {"externalAccountId": platform_external}),
            ("^/receiver/external-account", {"accountId": customer_external}),
            ("/reject$", {"actionId": to_reject["id"]}),
            ("^/beneficial-owners", {"customerId": business}),
            (
                "^/agents/me",
                {
                    "quoteId": agent_quote["id"],
                    "transactionId": executed.get("transaction", {}).get("id", ""),
                    "actionId": executed["id"],
                    "accountIdentifier": fiat["USD"],
                },
            ),
        ]

    @staticmethod
    def _quote(post: Any, path: str, fiat: dict[str, str], cents: int) -> dict[str, Any]:
        """A USD to EUR quote between the customer's fiat accounts."""
        response = post(
            path,
            {
                "source": {"sourceType": "ACCOUNT", "accountId": fiat["USD"]},
                "destination": {"destinationType": "ACCOUNT", "accountId": fiat["EUR"]},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": cents,
            },
        )
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    def ids_for(self, path: str) -> dict[str, str]:
        """The real ids (path and query names) for an operation's path (without base path)."""
        ids = dict(self.platform)
        for pattern, override in self.overrides:
            if re.search(pattern, path):
                ids.update(override)
        return {name: value for name, value in ids.items() if value}


OWNER: dict[str, Any] = {
    "roles": ["UBO"],
    "ownershipPercentage": 1,
    "personalInfo": {
        "firstName": "Jo",
        "lastName": "Doe",
        "birthDate": "1980-01-01",
        "nationality": "US",
        "address": {"line1": "1 Main St", "postalCode": "94105", "country": "US"},
        "idType": "SSN",
        "identifier": "123-45-6789",
    },
}


def _kyc_and_token(client: SandboxClient) -> tuple[str, str, str, str]:
    """A business customer, its beneficial owner with a document, and an API token."""
    business = client.create_customer(customerType="BUSINESS")["id"]
    owner = client.post("/beneficial-owners", {**OWNER, "customerId": business})
    assert owner.status_code == 201, owner.text
    document = client.http.post(
        "/documents",
        data={"documentType": "PASSPORT", "country": "US", "documentHolder": owner.json()["id"]},
        files={"file": ("passport.pdf", b"%PDF-1.7 fuzz")},
    )
    assert document.status_code == 201, document.text
    token = client.post("/tokens", {"name": "fuzz", "permissions": ["VIEW"]})
    assert token.status_code == 201, token.text
    return business, owner.json()["id"], document.json()["id"], token.json()["id"]


def _valid_bodies(
    uma: str,
    customer_id: str,
    wallet: str,
    fiat: dict[str, str],
    customer_external: str,
    platform_external: str,
) -> dict[tuple[str, str], Any]:
    """A valid body with real ids for the operations whose generated bodies rarely are (their
    ids would have to be guessed), by method and served path: each is sent once, so that the
    success answers meet the checks too."""
    quote = {
        "source": {"sourceType": "ACCOUNT", "accountId": fiat["USD"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": fiat["EUR"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 5_00,
    }
    usd_info = {
        "accountType": "USD_ACCOUNT",
        "accountNumber": "9876543010",
        "routingNumber": "021000021",
        "bankAccountType": "CHECKING",
        "bankName": "Test Bank",
        "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
    }
    return {
        ("POST", "/customers"): {"customerType": "INDIVIDUAL", "currencies": ["USD"]},
        ("POST", "/quotes"): quote,
        ("POST", "/agents/me/quotes"): quote,
        ("POST", "/transfer-out"): {
            "source": {"accountId": fiat["USD"]},
            "destination": {"accountId": customer_external},
            "amount": 1_00,
        },
        ("POST", "/transfer-in"): {
            "source": {"accountId": customer_external},
            "destination": {"accountId": fiat["USD"]},
            "amount": 1_00,
        },
        ("POST", "/customers/external-accounts"): {
            "customerId": customer_id,
            "currency": "USD",
            "accountInfo": usd_info,
        },
        ("POST", "/platform/external-accounts"): {"currency": "USD", "accountInfo": usd_info},
        ("POST", "/agents/me/external-accounts"): {"currency": "USD", "accountInfo": usd_info},
        ("POST", "/agents"): {"name": "Fuzz bot", "customerId": customer_id, "policy": POLICY},
        ("POST", "/invitations"): {"inviterUma": uma, "firstName": "Ann", "amountToSend": 1},
        ("POST", "/invitations/{invitationCode}/claim"): {"inviteeUma": "$bob@other.test"},
        ("POST", "/verifications"): {"customerId": customer_id},
        ("POST", "/sandbox/uma/receive"): {
            "senderUmaAddress": "$sender@other.test",
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": 1_00,
            "customerId": customer_id,
        },
        ("PATCH", "/config"): {"umaDomain": "fuzz.sandbox.test"},
        ("PATCH", "/internal-accounts/{account_id}"): {"privateEnabled": True},  # its 202
        ("POST", "/sandbox/events/trigger"): {"type": "TEST"},
        ("PATCH", "/agents/{agentId}"): {"name": "Renamed bot"},
        ("PATCH", "/agents/{agentId}/policy"): {"spendingLimits": {"dailyLimit": 1_000_000}},
        ("POST", "/agents/{agentId}/actions/{actionId}/approve"): {},
        ("POST", "/agents/{agentId}/actions/{actionId}/reject"): {"reason": "Not today."},
        ("POST", "/tokens"): {"name": "Fuzz token", "permissions": ["VIEW", "TRANSACT"]},
        ("PATCH", "/beneficial-owners/{beneficialOwnerId}"): {"roles": ["UBO", "DIRECTOR"]},
        ("PATCH", "/customers/{customerId}"): {"customerType": "INDIVIDUAL", "fullName": "Fuzz"},
        ("POST", "/customers/{customerId}/kyc-link"): {"redirectUri": "https://app.test/done"},
        ("POST", "/transactions/{transactionId}/confirm"): {},
    }
