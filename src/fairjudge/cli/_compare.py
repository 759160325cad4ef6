"""``fairjudge compare FILE``: two systems compared, by the swap protocol or via scores.

The plain run is position-debiased (:func:`fairjudge.compare`). ``--via-scores``
scores each answer on its own against a rubric instead, in its own call, so no order
exists for the judge to prefer; the two scores of an item give its outcome, read like
the swap protocol's win rate under ``--tie-margin``, and ``--with-swap`` runs the swap
protocol too on the same session (one store, one budget). ``--stop-when`` (with
``jury`` too) judges questions batch by batch until the stop rule is met.

The options are declared here, so ``compare --help`` imports them; the judging,
scoring and report machinery loads only when the command runs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from fairjudge._errors import ConfigError
from fairjudge.cli._app import app, err_console, guarded
from fairjudge.cli._options import (
    EvalFlags,
    InputFlags,
    JudgeFlags,
    PairsFile,
    SummaryJson,
    adds_flags,
    item_judging_flags,
)
from fairjudge.cli._out import finish, markdown_flag, verdict_exit
from fairjudge.prompts import DEFAULT_RUBRIC, get_rubric

if TYPE_CHECKING:
    from rich.console import Console

    from fairjudge._api import ViaScoresRun

__all__ = ["StopFlags", "ViaScoresFlags", "compare", "stop_flags", "via_scores_flags"]

ScoreMode = Literal["json", "label"]
""":data:`fairjudge.judges.ScoreMode`, spelled out: importing it loads the pointwise
judge, which a plain ``compare`` never uses (a test keeps the two equal)."""


@dataclass(frozen=True, slots=True)
class StopFlags:
    """The options of ``--stop-when`` (``compare``, ``jury``)."""

    stop_when: Annotated[
        list[str] | None,
        typer.Option(
            metavar="RULE",
            help="Judge questions in a seeded random order, batch by batch, and stop once "
            "'decided' (the anytime-valid interval for model 1's win rate excludes 0.5) or "
            "'width:W' (its half-width is at most W). Repeat it or comma-separate for both; "
            "the first met stops the run.",
        ),
    ] = None
    batch: Annotated[
        int | None,
        typer.Option(
            help="With --stop-when: questions judged between two looks at the interval. "
            "[default: one wave of --concurrency calls, at least 8 questions]"
        ),
    ] = None
    population: Annotated[
        str | None,
        typer.Option(
            metavar="source|file",
            help="With --stop-when: what the interval and the decision are about. 'source': "
            "questions like these, the population the file's questions are drawn from (the "
            "same question the bootstrap CI answers). 'file': this file's questions only; "
            "the interval then shrinks to the file's own win rate at its end, and every "
            "line says it describes this file only. [default: source]",
        ),
    ] = None


stop_flags = adds_flags(StopFlags, "stop")
"""Add the ``--stop-when`` options to a command, as its ``stop`` argument."""


@dataclass(frozen=True, slots=True)
class ViaScoresFlags:
    """The options of ``compare --via-scores``."""

    via_scores: Annotated[
        bool,
        typer.Option(
            "--via-scores",
            help="Score each answer on its own against a rubric (one call per answer, so no "
            "order to prefer) and compare the two scores per item. --html draws the page "
            "`fairjudge report` draws from its --out file.",
        ),
    ] = False
    rubric: Annotated[
        str | None,
        typer.Option(help=f"With --via-scores: the rubric. [default: {DEFAULT_RUBRIC}]"),
    ] = None
    score_mode: Annotated[
        ScoreMode,
        typer.Option(
            help="With --via-scores: json, or label for probability-weighted scores where the "
            "judge gives logprobs (then used to compare)."
        ),
    ] = "json"
    tie_margin: Annotated[
        float,
        typer.Option(help="With --via-scores: a tie when the two scores differ by at most this."),
    ] = 0.0
    with_swap: Annotated[
        bool,
        typer.Option(
            "--with-swap",
            help="With --via-scores: run the swap protocol too, same model and session, "
            "and show both.",
        ),
    ] = False

    def requested(self) -> bool:
        """Whether ``--via-scores`` was given; its options without it are an error."""
        given = {"--rubric": self.rubric is not None, "--score-mode": self.score_mode != "json",
                 "--tie-margin": self.tie_margin != 0.0, "--with-swap": self.with_swap}  # fmt: skip
        flags = [flag for flag, on in given.items() if on]
        if flags and not self.via_scores:
            raise ConfigError(
                f"{flags[0]} applies with --via-scores only; add it, or drop {flags[0]}"
            )
        return self.via_scores


via_scores_flags = adds_flags(ViaScoresFlags, "via")
"""Add the ``--via-scores`` options to ``compare``, as its ``via`` argument."""


def _next_step(flags: JudgeFlags) -> str:
    """One line on what to try next, so a first run does not end in a dead end."""
    if flags.judge is None or flags.judge.startswith("local/"):
        return (
            "next: the embedded judge is a small demo judge; for decisions use a strong one, "
            "e.g. --judge openai/gpt-4o-mini, and check it first with `fairjudge calibrate`"
        )
    return "next: `fairjudge calibrate` checks this judge against human labels"


@app.command()
@guarded
@markdown_flag
@item_judging_flags
@via_scores_flags
@stop_flags
def compare(
    file: PairsFile,
    json_output: SummaryJson = False,
    *,
    flags: JudgeFlags,
    columns: InputFlags,
    run: EvalFlags,
    via: ViaScoresFlags,
    stop: StopFlags,
) -> None:
    """Compare two systems' answers with the position-debiased protocol.

    With --via-scores, each answer is scored on its own against a rubric instead (no
    order exists to prefer), and the two scores per item give the win rate; --html
    draws its scores' page under the win rate via scores (and the swap protocol's,
    with --with-swap).

    With --stop-when, questions are judged in a seeded random order, --batch questions at a
    time, and the run stops once the answer is known ('decided') or known closely enough
    ('width:W'). Its interval is an anytime-valid confidence sequence, valid however early the
    run stopped; the bootstrap CI of the judged items is shown too, marked as not valid after an
    early stop. The store holds exactly the calls made: a rerun with the same --seed and --store
    reuses them and goes on from where it stopped (with a tighter width, a larger budget, or
    without --stop-when to judge the whole file). With --via-scores, each item's score is its
    outcome via the two answers' scores (not with --with-swap). Exit codes with --stop-when: 0
    when the run stops on its condition or reaches the end of the file (decided, width, not
    decided); 5 when --max-calls or --max-cost runs out first (the partial result is shown and
    saved); 4, as always, when too many judged items are unresolved (--max-unresolved).
    """
    # The judging and report machinery loads when the command runs, not for --help.
    if via.requested():
        return _via_scores(file, json_output, flags, columns, run, via, stop)
    from fairjudge._api import compare as compare_items
    from fairjudge.report import render_comparison

    settings = run.settings(file)
    done = compare_items(
        columns.load(file), flags.judge, settings=settings, setup=flags.setup(),
        source=str(file), stop_when=stop.stop_when, batch=stop.batch, population=stop.population,
    )  # fmt: skip
    ending = verdict_exit(done.result, run.max_unresolved, as_json=json_output)
    finish(done, "compare", render_comparison, out=run.out, html=run.html, as_json=json_output,
           ending=ending)  # fmt: skip
    if not json_output and not ending.code:  # a result that does not stand: fix that first
        err_console.print(_next_step(flags), highlight=False, markup=False)
    ending.exit()


def _via_scores(
    file: Path, json_output: bool, flags: JudgeFlags, columns: InputFlags, run: EvalFlags,
    via: ViaScoresFlags, stop: StopFlags,
) -> None:  # fmt: skip
    """``compare --via-scores``: check everything, score every answer, report, exit.

    Exit codes as ``compare``: 2 before any call for a usage or input error, 4 too many
    unresolved items, 5 a spent budget.
    """
    from fairjudge._api import via_scores

    settings = run.settings(file)
    rubric = get_rubric(via.rubric or DEFAULT_RUBRIC)
    done = via_scores(
        flags.judge, columns.load(file), settings, setup=flags.setup(), rubric=rubric,
        mode=via.score_mode, tie_margin=via.tie_margin, with_swap=via.with_swap,
        stop_when=stop.stop_when, batch=stop.batch, population=stop.population,
    )  # fmt: skip
    what = "lack a score on some dimension"
    ending = verdict_exit(
        done.result, run.max_unresolved, what, as_json=json_output, key="via_scores.failures"
    )
    if not ending.code and done.swap is not None:
        ending = verdict_exit(done.swap, run.max_unresolved, as_json=json_output,
                              key="swap.failures")  # fmt: skip
    # --out's header records the scorer's requests and calls; the --html page is drawn
    # from it, so `fairjudge report` of the file draws it again. Both before the exit code.
    finish(done, "compare", _render_via, out=run.out, html=run.html, as_json=json_output,
           ending=ending, report=done, markdown=done.markdown,
           reasons=(_swap_reasons(done), done.result.scores.failures))  # fmt: skip
    ending.exit()


def _render_via(done: ViaScoresRun, console: Console) -> None:
    """The comparison via scores as tables (and the swap protocol's, ``--with-swap``).

    Why calls gave no verdict first, as ``compare`` lists them: the swap protocol's
    (which its exit 4 says are listed above), then the scores' (:func:`render_via_scores`).
    """
    from fairjudge.report import print_failures, render_via_scores

    print_failures(_swap_reasons(done), console)
    render_via_scores(done.result, console, swap=done.swap, title=done.title,
                      adaptive=done.adaptive)  # fmt: skip


def _swap_reasons(done: ViaScoresRun) -> Counter[str]:
    """The ``--with-swap`` protocol's reasons, each marked as its own (none without it)."""
    failures = Counter[str]() if done.swap is None else done.swap.failures
    return Counter({f"swap protocol: {reason}": n for reason, n in failures.items()})
