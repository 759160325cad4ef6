"""Leaderboards on the Elo scale: rows, ranks and what every leaderboard records.

Shared by the plain Bradley-Terry fit and the style-controlled one, which differ in
the model they fit but not in how a fit becomes a leaderboard: ratings anchored on
one model, percentile intervals of the ratings and of the ranks, and those
intervals refused (with the reason) where too many bootstrap rounds had no finite
maximum for that model's rating, or where the full-data fit identifies no rating.
In that last case the ratings themselves (all but the pinned anchor's) and every
rank are refused too: a number the fit cannot estimate is never printed as one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, Self

import numpy as np
from scipy.stats import rankdata

from fairjudge._errors import worded
from fairjudge.stats._bt_bootstrap import BootstrapDraws, PairData
from fairjudge.stats._bt_data import (
    Identification,
    check_fallback,
    identify,
    model_counts,
    pair_data,
    resolve_anchor,
)
from fairjudge.stats._intervals import ConfidenceInterval, Estimable
from fairjudge.stats._resample import (
    BootstrapOptions,
    BootstrapPlan,
    Resampled,
    nan_to_none,
    plan_bootstrap,
    unstable_reason,
)
from fairjudge.stats._validate import BoolArray, FloatArray, IntArray, check_non_negative

__all__ = [
    "ELO_SCALE",
    "FitInputs",
    "Leaderboard",
    "ModelRating",
    "check_fit_inputs",
    "rank_of",
    "to_elo",
]

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of log-odds: a 400-point gap means 10:1 odds."""

_DIVERGED = (
    "have no finite maximum for this rating (a group of models never lost in them); "
    "pass l2 > 0 or add battles"
)


