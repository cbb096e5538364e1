"""Every error code the sandbox can answer has a published code decided for its status.

The codes are found in the sandbox's source: every ``Refusal(<status>, "<CODE>", ...)``,
``error_body(<status>, "<CODE>", ...)``, ``invalid(..., "<CODE>")`` (400) and
``not_found(..., "<CODE>")`` (404) with a literal code (the helpers' defaults included). Each
must be, for its status, a code of the published list (``PUBLISHED_CODES``), a key of
``MAPPED``, or of a status the published document has no error schema for (then it is a
documented divergence of the API fuzz). A new code with none of these fails here, so that its
published code is chosen, not left to the status's default by accident.
"""

from __future__ import annotations

import ast
from pathlib import Path

from embedded_wallet_crypto.sandbox import error_codes

from ._published_fuzz import DIVERGENCES

SANDBOX = Path(__file__).resolve().parents[2] / "python" / "embedded_wallet_crypto" / "sandbox"

#: Helper -> the status it answers and the position of its code argument.
HELPERS: dict[str, tuple[int | None, int]] = {
    "Refusal": (None, 1),
    "error_body": (None, 1),
    "invalid": (400, 1),
    "not_found": (404, 1),
}
DEFAULT_CODES = {"invalid": "INVALID_INPUT", "not_found": "NOT_FOUND"}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _literal(node: ast.expr | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def raised_codes() -> dict[tuple[int, str], str]:
    """(status, code) -> the first source file that answers it."""
    found: dict[tuple[int, str], str] = {}
    for path in sorted(SANDBOX.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or _name(node.func) not in HELPERS:
                continue
            helper = _name(node.func)
            status, position = HELPERS[helper]
            if status is None:
                status = _literal(node.args[0]) if node.args else None  # type: ignore[assignment]
            code_node = node.args[position] if len(node.args) > position else None
            code_node = next((k.value for k in node.keywords if k.arg == "code"), code_node)
            code = _literal(code_node) if code_node is not None else DEFAULT_CODES.get(helper)
            if isinstance(status, int) and isinstance(code, str):
                found.setdefault((status, code), str(path.relative_to(SANDBOX)))
    return found


def _decided(status: int, code: str) -> bool:
    if (status, code) in error_codes.MAPPED:
        return True
    published = error_codes.PUBLISHED_CODES.get(status)
    if published is None:  # no published schema: a listed divergence of the fuzz
        return any(key[2] == status and key[3] == code for key in DIVERGENCES) or status == 408
    return code in published


def test_the_scan_finds_the_codes() -> None:
    """The scan sees the sandbox's codes (it would pass vacuously otherwise)."""
    codes = raised_codes()
    assert len(codes) > 50, len(codes)
    for known in ((404, "NOT_FOUND"), (400, "INVALID_INPUT"), (413, "BODY_TOO_LARGE")):
        assert known in codes, known


def test_every_raised_code_has_a_published_code() -> None:
    undecided = {key: where for key, where in sorted(raised_codes().items()) if not _decided(*key)}
    assert not undecided, f"no published code chosen for: {undecided}"


def test_every_mapped_code_is_of_its_status() -> None:
    for (status, _), published in error_codes.MAPPED.items():
        assert published in error_codes.PUBLISHED_CODES[status], (status, published)


def test_the_docs_list_the_table() -> None:
    """``docs/sandbox-names.md`` has a row for every mapped code and every default."""
    page = (SANDBOX.parents[2] / "docs" / "sandbox-names.md").read_text(encoding="utf-8")
    for (status, code), published in error_codes.MAPPED.items():
        assert f"| {status} | `{code}` | `{published}` |" in page, (status, code)
    for status, code in error_codes.DEFAULTS.items():
        assert f"| {status} | `{code}` |" in page, (status, code)
