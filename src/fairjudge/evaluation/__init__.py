"""Evaluations built on the judges: plan calls for items, resolve them, summarise.

- :func:`evaluate_pairs` / :func:`evaluate`: a position-debiased comparison of two
  systems, as a :class:`PairwiseResult` with every number's CI.
- :func:`length_controlled`: the AlpacaEval-2-style length-controlled win rate of
  a result, or why it cannot be estimated.
- :mod:`fairjudge.evaluation._battles`: pairings and battles for rankings.
"""

from fairjudge.evaluation._battles import (
    Battles,
    LongAnswers,
    battles_from,
    load_ranking_input,
    make_pairs,
)
from fairjudge.evaluation._length import length_controlled
from fairjudge.evaluation._pairs import JudgeLike, evaluate, evaluate_pairs
from fairjudge.evaluation._results import PairwiseResult, Rate, WinRate, summarise
from fairjudge.evaluation._settings import EvalSettings, RuleLike, as_rule, check_repeats

__all__ = [
    "Battles",
    "EvalSettings",
    "JudgeLike",
    "LongAnswers",
    "PairwiseResult",
    "Rate",
    "RuleLike",
    "WinRate",
    "as_rule",
    "battles_from",
    "check_repeats",
    "evaluate",
    "evaluate_pairs",
    "length_controlled",
    "load_ranking_input",
    "make_pairs",
    "summarise",
]
