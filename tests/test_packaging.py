"""The package as a user installs it: every import it makes is a declared dependency (or an
extra), and importing it stays light (the heavy stacks load on first use). The full clean-room
install (a wheel and an sdist in bare virtualenvs) is scripts/clean_room.sh, run by the test
command."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from importlib import metadata

import embedded_wallet_crypto as ewc
import pytest
import tomllib
from conftest import REPO

PACKAGE = REPO / "python" / "embedded_wallet_crypto"
HEAVY = ("webauthn", "jwt", "cbor2", "OpenSSL", "redis", "cryptography.x509")
# The sandbox service's web stack and the client's HTTP stack: never loaded by
# ``import embedded_wallet_crypto``.
WEB_STACK = ("fastapi", "starlette", "uvicorn", "sqlalchemy", "pydantic", "httpx")
# A subpackage that needs an extra: the import of its entry point raises the ImportError naming
# the extra before any of its modules (which then import the extra at module level) is loaded.
# The client's __init__ checks at once; the sandbox's checks when its names are asked for, so
# that its pydantic models (``sandbox.models``) load with the client extra alone.
# Subpackage -> (its extra, the modules whose absence it names, the import that must name it).
EXTRA_PACKAGES = {
    "sandbox": (
        "sandbox",
        ("fastapi", "fastapi_offline", "sqlalchemy", "uvicorn"),
        "from embedded_wallet_crypto.sandbox import create_app",
    ),
    "client": ("client", ("httpx", "pydantic"), "import embedded_wallet_crypto.client"),
}
# A module that a host program imports, and the host it imports: the pytest plugin (the
# ``pytest11`` entry point) is imported only by pytest itself, so pytest is never missing there.
HOSTED = {"pytest": {"python/embedded_wallet_crypto/pytest_plugin.py"}}


def _requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match, requirement
    return match.group(0).lower().replace("_", "-")


def _declared() -> tuple[set[str], dict[str, set[str]]]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    core = {_requirement_name(r) for r in project["dependencies"]}
    extras = {
        extra: {_requirement_name(r) for r in requirements}
        for extra, requirements in project.get("optional-dependencies", {}).items()
    }
    return core, extras


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` (never imported at run time)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            skipped |= {id(child) for stmt in node.body for child in ast.walk(stmt)}
    return skipped


def _third_party_imports() -> dict[str, set[str]]:
    """Top-level module -> the files importing it, for every run-time import at any depth."""
    own = {"embedded_wallet_crypto"}
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        skipped = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in own:
                    found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def test_every_third_party_import_is_a_declared_dependency() -> None:
    core, extras = _declared()
    declared = core.union(*extras.values())
    distributions = metadata.packages_distributions()
    imports = _third_party_imports()
    assert imports, "the scan found no third-party import at all"
    undeclared = {}
    for module, files in imports.items():
        dists = {d.lower().replace("_", "-") for d in distributions.get(module, [module])}
        if not dists & declared and not files <= HOSTED.get(module, set()):
            undeclared[module] = sorted(files)
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_extras_are_imported_only_inside_functions() -> None:
    """A module that needs an extra is imported where it is used, so that its absence is an
    ImportError naming the extra at that point, not a broken ``import embedded_wallet_crypto``."""
    core, extras = _declared()
    extra_only = set().union(*extras.values()) - core
    distributions = metadata.packages_distributions()
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).parts[0] in EXTRA_PACKAGES:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                dists = {d.lower() for d in distributions.get(top, [top])}
                assert not dists & extra_only, f"{path}: module-level import of extra {top}"


def test_import_loads_no_heavy_stack() -> None:
    probe = "import embedded_wallet_crypto, sys; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert "embedded_wallet_crypto._native" in out
    loaded = [m for m in out if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    assert not loaded, loaded
    web = [m for m in out if m.split(".")[0] in WEB_STACK or m.endswith((".sandbox", ".client"))]
    assert not web, web


@pytest.mark.parametrize(
    ("statement", "extra", "missing"),
    [
        (statement, extra, missing)
        for _, (extra, modules, statement) in sorted(EXTRA_PACKAGES.items())
        for missing in modules
    ],
)
def test_an_extra_package_without_its_extra_names_the_extra(
    statement: str, extra: str, missing: str
) -> None:
    probe = (
        f"import sys; sys.modules[{missing!r}] = None\n"
        "try:\n"
        f"    {statement}\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert f'pip install "embedded-wallet-crypto[{extra}]"' in out, out


@pytest.mark.parametrize("name", ewc.__all__)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(ewc, name) is not None
    assert name in dir(ewc)


def test_lazy_names_are_the_real_objects() -> None:
    from embedded_wallet_crypto import passkeys, webhooks

    assert ewc.passkeys is passkeys
    assert ewc.verify_webhook_signature is webhooks.verify_webhook_signature
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        ewc.no_such_name  # noqa: B018


def _module_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports at import time (module level, outside
    ``TYPE_CHECKING``); the compiled ``_native`` is a leaf and left out."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(), str(path))
        skipped = _type_checking_only(tree)
        for node in tree.body:
            if id(node) in skipped:
                continue
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    source = ".".join([*base, node.module] if node.module else base)
                else:
                    source = node.module or ""
                for alias in node.names:
                    candidate = f"{source}.{alias.name}"
                    if candidate in modules:
                        targets.append(candidate)
                    elif "_native" not in (alias.name, source.rpartition(".")[2]):
                        targets.append(source)
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def test_no_import_cycle() -> None:
    graph = _module_graph()
    assert len(graph) > 50
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            assert state.get(target) != 1, " -> ".join([*path, name, target])
            if target not in state:
                visit(target, [*path, name])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])


#: The one test seam the API reference names in a public module (design notes, API.md); every
#: other deterministic or primitive seam lives in ``testing`` or ``_native.test_support``.
PUBLIC_TEST_SEAMS = {"embedded_wallet_crypto.hpke.seal_deterministic_for_tests"}


def test_no_public_test_seam_beyond_the_one_the_api_names() -> None:
    import importlib
    import pkgutil

    seams = set()
    for module_info in pkgutil.walk_packages([str(PACKAGE)], "embedded_wallet_crypto."):
        name = module_info.name
        parts = name.split(".")[1:]
        if any(part.startswith("_") for part in parts) or parts[0] in ("testing", "sandbox"):
            continue  # private, the test seams themselves, the service (not the library)
        module = importlib.import_module(name)
        for attribute in getattr(module, "__all__", ()):
            if "for_tests" in attribute:
                seams.add(f"{name}.{attribute}")
    seams |= {f"embedded_wallet_crypto.{name}" for name in ewc.__all__ if "for_tests" in name}
    assert seams == PUBLIC_TEST_SEAMS


MAX_MODULE_LINES = 400


def test_no_library_module_is_over_400_lines() -> None:
    # The sandbox service is held to the same bar separately; the library is held here.
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if "sandbox" not in path.relative_to(PACKAGE).parts
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"split these by meaning: {long}"


#: Where the project's other Python lives: the tests, the benchmarks, the scripts, the docs' hooks.
PROJECT_PYTHON = ("tests", "benches", "scripts", "docs")


def test_no_test_bench_or_script_file_is_over_400_lines() -> None:
    # The same bar for the code around the package: a test file past it is split by subject,
    # its shared helpers in one underscore module (``tests/sandbox/_pair.py`` and the like).
    long = {
        str(path.relative_to(REPO)): lines
        for root in PROJECT_PYTHON
        for path in (REPO / root).rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"split these by subject: {long}"
