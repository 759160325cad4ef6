"""Trend monitoring: has the judge's view of the answers moved since a baseline run?

:func:`score_trend` compares two pointwise runs (:class:`ScoreRun`: this run, and an
earlier ``score --out`` file) dimension by dimension: each run's mean, the mean shift
with a bootstrap CI clustered by question, and a permutation test of a change in the
distribution of scores (:mod:`._scores_shift`), summed up in one plain line
("usefulness fell by 0.40 [0.20, 0.60] since the baseline"; "no shift beyond noise"
when the interval holds 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fairjudge._errors import ConfigError
from fairjudge.evaluation._scores_records import ScoreRun
from fairjudge.evaluation._scores_shift import ShiftTest, Strata, shift_interval, shift_test
from fairjudge.evaluation._scores_stats import ScoreMean, score_mean
from fairjudge.stats import ConfidenceInterval

__all__ = ["DimensionShift", "ScoreTrend", "check_comparable", "same_judge", "score_trend"]


def same_judge(recorded: str | None, given: str | None) -> bool:
    """Whether ``given`` names the recorded judge.

    A ``local/`` judge is recorded with its weights' hash (``local/name@1a2b...``);
    the spec ``local/name`` names it too, so a run can be checked before its model
    loads, and checked again, exactly, once it has.
    """
    if recorded is None or given is None:
        return recorded == given
    return recorded == given or (recorded.startswith("local/") and
                                 recorded.partition("@")[0] == given)  # fmt: skip


def check_comparable(
    baseline: ScoreRun, *, rubric: str, judge: str | None, allow_different: bool = False
) -> tuple[str, ...]:
    """How the baseline's rubric and judge differ from this run's; refused unless allowed.

    Args:
        baseline: The earlier run.
        rubric: This run's rubric, ``name@version``.
        judge: This run's judge (a ``--judge`` spec or the judge's name).
        allow_different: Compare anyway, recording the differences.

    Returns:
        The differences, one line each (empty when the runs match).

    Raises:
        ConfigError: The runs differ and ``allow_different`` is false.
    """
    unknown = "(not recorded: written by an older fairjudge)"
    found = []
    if baseline.rubric != rubric:
        found.append(f"rubric: baseline {baseline.rubric or unknown}, this run {rubric}")
    if not same_judge(baseline.judge, judge):
        found.append(f"judge: baseline {baseline.judge or unknown}, this run {judge}")
    if found and not allow_different:
        raise ConfigError(
            f"the baseline {baseline.source} was not scored like this run ("
            + "; ".join(found)
            + "), so a shift would measure the change of rubric or judge as much as the "
            "answers; score with the baseline's rubric and judge, or pass allow_different=True",
            params="allow_different",
        )
    return tuple(found)


@dataclass(frozen=True, slots=True)
class DimensionShift:
    """How one dimension's scores moved from the baseline to this run.

    Attributes:
        dimension: The dimension.
        baseline: The baseline's mean, with its CI clustered by question.
        current: This run's mean, likewise.
        shift: ``current - baseline``; ``None`` when a run has no score on it.
        ci: The shift's CI (stratified, clustered bootstrap), or why there is none.
        n_shared: Questions both runs scored on this dimension.
        test: The permutation test of a change in the distribution of scores.
    """

    dimension: str
    baseline: ScoreMean
    current: ScoreMean
    shift: float | None
    ci: ConfidenceInterval
    n_shared: int
    test: ShiftTest

    @property
    def direction(self) -> str:
        """``"up"``, ``"down"``, ``"none"`` (the CI holds 0) or ``"unknown"``."""
        if self.shift is None or not self.ci.estimable:
            return "unknown"
        return "up" if self.ci.low > 0 else "down" if self.ci.high < 0 else "none"

    def reading(self) -> str:
        """The shift in one plain line."""
        d, ci = self.dimension, self.ci
        if self.shift is None:
            return f"{d}: not compared: {ci.reason}"
        if self.direction == "unknown":
            return f"{d}: moved by {self.shift:+.2f}; cannot tell from noise: {ci.reason}"
        if self.direction == "up":
            return f"{d} rose by {self.shift:.2f} [{ci.low:.2f}, {ci.high:.2f}] since the baseline"
        if self.direction == "down":
            return (
                f"{d} fell by {-self.shift:.2f} [{-ci.high:.2f}, {-ci.low:.2f}] since the baseline"
            )
        line = f"{d}: no shift beyond noise ({self.shift:+.2f} [{ci.low:+.2f}, {ci.high:+.2f}])"
        p = self.test.p_value
        if p is not None and p < 1 - ci.level:
            line += f", but the spread of scores changed (permutation p = {p:.3f})"
        return line

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "dimension": self.dimension,
            "baseline": self.baseline.to_dict(),
            "current": self.current.to_dict(),
            "shift": self.shift,
            "ci": self.ci.to_dict(),
            "direction": self.direction,
            "n_shared_questions": self.n_shared,
            "distribution_test": self.test.to_dict(),
            "reading": self.reading(),
        }


@dataclass(frozen=True, slots=True)
class ScoreTrend:
    """This run against a baseline, dimension by dimension.

    Attributes:
        baseline: Where the baseline came from.
        rubric: ``(baseline, this run)`` rubrics, ``name@version``.
        judge: ``(baseline, this run)`` judges.
        dimensions: One shift per dimension either run scored.
        differences: How the runs' rubric or judge differ (``allow_different``).
        seed: Seed of the bootstrap and the permutations.
        level: The intervals' level (the test's threshold is ``1 - level``).
        n_resamples: Bootstrap resamples, and permutations.
    """

    baseline: str
    rubric: tuple[str | None, str | None]
    judge: tuple[str | None, str | None]
    dimensions: tuple[DimensionShift, ...]
    differences: tuple[str, ...] = ()
    seed: int = 0
    level: float = 0.95
    n_resamples: int = 2000

    @property
    def moved(self) -> list[str]:
        """The dimensions whose mean moved beyond noise (the CI excludes 0)."""
        return [d.dimension for d in self.dimensions if d.direction in ("up", "down")]

    def summary(self) -> str:
        """One line per dimension."""
        head = f"since the baseline {self.baseline}:"
        return "\n".join([head, *(f"  {d.reading()}" for d in self.dimensions)])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "baseline": self.baseline,
            "rubric": {"baseline": self.rubric[0], "current": self.rubric[1]},
            "judge": {"baseline": self.judge[0], "current": self.judge[1]},
            "differences": list(self.differences),
            "dimensions": [d.to_dict() for d in self.dimensions],
            "moved": self.moved,
            "seed": self.seed,
            "level": self.level,
            "n_resamples": self.n_resamples,
        }


def _shift(
    name: str, current: ScoreRun, baseline: ScoreRun, *, seed: int, level: float, n: int
) -> DimensionShift:
    old, new = baseline.values(name), current.values(name)
    boot: dict[str, Any] = {"seed": seed, "level": level, "n_resamples": n}
    means = [
        score_mean([float(v) for v in vals], clusters, **boot) for clusters, vals in (old, new)
    ]
    if not old[1] or not new[1]:
        which = "the baseline" if not old[1] else "this run"
        ci = ConfidenceInterval.not_estimable(f"{which} has no score on it", level)
        test = ShiftTest(None, None, n, seed, f"{which} has no score on it")
        return DimensionShift(name, means[0], means[1], None, ci, 0, test)
    strata = Strata.of(old, new)
    shift, ci = shift_interval(strata, seed=seed, level=level, n_resamples=n)
    test = shift_test(strata, seed=seed, n_permutations=n)
    return DimensionShift(name, means[0], means[1], shift, ci, strata.n_shared, test)


def score_trend(
    current: ScoreRun,
    baseline: ScoreRun,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    allow_different: bool = False,
) -> ScoreTrend:
    """Compare a run with a baseline, dimension by dimension.

    Args:
        current: This run (:meth:`ScoreRun.from_result`).
        baseline: The earlier run (:func:`load_score_run`).
        seed: Seed of the bootstrap and the permutation test.
        level: Level of the intervals; the distribution test's threshold is
            ``1 - level``.
        n_resamples: Bootstrap resamples, and permutations.
        allow_different: Compare runs scored with different rubrics or judges.

    Raises:
        ConfigError: The runs' rubrics or judges differ (and not allowed), or a bad
            option.

    Example:
        >>> old = ScoreRun("production@1", "j", ("q1", "q2"), ({"accuracy": 4},) * 2)
        >>> new = ScoreRun("production@1", "j", ("q1", "q2"), ({"accuracy": 3},) * 2)
        >>> score_trend(new, old, n_resamples=100).dimensions[0].reading()
        'accuracy fell by 1.00 [1.00, 1.00] since the baseline'
    """
    if not 0 < level < 1:
        raise ConfigError(f"level must be in (0, 1); got {level}")
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1; got {n_resamples}")
    differences = check_comparable(
        baseline, rubric=current.rubric or "", judge=current.judge, allow_different=allow_different
    )
    names = tuple(dict.fromkeys([*current.dimensions, *baseline.dimensions]))
    shifts = tuple(
        _shift(n, current, baseline, seed=seed, level=level, n=n_resamples) for n in names
    )
    return ScoreTrend(
        baseline.source, (baseline.rubric, current.rubric), (baseline.judge, current.judge),
        shifts, differences, seed, level, n_resamples,
    )  # fmt: skip
