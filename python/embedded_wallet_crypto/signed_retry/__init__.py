"""Signed retries (``ewc.signed_retry``): the server's two-step protocol.

Leg one, ``SignedRetry.issue``, returns the 202 ``SignedRequestChallenge`` with the exact
``payloadToSign`` (formats.md section 5); leg two, ``SignedRetry.verify``, accepts the retry's
``Request-Id`` and ``Service-Wallet-Signature`` once, from an active session of the account,
over the stored payload, before ``expiresAt``, with the bound ``clientPublicKey`` unchanged.

Stores: ``MemoryStore`` (default, one process), ``SqliteStore(path)`` (one host, survives
restarts), ``RedisStore(url)`` and ``PostgresStore(dsn)`` (many hosts; the ``redis`` and
``postgres`` extras), from ``ewc.stores``:
the same classes as ``ewc.otp``'s, so one store object can serve both.

``SignedRetry.verify`` can be told the request it answers (``expected_operation``,
``expected_parameters``): a request id issued for one request then never authorizes another.
``build_payload`` writes an operation's ``payloadToSign`` without storing a challenge, for a
server that keeps the payload itself (the sandbox's quotes).

The delegated-key operations (``CREATE_DELEGATED_KEY``, ``ACTIVATE_DELEGATED_KEY``, and
``REVOKE_DELEGATED_KEY``, signed by the delegated key itself) take their parameters from
``delegated_key_user``, ``delegated_key_policies`` and ``delegated_key_revocation``; the
internal-account update (``UPDATE_INTERNAL_ACCOUNT``, wallet privacy) from
``internal_account_update``.

A challenge can also be over a caller-given payload for exactly one signer:
``SignedRetry.issue_payload`` (for instance the OTP login's verification token, bound to the
client's target key) and ``SignedRetry.verify_payload``, which accepts a stamp by that key only.
"""

from __future__ import annotations

from ..stores import ChallengeRecord, MemoryStore, PostgresStore, RedisStore, SqliteStore
from ..stores import ChallengeStore as Store
from ._account_update import INTERNAL_ACCOUNT_UPDATE_FIELDS, internal_account_update
from ._credentials import SessionKeys, ensure_credential_remains
from ._delegated import delegated_key_policies, delegated_key_revocation, delegated_key_user
from ._operations import (
    API_KEY_CURVES,
    CREDENTIAL_TYPES,
    MAX_TIMESTAMP_MS,
    POLICY_EFFECTS,
    RAW_PAYLOAD_ENCODINGS,
    RAW_PAYLOAD_HASH_FUNCTIONS,
    Operation,
    build_payload,
)
from ._protocol import SignedRetry
from ._results import PayloadChallenge, SignedRequestChallenge, VerifiedPayload, VerifiedRetry

__all__ = [
    "API_KEY_CURVES",
    "CREDENTIAL_TYPES",
    "INTERNAL_ACCOUNT_UPDATE_FIELDS",
    "MAX_TIMESTAMP_MS",
    "POLICY_EFFECTS",
    "RAW_PAYLOAD_ENCODINGS",
    "RAW_PAYLOAD_HASH_FUNCTIONS",
    "ChallengeRecord",
    "MemoryStore",
    "Operation",
    "PayloadChallenge",
    "PostgresStore",
    "RedisStore",
    "SessionKeys",
    "SignedRequestChallenge",
    "SignedRetry",
    "SqliteStore",
    "Store",
    "VerifiedPayload",
    "VerifiedRetry",
    "build_payload",
    "delegated_key_policies",
    "delegated_key_revocation",
    "delegated_key_user",
    "ensure_credential_remains",
    "internal_account_update",
]
