"""The pipelined Bradley-Terry bootstrap gives the rounds of the plain chunk-by-chunk loop.

Drawing the next chunk in a background thread and solving large chunks in two halves
must not change a bit: the same generator calls in the same order, and each round's
Newton fit independent of the other rounds of its batch. The reference here is the
plain loop the pipeline replaced: draw a chunk, solve it whole, check its rounds.
"""

from __future__ import annotations

import threading
from typing import Any, Literal

import numpy as np
import pytest
import scipy.sparse as sp

from fairjudge.stats import _bt_bootstrap, _resample
from fairjudge.stats._bradley_terry import bt_lbfgs, davidson_lbfgs
from fairjudge.stats._bt_bootstrap import BootstrapDraws, PairData, round_health
from fairjudge.stats._bt_data import encode_battles, pair_data
from fairjudge.stats._bt_solvers import bt_newton
from fairjudge.stats._resample import chunk_sizes
from tests.stats._bootstrap import bootstrap_thetas
from tests.stats._sim import battles

THETA = np.array([0.0, 2.5, -2.0, 1.0, 4.0])  # far apart: some rounds have no finite maximum


def _data(n_battles: int, seed: int) -> tuple[PairData, sp.csr_array]:
    a, b, o = battles(THETA, n_battles, seed=seed, tie=0.2)
    models, ia, ib, codes = encode_battles(a, b, o)
    data = pair_data(len(models), ia, ib, codes)
    questions = np.arange(n_battles) % 17
    cells = sp.csr_array((np.ones(n_battles), (questions, data.cells)), shape=(17, data.n_cells))
    cells.sum_duplicates()
    return data, cells


def _start(data: PairData, ties: str, l2: float) -> Any:
    if ties == "half":
        return bt_lbfgs(data.first, data.second, data.counts, data.n_models, l2)
    return davidson_lbfgs(data.first, data.second, data.counts, data.n_models, l2)


def _one_by_one(
    data: PairData,
    cluster_cells: sp.csr_array | None,
    ties: Literal["half", "davidson"],
    l2: float,
    start: Any,
    n_resamples: int,
    seed: int,
) -> BootstrapDraws:
    """The plain loop: draw each chunk, solve it whole, then check its rounds."""
    rng = np.random.default_rng(seed)
    n, p = data.n_models, int(data.first.size)
    n_clusters = 0 if cluster_cells is None else cluster_cells.shape[0]
    thetas, kappas, diverged, n_bad = [], [], [], 0
    for size in chunk_sizes(n_resamples, n * n + 8 * p + n_clusters):
        if cluster_cells is None:
            flat = _bt_bootstrap.multinomial_counts(data.counts.reshape(-1), size, rng)
        else:
            draws = _resample.cluster_draws(n_clusters, size, rng)
            flat = np.asarray((cluster_cells.T @ draws.T).T, dtype=np.float64)
        counts = flat.reshape(size, p, 3)
        fit, _ = bt_newton(
            data.first, data.second, counts, start, l2=l2, davidson=ties == "davidson"
        )
        theta = fit[:, :n]
        if ties == "davidson":
            kappas.append(fit[:, n])
        score = counts[:, :, 0] + 0.5 * counts[:, :, 2]
        health = round_health(
            data.first, data.second, score, counts.sum(axis=2), 0, n, check_mle=l2 == 0.0
        )
        theta[health.unidentified] = np.nan
        n_bad += int(health.degenerate.sum())
        thetas.append(theta)
        diverged.append(health.diverged)
    return BootstrapDraws(
        theta=np.concatenate(thetas),
        kappa=np.concatenate(kappas) if kappas else None,
        diverged=np.concatenate(diverged),
        n_degenerate=n_bad,
    )


