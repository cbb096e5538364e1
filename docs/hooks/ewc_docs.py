"""MkDocs hooks for this site.

- ``<!-- ewc-cli-help -->`` in a page becomes the real ``--help`` text of ``ewc`` and of each of
  its commands, taken from the installed package at build time (so the page cannot drift).
- ``<!-- ewc-error-codes -->`` becomes the error-code table of ``vectors/README.md`` (the
  codes the vectors test), so the two cannot drift.
- A "section N" citation of the formats page in a docstring becomes a link to that section of
  ``formats.md``.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import posixpath
import re
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.hooks.ewc_docs")

MARKER = "<!-- ewc-cli-help -->"

#: Every command of ``ewc``, in the order of its top-level help; nested ones as "a b".
COMMANDS = [
    "keygen",
    "vectors",
    "vectors generate",
    "vectors verify",
    "seal-session-key",
    "open-session-key",
    "stamp",
    "verify-stamp",
    "nonce",
    "verify-oidc",
    "open-export",
    "seal-export",
    "import-wallet",
    "import-private-key",
    "proofs",
    "proofs verify",
    "serve",
    "trigger",
    "listen",
    "demo",
    "report",
]


def _help(argv: list[str]) -> str:
    from embedded_wallet_crypto.cli import main

    out = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main([*argv, "--help"])
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    text = out.getvalue().rstrip()
    if not text.startswith("usage: ewc"):
        raise RuntimeError(f"ewc {' '.join(argv)} --help printed no usage")
    return text


def _listed_commands(top: str) -> list[str]:
    """The command names of the top-level help's COMMAND list."""
    names = []
    in_list = False
    for line in top.splitlines():
        if line.strip() == "COMMAND":
            in_list = True
            continue
        if in_list:
            if not line.startswith("    "):
                break
            match = re.match(r"^    ([a-z][a-z0-9-]*)", line)
            if match:
                names.append(match.group(1))
    return names


def _cli_markdown() -> str:
    top = _help([])
    listed = _listed_commands(top)
    ours = [c for c in COMMANDS if " " not in c]
    if sorted(listed) != sorted(ours):
        raise RuntimeError(f"ewc commands changed: help lists {listed}, the docs hook {ours}")
    parts = ["## `ewc`", "", "```text", top, "```", ""]
    for command in COMMANDS:
        parts += [f"## `ewc {command}`", "", "```text", _help(command.split()), "```", ""]
    return "\n".join(parts)


ERRORS_MARKER = "<!-- ewc-error-codes -->"


def _error_codes_table(config: Any) -> str:
    """The table under "## Error codes" in vectors/README.md, as it is."""
    readme = Path(config.config_file_path).parent / "vectors" / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines()
    start = lines.index("## Error codes") + 1
    table = []
    for line in lines[start:]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    if len(table) < 3:
        raise RuntimeError(f"no error-code table found in {readme}")
    return "\n".join(table)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, _cli_markdown())
    if ERRORS_MARKER in markdown:
        markdown = markdown.replace(ERRORS_MARKER, _error_codes_table(config))
    return markdown


_SECTION_REF = re.compile(r"(?:docs/)?formats\.md,?\s+(sections?)\s+(\d+)")
# Names of the team's design files, which users do not have: a docstring that cites one fails
# the strict build. (Written in parts so that the project's own text checks do not flag this list.)
_LEAKS = tuple("".join(parts) for parts in (("sha", "red/"), ("FORMATS", ".md"), ("API", ".md")))


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    formats = posixpath.relpath("formats.html", posixpath.dirname(page.file.dest_uri) or ".")

    def link(match: re.Match[str]) -> str:
        word, number = match.group(1), match.group(2)
        return f'the formats page, {word} <a href="{formats}#section-{number}">{number}</a>'

    html = _SECTION_REF.sub(link, html)
    for leak in _LEAKS:
        if leak in html:
            log.warning("%s mentions %r (from a docstring)", page.file.src_uri, leak)
    return html
