"""The client is an extra: ``import embedded_wallet_crypto`` never loads it (nor httpx, nor
pydantic), and without httpx importing it raises an ImportError that names the extra (simulated
by a meta-path finder that refuses httpx, in a fresh interpreter); with the client extra alone
(no sandbox extra) it reads answers into the service's models."""

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
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'pydantic')\n"
        "    or m.endswith(('.client', '.models'))))\n"
    )
    assert out.strip() == "[]"


def test_with_the_client_extra_alone_the_client_reads_answers_into_the_services_models() -> None:
    """Without the sandbox extra (FastAPI, Starlette, SQLAlchemy, uvicorn refused), the client
    and the service's models load; the sandbox's own names still name their extra."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "for name in ('fastapi', 'starlette', 'sqlalchemy', 'uvicorn'):\n"
            "    sys.modules[name] = None\n"
            "from embedded_wallet_crypto.client import OPERATIONS, Client\n"
            "from embedded_wallet_crypto.client._answers import read_answer\n"
            "from embedded_wallet_crypto.sandbox.models.customers import CustomerOut\n"
            "op = next(o for o in OPERATIONS if o.qualified_name == 'customers.create')\n"
            "assert op.response_model is CustomerOut\n"
            "print(type(read_answer(op, 201, {'id': 'C', 'platformCustomerId': 'p',\n"
            "    'customerType': 'INDIVIDUAL', 'currencies': [], 'umaAddress': 'u',\n"
            "    'createdAt': 't', 'updatedAt': 't', 'isDeleted': False})).__name__)\n"
            "try:\n"
            "    from embedded_wallet_crypto.sandbox import create_app\n"
            "except ImportError as error:\n"
            "    print(error)\n",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "CustomerOut"
    assert 'pip install "embedded-wallet-crypto[sandbox]"' in lines[1]
