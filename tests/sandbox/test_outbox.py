"""The mail directory (the sandbox's outbox) keeps the newest emails only: past its cap the
oldest are removed as new ones are written, so that no client can grow it without bound."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from embedded_wallet_crypto.sandbox import services


def _recipients(directory: Path) -> list[str]:
    found = []
    for path in sorted(directory.glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        found.append(str(message["To"]))
    return found


def test_the_outbox_keeps_the_newest(tmp_path: Path) -> None:
    settings: Any = SimpleNamespace(mail_dir=tmp_path / "mail")
    mailer = services.Mailer(cast(Any, settings))
    assert mailer.max_files == services.MAX_OUTBOX_FILES == 10_000
    mailer.max_files = 3
    for index in range(5):
        mailer.send(f"user{index}@example.com", "SMS", f"Your verification code is: 00000{index}\n")
    assert _recipients(tmp_path / "mail") == [f"user{i}@example.com" for i in (2, 3, 4)]
    assert not list((tmp_path / "mail").glob("*.tmp"))
