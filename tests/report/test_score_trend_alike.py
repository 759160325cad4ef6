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
from fairjudge.report._page_score import _reading as _page_reading
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
    assert (
        "d: moved by +0.00; cannot tell from noise: all alike, the bootstrap cannot vary: "
        "every shared question moved by +0" in " ".join(shown.split())
    )


def test_a_shift_that_varies_still_reads_as_before() -> None:
    shown = _shown([4, 3, 5, 4, 2, 4, 3, 5], [4, 4, 4, 4, 4, 4, 4, 4])
    assert "d: no shift beyond noise (-0.25 [-0.88, +0.38])" in shown
    assert "-0.25  [-0.88, +0.38] │" in shown  # the shift is unmarked
    assert "4.00  [4.00, 4.00] (all alike, the bootstrap cannot vary)" in shown  # the baseline


def _diff(ci: ConfidenceInterval) -> SimpleNamespace:
    return SimpleNamespace(difference=SimpleNamespace(estimate=ci.low, ci=ci),
                           system_a="a", system_b="b")  # fmt: skip


def test_a_paired_difference_alike_on_every_question_is_no_conclusion() -> None:
    alike = ConfidenceInterval.alike_point(1.0, 0.95, "all 5 questions have a mean of 1")
    assert _reading(_diff(alike)) == "no conclusion"  # type: ignore[arg-type]
    assert _reading(_diff(ConfidenceInterval(0.5, 1.5))) == "a higher"  # type: ignore[arg-type]


def test_the_reading_asks_the_interval_not_its_width() -> None:
    # A measured interval whose percentiles met (one odd question in thousands) is the
    # bootstrap's own: read as any other. Only the interval's mark says "alike".
    measured = ConfidenceInterval(1.0, 1.0, 0.95)
    assert _reading(_diff(measured)) == "a higher"  # type: ignore[arg-type]
    page = _page_reading(_diff(measured))  # type: ignore[arg-type]
    assert page == "a"
    alike = ConfidenceInterval.alike_point(1.0, 0.95, "all 5 questions have a mean of 1")
    assert _page_reading(_diff(alike)) is None  # type: ignore[arg-type]


def test_the_table_and_the_json_read_the_same_line() -> None:
    now, before = _run([4, 3, 5, 4, 2, 4]), _run([4, 3, 5, 4, 2, 4])
    trend = score_trend(now, before, n_resamples=200)
    console = Console(file=StringIO(), width=400)
    render_trend(trend, console)
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    (d,) = trend.to_dict()["dimensions"]
    assert d["reading"] in shown
    assert "cannot tell from noise" in d["reading"]
