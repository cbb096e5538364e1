"""``SignedRetry``: the server's two-step signed-retry protocol (service interface,
Authentication rule 8; formats.md sections 4, 5 and 11).

Leg one, :meth:`SignedRetry.issue`, stores the exact ``payloadToSign`` under a fresh
``Request:<uuid4>`` and returns the 202 challenge. Leg two, :meth:`SignedRetry.verify`, checks
the retry's ``Request-Id`` and ``Service-Wallet-Signature`` against the stored record and then
claims the id. Every check runs before the claim, so a rejected retry (a bad signature, a
swapped client key, a key that is not a session of the account) leaves the id usable until it
expires; the claim itself is atomic in the store, so of any number of concurrent valid retries,
also from other processes or hosts sharing the store, exactly one is accepted.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from .._types import KeyLike
from ..errors import StampError
from ..keys import compress_public_key, key_text
from ..policy import Environment
from ..stamps import verify_stamp
from ..stores import ChallengeRecord, MemoryStore
from ..stores import ChallengeStore as Store
from ._checks import (
    check_bound_key,
    check_lifetimes,
    check_other_credential,
    check_payload_request,
    check_same_request,
    check_usable,
    empty,
    expected_request,
    fail,
    is_unicode,
    session_credential,
    stored_request,
)
from ._credentials import SessionKeys
from ._operations import (
    Operation,
    checked_parameters,
    credential_type_for,
    payload_json,
    resolve_operation,
)
from ._results import (
    PayloadChallenge,
    SignedRequestChallenge,
    VerifiedPayload,
    VerifiedRetry,
    utc,
)

__all__ = ["SIGNED_PAYLOAD", "SignedRetry"]

_MAX_REQUEST_ID_LENGTH = 200
#: The ``operation`` stored for a challenge over a caller-given payload (not an Operation name).
SIGNED_PAYLOAD = "SIGNED_PAYLOAD"


def _new_request_id() -> str:
    return f"Request:{uuid.uuid4()}"


class SignedRetry:
    """Issue and verify signed retries.

    Args:
        store: where challenges live between the legs (default: a new :class:`MemoryStore`).
        ttl_seconds: the life of a challenge (``expiresAt`` is issue time plus this).
        clock: the current time in seconds since the epoch.
        keep_expired_seconds: how long a store keeps a record after it expires, so that a late
            retry is told ``REQUEST_ID_EXPIRED`` rather than ``REQUEST_ID_UNKNOWN``.
        id_factory: makes request ids; only known-answer vectors replace ``Request:<uuid4>``.
        sandbox: also accept the interface's ``sandbox-valid-signature`` stamp.
    """

    def __init__(
        self,
        store: Store | None = None,
        *,
        ttl_seconds: float = 300,
        clock: Callable[[], float] = time.time,
        keep_expired_seconds: float = 300,
        id_factory: Callable[[], str] = _new_request_id,
        sandbox: bool | Environment | None = None,
    ) -> None:
        check_lifetimes(ttl_seconds, keep_expired_seconds)
        self.store: Store = store if store is not None else MemoryStore()
        self.ttl_seconds = ttl_seconds
        self._ttl_ms = max(1, round(ttl_seconds * 1000))
        self._keep_seconds = ttl_seconds + keep_expired_seconds
        self._clock = clock
        self._id_factory = id_factory
        self.sandbox = sandbox

    def _now_ms(self) -> int:
        return round(self._clock() * 1000)

    def issue(
        self,
        *,
        account_id: str,
        operation: Operation | str,
        parameters: Mapping[str, Any],
        organization_id: str,
        bound_client_public_key: KeyLike | None = None,
        credential_type: str | None = None,
    ) -> SignedRequestChallenge:
        """Leg one: build and store the ``payloadToSign`` (formats.md section 5).

        Args:
            account_id: the internal account the retry must come from.
            operation: an :class:`Operation` or its name.
            parameters: the payload's parameters, named as in formats.md section 5. For export
                and refresh, ``targetPublicKey`` is set to ``bound_client_public_key``.
            organization_id: the payload's ``organizationId``.
            bound_client_public_key: the request body's ``clientPublicKey``; required for
                export and refresh, refused for the others. Kept as given, in lowercase.
            credential_type: the challenge's ``type`` (OAUTH, EMAIL_OTP, SMS_OTP, PASSKEY) for
                revoking a credential or a session; fixed by the operation when adding a credential.

        Raises:
            SignedRetryError: ``UNKNOWN_OPERATION`` or ``INVALID_PARAMETERS`` (400).
            InvalidKey: ``bound_client_public_key`` is not a valid P-256 key.
        """
        op = resolve_operation(operation)
        for name, value in (("account_id", account_id), ("organization_id", organization_id)):
            if not isinstance(value, str) or not value:
                raise fail(f"{name} must be a non-empty string", "INVALID_PARAMETERS", 400)
        bound = None if bound_client_public_key is None else key_text(bound_client_public_key)
        challenge_type = credential_type_for(op, credential_type)
        checked = checked_parameters(op, parameters, bound)
        now_ms = self._now_ms()
        payload = payload_json(op, checked, organization_id, now_ms)
        record = ChallengeRecord(
            request_id=self._id_factory(),
            account_id=account_id,
            operation=op.name,
            credential_type=challenge_type,
            payload_to_sign=payload,
            bound_client_public_key=bound,
            expires_at_ms=now_ms + self._ttl_ms,
        )
        self.store.put(record, self._keep_seconds)
        return SignedRequestChallenge(
            payload_to_sign=payload,
            request_id=record.request_id,
            expires_at=utc(record.expires_at_ms),
            type=challenge_type,
            operation=op,
        )

    def issue_payload(
        self,
        *,
        account_id: str,
        payload_to_sign: str,
        signer_public_key: KeyLike,
        credential_type: str | None = None,
    ) -> PayloadChallenge:
        """Leg one over a caller-given payload, for exactly one signer.

        The challenge's ``payloadToSign`` is ``payload_to_sign`` as given (for the OTP login's
        second leg, the verification token); only a stamp by ``signer_public_key`` answers it,
        through :meth:`verify_payload`. The store keeps the payload and the signer with the
        request id: single use, expiring after ``ttl_seconds``, atomic across processes like
        every challenge.

        Args:
            account_id: the internal account the retry is for (checked again when
                :meth:`verify_payload` is given one).
            payload_to_sign: the exact text to stamp (1 to 65536 characters of Unicode text).
            signer_public_key: the one P-256 key (SEC1, hex or bytes) whose stamp is accepted.
            credential_type: the challenge's ``type`` (OAUTH, EMAIL_OTP, SMS_OTP, PASSKEY), or None.

        Raises:
            SignedRetryError: ``INVALID_PARAMETERS`` (400).
            InvalidKey: ``signer_public_key`` is not a valid P-256 key.
        """
        check_payload_request(account_id, payload_to_sign, credential_type)
        signer = compress_public_key(signer_public_key).hex()
        record = ChallengeRecord(
            request_id=self._id_factory(),
            account_id=account_id,
            operation=SIGNED_PAYLOAD,
            credential_type=credential_type,
            payload_to_sign=payload_to_sign,
            bound_client_public_key=None,
            expires_at_ms=self._now_ms() + self._ttl_ms,
            expected_signer=signer,
        )
        self.store.put(record, self._keep_seconds)
        return PayloadChallenge(
            payload_to_sign=payload_to_sign,
            request_id=record.request_id,
            expires_at=utc(record.expires_at_ms),
            type=credential_type,
            signer_public_key=signer,
        )

    def verify_payload(
        self,
        *,
        request_id: str | None,
        stamp: str | None,
        account_id: str | None = None,
    ) -> VerifiedPayload:
        """Leg two of :meth:`issue_payload`: the stamp must be over the stored payload and by
        exactly the expected signer (not any session key of the account); then the request id
        is claimed (single use, atomic across processes sharing the store). The sandbox stamp
        names no key, so it never answers such a challenge.

        Args:
            request_id: the ``Request-Id`` header (None or "" when absent).
            stamp: the ``Service-Wallet-Signature`` header (None or "" when absent).
            account_id: when given, the account the challenge was issued for.

        Returns:
            A :class:`VerifiedPayload`: the payload and its signer (compressed hex).

        Raises:
            StampError: ``WALLET_SIGNATURE_MISSING``, ``WALLET_SIGNATURE_MALFORMED``,
                ``WALLET_SIGNATURE_INVALID`` (not over the stored payload) or
                ``WALLET_SIGNATURE_KEY_MISMATCH`` (by another key), all 401.
            SignedRetryError: ``REQUEST_ID_MISSING``, ``REQUEST_ID_UNKNOWN`` (also a request id
                of an operation challenge, which :meth:`verify` answers),
                ``REQUEST_ID_ACCOUNT_MISMATCH``, ``REQUEST_ID_USED``, ``REQUEST_ID_EXPIRED``
                (all 401); ``STORE_UNAVAILABLE`` (503).
        """
        record, now_ms = self._headers_and_record(request_id, stamp, account_id)
        if record.expected_signer is None:
            raise fail(
                "the request id was issued for an operation, not for a signed payload",
                "REQUEST_ID_UNKNOWN",
            )
        signer = verify_stamp(stamp, record.payload_to_sign)
        if signer.public_key != record.expected_signer:
            raise StampError(
                "the stamp was not made by the key this challenge was issued to",
                "WALLET_SIGNATURE_KEY_MISMATCH",
                401,
            )
        self._claim(record, now_ms)
        return VerifiedPayload(
            request_id=record.request_id,
            account_id=record.account_id,
            type=record.credential_type,
            payload_to_sign=record.payload_to_sign,
            signer_public_key=signer.public_key,
        )

    def _headers_and_record(
        self, request_id: str | None, stamp: str | None, account_id: str | None
    ) -> tuple[ChallengeRecord, int]:
        """The checks every retry starts with: both headers present, the record stored, for
        the account when given, unclaimed and unexpired; returns the record and "now"."""
        if stamp is None or empty(stamp):
            raise StampError(
                "the Service-Wallet-Signature header is missing", "WALLET_SIGNATURE_MISSING", 401
            )
        if request_id is None or empty(request_id):
            raise fail(
                "a Service-Wallet-Signature needs its Request-Id header", "REQUEST_ID_MISSING"
            )
        record = self._stored(request_id)
        if account_id is not None and record.account_id != account_id:
            raise fail(
                "the request id was issued for another account", "REQUEST_ID_ACCOUNT_MISMATCH"
            )
        now_ms = self._now_ms()
        check_usable(record, now_ms)
        return record, now_ms

    def _claim(self, record: ChallengeRecord, now_ms: int) -> None:
        """Claim the id (atomic in the store); a lost claim says why."""
        if not self.store.claim(record.request_id, now_ms):
            latest = self.store.get(record.request_id)
            check_usable(latest if latest is not None else record.as_claimed(), now_ms)
            raise fail("the request id has already been used", "REQUEST_ID_USED")

    def verify(
        self,
        *,
        request_id: str | None,
        stamp: str | None,
        account_session_keys: SessionKeys,
        request_body_client_public_key: KeyLike | None = None,
        account_id: str | None = None,
        expected_operation: Operation | str | None = None,
        expected_parameters: Mapping[str, Any] | None = None,
    ) -> VerifiedRetry:
        """Leg two: check the retry, then claim its request id (single use).

        A server that names the request it is answering (``expected_operation``,
        ``expected_parameters``) has that checked before the claim too, so a request id issued
        for one request never authorizes another (revoking session A's challenge replayed on
        session B): the retry must repeat the request it signed. Either way the result carries
        the operation and the parameters exactly as signed.

        Args:
            request_id: the ``Request-Id`` header (None or "" when absent).
            stamp: the ``Service-Wallet-Signature`` header (None or "" when absent).
            account_session_keys: the public keys (hex, compressed or not) of the account's
                active sessions, or a mapping from each key to the id of the credential that
                issued it. Revoking a credential needs the mapping: the session must belong
                to a credential other than those revoked.
            request_body_client_public_key: the retry body's ``clientPublicKey`` (export and
                refresh); it must be the key bound in leg one.
            account_id: when given, the account the request was issued for.
            expected_operation: when given, the operation (or its name) the request id must
                have been issued for.
            expected_parameters: when given, the parameters it must have been issued with
                (named as in :meth:`issue`; compared as compact sorted JSON). For export and
                refresh ``targetPublicKey`` may be left out: the bound key is checked against
                ``request_body_client_public_key``.

        Returns:
            A :class:`VerifiedRetry`: the operation and parameters as signed, the session.

        Raises:
            StampError: ``WALLET_SIGNATURE_MISSING``, ``WALLET_SIGNATURE_MALFORMED``,
                ``WALLET_SIGNATURE_INVALID`` (not over the stored payload) or
                ``WALLET_SIGNATURE_KEY_MISMATCH`` (not a session key of the account), all 401.
            SignedRetryError: ``REQUEST_ID_MISSING``, ``REQUEST_ID_UNKNOWN``,
                ``REQUEST_ID_ACCOUNT_MISMATCH``, ``REQUEST_ID_USED``, ``REQUEST_ID_EXPIRED``,
                ``REQUEST_MISMATCH`` (issued for another operation or other parameters),
                ``CLIENT_PUBLIC_KEY_MISMATCH``, ``SESSION_OF_REVOKED_CREDENTIAL``,
                ``SESSION_CREDENTIAL_UNKNOWN`` (all 401); ``STORE_UNAVAILABLE`` (503);
                ``UNKNOWN_OPERATION`` or ``INVALID_PARAMETERS`` (400) for an
                ``expected_operation`` or ``expected_parameters`` that is none.
            InvalidKey: a key in ``account_session_keys`` is malformed.
        """
        expected_op = expected_request(expected_operation, expected_parameters)
        record, now_ms = self._headers_and_record(request_id, stamp, account_id)
        if record.expected_signer is not None:
            raise fail(
                "the request id was issued for a signed payload; verify it with verify_payload",
                "REQUEST_ID_UNKNOWN",
            )
        operation, parameters = stored_request(record)
        check_same_request(operation, parameters, expected_op, expected_parameters)
        signer = verify_stamp(stamp, record.payload_to_sign, sandbox=self.sandbox)
        credential_id = None
        if signer.public_key != "":  # "" only for the sandbox stamp, which names no session
            credential_id = session_credential(signer.public_key, account_session_keys)
            if operation is Operation.REVOKE_CREDENTIAL:
                check_other_credential(credential_id, parameters["authenticatorIds"])
        check_bound_key(record, request_body_client_public_key)
        self._claim(record, now_ms)
        return VerifiedRetry(
            request_id=record.request_id,
            account_id=record.account_id,
            operation=operation,
            type=record.credential_type,
            parameters=parameters,
            payload_to_sign=record.payload_to_sign,
            session_public_key=signer.public_key,
            session_credential_id=credential_id,
            bound_client_public_key=record.bound_client_public_key,
        )

    def _stored(self, request_id: str) -> ChallengeRecord:
        record = None
        if (
            isinstance(request_id, str)
            and len(request_id) <= _MAX_REQUEST_ID_LENGTH
            and is_unicode(request_id)  # a lone surrogate was never issued: no store sees it
        ):
            record = self.store.get(request_id)
        if record is None:
            raise fail("the request id is unknown", "REQUEST_ID_UNKNOWN")
        return record
