"""Bradley-Terry fit + 1,000 bootstrap rounds: fairjudge against two reference approaches.

Data: 200,000 synthetic battles among 50 models (true ratings ~ N(0, 1) log-odds),
10% ties, each battle on one of 1,000 questions.

Timed in one run, same process, same data:

- ``fairjudge``: ``bradley_terry(..., n_resamples=1000)``, end to end (validation,
  fit, bootstrap, intervals), resampling battles. With more than one chunk of
  rounds it uses up to three threads: the next chunk is drawn while the current one
  is solved, in two halves (:mod:`fairjudge.stats._bt_bootstrap`). Run
  ``--repeats`` times (default 5): the median is shown, the best beside it, and each
  run must give the same result.
- ``fairjudge, clustered``: the same, resampling questions.
- ``modern reference``: FastChat's current ``compute_bootstrap_bt``
  (``rating_systems.py``), reimplemented faithfully: battles merged into unique
  (model_a, model_b, outcome) rows, one ``rng.multinomial`` draw of all rounds'
  weights, then one scipy L-BFGS-B fit per round (analytic gradient, ``gtol=1e-6``,
  ``maxiter=100``) in a ``multiprocessing.Pool`` of ``os.cpu_count()`` workers, each
  capped at one BLAS thread (:func:`_common.limit_blas_threads`). This is its best
  configuration, and the ratios are stated against it.
- ``modern reference, as FastChat ships it``: the same code with no cap, as
  ``compute_bootstrap_bt`` runs out of the box. Each forked worker keeps the one
  BLAS thread per core numpy and scipy start with, so on 2 cores two workers run four
  busy threads and the run takes several times longer. Shown for reference only.
  The best configuration is run ``--reference-repeats`` times (default 3), this one
  ``--shipped-repeats`` times (default 1: on a loaded 2-core machine one run can
  take two minutes; 0 leaves it out), taking turns; medians are shown. They fit the
  same rounds, so their intervals are compared as a check.
- ``classic reference``: one scikit-learn ``LogisticRegression`` per round on a
  dense design matrix of resampled battles (ties as one win each way, battles
  duplicated), as in FastChat's older ``elo_analysis.py`` and Arena-Hard-Auto
  v0.1. Only a few rounds are timed; the 1,000-round figure is extrapolated.

Accuracy: fairjudge's point ratings and a sample of its bootstrap rounds are
compared with an independent exact maximum (a plain dense Newton on the anchored
problem, iterated until the step is below 1e-13).

Run: ``python benchmarks/bench_bt.py`` (``--quick`` for a smaller smoke run).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import multiprocessing as mp
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import blas_threads, environment, limit_blas_threads, table, write_json

from fairjudge.stats._bradley_terry import bradley_terry
from fairjudge.stats._bt_bootstrap import multinomial_counts
from fairjudge.stats._bt_data import encode_battles, pair_data
from fairjudge.stats._bt_solvers import bt_newton
from fairjudge.stats._leaderboard import ELO_SCALE

ALPHA = math.log(10.0)


def simulate(
    n_models: int, n_battles: int, tie_rate: float, n_questions: int, seed: int
) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = rng.integers(0, n_models - 1, n_battles)
    b = b + (b >= a)
    tie = rng.random(n_battles) < tie_rate
    a_wins = rng.random(n_battles) < expit(theta[a] - theta[b])
    names = [f"model-{i:02d}" for i in range(n_models)]
    outcomes = np.where(tie, "tie", np.where(a_wins, "1", "2"))
    return {
        "model_a": [names[i] for i in a],
        "model_b": [names[i] for i in b],
        "outcomes": outcomes.tolist(),
        "questions": rng.integers(0, n_questions, n_battles).tolist(),
    }


# --- modern reference: FastChat rating_systems.py, compute_bootstrap_bt -------------


def ref_preprocess(model_a: list[str], model_b: list[str], outcomes: list[str]) -> tuple[Any, ...]:
    models = list(dict.fromkeys(model_a + model_b))  # pd.factorize order
    idx = {m: i for i, m in enumerate(models)}
    schedule = np.full((len(model_a), 3), 1, dtype=np.int32)
    schedule[:, 0] = [idx[m] for m in model_a]
    schedule[:, 1] = [idx[m] for m in model_b]
    out = np.asarray(outcomes)
    schedule[out == "1", 2] = 2
    schedule[out == "2", 2] = 0
    matchups_outcomes, weights = np.unique(schedule, return_counts=True, axis=0)
    matchups = matchups_outcomes[:, [0, 1]]
    return (
        matchups,
        matchups_outcomes[:, 2].astype(np.float64) / 2.0,
        models,
        weights.astype(np.float64),
    )


def ref_loss_and_grad(
    ratings: NDArray[np.float64], matchups: Any, outcomes: Any, weights: Any, alpha: float
) -> Any:
    matchup_ratings = ratings[matchups]
    logits = alpha * (matchup_ratings[:, 0] - matchup_ratings[:, 1])
    probs = expit(logits)
    loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes)) * weights).sum()
    matchups_grads = -alpha * (outcomes - probs) * weights
    model_grad = np.zeros_like(ratings)
    np.add.at(model_grad, matchups[:, [0, 1]], matchups_grads[:, None] * np.array([1.0, -1.0]))
    return loss, model_grad


def ref_fit_bt(
    matchups: Any, outcomes: Any, weights: Any, n_models: int, alpha: float, tol: float = 1e-6
) -> Any:
    res = minimize(
        fun=ref_loss_and_grad,
        x0=np.zeros(n_models),
        args=(matchups, outcomes, weights, alpha),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 100, "gtol": tol},  # FastChat also passes disp=False (deprecated)
    )
    return res["x"]


def _one_blas_thread() -> None:
    """Pool initializer: this worker's BLAS runs on one thread (the pool is the parallelism)."""
    limit_blas_threads(1)


