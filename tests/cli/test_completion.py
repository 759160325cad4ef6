"""Shell completion: ``--show-completion SHELL`` prints a script; Tab completes lazily.

Each case is ``fairjudge`` as a fresh process, as the shell runs it: the script is
what ``--install-completion`` writes, and a Tab runs ``fairjudge`` with
``_FAIRJUDGE_COMPLETE`` set. Completing a command name imports no command module,
so a Tab costs what ``fairjudge --help`` costs.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fairjudge.cli._app import COMMANDS

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``fairjudge ARGS`` in a fresh interpreter; stderr lists the command modules it loaded."""
    watch = [module for module, _ in COMMANDS.values()]
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print(*[m for m in {watch!r} if m in sys.modules], "
        "sep='\\n', file=sys.stderr))\n"
        f"sys.argv = ['fairjudge', *{list(args)!r}]\n"
        "from fairjudge.cli import main\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


SCRIPTS = {
    "bash": ["_fairjudge_completion()", "_FAIRJUDGE_COMPLETE=complete_bash"],
    "zsh": ["#compdef fairjudge", "_FAIRJUDGE_COMPLETE=complete_zsh"],
    "fish": ["complete --command fairjudge", "_FAIRJUDGE_COMPLETE=complete_fish"],
}


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_show_completion_with_a_shell_given_prints_that_shells_script(shell: str) -> None:
    # Typer reads the shell from the argument when it is told not to detect it (the
    # switch its own tests use); a user's run detects the shell (see the next test).
    done = run(
        "--show-completion", shell, env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    )
    assert done.returncode == 0, done.stderr
    for mark in SCRIPTS[shell]:
        assert mark in done.stdout
    assert done.stderr.split() == []  # no command module was imported


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here")
def test_show_completion_detects_the_shell_it_runs_in(tmp_path: Path) -> None:
    # As a user types it in bash: fairjudge, a child of bash, prints bash's script.
    # (The trailing `true` keeps bash from replacing itself with Python.)
    program = "from fairjudge.cli import main; main()"
    line = f"{shlex.quote(sys.executable)} -c {shlex.quote(program)} --show-completion; true"
    done = subprocess.run(
        ["bash", "-c", line], capture_output=True, text=True, cwd=tmp_path, timeout=120,
        check=False, env={k: v for k, v in os.environ.items() if not k.startswith("_TYPER")},
    )  # fmt: skip
    assert done.stderr == ""
    for mark in SCRIPTS["bash"]:
        assert mark in done.stdout


def test_the_root_help_lists_the_completion_flags() -> None:
    done = run("--help")
    assert done.returncode == 0
    assert "--install-completion" in done.stdout
    assert "--show-completion" in done.stdout


def test_tab_completes_command_names_without_importing_a_command() -> None:
    done = run(env={"_FAIRJUDGE_COMPLETE": "complete_bash", "COMP_WORDS": "fairjudge sc",
                    "COMP_CWORD": "1"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["score", "score-jury"]
    assert done.stderr.split() == []


def test_tab_completes_a_commands_options_from_that_command() -> None:
    done = run(env={"_FAIRJUDGE_COMPLETE": "complete_bash",
                    "COMP_WORDS": "fairjudge compare --max-c", "COMP_CWORD": "2"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["--max-calls", "--max-cost"]
    assert done.stderr.split() == ["fairjudge.cli._compare"]
