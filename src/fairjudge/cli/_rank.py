"""``fairjudge rank FILE``: a Bradley-Terry leaderboard of many models, with CIs."""

import dataclasses
import math
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.console import Console

from fairjudge._api import (
    FALLBACK_L2,
    Battles,
    EvalSettings,
    LongAnswers,
    PairwiseResult,
    battles_from,
    fit_battles,
    load_ranking_input,
    make_pairs,
)
from fairjudge._errors import ConfigError
from fairjudge._items import Item, Judgment
from fairjudge._types import Outcome
from fairjudge.cli._app import app, err_console, guarded, say
from fairjudge.cli._judging import check_unresolved, close_judge, last_run
from fairjudge.cli._markdown import markdown_flag
from fairjudge.cli._options import JudgeFlags, check_outputs, judge_flags
from fairjudge.cli._out import write_out
from fairjudge.io import strict_dumps, write_atomic
from fairjudge.judges import calls_no_model, judge_name
from fairjudge.prompts import get_template
from fairjudge.report import (
    RankingReport,
    page_html,
    print_failures,
    rank_page,
    render_ranking,
)
from fairjudge.runner import RunSummary

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
_AllowEmpty = Annotated[
    bool, typer.Option(help="Judge empty or blank answers instead of refusing the row.")
]


def _check(data: LongAnswers | Battles, fit: dict[str, Any], max_unresolved: float) -> None:
    """Every ranking option is checked before the first judge call."""
    anchor = fit["anchor"]
    if not fit["l2"] >= 0:
        raise ConfigError(f"--l2 must be >= 0; got {fit['l2']}")
    if fit["n_resamples"] < 1:
        raise ConfigError(f"--bootstrap must be >= 1; got {fit['n_resamples']}")
    if not math.isfinite(fit["anchor_rating"]):
        raise ConfigError(f"--anchor-rating must be a finite number; got {fit['anchor_rating']}")
    if not 0 <= max_unresolved <= 1:
        raise ConfigError(f"--max-unresolved must be in [0, 1]; got {max_unresolved}")
    check_outputs(fit.get("out"), fit.get("html"), inputs=(fit.get("source"),))
    models = (
        sorted(set(data.model_a) | set(data.model_b)) if isinstance(data, Battles) else data.models
    )
    if anchor is not None and anchor not in models:
        raise ConfigError(f"--anchor {anchor!r} is not a model in the input; models: {models}")


def _template_tag(flags: JudgeFlags) -> str | None:
    """The model judge's template as ``name@version``; ``None`` for a judge with no prompt."""
    if calls_no_model(flags.judge):
        return None
    template = get_template(flags.template or "default")
    return f"{template.name}@{template.version}"


_WINNER = {Outcome.ONE: "model_a", Outcome.TWO: "model_b", Outcome.TIE: "tie"}


def _battle(judgment: Judgment) -> dict[str, Any]:
    """One ``rank --out`` record: the judgment, and the battle it is (``rank`` reads it back).

    ``winner`` is ``null`` for an unresolved pair, which reading the file back skips,
    as the ranking did.
    """
    item = judgment.item
    winner = _WINNER[judgment.outcome] if judgment.outcome is not None else None
    return {**judgment.to_dict(), "question_id": item.cluster, "model_a": item.model_1,
            "model_b": item.model_2, "winner": winner}  # fmt: skip


def _judge(
    data: LongAnswers, file: Path, items: list[Item], *, seed: int, flags: JudgeFlags,
    out: Path | None, out_settings: dict[str, Any],
) -> tuple[PairwiseResult, RunSummary | None]:  # fmt: skip
    from fairjudge._api import judge_pairs  # the run, as fairjudge.compare's

    judge = flags.open_judge()  # every flag checked before anything is printed
    try:
        if not flags.quiet:
            err_console.print(
                f"{file}: {len(data.models)} models, {len(data.answers)} questions, "
                f"{len(items)} pairs; each judged in both orders",
                highlight=False,
                markup=False,
            )
        # On a spent budget, rank what was judged; the exit code says it is partial.
        result, _, _ = judge_pairs(judge, items, EvalSettings(seed=seed))
    finally:
        close_judge(judge)
    settings = dataclasses.replace(result.settings, judge=judge_name(judge), source=str(file))
    result = dataclasses.replace(result, settings=settings)
    if out is not None:
        write_out(out, "rank", (_battle(j) for j in result.judgments), judge=settings.judge,
                  template=_template_tag(flags),
                  settings={**settings.to_dict(), **out_settings}, calls=last_run(judge),
                  sent_by=judge)  # fmt: skip
    if result.n_unresolved:
        say(
            "unresolved",
            f"{result.n_unresolved} pair(s) ({result.n_parse_failures} parse failures, "
            f"{result.n_call_errors} call errors): left out of the ranking, never counted as ties",
        )
        print_failures(result.failures, err_console)
    return result, last_run(judge)


