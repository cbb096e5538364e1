"""Email OTP: the encrypted-OTP envelopes (FORMATS.md section 9) and server-side one-time codes.

Encrypted flow: the server hands out an ``otpEncryptionTargetBundle``, a signed envelope (the
section 8 form) whose data is ``{"targetPublic", "organizationId", "userId"}``; the client checks
it against the pinned signer (by default the TLS-fetcher key), then HPKE-seals
``{"otp_code", "public_key"}`` to ``targetPublic`` and sends
``{"encappedPublic", "ciphertext"}``, JSON encoded once; the server opens it with the target key.

Plain flow (the interface's ``otp`` with ``clientPublicKey``): :class:`OneTimeCodes` issues a
6-digit code from ``secrets``, keeps only an HMAC-SHA256 of it under a server key, verifies in
constant time, allows ``max_attempts`` attempts per code and limits re-issues (``OtpError``
status 429 with ``retry_after`` seconds). ``000000`` is accepted only where
``policy.sandbox_allowed``. State lives in the OTP stores (:class:`MemoryStore`,
:class:`SqliteStore`, :class:`RedisStore`), the same family as ``ewc.signed_retry``'s.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from . import _envelope, hpke
from ._envelope import DATA_MALFORMED, MALFORMED
from ._types import BytesLike, KeyLike
from .errors import EnvelopeError, OtpError, WalletCryptoError
from .keys import KeyPair, parse_public_key
from .policy import Environment, sandbox_allowed
from .stores import CodeStore as OtpStore
from .stores import IssueLimits, MemoryStore, NewCode, RedisStore, SqliteStore

__all__ = [
    "SANDBOX_CODE",
    "TLS_FETCHER_SIGNER_PUBLIC_KEY",
    "IssuedCode",
    "MemoryStore",
    "OneTimeCodes",
    "OtpRateLimited",
    "OtpStore",
    "OtpSubmission",
    "RedisStore",
    "SqliteStore",
    "VerifiedCode",
    "decrypt_otp_bundle",
    "encrypt_otp_code",
    "encrypt_otp_code_deterministic_for_tests",
    "seal_target_bundle",
]

#: The signer of real ``otpEncryptionTargetBundle``s, the TLS-fetcher key (FORMATS.md section 9).
TLS_FETCHER_SIGNER_PUBLIC_KEY = (
    "046b4f88421f76b6ba418afc2ea1d8ced671337d7db6b80478a60d8531bf8f17fa9a512f0fef96fc0c9b4cd9df"
    "f70b34992e520ce04c79d931f6ff6296b547d201"
)
#: The interface's sandbox code, accepted only where ``policy.sandbox_allowed``.
SANDBOX_CODE = "000000"

_TARGET = "OTP target bundle"
_OTP_CODE = re.compile(r"[0-9A-Za-z]{1,64}")


# --- the encrypted flow ----------------------------------------------------------------------


@dataclass(frozen=True)
class OtpSubmission:
    """What the client sealed: the code it typed and the public key to bind (lowercase hex)."""

    otp_code: str = field(repr=False)
    public_key: str


def seal_target_bundle(
    target_public_key: KeyLike,
    *,
    organization_id: str,
    user_id: str,
    signer: KeyPair | None = None,
) -> str:
    """Server: the ``otpEncryptionTargetBundle`` for ``target_public_key``.

    ``signer=None`` writes the sandbox form (empty signature fields), which clients accept only
    with their sandbox opt-in.

    Raises:
        InvalidKey: the target key is malformed.
        EnvelopeError: ``ENVELOPE_PARAMETERS_INVALID`` for an empty organization or user id.
    """
    data = _envelope.compact_json(
        {
            "targetPublic": parse_public_key(target_public_key).hex(),
            "organizationId": _envelope.require_text(organization_id, "organization_id"),
            "userId": _envelope.require_text(user_id, "user_id"),
        }
    )
    return _envelope.build_signed(data, signer)


def _target_key(
    target_bundle: str | BytesLike,
    signer_public_key: KeyLike,
    sandbox: bool | Environment | None,
    organization_id: str | None,
    user_id: str | None,
) -> bytes:
    """Verify a target bundle (version, signer pinned, signature, organization, user) and
    return its target key."""
    document = _envelope.load_json(_envelope.raw_input(target_bundle, f"the {_TARGET}"), _TARGET)
    data = _envelope.open_signed(document, signer_public_key, sandbox, _TARGET)
    what = f"the {_TARGET} data"
    target = _envelope.text_field(data, "targetPublic", what, DATA_MALFORMED)
    signed_organization = _envelope.text_field(data, "organizationId", what, DATA_MALFORMED)
    signed_user = _envelope.text_field(data, "userId", what, DATA_MALFORMED)
    for given, signed, name in (
        (organization_id, signed_organization, "ORGANIZATION"),
        (user_id, signed_user, "USER"),
    ):
        if given is not None and signed != given:
            raise EnvelopeError(
                f"the {_TARGET} was made for another {name.lower()}",
                f"ENVELOPE_{name}_MISMATCH",
                400,
            )
    try:
        return parse_public_key(target)
    except WalletCryptoError:
        raise EnvelopeError(
            f"the {_TARGET}'s targetPublic is not a valid P-256 public key",
            "ENVELOPE_TARGET_KEY_INVALID",
            400,
        ) from None


def _encrypt(
    target_bundle: str | BytesLike,
    otp_code: str,
    client_public_key: KeyLike,
    *,
    signer_public_key: KeyLike,
    sandbox: bool | Environment | None,
    organization_id: str | None,
    user_id: str | None,
    ephemeral_key: KeyPair | None = None,
) -> str:
    if not isinstance(otp_code, str) or _OTP_CODE.fullmatch(otp_code) is None:
        raise OtpError("the OTP code must be 1 to 64 ASCII letters or digits", "OTP_MALFORMED", 400)
    parse_public_key(client_public_key)  # the caller's key: InvalidKey when malformed
    public_key = (
        client_public_key.lower()
        if isinstance(client_public_key, str)
        else bytes(client_public_key).hex()
    )
    target = _target_key(target_bundle, signer_public_key, sandbox, organization_id, user_id)
    plaintext = _envelope.compact_json({"otp_code": otp_code, "public_key": public_key})
    if ephemeral_key is None:
        enc, ciphertext = hpke.seal(target, plaintext)
    else:
        enc, ciphertext = hpke.seal_deterministic_for_tests(
            target, plaintext, ephemeral_key=ephemeral_key
        )
    return _envelope.compact_json(
        {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()}
    ).decode()


def encrypt_otp_code(
    target_bundle: str | BytesLike,
    otp_code: str,
    client_public_key: KeyLike,
    *,
    signer_public_key: KeyLike = TLS_FETCHER_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
    organization_id: str | None = None,
    user_id: str | None = None,
) -> str:
    """Client: verify the target bundle, then seal the code and ``client_public_key`` to it.

    Args:
        target_bundle: the ``otpEncryptionTargetBundle`` JSON text.
        otp_code: the code the user typed (ASCII letters and digits).
        client_public_key: the key the verification binds (SEC1 hex or bytes); written as
            lowercase hex in the form given.
        signer_public_key: the pinned signer (default: the TLS-fetcher key).
        sandbox: allow an unsigned (sandbox) target bundle; a signed one is always verified.
        organization_id, user_id: when given, the signed values must equal them.

    Returns:
        The ``encryptedOtpBundle``: JSON ``{"encappedPublic", "ciphertext"}`` (encoded once).

    Raises:
        EnvelopeError: as :func:`ewc.open_export_bundle` for the target bundle, plus
            ``ENVELOPE_USER_MISMATCH`` and ``ENVELOPE_TARGET_KEY_INVALID``.
        OtpError: ``OTP_MALFORMED`` for an empty or non-alphanumeric code.
        InvalidKey: ``client_public_key`` or ``signer_public_key`` is malformed.
    """
    return _encrypt(
        target_bundle,
        otp_code,
        client_public_key,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
        organization_id=organization_id,
        user_id=user_id,
    )


def encrypt_otp_code_deterministic_for_tests(
    target_bundle: str | BytesLike,
    otp_code: str,
    client_public_key: KeyLike,
    *,
    ephemeral_key: KeyPair,
    signer_public_key: KeyLike = TLS_FETCHER_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
    organization_id: str | None = None,
    user_id: str | None = None,
) -> str:
    """:func:`encrypt_otp_code` with a caller-chosen HPKE ephemeral key, for known-answer
    vectors only: reusing an ephemeral key destroys the confidentiality HPKE provides."""
    return _encrypt(
        target_bundle,
        otp_code,
        client_public_key,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
        organization_id=organization_id,
        user_id=user_id,
        ephemeral_key=ephemeral_key,
    )


def decrypt_otp_bundle(
    encrypted_otp_bundle: str | BytesLike, target_key: KeyPair | BytesLike
) -> OtpSubmission:
    """Server: open an ``encryptedOtpBundle`` with the target private key.

    Raises:
        EnvelopeError: ``ENVELOPE_MALFORMED`` (not a JSON object with hex ``encappedPublic`` and
            ``ciphertext``: a bundle JSON-encoded twice included) or ``ENVELOPE_DATA_MALFORMED``
            (the plaintext is not ``{"otp_code", "public_key"}`` with a valid public key).
        DecryptionError: it was not sealed to this target key, or was altered.
    """
    what = "the encryptedOtpBundle"
    document = _envelope.load_json(_envelope.raw_input(encrypted_otp_bundle, what), what)
    enc = _envelope.hex_field(document, "encappedPublic", what, MALFORMED)
    ciphertext = _envelope.hex_field(document, "ciphertext", what, MALFORMED)
    sealed = _envelope.load_json(hpke.open(target_key, enc, ciphertext), what, DATA_MALFORMED)
    otp_code = _envelope.text_field(sealed, "otp_code", f"{what} plaintext", DATA_MALFORMED)
    public_key = _envelope.text_field(sealed, "public_key", f"{what} plaintext", DATA_MALFORMED)
    try:
        parse_public_key(public_key)
    except WalletCryptoError:
        raise EnvelopeError(
            f"{what} binds a public_key that is not a valid P-256 key", DATA_MALFORMED, 400
        ) from None
    return OtpSubmission(otp_code=otp_code, public_key=public_key.lower())


# --- server-side one-time codes --------------------------------------------------------------


class OtpRateLimited(OtpError):
    """Too many codes were issued for a credential: status 429; wait ``retry_after`` seconds
    (the ``Retry-After`` header)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            f"too many one-time codes requested; retry after {retry_after} seconds",
            "OTP_RATE_LIMITED",
            429,
        )
        self.retry_after = retry_after


