"""``fairjudge calibrate FILE``: a judge's report card against human labels.

Run it on 20-300 human-labelled items before trusting a judge (or a judge prompt)
at scale; the figures are computed by :func:`fairjudge.audit.calibration_report`.

Pairwise or pointwise input is told by the columns: ``answer_1``/``answer_2`` is
pairwise (verdicts against ``human``, scores against ``human_score``); an ``answer``
column without them is pointwise (the rubric's scores against ``human_<dimension>``,
per dimension: :func:`fairjudge.audit.score_calibration_report`). From stdin (``-``)
or a pipe the columns are not peeked at: ``--rubric`` selects pointwise input.

The gate: Cohen's kappa >= ``--min-kappa`` (0.4) on ``human`` labels (1/2/tie),
Spearman >= ``--min-spearman`` (0.7) on ``human_score`` (pointwise: on every
dimension). Each compares the point estimate; whether the interval's lower end
clears the threshold too is printed next to it (see :mod:`fairjudge.audit._calibration`).

Exit codes: 0 when the gate passes, 3 when it fails, 7 when no check of the gate
could be evaluated (too few labelled items, or a statistic that is undefined on
them: not a pass), 2 for input errors, 1 when judging failed, 4 when too many items
were unresolved, 5 when a budget stopped the run.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairjudge._errors import ConfigError
from fairjudge._types import Resolution
from fairjudge.audit import MIN_KAPPA, MIN_SPEARMAN, check_threshold
from fairjudge.cli._app import app, guarded, say
from fairjudge.cli._exit_codes import EXIT_GATE_FAILED, EXIT_GATE_NOT_APPLIED
from fairjudge.cli._options import EvalFlags, InputFlags, JudgeFlags, adds_flags, item_judging_flags
from fairjudge.cli._out import (
    Ending,
    markdown_flag,
    refuse_markdown,
    save_out,
    verdict_exit,
    write_markdown,
    write_page,
)
from fairjudge.cli._score import load_scored, unscored_exit
from fairjudge.io import is_pointwise_file, strict_dumps
from fairjudge.judges import ScoreMode
from fairjudge.prompts import DEFAULT_RUBRIC, Rubric, get_rubric

__all__ = ["calibrate"]

_File = Annotated[
    Path,
    typer.Argument(
        metavar="FILE",
        help="Pairwise: question, answer_1, answer_2 and human (1/2/tie) or human_score. "
        "Pointwise (an answer column, no answer_1/answer_2): question, answer and "
        "human_<dimension> scores for the rubric's dimensions, optional system.",
    ),
]
_Gate = Annotated[
    float,
    typer.Option(help="Gate: pass at Spearman >= this (human_score; pointwise: every dimension)."),
]
_MinKappa = Annotated[
    float,
    typer.Option(
        help="Gate: pass at Cohen's kappa >= this (human labels 1/2/tie; 0.4 is the bottom of "
        "'moderate' agreement). Compared with the point estimate, as --min-spearman."
    ),
]


@dataclass(frozen=True, slots=True)
class PointwiseFlags:
    """The options of ``calibrate`` for pointwise input."""

    rubric: Annotated[
        str | None,
        typer.Option(
            help="Pointwise input: the rubric the human_<dimension> columns score (a name or "
            f".toml). [default: {DEFAULT_RUBRIC}] From stdin (-), giving it selects pointwise."
        ),
    ] = None
    mode: Annotated[
        ScoreMode,
        typer.Option(help="Pointwise input: json (one reply per answer) or label (see score)."),
    ] = "json"

    def given(self) -> str | None:
        """The first pointwise option given, as ``--name``."""
        return "--rubric" if self.rubric is not None else "--mode" if self.mode != "json" else None


pointwise_flags = adds_flags(PointwiseFlags, "scoring")


def is_pointwise(file: Path, columns: InputFlags, scoring: PointwiseFlags) -> bool:
    """Whether the input is pointwise: an ``answer`` column and no answer_1/answer_2.

    Raises:
        ConfigError: A pointwise option given for pairwise input.
    """
    if str(file) == "-" or not file.is_file():
        # stdin, a named pipe or process substitution can be read once only: peeking
        # at its first row would lose it. (A missing file is the loader's to report.)
        pointwise = scoring.rubric is not None
    else:
        pointwise = is_pointwise_file(file, (columns.answer1_col, columns.answer2_col))
    flag = scoring.given()
    if flag is not None and not pointwise:
        raise ConfigError(
            f"{flag} applies to pointwise input (an 'answer' column with human_<dimension> "
            "scores); this input is pairwise (answer_1/answer_2)"
        )
    return pointwise


def _pointwise_rubric(flags: JudgeFlags, columns: InputFlags, run: EvalFlags,
                      scoring: PointwiseFlags, file: Path) -> Rubric:  # fmt: skip
    """Reject the pairwise-only flags, check the rest; the rubric."""
    run.settings(file)  # --level, --bootstrap, --max-unresolved, --out, --html
    pairwise = {
        "--template": flags.template is not None,
        "--rounds": run.rounds != 2, "--rule": run.rule is not Resolution.CONSERVATIVE,
        "--no-balanced": not run.balanced, "--answer1-col": columns.answer1_col != "answer_1",
        "--answer2-col": columns.answer2_col != "answer_2", "--id-col": columns.id_col != "id",
        "--reference-col": columns.reference_col != "reference",
        "--human-col": columns.human_col != "human",
    }  # fmt: skip
    given = [flag for flag, on in pairwise.items() if on]
    if given:
        raise ConfigError(
            f"{given[0]} does not apply to pointwise input (an 'answer' column); drop it"
        )
    return get_rubric(scoring.rubric or DEFAULT_RUBRIC)


def calibrate_scores(
    file: Path, min_spearman: float, min_kappa: float, json_output: bool, flags: JudgeFlags,
    columns: InputFlags, run: EvalFlags, scoring: PointwiseFlags,
) -> None:  # fmt: skip
    """``calibrate`` on pointwise input: each dimension's scores against the human ones."""
    from fairjudge._api import EvalSettings
    from fairjudge._api import calibrate as calibrate_judge

    refuse_markdown("calibrate on human scores")
    rubric = _pointwise_rubric(flags, columns, run, scoring, file)
    loaded = load_scored(file, rubric, columns.skip_invalid, columns.allow_empty,
                         columns.question_col)  # fmt: skip
    settings = EvalSettings(seed=run.seed, level=run.level, n_resamples=run.bootstrap)
    calibrated = calibrate_judge(
        loaded, flags.judge, rubric=rubric, mode=scoring.mode, min_spearman=min_spearman,
        min_kappa=min_kappa, settings=settings, setup=flags.setup(), source=str(file),
    )  # fmt: skip
    report = calibrated.report.figures
    ending = unscored_exit(calibrated.result, run.max_unresolved, as_json=json_output)
    _write_files(calibrated, run)
    from fairjudge.report import print_failures, render_score_calibration  # not for --help

    if json_output:
        _print_json(calibrated.to_dict(), calibrated, ending)
    else:
        render_score_calibration(report, Console())
        print_failures(calibrated.result.failures, Console())  # as on pairs
    ending.exit()
    if report.passed is False:
        say("gate failed", f"Spearman < {min_spearman} on {', '.join(report.failed)}; do not use "
            "this judge for decisions without a better rubric or model", style="red")  # fmt: skip
        raise typer.Exit(EXIT_GATE_FAILED)
    if report.passed is None:
        _not_applied(report.not_applied_reason() or "")


