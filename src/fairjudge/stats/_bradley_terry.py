"""Bradley-Terry ratings on the Elo scale, with bootstrap and rank intervals.

The model is Chatbot Arena's: ``P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400))``,
fitted by maximum likelihood on all battles at once, so, unlike online Elo, the
order of the battles does not matter. Ties count as half a win and half a loss,
as in FastChat and Arena-Hard-Auto, unless ``ties="davidson"`` is asked for.

Where this differs from the references, on purpose:

- The fit is the exact maximum (Newton to machine precision, after L-BFGS when
  there are many models), and so is every bootstrap round (batched Newton; see
  :mod:`._bt_solvers`).
- The bootstrap is seeded, and clustered by question when questions are given.
- A dataset without a finite maximum (a model that never lost, models never
  compared) is an error that says so, not a silently huge rating, unless a ridge
  is asked for (``l2``) or allowed as a fallback (``fallback_l2``, as Chatbot
  Arena's tooling always fits with a small one). Then the models that only the
  ridge keeps finite are named, and their intervals are not estimable: they would
  measure the ridge. Bootstrap rounds without a finite maximum are counted per
  model, and an interval resting on too many of them is reported as not
  estimable, with the reason, instead of as numbers.
- Scores are anchored on a model of your choice (default: the first name in
  alphabetical order) at 1000. The anchor's own interval is therefore a point,
  and every other interval is relative to it, as in Chatbot Arena.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Unpack

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._bt_bootstrap import RoundDraws, solve_rounds
from fairjudge.stats._bt_data import encode_battles
from fairjudge.stats._bt_solvers import bt_newton, to_models
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._leaderboard import Leaderboard, check_fit_inputs, to_elo
from fairjudge.stats._resample import BootstrapOptions, nan_to_none
from fairjudge.stats._validate import FloatArray, IntArray

__all__ = ["LBFGS_MIN_MODELS", "BradleyTerryResult", "bradley_terry", "bt_lbfgs", "davidson_lbfgs"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BradleyTerryResult(Leaderboard):
    """A Bradley-Terry leaderboard with its uncertainty and everything needed to redo it.

    The shared fields (``ratings``, ``models``, ``anchor``, ``l2``, ``bootstrap``,
    ``seed``...) are described on :class:`._leaderboard.Leaderboard`.

    Attributes:
        ties: ``"half"`` or ``"davidson"``.
        tie_strength: Davidson's ``nu`` (``None`` for ``"half"``).
        tie_strength_ci: Its bootstrap interval (``None`` for ``"half"``).
        win_rate_matrix: ``(n, n)`` predicted expected score of row vs column
            (win + half a tie), rows and columns in ``models`` order.
        bootstrap_ratings: ``(n_resamples, n)`` bootstrap ratings on the Elo scale.
    """

    ties: Literal["half", "davidson"]
    tie_strength: float | None
    tie_strength_ci: ConfidenceInterval | None
    win_rate_matrix: FloatArray = field(compare=False, repr=False)
    bootstrap_ratings: FloatArray = field(compare=False, repr=False)

    def win_rate(self, model: str, opponent: str) -> float:
        """Predicted expected score of ``model`` against ``opponent`` (win + half a tie)."""
        idx = {m: i for i, m in enumerate(self.models)}
        for name in (model, opponent):
            if name not in idx:
                raise KeyError(f"model {name!r} is not in this leaderboard")
        return float(self.win_rate_matrix[idx[model], idx[opponent]])

    def summary(self) -> str:
        """A plain-text leaderboard."""
        lines = [
            f"Bradley-Terry ({self.ties} ties), {self.n_battles} battles, "
            f"{self.n_resamples} bootstrap rounds over {self.bootstrap}, seed {self.seed}; "
            f"{self.anchor} pinned at {self.anchor_rating:g}",
            *self.table_lines(),
        ]
        if self.tie_strength is not None and self.tie_strength_ci is not None:
            lines.append(
                f"Davidson tie strength nu = {self.tie_strength:.3f} {self.tie_strength_ci}"
            )
        return "\n".join(lines)

    def to_dict(self, *, include_bootstrap: bool = False) -> dict[str, Any]:
        """JSON-ready form; ``include_bootstrap`` adds the per-round ratings."""
        out = self.leaderboard_dict()
        out["ties"] = self.ties
        out["tie_strength"] = self.tie_strength
        out["tie_strength_ci"] = (
            None if self.tie_strength_ci is None else self.tie_strength_ci.to_dict()
        )
        out["win_rate_matrix"] = self.win_rate_matrix.tolist()
        if include_bootstrap:
            out["bootstrap_ratings"] = [
                [nan_to_none(x) for x in row] for row in self.bootstrap_ratings.tolist()
            ]
        return out


def _win_matrix(theta: FloatArray, kappa: float | None) -> FloatArray:
    d = theta[:, None] - theta[None, :]
    if kappa is None:
        out: FloatArray = expit(d)
        return out
    log_z = np.logaddexp(np.logaddexp(0.5 * d, -0.5 * d), kappa)
    return np.exp(0.5 * d - log_z) + 0.5 * np.exp(kappa - log_z)


def bradley_terry(
    model_a: Sequence[str],
    model_b: Sequence[str],
    outcomes: Sequence[str],
    *,
    ties: Literal["half", "davidson"] = "half",
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    l2: float = 0.0,
    fallback_l2: float | None = None,
    **options: Unpack[BootstrapOptions],
) -> BradleyTerryResult:
    """Fit Bradley-Terry ratings with bootstrap confidence intervals.

    Args:
        model_a: The first model of each battle.
        model_b: The second model of each battle.
        outcomes: ``"1"`` (model A won), ``"2"`` (model B won) or ``"tie"``;
            :class:`fairjudge.Outcome` members work too.
        ties: ``"half"`` counts a tie as half a win (Chatbot Arena); ``"davidson"``
            fits Davidson's (1970) tie model, in which ties inform a separate tie
            strength instead; it needs at least one tie.
        anchor: The model pinned at ``anchor_rating``; default: the first model in
            alphabetical order.
        anchor_rating: Its rating.
        l2: Ridge penalty ``l2 / 2 * sum(theta**2)`` on the log-odds ratings, added
            to the negative log-likelihood summed over battles. Zero fits the plain
            maximum likelihood; a small value (0.01-1) keeps ratings finite when a
            model never lost (``--l2`` on the command line).
        fallback_l2: The ridge to fit with instead when ``l2`` is 0 and the battles
            have no finite maximum (a group of models never lost, or never won,
            against the rest); the result says so (``l2_fallback``). ``None`` (the
            default) refuses such battles with an :class:`InputError`.
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`). With ``questions``, each
            round resamples questions with all their battles.

    Returns:
        The leaderboard, best first. A rating's (and rank's) interval is not
        estimable, with the reason, when more than ``(1 - level) / 4`` of the rounds
        had no finite maximum for it, or when there is a single question. When the
        battles have no finite maximum, the models the ridge alone keeps finite are
        listed in ``held_by_ridge`` and their rating intervals are not estimable.

    Raises:
        InputError: Bad battles, a model never compared with the others, or
            (with ``l2=0`` and no ``fallback_l2``) data with no finite maximum; the
            message names the fix.
        ConfigError: A bad option.

    Example:
        >>> r = bradley_terry(["x", "x", "y"], ["y", "y", "x"], ["1", "2", "2"],
        ...                   n_resamples=50)
        >>> r.ratings[0].model
        'x'
    """
    models, a, b, codes = encode_battles(model_a, model_b, outcomes)
    n_models = len(models)
    if ties not in ("half", "davidson"):
        raise ConfigError(f"ties must be 'half' or 'davidson'; got {ties!r}")
    fit = check_fit_inputs(models, (a, b, codes), anchor, anchor_rating, l2, fallback_l2, options)
    anchor_idx, plan, data, found = fit
    l2 = found.l2
    if ties == "davidson" and data.counts[:, 2].sum() == 0:
        raise InputError("outcomes: ties='davidson' needs at least one 'tie'; use ties='half'")

    cluster_cells: sp.csr_array | None = None
    if plan.n_questions is not None:
        cluster_cells = sp.csr_array(
            (np.ones(a.size), (plan.clusters, data.cells)), shape=(plan.n_clusters, data.n_cells)
        )
        cluster_cells.sum_duplicates()

    # The first rounds are drawn (in the background) while the full data are fitted.
    with RoundDraws(
        data,
        cluster_cells=cluster_cells,
        anchor=anchor_idx,
        check_mle=l2 == 0.0,
        n_resamples=plan.n_resamples,
        rng=np.random.default_rng(plan.seed),
    ) as rounds:
        kappa: float | None = None
        if ties == "half":
            start = bt_lbfgs(data.first, data.second, data.counts, n_models, l2)
            theta = start
        else:
            start = davidson_lbfgs(data.first, data.second, data.counts, n_models, l2)
            theta, kappa = start[:n_models], float(start[n_models])
        draws = solve_rounds(rounds, data, ties=ties, l2=l2, start=start)
    boot = to_elo(draws.theta, anchor_idx, anchor_rating)
    tie_strength = tie_ci = None
    if kappa is not None and draws.kappa is not None:
        tie_strength = math.exp(kappa)
        (tie_ci,) = plan.intervals(np.exp(draws.kappa))
    return BradleyTerryResult.from_bootstrap(
        models,
        to_elo(theta, anchor_idx, anchor_rating),
        boot,
        draws,
        fit,
        anchor_rating=anchor_rating,
        ties=ties,
        tie_strength=tie_strength,
        tie_strength_ci=tie_ci,
        win_rate_matrix=_win_matrix(theta, kappa),
        bootstrap_ratings=boot,
    )


# -- the full-data fits, from zero: L-BFGS to get close, Newton to finish ----------------
# The bootstrap rounds start from these fits and need only Newton (:mod:`._bt_solvers`).

LBFGS_MIN_MODELS = 64
"""From this many models on, the full-data fit starts with L-BFGS (see :func:`bt_lbfgs`)."""


def bt_lbfgs(
    first: IntArray, second: IntArray, counts: FloatArray, n: int, l2: float
) -> FloatArray:
    """Full-data maximum-likelihood fit: L-BFGS with the analytic gradient, then Newton.

    With many models, L-BFGS (at FastChat's tolerance) gets close from zero at a cost
    linear in the number of pairs, where Newton would pay for dense ``n x n`` solves
    from a poor start. Newton steps then take the gradient to machine precision, so
    the point estimate is the exact maximum rather than wherever an optimizer's
    stopping rule fired. Up to ``LBFGS_MIN_MODELS`` models, Newton alone (with its
    step halving) is cheaper than L-BFGS's setup and reaches the same maximum.

    Args:
        first: ``(P,)`` first model of each pair.
        second: ``(P,)`` second model of each pair.
        counts: ``(P, 3)`` wins of first, wins of second, ties.
        n: Number of models.
        l2: Ridge strength.

    Returns:
        ``(n,)`` ratings with mean zero.
    """
    if n < LBFGS_MIN_MODELS:
        theta, _ = bt_newton(first, second, counts[None], np.zeros(n), l2=l2)
        small: FloatArray = theta[0] - theta[0].mean()
        return small
    score = counts[:, 0] + 0.5 * counts[:, 2]
    total = counts.sum(axis=1)
    norm = max(float(total.sum()), 1.0)

    def fun(theta: FloatArray) -> tuple[float, FloatArray]:
        d = theta[first] - theta[second]
        ll = score * log_expit(d) + (total - score) * log_expit(-d)
        resid = score - total * expit(d)
        grad = -to_models(resid, first, second, n) + l2 * theta
        value = -float(ll.sum()) + 0.5 * l2 * float(theta @ theta)
        return value / norm, np.asarray(grad, dtype=np.float64) / norm

    res = minimize(
        fun,
        np.zeros(n),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 200, "gtol": 1e-6},
    )
    x = np.asarray(res.x, dtype=np.float64)
    theta, _ = bt_newton(first, second, counts[None], x - x.mean(), l2=l2)
    out: FloatArray = theta[0] - theta[0].mean()
    return out


def davidson_lbfgs(
    first: IntArray, second: IntArray, counts: FloatArray, n: int, l2: float
) -> FloatArray:
    """Fit Davidson's (1970) tie model by L-BFGS with the analytic gradient.

    ``P(i beats j) = pi_i / Z``, ``P(tie) = nu sqrt(pi_i pi_j) / Z`` with
    ``Z = pi_i + pi_j + nu sqrt(pi_i pi_j)``. With ``theta = log pi`` and
    ``kappa = log nu``, dividing through by ``sqrt(pi_i pi_j)`` gives
    ``P(i) = e^{d/2} / (e^{d/2} + e^{-d/2} + e^kappa)`` with ``d = theta_i -
    theta_j``: ties no longer count as half a win, they inform ``nu`` instead.

    Args:
        first: ``(P,)`` first model of each pair.
        second: ``(P,)`` second model of each pair.
        counts: ``(P, 3)`` wins of first, wins of second, ties.
        n: Number of models.
        l2: Ridge strength on ``theta`` (not on ``kappa``).

    Returns:
        ``(n + 1,)``: ratings with mean zero, then ``kappa``. L-BFGS gets close;
        Newton steps finish the job, as in :func:`bt_lbfgs`.
    """
    w1, w2, ties = counts[:, 0], counts[:, 1], counts[:, 2]
    tot = w1 + w2 + ties
    norm = max(float(tot.sum()), 1.0)

    def fun(x: FloatArray) -> tuple[float, FloatArray]:
        theta, kappa = x[:n], x[n]
        d = theta[first] - theta[second]
        log_z = np.logaddexp(np.logaddexp(0.5 * d, -0.5 * d), kappa)
        ll = 0.5 * d * (w1 - w2) + ties * kappa - tot * log_z
        p1 = np.exp(0.5 * d - log_z)
        p2 = np.exp(-0.5 * d - log_z)
        pt = np.exp(kappa - log_z)
        g_d = 0.5 * (w1 - w2) - 0.5 * tot * (p1 - p2)
        grad = np.empty(n + 1)
        grad[:n] = -to_models(g_d, first, second, n) + l2 * theta
        grad[n] = -(float(ties.sum()) - float((tot * pt).sum()))
        value = -float(ll.sum()) + 0.5 * l2 * float(theta @ theta)
        return value / norm, grad / norm

    res = minimize(
        fun,
        np.zeros(n + 1),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 500, "gtol": 1e-6},
    )
    x = np.asarray(res.x, dtype=np.float64)
    x[:n] -= x[:n].mean()
    polished, _ = bt_newton(first, second, counts[None], x, l2=l2, davidson=True)
    out: FloatArray = polished[0]
    out[:n] -= out[:n].mean()
    return out
