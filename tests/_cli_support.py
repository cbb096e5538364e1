"""What the command-line test files share: one ``ewc`` run in-process, its status and output."""

from __future__ import annotations

import pytest
from embedded_wallet_crypto.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err
