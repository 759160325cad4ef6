"""Python judges for the report tests: every kind of call the item explorer shows.

The question's marker picks the behaviour: ``[parse]`` gives a reply with no verdict,
``[error]`` raises (a call error whose message holds markup), ``[first]`` always
picks position A (inconsistent across the swap), ``[probs]`` returns probabilities;
anything else prefers the longer answer.
"""

from __future__ import annotations


def mixed(question: str, answer_a: str, answer_b: str) -> object:
    if "[parse]" in question:
        return "I cannot decide </script><script>window.pwned = 'reply'</script>"
    if "[error]" in question:
        raise RuntimeError("<img src=x onerror=\"window.pwned='error'\"> server said no")
    if "[first]" in question:
        return "Both are fine.\nVerdict: A"
    if "[probs]" in question:
        return {"A": 0.62, "B": 0.28, "tie": 0.1}
    return "B" if len(answer_b) > len(answer_a) else "A"


def explained(question: str, answer_a: str, answer_b: str) -> str:
    """A reply the size of a real judge's: a paragraph of reasons, then the verdict."""
    better = "B" if len(answer_b) > len(answer_a) else "A"
    reasons = (
        f"Answer A has {len(answer_a.split())} words and answer B has "
        f"{len(answer_b.split())}. Both address the question; the {better} answer covers "
        "more of what was asked, states its assumptions, and makes no claim the other "
        "contradicts. Neither contains a factual error I can verify from the question "
        "alone, so the decision rests on completeness and clarity."
    )
    return f"{reasons}\nVerdict: {better}"


def hidden(question: str, answer_a: str, answer_b: str) -> str:
    """Replies and failures that carry hidden characters: bidi controls, a zero-width space, ESC.

    ``[error]`` raises with them in the message; anything else prefers the longer answer
    and says so with an override inside its reasons.
    """
    if "[error]" in question:
        raise RuntimeError("server said \u202eon\u202c \u200bno \x1b[2Jagain")
    better = "B" if len(answer_b) > len(answer_a) else "A"
    return f"The other answer reads \u202eelbaliava\u202c \u2066x\u2069.\nVerdict: {better}"
