"""``fairjudge run CONFIG``: run an evaluation from its config file.

The file names the command and sets its flags (``docs/config.md``); the table
between them is :mod:`fairjudge.cli._run_config`. The command is invoked exactly as
if it had been typed, so what it prints, writes and exits with is its own.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

try:  # Typer 0.29 ships its own copy of Click
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - a Typer that uses Click itself
    from click.exceptions import UsageError  # type: ignore[no-redef, import-not-found, assignment, unused-ignore]

from fairjudge.cli._app import CONFIG_COMMANDS, app, guarded
from fairjudge.cli._options import SummaryJson
from fairjudge.cli._run_config import Trust, config_argv, config_words, running_config

if TYPE_CHECKING:
    from fairjudge.io import ConfigText

__all__ = ["run"]

ConfigFile = Annotated[
    Path,
    typer.Argument(
        metavar="CONFIG",
        help="A config file (TOML) naming the command and its flags; write one with the "
        "command's --save-config.",
    ),
]
AllowPython = Annotated[
    bool,
    typer.Option(
        "--allow-python-judges",
        help="Let the file name python: judges (code it imports and runs), and let it pass "
        "--allow-python-judges to a --jury file. Off by default: a config file may come "
        "from someone else.",
    ),
]
AllowServers = Annotated[
    bool,
    typer.Option(
        "--allow-servers",
        help="Let the file name servers off this machine (base-url, ray-address), which "
        "receive your API key or your work, and pass --allow-jury-servers. Loopback needs "
        "no flag.",
    ),
]


@app.command()
def run(
    config: ConfigFile,
    json_output: SummaryJson = False,
    allow_python_judges: AllowPython = False,
    allow_servers: AllowServers = False,
) -> None:
    """Run an evaluation from its config file: the command, its input and every flag.

    The file is one flat TOML table: command = "compare", the input (file = ...),
    and one key per flag, named as the flag without '--' (max-calls = 200). Relative
    paths are read from the file's folder. The file is read as untrusted input: an
    unknown key or a wrong type is an error naming the key and its line (exit 2);
    python: judges and servers off this machine need the flags below; an API key in
    the file is refused (keys come from the environment). The command then runs as
    if typed, with its own output and exit code, its errors naming the file's keys and
    lines. Every judging command, and report, writes such a file with --save-config
    PATH. The schema: docs/config.md.
    """
    from typer._click.globals import get_current_context

    ctx = get_current_context()
    root = ctx.parent
    assert root is not None
    loaded, name, argv = _prepare(
        config, root, json_output=json_output,
        trust=Trust(python=allow_python_judges, servers=allow_servers),
    )  # fmt: skip
    group: Any = root.command  # the LazyCommands group: it loads the command's module
    command = group.get_command(root, name)
    if json_output:
        argv.insert(0, "--json")
    with running_config(loaded, command), _judges_beside(config, trusted=allow_python_judges):
        try:
            sub = command.make_context(name, argv, parent=root)
            with sub:
                command.invoke(sub)
        except UsageError as exc:  # Click's, and the command's own: in the file's words
            raise UsageError(config_words(exc.format_message()), ctx=ctx) from None


def _judges_beside(config: Path, *, trusted: bool) -> contextlib.AbstractContextManager[None]:
    """With --allow-python-judges, a python: module beside the file is found from anywhere.

    Paths are read from the file's folder, and so is a judge module, as a jury file's
    are (:func:`~fairjudge.judges.judges_beside`, searched last). Without the flag the
    file names no python: judge, so nothing is added.
    """
    if not trusted:
        return contextlib.nullcontext()
    from fairjudge.judges import judges_beside

    return judges_beside(config, folder_is="the config file's folder")


@guarded
def _prepare(
    config: Path, root: Any, *, json_output: bool, trust: Trust
) -> tuple[ConfigText, str, list[str]]:
    """The config file, the command it names and its arguments; errors exit 2, naming the key."""
    from fairjudge.io import read_config

    del json_output  # read by guarded
    loaded = read_config(config)
    name = loaded.data.get("command")
    known = ", ".join(CONFIG_COMMANDS)
    if name is None:
        from fairjudge._errors import InputError

        raise InputError(f"command: missing; name the command to run: {known}",
                         path=str(config))  # fmt: skip
    if name not in CONFIG_COMMANDS:
        raise loaded.error("command", f"must be one of {known}; got {name!r}")
    group: Any = root.command
    return loaded, name, config_argv(loaded, name, group.get_command(root, name), trust)
