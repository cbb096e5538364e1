"""The operation table against the running service: every operation of its OpenAPI document
has a client method (by method and path), and a run over every operation parses every answer
(a JSON object, a list envelope, an empty 204, the webhook key's PEM; every error a JSON
``{status, code, reason}`` read into an ApiError)."""

from __future__ import annotations

import uuid
from typing import Any

import embedded_wallet_crypto as ewc
import httpx
import pytest
from embedded_wallet_crypto.client import OPERATIONS, ApiError
from embedded_wallet_crypto.client._operations import operation as table_row
from pydantic import BaseModel
from sandbox._server import SandboxServer

from ._cards_run import cards_and_stablecoins
from ._support import Customer, _template, bank_account

KEY = ewc.KeyPair.generate().public_key_hex()
#: The answers of the run that are errors, on purpose: bad or unknown input, a state that
#: refuses (each still an error body the client reads).
EXPECTED_ERRORS = {
    "customers.create": "400 INVALID_INPUT",
    "external_accounts.create_for_customer": "400 INVALID_INPUT",
    "external_accounts.create_for_platform": "400 INVALID_INPUT",
    "external_accounts.get_for_platform": "404 NOT_FOUND",
    "transactions.approve": "409 TRANSACTION_NOT_AWAITING_APPROVAL",
    "auth.create_credential": "400 INVALID_INPUT",
    "auth.verify": "401 UNAUTHORIZED",
    "auth.revoke_credential": "400 LAST_CREDENTIAL",
    "invitations.create": "400 INVALID_INPUT",
    "invitations.get": "404 INVITATION_NOT_FOUND",
    "invitations.claim": "404 INVITATION_NOT_FOUND",
    "invitations.cancel": "404 INVITATION_NOT_FOUND",
    "sandbox.send": "404 NOT_FOUND",
    "agents.regenerate_device_code": "409 AGENT_CONNECTED",
    "agent.execute_quote": "401 UNAUTHORIZED",
    "agents.reject_action": "409 ACTION_NOT_PENDING",
    "sandbox.send_test_webhook": "400 WEBHOOK_ENDPOINT_NOT_SET",
    "sandbox.resend_event": "404 EVENT_NOT_FOUND",
    "external_accounts.challenge_for_customer": "409 OWNERSHIP_VERIFICATION_NOT_APPLICABLE",
    "external_accounts.verify_for_customer": "409 NO_OWNERSHIP_CHALLENGE",
    "external_accounts.challenge_for_platform": "404 NOT_FOUND",
    "external_accounts.verify_for_platform": "404 NOT_FOUND",
    "external_accounts.delete_for_platform": "404 NOT_FOUND",
    "transactions.reject": "409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL",
    "transactions.cancel": "404 NOT_FOUND",
    "agent.delete_external_account": "404 NOT_FOUND",
    "agent.create_external_account": "400 INVALID_INPUT",
    "sca.delete_factor": "404 NOT_FOUND",
    "sca.trust": "409 SCA_NOT_REQUIRED",
    "sca.confirm_trust": "409 SCA_NOT_REQUIRED",
    "sca.untrust": "409 SCA_NOT_REQUIRED",
    "sca.confirm_untrust": "409 SCA_NOT_REQUIRED",
    "sca.authorize_quote": "409 SCA_NOT_REQUIRED",
    "sca.resend_quote_code": "409 SCA_NOT_REQUIRED",
}


@pytest.fixture(scope="module")
def environment() -> str:
    return "sandbox"


def test_every_served_operation_has_a_client_method(server: SandboxServer) -> None:
    document = httpx.get(f"{server.base_url}/openapi.json", timeout=30).json()
    base = "/" + server.base_url.rstrip("/").rsplit("/", 1)[1]
    served = {
        (method.upper(), _template(path.removeprefix(base)))
        for path, operations in document["paths"].items()
        for method in operations
        if method in ("get", "post", "put", "patch", "delete")
    }
    table = {(op.method, _template(op.path)) for op in OPERATIONS}
    assert served - table == set(), "served without a client method"
    assert table - served == set(), "client methods the service does not serve"
    assert len(table) == len(OPERATIONS) == len(served)


