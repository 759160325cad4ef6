"""Option values coerced without pydantic read exactly as Typer's own coercion reads them."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from fairjudge.cli import _coercion, app
from fairjudge.cli._app import COMMANDS
from fairjudge.cli._coercion import plain_values

pytestmark = pytest.mark.skipif(
    not _coercion.SUPPORTED, reason="another Typer: it coerces as shipped"
)

ROOT = Path(__file__).resolve().parents[2]

SPELLINGS = [
    "0", "3", "-2", "+4", "007", "12345678901234567890", "1.5", "-0.0", ".5", "5.", "1e-3",
    "2E+2", "1_000", " 3", "3 ", "0x10", "inf", "-inf", "nan", "abc", "", "-", "x.jsonl",
    "true", "json", "JSON", "label", "half", "Davidson", "conservative", "soft", "all",
]  # fmt: skip
"""What a user might type for any option: numbers, near-numbers, words, choices, paths."""


def _commands() -> list[Any]:
    for module, _ in COMMANDS.values():
        importlib.import_module(module)
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return [group.commands[name] for name in COMMANDS]


def _outcome(coerce: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        out = coerce(value, param=param, ctx=ctx)
    except Exception as exc:
        return "error", (type(exc).__name__, str(exc))
    return type(out).__name__, repr(out)  # repr: nan equals nan


def _unprefixed(outcome: tuple[str, Any]) -> tuple[str, Any]:
    if outcome[0] != "error":
        return outcome
    kind, message = outcome[1]
    return "error", (kind, message.removeprefix("Value error, "))


def test_every_plain_option_reads_every_spelling_as_typer_does(tmp_path: Path) -> None:
    unreadable = tmp_path / "unreadable.jsonl"
    unreadable.write_text("{}\n")
    compared = 0
    for command in _commands():
        plain_values(command)
        ctx = typer.Context(command)
        params = [*command.params, command.get_help_option(ctx)]
        for param in params:
            fast = param._runtime_param
            if not isinstance(fast, _coercion.PlainValue):
                continue
            typer_own = _coercion.build_runtime_param(param.type_descriptor)
            values = [*SPELLINGS, param.default, str(tmp_path), str(unreadable), Path("a.txt")]
            if param.multiple:
                values = [(), *[(v,) for v in values], ("3", "x"), ["1", "2"], "3"]
            if isinstance(param.default, int | float) and not isinstance(param.default, bool):
                values += [int(param.default), float(param.default)]
            for value in values:
                # A bad choice is said without pydantic's "Value error, " (issue 21).
                expected = _unprefixed(_outcome(typer_own.coerce, value, param, ctx))
                assert _unprefixed(_outcome(fast.coerce, value, param, ctx)) == expected, (
                    command.name, param.name, value,
                )  # fmt: skip
                compared += 1
    assert compared > 1000  # every command's options were compared, not skipped


def test_every_option_of_every_command_is_plain() -> None:
    """A new option of another kind would bring pydantic back into every run: say so."""
    for command in _commands():
        plain_values(command)
        plain = _coercion.PlainValue
        others = [
            p.name
            for p in command.params
            if hasattr(p, "type_descriptor") and not isinstance(p._runtime_param, plain)
        ]
        assert others == [], command.name


def test_a_command_that_runs_imports_no_pydantic(tmp_path: Path) -> None:
    rows = tmp_path / "pairs.jsonl"
    rows.write_text('{"question": "q", "answer_1": "a", "answer_2": "b"}\n')
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('pydantic' in sys.modules, file=sys.stderr))\n"
        f"sys.argv = ['fairjudge', 'compare', {str(rows)!r}, '--judge', 'python:nowhere:f',"
        " '--bootstrap', '100', '--seed', '3', '--level', '0.9', '--rule', 'soft']\n"
        "from fairjudge.cli import main\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert done.returncode == 2  # the judge does not exist: a usage error, after parsing
    assert "nowhere" in done.stderr
    assert done.stderr.strip().splitlines()[-1] == "False"
