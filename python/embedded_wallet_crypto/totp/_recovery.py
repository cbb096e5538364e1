"""Recovery codes: shown to the user once, kept only as keyed hashes, each usable once.

A code is 16 characters of Crockford's base32 (80 random bits from ``secrets``), written in
groups of four: ``7K3M-Q9TD-2XHV-P0RW``. Crockford's alphabet has no I, L, O or U, so a code
read aloud or copied by hand survives: the check ignores case, hyphens and spaces, and reads O
as 0 and I or L as 1. The store keeps HMAC-SHA256(server key, factor, code) of each unused code;
using a code deletes its hash, and only the call whose delete removed it succeeds.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from .._contract import utf8
from ..errors import TotpError
from ..stores import FactorStore, MemoryStore
from ._secret import config_invalid
from ._verify import checked_factor

__all__ = ["RECOVERY_CODE_ALPHABET", "RecoveryCodes", "UsedRecoveryCode"]

#: Crockford's base32: the digits and the upper-case letters but I, L, O and U.
RECOVERY_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_LENGTH = 16  # characters: 80 bits
_GROUP = 4
_MAX_TYPED = 64  # a typed code longer than this is refused before any normalisation
_SAME = str.maketrans({"O": "0", "I": "1", "L": "1"})
_ALPHABET = frozenset(RECOVERY_CODE_ALPHABET)
_MAX_COUNT = 100


def _invalid() -> TotpError:
    return TotpError("Invalid recovery code", "RECOVERY_CODE_INVALID", 401)


@dataclass(frozen=True)
class UsedRecoveryCode:
    """An accepted recovery code: the factor and how many unused codes it has left."""

    factor_id: str
    codes_left: int


def _normalised(code: object) -> str | None:
    """The 16 canonical characters of a typed code, or None when it cannot be one."""
    if not isinstance(code, str) or len(code) > _MAX_TYPED or not code.isascii():
        return None
    compact = code.replace("-", "").replace(" ", "").upper().translate(_SAME)
    if len(compact) != _LENGTH or not set(compact) <= _ALPHABET:
        return None
    return compact


class RecoveryCodes:
    """A factor's recovery codes: generated in a set that replaces the factor's previous one,
    stored as keyed hashes, consumed one by one.

    Args:
        store: any store of ``ewc.stores`` (default: a new :class:`MemoryStore`).
        hash_key: the server's secret HMAC key (at least 16 bytes); only
            HMAC-SHA256(key, factor, code) is stored, so a stolen store yields no usable code.
        count: how many codes a set has (10 by default, 1 to 100).

    Failed attempts are not counted here: limit them where the factor is used (the interface
    locks a customer's login after too many failures).

    Raises:
        TypeError: a wrong type.
        TotpError: ``TOTP_CONFIG_INVALID`` (500).
    """

    def __init__(
        self, store: FactorStore | None = None, *, hash_key: bytes, count: int = 10
    ) -> None:
        if not isinstance(hash_key, (bytes, bytearray)) or len(hash_key) < 16:
            raise config_invalid("hash_key must be at least 16 secret bytes")
        if isinstance(count, bool) or not isinstance(count, int):
            raise TypeError(f"count must be an int, not {type(count).__name__}")
        if not 0 < count <= _MAX_COUNT:
            raise config_invalid(f"count must be from 1 to {_MAX_COUNT}")
        self.store: FactorStore = store if store is not None else MemoryStore()
        self._hash_key = bytes(hash_key)
        self.count = count

    def _hash(self, factor_id: str, canonical: str) -> str:
        message = b"\x00".join(
            (b"ewc-recovery-v1", utf8(factor_id, "factor_id", config_invalid), canonical.encode())
        )
        return hmac.new(self._hash_key, message, hashlib.sha256).hexdigest()

    def generate(self, factor_id: str) -> list[str]:
        """A new set of codes for the factor, replacing its unused ones. Show them to the user
        once; they are not kept in clear anywhere.

        Raises:
            TotpError: ``TOTP_FACTOR_INVALID`` (400); ``STORE_UNAVAILABLE`` (503).
        """
        factor_id = checked_factor(factor_id)
        codes: list[str] = []
        while len(codes) < self.count:  # a repeat (chance about 2**-73) is drawn again
            raw = "".join(secrets.choice(RECOVERY_CODE_ALPHABET) for _ in range(_LENGTH))
            code = "-".join(raw[i : i + _GROUP] for i in range(0, _LENGTH, _GROUP))
            if code not in codes:
                codes.append(code)
        hashes = [self._hash(factor_id, code.replace("-", "")) for code in codes]
        self.store.replace_recovery_codes(factor_id, hashes)
        return codes

    def use(self, factor_id: str, code: str) -> UsedRecoveryCode:
        """Accept one of the factor's unused codes, once.

        Raises:
            TotpError: ``RECOVERY_CODE_INVALID`` (401, reason "Invalid recovery code"): not a
                code of the factor's current set, already used, or not a code at all;
                ``TOTP_FACTOR_INVALID`` (400); ``STORE_UNAVAILABLE`` (503).
        """
        factor_id = checked_factor(factor_id)
        canonical = _normalised(code)
        if canonical is None:
            raise _invalid()
        if not self.store.use_recovery_code(factor_id, self._hash(factor_id, canonical)):
            raise _invalid()
        return UsedRecoveryCode(factor_id, self.store.recovery_codes_left(factor_id))

    def left(self, factor_id: str) -> int:
        """How many unused codes the factor has."""
        return self.store.recovery_codes_left(checked_factor(factor_id))
