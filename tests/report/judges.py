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
