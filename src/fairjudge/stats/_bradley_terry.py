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
  compared) is an error that says so, not a silently huge rating.
- Scores are anchored on a model of your choice (default: the first name in
  alphabetical order) at 1000. The anchor's own interval is therefore a point,
  and every other interval is relative to it, as in Chatbot Arena.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.special import expit
from scipy.stats import rankdata

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._bt_bootstrap import PairData, bootstrap_thetas
from fairjudge.stats._bt_data import (
    check_identified,
    encode_battles,
    model_counts,
    pair_data,
    resolve_anchor,
)
from fairjudge.stats._bt_solvers import bt_lbfgs, davidson_lbfgs
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._resample import percentile_bounds
from fairjudge.stats._validate import (
    check_clusters,
    check_level,
    check_n_resamples,
    check_non_negative,
    check_seed,
)

__all__ = [
    "ELO_SCALE",
    "BradleyTerryResult",
    "ModelRating",
    "bradley_terry",
    "leaderboard_rows",
    "rank_of",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of log-odds: a 400-point gap means 10:1 odds."""


@dataclass(frozen=True, slots=True)
class ModelRating:
    """One model's row of the leaderboard.

    Attributes:
        model: The model's name.
        rating: Bradley-Terry rating on the Elo scale.
        ci: Bootstrap percentile interval of the rating.
        rank: 1 + the number of models with a strictly higher rating.
        rank_ci: Bootstrap interval of the rank (integer-valued bounds).
        n_battles: Battles the model took part in.
        wins: Battles it won.
        losses: Battles it lost.
        ties: Battles that were tied.
    """

    model: str
    rating: float
    ci: ConfidenceInterval
    rank: int
    rank_ci: ConfidenceInterval
    n_battles: int
    wins: int
    losses: int
    ties: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "model": self.model,
            "rating": self.rating,
            "ci": self.ci.to_dict(),
            "rank": self.rank,
            "rank_ci": self.rank_ci.to_dict(),
            "n_battles": self.n_battles,
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
        }


@dataclass(frozen=True, slots=True)
class BradleyTerryResult:
    """A Bradley-Terry leaderboard with its uncertainty and everything needed to redo it.

    Attributes:
        ratings: One row per model, best first.
        models: All models in index order (alphabetical): the order of
            ``win_rate_matrix`` and ``bootstrap_ratings``.
        anchor: The model pinned at ``anchor_rating``.
        anchor_rating: Its rating.
        ties: ``"half"`` or ``"davidson"``.
        tie_strength: Davidson's ``nu`` (``None`` for ``"half"``).
        tie_strength_ci: Its bootstrap interval (``None`` for ``"half"``).
        l2: Ridge strength on the log-odds ratings.
        n_battles: Number of battles.
        n_questions: Number of questions, when the bootstrap was clustered.
        bootstrap: ``"battles"`` or ``"questions"``: what each round resampled.
        n_resamples: Bootstrap rounds.
        n_degenerate_resamples: Rounds where some rating was not identified (left
            out of that model's interval) or had no finite maximum.
        seed: Seed of the bootstrap.
        level: Nominal coverage of the intervals.
        win_rate_matrix: ``(n, n)`` predicted expected score of row vs column
            (win + half a tie).
        bootstrap_ratings: ``(n_resamples, n)`` bootstrap ratings on the Elo scale.
    """

    ratings: tuple[ModelRating, ...]
    models: tuple[str, ...]
    anchor: str
    anchor_rating: float
    ties: Literal["half", "davidson"]
    tie_strength: float | None
    tie_strength_ci: ConfidenceInterval | None
    l2: float
    n_battles: int
    n_questions: int | None
    bootstrap: Literal["battles", "questions"]
    n_resamples: int
    n_degenerate_resamples: int
    seed: int
    level: float
    win_rate_matrix: FloatArray = field(compare=False, repr=False)
    bootstrap_ratings: FloatArray = field(compare=False, repr=False)

    def rating(self, model: str) -> ModelRating:
        """The leaderboard row of ``model``.

        Raises:
            KeyError: Unknown model.
        """
        for row in self.ratings:
            if row.model == model:
                return row
        raise KeyError(f"model {model!r} is not in this leaderboard; known: {list(self.models)}")

    def win_rate(self, model: str, opponent: str) -> float:
        """Predicted expected score of ``model`` against ``opponent`` (win + half a tie)."""
        idx = {m: i for i, m in enumerate(self.models)}
        for name in (model, opponent):
            if name not in idx:
                raise KeyError(f"model {name!r} is not in this leaderboard")
        return float(self.win_rate_matrix[idx[model], idx[opponent]])

    def summary(self) -> str:
        """A plain-text leaderboard."""
        pct = round(self.level * 100)
        width = max(5, *(len(r.model) for r in self.ratings))
        head = (
            f"Bradley-Terry ({self.ties} ties), {self.n_battles} battles, "
            f"{self.n_resamples} bootstrap rounds over {self.bootstrap}, seed {self.seed}; "
            f"{self.anchor} pinned at {self.anchor_rating:g}"
        )
        lines = [
            head,
            f"{'rank':>4}  {'model':<{width}}  {'rating':>7}  {f'{pct}% CI':>17}  "
            f"{'rank CI':>7}  {'battles':>7}",
        ]
        for r in self.ratings:
            ci = f"[{r.ci.low:7.1f}, {r.ci.high:7.1f}]"
            rank_ci = f"{r.rank_ci.low:.0f}-{r.rank_ci.high:.0f}"
            lines.append(
                f"{r.rank:>4}  {r.model:<{width}}  {r.rating:7.1f}  {ci:>17}  "
                f"{rank_ci:>7}  {r.n_battles:>7}"
            )
        if self.tie_strength is not None and self.tie_strength_ci is not None:
            lines.append(
                f"Davidson tie strength nu = {self.tie_strength:.3f} "
                f"[{self.tie_strength_ci.low:.3f}, {self.tie_strength_ci.high:.3f}]"
            )
        if self.n_degenerate_resamples:
            lines.append(f"{self.n_degenerate_resamples} degenerate bootstrap rounds")
        return "\n".join(lines)

    def to_dict(self, *, include_bootstrap: bool = False) -> dict[str, Any]:
        """JSON-ready form; ``include_bootstrap`` adds the per-round ratings."""
        out: dict[str, Any] = {
            "ratings": [r.to_dict() for r in self.ratings],
            "models": list(self.models),
            "anchor": self.anchor,
            "anchor_rating": self.anchor_rating,
            "ties": self.ties,
            "tie_strength": self.tie_strength,
            "tie_strength_ci": None
            if self.tie_strength_ci is None
            else self.tie_strength_ci.to_dict(),
            "l2": self.l2,
            "n_battles": self.n_battles,
            "n_questions": self.n_questions,
            "bootstrap": self.bootstrap,
            "n_resamples": self.n_resamples,
            "n_degenerate_resamples": self.n_degenerate_resamples,
            "seed": self.seed,
            "level": self.level,
            "win_rate_matrix": self.win_rate_matrix.tolist(),
        }
        if include_bootstrap:
            out["bootstrap_ratings"] = [
                [None if math.isnan(x) else x for x in row]
                for row in self.bootstrap_ratings.tolist()
            ]
        return out


def leaderboard_rows(
    models: tuple[str, ...],
    elo: FloatArray,
    boot: FloatArray,
    data: PairData,
    level: float,
) -> list[ModelRating]:
    """Leaderboard rows, best first, from point and bootstrap ratings on the Elo scale."""
    low, high = percentile_bounds(boot, level)
    ranks = rank_of(elo)
    rank_low, rank_high = percentile_bounds(rank_of(boot), level, method="inverted_cdf")
    wins, losses, ties = model_counts(data)
    rows = [
        ModelRating(
            model=models[i],
            rating=float(elo[i]),
            ci=ConfidenceInterval(float(low[i]), float(high[i]), level),
            rank=int(ranks[i]),
            rank_ci=ConfidenceInterval(float(rank_low[i]), float(rank_high[i]), level),
            n_battles=int(wins[i] + losses[i] + ties[i]),
            wins=int(wins[i]),
            losses=int(losses[i]),
            ties=int(ties[i]),
        )
        for i in range(len(models))
    ]
    rows.sort(key=lambda r: (-r.rating, r.model))
    return rows


def _win_matrix(theta: FloatArray, kappa: float | None) -> FloatArray:
    d = theta[:, None] - theta[None, :]
    if kappa is None:
        out: FloatArray = expit(d)
        return out
    log_z = np.logaddexp(np.logaddexp(0.5 * d, -0.5 * d), kappa)
    return np.exp(0.5 * d - log_z) + 0.5 * np.exp(kappa - log_z)


def rank_of(ratings: FloatArray) -> FloatArray:
    """Rank = 1 + number of strictly higher ratings; NaN ratings stay NaN."""
    out: FloatArray = rankdata(-ratings, method="min", axis=-1, nan_policy="omit")
    return out


def bradley_terry(
    model_a: Sequence[str],
    model_b: Sequence[str],
    outcomes: Sequence[str],
    *,
    questions: Sequence[Hashable] | None = None,
    ties: Literal["half", "davidson"] = "half",
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    l2: float = 0.0,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> BradleyTerryResult:
    """Fit Bradley-Terry ratings with bootstrap confidence intervals.

    Args:
        model_a: The first model of each battle.
        model_b: The second model of each battle.
        outcomes: ``"1"`` (model A won), ``"2"`` (model B won) or ``"tie"``;
            :class:`fairjudge.Outcome` members work too.
        questions: The question of each battle. When given, the bootstrap
            resamples questions (all battles on a question together), which is
            the honest choice when one question yields several battles.
        ties: ``"half"`` counts a tie as half a win (Chatbot Arena); ``"davidson"``
            fits Davidson's (1970) tie model, in which ties inform a separate tie
            strength instead; it needs at least one tie.
        anchor: The model pinned at ``anchor_rating``; default: the first model in
            alphabetical order.
        anchor_rating: Its rating.
        l2: Ridge penalty ``l2 / 2 * sum(theta**2)`` on the log-odds ratings, added
            to the negative log-likelihood summed over battles. Zero fits the plain
            maximum likelihood; a small value (0.01-1) keeps ratings finite when a
            model never lost.
        n_resamples: Bootstrap rounds.
        seed: Seed of the bootstrap; the same seed and data give the same result.
        level: Nominal coverage of the intervals.

    Returns:
        The leaderboard, best first.

    Raises:
        InputError: Bad battles, a model never compared with the others, or
            (with ``l2=0``) data with no finite maximum.
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
    anchor_idx = resolve_anchor(models, anchor, anchor_rating)
    anchor = models[anchor_idx]
    l2 = check_non_negative("l2", l2)
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    level = check_level(level)

    data = pair_data(n_models, a, b, codes)
    check_identified(data, models, anchor_idx, l2)
    if ties == "davidson" and data.counts[:, 2].sum() == 0:
        raise InputError("outcomes: ties='davidson' needs at least one 'tie'; use ties='half'")

    cluster_cells: sp.csr_array | None = None
    n_questions: int | None = None
    if questions is not None:
        q_codes, n_questions = check_clusters("questions", questions, a.size)
        cluster_cells = sp.csr_array(
            (np.ones(a.size), (q_codes, data.cells)), shape=(n_questions, data.n_cells)
        )
        cluster_cells.sum_duplicates()

    kappa: float | None = None
    if ties == "half":
        start = bt_lbfgs(data.first, data.second, data.counts, n_models, l2)
        theta = start
    else:
        start = davidson_lbfgs(data.first, data.second, data.counts, n_models, l2)
        theta, kappa = start[:n_models], float(start[n_models])

    rng = np.random.default_rng(seed)
    draws = bootstrap_thetas(
        data,
        cluster_cells=cluster_cells,
        ties=ties,
        l2=l2,
        start=start,
        anchor=anchor_idx,
        n_resamples=n_resamples,
        rng=rng,
    )

    elo = anchor_rating + ELO_SCALE * (theta - theta[anchor_idx])
    boot = anchor_rating + ELO_SCALE * (draws.theta - draws.theta[:, [anchor_idx]])
    rows = leaderboard_rows(models, elo, boot, data, level)

    tie_strength = tie_ci = None
    if kappa is not None and draws.kappa is not None:
        tie_strength = math.exp(kappa)
        k_low, k_high = percentile_bounds(np.exp(draws.kappa), level)
        tie_ci = ConfidenceInterval(float(k_low[0]), float(k_high[0]), level)

    return BradleyTerryResult(
        ratings=tuple(rows),
        models=models,
        anchor=anchor,
        anchor_rating=float(anchor_rating),
        ties=ties,
        tie_strength=tie_strength,
        tie_strength_ci=tie_ci,
        l2=l2,
        n_battles=int(a.size),
        n_questions=n_questions,
        bootstrap="battles" if questions is None else "questions",
        n_resamples=n_resamples,
        n_degenerate_resamples=draws.n_degenerate,
        seed=seed,
        level=level,
        win_rate_matrix=_win_matrix(theta, kappa),
        bootstrap_ratings=boot,
    )
