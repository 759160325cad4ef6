"""Position-bias metrics of a pairwise judge, each with a bootstrap interval.

Input: for each item, the judge's per-call verdicts by *position* (``"A"``: the
answer shown first, ``"B"``, ``"tie"``), once in the original order and once with
the answers swapped. A consistent judge names the same *answer* both times, so in
positions its pair is ``(A, B)``, ``(B, A)`` or ``(tie, tie)``.

The nine possible pairs fall into three groups (Shi et al. 2024, "Judging the
Judges: A Systematic Study of Position Bias in LLM-as-a-Judge"):

==================  =================================  ===========================
group               pairs (original, swapped)          meaning
==================  =================================  ===========================
consistent          (A, B), (B, A), (tie, tie)         same answer both times
first position      (A, A), (A, tie), (tie, A)         leans to the first slot
second position     (B, B), (B, tie), (tie, B)         leans to the second slot
==================  =================================  ===========================

So ``(A, tie)`` is *not* consistent: it counts as biased to the first position.
The reported metrics:

- ``consistency``: share of consistent pairs (Zheng et al. 2023's "consistency";
  also :func:`fairjudge.position_consistency`).
- ``first_position`` / ``second_position``: shares of the two biased groups
  (MT-Bench's "biased toward first / second"); the three shares sum to 1.
- ``flip``: share of strict reversals, ``(A, A)`` or ``(B, B)``: the judge named
  a different winner only because the order changed. The other inconsistent pairs
  involve one tie.
- ``preference_fairness`` (PF) in [-1, 1]: 0 is fair, negative leans to the first
  position, positive to the second. Shi et al. define ``PF_raw = rc * irr - pc * ipr``
  (rc, pc: recency- and primacy-preferred counts; irr, ipr: their shares among the
  inconsistent pairs) and rescale it by the smallest and largest values reachable
  on ``n`` pairs to [-1, 1]. ``PF_raw`` simplifies to ``rc - pc`` and its range is
  ``[-n, n]``, so ``PF = (rc - pc) / n``: the second-position share minus the
  first-position share. It thus reflects both how often the judge is inconsistent
  and which way it leans.
- ``repetition_stability`` (RS), when each order was judged more than once: for
  each item and order, the share of repeated calls that gave the most common
  verdict, averaged over orders and items (Shi et al.). 1 means fully repeatable.

Each metric is an average over items, so the intervals come from one shared
bootstrap that resamples items (or questions, when given).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np

from fairjudge._errors import InputError
from fairjudge.stats._intervals import ConfidenceInterval, wilson_when_alike
from fairjudge.stats._resample import BootstrapOptions, Resampled, nan_to_none, plan_bootstrap
from fairjudge.stats._validate import FloatArray, check_positions

__all__ = ["PositionBiasResult", "Proportion", "position_bias"]

_POS = ("A", "B", "tie")
# Index 3 * original + swapped over codes A=0, B=1, tie=2.
_CONSISTENT = np.array([0, 1, 0, 1, 0, 0, 0, 0, 1], dtype=np.float64)
_FIRST = np.array([1, 0, 1, 0, 0, 0, 1, 0, 0], dtype=np.float64)
_SECOND = np.array([0, 0, 0, 0, 1, 1, 0, 1, 0], dtype=np.float64)
_FLIP = np.array([1, 0, 0, 0, 1, 0, 0, 0, 0], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class Proportion:
    """A share of items, with its bootstrap interval and the counts behind it.

    Attributes:
        estimate: ``count / n`` (NaN when ``n`` is 0).
        ci: Bootstrap percentile interval, or why there is none.
        count: Items (or calls) in the numerator.
        n: Items (or calls) in the denominator.
    """

    estimate: float
    ci: ConfidenceInterval
    count: int
    n: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN becomes ``None``)."""
        return {
            "estimate": nan_to_none(self.estimate),
            "ci": self.ci.to_dict(),
            "count": self.count,
            "n": self.n,
        }

    def __str__(self) -> str:
        if self.n == 0:  # a share of nothing: no number, and the reason why
            return f"n/a ({self.ci.reason or 'no items'}) (0/0)"
        return f"{self.estimate:.3f} {self.ci} ({self.count}/{self.n})"


