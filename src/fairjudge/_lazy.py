"""Lazy package attributes (PEP 562), declared once for every package that needs them.

A package exports some names only on first use, so that ``import fairjudge`` (or a
command's ``--help``) does not pay for what it does not touch: the runner, scipy,
pydantic, an HTTP SDK, llama.cpp.

The package's ``if TYPE_CHECKING:`` block is the one table of those names: the type
checker reads it as ordinary imports, and :func:`lazy_attributes` reads the same
statements from the package's source to know where each name lives. A name is
declared once, where both readers see it, so the two cannot disagree (before, a
second table repeated every name, and a name moved in one but not the other type
checked and then failed at run time).
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["declared_names", "lazy_attributes", "module_dir", "publish"]


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (under any module alias)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def declared_names(source: str) -> dict[str, tuple[str, str]]:
    """Name -> (module, attribute) for each import under the source's ``if TYPE_CHECKING:``.

    Example:
        >>> source = "if TYPE_CHECKING:" + chr(10) + "    from json import dumps as d, loads"
        >>> declared_names(source)
        {'d': ('json', 'dumps'), 'loads': ('json', 'loads')}
    """
    found: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for alias in stmt.names:
                    found[alias.asname or alias.name] = (stmt.module, alias.name)
    return found


def lazy_attributes(package: str, init_file: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports each declared name from its module on first use.

    The package's source is read only when a lazy name is first asked for (importing
    a package costs nothing more than before), and a loaded public name (one in
    ``__all__``) is stored in the package's namespace, so later lookups are plain
    attribute reads that never come back here. Names outside ``__all__`` are not
    stored: ``dir()`` of a package lists its public names only.

    Args:
        package: The package's ``__name__``, for error messages.
        init_file: The package's ``__file__``, whose ``if TYPE_CHECKING:`` imports
            declare the lazy names.
    """
    home: dict[str, tuple[str, str]] = {}

    def __getattr__(name: str) -> Any:
        if not home:
            home.update(declared_names(Path(init_file).read_text("utf-8")))
        where = home.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[0]), where[1])
        _label(value, name, package)
        module = sys.modules[package]
        if name in getattr(module, "__all__", ()):
            setattr(module, name, value)
        return value

    return __getattr__


def _home(name: str, package: str) -> str:
    """Where a public name is documented: the top level if it is exported there."""
    top = sys.modules.get("fairjudge")
    return "fairjudge" if name in getattr(top, "__all__", ()) else package


def _label(value: Any, name: str, package: str) -> None:
    """Make a public class or function report the namespace it is documented in.

    As httpx does: ``fairjudge.Item.__module__ == "fairjudge"``, so reprs, help() and
    tracebacks name the import a user writes, not a private module. Only names in the
    package's ``__all__`` are relabelled, only classes and functions (a constant has no
    module), and never a pydantic model, which resolves its annotations through its
    module. Pickle still finds every relabelled object there, under the same name.
    """
    exported = getattr(sys.modules.get(package), "__all__", ())
    if name not in exported or not isinstance(value, type | _FUNCTION):
        return
    if getattr(value, "__pydantic_fields__", None) is not None:
        return
    if value.__module__.startswith(f"{package}.") or value.__module__ == package:
        value.__module__ = _home(name, package)


_FUNCTION = type(_is_type_checking)


def publish(namespace: dict[str, Any]) -> None:
    """Label every eager name of a package's ``__all__`` with its public home (see _label)."""
    package = namespace["__name__"]
    for name in namespace.get("__all__", ()):
        if name in namespace:
            _label(namespace[name], name, package)


def module_dir(namespace: Mapping[str, Any], exported: list[str]) -> Callable[[], list[str]]:
    """A module ``__dir__`` that lists the lazy names too (for completion and ``dir()``)."""
    return lambda: sorted({*namespace, *exported})
