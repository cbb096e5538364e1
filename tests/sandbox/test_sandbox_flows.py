"""Every credential, session and export flow over real HTTP against ``ewc serve``, in both
environments, on SQLite and on PostgreSQL (the same suite)."""

from __future__ import annotations

import json
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient, assert_request_id_used
from ._flows import Wallet
from ._server import SandboxServer

KINDS = ["EMAIL_OTP", "OAUTH", "PASSKEY"]


@pytest.fixture
def wallet(flow_client: SandboxClient, flow_server: SandboxServer) -> Wallet:
    return Wallet(flow_client, flow_server)


def _error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"status", "code", "reason"} and body["status"] == status
    if code is not None:
        assert body["code"] == code, body
    return body


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("compressed", [False, True], ids=["sealed-key", "client-held-key"])
def test_first_credential_then_a_session_that_stamps(
    wallet: Wallet, kind: str, compressed: bool
) -> None:
    credential = wallet.add(kind)
    assert credential["id"].startswith("AuthMethod:") and credential["type"] == kind
    assert credential["accountId"] == wallet.account_id
    if kind == "EMAIL_OTP":
        assert credential["nickname"] == wallet.email
    session, key = wallet.login(credential, compressed=compressed)
    assert session["id"].startswith("Session:") and session["type"] == kind
    listed = wallet.client.get("/auth/sessions", params={"accountId": wallet.account_id}).json()
    assert [s["id"] for s in listed["data"]] == [session["id"]]
    assert "encryptedSessionSigningKey" not in listed["data"][0]
    # The session key signs a signed retry: revoke the session itself (self-logout).
    challenge, revoked = wallet.client.signed_retry(
        "DELETE", f"/auth/sessions/{session['id']}", key=key
    )
    assert challenge["type"] == kind
    assert revoked.status_code == 204, revoked.text
    listed = wallet.client.get("/auth/sessions", params={"accountId": wallet.account_id}).json()
    assert listed["data"] == []
    again = wallet.client.request("DELETE", f"/auth/sessions/{session['id']}")
    _error(again, 404)


def test_credentials_are_listed_unpaginated(wallet: Wallet) -> None:
    first = wallet.add("EMAIL_OTP")
    _, key = wallet.login(first)
    second = wallet.add("PASSKEY", signer=key)
    listed = wallet.client.get("/auth/credentials", params={"accountId": wallet.account_id})
    assert listed.status_code == 200
    first.pop("otpEncryptionTargetBundle")  # only the answer that sent a code carries it
    assert listed.json() == {"data": [first, second]}
    unknown = wallet.client.get("/auth/credentials", params={"accountId": "InternalAccount:x"})
    assert unknown.json() == {"data": []}


@pytest.mark.parametrize("first_kind", KINDS)
def test_a_further_credential_needs_a_signed_retry(wallet: Wallet, first_kind: str) -> None:
    first = wallet.add(first_kind)
    _, key = wallet.login(first)
    others = [kind for kind in KINDS if kind != first_kind]
    # Without a signature the request is only a challenge, whose payload binds the request.
    body = wallet.body(others[0])
    step = wallet.client.post("/auth/credentials", body)
    assert step.status_code == 202, step.text
    challenge = step.json()
    assert challenge["type"] == others[0] and challenge["requestId"].startswith("Request:")
    assert wallet.account_id in challenge["payloadToSign"]
    # A stamp by a key that is not a session of the account is refused.
    stranger = ewc.create_stamp(challenge["payloadToSign"], ewc.KeyPair.generate())
    refused = wallet.client.retry("POST", "/auth/credentials", body, challenge, stranger)
    assert _error(refused, 401, "UNAUTHORIZED")["reason"] == "Invalid Service-Wallet-Signature"
    # A changed body under the same request id is refused too.
    changed = wallet.body(others[1])
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    _error(wallet.client.retry("POST", "/auth/credentials", changed, challenge, stamp), 401)
    created = wallet.client.retry("POST", "/auth/credentials", body, challenge, stamp)
    assert created.status_code == 201, created.text
    # Revoked again, the same request with a fresh stamp would add it once more, but for its
    # request id, which was used.
    _, revoked = wallet.client.signed_retry(
        "DELETE", f"/auth/credentials/{created.json()['id']}", key=key
    )
    assert revoked.status_code == 204, revoked.text
    fresh = ewc.create_stamp(challenge["payloadToSign"], key)
    assert_request_id_used(wallet.client.retry("POST", "/auth/credentials", body, challenge, fresh))
    # The third type, signed with the Grid-Wallet-Signature header name.
    third_body = wallet.body(others[1])
    header = "Grid-Wallet-Signature"
    _, third = wallet.client.signed_retry(
        "POST", "/auth/credentials", third_body, key=key, header=header
    )
    assert third.status_code == 201, third.text
    listed = wallet.client.get("/auth/credentials", params={"accountId": wallet.account_id})
    assert sorted(c["type"] for c in listed.json()["data"]) == sorted([first_kind, others[1]])


