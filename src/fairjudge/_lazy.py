"""Lazy package attributes (PEP 562), declared once for every package that needs them.

A package exports some names only on first use, so that ``import fairjudge`` (or a
command's ``--help``) does not pay for what it does not touch: the runner, scipy,
pydantic, an HTTP SDK, llama.cpp.

Each such package keeps two lists of the same names: its ``if TYPE_CHECKING:``
imports, which the type checker reads, and a plain ``name -> module`` table, which
:func:`lazy_attributes` reads at run time. A table is a dict literal: nothing parses
source at run time, so the package works where only bytecode is installed.
Every lazy name is in the package's ``__all__``: there is one tier of public names.
``tests/test_lazy.py`` checks that every package's two lists name the same things,
so a name moved in one but not the other fails a test, not a command. A package's
``__init__`` ends with one call, :func:`package_surface`, after its ``__all__``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_attributes", "package_surface"]


def lazy_attributes(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports each name of ``homes`` from its module on first use.

    A loaded public name (one in ``__all__``) is stored in the package's namespace,
    so later lookups are plain attribute reads that never come back here. Names
    outside ``__all__`` are not stored: ``dir()`` of a package lists its public
    names only.

    Args:
        package: The package's ``__name__``, for error messages.
        homes: Each lazy name and the dotted module it is defined in.

    Example:
        >>> getattr_ = lazy_attributes("pkg", {"dumps": "json"})
        >>> getattr_("dumps").__name__
        'dumps'
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        _label(value, name, package)
        module = sys.modules.get(package)
        if module is not None and name in getattr(module, "__all__", ()):
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
    module. A core type a package exports (``fairjudge.runner.BatchPending``, from
    ``fairjudge._errors``) reports that package. Pickle still finds every relabelled
    object there, under the same name.
    """
    exported = getattr(sys.modules.get(package), "__all__", ())
    if name not in exported or not isinstance(value, type | _FUNCTION):
        return
    if getattr(value, "__pydantic_fields__", None) is not None:
        return
    module = value.__module__
    core = module.startswith("fairjudge._") and module.count(".") == 1  # fairjudge._errors
    if module.startswith(f"{package}.") or module == package or core:
        value.__module__ = _home(name, package)


_FUNCTION = type(lazy_attributes)


def _publish(namespace: dict[str, Any]) -> None:
    """Label every eager name of a package's ``__all__`` with its public home (see _label)."""
    package = namespace["__name__"]
    for name in namespace.get("__all__", ()):
        if name in namespace:
            _label(namespace[name], name, package)


def package_surface(namespace: dict[str, Any], lazy: Mapping[str, str] | None = None) -> None:
    """Finish a package's ``__init__``: its lazy names, its ``dir()`` and its public labels.

    Called once, last, with the package's ``globals()``: it installs ``__getattr__``
    for the ``lazy`` table (name -> module, see :func:`lazy_attributes`) and a
    ``__dir__`` that lists every name of ``__all__``, loaded or not (for completion),
    then labels the eager public names (:func:`_publish`). The ``__getattr__`` is set
    here rather than written in the module, so the type checker knows a package's names
    from its imports alone and rejects a name it does not export.

    Args:
        namespace: The package's ``globals()``, with ``__all__`` already set.
        lazy: Each lazy name and the dotted module it is defined in.
    """
    exported = list(namespace["__all__"])
    if lazy:
        namespace["__getattr__"] = lazy_attributes(namespace["__name__"], lazy)
    namespace["__dir__"] = lambda: sorted({*namespace, *exported})
    _publish(namespace)
