"""The sandbox's fixed money tables, without a server: rates and fees (known answers and
properties), the suffix outcome tables and the UMA receivers."""

from __future__ import annotations

import pytest
from _ci import require_module

require_module("fastapi", "the sandbox extra is not installed")  # fails under CI=true

from embedded_wallet_crypto.sandbox.domain.payment_tables import (  # noqa: E402
    MAX_LOCKED_AMOUNT,
    RATES_PER_USD,
    beneficiary_status,
    convert,
    fee_table,
    quote_outcome,
    suffix_of,
    transfer_outcome,
    uma_receiver_outcome,
)
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

CODES = sorted(RATES_PER_USD)


def test_known_answers() -> None:
    priced = convert("USD", "EUR", "SENDING", 10_000)
    assert priced is not None
    assert (priced.total_sending, priced.fees, priced.total_receiving) == (10_000, 60, 9_144)
    assert priced.exchange_rate == pytest.approx(1 / 0.92)
    locked = convert("USD", "EUR", "RECEIVING", 9_200)
    assert locked is not None
    assert (locked.total_receiving, locked.total_sending) == (9_200, 10_000 + 10 + 50)
    assert fee_table("USD")[0] == 10 and fee_table("BTC")[0] == 160  # 0.10 USD = 160 sats
    assert convert("USD", "EUR", "SENDING", 10) is None  # the fee eats it all


@given(
    st.sampled_from(CODES),
    st.sampled_from(CODES),
    st.sampled_from(["SENDING", "RECEIVING"]),
    st.integers(1, 10**12),
)
def test_conversion_properties(sending: str, receiving: str, side: str, amount: int) -> None:
    priced = convert(sending, receiving, side, amount)
    if priced is None:
        return
    assert priced.total_sending > priced.fees >= priced.fixed_fee >= 1
    assert priced.total_receiving >= 1
    locked = priced.total_sending if side == "SENDING" else priced.total_receiving
    assert locked == amount


def test_the_limit_is_the_interface_limit() -> None:
    assert MAX_LOCKED_AMOUNT == 9_000_000_000_000_000


@pytest.mark.parametrize(
    ("suffix", "final"),
    [
        ("002", "FAILED"),
        ("003", "FAILED"),
        ("004", "REJECTED"),
        ("005", "FAILED"),
        ("000", "COMPLETED"),
    ],
)
def test_transfer_rows(suffix: str, final: str) -> None:
    steps = transfer_outcome(suffix)
    assert steps[-1].status == final
    if suffix in ("002", "003"):
        assert len(steps) == 1 and steps[0].after == 0  # fails at once
    if suffix == "005":
        assert steps[0].status == "PENDING" and steps[-1].after == 30


def test_quote_rows() -> None:
    assert [s.status for s in quote_outcome("005")] == ["PROCESSING", "COMPLETED", "FAILED"]
    assert quote_outcome("003")[-1].after == 360
    assert quote_outcome("007")[-1].refund is False
    assert quote_outcome(None)[-1].status == "COMPLETED"


def test_suffixes_and_receivers() -> None:
    assert suffix_of("1234567105") == "105"
    assert suffix_of("maria102@example.com") == "102"
    assert beneficiary_status("105") is None and beneficiary_status("000") == "MATCHED"
    assert uma_receiver_outcome("$success.eur@sandbox.uma.invalid") is not None
    assert uma_receiver_outcome("$someone@example.com") is None
