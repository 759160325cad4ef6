"""A shift the bootstrap cannot vary carries the mark, and no verdict is read from it.

Every shared question moving by the same amount (or each run's questions all having
one mean) gives every resample the same shift: its interval is the point, marked as
``ConfidenceInterval.alike_point`` marks an all-alike mean, and the trend reads
"cannot tell from noise" in ``--json`` as in the table (direction ``unknown``, not in
``moved``). A shift that can vary keeps its percentile interval.
"""

from __future__ import annotations

from fairjudge.evaluation import ScoreRun, score_trend
from fairjudge.evaluation._trend import DimensionShift

MARK = "(all alike, the bootstrap cannot vary)"


def _run(values: list[int], questions: list[str] | None = None) -> ScoreRun:
    qs = tuple(questions or [f"q{i}" for i in range(len(values))])
    return ScoreRun("r@1", "j", qs, tuple({"d": v} for v in values))


def _shift(now: ScoreRun, before: ScoreRun) -> DimensionShift:
    return score_trend(now, before, n_resamples=200).dimensions[0]


def test_identical_runs_read_cannot_tell_in_the_json_too() -> None:
    run = _run([4, 3, 5, 4, 2, 4])
    trend = score_trend(run, run, n_resamples=200)
    (d,) = trend.to_dict()["dimensions"]
    assert d["reading"] == (
        "d: moved by +0.00; cannot tell from noise: all alike, the bootstrap cannot vary: "
        "every shared question moved by +0, so every resample gives it; this point is no "
        "measured certainty, and no verdict rests on it"
    )
    assert d["direction"] == "unknown"
    assert trend.moved == []
    assert (d["ci"]["low"], d["ci"]["high"]) == (0.0, 0.0)
    assert d["ci"]["note"].startswith("all alike, the bootstrap cannot vary: every shared")


def test_every_question_down_by_one_is_marked_not_read_as_a_fall() -> None:
    d = _shift(_run([3, 2, 4, 3, 1, 3]), _run([4, 3, 5, 4, 2, 4]))
    assert d.shift == -1.0
    assert d.ci.cannot_vary
    assert str(d.ci) == f"[-1.000, -1.000] {MARK}"
    assert d.direction == "unknown"
    assert "every shared question moved by -1" in d.reading()
    assert "fell by" not in d.reading()


def test_each_run_alike_on_other_questions_is_marked() -> None:
    d = _shift(_run([3, 3, 3], ["a", "b", "c"]), _run([4, 4, 4, 4], ["a", "b", "x", "y"]))
    assert d.ci.cannot_vary
    assert "every question has a mean of 4 in the baseline and 3 in this run" in (d.ci.note or "")


def test_a_shift_that_can_vary_keeps_its_interval() -> None:
    varied = _shift(_run([3, 3, 2, 4]), _run([4, 5, 4, 5]))
    assert varied.ci.note is None
    assert varied.direction == "down"
    assert varied.reading() == "d fell by 1.50 [1.00, 2.00] since the baseline"
    # Every question moved by -1, but one was asked twice as often in this run: the
    # resamples weigh it differently in the two runs, so the shift varies.
    twice = _shift(_run([3, 3, 2, 1], ["a", "a", "b", "c"]), _run([4, 3, 2], ["a", "b", "c"]))
    assert twice.ci.note is None
    assert twice.ci.high > twice.ci.low
