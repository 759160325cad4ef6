"""``fairjudge rank FILE``: a Bradley-Terry leaderboard of many models, with CIs."""

from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

import typer

from fairjudge._api import FALLBACK_L2, Battles, NothingResolved, Result, load_ranking_input
from fairjudge._errors import ConfigError
from fairjudge.cli._app import app, echo_error, err_console, guarded, notes, say
from fairjudge.cli._exit_codes import EXIT_UNRESOLVED
from fairjudge.cli._options import AllowEmpty, JudgeFlags, check_outputs, check_share, judge_flags
from fairjudge.cli._out import (
    Ending,
    markdown_flag,
    markdown_given,
    save_out,
    show,
    verdict_exit,
    write_page,
)
from fairjudge.report import RankingReport, print_failures, render_ranking

__all__ = ["rank"]

Pairing = Literal["all", "baseline", "sample"]
Ties = Literal["half", "davidson"]


_File = Annotated[
    Path,
    typer.Argument(
        metavar="FILE",
        help="Long format (question_id, model, answer[, question]) "
        "or battles (model_a, model_b, winner[, question_id]).",
    ),
]
_Baseline = Annotated[str | None, typer.Option(help="The model for --pairing baseline.")]
_PerQuestion = Annotated[int, typer.Option(help="Pairs per question for --pairing sample.")]
_Ties = Annotated[Ties, typer.Option(help="half: a tie is half a win; davidson: a tie model.")]
_Anchor = Annotated[str | None, typer.Option(help="The model pinned at --anchor-rating.")]
_L2 = Annotated[
    float,
    typer.Option(
        help="Ridge on ratings. 0: plain maximum likelihood, or, when the battles have none "
        f"(a model never lost or never won), a ridge of {FALLBACK_L2:g}, said in the output."
    ),
]
_Style = Annotated[
    bool, typer.Option(help="Also fit Arena-Hard style control (length, headers, lists, bold).")
]
_MAX_UNRESOLVED = 0.2
_MaxUnresolved = Annotated[
    float, typer.Option(help="Exit with code 4 when more than this share of pairs is unresolved.")
]
_Out = Annotated[Path | None, typer.Option(help="Write the per-pair judgments (JSONL).")]
_Html = Annotated[
    Path | None, typer.Option(help="Write a self-contained HTML report (leaderboard and pairs).")
]
_Json = Annotated[bool, typer.Option("--json", help="Print the leaderboard as JSON.")]


def _say_held(report: RankingReport) -> None:
    """Say which ratings only the ridge keeps finite, and the --l2 that holds them."""
    boards = [b for b in (report.leaderboard, report.style_control) if b is not None]
    held = sorted({m for b in boards for m in b.held_by_ridge})
    if not held:
        return
    which = ", ".join(held)
    l2 = next(b for b in boards if b.held_by_ridge).l2
    if any(b.l2_fallback for b in boards):
        say(
            "no finite ratings",
            f"in the judged battles {which} never lost, or never won, against the rest, so "
            f"without a ridge the ratings run off to infinity. Fitted with a ridge of --l2 "
            f"{l2:g}, as Chatbot Arena's tooling does: the ratings of {which} are where the "
            "ridge holds them, not estimates, and their intervals are n/a. Pass --l2 to choose "
            "the ridge, or add battles they can lose or win",
        )
    else:
        say(
            "held by the ridge",
            f"{which} never lost, or never won, against the rest: their ratings are where "
            f"--l2 {l2:g} holds them, not estimates, and their intervals are n/a",
        )


def _show(
    ranked: Result, file: Path, *, json_output: bool, html: Path | None, limit: float
) -> None:
    """Print the leaderboard (a table or JSON), write the HTML and Markdown when asked; exit.

    The exit code (after the report: partial exits 5) is known first, for ``--json``,
    whose exit 4 points at the reasons under its ``failures``.
    """
    from fairjudge.report import ranking_markdown

    report, result, run = ranked.report, ranked.result, ranked.calls
    ending = Ending() if result is None else verdict_exit(result, limit, as_json=json_output,
                                                          noun="pairs")  # fmt: skip
    title = f"{'<stdin>' if str(file) == '-' else file.name}: leaderboard"
    write_page(html, ranked)
    markdown = lambda: ranking_markdown(report, title=title, result=result, run=run)  # noqa: E731
    show(report, render_ranking, as_json=json_output, files=[("HTML report", html)],
         markdown=markdown, ending=ending)  # fmt: skip
    ending.exit()


