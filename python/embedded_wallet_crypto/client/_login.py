"""The logins, one flow each (driven by ``Client`` and ``AsyncClient`` alike): a fresh client
key, the interface's challenge and verify legs, and the session key opened.

- EMAIL_OTP: the account's credential (created first when it has none, which sends the first
  code), a fresh code by ``/challenge`` when the caller reads it (``read_otp``), then either
  the encrypted login (when the service sent an ``otpEncryptionTargetBundle``: the code and a
  fresh target key sealed to the bundle, a 202 whose verification token that key stamps, and
  that key is the session key) or the plain one (``otp`` and ``clientPublicKey``; the session
  key comes sealed to the client key).
- OAUTH: an OIDC token whose ``nonce`` binds the client key (the token source gets the nonce).
- PASSKEY: ``/challenge`` binds the client key; the authenticator signs the challenge.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from ..keys import KeyPair
from ..session import open_session_key
from ._errors import ClientError
from ._flows import Effect, Flow, make_call, signed_retry, signer_of
from ._operations import operation
from ._results import PasskeyAuthenticator, PasskeyRegistrar, Signer, WalletSession
from ._wire import Call, ClientConfig, Reply

__all__ = [
    "add_credential_flow",
    "login_email_otp_flow",
    "login_oauth_flow",
    "login_passkey_flow",
    "register_passkey_flow",
]


def _object(reply: Reply, what: str) -> dict[str, Any]:
    if not isinstance(reply.data, dict):
        raise ClientError(f"the service's {what} is not a JSON object", "RESPONSE_INVALID")
    return reply.data


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise ClientError(f"the service's answer has no {what}", "RESPONSE_INVALID")
    return value


def _account_id(account_id: object) -> str:
    if not isinstance(account_id, str):
        raise TypeError(f"account_id must be a str, not {type(account_id).__name__}")
    if not account_id:
        raise ClientError("account_id must not be empty", "INVALID_ARGUMENT")
    return account_id


def find_credential(account_id: str, kind: str) -> Flow[dict[str, Any] | None]:
    """The account's credential of ``kind`` (an AuthMethod), or None."""
    listed: Reply = yield make_call(
        operation("auth.list_credentials"), (), params={"accountId": account_id}
    )
    data = _object(listed, "credential list").get("data")
    for credential in data if isinstance(data, list) else []:
        if isinstance(credential, dict) and credential.get("type") == kind:
            return credential
    return None


def add_credential_flow(account_id: object, body: object, session: object) -> Flow[dict[str, Any]]:
    """Create a credential: directly when it is the account's first (201), else by signed
    retry with ``session`` (202, then 201)."""
    if not isinstance(body, dict):
        raise TypeError(f"body must be a dict, not {type(body).__name__}")
    call = make_call(
        operation("auth.create_credential"), (), body={**body, "accountId": _account_id(account_id)}
    )
    reply: Reply = yield call
    if reply.status == 202:
        if session is None:
            raise ClientError(
                "the account has a credential already: adding one is a signed retry, "
                "pass session= (a session of the account)",
                "SESSION_REQUIRED",
            )
        reply = yield from signed_retry(call, reply, signer_of(session))
    return _object(reply, "AuthMethod")


def _session(call: Call, reply: Reply, key: KeyPair) -> Flow[WalletSession]:
    """The session of a verify answer: a 202 is stamped by ``key`` (the client-held-key
    flow) and sent again; the session key is the one sealed to ``key``, or ``key`` itself."""
    if reply.status == 202:
        reply = yield from signed_retry(call, reply, key)
    body = _object(reply, "Session")
    sealed = body.get("encryptedSessionSigningKey")
    signer: Signer = key if sealed is None else open_session_key(_text(sealed, "key"), key)
    return WalletSession.from_body(body, signer)


def _code(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"the OTP code must be a str, not {type(value).__name__}")
    code = value.strip()
    if not code:
        raise ClientError("the OTP code is empty", "INVALID_ARGUMENT")
    return code


def login_email_otp_flow(
    config: ClientConfig,
    account_id: object,
    *,
    otp: object,
    read_otp: Callable[[], Any] | None,
    session: object,
    encrypted: bool | None,
) -> Flow[WalletSession]:
    """Log in with the account's EMAIL_OTP credential (see the module)."""
    from ..otp import TLS_FETCHER_SIGNER_PUBLIC_KEY, encrypt_otp_code

    account = _account_id(account_id)
    if (otp is None) == (read_otp is None):
        raise TypeError("give exactly one of otp= (the code) and read_otp= (a callable)")
    if read_otp is not None and not callable(read_otp):
        raise TypeError("read_otp must be callable")
    credential = yield from find_credential(account, "EMAIL_OTP")
    bundle = None
    if credential is None:  # creating it sends the first code
        credential = yield from add_credential_flow(account, {"type": "EMAIL_OTP"}, session)
        bundle = credential.get("otpEncryptionTargetBundle")
    elif read_otp is not None:  # a fresh code for this login
        sent: Reply = yield make_call(
            operation("auth.challenge"), (_text(credential.get("id"), "credential id"),)
        )
        bundle = _object(sent, "AuthMethod").get("otpEncryptionTargetBundle")
    code = _code(otp if otp is not None else (yield Effect(read_otp)))  # type: ignore[arg-type]
    verify = operation("auth.verify")
    credential_id = _text(credential.get("id"), "credential id")
    if isinstance(bundle, str) and bundle and encrypted is not False:
        target_key = KeyPair.generate()
        sealed = encrypt_otp_code(
            bundle,
            code,
            target_key.public_key_hex(compressed=True),
            signer_public_key=config.signer_public_key or TLS_FETCHER_SIGNER_PUBLIC_KEY,
            sandbox=config.sandbox,
        )
        call = make_call(
            verify, (credential_id,), body={"type": "EMAIL_OTP", "encryptedOtpBundle": sealed}
        )
        return (yield from _session(call, (yield call), target_key))
    if encrypted:
        raise ClientError(
            "the service sent no otpEncryptionTargetBundle for an encrypted login",
            "ENCRYPTED_OTP_UNAVAILABLE",
        )
    client_key = KeyPair.generate()
    body = {"type": "EMAIL_OTP", "otp": code, "clientPublicKey": client_key.public_key_hex()}
    call = make_call(verify, (credential_id,), body=body)
    return (yield from _session(call, (yield call), client_key))


