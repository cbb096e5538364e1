"""What a missing part of the test run means: locally a visible skip, under ``CI=true`` a
failure (CI must run every part: a missing file, server, browser or dependency is an error).

Tests import it as ``_ci`` (``tests/`` is on the path); the benchmarks load it by its path.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest

__all__ = ["require_module", "skip_or_fail", "under_ci"]


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def skip_or_fail(message: str) -> NoReturn:
    """Skip with ``message``; under ``CI=true`` fail with it instead."""
    if under_ci():
        pytest.fail(f"{message} (CI=true: this part is required)", pytrace=False)
    pytest.skip(message)


def require_module(name: str, reason: str) -> ModuleType:
    """``pytest.importorskip`` that fails under ``CI=true``."""
    try:
        return importlib.import_module(name)
    except ImportError as missing:
        skip_or_fail(f"{reason} ({missing})")
