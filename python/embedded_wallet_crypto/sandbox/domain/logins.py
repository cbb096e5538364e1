"""Logins: a credential's challenge (a passkey login challenge, or an email code) and its
verification, which opens a session (``wallet.issue_session``): an email code (plain, or the
encrypted login's two legs), an OIDC token, or a passkey assertion.

Built on the library: ``ewc.passkeys`` (session challenges and assertions), ``ewc.oidc`` (ID
tokens) and ``ewc.otp`` (one-time codes, the encrypted login)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session

from ... import oidc, passkeys
from ...keys import KeyPair
from ...otp import seal_target_bundle
from ..clock import iso
from ..db.tables_wallet import AuthMethod, OtpTarget, PasskeyChallenge, PasskeyData
from ..ids import new_key_pair
from ..models.wallet import ChallengeBody, VerifyBody
from ..services import CHALLENGE_SECONDS, Services
from .errors import INVALID_OIDC, Refusal, invalid
from .wallet import RetryHeaders, auth_method_body, find_credential, issue_session

__all__ = ["OTP_TYPES", "challenge_credential", "required", "send_code", "verify_credential"]

#: The credential types whose login is a one-time code (the same engine, ``services.otp``, and
#: the same sandbox code; email to the address, SMS to the phone number, both to the outbox).
OTP_TYPES = frozenset({"EMAIL_OTP", "SMS_OTP"})


def required(value: Any, name: str, kind: str) -> Any:
    """``value``, or 400 when a request of ``kind`` lacks the field ``name``."""
    if value is None:
        raise invalid(f"A {kind} request needs {name}.")
    return value


def send_code(db: Session, services: Services, credential: AuthMethod) -> str:
    """Send a fresh code (email, or SMS for SMS_OTP: both to the outbox); returns the
    ``otpEncryptionTargetBundle`` of a new target key."""
    issued = services.otp.issue(credential.id)
    target = new_key_pair("otp-target")
    row = db.get(OtpTarget, credential.id)
    if row is None:
        row = OtpTarget(auth_method_id=credential.id, private_key="", created_at=issued.expires_at)
        db.add(row)
    row.private_key = target.private_key_bytes().hex()
    row.created_at = services.clock.now()
    db.commit()
    if credential.type == "SMS_OTP":  # the outbox's SMS address, as the SCA codes'
        services.mailer.send(
            f"{credential.nickname.lstrip('+')}@sms.sandbox.invalid",
            "SMS",
            f"Your wallet verification code is: {issued.code}\n",
        )
    else:
        services.mailer.send(
            credential.nickname,
            "Your wallet verification code",
            "Your verification code is:\n\n"
            f"{issued.code}\n\n"
            f"It expires at {iso(issued.expires_at)}. "
            "If you did not ask for it, ignore this email.\n",
        )
    return seal_target_bundle(
        target.public_key_hex(),
        organization_id=services.organization_id,
        user_id=credential.account_id,
        signer=services.service_signer,
    )


def challenge_credential(
    db: Session, services: Services, credential_id: str, body: ChallengeBody | None
) -> dict[str, Any]:
    """PASSKEY: a login challenge binding ``clientPublicKey``. EMAIL_OTP: a fresh code by email
    (429 with ``Retry-After`` when asked too often). OAUTH has no challenge."""
    credential = find_credential(db, credential_id)
    if credential.type in OTP_TYPES:
        bundle = send_code(db, services, credential)
        return {**auth_method_body(credential), "otpEncryptionTargetBundle": bundle}
    if credential.type == "OAUTH":
        raise invalid("OAUTH credentials have no challenge: call verify with a fresh OIDC token.")
    client_key = required(body.clientPublicKey if body else None, "clientPublicKey", "PASSKEY")
    data = db.get(PasskeyData, credential.id)
    assert data is not None
    pending = passkeys.issue_session_challenge(
        client_public_key=client_key,
        organization_id=services.organization_id,
        account_id=credential.account_id,
    )
    expires_at = services.clock.later(CHALLENGE_SECONDS)
    db.add(
        PasskeyChallenge(
            request_id=pending.request_id,
            auth_method_id=credential.id,
            body=pending.body,
            expires_at=expires_at,
            used=False,
        )
    )
    return {
        **auth_method_body(credential),
        **pending.to_response(),
        "credentialId": data.credential_id,
        "expiresAt": iso(expires_at),
    }


def _unauthorized(reason: str) -> Refusal:
    return Refusal(401, "UNAUTHORIZED", reason)


def _verify_passkey(
    db: Session,
    services: Services,
    credential: AuthMethod,
    body: VerifyBody,
    request_id: str | None,
) -> str:
    """The passkey login: the assertion over the pending challenge of ``request_id`` (used
    once, by a conditional update); returns the client key it bound."""
    assertion = required(body.assertion, "assertion", "PASSKEY")
    if not request_id:
        raise _unauthorized("A PASSKEY verify needs the Request-Id header from /challenge.")
    pending = db.get(PasskeyChallenge, request_id[:200])
    if pending is None or pending.auth_method_id != credential.id:
        raise _unauthorized("The Request-Id is unknown for this credential.")
    if pending.used:
        raise _unauthorized("The Request-Id has already been used.")
    if services.clock.now() >= pending.expires_at:
        raise _unauthorized("The passkey challenge has expired; ask for a new one.")
    data = db.get(PasskeyData, credential.id)
    assert data is not None
    verified = passkeys.verify_session_assertion(
        assertion.model_dump(exclude_none=True),
        session_creation_body=pending.body,
        request_id=request_id,
        credential_public_key=data.public_key,
        rp_id=services.settings.rp_id,
        origin=services.settings.allowed_origins(),
        current_sign_count=data.sign_count,
        sandbox=services.environment,
    )
    claimed = db.execute(
        update(PasskeyChallenge)
        .where(PasskeyChallenge.request_id == request_id, PasskeyChallenge.used.is_(False))
        .values(used=True)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        raise _unauthorized("The Request-Id has already been used.")
    data.sign_count = max(data.sign_count, verified.assertion.new_sign_count)
    return verified.client_public_key


def _encrypted_otp_login(
    db: Session,
    services: Services,
    credential: AuthMethod,
    encrypted_otp_bundle: str,
    headers: RetryHeaders,
) -> dict[str, str] | str:
    """The encrypted EMAIL_OTP login. Leg one (no signature headers): open the bundle with the
    credential's target key (used once), check the code, answer the 202 whose payloadToSign is
    the verification token bound to the key sealed in the bundle. Leg two: the retry stamped by
    exactly that key; returns it (compressed hex), the new session's key."""
    if headers.present:
        done = services.otp_login.complete(
            request_id=headers.request_id, stamp=headers.stamp, account_id=credential.account_id
        )
        return done.session_public_key
    target = db.get(OtpTarget, credential.id)
    if target is None:
        raise _unauthorized(
            "No code is outstanding for an encrypted login; ask for one with /challenge."
        )
    target_key = KeyPair.from_private_hex(target.private_key)
    answer = services.otp_login.accept_code(
        encrypted_otp_bundle=encrypted_otp_bundle,
        target_key=target_key,
        credential_id=credential.id,
        account_id=credential.account_id,
        organization_id=services.organization_id,
        contact=credential.nickname,
        credential_type=credential.type,
    )
    db.delete(target)
    return answer.to_response()


