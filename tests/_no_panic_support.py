"""What the robustness files share: the curve order, the hypothesis settings, fixed HPKE keys,
``_call`` (which fails the test on any exception but a ``WalletCryptoError`` and hands back the
result or the error), mutation helpers and the input strategies."""

from __future__ import annotations

from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import hpke
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RECIPIENT = hpke.derive_key_pair(b"no-panic recipient")
EPHEMERAL = hpke.derive_key_pair(b"no-panic ephemeral")
PUB = RECIPIENT.public_key_bytes()
ENC, CT = hpke.seal(PUB, b"a valid ciphertext to mutate")

HEX = "0123456789abcdefABCDEF"


class _Failed:
    """Marker for a call that raised a WalletCryptoError."""

    def __init__(self, error: ewc.WalletCryptoError) -> None:
        self.error = error


def _call(func, *args: Any, **kwargs: Any) -> Any:
    try:
        return func(*args, **kwargs)
    except ewc.WalletCryptoError as err:
        assert isinstance(err.code, str) and err.code and err.code == err.code.upper()
        assert isinstance(err.reason, str) and err.reason and str(err) == err.reason
        assert isinstance(err.status, int) and 400 <= err.status < 600
        return _Failed(err)
    except BaseException as err:  # PanicException is a BaseException
        if isinstance(err, (KeyboardInterrupt, SystemExit)):
            raise
        name = getattr(func, "__qualname__", repr(func))
        pytest.fail(f"{name} raised {type(err).__module__}.{type(err).__name__}: {err!r}")


def _ok(result: Any) -> bool:
    return not isinstance(result, _Failed)


def _mutate(data: bytes, index: int, value: int) -> bytes:
    if not data:
        return bytes([value])
    i = index % len(data)
    return data[:i] + bytes([value]) + data[i + 1 :]


# --- strategies ---------------------------------------------------------------------------------

sizes = st.one_of(st.integers(0, 200), st.sampled_from([0, 1, 12, 16, 31, 32, 33, 64, 65, 66]))
random_bytes = sizes.flatmap(lambda n: st.binary(min_size=n, max_size=n))
hex_text = st.text(alphabet=HEX, max_size=200)
any_text = st.text(max_size=200)
mutated_keys = st.builds(
    _mutate,
    st.sampled_from([PUB, RECIPIENT.public_key_bytes(compressed=True), ENC]),
    st.integers(min_value=0),
    st.integers(0, 255),
)
key_inputs = st.one_of(
    random_bytes,
    hex_text,
    any_text,
    mutated_keys,
    mutated_keys.map(bytes.hex),
    st.builds(lambda p, body: bytes([p]) + body, st.sampled_from([2, 3, 4]), random_bytes),
)
byte_likes = st.one_of(random_bytes, random_bytes.map(bytearray), random_bytes.map(memoryview))
huge_lengths = st.one_of(
    st.integers(0, 9000),
    st.integers(0, 2**64 - 1),
    st.sampled_from([8160, 8161, 2**31, 2**32, 2**62, 2**63, 2**64 - 1]),
)
aead_ids = st.one_of(st.sampled_from([1, 2]), st.integers(0, 0xFFFF))
b58_text = st.one_of(
    any_text,
    st.text(alphabet="123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", max_size=200),
    st.text(
        alphabet="123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl+ \n", max_size=60
    ),
)


def _check_public(result: Any, compressed: bool) -> None:
    if _ok(result):
        assert isinstance(result, bytes)
        if compressed:
            assert len(result) == 33 and result[0] in (2, 3)
        else:
            assert len(result) == 65 and result[0] == 4
            # A parsed key is valid everywhere else too.
            assert ewc.parse_public_key(result) == result
