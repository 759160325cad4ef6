"""The panel commands: ``jury`` (pairwise verdicts) and ``score-jury`` (rubric scores).

The members come from ``--judge`` given several times (with ``--weight`` once per
``--judge``, optionally) or from ``--jury FILE.toml``
(:func:`fairjudge.judges.load_jury_file`). ``jury --jury FILE.jsonl`` replays a
previous ``jury --out`` instead: every member answers from its recorded calls, with
its recorded weight, at no cost; the same records read back as one judge, ``--judge
replay:FILE``. The model members' calls run as one batch on one session, so one store
and one budget (``--max-calls``, ``--max-cost``) cover the panel and a rerun costs no
call; ``--template``, ``--base-url``, ``--temperature``, ``--timeout``,
``--max-tokens``, ``--reasoning-effort`` and ``--thinking-budget`` apply to the model
members that do not set their own (each refused for a member it does not apply to).

``score-jury`` is a command of its own, not ``score --judge A --judge B``: ``score``
takes ``--judge`` once (a repeated one keeps its last value, as on every single-judge
command), and a panel's result and ``--out`` records differ from one judge's; the
panel's own scores are under ``panel_scores``, so its file is not taken for a
one-judge ``score --baseline``. Every other option is ``score``'s.

Exit codes: ``compare``'s for ``jury`` and ``score``'s for ``score-jury``
(:mod:`._app`): 2 a usage or input error, always before the first call; 5 a spent
budget (the partial result is printed and saved); 4 too many unresolved items; 6
``score-jury --fail-on-collapse`` when the panel's scores on a dimension collapsed.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from fairjudge._errors import ConfigError, InputError
from fairjudge.cli._app import app, guarded
from fairjudge.cli._compare import StopFlags, stop_flags
from fairjudge.cli._options import (
    ALLOW_PYTHON_ONLY_WITH_JURY,
    ALLOW_SERVERS_ONLY_WITH_JURY,
    AllowJuryServers,
    AllowPythonJudges,
    EvalFlags,
    InputFlags,
    JudgeFlags,
    PairsFile,
    SummaryJson,
    adds_flags,
    eval_flags,
    input_flags,
)
from fairjudge.cli._out import Ending, finish, markdown_flag, verdict_exit
from fairjudge.cli._score import ScoreFile, ScoreFlags, score_flags, scored_exit

# The panel machinery, the statistics and the pages load when a command runs
# (imported in the functions below), never for its --help.
if TYPE_CHECKING:
    from fairjudge._api import Result
    from fairjudge.judges import JuryFile, MemberSpec

__all__ = [
    "JuryFlags", "ScorePanelFlags", "jury", "no_model_flags", "score_jury", "score_panel",
    "specs_from_flags",
]  # fmt: skip

_NOT_FOR_PANELS = {"judge", "model_path", "threads", "context"}
"""JudgeFlags fields a panel does not take: ``--judge`` is repeatable here, and the
local-model options are not supported on a panel. The output cap, reasoning effort
and thinking budget apply to every model member that sets none of its own (in a
``--jury`` file), each refused for a member it does not apply to, as on ``compare``."""


panel_run_flags = adds_flags(JudgeFlags, "flags", without=frozenset(_NOT_FOR_PANELS))

_Weights = Annotated[
    list[float] | None,
    typer.Option(
        metavar="W", help="A member's weight, once per --judge, in order. [default: 1 each]"
    ),
]
"""``--weight``, of both panels' members."""


