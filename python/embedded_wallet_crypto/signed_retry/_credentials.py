"""Which sessions may answer a challenge, and the credential rules of the service interface
(States and transitions, "Credentials and sessions"; Authentication, rules 4 and 8)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._types import KeyLike
from ..errors import SignedRetryError
from ..keys import compress_public_key

__all__ = ["SessionKeys", "ensure_credential_remains", "session_credentials"]

#: The active sessions of an account: their public keys, or a mapping from each key to the id
#: of the credential that issued the session (needed to revoke a credential).
SessionKeys = Mapping[str, str | None] | Iterable[KeyLike]


def session_credentials(account_session_keys: SessionKeys) -> dict[str, str | None]:
    """Compressed hex of each session key -> its credential id (None when not given).

    Raises:
        InvalidKey: a session key is malformed.
    """
    if isinstance(account_session_keys, (str, bytes, bytearray, memoryview)):
        account_session_keys = [account_session_keys]
    if isinstance(account_session_keys, Mapping):
        pairs: Iterable[tuple[Any, str | None]] = account_session_keys.items()
    else:
        pairs = ((key, None) for key in account_session_keys)
    return {compress_public_key(key).hex(): credential for key, credential in pairs}


def _credential_id(credential: str | Mapping[str, Any]) -> Any:
    return credential.get("id") if isinstance(credential, Mapping) else credential


def ensure_credential_remains(
    credentials: Iterable[str | Mapping[str, Any]], revoking_ids: Iterable[str] | str
) -> None:
    """Refuse to revoke credentials when the account would be left with none.

    Args:
        credentials: the account's credentials: ids, or AuthMethod-like mappings with an ``id``.
        revoking_ids: the id (or ids) about to be revoked.

    Raises:
        SignedRetryError: code ``LAST_CREDENTIAL`` (400) when no credential would remain.
    """
    for name, value in (("credentials", credentials), ("revoking_ids", revoking_ids)):
        if isinstance(value, (bytes, bytearray, memoryview)):
            raise TypeError(f"{name} must be ids (str) or a sequence of them, not bytes")
    revoking = {revoking_ids} if isinstance(revoking_ids, str) else set(revoking_ids)
    remaining = [c for c in map(_credential_id, credentials) if c not in revoking]
    if not remaining:
        raise SignedRetryError(
            "revoking the only credential of an account is not allowed; "
            "an account must keep at least one credential",
            "LAST_CREDENTIAL",
            400,
        )
