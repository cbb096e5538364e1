"""The parameters of the delegated-key operations, built one way so that every leg of
``POST /auth/delegated-keys`` (and every server) writes the same payload for the same request.

A delegated key is a P-256 key the service generates and holds (``ewc.KeyPair``): the wallet
owner authorizes, by two signed retries, first an isolated signer identity holding its public
key (:data:`Operation.CREATE_DELEGATED_KEY`, :func:`delegated_key_user`), then the policies
that let that identity sign for the wallet and revoke itself
(:data:`Operation.ACTIVATE_DELEGATED_KEY`, :func:`delegated_key_policies`). The revocation is
signed by the delegated key itself (:data:`Operation.REVOKE_DELEGATED_KEY`,
:func:`delegated_key_revocation`). The policies are written in the key infrastructure's policy
language; this library records them in the payload and does not evaluate them.
"""

from __future__ import annotations

import re
from typing import Any

from .._types import KeyLike
from ..errors import SignedRetryError
from ..keys import compress_public_key

__all__ = ["delegated_key_policies", "delegated_key_revocation", "delegated_key_user"]

# Ids written into policy expressions between single quotes: no quote, backslash or space.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9:._-]{0,199}")
_MAX_NAME = 256  # the interface's DelegatedKeyCreateRequest.nickname


def _invalid(reason: str) -> SignedRetryError:
    return SignedRetryError(reason, "INVALID_PARAMETERS", 400)


def _name(value: object, what: str) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= _MAX_NAME or not value.strip():
        raise _invalid(f"{what} must be 1 to {_MAX_NAME} characters of text")
    return value


def _id(value: object, what: str) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise _invalid(f"{what} must be 1 to 200 of A-Z a-z 0-9 : . _ - (a letter or digit first)")
    return value


def delegated_key_user(*, user_name: str, public_key: KeyLike) -> dict[str, Any]:
    """The parameters of :data:`Operation.CREATE_DELEGATED_KEY` (``ACTIVITY_TYPE_CREATE_USERS_V3``):
    one user named ``user_name`` with one API key, ``public_key`` in compressed hex (the
    ``DelegatedKey.publicKey`` of the interface), curve ``API_KEY_CURVE_P256``, and no
    authenticators, OAuth providers or tags.

    Raises:
        SignedRetryError: ``INVALID_PARAMETERS`` (400): an empty or over-long name.
        InvalidKey: ``public_key`` is not a P-256 public key.
    """
    name = _name(user_name, "user_name")
    compressed = compress_public_key(public_key).hex()
    return {
        "users": [
            {
                "userName": name,
                "apiKeys": [
                    {
                        "apiKeyName": name,
                        "publicKey": compressed,
                        "curveType": "API_KEY_CURVE_P256",
                    }
                ],
                "authenticators": [],
                "oauthProviders": [],
                "userTags": [],
            }
        ]
    }


def delegated_key_policies(*, user_id: str, wallet_id: str, name: str) -> dict[str, Any]:
    """The parameters of :data:`Operation.ACTIVATE_DELEGATED_KEY`
    (``ACTIVITY_TYPE_CREATE_POLICIES``): two ``EFFECT_ALLOW`` policies whose consensus is the
    delegated user alone, one to sign with the wallet ``wallet_id`` (``activity.action ==
    'SIGN' && wallet.id == ...``), one to delete a user (``activity.resource == 'USER' &&
    activity.action == 'DELETE'``), which it uses on itself only
    (:func:`delegated_key_revocation`). The interface says a delegated key "cannot be scoped to
    amounts or recipients", so no condition limits the signing further.

    Raises:
        SignedRetryError: ``INVALID_PARAMETERS`` (400): an id that cannot be quoted safely in
            a policy expression, or an empty or over-long name.
    """
    user = _id(user_id, "user_id")
    wallet = _id(wallet_id, "wallet_id")
    label = _name(name, "name")
    consensus = f"approvers.any(user, user.id == '{user}')"
    return {
        "policies": [
            {
                "policyName": f"{label}: sign for wallet {wallet}",
                "effect": "EFFECT_ALLOW",
                "consensus": consensus,
                "condition": f"activity.action == 'SIGN' && wallet.id == '{wallet}'",
                "notes": "delegated signing key",
            },
            {
                "policyName": f"{label}: revoke itself",
                "effect": "EFFECT_ALLOW",
                "consensus": consensus,
                "condition": "activity.resource == 'USER' && activity.action == 'DELETE'",
                "notes": "delegated signing key",
            },
        ]
    }


def delegated_key_revocation(*, user_id: str) -> dict[str, Any]:
    """The parameters of :data:`Operation.REVOKE_DELEGATED_KEY` (``ACTIVITY_TYPE_DELETE_USERS``):
    the delegated user's own id, which deleting removes its API key with it.

    Raises:
        SignedRetryError: ``INVALID_PARAMETERS`` (400).
    """
    return {"userIds": [_id(user_id, "user_id")]}
