"""A lazy package's two lists of names agree, and each name loads from the module named.

A lazy package (PEP 562) names each lazy attribute twice: under ``if TYPE_CHECKING:``
for the type checker and in its ``_LAZY`` table for ``__getattr__``. mypy accepts any
attribute of a module with ``__getattr__``, so a name moved in one list but not the
other would type-check and then fail at run time; this test reads both.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from fairjudge._lazy import lazy_attributes

SRC = Path(__file__).resolve().parents[1] / "src" / "fairjudge"
LAZY_PACKAGES = sorted(
    path for path in SRC.rglob("__init__.py") if "_LAZY = {" in path.read_text("utf-8")
)


def type_checking_imports(source: str) -> dict[str, str]:
    """Name -> module for each ``from M import name`` under the source's ``if TYPE_CHECKING:``."""
    found: dict[str, str] = {}
    for node in ast.parse(source).body:
        test = getattr(node, "test", None)  # TYPE_CHECKING or typing.TYPE_CHECKING
        flag = getattr(test, "id", None) or getattr(test, "attr", None)
        if not (isinstance(node, ast.If) and flag == "TYPE_CHECKING"):
            continue
        for stmt in node.body:
            assert isinstance(stmt, ast.ImportFrom), ast.unparse(stmt)
            assert stmt.module, ast.unparse(stmt)
            for alias in stmt.names:
                assert alias.asname in (None, alias.name), "a lazy name keeps its own name"
                found[alias.name] = stmt.module
    return found


def package_name(init: Path) -> str:
    return ".".join(["fairjudge", *init.parent.relative_to(SRC).parts])


def test_the_lazy_packages_are_found() -> None:
    names = {package_name(p) for p in LAZY_PACKAGES}
    assert {"fairjudge", "fairjudge.evaluation", "fairjudge.runner"} <= names


@pytest.mark.parametrize("init", LAZY_PACKAGES, ids=package_name)
def test_the_table_is_the_type_checking_imports(init: Path) -> None:
    package = importlib.import_module(package_name(init))
    assert type_checking_imports(init.read_text("utf-8")) == package._LAZY


@pytest.mark.parametrize("init", LAZY_PACKAGES, ids=package_name)
def test_every_lazy_name_is_the_object_its_module_defines(init: Path) -> None:
    package = importlib.import_module(package_name(init))
    for name, home in package._LAZY.items():
        assert getattr(package, name) is getattr(importlib.import_module(home), name), name


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    getattr_ = lazy_attributes("some.package", {"dumps": "json"})
    with pytest.raises(AttributeError, match=r"'some\.package' has no attribute 'loads'"):
        getattr_("loads")
    import json

    assert getattr_("dumps") is json.dumps
