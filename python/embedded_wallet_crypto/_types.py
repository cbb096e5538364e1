"""Type aliases shared by the Python layer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from typing_extensions import Buffer, TypeAlias

    BytesLike: TypeAlias = Buffer
    KeyLike: TypeAlias = Union[str, Buffer]
else:
    BytesLike = Union[bytes, bytearray, memoryview]
    KeyLike = Union[str, bytes, bytearray, memoryview]
