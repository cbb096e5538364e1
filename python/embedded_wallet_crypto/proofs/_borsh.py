"""A strict reader of the Borsh encoding, for the QOS manifest and its envelope.

Only what the QOS types use: ``u8`` enum tags, little-endian ``u32``, fixed byte
arrays, ``Vec<u8>``, ``String`` (UTF-8) and ``Vec<T>``, each length and count bounded by the
caller and by the bytes that are left. Every failure is a
:class:`~embedded_wallet_crypto.errors.ProofError` with the reader's code; nothing is allocated
beyond the input's size.

Written here rather than taken from PyPI: the Borsh packages there either are unmaintained
(``borsh-construct``, one release in 2021), pull pydantic into the core (``pyborsh``), or are
early C or pre-release builds; none of them bounds lengths the way a verifier of untrusted
input must, and this schema needs five primitives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn, TypeVar

from . import _common as c

__all__ = ["Reader"]

T = TypeVar("T")


class Reader:
    """Reads ``data`` from the start; :meth:`end` checks that nothing is left."""

    def __init__(self, data: bytes, what: str, code: str) -> None:
        self._data = data
        self._at = 0
        self._what = what
        self._code = code

    @property
    def position(self) -> int:
        return self._at

    def fail(self, reason: str) -> NoReturn:
        c.fail(self._code, f"the {self._what} is not valid: {reason} (at byte {self._at})")

    def _take(self, count: int, name: str) -> bytes:
        if count > len(self._data) - self._at:
            self.fail(f"{name} runs past the end")
        chunk = self._data[self._at : self._at + count]
        self._at += count
        return chunk

    def u8(self, name: str) -> int:
        return self._take(1, name)[0]

    def u32(self, name: str) -> int:
        return int.from_bytes(self._take(4, name), "little")

    def fixed(self, count: int, name: str) -> bytes:
        return self._take(count, name)

    def byte_vector(self, name: str, largest: int) -> bytes:
        """``Vec<u8>``: a u32 length, then that many bytes (at most ``largest``)."""
        count = self.u32(f"the length of {name}")
        if count > largest:
            self.fail(f"{name} is {count} bytes, over the limit of {largest}")
        return self._take(count, name)

    def string(self, name: str, largest: int) -> str:
        """``String``: a ``Vec<u8>`` of strict UTF-8."""
        raw = self.byte_vector(name, largest)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self.fail(f"{name} is not UTF-8")

    def vector(self, name: str, largest: int, item: Callable[[Reader], T]) -> tuple[T, ...]:
        """``Vec<T>``: a u32 count (at most ``largest``), then the items."""
        count = self.u32(f"the count of {name}")
        if count > largest:
            self.fail(f"{name} has {count} items, over the limit of {largest}")
        return tuple(item(self) for _ in range(count))

    def enum_tag(self, name: str, variants: tuple[str, ...]) -> str:
        """A unit-only enum: one u8 tag naming a variant."""
        tag = self.u8(name)
        if tag >= len(variants):
            self.fail(f"{name} has no variant {tag}")
        return variants[tag]

    def end(self) -> None:
        if self._at != len(self._data):
            self.fail(f"{len(self._data) - self._at} bytes follow the end")
