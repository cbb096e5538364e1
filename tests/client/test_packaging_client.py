"""The client is an extra: ``import embedded_wallet_crypto`` never loads it (nor httpx), and
without httpx importing it raises an ImportError that names the extra (simulated by a
meta-path finder that refuses httpx, in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

BLOCKER = """
import importlib.abc, sys

class NoHttpx(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "httpx" or name.startswith("httpx."):
            raise ImportError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoHttpx())
"""


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKER + code], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_without_httpx_the_client_names_its_extra() -> None:
    out = _run(
        "import embedded_wallet_crypto as ewc\n"
        "print('core ok', ewc.KeyPair.generate() is not None)\n"
        "for attempt in ('attribute', 'import'):\n"
        "    try:\n"
        "        if attempt == 'attribute':\n"
        "            ewc.client\n"
        "        else:\n"
        "            import embedded_wallet_crypto.client\n"
        "    except ImportError as error:\n"
        "        print(attempt, error)\n"
    )
    lines = out.splitlines()
    assert lines[0] == "core ok True"
    extra = 'pip install "embedded-wallet-crypto[client]"'
    assert lines[1].startswith("attribute ") and extra in lines[1] and "httpx" in lines[1]
    assert lines[2].startswith("import ") and extra in lines[2]


def test_importing_the_package_loads_neither_the_client_nor_httpx() -> None:
    out = _run(
        "import embedded_wallet_crypto, sys\n"
        "print(sorted(m for m in sys.modules if 'httpx' in m or m.endswith('.client')))\n"
    )
    assert out.strip() == "[]"
