"""One config file per evaluation: the table from a command's flags to the file's keys.

``fairjudge run eval.toml`` runs a command from a file, ``--save-config PATH`` on
that command writes the file, and every ``--out`` header records the same table.
All three read one table, derived from the command's own click parameters
(:func:`config_keys`): a key is the flag's long name without ``--`` (``max-calls``
for ``--max-calls``), the command's argument its parameter name (``file``), and
the value's type is the option's annotated type. A flag added to a command is a key
of its config file the moment it exists; there is no second list to keep in step.

``fairjudge run`` turns the file back into the command's own arguments
(:func:`config_argv`) and invokes the very command the user would have typed, so its
parsing, its checks and its ``--json`` are the command's, byte for byte.

The file is untrusted input (it may come from someone else), so before any of it
reaches a command:

- a key no flag of the command has, a value of the wrong type or outside the
  option's choices, is an error naming the key and its line (exit 2);
- a ``python:`` judge (code the file would import and run) and the keys that let a
  jury file do so are refused unless ``fairjudge run --allow-python-judges``;
- a server off this machine (``base-url``, ``ray-address``, any URL), which would
  receive the user's API key or work, is refused unless ``--allow-servers``;
- a value that holds a credential is refused: keys come from the environment, and
  ``--save-config`` never writes one (:func:`fairjudge._redact.redact_arg`).

Relative paths in the file are read from the file's own folder, so a config means
the same wherever it is run from; ``--save-config`` writes them relative to the
folder it writes into.

This module imports neither ``cli._app`` nor ``cli._out`` (both reach it), and loads
``fairjudge.io`` only when a file is read or written.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin
from urllib.parse import urlsplit

import typer

from fairjudge._errors import ConfigError, InputError
from fairjudge._redact import redact_arg
from fairjudge.backends import is_loopback_host

if TYPE_CHECKING:
    from fairjudge.io import ConfigText

__all__ = [
    "ConfigKey",
    "config_argv",
    "config_keys",
    "config_of",
    "config_words",
    "current_config",
    "current_config_file",
    "running_config",
    "save",
]

_SHOWN_NOT_RUN = frozenset({"json_output", "save_config", "help"})
"""Parameters that say how a run is shown or saved, not what it is: never keys."""

_SERVER_KEYS = frozenset({"base-url", "ray-address"})
_CREDENTIAL_KEY = re.compile(r"(?i)(api[_-]?key|token|secret|password|credential|^key$)")
_FILE_KEYS = frozenset({"schema_version", "command"})


@dataclass(frozen=True, slots=True)
class ConfigKey:
    """One key of a command's config file: the click parameter it sets.

    Attributes:
        name: The key (the flag's long name without ``--``, or the argument's name).
        param: The command's click parameter.
    """

    name: str
    param: Any

    @property
    def flag(self) -> str | None:
        """The long flag (``--max-calls``), or ``None`` for the command's argument."""
        return _long(self.param.opts) if self.is_option else None

    @property
    def is_option(self) -> bool:
        """An option (a flag); otherwise the command's positional argument."""
        return getattr(self.param, "param_type_name", "") == "option"

    @property
    def many(self) -> bool:
        """The flag may be given several times: the value is an array."""
        return bool(self.param.multiple)

    @property
    def kind(self) -> Any:
        """The annotated type of one value: bool, int, float, str, Path, an Enum or Literal."""
        descriptor = getattr(self.param, "type_descriptor", None)
        annotation = getattr(descriptor, "annotation", str)
        if get_origin(annotation) in (list, tuple):
            annotation = get_args(annotation)[0]
        return annotation

    def choices(self) -> tuple[str, ...] | None:
        """The values the option accepts, when it is a choice."""
        kind = self.kind
        if isinstance(kind, type) and issubclass(kind, Enum):
            return tuple(str(member.value) for member in kind)
        if get_origin(kind) is Literal:
            return tuple(str(arg) for arg in get_args(kind))
        return None

    def type_name(self) -> str:
        """What the file must hold here, in words."""
        kind = self.kind
        words = {bool: "true or false", int: "an integer", float: "a number", Path: "a path"}
        one = words.get(kind, "a string")
        choices = self.choices()
        if choices is not None:
            one = "one of " + ", ".join(repr(c) for c in choices)
        return f"{one}, or an array of them" if self.many else one


