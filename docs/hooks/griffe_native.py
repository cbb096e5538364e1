"""Griffe extension for the docs build: names bound to the compiled core become documented aliases.

The package binds some public names straight to the extension module, for example
``KeyPair = _native.KeyPair`` in ``keys.py``. Griffe reads the extension's type stubs
(``_native.pyi``, or a ``_native/`` stub package) but sees such an assignment as a plain
attribute. This extension replaces each one with an alias to the stub's object, so the reference
shows ``embedded_wallet_crypto.KeyPair`` with its methods and signatures. Where a stub class or
function has no docstring, the compiled module's own ``__doc__`` is used when it is importable;
a plain value that inspection gave its type's docstring (``__version__``, a ``str``) gets none.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import griffe

_NATIVE_VALUE = re.compile(r"^_native\.([A-Za-z_][A-Za-z0-9_]*)$")
_BUILTIN_DOCS = {
    (t.__doc__ or "").strip() for t in (str, bytes, int, float, bool, tuple, list, dict, object)
}


def _runtime_doc(path: str) -> str | None:
    """The ``__doc__`` of the compiled object at ``path`` (``pkg._native.Name.method``)."""
    module_path, _, rest = path.partition("._native")
    try:
        obj: Any = importlib.import_module(module_path + "._native")
    except ImportError:
        return None
    for part in rest.strip(".").split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    doc = getattr(obj, "__doc__", None)
    return doc if isinstance(doc, str) and doc.strip() else None


class NativeAliases(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if pkg.name != "embedded_wallet_crypto" or "_native" not in pkg.members:
            return
        native: Any = pkg.members["_native"]
        self._fill_docstrings(native)
        self._alias_assignments(pkg, native)

    def _fill_docstrings(self, obj: Any) -> None:
        for member in obj.members.values():
            if member.is_alias:
                continue
            if member.docstring is not None and member.docstring.value.strip() in _BUILTIN_DOCS:
                member.docstring = None
            if member.docstring is None and (member.is_class or member.is_function):
                doc = _runtime_doc(member.path)
                if doc is not None:
                    member.docstring = griffe.Docstring(doc, parent=member)
            if member.is_class or member.is_module:
                self._fill_docstrings(member)

    def _alias_assignments(self, module: Any, native: Any) -> None:
        for name, member in list(module.members.items()):
            if member.is_alias:
                continue
            if member.is_module:
                if member is not native:
                    self._alias_assignments(member, native)
                continue
            if not member.is_attribute:
                continue
            match = _NATIVE_VALUE.match(str(member.value or ""))
            if match is None or match.group(1) not in native.members:
                continue
            target = native.members[match.group(1)]
            if not target.is_attribute:
                module.set_member(name, griffe.Alias(name, target, parent=module))
