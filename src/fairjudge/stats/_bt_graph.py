"""Which Bradley-Terry ratings a set of battles identifies, and which are finite.

Two questions about the graph of battles, asked of the full data (to refuse a fit
that means nothing) and of every bootstrap round (to say which rounds' ratings mean
nothing):

- **Identified**: a model's rating relative to the anchor exists only if the two are
  connected through battles (undirected). Otherwise the difference is arbitrary.
- **Finite** (without a penalty): the maximum-likelihood ratings exist only if every
  group of models lost (or tied) at least once to the rest (Zermelo 1929; Ford
  1957). A group that never lost has ratings running off to infinity; Newton then
  stops at a large, arbitrary value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components

from fairjudge.stats._arrays import BoolArray, FloatArray, IntArray

__all__ = [
    "RoundHealth",
    "Unbounded",
    "mle_exists",
    "reachable_from",
    "round_health",
    "unbounded",
]


def reachable_from(
    first: IntArray, second: IntArray, total: FloatArray, n: int, start: int
) -> BoolArray:
    """Models connected to ``start`` through pairs with at least one battle.

    Only those models' ratings are identified relative to ``start``.
    """
    used = total > 0
    graph = sp.csr_array((np.ones(int(used.sum())), (first[used], second[used])), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    out: BoolArray = labels == labels[start]
    return out


def mle_exists(
    first: IntArray, second: IntArray, score: FloatArray, total: FloatArray, n: int
) -> tuple[bool, IntArray]:
    """Whether the unpenalised maximum exists (Zermelo 1929; Ford 1957).

    It exists exactly when the directed graph with an edge ``i -> j`` whenever ``i``
    scored against ``j`` (a win or a tie) is strongly connected: otherwise some
    group of models never lost to the rest, and its ratings run off to infinity.

    Returns:
        Whether it exists, and the strong-component label of each model.
    """
    graph = _scored_graph(first, second, score, total, n)
    k, labels = connected_components(graph, directed=True, connection="strong")
    return k == 1, labels.astype(np.intp)


def _scored_graph(
    first: IntArray, second: IntArray, score: FloatArray, total: FloatArray, n: int
) -> sp.csr_array:
    """The directed graph with an edge ``i -> j`` whenever ``i`` scored against ``j``."""
    fwd = (score > 0) & (total > 0)
    bwd = (total - score > 0) & (total > 0)
    rows = np.concatenate([first[fwd], second[bwd]])
    cols = np.concatenate([second[fwd], first[bwd]])
    return sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))


@dataclass(frozen=True, slots=True)
class Unbounded:
    """Which ratings, relative to the anchor, have no finite unpenalised maximum.

    A battle ``i`` won (or tied) against ``j`` bounds ``j``'s rating from above by
    ``i``'s. So a model the anchor reaches through such edges is bounded above, and
    one that reaches the anchor is bounded below; a model bounded both ways shares
    the anchor's strong component, and its rating is finite.

    Attributes:
        above: ``(n,)`` bounded below only: its group was never beaten or tied by the
            anchor's group (directly or through other models), so it runs off to
            plus infinity.
        below: ``(n,)`` bounded above only: it never beat or tied the anchor's group,
            so it runs off to minus infinity.
        apart: ``(n,)`` bounded neither way (ordered against the anchor's group only
            through groups that run off themselves).
    """

    above: BoolArray
    below: BoolArray
    apart: BoolArray


def unbounded(
    first: IntArray, second: IntArray, score: FloatArray, total: FloatArray, n: int, anchor: int
) -> Unbounded:
    """Which models' ratings run off to infinity without a penalty, and which way.

    Args:
        first: ``(P,)`` first model of each pair.
        second: ``(P,)`` second model of each pair.
        score: ``(P,)`` wins of ``first`` plus half its ties.
        total: ``(P,)`` battles per pair.
        n: Number of models.
        anchor: Index of the anchor model (connected to every model).
    """
    graph = _scored_graph(first, second, score, total, n)
    bounded_above = np.zeros(n, dtype=bool)
    bounded_above[breadth_first_order(graph, anchor, return_predecessors=False)] = True
    bounded_below = np.zeros(n, dtype=bool)
    bounded_below[breadth_first_order(graph.T, anchor, return_predecessors=False)] = True
    return Unbounded(
        above=bounded_below & ~bounded_above,
        below=bounded_above & ~bounded_below,
        apart=~bounded_above & ~bounded_below,
    )


@dataclass(frozen=True, slots=True)
class RoundHealth:
    """Per bootstrap round and model: is the rating identified, and is it finite?

    Attributes:
        unidentified: ``(B, n)`` ratings not connected to the anchor in that round.
        diverged: ``(B, n)`` identified ratings whose maximum lies at infinity in
            that round (not in the anchor's strong component).
        degenerate: ``(B,)`` rounds with any unidentified or infinite rating.
    """

    unidentified: BoolArray
    diverged: BoolArray
    degenerate: BoolArray


def round_health(
    first: IntArray,
    second: IntArray,
    score: FloatArray,
    total: FloatArray,
    anchor: int,
    n: int,
    *,
    check_mle: bool,
) -> RoundHealth:
    """Check each round's pair counts for unidentified and infinite ratings.

    Args:
        first: ``(P,)`` first model of each pair.
        second: ``(P,)`` second model of each pair.
        score: ``(B, P)`` wins of ``first`` plus half its ties, per round.
        total: ``(B, P)`` battles per pair, per round.
        anchor: Index of the anchor model.
        n: Number of models.
        check_mle: Whether to look for infinite maxima (only without a penalty:
            with ``l2 > 0`` every maximum is finite).
    """
    shape = (score.shape[0], n)
    health = RoundHealth(
        np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool), np.zeros(shape[0], dtype=bool)
    )
    for b in np.flatnonzero((total == 0).any(axis=1)):
        ok = reachable_from(first, second, total[b], n, anchor)
        health.unidentified[b] = ~ok
        health.degenerate[b] = not ok.all()
    if check_mle:
        # Only a round with some one-sided pair can lack a finite maximum.
        one_sided = ((score == 0) | (score == total)) & (total > 0)
        for b in np.flatnonzero(one_sided.any(axis=1)):
            exists, labels = mle_exists(first, second, score[b], total[b], n)
            if not exists:
                health.diverged[b] = (labels != labels[anchor]) & ~health.unidentified[b]
                health.degenerate[b] = True
    return health
