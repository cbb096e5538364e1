"""signed_retry.json: scenarios of the server's two-step protocol (``ewc.signed_retry``).

Each case is a sequence of steps on one ``SignedRetry`` with a ``MemoryStore``: a fixed clock
(``now_ms`` per step), fixed keys (RFC 9180 DeriveKeyPair), request ids taken in order from
``request_ids`` by each successful issue, and stamps written by ``_stamp_writer`` (RFC 6979,
independent of the library). The expected outcome of every step is written out here: the 202
body of an issue (formats.md section 5), what a verify accepted, or the error code and status.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import datetime, timezone
from typing import Any

from ._common import Case, case, vector_file
from ._signed_retry_operations import (
    CLIENT,
    CREDENTIAL_TYPE,
    CREDENTIALS,
    OPERATIONS,
    OTHER_CLIENT,
    SESSION_A,
    SESSION_B,
    STRANGER,
    public_hex,
)
from ._stamp_writer import SANDBOX_STAMP, compact_json, encode_stamp, stamp_fields

DESCRIPTION = (
    "The signed-retry protocol (service interface, Authentication rule 8; formats.md sections 4, "
    "5 and 11) as scenarios with a fixed clock: the payloadToSign of every operation, one "
    "accepted retry per challenge, and every rejection with its code and HTTP status: missing "
    "Request-Id or stamp, unknown, expired or reused request ids, a stamp over other bytes or "
    "by a key that is not a session of the account, a swapped clientPublicKey, another "
    "account, and revoking a credential with one of its own sessions."
)
OPERATION = "signed_retry_scenario"
T0 = 1_700_000_000_000
TTL_SECONDS = 300
ORG = "org-vectors"
ACCOUNT = "InternalAccount:vectors"
INVALID_POINT_KEY = "04" + "00" * 64

Step = dict[str, Any]


def _sessions() -> dict[str, str]:
    return {public_hex(label): credential for label, credential in CREDENTIALS.items()}


def request_id(label: str) -> str:
    digest = hashlib.sha256(f"embedded-wallet-crypto signed retry {label}".encode()).digest()
    return f"Request:{uuid.UUID(bytes=digest[:16], version=4)}"


def _iso(milliseconds: int) -> str:
    moment = datetime.fromtimestamp(milliseconds // 1000, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{milliseconds % 1000:03d}Z"


class Scenario:
    """Builds one case: each step's inputs together with its expected outcome."""

    def __init__(self, case_id: str, comment: str, *, sandbox: bool = False) -> None:
        self.case_id, self.comment, self.sandbox = case_id, comment, sandbox
        self.steps: list[Step] = []
        self.outcomes: list[dict[str, Any]] = []
        self.request_ids: list[str] = []
        self.payloads: dict[str, str] = {}
        self.bound: dict[str, str | None] = {}

    def issue(self, operation: str, *, at: int = 0, label: str | None = None) -> str:
        """A valid issue at ``T0 + at``; returns the request id it receives."""
        activity, parameters, fixed_type, binds = OPERATIONS[operation]
        client = public_hex(CLIENT) if binds else None
        credential_type = CREDENTIAL_TYPE.get(operation)
        body = {
            "organizationId": ORG,
            "parameters": {**parameters, **({"targetPublicKey": client} if client else {})},
            "timestampMs": str(T0 + at),
            "type": activity,
        }
        payload = json.dumps(body, separators=(",", ":"), sort_keys=True)
        rid = request_id(f"{self.case_id}/{label or len(self.request_ids)}")
        self.request_ids.append(rid)
        self.payloads[rid], self.bound[rid] = payload, client
        self._issue_step(at, operation, parameters, client, credential_type)
        expires_at = _iso(T0 + at + TTL_SECONDS * 1000)
        response = {"payloadToSign": payload, "requestId": rid, "expiresAt": expires_at}
        challenge_type = fixed_type or credential_type
        if challenge_type is not None:
            response["type"] = challenge_type
        self.outcomes.append({"challenge": response})
        return rid

    def issue_fails(self, code: str, operation: str, *, status: int = 400, **changes: Any) -> None:
        _, parameters, _, binds = OPERATIONS.get(operation, ("", {}, None, False))
        arguments = {
            "parameters": parameters,
            "client": public_hex(CLIENT) if binds else None,
            "credential_type": None,
            **changes,
        }
        self._issue_step(0, operation, **arguments)
        self.outcomes.append({"error": code, "status": status})

    def _issue_step(
        self,
        at: int,
        operation: str,
        parameters: dict[str, Any],
        client: str | None,
        credential_type: str | None,
    ) -> None:
        self.steps.append(
            {
                "now_ms": T0 + at,
                "issue": {
                    "account_id": ACCOUNT,
                    "operation": operation,
                    "parameters": parameters,
                    "organization_id": ORG,
                    "bound_client_public_key": client,
                    "credential_type": credential_type,
                },
            }
        )

    def stamp(self, rid: str, signer: str = SESSION_A, *, payload: str | None = None) -> str:
        signed = (payload if payload is not None else self.payloads[rid]).encode()
        return encode_stamp(compact_json(stamp_fields(signer, signed)))

    def verify(
        self,
        rid: str | None,
        *,
        at: int = 60_000,
        error: str | None = None,
        signer: str = SESSION_A,
        **changes: Any,
    ) -> None:
        """A retry at ``T0 + at``: accepted (``error`` None) or rejected with ``error`` (401)."""
        known = rid in self.payloads
        arguments: dict[str, Any] = {
            "request_id": rid,
            "stamp": self.stamp(rid, signer) if rid is not None and known else None,
            "account_session_keys": _sessions(),
            "request_body_client_public_key": self.bound.get(rid) if rid else None,
            "account_id": ACCOUNT,
        }
        arguments.update(changes)
        self.steps.append({"now_ms": T0 + at, "verify": arguments})
        if error is not None:
            self.outcomes.append({"error": error, "status": 401})
            return
        assert rid is not None
        operation = json.loads(self.payloads[rid])["type"]
        sandbox = arguments["stamp"] == SANDBOX_STAMP
        mapped = isinstance(arguments["account_session_keys"], dict)
        self.outcomes.append(
            {
                "verified": {
                    "request_id": rid,
                    "account_id": ACCOUNT,
                    "operation": next(n for n, o in OPERATIONS.items() if o[0] == operation),
                    "session_public_key": "" if sandbox else public_hex(signer, compressed=True),
                    "session_credential_id": CREDENTIALS[signer]
                    if mapped and not sandbox
                    else None,
                }
            }
        )

    def build(self) -> Case:
        inputs = {
            "ttl_seconds": TTL_SECONDS,
            "sandbox": self.sandbox,
            "request_ids": self.request_ids,
            "steps": self.steps,
        }
        expected = {"outcomes": self.outcomes}
        return case(self.case_id, OPERATION, inputs, expected=expected, comment=self.comment)