def _long(opts: list[str]) -> str:
    return next((o for o in opts if o.startswith("--")), opts[0])


def config_keys(command: Any) -> dict[str, ConfigKey]:
    """Every key of ``command``'s config file, derived from its click parameters."""
    keys: dict[str, ConfigKey] = {}
    for param in command.params:
        if param.name in _SHOWN_NOT_RUN or not param.expose_value:
            continue
        is_option = getattr(param, "param_type_name", "") == "option"
        name = _long(param.opts).removeprefix("--") if is_option else param.name
        keys[name] = ConfigKey(name, param)
    return keys


# --- from the file to the command's arguments --------------------------------------


def _one_value(key: ConfigKey, value: Any) -> str:
    """One value of ``key`` as the command line spells it; ValueError if of the wrong type."""
    kind, choices = key.kind, key.choices()
    fits = {bool: type(value) is bool, int: type(value) is int,
            float: type(value) in (int, float)}.get(kind, isinstance(value, str))  # fmt: skip
    if not fits or (choices is not None and str(value) not in choices):
        raise ValueError(f"must be {key.type_name()}; got {_shown(value)}")
    if kind is bool:
        return "true" if value else "false"
    return repr(float(value)) if kind is float else str(value)


def _shown(value: Any) -> str:
    from fairjudge.io import shown

    return shown(value)


def _tokens(key: ConfigKey, value: Any) -> list[str]:
    """The command-line arguments that set ``key`` to ``value``."""
    values = value if isinstance(value, list) else [value]
    if isinstance(value, list) and not key.many:
        raise ValueError(f"must be {key.type_name()}, not an array; got {_shown(value)}")
    spelled = [_one_value(key, v) for v in values]
    flag = key.flag
    if flag is None:
        return spelled
    if key.param.is_flag and key.kind is bool:
        if value is True:
            return [flag]
        if key.param.secondary_opts:
            return [_long(key.param.secondary_opts)]
        if key.param.default:
            raise ValueError(f"cannot be false: {flag} is on by default and has no --no- form")
        return []  # false for a flag with no --no- form is the flag not given
    return [f"{flag}={s}" for s in spelled]


def _names_file(value: str) -> bool:
    """Whether a string names a file: a ``.toml`` template or rubric, a recording."""
    return bool(value.strip()) and (value.endswith(".toml") or value.startswith("replay:"))


def _parts(key: ConfigKey, value: str) -> list[str]:
    """``value`` split as the option reads it: one path, or comma-joined names or files.

    An option of type ``Path`` holds one path, commas and all. Any other string option
    that names files names them as templates and rubrics are named (a ``.toml`` file,
    a ``replay:`` recording), one or several joined by commas (``framing-templates``);
    the parts that are files are paths. Nothing lists the keys that hold paths: the
    option's type and the value say it.
    """
    return [value] if key.kind is Path else value.split(",")


def _is_path_part(key: ConfigKey, part: str) -> bool:
    if part == "-" or not part.strip():
        return False
    return key.kind is Path or _names_file(part)


def _paths(key: ConfigKey, value: str) -> list[str]:
    """The files a string value of ``key`` names (after ``replay:``)."""
    return [p.removeprefix("replay:").strip() for p in _parts(key, value) if _is_path_part(key, p)]


def _moved(key: ConfigKey, value: str, move: Callable[[str], str]) -> str:
    """``value`` with each file path it names passed through ``move``; the rest as written."""
    out = []
    for part in _parts(key, value):
        prefix = "replay:" if part.startswith("replay:") else ""
        path = part.removeprefix(prefix).strip()
        if _is_path_part(key, part) and path and not Path(path).is_absolute():
            part = prefix + move(path)
        out.append(part)
    return ",".join(out)


