"""Judges that raise what is not an ``Exception``: ``SystemExit`` and ``KeyboardInterrupt``.

A gateway client or a library that calls ``sys.exit()`` on a problem does this. Each
judge answers until it meets the question named in ``$FAIRJUDGE_TEST_EXIT_ON`` (every
question when unset) and then raises; each answer it gives is counted as a line in
``$FAIRJUDGE_TEST_CALLS`` when that is set. All declare the one name and version, so
a rerun of any of them is served what an earlier one stored.
"""

from __future__ import annotations

import asyncio
import os

import fairjudge


def _answer(question: str, error: BaseException) -> str:
    if os.environ.get("FAIRJUDGE_TEST_EXIT_ON", question) == question:
        raise error
    path = os.environ.get("FAIRJUDGE_TEST_CALLS")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("call\n")
    return "B"


@fairjudge.judge_function(name="exiting", version="1")
def exits(question: str, answer_a: str, answer_b: str) -> str:
    """Calls ``sys.exit(3)``."""
    return _answer(question, SystemExit(3))


@fairjudge.judge_function(name="exiting", version="1")
def interrupts(question: str, answer_a: str, answer_b: str) -> str:
    """Raises ``KeyboardInterrupt`` itself (no Ctrl-C was pressed)."""
    return _answer(question, KeyboardInterrupt())


@fairjudge.judge_function(name="exiting", version="1")
async def async_exits(question: str, answer_a: str, answer_b: str) -> str:
    """An ``async def`` judge that calls ``sys.exit("gateway config missing")``."""
    await asyncio.sleep(0)
    return _answer(question, SystemExit("gateway config missing"))
