"""Python judges for the display-truth tests: plain rules, no model.

``marked`` prefers the answer that starts with ``yes``; a tie when both or neither do.
``slow`` does the same after a pause, so that a run can be interrupted part-way.
"""

from __future__ import annotations

import time


def marked(question: str, answer_a: str, answer_b: str) -> str:
    a, b = answer_a.startswith("yes"), answer_b.startswith("yes")
    return "tie" if a == b else "A" if a else "B"


def slow(question: str, answer_a: str, answer_b: str) -> str:
    time.sleep(0.3)
    return marked(question, answer_a, answer_b)
