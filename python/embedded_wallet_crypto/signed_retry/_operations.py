"""The signed-retry operations and their ``payloadToSign`` (formats.md section 5).

Each operation has the activity ``type`` the real infrastructure uses, the ``parameters`` it
needs, the credential type its 202 response reports (service interface, SignedRequestChallenge)
and whether it binds the client's public key (export and refresh: ``parameters.targetPublicKey``).

The delegated-key operations (``POST /auth/delegated-keys``, a three-leg signed retry) are not
spelled out by the published interface, which names only the two activities ("an isolated
signer identity holding the public key, then policies granting that identity signing and
self-revocation authority"); their payloads follow the key infrastructure's own activities for
those steps: ``ACTIVITY_TYPE_CREATE_USERS_V3``, ``ACTIVITY_TYPE_CREATE_POLICIES`` and, for the
revocation the delegated key signs itself, ``ACTIVITY_TYPE_DELETE_USERS``.

The internal-account update (``PATCH /internal-accounts/{id}``, wallet privacy) is the published
example's ``ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2``: the raw payload is the SHA-256 of the update
fields (:func:`internal_account_update`), so a stamp commits to exactly those fields.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .._types import KeyLike
from ..errors import SignedRetryError
from ..keys import key_text, same_public_key

__all__ = [
    "API_KEY_CURVES",
    "CREDENTIAL_TYPES",
    "MAX_TIMESTAMP_MS",
    "POLICY_EFFECTS",
    "RAW_PAYLOAD_ENCODINGS",
    "RAW_PAYLOAD_HASH_FUNCTIONS",
    "Operation",
    "build_payload",
    "canonical_json",
    "checked_parameters",
    "credential_type_for",
    "payload_json",
    "resolve_operation",
]

#: The interface's credential types (AuthMethod.type, SignedRequestChallenge.type).
CREDENTIAL_TYPES = ("OAUTH", "EMAIL_OTP", "SMS_OTP", "PASSKEY")
#: The last millisecond of year 9999: the largest ``timestampMs`` :func:`build_payload` writes.
MAX_TIMESTAMP_MS = 253_402_300_799_999


class Operation(str, Enum):
    """The signed-retry operations of the service interface (Authentication, rule 8)."""

    ADD_OAUTH_CREDENTIAL = "ADD_OAUTH_CREDENTIAL"
    ADD_PASSKEY_CREDENTIAL = "ADD_PASSKEY_CREDENTIAL"
    ADD_EMAIL_OTP_CREDENTIAL = "ADD_EMAIL_OTP_CREDENTIAL"
    ADD_SMS_OTP_CREDENTIAL = "ADD_SMS_OTP_CREDENTIAL"
    REVOKE_CREDENTIAL = "REVOKE_CREDENTIAL"
    REVOKE_SESSION = "REVOKE_SESSION"
    REFRESH_SESSION = "REFRESH_SESSION"
    EXPORT_WALLET = "EXPORT_WALLET"
    EXECUTE_QUOTE = "EXECUTE_QUOTE"
    CREATE_DELEGATED_KEY = "CREATE_DELEGATED_KEY"
    ACTIVATE_DELEGATED_KEY = "ACTIVATE_DELEGATED_KEY"
    REVOKE_DELEGATED_KEY = "REVOKE_DELEGATED_KEY"
    UPDATE_INTERNAL_ACCOUNT = "UPDATE_INTERNAL_ACCOUNT"

    @property
    def activity_type(self) -> str:
        """The payload's ``type`` (formats.md section 5)."""
        return _SPECS[self].activity_type

    @property
    def binds_client_key(self) -> bool:
        """True when the payload binds the client's public key as ``targetPublicKey``."""
        return _SPECS[self].binds_client_key


@dataclass(frozen=True)
class _Field:
    description: str
    check: Callable[[Any], bool]


