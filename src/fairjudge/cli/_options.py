"""The options every judging command shares, declared once.

:func:`judge_flags` adds the judge, template, backend and run flags to a command
(``compare``, ``rank``, ``calibrate`` all get the same ones) and hands the command
one :class:`JudgeFlags` value; :func:`input_flags` does the same for the input
columns. :meth:`JudgeFlags.setup` turns the flags into the library's
:class:`~fairjudge.JudgeSetup`, the value every notebook function takes, whose
judges reject any flag that does not apply to the chosen judge. The arguments and
options several commands declare alike (``FILE``, ``--json``, ``--level``) are
``Annotated`` aliases here.
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import StrEnum
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_type_hints

import typer

from fairjudge._api import SAMPLING_TEMPERATURE, EvalSettings, JudgeSetup
from fairjudge._errors import ConfigError
from fairjudge._items import Item
from fairjudge._types import Resolution
from fairjudge.backends import check_base_url
from fairjudge.cli._app import in_flags, say
from fairjudge.cli._flags import AbandonBatch, _as_typed, check_writable
from fairjudge.io import Columns, LoadedItems, load_items
from fairjudge.judges import DEFAULT_JUDGE, BackendOptions
from fairjudge.prompts import list_templates
from fairjudge.runner import DEFAULT_STORE_PATH, Executor, RunOptions

__all__ = [
    "ALLOW_PYTHON_ONLY_WITH_JURY",
    "ALLOW_SERVERS_ONLY_WITH_JURY",
    "AllowEmpty",
    "AllowJuryServers",
    "AllowPythonJudges",
    "Bootstrap",
    "EvalFlags",
    "InputFlags",
    "JudgeFlags",
    "Level",
    "PairsFile",
    "QuestionCol",
    "SkipInvalid",
    "SummaryJson",
    "adds_flags",
    "check_outputs",
    "check_share",
    "eval_flags",
    "input_flags",
    "item_judging_flags",
    "judge_flags",
]

F = TypeVar("F", bound=Callable[..., Any])

_TEMPERATURE_WITH_ROUNDS = Annotated[
    float | None,
    typer.Option(
        help="Sampling temperature of every call. [default: the backend's, 0; "
        f"{SAMPLING_TEMPERATURE} with --rounds above 2]"
    ),
]
"""``--temperature`` on a command that has ``--rounds``: its help names the other default."""


# The options several commands' flag groups share, each declared once.
Level = Annotated[float, typer.Option(help="Confidence level.")]
Bootstrap = Annotated[int, typer.Option(help="Bootstrap resamples.")]
SkipInvalid = Annotated[
    bool, typer.Option(help="Skip bad rows (each one listed) instead of stopping.")
]
AllowEmpty = Annotated[
    bool, typer.Option(help="Judge empty or blank answers instead of refusing the row.")
]
QuestionCol = Annotated[str, typer.Option(help="Column holding the question.")]

PairsFile = Annotated[
    Path,
    typer.Argument(metavar="FILE", help="JSONL, CSV or Parquet with question, answer_1, answer_2."),
]
"""The input file of a pairwise command."""

SummaryJson = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
"""``--json``: print the summary as JSON."""

AllowPythonJudges = Annotated[
    bool,
    typer.Option(
        "--allow-python-judges",
        help="Let the --jury file's python: members import and run the code they name. Off "
        "by default: a jury file may come from someone else. (--judge python:... needs no flag.)",
    ),
]
"""``--allow-python-judges``: a jury file may name Python code (``jury``, ``score-jury``)."""

AllowJuryServers = Annotated[
    bool,
    typer.Option(
        "--allow-jury-servers",
        help="Let the --jury file's base_url send your API key to a server off this machine. "
        "Off by default: a jury file may come from someone else. (Loopback needs no flag.)",
    ),
]
"""``--allow-jury-servers``: a jury file may name servers off this machine."""

ALLOW_SERVERS_ONLY_WITH_JURY = (
    "--allow-jury-servers applies with --jury FILE.toml only; --base-url given on the "
    "command line needs no flag"
)
"""The message for ``--allow-jury-servers`` without a jury file to apply to."""

ALLOW_PYTHON_ONLY_WITH_JURY = (
    "--allow-python-judges applies with --jury FILE.toml only; python: judges given with "
    "--judge run without it"
)
"""The message for ``--allow-python-judges`` without a jury file to apply to."""


_RUN_FLAGS = (
    "concurrency", "rpm", "tpm", "max_calls", "max_cost", "max_attempts", "price_input",
    "price_output", "price_cached_input",
)  # fmt: skip
"""The flags that are :meth:`~fairjudge.runner.RunOptions.build`'s arguments."""


