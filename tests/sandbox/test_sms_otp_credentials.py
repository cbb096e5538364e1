"""SMS_OTP credentials over real HTTP against ``ewc serve``, in both environments, on SQLite and
on PostgreSQL: created for the customer's phone number (first, or by signed retry), a code by
SMS to the outbox, the plain and the encrypted (two-leg) login, a wrong code refused, a code
used once (also by a second process on the same database), the sandbox code only in the
sandbox; the contact changes of ``PATCH /customers/{id}`` tied to the OTP credentials (a phone
number, an email) as signed retries."""

from __future__ import annotations

import base64
import json
import random
import uuid
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient, read_otp
from ._flows import Wallet
from ._server import SandboxServer


class SmsWallet(Wallet):
    """A wallet whose customer has a phone number; SMS codes land in the outbox addressed to
    ``<digits>@sms.sandbox.invalid``."""

    def __init__(self, client: SandboxClient, server: SandboxServer) -> None:
        self.phone = f"+1415{random.randrange(10**7):07d}"
        self.client = client
        self.server = server
        self.email = f"{uuid.uuid4().hex[:12]}@example.com"
        self.subject = f"user-{uuid.uuid4().hex[:12]}"
        customer = client.create_customer(email=self.email, phoneNumber=self.phone)
        self.customer_id = customer["id"]
        self.account_id = client.wallet_of(customer["id"])
        self.authenticator = ewc.passkeys.SoftwareAuthenticator()
        self.mails_seen = 0
        self.sms_seen = 0

    @property
    def sms_address(self) -> str:
        return f"{self.phone.lstrip('+')}@sms.sandbox.invalid"

    def body(self, kind: str) -> dict[str, Any]:
        if kind == "SMS_OTP":
            return {"type": kind, "accountId": self.account_id}
        return super().body(kind)

    def verify_body(
        self, credential: dict[str, Any], client_key: ewc.KeyPair, compressed: bool
    ) -> tuple[dict[str, Any], dict[str, str]]:
        if credential["type"] != "SMS_OTP":
            return super().verify_body(credential, client_key, compressed)
        public = client_key.public_key_hex(compressed=compressed)
        return {"type": "SMS_OTP", "otp": self.sms(), "clientPublicKey": public}, {}

    def sms(self) -> str:
        code, self.sms_seen = read_otp(self.server.mail_dir, self.sms_address, self.sms_seen)
        return code


@pytest.fixture
def wallet(flow_client: SandboxClient, flow_server: SandboxServer) -> SmsWallet:
    return SmsWallet(flow_client, flow_server)


def _error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["code"] == code, body
    return body


def _pinning(server: SandboxServer, bundle: str) -> dict[str, Any]:
    if server.environment == "sandbox":
        return {"sandbox": True}
    return {"signer_public_key": json.loads(bundle)["enclaveQuorumPublic"]}


def _verify(wallet: SmsWallet, credential: dict[str, Any], code: str) -> Any:
    key = ewc.KeyPair.generate().public_key_hex()
    body = {"type": "SMS_OTP", "otp": code, "clientPublicKey": key}
    return wallet.client.post(f"/auth/credentials/{credential['id']}/verify", body)


def test_first_sms_credential_and_a_plain_login(wallet: SmsWallet) -> None:
    credential = wallet.add("SMS_OTP")
    assert credential["type"] == "SMS_OTP" and credential["nickname"] == wallet.phone
    assert credential["otpEncryptionTargetBundle"]
    code = wallet.sms()
    wrong = "111111" if code != "111111" else "222222"
    assert _error(_verify(wallet, credential, wrong), 401, "UNAUTHORIZED")["reason"] == (
        "Invalid OTP code"
    )
    session = _verify(wallet, credential, code)
    assert session.status_code == 200, session.text
    assert session.json()["type"] == "SMS_OTP"
    _error(_verify(wallet, credential, code), 401, "UNAUTHORIZED")  # used once
    # A re-challenge sends a fresh code (429 while the last one is too recent).
    again = wallet.client.post(f"/auth/credentials/{credential['id']}/challenge")
    _error(again, 429, "OTP_RATE_LIMITED")
    listed = wallet.client.get("/auth/credentials", params={"accountId": wallet.account_id})
    assert [c["type"] for c in listed.json()["data"]] == ["SMS_OTP"]


def test_the_sandbox_code_only_in_the_sandbox(wallet: SmsWallet) -> None:
    credential = wallet.add("SMS_OTP")
    response = _verify(wallet, credential, "000000")
    if wallet.server.environment == "sandbox":
        assert response.status_code == 200, response.text
    else:
        _error(response, 401, "UNAUTHORIZED")