def _token(source: object, nonce: str) -> Flow[str]:
    token = (yield Effect(source, (nonce,))) if callable(source) else source
    if not isinstance(token, str) or not token:
        raise TypeError("oidc_token must be a str, or a callable that returns one")
    return token


def login_oauth_flow(
    account_id: object, *, oidc_token: object, client_key: KeyPair | None, session: object
) -> Flow[WalletSession]:
    """Log in with the account's OAUTH credential (created first when the account has none
    of that type). ``oidc_token`` is a token whose ``nonce`` is the nonce of ``client_key``,
    or a callable that gets the nonce (``ewc.oidc.nonce_for`` of the client key) and
    returns a fresh token; it is called again for each request that sends one."""
    from ..oidc import nonce_for

    account = _account_id(account_id)
    if client_key is not None and not isinstance(client_key, KeyPair):
        raise TypeError(f"client_key must be an ewc.KeyPair, not {type(client_key).__name__}")
    key = client_key or KeyPair.generate()
    public = key.public_key_hex()
    nonce = nonce_for(public)
    credential = yield from find_credential(account, "OAUTH")
    if credential is None:
        token = yield from _token(oidc_token, nonce)
        body = {"type": "OAUTH", "oidcToken": token}
        credential = yield from add_credential_flow(account, body, session)
    token = yield from _token(oidc_token, nonce)
    body = {"type": "OAUTH", "oidcToken": token, "clientPublicKey": public}
    call = make_call(
        operation("auth.verify"), (_text(credential.get("id"), "credential id"),), body=body
    )
    return (yield from _session(call, (yield call), key))


def _b64url_decode(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        raise ClientError("the passkey challenge is not base64url", "RESPONSE_INVALID") from None


def relying_party(config: ClientConfig, rp_id: object, origin: object) -> tuple[str, str]:
    """The WebAuthn RP ID and origin of a passkey ceremony: the ones given, else the base
    URL's origin and its host (``localhost`` for an IP address)."""
    for name, value in (("rp_id", rp_id), ("origin", origin)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    parts = urlsplit(config.base_url)
    host = parts.hostname or "localhost"
    default_rp_id = "localhost" if host.replace(".", "").isdigit() or ":" in host else host
    return (
        rp_id if isinstance(rp_id, str) else default_rp_id,
        origin if isinstance(origin, str) else f"{parts.scheme}://{parts.netloc}",
    )


def login_passkey_flow(
    account_id: object, *, authenticator: PasskeyAuthenticator, party: tuple[str, str]
) -> Flow[WalletSession]:
    """Log in with the account's PASSKEY credential: ``/challenge`` binds a fresh client
    key, the authenticator signs the challenge, and verify (with ``Request-Id``) answers the
    session sealed to the client key."""
    account = _account_id(account_id)
    if not callable(getattr(authenticator, "authenticate", None)):
        raise TypeError("authenticator must have an authenticate(rp_id=, origin=, challenge=)")
    credential = yield from find_credential(account, "PASSKEY")
    if credential is None:
        raise ClientError(
            "the account has no PASSKEY credential: register one first (register_passkey)",
            "CREDENTIAL_NOT_FOUND",
        )
    credential_id = _text(credential.get("id"), "credential id")
    key = KeyPair.generate()
    issued: Reply = yield make_call(
        operation("auth.challenge"),
        (credential_id,),
        body={"clientPublicKey": key.public_key_hex()},
    )
    answer = _object(issued, "passkey challenge")
    challenge = _b64url_decode(_text(answer.get("challenge"), "challenge"))
    request_id = _text(answer.get("requestId"), "requestId")
    assertion = yield Effect(
        authenticator.authenticate,
        kwargs={"rp_id": party[0], "origin": party[1], "challenge": challenge},
    )
    call = make_call(
        operation("auth.verify"),
        (credential_id,),
        body={"type": "PASSKEY", "assertion": assertion},
        headers={"Request-Id": request_id},
    )
    return (yield from _session(call, (yield call), key))


def register_passkey_flow(
    account_id: object,
    *,
    authenticator: PasskeyRegistrar,
    nickname: str,
    party: tuple[str, str],
    session: object,
) -> Flow[dict[str, Any]]:
    """Create a PASSKEY credential: a fresh registration challenge (the platform's), the
    authenticator's attestation, and the create request (a signed retry when the account has
    a credential already)."""
    account = _account_id(account_id)
    if not callable(getattr(authenticator, "register", None)):
        raise TypeError("authenticator must have a register(rp_id=, origin=, challenge=)")
    challenge = secrets.token_bytes(32)
    attestation = yield Effect(
        authenticator.register,
        kwargs={"rp_id": party[0], "origin": party[1], "challenge": challenge},
    )
    body = {
        "type": "PASSKEY",
        "nickname": nickname,
        "challenge": base64.urlsafe_b64encode(challenge).rstrip(b"=").decode("ascii"),
        "attestation": attestation,
    }
    return (yield from add_credential_flow(account, body, session))