@dataclass(frozen=True, slots=True)
class ModelRating(Estimable):
    """One model's row of the leaderboard.

    Attributes:
        model: The model's name.
        rating: Bradley-Terry rating on the Elo scale; NaN when it cannot be
            estimated (``reason`` says why).
        ci: Bootstrap percentile interval of the rating, or why there is none.
        rank: 1 + the number of models with a strictly higher rating; ``None`` when
            the ratings are not identified (then no order between models is known).
        rank_ci: Bootstrap interval of the rank (integer-valued bounds).
        n_battles: Battles the model took part in.
        wins: Battles it won.
        losses: Battles it lost.
        ties: Battles that were tied.
        n_degenerate_resamples: Bootstrap rounds in which this rating was not
            identified (left out of its interval) or had no finite maximum (in style
            control, also: the round was separated by style).
        reason: Why the rating itself cannot be estimated (say, style separates the
            verdicts, so the fit stopped anywhere); ``None`` when it can.
    """

    model: str
    rating: float
    ci: ConfidenceInterval
    rank: int | None
    rank_ci: ConfidenceInterval
    n_battles: int
    wins: int
    losses: int
    ties: int
    n_degenerate_resamples: int = 0
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: a rating that cannot be estimated is ``None``, with its reason."""
        return {
            "model": self.model,
            "rating": nan_to_none(self.rating),
            "estimable": self.estimable,
            "reason": self.reason,
            "ci": self.ci.to_dict(),
            "rank": self.rank,
            "rank_ci": self.rank_ci.to_dict(),
            "n_battles": self.n_battles,
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
            "n_degenerate_resamples": self.n_degenerate_resamples,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaderboard(Resampled):
    """What every Bradley-Terry leaderboard holds.

    Attributes:
        ratings: One row per model, best first.
        models: All models in index order (alphabetical).
        anchor: The model pinned at ``anchor_rating``.
        anchor_rating: Its rating.
        l2: Ridge strength of the fit.
        n_battles: Number of battles.
        bootstrap: ``"battles"`` or ``"questions"``: what each round resampled.
        n_degenerate_resamples: Rounds where some rating was not identified (left
            out of that model's interval) or had no finite maximum (in style control,
            also: rounds separated by style, or whose Newton did not converge).
        held_by_ridge: Models with no finite maximum-likelihood rating in the battles
            (a group that never lost, or never won, against the rest): their rating is
            where the ridge ``l2`` holds it, and their interval is not estimable.
        l2_fallback: Whether ``l2`` is the fallback ridge, used because ``l2=0`` was
            asked for and the battles have no finite maximum.
    """

    ratings: tuple[ModelRating, ...]
    models: tuple[str, ...]
    anchor: str
    anchor_rating: float
    l2: float
    n_battles: int
    bootstrap: Literal["battles", "questions"]
    n_degenerate_resamples: int
    held_by_ridge: tuple[str, ...] = ()
    l2_fallback: bool = False

    def rating(self, model: str) -> ModelRating:
        """The leaderboard row of ``model``.

        Raises:
            KeyError: Unknown model.
        """
        for row in self.ratings:
            if row.model == model:
                return row
        raise KeyError(f"model {model!r} is not in this leaderboard; known: {list(self.models)}")

    def table_lines(self) -> list[str]:
        """The leaderboard as plain-text lines; what cannot be estimated is ``n/a``, with why."""
        pct = round(self.level * 100)
        width = max(5, *(len(r.model) for r in self.ratings))
        lines = [
            f"{'rank':>4}  {'model':<{width}}  {'rating':>7}  {f'{pct}% CI':>17}  "
            f"{'rank CI':>7}  {'battles':>7}",
        ]
        refused: dict[tuple[str, str], list[str]] = {}
        for r in self.ratings:
            ci = format(r.ci, "7.1f") if r.ci.estimable else "n/a"
            rank_ci = f"{r.rank_ci.low:.0f}-{r.rank_ci.high:.0f}" if r.rank_ci.estimable else "n/a"
            rank = "n/a" if r.rank is None else str(r.rank)
            rating = format(r.rating, "7.1f") if r.estimable else "n/a"
            lines.append(
                f"{rank:>4}  {r.model:<{width}}  {rating:>7}  {ci:>17}  "
                f"{rank_ci:>7}  {r.n_battles:>7}"
            )
            what = "rating and interval" if r.reason is not None else "interval"
            if r.ci.reason is not None or r.reason is not None:
                refused.setdefault((what, r.reason or r.ci.reason or ""), []).append(r.model)
        # Models refused for the same reason (say, style separates the verdicts) share one
        # note, so that a long reason is read once.
        notes = [
            f"  {', '.join(m)}: {what} cannot be estimated: {why}"
            for (what, why), m in refused.items()
        ]
        if self.n_degenerate_resamples:
            notes.append(f"{self.n_degenerate_resamples} degenerate bootstrap rounds")
        fallback = self.fallback_note()
        return lines + notes + ([fallback] if fallback else [])

    def fallback_note(self) -> str | None:
        """That the fit fell back to a ridge, and why; ``None`` when it did not."""
        if not self.l2_fallback:
            return None
        return (
            f"fitted with the fallback ridge l2={self.l2:g}: without a ridge the ratings of "
            f"{', '.join(self.held_by_ridge)} have no finite maximum"
        )

    @classmethod
    def from_bootstrap(
        cls,
        models: tuple[str, ...],
        elo: FloatArray,
        boot: FloatArray,
        draws: BootstrapDraws,
        fit: FitInputs,
        *,
        anchor_rating: float,
        not_identified: str | None = None,
        unstable: str | None = None,
        **extra: Any,
    ) -> Self:
        """Build the leaderboard from its point and bootstrap ratings.

        Args:
            models: Model names in index order.
            elo: ``(n,)`` ratings on the Elo scale.
            boot: ``(B, n)`` bootstrap ratings on the Elo scale; NaN where not
                identified.
            draws: The bootstrap rounds (which ratings diverged, how many were
                degenerate).
            fit: The fit's checked inputs (:func:`check_fit_inputs`): the anchor, the
                bootstrap plan, the battles, and the ridge with the models it alone
                holds (``fit.found.held``), whose rating intervals it refuses; their
                rank intervals stand, since the battles do order them against the rest.
            anchor_rating: The anchor's rating.
            not_identified: Why the full-data fit identifies no rating (say, the
                verdicts are separated by style), or ``None``. When given, it replaces
                every rating and rating interval but the anchor's (a point by
                construction), every rank and every rank interval.
            unstable: What went wrong in a round whose rating diverged, completing
                "N of B bootstrap resamples ..." in a refused interval's reason; by
                default, no finite maximum, and the ridge (``l2``) that gives one.
            **extra: The subclass's own fields.
        """
        anchor, plan, data, found = fit
        rank_reasons = _reasons(draws.diverged, plan, unstable or worded(_DIVERGED, "l2"))
        reasons = [h or r for h, r in zip(found.held, rank_reasons, strict=True)]
        refused: list[str | None] = [None] * len(models)
        if not_identified is not None:
            reasons = [r if i == anchor else not_identified for i, r in enumerate(reasons)]
            rank_reasons = [not_identified] * len(models)
            refused = [None if i == anchor else not_identified for i in range(len(models))]
        why = (reasons, rank_reasons, refused)
        rows = _rows(models, elo, boot, data, plan, draws.diverged, why)
        return cls(
            ratings=tuple(rows),
            models=models,
            anchor=models[anchor],
            anchor_rating=float(anchor_rating),
            l2=found.l2,
            n_battles=int(data.cells.size),
            bootstrap="battles" if plan.n_questions is None else "questions",
            n_degenerate_resamples=draws.n_degenerate,
            held_by_ridge=tuple(m for m, why in zip(models, found.held, strict=True) if why),
            l2_fallback=found.fell_back,
            **plan.record(),
            **extra,
        )

    def leaderboard_dict(self) -> dict[str, Any]:
        """The shared fields, JSON-ready: the core of every leaderboard's ``to_dict``."""
        return {
            "ratings": [r.to_dict() for r in self.ratings],
            "models": list(self.models),
            "anchor": self.anchor,
            "anchor_rating": self.anchor_rating,
            "l2": self.l2,
            "n_battles": self.n_battles,
            "bootstrap": self.bootstrap,
            "n_degenerate_resamples": self.n_degenerate_resamples,
            "held_by_ridge": list(self.held_by_ridge),
            "l2_fallback": self.l2_fallback,
            **self.resampling_dict(),
        }


