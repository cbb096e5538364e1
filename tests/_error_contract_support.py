"""What the error-contract regression files share: a fixed key, a lone surrogate, a released
memoryview, and ``typed`` (the exception class and code a call raises)."""

from __future__ import annotations

from collections.abc import Callable

import embedded_wallet_crypto as ewc
import pytest

KEY = ewc.KeyPair.from_private_hex("11" * 32)
PUB = KEY.public_key_hex()
SURROGATE = "\ud800"
ORIGIN, RP_ID = "https://wallet.example", "wallet.example"


def released() -> memoryview:
    view = memoryview(b"released bytes")
    view.release()
    return view


def typed(call: Callable[[], object], cls: type[Exception], code: str | None = None) -> Exception:
    with pytest.raises(cls) as caught:
        call()
    if code is not None:
        assert getattr(caught.value, "code", None) == code
    return caught.value