@dataclass(frozen=True)
class IssuedCode:
    """A code to send to the user (by email); the store keeps only its keyed hash."""

    credential_id: str
    code: str = field(repr=False)
    expires_at: datetime


@dataclass(frozen=True)
class VerifiedCode:
    """An accepted code. ``sandbox`` is True for the sandbox ``000000``."""

    credential_id: str
    sandbox: bool


def _invalid(reason: str = "Invalid OTP code", code: str = "OTP_INVALID") -> OtpError:
    return OtpError(reason, code, 401)


_ATTEMPT_FAILURES = {
    "not_issued": ("no one-time code is outstanding for this credential", "OTP_NOT_ISSUED"),
    "used": ("the one-time code has already been used", "OTP_USED"),
    "expired": ("the one-time code has expired", "OTP_EXPIRED"),
    "exhausted": ("too many wrong attempts; request a new code", "OTP_ATTEMPTS_EXCEEDED"),
}


class OneTimeCodes:
    """Issue and verify the plain flow's one-time codes.

    Args:
        store: where codes live (default: a new :class:`MemoryStore`).
        hash_key: the server's secret HMAC key (at least 16 bytes); only
            HMAC-SHA256(key, credential, issue id, code) is stored.
        ttl_seconds: the life of a code.
        max_attempts: verification attempts per code, the right one included.
        min_reissue_interval_seconds, max_issues, issue_window_seconds: re-issue limits (at
            most ``max_issues`` codes per window, and one per interval).
        clock: seconds since the epoch.
        sandbox: accept ``000000`` (see ``ewc.policy``; None means the process default).
    """

    def __init__(
        self,
        store: OtpStore | None = None,
        *,
        hash_key: bytes,
        ttl_seconds: float = 300,
        max_attempts: int = 5,
        min_reissue_interval_seconds: float = 30,
        max_issues: int = 5,
        issue_window_seconds: float = 3600,
        clock: Callable[[], float] = time.time,
        sandbox: bool | Environment | None = None,
    ) -> None:
        if not isinstance(hash_key, (bytes, bytearray)) or len(hash_key) < 16:
            raise OtpError("hash_key must be at least 16 secret bytes", "INVALID_PARAMETERS", 500)
        if not (ttl_seconds > 0 and max_attempts >= 1 and max_issues >= 1):
            raise OtpError("ttl, attempts and issues must be positive", "INVALID_PARAMETERS", 500)
        self.store: OtpStore = store if store is not None else MemoryStore()
        self._hash_key = bytes(hash_key)
        self._ttl_ms = max(1, round(ttl_seconds * 1000))
        self.max_attempts = max_attempts
        window_ms = round(issue_window_seconds * 1000)
        self._limits = IssueLimits(
            min_interval_ms=round(min_reissue_interval_seconds * 1000),
            window_ms=window_ms,
            max_issues=max_issues,
            forget_after_ms=max(window_ms, self._ttl_ms),
        )
        self._clock = clock
        self.sandbox = sandbox

    def _hash(self, credential_id: str, issue_id: str, code: str) -> str:
        message = b"\x00".join(
            (b"ewc-otp-v1", credential_id.encode(), issue_id.encode(), code.encode())
        )
        return hmac.new(self._hash_key, message, hashlib.sha256).hexdigest()

    @staticmethod
    def _credential(credential_id: str) -> str:
        if not isinstance(credential_id, str) or not 0 < len(credential_id) <= 200:
            raise OtpError(
                "credential_id must be a string of 1 to 200 characters", "INVALID_PARAMETERS", 400
            )
        return credential_id

    def issue(self, credential_id: str) -> IssuedCode:
        """A fresh code for the credential, replacing any outstanding one.

        Raises:
            OtpRateLimited: ``OTP_RATE_LIMITED`` (429) with ``retry_after`` seconds.
            OtpError: ``STORE_UNAVAILABLE`` (503).
        """
        credential_id = self._credential(credential_id)
        code = f"{secrets.randbelow(10**6):06d}"
        issue_id = uuid.uuid4().hex
        now_ms = round(self._clock() * 1000)
        expires_at_ms = now_ms + self._ttl_ms
        new = NewCode(self._hash(credential_id, issue_id, code), issue_id, expires_at_ms)
        wait_ms = self.store.issue(credential_id, new, now_ms, self._limits)
        if wait_ms:
            raise OtpRateLimited(max(1, math.ceil(wait_ms / 1000)))
        expires_at = datetime.fromtimestamp(expires_at_ms / 1000, tz=timezone.utc)
        return IssuedCode(credential_id=credential_id, code=code, expires_at=expires_at)

    def verify(self, credential_id: str, code: str) -> VerifiedCode:
        """Check a submitted code; a right code is accepted once.

        Raises:
            OtpError (401): ``OTP_INVALID`` (reason "Invalid OTP code"), ``OTP_NOT_ISSUED``,
                ``OTP_USED``, ``OTP_EXPIRED``, ``OTP_ATTEMPTS_EXCEEDED``; ``STORE_UNAVAILABLE``
                (503).
        """
        credential_id = self._credential(credential_id)
        if sandbox_allowed(self.sandbox) and code == SANDBOX_CODE:  # a bad sandbox: every call
            return VerifiedCode(credential_id=credential_id, sandbox=True)
        if not isinstance(code, str) or len(code) != 6 or not (code.isascii() and code.isdigit()):
            raise _invalid()
        status, state = self.store.attempt(
            credential_id, round(self._clock() * 1000), self.max_attempts
        )
        if status != "ok" or state is None:
            raise _invalid(*_ATTEMPT_FAILURES.get(status, _ATTEMPT_FAILURES["not_issued"]))
        candidate = self._hash(credential_id, state.issue_id, code)
        if not hmac.compare_digest(candidate.encode(), state.code_hash.encode()):
            raise _invalid()
        if not self.store.consume(credential_id, state.issue_id):
            raise _invalid(*_ATTEMPT_FAILURES["used"])
        return VerifiedCode(credential_id=credential_id, sandbox=False)