def _from(folder: Path, path: str) -> str:
    """``path`` in the config file's ``folder``, as the command gets it.

    Relative to the working directory when it lies below it (a config in the folder
    it is run from gives each path exactly as written), absolute otherwise.
    """
    full = os.path.abspath(os.path.join(folder, path))
    here = os.path.relpath(full)
    typed = full if here == ".." or here.startswith(".." + os.sep) else here
    return typed + os.sep if path.endswith(("/", os.sep)) else typed  # "out/" names a folder


def _server_host(key: str, value: str) -> str | None:
    """The host a value sends work to: a URL's host, or ``ray-address``'s ``HOST:PORT``."""
    if "://" in value:
        return urlsplit(value.strip()).hostname or ""
    if key == "ray-address" and value.strip() != "auto":
        return value.strip().rsplit(":", 1)[0]
    return None


@dataclass(frozen=True, slots=True)
class Trust:
    """What ``fairjudge run``'s own flags allow its config file to do."""

    python: bool = False
    """``--allow-python-judges``: ``python:`` judges, and a jury file's ones."""
    servers: bool = False
    """``--allow-servers``: servers off this machine."""


def _check_trust(config: ConfigText, key: str, values: list[Any], trust: Trust) -> None:
    """Refuse code, off-machine servers and credentials the file names (InputError)."""
    for value in values:
        if not isinstance(value, str):
            continue
        if redact_arg(value) != value:
            raise config.error(key, "holds what looks like a credential; a config file never "
                               "holds one: fairjudge reads keys from the environment "
                               "(OPENAI_API_KEY, ANTHROPIC_API_KEY)")  # fmt: skip
        if value.strip().startswith("python:") and not trust.python:
            raise config.error(key, f"{_shown(value)} would import and run Python code; a "
                               "config file may come from someone else, so it names code "
                               "only when you trust it and say so: fairjudge run "
                               "--allow-python-judges")  # fmt: skip
        host = _server_host(key, value) if key in _SERVER_KEYS or "://" in value else None
        if host is not None and not trust.servers and not is_loopback_host(host):
            raise config.error(key, f"names a server off this machine ({host}), which would "
                               "receive your API key or your work; if you trust this file, "
                               "say so: fairjudge run --allow-servers (loopback needs no "
                               "flag)")  # fmt: skip
    # A key that lets a jury file run code or reach servers: the flag of fairjudge run's own.
    needed = {
        "allow-python-judges": None if trust.python else "--allow-python-judges",
        "allow-jury-servers": None if trust.servers else "--allow-servers",
    }.get(key)
    if needed is not None and any(v is True for v in values):
        raise config.error(key, f"lets a jury file do what only you may allow; give "
                           f"fairjudge run {needed} if you trust this file")  # fmt: skip


# Where each flag of one invocation goes instead: only --json is fairjudge run's own.
_NOT_KEYS = {
    "json": "e.g. fairjudge run FILE --json",
    "save-config": "where it writes a config file such as this one (fairjudge {command} "
    "... --save-config PATH); drop the key",
    "help": "e.g. fairjudge {command} --help",
}


