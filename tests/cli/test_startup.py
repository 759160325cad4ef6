"""Start-up: ``--help`` and ``--version`` import no command, and the lazy listing is exact."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from fairjudge.cli import app
from fairjudge.cli._app import COMMANDS

ROOT = Path(__file__).resolve().parents[2]

# What a command needs only when it runs: the library's layers, the I/O and numerics.
HEAVY = [
    "asyncio", "sqlite3", "numpy", "scipy", "pandas", "pydantic", "openai", "httpx", "jinja2",
    "fairjudge.evaluation", "fairjudge.judges", "fairjudge.runner", "fairjudge.report",
    "fairjudge.backends", "fairjudge.stats",
]  # fmt: skip


def imported_by(*args: str) -> set[str]:
    """The modules among HEAVY and the command modules that ``fairjudge ARGS`` imports."""
    watch = [*HEAVY, *(module for module, _ in COMMANDS.values())]
    code = (
        "import atexit, sys\n"
        f"watch = {watch!r}\n"
        "atexit.register(lambda: print(*[m for m in watch if m in sys.modules], "
        "sep='\\n', file=sys.stderr))\n"
        f"sys.argv = ['fairjudge', *{list(args)!r}]\n"
        "from fairjudge.cli import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return set(done.stderr.split())


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_import_no_command_and_no_library_layer(args: list[str]) -> None:
    assert imported_by(*args) == set()


def test_a_commands_help_imports_that_command_only_and_no_engine() -> None:
    loaded = imported_by("compare", "--help")
    assert "fairjudge.cli._compare" in loaded
    assert not {"fairjudge.cli._rank", "fairjudge.cli._report", "fairjudge.cli._shipped"} & loaded
    # Nor the numerics, nor typer's pydantic coercion (the root's --help is a bool).
    assert not {"asyncio", "scipy", "numpy", "pydantic", "openai", "httpx", "jinja2"} & loaded


# Each loads its page, statistics or panel machinery when it runs, never for --help.
LIGHT_HELP = ["report", "label", "label-merge", "score", "jury", "score-jury", "calibrate"]


@pytest.mark.parametrize("command", LIGHT_HELP)
def test_a_commands_help_loads_no_statistics_stack(command: str) -> None:
    loaded = imported_by(command, "--help")
    assert not {"numpy", "scipy", "pandas", "fairjudge.report"} & loaded


def test_the_via_scores_options_name_the_pointwise_judges_score_modes() -> None:
    from typing import get_args

    from fairjudge.cli._compare import ScoreMode
    from fairjudge.judges import ScoreMode as JudgesScoreMode

    assert get_args(ScoreMode) == get_args(JudgesScoreMode)


def test_the_lazy_listing_is_each_commands_own_summary() -> None:
    for module, _ in COMMANDS.values():
        importlib.import_module(module)
    registered = {
        info.name or info.callback.__name__ for info in app.registered_commands if info.callback
    }
    assert registered == set(COMMANDS)  # a new command must be listed in COMMANDS
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    for name, (_, summary) in COMMANDS.items():
        command = group.commands[name]
        assert inspect.cleandoc(command.help or "").split("\n\n")[0] == summary, name


def test_help_lists_every_command_in_order() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", "--help"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    rows = done.stdout.split("Commands:")[1].split("\n\n")[0].splitlines()  # not the epilog
    listed = [row.split()[0] for row in rows if row.startswith("  ") and not row.startswith("   ")]
    assert listed == list(COMMANDS)


def test_an_adaptive_compare_loads_no_scipy() -> None:
    # A jury's agreement statistics (scipy.sparse) load with its diagnostics only:
    # --stop-when runs the adaptive loop, which reads the jury module for its types.
    loaded = imported_by(
        "compare", str(ROOT / "src/fairjudge/examples/demo_pairs.jsonl"),
        "--judge", "python:fairjudge.examples.judges:longer", "--stop-when", "decided",
        "--json",
    )  # fmt: skip
    assert "fairjudge.evaluation" in loaded
    assert "scipy" not in loaded
