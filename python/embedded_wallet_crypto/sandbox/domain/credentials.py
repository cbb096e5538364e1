"""Credentials (the interface's AuthMethods): the account's first credential unsigned, every
later one by signed retry; the list; the revoke, by signed retry, never of the last one.

Built on the library: ``ewc.passkeys`` (registration), ``ewc.oidc`` (ID tokens) and
``ewc.signed_retry``. A change that a rule of the account must allow is decided under the
account's row lock, in the transaction that commits it (``wallet``)."""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ... import oidc, passkeys
from ...signed_retry import Operation, VerifiedRetry, ensure_credential_remains
from ..db.tables_wallet import (
    AuthMethod,
    Customer,
    InternalAccount,
    PasskeyData,
    UsedRegistrationChallenge,
    WalletSession,
)
from ..ids import new_id
from ..models.wallet import CredentialCreate
from ..services import Services
from .errors import Refusal, invalid, not_found
from .logins import OTP_TYPES, required, send_code
from .wallet import (
    RetryHeaders,
    auth_method_body,
    credential_ids,
    ensure_signer_active,
    find_credential,
    find_wallet,
    lock_account,
    signed_step,
)

__all__ = ["create_credential", "delete_credential", "list_credentials"]

_ALREADY = {
    "EMAIL_OTP": "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS",
    "SMS_OTP": "SMS_OTP_CREDENTIAL_ALREADY_EXISTS",
    "PASSKEY": "PASSKEY_CREDENTIAL_ALREADY_EXISTS",
    "OAUTH": "OAUTH_CREDENTIAL_ALREADY_EXISTS",
}


