"""Code a jury file names, to show whether it ran: importing it leaves a marker file.

``python:tests.judges.planted_code:judge`` stands in for ``python:os:execlp``: when
``$FAIRJUDGE_PLANTED_MARKER`` names a file, importing this module writes it, so a
test can tell, after the fact, whether anything imported the code a file named.
"""

from __future__ import annotations

import os
from pathlib import Path

_marker = os.environ.get("FAIRJUDGE_PLANTED_MARKER")
if _marker:
    Path(_marker).write_text("imported\n", encoding="utf-8")


def judge(question: str, answer_a: str, answer_b: str) -> str:
    """A pairwise judge: always the answer shown first."""
    return "A"


def scorer(question: str, answer: str) -> dict[str, int]:
    """A pointwise judge: 3 on every dimension of the default rubric."""
    return dict.fromkeys(("accuracy", "relevance", "usefulness"), 3)
