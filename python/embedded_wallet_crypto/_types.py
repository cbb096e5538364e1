"""Type aliases shared by the Python layer."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from typing_extensions import Buffer

    BytesLike: TypeAlias = Buffer
    KeyLike: TypeAlias = str | Buffer
else:
    BytesLike = bytes | bytearray | memoryview
    KeyLike = str | bytes | bytearray | memoryview
