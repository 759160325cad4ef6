"""Style-controlled Bradley-Terry ratings, Arena-Hard-Auto's way.

Judges (and people) reward length and markdown: headers, lists, bold. Style
control adds those as covariates to the Bradley-Terry model, so that each model's
rating measures what is left once style is accounted for::

    logit P(A beats B) = theta_A - theta_B + sum_k beta_k f_k(A, B)

Style features are computed in :mod:`._style_features`. Here: the fit, ties as
half a win, by exact maximum likelihood (Newton), and a bootstrap seeded and
clustered by question when questions are given. A feature that never varies in
the data cannot have an effect estimated; it is left out of the fit and reported
as not estimable rather than as NaN or zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
from scipy.special import expit

from fairjudge._errors import ConfigError
from fairjudge.stats._arrays import BoolArray, FloatArray, IntArray
from fairjudge.stats._bt_bootstrap import BootstrapDraws, PairData
from fairjudge.stats._bt_data import check_identified, encode_battles, pair_data, resolve_anchor
from fairjudge.stats._bt_graph import round_health
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._leaderboard import Leaderboard, to_elo
from fairjudge.stats._newton import backtrack, stabilise
from fairjudge.stats._resample import BootstrapOptions, BootstrapPlan, nan_to_none, plan_bootstrap
from fairjudge.stats._style_features import (
    STYLE_CONTROLS,
    StyleControl,
    StyleFeatures,
    feature_matrix,
    style_design,
)
from fairjudge.stats._validate import OUTCOME_SCORES, check_non_negative, check_same_length

__all__ = ["StyleCoefficient", "StyleControlResult", "style_controlled_bradley_terry"]

CONSTANT_FEATURE = "constant in the data"
"""Why a style coefficient cannot be estimated when its feature never varies."""


@dataclass(frozen=True, slots=True)
class StyleCoefficient:
    """The effect of one style feature.

    Attributes:
        name: ``"length"``, ``"headers"``, ``"lists"`` or ``"bold"``.
        estimate: Log-odds of winning per standard deviation of the feature
            difference; NaN when not estimable.
        ci: Bootstrap interval, or why there is none.
        reason: Why the coefficient itself cannot be estimated (the feature is
            constant in the data, so it was left out of the fit); ``None`` if it can.
    """

    name: str
    estimate: float
    ci: ConfidenceInterval
    reason: str | None = None

    @property
    def estimable(self) -> bool:
        """Whether the estimate means anything."""
        return self.reason is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN becomes ``None``)."""
        return {
            "name": self.name,
            "estimate": nan_to_none(self.estimate),
            "ci": self.ci.to_dict(),
            "estimable": self.estimable,
            "reason": self.reason,
        }

    def __str__(self) -> str:
        if self.reason is not None:
            return f"beta[{self.name}] cannot be estimated: {self.reason}"
        return f"beta[{self.name}] = {self.estimate:+.3f} {self.ci:+.3f}"


@dataclass(frozen=True, slots=True, kw_only=True)
class StyleControlResult(Leaderboard):
    """A style-controlled leaderboard and the style coefficients.

    The leaderboard fields (``ratings``, ``models``, ``anchor``, ``l2`` (here on all
    parameters), ``bootstrap``, ``seed``...) are described on
    :class:`._leaderboard.Leaderboard`.

    Attributes:
        coefficients: One per requested control, in the order requested.
    """

    coefficients: tuple[StyleCoefficient, ...]

    def summary(self) -> str:
        """A plain-text leaderboard followed by the style coefficients."""
        lines = [
            f"Style-controlled Bradley-Terry, {self.n_battles} battles, {self.n_resamples} "
            f"bootstrap rounds over {self.bootstrap}, seed {self.seed}; {self.anchor} pinned at "
            f"{self.anchor_rating:g}",
            *self.table_lines(),
        ]
        lines += [f"  {c}" for c in self.coefficients]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            **self.leaderboard_dict(),
            "coefficients": [c.to_dict() for c in self.coefficients],
        }


def _check_controls(controls: Sequence[StyleControl]) -> list[StyleControl]:
    picked = list(controls)
    for i, c in enumerate(picked):
        if c not in STYLE_CONTROLS:
            raise ConfigError(f"controls[{i}] must be one of {list(STYLE_CONTROLS)}; got {c!r}")
    if not picked or len(set(picked)) != len(picked):
        raise ConfigError(f"controls must list distinct features; got {picked!r}")
    return picked


