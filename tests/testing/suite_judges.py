"""Declared Python judges for the plugin's tests: offline, deterministic, cached by name.

``facts`` prefers the answer that states the example set's fact; ``garbled`` answers
text no parser reads on questions that mention a number, so those items are
unresolved (never ties); ``scores`` scores the ``production`` rubric.
"""

from __future__ import annotations

from fairjudge.examples.judges import knows_facts, scorer


def facts(question: str, answer_a: str, answer_b: str) -> str:
    return knows_facts(question, answer_a, answer_b)


def garbled(question: str, answer_a: str, answer_b: str) -> str:
    if any(ch.isdigit() for ch in question) or "How many" in question:
        return "I cannot decide between these two."
    return knows_facts(question, answer_a, answer_b)


def scores(question: str, answer: str) -> dict[str, int]:
    return scorer(question, answer)


for _judge, _name in ((facts, "suite-facts"), (garbled, "suite-garbled"), (scores, "suite-scores")):
    _judge.fairjudge_name = _name  # type: ignore[attr-defined]
    _judge.fairjudge_version = "1"  # type: ignore[attr-defined]
