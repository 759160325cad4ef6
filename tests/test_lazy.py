"""A lazy package's two lists of names agree, each name loads from the module named,
and every name a package re-exports is in its ``__all__``: one tier of public names.

A lazy package (PEP 562) names each lazy attribute twice: under ``if TYPE_CHECKING:``
for the type checker and in its ``_LAZY`` table for ``__getattr__``. A name moved in
one list but not the other would type-check and then fail at run time; this test
reads both.
"""

from __future__ import annotations

import ast
import importlib
import sys
import types
from pathlib import Path

import pytest

from fairjudge._lazy import lazy_attributes, package_surface

SRC = Path(__file__).resolve().parents[1] / "src" / "fairjudge"
LAZY_PACKAGES = sorted(
    path for path in SRC.rglob("__init__.py") if "_LAZY = {" in path.read_text("utf-8")
)
SURFACED = sorted(
    path for path in SRC.rglob("__init__.py") if "package_surface(" in path.read_text("utf-8")
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


def reexports(source: str) -> set[str]:
    """Every name an ``__init__`` binds from a fairjudge module, TYPE_CHECKING included."""
    return {
        alias.asname or alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("fairjudge")
        and node.module != "fairjudge._lazy"
        for alias in node.names
    }


def test_the_packages_that_finish_with_package_surface_are_found() -> None:
    names = {package_name(p) for p in SURFACED}
    assert {"fairjudge", "fairjudge.io", "fairjudge.evaluation", "fairjudge.runner"} <= names
    assert set(LAZY_PACKAGES) <= set(SURFACED)


@pytest.mark.parametrize("init", SURFACED, ids=package_name)
def test_every_name_a_package_reexports_is_in_its_all(init: Path) -> None:
    # One tier: a lazy name or an import kept for other packages is public, and is
    # listed; nothing is importable from a package that its __all__ does not name.
    package = importlib.import_module(package_name(init))
    assert reexports(init.read_text("utf-8")) == set(package.__all__)
    assert set(getattr(package, "_LAZY", {})) <= set(package.__all__)
    assert set(package.__all__) <= set(dir(package))


def test_package_surface_installs_getattr_dir_and_labels() -> None:
    module = types.ModuleType("some.package")
    namespace = vars(module)

    def helper() -> None:
        """An eager public function from a private module of the package."""

    helper.__module__ = "some.package._private"
    namespace.update(helper=helper, __all__=["dumps", "helper"])
    sys.modules["some.package"] = module
    try:
        package_surface(namespace, {"dumps": "json"})
        import json

        assert module.dumps is json.dumps  # loaded on first use
        assert "dumps" in dir(module)
        assert helper.__module__ == "some.package"  # labelled with its public home
        with pytest.raises(AttributeError, match="has no attribute 'loads'"):
            _ = module.loads
    finally:
        del sys.modules["some.package"]


def test_an_eager_package_gets_no_getattr() -> None:
    namespace: dict[str, object] = {"__name__": "eager.package", "__all__": []}
    package_surface(namespace)
    assert "__getattr__" not in namespace
    assert callable(namespace["__dir__"])


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    getattr_ = lazy_attributes("some.package", {"dumps": "json"})
    with pytest.raises(AttributeError, match=r"'some\.package' has no attribute 'loads'"):
        getattr_("loads")
    import json

    assert getattr_("dumps") is json.dumps
