"""The error contract's property harness (issue 12), shared by the ``test_contract_*.py`` files.

Each public entry point is described once: a call and a set of valid arguments (fixed keys, so
no verdict depends on a random key). Every argument in turn is replaced by hostile values: lone
surrogates, NUL bytes, ints (small, negative, huge), floats, NaN and infinities, None, released
memoryviews, and subclasses of ``str``, ``bytes`` and ``dict`` (empty, hostile, and of the valid
value itself). Only a :class:`WalletCryptoError` or a ``TypeError`` may escape, and an int given
where bytes are expected is never accepted (it would be taken as a buffer size).

Two layers run over every entry point:

- :func:`sweep`: every argument times every fixed hostile value, exhaustively (deterministic);
- :func:`hostile_values`: a hypothesis strategy adding drawn text, bytes, ints and floats, run
  on the run's seed (the conftest: drawn anew each run and printed; ``EWC_TEST_SEED`` replays).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import embedded_wallet_crypto as ewc
from hypothesis import strategies as st


class Text(str):
    """A subclass of str."""


class Bytes(bytes):
    """A subclass of bytes."""


class Dict(dict):  # type: ignore[type-arg]
    """A subclass of dict."""


def released() -> memoryview:
    view = memoryview(b"released")
    view.release()
    return view


def _fixed() -> list[Callable[[], object]]:
    """Factories of the fixed hostile values (fresh objects on every call)."""
    values: list[object] = [
        "\ud800",
        "a\udfffb",
        "\x00",
        "a\x00b",
        "",
        0,
        32,
        -1,
        2**64,
        10**400,
        -(10**400),
        1.5,
        math.nan,
        math.inf,
        -math.inf,
        None,
        True,
        Text("ab"),
        Text("\ud800"),
        Bytes(b"ab"),
        Bytes(b"\x00"),
        b"\x00" * 3,
        Dict(),
        Dict(a=1),
        [],
        ["\ud800"],
        object(),
    ]
    return [released, *[(lambda v=v: v) for v in values]]


FIXED = _fixed()


def subclassed(value: object) -> object | None:
    """The valid value as an instance of a subclass of its own type, when it has one here."""
    if type(value) is str:
        return Text(value)
    if type(value) is bytes:
        return Bytes(value)
    if type(value) is dict:
        return Dict(value)
    return None


def hostile_values() -> st.SearchStrategy[object]:
    """Drawn hostile values (text with surrogates and NULs, bytes, ints, floats) and the fixed."""
    return st.one_of(
        st.sampled_from(FIXED).map(lambda make: make()),
        st.text(st.one_of(st.characters(), st.sampled_from("\ud800\udfff\x00")), max_size=40),
        st.binary(max_size=80),
        st.integers(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(),
        st.builds(Text, st.text(max_size=20)),
        st.builds(Bytes, st.binary(max_size=20)),
    )


@dataclass
class Entry:
    """One public entry point: ``call(**args)`` with valid ``args``."""

    name: str
    call: Callable[..., object]
    args: dict[str, Any]
    #: the arguments that are bytes (or keys given as bytes): an int there must be refused
    buffers: frozenset[str] = field(default_factory=frozenset)

    def __repr__(self) -> str:
        return self.name


@dataclass
class Violation:
    entry: str
    argument: str
    value: str
    outcome: str


def _short(value: object) -> str:
    if isinstance(value, int) and abs(value) > 10**20:
        return f"<int of {len(str(abs(value))) if abs(value) < 10**4000 else 'many'} digits>"
    try:
        text = repr(value)
    except ValueError:
        text = f"<{type(value).__name__}>"
    return text[:60]


def run(entry: Entry, argument: str, value: object) -> Violation | None:
    """Call ``entry`` with ``argument`` replaced by ``value``: a contract violation, or None."""
    args = dict(entry.args)
    args[argument] = value
    previous = ewc.default_environment()
    try:
        entry.call(**args)
    except (ewc.WalletCryptoError, TypeError):
        return None
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        return Violation(
            entry.name, argument, _short(value), f"{type(error).__name__}: {error}"[:160]
        )
    finally:
        ewc.set_default_environment(previous)
    if argument in entry.buffers and isinstance(value, int) and not isinstance(value, bool):
        return Violation(entry.name, argument, _short(value), "an int was accepted as bytes")
    return None


def values_for(entry: Entry, argument: str) -> Iterator[object]:
    for make in FIXED:
        yield make()
    sub = subclassed(entry.args[argument])
    if sub is not None:
        yield sub


def sweep(entry: Entry) -> list[Violation]:
    """Every argument of ``entry`` times every fixed hostile value (and its own subclass)."""
    found = []
    for argument in entry.args:
        for value in values_for(entry, argument):
            violation = run(entry, argument, value)
            if violation is not None:
                found.append(violation)
    return found


def check_baseline(entry: Entry) -> None:
    """The valid arguments are valid: the call succeeds."""
    previous = ewc.default_environment()
    try:
        entry.call(**entry.args)
    finally:
        ewc.set_default_environment(previous)


def report(found: list[Violation]) -> str:
    return "\n".join(f"{v.entry}({v.argument}={v.value}) -> {v.outcome}" for v in found[:30])


def property_test(entry: Entry, data: st.DataObject) -> None:
    """One hypothesis example: one argument replaced by a drawn hostile value."""
    names = sorted(entry.args)
    argument = data.draw(st.sampled_from(names), label="argument")
    value = data.draw(hostile_values(), label="value")
    violation = run(entry, argument, value)
    assert violation is None, report([violation])


def contract_tests(entries: list[Entry]) -> tuple[Callable[..., None], ...]:
    """The three tests every contract file runs over its entries, bound to module-level
    ``test_*`` names by the caller: the valid arguments work; every argument times every fixed
    hostile value; hostile values drawn by hypothesis."""
    import pytest
    from hypothesis import given, settings

    @pytest.mark.parametrize("entry", entries, ids=repr)
    def valid_arguments_are_valid(entry: Entry) -> None:
        check_baseline(entry)

    @pytest.mark.parametrize("entry", entries, ids=repr)
    def every_argument_times_every_hostile_value(entry: Entry) -> None:
        found = sweep(entry)
        assert not found, report(found)

    @pytest.mark.parametrize("entry", entries, ids=repr)
    @settings(database=None, max_examples=60)
    @given(data=st.data())
    def drawn_hostile_values(entry: Entry, data: st.DataObject) -> None:
        property_test(entry, data)

    return valid_arguments_are_valid, every_argument_times_every_hostile_value, drawn_hostile_values