@dataclass(frozen=True)
class _Spec:
    activity_type: str
    fields: Mapping[str, _Field]
    credential_type: str | None = None  # fixed for the add operations
    binds_client_key: bool = False


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _texts(*, allow_empty: bool = False) -> _Field:
    def check(value: Any) -> bool:
        return (
            isinstance(value, list)
            and (allow_empty or len(value) > 0)
            and all(_is_text(item) for item in value)
        )

    return _Field("a non-empty list of strings" if not allow_empty else "a list of strings", check)


def _records(
    required: Mapping[str, _Field],
    optional: Mapping[str, _Field] | None = None,
    *,
    allow_empty: bool = False,
) -> _Field:
    """A list of objects, each with every ``required`` field and, where present, valid
    ``optional`` fields (other fields are not checked)."""
    maybe = optional or {}

    def check(value: Any) -> bool:
        return (
            isinstance(value, list)
            and (allow_empty or len(value) > 0)
            and all(
                isinstance(item, dict)
                and all(name in item and f.check(item[name]) for name, f in required.items())
                and all(f.check(item[name]) for name, f in maybe.items() if name in item)
                for item in value
            )
        )

    size = "a list" if allow_empty else "a non-empty list"
    return _Field(f"{size} of objects with {', '.join(required) or 'any fields'}", check)


def _objects(**fields: _Field) -> _Field:
    return _records(fields)


def _one_of(*values: str) -> _Field:
    return _Field(f"one of {', '.join(values)}", lambda value: value in values)


_TEXT = _Field("a non-empty string", _is_text)
_OBJECT = _Field("an object", lambda value: isinstance(value, dict))
_PUBLIC_KEY = _Field("the bound client public key", _is_text)
_STRING = _Field("a string", lambda value: isinstance(value, str))
#: The API key curves of ``ACTIVITY_TYPE_CREATE_USERS_V3``.
API_KEY_CURVES = ("API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1", "API_KEY_CURVE_ED25519")
#: The policy effects of ``ACTIVITY_TYPE_CREATE_POLICIES``.
POLICY_EFFECTS = ("EFFECT_ALLOW", "EFFECT_DENY")
#: The encodings and hash functions of ``ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2`` this library writes.
RAW_PAYLOAD_ENCODINGS = ("PAYLOAD_ENCODING_HEXADECIMAL",)
RAW_PAYLOAD_HASH_FUNCTIONS = ("HASH_FUNCTION_NO_OP",)
_HEX_DIGEST = _Field(
    "64 lowercase hex characters (a SHA-256 digest)",
    lambda value: (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    ),
)
_USERS = _records(
    {
        "userName": _TEXT,
        "apiKeys": _objects(apiKeyName=_TEXT, publicKey=_TEXT, curveType=_one_of(*API_KEY_CURVES)),
        "authenticators": _records({}, allow_empty=True),
        "oauthProviders": _records({}, allow_empty=True),
        "userTags": _texts(allow_empty=True),
    },
    {"userEmail": _TEXT, "userPhoneNumber": _TEXT},
)
_POLICIES = _records(
    {"policyName": _TEXT, "effect": _one_of(*POLICY_EFFECTS)},
    {"condition": _STRING, "consensus": _STRING, "notes": _STRING},
)