def _standardised(raw: FloatArray) -> tuple[FloatArray, BoolArray]:
    """Standardise the columns that vary; report which do.

    A column that never varies has no effect to estimate (it is collinear with the
    ratings' zero), so it is dropped from the design instead of divided by zero.
    """
    m = raw.shape[0]
    sd = raw.std(axis=0, ddof=1) if m > 1 else np.zeros(raw.shape[1])
    varies = sd > 1e-12
    feats: FloatArray = (raw[:, varies] - raw[:, varies].mean(axis=0)) / sd[varies]
    return feats, varies


def _fit(
    a: IntArray,
    b: IntArray,
    feats: FloatArray,
    y: FloatArray,
    w: FloatArray,
    n: int,
    l2: float,
    x0: FloatArray,
    max_iter: int = 100,
) -> FloatArray:
    """Weighted maximum likelihood of BT + covariates by Newton's method.

    The Hessian has the Bradley-Terry Laplacian in the ratings block, as in
    :func:`._bt_solvers.bt_newton` (made solvable the same way, by
    :func:`._newton.stabilise`), plus the covariate rows and columns. Steps above
    0.5 are halved until the objective does not increase.
    """
    k = feats.shape[1]
    x = x0.copy()
    scale = max(float(w.sum()), 1.0)

    def objective(v: FloatArray) -> float:
        eta = v[a] - v[b] + feats @ v[n:]
        ll = y * -np.logaddexp(0.0, -eta) + (1.0 - y) * -np.logaddexp(0.0, eta)
        return -float(w @ ll) + 0.5 * l2 * float(v @ v)

    for _ in range(max_iter):
        eta = x[a] - x[b] + feats @ x[n:]
        p = expit(eta)
        r = w * (y - p)
        grad = np.concatenate([np.bincount(a, r, n) - np.bincount(b, r, n), feats.T @ r]) - l2 * x
        if np.abs(grad).max() <= 1e-10 * scale:
            break
        h = w * p * (1.0 - p)
        hess = np.zeros((n + k, n + k))
        block = (
            np.bincount(a * n + a, h, n * n)
            + np.bincount(b * n + b, h, n * n)
            - np.bincount(a * n + b, h, n * n)
            - np.bincount(b * n + a, h, n * n)
        )
        hess[:n, :n] = block.reshape(n, n)
        hf = h[:, None] * feats
        # (n, k); with every feature constant k is 0 and this is plain Bradley-Terry.
        cross = np.zeros((n, k))
        for j in range(k):
            cross[:, j] = np.bincount(a, hf[:, j], n) - np.bincount(b, hf[:, j], n)
        hess[:n, n:] = cross
        hess[n:, :n] = cross.T
        hess[n:, n:] = feats.T @ hf
        hess[np.arange(n + k), np.arange(n + k)] += l2
        mean_diag = max(float(np.diag(hess).mean()), 1e-300)
        stabilise(hess[None], n, l2, np.array([mean_diag]))
        step = np.asarray(np.linalg.solve(hess, grad), dtype=np.float64)
        new = x + step
        if np.abs(step).max() > 0.5:
            new = backtrack(x[None], step[None], lambda v: np.array([objective(v[0])]))[0]
        x = new
        if np.abs(step).max() <= 1e-9:
            break
    return x


def _bootstrap(
    a: IntArray,
    b: IntArray,
    feats: FloatArray,
    y: FloatArray,
    data: PairData,
    x_hat: FloatArray,
    *,
    anchor: int,
    l2: float,
    plan: BootstrapPlan,
) -> tuple[FloatArray, BootstrapDraws]:
    """Refit on every resample, warm-started at ``x_hat``; check each round's ratings.

    Returns:
        ``(B, n + k)`` parameters per round, and the rounds' ratings with which of
        them were not identified (NaN) or had no finite maximum.
    """
    n = data.n_models
    boot = np.empty((plan.n_resamples, x_hat.size))
    cell_counts = np.empty((plan.n_resamples, data.n_cells))
    r = 0
    for draws in plan.draws(plan.n_clusters):
        for row in draws:
            w = row[plan.clusters]
            boot[r] = _fit(a, b, feats, y, w, n, l2, x_hat)
            cell_counts[r] = np.bincount(data.cells, weights=w, minlength=data.n_cells)
            r += 1
    counts = cell_counts.reshape(plan.n_resamples, -1, 3)
    score = counts[:, :, 0] + 0.5 * counts[:, :, 2]
    health = round_health(
        data.first, data.second, score, counts.sum(axis=2), anchor, n, check_mle=l2 == 0.0
    )
    theta = boot[:, :n].copy()
    theta[health.unidentified] = np.nan
    draws_out = BootstrapDraws(
        theta=theta,
        kappa=None,
        diverged=health.diverged,
        n_degenerate=int(health.degenerate.sum()),
    )
    return boot, draws_out