def _worker_blas_threads(_: object) -> list[int]:
    return blas_threads()


def ref_bootstrap(
    model_a: list[str],
    model_b: list[str],
    outcomes: list[str],
    num_round: int,
    *,
    one_blas_thread: bool = True,
) -> tuple[Any, ...]:
    """FastChat's ``compute_bootstrap_bt``; ``one_blas_thread=False`` runs it as shipped.

    Returns the rounds, the point fit, the models and the BLAS thread counts one worker
    reported (one per BLAS library loaded; empty when they cannot be read).
    """
    matchups, outs, models, weights = ref_preprocess(model_a, model_b, outcomes)
    rng = np.random.default_rng(seed=0)
    idxs = rng.multinomial(n=len(model_a), pvals=weights / weights.sum(), size=num_round)
    boot_weights = idxs.astype(np.float64) / len(model_a)
    fn = partial(ref_fit_bt, matchups, outs, n_models=len(models), alpha=ALPHA)
    initializer = _one_blas_thread if one_blas_thread else None
    with mp.Pool(os.cpu_count(), initializer=initializer) as pool:
        results = list(pool.imap_unordered(fn, boot_weights))
        threads = pool.apply(_worker_blas_threads, (None,))  # after the work: no cost to it
    point = ref_fit_bt(matchups, outs, weights, len(models), ALPHA)
    return np.array(results), point, models, threads


def time_references(
    battles: tuple[list[str], list[str], list[str]], rounds: int, repeats: int, shipped: int
) -> dict[str, Any]:
    """The modern reference with one BLAS thread per worker and as shipped, taking turns.

    Runs the first ``repeats`` times (at least once) and the second ``shipped`` times.
    Returns, for each (``"fair"``, ``"shipped"``): the times, the last run's rounds,
    point fit and models, and the BLAS thread counts a worker reported.
    """
    runs: dict[str, dict[str, Any]] = {"fair": {"times": []}, "shipped": {"times": []}}
    wanted = {"fair": max(1, repeats), "shipped": max(0, shipped)}
    for i in range(max(wanted.values())):
        for name, run in runs.items():
            if i >= wanted[name]:
                continue
            t0 = time.perf_counter()
            rounds_, point, models, threads = ref_bootstrap(
                *battles, num_round=rounds, one_blas_thread=name == "fair"
            )
            run["times"].append(time.perf_counter() - t0)
            run.update(rounds=rounds_, point=point, models=models, threads=threads)
    return runs


def _threads_note(threads: list[int]) -> str:
    """``"1 BLAS thread each"``, from what a worker reported."""
    if not threads:
        return "BLAS threads unknown"
    counts = sorted(set(threads))
    per = "/".join(str(c) for c in counts)
    return f"{per} BLAS thread{'s' if counts != [1] else ''} each"


# --- classic reference: sklearn LogisticRegression on a battle design matrix ---------