class ExecutorName(StrEnum):
    """Where the judge calls run (``--executor``)."""

    ASYNCIO = "asyncio"
    RAY = "ray"


@dataclass(frozen=True, slots=True)
class JudgeFlags:
    """The judge, template, backend and run flags of one command, as given."""

    judge: Annotated[
        str | None,
        typer.Option(
            help="openai/<model>, anthropic/<model>, local/<name> or "
            f"python:package.module:function. [default: {DEFAULT_JUDGE}]"
        ),
    ] = None
    template: Annotated[
        str | None,
        typer.Option(
            help=f"Prompt template: {', '.join(list_templates())}, or a .toml file. "
            "[default: default]"
        ),
    ] = None
    base_url: Annotated[
        str | None, typer.Option(help="Server URL for openai/ and anthropic/ judges.")
    ] = None
    model_path: Annotated[Path | None, typer.Option(help="Any GGUF file, for local/.")] = None
    threads: Annotated[int | None, typer.Option(help="CPU threads, for local/.")] = None
    context: Annotated[
        int | None,
        typer.Option(
            help="Context size in tokens, for local/; raise it for long prompts. [default: 8192]"
        ),
    ] = None
    temperature: Annotated[
        float | None,
        typer.Option(help="Sampling temperature of every call. [default: the backend's, 0]"),
    ] = None
    timeout: Annotated[
        float | None,
        typer.Option(
            help="Seconds to wait for one reply from an HTTP judge, or for one call of a "
            "python: judge. [default: 60; none for a python: judge]"
        ),
    ] = None
    max_tokens: Annotated[
        int | None,
        typer.Option(
            help="Output cap of each HTTP judge call, reasoning included. [default: per "
            "family: 8 for a label, 1024 for a reply; reasoning models add room to reason]"
        ),
    ] = None
    reasoning_effort: Annotated[
        str | None,
        typer.Option(
            help="reasoning_effort of an openai/ reasoning model, one it takes: gpt-5, "
            "-mini, -nano: minimal, low, medium, high; gpt-5.1: none, low, medium, high; "
            "gpt-5.2 and later: none, low, medium, high, xhigh; o1, o3*, o4-mini: low, "
            "medium, high; o1-mini and o1-preview take no effort. [default: the model's: none "
            "for gpt-5.1 and later, else medium]"
        ),
    ] = None
    thinking_budget: Annotated[
        int | None,
        typer.Option(
            help="Extended thinking for an anthropic/ model, with this many tokens of budget "
            "(>= 1024, below --max-tokens); the judge then samples at temperature 1."
        ),
    ] = None
    max_attempts: Annotated[
        int | None,
        typer.Option(
            help="Attempts per call (429s, timeouts, 5xx are retried; no retry starts "
            "after 300 s of one call). [default: 8]"
        ),
    ] = None
    store: Annotated[
        Path | None,
        typer.Option(help=f"SQLite cache and audit log. [default: {DEFAULT_STORE_PATH}]"),
    ] = None
    concurrency: Annotated[
        int | None, typer.Option(help="Judge calls in flight. [default: 16]")
    ] = None
    rpm: Annotated[float | None, typer.Option(help="Requests-per-minute limit.")] = None
    tpm: Annotated[float | None, typer.Option(help="Tokens-per-minute limit.")] = None
    max_calls: Annotated[
        int | None, typer.Option(help="Stop after this many new (uncached) calls.")
    ] = None
    max_cost: Annotated[
        float | None,
        typer.Option(
            help="Stop at this estimated cost in $; needs --price-input/--price-output "
            "unless fairjudge's dated list prices the model (OpenAI, Anthropic)."
        ),
    ] = None
    price_input: Annotated[
        float | None,
        typer.Option(
            help="$ per 1M input tokens, for every call: the online price; --batch-api "
            "calls pay half. [default: the list price]"
        ),
    ] = None
    price_output: Annotated[
        float | None,
        typer.Option(
            help="$ per 1M output tokens (reasoning included): the online price; "
            "--batch-api calls pay half. [default: the list price]"
        ),
    ] = None
    price_cached_input: Annotated[
        float | None,
        typer.Option(
            help="$ per 1M input tokens read from the prompt cache (online; --batch-api "
            "calls pay half); needs --price-input and --price-output. [default: the input "
            "price]"
        ),
    ] = None
    executor: Annotated[
        ExecutorName | None,
        typer.Option(
            help="Where judge calls run: asyncio (this process) or ray (a Ray cluster, "
            "needs fairjudge[ray]; the store stays here). [default: asyncio]"
        ),
    ] = None
    ray_address: Annotated[
        str | None,
        typer.Option(
            help="The Ray cluster for --executor ray: auto, HOST:PORT or ray://HOST:PORT. "
            "[default: $RAY_ADDRESS if set, else a local Ray for this run]"
        ),
    ] = None
    batch_api: Annotated[
        bool | None,
        typer.Option(
            "--batch-api",
            help="Send the uncached calls through the provider's batch API (OpenAI Batch, "
            "Anthropic Message Batches): half the price, answered within 24 h. openai/ and "
            "anthropic/ judges only. Without --wait: submit, exit 8, and the same command "
            "again collects (docs/batch.md).",
        ),
    ] = None
    wait: Annotated[
        bool | None,
        typer.Option("--wait", help="With --batch-api: poll until every batch has ended."),
    ] = None
    batch_poll: Annotated[
        float | None,
        typer.Option(help="With --batch-api: seconds between polls. [default: 30]"),
    ] = None
    abandon_batch: AbandonBatch = None
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False

    def check(self) -> None:
        """Refuse, before anything is read, flags that cannot go together.

        Each pair here is the command line's own: the library takes one ``executor``
        (``"ray:ADDRESS"``, a :class:`~fairjudge.runner.BatchExecutor`) where the
        command line has several flags, and checks the value itself (a judge with no
        batch API is refused as the judge is resolved, naming ``--batch-api``).
        """
        if self.base_url is not None:  # a URL no call can use is a usage error
            check_base_url(self.base_url, name="--base-url")
        if self.ray_address is not None and self.executor is not ExecutorName.RAY:
            raise ConfigError(
                "--ray-address applies with --executor ray only (the default executor, "
                "asyncio, runs every call in this process); add --executor ray or drop "
                "--ray-address"
            )
        if not self.batch_api:
            for name in ("wait", "batch_poll", "abandon_batch"):
                if getattr(self, name) not in (None, (), []):  # () from --save-config
                    flag = "--" + name.replace("_", "-")
                    raise ConfigError(
                        f"{flag} applies with --batch-api only; add --batch-api or drop {flag}"
                    )
            return
        if self.executor is ExecutorName.RAY:
            raise ConfigError(
                "--batch-api and --executor ray are two ways of running the calls; give one"
            )

    def given(self) -> list[str]:
        """The flags given on the command line (``--quiet`` aside), as ``--name``."""
        return [
            "--" + f.name.replace("_", "-")
            for f in fields(self)
            if f.name != "quiet" and getattr(self, f.name) not in (None, (), [])
        ]

    def setup(self, python: bool = False) -> JudgeSetup:
        """The library's :class:`~fairjudge.JudgeSetup` the flags give, checked there.

        The run flags go as :meth:`~fairjudge.runner.RunOptions.build`'s arguments,
        none when none was given; a ``python:`` judge (``--judge``, or a panel member:
        ``python=True``) runs on the engine (``--concurrency``'s default 16, progress)
        even then, as ``--help`` says, where the library alone would call it one call at
        a time. ``--executor
        ray --ray-address A`` is the library's ``executor="ray:A"``, which the session
        builds and shuts down; ``--batch-api`` a :class:`~fairjudge.runner.BatchExecutor`.
        """
        run = {name: value for name in _RUN_FLAGS if (value := getattr(self, name)) is not None}
        if run or self.quiet or python or (self.judge or "").strip().startswith("python:"):
            run["quiet"] = self.quiet
        executor: str | Executor | None = None
        if self.batch_api:
            from fairjudge.runner import DEFAULT_POLL_S, BatchExecutor

            poll = DEFAULT_POLL_S if self.batch_poll is None else self.batch_poll
            gone = tuple(self.abandon_batch or ())
            executor = BatchExecutor(wait=bool(self.wait), poll_s=poll, abandon=gone)
        elif self.executor is ExecutorName.RAY:
            executor = "ray" if self.ray_address is None else f"ray:{self.ray_address}"
        backend = BackendOptions(
            self.base_url, self.model_path, self.threads, self.temperature, self.timeout,
            self.context, reasoning_effort=self.reasoning_effort,
            thinking_budget=self.thinking_budget, max_tokens=self.max_tokens,
        )  # fmt: skip
        options = RunOptions.build(**run) if run else None
        return JudgeSetup(template=self.template, backend=backend, options=options,
                          store=self.store and _as_typed(self.store, "--store"),
                          executor=executor)  # fmt: skip  # --store DIR/ keeps its "/"


