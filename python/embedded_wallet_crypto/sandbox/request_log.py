"""The request log behind ``GET /sandbox/requests`` (sandbox only): the method, the path (with
code parameters hidden, never the query), the status, the duration and the error ``code`` of
each answered request; never a header or a body.

Kept in the database, so that every process of ``ewc serve --workers N`` (and every service on
one database) lists the same requests: each process collects its requests in memory and its
worker writes them in one insert per tick (0.1 s), so a request costs no write of its own; the
process that answers ``GET /sandbox/requests`` writes its own first, another process's newest
requests may be up to a tick late. The table keeps the newest :data:`MAX_RECORDS` rows (older
ones are deleted at each write), and a process holds at most :data:`MAX_PENDING` unwritten
ones (past that the oldest are dropped): bounded in memory and on disk.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from sqlalchemy import delete, insert, select

from .clock import Clock, iso
from .db.engine import Database
from .db.tables_control import RequestRecord

__all__ = [
    "LOGGED_PATH_CHARACTERS",
    "MAX_PENDING",
    "MAX_RECORDS",
    "ROUTE_TEMPLATE_KEY",
    "RequestLog",
    "error_code",
    "has_codes",
    "logged_path",
    "nearest_template",
]

#: The most requests the database keeps (the newest).
MAX_RECORDS = 1000
#: The most requests a process holds before its worker writes them.
MAX_PENDING = 1000
#: The longest path written to a log (longer ones are cut, with "...").
LOGGED_PATH_CHARACTERS = 200
#: The most bytes of an error answer read to find its ``code``.
_CODE_BYTES = 4096
#: Where the request gate leaves the full template of the request's route (``gate``).
ROUTE_TEMPLATE_KEY = "ewc.route_template"
#: What a logged path segment shows as it is (RFC 3986 ``pchar``); the rest is percent-encoded.
_PATH_SAFE = "!$&'()*+,;=:@~"


def _is_code(name: str) -> bool:
    return name.lower().endswith("code")


def _parameter(segment: str) -> str | None:
    """The parameter name of a template segment (``{name}``, ``{name:convertor}``), or None."""
    if not (segment.startswith("{") and segment.endswith("}")):
        return None
    return segment[1:-1].split(":", 1)[0]


def _segments(path: str) -> list[str]:
    return [part for part in path.split("/") if part]


def has_codes(template: str) -> bool:
    """Whether a route template has a code parameter (its name ends in ``code``)."""
    names = (_parameter(segment) for segment in template.split("/"))
    return any(name is not None and _is_code(name) for name in names)


def nearest_template(path: str, templates: Iterable[str]) -> str | None:
    """The first of ``templates`` whose segments the (decoded) ``path``'s non-empty segments
    begin with (a parameter takes any segment), or None: the route a path that matches none
    (a trailing or doubled slash, a segment too many) was meant for, so that its codes are
    hidden all the same."""
    segments = _segments(path)
    for template in templates:
        wanted = _segments(template)
        if len(segments) >= len(wanted) and all(
            _parameter(segment) is not None or segment == part
            for part, segment in zip(segments, wanted, strict=False)
        ):
            return template
    return None


def _by_template(parts: list[str], template: str) -> list[str]:
    """The path's segments ``parts`` with each one that the ``template`` has as a code
    parameter (``{code}``, ``{deviceCode}``) written as that parameter; the non-empty
    segments are read against the template's in order (empty ones and those past its end keep
    their place)."""
    wanted = iter(_segments(template))
    shown = list(parts)
    for position, part in enumerate(parts):
        if not part:
            continue
        segment = next(wanted, None)
        if segment is None:
            break
        name = _parameter(segment)
        if name is not None and _is_code(name):
            shown[position] = "{" + name + "}"
    return shown


def logged_path(scope: MutableMapping[str, Any]) -> str:
    """The request's path for a log, percent-encoded, without the query string, and with the
    path parameters that are codes (a device code, an invitation code: their names end in
    ``code``) shown as ``{name}``: by the route template the request gate matched (so in the
    gate's own answers too; for a path that matches no route, the code route it begins with),
    else by the router's ``path_params``. The path is the one the router read (decoded), so
    that an encoded slash (``%2F``) cannot move a code out of its segment."""
    parts = str(scope.get("path") or "").split("/")
    hidden = [False] * len(parts)
    template = scope.get(ROUTE_TEMPLATE_KEY)
    if isinstance(template, str):
        shown = _by_template(parts, template)
        hidden = [new != old for new, old in zip(shown, parts, strict=True)]
        parts = shown
    parameters = scope.get("path_params")  # filled in by the router once a route matched
    if isinstance(parameters, dict):
        codes = {
            str(value): "{" + str(name) + "}"
            for name, value in parameters.items()
            if _is_code(str(name))
        }
        for position, part in enumerate(parts):
            if not hidden[position] and part in codes:
                parts[position], hidden[position] = codes[part], True
    path = "/".join(
        part if hidden[position] else quote(part, safe=_PATH_SAFE)
        for position, part in enumerate(parts)
    )
    if len(path) > LOGGED_PATH_CHARACTERS:
        path = path[:LOGGED_PATH_CHARACTERS] + "..."
    return path


def error_code(body: bytes) -> str | None:
    """The ``code`` of an error answer's JSON body, if it has one."""
    try:
        parsed = json.loads(body[:_CODE_BYTES])
    except (ValueError, UnicodeDecodeError):
        return None
    code = parsed.get("code") if isinstance(parsed, dict) else None
    return code[:100] if isinstance(code, str) else None


#: Delete all but the newest :data:`MAX_RECORDS` rows (nothing while there are fewer).
_TRIM = delete(RequestRecord).where(
    RequestRecord.id
    < select(RequestRecord.id)
    .order_by(RequestRecord.id.desc())
    .offset(MAX_RECORDS - 1)
    .limit(1)
    .scalar_subquery()
)


@dataclass(frozen=True)
class _Entry:
    at: datetime
    method: str
    path: str
    status: int
    duration_ms: float
    code: str | None


class RequestLog:
    """One process's unwritten requests, and their writing to the database."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self._pending: deque[_Entry] = deque(maxlen=MAX_PENDING)
        self._writing = threading.Lock()

    def record(
        self, method: str, path: str, status: int, duration_ms: float, code: str | None
    ) -> None:
        """Note one answered request (in memory; :meth:`flush` writes it)."""
        self._pending.append(
            _Entry(Clock.now(), method[:10], path, status, round(duration_ms, 3), code)
        )

    def flush(self) -> None:
        """Write the noted requests (one insert, its rows batched), then keep only the newest
        rows (one delete); on PostgreSQL outside a transaction (the cap is kept at every write,
        whichever process wrote last)."""
        with self._writing:
            entries = []
            while self._pending:
                entries.append(self._pending.popleft())
            if not entries:
                return
            rows = [
                {
                    "at": entry.at,
                    "method": entry.method,
                    "path": entry.path,
                    "status": entry.status,
                    "duration_ms": entry.duration_ms,
                    "code": entry.code,
                }
                for entry in entries
            ]
            with self.database.writes() as connection:
                connection.execute(insert(RequestRecord), rows)  # one compiled statement
                connection.execute(_TRIM)

    def recent(self, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` requests, newest first (this process's written first)."""
        self.flush()
        with self.database.sessions() as db:
            rows = db.scalars(
                select(RequestRecord)
                .order_by(RequestRecord.at.desc(), RequestRecord.id.desc())
                .limit(limit)
            ).all()
            return [
                {
                    "at": iso(row.at),
                    "method": row.method,
                    "path": row.path,
                    "status": row.status,
                    "durationMs": row.duration_ms,
                    "code": row.code,
                }
                for row in rows
            ]
