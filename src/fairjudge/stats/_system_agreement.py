"""System-level agreement: does the judge rank the systems as the humans do?

Bradley-Terry ratings are fitted on the judge's verdicts and on the humans'
verdicts over the same battles, and the two rankings are correlated, with battles
(or questions) resampled jointly so that the interval carries both fits'
uncertainty.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
import scipy.sparse as sp

from fairjudge._errors import InputError
from fairjudge.stats._arrays import FloatArray
from fairjudge.stats._bradley_terry import bt_lbfgs
from fairjudge.stats._bt_data import check_identified, encode_battles, pair_data
from fairjudge.stats._bt_solvers import bt_newton
from fairjudge.stats._leaderboard import ELO_SCALE
from fairjudge.stats._rank_stats import RankCorrelation, correlation_fields, rank_corr_rows
from fairjudge.stats._resample import BootstrapOptions, plan_bootstrap
from fairjudge.stats._validate import check_non_negative, check_outcomes, check_same_length

__all__ = ["SystemAgreementResult", "system_agreement"]


@dataclass(frozen=True, slots=True)
class SystemAgreementResult(RankCorrelation):
    """How well the judge's ranking of systems matches the humans' ranking.

    ``spearman`` and ``kendall`` correlate the two sets of Bradley-Terry ratings;
    they and the bootstrap's options are described on
    :class:`._rank_stats.RankCorrelation`.

    Attributes:
        judge_ratings: ``(model, rating)`` from the judge's verdicts, Elo scale,
            mean 1000, best first.
        human_ratings: The same from the human labels.
        n_models: Systems ranked.
        n_battles: Battles with both a judge verdict and a human label.
    """

    judge_ratings: tuple[tuple[str, float], ...]
    human_ratings: tuple[tuple[str, float], ...]
    n_models: int
    n_battles: int

    def summary(self) -> str:
        """The two rankings side by side and their correlations."""
        width = max(5, *(len(m) for m, _ in self.judge_ratings))
        human = dict(self.human_ratings)
        lines = [
            f"System-level agreement: {self.n_models} systems, {self.n_battles} battles "
            f"({self.n_resamples} resamples, seed {self.seed})",
            *self.correlation_lines(),
            f"  {'model':<{width}}  {'judge':>7}  {'human':>7}",
        ]
        lines += [f"  {m:<{width}}  {r:7.1f}  {human[m]:7.1f}" for m, r in self.judge_ratings]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            **self.correlation_dict(),
            "judge_ratings": [{"model": m, "rating": r} for m, r in self.judge_ratings],
            "human_ratings": [{"model": m, "rating": r} for m, r in self.human_ratings],
            "n_models": self.n_models,
            "n_battles": self.n_battles,
        }


def system_agreement(
    model_a: Sequence[str],
    model_b: Sequence[str],
    judge: Sequence[str],
    human: Sequence[str],
    *,
    l2: float = 0.0,
    **options: Unpack[BootstrapOptions],
) -> SystemAgreementResult:
    """Correlate the system ranking implied by the judge with the one implied by humans.

    Both rankings are Bradley-Terry fits (ties as half a win) on the same battles;
    each bootstrap round resamples battles (or questions) once and refits both. A
    system that draws no battle in a round keeps its full-data rating there.

    Args:
        model_a: The first system of each battle.
        model_b: The second system of each battle.
        judge: The judge's verdict per battle: ``"1"``, ``"2"`` or ``"tie"``.
        human: The human label per battle, same vocabulary.
        l2: Ridge strength of both fits (needed when a system never lost).
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`); each round resamples once
            for both fits.

    Returns:
        The correlations with their intervals, and both sets of ratings.

    Raises:
        InputError: Bad battles, fewer than 3 systems, or ratings that are not
            identified (see :func:`bradley_terry`).
        ConfigError: A bad option.
    """
    models, a, b, j_codes = encode_battles(model_a, model_b, judge)
    check_same_length(model_a=model_a, human=human)
    h_codes = check_outcomes("human", human)
    if len(models) < 3:
        raise InputError(f"model_a/model_b name {len(models)} systems; a ranking needs at least 3")
    l2 = check_non_negative("l2", l2)
    n, m = len(models), a.size
    plan = plan_bootstrap(m, options)
    fits = []
    for name, codes in (("judge", j_codes), ("human", h_codes)):
        data = pair_data(n, a, b, codes)
        check_identified(data, models, 0, l2, name=name)
        fits.append((data, bt_lbfgs(data.first, data.second, data.counts, n, l2)))
    point = rank_corr_rows(fits[0][1][None], fits[1][1][None])[0]

    cells = [
        sp.csr_array(
            (np.ones(m), (plan.clusters, data.cells)), shape=(plan.n_clusters, data.n_cells)
        )
        for data, _ in fits
    ]
    boot: list[FloatArray] = []
    for draws in plan.draws(2 * plan.n_clusters + 2 * n * n):
        thetas = []
        for (data, start), c in zip(fits, cells, strict=True):
            counts = np.asarray((c.T @ draws.T).T).reshape(draws.shape[0], -1, 3)
            theta, _ = bt_newton(data.first, data.second, counts, start, l2=l2)
            thetas.append(theta)
        boot.append(rank_corr_rows(thetas[0], thetas[1]))

    def board(theta: FloatArray) -> tuple[tuple[str, float], ...]:
        elo = 1000.0 + ELO_SCALE * (theta - theta.mean())
        order = sorted(range(n), key=lambda i: (-elo[i], models[i]))
        return tuple((models[i], float(elo[i])) for i in order)

    return SystemAgreementResult(
        **correlation_fields(point, np.concatenate(boot), plan),
        judge_ratings=board(fits[0][1]),
        human_ratings=board(fits[1][1]),
        n_models=n,
        n_battles=m,
    )
