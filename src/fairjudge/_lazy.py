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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["declared_names", "lazy_attributes", "module_dir"]


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

    Args:
        package: The package's ``__name__``, for error messages.
        init_file: The package's ``__file__``, whose ``if TYPE_CHECKING:`` imports
            declare the lazy names.
    """
    home = declared_names(Path(init_file).read_text("utf-8"))

    def __getattr__(name: str) -> Any:
        where = home.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(where[0]), where[1])

    return __getattr__


def module_dir(namespace: Mapping[str, Any], exported: list[str]) -> Callable[[], list[str]]:
    """A module ``__dir__`` that lists the lazy names too (for completion and ``dir()``)."""
    return lambda: sorted({*namespace, *exported})
