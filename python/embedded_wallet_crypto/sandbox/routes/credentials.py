"""Credentials: ``POST/GET /auth/credentials``, ``POST /auth/credentials/{id}/challenge``,
``POST /auth/credentials/{id}/verify`` and ``DELETE /auth/credentials/{id}``.

Built on the library: ``ewc.passkeys`` (registration, session challenges and assertions),
``ewc.oidc`` (ID tokens), ``ewc.otp.OneTimeCodes`` (email codes) and ``ewc.signed_retry``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from enum import Enum
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ... import oidc, passkeys
from ...keys import KeyPair
from ...otp import seal_target_bundle
from ...signed_retry import Operation, VerifiedRetry, ensure_credential_remains
from .._auth import require_platform
from .._clock import iso
from .._db import get_session
from .._errors import ApiError, error_responses
from .._ids import new_id
from .._models import (
    AuthMethod,
    Customer,
    InternalAccount,
    OtpTarget,
    PasskeyChallenge,
    PasskeyData,
    UsedRegistrationChallenge,
    WalletSession,
)
from .._services import CHALLENGE_SECONDS, Services, get_services
from .._wallet import (
    CLIENT_PUBLIC_KEY_PATTERN,
    auth_method_body,
    credential_ids,
    ensure_signer_active,
    find_credential,
    find_wallet,
    issue_session,
    lock_account,
    retry_headers,
    signed_step,
)

__all__ = ["router"]

router = APIRouter(
    tags=["Credentials and sessions"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404, 429),
)

_Text = Annotated[str, Field(min_length=1, max_length=20000)]
_ShortText = Annotated[str, Field(min_length=1, max_length=200)]
_ClientKey = Annotated[str, Field(pattern=CLIENT_PUBLIC_KEY_PATTERN)]


class CredentialType(str, Enum):
    OAUTH = "OAUTH"
    EMAIL_OTP = "EMAIL_OTP"
    PASSKEY = "PASSKEY"


class Attestation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    credentialId: _Text
    clientDataJson: _Text
    attestationObject: _Text
    transports: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=10)] = []


class Assertion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    credentialId: _Text
    clientDataJson: _Text
    authenticatorData: _Text
    signature: _Text
    userHandle: Annotated[str, Field(max_length=2000)] | None = None


class CredentialCreate(BaseModel):
    """EMAIL_OTP: type, accountId. OAUTH: also oidcToken. PASSKEY: also nickname, challenge,
    attestation."""

    model_config = ConfigDict(extra="forbid")
    type: CredentialType
    accountId: _ShortText
    oidcToken: _Text | None = None
    # The real service's rule: 1-100 letters, digits, spaces and . _ - ' ( ).
    nickname: (
        Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[\w .'()\-]+$")] | None
    ) = None
    challenge: Annotated[str, Field(min_length=1, max_length=1000)] | None = None
    attestation: Attestation | None = None


class ChallengeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clientPublicKey: _ClientKey | None = None


class VerifyBody(BaseModel):
    """EMAIL_OTP: type, otp, clientPublicKey; or type, encryptedOtpBundle (the encrypted login:
    202, then the retry stamped by the key sealed in the bundle). OAUTH: type, oidcToken,
    clientPublicKey. PASSKEY: type, assertion (and the Request-Id header)."""

    model_config = ConfigDict(extra="forbid")
    type: CredentialType
    otp: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    oidcToken: _Text | None = None
    clientPublicKey: _ClientKey | None = None
    assertion: Assertion | None = None
    encryptedOtpBundle: _Text | None = None


class AuthMethodOut(BaseModel):
    id: str
    accountId: str
    type: CredentialType
    nickname: str
    createdAt: str
    updatedAt: str


class AuthMethodWithBundle(AuthMethodOut):
    """An EMAIL_OTP answer that sent a code: the bundle to seal the code to (encrypted login)."""

    otpEncryptionTargetBundle: str | None = None


class AuthMethodList(BaseModel):
    data: list[AuthMethodOut]


class SignedRequestChallengeOut(BaseModel):
    payloadToSign: str
    requestId: str
    expiresAt: str
    type: CredentialType | None = None


class PasskeyChallengeOut(AuthMethodOut):
    credentialId: str
    challenge: str
    requestId: str
    expiresAt: str


class SessionOut(AuthMethodOut):
    expiresAt: str
    encryptedSessionSigningKey: str | None = None


Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]
CredentialId = Annotated[str, Path(max_length=200)]

_ALREADY = {
    "EMAIL_OTP": "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS",
    "PASSKEY": "PASSKEY_CREDENTIAL_ALREADY_EXISTS",
    "OAUTH": "OAUTH_CREDENTIAL_ALREADY_EXISTS",
}


def _required(value: Any, name: str, kind: str) -> Any:
    if value is None:
        raise ApiError(400, "INVALID_INPUT", f"A {kind} request needs {name}.")
    return value


def _b64url(text: str, name: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ApiError(400, "INVALID_INPUT", f"{name} is not base64url.") from None


# --- POST /auth/credentials ------------------------------------------------------------------


class _NewCredential:
    """A checked create request: the credential's identity and the signed-retry parameters."""

    def __init__(self, nickname: str, subject: str, parameters: dict[str, Any]) -> None:
        self.nickname = nickname
        self.subject = subject
        self.parameters = parameters
        self.passkey: passkeys.RegisteredPasskey | None = None
        self.challenge_hash: str | None = None


