"""The OTP login with its second leg (formats.md sections 9 and 14): the server's side.

Leg one, :meth:`OtpLogin.accept_code`: open the client's ``encryptedOtpBundle`` with the OTP
target key, check the code (:class:`OneTimeCodes`), mint a verification token bound to the
client's target encryption key (the TEK, the bundle's ``public_key``), and issue a signed-retry
challenge whose ``payloadToSign`` is that token and which only the TEK may stamp (the 202
answer). Leg two, :meth:`OtpLogin.complete`: accept the stamped retry (single use, before it
expires, by exactly the TEK), check the token again, and hand back the TEK as the new
session's key (the client-held-key flow of formats.md section 2: nothing is sealed to the
client).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from .._types import BytesLike
from ..errors import InvalidKey, StampError
from ..keys import KeyPair, compress_public_key
from ._codes import OneTimeCodes
from ._encrypted import decrypt_otp_bundle

if TYPE_CHECKING:
    from ..signed_retry import PayloadChallenge, SignedRetry
    from ..tokens import VerificationToken

__all__ = ["OtpLogin", "OtpLoginChallenge", "OtpLoginSession"]


@dataclass(frozen=True)
class OtpLoginChallenge:
    """Leg one's answer: a 202 with ``challenge.to_response()`` as its body.

    Attributes:
        challenge: the signed-retry challenge; its ``payload_to_sign`` is the verification
            token, and only ``target_public_key`` may stamp it.
        verification_token: the minted token (the same text as ``payload_to_sign``).
        target_public_key: the client's TEK, compressed hex.
        credential_id: the credential whose code was accepted.
        sandbox: True when the sandbox code ``000000`` was accepted.
    """

    challenge: PayloadChallenge
    verification_token: str
    target_public_key: str
    credential_id: str
    sandbox: bool

    def to_response(self) -> dict[str, str]:
        """The 202 body: the interface's SignedRequestChallenge."""
        return self.challenge.to_response()


@dataclass(frozen=True)
class OtpLoginSession:
    """Leg two's result: what the server needs to create the session.

    Attributes:
        account_id: the account the login is for.
        session_public_key: the new session's key, the client's TEK (compressed hex); the
            client already holds its private half, so nothing is sealed to it.
        verification: the checked verification token (its ``id``, ``contact``,
            ``organization_id``, ``expires_at`` ...).
        request_id: the signed-retry request id that was used up.
    """

    account_id: str
    session_public_key: str
    verification: VerificationToken
    request_id: str