class FitInputs(NamedTuple):
    """A leaderboard fit's checked inputs, the same for the plain and the styled fit.

    Attributes:
        anchor: Index of the anchor model.
        plan: The bootstrap plan (rounds, seed, level, question clusters).
        data: The battles, per pair.
        found: What the battles pin down, and the ridge to fit with (``found.l2``).
    """

    anchor: int
    plan: BootstrapPlan
    data: PairData
    found: Identification


def check_fit_inputs(
    models: tuple[str, ...],
    battles: tuple[IntArray, IntArray, IntArray],
    anchor: str | None,
    anchor_rating: float,
    l2: float,
    fallback_l2: float | None,
    options: BootstrapOptions,
) -> FitInputs:
    """Check a fit's anchor, ridge and bootstrap options, and what its battles identify.

    One place, so that :func:`.bradley_terry` and
    :func:`.style_controlled_bradley_terry` refuse the same inputs in the same order
    with the same messages.

    Args:
        models: Model names in index order (from :func:`._bt_data.encode_battles`).
        battles: The encoded battles: model A's index, model B's index and the
            outcome code of each.
        anchor: The model pinned at ``anchor_rating``; ``None``: the first.
        anchor_rating: Its rating.
        l2: The ridge asked for.
        fallback_l2: The ridge to use when ``l2`` is 0 and the ratings have no finite
            maximum; ``None`` refuses such battles.
        options: The caller's bootstrap options.

    Raises:
        ConfigError: A bad anchor, ridge or bootstrap option.
        InputError: Models never compared with the others, or (with ``l2=0`` and no
            ``fallback_l2``) data with no finite maximum.
    """
    a, b, codes = battles
    anchor_idx = resolve_anchor(models, anchor, anchor_rating)
    l2 = check_non_negative("l2", l2)
    fallback = check_fallback(fallback_l2)
    plan = plan_bootstrap(a.size, options)
    data = pair_data(len(models), a, b, codes)
    found = identify(data, models, anchor_idx, l2, fallback_l2=fallback)
    return FitInputs(anchor_idx, plan, data, found)


def to_elo(theta: FloatArray, anchor: int, anchor_rating: float) -> FloatArray:
    """Log-odds ratings, ``(n,)`` or ``(B, n)``, to the Elo scale with ``anchor`` pinned."""
    out: FloatArray = anchor_rating + ELO_SCALE * (theta - theta[..., [anchor]])
    return out


def rank_of(ratings: FloatArray) -> FloatArray:
    """Rank = 1 + number of strictly higher ratings; NaN ratings stay NaN."""
    out: FloatArray = rankdata(-ratings, method="min", axis=-1, nan_policy="omit")
    return out


def _reasons(diverged: BoolArray, plan: BootstrapPlan, unstable: str) -> list[str | None]:
    """Per model, why its interval rests on too many diverged rounds, or ``None``."""
    return [
        unstable_reason(int(d), plan.n_resamples, plan.level, unstable)
        for d in diverged.sum(axis=0)
    ]


def _rows(
    models: tuple[str, ...],
    elo: FloatArray,
    boot: FloatArray,
    data: PairData,
    plan: BootstrapPlan,
    diverged: BoolArray,
    why: tuple[list[str | None], list[str | None], list[str | None]],
) -> list[ModelRating]:
    """Leaderboard rows, best first, from point and bootstrap ratings on the Elo scale.

    Args:
        models: Model names in index order.
        elo: ``(n,)`` ratings.
        boot: ``(B, n)`` bootstrap ratings; NaN where not identified.
        data: The battles, for the win/loss/tie counts.
        plan: The bootstrap's options.
        diverged: ``(B, n)`` ratings with no finite maximum (or separated) in that round.
        why: Per model, why its rating interval is not estimable, why its rank
            interval is not, and why its rating itself is not (``None``: it is). When
            any rating is refused, so is every rank: no order between them is known.
    """
    reasons, rank_reasons, refused = why
    cis = plan.intervals(boot, reasons=reasons)
    rank_cis = plan.intervals(rank_of(boot), method="inverted_cdf", reasons=rank_reasons)
    n_degenerate = (np.isnan(boot) | diverged).sum(axis=0)
    ranks = None if any(refused) else rank_of(elo)
    wins, losses, ties = model_counts(data)
    rows = [
        ModelRating(
            model=models[i],
            rating=math.nan if refused[i] else float(elo[i]),
            ci=cis[i],
            rank=None if ranks is None else int(ranks[i]),
            rank_ci=rank_cis[i],
            n_battles=int(wins[i] + losses[i] + ties[i]),
            wins=int(wins[i]),
            losses=int(losses[i]),
            ties=int(ties[i]),
            n_degenerate_resamples=int(n_degenerate[i]),
            reason=refused[i],
        )
        for i in range(len(models))
    ]
    # Ratings that cannot be estimated have no order: after the others, by name.
    rows.sort(key=lambda r: (not r.estimable, -r.rating if r.estimable else 0.0, r.model))
    return rows
