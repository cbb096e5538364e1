"""The operations the sandbox service serves, pinned: every one the published document shares
(``SHARED_OPERATIONS``), plus the sandbox-only ``GET /sandbox/webhook-public-key`` and the events
tools (``GET /sandbox/events``, resend, trigger) in ``SANDBOX_ONLY_OPERATIONS``, none else (the
control plane left out); every exemption of the API fuzz's comparison names a shared operation.

Without the published document (see ``_fuzz_operations``) only the count is checked and the
test is skipped with a message; under ``CI=true`` its absence fails it.
"""

from __future__ import annotations

from pathlib import Path

from _ci import skip_or_fail

from ._fuzz_checks import GRID_BODY_EXEMPT, GRID_STATUS_EXEMPT
from ._fuzz_operations import (
    _GRID_MISSING,
    SANDBOX_ONLY_OPERATIONS,
    SHARED_OPERATIONS,
    _grid_path,
    _published,
    _served_operations,
)


def test_the_operations_are_the_expected_ones(tmp_path: Path) -> None:
    served = _served_operations(tmp_path)
    assert len(served) == len(SHARED_OPERATIONS) + len(SANDBOX_ONLY_OPERATIONS)
    if _grid_path() is None:
        skip_or_fail(_GRID_MISSING)
    published = {_published(method, path) for method, path in served}
    assert published - {None} == SHARED_OPERATIONS
    assert {op for op in served if _published(*op) is None} == SANDBOX_ONLY_OPERATIONS
    assert set(GRID_BODY_EXEMPT) | set(GRID_STATUS_EXEMPT) <= SHARED_OPERATIONS