@app.command()
@guarded
@markdown_flag
@judge_flags
def rank(
    file: _File,
    pairing: Annotated[Pairing, typer.Option(help="Which pairs to judge.")] = "all",
    baseline: _Baseline = None,
    pairs_per_question: _PerQuestion = 1,
    ties: _Ties = "half",
    anchor: _Anchor = None,
    anchor_rating: Annotated[float, typer.Option(help="Rating of the anchor model.")] = 1000.0,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap rounds.")] = 1000,
    l2: _L2 = 0.0,
    seed: Annotated[int, typer.Option(help="Seed for pairing and bootstrap.")] = 0,
    style_control: _Style = False,
    max_unresolved: _MaxUnresolved = _MAX_UNRESOLVED,
    out: _Out = None,
    html: _Html = None,
    json_output: _Json = False,
    allow_empty: AllowEmpty = False,
    *,
    flags: JudgeFlags,
) -> None:
    """Rank many models: judge pairs with the debiased protocol, fit Bradley-Terry."""
    from fairjudge._api import rank as rank_models

    check_share(max_unresolved)
    check_outputs(out, html, inputs=(file,))
    data = load_ranking_input(file, allow_empty=allow_empty)
    if isinstance(data, Battles):
        _no_judge(file, data, flags, {
            "--pairing": pairing != "all", "--baseline": baseline is not None,
            "--pairs-per-question": pairs_per_question != 1, "--out": out is not None,
            "--max-unresolved": max_unresolved != _MAX_UNRESOLVED,
        })  # fmt: skip
    fit: dict[str, Any] = {"ties": ties, "anchor": anchor, "anchor_rating": anchor_rating,
                           "l2": l2, "seed": seed, "style_control": style_control}  # fmt: skip
    try:
        ranked = rank_models(
            data, flags.judge, setup=None if isinstance(data, Battles) else flags.setup(),
            notify=notes(flags.quiet), source=str(file), pairing=pairing, baseline=baseline,
            pairs_per_question=pairs_per_question, n_resamples=bootstrap, **fit,
        )  # fmt: skip
    except NothingResolved as exc:  # the calls were made: their failures, not exit 2
        _nothing_ranked(exc, out, html, max_unresolved, json_output)
    result = ranked.result
    if result is not None and out is not None:
        save_out(ranked, out, "rank")
        err_console.print(f"per-item results: {out}", highlight=False, markup=False, soft_wrap=True)
    if result is not None and result.n_unresolved:
        _say_unresolved(result, listed=not json_output)  # --json: under its "failures"
    _say_held(ranked.report)
    _show(ranked, file, json_output=json_output, html=html, limit=max_unresolved)


def _no_judge(file: Path, data: Battles, flags: JudgeFlags, given: dict[str, bool]) -> None:
    """Judged battles call no judge: refuse the flags that would have no effect."""
    unused = flags.given() + [flag for flag, set_ in given.items() if set_]
    if unused:
        raise ConfigError(
            f"{', '.join(unused)}: {file} holds judged battles, so no judge is "
            "called and these flags have no effect; drop them"
        )
    if not flags.quiet:
        say("no judge calls needed", f"{file}: {len(data.outcomes)} judged battles", "dim")


def _nothing_ranked(exc: NothingResolved, out: Path | None, html: Path | None,
                    limit: float, as_json: bool) -> NoReturn:  # fmt: skip
    """No pair has a verdict: why each failed, grouped, then exit 4 (5 when a budget stopped).

    As a rank with some pairs unresolved says them, and as ``compare`` exits when
    nothing resolves; ``--out`` keeps every judgment, and ``--json`` gets the error
    object every failed command prints. A leaderboard of no battles has no ratings to
    draw, so ``--html`` and ``--markdown`` write nothing, and stderr says so rather
    than leave the user looking for a file that never came.
    """
    if out is not None:
        save_out(exc, out, "rank")
        err_console.print(f"per-item results: {out}", highlight=False, markup=False, soft_wrap=True)
    _say_unresolved(exc.result)
    _say_not_written(html)
    ending = verdict_exit(exc.result, limit, noun="pairs")
    if as_json:
        echo_error(type(exc).__name__, str(exc), ending.code)
    ending.exit()
    raise typer.Exit(EXIT_UNRESOLVED)  # never reached: nothing resolved is always too many


def _say_not_written(html: Path | None) -> None:
    """Say that the page and the Markdown summary asked for were not written."""
    why = "nothing to rank: no judged pair has a verdict (the failures are listed above)"
    if html is not None:
        say("no page written", f"{why}; --html {html} was not written")
    if markdown_given():
        say("no Markdown summary written", f"{why}; --markdown wrote nothing")


def _say_unresolved(result: Any, *, listed: bool = True) -> None:
    """The pairs left out of the ranking, and why (``listed``): never counted as ties.

    Beside ``--json`` of a leaderboard the reasons are not listed: its ``failures``
    holds them, as ``compare --json``'s does.
    """
    say(
        "unresolved",
        f"{result.n_unresolved} pair(s) ({result.n_parse_failures} parse failures, "
        f"{result.n_call_errors} call errors"
        + (f", {result.n_not_run} not run" if result.n_not_run else "")  # a budget stop
        + "): left out of the ranking, never counted as ties",
    )
    if listed:
        print_failures(result.failures, err_console)
