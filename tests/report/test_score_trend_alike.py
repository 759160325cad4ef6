"""``score --baseline`` and paired differences read nothing from a point interval (QA41b #2).

Identical scores in both runs shift every shared question by 0: the bootstrap cannot
vary and its interval is ``[+0.00, +0.00]``, not a measured certainty. The table marks
it and the reading line says the noise cannot be told, never "no shift beyond noise".
"""

from __future__ import annotations

from io import StringIO
from types import SimpleNamespace

from rich.console import Console

from fairjudge.evaluation import ScoreRun, score_trend
from fairjudge.report._scores import _reading, render_trend
from fairjudge.stats import ConfidenceInterval


def _run(values: list[int]) -> ScoreRun:
    questions = tuple(f"q{i}" for i in range(len(values)))
    return ScoreRun("r@1", "j", questions, tuple({"d": v} for v in values))


def _shown(values: list[int], baseline: list[int]) -> str:
    console = Console(file=StringIO(), width=200)
    render_trend(score_trend(_run(values), _run(baseline), n_resamples=200), console)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_identical_runs_are_no_measured_no_shift() -> None:
    shown = _shown([4, 3, 5, 4, 2, 4], [4, 3, 5, 4, 2, 4])
    assert "no shift beyond noise" not in shown
    assert "+0.00  [+0.00, +0.00] (all alike, the bootstrap cannot vary)" in shown
    assert "d: moved by +0.00; cannot tell from noise: every shared question moved alike" in shown


def test_a_shift_that_varies_still_reads_as_before() -> None:
    shown = _shown([4, 3, 5, 4, 2, 4, 3, 5], [4, 4, 4, 4, 4, 4, 4, 4])
    assert "d: no shift beyond noise (-0.25 [-0.88, +0.38])" in shown
    assert "-0.25  [-0.88, +0.38] │" in shown  # the shift is unmarked
    assert "4.00  [4.00, 4.00] (all alike, the bootstrap cannot vary)" in shown  # the baseline


def test_a_paired_difference_alike_on_every_question_is_no_conclusion() -> None:
    def diff(low: float, high: float) -> SimpleNamespace:
        ci = ConfidenceInterval(low, high, 0.95)
        return SimpleNamespace(difference=SimpleNamespace(estimate=low, ci=ci),
                               system_a="a", system_b="b")  # fmt: skip

    assert _reading(diff(1.0, 1.0)) == "no conclusion"  # type: ignore[arg-type]
    assert _reading(diff(0.5, 1.5)) == "a higher"  # type: ignore[arg-type]
