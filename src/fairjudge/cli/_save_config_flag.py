"""The ``--save-config`` option every config-runnable command takes (docs/config.md).

Kept apart from :mod:`fairjudge.cli._run_config` because every command gets the
option when it starts: the config machinery (the key table, the untrusted reader,
the writer) loads only when ``--save-config`` is given.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, Any

import typer

from fairjudge.cli._coercion import plain_values
from fairjudge.cli._config_commands import CONFIG_COMMANDS

__all__ = ["offer_save_config"]


@functools.cache
def _save_option() -> Any:
    """The ``--save-config`` option, declared as Typer declares every other."""
    probe = typer.Typer()

    @probe.command()
    def _probe(
        save_config: Annotated[
            Path | None,
            typer.Option(
                metavar="PATH",
                help="Write this command's config file (TOML) to PATH and exit without "
                "judging; `fairjudge run PATH` then runs it (docs/config.md). Never writes "
                "an API key.",
            ),
        ] = None,
    ) -> None: ...

    return typer.main.get_command(probe).params[0]


def offer_save_config(name: str, command: Any) -> None:
    """Give ``command`` the ``--save-config`` option, if a config file can run it."""
    if name not in CONFIG_COMMANDS or any(p.name == "save_config" for p in command.params):
        return
    command.params.append(_save_option())
    plain_values(command)
    run = command.callback

    @functools.wraps(run)
    def callback(*args: Any, save_config: Path | None = None, **kwargs: Any) -> Any:
        if save_config is None:
            return run(*args, **kwargs)
        from fairjudge.cli._run_config import save

        return save(name, command, save_config, kwargs)

    command.callback = callback