def test_sms_as_a_further_credential_by_signed_retry(wallet: SmsWallet) -> None:
    _, key = wallet.first_login("EMAIL_OTP")
    body = wallet.body("SMS_OTP")
    step = wallet.client.post("/auth/credentials", body)
    assert step.status_code == 202, step.text
    payload = json.loads(step.json()["payloadToSign"])
    assert payload["type"] == "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER"
    assert payload["parameters"] == {"userId": wallet.account_id, "userPhoneNumber": wallet.phone}
    _, created = wallet.client.signed_retry("POST", "/auth/credentials", body, key=key)
    assert created.status_code == 201, created.text
    credential = created.json()
    assert credential["type"] == "SMS_OTP" and credential["nickname"] == wallet.phone
    assert _verify(wallet, credential, wallet.sms()).status_code == 200
    # One SMS_OTP credential per account.
    _error(wallet.client.post("/auth/credentials", body), 400, "SMS_OTP_CREDENTIAL_ALREADY_EXISTS")


def test_a_customer_without_a_phone_number_has_no_sms_credential(
    flow_client: SandboxClient, flow_server: SandboxServer
) -> None:
    wallet = Wallet(flow_client, flow_server)
    response = flow_client.post(
        "/auth/credentials", {"type": "SMS_OTP", "accountId": wallet.account_id}
    )
    _error(response, 400, "PHONE_NUMBER_MISSING")


def test_the_encrypted_sms_login_and_a_replay_in_a_second_process(
    wallet: SmsWallet, flow_server: SandboxServer, tmp_path: Any
) -> None:
    credential = wallet.add("SMS_OTP")
    bundle = credential["otpEncryptionTargetBundle"]
    code = wallet.sms()
    pinning = _pinning(flow_server, bundle)
    tek = ewc.KeyPair.generate()
    path = f"/auth/credentials/{credential['id']}/verify"
    wrong = ewc.otp.encrypt_otp_code(
        bundle, "111111" if code != "111111" else "222222",
        tek.public_key_hex(compressed=True), **pinning,
    )  # fmt: skip
    response = wallet.client.post(path, {"type": "SMS_OTP", "encryptedOtpBundle": wrong})
    assert _error(response, 401, "UNAUTHORIZED")["reason"] == "Invalid OTP code"
    sealed = ewc.otp.encrypt_otp_code(bundle, code, tek.public_key_hex(compressed=True), **pinning)
    body = {"type": "SMS_OTP", "encryptedOtpBundle": sealed}
    first = wallet.client.post(path, body)
    assert first.status_code == 202, first.text
    challenge = first.json()
    assert challenge["type"] == "SMS_OTP"
    claims = challenge["payloadToSign"].split(".")[1]
    token = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
    assert token["verification_type"] == "OTP_TYPE_SMS" and token["contact"] == wallet.phone
    stamp = ewc.create_stamp(challenge["payloadToSign"], tek)
    done = wallet.client.retry("POST", path, body, challenge, stamp)
    assert done.status_code == 200, done.text
    assert done.json()["type"] == "SMS_OTP"
    # A second process on the same database: the used code, and the used retry, are refused.
    other = SandboxServer(
        tmp_path / "second",
        database=flow_server.database,
        environment=flow_server.environment,
        extra=flow_server.extra,
    )
    other.start()
    try:
        api = SandboxClient(other.base_url, other.auth)
        try:
            plain = {"type": "SMS_OTP", "otp": code, "clientPublicKey": tek.public_key_hex()}
            _error(api.post(path, plain), 401, "UNAUTHORIZED")
            _error(api.retry("POST", path, body, challenge, stamp), 401, "UNAUTHORIZED")
        finally:
            api.close()
    finally:
        assert other.stop() == 0


