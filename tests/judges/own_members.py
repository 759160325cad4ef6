"""Python jury members for the tests that run a panel of your own judges on the engine.

Named as ``python:tests.judges.own_members:NAME``. Every call meets one other call
(a barrier of two), so a member answers only when two of its calls run at once: the
judge itself shows the panel ran it concurrently, with no timing. Each call is also
counted in ``$FAIRJUDGE_TEST_CALLS`` when that is set.
"""

from __future__ import annotations

import os
import time

import fairjudge
from tests.judges.own_judges import AtOnce, _longer

meeting = AtOnce(2)  # how many of the members' calls ran at once, as they see it


def _count() -> None:
    path = os.environ.get("FAIRJUDGE_TEST_CALLS")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("call\n")
    delay = float(os.environ.get("FAIRJUDGE_TEST_DELAY", "0"))
    if delay:
        time.sleep(delay)


def meets_longer(question: str, answer_a: str, answer_b: str) -> str:
    """Undeclared; answers only with a second call running beside it."""
    meeting.attend()
    return _longer(answer_a, answer_b)


def meets_shorter(question: str, answer_a: str, answer_b: str) -> str:
    """Undeclared dissenter; answers only with a second call running beside it."""
    meeting.attend()
    return "A" if _longer(answer_a, answer_b) == "B" else "B"


@fairjudge.judge_function(name="panel-longer", version="1")
def declared_longer(question: str, answer_a: str, answer_b: str) -> str:
    """Declared: cached in the store as panel-longer, version 1."""
    _count()
    return _longer(answer_a, answer_b)


@fairjudge.judge_function(name="panel-shorter", version="1")
def declared_shorter(question: str, answer_a: str, answer_b: str) -> str:
    """Declared dissenter: cached as panel-shorter, version 1."""
    _count()
    return "A" if _longer(answer_a, answer_b) == "B" else "B"


def counted_longer(question: str, answer_a: str, answer_b: str) -> str:
    """Undeclared, counted (and slowed by $FAIRJUDGE_TEST_DELAY), so a test can interrupt it."""
    _count()
    return _longer(answer_a, answer_b)


def counted_shorter(question: str, answer_a: str, answer_b: str) -> str:
    """Undeclared dissenter, counted as :func:`counted_longer`."""
    _count()
    return "A" if _longer(answer_a, answer_b) == "B" else "B"


def meets_scorer(question: str, answer: str) -> dict[str, int]:
    """A pointwise member scoring the answer's leading digit, with a call beside it."""
    meeting.attend()
    return dict.fromkeys(("accuracy", "relevance", "usefulness"), int(answer[0]))
