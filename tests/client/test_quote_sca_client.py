"""The client's quote authorization against ``ewc serve`` over real HTTP (both environments,
``Client`` and ``AsyncClient``): a realtime-funding quote of a customer of the EEA is created
``PENDING_AUTHORIZATION`` with its ``scaChallenge`` (a typed ``ScaChallengeOut``), the code is
re-sent (the client waits out the 429 of the fresh first code; the first code then no longer
works), and ``sca.authorize_quote`` with the codes from the outbox walks its two challenges to
the payment instructions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from embedded_wallet_crypto.client import ApiError
from embedded_wallet_crypto.sandbox.models.sca import ScaChallengeOut
from sandbox._server import SandboxServer


def _outbox(server: SandboxServer) -> set[Path]:
    return set(server.mail_dir.glob("*.eml"))


def _code(server: SandboxServer, before: set[Path]) -> str:
    (new,) = sorted(_outbox(server) - before)
    return new.read_text().rsplit("code is: ", 1)[1].split()[0]


def test_a_quote_authorized_through_the_client(api: Any, server: SandboxServer) -> None:
    customer = api.customers.create(
        body={
            "customerType": "INDIVIDUAL",
            "region": "FR",
            "phoneNumber": "+33612345678",
            "currencies": ["EUR", "USD"],
        }
    )
    eur = next(
        a.id
        for a in api.internal_accounts.list.items(customerId=customer.id)
        if a.balance.currency.code == "EUR"
    )
    before = _outbox(server)
    source = {"sourceType": "REALTIME_FUNDING", "currency": "USD", "customerId": customer.id}
    quote = api.quotes.create(
        body={
            "source": source,
            "destination": {"destinationType": "ACCOUNT", "accountId": eur},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 10_000,
        }
    )
    assert quote.status == "PENDING_AUTHORIZATION" and quote.paymentInstructions is None
    assert isinstance(quote.scaChallenge, ScaChallengeOut)
    assert quote.scaChallenge.purpose == "CURRENCY_CONVERSION"
    first = _code(server, before)
    before = _outbox(server)
    assert api.sca.resend_quote_code(quote.id) is None  # its 429 waited out by the client
    code = _code(server, before)
    with pytest.raises(ApiError) as replaced:
        api.sca.authorize_quote(quote.id, body={"code": first})
    assert (replaced.value.status, replaced.value.code) == (400, "OTP_INVALID")
    before = _outbox(server)
    step = api.sca.authorize_quote(quote.id, body={"code": code})
    assert step.status == "PENDING_AUTHORIZATION" and step.scaChallenge is not None
    assert step.scaChallenge.purpose == "PAYOUT"
    done = api.sca.authorize_quote(quote.id, body={"code": _code(server, before)})
    assert done.status == "PENDING" and done.scaChallenge is None
    assert done.paymentInstructions
    with pytest.raises(ApiError) as gone:
        api.sca.authorize_quote(quote.id, body={"code": code})
    assert (gone.value.status, gone.value.code) == (409, "NO_PENDING_CHALLENGE")