@dataclasses.dataclass(frozen=True, slots=True)
class _PanelFlags:
    """The member flags both panels take, in their ``--help`` order.

    ``--weight`` and the two allowances are declared here once. Each panel declares
    its own ``--judge``, ``--jury`` and ``--aggregate`` again (a field declared again
    keeps its place): what each takes differs (a jury file replays as ``.jsonl`` on
    ``jury`` only, and the rules differ).
    """

    judge: list[str] | None = None
    weight: _Weights = None
    jury: Path | None = None
    allow_python_judges: AllowPythonJudges = False
    allow_jury_servers: AllowJuryServers = False
    aggregate: str | None = None

    def check_allowances(self) -> None:
        """``--allow-python-judges`` and ``--allow-jury-servers`` go with ``--jury FILE.toml``."""
        if self.allow_python_judges and self.jury is None:
            raise ConfigError(ALLOW_PYTHON_ONLY_WITH_JURY)
        if self.allow_jury_servers and self.jury is None:
            raise ConfigError(ALLOW_SERVERS_ONLY_WITH_JURY)

    def read_jury_file(self) -> JuryFile:
        """``--jury FILE.toml``, read as the panel's flags allow; its errors name the flag."""
        from fairjudge.judges import load_jury_file

        assert self.jury is not None  # a panel reads its file only when given one
        with naming_the_jury_flag():
            return load_jury_file(
                self.jury, allow_python=self.allow_python_judges,
                allow_servers=self.allow_jury_servers,
            )  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class JuryFlags(_PanelFlags):
    """Who sits on the panel and how their verdicts combine."""

    judge: Annotated[
        list[str] | None,
        typer.Option(metavar="SPEC", help="A member (any --judge form); give it once per member."),
    ] = None
    jury: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="A TOML file of [[member]] tables (judge, template, weight, base_url, "
            "temperature, timeout, reasoning_effort, thinking_budget, max_tokens), or a "
            "previous jury --out (.jsonl) to replay every member at no cost.",
        ),
    ] = None
    aggregate: Annotated[
        str | None,
        typer.Option(
            metavar="majority|mean",
            help="majority: members' debiased verdicts vote (no majority is a tie); "
            "mean: mean of members' soft scores. [default: the file's, else majority]",
        ),
    ] = None

    @property
    def recorded(self) -> bool:
        """Whether ``--jury`` names a previous ``jury --out`` (JSONL) to replay."""
        return self.jury is not None and self.jury.suffix.lower() in (".jsonl", ".json")

    def members(self, flags: Any) -> tuple[list[MemberSpec], str | None]:
        """The member specs and the rule given (``fairjudge.compare`` checks it); no judge yet.

        Raises:
            ConfigError: Neither or both of --judge and --jury, or --weight not matching
                --judge.
        """
        if bool(self.judge) == (self.jury is not None):
            both = ", not both" if self.judge else ""
            raise ConfigError(
                f"give the members with --judge (twice or more) or --jury FILE.toml{both}"
            )
        self.check_allowances()
        rule = self.aggregate
        if self.jury is not None:
            if self.weight:
                raise ConfigError("--weight goes with --judge; in a --jury file, set weight =")
            loaded = self.read_jury_file()
            specs, rule = list(loaded.members), rule or loaded.aggregate
        else:
            specs = specs_from_flags(self.judge or [], self.weight)
        return specs, rule


@contextlib.contextmanager
def naming_the_jury_flag() -> Iterator[None]:
    """A jury file's errors name the file; the command line puts its flag before it."""
    try:
        yield
    except InputError as exc:
        raise InputError(f"--jury {exc}", params=exc.params) from None


def specs_from_flags(judges: list[str], weights: list[float] | None) -> list[MemberSpec]:
    """The members given with ``--judge``, weighed by ``--weight`` (once per ``--judge``)."""
    weights = weights or [1.0] * len(judges)
    if len(weights) != len(judges):
        raise ConfigError(
            f"--weight was given {len(weights)} time(s) for {len(judges)} --judge; "
            "give one per --judge, in order, or none"
        )
    from fairjudge.judges import MemberSpec

    return [MemberSpec(j, weight=w) for j, w in zip(judges, weights, strict=True)]


def no_model_flags(flags: Any, what: str, more: tuple[str, ...] = ()) -> None:
    """Refuse the model, store and budget flags (and ``more``) for a panel that calls no model."""
    given = [g for g in flags.given() if g] + list(more)
    if given:
        raise ConfigError(
            f"{', '.join(given)}: {what} has no model, prompt, store or budget; drop them"
        )


PYTHON_PANEL_FLAGS = (
    "--store",
    "--concurrency",
    "--rpm",
    "--max-calls",
    "--max-attempts",
    "--timeout",
)
"""The run flags a panel of Python judges takes: they run on the engine, as one does."""


def python_panel_flags(flags: Any, more: tuple[str, ...] = ()) -> None:
    """Refuse the model, token and cost flags (and ``more``) for a panel of Python judges."""
    given = [g for g in flags.given() if g not in PYTHON_PANEL_FLAGS]
    if given or more:
        raise ConfigError(
            f"{', '.join([*given, *more])}: a panel of Python callables has no model or "
            f"prompt and reports no tokens or cost (it takes {', '.join(PYTHON_PANEL_FLAGS)}); "
            "drop them"
        )


