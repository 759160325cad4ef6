"""Python pointwise judges for the command line (``--judge python:tests.scorers:...``)."""

from __future__ import annotations

SPREAD = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}


def spread(question: str, answer: str) -> dict[str, int]:
    """Scores by the answer's first letter: every level used."""
    level = SPREAD.get(answer[:1], 3)
    return {"accuracy": level, "relevance": 6 - level, "usefulness": level}


def fours(question: str, answer: str) -> dict[str, int]:
    """A judge that says 4 to everything."""
    return {"accuracy": 4, "relevance": 4, "usefulness": 4}


def half_broken(question: str, answer: str) -> dict[str, int] | str:
    """Off the scale for answers starting with 'x'."""
    if answer.startswith("x"):
        return {"accuracy": 9, "relevance": 4, "usefulness": 4}
    return fours(question, answer)


def digits(question: str, answer: str) -> dict[str, int]:
    """Accuracy is the answer's leading digit; usefulness its mirror image (6 - digit)."""
    level = int(answer[0])
    return {"accuracy": level, "relevance": 3, "usefulness": 6 - level}


def leading(question: str, answer: str) -> dict[str, int]:
    """Every dimension is the answer's leading digit."""
    return dict.fromkeys(("accuracy", "relevance", "usefulness"), int(answer[0]))


def leading_or_broken(question: str, answer: str) -> dict[str, int]:
    """As :func:`leading`, but off the scale for answers starting with 9."""
    return leading(question, answer) if not answer.startswith("9") else {"accuracy": 9}