def _operation_cases() -> list[Case]:
    cases = []
    for operation in OPERATIONS:
        scenario = Scenario(
            f"{operation.lower().replace('_', '-')}-once",
            f"{operation}: the payloadToSign of formats.md section 5, one accepted retry, then "
            "the same retry again is REQUEST_ID_USED",
        )
        rid = scenario.issue(operation)
        scenario.verify(rid)
        scenario.verify(rid, at=61_000, error="REQUEST_ID_USED")
        cases.append(scenario.build())
    return cases


def _pairing_and_lifetime_cases() -> list[Case]:
    missing_id = Scenario(
        "stamp-without-request-id",
        "a stamp without its Request-Id, then without a stamp, then neither; the id stays usable",
    )
    rid = missing_id.issue("EXPORT_WALLET")
    missing_id.verify(None, error="REQUEST_ID_MISSING", stamp=missing_id.stamp(rid))
    missing_id.verify(rid, error="WALLET_SIGNATURE_MISSING", stamp=None)
    missing_id.verify(None, error="WALLET_SIGNATURE_MISSING", stamp=None)
    missing_id.verify(rid)

    unknown = Scenario("unknown-request-id", "a Request-Id that was never issued")
    rid = unknown.issue("REVOKE_SESSION")
    never = request_id("never issued")
    unknown.verify(never, error="REQUEST_ID_UNKNOWN", stamp=unknown.stamp(rid))

    expired = Scenario(
        "expiry-is-exclusive",
        "a retry 1 ms before expiresAt is accepted; one at expiresAt is REQUEST_ID_EXPIRED",
    )
    late = expired.issue("EXPORT_WALLET", label="late")
    on_time = expired.issue("EXPORT_WALLET", label="on-time")
    expired.verify(late, at=TTL_SECONDS * 1000, error="REQUEST_ID_EXPIRED")
    expired.verify(on_time, at=TTL_SECONDS * 1000 - 1)
    expired.verify(late, at=TTL_SECONDS * 1000 + 1, error="REQUEST_ID_EXPIRED")
    return [missing_id.build(), unknown.build(), expired.build()]


