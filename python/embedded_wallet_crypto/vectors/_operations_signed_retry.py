"""The ``signed_retry_scenario`` operation of the vector files (vectors/README.md): a sequence
of issues and verifies on one ``ewc.signed_retry.SignedRetry`` with a fixed clock, run through
the public Python API, each step reported as its 202 body, what it accepted, or its error."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import embedded_wallet_crypto as ewc
from embedded_wallet_crypto.signed_retry import MemoryStore, SignedRetry

from ._inputs import Inputs, MalformedCase, Mismatch, input_bool

# vectors/README.md, "Error codes": the exception class each signed-retry step error comes with.
SIGNED_RETRY_EXCEPTIONS: dict[str, type[ewc.WalletCryptoError]] = {
    "INVALID_PARAMETERS": ewc.SignedRetryError,
    "UNKNOWN_OPERATION": ewc.SignedRetryError,
    "REQUEST_ID_MISSING": ewc.SignedRetryError,
    "REQUEST_ID_UNKNOWN": ewc.SignedRetryError,
    "REQUEST_ID_ACCOUNT_MISMATCH": ewc.SignedRetryError,
    "REQUEST_ID_USED": ewc.SignedRetryError,
    "REQUEST_ID_EXPIRED": ewc.SignedRetryError,
    "CLIENT_PUBLIC_KEY_MISMATCH": ewc.SignedRetryError,
    "SESSION_OF_REVOKED_CREDENTIAL": ewc.SignedRetryError,
    "SESSION_CREDENTIAL_UNKNOWN": ewc.SignedRetryError,
    "WALLET_SIGNATURE_MISSING": ewc.StampError,
    "WALLET_SIGNATURE_MALFORMED": ewc.StampError,
    "WALLET_SIGNATURE_INVALID": ewc.StampError,
    "WALLET_SIGNATURE_KEY_MISMATCH": ewc.StampError,
    "INVALID_POINT": ewc.InvalidKey,
}
_ISSUE_ARGUMENTS = {
    "account_id",
    "operation",
    "parameters",
    "organization_id",
    "bound_client_public_key",
    "credential_type",
}
_VERIFY_ARGUMENTS = {
    "request_id",
    "stamp",
    "account_session_keys",
    "request_body_client_public_key",
    "account_id",
}


def _arguments(step: Mapping[str, Any], action: str, names: set[str]) -> dict[str, Any]:
    arguments = step[action]
    if not isinstance(arguments, dict) or not set(arguments) <= names:
        raise MalformedCase(f"a {action} step takes an object with keys among {sorted(names)}")
    return arguments


def _run_step(retry: SignedRetry, step: Mapping[str, Any]) -> dict[str, Any]:
    if "issue" in step:
        challenge = retry.issue(**_arguments(step, "issue", _ISSUE_ARGUMENTS))
        return {"challenge": challenge.to_response()}
    if "verify" in step:
        verified = retry.verify(**_arguments(step, "verify", _VERIFY_ARGUMENTS))
        return {
            "verified": {
                "request_id": verified.request_id,
                "account_id": verified.account_id,
                "operation": verified.operation.name,
                "session_public_key": verified.session_public_key,
                "session_credential_id": verified.session_credential_id,
            }
        }
    raise MalformedCase("a step is either an 'issue' or a 'verify'")


def _signed_retry_scenario(inputs: Inputs) -> dict[str, Any]:
    steps, request_ids = inputs.get("steps"), inputs.get("request_ids")
    ttl_seconds = inputs.get("ttl_seconds")
    if not isinstance(steps, list) or not isinstance(request_ids, list):
        raise MalformedCase("inputs 'steps' and 'request_ids' must be arrays")
    if not isinstance(ttl_seconds, int):
        raise MalformedCase("input 'ttl_seconds' must be an integer")
    pending_ids = iter(request_ids)

    def next_request_id() -> str:
        request_id = next(pending_ids, None)
        if not isinstance(request_id, str):
            raise MalformedCase("more successful issues than 'request_ids'")
        return request_id

    now_ms = 0
    retry = SignedRetry(
        MemoryStore(),
        ttl_seconds=ttl_seconds,
        clock=lambda: now_ms / 1000,
        id_factory=next_request_id,
        sandbox=input_bool(inputs, "sandbox"),
    )
    outcomes = []
    for step in steps:
        if not isinstance(step, dict) or not isinstance(step.get("now_ms"), int):
            raise MalformedCase("every step needs an integer 'now_ms'")
        now_ms = step["now_ms"]
        try:
            outcomes.append(_run_step(retry, step))
        except ewc.WalletCryptoError as error:
            family = SIGNED_RETRY_EXCEPTIONS.get(error.code, ewc.WalletCryptoError)
            if not isinstance(error, family):
                raise Mismatch(
                    f"{error.code} must be raised as {family.__name__}, not {type(error).__name__}"
                ) from None
            outcomes.append({"error": error.code, "status": error.status})
    return {"outcomes": outcomes}


SIGNED_RETRY_OPERATIONS: dict[str, Callable[[Inputs], dict[str, Any]]] = {
    "signed_retry_scenario": _signed_retry_scenario,
}