def style_controlled_bradley_terry(
    model_a: Sequence[str],
    model_b: Sequence[str],
    outcomes: Sequence[str],
    features_a: Sequence[StyleFeatures | str],
    features_b: Sequence[StyleFeatures | str],
    *,
    controls: Sequence[StyleControl] = STYLE_CONTROLS,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    l2: float = 0.0,
    **options: Unpack[BootstrapOptions],
) -> StyleControlResult:
    """Bradley-Terry ratings with style covariates, with bootstrap intervals.

    Args:
        model_a: The first model of each battle.
        model_b: The second model of each battle.
        outcomes: ``"1"`` (A won), ``"2"`` (B won) or ``"tie"`` (half a win each).
        features_a: Style of A's answer per battle: :class:`StyleFeatures`, or the
            answer text (featurised with :func:`._style_features.style_features`).
        features_b: Style of B's answer per battle.
        controls: Which covariates to include (Arena-Hard-Auto's ``--control-features
            length markdown`` is all four, the default). A covariate that never
            varies in the data is left out of the fit and reported as not estimable.
        anchor: Model pinned at ``anchor_rating`` (default: first alphabetically).
        anchor_rating: Its rating.
        l2: Ridge strength on all parameters (FastChat's style control uses 0.5).
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`).

    Returns:
        The style-controlled leaderboard and the style coefficients. Rating
        intervals resting on too many rounds without a finite maximum are not
        estimable, as in :func:`.bradley_terry`.

    Raises:
        InputError: Bad battles or features, unconnected models, or (with
            ``l2=0``) a model that never lost.
        ConfigError: A bad option.
    """
    models, a, b, codes = encode_battles(model_a, model_b, outcomes)
    m = check_same_length(outcomes=outcomes, features_a=features_a, features_b=features_b)
    picked = _check_controls(controls)
    anchor_idx = resolve_anchor(models, anchor, anchor_rating)
    l2 = check_non_negative("l2", l2)
    plan = plan_bootstrap(m, options)
    n = len(models)
    data = pair_data(n, a, b, codes)
    check_identified(data, models, anchor_idx, l2)

    raw = style_design(
        feature_matrix("features_a", features_a), feature_matrix("features_b", features_b)
    )
    feats, varies = _standardised(raw[:, [STYLE_CONTROLS.index(c) for c in picked]])
    y = OUTCOME_SCORES[codes]
    x_hat = _fit(a, b, feats, y, np.ones(m), n, l2, np.zeros(n + feats.shape[1]))
    boot, draws = _bootstrap(a, b, feats, y, data, x_hat, anchor=anchor_idx, l2=l2, plan=plan)

    cis = iter(plan.intervals(boot[:, n:]))
    estimates = iter(x_hat[n:].tolist())
    coefs = [
        StyleCoefficient(name, next(estimates), next(cis))
        if ok
        else StyleCoefficient(
            name,
            math.nan,
            ConfidenceInterval.not_estimable(CONSTANT_FEATURE, plan.level),
            CONSTANT_FEATURE,
        )
        for name, ok in zip(picked, varies, strict=True)
    ]
    return StyleControlResult.from_bootstrap(
        models,
        to_elo(x_hat[:n], anchor_idx, anchor_rating),
        to_elo(draws.theta, anchor_idx, anchor_rating),
        draws,
        data,
        anchor=anchor_idx,
        anchor_rating=anchor_rating,
        l2=l2,
        plan=plan,
        coefficients=tuple(coefs),
    )
