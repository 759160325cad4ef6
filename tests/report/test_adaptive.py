"""The lines an adaptive run adds to a report: one conclusion, what it is about, the calls."""

from __future__ import annotations

from fairjudge import Item
from fairjudge.evaluation import EvalSettings, evaluate_adaptive
from fairjudge.report._adaptive import (
    FIXED_SAMPLE_MARK,
    ci_mark,
    stop_lines,
    stop_verdict,
    win_cell,
)

SETTINGS = EvalSettings(n_resamples=50)


def _items(wins: int, n: int) -> list[Item]:
    """``n`` questions; model 1's answer is the longer one in the first ``wins``."""
    return [
        Item(f"q{i}", "a long answer" if i < wins else "s", "s" if i < wins else "a long answer")
        for i in range(n)
    ]


def _longer(question: str, answer_a: str, answer_b: str) -> str:
    return "A" if len(answer_a) > len(answer_b) else "B"


def test_an_early_stop_about_this_file_says_so_on_every_line() -> None:
    run = evaluate_adaptive(_longer, _items(200, 200), SETTINGS, "decided", population="file")
    assert run.stopped_early
    lines = stop_lines(run)
    assert all("this file only" in line for line in lines), lines
    assert "not valid after an adaptive stop" in lines[3]
    assert stop_verdict(run) == run.conclusion
    assert str(stop_verdict(run)).startswith("On this file only, model 1 is better")
    assert ci_mark(run) == FIXED_SAMPLE_MARK


def test_without_a_stop_rule_the_bootstrap_concludes() -> None:
    run = evaluate_adaptive(_longer, _items(12, 20), SETTINGS, None)
    assert run.reason == "complete"
    assert stop_verdict(run) is None
    assert ci_mark(run) is None
    assert win_cell("0.600 [0.40, 0.80]", run) == "0.600 [0.40, 0.80]"
    assert stop_lines(run)[3] == (
        "Every question was judged and nothing was decided on a look: the bootstrap CIs stand."
    )
    assert run.calls_saved == run.calls_not_made == 0


def test_a_run_to_the_end_concludes_from_its_interval_and_marks_the_bootstrap() -> None:
    run = evaluate_adaptive(_longer, _items(30, 50), SETTINGS, "decided")
    assert (run.reason, run.stopped_early, run.interval.winner) == ("not decided", False, None)
    assert stop_verdict(run) == (
        "No clear winner: the anytime-valid interval contains 0.5 after every question of the file."
    )
    assert win_cell("0.600 [0.46, 0.74]", run) == (
        "0.600 [0.46, 0.74]  (fixed-sample CI; the conclusion is the anytime-valid interval's)"
    )
    assert (
        stop_lines(run)[2]
        == "calls: 100 used of 100 for the whole file (100 new, 0 from the store)"
    )
