"""``fairjudge score FILE``: every answer scored against a rubric, per dimension, with CIs.

Exit codes beyond the shared ones (:mod:`._app`): 4 when more than
``--max-unresolved`` of the items could not be fully scored (parse failures, call
errors), and **6** with ``--fail-on-collapse`` when a dimension's collapse alarm
tripped (the judge put at least 90% of its scores on two adjacent levels, or its
scores' normalised entropy is below 0.5), so a pipeline can refuse a judge that does
not discriminate. 5 is a spent budget, 2 a usage or input error, before any call.
"""

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fairjudge._errors import BudgetExceeded, ConfigError
from fairjudge.cli._app import EXIT_BUDGET, EXIT_UNRESOLVED, app, err_console, guarded, say
from fairjudge.cli._options import JudgeFlags, _adds, judge_flags
from fairjudge.evaluation import (
    LoadedScoreItems,
    ScoreResult,
    check_score_items,
    load_score_items,
    score_answers,
)
from fairjudge.judges import (
    BackendOptions,
    CallablePointwiseJudge,
    PointwiseJudge,
    ScoreMode,
    resolve_pointwise_judge,
)
from fairjudge.prompts import DEFAULT_RUBRIC, Rubric, get_rubric
from fairjudge.report import check_writable, render_scores, score_report, write_jsonl_atomic

__all__ = ["EXIT_COLLAPSE", "ScoreFlags", "score"]

EXIT_COLLAPSE = 6
"""``--fail-on-collapse``: a dimension's collapse alarm tripped."""


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
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False
    out: Annotated[
        Path | None, typer.Option(help="Write one JSON record per item, with every call.")
    ] = None
    fail_on_collapse: Annotated[
        bool, typer.Option(help=f"Exit with code {EXIT_COLLAPSE} when a collapse alarm trips.")
    ] = False
    max_unresolved: Annotated[
        float,
        typer.Option(help="Exit with code 4 when more than this share of items is unscored."),
    ] = 0.2
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0
    level: Annotated[float, typer.Option(help="Confidence level.")] = 0.95
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000
    skip_invalid: Annotated[
        bool, typer.Option(help="Skip bad rows (each one listed) instead of stopping.")
    ] = False
    question_col: Annotated[str, typer.Option(help="Column holding the question.")] = "question"
    answer_col: Annotated[str, typer.Option(help="Column holding the answer.")] = "answer"

    def check(self, flags: JudgeFlags) -> Rubric:
        """Check every option before the file is read; the rubric they name."""
        if flags.template is not None:
            raise ConfigError("--template does not apply to score; pick a rubric with --rubric")
        if not 0 < self.level < 1:
            raise ConfigError(f"--level must be in (0, 1); got {self.level}")
        if self.bootstrap < 1:
            raise ConfigError(f"--bootstrap must be >= 1; got {self.bootstrap}")
        if not 0 <= self.max_unresolved <= 1:
            raise ConfigError(f"--max-unresolved must be in [0, 1]; got {self.max_unresolved}")
        if self.out is not None:
            check_writable(self.out)
        return get_rubric(self.rubric)

    def load(self, file: Path, rubric: Rubric) -> LoadedScoreItems:
        """Read and validate the whole file; list the rows skipped."""
        loaded = load_score_items(
            file, dimensions=rubric.names, skip_invalid=self.skip_invalid,
            question_col=self.question_col, answer_col=self.answer_col,
        )  # fmt: skip
        for problem in loaded.skipped:
            say("skipped", str(problem))
        check_score_items(loaded.items, rubric)
        return loaded


score_flags = _adds(ScoreFlags, "opts")


Judge = PointwiseJudge | CallablePointwiseJudge


def _open(flags: JudgeFlags, opts: ScoreFlags, rubric: Rubric) -> Judge:
    where = BackendOptions(
        flags.base_url, flags.model_path, flags.threads, flags.temperature, flags.timeout
    )
    return resolve_pointwise_judge(
        flags.judge, rubric=rubric, mode=opts.mode, backend_options=where,
        options=flags.run_options(), store=flags.store, structured=opts.structured,
    )  # fmt: skip


def _run(judge: Judge, loaded: LoadedScoreItems, opts: ScoreFlags) -> ScoreResult:
    try:
        result = score_answers(
            judge, loaded.items, seed=opts.seed, level=opts.level, n_resamples=opts.bootstrap
        )
    except BudgetExceeded as exc:
        if not isinstance(exc.partial, ScoreResult):
            raise
        result = exc.partial  # reported and saved as partial; the exit code says so
    finally:
        if isinstance(judge, PointwiseJudge):
            judge.close()
    return result


def _exit_code(result: ScoreResult, opts: ScoreFlags) -> int:
    if result.stopped is not None:
        say("stopped", f"{result.stopped} The result above is partial.")
        return EXIT_BUDGET
    share = result.n_unscored / result.n_items if result.n_items else 0.0
    if share > opts.max_unresolved or all(d.n == 0 for d in result.dimensions):
        say(
            "too many unscored items",
            f"{result.n_unscored} of {result.n_items} items are not fully scored "
            f"({share:.0%} > --max-unresolved {opts.max_unresolved:g}); the reasons are above",
            style="red",
        )
        return EXIT_UNRESOLVED
    if opts.fail_on_collapse and result.collapsed:
        say("collapse alarm", f"dimension(s) {', '.join(result.collapsed)}", style="red")
        return EXIT_COLLAPSE
    return 0


@app.command()
@guarded
@judge_flags
@score_flags
def score(
    file: Annotated[
        Path,
        typer.Argument(
            help="JSONL, CSV or Parquet with question (or a conversation) and answer; "
            "optional id, reference, category, system, human_<dimension>."
        ),
    ],
    *,
    opts: ScoreFlags,
    flags: JudgeFlags,
) -> None:
    """Score each answer against a rubric: per-dimension means, medians, CIs, collapse alarm.

    Exit codes: 0 ok; 1 judging failed; 2 usage or input error (before any call); 4 too
    many items not fully scored; 5 budget spent (partial result); 6 --fail-on-collapse
    and a dimension's scores collapsed.
    """
    rubric = opts.check(flags)
    loaded = opts.load(file, rubric)
    judge = _open(flags, opts, rubric)
    result = dataclasses.replace(_run(judge, loaded, opts), judge=judge.name)
    if opts.out is not None:
        write_jsonl_atomic(opts.out, (item.to_dict() for item in result.items))
    source = "<stdin>" if str(file) == "-" else file.name
    run = judge.last_run if isinstance(judge, PointwiseJudge) else None
    report = score_report(result, title=source, run=run, skipped=loaded.skipped_records())
    if opts.json_output:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        render_scores(report, Console())
        if opts.out is not None:
            err_console.print(f"per-item results: {opts.out}", highlight=False, markup=False)
    code = _exit_code(result, opts)
    if code:
        raise typer.Exit(code)