def verify_credential(
    db: Session, services: Services, credential_id: str, body: VerifyBody, headers: RetryHeaders
) -> tuple[int, dict[str, Any]]:
    """Verify a credential and open a session (``encryptedSessionSigningKey`` for an
    uncompressed ``clientPublicKey``, delivered once): 200 and the session, or 202 and the
    challenge of the encrypted login's second leg."""
    credential = find_credential(db, credential_id)
    if body.type.value != credential.type:
        raise invalid(f"The credential is {credential.type}, not {body.type.value}.")
    if credential.type == "PASSKEY":
        client_key = _verify_passkey(db, services, credential, body, headers.request_id)
    elif credential.type in OTP_TYPES and body.encryptedOtpBundle is not None:
        answer = _encrypted_otp_login(db, services, credential, body.encryptedOtpBundle, headers)
        if isinstance(answer, dict):
            return 202, answer
        client_key = answer
    else:
        client_key = required(body.clientPublicKey, "clientPublicKey", credential.type)
        if credential.type in OTP_TYPES:
            services.otp.verify(credential.id, required(body.otp, "otp", credential.type))
        else:
            identity = oidc.verify_id_token(
                required(body.oidcToken, "oidcToken", "OAUTH"),
                jwks=services.oidc_keys,
                audience=services.oidc_audiences,
                issuers=services.oidc_issuers,
                client_public_key=client_key,
                sandbox=services.environment,
            )
            if not identity.sandbox and f"{identity.issuer} {identity.subject}" != (
                credential.subject
            ):
                raise _unauthorized(INVALID_OIDC)
    return 200, issue_session(db, services, credential, client_key)
