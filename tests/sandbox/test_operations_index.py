"""``docs/sandbox-operations-index.md`` stays true to the routes the service serves.

- Its published table has one row per operation of the published document, marked ``yes``
  exactly when the service serves that operation (by method and path shape).
- Its sandbox-only table lists exactly the served operations the published document lacks.
- Every served operation's link names a page of ``docs/`` and a heading of that page.

A failure names the rows to add or change, in the page's own format, so that an operation
added to the service is one row in the page.
"""

from __future__ import annotations

import re
from pathlib import Path

from _ci import skip_or_fail
from markdown.extensions.toc import slugify

from ._fuzz_operations import (
    _GRID_MISSING,
    _grid_document,
    _grid_operations,
    _grid_path,
    _published,
    _served_operations,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = DOCS / "sandbox-operations-index.md"
_PUBLISHED_ROW = re.compile(r"^\| `([A-Z]+) (/\S*)` \| (yes|no) \| (.+) \|$", re.M)
_SANDBOX_ROW = re.compile(r"^\| `([A-Z]+) (/\S*)` \| (.+) \|$", re.M)
_LINK = re.compile(r"^\[[^\]]+\]\(([\w-]+\.md)(?:#([\w-]+))?\)$")


def _sections() -> tuple[str, str]:
    text = PAGE.read_text(encoding="utf-8")
    published, _, sandbox_only = text.partition("## Sandbox-only operations")
    assert sandbox_only, "the page has no 'Sandbox-only operations' section"
    return published, sandbox_only


def _anchors(page: Path) -> set[str]:
    """The ids MkDocs gives the page's headings (the toc extension's slugify)."""
    headings = re.findall(r"^#{1,6} (.+?)\s*$", page.read_text(encoding="utf-8"), re.M)
    return {slugify(re.sub(r"[`*]", "", heading), "-") for heading in headings}


def _check_link(operation: str, link: str) -> None:
    found = _LINK.match(link)
    assert found, f"{operation}: the link {link!r} is not [title](page.md#heading)"
    page, anchor = DOCS / found.group(1), found.group(2)
    assert page.is_file(), f"{operation}: {found.group(1)} is not a page of docs/"
    assert anchor is None or anchor in _anchors(page), f"{operation}: no heading #{anchor}"


def test_the_index_lists_every_published_operation_and_what_is_served(
    tmp_path: Path,
) -> None:
    if _grid_path() is None:
        skip_or_fail(_GRID_MISSING)
    published_text, _ = _sections()
    rows = {(m, p): (served, link) for m, p, served, link in _PUBLISHED_ROW.findall(published_text)}
    document = {(method, path) for (method, _), path in _grid_operations().items()}
    assert len(document) == sum(
        1
        for item in _grid_document()["paths"].values()
        for method in item
        if method in ("get", "put", "post", "patch", "delete")
    )
    served = {_published(m, p) for m, p in _served_operations(tmp_path)} - {None}
    wanted = {op: "yes" if op in served else "no" for op in document}
    wrong = {
        f"| `{m} {p}` | {state} | " + ("[title](page.md#heading)" if state == "yes" else "—") + " |"
        for (m, p), state in sorted(wanted.items())
        if rows.get((m, p), ("", ""))[0] != state
    }
    assert not wrong, "rows to add or change in the index:\n" + "\n".join(sorted(wrong))
    assert set(rows) == document, f"rows of no published operation: {set(rows) - document}"
    for (method, path), (state, link) in rows.items():
        if state == "yes":
            _check_link(f"{method} {path}", link)
        else:
            assert link == "—", (method, path, link)


def test_the_index_lists_the_sandbox_only_operations(tmp_path: Path) -> None:
    if _grid_path() is None:
        skip_or_fail(_GRID_MISSING)
    _, sandbox_text = _sections()
    rows = {(m, p): link for m, p, link in _SANDBOX_ROW.findall(sandbox_text)}
    only = {op for op in _served_operations(tmp_path) if _published(*op) is None}
    missing = [f"| `{m} {p}` | [title](page.md#heading) |" for m, p in sorted(only - set(rows))]
    assert not missing, "rows to add to the sandbox-only table:\n" + "\n".join(missing)
    assert set(rows) == only, f"listed, not served: {set(rows) - only}"
    for (method, path), link in rows.items():
        _check_link(f"{method} {path}", link)


def test_the_page_counts_what_it_lists() -> None:
    published_text, _ = _sections()
    rows = _PUBLISHED_ROW.findall(published_text)
    served = sum(1 for row in rows if row[2] == "yes")
    assert f"serves {served} of the published document's {len(rows)} operations" in " ".join(
        published_text.split()
    )