@dataclass(frozen=True, slots=True)
class InputFlags:
    """Which input columns hold what, and what to do with bad rows."""

    skip_invalid: SkipInvalid = False
    allow_empty: AllowEmpty = False
    question_col: QuestionCol = "question"
    answer1_col: Annotated[str, typer.Option(help="Column holding model 1's answer.")] = "answer_1"
    answer2_col: Annotated[str, typer.Option(help="Column holding model 2's answer.")] = "answer_2"
    id_col: Annotated[str, typer.Option(help="Column holding the item id.")] = "id"
    reference_col: Annotated[str, typer.Option(help="Column holding a reference.")] = "reference"
    human_col: Annotated[str, typer.Option(help="Column holding a human label.")] = "human"

    def columns(self) -> Columns:
        """The column mapping the loader reads."""
        return Columns(
            question=self.question_col, answer_1=self.answer1_col, answer_2=self.answer2_col,
            id=self.id_col, reference=self.reference_col, human=self.human_col,
        )  # fmt: skip

    def load(self, file: Path) -> LoadedItems[Item]:
        """Read and validate every row before any judge call; list what was skipped."""
        loaded = load_items(file, columns=self.columns(), skip_invalid=self.skip_invalid,
                            allow_empty=self.allow_empty)  # fmt: skip
        for problem in loaded.skipped:
            say("skipped", in_flags(problem))
        return loaded


