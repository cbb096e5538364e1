"""The argument contract of every entry point: what text and bytes arguments may be.

Text becomes bytes only through :func:`utf8`, so a ``str`` that is not Unicode (a lone
surrogate, from a hostile JSON ``"\\ud800"`` escape or a header) is the family's typed error, not
``UnicodeEncodeError``. Bytes come only through :func:`buffer_bytes`, the buffer protocol:
``bytes(32)`` would turn an int into 32 zero bytes, so an int (or any other non-buffer) is a
``TypeError``, and so is a released memoryview.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["buffer_bytes", "utf8"]


def utf8(text: object, what: str, error: Callable[[str], Exception]) -> bytes:
    """The UTF-8 bytes of ``text``.

    Raises:
        TypeError: ``text`` is not a ``str``.
        the family's error: ``error(reason)`` when ``text`` holds a lone surrogate.
    """
    if not isinstance(text, str):
        raise TypeError(f"{what} must be str, not {type(text).__name__}")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise error(f"{what} is not valid Unicode text (it holds a lone surrogate)") from None


def buffer_bytes(value: object, what: str) -> bytes:
    """The bytes of a bytes-like ``value`` (bytes, bytearray, memoryview or any buffer).

    Raises:
        TypeError: ``value`` is not a buffer (an int, a str, None ...) or a released memoryview.
    """
    if type(value) is bytes:
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        raise TypeError(f"{what} must be bytes-like, not str")
    try:
        with memoryview(value) as view:  # type: ignore[arg-type]
            return view.tobytes()
    except ValueError:  # a released memoryview
        raise TypeError(f"{what} is a released memoryview, not a buffer") from None
    except TypeError:
        raise TypeError(
            f"{what} must be bytes, bytearray or memoryview, not {type(value).__name__}"
        ) from None