def classic_fit(
    a: NDArray[np.intp], b: NDArray[np.intp], codes: NDArray[np.intp], n_models: int
) -> Any:
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    # FastChat compute_elo_mle_with_tie: duplicate battles; a tie is one win each way.
    a2, b2 = np.concatenate([a, a]), np.concatenate([b, b])
    n = a2.size
    x = np.zeros((n, n_models))
    x[np.arange(n), a2] = +ALPHA
    x[np.arange(n), b2] = -ALPHA
    y = np.zeros(n)
    y[np.concatenate([codes == 0, codes == 0])] = 1.0
    tie_first_half = np.concatenate([codes == 2, np.zeros(codes.size, dtype=bool)])
    y[tie_first_half] = 1.0
    lr = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-6)  # C=inf: no penalty
    lr.fit(x, y)
    return lr.coef_[0]


def classic_rounds(
    a: NDArray[np.intp], b: NDArray[np.intp], codes: NDArray[np.intp], n_models: int, rounds: int
) -> float:
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(rounds):
        idx = rng.integers(0, a.size, a.size)
        classic_fit(a[idx], b[idx], codes[idx], n_models)
    return time.perf_counter() - t0


# --- independent exact maximum --------------------------------------------------------


def exact_mle(first: Any, second: Any, counts: Any, n: int) -> NDArray[np.float64]:
    """Plain dense Newton on the anchored problem (model 0 fixed at 0), to full precision.

    Written independently of fairjudge's solver: anchored instead of gauge-fixed,
    one problem at a time, Hessian assembled with ``np.add.at``.
    """
    s = counts[:, 0] + 0.5 * counts[:, 2]
    t = counts.sum(axis=1)
    theta = np.zeros(n)
    for _ in range(200):
        q = expit(theta[first] - theta[second])
        r = s - t * q
        grad = np.bincount(first, r, n) - np.bincount(second, r, n)
        w = t * q * (1 - q)
        hess = np.zeros((n, n))
        np.add.at(hess, (first, second), -w)
        np.add.at(hess, (second, first), -w)
        hess[np.arange(n), np.arange(n)] = np.bincount(first, w, n) + np.bincount(second, w, n)
        step = np.linalg.solve(hess[1:, 1:], grad[1:])
        theta[1:] += step
        if np.abs(step).max() < 1e-13:  # quadratic convergence: nothing left to gain
            return theta
    raise RuntimeError("exact fit did not converge")


def _ratio(num: float, den: float, spec: str) -> str:
    """``num / den`` as ``"12x"``, or ``"-"`` when either was not measured."""
    return f"{num / den:{spec}}x" if math.isfinite(num) and math.isfinite(den) else "-"


def _measured(x: float) -> float | None:
    """``x``, or ``None`` (JSON ``null``) when it was not measured."""
    return x if math.isfinite(x) else None


def to_elo(theta: NDArray[np.float64], anchor: int = 0) -> NDArray[np.float64]:
    return 1000.0 + ELO_SCALE * (
        theta - theta[..., [anchor]] if theta.ndim == 2 else theta - theta[anchor]
    )