@dataclass(frozen=True, slots=True)
class EvalFlags:
    """How items are judged and summarised, and where the results go."""

    rule: Annotated[Resolution, typer.Option(help="How the calls on an item resolve.")] = (
        Resolution.CONSERVATIVE
    )
    rounds: Annotated[int, typer.Option(help="Calls per item (1-100); 2 is the swap protocol.")] = 2
    balanced: Annotated[bool, typer.Option(help="Exactly half the calls in each order.")] = True
    seed: Annotated[int, typer.Option(help="Run seed: randomised orders and the bootstrap.")] = 0
    level: Level = 0.95
    bootstrap: Bootstrap = 2000
    max_unresolved: Annotated[
        float,
        typer.Option(
            help="Exit with code 4 when more than this share of items could not be resolved "
            "(parse failures, call errors), or none was: 0 fails on any, 1 only on none."
        ),
    ] = 0.2
    out: Annotated[Path | None, typer.Option(help="Write one JSON record per item.")] = None
    html: Annotated[
        Path | None,
        typer.Option(help="Write a self-contained HTML report (figures and every item)."),
    ] = None

    def settings(self, source: Path, *, inputs: tuple[Path | None, ...] = ()) -> EvalSettings:
        """The evaluation settings, validated (a bad flag is named before any call).

        ``inputs``: files the command reads besides ``source`` (a jury file), which
        ``--out`` and ``--html`` must not name either.
        """
        check_share(self.max_unresolved)
        check_outputs(self.out, self.html, inputs=(source, *inputs))
        return EvalSettings(
            self.rule, self.rounds, self.balanced, self.seed, self.level, self.bootstrap,
            source=str(source),
        )  # fmt: skip