@pytest.mark.parametrize("kind", KINDS)
def test_a_second_credential_of_a_type_is_400(wallet: Wallet, kind: str) -> None:
    wallet.add(kind)
    response = wallet.client.post("/auth/credentials", wallet.body(kind))
    _error(response, 400, f"{kind}_CREDENTIAL_ALREADY_EXISTS")


def test_a_request_id_is_single_use(wallet: Wallet) -> None:
    """The same retry again, with a fresh stamp by the same session, is refused for its used
    request id alone: the request (an export, which changes nothing) is accepted again under a
    new request id."""
    _, key = wallet.first_login("OAUTH")
    path = f"/internal-accounts/{wallet.account_id}/export"
    body = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
    challenge, first = wallet.client.signed_retry("POST", path, body, key=key)
    assert first.status_code == 200, first.text
    fresh = ewc.create_stamp(challenge["payloadToSign"], key)
    assert_request_id_used(wallet.client.retry("POST", path, body, challenge, fresh))
    _, again = wallet.client.signed_retry("POST", path, body, key=key)
    assert again.status_code == 200, again.text


def test_a_request_id_answers_only_the_request_it_was_issued_for(wallet: Wallet) -> None:
    session, key = wallet.first_login("OAUTH")
    other, _ = wallet.login(_credential(wallet, "OAUTH"))
    path = f"/auth/sessions/{session['id']}"
    first = wallet.client.request("DELETE", path)
    assert first.status_code == 202, first.text
    challenge = first.json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    # The stamped challenge of one request, replayed on another: refused, nothing revoked.
    swapped = wallet.client.retry("DELETE", f"/auth/sessions/{other['id']}", None, challenge, stamp)
    _error(swapped, 401, "UNAUTHORIZED")
    listed = wallet.client.get("/auth/sessions", params={"accountId": wallet.account_id}).json()
    assert {s["id"] for s in listed["data"]} == {session["id"], other["id"]}
    # Refused before the claim: the request it was issued for still goes through.
    assert wallet.client.retry("DELETE", path, None, challenge, stamp).status_code == 204


def test_a_revoked_session_no_longer_signs(wallet: Wallet) -> None:
    session, key = wallet.first_login("OAUTH")
    second, _ = wallet.login(_credential(wallet, "OAUTH"))
    _, revoked = wallet.client.signed_retry("DELETE", f"/auth/sessions/{session['id']}", key=key)
    assert revoked.status_code == 204
    first = wallet.client.request("DELETE", f"/auth/sessions/{second['id']}")
    challenge = first.json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    refused = wallet.client.retry(
        "DELETE", f"/auth/sessions/{second['id']}", None, challenge, stamp
    )
    assert _error(refused, 401)["reason"] == "Invalid Service-Wallet-Signature"