def _seat(panel: JuryFlags, flags: Any) -> tuple[Any, str | None]:
    """The panel (a recorded one, or its specs, every member checked) and the rule given."""
    if panel.recorded and panel.jury is not None:
        if panel.weight or panel.judge or panel.allow_python_judges or panel.allow_jury_servers:
            raise ConfigError(
                "--jury FILE.jsonl replays a recorded panel, which runs no code and calls no "
                "server; drop --judge/--weight/--allow-python-judges/--allow-jury-servers"
            )
        no_model_flags(flags, "a recorded panel")
        from fairjudge.judges import recorded_jury

        with naming_the_jury_flag():
            panel_jury, recorded_rule = recorded_jury(panel.jury)
        return panel_jury, panel.aggregate or recorded_rule
    specs, rule = panel.members(flags)
    if all(s.is_python for s in specs):
        python_panel_flags(flags)
    return specs, rule


def _any_python(members: Any) -> bool:
    """Whether a panel seats a ``python:`` member: the CLI runs those on the engine."""
    return any(getattr(m, "is_python", False) for m in members)


def _judge(
    file: Path, panel: JuryFlags, flags: Any, columns: InputFlags, run: EvalFlags,
    stop: StopFlags,
) -> Result:  # fmt: skip
    """Check everything, run ``fairjudge.compare(judges=...)`` (adaptively with ``stop``)."""
    settings = run.settings(file, inputs=(panel.jury,))  # --out and --html writable, too
    loaded = columns.load(file)
    members, rule = _seat(panel, flags)
    from fairjudge._api import compare
    from fairjudge.judges import Jury

    recorded = isinstance(members, Jury)  # runs as recorded: no_model_flags took no setup
    with contextlib.ExitStack() as built:
        if recorded:  # ours to close
            built.callback(members.close)
        done = compare(
            loaded, judges=members, aggregate=rule, settings=settings,
            setup=None if recorded else flags.setup(python=_any_python(members)),
            source=str(file),
            stop_when=stop.stop_when, batch=stop.batch, population=stop.population,
        )  # fmt: skip
    return done


@app.command()
@guarded
@markdown_flag
@input_flags
@panel_run_flags
@eval_flags
@adds_flags(JuryFlags, "panel")
@stop_flags
def jury(
    file: PairsFile,
    json_output: SummaryJson = False,
    *,
    panel: JuryFlags,
    flags: Any,
    columns: InputFlags,
    run: EvalFlags,
    stop: StopFlags,
) -> None:
    """Judge two systems' answers with a panel of judges, and show what each member adds.

    Every member judges every item with the position-debiased protocol, on one run,
    one store and one budget; the verdicts are aggregated by --aggregate.

    With --stop-when, questions are judged in a seeded random order, --batch questions
    at a time, each item scored by the panel's verdict under --aggregate, and the run
    stops once the answer is known ('decided') or known closely enough ('width:W'), as
    for compare: the anytime-valid interval, the stop and the calls used and saved are
    shown, the bootstrap CI is marked as not valid after an early stop, and a rerun
    with the same --seed and --store goes on from where it stopped. Exit codes are
    compare's: 0 when the run stops on its condition or reaches the end of the file; 5
    when --max-calls or --max-cost runs out first; 4 when too many judged items are
    unresolved.
    """
    from fairjudge.report import render_jury

    done = _judge(file, panel, flags, columns, run, stop)
    # The panel decides an item only when every member resolved it (evaluation/_jury.py)
    what = ("lack a verdict from at least one member, and the panel decides an item only "
            "when every member does")  # fmt: skip
    # Each member's reasons: listed above the line (as compare's), or under --json's "failures"
    ending = verdict_exit(done.report.result, run.max_unresolved, what, as_json=json_output)
    finish(done, "jury", render_jury, out=run.out, html=run.html, as_json=json_output,
           ending=ending)  # fmt: skip
    ending.exit()


