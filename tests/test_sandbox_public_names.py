"""The sandbox is a client of the library like any other: it reaches the library through public
names only, so that the library can change its private parts without breaking the service.

Read from the source (ast) of every module of ``embedded_wallet_crypto.sandbox`` (every layer:
``api``, ``deps``, ``domain``, ``db``, ``models``). A reach-in is any of:

- an import of a private library module (``from ..signed_retry._operations import x``,
  ``import embedded_wallet_crypto.oidc._jwks``) or of a private name
  (``from ..export import _wordlist``);
- an attribute with a ``_`` name read from a library name (``export._wordlist``,
  ``ewc.signed_retry._operations``), or the same through ``getattr``/``setattr``/``hasattr``;
- a call of the store protocols (``ChallengeStore``, ``CodeStore``: ``get``, ``put``, ``claim``,
  ``issue``...) on the sandbox's store: the sandbox hands its store to ``SignedRetry`` and
  ``OneTimeCodes`` and leaves the records to them (reading a challenge record back and
  re-parsing its ``payloadToSign`` is the library's job, done once, in ``SignedRetry.verify``).

Dunder names (``__version__``) are public. The sandbox's own modules may be private to it.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from embedded_wallet_crypto import stores

PACKAGE = "embedded_wallet_crypto"
SANDBOX = f"{PACKAGE}.sandbox"
SANDBOX_DIR = Path(__file__).resolve().parent.parent / "python" / PACKAGE / "sandbox"
MODULES = sorted(SANDBOX_DIR.rglob("*.py"))

#: The methods of the store protocols, read from the protocols themselves.
STORE_METHODS = frozenset(
    name
    for protocol in (stores.ChallengeStore, stores.CodeStore)
    for name in vars(protocol)
    if not name.startswith("_")
)
_NAME_CALLS = {"getattr", "setattr", "hasattr", "delattr"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: Path) -> str:
    """The dotted name of the sandbox module at ``path`` (a package for ``__init__.py``)."""
    parts = path.relative_to(SANDBOX_DIR).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([SANDBOX, *parts])


def _absolute(node: ast.ImportFrom, path: Path) -> str:
    if not node.level:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]  # a module's own package
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _library(module: str) -> bool:
    """A module of the library outside the sandbox (the top-level package included)."""
    in_package = module == PACKAGE or module.startswith(f"{PACKAGE}.")
    return in_package and not (module == SANDBOX or module.startswith(f"{SANDBOX}."))


def _private_part(module: str) -> str | None:
    return next((part for part in module.split(".")[1:] if _private(part)), None)


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def reach_ins(source: str, path: Path) -> list[str]:
    """Every reach-in into the library's private parts in ``source`` (the module at ``path``)."""
    tree = ast.parse(source, filename=str(path))
    found: list[str] = []
    bound: set[str] = set()  # local names bound to library modules or library objects

    def where(node: Any) -> str:
        return f"{path.relative_to(SANDBOX_DIR.parent)}:{node.lineno}"

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _library(alias.name):
                    if _private_part(alias.name):
                        found.append(f"{where(node)} imports {alias.name}")
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, path)
            for alias in node.names:
                target = f"{module}.{alias.name}" if module == PACKAGE else module
                if not _library(target):
                    continue
                private = _private_part(module) or (alias.name if _private(alias.name) else None)
                if private:
                    found.append(f"{where(node)} imports {alias.name} from {module}")
                bound.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if _root_name(node.value) in bound:
                found.append(f"{where(node)} reads {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = node.args
            if (
                node.func.id in _NAME_CALLS
                and len(args) >= 2
                and _root_name(args[0]) in bound
                and isinstance(args[1], ast.Constant)
                and isinstance(args[1].value, str)
                and _private(args[1].value)
            ):
                found.append(f"{where(node)} reads {args[1].value} through {node.func.id}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in STORE_METHODS
        ):
            receiver = node.func.value
            name = receiver.attr if isinstance(receiver, ast.Attribute) else None
            name = receiver.id if isinstance(receiver, ast.Name) else name
            if name == "store":
                found.append(f"{where(node)} calls the store itself: {ast.unparse(node.func)}")
    return found


def test_the_sandbox_modules_are_found() -> None:
    names = {_module_name(path) for path in MODULES}
    layers = {f"{SANDBOX}.{layer}" for layer in ("api", "db", "domain", "models", "deps")}
    assert {SANDBOX, f"{SANDBOX}.domain.quotes", f"{SANDBOX}.domain.wallet"} | layers <= names
    assert f"{SANDBOX}.api.customers" in names
    assert f"{SANDBOX}.domain.agents.submissions" in names  # two packages deep
    assert {"get", "put", "claim", "issue", "attempt", "consume"} <= STORE_METHODS


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(SANDBOX_DIR)))
def test_the_sandbox_uses_public_library_names_only(path: Path) -> None:
    found = reach_ins(path.read_text(encoding="utf-8"), path)
    assert not found, "reach-ins into the library's private parts:\n" + "\n".join(found)


def test_the_checker_sees_each_kind_of_reach_in() -> None:
    source = (
        "import embedded_wallet_crypto as ewc\n"
        "import embedded_wallet_crypto.oidc._jwks\n"
        "from ..signed_retry._operations import build_payload\n"
        "from ..export import _wordlist\n"
        "from .. import export, _native\n"
        "from ..keys import KeyPair\n"
        "from ._quotes import _check_signature\n"  # the sandbox's own private: allowed
        "from .. import __version__\n"
        "words = export._wordlist()\n"
        "engine = ewc.signed_retry._operations\n"
        "now = getattr(KeyPair, '_now')\n"
        "record = services.store.get(request_id)\n"
        "services.signed_retry.verify(request_id=request_id)\n"  # public: allowed
    )
    found = reach_ins(source, SANDBOX_DIR / "example.py")
    assert sorted(line.split(" ", 1)[1] for line in found) == sorted(
        [
            "imports embedded_wallet_crypto.oidc._jwks",
            "imports build_payload from embedded_wallet_crypto.signed_retry._operations",
            "imports _wordlist from embedded_wallet_crypto.export",
            "imports _native from embedded_wallet_crypto",
            "reads export._wordlist",
            "reads ewc.signed_retry._operations",
            "reads _now through getattr",
            "calls the store itself: services.store.get",
        ]
    ), found


def test_the_checker_resolves_a_route_one_package_deeper() -> None:
    source = "from ...export import _wordlist\nfrom .._wallet import _same_request\n"
    found = reach_ins(source, SANDBOX_DIR / "routes" / "example.py")
    assert [line.split(" ", 1)[1] for line in found] == [
        "imports _wordlist from embedded_wallet_crypto.export"
    ]
