"""Inspect metrics over the pairwise scorer's scores, computed by fairjudge's statistics.

Inspect hands a metric the scored samples only: a sample whose judge reply could not
be read was scored ``Score.unscored()`` (a NaN value), which Inspect leaves out of
every metric and counts as ``unscored_samples`` beside them. So :func:`win_rate` is
over the judgments that resolved, exactly as fairjudge's own win rate is, and the
parse failures are reported next to it, never folded in as ties or losses.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from fairjudge.stats import bootstrap_mean

__all__ = ["position_consistency", "win_rate"]


@metric
def win_rate(level: float = 0.95, n_resamples: int = 2000, seed: int = 0) -> Metric:
    """The evaluated model's win rate against the baseline, with its bootstrap interval.

    A win counts 1, a tie ½ and a loss 0 (the seed protocol's score), averaged over
    the resolved samples. The interval is fairjudge's percentile bootstrap
    (:func:`fairjudge.stats.bootstrap_mean`), seeded: the same log gives the same
    interval (seed 0 unless ``win_rate(seed=...)`` is given, and Inspect records the
    arguments given with the metric). With fewer than two resolved samples the
    interval cannot be estimated, and only ``win_rate`` is reported.

    Args:
        level: The interval's nominal coverage.
        n_resamples: Bootstrap resamples.
        seed: The resampling seed.

    Returns:
        A metric whose value is ``{"win_rate", "win_rate_ci_low", "win_rate_ci_high"}``;
        Inspect shows each key as a metric of its own.
    """

    def compute(scores: list[SampleScore]) -> Value:
        values = [s.score.as_float() for s in scores]
        if not values:
            return {"win_rate": math.nan}
        ci = bootstrap_mean(values, n_resamples=n_resamples, seed=seed, level=level)
        out: dict[str, float | None] = {"win_rate": sum(values) / len(values)}
        if ci.estimable:
            out["win_rate_ci_low"] = ci.low
            out["win_rate_ci_high"] = ci.high
        return out

    return compute


@metric
def position_consistency() -> Metric:
    """The share of resolved samples whose two verdicts agreed once the swap is undone.

    A judge that always picks the first position scores 0; one that reads the answers
    and not their places scores near 1. A low value says the win rate rests on many
    ties forced by position bias. Reads each score's ``consistent`` metadata; a score
    without it is skipped. Across epochs, Inspect's reducers keep one epoch's
    metadata, so the rate is then that epoch's (one epoch gives the exact rate).
    """

    def compute(scores: list[SampleScore]) -> Value:
        flags = [
            bool(s.score.metadata["consistent"])
            for s in scores
            if s.score.metadata is not None and s.score.metadata.get("consistent") is not None
        ]
        return sum(flags) / len(flags) if flags else math.nan

    return compute