_SPECS: dict[Operation, _Spec] = {
    Operation.ADD_OAUTH_CREDENTIAL: _Spec(
        "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
        {"oauthProviders": _objects(oidcToken=_TEXT, providerName=_TEXT), "userId": _TEXT},
        credential_type="OAUTH",
    ),
    Operation.ADD_PASSKEY_CREDENTIAL: _Spec(
        "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        {
            "authenticators": _objects(
                attestation=_OBJECT,
                authenticatorName=_TEXT,
                challenge=_TEXT,
                transports=_texts(allow_empty=True),
            ),
            "userId": _TEXT,
        },
        credential_type="PASSKEY",
    ),
    Operation.ADD_EMAIL_OTP_CREDENTIAL: _Spec(
        "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
        {"userEmail": _TEXT, "userId": _TEXT},
        credential_type="EMAIL_OTP",
    ),
    Operation.ADD_SMS_OTP_CREDENTIAL: _Spec(
        "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
        {"userPhoneNumber": _TEXT, "userId": _TEXT},
        credential_type="SMS_OTP",
    ),
    Operation.REVOKE_CREDENTIAL: _Spec(
        "ACTIVITY_TYPE_DELETE_AUTHENTICATORS", {"authenticatorIds": _texts(), "userId": _TEXT}
    ),
    Operation.REVOKE_SESSION: _Spec(
        "ACTIVITY_TYPE_DELETE_API_KEYS", {"apiKeyIds": _texts(), "userId": _TEXT}
    ),
    Operation.REFRESH_SESSION: _Spec(
        "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        {"targetPublicKey": _PUBLIC_KEY},
        binds_client_key=True,
    ),
    Operation.EXPORT_WALLET: _Spec(
        "ACTIVITY_TYPE_EXPORT_WALLET",
        {"targetPublicKey": _PUBLIC_KEY, "walletId": _TEXT},
        binds_client_key=True,
    ),
    Operation.EXECUTE_QUOTE: _Spec(
        "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        {"signWith": _TEXT, "unsignedTransaction": _TEXT, "type": _TEXT},
    ),
    Operation.CREATE_DELEGATED_KEY: _Spec("ACTIVITY_TYPE_CREATE_USERS_V3", {"users": _USERS}),
    Operation.ACTIVATE_DELEGATED_KEY: _Spec(
        "ACTIVITY_TYPE_CREATE_POLICIES", {"policies": _POLICIES}
    ),
    Operation.REVOKE_DELEGATED_KEY: _Spec("ACTIVITY_TYPE_DELETE_USERS", {"userIds": _texts()}),
    Operation.UPDATE_INTERNAL_ACCOUNT: _Spec(
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        {
            "encoding": _one_of(*RAW_PAYLOAD_ENCODINGS),
            "hashFunction": _one_of(*RAW_PAYLOAD_HASH_FUNCTIONS),
            "payload": _HEX_DIGEST,
            "signWith": _TEXT,
        },
    ),
}


def _invalid(reason: str) -> SignedRetryError:
    return SignedRetryError(reason, "INVALID_PARAMETERS", 400)


def resolve_operation(operation: Operation | str) -> Operation:
    """The :class:`Operation` for a member or its name; ``UNKNOWN_OPERATION`` (400) otherwise."""
    if isinstance(operation, Operation):
        return operation
    if isinstance(operation, str) and operation in Operation.__members__:
        return Operation[operation]
    raise SignedRetryError(
        f"unknown signed-retry operation {operation!r}; expected one of "
        f"{', '.join(Operation.__members__)}",
        "UNKNOWN_OPERATION",
        400,
    )


def credential_type_for(operation: Operation, credential_type: str | None) -> str | None:
    """The challenge's ``type``: fixed by an add operation, otherwise the caller's (or None)."""
    fixed = _SPECS[operation].credential_type
    if credential_type is not None and credential_type not in CREDENTIAL_TYPES:
        raise _invalid(f"credential_type must be one of {', '.join(CREDENTIAL_TYPES)}")
    if fixed is not None and credential_type not in (None, fixed):
        raise _invalid(f"{operation.name} adds a credential of type {fixed}, not {credential_type}")
    return fixed or credential_type


