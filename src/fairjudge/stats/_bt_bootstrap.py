"""Bradley-Terry bootstrap rounds (counts drawn, then all rounds solved), and estimability.

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
(below), so that the caller can count them per model and refuse an
interval that rests on arbitrary values.

Which Bradley-Terry ratings a set of battles identifies, and which are finite.

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

import math
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Literal

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components

from fairjudge.stats._bt_solvers import NewtonLayout, bt_newton
from fairjudge.stats._resample import chunk_sizes, cluster_draws
from fairjudge.stats._validate import BoolArray, FloatArray, IntArray

__all__ = [
    "BootstrapDraws",
    "PairData",
    "RoundChunk",
    "RoundDraws",
    "RoundHealth",
    "Unbounded",
    "check_rounds",
    "mle_exists",
    "multinomial_counts",
    "reachable_from",
    "round_health",
    "solve_rounds",
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
    cells += np.repeat(np.arange(n_resamples) * k, short)  # the cell's place in `out`
    out += np.bincount(cells, minlength=n_resamples * k).reshape(n_resamples, k)
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


@dataclass(frozen=True, slots=True)
class RoundChunk:
    """One chunk of bootstrap rounds: their counts and what their battle graphs say.

    Attributes:
        counts: ``(size, P, 3)`` each round's wins of first, wins of second, ties.
        checked: Which ratings each round identifies, and which are finite; checked
            in the background while the chunk is solved, when there are several.
    """

    counts: FloatArray
    checked: Future[RoundHealth]

    @property
    def health(self) -> RoundHealth:
        """The check, once done (an error in it is raised here)."""
        return self.checked.result()


class RoundDraws:
    """The rounds' counts, chunk by chunk, in order: drawn one chunk ahead when there are several.

    A chunk's draw depends only on the observed counts and the generator, never on
    a fit, so the next chunk can be drawn (and its battle graphs checked) in a
    background thread while the caller solves the current one, and the first
    chunk while the caller fits the full data. All draws happen in that one
    thread, one after another, in chunk order: the generator sees exactly the
    calls, in the order and with the sizes, of drawing the chunks in turn, so the
    rounds are the same, bit for bit. Only one chunk is drawn ahead, so memory stays
    near one chunk's counts above what solving a chunk needs. A single chunk is
    drawn in the caller's thread, when asked for, and pays for no thread.

    Use as a context manager: leaving it waits for a draw in flight, and an error in
    a draw is raised where its chunk is asked for.
    """

    def __init__(
        self,
        data: PairData,
        *,
        cluster_cells: sp.csr_array | None,
        anchor: int,
        check_mle: bool,
        n_resamples: int,
        rng: np.random.Generator,
    ) -> None:
        """Start drawing the first chunk (in the background when there are several).

        Args:
            data: The merged battles.
            cluster_cells: ``(Q, 3P)`` cell counts per question, or ``None`` to
                resample battles.
            anchor: Index of the anchor model (for identification).
            check_mle: Whether to look for rounds without a finite maximum
                (only without a penalty).
            n_resamples: Number of rounds.
            rng: Generator; used only by this object, from one thread at a time.
        """
        self._data, self._cluster_cells, self._rng = data, cluster_cells, rng
        self._anchor, self._check_mle = anchor, check_mle
        n, p = data.n_models, int(data.first.size)
        # Memory per round: the (n, n) Hessian, a few (P,)-sized work arrays, and the
        # question draws when resampling questions.
        n_clusters = 0 if cluster_cells is None else cluster_cells.shape[0]
        self._sizes = list(chunk_sizes(n_resamples, n * n + 8 * p + n_clusters))
        self._consumed = False
        self._pool: ThreadPoolExecutor | None = None
        self._ahead: Future[FloatArray] | None = None
        if len(self._sizes) > 1:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bt-draws")
            self._ahead = self._pool.submit(self._draw, self._sizes[0])

    def __enter__(self) -> RoundDraws:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Wait for a draw in flight and stop the background thread."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    @property
    def largest(self) -> int:
        """Rounds in the largest chunk."""
        return max(self._sizes, default=0)

    def __iter__(self) -> Iterator[RoundChunk]:
        """Each chunk in order (once); the next one is drawn while this one is used."""
        if self._consumed:
            raise RuntimeError("the rounds were already drawn")
        self._consumed = True
        pool, ahead = self._pool, self._ahead
        if pool is None or ahead is None:
            for size in self._sizes:
                counts = self._draw(size)
                checked: Future[RoundHealth] = Future()
                checked.set_result(self._check(counts))
                yield RoundChunk(counts, checked)
            return
        # The worker checks a chunk's rounds, then draws the next chunk, while the
        # caller solves this one.
        for following in [*self._sizes[1:], None]:
            counts = ahead.result()
            chunk = RoundChunk(counts, pool.submit(self._check, counts))
            if following is not None:
                ahead = pool.submit(self._draw, following)
            yield chunk

    def _draw(self, size: int) -> FloatArray:
        counts = _round_counts(self._data, self._cluster_cells, size, self._rng)
        return counts.reshape(size, -1, 3)

    def _check(self, counts: FloatArray) -> RoundHealth:
        return check_rounds(self._data, counts, self._anchor, check_mle=self._check_mle)


def check_rounds(
    data: PairData, counts: FloatArray, anchor: int, *, check_mle: bool
) -> RoundHealth:
    """:func:`round_health` of rounds given as ``(B, P, 3)`` pair counts."""
    score = counts[:, :, 0] + 0.5 * counts[:, :, 2]
    # Counts are whole numbers: summed exactly in any order, and this is faster than
    # a sum over the short last axis.
    total = counts[:, :, 0] + counts[:, :, 1] + counts[:, :, 2]
    return round_health(
        data.first, data.second, score, total, anchor, data.n_models, check_mle=check_mle
    )


SPLIT_MIN_CELLS = 1 << 18
"""A chunk with at least this many (round, pair) cells is solved in two halves, in two
threads (about 200 rounds of 50 models); a smaller one in one, as the hand-off costs
more than half its solve saves."""


def solve_rounds(
    rounds: RoundDraws,
    data: PairData,
    *,
    ties: Literal["half", "davidson"],
    l2: float,
    start: FloatArray,
) -> BootstrapDraws:
    """Refit the model on each round of ``rounds``.

    Args:
        rounds: The chunks of rounds, in order (see :class:`RoundDraws`).
        data: The merged battles.
        ties: ``"half"`` or ``"davidson"``.
        l2: Ridge strength.
        start: Full-data fit used as the warm start: ``(n,)``, or ``(n + 1,)``
            with ``kappa`` last for Davidson.

    Returns:
        The rounds' ratings.
    """
    n = data.n_models
    davidson = ties == "davidson"
    thetas: list[FloatArray] = []
    kappas: list[FloatArray] = []
    diverged: list[BoolArray] = []
    n_bad = 0
    # Built while the first chunk is drawn, and shared by every chunk and half.
    layout = NewtonLayout.of(data.first, data.second, n, start.size, rounds.largest)
    solve = partial(
        bt_newton, data.first, data.second, x0=start, l2=l2, davidson=davidson, layout=layout
    )
    # Starts its thread only if a chunk is split.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bt-newton") as helper:
        for chunk in rounds:
            fit = _in_halves(solve, chunk.counts, int(data.first.size), helper)
            theta = fit[:, :n]
            if davidson:
                kappas.append(fit[:, n])
            health = chunk.health
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


def _in_halves(
    solve: Callable[[FloatArray], tuple[FloatArray, BoolArray]],
    counts: FloatArray,
    n_pairs: int,
    helper: ThreadPoolExecutor,
) -> FloatArray:
    """``solve`` (:func:`bt_newton`) a chunk, its second half in ``helper`` when it is large.

    A round's fit does not depend on the other rounds of its batch (see
    :func:`bt_newton`), and its array operations and solves release the GIL, so
    the halves give the same numbers as the whole and can use two cores.
    """
    size = counts.shape[0]
    if size < 2 or size * n_pairs < SPLIT_MIN_CELLS or _cpus() < 2:
        return solve(counts)[0]
    half = (size + 1) // 2
    second = helper.submit(solve, counts[half:])
    first = solve(counts[:half])[0]
    return np.concatenate([first, second.result()[0]], axis=0)


def _cpus() -> int:
    """CPUs this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1
