"""The sandbox stores every timestamp as UTC: an aware value is converted, and a naive one (a
list filter's ``startDate`` given without a zone) is taken as UTC, whatever the host's zone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest
from _ci import require_module

require_module("sqlalchemy", "the sandbox extra is not installed")  # fails under CI=true

from embedded_wallet_crypto.sandbox.db.base import UtcDateTime  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@pytest.fixture
def host_in_new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_naive_value_is_utc_on_a_host_in_another_zone(host_in_new_york: None) -> None:
    column = UtcDateTime()
    naive = datetime(2026, 11, 23, 12, 0, 0)
    assert column.process_bind_param(naive, None) == naive  # not shifted by five hours
    assert column.process_result_value(naive, None) == naive.replace(tzinfo=timezone.utc)


@given(
    moment=st.datetimes(
        min_value=datetime(1971, 1, 1),
        max_value=datetime(2200, 1, 1),
        timezones=st.just(timezone.utc),
    ),
    offset=st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_aware_values_round_trip_to_the_same_instant(moment: datetime, offset: int) -> None:
    column = UtcDateTime()
    shown = moment.astimezone(timezone(timedelta(minutes=offset)))
    stored = column.process_bind_param(shown, None)
    assert stored is not None and stored.tzinfo is None
    assert column.process_result_value(stored, None) == moment