def _signature_cases() -> list[Case]:
    other_bytes = Scenario(
        "stamp-over-other-bytes",
        "stamps over the payload changed by one byte and by whitespace are "
        "WALLET_SIGNATURE_INVALID, a malformed stamp is WALLET_SIGNATURE_MALFORMED; none of "
        "them consumes the request id",
    )
    rid = other_bytes.issue("EXPORT_WALLET")
    payload = other_bytes.payloads[rid]
    one_byte = payload.replace(ORG, ORG[:-1] + "S")
    spaced = json.dumps(json.loads(payload), sort_keys=True)
    for changed in (one_byte, spaced):
        stamp = other_bytes.stamp(rid, payload=changed)
        other_bytes.verify(rid, error="WALLET_SIGNATURE_INVALID", stamp=stamp)
    other_bytes.verify(rid, error="WALLET_SIGNATURE_MALFORMED", stamp="bm90IGEgc3RhbXA")
    other_bytes.verify(rid)

    stranger = Scenario(
        "stamp-by-a-key-that-is-not-a-session",
        "a valid stamp by a key that is not an active session of the account, then by the "
        "second session (uncompressed keys in a plain list)",
    )
    rid = stranger.issue("REVOKE_SESSION")
    stranger.verify(rid, error="WALLET_SIGNATURE_KEY_MISMATCH", signer=STRANGER)
    listed = [public_hex(SESSION_A, compressed=True), public_hex(SESSION_B)]
    stranger.verify(rid, error="WALLET_SIGNATURE_KEY_MISMATCH", account_session_keys=[])
    stranger.verify(rid, signer=SESSION_B, account_session_keys=listed)

    account = Scenario("request-id-of-another-account", "the Request-Id was issued elsewhere")
    rid = account.issue("EXECUTE_QUOTE")
    account.verify(rid, error="REQUEST_ID_ACCOUNT_MISMATCH", account_id="InternalAccount:other")
    account.verify(rid)
    return [other_bytes.build(), stranger.build(), account.build()]


def _binding_and_credential_cases() -> list[Case]:
    cases = []
    for operation in ("EXPORT_WALLET", "REFRESH_SESSION"):
        swapped = Scenario(
            f"{operation.lower().replace('_', '-')}-client-key-swapped",
            "the retry's clientPublicKey differs from the bound one (another key, none, an "
            "invalid point): CLIENT_PUBLIC_KEY_MISMATCH; the bound key in compressed form is "
            "the same key",
        )
        rid = swapped.issue(operation)
        for body_key in (public_hex(OTHER_CLIENT), None, INVALID_POINT_KEY):
            swapped.verify(
                rid, error="CLIENT_PUBLIC_KEY_MISMATCH", request_body_client_public_key=body_key
            )
        swapped.verify(rid, request_body_client_public_key=public_hex(CLIENT, compressed=True))
        cases.append(swapped.build())

    own = Scenario(
        "revoke-credential-with-its-own-session",
        "revoking AuthMethod:b with a session of AuthMethod:b is SESSION_OF_REVOKED_CREDENTIAL; "
        "without the key -> credential mapping it is SESSION_CREDENTIAL_UNKNOWN; a session of "
        "AuthMethod:a may",
    )
    rid = own.issue("REVOKE_CREDENTIAL")
    own.verify(rid, error="SESSION_OF_REVOKED_CREDENTIAL", signer=SESSION_B)
    own.verify(
        rid, error="SESSION_CREDENTIAL_UNKNOWN", account_session_keys=[public_hex(SESSION_A)]
    )
    own.verify(rid)
    cases.append(own.build())
    return cases


def _issue_and_sandbox_cases() -> list[Case]:
    issue = Scenario(
        "issue-rejections",
        "issues that fail and take no request id: a missing parameter, export without or with "
        "an invalid clientPublicKey, a key bound to an operation that binds none, an unknown "
        "operation",
    )
    issue.issue_fails("INVALID_PARAMETERS", "ADD_EMAIL_OTP_CREDENTIAL", parameters={"userId": "u"})
    issue.issue_fails("INVALID_PARAMETERS", "EXPORT_WALLET", client=None)
    issue.issue_fails("INVALID_POINT", "EXPORT_WALLET", client=INVALID_POINT_KEY)
    issue.issue_fails("INVALID_PARAMETERS", "REVOKE_SESSION", client=public_hex(CLIENT))
    issue.issue_fails("UNKNOWN_OPERATION", "DELETE_EVERYTHING")
    rid = issue.issue("ADD_EMAIL_OTP_CREDENTIAL")
    issue.verify(rid)

    sandbox = Scenario(
        "sandbox-stamp", "with sandbox on, sandbox-valid-signature is accepted once", sandbox=True
    )
    rid = sandbox.issue("EXPORT_WALLET")
    sandbox.verify(rid, stamp=SANDBOX_STAMP)
    sandbox.verify(rid, error="REQUEST_ID_USED", stamp=SANDBOX_STAMP)

    production = Scenario("sandbox-stamp-in-production", "with sandbox off it is malformed")
    rid = production.issue("EXPORT_WALLET")
    production.verify(rid, error="WALLET_SIGNATURE_MALFORMED", stamp=SANDBOX_STAMP)
    return [issue.build(), sandbox.build(), production.build()]


def build() -> dict[str, Any]:
    cases = (
        _operation_cases()
        + _pairing_and_lifetime_cases()
        + _signature_cases()
        + _binding_and_credential_cases()
        + _issue_and_sandbox_cases()
    )
    return vector_file(DESCRIPTION, cases)
