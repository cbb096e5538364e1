"""The fuzzer's inputs: the valid cases of vectors/*.json, its hostile values (lone surrogates,
NUL, huge and special numbers, released memoryviews, subclasses of str, bytes and dict) and its
mutations of valid inputs."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any


class StrSub(str):
    pass


class BytesSub(bytes):
    pass


class DictSub(dict):  # type: ignore[type-arg]
    pass


def released_view() -> memoryview:
    view = memoryview(b"\x04" * 65)
    view.release()
    return view


HOSTILE: list[Callable[[], object]] = [
    lambda: None,
    lambda: 0,
    lambda: -1,
    lambda: 32,
    lambda: 2**64,
    lambda: 10**400,
    lambda: -(10**400),
    lambda: 1.5,
    lambda: math.nan,
    lambda: math.inf,
    lambda: True,
    lambda: "",
    lambda: "\ud800",
    lambda: "\udfff" * 3,
    lambda: "\x00",
    lambda: "a\x00b",
    lambda: "\u0660\u0661",  # Arabic-Indic digits
    lambda: "\uff10" * 66,  # fullwidth zeros
    lambda: b"",
    lambda: b"\x00" * 65,
    lambda: bytearray(b"\x04" * 65),
    lambda: released_view(),
    lambda: StrSub("02" + "00" * 32),
    lambda: BytesSub(b"\x02" + b"\x00" * 32),
    lambda: DictSub(),
    lambda: {},
    lambda: [],
    lambda: (),
    lambda: {"\ud800": "\ud800"},
    lambda: object(),
    lambda: "x" * 5000,
]


def mutate(rng: random.Random, value: object) -> object:
    """A hostile value, or a small mutation of `value` (str, bytes or a JSON-able dict)."""
    if rng.random() < 0.3:
        return rng.choice(HOSTILE)()
    if isinstance(value, (bytes, bytearray)):
        data = bytearray(value)
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(4)
            if op == 0 and data:
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            elif op == 1 and data:
                del data[rng.randrange(len(data))]
            elif op == 2:
                data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
            elif data:
                data = data[: rng.randrange(len(data))]
        out: object = bytes(data)
        return BytesSub(out) if rng.random() < 0.1 else out  # type: ignore[arg-type]
    if isinstance(value, str):
        chars = list(value)
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(5)
            pool = '\ud800\x00\u00e9 {}"\\0aAzZ19+/=-_.\n'
            if op == 0 and chars:
                chars[rng.randrange(len(chars))] = rng.choice(pool)
            elif op == 1 and chars:
                del chars[rng.randrange(len(chars))]
            elif op == 2:
                chars.insert(rng.randrange(len(chars) + 1), rng.choice(pool))
            elif op == 3 and chars:
                i = rng.randrange(len(chars))
                chars[i] = chr(ord(chars[i]) ^ (1 << rng.randrange(7)))
            elif chars:
                chars = chars[: rng.randrange(len(chars))]
        text = "".join(chars)
        return StrSub(text) if rng.random() < 0.1 else text
    if isinstance(value, dict):
        copy = dict(value)
        if copy:
            key = rng.choice(list(copy))
            copy[key] = mutate(rng, copy[key])
        return DictSub(copy) if rng.random() < 0.2 else copy
    return rng.choice(HOSTILE)()


def diff(old: object, new: object) -> str:
    """A short description of a mutation (the first differing item of a dict)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if not same(old[key], new.get(key)):
                return f"[{key!r}] {old[key]!r:.60} -> {new.get(key)!r:.60}"
    return f"{old!r:.60} -> {new!r:.60}"


def same(a: object, b: object) -> bool:
    """Equal content (a bytes or str subclass with the same content is not a change)."""
    one_of_each = isinstance(a, str) != isinstance(b, str)
    if one_of_each and isinstance(a, (str, bytes)) and isinstance(b, (str, bytes)):
        text, data = (a, b) if isinstance(a, str) else (b, a)
        return text.encode("utf-8", "surrogatepass") == bytes(data)  # payloads take either
    for kind in (bytes, str):
        if isinstance(a, kind) and isinstance(b, kind):
            return kind(a) == kind(b)  # type: ignore[call-arg]
    return type(a) is type(b) and a == b


ROOT = Path(__file__).resolve().parents[2]


def cases(name: str, operation: str) -> list[dict[str, Any]]:
    data = json.loads((ROOT / "vectors" / name).read_text(encoding="utf-8"))
    return [c for c in data["cases"] if c["operation"] == operation]


def h(text: str) -> bytes:
    return bytes.fromhex(text)