def test_a_phone_number_change_is_a_signed_retry(wallet: SmsWallet) -> None:
    """With an SMS_OTP credential, a new phoneNumber is 202 and the challenge, then the retry
    stamped by a session of the wallet: 200, and the credential carries the new number (its
    codes go there). A customer without one changes its number at once."""
    credential = wallet.add("SMS_OTP")
    _, key = wallet.login(credential)
    path = f"/customers/{wallet.customer_id}"
    new_phone = f"+1415{random.randrange(10**7):07d}"
    change = {"customerType": "INDIVIDUAL", "phoneNumber": new_phone}
    step = wallet.client.request("PATCH", path, json=change)
    assert step.status_code == 202, step.text
    payload = json.loads(step.json()["payloadToSign"])
    assert payload["type"] == "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER"
    assert payload["parameters"] == {"userId": wallet.account_id, "userPhoneNumber": new_phone}
    assert wallet.client.get(path).json()["phoneNumber"] == wallet.phone  # nothing yet
    # A stranger's stamp is refused; the wallet's session's stamp updates both.
    _, refused = wallet.client.signed_retry("PATCH", path, change, key=ewc.KeyPair.generate())
    _error(refused, 401, "UNAUTHORIZED")
    challenge, done = wallet.client.signed_retry("PATCH", path, change, key=key)
    assert done.status_code == 200, done.text
    assert done.json()["phoneNumber"] == new_phone
    listed = wallet.client.get("/auth/credentials", params={"accountId": wallet.account_id})
    assert [c["nickname"] for c in listed.json()["data"]] == [new_phone]
    # The used challenge is refused for the next change (the same change again is a no-op).
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    again = {**change, "phoneNumber": wallet.phone}
    _error(wallet.client.retry("PATCH", path, again, challenge, stamp), 401, "UNAUTHORIZED")
    assert wallet.client.get(path).json()["phoneNumber"] == new_phone
    # Another account's SMS_OTP credential with the number: 409.
    other = SmsWallet(wallet.client, wallet.server)
    other.add("SMS_OTP")
    taken = {"customerType": "INDIVIDUAL", "phoneNumber": other.phone}
    _error(wallet.client.request("PATCH", path, json=taken), 409, "CONFLICT")
    # Without an SMS_OTP credential: at once.
    plain = wallet.client.create_customer(phoneNumber=wallet.phone)
    at_once = wallet.client.request("PATCH", f"/customers/{plain['id']}", json=change)
    assert at_once.status_code == 200 and at_once.json()["phoneNumber"] == new_phone


def test_an_email_change_is_a_signed_retry(
    flow_client: SandboxClient, flow_server: SandboxServer
) -> None:
    """With an EMAIL_OTP credential, a new email is 202 and the challenge
    (``ACTIVITY_TYPE_UPDATE_USER_EMAIL``), then the retry stamped by a session of the wallet:
    200, and the credential carries the new address (its codes go there). Another account's
    EMAIL_OTP credential with the address: 409 ``EMAIL_OTP_EMAIL_ALREADY_EXISTS``. A customer
    without one changes its email at once."""
    wallet = Wallet(flow_client, flow_server)
    credential = wallet.add("EMAIL_OTP")
    _, key = wallet.login(credential)
    client = wallet.client
    path = f"/customers/{wallet.customer_id}"
    new_email = f"{uuid.uuid4().hex[:12]}@example.com"
    change = {"customerType": "INDIVIDUAL", "email": new_email}
    step = client.request("PATCH", path, json=change)
    assert step.status_code == 202, step.text
    payload = json.loads(step.json()["payloadToSign"])
    assert payload["type"] == "ACTIVITY_TYPE_UPDATE_USER_EMAIL"
    assert payload["parameters"] == {"userId": wallet.account_id, "userEmail": new_email}
    assert client.get(path).json()["email"] == wallet.email  # nothing yet
    _, refused = client.signed_retry("PATCH", path, change, key=ewc.KeyPair.generate())
    _error(refused, 401, "UNAUTHORIZED")
    assert client.get(path).json()["email"] == wallet.email
    challenge, done = client.signed_retry("PATCH", path, change, key=key)
    assert done.status_code == 200, done.text
    assert done.json()["email"] == new_email
    listed = client.get("/auth/credentials", params={"accountId": wallet.account_id})
    assert [c["nickname"] for c in listed.json()["data"]] == [new_email]
    if flow_server.environment == "sandbox":  # past the code's reissue interval: the test clock
        moved = client.post("/sandbox/clock/advance", {"seconds": 31})
        assert moved.status_code == 200, moved.text
        sent = client.post(f"/auth/credentials/{credential['id']}/challenge")
        assert sent.status_code == 200, sent.text
        code, _ = read_otp(flow_server.mail_dir, new_email)  # the codes go to the new address
        assert len(code) == 6 and code.isdigit()
    # The used challenge is refused for the next change.
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    again = {**change, "email": wallet.email}
    _error(client.retry("PATCH", path, again, challenge, stamp), 401, "UNAUTHORIZED")
    assert client.get(path).json()["email"] == new_email
    # Another account's EMAIL_OTP credential with the address: 409.
    other = Wallet(client, flow_server)
    other.add("EMAIL_OTP")
    taken = {"customerType": "INDIVIDUAL", "email": other.email}
    _error(client.request("PATCH", path, json=taken), 409, "EMAIL_OTP_EMAIL_ALREADY_EXISTS")
    # Without an EMAIL_OTP credential: at once.
    plain = client.create_customer(email=wallet.email)
    at_once = client.request("PATCH", f"/customers/{plain['id']}", json=change)
    assert at_once.status_code == 200 and at_once.json()["email"] == new_email
