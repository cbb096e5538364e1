"""The sandbox service in layers, as ``docs/architecture.md`` draws them, held by its imports:

- ``domain/`` (the rules) and ``db/`` (storage) import no web framework (FastAPI, Starlette);
- ``api/`` (the routes) issues no SQL: it imports neither SQLAlchemy nor ``db/``, only the
  dependencies, the rules and the bodies;
- ``models/`` (the request and response bodies) import pydantic and each other only, so that
  a client can share them without the service's stack (and they load so: the last test);
- no import cycle among the sandbox's modules (imports inside functions count too);
- no module of the package is over 400 lines.

Read from the source (ast), so that an import inside a function or behind ``TYPE_CHECKING``
counts too.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = "embedded_wallet_crypto"
SANDBOX = f"{PACKAGE}.sandbox"
PACKAGE_DIR = Path(__file__).resolve().parent.parent / "python" / PACKAGE
SANDBOX_DIR = PACKAGE_DIR / "sandbox"
MODULES = sorted(SANDBOX_DIR.rglob("*.py"))
WEB = ("fastapi", "starlette", "uvicorn", "h11")
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(SANDBOX_DIR).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([SANDBOX, *parts])


def imports(path: Path, source: str | None = None) -> set[str]:
    """Every module ``path`` imports, absolute (``from . import x`` counts as ``pkg.x``)."""
    tree = ast.parse(source if source is not None else path.read_text(), filename=str(path))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _layer(path: Path) -> str:
    return path.relative_to(SANDBOX_DIR).parts[0].removesuffix(".py")


def _top(module: str) -> str:
    return module.split(".")[0]


def _in_sandbox(module: str, *layers: str) -> bool:
    return any(
        module == f"{SANDBOX}.{layer}" or module.startswith(f"{SANDBOX}.{layer}.")
        for layer in layers
    )


def problems(path: Path, source: str | None = None) -> list[str]:
    """What ``path``'s imports break of the rules of its layer (see the module)."""
    layer, found = _layer(path), imports(path, source)
    out = []
    if layer in ("domain", "db"):
        out += [f"imports {m}" for m in sorted(found) if _top(m) in WEB]
    if layer == "api":
        out += [f"imports {m}" for m in sorted(found) if _top(m) == "sqlalchemy"]
        out += [f"imports {m}" for m in sorted(found) if _in_sandbox(m, "db")]
    if layer == "models":
        allowed_tops = {"__future__", "pydantic", "typing", "enum", "datetime", "json", "re"}
        for module in sorted(found):
            if _top(module) == PACKAGE:
                if not _in_sandbox(module, "models"):
                    out.append(f"imports {module}")
            elif _top(module) not in allowed_tops:
                out.append(f"imports {module}")
    return out


def test_the_layers_are_found() -> None:
    layers = {_layer(path) for path in MODULES}
    assert {"api", "db", "domain", "models", "deps", "app"} <= layers
    assert len([path for path in MODULES if _layer(path) == "domain"]) > 20


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(SANDBOX_DIR)))
def test_each_module_keeps_to_its_layer(path: Path) -> None:
    found = problems(path)
    assert not found, f"{path.relative_to(SANDBOX_DIR)} " + "; ".join(found)


@pytest.mark.parametrize(
    ("where", "source", "expected"),
    [
        ("domain/x.py", "from fastapi import Request\n", ["imports fastapi"]),
        ("domain/x.py", "def f():\n    import starlette.requests\n", ["imports starlette"]),
        ("db/x.py", "from starlette.types import Scope\n", ["imports starlette.types"]),
        ("api/x.py", "from sqlalchemy import select\n", ["imports sqlalchemy"]),
        (
            "api/x.py",
            "from ..db.engine import lock\n",
            ["imports embedded_wallet_crypto.sandbox.db"],
        ),
        ("models/x.py", "from fastapi import Query\n", ["imports fastapi"]),
        (
            "models/x.py",
            "from ..domain import errors\n",
            ["imports embedded_wallet_crypto.sandbox.domain"],
        ),
        ("models/x.py", "from pydantic import BaseModel\nfrom .fields import Id\n", []),
        ("api/x.py", "from fastapi import APIRouter\nfrom ..domain import quotes\n", []),
    ],
)
def test_the_checker_sees_each_kind_of_breach(where: str, source: str, expected: list[str]) -> None:
    found = problems(SANDBOX_DIR / where, source)
    assert [problem for problem in found if any(problem.startswith(e) for e in expected)] == found
    assert all(any(problem.startswith(e) for problem in found) for e in expected), found


def _graph() -> dict[str, set[str]]:
    """Sandbox module -> the sandbox modules it imports (anywhere in its source)."""
    names = {_module_name(path): path for path in MODULES}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        targets = set()
        for module in imports(path):
            while module and module not in names:
                module = module.rpartition(".")[0]
            if module and module != name and module != SANDBOX:
                targets.add(module)
        graph[name] = targets
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A path that returns to where it started, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(name: str, path: list[str]) -> list[str] | None:
        state[name] = 1
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                return [*path, name, target]
            if target not in state and (found := visit(target, [*path, name])):
                return found
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name, [])):
            return found
    return None


def test_no_import_cycle_in_the_sandbox() -> None:
    graph = _graph()
    assert len(graph) > 60
    found = cycle(graph)
    assert found is None, " -> ".join(found or [])


def test_the_cycle_finder_finds_one() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_module_of_the_package_is_over_400_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE_DIR)): lines
        for path in PACKAGE_DIR.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"split these by meaning: {long}"


def test_the_bodies_load_with_pydantic_alone() -> None:
    """Every ``models`` module imports with the web stack and SQLAlchemy missing. The sandbox
    package's own guard (its ``__init__`` names the extra) is stood in for by a bare package,
    as a client sharing the bodies would see them."""
    names = [
        f"{SANDBOX}.models.{path.stem}" for path in sorted((SANDBOX_DIR / "models").glob("*.py"))
    ]
    probe = (
        "import sys, types, importlib\n"
        "for name in ('fastapi', 'starlette', 'uvicorn', 'sqlalchemy', 'h11'):\n"
        "    sys.modules[name] = None\n"
        "import embedded_wallet_crypto\n"
        f"package = types.ModuleType({SANDBOX!r})\n"
        f"package.__path__ = [{str(SANDBOX_DIR)!r}]\n"
        f"sys.modules[{SANDBOX!r}] = package\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name.removesuffix('.__init__'))\n"
        "print(sorted(m for m in sys.modules if '.models' in m))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert f"{SANDBOX}.models.quotes" in out and f"{SANDBOX}.models.wallet" in out, out
