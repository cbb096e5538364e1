"""Every flow of the client against ``ewc serve`` over real HTTP, in the sandbox and the
production environment, through ``Client`` and ``AsyncClient`` (``mode``): the logins (email
code, encrypted and plain; OIDC; passkey), signed retries (add and revoke a credential, revoke
a session), wallet export (its signer checked), a quote from the wallet executed with its
``payloadToSign`` stamped, agents, pages, and the platform's webhooks."""

from __future__ import annotations

import json
import time
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.client import ApiError, ClientError
from sandbox._payments import Receiver, webhook_receiver
from sandbox._server import SandboxServer

from ._support import (
    ORIGIN,
    RP_ID,
    AsyncAuthenticator,
    Customer,
    bank_account,
    callback,
    fund_wallet,
    make_client,
    settled,
)
from .conftest import client_options


class HeldKey:
    """A StampSigner whose key lives elsewhere (here a KeyPair stands in for an HSM)."""

    scheme = ewc.STAMP_SCHEME_P256

    def __init__(self, key: ewc.KeyPair) -> None:
        self._key = key

    def public_key_hex(self) -> str:
        return self._key.public_key_hex(compressed=True)

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)


def test_email_otp_login_encrypted_then_plain(api: Any, server: SandboxServer, mode: str) -> None:
    customer = Customer(api, server.mail_dir)
    # No credential yet: the client creates it (which sends the first code) and, since the
    # service sends a target bundle, seals the code to it: the encrypted login.
    first = api.login_email_otp(customer.wallet, read_otp=callback(mode, customer.read_otp))
    assert first.account_id == customer.wallet and first.credential_type == "EMAIL_OTP"
    assert "encryptedSessionSigningKey" not in first.data  # the client's key is the session key
    assert not first.expired()
    # Again, plain: a fresh code by /challenge (429 waited out: the re-send interval), the
    # code and clientPublicKey, the session key sealed to the client key.
    second = api.login_email_otp(
        customer.wallet, read_otp=callback(mode, customer.read_otp), encrypted=False
    )
    assert second.id != first.id
    assert second.signer.public_key_hex() != first.signer.public_key_hex()
    listed = {s.id for s in api.auth.list_sessions(accountId=customer.wallet).data}
    assert {first.id, second.id} <= listed
    # Each session's key signs a signed retry: revoke one with the other.
    api.revoke_session(first.id, session=second)
    listed = {s.id for s in api.auth.list_sessions(accountId=customer.wallet).data}
    assert first.id not in listed and second.id in listed


def test_email_otp_login_with_a_known_code(api: Any, server: SandboxServer) -> None:
    """``otp=``: no new code is asked for (the one creating the credential sent is used)."""
    customer = Customer(api, server.mail_dir)
    credential = api.auth.create_credential(
        body={"type": "EMAIL_OTP", "accountId": customer.wallet}
    )
    sent = customer.read_otp()
    wrong = "000000" if server.environment == "production" else "123456"
    wrong = wrong if wrong != sent else "654321"
    with pytest.raises(ApiError) as refused:
        api.login_email_otp(customer.wallet, otp=wrong)
    assert (refused.value.status, refused.value.code) == (401, "UNAUTHORIZED")
    assert refused.value.reason == "Invalid OTP code"
    # The sandbox's code 000000 in the sandbox; the code that was sent in production.
    code = sent if server.environment == "production" else "000000"
    session = api.login_email_otp(customer.wallet, otp=code)
    assert session.data["nickname"] == customer.email == credential.nickname


def test_oauth_login_and_credentials_by_signed_retry(
    api: Any, server: SandboxServer, mode: str
) -> None:
    customer = Customer(api, server.mail_dir)
    # The token source gets the nonce that binds the client key.
    oauth = api.login_oauth(customer.wallet, oidc_token=callback(mode, customer.token))
    assert oauth.credential_type == "OAUTH" and oauth.data["nickname"] == customer.email
    # A second credential needs a session: without one the client says so.
    with pytest.raises(ClientError) as needs:
        api.login_email_otp(customer.wallet, read_otp=customer.read_otp)
    assert needs.value.code == "SESSION_REQUIRED"
    email = api.add_credential(customer.wallet, {"type": "EMAIL_OTP"}, session=oauth)
    assert email.type == "EMAIL_OTP" and email.accountId == customer.wallet
    otp_session = api.login_email_otp(customer.wallet, read_otp=customer.read_otp)
    # A credential is revoked by a session of another one; its sessions end with it.
    api.revoke_credential(email.id, session=oauth)
    kinds = [c.type for c in api.auth.list_credentials(accountId=customer.wallet).data]
    assert kinds == ["OAUTH"]
    sessions = {s.id for s in api.auth.list_sessions(accountId=customer.wallet).data}
    assert otp_session.id not in sessions and oauth.id in sessions
    # The last credential stays.
    other = api.login_oauth(customer.wallet, oidc_token=customer.token)
    (remaining,) = api.auth.list_credentials(accountId=customer.wallet).data
    with pytest.raises(ApiError) as last:
        api.revoke_credential(remaining.id, session=other)
    assert (last.value.status, last.value.code) == (400, "LAST_CREDENTIAL")
    # A token minted for another key's nonce is refused.
    stranger = ewc.oidc.nonce_for(ewc.KeyPair.generate().public_key_hex())
    with pytest.raises(ApiError) as bound:
        api.login_oauth(customer.wallet, oidc_token=customer.token(stranger))
    assert (bound.value.status, bound.value.code) == (401, "UNAUTHORIZED")


