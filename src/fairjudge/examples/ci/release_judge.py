"""The judges of this example: offline stand-ins, so the example runs anywhere.

In your repository the judge is a model (``fairjudge_judge = openai/gpt-4o-mini`` in
``pyproject.toml``); here it is fairjudge's example judge that knows the facts of the
example questions, declared with a name and a version so that its calls are cached
and recorded like a model's (a Python judge that declares nothing is never cached).
"""

from fairjudge.examples.judges import knows_facts, scorer


def prefers_facts(question: str, answer_a: str, answer_b: str) -> str:
    """Prefers the answer that states the known fact (``A``, ``B`` or ``tie``)."""
    return knows_facts(question, answer_a, answer_b)


def scores(question: str, answer: str) -> dict[str, int]:
    """Scores an answer on the ``production`` rubric: accurate when it states the fact."""
    return scorer(question, answer)


# Bump a version whenever the judge's replies may change: the old recording no
# longer answers for it, and replay says so.
prefers_facts.fairjudge_name = "release-judge"
prefers_facts.fairjudge_version = "1"
scores.fairjudge_name = "release-scorer"
scores.fairjudge_version = "1"
