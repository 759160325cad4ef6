"""Python pointwise members for scoring-panel tests (``python:tests.panel_scorers:...``).

Each scores an answer that starts with a digit 1-5 from that digit, so a test knows
every member's score on every answer without a model.
"""

from __future__ import annotations

import random
from collections.abc import Callable

DIMENSIONS = ("accuracy", "relevance", "usefulness")


def _level(answer: str) -> int:
    return int(answer[0])


def leading(question: str, answer: str) -> dict[str, int]:
    """Every dimension is the answer's leading digit."""
    return dict.fromkeys(DIMENSIONS, _level(answer))


def mirror(question: str, answer: str) -> dict[str, int]:
    """The dissenter: every dimension is ``6 - digit``."""
    return dict.fromkeys(DIMENSIONS, 6 - _level(answer))


def high(question: str, answer: str) -> dict[str, int]:
    """One level above the digit (5 stays 5)."""
    return dict.fromkeys(DIMENSIONS, min(5, _level(answer) + 1))


def fails_on_fives(question: str, answer: str) -> dict[str, int]:
    """As :func:`leading`, but raises for answers starting with 5 (a failed call)."""
    if answer.startswith("5"):
        raise RuntimeError("scorer crashed")
    return leading(question, answer)


def noisy(seed: str) -> Callable[[str, str], dict[str, int]]:
    """A member that scores the digit plus its own noise (a fresh draw per answer)."""

    def score(question: str, answer: str) -> dict[str, int]:
        rng = random.Random(f"{seed}:{question}:{answer}")
        out = {}
        for dim in DIMENSIONS:
            out[dim] = min(5, max(1, _level(answer) + rng.choice((-2, -1, 0, 1, 2))))
        return out

    score.__qualname__ = f"noisy_{seed}"
    return score
