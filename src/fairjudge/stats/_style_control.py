"""Style-controlled Bradley-Terry ratings, Arena-Hard-Auto's way: the features, the fit, the test.

Judges (and people) reward length and markdown: headers, lists, bold. Style
control adds those as covariates to the Bradley-Terry model, so that each model's
rating measures what is left once style is accounted for. Per battle ``i`` between
``a_i`` and ``b_i`` with standardised style differences ``f_i``::

    logit P(a_i beats b_i) = theta[a_i] - theta[b_i] + f_i . beta

**Features** follow Arena-Hard-Auto (``show_result.py``, ``add_markdown_info.py``):

- code blocks (```` ``` ... ``` ````) are removed before counting markdown, so a code
  answer is not rewarded for its comments' ``#`` lines;
- headers (``#`` to ``######`` at the start of a line), list items (ordered and
  unordered) and bold spans (``**x**`` and ``__x__``) are counted, and divided by
  the answer length to give densities;
- length: ``(len_A - len_B) / (len_A + len_B)``; each density:
  ``(d_A - d_B) / (d_A + d_B + 1)``;
- each feature is standardised over the battles, so ``beta_k`` is the log-odds
  effect of one standard deviation of that style difference.

Arena-Hard-Auto counts length in tiktoken tokens; with no tokenizer dependency,
:func:`style_features` counts whitespace-separated words (the length feature is a
ratio, so the unit barely matters; pass your own token counts as
``StyleFeatures(length=...)`` to match exactly).

**The fit**: ties count as half a win; the exact (weighted, optionally
ridge-penalised) maximum likelihood by Newton's method (:func:`fit_style_bt`), and a
bootstrap seeded and clustered by question when questions are given. A feature that
never varies in the data cannot have an effect estimated; it is left out of the fit
and reported as not estimable rather than as NaN or zero.

**Separation.** A judge whose verdicts style (almost) perfectly predicts (say, one
that always prefers the longer answer) leaves nothing to estimate at equal style: the
style coefficient runs off towards infinity, and the ratings are wherever Newton
stopped. The test is length control's (:mod:`._logistic`) on :func:`style_reach`: a
style term that adds more than 15 log-odds to some battle. When the full-data fit
fails it (asked also of the uncentred differences, see :func:`separating`), the
separating coefficients, every rating but the pinned anchor's, every rating interval
and every rank are reported as not estimable, with the reason (NaN or ``None`` in the
object, ``n/a`` in the text, ``null`` in JSON), never as the point where Newton
stopped; a bootstrap round that fails it, or whose Newton did not converge, counts as
degenerate, and intervals resting on too many of those are refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, Unpack

import numpy as np
from scipy.special import expit

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._bt_bootstrap import BootstrapDraws, PairData, check_rounds
from fairjudge.stats._bt_data import encode_battles
from fairjudge.stats._intervals import ConfidenceInterval, Estimable
from fairjudge.stats._leaderboard import Leaderboard, check_fit_inputs, to_elo
from fairjudge.stats._logistic import (
    backtrack,
    beyond_bound,
    separation_reason,
    stabilise,
)
from fairjudge.stats._resample import (
    BootstrapOptions,
    BootstrapPlan,
    nan_to_none,
    unstable_reason,
)
from fairjudge.stats._validate import (
    OUTCOME_SCORES,
    BoolArray,
    FloatArray,
    IntArray,
    check_same_length,
)

__all__ = [
    "STYLE_CONTROLS",
    "StyleCoefficient",
    "StyleControl",
    "StyleControlResult",
    "StyleFeatures",
    "feature_matrix",
    "fit_style_bt",
    "separating",
    "style_controlled_bradley_terry",
    "style_design",
    "style_features",
    "style_reach",
]

StyleControl = Literal["length", "headers", "lists", "bold"]
STYLE_CONTROLS: tuple[StyleControl, ...] = ("length", "headers", "lists", "bold")
"""The style covariates, in Arena-Hard-Auto's order."""