def checked_parameters(
    operation: Operation, parameters: Mapping[str, Any], bound_client_public_key: str | None
) -> dict[str, Any]:
    """The operation's parameters, checked, with ``targetPublicKey`` set to the bound key."""
    spec = _SPECS[operation]
    if not isinstance(parameters, Mapping):
        raise _invalid("parameters must be an object")
    result = dict(parameters)
    unknown = sorted(str(name) for name in result if name not in spec.fields)
    if unknown:
        raise _invalid(f"{operation.name} takes no parameter {', '.join(unknown)}")
    if spec.binds_client_key:
        if bound_client_public_key is None:
            raise _invalid(f"{operation.name} needs bound_client_public_key (the clientPublicKey)")
        given = result.get("targetPublicKey")
        if given is not None and (
            not isinstance(given, str) or not same_public_key(given, bound_client_public_key)
        ):
            raise _invalid("parameters.targetPublicKey differs from bound_client_public_key")
        result["targetPublicKey"] = bound_client_public_key
    elif bound_client_public_key is not None:
        raise _invalid(f"{operation.name} binds no client public key")
    for name, field in spec.fields.items():
        if name not in result:
            raise _invalid(f"{operation.name} needs parameters.{name} ({field.description})")
        if not field.check(result[name]):
            raise _invalid(f"parameters.{name} must be {field.description}")
    return result


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys (the payload's form); ``INVALID_PARAMETERS`` (400) for a
    value that is not plain JSON."""
    try:
        return json.dumps(value, separators=(",", ":"), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as problem:
        raise _invalid(f"parameters are not plain JSON: {problem}") from None
    except RecursionError:
        raise _invalid("parameters are nested too deeply") from None


def payload_json(
    operation: Operation, parameters: Mapping[str, Any], organization_id: str, timestamp_ms: int
) -> str:
    """The payload of already checked parts: ``{"organizationId","parameters","timestampMs",
    "type"}`` as :func:`canonical_json`."""
    body = {
        "organizationId": organization_id,
        "parameters": parameters,
        "timestampMs": str(timestamp_ms),
        "type": operation.activity_type,
    }
    return canonical_json(body)


def build_payload(
    operation: Operation | str,
    parameters: Mapping[str, Any],
    *,
    organization_id: str,
    timestamp_ms: int | None = None,
    bound_client_public_key: KeyLike | None = None,
) -> str:
    """The ``payloadToSign`` of an operation (formats.md section 5), exactly as
    :meth:`SignedRetry.issue` writes it, but without storing a challenge: for a server that
    keeps the payload itself and checks the stamp over it (as the sandbox does for a quote's
    ``EXECUTE_QUOTE`` payload, stored with the quote).

    Args:
        operation: an :class:`Operation` or its name.
        parameters: the payload's parameters, named as in formats.md section 5, checked as
            :meth:`SignedRetry.issue` checks them.
        organization_id: the payload's ``organizationId``.
        timestamp_ms: the payload's ``timestampMs`` (Unix milliseconds, 0 to the end of year
            9999); the current time when None.
        bound_client_public_key: the client's key for export and refresh (it becomes
            ``parameters.targetPublicKey``, as given, in lowercase); refused for the others.

    Returns:
        Compact JSON with sorted keys: ``{"organizationId","parameters","timestampMs","type"}``,
        ``timestampMs`` as a string.

    Raises:
        SignedRetryError: ``UNKNOWN_OPERATION`` or ``INVALID_PARAMETERS`` (400).
        InvalidKey: ``bound_client_public_key`` is not a valid P-256 key.
    """
    op = resolve_operation(operation)
    if not isinstance(organization_id, str) or not organization_id:
        raise _invalid("organization_id must be a non-empty string")
    if timestamp_ms is None:
        timestamp_ms = round(time.time() * 1000)
    elif (
        isinstance(timestamp_ms, bool)
        or not isinstance(timestamp_ms, int)
        or not 0 <= timestamp_ms <= MAX_TIMESTAMP_MS
    ):
        raise _invalid(f"timestamp_ms must be an integer from 0 to {MAX_TIMESTAMP_MS}")
    bound = None if bound_client_public_key is None else key_text(bound_client_public_key)
    checked = checked_parameters(op, parameters, bound)
    return payload_json(op, checked, organization_id, timestamp_ms)
