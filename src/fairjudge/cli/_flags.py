"""The one table from library parameters to command-line flags, and the rewrite.

The library speaks in parameters: an error names what a Python caller passed
(``n_resamples must be >= 1; got 0``, ``pass allow_empty=True``) and lists those
names in its ``params``. The command line speaks in flags: before it prints a
library error, :func:`to_flags` rewrites each named parameter to the flag that set
it (``--bootstrap must be >= 1; got 0``, ``pass --allow-empty``). This module is
the only place that knows both names.

The library's checks run under a flag's parameter, too: :func:`check_writable`
proves a result file can go where a flag asks, before any judge call is paid for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path, PurePath
from typing import Annotated, Any

import typer

from fairjudge._errors import ConfigError

__all__ = [
    "FLAGS", "FLAGS_BY_COMMAND", "PHRASES", "AbandonBatch", "check_writable", "flag",
    "keep_typed", "to_flags",
]  # fmt: skip

_SAME_NAME = (
    "level", "seed", "rule", "rounds", "balanced", "tie_margin", "with_swap", "aggregate",
    "pairing", "baseline", "l2", "anchor", "anchor_rating", "style_control", "allow_different",
    "stop_when", "batch", "population", "judge", "jury", "template", "rubric", "mode",
    "structured", "allow_python_judges", "base_url", "model_path", "threads", "context",
    "temperature", "max_tokens", "reasoning_effort", "thinking_budget", "timeout", "store",
    "concurrency", "rpm", "tpm", "max_calls", "max_cost", "price_input", "price_output",
    "price_cached_input", "max_attempts", "executor", "batch_api", "wait", "allow_empty",
    "skip_invalid", "answer_col", "pairs_per_question", "items", "limit", "experiments",
    "target_words", "framing_templates", "strict_rubric", "anti_verbose_rubric",
    "concise_template", "out", "html", "json", "output", "markdown", "save_config", "port",
    "min_spearman", "min_kappa", "tolerance",
)  # fmt: skip
"""The parameters whose flag is their name with dashes (``max_calls``: ``--max-calls``)."""

FLAGS: dict[str, str] = {name: "--" + name.replace("_", "-") for name in _SAME_NAME} | {
    "n_resamples": "--bootstrap",
    "judges": "--judge",
    "allow_servers": "--allow-jury-servers",
    "allow_python": "--allow-python-judges",
    "n_ctx": "--context",
    "prices": "--price-input/--price-output",
    "retry": "--max-attempts",
    "address": "--ray-address",  # RayExecutor(address=...)
    "batch_poll_s": "--batch-poll",
    "abandon": "--abandon-batch",  # BatchExecutor(abandon=[...])
    "columns.question": "--question-col",  # fairjudge.compare(columns=...)
    "columns.answer_1": "--answer1-col",
    "columns.answer_2": "--answer2-col",
    "columns.human": "--human-col",
    "columns.id": "--id-col",
    "columns.reference": "--reference-col",
    "columns.answer": "--answer-col",  # fairjudge.score(columns=...)
    "judge_families": "--judge-family",
    "via_scores": "--via-scores",  # fairjudge._api.via_scores: the run the flag asks for
}
"""Each library parameter's flag, where every command spells it the same way."""

FLAGS_BY_COMMAND: dict[str, dict[str, str]] = {
    # compare --via-scores scores each answer with a rubric judge; its mode is --score-mode.
    "compare": {"mode": "--score-mode"},
}
"""The flags one command spells its own way, over :data:`FLAGS`."""

