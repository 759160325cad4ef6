"""Battles as data (validation, integer codes, per-pair counts, identifiability), and online Elo.

Shared by every Bradley-Terry fit (plain, style-controlled, system-level agreement)
and by online Elo, so that they all accept and reject the same inputs with the same
messages.

**Online Elo**, for people used to it.

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

import numpy as np

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._bt_bootstrap import PairData, Unbounded, mle_exists, reachable_from, unbounded
from fairjudge.stats._validate import (
    FloatArray,
    IntArray,
    check_labels,
    check_non_negative,
    check_outcomes,
    check_same_length,
)

__all__ = [
    "Identification",
    "OnlineEloResult",
    "check_fallback",
    "encode_battles",
    "identify",
    "model_counts",
    "online_elo",
    "pair_data",
    "resolve_anchor",
]


def encode_battles(
    model_a: Sequence[str], model_b: Sequence[str], outcomes: Sequence[str]
) -> tuple[tuple[str, ...], IntArray, IntArray, IntArray]:
    """Validate battles and map them to integer codes.

    Returns:
        The models in alphabetical order, the index of each battle's model A and
        model B, and the outcome codes (0: A won, 1: B won, 2: tie).

    Raises:
        InputError: Mismatched lengths, a bad name or outcome, or a self-battle.
    """
    n = check_same_length(model_a=model_a, model_b=model_b, outcomes=outcomes)
    if n == 0:
        raise InputError("model_a, model_b and outcomes are empty; a rating needs battles")
    names_a, distinct_a = check_labels("model_a", model_a)
    names_b, distinct_b = check_labels("model_b", model_b)
    codes = check_outcomes("outcomes", outcomes)
    models = tuple(sorted(distinct_a | distinct_b))
    index = {m: i for i, m in enumerate(models)}
    a = np.fromiter(map(index.__getitem__, names_a), dtype=np.intp, count=n)
    b = np.fromiter(map(index.__getitem__, names_b), dtype=np.intp, count=n)
    same = np.flatnonzero(a == b)
    if same.size:
        i = int(same[0])
        raise InputError(
            f"model_a[{i}] and model_b[{i}] are both {names_a[i]!r}; a model cannot battle itself"
        )
    return models, a, b, codes


def pair_data(n_models: int, a: IntArray, b: IntArray, codes: IntArray) -> PairData:
    """Merge battles into counts per unordered pair and outcome."""
    first = np.minimum(a, b)
    second = np.maximum(a, b)
    # Outcome from the point of view of `first`: 0 it won, 1 `second` won, 2 tie.
    flipped = a > b
    rel = codes.copy()
    rel[flipped & (codes == 0)] = 1
    rel[flipped & (codes == 1)] = 0
    keys, pair_of_battle = _distinct(first * n_models + second, n_models * n_models)
    cells = pair_of_battle.astype(np.intp) * 3 + rel
    counts = np.bincount(cells, minlength=3 * keys.size).astype(np.float64).reshape(-1, 3)
    return PairData(
        n_models=n_models,
        first=(keys // n_models).astype(np.intp),
        second=(keys % n_models).astype(np.intp),
        counts=counts,
        cells=cells,
    )


_DENSE_KEYS = 1 << 22
"""Up to this many possible pair keys (about 2,000 models), pairs are found with a
lookup table instead of a sort."""


def _distinct(keys: IntArray, n_keys: int) -> tuple[IntArray, IntArray]:
    """``np.unique(keys, return_inverse=True)`` for keys in ``[0, n_keys)``.

    With few possible keys a table of which are present gives the same sorted keys and
    the same inverse without sorting 200,000 battles.
    """
    if n_keys > _DENSE_KEYS:
        distinct, inverse = np.unique(keys, return_inverse=True)
        return distinct, inverse.astype(np.intp)
    present = np.zeros(n_keys, dtype=bool)
    present[keys] = True
    distinct = np.flatnonzero(present)
    position = np.cumsum(present, dtype=np.intp) - 1
    return distinct, position[keys]


def resolve_anchor(models: tuple[str, ...], anchor: str | None, anchor_rating: float) -> int:
    """Index of the anchor model (default: the first alphabetically).

    Raises:
        ConfigError: Unknown anchor, or a non-finite ``anchor_rating``.
    """
    if anchor is None:
        anchor = models[0]
    if anchor not in models:
        raise ConfigError(f"anchor {anchor!r} is not one of the models; known: {list(models)[:10]}")
    if (
        isinstance(anchor_rating, bool)
        or not isinstance(anchor_rating, int | float)
        or not math.isfinite(anchor_rating)
    ):
        raise ConfigError(f"anchor_rating must be a finite number; got {anchor_rating!r}")
    return models.index(anchor)


@dataclass(frozen=True, slots=True)
class Identification:
    """What the battles pin down, and the ridge the fit uses.

    Attributes:
        l2: The ridge strength to fit with: the one asked for, or the fallback.
        fell_back: Whether ``l2`` is the fallback, used because the unpenalised
            ratings have no finite maximum.
        held: Per model (index order), why only the ridge holds its rating (it has
            no finite unpenalised maximum relative to the anchor), or ``None``.
    """

    l2: float
    fell_back: bool
    held: tuple[str | None, ...]


def identify(
    data: PairData,
    models: tuple[str, ...],
    anchor: int,
    l2: float,
    *,
    fallback_l2: float | None = None,
    name: str = "outcomes",
) -> Identification:
    """Check that every rating is identified; say which only a ridge keeps finite.

    A group of models that never lost (or never won) against the rest has no finite
    maximum-likelihood rating: it runs off to infinity. With ``l2 > 0`` the ridge
    holds it at a value the penalty, not the battles, decides; with ``l2 == 0`` the
    fit falls back to ``fallback_l2`` when one is given (Chatbot Arena's tooling
    always fits with a small ridge), and is refused otherwise.

    Args:
        data: The battles, per pair.
        models: Model names in index order.
        anchor: Index of the anchor model.
        l2: The ridge asked for.
        fallback_l2: The ridge to use instead of ``l2 == 0`` when the unpenalised
            maximum does not exist; ``None`` refuses such data.
        name: The parameter that holds the outcomes, for the message.

    Raises:
        InputError: Models never compared with the anchor's group, or, with
            ``l2 == 0`` and no ``fallback_l2``, a group that never lost, so the
            maximum is at infinity.
    """
    total = data.counts.sum(axis=1)
    reach = reachable_from(data.first, data.second, total, data.n_models, anchor)
    if not reach.all():
        apart = [models[i] for i in np.flatnonzero(~reach)][:5]
        raise InputError(
            f"model_a/model_b: models {apart} are never compared, directly or through other "
            f"models, with {models[anchor]!r}; their ratings cannot share one scale. Add battles "
            "between the groups, or rate each group separately"
        )
    none: tuple[str | None, ...] = (None,) * len(models)
    score = data.counts[:, 0] + 0.5 * data.counts[:, 2]
    exists, labels = mle_exists(data.first, data.second, score, total, data.n_models)
    if exists:
        return Identification(l2, False, none)
    fell_back = False
    if l2 == 0.0:
        if fallback_l2 is None:
            groups = [
                [models[i] for i in np.flatnonzero(labels == g)][:4] for g in np.unique(labels)
            ]
            raise InputError(
                f"{name}: the ratings have no finite maximum-likelihood value: some group of "
                "models never lost (or tied) against the rest, so its ratings run off to "
                f"infinity. Groups: {groups[:4]}. Pass l2 > 0 to shrink ratings toward each "
                "other (l2=0.1), or add battles",
                params="l2",
            )
        l2, fell_back = fallback_l2, True
    off = unbounded(data.first, data.second, score, total, data.n_models, anchor)
    return Identification(l2, fell_back, _held_reasons(off, models[anchor], l2))


def _held_reasons(off: Unbounded, anchor: str, l2: float) -> tuple[str | None, ...]:
    """Per model, why its rating is the ridge's, not the battles': which way it runs off."""
    ridge = (
        f"the rating shown is where the ridge (l2={l2:g}) holds it, not an estimate from the "
        "battles, and an interval would measure the ridge"
    )
    above = (
        f"no finite maximum-likelihood rating: the group of {anchor!r} never beat or tied it "
        f"(directly or through other models), so without a ridge it runs off to plus "
        f"infinity; {ridge}"
    )
    below = (
        f"no finite maximum-likelihood rating: it never beat or tied the group of {anchor!r} "
        f"(directly or through other models), so without a ridge it runs off to minus "
        f"infinity; {ridge}"
    )
    apart = (
        f"no finite maximum-likelihood rating: it is ordered against the group of {anchor!r} "
        f"only through models whose own ratings run off, so without a ridge it is bounded "
        f"neither way; {ridge}"
    )
    out: list[str | None] = []
    for up, down, neither in zip(off.above, off.below, off.apart, strict=True):
        out.append(above if up else below if down else apart if neither else None)
    return tuple(out)


def check_fallback(fallback_l2: float | None) -> float | None:
    """Check ``fallback_l2``: ``None``, or a finite ridge > 0.

    Raises:
        ConfigError: Zero, negative, infinite, NaN or not a number.
    """
    if fallback_l2 is None:
        return None
    value = check_non_negative("fallback_l2", fallback_l2)
    if value == 0.0:
        raise ConfigError("fallback_l2 must be > 0 (or None to refuse unbounded ratings); got 0")
    return value


def model_counts(data: PairData) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Wins, losses and ties of each model."""
    n = data.n_models
    c = data.counts

    def tally(col_first: int, col_second: int) -> FloatArray:
        out = np.bincount(data.first, c[:, col_first], n) + np.bincount(
            data.second, c[:, col_second], n
        )
        return np.asarray(out, dtype=np.float64)

    return tally(0, 1), tally(1, 0), tally(2, 2)


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
