"""The operations of signed_retry.json: each one's activity type, the parameters its cases
issue, its fixed credential type and whether it binds the client's key (formats.md section 5),
with the named keys the cases sign with."""

from __future__ import annotations

from typing import Any

from . import _reference as ref
from ._common import key

SESSION_A, SESSION_B, STRANGER = "sr-session-a", "sr-session-b", "sr-stranger"
CLIENT, OTHER_CLIENT = "sr-client", "sr-other-client"
DELEGATED = "sr-delegated"  # the service-held key of the delegated-key operations
CREDENTIALS = {SESSION_A: "AuthMethod:a", SESSION_B: "AuthMethod:b"}


def public_hex(label: str, *, compressed: bool = False) -> str:
    return ref.public_key_bytes(key(label)[0], compressed=compressed).hex()


# Operation -> (activity type, parameters, fixed credential type, binds the client key)
OPERATIONS: dict[str, tuple[str, dict[str, Any], str | None, bool]] = {
    "ADD_OAUTH_CREDENTIAL": (
        "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
        {"oauthProviders": [{"oidcToken": "h.p.s", "providerName": "google"}], "userId": "u1"},
        "OAUTH",
        False,
    ),
    "ADD_PASSKEY_CREDENTIAL": (
        "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        {
            "authenticators": [
                {
                    "attestation": {
                        "attestationObject": "o2NmbXRkbm9uZQ",
                        "clientDataJson": "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0",
                        "credentialId": "Y3JlZGVudGlhbA",
                        "transports": ["internal"],
                    },
                    "authenticatorName": "laptop",
                    "challenge": "Y2hhbGxlbmdl",
                    "transports": ["internal", "hybrid"],
                }
            ],
            "userId": "u1",
        },
        "PASSKEY",
        False,
    ),
    "ADD_EMAIL_OTP_CREDENTIAL": (
        "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
        {"userEmail": "user@example.com", "userId": "u1"},
        "EMAIL_OTP",
        False,
    ),
    "ADD_SMS_OTP_CREDENTIAL": (
        "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
        {"userPhoneNumber": "+14155550100", "userId": "u1"},
        "SMS_OTP",
        False,
    ),
    "REVOKE_CREDENTIAL": (
        "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
        {"authenticatorIds": [CREDENTIALS[SESSION_B]], "userId": "u1"},
        None,
        False,
    ),
    "REVOKE_SESSION": (
        "ACTIVITY_TYPE_DELETE_API_KEYS",
        {"apiKeyIds": ["Session:old"], "userId": "u1"},
        None,
        False,
    ),
    "REFRESH_SESSION": ("ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", {}, None, True),
    "EXPORT_WALLET": ("ACTIVITY_TYPE_EXPORT_WALLET", {"walletId": "Wallet:vectors"}, None, True),
    "EXECUTE_QUOTE": (
        "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        {
            "signWith": "0x00000000000000000000000000000000000000aa",
            "type": "TRANSACTION_TYPE_ETHEREUM",
            "unsignedTransaction": "02e80180808080940000000000000000000000000000000000bb0180c0",
        },
        None,
        False,
    ),
    "CREATE_DELEGATED_KEY": (
        "ACTIVITY_TYPE_CREATE_USERS_V3",
        {
            "users": [
                {
                    "apiKeys": [
                        {
                            "apiKeyName": "Card payments key",
                            "curveType": "API_KEY_CURVE_P256",
                            "publicKey": public_hex(DELEGATED, compressed=True),
                        }
                    ],
                    "authenticators": [],
                    "oauthProviders": [],
                    "userName": "Card payments key",
                    "userTags": [],
                }
            ]
        },
        None,
        False,
    ),
    "ACTIVATE_DELEGATED_KEY": (
        "ACTIVITY_TYPE_CREATE_POLICIES",
        {
            "policies": [
                {
                    "condition": "activity.action == 'SIGN' && wallet.id == 'Wallet:vectors'",
                    "consensus": "approvers.any(user, user.id == 'User:delegated')",
                    "effect": "EFFECT_ALLOW",
                    "notes": "delegated signing key",
                    "policyName": "Card payments key: sign for wallet Wallet:vectors",
                }
            ]
        },
        None,
        False,
    ),
    "REVOKE_DELEGATED_KEY": (
        "ACTIVITY_TYPE_DELETE_USERS",
        {"userIds": ["User:delegated"]},
        None,
        False,
    ),
    "UPDATE_INTERNAL_ACCOUNT": (
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        {
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
            # SHA-256 of the update fields {"privateEnabled":true} (compact, sorted keys)
            "payload": "7ef9478c0e8c11fbfe3e551152a28dbec8a5b0a16d102d18cbcf4dbc6a787da2",
            "signWith": "InternalAccount:vectors",
        },
        None,
        False,
    ),
}
CREDENTIAL_TYPE = {"REVOKE_CREDENTIAL": "PASSKEY", "REVOKE_SESSION": "OAUTH"}
