"""Fit a leaderboard to battles: Bradley-Terry, and the style-controlled fit when asked.

``fairjudge rank`` and :func:`fairjudge.rank` fit the same way, here: with the
ridge the command line falls back to (:data:`FALLBACK_L2`) when ``l2`` is 0 and the
judged battles have no finite maximum.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from fairjudge._errors import ConfigError
from fairjudge.evaluation._battles import Battles

if TYPE_CHECKING:
    from fairjudge.stats import BradleyTerryResult, StyleControlResult

__all__ = ["FALLBACK_L2", "fit_battles"]

FALLBACK_L2 = 0.1
"""The ridge a ranking fits with when ``l2`` is 0 and the judged battles have no finite
maximum (a model that never lost, or never won): a prior sd of about 550 Elo points.
Found only after judging, so it is said with the leaderboard rather than refused."""


def fit_battles(
    battles: Battles,
    *,
    ties: Literal["half", "davidson"] = "half",
    style_control: bool = False,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    l2: float = 0.0,
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[BradleyTerryResult, StyleControlResult | None]:
    """Bradley-Terry ratings of the battles, and the style-controlled fit when asked for.

    Both bootstrap over questions when the battles name them, and fall back to a
    ridge of :data:`FALLBACK_L2` when ``l2`` is 0 and the ratings have no finite
    maximum (each result says so).

    Returns:
        The leaderboard, and the style-controlled one (``None`` unless ``style_control``).

    Raises:
        ConfigError: ``style_control`` on battles without their answers.
    """
    from fairjudge.stats import bradley_terry, style_controlled_bradley_terry  # scipy: lazily

    outcomes = [o.value for o in battles.outcomes]
    leaderboard = bradley_terry(
        battles.model_a, battles.model_b, outcomes, ties=ties, anchor=anchor,
        anchor_rating=anchor_rating, l2=l2, fallback_l2=FALLBACK_L2,
        n_resamples=n_resamples, seed=seed, questions=battles.questions,
    )  # fmt: skip
    styled = None
    if style_control:
        if battles.answers_a is None or battles.answers_b is None:
            raise ConfigError(
                "style_control needs the answers: give long-format input", params="style_control"
            )
        styled = style_controlled_bradley_terry(
            battles.model_a, battles.model_b, outcomes, battles.answers_a, battles.answers_b,
            anchor=anchor, anchor_rating=anchor_rating, l2=l2, fallback_l2=FALLBACK_L2,
            n_resamples=n_resamples, seed=seed, questions=battles.questions,
        )  # fmt: skip
    return leaderboard, styled