PHRASES: dict[str, str] = {
    # BatchExecutor(abandon=[...]) is --abandon-batch ID, once a batch.
    "abandon= had nothing to give up": "--abandon-batch had nothing to give up",
    "(abandon=)": "(--abandon-batch)",
    # The library's one executor parameter is two flags here: executor="ray:ADDRESS" is
    # --executor ray --ray-address ADDRESS (fairjudge._api._setup.EMPTY_RAY_ADDRESS).
    "the address in --executor 'ray:ADDRESS' is empty; give 'ray:auto', 'ray:HOST:PORT' or "
    "'ray:ray://HOST:PORT' for a running cluster, or 'ray' for a local one": (
        "--ray-address is empty; give auto, HOST:PORT or ray://HOST:PORT"
    ),
    # The batch executor is --batch-api here (BatchExecutor() and None are no flag values).
    "--executor BatchExecutor() needs a judge with a batch API": (
        "--batch-api needs a judge with a batch API"
    ),
    "has none: drop --executor BatchExecutor() for it (--executor None makes the calls one "
    "by one)": "has none: drop --batch-api for it",
    # Calls in a batch not collected yet, refused online (runner/_run.py): the batch run
    # that submitted them, and the one that collects them, are --batch-api (and --wait).
    "submitted by an earlier run with --executor BatchExecutor() and not collected yet": (
        "submitted by an earlier --batch-api run and not collected yet"
    ),
    "run the same work again with --executor BatchExecutor() to collect them "
    "(BatchExecutor(wait=True) polls until the batch ends)": (
        "run the same command with --batch-api to collect them (add --wait to poll until "
        "the batch ends)"
    ),
    # A batch run that did not wait: the library says "work", the command line "command".
    "run the same work again": "run the same command again",
    # The ridge's advice names "l2 > 0", a value, not the flag; rank has always shown
    # the flag beside it, so a parameter rewrite cannot say it.
    "pass --l2 > 0 or add battles": "pass l2 > 0 (--l2 on the command line) or add battles",
    "Pass --l2 > 0 to shrink ratings toward each other (--l2 0.1), or add battles": (
        "Pass l2 > 0 to shrink ratings toward each other (--l2 0.1 on the command line, "
        "l2=0.1 in Python), or add battles"
    ),
}
"""Phrases the command line has always worded its own way: rewritten -> shown."""


def flag(param: str, command: str | None = None) -> str:
    """The flag that sets ``param`` on ``command`` (any command when ``None``).

    Raises:
        KeyError: No flag sets that parameter.
    """
    return FLAGS_BY_COMMAND.get(command or "", {}).get(param) or FLAGS[param]


# A parameter's name that follows a determiner is the English word ("an empty judge
# spec", "the judge samples", "once per judge", "a fairjudge store"), not the
# parameter: it stays as it is. A name with "_" or "." is never a word.
_DETERMINERS = (
    "a", "an", "the", "no", "each", "every", "this", "that", "empty", "unknown", "per",
    "fairjudge",
)  # fmt: skip
_NOUN = "".join(rf"(?<!\b{word} )" for word in _DETERMINERS)


def _negated(flag_: str) -> str:
    return "--no-" + flag_.removeprefix("--")


def to_flags(message: str, params: tuple[str, ...], command: str | None = None) -> str:
    """``message`` with each parameter in ``params`` written as its flag.

    ``name=True`` becomes the flag, ``name=False`` its ``--no-`` form, ``name=VALUE``
    the flag and the value, and a bare ``name`` the flag, unless a determiner comes
    before it ("the judge"): then it is the English word. A parameter no flag sets is
    left as it is. Last, a phrase in :data:`PHRASES` is replaced by the CLI's own.

    Example:
        >>> to_flags("n_resamples must be >= 1; got 0", ("n_resamples",))
        '--bootstrap must be >= 1; got 0'
        >>> to_flags("pass allow_empty=True to judge them", ("allow_empty",))
        'pass --allow-empty to judge them'
    """
    unset = _flagless(params, command)
    if unset:
        message = _HINT.sub(lambda m: _renamed_in_file(m, unset, str(command)), message)
    for param in params:
        try:
            flag_ = flag(param, command)
        except KeyError:
            continue

        def rewrite(match: re.Match[str], flag_: str = flag_) -> str:
            value = match.group(1)
            if value is None:
                return flag_
            if value == "True":
                return flag_
            if value == "False":
                return _negated(flag_)
            return f"{flag_} {value}"

        # Not inside a path or file name: "/data/store", "out.jsonl", "store-wal".
        pattern = rf"(?<![\w.\-'\"/\\]){re.escape(param)}(?:=([^\s,;:)]+))?(?![\w'\"(=-]|\.\w)"
        noun = "" if "_" in param or "." in param else _NOUN
        message = re.sub(noun + pattern, rewrite, message)
    for rewritten, shown in PHRASES.items():
        message = message.replace(rewritten, shown)
    return message


# A loader's hint to read a column under another name: "to read another key, pass
# columns.answer=NAME", "to read other columns, pass columns.question, columns.answer_1".
_HINT = re.compile(
    r"to read (another key|another column|other columns), pass "
    r"(columns\.\w+(?:=NAME)?(?:, columns\.\w+(?:=NAME)?)*)"
)


