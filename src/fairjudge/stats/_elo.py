"""Online Elo, for people used to it.

Online Elo updates two ratings after every battle: ``R_a += K (S_a - E_a)`` with
``E_a = 1 / (1 + 10^((R_b - R_a) / 400))`` and ``S_a`` = 1, 0.5 or 0. It was
designed for players whose strength drifts over time, so recent games weigh more.

That is the wrong assumption for frozen models, and it has a cost: **the result
depends on the order of the battles.** Shuffle the same battles and the ratings
move, by tens of points with the default K, and a model that played its easy
battles last ends higher than one that played them first. Chatbot Arena moved from
online Elo to the Bradley-Terry fit for this reason. Prefer
:func:`fairjudge.stats.bradley_terry`, which uses all battles at once, is
order-free, and comes with confidence intervals; use this to reproduce numbers
computed the old way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fairjudge._errors import ConfigError
from fairjudge.stats._bt_data import encode_battles
from fairjudge.stats._validate import check_non_negative

__all__ = ["OnlineEloResult", "online_elo"]


@dataclass(frozen=True, slots=True)
class OnlineEloResult:
    """Ratings after replaying the battles in the given order.

    There is no confidence interval: the spread that matters most here is the
    order dependence, which an interval over resampled battles would not show.

    Attributes:
        ratings: ``(model, rating)`` pairs, best first.
        k: The K-factor.
        initial_rating: Every model's starting rating.
        n_battles: Battles replayed.
    """

    ratings: tuple[tuple[str, float], ...]
    k: float
    initial_rating: float
    n_battles: int

    def rating(self, model: str) -> float:
        """The final rating of ``model``.

        Raises:
            KeyError: Unknown model.
        """
        for name, value in self.ratings:
            if name == model:
                return value
        raise KeyError(f"model {model!r} played no battle")

    def summary(self) -> str:
        """A plain-text leaderboard."""
        width = max(5, *(len(m) for m, _ in self.ratings))
        lines = [
            f"Online Elo (K={self.k:g}, start {self.initial_rating:g}), {self.n_battles} "
            "battles in the given order; order-dependent, no intervals"
        ]
        lines += [f"{i:>4}  {m:<{width}}  {r:7.1f}" for i, (m, r) in enumerate(self.ratings, 1)]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "ratings": [{"model": m, "rating": r} for m, r in self.ratings],
            "k": self.k,
            "initial_rating": self.initial_rating,
            "n_battles": self.n_battles,
            "order_dependent": True,
        }


def online_elo(
    model_a: Sequence[str],
    model_b: Sequence[str],
    outcomes: Sequence[str],
    *,
    k: float = 4.0,
    initial_rating: float = 1000.0,
) -> OnlineEloResult:
    """Replay battles in order with the online Elo update.

    Args:
        model_a: The first model of each battle.
        model_b: The second model of each battle.
        outcomes: ``"1"`` (A won), ``"2"`` (B won) or ``"tie"`` (half a win each).
        k: K-factor: how far one battle moves a rating. FastChat's default is 4.
        initial_rating: Every model's starting rating.

    Returns:
        The final ratings. They depend on the battle order; see the module notes.

    Raises:
        InputError: Bad battles.
        ConfigError: A bad ``k`` or ``initial_rating``.
    """
    models, a, b, codes = encode_battles(model_a, model_b, outcomes)
    k = check_non_negative("k", k)
    if isinstance(initial_rating, bool) or not math.isfinite(initial_rating):
        raise ConfigError(f"initial_rating must be a finite number; got {initial_rating!r}")
    ratings = [float(initial_rating)] * len(models)
    score_of = (1.0, 0.0, 0.5)
    # A plain loop on purpose: each update depends on the one before.
    for i, j, c in zip(a.tolist(), b.tolist(), codes.tolist(), strict=True):
        expected = 1.0 / (1.0 + 10.0 ** ((ratings[j] - ratings[i]) / 400.0))
        delta = k * (score_of[c] - expected)
        ratings[i] += delta
        ratings[j] -= delta
    order = sorted(range(len(models)), key=lambda i: (-ratings[i], models[i]))
    return OnlineEloResult(
        ratings=tuple((models[i], ratings[i]) for i in order),
        k=k,
        initial_rating=float(initial_rating),
        n_battles=int(a.size),
    )