def _print_json(payload: dict[str, Any], calibrated: Any, ending: Ending) -> None:
    """Print ``--json``: the report, then why calls gave no verdict, when any did.

    The reasons are under ``failures``, most common first, as ``compare --json`` has
    them, and exit 4's line points there; then what the run's ``ending`` adds.
    """
    failures = calibrated.result.failures
    said = {"failures": dict(failures.most_common())} if failures else {}
    typer.echo(strict_dumps({**payload, **said, **ending.json}, indent=2, default=str))


def _write_files(calibrated: Any, run: EvalFlags) -> None:
    """Write ``--out`` and ``--html``, each said on stderr, before the report and the gate."""
    save_out(calibrated, run.out, "calibrate")
    if run.out is not None:
        say("per-item results", str(run.out), "dim")
    if run.html is not None:
        write_page(run.html, calibrated)  # the page's command row: the command as typed
        say("HTML report", str(run.html), "dim")


def _not_applied(why: str) -> None:
    """Say why no check of the gate could be evaluated, and exit 7: that is not a pass."""
    say(
        "gate not applied",
        f"{why}. No check could be evaluated, so this is no evidence either way (exit code "
        f"{EXIT_GATE_NOT_APPLIED}); label more items before trusting this judge",
        style="red",
    )
    raise typer.Exit(EXIT_GATE_NOT_APPLIED)