_CODE_BLOCK = re.compile(r"```[^`]*```")
_HEADER = re.compile(r"^#{1,6}\s", re.MULTILINE)
_ORDERED = re.compile(r"^\s*\d+\.\s", re.MULTILINE)
_UNORDERED = re.compile(r"^\s*[-*+]\s", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")


@dataclass(frozen=True, slots=True)
class StyleFeatures:
    """Length and markdown counts of one answer.

    Attributes:
        length: Answer length (words by default; any unit, used in ratios).
        headers: Markdown headers, outside code blocks.
        lists: List items, ordered and unordered, outside code blocks.
        bold: Bold spans, outside code blocks.
    """

    length: float
    headers: int = 0
    lists: int = 0
    bold: int = 0

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form."""
        return asdict(self)


def style_features(text: str) -> StyleFeatures:
    r"""Count an answer's length and markdown elements, Arena-Hard-Auto's way.

    Example:
        >>> style_features("# Title\n- a **b**\n```\n# not a header\n```")
        StyleFeatures(length=11, headers=1, lists=1, bold=1)
    """
    if not isinstance(text, str):
        raise InputError(f"text must be a string; got {type(text).__name__}")
    prose = _CODE_BLOCK.sub("", text)
    return StyleFeatures(
        length=len(text.split()),
        headers=len(_HEADER.findall(prose)),
        lists=len(_ORDERED.findall(prose)) + len(_UNORDERED.findall(prose)),
        bold=len(_BOLD.findall(prose)),
    )


def feature_matrix(name: str, values: Sequence[StyleFeatures | str]) -> FloatArray:
    """``(m, 4)`` array of length, headers, lists, bold; strings are featurised.

    Raises:
        InputError: An entry is neither features nor text, or holds a bad count.
    """
    out = np.empty((len(values), 4))
    for i, v in enumerate(values):
        f = style_features(v) if isinstance(v, str) else v
        if not isinstance(f, StyleFeatures):
            raise InputError(
                f"{name}[{i}] must be a StyleFeatures or the answer text; got {type(v).__name__}"
            )
        row = (f.length, f.headers, f.lists, f.bold)
        if not all(
            isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) and x >= 0
            for x in row
        ):
            raise InputError(f"{name}[{i}] must hold finite counts >= 0; got {f!r}")
        out[i] = row
    return out


def style_design(fa: FloatArray, fb: FloatArray) -> FloatArray:
    """Arena-Hard-Auto's normalised style differences (before standardising).

    Args:
        fa: ``(m, 4)`` features of answer A (see :func:`feature_matrix`).
        fb: ``(m, 4)`` features of answer B.

    Returns:
        ``(m, 4)``: the length ratio, then the header, list and bold densities.
    """
    la, lb = fa[:, 0], fb[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        length = np.where(la + lb > 0, (la - lb) / (la + lb), 0.0)
        da = np.where(la[:, None] > 0, fa[:, 1:] / la[:, None], 0.0)
        db = np.where(lb[:, None] > 0, fb[:, 1:] / lb[:, None], 0.0)
    out: FloatArray = np.column_stack([length, (da - db) / (da + db + 1.0)])
    return out


def fit_style_bt(
    a: IntArray,
    b: IntArray,
    feats: FloatArray,
    y: FloatArray,
    w: FloatArray,
    n: int,
    l2: float,
    x0: FloatArray,
) -> tuple[FloatArray, bool]:
    """Weighted maximum likelihood of BT + covariates by Newton's method.

    The Hessian has the Bradley-Terry Laplacian in the ratings block, as in
    :func:`._bt_solvers.bt_newton` (made solvable the same way, by
    :func:`._logistic.stabilise`), plus the covariate rows and columns. Steps above
    0.5 are halved until the objective does not increase.

    Args:
        a: ``(m,)`` model A of each battle.
        b: ``(m,)`` model B of each battle.
        feats: ``(m, k)`` standardised style differences.
        y: ``(m,)`` score of A: 1, 0.5 (tie) or 0.
        w: ``(m,)`` weight of each battle (its count in a bootstrap round).
        n: Number of models.
        l2: Ridge strength on all parameters.
        x0: ``(n + k,)`` starting point: ratings, then style coefficients.

    Returns:
        ``(n + k,)`` parameters, and whether Newton met its gradient or step
        tolerance before the cap (otherwise the point is not a maximum).
    """
    k = feats.shape[1]
    x = x0.copy()
    scale = max(float(w.sum()), 1.0)

    def objective(v: FloatArray) -> float:
        eta = v[a] - v[b] + feats @ v[n:]
        ll = y * -np.logaddexp(0.0, -eta) + (1.0 - y) * -np.logaddexp(0.0, eta)
        return -float(w @ ll) + 0.5 * l2 * float(v @ v)

    for _ in range(100):  # Newton's iteration cap
        eta = x[a] - x[b] + feats @ x[n:]
        p = expit(eta)
        r = w * (y - p)
        grad = np.concatenate([np.bincount(a, r, n) - np.bincount(b, r, n), feats.T @ r]) - l2 * x
        if np.abs(grad).max() <= 1e-10 * scale:
            return x, True
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
            return x, True
    return x, False


def style_reach(beta: FloatArray, feats: FloatArray, w: FloatArray | None = None) -> FloatArray:
    """The largest log-odds each style term adds to a battle: ``|beta_k| max_i |f_ik|``.

    The analogue of length control's ``|beta|`` (whose covariate lies in [-1, 1]):
    standardised style differences are unbounded, so the reach is measured on the
    battles at hand.

    Args:
        beta: ``(k,)`` style coefficients.
        feats: ``(m, k)`` standardised style differences.
        w: ``(m,)`` battle weights; battles of weight zero (not drawn in a bootstrap
            round) are left out. ``None``: all battles.
    """
    used = feats if w is None else feats[w > 0]
    if used.shape[0] == 0:
        return np.zeros_like(beta)
    out: FloatArray = np.abs(beta) * np.abs(used).max(axis=0)
    return out


def separating(
    a: IntArray,
    b: IntArray,
    raw: FloatArray,
    feats: FloatArray,
    y: FloatArray,
    x_hat: FloatArray,
    l2: float,
) -> BoolArray:
    """Which style features (almost) perfectly separate the verdicts of the full data.

    Judged on the reported fit, and on the same fit of the differences scaled but not
    centred; either counts. Centring (Arena-Hard-Auto's) moves "equal style" off zero,
    so ties between answers of equal style sit where a growing coefficient would push
    them off one half: they hold it back, and can hide a judge whose verdicts style
    alone explains (one that always prefers the longer answer, with answers of equal
    length tied) behind a finite maximum. Uncentred, equal style is zero again.
    As for plain Bradley-Terry, a ridge is a cure the user may choose: both fits are
    penalised, so a ridge strong enough to hold style within the bound passes.

    Args:
        a: ``(m,)`` model A of each battle.
        b: ``(m,)`` model B of each battle.
        raw: ``(m, k)`` style differences of the varying features, before standardising.
        feats: ``(m, k)`` the same, standardised.
        y: ``(m,)`` score of A.
        x_hat: ``(n + k,)`` the reported fit.
        l2: Ridge strength.
    """
    n = x_hat.size - feats.shape[1]
    split = beyond_bound(style_reach(x_hat[n:], feats))
    if feats.shape[1] == 0:
        return split
    scaled = raw / raw.std(axis=0, ddof=1)
    x_raw, _ = fit_style_bt(a, b, scaled, y, np.ones(a.size), n, l2, x_hat)
    out: BoolArray = split | beyond_bound(style_reach(x_raw[n:], scaled))
    return out


CONSTANT_FEATURE = "constant in the data"
"""Why a style coefficient cannot be estimated when its feature never varies."""

_SEPARATED_ROUNDS = (
    "are (almost) perfectly separated by style (a style term past 15 log-odds) or did not "
    "converge, so their fit is where Newton stopped, not an estimate"
)
_UNSTABLE_RATING = (
    "have no finite maximum for this rating (a group of models never lost in them) or are "
    "(almost) perfectly separated by style, so it is where Newton stopped, not an estimate"
)


@dataclass(frozen=True, slots=True)
class StyleCoefficient(Estimable):
    """The effect of one style feature.

    Attributes:
        name: ``"length"``, ``"headers"``, ``"lists"`` or ``"bold"``.
        estimate: Log-odds of winning per standard deviation of the feature
            difference; NaN when not estimable.
        ci: Bootstrap interval, or why there is none.
        reason: Why the coefficient itself cannot be estimated: the feature is
            constant in the data (so it was left out of the fit), or it (almost)
            perfectly separates the verdicts (so its maximum is at or near infinity);
            ``None`` if it can.
    """

    name: str
    estimate: float
    ci: ConfidenceInterval
    reason: str | None = None

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
            return f"style coefficient of {self.name} cannot be estimated: {self.reason}"
        return f"style coefficient of {self.name} = {self.estimate:+.3f} {self.ci:+.3f}"


@dataclass(frozen=True, slots=True, kw_only=True)
class StyleControlResult(Leaderboard):
    """A style-controlled leaderboard and the style coefficients.

    The leaderboard fields (``ratings``, ``models``, ``anchor``, ``l2`` (here on all
    parameters), ``bootstrap``, ``seed``...) are described on
    :class:`._leaderboard.Leaderboard`.

    Attributes:
        coefficients: One per requested control, in the order requested.
        reason: Why the ratings at equal style are not identified (the verdicts are
            (almost) perfectly separated by style), or ``None``. When set, every
            rating but the anchor's (pinned) is NaN with this reason, every rank is
            ``None``, and every rating interval but the anchor's point, and every
            rank interval, carries it instead of bounds.
    """

    coefficients: tuple[StyleCoefficient, ...]
    reason: str | None = None

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
            "reason": self.reason,
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
) -> tuple[FloatArray, BootstrapDraws, int]:
    """Refit on every resample, warm-started at ``x_hat``; check each round's fit.

    A round is separated when some style term reaches past 15 log-odds on the
    battles it drew (see :mod:`._logistic`), or when Newton did not converge: its
    values are where the optimiser stopped. Its ratings then count as diverged
    (all but the anchor's, which is pinned), as do those the battle graph alone
    leaves without a finite maximum.

    Returns:
        ``(B, n + k)`` parameters per round; the rounds' ratings, with which of them
        were not identified (NaN), had no finite maximum or were separated; and the
        number of separated rounds.
    """
    n = data.n_models
    boot = np.empty((plan.n_resamples, x_hat.size))
    separated = np.zeros(plan.n_resamples, dtype=bool)
    cell_counts = np.empty((plan.n_resamples, data.n_cells))
    r = 0
    for draws in plan.draws(plan.n_clusters):
        for row in draws:
            w = row[plan.clusters]
            boot[r], converged = fit_style_bt(a, b, feats, y, w, n, l2, x_hat)
            separated[r] = not converged or bool(
                beyond_bound(style_reach(boot[r, n:], feats, w)).any()
            )
            cell_counts[r] = np.bincount(data.cells, weights=w, minlength=data.n_cells)
            r += 1
    counts = cell_counts.reshape(plan.n_resamples, -1, 3)
    health = check_rounds(data, counts, anchor, check_mle=l2 == 0.0)
    theta = boot[:, :n].copy()
    theta[health.unidentified] = np.nan
    ran_off = separated[:, None] & ~health.unidentified
    ran_off[:, anchor] = False
    draws_out = BootstrapDraws(
        theta=theta,
        kappa=None,
        diverged=health.diverged | ran_off,
        n_degenerate=int((health.degenerate | separated).sum()),
    )
    return boot, draws_out, int(separated.sum())


def _coefficients(
    picked: list[StyleControl],
    varies: BoolArray,
    x_hat: FloatArray,
    boot: FloatArray,
    split: BoolArray,
    n_separated: int,
    plan: BootstrapPlan,
) -> list[StyleCoefficient]:
    """One coefficient per control: estimated, or why not (constant, or separating).

    ``split`` marks the varying features that separate the full data; ``n_separated``
    is the number of separated bootstrap rounds, which every interval rests on.
    """
    k = int(varies.sum())
    n = x_hat.size - k
    unstable = unstable_reason(n_separated, plan.n_resamples, plan.level, _SEPARATED_ROUNDS)
    cis = iter(plan.intervals(boot[:, n:], reasons=[unstable] * k))
    estimates = iter(x_hat[n:].tolist())
    splits = iter(split.tolist())
    out: list[StyleCoefficient] = []
    for name, ok in zip(picked, varies, strict=True):
        reason = CONSTANT_FEATURE
        if ok:
            estimate, ci = next(estimates), next(cis)
            if not next(splits):
                out.append(StyleCoefficient(name, estimate, ci))
                continue
            reason = separation_reason(name, "style", "ratings at equal style are")
        out.append(
            StyleCoefficient(
                name, math.nan, ConfidenceInterval.not_estimable(reason, plan.level), reason
            )
        )
    return out


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
    fallback_l2: float | None = None,
    **options: Unpack[BootstrapOptions],
) -> StyleControlResult:
    """Bradley-Terry ratings with style covariates, with bootstrap intervals.

    Args:
        model_a: The first model of each battle.
        model_b: The second model of each battle.
        outcomes: ``"1"`` (A won), ``"2"`` (B won) or ``"tie"`` (half a win each).
        features_a: Style of A's answer per battle: :class:`StyleFeatures`, or the
            answer text (featurised with :func:`style_features`).
        features_b: Style of B's answer per battle.
        controls: Which covariates to include (Arena-Hard-Auto's ``--control-features
            length markdown`` is all four, the default). A covariate that never
            varies in the data is left out of the fit and reported as not estimable.
        anchor: Model pinned at ``anchor_rating`` (default: first alphabetically).
        anchor_rating: Its rating.
        l2: Ridge strength on all parameters (FastChat's style control uses 0.5).
        fallback_l2: The ridge to fit with instead when ``l2`` is 0 and the battles
            have no finite maximum, as in :func:`.bradley_terry`; ``None`` refuses
            such battles.
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`).

    Returns:
        The style-controlled leaderboard and the style coefficients. Rating
        intervals resting on too many rounds without a finite maximum, or separated
        by style, are not estimable, as in :func:`.bradley_terry`. When style
        (almost) perfectly separates the verdicts of the full data, the separating
        coefficients, the ratings (all but the anchor's), their intervals and the
        ranks are not estimable, with the reason (also in ``reason``). Models the ridge
        alone keeps finite are listed in ``held_by_ridge``, as in :func:`.bradley_terry`.

    Raises:
        InputError: Bad battles or features, unconnected models, or (with
            ``l2=0`` and no ``fallback_l2``) a model that never lost.
        ConfigError: A bad option.
    """
    models, a, b, codes = encode_battles(model_a, model_b, outcomes)
    m = check_same_length(outcomes=outcomes, features_a=features_a, features_b=features_b)
    picked = _check_controls(controls)
    fit = check_fit_inputs(models, (a, b, codes), anchor, anchor_rating, l2, fallback_l2, options)
    anchor_idx, plan, data, found = fit
    n = len(models)
    l2 = found.l2

    raw = style_design(
        feature_matrix("features_a", features_a), feature_matrix("features_b", features_b)
    )
    raw = raw[:, [STYLE_CONTROLS.index(c) for c in picked]]
    feats, varies = _standardised(raw)
    y = OUTCOME_SCORES[codes]
    x_hat, _ = fit_style_bt(a, b, feats, y, np.ones(m), n, l2, np.zeros(n + feats.shape[1]))
    # A ridge the caller chose may hold style within the bound (a cure they asked for);
    # the fallback ridge was not asked for, so separation is judged without it.
    split = separating(a, b, raw[:, varies], feats, y, x_hat, 0.0 if found.fell_back else l2)
    boot, draws, n_separated = _bootstrap(
        a, b, feats, y, data, x_hat, anchor=anchor_idx, l2=l2, plan=plan
    )
    coefs = _coefficients(picked, varies, x_hat, boot, split, n_separated, plan)
    names = [c for c, ok in zip(picked, varies, strict=True) if ok]
    by = " and ".join(name for name, hit in zip(names, split.tolist(), strict=True) if hit)
    reason = separation_reason(by, "style", "ratings at equal style are") if by else None
    return StyleControlResult.from_bootstrap(
        models,
        to_elo(x_hat[:n], anchor_idx, anchor_rating),
        to_elo(draws.theta, anchor_idx, anchor_rating),
        draws,
        fit,
        anchor_rating=anchor_rating,
        not_identified=reason,
        unstable=_UNSTABLE_RATING,
        reason=reason,
        coefficients=tuple(coefs),
    )