def _credential(wallet: Wallet, kind: str) -> dict[str, Any]:
    listed = wallet.client.get("/auth/credentials", params={"accountId": wallet.account_id})
    return next(c for c in listed.json()["data"] if c["type"] == kind)


def test_revoking_a_credential_needs_a_session_of_another_one(wallet: Wallet) -> None:
    email = wallet.add("EMAIL_OTP")
    _, email_key = wallet.login(email)
    # The only credential cannot be revoked.
    _error(wallet.client.request("DELETE", f"/auth/credentials/{email['id']}"), 400)
    passkey = wallet.add("PASSKEY", signer=email_key)
    passkey_session, passkey_key = wallet.login(passkey)
    # A session of the credential being revoked may not revoke it.
    _, own = wallet.client.signed_retry(
        "DELETE", f"/auth/credentials/{passkey['id']}", key=passkey_key
    )
    _error(own, 401, "UNAUTHORIZED")
    challenge, revoked = wallet.client.signed_retry(
        "DELETE", f"/auth/credentials/{passkey['id']}", key=email_key
    )
    assert challenge["type"] == "PASSKEY"
    assert revoked.status_code == 204, revoked.text
    remaining = wallet.client.get("/auth/credentials", params={"accountId": wallet.account_id})
    assert [c["id"] for c in remaining.json()["data"]] == [email["id"]]
    sessions = wallet.client.get("/auth/sessions", params={"accountId": wallet.account_id})
    assert passkey_session["id"] not in [s["id"] for s in sessions.json()["data"]]
    # Now the last one again: 400.
    _error(wallet.client.request("DELETE", f"/auth/credentials/{email['id']}"), 400)


@pytest.mark.parametrize("kind", KINDS)
def test_export_opens_with_the_bound_key_and_refuses_a_swapped_one(
    wallet: Wallet, flow_server: SandboxServer, kind: str
) -> None:
    _, key = wallet.first_login(kind)
    path = f"/internal-accounts/{wallet.account_id}/export"
    client_key = ewc.KeyPair.generate()
    body = {"clientPublicKey": client_key.public_key_hex()}
    swapped = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
    challenge, refused = wallet.client.signed_retry("POST", path, body, key=key, retry_body=swapped)
    _error(refused, 401, "UNAUTHORIZED")
    assert body["clientPublicKey"] in challenge["payloadToSign"]
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    exported = wallet.client.retry("POST", path, body, challenge, stamp)
    assert exported.status_code == 200, exported.text
    result = exported.json()
    assert result["id"] == wallet.account_id
    envelope = result["encryptedWalletCredentials"]
    if flow_server.environment == "sandbox":
        mnemonic = ewc.open_export_mnemonic(envelope, client_key, sandbox=True)
    else:
        import json

        signer = json.loads(envelope)["enclaveQuorumPublic"]
        assert signer
        mnemonic = ewc.open_export_mnemonic(envelope, client_key, signer_public_key=signer)
    assert len(mnemonic.split()) == 12
    _error(wallet.client.retry("POST", path, body, challenge, stamp), 401)


def test_an_export_is_signed_only_by_an_active_session_of_its_account(wallet: Wallet) -> None:
    """The stamped leg reads the account's secret and active session keys together: a revoked
    session's stamp is refused (before the claim, so an active session's stamp still answers
    the challenge), and an unknown account is 404 on the stamped leg too."""
    session, key = wallet.first_login("OAUTH")
    _, other_key = wallet.login(_credential(wallet, "OAUTH"))
    path = f"/internal-accounts/{wallet.account_id}/export"
    body = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
    _, revoked = wallet.client.signed_retry("DELETE", f"/auth/sessions/{session['id']}", key=key)
    assert revoked.status_code == 204, revoked.text
    challenge = wallet.client.post(path, body).json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    refused = _error(wallet.client.retry("POST", path, body, challenge, stamp), 401)
    assert refused["reason"] == "Invalid Service-Wallet-Signature"
    active = ewc.create_stamp(challenge["payloadToSign"], other_key)
    unknown = "/internal-accounts/InternalAccount:nope/export"
    _error(wallet.client.retry("POST", unknown, body, challenge, active), 404, "NOT_FOUND")
    assert wallet.client.retry("POST", path, body, challenge, active).status_code == 200