def _unknown(
    config: ConfigText, key: str, keys: Mapping[str, ConfigKey], command: str
) -> Exception:
    if _CREDENTIAL_KEY.search(key):
        return config.error(key, "an API key never goes in a config file: fairjudge "
                            "reads keys from the environment (OPENAI_API_KEY, "
                            "ANTHROPIC_API_KEY)")  # fmt: skip
    if key in _NOT_KEYS:  # flags of one invocation, not of the run
        return config.error(key, f"is not a config key: --{key} is given on the command "
                            f"line, {_NOT_KEYS[key].format(command=command)}")  # fmt: skip
    close = difflib.get_close_matches(key, [*keys, *_FILE_KEYS], n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return config.error(key, f"unknown key for `fairjudge {command}`{hint or '.'} Keys are the "
                        f"command's flags without '--' (docs/config.md; `fairjudge "
                        f"{command} --help` lists them)")  # fmt: skip


def _refuse_itself(config: ConfigText, name: str, key: ConfigKey, values: list[Any]) -> None:
    """Refuse a path that is the config file itself: ``out`` or ``store`` would overwrite it.

    ``--save-config`` refuses to write over the command's files; this is the other
    direction, so a run never destroys the file that defines it.
    """
    for value in values:
        if isinstance(value, str) and any(_same_file(p, config.path) for p in _paths(key, value)):
            raise config.error(name, "names this config file itself, which the run would "
                               "overwrite or misread; give another path")  # fmt: skip


def config_argv(config: ConfigText, command_name: str, command: Any, trust: Trust) -> list[str]:
    """The arguments of ``command`` that ``config`` stands for.

    Options come first, each as ``--flag=value``; the argument comes after ``--``,
    so a value starting with ``-`` is never read as a flag.

    Raises:
        InputError: An unknown key, a value of the wrong type, a missing argument,
            or what :class:`Trust` does not allow; names the key and its line.
    """
    keys = config_keys(command)
    options: list[str] = []
    arguments: list[str] = []
    folder = config.path.parent
    for name, value in config.data.items():
        if name in _FILE_KEYS:
            continue
        key = keys.get(name)
        if key is None:
            raise _unknown(config, name, keys, command_name)
        values = value if isinstance(value, list) else [value]
        _check_trust(config, name, values, trust)
        if key.kind is not bool:
            relocated = [_moved(key, v, functools.partial(_from, folder)) if isinstance(v, str)
                         else v for v in values]  # fmt: skip
            _refuse_itself(config, name, key, relocated)
            value = relocated if isinstance(value, list) else relocated[0]
        try:
            tokens = _tokens(key, value)
        except ValueError as exc:
            raise config.error(name, str(exc)) from None
        (options if key.is_option else arguments).extend(tokens)
    for key in keys.values():
        if key.param.required and key.name not in config.data:
            raise config.error(key.name, f"missing: `fairjudge {command_name}` needs its "
                               f"{key.name} ({key.param.metavar or key.name.upper()})")  # fmt: skip
    return [*options, "--", *arguments]


# --- from the command's values to the file -------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return _plain(value.value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def config_of(
    command_name: str, command: Any, params: Mapping[str, Any], *, folder: Path | None = None
) -> dict[str, Any]:
    """The config table of a run of ``command`` with click ``params``: the values not at default.

    Args:
        command_name: The command (``compare``).
        command: Its click command.
        params: The parsed values, by parameter name (``ctx.params``).
        folder: Write relative paths relative to this folder (where the file goes);
            ``None`` keeps them as given (relative to the working directory).
    """
    table: dict[str, Any] = {"schema_version": 1, "command": command_name}
    for name, key in config_keys(command).items():
        value, default = _plain(params.get(key.param.name)), _plain(key.param.default)
        if value is None or value == [] or value == default:
            continue
        if value is False and key.is_option and key.param.is_flag and not key.param.secondary_opts:
            continue  # the flag not given
        if folder is not None:
            value = _relative(key, value, folder)
        table[name] = value
    return table


def _relative(key: ConfigKey, value: Any, folder: Path) -> Any:
    def move(path: str) -> str:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(folder))

    if isinstance(value, list):
        return [_relative(key, v, folder) for v in value]
    if isinstance(value, str):
        return _moved(key, value, move)
    return value