def _b64url(text: str, name: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise invalid(f"{name} is not base64url.") from None


def _challenge_used() -> Refusal:
    return invalid("This registration challenge was already used.", "PASSKEY_CHALLENGE_USED")


class _NewCredential:
    """A checked create request: the credential's identity and the signed-retry parameters."""

    def __init__(self, nickname: str, subject: str, parameters: dict[str, Any]) -> None:
        self.nickname = nickname
        self.subject = subject
        self.parameters = parameters
        self.passkey: passkeys.RegisteredPasskey | None = None
        self.challenge_hash: str | None = None


def _check_new(
    body: CredentialCreate, account: InternalAccount, db: Session, services: Services
) -> _NewCredential:
    kind = body.type.value
    if kind == "EMAIL_OTP":
        customer = db.get(Customer, account.customer_id)
        if customer is None or not customer.email:
            raise invalid("The account's customer has no email address for EMAIL_OTP.")
        return _NewCredential(
            customer.email, customer.email, {"userEmail": customer.email, "userId": account.id}
        )
    if kind == "SMS_OTP":
        customer = db.get(Customer, account.customer_id)
        if customer is None or not customer.phone_number:
            raise invalid(
                "The account's customer has no phone number for SMS_OTP.", "PHONE_NUMBER_MISSING"
            )
        phone = customer.phone_number
        return _NewCredential(phone, phone, {"userId": account.id, "userPhoneNumber": phone})
    if kind == "OAUTH":
        token = required(body.oidcToken, "oidcToken", "OAUTH")
        identity = oidc.verify_create_token(
            token,
            jwks=services.oidc_keys,
            audience=services.oidc_audiences,
            issuers=services.oidc_issuers,
            sandbox=services.environment,
        )
        provider = identity.issuer
        return _NewCredential(
            identity.email or identity.subject,
            f"{identity.issuer} {identity.subject}",
            {
                "oauthProviders": [{"oidcToken": token, "providerName": provider}],
                "userId": account.id,
            },
        )
    nickname = required(body.nickname, "nickname", "PASSKEY").strip()
    challenge_text = required(body.challenge, "challenge", "PASSKEY")
    attestation = required(body.attestation, "attestation", "PASSKEY")
    if not nickname:
        raise invalid("nickname must not be blank.")
    challenge = _b64url(challenge_text, "challenge")
    registered = passkeys.verify_registration(
        attestation.model_dump(),
        expected_challenge=challenge,
        rp_id=services.settings.rp_id,
        origin=services.settings.allowed_origins(),
    )
    new = _NewCredential(
        nickname,
        attestation.credentialId,
        {
            "authenticators": [
                {
                    "attestation": attestation.model_dump(exclude={"transports"}),
                    "authenticatorName": nickname,
                    "challenge": challenge_text,
                    "transports": list(attestation.transports),
                }
            ],
            "userId": account.id,
        },
    )
    new.passkey = registered
    new.challenge_hash = hashlib.sha256(challenge).hexdigest()
    return new


def _create(
    db: Session, services: Services, account: InternalAccount, kind: str, new: _NewCredential
) -> dict[str, Any]:
    now = services.clock.now()
    credential = AuthMethod(
        id=new_id("AuthMethod"),
        account_id=account.id,
        type=kind,
        nickname=new.nickname,
        subject=new.subject,
        created_at=now,
        updated_at=now,
    )
    db.add(credential)
    if new.challenge_hash is not None:
        db.add(UsedRegistrationChallenge(challenge_hash=new.challenge_hash, used_at=now))
    if new.passkey is not None:
        db.add(
            PasskeyData(
                auth_method_id=credential.id,
                credential_id=base64.urlsafe_b64encode(new.passkey.credential_id)
                .decode()
                .rstrip("="),
                public_key=new.passkey.public_key,
                sign_count=new.passkey.sign_count,
                transports=list(new.passkey.transports),
            )
        )
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        if db.scalars(
            select(AuthMethod.id).where(
                AuthMethod.account_id == account.id, AuthMethod.type == kind
            )
        ).first():
            raise _already(kind) from None
        raise _challenge_used() from None
    body = auth_method_body(credential)
    if kind in OTP_TYPES:
        body["otpEncryptionTargetBundle"] = send_code(db, services, credential)
    return body


def _already(kind: str) -> Refusal:
    return invalid(
        f"The account already has a {kind} credential (one of each type).", _ALREADY[kind]
    )


def create_credential(
    db: Session, services: Services, body: CredentialCreate, headers: RetryHeaders
) -> tuple[int, dict[str, Any]]:
    """Create the account's first credential (201), or a further one by signed retry (202 and
    the challenge, then 201). A second credential of the same type is 400."""
    account = find_wallet(db, body.accountId)
    kind = body.type.value
    if kind in credential_ids(db, account.id).values():
        raise _already(kind)
    new = _check_new(body, account, db, services)
    used = None
    if new.challenge_hash is not None:
        used = db.get(UsedRegistrationChallenge, new.challenge_hash)
    if used is not None:
        raise _challenge_used()
    retry: VerifiedRetry | None = None
    while True:  # a second pass when a concurrent request created the first credential
        if retry is None and credential_ids(db, account.id):
            step = signed_step(
                db,
                services,
                headers,
                account_id=account.id,
                operation=Operation[f"ADD_{kind}_CREDENTIAL"],
                parameters=new.parameters,
            )
            if not isinstance(step, VerifiedRetry):
                return 202, step
            retry = step
        # Decided again under the account's lock, in the transaction that inserts the
        # credential: only the first credential is created unsigned.
        lock_account(db, account.id)
        existing = credential_ids(db, account.id)
        if kind in existing.values():
            raise _already(kind)
        if retry is None and existing:
            # Not the first credential any more: release the lock, and this request is answered
            # as a further credential (the challenge; a signed one is verified), since an
            # account never loses its last credential.
            db.rollback()
            continue
        if retry is not None:
            ensure_signer_active(db, services, account.id, retry)
        return 201, _create(db, services, account, kind, new)


def list_credentials(db: Session, account_id: str) -> dict[str, Any]:
    """The account's credentials, unpaginated (empty for an unknown account)."""
    try:
        account = find_wallet(db, account_id)
    except Refusal:
        return {"data": []}
    rows = db.scalars(
        select(AuthMethod)
        .where(AuthMethod.account_id == account.id)
        .order_by(AuthMethod.created_at)
    )
    return {"data": [auth_method_body(row) for row in rows]}


def delete_credential(
    db: Session, services: Services, credential_id: str, headers: RetryHeaders
) -> dict[str, str] | None:
    """Revoke a credential by signed retry, signed by a session of a different credential of
    the account; the account keeps at least one credential (400 otherwise). The credential's
    sessions end with it. Returns the 202 challenge body, or None once revoked."""
    credential = find_credential(db, credential_id)
    ensure_credential_remains(list(credential_ids(db, credential.account_id)), credential.id)
    step = signed_step(
        db,
        services,
        headers,
        account_id=credential.account_id,
        operation=Operation.REVOKE_CREDENTIAL,
        parameters={"authenticatorIds": [credential.id], "userId": credential.account_id},
        credential_type=credential.type,
    )
    if not isinstance(step, VerifiedRetry):
        return step
    # Decided again under the account's lock, in the transaction that deletes the credential:
    # of two credentials revoking each other at once, the later one finds it is the last.
    lock_account(db, credential.account_id)
    remaining = credential_ids(db, credential.account_id)
    if credential.id not in remaining:
        raise not_found("No credential has this id.")
    ensure_credential_remains(list(remaining), credential.id)
    ensure_signer_active(db, services, credential.account_id, step)
    db.execute(
        update(WalletSession)
        .where(WalletSession.auth_method_id == credential.id)
        .values(revoked=True, updated_at=services.clock.now())
    )
    passkey = db.get(PasskeyData, credential.id)
    if passkey is not None:
        db.delete(passkey)
        db.flush()  # before the credential's row, whose deletion would cascade to it
    db.delete(credential)
    return None