def _fit(
    battles: Battles, ties: Ties, style_control: bool, unresolved: int, common: dict[str, Any]
) -> RankingReport:
    """Bradley-Terry, and the style-controlled fit when asked for, on the same battles."""
    if style_control and (battles.answers_a is None or battles.answers_b is None):
        raise ConfigError("--style-control needs the answers: give long-format input")
    leaderboard, styled = fit_battles(battles, ties=ties, style_control=style_control, **common)
    return RankingReport(leaderboard, styled, unresolved)


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
    report: RankingReport, file: Path, *, json_output: bool, html: Path | None,
    result: PairwiseResult | None, run: RunSummary | None,
) -> None:  # fmt: skip
    """Print the leaderboard (a table or JSON); write the HTML and Markdown when asked."""
    from fairjudge.cli._markdown import write_markdown
    from fairjudge.report import ranking_markdown

    title = f"{'<stdin>' if str(file) == '-' else file.name}: leaderboard"
    if html is not None:
        write_atomic(html, (page_html(rank_page(report, title=title, result=result, run=run)),))
    markdown = lambda: ranking_markdown(report, title=title, result=result, run=run)  # noqa: E731
    if json_output:
        typer.echo(strict_dumps(report.to_dict(), indent=2))
        write_markdown(markdown)
        return
    if not write_markdown(markdown):
        render_ranking(report, Console())
    if html is not None:
        err_console.print(f"HTML report: {html}", highlight=False, markup=False)


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
    allow_empty: _AllowEmpty = False,
    *,
    flags: JudgeFlags,
) -> None:
    """Rank many models: judge pairs with the debiased protocol, fit Bradley-Terry."""
    fit: dict[str, Any] = {"anchor": anchor, "anchor_rating": anchor_rating, "l2": l2,
                           "n_resamples": bootstrap, "seed": seed}  # fmt: skip
    data = load_ranking_input(file, allow_empty=allow_empty)
    _check(data, {**fit, "out": out, "html": html, "source": file}, max_unresolved)
    result, run = None, None
    if isinstance(data, Battles):
        given = {"--pairing": pairing != "all", "--baseline": baseline is not None,
                 "--pairs-per-question": pairs_per_question != 1, "--out": out is not None,
                 "--max-unresolved": max_unresolved != _MAX_UNRESOLVED}  # fmt: skip
        unused = flags.given() + [flag for flag, set_ in given.items() if set_]
        if unused:
            raise ConfigError(
                f"{', '.join(unused)}: {file} holds judged battles, so no judge is "
                "called and these flags have no effect; drop them"
            )
        if not flags.quiet:
            say("no judge calls needed", f"{file}: {len(data.outcomes)} judged battles", "dim")
        battles = data
    else:
        items = make_pairs(
            data, pairing=pairing, baseline=baseline, pairs_per_question=pairs_per_question,
            seed=seed,
        )  # fmt: skip
        result, run = _judge(data, file, items, seed=seed, flags=flags, out=out, out_settings={
            "pairing": pairing, "baseline": baseline, "pairs_per_question": pairs_per_question,
            "ties": ties, "anchor": anchor, "anchor_rating": anchor_rating, "l2": l2,
            "n_resamples_fit": bootstrap, "style_control": style_control,
        })  # fmt: skip
        battles = battles_from(result)
    unresolved = result.n_unresolved if result is not None else 0
    report = _fit(battles, ties, style_control, unresolved, fit)
    _say_held(report)
    _show(report, file, json_output=json_output, html=html, result=result, run=run)
    if result is not None:
        check_unresolved(result, max_unresolved)  # after the report: partial exits 5