def check_share(max_unresolved: float) -> None:
    """Refuse a ``--max-unresolved`` outside [0, 1], before any call."""
    if not 0 <= max_unresolved <= 1:
        raise ConfigError(f"--max-unresolved must be in [0, 1]; got {max_unresolved}")


def check_outputs(
    out: Path | None, html: Path | None, *, inputs: tuple[Path | str | None, ...] = ()
) -> None:
    """Prove ``--out`` and ``--html`` can be written, and are two files, before any call.

    Raises:
        ConfigError: A file cannot be written there, both flags name one file, or one
            names an input file (or an existing store) that writing would destroy.
    """
    if out is not None:
        check_writable(out, inputs=inputs)
    if html is not None:
        check_writable(html, "--html", inputs=inputs)
        if out is not None and out.resolve() == html.resolve():
            raise ConfigError(f"--out and --html both name {html}; give two files")


def _check_values(given: dict[str, Any]) -> None:
    """Check the shared flags among ``given`` (a command's values) as every run checks them.

    For ``--save-config``, which writes before the command runs: a value any run refuses
    (``--seed -1``, ``--level 5``, ``--concurrency 0``) is refused there, not saved. Not
    checked: ``--judge`` and ``--template`` (a panel's and the audit's are their own),
    the input and the files the run writes, which may not exist yet. A value of None
    (a flag not given) is the flag's default.
    """

    def group(kind: type[Any], but: tuple[str, str]) -> Any:
        return kind(**{f.name: given[f.name] for f in fields(kind)
                       if given.get(f.name) is not None and f.name not in but})  # fmt: skip

    group(EvalFlags, ("out", "html")).settings(Path("-"))
    judging = group(JudgeFlags, ("judge", "template"))
    judging.check()
    judging.setup()


def adds_flags(
    flags_type: type[Any], param: str, *, without: frozenset[str] = frozenset()
) -> Callable[[F], F]:
    """A decorator adding ``flags_type``'s fields as options, gathered into ``param``.

    ``without``: fields the command does not take as options here (``jury`` and
    ``audit`` declare a repeatable ``--judge`` themselves); they keep their defaults.
    A :class:`JudgeFlags` value is checked (:meth:`JudgeFlags.check`) before the
    command runs; :func:`_check_values` goes with the command (its ``check_values``),
    for ``--save-config``, which runs no command, to check the values with.
    """
    kept = [f for f in fields(flags_type) if f.name not in without]
    hints = get_type_hints(flags_type, include_extras=True)  # a base's fields too

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != param]
        # The --rounds flags are added first (innermost), so they are already there.
        with_rounds = any(p.name == "rounds" for p in own)

        def option(f: Any) -> inspect.Parameter:
            hint = hints[f.name]
            if f.name == "temperature" and with_rounds:
                hint = _TEMPERATURE_WITH_ROUNDS
            return inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default,
                                     annotation=hint)  # fmt: skip

        extra = [option(f) for f in kept]

        @wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            flags = kwargs[param] = flags_type(**{f.name: kwargs.pop(f.name) for f in kept})
            if isinstance(flags, JudgeFlags):
                flags.check()
            return fn(*args, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=own + extra)  # type: ignore[attr-defined]
        wrapper.check_values = _check_values  # type: ignore[attr-defined]  # --save-config's
        wrapper.__annotations__ = {p.name: p.annotation for p in own + extra}
        return wrapper  # type: ignore[return-value]

    return decorate


judge_flags = adds_flags(JudgeFlags, "flags")
"""Add the shared judge and run flags to a command, as its ``flags`` argument."""

input_flags = adds_flags(InputFlags, "columns")
"""Add the input-column flags to a command, as its ``columns`` argument."""

eval_flags = adds_flags(EvalFlags, "run")
"""Add the evaluation flags (rule, rounds, seed, bootstrap, --out, --html) as ``run``."""


def item_judging_flags(fn: F) -> F:
    """All three groups, for commands that judge a file of items (compare, calibrate).

    Shown in ``--help`` in this order: the command's own options, then evaluation,
    judge and input-column flags.
    """
    return input_flags(judge_flags(eval_flags(fn)))
