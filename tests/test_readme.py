"""The Python examples of the README and of every documentation page run as written (each page
top to bottom in one namespace), so the pages stay true. The clean-room install runs the README's
examples again from a bare virtualenv with only the wheel installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from conftest import REPO

_spec = importlib.util.spec_from_file_location("doc_examples", REPO / "scripts" / "doc_examples.py")
assert _spec is not None and _spec.loader is not None
doc_examples = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(doc_examples)

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def test_readme_has_examples() -> None:
    assert len(doc_examples.python_blocks((REPO / "README.md").read_text())) >= 2


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_page_python_examples_run(page: Path) -> None:
    doc_examples.run_page(page)