def test_passkey_register_and_login(api: Any, server: SandboxServer, mode: str) -> None:
    customer = Customer(api, server.mail_dir)
    software = ewc.passkeys.SoftwareAuthenticator()
    authenticator = software if mode == "sync" else AsyncAuthenticator(software)
    with pytest.raises(ClientError) as none_yet:
        api.login_passkey(customer.wallet, authenticator=authenticator, origin=ORIGIN)
    assert none_yet.value.code == "CREDENTIAL_NOT_FOUND"
    credential = api.register_passkey(
        customer.wallet, authenticator=authenticator, nickname="Laptop", rp_id=RP_ID, origin=ORIGIN
    )
    assert credential.type == "PASSKEY" and credential.nickname == "Laptop"
    session = api.login_passkey(customer.wallet, authenticator=authenticator, origin=ORIGIN)
    assert session.credential_type == "PASSKEY"
    assert software.sign_count == 1
    # Another passkey signs nothing this credential accepts.
    with pytest.raises(ApiError) as forged:
        api.login_passkey(
            customer.wallet, authenticator=ewc.passkeys.SoftwareAuthenticator(), origin=ORIGIN
        )
    assert (forged.value.status, forged.value.code) == (401, "UNAUTHORIZED")


def test_export_opens_and_checks_the_signer(
    api: Any, server: SandboxServer, signer_key: str | None, mode: str
) -> None:
    customer = Customer(api, server.mail_dir)
    session = api.login_email_otp(customer.wallet, read_otp=customer.read_otp)
    exported = api.export_wallet(customer.wallet, session=session)
    assert exported.mnemonic is not None and exported.private_key is None
    assert ewc.is_valid_mnemonic(exported.mnemonic)
    assert exported.signed is (server.environment == "production")
    assert exported.mnemonic not in repr(exported)
    # The same wallet every time; the session key as a bare key, or behind any StampSigner
    # (an HSM or a KMS: the client never sees its secret), works too.
    again = api.export_wallet(customer.wallet, session=session.signer)
    assert again.mnemonic == exported.mnemonic
    held = api.export_wallet(customer.wallet, session=HeldKey(session.signer))
    assert held.mnemonic == exported.mnemonic
    # A client that expects another signer (production), or a signed envelope where the
    # sandbox sends an unsigned one, refuses to open it.
    wrong = ewc.KeyPair.generate().public_key_hex()
    options = client_options(server, wrong, sandbox=False)
    other = make_client(mode, server.base_url, **options)
    try:
        with pytest.raises(ewc.EnvelopeError) as refused:
            other.export_wallet(customer.wallet, session=session)
    finally:
        other.close()
    expected = "ENVELOPE_SIGNER_NOT_PINNED" if signer_key else "ENVELOPE_UNSIGNED"
    assert refused.value.code == expected


def test_quote_from_the_wallet_is_executed_with_its_payload_stamped(
    api: Any, server: SandboxServer, environment: str
) -> None:
    customer = Customer(api, server.mail_dir)
    fund_wallet(api, environment, customer, 30_000_000)
    bank = bank_account(api, customer.id)
    quote = api.quotes.create(
        body={
            "source": {"sourceType": "ACCOUNT", "accountId": customer.wallet},
            "destination": {"destinationType": "ACCOUNT", "accountId": bank.id},
            "lockedCurrencySide": "RECEIVING",
            "lockedCurrencyAmount": 10_00,
        }
    )
    assert quote.paymentInstructions and quote.paymentInstructions[0]["payloadToSign"]
    with pytest.raises(ApiError) as unsigned:
        api.execute_quote(quote.id)
    assert (unsigned.value.status, unsigned.value.code) == (401, "UNAUTHORIZED")
    session = api.login_email_otp(customer.wallet, read_otp=customer.read_otp)
    executed = api.execute_quote(quote.id, session=session)
    assert executed.id == quote.id and executed.transactionId
    assert settled(api, executed.transactionId).status == "COMPLETED"
    with pytest.raises(ApiError) as twice:
        api.execute_quote(quote.id, session=session)
    assert (twice.value.status, twice.value.code) == (409, "QUOTE_ALREADY_EXECUTED")
    # A quote from an internal account has nothing to sign.
    usd = customer.accounts["USD"].id
    internal = api.quotes.create(
        body={
            "source": {"sourceType": "ACCOUNT", "accountId": usd},
            "destination": {"destinationType": "ACCOUNT", "accountId": customer.wallet},
            "lockedCurrencySide": "RECEIVING",
            "lockedCurrencyAmount": 1_000_000,
        }
    )
    with pytest.raises(ClientError) as nothing:
        api.execute_quote(internal.id, session=session)
    assert nothing.value.code == "NOTHING_TO_SIGN"


