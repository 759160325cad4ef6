"""Example Python judges: `fairjudge compare --judge python:fairjudge.examples.judges:NAME`.

They are deliberately simple and deterministic, so the CLI can be tried without a
model: `first_position` shows what pure position bias looks like, `longer` shows
verbosity bias, and `knows_facts` is a judge that knows the facts of the example set.
`scorer` is a pointwise judge for `fairjudge score` (the `production` rubric), and
`length_scorer` is one that scores words, not facts: seat the two on one panel
(`fairjudge score-jury ... --judge ...:scorer --judge ...:length_scorer`) to see what
members that disagree look like.
"""

from __future__ import annotations


def first_position(question: str, answer_a: str, answer_b: str) -> str:
    """Always prefers whatever it sees first: pure position bias."""
    return "A"


def longer(question: str, answer_a: str, answer_b: str) -> str:
    """Prefers the longer answer (ties go to position A)."""
    return "B" if len(answer_b) > len(answer_a) else "A"


_FACTS = (
    "Canberra",
    "Eight",
    "100",
    "Shakespeare",
    "144",
    "Carbon dioxide",
    "Pacific",
    "Seven",
    "Au.",
    "3.",
    "Mars",
    "9.",
    "Portuguese",
    "32",
    "366",
    "Leonardo",
    "2.",
    "Not Found",
    "heart",
    "8.",
    "Amazon",
    "Water",
    "1945",
    "300,000",
)


def knows_facts(question: str, answer_a: str, answer_b: str) -> str:
    """Prefers the answer that states the known fact: a stand-in for a good judge."""
    a = any(answer_a.startswith(f) or f" {f}" in answer_a for f in _FACTS)
    b = any(answer_b.startswith(f) or f" {f}" in answer_b for f in _FACTS)
    return "A" if a and not b else "B" if b and not a else "tie"


def scorer(question: str, answer: str) -> dict[str, int]:
    """Scores an answer for the `production` rubric (1-5): a stand-in pointwise judge.

    Accurate when it states a known fact; concise answers are as useful as long ones.
    """
    right = any(answer.startswith(f) or f" {f}" in answer for f in _FACTS)
    accuracy = 5 if right else 1
    relevance = 4 if right else 3
    usefulness = 4 if right else 2
    return {"accuracy": accuracy, "relevance": relevance, "usefulness": usefulness}


def length_scorer(question: str, answer: str) -> dict[str, int]:
    """Scores the answer's length, whatever it says: verbosity bias in a pointwise judge.

    One level per three words (1-2 words: 1, 12 or more: 5) on every dimension of the
    `production` rubric, so the long wrong answers of the example outscore the short
    right ones: the pointwise counterpart of `longer`.
    """
    level = min(5, 1 + len(answer.split()) // 3)
    return {"accuracy": level, "relevance": level, "usefulness": level}
