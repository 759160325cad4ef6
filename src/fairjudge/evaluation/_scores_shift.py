"""How far one dimension's scores moved between two runs: the numbers behind a trend.

Both figures respect the questions, as every interval in fairjudge does. A question
either run scored is a cluster; the questions split into three strata: those both
runs scored (the usual case: the same evaluation set, run again), those only the
baseline scored, and those only the new run scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairjudge.stats import (
    ConfidenceInterval,
    FloatArray,
    chunk_sizes,
    cluster_draws,
    percentile_bounds,
    weighted_means,
)

__all__ = ["ShiftTest", "Strata", "shift_interval", "shift_test"]

TEST_NAME = "permutation test of the Wasserstein-1 distance, questions permuted whole"


@dataclass(frozen=True, slots=True)
class Strata:
    """Two runs' scores on one dimension, gathered by question.

    Attributes:
        levels: Every score either run gave, ascending.
        old: ``(questions, levels)`` baseline histograms; shared questions first,
            then the baseline's own, then the new run's own (zero rows).
        new: The same for the new run.
        n_shared: Questions both runs scored.
        n_old_only: Questions only the baseline scored.
    """

    levels: FloatArray
    old: FloatArray
    new: FloatArray
    n_shared: int
    n_old_only: int

    @classmethod
    def of(
        cls,
        old: tuple[Sequence[str], Sequence[int]],
        new: tuple[Sequence[str], Sequence[int]],
    ) -> Strata:
        """Gather ``(clusters, scores)`` of each run into histograms by question."""
        levels = sorted({*old[1], *new[1]})
        col = {level: j for j, level in enumerate(levels)}
        in_old, in_new = dict.fromkeys(old[0]), dict.fromkeys(new[0])
        shared = [q for q in in_old if q in in_new]
        order = shared + [q for q in in_old if q not in in_new]
        order += [q for q in in_new if q not in in_old]
        row = {q: i for i, q in enumerate(order)}
        hists = []
        for clusters, values in (old, new):
            h = np.zeros((len(order), len(levels)))
            np.add.at(h, ([row[c] for c in clusters], [col[v] for v in values]), 1.0)
            hists.append(h)
        return cls(np.asarray(levels, dtype=np.float64), hists[0], hists[1], len(shared),
                   len(in_old) - len(shared))  # fmt: skip

    @property
    def sizes(self) -> tuple[int, int, int]:
        """Questions per stratum: shared, the baseline's own, the new run's own."""
        n = self.old.shape[0]
        return self.n_shared, self.n_old_only, n - self.n_shared - self.n_old_only


def shift_interval(
    strata: Strata, *, seed: int, level: float, n_resamples: int
) -> tuple[float, ConfidenceInterval]:
    """The mean shift ``new - old`` and its stratified, question-clustered bootstrap CI."""
    sums_old, sums_new = strata.old @ strata.levels, strata.new @ strata.levels
    n_old, n_new = strata.old.sum(axis=1), strata.new.sum(axis=1)
    shift = float(sums_new.sum() / n_new.sum() - sums_old.sum() / n_old.sum())
    few = [name for name, n in (("baseline", n_old), ("new run", n_new)) if (n > 0).sum() < 2]
    if few:
        reason = f"the {few[0]} scored one question: the bootstrap cannot vary"
        return shift, ConfidenceInterval.not_estimable(reason, level)
    rng = np.random.default_rng(seed)
    out = []
    for size in chunk_sizes(n_resamples, strata.old.shape[0]):
        draws = np.hstack([cluster_draws(k, size, rng) for k in strata.sizes if k])
        out.append(weighted_means(draws, sums_new, n_new) - weighted_means(draws, sums_old, n_old))
    low, high = percentile_bounds(np.concatenate(out), level)
    return shift, ConfidenceInterval(float(low[0]), float(high[0]), level)


@dataclass(frozen=True, slots=True)
class ShiftTest:
    """A permutation test of a change in one dimension's score distribution.

    Attributes:
        statistic: The Wasserstein-1 distance between the runs' histograms, in
            scale points (0: the same distribution of scores).
        p_value: The permutation p-value; ``None`` when the test was not run.
        n_permutations: Permutations drawn.
        seed: Seed of the permutations.
        reason: Why the test was not run, else ``None``.
    """

    statistic: float | None
    p_value: float | None
    n_permutations: int
    seed: int
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "test": TEST_NAME,
            "statistic": self.statistic,
            "p_value": self.p_value,
            "n_permutations": self.n_permutations,
            "seed": self.seed,
            "reason": self.reason,
        }


def _distances(old: FloatArray, new: FloatArray, gaps: FloatArray) -> FloatArray:
    """Wasserstein-1 distance between matching rows of two sets of histograms."""
    cdf = np.cumsum(
        new / new.sum(axis=1, keepdims=True) - old / old.sum(axis=1, keepdims=True), axis=1
    )
    out: FloatArray = (np.abs(cdf[:, :-1]) * gaps).sum(axis=1)
    return out


def shift_test(strata: Strata, *, seed: int, n_permutations: int) -> ShiftTest:
    """Permutation test of a change in the distribution of scores (module docstring)."""
    if not strata.old.any() or not strata.new.any():
        why = "the baseline" if not strata.old.any() else "the new run"
        return ShiftTest(None, None, n_permutations, seed, f"{why} has no scores")
    gaps = np.diff(strata.levels)
    s = strata.n_shared
    ho, hn, own = strata.old[:s], strata.new[:s], strata.old[s:] + strata.new[s:]
    is_old = np.zeros(own.shape[0])
    is_old[: strata.n_old_only] = 1.0
    base_old, base_new, swap = ho.sum(axis=0), hn.sum(axis=0), hn - ho
    observed = float(_distances(
        (base_old + is_old @ own)[None], (base_new + (1 - is_old) @ own)[None], gaps
    )[0])  # fmt: skip
    rng = np.random.default_rng(seed)
    extreme = 0
    for size in chunk_sizes(n_permutations, strata.old.shape[0]):
        flips = rng.integers(0, 2, size=(size, s)).astype(np.float64)
        z = rng.permuted(np.tile(is_old, (size, 1)), axis=1)
        old = base_old + flips @ swap + z @ own
        new = base_new - flips @ swap + (1 - z) @ own
        extreme += int((_distances(old, new, gaps) >= observed - 1e-12).sum())
    p = (1 + extreme) / (1 + n_permutations)
    return ShiftTest(observed, p, n_permutations, seed)