def current_config() -> dict[str, Any] | None:
    """The config table of the command running now, credentials masked; for ``--out`` headers.

    ``None`` outside a command a config file runs. Paths are as the command got them,
    except under ``fairjudge run FILE``: then they are relative to FILE's folder, as
    the file has them, so the table saved next to FILE is FILE's evaluation again
    wherever the run was started (:func:`current_config_file` names FILE).
    """
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    # A command a config file runs is one given --save-config (cli._app.CONFIG_COMMANDS).
    if ctx is None or not any(p.name == "save_config" for p in ctx.command.params):
        return None
    running = _RUNNING.get()
    folder = running.config.path.parent if running is not None else None
    table = config_of(str(ctx.info_name), ctx.command, ctx.params, folder=folder)
    return {k: _masked(v) for k, v in table.items()}


def current_config_file() -> str | None:
    """The config file ``fairjudge run`` is running now, as it was named; else ``None``."""
    running = _RUNNING.get()
    return None if running is None else str(running.config.path)


# --- fairjudge run: the command's messages in the file's words -----------------------


@dataclass(frozen=True, slots=True)
class _Running:
    config: ConfigText
    flags: dict[str, str]
    """Every long flag of the command (``--no-`` forms too), to its key."""
    arguments: dict[str, str]
    """Each path the file's argument keys (``file``) give the command, to its key."""


_RUNNING: ContextVar[_Running | None] = ContextVar("fairjudge_config_run", default=None)


@contextlib.contextmanager
def running_config(config: ConfigText, command: Any) -> Iterator[None]:
    """While the block runs ``command`` from ``config``: its messages name keys, not flags.

    The command was not typed, so its errors (``--rounds must be >= 1``, ``pass
    --base-url``) would name flags the user never wrote; :func:`config_words` rewrites
    them as the file's own errors read. The ``--out`` header records the file's paths.
    """
    flags: dict[str, str] = {}
    for key in config_keys(command).values():
        if key.is_option:
            for opt in [*key.param.opts, *key.param.secondary_opts]:
                if opt.startswith("--"):
                    flags[opt] = key.name
    token = _RUNNING.set(_Running(config, flags, _argument_paths(config, command)))
    try:
        yield
    finally:
        _RUNNING.reset(token)


def _argument_paths(config: ConfigText, command: Any) -> dict[str, str]:
    """Each path the command gets from the file's argument keys, as it gets it, to the key.

    An error about the input file names that path, not a flag; this finds its key.
    """
    move = functools.partial(_from, config.path.parent)
    paths: dict[str, str] = {}
    for key in config_keys(command).values():
        value = config.data.get(key.name)
        if key.is_option or value is None:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                paths[_moved(key, item, move)] = key.name
    return paths


def config_words(message: str, *, at_line: bool = True) -> str:
    """``message`` in the words of the config file ``fairjudge run`` is running, if any.

    Each flag of the command becomes its key (``--max-calls`` is ``max-calls``; ``pass
    --base-url`` is ``set base-url``); Click's ``'--quiet' / '-q'`` is the one key
    ``'quiet'``. With ``at_line`` (an error), the message starts with the file, the
    line and the key of the first flag it names that the file sets, as the file's own
    errors do: ``eval.toml:4: rounds: must be an integer >= 1; got 0``; an error about
    the input file, with its key (``eval.toml:2: file: x.jsonl: no such file``); one
    whose sentence starts with two keys keeps them both (``eval.toml:4: out and html
    both name x.html``); a note (a budget stop, a skipped row) only has its flags as
    keys. ``fairjudge run``'s own flags (``--json``) stay flags. Outside ``fairjudge
    run``, unchanged.
    """
    running = _RUNNING.get()
    if running is None or not running.flags:
        return message
    folder = str(running.config.path.resolve().parent)
    if folder in sys.path:  # fairjudge run searched it for python: modules too
        message = message.replace(
            ", $PYTHONPATH and the installed packages: run from",
            f", $PYTHONPATH, the installed packages and the config file's folder {folder}: "
            "run from",
        )
    # Click names a flag with a short form as "'--quiet' / '-q'": the file has one key.
    message = re.sub(
        r"'(--[\w-]+)'(?: / '-\w')+",
        lambda m: f"'{m.group(1)}'" if m.group(1) in running.flags else m.group(0),
        message,
    )
    named: list[str] = []
    alternatives = "|".join(re.escape(f) for f in sorted(running.flags, key=len, reverse=True))
    pattern = re.compile(rf"(?:\b(pass)\s+)?(?<![\w-])({alternatives})(?![\w-])")

    def key_of(match: re.Match[str]) -> str:
        name = running.flags[match.group(2)]
        named.append(name)
        return f"set {name}" if match.group(1) else name

    text = pattern.sub(key_of, message)
    first = next((name for name in named if name in running.config.data), None)
    if not at_line:
        return text
    if first is None:  # about the input file ("x.jsonl: no such file"): its key
        first = next((k for p, k in running.arguments.items() if text.startswith(f"{p}:")), None)
        return text if first is None else str(running.config.error(first, text))
    if re.match(rf"{re.escape(first)} (?:and|or) ", text):  # "out and html both": keys lead
        return str(InputError(text, path=str(running.config.path), line=running.config.line(first)))
    if re.match(rf"{re.escape(first)} [a-z]", text):  # "rounds must be": the key leads
        text = text.removeprefix(first + " ")
    return str(running.config.error(first, text))