class Run:
    """Calls operations by name and checks that every answer parses."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.called: dict[str, str] = {}

    def __call__(self, name: str, *args: Any, by: Any = None, **options: Any) -> Any:
        group, _, method = name.partition(".")
        operation = getattr(getattr(by or self.client, group), method)
        try:
            result = operation(*args, **options)
        except ApiError as error:
            body = error.body
            assert isinstance(body, dict), (name, body)
            assert set(body) == {"status", "code", "reason"}, (name, body)
            assert (body["status"], body["code"], body["reason"]) == (
                error.status,
                error.code,
                error.reason,
            ), name
            assert 400 <= error.status < 500, (name, body)
            self.called.setdefault(name, f"{error.status} {error.code}")
            return None
        op = table_row(name)
        if name == "sandbox.webhook_public_key":
            assert isinstance(result, str) and "BEGIN PUBLIC KEY" in result
        elif op.response_model is None:
            assert result is None, (name, result)
        else:  # read into its model; the api fixture holds every answer to it exactly
            assert isinstance(result, BaseModel), (name, result)
        self.called.setdefault(name, "ok")
        return result


def _move(source: str, destination: str) -> dict[str, Any]:
    return {"source": {"accountId": source}, "destination": {"accountId": destination}, "amount": 1}


def test_a_run_over_every_operation_parses_every_answer(api: Any, server: SandboxServer) -> None:
    run = Run(api)
    missing = f"Missing:{uuid.uuid4()}"
    run("config.get")
    run("config.update", body={"umaDomain": "sandbox.test"})
    run("customers.create", body={"customerType": "NOBODY"})
    customer = Customer(api, server.mail_dir)
    run("internal_accounts.list", customerId=customer.id)
    run("customers.list", customerType="INDIVIDUAL", limit=5)
    run("customers.get", customer.id)
    run("customers.update", customer.id, body={"customerType": "INDIVIDUAL", "fullName": "Ann"})
    run("verifications.create_kyc_link", customer.id, body={"redirectUri": "https://app.test/"})
    csv = b"umaAddress,platformCustomerId,customerType\n$csv@sandbox.test,csv-1,INDIVIDUAL\n"
    job = run("customers.upload_csv", body={"file": ("customers.csv", csv)})
    run("customers.get_bulk_job", job.jobId)
    spare = api.customers.create(body={"customerType": "INDIVIDUAL"})
    run("customers.delete", spare.id)
    usd = customer.accounts["USD"].id
    run("sandbox.fund", usd, body={"amount": 100_00})
    run("sandbox.fund", customer.wallet, body={"amount": 30_000_000})
    bank = bank_account(api, customer.id)
    run("external_accounts.create_for_customer", body={"customerId": customer.id})
    run("external_accounts.list_for_customer")
    run("external_accounts.get_for_customer", bank.id)
    run("external_accounts.create_for_platform", body={"currency": "USD"})
    run("external_accounts.list_for_platform")
    run("external_accounts.get_for_platform", missing)
    extra = bank_account(api, customer.id, "011")
    run("external_accounts.challenge_for_customer", extra.id, body={"method": "LIVENESS"})
    run("external_accounts.verify_for_customer", extra.id, body={"signature": "0x00"})
    run("external_accounts.delete_for_customer", extra.id)
    run("external_accounts.challenge_for_platform", missing, body={"method": "LIVENESS"})
    run("external_accounts.verify_for_platform", missing, body={"signature": "0x00"})
    run("external_accounts.delete_for_platform", missing)
    out = run("transfers.transfer_out", body=_move(usd, bank.id))
    run("transfers.transfer_in", body=_move(bank.id, usd))
    run("transactions.list", customerId=customer.id)
    run("transactions.get", out.id)
    run("transactions.approve", out.id, body={})
    run("transactions.reject", out.id, body={"reason": "no"})
    run("transactions.cancel", missing)
    run("transactions.confirm", out.id, body={})
    run("quotes.lookup_uma", "$success.usd@sandbox.test", customerId=customer.id)
    run("quotes.lookup_external_account", bank.id, customerId=customer.id)
    wallet_quote = {
        "source": {"sourceType": "ACCOUNT", "accountId": customer.wallet},
        "destination": {"destinationType": "ACCOUNT", "accountId": bank.id},
        "lockedCurrencySide": "RECEIVING",
        "lockedCurrencyAmount": 1_00,
    }
    quote = run("quotes.create", body=wallet_quote)
    run("quotes.get", quote.id)
    # The auth group and wallet export, with a session of the wallet.
    run("auth.create_credential", body={"type": "EMAIL_OTP"})
    session = api.login_email_otp(customer.wallet, otp="000000")
    credential_id = run("auth.list_credentials", accountId=customer.wallet).data[0].id
    run("auth.challenge", credential_id)
    run(
        "auth.verify", credential_id, body={"type": "EMAIL_OTP", "otp": "1", "clientPublicKey": KEY}
    )
    run("auth.list_sessions", accountId=customer.wallet)
    run("internal_accounts.export", customer.wallet, body={"clientPublicKey": KEY}, session=session)
    private = {"privateEnabled": True}
    updated = run("internal_accounts.update", customer.wallet, body=private, session=session)
    assert updated.privateEnabled is True
    run("quotes.execute", quote.id, session=session)
    run("auth.refresh_session", session.id, body={"clientPublicKey": KEY})  # its 202
    person = {"firstName": "Jane", "lastName": "Doe"}
    api.verifications.create(body={"customerId": customer.id, "personalInfo": person})
    wallet_card = api.cards.create(
        body={"cardholderId": customer.id, "form": "VIRTUAL", "fundingSources": [customer.wallet]}
    )
    card = {"cardId": wallet_card.id, "internalAccountId": customer.wallet, "nickname": "Card key"}
    delegated = run("auth.create_delegated_key", body=card, session=session)  # three legs
    run("auth.list_delegated_keys", accountId=customer.wallet)
    run("auth.get_delegated_key", delegated.id)
    run("auth.revoke_delegated_key", delegated.id)
    run("auth.revoke_credential", credential_id, session=session)
    run("auth.revoke_session", session.id, session=session)
    # Strong customer authentication and contact verification, for a customer of the EEA.
    eu = run(
        "customers.create",
        body={"customerType": "INDIVIDUAL", "region": "DE", "phoneNumber": "+4915112345678"},
    )
    run("contact_verification.send_phone_code", eu.id)
    run("contact_verification.confirm_phone", eu.id, body={"code": "123456"})
    eu_email = run(
        "customers.create",
        body={"customerType": "INDIVIDUAL", "region": "FR", "email": "eu@example.com"},
    )
    run("contact_verification.send_email_code", eu_email.id)
    run("contact_verification.confirm_email", eu_email.id, body={"code": "123456"})
    run("sca.list_factors", customerId=eu.id)
    totp = run("sca.start_enrollment", body={"type": "TOTP"}, customerId=eu.id)
    confirm = {"type": "TOTP", "secret": totp.secret, "code": "123456"}
    run("sca.confirm_enrollment", body=confirm, customerId=eu.id)
    run("sca.delete_factor", "no-such-passkey", customerId=eu.id)
    run("sca.start_login", body={"factor": "TOTP"}, customerId=eu.id)
    proof = {"factor": "TOTP", "code": "123456", "endUserIpAddress": "203.0.113.42"}
    run("sca.complete_login", body=proof, customerId=eu.id)
    run("sca.record_event", body={"eventType": "FAILED_LOGIN_ATTEMPT"}, customerId=eu.id)
    reset = run("sca.start_reset", body={"factor": "TOTP"}, customerId=eu.id)
    run("sca.get_reset", reset.resetId, customerId=eu.id)
    run("sca.complete_reset", reset.resetId, customerId=eu.id)
    run("sca.trust", bank.id)  # the customer of the bank account is not in the EEA
    run("sca.confirm_trust", bank.id, body={"code": "123456"})
    run("sca.untrust", bank.id)
    run("sca.confirm_untrust", bank.id, body={"code": "123456"})
    run("sca.authorize_quote", quote.id, body={"code": "123456"})
    run("sca.resend_quote_code", quote.id)
    # Invitations and verifications.
    run("invitations.create", body={"inviterUma": "$nobody@x.test"})
    run("invitations.get", "NOCODE")
    run("invitations.claim", "NOCODE", body={"inviteeUma": "$b@x.test"})
    run("invitations.cancel", "NOCODE")
    verification = run("verifications.create", body={"customerId": customer.id})
    run("verifications.get", verification.id)
    # The platform's directories, API tokens, beneficial owners and documents.
    run("internal_accounts.list_for_platform")
    token = run("tokens.create", body={"name": "run", "permissions": ["VIEW"]})
    run("tokens.list")
    run("tokens.get", token.id)
    run("tokens.delete", token.id)
    run("exchange_rates.list", sourceCurrency="USD")
    run("uma_providers.list", limit=2)
    run("vasps.list")
    run("discoveries.list", country="PH")
    business = api.customers.create(body={"customerType": "BUSINESS"}).id
    person = {
        "firstName": "Jo",
        "lastName": "Doe",
        "birthDate": "1980-01-01",
        "nationality": "US",
        "address": {"line1": "1 Main St", "postalCode": "94105", "country": "US"},
        "idType": "SSN",
        "identifier": "123-45-6789",
    }
    owner = run(
        "verifications.create_beneficial_owner",
        body={
            "customerId": business,
            "roles": ["UBO"],
            "ownershipPercentage": 50,
            "personalInfo": person,
        },
    )
    run("verifications.list_beneficial_owners", customerId=business)
    run("verifications.get_beneficial_owner", owner.id)
    run("verifications.update_beneficial_owner", owner.id, body={"ownershipPercentage": 40})
    form = {"documentType": "PASSPORT", "country": "US", "file": ("p.pdf", b"%PDF-1.7")}
    document = run("documents.upload", body={**form, "documentHolder": owner.id})
    run("documents.list", documentHolder=owner.id)
    run("documents.get", document.id)
    run("documents.replace", document.id, body=form)
    run("documents.delete", document.id)
    run("verifications.list", customerId=customer.id)
    run("customers.end_user_terms")
    fee = {
        "internalAccountId": customer.wallet,
        "currency": "USDC",
        "cryptoNetwork": "SOLANA",
        "amount": 1_000_000,
        "destinationAddress": "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
    }
    run("quotes.estimate_withdrawal_fee", body=fee)
    cards_and_stablecoins(run, customer, usd, bank.id)
    # The sandbox's other simulations.
    run("sandbox.send", body={"quoteId": missing, "currencyCode": "USD"})
    uma = {
        "senderUmaAddress": "$alice@other.test",
        "receivingCurrencyCode": "USD",
        "receivingCurrencyAmount": 1_00,
        "customerId": customer.id,
    }
    run("sandbox.receive_uma", body=uma)
    run("sandbox.webhook_public_key")
    run("sandbox.send_test_webhook")  # no webhookEndpoint in this module
    triggered = run("sandbox.trigger_event", body={"type": "INVITATION.CLAIMED"})
    assert triggered.status == "NO_ENDPOINT"
    assert run("sandbox.list_events", type="INVITATION.CLAIMED").data[0].id == triggered.id
    run("sandbox.resend_event", f"Webhook:{uuid.uuid4()}")
    # Agents: the platform's side, the redemption, then the agent's own endpoints.
    policy = {
        "permissions": [
            *("CREATE_QUOTES", "EXECUTE_QUOTES", "VIEW_TRANSACTIONS", "CREATE_TRANSFERS"),
            "MANAGE_EXTERNAL_ACCOUNTS",
        ],
        "defaultExecutionMode": "APPROVAL_REQUIRED",
        "spendingLimits": {"currency": "USD", "perTransactionLimit": 500_00},
    }
    created = run(
        "agents.create", body={"name": "Bot", "customerId": customer.id, "policy": policy}
    )
    agent_id, code = created.agent.id, created.deviceCode.code
    run("agents.list", customerId=customer.id)
    run("agents.get", agent_id)
    run("agents.update", agent_id, body={"name": "Bot 2"})
    run("agents.update_policy", agent_id, body={})
    run("agents.device_code_status", code)
    redeemed = run("agents.redeem_device_code", code)
    run("agents.regenerate_device_code", agent_id)
    agent = api.with_agent_token(redeemed.accessToken)
    try:
        run("agent.me", by=agent)
        mine = run("agent.create_quote", body=wallet_quote, by=agent)
        run("agent.get_quote", mine.id, by=agent)
        run("agent.execute_quote", mine.id, by=agent)
        moved = run("agent.transfer_in", body=_move(bank.id, usd), by=agent)
        run("agent.transfer_out", body=_move(usd, bank.id), by=agent)
        run("agent.list_actions", by=agent)
        run("agent.get_action", moved.id, by=agent)
        run("agent.list_transactions", by=agent)
        run("agent.get_transaction", out.id, by=agent)
        run("agent.list_internal_accounts", by=agent)
        run("agent.list_external_accounts", by=agent)
        run("agent.create_external_account", body={"currency": "USD"}, by=agent)
        run("agent.get_external_account", bank.id, by=agent)
        run("agent.delete_external_account", missing, by=agent)
        run("agents.list_approvals", agentId=agent_id)
        run("agents.approve_action", agent_id, moved.id)
        run("agents.reject_action", agent_id, moved.id, body={"reason": "no"})
    finally:
        agent.close()
    run("agents.delete", agent_id)
    # The control plane, last: a reset forgets every resource.
    run("sandbox.get_clock")
    assert run("sandbox.list_requests", limit=5).data
    run("sandbox.add_fault", body={"operation": "GET /vasps", "status": 503})
    assert [fault.operation for fault in run("sandbox.list_faults").data] == ["GET /vasps"]
    run("sandbox.clear_faults")
    run("sandbox.advance_clock", body={"seconds": 1})
    run("sandbox.reset")
    assert set(run.called) == {op.qualified_name for op in OPERATIONS}, sorted(
        {op.qualified_name for op in OPERATIONS} - set(run.called)
    )
    refused = {name: outcome for name, outcome in run.called.items() if outcome != "ok"}
    assert refused == EXPECTED_ERRORS
