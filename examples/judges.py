"""Example Python judges for `fairjudge compare --judge python:examples.judges:NAME`.

They are deliberately simple and deterministic, so the CLI can be tried without a
model: `first_position` shows what pure position bias looks like, `longer` shows
verbosity bias, and `keyword` is a judge that knows the facts of the example set.
"""

from __future__ import annotations


def first_position(question: str, answer_a: str, answer_b: str) -> str:
    """Always prefers whatever it sees first: pure position bias."""
    return "A"


def longer(question: str, answer_a: str, answer_b: str) -> str:
    """Prefers the longer answer (ties go to position A)."""
    return "B" if len(answer_b) > len(answer_a) else "A"