def _flagless(params: tuple[str, ...], command: str | None) -> set[str]:
    """The parameters in ``params`` whose flag the running ``command`` does not have.

    Empty outside a command (no context to ask), so a message keeps its flags there.
    """
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    if command is None or ctx is None:
        return set()
    opts = {o for p in ctx.command.params for o in (*p.opts, *getattr(p, "secondary_opts", ()))}
    return {p for p in params if p in FLAGS and "/" not in flag(p, command)
            and flag(p, command) not in opts}  # fmt: skip


def _renamed_in_file(match: re.Match[str], unset: set[str], command: str) -> str:
    """A loader's column hint for a command without the flags it names: rename in the file."""
    params = re.findall(r"columns\.\w+", match.group(2))
    if not set(params) <= unset:
        return match.group(0)
    names = ", ".join(repr(p.removeprefix("columns.")) for p in params)
    what = "key" if match.group(1) == "another key" else "column"
    fix = "the one that holds it" if len(params) == 1 else "the ones that hold them"
    what += "" if len(params) == 1 else "s"
    return f"{command} reads the {what} named {names} only: rename {fix} in the file"


def check_writable(
    path: Path, flag: str = "--out", *, inputs: Iterable[Path | str | None] = ()
) -> None:
    """Prove a result file can be written where ``flag`` asks, before any judge call.

    ``-`` is refused: as an input it means standard input, so a file named ``-`` is
    never what was meant, and standard output is not offered either: the table and
    ``--json`` print there, and a result file is written whole or not at all, which
    a pipe cannot be.

    Raises:
        ConfigError: As :func:`fairjudge.io.check_writable`, naming the flag's parameter.
    """
    from fairjudge.io import check_writable as check

    typed = _as_typed(path, flag)  # "out/" (a folder), which Typer's Path("out") forgets
    if str(path) == "-":
        raise ConfigError(
            f"{flag} -: result files are not written to standard output (the table and "
            f"--json print there); give a file name, e.g. {flag} results.jsonl"
            if flag == "--out"
            else f"{flag} -: give a file name; '-' is not written to standard output"
        )
    check(typed, flag.removeprefix("--").replace("-", "_"), inputs=inputs)


_TYPED = "fairjudge.typed"
"""The key in ``ctx.meta`` of each path option's value as typed, by its parameter."""


def keep_typed(command: Any) -> None:
    """Let each path option of ``command`` keep its value as typed, for :func:`check_writable`.

    Typer turns ``out/`` into ``Path("out")``, which forgets that the user named a
    folder. Each option's value, once processed, is kept as the parser gave it when
    it became a path: the value that counts (the last of a repeated flag), however it
    was written (``--out x/``, ``--out=x/``, ``-ox/``, a config file's ``out = "x/"``).
    Called as each command is loaded; an option already keeping its value is left alone.
    """
    for param in getattr(command, "params", ()):
        if "process_value" not in vars(param):
            param.process_value = _keeping(param, param.process_value)


def _keeping(param: Any, process: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def process_value(ctx: Any, value: Any) -> Any:
        out = process(ctx, value)
        if isinstance(value, str) and isinstance(out, PurePath):
            ctx.meta.setdefault(_TYPED, {})[param] = value
        return out

    return process_value


def _as_typed(path: Path, flag: str) -> str | Path:
    """``path`` as the command line gave it to ``flag`` (``out/`` keeps its separator).

    What :func:`keep_typed` kept for the option, when it is still the path in hand.
    """
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    if ctx is None:
        return path
    param = next((p for p in ctx.command.params if flag in p.opts), None)
    typed = ctx.meta.get(_TYPED, {}).get(param)
    return typed if typed and typed != "-" and Path(typed) == path else path


AbandonBatch = Annotated[
    list[str] | None,
    typer.Option(
        "--abandon-batch",
        metavar="ID",
        help="With --batch-api: give up the recorded batch ID now (deleted on the provider's "
        "console, or too slow): it is marked lost, and its calls are submitted again and "
        "paid for again. Repeat it for several.",
    ),
]
"""``--abandon-batch`` of the judging commands (``BatchExecutor(abandon=[...])``).

Declared here because the judge flags' module is at its size cap; the flag belongs to
:class:`~fairjudge.cli._options.JudgeFlags`.
"""
