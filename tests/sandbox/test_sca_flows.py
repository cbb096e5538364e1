"""The other SCA-area operations over real HTTP, both environments, SQLite and PostgreSQL:
contact verification (codes through the outbox; the published 123456 in the sandbox only), a
passkey factor and its login, 2FA resets, beneficiary trust, a quote's authorization, and a
session's refresh (a signed retry by the session itself)."""

from __future__ import annotations

import base64
from typing import Any

import embedded_wallet_crypto as ewc

from ._client import SandboxClient
from ._flows import Wallet
from ._identity import ORIGIN, RP_ID
from ._server import SandboxServer
from .test_sca import IP, _sms, enroll_totp, eu_customer


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def enroll_passkey(client: SandboxClient, customer_id: str) -> ewc.passkeys.SoftwareAuthenticator:
    """Enroll a PASSKEY factor of a new software authenticator; returns the authenticator."""
    params = {"customerId": customer_id}
    started = client.post("/sca/factors", {"type": "PASSKEY"}, params=params)
    assert started.status_code == 200, started.text
    device = ewc.passkeys.SoftwareAuthenticator()
    credential = device.register(
        rp_id=RP_ID, origin=ORIGIN, challenge=_b64(started.json()["options"]["challenge"])
    )
    confirm = {"type": "PASSKEY", "origin": ORIGIN, "credential": credential}
    enrolled = client.post("/sca/factors/confirm", confirm, params=params)
    assert enrolled.status_code == 200, enrolled.text
    return device


def test_contact_verification(client: SandboxClient, server: SandboxServer) -> None:
    customer_id = eu_customer(client)
    for channel in ("email", "phone"):
        path = f"/customers/{customer_id}/verify-{channel}"
        before = set(server.mail_dir.glob("*.eml"))
        sent = client.post(path)
        assert sent.status_code == 204, sent.text
        mail = sorted(set(server.mail_dir.glob("*.eml")) - before)[-1].read_text()
        code = mail.rsplit("code is: ", 1)[1].split()[0]
        wrong = client.post(f"{path}/confirm", {"code": "12345x"})
        assert (wrong.status_code, wrong.json()["code"]) == (400, "OTP_INVALID"), wrong.text
        done = client.post(f"{path}/confirm", {"code": code})
        assert done.status_code == 200, done.text
        assert done.json()["contactVerification"][channel] == "VERIFIED"
        again = client.post(path)
        assert (again.status_code, again.json()["code"]) == (409, "ALREADY_VERIFIED")
    other = eu_customer(client)
    magic = client.post(f"/customers/{other}/verify-email/confirm", {"code": "123456"})
    if server.environment == "sandbox":
        assert magic.status_code == 200, magic.text
    else:
        assert magic.status_code == 400, magic.text
    us = client.create_customer(region="US", email="a@example.com")["id"]
    refused = client.post(f"/customers/{us}/verify-email")
    assert (refused.status_code, refused.json()["code"]) == (
        409,
        "CONTACT_VERIFICATION_NOT_REQUIRED",
    )
    missing = client.post("/customers/Customer:none/verify-phone/confirm", {"code": "1"})
    assert missing.status_code == 404


def test_a_passkey_factor_and_its_login(client: SandboxClient) -> None:
    customer_id = eu_customer(client)
    params = {"customerId": customer_id}
    started = client.post("/sca/factors", {"type": "PASSKEY"}, params=params).json()
    assert started["relyingPartyId"] == RP_ID and ORIGIN in started["allowedOrigins"]
    device = ewc.passkeys.SoftwareAuthenticator()
    credential = device.register(
        rp_id=RP_ID, origin=ORIGIN, challenge=_b64(started["options"]["challenge"])
    )
    confirm = {"type": "PASSKEY", "origin": ORIGIN, "credential": credential}
    done = client.post("/sca/factors/confirm", confirm, params=params)
    assert done.status_code == 200, done.text
    factor = done.json()["factor"]
    assert factor["factor"] == "PASSKEY" and factor["credentialId"]
    twice = client.post("/sca/factors", {"type": "PASSKEY"}, params=params)
    assert (twice.status_code, twice.json()["code"]) == (409, "PASSKEY_ALREADY_ENROLLED")
    login = client.post("/sca/login/start", {"factor": "PASSKEY"}, params=params).json()
    options = login["passkeyOptions"]
    assertion = device.authenticate(
        rp_id=RP_ID, origin=ORIGIN, challenge=_b64(options["challenge"])
    )
    body = {
        "factor": "PASSKEY",
        "passkeyAssertion": assertion,
        "origin": ORIGIN,
        "endUserIpAddress": IP,
    }
    ok = client.post("/sca/login/complete", body, params=params)
    assert ok.status_code == 200, ok.text
    replay = client.post("/sca/login/complete", body, params=params)
    assert replay.status_code == 400, replay.text
    deleted = client.request("DELETE", f"/sca/factors/{factor['credentialId']}", params=params)
    assert deleted.status_code == 204, deleted.text
    gone = client.request("DELETE", f"/sca/factors/{factor['credentialId']}", params=params)
    assert gone.status_code == 404


