"""The length-controlled win rate of a comparison (AlpacaEval 2 style), or why not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairjudge._errors import InputError
from fairjudge.evaluation._results import PairwiseResult

if TYPE_CHECKING:
    from fairjudge.stats import LengthControlledWinRate

__all__ = ["MIN_LC_ITEMS", "length_controlled"]

MIN_LC_ITEMS = 10
"""Fewer resolved items give the regression nothing to learn the length effect from."""


def length_controlled(result: PairwiseResult) -> LengthControlledWinRate | str:
    """AlpacaEval-2-style length-controlled win rate, or the reason it was not computed.

    Needs at least :data:`MIN_LC_ITEMS` resolved items whose answer lengths differ.
    """
    from fairjudge.stats import length_controlled_win_rate  # scipy: load only when used

    done = [j for j in result.judgments if j.outcome is not None]
    if len(done) < MIN_LC_ITEMS:
        return f"needs at least {MIN_LC_ITEMS} resolved items, have {len(done)}"
    s = result.settings
    try:
        return length_controlled_win_rate(
            [j.outcome.value for j in done if j.outcome is not None],
            [len(j.item.answer_1) for j in done],
            [len(j.item.answer_2) for j in done],
            questions=[j.item.cluster_key for j in done],
            n_resamples=s.n_resamples,
            seed=s.seed,
            level=s.level,
        )
    except (InputError, ValueError) as exc:
        return str(exc)
