"""Import-time benchmark (issue 10): a fresh interpreter that imports ``embedded_wallet_crypto``,
beside one that imports ``cryptography.hazmat.primitives.asymmetric.ec`` (what any user of the
library already pays) and one that imports nothing (the interpreter's own start).

Each round is a whole process (``python -c "import X"``), so the module cache never helps; the
report subtracts the bare start-up median to give the import's own cost, whose target is 50 ms.
Each benchmark also checks what it timed: the import succeeds, and importing the package does not
load the heavy stacks that the package loads lazily (py_webauthn, PyJWT).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

pytestmark = pytest.mark.benchmark(max_time=2.0, min_rounds=15, warmup=True)

GROUP = "import"
IMPORTS = [
    ("ours", "import embedded_wallet_crypto"),
    ("cryptography-ec", "import cryptography.hazmat.primitives.asymmetric.ec"),
    ("python-startup", "pass"),
]
LAZY = ("webauthn", "jwt", "cbor2", "OpenSSL")


def _run(statement: str) -> str:
    probe = f"{statement}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return result.stdout


@pytest.mark.parametrize(("impl", "statement"), IMPORTS, ids=[i for i, _ in IMPORTS])
def test_import_time(benchmark: Any, impl: str, statement: str) -> None:
    benchmark.group = GROUP
    benchmark.extra_info["impl"] = impl
    loaded = set(benchmark(_run, statement).split())
    if impl == "ours":
        assert "embedded_wallet_crypto._native" in loaded
        assert not loaded & set(LAZY), sorted(loaded & set(LAZY))