def _repeat(n: int, fit: Callable[[], Any]) -> tuple[Any, list[float]]:
    """Run ``fit`` ``n`` times: its result (the same every time, checked) and the times."""
    times, results = [], []
    for _ in range(max(1, n)):
        t0 = time.perf_counter()
        results.append(fit())
        times.append(time.perf_counter() - t0)
    first = repr(results[0].to_dict(include_bootstrap=True))
    if any(repr(r.to_dict(include_bootstrap=True)) != first for r in results[1:]):
        raise SystemExit("the same fit with the same seed gave another result")
    return results[0], times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 battles, 100 rounds")
    parser.add_argument("--classic-rounds", type=int, default=5)
    parser.add_argument(
        "--repeats", type=int, default=5, help="fairjudge fits timed (the median is shown)"
    )
    parser.add_argument(
        "--reference-repeats",
        type=int,
        default=3,
        help="modern reference runs timed, best configuration (the median is shown)",
    )
    parser.add_argument(
        "--shipped-repeats",
        type=int,
        default=1,
        help="modern reference runs timed as FastChat ships it (0: left out)",
    )
    args = parser.parse_args()
    n_battles, rounds = (20_000, 100) if args.quick else (200_000, 1000)
    n_models, tie_rate, n_questions = 50, 0.10, 1000
    data = simulate(n_models, n_battles, tie_rate, n_questions, seed=2024)
    a_ = data["model_a"], data["model_b"], data["outcomes"]

    # Warm up: fault in memory and import everything once, so the first timing is fair.
    bradley_terry(*[x[:5000] for x in a_], n_resamples=50, seed=1)

    ours, times = _repeat(args.repeats, lambda: bradley_terry(*a_, n_resamples=rounds, seed=0))
    ours_q, times_q = _repeat(
        args.repeats,
        lambda: bradley_terry(*a_, questions=data["questions"], n_resamples=rounds, seed=0),
    )
    t_ours, t_ours_q = statistics.median(times), statistics.median(times_q)

    refs = time_references(a_, rounds, args.reference_repeats, args.shipped_repeats)
    fair, shipped = refs["fair"], refs["shipped"]
    t_modern = statistics.median(fair["times"])
    t_shipped = statistics.median(shipped["times"]) if shipped["times"] else math.nan
    ref_rounds, ref_point, ref_models = fair["rounds"], fair["point"], fair["models"]

    models, ia, ib, codes = encode_battles(*a_)
    # The classic reference needs scikit-learn; without it (or --classic-rounds 0) it is
    # left out and its columns say so.
    t_classic = t_classic_1000 = math.nan
    if args.classic_rounds > 0 and importlib.util.find_spec("sklearn") is not None:
        t_classic = classic_rounds(ia, ib, codes, len(models), args.classic_rounds)
        t_classic_1000 = t_classic / args.classic_rounds * rounds

    # Accuracy against an independent exact maximum: the point fit ...
    pdata = pair_data(len(models), ia, ib, codes)
    exact = to_elo(exact_mle(pdata.first, pdata.second, pdata.counts, len(models)))
    ours_elo = np.array([ours.rating(m).rating for m in models])
    point_diff = float(np.abs(ours_elo - exact).max())
    ref_map = [ref_models.index(m) for m in models]
    # FastChat fits on the log10 scale: Elo = 400 * rating + offset.
    ref_elo = 1000.0 + 400.0 * (ref_point[ref_map] - ref_point[ref_map][0])
    ref_point_diff = float(np.abs(ref_elo - exact).max())

    # ... and bootstrap rounds: our batched solver vs the exact fit, on the same counts.
    rng = np.random.default_rng(7)
    sample = multinomial_counts(pdata.counts.reshape(-1), 20, rng).reshape(20, -1, 3)
    start = np.log(10.0) / 400.0 * (ours_elo - ours_elo.mean())
    batched, _ = bt_newton(pdata.first, pdata.second, sample, start, l2=0.0)
    round_diff = 0.0
    for k in range(sample.shape[0]):
        ex = to_elo(exact_mle(pdata.first, pdata.second, sample[k], len(models)))
        round_diff = max(round_diff, float(np.abs(to_elo(batched[k]) - ex).max()))

    # Interval agreement with the modern reference (different random draws: Monte Carlo noise).
    def ref_interval(boot_rounds: Any) -> Any:
        elo = 1000.0 + 400.0 * (boot_rounds[:, ref_map] - boot_rounds[:, ref_map][:, [0]])
        return np.quantile(elo, [0.025, 0.975], axis=0)

    ref_lo, ref_hi = ref_interval(ref_rounds)
    # The two configurations fit the same rounds: only the BLAS threads differ.
    shipped_gap = math.nan
    if shipped["times"]:
        shipped_gap = float(np.abs(ref_interval(shipped["rounds"]) - [ref_lo, ref_hi]).max())
    ours_lo = np.array([ours.rating(m).ci.low for m in models])
    ours_hi = np.array([ours.rating(m).ci.high for m in models])
    ci_gap = float(max(np.abs(ours_lo - ref_lo).max(), np.abs(ours_hi - ref_hi).max()))
    q_width = np.array([ours_q.rating(m).ci.high - ours_q.rating(m).ci.low for m in models])
    width_ratio = float(np.median(q_width[1:] / (ours_hi - ours_lo)[1:]))  # [0] is the anchor

    def fits(times_: list[float]) -> str:
        if len(times_) == 1:
            return "1 run"
        return f"median of {len(times_)} (best {min(times_):.2f})"

    def seconds(x: float, spec: str = ".2f") -> str:
        return f"{x:{spec}}" if math.isfinite(x) else "-"

    pool = f"Pool({os.cpu_count()})"
    rows = [
        [
            "fairjudge (battles)",
            seconds(t_ours),
            _ratio(t_modern, t_ours, ".1f"),
            _ratio(t_shipped, t_ours, ".1f"),
            _ratio(t_classic_1000, t_ours, ".0f"),
            f"{fits(times)}, same result each time",
        ],
        [
            "fairjudge (questions)",
            seconds(t_ours_q),
            _ratio(t_modern, t_ours_q, ".1f"),
            _ratio(t_shipped, t_ours_q, ".1f"),
            _ratio(t_classic_1000, t_ours_q, ".0f"),
            f"{fits(times_q)}, same result each time",
        ],
        [
            "modern reference (FastChat L-BFGS)",
            seconds(t_modern),
            "1.0x",
            _ratio(t_shipped, t_modern, ".1f"),
            "",
            f"{fits(fair['times'])}; {pool}, {_threads_note(fair['threads'])}",
        ],
        [
            "  as FastChat ships it",
            seconds(t_shipped),
            _ratio(t_modern, t_shipped, ".2f"),
            "1.0x" if shipped["times"] else "-",
            "",
            f"{fits(shipped['times'])}; {pool}, {_threads_note(shipped['threads'])} "
            "(oversubscribed)"
            if shipped["times"]
            else "not run (--shipped-repeats 0)",
        ],
        [
            "classic reference (sklearn LR)",
            seconds(t_classic_1000, ".0f"),
            _ratio(t_modern, t_classic_1000, ".2f"),
            _ratio(t_shipped, t_classic_1000, ".2f"),
            "1x",
            f"{args.classic_rounds} rounds timed ({t_classic:.1f} s), "
            f"x{rounds // max(args.classic_rounds, 1)} extrapolated"
            if math.isfinite(t_classic)
            else "not run (scikit-learn is not installed, or --classic-rounds 0)",
        ],
    ]
    print(
        f"Bradley-Terry fit + {rounds} bootstrap rounds: {n_battles:,} battles, {n_models} models, "
        f"{tie_rate:.0%} ties, {n_questions} questions"
    )
    headers = ["approach", "seconds", "vs modern", "vs modern as shipped", "vs classic", "note"]
    print(table(headers, rows, left=(0, 5)))
    print(
        "vs modern: against FastChat's bootstrap in its best configuration (one BLAS thread"
        " per pool worker);\nvs modern as shipped: against the same code run out of the box,"
        " BLAS threads oversubscribed."
    )
    print()
    print(
        table(
            ["accuracy check", "max |Elo diff|"],
            [
                ["fairjudge point fit vs exact MLE", f"{point_diff:.2e}"],
                ["fairjudge bootstrap rounds vs exact MLE (20 rounds)", f"{round_diff:.2e}"],
                ["modern reference point fit vs exact MLE", f"{ref_point_diff:.2e}"],
                ["95% CI bounds: fairjudge vs modern reference (MC noise)", f"{ci_gap:.2f}"],
                ["95% CI bounds: modern reference, best vs as shipped", f"{shipped_gap:.2e}"],
            ],
        )
    )
    print(f"\nMedian CI width, questions / battles bootstrap: {width_ratio:.2f}")
    path = write_json(
        "bench_bt",
        {
            "config": {
                "n_battles": n_battles,
                "n_models": n_models,
                "tie_rate": tie_rate,
                "n_questions": n_questions,
                "rounds": rounds,
                "classic_rounds_timed": args.classic_rounds,
                "fairjudge_repeats": args.repeats,
                "reference_repeats": args.reference_repeats,
                "reference_pool_workers": os.cpu_count(),
                "reference_blas_threads_per_worker": fair["threads"],
                "reference_as_shipped_blas_threads_per_worker": shipped["threads"],
            },
            "seconds": {
                "fairjudge_battles": t_ours,
                "fairjudge_questions": t_ours_q,
                "modern_reference": t_modern,
                "modern_reference_as_shipped": _measured(t_shipped),
                "modern_reference_runs": fair["times"],
                "modern_reference_as_shipped_runs": shipped["times"],
                "classic_reference_extrapolated": _measured(t_classic_1000),
                "classic_reference_timed": _measured(t_classic),
                "fairjudge_battles_runs": times,
                "fairjudge_questions_runs": times_q,
            },
            "speedup_vs_modern": t_modern / t_ours,
            "speedup_vs_modern_as_shipped": _measured(t_shipped / t_ours),
            "speedup_vs_modern_questions": t_modern / t_ours_q,
            "speedup_vs_classic": _measured(t_classic_1000 / t_ours),
            "max_abs_elo_diff": {
                "point_vs_exact": point_diff,
                "bootstrap_rounds_vs_exact": round_diff,
                "modern_reference_point_vs_exact": ref_point_diff,
                "ci_bounds_vs_modern_reference": ci_gap,
                "modern_reference_ci_bounds_fair_vs_as_shipped": _measured(shipped_gap),
            },
            "median_ci_width_ratio_questions_over_battles": width_ratio,
            "environment": environment(),
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
