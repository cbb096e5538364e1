"""Runs the Python examples of Markdown pages as a reader would: every ```python block of a page,
top to bottom, in one namespace per page. Used by the clean-room install check (a bare virtualenv
with only the wheel and its declared dependencies) and by tests/test_readme.py.

Usage: python scripts/doc_examples.py PAGE.md [PAGE.md ...]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a Markdown text (```py blocks are illustrations, not run)."""
    return _BLOCK.findall(text)


def run_page(path: Path, namespace: dict[str, Any] | None = None) -> int:
    """Executes the page's blocks in one namespace (a fresh one, or the ``namespace`` given,
    which holds the page's names afterwards); returns how many blocks ran."""
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    names = {} if namespace is None else namespace
    names.setdefault("__name__", "__doc_example__")
    exec(compile("\n".join(blocks), str(path), "exec"), names)  # noqa: S102
    return len(blocks)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    for name in argv:
        count = run_page(Path(name))
        print(f"{name}: {count} python blocks ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
