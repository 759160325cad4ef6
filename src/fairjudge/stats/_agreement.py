"""Agreement between a judge's pairwise verdicts and human labels.

Three views, for three kinds of human labels (the last two in :mod:`._rank_stats`
and :mod:`._system_agreement`):

- **Pairwise verdicts** (``"1"``, ``"2"``, ``"tie"``): :func:`judge_agreement` gives
  MT-Bench's two agreement rates (Zheng et al. 2023, section 4.2). Setup S1 keeps
  every item, ties included, so chance agreement is about 1/3; setup S2 keeps only
  the items where *both* the judge and the human picked a winner, so chance is 1/2.
  The judge's verdict is the debiased one: a pair of calls that disagree after the
  swap counts as a tie (use :func:`outcomes_from_positions` to get it from the raw
  per-call verdicts). Also Cohen's kappa, which discounts chance agreement, and
  the confusion matrix.
- **Scores** (say 1 to 10): :func:`.score_correlation` gives Spearman and Kendall
  correlations with bootstrap intervals, and a pass/fail gate: Spearman >= 0.7 by
  default, the rule of thumb for trusting a judge prompt before using it at scale.
- **Rankings of systems**: :func:`.system_agreement` fits Bradley-Terry ratings on
  the judge's verdicts and on the humans' verdicts over the same battles and
  correlates the two rankings, bootstrapping battles (or questions) jointly so the
  interval reflects both fits' uncertainty.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np

from fairjudge._errors import InputError
from fairjudge.stats._arrays import FloatArray
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._position_bias import Proportion
from fairjudge.stats._resample import BootstrapOptions, Resampled, nan_to_none, plan_bootstrap
from fairjudge.stats._validate import check_outcomes, check_same_length

__all__ = ["AgreementResult", "ConfusionMatrix", "judge_agreement"]

_LABELS = ("1", "2", "tie")


@dataclass(frozen=True, slots=True)
class ConfusionMatrix:
    """Counts of (human, judge) label pairs.

    Attributes:
        labels: Row and column order: ``("1", "2", "tie")``.
        counts: ``counts[i][j]``: items the human labelled ``labels[i]`` and the
            judge ``labels[j]``.
    """

    labels: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: rows are human labels, columns judge labels."""
        return {
            "labels": list(self.labels),
            "rows": "human",
            "columns": "judge",
            "counts": [list(r) for r in self.counts],
        }

    def __str__(self) -> str:
        head = "human\\judge " + " ".join(f"{lab:>5}" for lab in self.labels)
        rows = [
            f"{lab:>11} " + " ".join(f"{c:>5}" for c in row)
            for lab, row in zip(self.labels, self.counts, strict=True)
        ]
        return "\n".join([head, *rows])


@dataclass(frozen=True, slots=True)
class AgreementResult(Resampled):
    """Judge-human agreement on pairwise verdicts.

    The bootstrap's options (``n_questions``, ``n_resamples``, ``seed``, ``level``)
    are described on :class:`._resample.Resampled`.

    Attributes:
        s1: MT-Bench setup S1: share of items where judge and human agree, ties
            included.
        s2: Setup S2: the same over items where neither said tie (NaN if none).
        kappa: Cohen's kappa over the three labels (NaN when chance agreement is 1).
        kappa_ci: Its bootstrap interval, or why there is none.
        confusion: Human-by-judge counts.
        n: Items.
    """

    s1: Proportion
    s2: Proportion
    kappa: float
    kappa_ci: ConfidenceInterval
    confusion: ConfusionMatrix
    n: int

    def summary(self) -> str:
        """Both agreement rates, kappa and the confusion matrix."""
        return "\n".join(
            [
                f"Judge-human agreement on {self.n} items "
                f"({self.n_resamples} resamples, seed {self.seed})",
                f"  S1 (with ties)   {self.s1}",
                f"  S2 (no ties)     {self.s2}",
                f"  Cohen's kappa    {self.kappa:.3f} {self.kappa_ci}",
                str(self.confusion),
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "s1": self.s1.to_dict(),
            "s2": self.s2.to_dict(),
            "kappa": nan_to_none(self.kappa),
            "kappa_ci": self.kappa_ci.to_dict(),
            "confusion": self.confusion.to_dict(),
            "n": self.n,
            **self.resampling_dict(),
        }


def _agreement_stats(conf: FloatArray) -> FloatArray:
    """S1, S2 and kappa from ``(B, 3, 3)`` weighted confusion matrices -> ``(B, 3)``."""
    total = conf.sum(axis=(1, 2))
    agree = np.trace(conf, axis1=1, axis2=2)
    decided = conf[:, :2, :2].sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        s1 = agree / total
        s2 = (conf[:, 0, 0] + conf[:, 1, 1]) / decided
        p_e = (conf.sum(axis=2) * conf.sum(axis=1)).sum(axis=1) / (total * total)
        kappa = np.where(p_e < 1.0, (s1 - p_e) / (1.0 - p_e), np.nan)
    return np.stack([s1, s2, kappa], axis=1)


def judge_agreement(
    judge: Sequence[str],
    human: Sequence[str],
    **options: Unpack[BootstrapOptions],
) -> AgreementResult:
    """MT-Bench agreement (S1, S2), Cohen's kappa and the confusion matrix, with CIs.

    Args:
        judge: The judge's resolved verdict per item: ``"1"``, ``"2"`` or ``"tie"``;
            a swap-inconsistent pair of calls must already be a tie.
        human: The human label per item, same vocabulary.
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`); give ``questions`` when several
            humans labelled the same item, one row each.

    Returns:
        The agreement figures.

    Raises:
        InputError: Mismatched lengths, a bad label, or no items.
        ConfigError: A bad option.

    Example:
        >>> r = judge_agreement(["1", "2", "tie", "1"], ["1", "1", "tie", "1"], n_resamples=50)
        >>> r.s1.estimate, r.s2.estimate
        (0.75, 0.6666666666666666)
    """
    n = check_same_length(judge=judge, human=human)
    if n == 0:
        raise InputError("judge and human are empty; agreement needs labelled items")
    j = check_outcomes("judge", judge)
    h = check_outcomes("human", human)
    plan = plan_bootstrap(n, options)
    cell = 3 * h + j
    per_cluster = np.zeros((plan.n_clusters, 9))
    np.add.at(per_cluster, (plan.clusters, cell), 1.0)
    point = per_cluster.sum(axis=0)
    est = _agreement_stats(point.reshape(1, 3, 3))[0]
    boot = [
        _agreement_stats((draws @ per_cluster).reshape(-1, 3, 3))
        for draws in plan.draws(2 * plan.n_clusters)
    ]
    s1_ci, s2_ci, kappa_ci = plan.intervals(np.concatenate(boot))
    conf = point.reshape(3, 3).astype(int)
    decided = int(conf[:2, :2].sum())
    return AgreementResult(
        s1=Proportion(float(est[0]), s1_ci, int(np.trace(conf)), n),
        s2=Proportion(float(est[1]), s2_ci, int(conf[0, 0] + conf[1, 1]), decided),
        kappa=float(est[2]),
        kappa_ci=kappa_ci,
        confusion=ConfusionMatrix(_LABELS, tuple(tuple(int(c) for c in r) for r in conf)),
        n=n,
        **plan.record(),
    )
