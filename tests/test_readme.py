"""The README's Python examples run as written, so the front page stays true."""

from __future__ import annotations

import re

from conftest import REPO


def test_readme_python_examples_run() -> None:
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    exec(compile("\n".join(blocks), "README.md", "exec"), {})
