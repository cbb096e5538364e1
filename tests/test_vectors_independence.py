"""The vector generators are an independent reference: nothing under ``vectors/generate/``
may call the library under test, or the vectors would only check the library against itself.

Read from the source (ast), so that an import inside a function or behind ``TYPE_CHECKING``
counts too.
"""

from __future__ import annotations

import ast
import keyword
from pathlib import Path

import pytest
from embedded_wallet_crypto import vectors

PACKAGE = "embedded_wallet_crypto"
GENERATE = f"{PACKAGE}.vectors.generate"
GENERATE_DIR = Path(vectors.__file__).parent / "generate"
MODULES = sorted(GENERATE_DIR.glob("*.py"))

# What a generator may import of the library: the error classes, and (module, name) pairs that
# are needed to build inputs. ``SoftwareAuthenticator`` writes the WebAuthn responses of
# passkey.json (its clientDataJSON, authenticator data and attestation object); it signs with
# the generator's RFC 6979 key, and every expected value (credential id, COSE key, counts) is
# computed in the generator, not read back from it.
ALLOWED_MODULES = {f"{PACKAGE}.errors"}
ALLOWED_NAMES = {
    ("_passkey_writer", f"{PACKAGE}.passkeys", "SoftwareAuthenticator"),
}


def _imports(path: Path) -> list[tuple[str, str | None]]:
    """Every (absolute module, imported name or None) that ``path`` imports."""
    package_parts = GENERATE.split(".")
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.extend((module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            assert name not in {"import_module", "__import__"}, f"{path.name}: dynamic import"
    return found


def _library_imports(path: Path) -> set[tuple[str, str | None]]:
    """The imports of ``path`` that reach the library outside ``vectors.generate``."""
    result = set()
    for module, name in _imports(path):
        if module != PACKAGE and not module.startswith(f"{PACKAGE}."):
            continue  # the standard library, pyca/cryptography, cbor2
        target = f"{module}.{name}" if module == GENERATE and name else module
        if target == GENERATE or target.startswith(f"{GENERATE}."):
            continue  # another part of the reference
        if module == PACKAGE and name is not None:
            module, name = f"{PACKAGE}.{name}", None  # ``from .. import errors``
        result.add((module, name))
    return result


def test_the_generate_package_is_found() -> None:
    names = {path.stem for path in MODULES}
    assert {"__init__", "_reference", "_common", "hpke", "passkey"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.name)
def test_a_generator_imports_nothing_of_the_library(path: Path) -> None:
    for module, name in _library_imports(path):
        if module in ALLOWED_MODULES or (path.stem, module, name) in ALLOWED_NAMES:
            continue
        pytest.fail(f"vectors/generate/{path.name} imports {module} {name or ''}".rstrip())


def test_every_allowed_exception_is_still_used() -> None:
    used = {
        (path.stem, module, name) for path in MODULES for module, name in _library_imports(path)
    }
    assert ALLOWED_NAMES <= used, "drop an exception from ALLOWED_NAMES that is no longer used"


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    forbidden = tmp_path / "forbidden.py"
    forbidden.write_text(
        "from ... import hpke\nfrom ...keys import KeyPair\nimport embedded_wallet_crypto\n"
        "from ...errors import WalletCryptoError\nfrom . import _reference\n"
    )
    assert _library_imports(forbidden) == {
        (f"{PACKAGE}.hpke", None),
        (f"{PACKAGE}.keys", "KeyPair"),
        (PACKAGE, None),
        (f"{PACKAGE}.errors", "WalletCryptoError"),
    }


def test_each_builder_is_named_after_the_file_it_writes() -> None:
    for name, build in vectors.FILES.items():
        stem = Path(name).stem
        module = f"{stem}_" if keyword.iskeyword(stem) else stem  # import.json: import_.py
        assert build.__module__ == f"{GENERATE}.{module}", name


def test_vectors_generate_is_the_function_not_the_package() -> None:
    # ``vectors.generate`` (the function in __all__) shares its name with the subpackage.
    assert callable(vectors.generate)
    assert vectors.generate.__module__ == "embedded_wallet_crypto.vectors"
