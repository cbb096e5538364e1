"""A quote's Strong Customer Authentication over real HTTP (``ewc serve``, SQLite and
PostgreSQL): a pre-funded send of a customer of the EEA is held PENDING_AUTHORIZATION at its
execution and released by the proof of its one challenge (the SMS code from the outbox, or a
passkey assertion); a realtime-funding quote is created PENDING_AUTHORIZATION and gets its
payment instructions after two challenges; wrong, replayed and mismatched proofs are refused
with their codes; the code is re-sent (rate-limited); the transaction and the webhook event
show PENDING_AUTHORIZATION; a lapsed challenge fails the send; non-EEA customers and trusted
beneficiaries are not held."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from ._client import SandboxClient
from ._identity import ORIGIN, RP_ID, oidc_arguments
from ._payments import accounts, balance, fund, usd_external
from ._server import SandboxServer
from .conftest import server_fixture
from .test_sca import eu_customer
from .test_sca_flows import enroll_passkey

AMOUNT = 10_000
#: The sandbox's published SMS code (accepted in the sandbox environment only).
CODE = {"code": "123456"}
GRID = Path(__file__).resolve().parents[3] / "shared" / "spec" / "grid-openapi.yaml"


server = server_fixture("quote-sca", "quotesca", oidc=True)


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _outbox(server: SandboxServer) -> set[Path]:
    return set(server.mail_dir.glob("*.eml"))


def _code(server: SandboxServer, before: set[Path]) -> str:
    """The code of the one SMS written to the outbox since ``before``."""
    (new,) = sorted(_outbox(server) - before)
    text = new.read_text()
    assert "sms.sandbox.invalid" in text
    return text.rsplit("code is: ", 1)[1].split()[0]


def _other(code: str) -> str:
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    return "654321" if wrong in ("123456", "000000") else wrong


def eu_sender(client: SandboxClient, **fields: Any) -> dict[str, Any]:
    """A customer of the EEA with a funded EUR account and a USD external account."""
    customer_id = eu_customer(client, currencies=["EUR", "USD"], **fields)
    eur = accounts(client, customer_id)["EUR"]["id"]
    fund(client, eur, 1_000_000)
    bank = usd_external(client, customer_id, "001")["id"]
    return {"id": customer_id, "EUR": eur, "bank": bank}


def _quote(client: SandboxClient, source: dict[str, Any], destination: str) -> dict[str, Any]:
    body = {
        "source": source,
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": AMOUNT,
    }
    response = client.post("/quotes", body)
    assert response.status_code in (201, 202), response.text
    made: dict[str, Any] = response.json()
    made["httpStatus"] = response.status_code
    return made


def _account_source(account_id: str) -> dict[str, Any]:
    return {"sourceType": "ACCOUNT", "accountId": account_id}


def _transaction(client: SandboxClient, transaction_id: str) -> dict[str, Any]:
    response = client.get(f"/transactions/{transaction_id}")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def _events(client: SandboxClient, event_type: str) -> list[dict[str, Any]]:
    response = client.get("/sandbox/events", params={"type": event_type, "limit": 100})
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["data"]
    return found


def test_a_pre_funded_send_is_held_until_its_sms_code(
    client: SandboxClient, server: SandboxServer
) -> None:
    sender = eu_sender(client)
    quote = _quote(client, _account_source(sender["EUR"]), sender["bank"])
    assert (quote["httpStatus"], quote["status"]) == (201, "PENDING")
    assert "scaChallenge" not in quote
    path = f"/quotes/{quote['id']}"
    early = client.post(f"{path}/authorize", {"code": "123456"})
    assert (early.status_code, early.json()["code"]) == (409, "NO_PENDING_CHALLENGE")
    before = _outbox(server)
    held = client.post(f"{path}/execute")
    assert held.status_code == 200, held.text
    body = held.json()
    assert body["status"] == "PENDING_AUTHORIZATION"
    challenge = body["scaChallenge"]
    assert challenge["id"].startswith("ScaChallenge:")
    assert (challenge["factor"], challenge["availableFactors"]) == ("SMS_OTP", ["SMS_OTP"])
    assert challenge["purpose"] == "TRANSFER" and challenge["expiresAt"]
    assert "passkeyAssertionOptions" not in challenge
    code = _code(server, before)
    # Nothing moved yet; the transaction and its webhook event show the hold.
    assert balance(client, sender["id"], "EUR") == 1_000_000
    waiting = _transaction(client, body["transactionId"])
    assert (waiting["status"], waiting["quoteId"]) == ("PENDING_AUTHORIZATION", quote["id"])
    announced = [
        e
        for e in _events(client, "OUTGOING_PAYMENT.PENDING_AUTHORIZATION")
        if e["payload"]["data"]["id"] == body["transactionId"]
    ]
    assert len(announced) == 1
    assert announced[0]["payload"]["data"]["status"] == "PENDING_AUTHORIZATION"
    assert announced[0]["payload"]["data"]["sentAmount"]["amount"] == AMOUNT
    assert client.get(path).json()["scaChallenge"]["id"] == challenge["id"]
    again = client.post(f"{path}/execute")
    assert (again.status_code, again.json()["code"]) == (409, "QUOTE_PENDING_AUTHORIZATION")
    soon = client.post(f"{path}/authorize/resend")
    assert (soon.status_code, soon.json()["code"]) == (429, "OTP_RATE_LIMITED")
    assert soon.headers.get("Retry-After")
    wrong = client.post(f"{path}/authorize", {"code": _other(code)})
    assert (wrong.status_code, wrong.json()["code"]) == (400, "OTP_INVALID"), wrong.text
    passkey = client.post(
        f"{path}/authorize", {"passkeyAssertion": {"credentialId": "x"}, "origin": ORIGIN}
    )
    assert (passkey.status_code, passkey.json()["code"]) == (400, "INVALID_INPUT")
    done = client.post(f"{path}/authorize", {"code": code})
    assert done.status_code == 200, done.text
    released = done.json()
    assert released["status"] in ("PENDING", "PROCESSING", "COMPLETED")
    assert "scaChallenge" not in released
    assert balance(client, sender["id"], "EUR") == 1_000_000 - AMOUNT
    assert _transaction(client, body["transactionId"])["status"] != "PENDING_AUTHORIZATION"
    replay = client.post(f"{path}/authorize", {"code": code})
    assert (replay.status_code, replay.json()["code"]) == (409, "NO_PENDING_CHALLENGE")
    resend = client.post(f"{path}/authorize/resend")
    assert (resend.status_code, resend.json()["code"]) == (409, "NO_PENDING_CHALLENGE")
    assert balance(client, sender["id"], "EUR") == 1_000_000 - AMOUNT


def test_a_realtime_funding_quote_gets_its_instructions_after_two_challenges(
    client: SandboxClient, server: SandboxServer
) -> None:
    sender = eu_sender(client)
    source = {"sourceType": "REALTIME_FUNDING", "currency": "EUR", "customerId": sender["id"]}
    before = _outbox(server)
    quote = _quote(client, source, sender["bank"])
    assert (quote["httpStatus"], quote["status"]) == (202, "PENDING_AUTHORIZATION")
    assert "paymentInstructions" not in quote
    first = quote["scaChallenge"]
    assert (first["factor"], first["purpose"]) == ("SMS_OTP", "CURRENCY_CONVERSION")
    code = _code(server, before)
    path = f"/quotes/{quote['id']}"
    assert _transaction(client, quote["transactionId"])["status"] == "PENDING_AUTHORIZATION"
    paid = client.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "EUR"})
    assert (paid.status_code, paid.json()["code"]) == (409, "QUOTE_PENDING_AUTHORIZATION")
    before = _outbox(server)
    step = client.post(f"{path}/authorize", {"code": code})
    assert step.status_code == 200, step.text
    second = step.json()["scaChallenge"]
    assert step.json()["status"] == "PENDING_AUTHORIZATION"
    assert second["id"] != first["id"] and second["purpose"] == "PAYOUT"
    assert "paymentInstructions" not in step.json()
    next_code = _code(server, before)
    replay = client.post(f"{path}/authorize", {"code": code})
    assert replay.status_code == 400, replay.text
    assert replay.json()["code"] in ("OTP_INVALID", "OTP_USED")
    done = client.post(f"{path}/authorize", {"code": next_code})
    assert done.status_code == 200, done.text
    authorized = done.json()
    assert authorized["status"] == "PENDING" and "scaChallenge" not in authorized
    assert authorized["paymentInstructions"]
    assert _transaction(client, quote["transactionId"])["status"] == "PENDING"
    paid = client.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "EUR"})
    assert paid.status_code == 200, paid.text
    assert paid.json()["status"] != "PENDING_AUTHORIZATION"


def test_a_passkey_challenge(client: SandboxClient) -> None:
    sender = eu_sender(client)
    device = enroll_passkey(client, sender["id"])
    quote = _quote(client, _account_source(sender["EUR"]), sender["bank"])
    path = f"/quotes/{quote['id']}"
    totp = client.post(f"{path}/execute", {"scaFactor": "TOTP"})
    assert (totp.status_code, totp.json()["code"]) == (400, "INVALID_INPUT")
    held = client.post(f"{path}/execute", {"scaFactor": "PASSKEY"})
    assert held.status_code == 200, held.text
    challenge = held.json()["scaChallenge"]
    assert challenge["factor"] == "PASSKEY"
    assert challenge["availableFactors"] == ["SMS_OTP", "PASSKEY"]
    options = challenge["passkeyAssertionOptions"]
    assert options["rpId"] == RP_ID
    resend = client.post(f"{path}/authorize/resend")
    assert (resend.status_code, resend.json()["code"]) == (409, "NO_PENDING_CHALLENGE")
    code = client.post(f"{path}/authorize", {"code": "123456"})
    assert (code.status_code, code.json()["code"]) == (400, "INVALID_INPUT")
    stranger = device.authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=b"\x01" * 32)
    refused = client.post(f"{path}/authorize", {"passkeyAssertion": stranger, "origin": ORIGIN})
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"].startswith("PASSKEY_"), refused.text
    assertion = device.authenticate(
        rp_id=RP_ID, origin=ORIGIN, challenge=_b64(options["challenge"])
    )
    proof = {"passkeyAssertion": assertion, "origin": ORIGIN}
    done = client.post(f"{path}/authorize", proof)
    assert done.status_code == 200, done.text
    assert done.json()["status"] != "PENDING_AUTHORIZATION"
    assert balance(client, sender["id"], "EUR") == 1_000_000 - AMOUNT
    replay = client.post(f"{path}/authorize", proof)
    assert (replay.status_code, replay.json()["code"]) == (409, "NO_PENDING_CHALLENGE")


def test_outside_the_eea_and_to_a_trusted_beneficiary_nothing_is_held(
    client: SandboxClient,
) -> None:
    us = client.create_customer(region="US", currencies=["EUR", "USD"])["id"]
    eur = accounts(client, us)["EUR"]["id"]
    fund(client, eur, 1_000_000)
    quote = _quote(client, _account_source(eur), usd_external(client, us, "001")["id"])
    executed = client.post(f"/quotes/{quote['id']}/execute")
    assert executed.status_code == 200, executed.text
    assert executed.json()["status"] != "PENDING_AUTHORIZATION"
    assert "scaChallenge" not in executed.json()
    refused = client.post(f"/quotes/{quote['id']}/authorize", {"code": "123456"})
    assert (refused.status_code, refused.json()["code"]) == (409, "SCA_NOT_REQUIRED")
    sender = eu_sender(client)
    trust = client.post(f"/customers/external-accounts/{sender['bank']}/trust")
    assert trust.status_code == 200, trust.text
    confirm = {"challengeId": trust.json()["scaChallenge"]["id"], "code": "123456"}
    trusted = client.post(f"/customers/external-accounts/{sender['bank']}/trust/confirm", confirm)
    assert trusted.json() == {"trusted": True}, trusted.text
    quote = _quote(client, _account_source(sender["EUR"]), sender["bank"])
    executed = client.post(f"/quotes/{quote['id']}/execute")
    assert executed.status_code == 200, executed.text
    assert executed.json()["status"] != "PENDING_AUTHORIZATION"
    source = {"sourceType": "REALTIME_FUNDING", "currency": "EUR", "customerId": sender["id"]}
    realtime = _quote(client, source, sender["bank"])
    assert realtime["scaChallenge"]["purpose"] == "CURRENCY_CONVERSION"
    done = client.post(f"/quotes/{realtime['id']}/authorize", {"code": "123456"})
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "PENDING" and done.json()["paymentInstructions"]


def test_a_lapsed_challenge_fails_the_send(client: SandboxClient) -> None:
    """Last in the module: it moves the server's clock."""
    sender = eu_sender(client)
    quote = _quote(client, _account_source(sender["EUR"]), sender["bank"])
    held = client.post(f"/quotes/{quote['id']}/execute")
    assert held.json()["status"] == "PENDING_AUTHORIZATION", held.text
    moved = client.post("/sandbox/clock/advance", {"seconds": 6 * 60})
    assert moved.status_code == 200, moved.text
    late = client.post(f"/quotes/{quote['id']}/authorize", {"code": "123456"})
    assert late.status_code in (400, 409), late.text
    assert late.json()["code"] in ("CHALLENGE_NOT_FOUND", "NO_PENDING_CHALLENGE")
    failed = _transaction(client, quote["transactionId"])
    assert (failed["status"], failed["failureReason"]) == ("FAILED", "SCA_NOT_COMPLETED")
    assert client.get(f"/quotes/{quote['id']}").json()["status"] == "FAILED"
    assert balance(client, sender["id"], "EUR") == 1_000_000


