"""The run over every operation (``test_operations_run``): its card, card simulation and
stablecoin part."""

from __future__ import annotations

import uuid
from typing import Any

from ._support import Customer

__all__ = ["cards_and_stablecoins"]


def cards_and_stablecoins(run: Any, customer: Customer, usd: str, bank: str) -> None:
    """Every card, card simulation and stablecoin operation, for a KYC-approved customer."""
    person = {"firstName": "Jane", "lastName": "Doe"}
    run("verifications.create", body={"customerId": customer.id, "personalInfo": person})
    card = run(
        "cards.create",
        body={"cardholderId": customer.id, "form": "VIRTUAL", "fundingSources": [usd]},
    )
    run("cards.list", cardholderId=customer.id)
    run("cards.get", card.id)
    run("cards.reveal", card.id)
    auth = {"amount": 1_00, "currency": {"code": "USD"}, "merchant": {"descriptor": "SHOP"}}
    token = run("sandbox.simulate_card_authorization", card.id, body=auth)
    ref = {"cardTransactionId": f"CardTransaction:{token.issuerTransactionToken}"}
    run("sandbox.simulate_card_authorization_advice", card.id, body={**ref, "amount": 50})
    run("sandbox.simulate_card_clearing", card.id, body={**ref, "amount": 50})
    run("sandbox.simulate_card_return", card.id, body={**ref, "amount": 50})
    run("sandbox.simulate_card_return_reversal", card.id, body=ref)
    run("sandbox.simulate_card_balance_inquiry", card.id, body={"merchant": auth["merchant"]})
    for kind in (
        "credit_authorization",
        "credit_authorization_advice",
        "financial_authorization",
        "financial_credit_authorization",
    ):
        run(f"sandbox.simulate_card_{kind}", card.id, body=auth)
    run("cards.update", card.id, body={"state": "CLOSED"})
    link = run(
        "stablecoins.link_provider_account",
        body={"provider": "BRALE", "apiClientId": str(uuid.uuid4()), "apiClientSecret": "s"},
    )
    run("stablecoins.list_provider_accounts")
    run("stablecoins.get_provider_account", link.id)
    coin = run(
        "stablecoins.register",
        body={
            "providerTokenIdentifier": "acme",
            "network": "SPARK",
            "networkTokenIdentifier": f"btkn{uuid.uuid4().hex}",
            "stablecoinProviderAccountId": link.id,
        },
    )
    run("stablecoins.list")
    run("stablecoins.get", coin.id)
    source = {
        "type": "PROVIDER_INTERNAL_BALANCE",
        "sourceTokenIdentifier": "acme",
        "cryptoNetwork": "SPARK",
    }
    minted = run(
        "stablecoins.mint",
        coin.id,
        body={"amount": "1000000", "fundingSource": source, "destination": {"accountId": usd}},
    )
    run(
        "stablecoins.burn",
        coin.id,
        body={
            "amount": "10000",
            "source": {"type": "EXTERNAL_ACCOUNT"},
            "destination": {"type": "EXTERNAL_ACCOUNT", "externalAccountId": bank, "rail": "WIRE"},
        },
    )
    run("stablecoins.list_operations", coin.id)
    run("stablecoins.get_operation", minted.id)
