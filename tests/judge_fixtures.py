"""Deterministic Python judges used by the CLI tests (`--judge python:tests.judge_fixtures:X`)."""

from __future__ import annotations

from fairjudge import FatalBackendError


def longer(question: str, answer_a: str, answer_b: str) -> str:
    return "B" if len(answer_b) > len(answer_a) else "A"


def always_a(question: str, answer_a: str, answer_b: str) -> str:
    return "A"


def garbage(question: str, answer_a: str, answer_b: str) -> str:
    return "I refuse to choose."


def explains(question: str, answer_a: str, answer_b: str) -> str:
    return "Answer A is wordy.\nVerdict: B" if len(answer_a) > len(answer_b) else "[[A]]"


def fatal(question: str, answer_a: str, answer_b: str) -> str:
    raise FatalBackendError("the provider answered 401: invalid credentials")


def raises(question: str, answer_a: str, answer_b: str) -> str:
    raise RuntimeError("the judge's own bug")


def counting(question: str, answer_a: str, answer_b: str) -> str:
    """Records each call in $FAIRJUDGE_TEST_CALLS, so a test can prove none was made."""
    import os

    with open(os.environ["FAIRJUDGE_TEST_CALLS"], "a", encoding="utf-8") as fh:
        fh.write("call\n")
    return "B" if len(answer_b) > len(answer_a) else "A"