def test_a_reset(client: SandboxClient, server: SandboxServer) -> None:
    customer_id = eu_customer(client)
    enroll_totp(client, customer_id)
    params = {"customerId": customer_id}
    started = client.post("/sca/factors/reset", {"factor": "TOTP"}, params=params)
    assert started.status_code == 201, started.text
    reset_id = started.json()["resetId"]
    status = client.get(f"/sca/factors/reset/{reset_id}", params=params).json()
    completed = client.post(f"/sca/factors/reset/{reset_id}/complete", params=params)
    if server.environment == "sandbox":
        assert status["status"] == "LIVENESS_PASSED"
        assert completed.status_code == 204, completed.text
        after = client.get(f"/sca/factors/reset/{reset_id}", params=params).json()
        assert (after["status"], after["enrollmentStatus"]) == ("COMPLETED", "PENDING")
        factors = client.get("/sca/factors", params=params).json()["factors"]
        assert [f["factor"] for f in factors] == ["SMS_OTP"]
    else:
        assert status["status"] == "INITIATED"
        assert (completed.status_code, completed.json()["code"]) == (400, "RESET_NOT_READY")
    for _ in range(4):
        client.post("/sca/factors/reset", {"factor": "SMS_OTP"}, params=params)
    limited = client.post("/sca/factors/reset", {"factor": "SMS_OTP"}, params=params)
    assert (limited.status_code, limited.json()["code"]) == (429, "RATE_LIMITED")
    unknown = client.get("/sca/factors/reset/ScaReset:none", params=params)
    assert unknown.status_code == 404


def test_trust_and_untrust(client: SandboxClient, server: SandboxServer) -> None:
    customer_id = eu_customer(client)
    account = client.post(
        "/customers/external-accounts",
        {
            "customerId": customer_id,
            "currency": "USD",
            "accountInfo": {
                "accountType": "USD_ACCOUNT",
                "accountNumber": "1234567010",
                "routingNumber": "021000021",
                "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Erika M"},
            },
        },
    )
    assert account.status_code == 201, account.text
    account_id = account.json()["id"]
    for kind, trusted in (("trust", True), ("untrust", False)):
        before = set(server.mail_dir.glob("*.eml"))
        started = client.post(f"/customers/external-accounts/{account_id}/{kind}")
        assert started.status_code == 200, started.text
        challenge = started.json()["scaChallenge"]
        assert challenge["factor"] == "SMS_OTP"
        code = _sms(server.mail_dir, before)
        path = f"/customers/external-accounts/{account_id}/{kind}/confirm"
        confirmed = client.post(path, {"challengeId": challenge["id"], "code": code})
        assert confirmed.json() == {"trusted": trusted}, confirmed.text
        replay = client.post(path, {"challengeId": challenge["id"], "code": code})
        assert (replay.status_code, replay.json()["code"]) == (400, "CHALLENGE_NOT_FOUND")
    missing = client.post("/customers/external-accounts/ExternalAccount:none/trust")
    assert missing.status_code == 404


def test_a_quote_has_no_challenge(client: SandboxClient) -> None:
    missing = client.post("/quotes/Quote:none/authorize", {"code": "123456"})
    assert (missing.status_code, missing.json()["code"]) == (404, "NOT_FOUND")
    resend = client.post("/quotes/Quote:none/authorize/resend")
    assert resend.status_code == 404
    bad = client.post("/quotes/Quote:none/authorize", {"code": 7})
    assert bad.status_code == 400


def test_a_session_refresh(client: SandboxClient, server: SandboxServer) -> None:
    wallet = Wallet(client, server)
    session, key = wallet.first_login()
    new_key = ewc.KeyPair.generate()
    body: dict[str, Any] = {"clientPublicKey": new_key.public_key_hex(compressed=True)}
    path = f"/auth/sessions/{session['id']}/refresh"
    stranger = ewc.KeyPair.generate()
    _, refused = client.signed_retry("POST", path, body, key=stranger)
    assert refused.status_code == 401, refused.text
    swapped = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex(compressed=True)}
    _, changed = client.signed_retry("POST", path, body, key=key, retry_body=swapped)
    assert changed.status_code == 401, changed.text
    challenge, refreshed = client.signed_retry("POST", path, body, key=key)
    assert refreshed.status_code == 201, refreshed.text
    assert body["clientPublicKey"] in challenge["payloadToSign"]
    assert refreshed.json()["id"] != session["id"]
    old = client.post(path, body)
    assert (old.status_code, old.json()["code"]) == (401, "UNAUTHORIZED")
    unknown = client.post("/auth/sessions/Session:none/refresh", body)
    assert unknown.status_code == 404
    bad = client.post(path, {"clientPublicKey": "05" + "00" * 32})
    assert bad.status_code == 400
