"""Bootstrap rounds for Bradley-Terry: draw each round's counts, then solve all rounds.

Two resampling schemes:

- **Battles** (no question labels): each round redraws ``N`` battles with
  replacement. Only the count of each (pair, outcome) cell matters, so a round is a
  Multinomial(N, cell shares) vector, as in FastChat's ``compute_bootstrap_bt``. It
  is drawn exactly but without ``N`` draws per round: independent Poisson counts,
  then the difference to ``N`` removed (uniformly among the drawn battles) or added
  (from the cell shares). Conditioned on its total, a Poisson vector is multinomial,
  and both corrections keep it so.
- **Questions**: each round redraws whole questions, with all the battles on them.
  Battles on one question share its difficulty and its answers, so treating them
  as independent would make the intervals too narrow. A round's cell counts are
  ``draws @ per_question_cell_counts``.

A round can be degenerate: a model may draw no battles, or the models may split
into groups never compared, so some ratings are not identified relative to the
anchor (those are NaN and left out of that model's interval); or, without a
penalty, some group may never lose, so its maximum lies at infinity (Newton then
stops at a large, arbitrary value). The rounds say which ratings diverged in them
(:mod:`._bt_graph`), so that the caller can count them per model and refuse an
interval that rests on arbitrary values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp

from fairjudge.stats._arrays import BoolArray, FloatArray, IntArray
from fairjudge.stats._bt_graph import round_health
from fairjudge.stats._bt_solvers import bt_newton
from fairjudge.stats._resample import chunk_sizes, cluster_draws

__all__ = ["BootstrapDraws", "PairData", "bootstrap_thetas", "multinomial_counts"]


@dataclass(frozen=True, slots=True)
class PairData:
    """Battles merged into counts per unordered pair.

    Attributes:
        n_models: Number of models.
        first: ``(P,)`` first model of each pair (the lower index).
        second: ``(P,)`` second model of each pair.
        counts: ``(P, 3)`` wins of ``first``, wins of ``second``, ties.
        cells: ``(N,)`` the cell ``3 * pair + outcome`` of each battle, in input order.
    """

    n_models: int
    first: IntArray
    second: IntArray
    counts: FloatArray
    cells: IntArray

    @property
    def n_cells(self) -> int:
        """Number of (pair, outcome) cells, ``3 * P``."""
        return 3 * int(self.first.size)


@dataclass(frozen=True, slots=True)
class BootstrapDraws:
    """Each round's ratings on the log-odds scale, before anchoring.

    Attributes:
        theta: ``(B, n)`` ratings; NaN where not identified in that round.
        kappa: ``(B,)`` Davidson log tie strength, or ``None``.
        diverged: ``(B, n)`` ratings whose maximum lay at infinity in that round
            (style control adds those of rounds separated by style).
        n_degenerate: Rounds with an unidentified rating or no finite maximum (or,
            in style control, separated by style).
    """

    theta: FloatArray
    kappa: FloatArray | None
    diverged: BoolArray
    n_degenerate: int


def multinomial_counts(
    cell_counts: FloatArray, n_resamples: int, rng: np.random.Generator
) -> FloatArray:
    """Draw ``n_resamples`` Multinomial(N, cell_counts / N) vectors, exactly.

    Drawing ``N`` battles per round costs ``N`` random numbers; ``rng.multinomial``
    costs one binomial per cell. Instead: draw independent Poisson counts with means
    slightly below the observed counts (three standard deviations short in total),
    which given their sum ``m`` are Multinomial(m, shares); then top each round up
    with ``N - m`` battles drawn uniformly, since a Multinomial(m) plus an
    independent Multinomial(N - m) with the same shares is a Multinomial(N). In the
    rare round (about one in 700) that overshoots, the excess is removed uniformly
    at random among the drawn battles, which keeps it multinomial too.

    Args:
        cell_counts: ``(K,)`` observed counts (integers stored as floats).
        n_resamples: Number of vectors.
        rng: Generator.

    Returns:
        ``(n_resamples, K)`` counts, each row summing to ``N``.
    """
    counts = np.rint(cell_counts).astype(np.intp)
    n_total = int(counts.sum())
    k = counts.size
    shrink = max(0.0, 1.0 - 3.0 / math.sqrt(max(n_total, 1)))
    out = rng.poisson(counts * shrink, size=(n_resamples, k))
    short = n_total - out.sum(axis=1)
    for b in np.flatnonzero(short < 0):
        pos = rng.choice(int(n_total - short[b]), size=int(-short[b]), replace=False)
        cells = np.searchsorted(np.cumsum(out[b]), pos, side="right")
        out[b] -= np.bincount(cells, minlength=k)
        short[b] = 0
    # One entry per observed battle: a uniform index into it is a draw from the shares.
    battle_cells = np.repeat(np.arange(k), counts)
    cells = battle_cells[rng.integers(0, n_total, size=int(short.sum()))]
    rows = np.repeat(np.arange(n_resamples), short)
    out += np.bincount(rows * k + cells, minlength=n_resamples * k).reshape(n_resamples, k)
    return out.astype(np.float64)


def _round_counts(
    data: PairData,
    cluster_cells: sp.csr_array | None,
    size: int,
    rng: np.random.Generator,
) -> FloatArray:
    if cluster_cells is None:
        observed = data.counts.reshape(-1)
        return multinomial_counts(observed, size, rng)
    draws = cluster_draws(cluster_cells.shape[0], size, rng)
    return np.asarray((cluster_cells.T @ draws.T).T, dtype=np.float64)


def bootstrap_thetas(
    data: PairData,
    *,
    cluster_cells: sp.csr_array | None,
    ties: Literal["half", "davidson"],
    l2: float,
    start: FloatArray,
    anchor: int,
    n_resamples: int,
    rng: np.random.Generator,
) -> BootstrapDraws:
    """Refit the model on ``n_resamples`` resamples.

    Args:
        data: The merged battles.
        cluster_cells: ``(Q, 3P)`` cell counts per question, or ``None`` to
            resample battles.
        ties: ``"half"`` or ``"davidson"``.
        l2: Ridge strength.
        start: Full-data fit used as the warm start: ``(n,)``, or ``(n + 1,)``
            with ``kappa`` last for Davidson.
        anchor: Index of the anchor model (for identification).
        n_resamples: Number of rounds.
        rng: Generator; rounds are drawn from it in order.

    Returns:
        The rounds' ratings.
    """
    n, p = data.n_models, int(data.first.size)
    davidson = ties == "davidson"
    thetas: list[FloatArray] = []
    kappas: list[FloatArray] = []
    diverged: list[BoolArray] = []
    n_bad = 0
    # Memory per round: the (n, n) Hessian, a few (P,)-sized work arrays, and the
    # question draws when resampling questions.
    n_clusters = 0 if cluster_cells is None else cluster_cells.shape[0]
    for size in chunk_sizes(n_resamples, n * n + 8 * p + n_clusters):
        counts = _round_counts(data, cluster_cells, size, rng).reshape(size, p, 3)
        score = counts[:, :, 0] + 0.5 * counts[:, :, 2]
        total = counts.sum(axis=2)
        fit, _ = bt_newton(data.first, data.second, counts, start, l2=l2, davidson=davidson)
        theta = fit[:, :n]
        if davidson:
            kappas.append(fit[:, n])
        health = round_health(data.first, data.second, score, total, anchor, n, check_mle=l2 == 0.0)
        theta[health.unidentified] = np.nan
        n_bad += int(health.degenerate.sum())
        thetas.append(theta)
        diverged.append(health.diverged)
    return BootstrapDraws(
        theta=np.concatenate(thetas, axis=0),
        kappa=np.concatenate(kappas) if kappas else None,
        diverged=np.concatenate(diverged, axis=0),
        n_degenerate=n_bad,
    )
