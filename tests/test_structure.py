"""What keeps the package readable: short modules, thin CLI commands, tests laid out like it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tools.house import code_lines, declaration_lines  # shared with the measuring tool

TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src" / "fairjudge"
MAX_MODULE_LINES = 400
MAX_CLI_FUNCTION_LINES = 60

# Folders under tests/ that mirror no source package, each for a reason. Any other
# folder is named after the package it tests (``tests/judges`` for ``judges/``), so a
# reader finds a module's tests where the module is, and a feature's tests (a jury, a
# pointwise score) sit with the layers they exercise, not in a folder of their own.
NOT_MIRRORS = {
    # The scripted OpenAI-compatible judge server: a test tool (fixtures in
    # tests/conftest.py, ``python -m tests.server`` for benchmarks/), not a package's tests.
    "server",
    # Where the report's browser tests write their screenshots, and anything under it
    # (git-ignored, no code).
    "report/artifacts",
}
# Words that name a test after its history (the issue or bug that asked for it)
# instead of what it tests. (A test of a regression model is named after its module,
# test_logistic.py, so "regression" here is always history.)
HISTORY_WORDS = {"issue", "issues", "defect", "defects", "regression", "regressions"}


def test_code_lines_skip_docstrings_comments_and_blanks() -> None:
    source = '"""Module.\n\nMore."""\n\n# why\nx = 1\n\n\ndef f():\n    """Doc."""\n    return x\n'
    assert code_lines(source) == 3


def test_declaration_lines_hold_imports_names_and_headers_but_no_logic() -> None:
    source = (
        "from x import (\n    a,\n    b,\n)\n"  # 1-4
        "__all__ = [\n    'f',\n]\n"  # 5-7
        "if TYPE_CHECKING:\n    import y\n"  # 8-9
        "@dataclass\nclass C:\n    'Doc.'\n    n: int = 0\n"  # 10-13
        "    def m(self) -> int:\n        return self.n + 1\n"  # 14-15
        "def f(\n    a: int,\n) -> int:\n    return a * 2\n"  # 16-19
    )
    assert declaration_lines(source) == set(range(1, 15)) | {16, 17, 18}


def test_no_module_over_400_code_lines() -> None:
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := code_lines(p.read_text("utf-8"))) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_cli_function_over_60_lines() -> None:
    long = {}
    for path in (SRC / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = (node.end_lineno or node.lineno) - start + 1
                if lines > MAX_CLI_FUNCTION_LINES:
                    long[f"{path.name}:{node.name}"] = lines
    assert long == {}


def _test_folders() -> set[str]:
    """Every folder under tests/, as a path relative to it (caches left out)."""
    return {
        path.relative_to(TESTS).as_posix()
        for path in TESTS.rglob("*")
        if path.is_dir()
        and not any(p == "__pycache__" or p.startswith(".") for p in path.relative_to(TESTS).parts)
    }


def _unprefixed(folder: str) -> str:
    """``_api`` and ``api`` name the same package."""
    return "/".join(part.lstrip("_") for part in folder.split("/"))


def test_every_test_folder_mirrors_a_source_package() -> None:
    packages = {
        _unprefixed(init.parent.relative_to(SRC).as_posix())
        for init in SRC.rglob("__init__.py")
        if init.parent != SRC
    }
    strays = {
        folder
        for folder in _test_folders()
        if _unprefixed(folder) not in packages
        and not any(folder == n or folder.startswith(f"{n}/") for n in NOT_MIRRORS)
    }
    assert strays == set(), f"name each after the src/fairjudge package it tests: {sorted(strays)}"


def test_no_test_is_named_after_its_history() -> None:
    named = sorted(
        path.relative_to(TESTS).as_posix()
        for path in TESTS.rglob("*")
        if "__pycache__" not in path.parts
        and HISTORY_WORDS & set(re.split(r"[\W\d_]+", path.stem.lower()))
    )
    assert named == [], f"name each after what it tests, not the issue behind it: {named}"
