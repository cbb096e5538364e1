"""Recovery codes (ewc.totp.RecoveryCodes): the format, entropy as far as a test can see it,
only keyed hashes stored, each code used once on every backend, a new set replacing the old,
typing slips forgiven (case, hyphens, spaces, O/0, I/L/1) and everything else refused with
RECOVERY_CODE_INVALID."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import stores, totp

HASH_KEY = b"recovery codes test hash key 012"
FORMAT = re.compile(r"[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}")
INVALID = ("RECOVERY_CODE_INVALID", 401)


def fails(call: Any, code: str, status: int) -> ewc.TotpError:
    with pytest.raises(ewc.TotpError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == (code, status), repr(raised.value)
    return raised.value


def test_the_format_and_the_count() -> None:
    codes = totp.RecoveryCodes(hash_key=HASH_KEY).generate("Factor:1")
    assert len(codes) == 10 and len(set(codes)) == 10
    assert all(FORMAT.fullmatch(code) for code in codes), codes
    assert len(totp.RecoveryCodes(hash_key=HASH_KEY, count=3).generate("Factor:1")) == 3


def test_the_characters_are_spread_over_the_whole_alphabet() -> None:
    """80 bits a code: 16 characters of 32. Over 500 sets (80,000 characters) each character
    turns up about 2,500 times; a generator using a smaller alphabet or a bias shows here."""
    recovery = totp.RecoveryCodes(hash_key=HASH_KEY)
    seen: Counter[str] = Counter()
    codes: set[str] = set()
    for index in range(500):
        batch = recovery.generate(f"Factor:{index}")
        codes.update(batch)
        seen.update("".join(batch).replace("-", ""))
    assert set(seen) == set(totp.RECOVERY_CODE_ALPHABET)
    assert all(2000 < count < 3000 for count in seen.values()), seen
    assert len(codes) == 5000


def test_each_code_is_used_once_on_every_backend(store: Any) -> None:
    recovery = totp.RecoveryCodes(store, hash_key=HASH_KEY)
    codes = recovery.generate("Factor:1")
    assert recovery.left("Factor:1") == 10
    used = recovery.use("Factor:1", codes[3])
    assert (used.factor_id, used.codes_left) == ("Factor:1", 9)
    error = fails(lambda: recovery.use("Factor:1", codes[3]), *INVALID)
    assert codes[3] not in str(error) and codes[3].replace("-", "") not in str(error)
    fails(lambda: recovery.use("Factor:2", codes[4]), *INVALID)  # another factor's set
    for code in codes[:3] + codes[4:]:
        recovery.use("Factor:1", code)
    assert recovery.left("Factor:1") == 0


def test_a_new_set_replaces_the_unused_codes(store: Any) -> None:
    recovery = totp.RecoveryCodes(store, hash_key=HASH_KEY)
    old = recovery.generate("Factor:1")
    new = recovery.generate("Factor:1")
    assert not set(old) & set(new)
    fails(lambda: recovery.use("Factor:1", old[0]), *INVALID)
    assert recovery.use("Factor:1", new[0]).codes_left == 9


def test_a_code_is_bound_to_the_server_key() -> None:
    store = stores.MemoryStore()
    codes = totp.RecoveryCodes(store, hash_key=HASH_KEY).generate("Factor:1")
    other = totp.RecoveryCodes(store, hash_key=b"another server key, 32 bytes ok")
    fails(lambda: other.use("Factor:1", codes[0]), *INVALID)


def test_only_keyed_hashes_are_stored(tmp_path: Path) -> None:
    store = stores.SqliteStore(tmp_path / "s.db")
    codes = totp.RecoveryCodes(store, hash_key=HASH_KEY).generate("Factor:1")
    rows = sqlite3.connect(tmp_path / "s.db").execute("SELECT * FROM recovery_codes").fetchall()
    assert len(rows) == 10
    dump = repr(rows)
    for code in codes:
        assert code not in dump and code.replace("-", "") not in dump
    assert all(re.fullmatch(r"[0-9a-f]{64}", code_hash) for _, code_hash in rows)
    store.close()


@pytest.mark.parametrize(
    "typed",
    [
        lambda code: code.lower(),
        lambda code: code.replace("-", ""),
        lambda code: code.replace("-", " "),
        lambda code: f"  {code} ",
        lambda code: code.replace("0", "O").replace("1", "I"),
        lambda code: code.replace("1", "l"),
    ],
)
def test_typing_slips_are_forgiven(typed: Any) -> None:
    recovery = totp.RecoveryCodes(hash_key=HASH_KEY, count=100)
    codes = recovery.generate("Factor:1")
    code = next((c for c in codes if "0" in c and "1" in c), codes[0])
    assert recovery.use("Factor:1", typed(code)).codes_left == 99


@pytest.mark.parametrize(
    "code",
    [None, 12345678, b"ABCD-EFGH-JKMN-PQRS", "", "ABCD-EFGH-JKMN", "ABCD-EFGH-JKMN-PQRS-TVWX",
     "ABCD-EFGH-JKMN-PQRU", "ÀBCD-EFGH-JKMN-PQRS", "ABCD_EFGH_JKMN_PQRS", "-" * 10**6,
     "ABCD-EFGH-JKMN-PQR\ud800"],
)  # fmt: skip
def test_anything_else_is_invalid(code: Any) -> None:
    recovery = totp.RecoveryCodes(hash_key=HASH_KEY)
    recovery.generate("Factor:1")
    fails(lambda: recovery.use("Factor:1", code), *INVALID)
    assert recovery.left("Factor:1") == 10


@pytest.mark.parametrize("factor_id", ["", "x" * 201, "a\ud800", None])
def test_a_bad_factor_id(factor_id: Any) -> None:
    recovery = totp.RecoveryCodes(hash_key=HASH_KEY)
    for call in (
        lambda: recovery.generate(factor_id),
        lambda: recovery.use(factor_id, "ABCD-EFGH-JKMN-PQRS"),
        lambda: recovery.left(factor_id),
    ):
        fails(call, "TOTP_FACTOR_INVALID", 400)


def test_the_configuration_is_checked() -> None:
    for key in (b"short", "a string key of 32 characters!!", None):
        fails(lambda k=key: totp.RecoveryCodes(hash_key=k), "TOTP_CONFIG_INVALID", 500)
    for count in (0, 101):
        fails(
            lambda c=count: totp.RecoveryCodes(hash_key=HASH_KEY, count=c),
            "TOTP_CONFIG_INVALID",
            500,
        )
    for count in (True, 10.0, "10"):
        with pytest.raises(TypeError):
            totp.RecoveryCodes(hash_key=HASH_KEY, count=count)  # type: ignore[arg-type]