@dataclass(frozen=True, slots=True)
class PositionBiasResult(Resampled):
    """Position-bias report card of a judge.

    The bootstrap's options (``n_questions``, ``n_resamples``, ``seed``, ``level``)
    are described on :class:`._resample.Resampled`.

    Attributes:
        consistency: Share of consistent (original, swapped) pairs.
        first_position: Share leaning to the first position (primacy).
        second_position: Share leaning to the second position (recency).
        flip: Share of strict winner reversals, ``(A, A)`` or ``(B, B)``.
        preference_fairness: ``(second - first) / n`` in [-1, 1]; 0 is fair.
        preference_fairness_ci: Its bootstrap interval.
        repetition_stability: Mean share of the modal verdict over repeated calls,
            over the items judged more than once; ``None`` if none was.
        repetition_stability_ci: Its interval; ``None`` with one round.
        pair_counts: Count of each ``(original, swapped)`` verdict pair.
        n_items: Items.
        n_pairs: (original, swapped) pairs: items times rounds.
        rounds: Calls per item and order (the largest, if they differ).
    """

    consistency: Proportion
    first_position: Proportion
    second_position: Proportion
    flip: Proportion
    preference_fairness: float
    preference_fairness_ci: ConfidenceInterval
    repetition_stability: float | None
    repetition_stability_ci: ConfidenceInterval | None
    pair_counts: dict[tuple[str, str], int]
    n_items: int
    n_pairs: int
    rounds: int

    def summary(self) -> str:
        """A short report, one metric per line."""
        lines = [
            f"Position bias over {self.n_pairs} swapped pairs ({self.n_items} items, "
            f"{self.rounds} call{'' if self.rounds == 1 else 's'} in each order), "
            f"{self.n_resamples} resamples, "
            f"seed {self.seed}",
            f"  consistency       {self.consistency}",
            f"  first position    {self.first_position}",
            f"  second position   {self.second_position}",
            f"  flip              {self.flip}",
            f"  pref. fairness    {self.preference_fairness:+.3f} "
            f"{self.preference_fairness_ci:+.3f}",
        ]
        if self.repetition_stability is not None and self.repetition_stability_ci is not None:
            lines.append(
                f"  rep. stability    {self.repetition_stability:.3f} "
                f"{self.repetition_stability_ci}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        rs_ci = self.repetition_stability_ci
        return {
            "consistency": self.consistency.to_dict(),
            "first_position": self.first_position.to_dict(),
            "second_position": self.second_position.to_dict(),
            "flip": self.flip.to_dict(),
            "preference_fairness": self.preference_fairness,
            "preference_fairness_ci": self.preference_fairness_ci.to_dict(),
            "repetition_stability": self.repetition_stability,
            "repetition_stability_ci": None if rs_ci is None else rs_ci.to_dict(),
            "pair_counts": [
                {"original": o, "swapped": s, "count": c} for (o, s), c in self.pair_counts.items()
            ],
            "n_items": self.n_items,
            "n_pairs": self.n_pairs,
            "rounds": self.rounds,
            **self.resampling_dict(),
        }


def _rounds(name: str, values: Sequence[str] | Sequence[Sequence[str]]) -> list[list[str]]:
    """Normalise one order's verdicts to a list of rounds per item."""
    if isinstance(values, str) or not hasattr(values, "__len__"):
        raise InputError(f"{name} must be a sequence of verdicts; got {values!r:.60}")
    out: list[list[str]] = []
    for i, v in enumerate(values):
        if isinstance(v, str):
            out.append([v])
        elif hasattr(v, "__len__") and len(v) > 0:
            out.append(list(v))
        else:
            raise InputError(
                f"{name}[{i}] must be a verdict or a non-empty list of verdicts; got {v!r}"
            )
    return out


def _mode_share(codes: list[int]) -> float:
    return max(Counter(codes).values()) / len(codes)


def position_bias(
    original: Sequence[str] | Sequence[Sequence[str]],
    swapped: Sequence[str] | Sequence[Sequence[str]],
    **options: Unpack[BootstrapOptions],
) -> PositionBiasResult:
    """Position consistency, position preference, flips, fairness and stability, with CIs.

    Args:
        original: Per item, the verdict (``"A"``, ``"B"``, ``"tie"``) of the call
            with the answers in the original order, or a list of verdicts from
            repeated calls (rounds).
        swapped: The same for the calls with the answers swapped; round ``r`` of an
            item is paired with round ``r`` of ``original``.
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`).

    Returns:
        The metrics; see the module notes for their definitions.

    Raises:
        InputError: Mismatched lengths or rounds, or a bad verdict.
        ConfigError: A bad option.

    Example:
        >>> r = position_bias(["A", "A", "B", "tie"], ["B", "A", "A", "A"], n_resamples=100)
        >>> r.consistency.estimate, r.first_position.estimate, r.preference_fairness
        (0.5, 0.5, -0.5)
    """
    orig = _rounds("original", original)
    swap = _rounds("swapped", swapped)
    if len(orig) != len(swap):
        raise InputError(f"swapped has {len(swap)} items but original has {len(orig)}")
    n_items = len(orig)
    if n_items == 0:
        raise InputError("original is empty; position-bias metrics need at least one item")
    for i, (o, s) in enumerate(zip(orig, swap, strict=True)):
        if len(o) != len(s):
            raise InputError(
                f"original[{i}] has {len(o)} rounds but swapped[{i}] has {len(s)}; "
                "round r of one order is paired with round r of the other"
            )
    plan = plan_bootstrap(n_items, options)

    sizes = np.array([len(o) for o in orig], dtype=np.float64)
    item_of = np.repeat(np.arange(n_items), sizes.astype(np.intp))
    o_codes = check_positions("original", [v for o in orig for v in o])
    s_codes = check_positions("swapped", [v for s in swap for v in s])
    cell = 3 * o_codes + s_codes
    onehot = np.zeros((cell.size, 9))
    onehot[np.arange(cell.size), cell] = 1.0
    per_item = np.zeros((n_items, 9))
    np.add.at(per_item, item_of, onehot)
    indicators = np.stack([_CONSISTENT, _FIRST, _SECOND, _FLIP, _SECOND - _FIRST], axis=1)
    sums = per_item @ indicators  # (items, 5)

    rounds = int(sizes.max())
    # Stability is defined only where a call was repeated.
    repeated = sizes > 1
    has_rs = bool(repeated.any())
    rs_item = np.zeros(n_items)
    if has_rs:
        starts = np.concatenate([[0], np.cumsum(sizes).astype(np.intp)])
        for item in np.flatnonzero(repeated):
            lo, hi = starts[item], starts[item + 1]
            o_list, s_list = o_codes[lo:hi].tolist(), s_codes[lo:hi].tolist()
            rs_item[item] = 0.5 * (_mode_share(o_list) + _mode_share(s_list))

    k = plan.n_clusters
    c_sums = np.zeros((k, 6))
    np.add.at(c_sums, plan.clusters, np.column_stack([sums, rs_item]))
    c_sizes = np.bincount(plan.clusters, sizes, k)
    c_items = np.bincount(plan.clusters, repeated.astype(np.float64), k)

    samples: list[FloatArray] = []
    for draws in plan.draws(2 * k):
        metric = (draws @ c_sums[:, :5]) / (draws @ c_sizes)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            rs = (draws @ c_sums[:, 5]) / (draws @ c_items)
        samples.append(np.column_stack([metric, rs]))
    cis = plan.intervals(np.concatenate(samples))
    n_pairs = int(sizes.sum())
    totals = sums.sum(axis=0)

    clustered = plan.n_questions is not None

    def prop(j: int) -> Proportion:
        p = float(totals[j] / n_pairs)  # alike in every cluster: alike_interval
        ci = wilson_when_alike(cis[j], c_sums[:, j] / c_sizes, p, clustered)
        return Proportion(p, ci, round(totals[j]), n_pairs)

    # Fairness, a mean of -1, 0 and +1 (2 x a share - 1), alike in every cluster: the
    # share's bound mapped to [-1, 1] (±u at 0, a consistent judge), not [pf, pf].
    pf = float(totals[4] / n_pairs)
    pf_ci = wilson_when_alike(cis[4], c_sums[:, 4] / c_sizes, pf, clustered, (-1.0, 1.0))

    counts = per_item.sum(axis=0)
    return PositionBiasResult(
        consistency=prop(0),
        first_position=prop(1),
        second_position=prop(2),
        flip=prop(3),
        preference_fairness=pf,
        preference_fairness_ci=pf_ci,
        repetition_stability=float(rs_item[repeated].mean()) if has_rs else None,
        repetition_stability_ci=cis[5] if has_rs else None,
        pair_counts={(_POS[c // 3], _POS[c % 3]): int(counts[c]) for c in range(9)},
        n_items=n_items,
        n_pairs=n_pairs,
        rounds=rounds,
        **plan.record(),
    )