@dataclasses.dataclass(frozen=True, slots=True)
class ScorePanelFlags(_PanelFlags):
    """Who sits on the panel and how their scores combine."""

    judge: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SPEC",
            help="A member: openai/<model>, anthropic/<model>, local/<name> or "
            "python:package.module:function; give it once per member (two or more).",
        ),
    ] = None
    jury: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE.toml",
            help="A TOML file of [[member]] tables (judge, weight, base_url, temperature, "
            "timeout, reasoning_effort, thinking_budget, max_tokens), instead of --judge.",
        ),
    ] = None
    aggregate: Annotated[
        str | None,
        typer.Option(
            metavar="mean|median",
            help="How a panel's scores combine per dimension: the weighted mean or the "
            "weighted median. [default: mean]",
        ),
    ] = None

    def members(self, flags: Any) -> tuple[list[MemberSpec], str]:
        """The member specs (with the command line's backend flags) and the rule, checked.

        Raises:
            ConfigError: Fewer than two --judge, --weight not once per --judge, or an
                unknown rule.
        """
        self.check_allowances()
        if self.jury is not None:
            if self.judge or self.weight:
                raise ConfigError("give the members with --judge or --jury FILE.toml, not both")
            loaded = self.read_jury_file()
            templated = [m.judge for m in loaded.members if m.template is not None]
            if templated:
                raise ConfigError(
                    f"--jury {self.jury}: member {templated[0]!r} sets a template; a scoring "
                    "panel asks every member with the one --rubric"
                )
            given, rule = list(loaded.members), self.aggregate or loaded.aggregate or "mean"
        else:
            given, rule = self._from_flags(), self.aggregate or "mean"
        # The library's check, before the input is read; a rule the file set names its key.
        from_file = self.jury is not None and not self.aggregate
        key = f"--jury {self.jury}: aggregate" if from_file else "aggregate"
        from fairjudge._api import SCORE_AGGREGATIONS, check_rule

        return given, check_rule(rule, SCORE_AGGREGATIONS, param=key)

    def _from_flags(self) -> list[MemberSpec]:
        """The members given with --judge (and --weight), checked."""
        judges = self.judge or []
        if len(judges) < 2:
            raise ConfigError(
                f"a panel needs --judge twice or more (or --jury FILE.toml); got {len(judges)} "
                "(for one judge: fairjudge score)"
            )
        return specs_from_flags(judges, self.weight)


def score_panel(file: Path, opts: ScoreFlags, panel: ScorePanelFlags, flags: Any) -> Ending:
    """Check everything, run ``fairjudge.score(judges=...)``, write ``--out``, show the report.

    Returns the run's ending, which ``--json`` has said.

    Raises:
        ConfigError: A bad flag, member or input, always before the first call.
    """
    rubric = opts.check(flags, file)
    specs, rule = panel.members(flags)
    loaded = opts.load(file, rubric)
    if all(s.is_python for s in specs):  # no model: no mode to ask in
        more = ("--mode",) * (opts.mode != "json") + ("--structured",) * opts.structured
        python_panel_flags(flags, more)
    from fairjudge._api import score
    from fairjudge.report import render_score_jury

    done = score(
        loaded, judges=specs, aggregate=rule, rubric=rubric, mode=opts.mode,
        structured=opts.structured, seed=opts.seed, level=opts.level,
        n_resamples=opts.bootstrap, baseline=opts.baseline,
        allow_different=opts.allow_different, setup=flags.setup(python=_any_python(specs)),
        source=str(file),
    )  # fmt: skip
    # A dimension's panel score needs members holding more than half the weight (_panel.py)
    what = ("lack a panel score on some dimension, which needs scores from members holding "
            "more than half the panel's weight")  # fmt: skip
    ending = scored_exit(done.result, opts, what=what)
    finish(done, "score-jury", render_score_jury, out=opts.out, html=opts.html,
           as_json=opts.json_output, ending=ending)  # fmt: skip
    return ending


@app.command("score-jury")
@guarded
@markdown_flag
@adds_flags(ScorePanelFlags, "panel")
@panel_run_flags
@score_flags
def score_jury(
    file: ScoreFile,
    *,
    opts: ScoreFlags,
    panel: ScorePanelFlags,
    flags: Any,
) -> None:
    """Score each answer with a panel of judges: aggregates, agreement, what each adds.

    Exit codes: 0 ok; 1 judging failed; 2 usage or input error (before any call); 4 too
    many answers without a panel score; 5 budget spent (partial result); 6
    --fail-on-collapse and the panel's scores on a dimension collapsed.
    """
    score_panel(file, opts, panel, flags).exit()