def test_agent_redeems_its_code_and_executes_a_wallet_quote(
    api: Any, server: SandboxServer, environment: str
) -> None:
    customer = Customer(api, server.mail_dir)
    fund_wallet(api, environment, customer, 30_000_000)
    bank = bank_account(api, customer.id)
    created = api.agents.create(
        body={
            "name": "Payroll bot",
            "customerId": customer.id,
            "policy": {
                "permissions": ["CREATE_QUOTES", "EXECUTE_QUOTES", "VIEW_TRANSACTIONS"],
                "defaultExecutionMode": "AUTO",
                "spendingLimits": {"currency": "USD", "perTransactionLimit": 500_00},
            },
        }
    )
    code = created.deviceCode.code
    credentials = api.redeem_device_code(code)
    assert credentials.agent_id == created.agent.id
    assert credentials.access_token not in repr(credentials)
    with pytest.raises(ApiError) as used:
        api.redeem_device_code(code)
    assert (used.value.status, used.value.code) == (400, "DEVICE_CODE_USED")
    agent = api.with_agent_token(credentials)
    try:
        assert agent.agent.me().customerId == customer.id
        quote = agent.agent.create_quote(
            body={
                "source": {"sourceType": "ACCOUNT", "accountId": customer.wallet},
                "destination": {"destinationType": "ACCOUNT", "accountId": bank.id},
                "lockedCurrencySide": "RECEIVING",
                "lockedCurrencyAmount": 5_00,
            }
        )
        session = api.login_email_otp(customer.wallet, read_otp=customer.read_otp)
        action = agent.agent.execute_quote(quote.id, session=session)
        assert action.status == "APPROVED", action
        assert agent.agent.get_action(action.id).status == "APPROVED"
        transactions = list(agent.agent.list_transactions.items(limit=1))
        assert action.transaction.id in {t.id for t in transactions}
    finally:
        agent.close()
    # Without a token the agent's endpoints are refused before anything is sent.
    with pytest.raises(ClientError) as missing:
        api.agent.me()
    assert missing.value.code == "AGENT_TOKEN_REQUIRED"


def test_lists_page_by_page(api: Any, server: SandboxServer) -> None:
    customer = Customer(api, server.mail_dir, currencies=("USD", "EUR", "MXN"))
    everything = api.internal_accounts.list(customerId=customer.id, limit=100).data
    assert len(everything) == 4
    pages = list(api.internal_accounts.list.pages(customerId=customer.id, limit=1))
    assert [len(page.data) for page in pages] == [1, 1, 1, 1]
    assert [page.hasMore for page in pages] == [True, True, True, False]
    items = list(api.internal_accounts.list.items(params={"customerId": customer.id, "limit": 3}))
    assert [a.id for a in items] == [a.id for a in everything]
    with pytest.raises(AttributeError):  # not a list: no pages (nor, for a type checker)
        list(api.customers.create.pages())


@pytest.fixture(scope="module")
def receiver(server: SandboxServer) -> Any:
    with webhook_receiver() as running:
        yield running


def test_webhooks_verified(api: Any, server: SandboxServer, receiver: Receiver) -> None:
    api.config.update(body={"webhookEndpoint": receiver.url})
    customer = Customer(api, server.mail_dir)
    bank = bank_account(api, customer.id)
    pulled = api.transfers.transfer_in(
        body={
            "source": {"accountId": bank.id},
            "destination": {"accountId": customer.accounts["USD"].id},
            "amount": 1_00,
        }
    )
    settled(api, pulled.id)
    deadline = time.monotonic() + 30
    while not [e for e in receiver.events() if e["data"].get("id") == pulled.id]:
        assert time.monotonic() < deadline, "no webhook arrived"
        time.sleep(0.05)
    with receiver.lock:
        headers, body = next((h, b) for h, b in receiver.requests if pulled.id in b.decode())
    event = api.verify_webhook(headers, body)  # the key fetched once from the service
    assert event["type"] == "INCOMING_PAYMENT.COMPLETED" and event["data"]["id"] == pulled.id
    assert api.verify_webhook(list(headers.items()), body.decode()) == event
    tampered = body.replace(b'"id"', b'"Id"', 1)
    with pytest.raises(ewc.StampError) as forged:
        api.verify_webhook(headers, tampered)
    assert forged.value.code == "WEBHOOK_SIGNATURE_INVALID"
    unsigned = {k: v for k, v in headers.items() if k.lower() != "x-grid-signature"}
    with pytest.raises(ewc.WalletCryptoError) as missing:
        api.verify_webhook(unsigned, body)
    assert missing.value.code == "WEBHOOK_SIGNATURE_MALFORMED"
    # A key given to the client (as the real service's is) is used without fetching it.
    pem = api.sandbox.webhook_public_key()
    assert json.loads(body)["id"] == event["id"] and pem.startswith("-----BEGIN PUBLIC KEY-----")
