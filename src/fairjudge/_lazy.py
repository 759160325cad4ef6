"""Lazy package attributes (PEP 562), declared once for every package that needs them.

A package exports some names only on first use, so that ``import fairjudge`` (or a
command's ``--help``) does not pay for what it does not touch: the runner, scipy,
pydantic, an HTTP SDK, llama.cpp. Each package hands :func:`lazy_attributes` a map
from module to the names it provides and uses the result as its ``__getattr__``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_attributes", "module_dir"]


def lazy_attributes(package: str, provides: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports each name from its module on first use.

    Args:
        package: The package's ``__name__``, for error messages.
        provides: Module name -> the names it provides, separated by spaces.

    Example:
        >>> getattr_ = lazy_attributes("pkg", {"json": "dumps loads"})
        >>> getattr_("dumps").__name__
        'dumps'
    """
    home = {name: module for module, names in provides.items() for name in names.split()}

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__


def module_dir(namespace: Mapping[str, Any], exported: list[str]) -> Callable[[], list[str]]:
    """A module ``__dir__`` that lists the lazy names too (for completion and ``dir()``)."""
    return lambda: sorted({*namespace, *exported})