class OtpLogin:
    """The server's OTP login with the second leg, over one :class:`OneTimeCodes` and one
    :class:`~embedded_wallet_crypto.signed_retry.SignedRetry` (give both the same store to
    share it across processes).

    Args:
        codes: the code service that issued the code (its ``verify`` checks it once).
        signed_retry: the engine that issues and verifies the challenge; its ``ttl_seconds``
            is also the verification token's life, and its clock the token's time.
        token_signer: the key that signs verification tokens (the server's own; clients check
            tokens against its public key).
        verification_type: the token's ``verification_type`` claim.
    """

    def __init__(
        self,
        *,
        codes: OneTimeCodes,
        signed_retry: SignedRetry,
        token_signer: KeyPair,
        verification_type: str = "OTP_TYPE_EMAIL",
    ) -> None:
        from ..signed_retry import SignedRetry

        if not isinstance(codes, OneTimeCodes):
            raise TypeError(f"codes must be a OneTimeCodes, not {type(codes).__name__}")
        if not isinstance(signed_retry, SignedRetry):
            raise TypeError(
                f"signed_retry must be a SignedRetry, not {type(signed_retry).__name__}"
            )
        if not isinstance(token_signer, KeyPair):
            raise TypeError(f"token_signer must be a KeyPair, not {type(token_signer).__name__}")
        if not isinstance(verification_type, str):
            raise TypeError("verification_type must be a str")
        self.codes = codes
        self.signed_retry = signed_retry
        self.token_signer = token_signer
        self.verification_type = verification_type

    def _now(self) -> datetime:
        milliseconds = self.signed_retry._now_ms()
        return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=milliseconds)

    def accept_code(
        self,
        *,
        encrypted_otp_bundle: str | BytesLike,
        target_key: KeyPair | BytesLike,
        credential_id: str,
        account_id: str,
        organization_id: str,
        contact: str,
        credential_type: str = "EMAIL_OTP",
    ) -> OtpLoginChallenge:
        """Leg one: open the bundle, check the code, mint the token, issue the challenge.

        Args:
            encrypted_otp_bundle: the client's ``encryptedOtpBundle``.
            target_key: the OTP target key (its public half went out in the
                ``otpEncryptionTargetBundle``).
            credential_id: the OTP credential the code was sent for.
            account_id: the account that logs in.
            organization_id: the token's ``organization_id``.
            contact: the address the code went to (the token's ``contact``).
            credential_type: ``EMAIL_OTP`` or ``SMS_OTP``, the challenge's ``type``; an
                ``SMS_OTP`` login's token has ``verification_type`` ``OTP_TYPE_SMS``.

        Raises:
            EnvelopeError, DecryptionError: the bundle is malformed or not sealed to
                ``target_key`` (as :func:`decrypt_otp_bundle`).
            OtpError: the code is wrong, used, expired or out of attempts (401, as
                :meth:`OneTimeCodes.verify`); the code is checked before anything is issued.
            TokenError: ``TOKEN_PARAMETERS_INVALID`` for an empty ``organization_id`` or
                ``contact``.
            SignedRetryError: ``INVALID_PARAMETERS`` (400) for an empty ``account_id``.
        """
        from ..tokens import mint_verification_token

        if credential_type not in ("EMAIL_OTP", "SMS_OTP"):
            raise TypeError("credential_type must be EMAIL_OTP or SMS_OTP")
        verification_type = self.verification_type
        if credential_type == "SMS_OTP":
            verification_type = "OTP_TYPE_SMS"
        submission = decrypt_otp_bundle(encrypted_otp_bundle, target_key)
        verified = self.codes.verify(credential_id, submission.otp_code)
        tek = compress_public_key(submission.public_key).hex()
        token = mint_verification_token(
            self.token_signer,
            verification_type=verification_type,
            contact=contact,
            organization_id=organization_id,
            public_key=tek,
            expires_at=self._now() + timedelta(seconds=self.signed_retry.ttl_seconds),
        )
        challenge = self.signed_retry.issue_payload(
            account_id=account_id,
            payload_to_sign=token,
            signer_public_key=tek,
            credential_type=credential_type,
        )
        return OtpLoginChallenge(
            challenge=challenge,
            verification_token=token,
            target_public_key=tek,
            credential_id=verified.credential_id,
            sandbox=verified.sandbox,
        )

    def complete(
        self, *, request_id: str | None, stamp: str | None, account_id: str | None = None
    ) -> OtpLoginSession:
        """Leg two: accept the retry stamped by the TEK and return the new session's key.

        Args:
            request_id: the retry's ``Request-Id`` header.
            stamp: the retry's ``Service-Wallet-Signature`` header.
            account_id: when given, the account the challenge was issued for.

        Raises:
            StampError, SignedRetryError: as
                :meth:`~embedded_wallet_crypto.signed_retry.SignedRetry.verify_payload` (401:
                a stamp by any key but the TEK, a replay, an expired or unknown request id);
                ``WALLET_SIGNATURE_KEY_MISMATCH`` also when the stored token is bound to
                another key than the one that stamped it.
            TokenError: the stored token does not verify with ``token_signer`` or has expired.
        """
        from ..tokens import verify_verification_token

        verified = self.signed_retry.verify_payload(
            request_id=request_id, stamp=stamp, account_id=account_id
        )
        token = verify_verification_token(
            verified.payload_to_sign,
            signer_public_key=self.token_signer.public_key_hex(),
            now=self._now(),
        )
        try:
            bound = compress_public_key(token.public_key).hex()
        except InvalidKey:
            bound = ""
        if bound != verified.signer_public_key:
            raise StampError(
                "the verification token is bound to another key than the one that stamped it",
                "WALLET_SIGNATURE_KEY_MISMATCH",
                401,
            )
        return OtpLoginSession(
            account_id=verified.account_id,
            session_public_key=verified.signer_public_key,
            verification=token,
            request_id=verified.request_id,
        )
