"""Resource identifiers of the form ``<Kind>:<id>`` (the interface's Resources), and every other
value the service makes at random: without ``--seed`` from the operating system's random
source; with ``--seed N`` derived from the seed, so that the same requests from a fresh database
give the same ids and keys.

A seeded value is HMAC-SHA256 (keyed by the seed) of its *scope* and a counter: a changing
request's scope is its number in the database's order (``control.next_ordinal``, counted
across processes, and the reset's generation); the worker's is the transaction and the version
it settles; the start's is ``startup``. So ids do not depend on which process took a request,
nor on when the worker ran, only on the requests and their order. A key is RFC 9180
DeriveKeyPair of such a value (``ewc.hpke.derive_key_pair``), a wallet's mnemonic the BIP-39
words of 16 such bytes (``ewc.mnemonic_from_entropy``). Outside any scope (a read, which makes
nothing) a seeded process falls back to the random source, so that ids never repeat.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from ..hpke import derive_key_pair
from ..keys import KeyPair
from ..mnemonic import generate_mnemonic, mnemonic_from_entropy

__all__ = [
    "configure_seed",
    "id_part",
    "new_id",
    "new_key_pair",
    "new_mnemonic",
    "random_hex",
    "seeded",
    "seeded_scope",
]

#: The HMAC key of this process's seed (None: no ``--seed``).
_seed_key: bytes | None = None


@dataclass
class _Scope:
    name: str
    counters: dict[str, int] = field(default_factory=dict)


_scope: ContextVar[_Scope | None] = ContextVar("ewc_sandbox_seed_scope", default=None)


def configure_seed(seed: int | None) -> None:
    """Derive this process's values from ``seed`` (None: from the random source)."""
    global _seed_key
    if seed is None:
        _seed_key = None
        return
    _seed_key = hmac.new(b"ewc-sandbox-seed-v1", str(int(seed)).encode(), hashlib.sha256).digest()


def seeded() -> bool:
    """Whether this process runs with ``--seed``."""
    return _seed_key is not None


@contextmanager
def seeded_scope(name: str) -> Iterator[None]:
    """The values made inside (in this context and the threads it hands work to) are derived
    from ``name`` and their order."""
    token = _scope.set(_Scope(name))
    try:
        yield
    finally:
        _scope.reset(token)


def _material(label: str) -> bytes | None:
    """32 seeded bytes for the next value of ``label`` in the current scope, or None."""
    scope = _scope.get()
    if _seed_key is None or scope is None:
        return None
    number = scope.counters.get(label, 0)
    scope.counters[label] = number + 1
    message = f"{scope.name}\x00{label}\x00{number}".encode()
    return hmac.new(_seed_key, message, hashlib.sha256).digest()


def new_id(kind: str) -> str:
    """A fresh ``Kind:<uuid4>`` identifier (seeded: a version-4 UUID made of seeded bytes)."""
    material = _material("id:" + kind)
    if material is None:
        return f"{kind}:{uuid.uuid4()}"
    return f"{kind}:{uuid.UUID(bytes=material[:16], version=4)}"


def random_hex(nbytes: int, label: str) -> str:
    """``nbytes`` random bytes as hex (seeded: derived, for values such as references)."""
    material = _material("hex:" + label)
    if material is None or nbytes > len(material):
        return secrets.token_hex(nbytes)
    return material[:nbytes].hex()


def new_key_pair(label: str) -> KeyPair:
    """A fresh P-256 key pair (seeded: DeriveKeyPair of seeded bytes)."""
    material = _material("key:" + label)
    if material is None:
        return KeyPair.generate()
    return derive_key_pair(material)


def new_mnemonic() -> str:
    """A fresh 12-word BIP-39 English mnemonic (seeded: of 16 seeded bytes)."""
    material = _material("mnemonic")
    if material is None:
        return generate_mnemonic(words=12)
    return mnemonic_from_entropy(material[:16])


def id_part(identifier: str, *kinds: str) -> str | None:
    """The ``<id>`` of ``Kind:<id>`` when ``Kind`` is one of ``kinds``; None otherwise."""
    kind, separator, rest = identifier.partition(":")
    if not separator or kind not in kinds or not rest:
        return None
    return rest