@app.command()
@guarded
@markdown_flag
@item_judging_flags
@pointwise_flags
def calibrate(
    file: _File,
    min_spearman: _Gate = MIN_SPEARMAN,
    min_kappa: _MinKappa = MIN_KAPPA,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    *,
    flags: JudgeFlags,
    columns: InputFlags,
    run: EvalFlags,
    scoring: PointwiseFlags,
) -> None:
    """Check a judge against human labels before using it at scale.

    Pairwise input (answer_1, answer_2) checks verdicts and human_score; pointwise input
    (an answer column, no answer_1/answer_2) checks the rubric's scores against the
    human_<dimension> columns, per dimension, with the gate on every dimension. From
    stdin (-), --rubric selects pointwise input.
    """
    for name, value in (("min_spearman", min_spearman), ("min_kappa", min_kappa)):
        check_threshold(name, value)  # the library's check, first: before the input is read
    if is_pointwise(file, columns, scoring):
        return calibrate_scores(
            file, min_spearman, min_kappa, json_output, flags, columns, run, scoring
        )
    return _calibrate_pairs(file, min_spearman, min_kappa, json_output, flags, columns, run)


def _calibrate_pairs(
    file: Path, min_spearman: float, min_kappa: float, json_output: bool, flags: JudgeFlags,
    columns: InputFlags, run: EvalFlags,
) -> None:  # fmt: skip
    """``calibrate`` on pairwise input, through :func:`fairjudge.calibrate`."""
    from fairjudge._api import calibrate as calibrate_judge

    settings = run.settings(file)  # --max-unresolved, --out, --html: before anything is read
    loaded = columns.load(file)
    calibrated = calibrate_judge(
        loaded, flags.judge, min_kappa=min_kappa, min_spearman=min_spearman, settings=settings,
        setup=flags.setup(), columns={columns.human_col: "human"}, source=str(file),
    )  # fmt: skip
    shown, report = calibrated.report, calibrated.report.figures
    ending = verdict_exit(calibrated.result, run.max_unresolved, as_json=json_output)
    _write_files(calibrated, run)
    if json_output:
        _print_json(shown.payload, calibrated, ending)
    from fairjudge.report import comparison_markdown, print_failures, render_calibration

    markdown = lambda: comparison_markdown(shown.page, calibration=report)  # noqa: E731
    drawn = not write_markdown(markdown) and not json_output
    if drawn:
        render_calibration(report, Console())
    if not json_output:  # --json holds them under "failures", as compare's does
        # Why calls gave no verdict, which exit 4's line points at: after the figures,
        # as compare has them; on stderr when stdout holds --markdown - instead.
        print_failures(calibrated.result.failures, Console(stderr=not drawn))
    ending.exit()
    gate = report["gate"]
    if gate.outcome == "failed":
        failed = "; ".join(f"{c.statistic} {c.estimate:.3f} < {c.threshold:g}" for c in gate.failed)
        say(
            "gate failed",
            f"{failed}; do not use this judge for decisions without a better prompt or model",
            style="red",
        )
        raise typer.Exit(EXIT_GATE_FAILED)
    if gate.outcome == "not_applied":
        _not_applied("; ".join(f"{c.statistic}: {c.reason}" for c in gate.checks))
