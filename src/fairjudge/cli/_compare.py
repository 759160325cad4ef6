"""``fairjudge compare FILE``: a position-debiased comparison of two systems."""

from fairjudge.cli._aliases import PairsFile, SummaryJson
from fairjudge.cli._app import app, err_console, guarded
from fairjudge.cli._markdown import markdown_flag
from fairjudge.cli._options import EvalFlags, InputFlags, JudgeFlags, item_judging_flags
from fairjudge.cli._stop_flags import StopFlags, stop_flags
from fairjudge.cli._via_flags import ViaScoresFlags, via_scores_flags

__all__ = ["compare"]


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
    order exists to prefer), and the two scores per item give the win rate.

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
    adaptive = stop.requested(with_swap=via.via_scores and via.with_swap)
    if via.requested():
        from fairjudge.cli._via_scores import compare_via_scores_command

        return compare_via_scores_command(
            file, json_output, flags, columns, run, via, stop if adaptive else None
        )
    from fairjudge.cli._judging import check_unresolved, compare_file
    from fairjudge.cli._out import show
    from fairjudge.report import render_comparison

    done = compare_file(file, flags, columns, run, stop if adaptive else None)
    report = done.report
    if run.html is not None:  # before the exit-code checks: a failed run's report helps most
        done.to_html(run.html)  # the page fairjudge.compare(...).to_html writes
    show(report, render_comparison, as_json=json_output,
         files=(("per-item results", run.out), ("HTML report", run.html)))  # fmt: skip
    if not json_output:
        err_console.print(_next_step(flags), highlight=False, markup=False)
    check_unresolved(done.result, run.max_unresolved)
