"""Python members for the panel page tests: scorers that disagree, fail and inject markup.

``harsh`` scores one level below the example scorer, with a reason that carries a
``<script>``, an ``onerror`` image and a bidi override, and ``lenient`` one level
above it; ``moody`` scores the length of the answer and fails on a marker in the
answer (``[parse]``: a reply with no scores; ``[error]``: raises with markup in the
message); ``wordy`` scores the answer's word count. ``contrary`` is a pairwise member
that prefers the shorter answer and says so with markup in its reply.
"""

from __future__ import annotations

import json

from fairjudge.examples.judges import scorer

INJECTED = (
    "<script>window.pwned='reason'</script><img src=x onerror=\"window.pwned='img'\"> "
    "a\u202egnp.exe"
)


def harsh(question: str, answer: str) -> str:
    scores = {k: max(1, v - 1) for k, v in scorer(question, answer).items()}
    return json.dumps({**scores, "reason": f"Too kind elsewhere. {INJECTED}"})


def moody(question: str, answer: str) -> object:
    if "[parse]" in answer:
        return "I would rather not say </script><script>window.pwned='parse'</script>"
    if "[error]" in answer:
        raise RuntimeError("<img src=x onerror=\"window.pwned='error'\"> server said no")
    level = 1 + min(4, len(answer) // 12)
    return {"accuracy": level, "relevance": 6 - level, "usefulness": 3}


def contrary(question: str, answer_a: str, answer_b: str) -> str:
    better = "A" if len(answer_a) < len(answer_b) else "B"
    return f"Shorter is better. {INJECTED}\nVerdict: {better}"


def lenient(question: str, answer: str) -> dict[str, int]:
    """One level above the example scorer (5 stays 5)."""
    return {k: min(5, v + 1) for k, v in scorer(question, answer).items()}


def wordy(question: str, answer: str) -> dict[str, int]:
    """Scores the answer's length: more words, higher scores, whatever they say."""
    level = min(5, 1 + len(answer.split()) // 4)
    return {"accuracy": level, "relevance": level, "usefulness": max(1, level - 1)}
