"""``fairjudge score FILE``: every answer scored against a rubric, per dimension, with CIs.

Exit codes beyond the shared ones (:mod:`._app`): 4 when more than
``--max-unresolved`` of the items could not be fully scored (parse failures, call
errors), and **6** with ``--fail-on-collapse`` when a dimension's collapse alarm
tripped (the judge put at least 90% of its scores in a band of adjacent levels no
wider than a fifth of the scale, or their standard deviation is under a fifth of the
largest the scale allows; :mod:`fairjudge.evaluation._scores_stats`), so a pipeline
can refuse a judge that does not discriminate. 5 is a spent budget, 2 a usage or
input error, before any call.

``--baseline OLD.jsonl`` (an earlier ``score --out`` file) adds the trend: each
dimension's shift since that run (:func:`fairjudge.evaluation.score_trend`). Runs
with another rubric, judge or judge settings (what the judge's requests carried, as
both ``--out`` headers record it) are refused, before any call, unless ``--allow-different``.

The run is :func:`fairjudge.score`'s and ``--out`` its ``Result.save``;
:func:`load_scored`, :func:`unscored_exit` and :func:`scored_exit` are what
``score-jury`` (and ``calibrate`` on rubric scores) share with it.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fairjudge._errors import ConfigError
from fairjudge.cli._app import app, guarded, in_flags, say
from fairjudge.cli._exit_codes import EXIT_COLLAPSE
from fairjudge.cli._options import (
    AllowEmpty,
    Bootstrap,
    JudgeFlags,
    Level,
    QuestionCol,
    SkipInvalid,
    SummaryJson,
    adds_flags,
    check_outputs,
    check_share,
    judge_flags,
)
from fairjudge.cli._out import Ending, finish, markdown_flag, unresolved_exit
from fairjudge.io import LoadedScoreItems, load_score_items
from fairjudge.judges import ScoreMode
from fairjudge.prompts import DEFAULT_RUBRIC, Rubric, get_rubric

if TYPE_CHECKING:  # the scoring statistics load when a command runs, never for its --help
    from fairjudge._api import JuryScoreResult, ScoreResult

__all__ = [
    "ScoreFile",
    "ScoreFlags",
    "load_scored",
    "score",
    "scored_exit",
    "unscored_exit",
]


ScoreFile = Annotated[
    Path,
    typer.Argument(
        metavar="FILE",
        help="JSONL, CSV or Parquet with question (or a conversation) and answer; "
        "optional id, reference, category, system, human_<dimension>.",
    ),
]
"""The input of ``score`` and ``score-jury``."""


@dataclass(frozen=True, slots=True)
class ScoreFlags:
    """The options of ``score`` beyond the shared judge and run flags."""

    rubric: Annotated[
        str,
        typer.Option(help="A built-in rubric (list them: fairjudge rubrics) or a .toml file."),
    ] = DEFAULT_RUBRIC
    mode: Annotated[
        ScoreMode,
        typer.Option(
            help="json: one JSON reply per answer. label: one bare-number call per "
            "dimension, adding probability-weighted scores where the judge gives logprobs."
        ),
    ] = "json"
    structured: Annotated[
        bool, typer.Option(help="Ask an openai/ judge for structured output (JSON schema).")
    ] = False
    json_output: SummaryJson = False
    out: Annotated[
        Path | None, typer.Option(help="Write one JSON record per item, with every call.")
    ] = None
    html: Annotated[
        Path | None,
        typer.Option(help="Write a self-contained HTML page (figures and every answer)."),
    ] = None
    fail_on_collapse: Annotated[
        bool, typer.Option(help=f"Exit with code {EXIT_COLLAPSE} when a collapse alarm trips.")
    ] = False
    max_unresolved: Annotated[
        float,
        typer.Option(help="Exit with code 4 when more than this share of items is unscored."),
    ] = 0.2
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0
    level: Level = 0.95
    bootstrap: Bootstrap = 2000
    skip_invalid: SkipInvalid = False
    allow_empty: AllowEmpty = False
    question_col: QuestionCol = "question"
    answer_col: Annotated[str, typer.Option(help="Column holding the answer.")] = "answer"
    baseline: Annotated[
        Path | None,
        typer.Option(
            help="An earlier `score --out` file: show how each dimension moved since that run "
            "(mean shift with CI, distribution test). Refused when its rubric, judge or judge "
            "settings differ (--mode, --temperature, --reasoning-effort, --structured, "
            "--thinking-budget: what the requests carried, less the caps on length)."
        ),
    ] = None
    allow_different: Annotated[
        bool,
        typer.Option(
            "--allow-different",
            help="With --baseline: compare even when the rubric, the judge or its settings differ.",
        ),
    ] = False

    def check(self, flags: JudgeFlags, file: Path) -> Rubric:
        """Check every option before the file is read; the rubric they name."""
        if flags.template is not None:
            raise ConfigError("--template does not apply to score; pick a rubric with --rubric")
        from fairjudge._api import EvalSettings

        EvalSettings(level=self.level, n_resamples=self.bootstrap)  # checks both, as compare
        check_share(self.max_unresolved)
        if self.allow_different and self.baseline is None:  # before the input is read
            raise ConfigError("--allow-different applies with --baseline only")
        check_outputs(self.out, self.html, inputs=(file, self.baseline))
        return get_rubric(self.rubric)

    def load(self, file: Path, rubric: Rubric) -> LoadedScoreItems:
        """Read and validate the whole file; list the rows skipped."""
        return load_scored(file, rubric, self.skip_invalid, self.allow_empty,
                           self.question_col, self.answer_col)  # fmt: skip


def load_scored(
    file: Path, rubric: Rubric, skip_invalid: bool, allow_empty: bool, question_col: str,
    answer_col: str = "answer",
) -> LoadedScoreItems:  # fmt: skip
    """Read and check every answer to score before any call; list the rows skipped."""
    loaded = load_score_items(
        file, dimensions=rubric.names, scale=rubric.scale, skip_invalid=skip_invalid,
        question_col=question_col, answer_col=answer_col, allow_empty=allow_empty,
    )  # fmt: skip
    for problem in loaded.skipped:
        say("skipped", in_flags(problem))
    from fairjudge._api import check_score_items

    check_score_items(loaded.items, rubric)
    return loaded


score_flags = adds_flags(ScoreFlags, "opts")


def unscored_exit(
    result: "ScoreResult | JuryScoreResult", max_unresolved: float,
    what: str = "are not fully scored", *, as_json: bool = False,
) -> Ending:  # fmt: skip
    """5 when the run is partial, 4 when too many items are ``what`` (lack a score), else 0."""
    return unresolved_exit(
        result.stopped, result.n_unscored, result.n_items, max_unresolved,
        what=what, none=all(d.n == 0 for d in result.dimensions), as_json=as_json,
    )  # fmt: skip


def scored_exit(
    result: "ScoreResult | JuryScoreResult", opts: ScoreFlags, what: str = "are not fully scored"
) -> Ending:
    """``score``'s and ``score-jury``'s exit: :func:`unscored_exit`, else 6 on a collapse."""
    ending = unscored_exit(result, opts.max_unresolved, what, as_json=opts.json_output)
    if not ending.code and opts.fail_on_collapse and result.collapsed:
        alarm = f"dimension(s) {', '.join(result.collapsed)}"
        return Ending(EXIT_COLLAPSE, ("collapse alarm", alarm, "red"))
    return ending


@app.command()
@guarded
@markdown_flag
@judge_flags
@score_flags
def score(
    file: ScoreFile,
    *,
    opts: ScoreFlags,
    flags: JudgeFlags,
) -> None:
    """Score each answer against a rubric: per-dimension means, medians, CIs, collapse alarm.

    Exit codes: 0 ok; 1 judging failed; 2 usage or input error (before any call); 4 too
    many items not fully scored; 5 budget spent (partial result); 6 --fail-on-collapse
    and a dimension's scores collapsed.
    """
    rubric = opts.check(flags, file)
    loaded = opts.load(file, rubric)
    from fairjudge._api import score as score_items
    from fairjudge.report import render_scores

    done = score_items(
        loaded, flags.judge, rubric=rubric, mode=opts.mode, structured=opts.structured,
        seed=opts.seed, level=opts.level, n_resamples=opts.bootstrap, baseline=opts.baseline,
        allow_different=opts.allow_different, setup=flags.setup(), source=str(file),
    )  # fmt: skip
    ending = scored_exit(done.result, opts)
    finish(done, "score", render_scores, out=opts.out, html=opts.html, as_json=opts.json_output,
           ending=ending)  # fmt: skip
    ending.exit()