def _masked(value: Any) -> Any:
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return redact_arg(value) if isinstance(value, str) else value


# --- --save-config --------------------------------------------------------------------


def save(
    name: str, command: Any, path: Path, params: dict[str, Any], *, json_output: bool = False
) -> None:
    """Write the config file and say so; a credential in a value is refused (exit 2).

    The refusals are :class:`ConfigError`, said as ``--out``'s are (``cli._app`` runs
    this under :func:`~fairjudge.cli._app.guarded`): one ``error:`` line, no usage text.
    """
    from fairjudge.cli._flags import check_writable
    from fairjudge.io import dump_config, write_atomic

    check_writable(path, "--save-config")  # a folder, a store, a device or a pipe is refused
    # A value every run refuses is not saved: the command's flag groups check them
    # (cli._options.adds_flags hangs check_values on it; cli._report on report).
    getattr(command.callback, "check_values", lambda given: None)(params)
    table = config_of(name, command, params, folder=path.parent)
    keys = config_keys(command)
    for spec in keys.values():
        value = _plain(params.get(spec.param.name))
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, str) and any(_same_file(p, path) for p in _paths(spec, one)):
                raise ConfigError(
                    f"--save-config {path} is also this command's {spec.flag or spec.name}, "
                    "which writing the config would destroy; give the config another name"
                )
    for key, value in table.items():
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, str) and redact_arg(one) != one:
                flag = keys[key].flag or key
                raise ConfigError(
                    f"--save-config: {flag} holds what looks like a credential, and a config "
                    "file never holds one; put the key in the environment (OPENAI_API_KEY, "
                    "ANTHROPIC_API_KEY) instead"
                )
    comment = f"fairjudge {name}: run it with `fairjudge run {path.name}` (docs/config.md)"
    try:
        write_atomic(path, [dump_config(table, comment=comment)])
    except OSError as exc:
        raise ConfigError(
            f"--save-config {path}: cannot write there ({exc.strerror or exc})"
        ) from None
    note = ""
    if any(isinstance(v, str) and v.strip().startswith("python:") for v in _flat(table)):
        note = " --allow-python-judges` (it names a python: judge)"
    if json_output:
        from fairjudge.io import strict_dumps

        typer.echo(strict_dumps({"config": str(path)}, indent=2))
    typer.echo(f"config saved: {path}; run it with `fairjudge run {path}{note or '`'}", err=True)


def _same_file(named: str, path: Path) -> bool:
    return os.path.realpath(named) == os.path.realpath(path)  # a link to it is the file too


def _flat(table: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = []
    for value in table.values():
        out += value if isinstance(value, list) else [value]
    return out
