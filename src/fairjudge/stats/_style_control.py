"""Style-controlled Bradley-Terry ratings, Arena-Hard-Auto's way.

Judges (and people) reward length and markdown: headers, lists, bold. Style
control adds those as covariates to the Bradley-Terry model, so that each model's
rating measures what is left once style is accounted for::

    logit P(A beats B) = theta_A - theta_B + sum_k beta_k f_k(A, B)

The features follow Arena-Hard-Auto (``show_result.py``, ``add_markdown_info.py``):

- code blocks (```` ``` ... ``` ````) are removed before counting markdown, so a code
  answer is not rewarded for its comments' ``#`` lines;
- headers (``#`` to ``######`` at the start of a line), list items (ordered and
  unordered) and bold spans (``**x**`` and ``__x__``) are counted, and divided by
  the answer length to give densities;
- length: ``(len_A - len_B) / (len_A + len_B)``; each density:
  ``(d_A - d_B) / (d_A + d_B + 1)``;
- each feature is standardised over the battles, so ``beta_k`` is the log-odds
  effect of one standard deviation of that style difference.

Where this differs: Arena-Hard-Auto counts length in tiktoken tokens; with no
tokenizer dependency, :func:`style_features` counts whitespace-separated words
(the length feature is a ratio, so the unit barely matters; pass your own token
counts as ``StyleFeatures(length=...)`` to match exactly). Ties count as half a
win, the fit is the exact maximum likelihood (Newton), and the bootstrap is
seeded and clustered by question when questions are given.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._bradley_terry import ELO_SCALE, ModelRating, leaderboard_rows
from fairjudge.stats._bt_data import check_identified, encode_battles, pair_data, resolve_anchor
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._resample import cluster_draws, percentile_bounds
from fairjudge.stats._validate import (
    check_clusters,
    check_level,
    check_n_resamples,
    check_non_negative,
    check_same_length,
    check_seed,
)

__all__ = [
    "STYLE_CONTROLS",
    "StyleCoefficient",
    "StyleControlResult",
    "StyleFeatures",
    "style_controlled_bradley_terry",
    "style_features",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

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
        return {
            "length": self.length,
            "headers": self.headers,
            "lists": self.lists,
            "bold": self.bold,
        }


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


@dataclass(frozen=True, slots=True)
class StyleCoefficient:
    """The effect of one style feature.

    Attributes:
        name: ``"length"``, ``"headers"``, ``"lists"`` or ``"bold"``.
        estimate: Log-odds of winning per standard deviation of the feature
            difference; NaN when the feature never varied (not estimable).
        ci: Bootstrap interval.
    """

    name: str
    estimate: float
    ci: ConfidenceInterval

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN becomes ``None``)."""
        return {
            "name": self.name,
            "estimate": None if math.isnan(self.estimate) else self.estimate,
            "ci": self.ci.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class StyleControlResult:
    """A style-controlled leaderboard and the style coefficients.

    Attributes:
        ratings: One row per model, best first, on the Elo scale.
        coefficients: One per requested control.
        models: All models in index order (alphabetical).
        anchor: The model pinned at ``anchor_rating``.
        anchor_rating: Its rating.
        l2: Ridge strength on all parameters.
        n_battles: Battles.
        n_questions: Clusters resampled, when questions were given.
        bootstrap: ``"battles"`` or ``"questions"``.
        n_resamples: Bootstrap rounds.
        seed: Seed of the bootstrap.
        level: Nominal coverage.
    """

    ratings: tuple[ModelRating, ...]
    coefficients: tuple[StyleCoefficient, ...]
    models: tuple[str, ...]
    anchor: str
    anchor_rating: float
    l2: float
    n_battles: int
    n_questions: int | None
    bootstrap: Literal["battles", "questions"]
    n_resamples: int
    seed: int
    level: float

    def summary(self) -> str:
        """A plain-text leaderboard followed by the style coefficients."""
        width = max(5, *(len(r.model) for r in self.ratings))
        lines = [
            f"Style-controlled Bradley-Terry, {self.n_battles} battles, {self.n_resamples} "
            f"bootstrap rounds over {self.bootstrap}, seed {self.seed}; {self.anchor} pinned at "
            f"{self.anchor_rating:g}"
        ]
        for r in self.ratings:
            lines.append(
                f"{r.rank:>4}  {r.model:<{width}}  {r.rating:7.1f}  "
                f"[{r.ci.low:7.1f}, {r.ci.high:7.1f}]"
            )
        for c in self.coefficients:
            lines.append(
                f"  beta[{c.name}] = {c.estimate:+.3f} [{c.ci.low:+.3f}, {c.ci.high:+.3f}]"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "ratings": [r.to_dict() for r in self.ratings],
            "coefficients": [c.to_dict() for c in self.coefficients],
            "models": list(self.models),
            "anchor": self.anchor,
            "anchor_rating": self.anchor_rating,
            "l2": self.l2,
            "n_battles": self.n_battles,
            "n_questions": self.n_questions,
            "bootstrap": self.bootstrap,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "level": self.level,
        }


def _as_features(name: str, values: Sequence[StyleFeatures | str]) -> FloatArray:
    """``(m, 4)`` array of length, headers, lists, bold; strings are featurised."""
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


def _design(fa: FloatArray, fb: FloatArray) -> FloatArray:
    """Arena-Hard-Auto's normalised style differences (before standardising)."""
    la, lb = fa[:, 0], fb[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        length = np.where(la + lb > 0, (la - lb) / (la + lb), 0.0)
        da = np.where(la[:, None] > 0, fa[:, 1:] / la[:, None], 0.0)
        db = np.where(lb[:, None] > 0, fb[:, 1:] / lb[:, None], 0.0)
    out: FloatArray = np.column_stack([length, (da - db) / (da + db + 1.0)])
    return out


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
    :func:`._bt_solvers.bt_newton` (with the same gauge term when ``l2 == 0``),
    plus the covariate rows and columns. Steps above 0.5 are halved until the
    objective does not increase.
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
        cross = np.stack(
            [np.bincount(a, hf[:, j], n) - np.bincount(b, hf[:, j], n) for j in range(k)], 1
        )
        hess[:n, n:] = cross
        hess[n:, :n] = cross.T
        hess[n:, n:] = feats.T @ hf
        hess[np.arange(n + k), np.arange(n + k)] += l2
        mean_diag = max(float(np.diag(hess).mean()), 1e-300)
        if l2 == 0.0:
            hess[:n, :n] += mean_diag / n
        hess[np.arange(n + k), np.arange(n + k)] += 1e-12 * mean_diag
        step = np.linalg.solve(hess, grad)
        new = x + step
        if np.abs(step).max() > 0.5:
            f0, frac = objective(x), 1.0
            for _ in range(40):
                if objective(new) <= f0 + 1e-12 * abs(f0):
                    break
                frac *= 0.5
                new = x + frac * step
        x = new
        if np.abs(step).max() <= 1e-9:
            break
    return x


def style_controlled_bradley_terry(
    model_a: Sequence[str],
    model_b: Sequence[str],
    outcomes: Sequence[str],
    features_a: Sequence[StyleFeatures | str],
    features_b: Sequence[StyleFeatures | str],
    *,
    controls: Sequence[StyleControl] = STYLE_CONTROLS,
    questions: Sequence[Hashable] | None = None,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    l2: float = 0.0,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
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
            length markdown`` is all four, the default).
        questions: Optional question per battle; resampled as clusters.
        anchor: Model pinned at ``anchor_rating`` (default: first alphabetically).
        anchor_rating: Its rating.
        l2: Ridge strength on all parameters (FastChat's style control uses 0.5).
        n_resamples: Bootstrap rounds (one Newton fit each, warm-started).
        seed: Seed of the bootstrap.
        level: Nominal coverage.

    Returns:
        The style-controlled leaderboard and the style coefficients.

    Raises:
        InputError: Bad battles or features, unconnected models, or (with
            ``l2=0``) a model that never lost.
        ConfigError: A bad option.
    """
    models, a, b, codes = encode_battles(model_a, model_b, outcomes)
    m = check_same_length(outcomes=outcomes, features_a=features_a, features_b=features_b)
    picked = list(controls)
    for i, c in enumerate(picked):
        if c not in STYLE_CONTROLS:
            raise ConfigError(f"controls[{i}] must be one of {list(STYLE_CONTROLS)}; got {c!r}")
    if not picked or len(set(picked)) != len(picked):
        raise ConfigError(f"controls must list distinct features; got {picked!r}")
    anchor_idx = resolve_anchor(models, anchor, anchor_rating)
    l2 = check_non_negative("l2", l2)
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    level = check_level(level)
    n = len(models)
    data = pair_data(n, a, b, codes)
    check_identified(data, models, anchor_idx, l2)

    raw = _design(_as_features("features_a", features_a), _as_features("features_b", features_b))
    raw = raw[:, [STYLE_CONTROLS.index(c) for c in picked]]
    sd = raw.std(axis=0, ddof=1) if m > 1 else np.zeros(raw.shape[1])
    varies = sd > 1e-12
    feats = (raw[:, varies] - raw[:, varies].mean(axis=0)) / sd[varies]
    y = np.array([1.0, 0.0, 0.5])[codes]

    x_hat = _fit(a, b, feats, y, np.ones(m), n, l2, np.zeros(n + feats.shape[1]))
    if questions is None:
        clusters, n_clusters = np.arange(m), m
    else:
        clusters, n_clusters = check_clusters("questions", questions, m)
    rng = np.random.default_rng(seed)
    boot = np.empty((n_resamples, x_hat.size))
    for r in range(n_resamples):
        w = cluster_draws(n_clusters, 1, rng)[0, clusters]
        boot[r] = _fit(a, b, feats, y, w, n, l2, x_hat)

    theta, boot_theta = x_hat[:n], boot[:, :n]
    elo = anchor_rating + ELO_SCALE * (theta - theta[anchor_idx])
    boot_elo = anchor_rating + ELO_SCALE * (boot_theta - boot_theta[:, [anchor_idx]])
    rows = leaderboard_rows(models, elo, boot_elo, data, level)
    low, high = percentile_bounds(boot[:, n:], level) if feats.shape[1] else (np.empty(0),) * 2
    coefs: list[StyleCoefficient] = []
    j = 0
    for name, ok in zip(picked, varies, strict=True):
        if ok:
            ci = ConfidenceInterval(float(low[j]), float(high[j]), level)
            coefs.append(StyleCoefficient(name, float(x_hat[n + j]), ci))
            j += 1
        else:
            coefs.append(
                StyleCoefficient(name, math.nan, ConfidenceInterval(math.nan, math.nan, level))
            )
    return StyleControlResult(
        ratings=tuple(rows),
        coefficients=tuple(coefs),
        models=models,
        anchor=models[anchor_idx],
        anchor_rating=float(anchor_rating),
        l2=l2,
        n_battles=m,
        n_questions=None if questions is None else n_clusters,
        bootstrap="battles" if questions is None else "questions",
        n_resamples=n_resamples,
        seed=seed,
        level=level,
    )
