"""A JWKS document read once (RFC 7517 section 5): its signature keys, found by ``kid`` and
``alg``. Entries that cannot verify anything here (HMAC secrets, encryption keys, unknown key
types, bad encodings, weak RSA) are skipped, not fatal: issuers add key types over time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ._common import JWKS_INVALID, fail
from ._jws import build_key, key_fits

__all__ = ["KeySet", "KeySource", "StaticKeys"]

# The public members of each key type: private members ("d", primes) are never read.
_PUBLIC_MEMBERS = {"EC": ("crv", "x", "y"), "RSA": ("n", "e"), "OKP": ("crv", "x")}
_MAX_KEYS = 100


@dataclass(frozen=True)
class _Entry:
    kid: str | None
    alg: str | None
    kty: str
    crv: str | None
    members: tuple[tuple[str, str], ...]


def _entry(jwk: object) -> _Entry | None:
    if not isinstance(jwk, dict):
        return None
    kty = jwk.get("kty")
    if not isinstance(kty, str):
        return None
    names = _PUBLIC_MEMBERS.get(kty)
    if names is None or not all(isinstance(jwk.get(n), str) for n in names):
        return None  # includes "oct": an HMAC secret is never a verification key here
    kid, alg, use, ops = jwk.get("kid"), jwk.get("alg"), jwk.get("use"), jwk.get("key_ops")
    if use is not None and use != "sig":
        return None
    if ops is not None and (not isinstance(ops, list) or "verify" not in ops):
        return None
    if (kid is not None and not isinstance(kid, str)) or (
        alg is not None and not isinstance(alg, str)
    ):
        return None
    crv = jwk.get("crv")
    members = (("kty", kty), *((n, jwk[n]) for n in names))
    return _Entry(kid, alg, kty, crv if isinstance(crv, str) else None, members)


class KeySet:
    """The usable signature keys of one JWKS document."""

    def __init__(self, document: object) -> None:
        """Raises:
        OidcError: ``OIDC_JWKS_INVALID`` when ``document`` is not ``{"keys": [...]}``.
        """
        keys = document.get("keys") if isinstance(document, Mapping) else None
        if not isinstance(keys, list):
            fail(JWKS_INVALID, 'the JWKS is not a JSON object with a "keys" array')
        if len(keys) > _MAX_KEYS:
            fail(JWKS_INVALID, f"the JWKS has more than {_MAX_KEYS} keys")
        self._entries = [e for e in map(_entry, keys) if e is not None]
        self.kids = frozenset(e.kid for e in self._entries if e.kid is not None)

    def __len__(self) -> int:
        return len(self._entries)

    def find(self, kid: str | None, alg: str) -> list[Any]:
        """The keys for a token with this ``kid`` and ``alg``: same ``kid``, a key type that
        fits ``alg``, and the JWK's own ``alg`` (when it has one) equal to it. A token without
        ``kid`` matches only when exactly one key fits ``alg``."""
        fitting = [
            e
            for e in self._entries
            if (e.alg is None or e.alg == alg) and key_fits(alg, e.kty, e.crv)
        ]
        if kid is not None:
            fitting = [e for e in fitting if e.kid == kid]
        elif len(fitting) != 1:
            return []
        keys = (build_key(alg, e.members) for e in fitting)
        return [k for k in keys if k is not None]


@runtime_checkable
class KeySource(Protocol):
    """Where ``verify_id_token`` gets an issuer's keys: :class:`JwksProvider`, or your own."""

    def find_keys(self, kid: str | None, alg: str) -> Sequence[Any]:
        """The verification keys for this ``kid`` and ``alg`` (empty when there is none).

        Raises:
            OidcError: ``OIDC_JWKS_UNAVAILABLE`` or ``OIDC_JWKS_INVALID``.
        """
        ...


class StaticKeys:
    """A fixed JWKS document (offline): never fetches anything."""

    def __init__(self, document: object) -> None:
        self.key_set = KeySet(document)

    def find_keys(self, kid: str | None, alg: str) -> Sequence[Any]:
        return self.key_set.find(kid, alg)