def _assert_same(got: BootstrapDraws, want: BootstrapDraws) -> None:
    assert got.theta.tobytes() == want.theta.tobytes()  # NaNs included, bit for bit
    assert (got.kappa is None) == (want.kappa is None)
    if got.kappa is not None and want.kappa is not None:
        assert got.kappa.tobytes() == want.kappa.tobytes()
    assert np.array_equal(got.diverged, want.diverged)
    assert got.n_degenerate == want.n_degenerate


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of a few dozen rounds, every one solved in two halves, in two threads."""
    monkeypatch.setattr(_resample, "_CELL_BUDGET", 2_000)
    monkeypatch.setattr(_bt_bootstrap, "SPLIT_MIN_CELLS", 1)
    monkeypatch.setattr(_bt_bootstrap, "_cpus", lambda: 2)


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize(
    ("ties", "l2", "questions"),
    [("half", 0.0, False), ("half", 0.0, True), ("half", 0.5, False), ("davidson", 0.0, False)],
)
def test_pipelined_rounds_are_the_one_by_one_rounds(
    ties: Literal["half", "davidson"], l2: float, questions: bool
) -> None:
    data, cells = _data(150, seed=2)
    cluster_cells = cells if questions else None
    start = _start(data, ties, l2)
    n_resamples = 333
    assert len(list(chunk_sizes(n_resamples, data.n_models**2 + 8 * data.first.size))) > 5
    want = _one_by_one(data, cluster_cells, ties, l2, start, n_resamples, seed=7)
    got = bootstrap_thetas(
        data,
        cluster_cells=cluster_cells,
        ties=ties,
        l2=l2,
        start=start,
        anchor=0,
        n_resamples=n_resamples,
        rng=np.random.default_rng(7),
    )
    _assert_same(got, want)
    if l2 == 0.0 and ties == "half":
        assert got.n_degenerate > 0  # the degenerate rounds are among those compared


def test_large_chunks_are_split_and_drawn_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two chunks of 300 rounds, each solved in halves, and a last one of 10, solved whole.
    data, _ = _data(3_000, seed=3)
    per_round = data.n_models**2 + 8 * data.first.size
    monkeypatch.setattr(_resample, "_CELL_BUDGET", 300 * per_round)
    monkeypatch.setattr(_bt_bootstrap, "SPLIT_MIN_CELLS", 200 * data.first.size)
    monkeypatch.setattr(_bt_bootstrap, "_cpus", lambda: 2)
    n_resamples = 610
    threads: dict[str, set[str]] = {"draw": set(), "solve": set()}
    draw, solve = _bt_bootstrap._round_counts, _bt_bootstrap.bt_newton

    def drawing(*args: Any, **kwargs: Any) -> Any:
        threads["draw"].add(threading.current_thread().name)
        return draw(*args, **kwargs)

    def solving(*args: Any, **kwargs: Any) -> Any:
        threads["solve"].add(threading.current_thread().name)
        return solve(*args, **kwargs)

    monkeypatch.setattr(_bt_bootstrap, "_round_counts", drawing)
    monkeypatch.setattr(_bt_bootstrap, "bt_newton", solving)
    start = _start(data, "half", 0.0)
    got = bootstrap_thetas(
        data,
        cluster_cells=None,
        ties="half",
        l2=0.0,
        start=start,
        anchor=0,
        n_resamples=n_resamples,
        rng=np.random.default_rng(11),
    )
    assert {name.split("_")[0] for name in threads["draw"]} == {"bt-draws"}
    assert {name.split("_")[0] for name in threads["solve"]} == {"MainThread", "bt-newton"}
    monkeypatch.setattr(_bt_bootstrap, "bt_newton", solve)
    _assert_same(got, _one_by_one(data, None, "half", 0.0, start, n_resamples, seed=11))
    assert not [t for t in threading.enumerate() if t.name.startswith(("bt-draws", "bt-newton"))]


def test_a_small_bootstrap_starts_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    data, _ = _data(150, seed=4)
    names: set[str] = set()
    solve = _bt_bootstrap.bt_newton

    def solving(*args: Any, **kwargs: Any) -> Any:
        names.add(threading.current_thread().name)
        return solve(*args, **kwargs)

    monkeypatch.setattr(_bt_bootstrap, "bt_newton", solving)
    before = threading.active_count()
    bootstrap_thetas(
        data,
        cluster_cells=None,
        ties="half",
        l2=0.0,
        start=_start(data, "half", 0.0),
        anchor=0,
        n_resamples=200,
        rng=np.random.default_rng(0),
    )
    assert names == {"MainThread"}
    assert threading.active_count() == before


@pytest.mark.usefixtures("small_chunks")
def test_an_error_in_a_draw_reaches_the_caller_and_stops_the_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data, _ = _data(150, seed=5)
    draw = _bt_bootstrap._round_counts
    calls = []

    def failing(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError("no room for this chunk")
        return draw(*args, **kwargs)

    monkeypatch.setattr(_bt_bootstrap, "_round_counts", failing)
    with pytest.raises(MemoryError, match="no room"):
        bootstrap_thetas(
            data,
            cluster_cells=None,
            ties="half",
            l2=0.0,
            start=_start(data, "half", 0.0),
            anchor=0,
            n_resamples=300,
            rng=np.random.default_rng(0),
        )
    assert len(calls) == 3  # nothing drawn after the failure
    assert not [t for t in threading.enumerate() if t.name.startswith(("bt-draws", "bt-newton"))]
