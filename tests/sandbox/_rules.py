"""What the tests of the sandbox's rules as plain functions share (the agents' rules, the list
queries, the KYB/KYC tables and invitations): a refusal's status and code, and a fixed moment."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from embedded_wallet_crypto.sandbox.domain import errors

UTC = timezone.utc
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def refusal(excinfo: pytest.ExceptionInfo[errors.Refusal]) -> tuple[int, str]:
    return excinfo.value.status, excinfo.value.code
