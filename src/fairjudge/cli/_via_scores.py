"""``compare --via-scores``: two systems compared through each answer's own rubric score.

Each answer is scored on its own, in its own call, so no order exists for the judge
to prefer (:func:`fairjudge.evaluation.compare_via_scores`); the two scores of an
item give its outcome, and the result reads like the swap protocol's: model 1's win
rate with its CI, W/T/L, under ``--tie-margin``. ``--with-swap`` runs the swap
protocol too, with the same model on the same session (one store, one budget), and
shows both.

Exit codes as ``compare``: 2 before any call for a usage or input error (a swap-only
flag without ``--with-swap``, ``--html``, a rubric that needs references the items
lack), 4 too many unresolved items, 5 a spent budget.

Its options are declared in :mod:`._via_flags`; this module, with the scoring
machinery behind it, is imported only when ``--via-scores`` is given.
"""

from pathlib import Path

import typer
from rich.console import Console

from fairjudge._api import (
    AdaptiveResult,
    PairwiseResult,
    ViaScoresResult,
    check_via_items,
)
from fairjudge.cli._app import err_console, skipped_in_flags
from fairjudge.cli._judging import check_unresolved, load_input, template_option, unresolved_exit
from fairjudge.cli._markdown import write_markdown
from fairjudge.cli._options import EvalFlags, InputFlags, JudgeFlags
from fairjudge.cli._out import write_out
from fairjudge.cli._stop_flags import StopFlags
from fairjudge.cli._via_flags import ViaScoresFlags
from fairjudge.io import strict_dumps
from fairjudge.report import comparison_report, render_via_scores, via_scores_markdown
from fairjudge.runner import RunSummary

__all__ = ["compare_via_scores_command"]


def _exit(result: ViaScoresResult, swap: PairwiseResult | None, limit: float) -> None:
    code = unresolved_exit(
        result.stopped, result.n_unresolved, result.n_items, limit,
        what="lack a score on some dimension", none=result.win_rate is None,
    )  # fmt: skip
    if code:
        raise typer.Exit(code)
    if swap is not None:
        check_unresolved(swap, limit)


def compare_via_scores_command(
    file: Path,
    json_output: bool,
    flags: JudgeFlags,
    columns: InputFlags,
    run: EvalFlags,
    via: ViaScoresFlags,
    stop: StopFlags | None = None,
) -> None:
    """``compare --via-scores``: validate everything, score every answer, report, exit.

    With ``stop`` (``--stop-when``), questions are scored batch by batch in a seeded
    order until the stop rule is met.
    """
    settings = run.settings(file)
    rubric = via.check(flags, run)
    rule = stop.rule() if stop is not None else None  # a bad --stop-when: before any input
    loaded = load_input(file, columns)
    check_via_items(loaded.items, rubric)
    if via.with_swap:
        template_option(flags, loaded.items)  # the references the template needs
    from fairjudge._api import via_scores  # the run, orchestrated once

    done = via_scores(
        flags.judge, loaded.items, settings, setup=flags.setup(), rubric=rubric,
        mode=via.score_mode, tie_margin=via.tie_margin, with_swap=via.with_swap,
        stop_when=rule, batch=stop.batch if stop is not None else None,
    )  # fmt: skip
    result, swap, calls = done.result, done.swap, done.calls
    _output(
        file,
        json_output,
        run,
        result,
        swap,
        calls,
        skipped_in_flags(loaded),
        judge=done.judge,
        rubric=f"{rubric.name}@{rubric.version}",
        adaptive=done.adaptive,
        scorer=done.scorer,
    )
    _exit(result, swap, run.max_unresolved)


def _output(
    file: Path,
    json_output: bool,
    run: EvalFlags,
    result: ViaScoresResult,
    swap: PairwiseResult | None,
    calls: RunSummary | None,
    skipped: list[dict[str, str | int | None]],
    *,
    judge: str | None = None,
    rubric: str | None = None,
    adaptive: AdaptiveResult[ViaScoresResult] | None = None,
    scorer: object = None,
) -> None:
    """Write ``--out``, then print the table or the JSON (with ``--stop-when``'s block).

    ``--out``'s header records the scorer's requests and the scoring calls.
    """
    stop = {} if adaptive is None else {"adaptive": adaptive.adaptive_dict()}
    if run.out is not None:
        records = (
            {**p.to_dict(), **({"swap": j.to_dict()} if j is not None else {})}
            for p, j in zip(result.pairs, swap.judgments if swap else [None] * result.n_items,
                            strict=True)
        )  # fmt: skip
        write_out(run.out, "compare-via-scores", records, judge=judge, rubric=rubric,
                  template=swap.settings.template if swap is not None else None,
                  settings={"tie_margin": result.tie_margin, "seed": run.seed,
                            "level": run.level, "n_resamples": run.bootstrap, **stop},
                  calls=calls, sent_by=scorer)  # fmt: skip
    source = "<stdin>" if str(file) == "-" else file.name
    title = f"{source}: model 1 vs model 2"
    if json_output:
        payload = {
            "via_scores": result.to_dict(),
            "swap": comparison_report(swap, title=title).to_dict() if swap is not None else None,
            "calls": calls.to_dict() if calls is not None else None,
            "skipped_rows": skipped,
            **stop,
        }
        typer.echo(strict_dumps(payload, indent=2))

    def markdown() -> str:
        return via_scores_markdown(result, title=title, swap=swap, adaptive=adaptive)

    if write_markdown(markdown) or json_output:
        return
    render_via_scores(result, Console(), swap=swap, title=title, adaptive=adaptive)
    if run.out is not None:
        err_console.print(f"per-item results: {run.out}", highlight=False, markup=False)
