"""Hostile requests and the answers the service owes them.

A hostile variant of a valid request is answered with what the test knows it must get: a
refusal (a 4xx in the error shape ``{status, code, reason}``, ``status`` the HTTP status, and
the expected ``code``) when the variant is invalid, and the valid request's own answer when
the variant stays valid (an optional field left out or null, any text a free-text field
takes). A success where a refusal is owed fails, as does a refusal with another code.

:class:`Answers` collects every mismatch of a test and lists them all at its end.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

#: Values each field is replaced with (a wrong type, an edge number, bad text, a huge string).
HOSTILE: list[Any] = [
    *(None, 0, -1, 1.5, True, "", "\x00", "\ud800", "x" * 30000, [], {}, [1]),
    *(2**63, -(2**63) - 1, 10**30, "Quote:\ud800", "InternalAccount:" + "x" * 300),
]
#: Bodies that are not the JSON object an endpoint takes.
NOT_OBJECTS: list[Any] = [None, [], "text", 7]


@dataclass(frozen=True)
class Outcome:
    """An expected answer: a status, and the error code for an error (None for a success)."""

    status: int
    code: str | None = None


INVALID = Outcome(400, "INVALID_INPUT")
NOT_FOUND = Outcome(404, "NOT_FOUND")
FORBIDDEN = Outcome(403, "FORBIDDEN")


def error_code(response: httpx.Response) -> str:
    """The code of an error answer, after checking its shape: a 4xx whose body is exactly
    ``{status, code, reason}`` with ``status`` the HTTP status."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"status", "code", "reason"}, body
    assert body["status"] == response.status_code, body
    assert isinstance(body["reason"], str) and body["reason"], body
    code: str = body["code"]
    return code


def mismatch(response: httpx.Response, expected: Outcome) -> str | None:
    """What is wrong with the answer (None: it is the expected one)."""
    got = response.status_code
    if expected.code is None:
        return None if got == expected.status else f"{got} {response.text[:200]}"
    if got >= 500 or got < 400:
        return f"{got} {response.text[:200]}"
    try:
        code = error_code(response)
    except (AssertionError, ValueError) as problem:
        return f"{got}: not the error shape: {problem}"
    if (got, code) == (expected.status, expected.code):
        return None
    return f"{got} {code}: {response.json()['reason']}"


def refused(response: httpx.Response, expected: Outcome = INVALID) -> None:
    """Assert that the answer is exactly ``expected`` (a refusal, unless its code is None)."""
    problem = mismatch(response, expected)
    assert problem is None, f"expected {expected.status} {expected.code}, got {problem}"


class Answers:
    """Collects the mismatches of many requests; :meth:`done` fails listing all of them."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.count = 0

    def expect(self, response: httpx.Response, expected: Outcome, label: Any = "") -> None:
        self.count += 1
        problem = mismatch(response, expected)
        if problem is not None:
            request = response.request
            self.problems.append(
                f"{request.method} {str(request.url.path)[:80]} {str(label)[:80]}: expected "
                f"{expected.status} {expected.code or ''}, got {problem}"
            )

    def done(self) -> None:
        assert self.count, "no request was checked"
        shown = "\n".join(self.problems[:40])
        assert not self.problems, f"{len(self.problems)} of {self.count} answers wrong:\n{shown}"


#: ``(field, value) -> True`` for the further variants a test knows to stay valid.
Also = Callable[[str, Any], bool]


def _stays_valid(
    name: str,
    value: Any,
    original: Any,
    nullable: frozenset[str],
    text: Mapping[str, int | tuple[int, int]],
    also: Also | None,
) -> bool:
    """Whether ``value`` in field ``name`` (dotted) keeps the request valid."""
    if value == original and type(value) is type(original):
        return True
    if also is not None and also(name, value):
        return True
    if value is None:
        return name in nullable
    bounds = text.get(name)
    if bounds is None or not isinstance(value, str) or "\x00" in value:
        return False
    shortest, longest = bounds if isinstance(bounds, tuple) else (0, bounds)
    if not shortest <= len(value) <= longest:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def variants(
    valid: dict[str, Any],
    *,
    omittable: Iterable[str] = (),
    nullable: Iterable[str] = (),
    text: Mapping[str, int | tuple[int, int]] | None = None,
    also: Also | None = None,
    hostile: list[Any] = HOSTILE,
) -> list[tuple[str, Any, bool]]:
    """``(label, body, still_valid)`` for each variant of ``valid``: bodies that are not objects (or
    are the valid one in a list), each field (and each field of a nested object) left out or
    replaced by each hostile value. The fields are named dotted (``source.accountId``):
    ``omittable`` ones may be left out, ``nullable`` ones may be null, and ``text`` gives the
    free-text fields with their longest length, or their (shortest, longest) lengths (any other
    text is refused); ``also`` names
    further ``(field, value)`` pairs that stay valid."""
    left_out, null = frozenset(omittable), frozenset(nullable)
    text = dict(text or {})
    found: list[tuple[str, Any, bool]] = [
        (f"body {json.dumps(body)[:20]}", body, False) for body in [*NOT_OBJECTS, [valid]]
    ]

    def each(name: str, original: Any, place: Any) -> None:
        found.append((f"{name} left out", place(_LEFT_OUT), name in left_out))
        for bad in hostile:
            label = f"{name}={json.dumps(bad)[:40]}"
            found.append((label, place(bad), _stays_valid(name, bad, original, null, text, also)))

    for name, value in valid.items():
        each(name, value, lambda bad, name=name: _replaced(valid, name, bad))
        if isinstance(value, dict):
            for inner, inner_value in value.items():
                each(
                    f"{name}.{inner}",
                    inner_value,
                    lambda bad, name=name, inner=inner, value=value: {
                        **valid,
                        name: _replaced(value, inner, bad),
                    },
                )
    return found


#: Stands for "no value": the field is left out.
_LEFT_OUT = object()


def _replaced(body: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    if value is _LEFT_OUT:
        return {k: v for k, v in body.items() if k != name}
    return {**body, name: value}


def send(http: httpx.Client, method: str, path: str, body: Any) -> httpx.Response:
    """The body as JSON bytes: a lone surrogate goes out as its JSON escape, as a hostile
    client sends it."""
    return http.request(
        method,
        path,
        content=json.dumps(body, ensure_ascii=True).encode(),
        headers={"content-type": "application/json"},
    )