def _check_new(
    body: CredentialCreate, account: InternalAccount, session: Session, services: Services
) -> _NewCredential:
    kind = body.type.value
    if kind == "EMAIL_OTP":
        customer = session.get(Customer, account.customer_id)
        if customer is None or not customer.email:
            raise ApiError(
                400, "INVALID_INPUT", "The account's customer has no email address for EMAIL_OTP."
            )
        return _NewCredential(
            customer.email, customer.email, {"userEmail": customer.email, "userId": account.id}
        )
    if kind == "OAUTH":
        token = _required(body.oidcToken, "oidcToken", "OAUTH")
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
    nickname = _required(body.nickname, "nickname", "PASSKEY").strip()
    challenge_text = _required(body.challenge, "challenge", "PASSKEY")
    attestation = _required(body.attestation, "attestation", "PASSKEY")
    if not nickname:
        raise ApiError(400, "INVALID_INPUT", "nickname must not be blank.")
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
    session: Session, services: Services, account: InternalAccount, kind: str, new: _NewCredential
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
    session.add(credential)
    if new.challenge_hash is not None:
        session.add(UsedRegistrationChallenge(challenge_hash=new.challenge_hash, used_at=now))
    if new.passkey is not None:
        session.add(
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
        session.commit()
    except IntegrityError:
        session.rollback()
        if session.scalars(
            select(AuthMethod.id).where(
                AuthMethod.account_id == account.id, AuthMethod.type == kind
            )
        ).first():
            raise _already(kind) from None
        raise ApiError(
            400, "PASSKEY_CHALLENGE_USED", "This registration challenge was already used."
        ) from None
    body = auth_method_body(credential)
    if kind == "EMAIL_OTP":
        body["otpEncryptionTargetBundle"] = _send_code(session, services, credential)
    return body


def _already(kind: str) -> ApiError:
    return ApiError(
        400, _ALREADY[kind], f"The account already has a {kind} credential (one of each type)."
    )


def _send_code(session: Session, services: Services, credential: AuthMethod) -> str:
    """Email a fresh code; returns the ``otpEncryptionTargetBundle`` of a new target key."""
    issued = services.otp.issue(credential.id)
    target = KeyPair.generate()
    row = session.get(OtpTarget, credential.id)
    if row is None:
        row = OtpTarget(auth_method_id=credential.id, private_key="", created_at=issued.expires_at)
        session.add(row)
    row.private_key = target.private_key_bytes().hex()
    row.created_at = services.clock.now()
    session.commit()
    services.mailer.send(
        credential.nickname,
        "Your wallet verification code",
        "Your verification code is:\n\n"
        f"{issued.code}\n\n"
        f"It expires at {iso(issued.expires_at)}. If you did not ask for it, ignore this email.\n",
    )
    return seal_target_bundle(
        target.public_key_hex(),
        organization_id=services.organization_id,
        user_id=credential.account_id,
        signer=services.service_signer,
    )


@router.post(
    "/auth/credentials",
    status_code=201,
    response_model=AuthMethodWithBundle,
    response_model_exclude_none=True,
    responses={202: {"model": SignedRequestChallengeOut}},
)
def create_credential(body: CredentialCreate, request: Request, session: Db, services: Svc) -> Any:
    """Create the account's first credential (201), or a further one by signed retry (202,
    then 201). A second credential of the same type is 400."""
    account = find_wallet(session, body.accountId)
    kind = body.type.value
    if kind in credential_ids(session, account.id).values():
        raise _already(kind)
    new = _check_new(body, account, session, services)
    used = None
    if new.challenge_hash is not None:
        used = session.get(UsedRegistrationChallenge, new.challenge_hash)
    if used is not None:
        raise ApiError(
            400, "PASSKEY_CHALLENGE_USED", "This registration challenge was already used."
        )
    retry: VerifiedRetry | None = None
    while True:  # a second pass when a concurrent request created the first credential
        if retry is None and credential_ids(session, account.id):
            step = signed_step(
                session,
                services,
                request,
                account_id=account.id,
                operation=Operation[f"ADD_{kind}_CREDENTIAL"],
                parameters=new.parameters,
            )
            if not isinstance(step, VerifiedRetry):
                return JSONResponse(step, status_code=202)
            retry = step
        # Decided again under the account's lock, in the transaction that inserts the
        # credential: only the first credential is created unsigned.
        lock_account(session, account.id)
        existing = credential_ids(session, account.id)
        if kind in existing.values():
            raise _already(kind)
        if retry is None and existing:
            # Not the first credential any more: release the lock, and this request is answered
            # as a further credential (the challenge; a signed one is verified), since an
            # account never loses its last credential.
            session.rollback()
            continue
        if retry is not None:
            ensure_signer_active(session, services, account.id, retry)
        return _create(session, services, account, kind, new)


# --- GET /auth/credentials -------------------------------------------------------------------


@router.get("/auth/credentials", response_model=AuthMethodList)
def list_credentials(
    session: Db, accountId: Annotated[str, Query(min_length=1, max_length=200)]
) -> dict[str, Any]:
    """The account's credentials, unpaginated (empty for an unknown account)."""
    try:
        account = find_wallet(session, accountId)
    except ApiError:
        return {"data": []}
    rows = session.scalars(
        select(AuthMethod)
        .where(AuthMethod.account_id == account.id)
        .order_by(AuthMethod.created_at)
    )
    return {"data": [auth_method_body(row) for row in rows]}


# --- POST /auth/credentials/{id}/challenge ---------------------------------------------------


@router.post(
    "/auth/credentials/{credential_id}/challenge",
    response_model=PasskeyChallengeOut | AuthMethodWithBundle,
    response_model_exclude_none=True,
)
def challenge_credential(
    credential_id: CredentialId,
    session: Db,
    services: Svc,
    body: ChallengeBody | None = None,
) -> dict[str, Any]:
    """PASSKEY: a login challenge binding ``clientPublicKey``. EMAIL_OTP: a fresh code by email
    (429 with ``Retry-After`` when asked too often). OAUTH has no challenge."""
    credential = find_credential(session, credential_id)
    if credential.type == "EMAIL_OTP":
        bundle = _send_code(session, services, credential)
        return {**auth_method_body(credential), "otpEncryptionTargetBundle": bundle}
    if credential.type == "OAUTH":
        raise ApiError(
            400,
            "INVALID_INPUT",
            "OAUTH credentials have no challenge: call verify with a fresh OIDC token.",
        )
    client_key = _required(body.clientPublicKey if body else None, "clientPublicKey", "PASSKEY")
    data = session.get(PasskeyData, credential.id)
    assert data is not None
    pending = passkeys.issue_session_challenge(
        client_public_key=client_key,
        organization_id=services.organization_id,
        account_id=credential.account_id,
    )
    expires_at = services.clock.later(CHALLENGE_SECONDS)
    session.add(
        PasskeyChallenge(
            request_id=pending.request_id,
            auth_method_id=credential.id,
            body=pending.body,
            expires_at=expires_at,
            used=False,
        )
    )
    session.commit()
    return {
        **auth_method_body(credential),
        **pending.to_response(),
        "credentialId": data.credential_id,
        "expiresAt": iso(expires_at),
    }


# --- POST /auth/credentials/{id}/verify ------------------------------------------------------


def _verify_passkey(
    session: Session, services: Services, credential: AuthMethod, body: VerifyBody, request: Request
) -> str:
    assertion = _required(body.assertion, "assertion", "PASSKEY")
    request_id = request.headers.get("Request-Id")
    if not request_id:
        raise ApiError(
            401, "UNAUTHORIZED", "A PASSKEY verify needs the Request-Id header from /challenge."
        )
    pending = session.get(PasskeyChallenge, request_id[:200])
    if pending is None or pending.auth_method_id != credential.id:
        raise ApiError(401, "UNAUTHORIZED", "The Request-Id is unknown for this credential.")
    if pending.used:
        raise ApiError(401, "UNAUTHORIZED", "The Request-Id has already been used.")
    if services.clock.now() >= pending.expires_at:
        raise ApiError(401, "UNAUTHORIZED", "The passkey challenge has expired; ask for a new one.")
    data = session.get(PasskeyData, credential.id)
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
    claimed = session.execute(
        update(PasskeyChallenge)
        .where(PasskeyChallenge.request_id == request_id, PasskeyChallenge.used.is_(False))
        .values(used=True)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        session.rollback()
        raise ApiError(401, "UNAUTHORIZED", "The Request-Id has already been used.")
    data.sign_count = max(data.sign_count, verified.assertion.new_sign_count)
    session.commit()
    return verified.client_public_key


def _encrypted_otp_login(
    session: Session,
    services: Services,
    credential: AuthMethod,
    encrypted_otp_bundle: str,
    request: Request,
) -> dict[str, str] | str:
    """The encrypted EMAIL_OTP login. Leg one (no signature headers): open the bundle with the
    credential's target key (used once), check the code, answer the 202 whose payloadToSign is
    the verification token bound to the key sealed in the bundle. Leg two: the retry stamped by
    exactly that key; returns it (compressed hex), the new session's key."""
    headers = retry_headers(request)
    if headers.present:
        done = services.otp_login.complete(
            request_id=headers.request_id, stamp=headers.stamp, account_id=credential.account_id
        )
        return done.session_public_key
    target = session.get(OtpTarget, credential.id)
    if target is None:
        raise ApiError(
            401,
            "UNAUTHORIZED",
            "No code is outstanding for an encrypted login; ask for one with /challenge.",
        )
    target_key = KeyPair.from_private_hex(target.private_key)
    answer = services.otp_login.accept_code(
        encrypted_otp_bundle=encrypted_otp_bundle,
        target_key=target_key,
        credential_id=credential.id,
        account_id=credential.account_id,
        organization_id=services.organization_id,
        contact=credential.nickname,
    )
    session.delete(target)
    session.commit()
    return answer.to_response()


@router.post(
    "/auth/credentials/{credential_id}/verify",
    response_model=SessionOut,
    response_model_exclude_none=True,
    responses={202: {"model": SignedRequestChallengeOut}},
)
def verify_credential(
    credential_id: CredentialId, body: VerifyBody, request: Request, session: Db, services: Svc
) -> Any:
    """Verify a credential and open a session (``encryptedSessionSigningKey`` for an
    uncompressed ``clientPublicKey``, delivered once)."""
    credential = find_credential(session, credential_id)
    if body.type.value != credential.type:
        raise ApiError(
            400, "INVALID_INPUT", f"The credential is {credential.type}, not {body.type.value}."
        )
    if credential.type == "PASSKEY":
        client_key = _verify_passkey(session, services, credential, body, request)
    elif credential.type == "EMAIL_OTP" and body.encryptedOtpBundle is not None:
        answer = _encrypted_otp_login(
            session, services, credential, body.encryptedOtpBundle, request
        )
        if isinstance(answer, dict):
            return JSONResponse(answer, status_code=202)
        client_key = answer
    else:
        client_key = _required(body.clientPublicKey, "clientPublicKey", credential.type)
        if credential.type == "EMAIL_OTP":
            services.otp.verify(credential.id, _required(body.otp, "otp", "EMAIL_OTP"))
        else:
            identity = oidc.verify_id_token(
                _required(body.oidcToken, "oidcToken", "OAUTH"),
                jwks=services.oidc_keys,
                audience=services.oidc_audiences,
                issuers=services.oidc_issuers,
                client_public_key=client_key,
                sandbox=services.environment,
            )
            if not identity.sandbox and f"{identity.issuer} {identity.subject}" != (
                credential.subject
            ):
                raise ApiError(401, "UNAUTHORIZED", "Invalid OIDC token")
    return issue_session(session, services, credential, client_key)


# --- DELETE /auth/credentials/{id} -----------------------------------------------------------


@router.delete(
    "/auth/credentials/{credential_id}",
    status_code=204,
    responses={202: {"model": SignedRequestChallengeOut}},
)
def delete_credential(
    credential_id: CredentialId, request: Request, session: Db, services: Svc
) -> Response:
    """Revoke a credential by signed retry, signed by a session of a different credential of
    the account; the account keeps at least one credential (400 otherwise). The credential's
    sessions end with it."""
    credential = find_credential(session, credential_id)
    ensure_credential_remains(list(credential_ids(session, credential.account_id)), credential.id)
    step = signed_step(
        session,
        services,
        request,
        account_id=credential.account_id,
        operation=Operation.REVOKE_CREDENTIAL,
        parameters={"authenticatorIds": [credential.id], "userId": credential.account_id},
        credential_type=credential.type,
    )
    if not isinstance(step, VerifiedRetry):
        return JSONResponse(step, status_code=202)
    # Decided again under the account's lock, in the transaction that deletes the credential:
    # of two credentials revoking each other at once, the later one finds it is the last.
    lock_account(session, credential.account_id)
    remaining = credential_ids(session, credential.account_id)
    if credential.id not in remaining:
        raise ApiError(404, "NOT_FOUND", "No credential has this id.")
    ensure_credential_remains(list(remaining), credential.id)
    ensure_signer_active(session, services, credential.account_id, step)
    session.execute(
        update(WalletSession)
        .where(WalletSession.auth_method_id == credential.id)
        .values(revoked=True, updated_at=services.clock.now())
    )
    passkey = session.get(PasskeyData, credential.id)
    if passkey is not None:
        session.delete(passkey)
    session.delete(credential)
    session.commit()
    return Response(status_code=204)