def test_an_otp_resend_is_rate_limited(wallet: Wallet) -> None:
    credential = wallet.add("EMAIL_OTP")
    response = wallet.client.post(f"/auth/credentials/{credential['id']}/challenge")
    body = _error(response, 429)
    assert int(response.headers["Retry-After"]) >= 1, body


def test_a_wrong_otp_is_401_and_the_right_one_still_works(wallet: Wallet) -> None:
    email = wallet.add("EMAIL_OTP")
    code = wallet.otp()
    key = ewc.KeyPair.generate()
    path = f"/auth/credentials/{email['id']}/verify"
    wrong = {"type": "EMAIL_OTP", "otp": "123456" if code != "123456" else "654321"}
    response = wallet.client.post(path, {**wrong, "clientPublicKey": key.public_key_hex()})
    assert _error(response, 401, "UNAUTHORIZED")["reason"] == "Invalid OTP code"
    right = {"type": "EMAIL_OTP", "otp": code, "clientPublicKey": key.public_key_hex()}
    assert wallet.client.post(path, right).status_code == 200
    # A code is used once.
    again = {**right, "clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
    _error(wallet.client.post(path, again), 401, "UNAUTHORIZED")


def test_a_passkey_challenge_is_used_once(wallet: Wallet) -> None:
    passkey = wallet.add("PASSKEY")
    key = ewc.KeyPair.generate()
    body, headers = wallet.verify_body(passkey, key, compressed=False)
    path = f"/auth/credentials/{passkey['id']}/verify"
    assert wallet.client.post(path, body, headers=headers).status_code == 200
    _error(wallet.client.post(path, body, headers=headers), 401, "UNAUTHORIZED")
    _error(wallet.client.post(path, body), 401, "UNAUTHORIZED")  # no Request-Id at all
    # A challenge is bound to the key it was issued for, and to its request id.
    body, headers = wallet.verify_body(passkey, key, compressed=False)
    _error(wallet.client.post(path, body, headers={"Request-Id": "Request:nope"}), 401)


def test_an_oauth_token_must_be_fresh_bound_and_of_the_same_user(wallet: Wallet) -> None:
    oauth = wallet.add("OAUTH")
    path = f"/auth/credentials/{oauth['id']}/verify"
    key = ewc.KeyPair.generate().public_key_hex()
    other_key = ewc.KeyPair.generate().public_key_hex()
    from ._identity import id_token

    for token in (
        wallet.token(other_key),  # nonce of another key
        wallet.token(),  # no nonce
        id_token(client_public_key=key, sub="someone-else"),
        "not.a.token",
    ):
        response = wallet.client.post(
            path, {"type": "OAUTH", "oidcToken": token, "clientPublicKey": key}
        )
        assert _error(response, 401, "UNAUTHORIZED")["reason"] == "Invalid OIDC token"


@pytest.mark.parametrize("text", ["\x00", "a\x00b", "\ud800", "InternalAccount:\x00"])
def test_nul_and_lone_surrogates_never_give_500(flow_client: SandboxClient, text: str) -> None:
    for method, path, body in (
        ("POST", "/customers", {"customerType": "INDIVIDUAL", "fullName": text}),
        ("POST", "/customers", {"customerType": "INDIVIDUAL", "platformCustomerId": text}),
        ("POST", "/auth/credentials", {"type": "EMAIL_OTP", "accountId": text}),
        ("POST", f"/auth/credentials/{text}/challenge", None),
    ):
        response = flow_client.request(
            method,
            path.replace("\ud800", "%ED%A0%80").replace("\x00", "%00"),
            content=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        assert response.status_code in (201, 400, 404), response.text
    query = text.replace("\ud800", "%ED%A0%80").replace("\x00", "%00")
    for name in ("accountId", "customerId"):
        for path in ("/auth/credentials", "/auth/sessions", "/customers/internal-accounts"):
            response = flow_client.get(f"{path}?{name}={query}")
            assert response.status_code in (200, 400), response.text


def test_the_encrypted_email_otp_login(wallet: Wallet, flow_server: SandboxServer) -> None:
    """The newer EMAIL_OTP login: the code sealed to the target bundle with the client's key
    (TEK), a 202 whose payloadToSign is the verification token, the retry stamped by the TEK,
    which becomes the session key."""
    credential = wallet.add("EMAIL_OTP")
    bundle = credential["otpEncryptionTargetBundle"]
    if flow_server.environment == "sandbox":
        pinning: dict[str, Any] = {"sandbox": True}
    else:
        pinning = {"signer_public_key": json.loads(bundle)["enclaveQuorumPublic"]}
    tek = ewc.KeyPair.generate()
    sealed = ewc.otp.encrypt_otp_code(
        bundle, wallet.otp(), tek.public_key_hex(compressed=True), user_id=wallet.account_id,
        **pinning,
    )  # fmt: skip
    path = f"/auth/credentials/{credential['id']}/verify"
    body = {"type": "EMAIL_OTP", "encryptedOtpBundle": sealed}
    first = wallet.client.post(path, body)
    assert first.status_code == 202, first.text
    challenge = first.json()
    assert challenge["type"] == "EMAIL_OTP"
    # Only the TEK may stamp the token.
    stranger = ewc.create_stamp(challenge["payloadToSign"], ewc.KeyPair.generate())
    _error(wallet.client.retry("POST", path, body, challenge, stranger), 401, "UNAUTHORIZED")
    stamp = ewc.create_stamp(challenge["payloadToSign"], tek)
    done = wallet.client.retry("POST", path, body, challenge, stamp)
    assert done.status_code == 200, done.text
    session = done.json()
    assert session["type"] == "EMAIL_OTP" and "encryptedSessionSigningKey" not in session
    _error(wallet.client.retry("POST", path, body, challenge, stamp), 401, "UNAUTHORIZED")
    # The target bundle was for one code: the same sealed code again is refused.
    _error(wallet.client.post(path, body), 401, "UNAUTHORIZED")
    # The TEK is the session key.
    _, revoked = wallet.client.signed_retry("DELETE", f"/auth/sessions/{session['id']}", key=tek)
    assert revoked.status_code == 204, revoked.text


def test_an_encrypted_login_with_a_wrong_code_is_401(
    wallet: Wallet, flow_server: SandboxServer
) -> None:
    credential = wallet.add("EMAIL_OTP")
    bundle = credential["otpEncryptionTargetBundle"]
    code = wallet.otp()
    wrong = "123456" if code != "123456" else "654321"
    pinning: dict[str, Any] = (
        {"sandbox": True}
        if flow_server.environment == "sandbox"
        else {"signer_public_key": json.loads(bundle)["enclaveQuorumPublic"]}
    )
    tek = ewc.KeyPair.generate().public_key_hex(compressed=True)
    sealed = ewc.otp.encrypt_otp_code(bundle, wrong, tek, **pinning)
    path = f"/auth/credentials/{credential['id']}/verify"
    response = wallet.client.post(path, {"type": "EMAIL_OTP", "encryptedOtpBundle": sealed})
    assert _error(response, 401, "UNAUTHORIZED")["reason"] == "Invalid OTP code"
    # The bundle stays usable for the right code.
    sealed = ewc.otp.encrypt_otp_code(bundle, code, tek, **pinning)
    response = wallet.client.post(path, {"type": "EMAIL_OTP", "encryptedOtpBundle": sealed})
    assert response.status_code == 202, response.text
