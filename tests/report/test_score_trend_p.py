"""``score --baseline``: a permutation p below 0.001 reads ``p < 0.001``, never ``p = 0.000``.

A permutation p is at least 1 / (permutations + 1), so ``0.000`` would claim what the
test cannot show. The terminal's table and the reading line (which the page and the
Markdown show) say it alike.
"""

from __future__ import annotations

from io import StringIO

from rich.console import Console

from fairjudge.evaluation import ScoreRun, score_trend
from fairjudge.evaluation._trend import ShiftTest
from fairjudge.report._scores import render_trend


def _run(values: list[int]) -> ScoreRun:
    questions = tuple(f"q{i}" for i in range(len(values)))
    return ScoreRun("r@1", "j", questions, tuple({"d": v} for v in values))


def test_the_smallest_permutation_p_reads_as_a_bound_everywhere() -> None:
    # The same mean, another spread: every one of 2000 permutations is less extreme.
    trend = score_trend(_run([1, 5] * 20), _run([3] * 40), seed=3, n_resamples=2000)
    shift = trend.dimensions[0]
    assert shift.test.p_value == 1 / 2001
    assert shift.reading().endswith("but the spread of scores changed (permutation p < 0.001)")
    console = Console(file=StringIO(), width=200)
    render_trend(trend, console)
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "W1 2.00, p < 0.001" in shown
    assert "p = 0.000" not in shown


def test_a_p_three_decimals_can_show_is_printed_as_it_is() -> None:
    def text(p: float | None) -> str:
        return ShiftTest(1.0, p, 2000, 0).p_text()

    assert (text(0.0004), text(0.0005), text(0.042), text(1.0)) == (
        "p < 0.001", "p = 0.001", "p = 0.042", "p = 1.000",
    )  # fmt: skip
    assert text(None) == "n/a"