def test_the_published_names_answer_validates(
    jwks_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """With ``--names published``: the held quote (202 and 200), the authorized step, the
    released quote, the waiting transaction and the webhook event's data each validate
    against the published document's schema of their operation."""
    import yaml
    from _ci import skip_or_fail

    from ._published_fuzz import Grid

    override = os.environ.get("EWC_GRID_OPENAPI")
    spec = Path(override) if override else GRID
    if not spec.is_file():
        skip_or_fail(f"the published OpenAPI is not at {spec}")
    grid = Grid(yaml.safe_load(spec.read_text()))
    running = SandboxServer(
        tmp_path_factory.mktemp("quote-sca-published"),
        extra=[*oidc_arguments(jwks_url), "--names", "published"],
    )
    running.start()
    client = SandboxClient(running.base_url, running.auth)
    checked: list[str] = []

    def valid(method: str, path: str, response: Any) -> dict[str, Any]:
        published = grid.published(method, path)
        assert published is not None, path
        body: dict[str, Any] = response.json()
        validator = grid.validator(*published, response.status_code, body)
        errors = [str(e) for e in validator.iter_errors(body)]
        assert not errors, (path, response.status_code, errors[:3])
        checked.append(f"{method} {published[1]} {response.status_code}")
        return body

    try:
        sender = eu_sender(client)
        # USD funding into the customer's EUR account, and EUR funding out to its USD bank
        # account: the instructions are each currency's published account type (USD_ACCOUNT's
        # routing number, EUR_ACCOUNT's IBAN)
        for currency, account_type, target in (
            ("USD", "USD_ACCOUNT", sender["EUR"]),
            ("EUR", "EUR_ACCOUNT", sender["bank"]),
        ):
            source = {
                "sourceType": "REALTIME_FUNDING",
                "currency": currency,
                "customerId": sender["id"],
            }
            body = {
                "source": source,
                "destination": {"destinationType": "ACCOUNT", "accountId": target},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": AMOUNT,
            }
            held = valid("POST", "/quotes", client.post("/quotes", body))
            assert held["status"] == "PENDING_AUTHORIZATION"
            path = f"/quotes/{held['id']}"
            authorize = client.post(f"{path}/authorize", CODE)
            step = valid("POST", "/quotes/{quoteId}/authorize", authorize)
            assert step["scaChallenge"]["purpose"] == "PAYOUT"
            authorize = client.post(f"{path}/authorize", CODE)
            done = valid("POST", "/quotes/{quoteId}/authorize", authorize)
            (instruction,) = done["paymentInstructions"]
            assert instruction["accountOrWalletInfo"]["accountType"] == account_type
        quote = _quote(client, _account_source(sender["EUR"]), sender["bank"])
        path = f"/quotes/{quote['id']}"
        waiting = valid("POST", "/quotes/{quoteId}/execute", client.post(f"{path}/execute"))
        assert waiting["status"] == "PENDING_AUTHORIZATION"
        transaction = f"/transactions/{waiting['transactionId']}"
        found = valid("GET", "/transactions/{transactionId}", client.get(transaction))
        assert found["status"] == waiting["status"]
        valid("POST", "/quotes/{quoteId}/authorize", client.post(f"{path}/authorize", CODE))
        (event,) = [
            e
            for e in _events(client, "OUTGOING_PAYMENT.PENDING_AUTHORIZATION")
            if e["payload"]["data"]["id"] == waiting["transactionId"]
        ]
        data = event["payload"]["data"]
        schema = {"$ref": "#/components/schemas/OutgoingTransaction"}
        validator = jsonschema_rs.Draft202012Validator({**schema, "components": grid.components})
        assert not [str(e) for e in validator.iter_errors(data)]
        assert event["payload"]["type"] == "OUTGOING_PAYMENT.PENDING_AUTHORIZATION"
        assert {"id", "type", "timestamp", "data"} <= set(event["payload"])
    finally:
        client.close()
        assert running.stop() == 0
    assert len(checked) == 9, checked
