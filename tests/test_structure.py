"""Size limits that keep the package readable: short modules, thin CLI commands."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "fairjudge"
MAX_MODULE_LINES = 400
MAX_CLI_FUNCTION_LINES = 60


def test_no_module_over_400_lines() -> None:
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text("utf-8").splitlines())) > MAX_MODULE_LINES
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
