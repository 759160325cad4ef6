"""The scripted judge server, taught to score one answer.

The server's judges read a *pair* out of the prompt (``<answer_a>``/``<answer_b>``);
a pointwise prompt has one ``<answer>`` block. For these tests its prompt reader is
swapped (monkeypatched, in the test server only) for one that hands the judge the
whole prompt as the pair's question, so a scripted scorer can answer each answer on
its own. Everything else (HTTP, auth, logprobs, faults, counters) is the real server.

The swap is the ``score_server`` fixture in ``tests/conftest.py`` (its users are in
cli/, evaluation/, judges/ and prompts/); this module holds the helpers they import.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.server import JudgeServer

_ANSWER = re.compile(r"<answer>\n(.*?)\n</answer>", re.DOTALL)


def answer_in(prompt: str) -> str:
    """The answer block of a rendered pointwise prompt."""
    match = _ANSWER.search(prompt)
    assert match is not None, prompt
    return match.group(1)


Scorer = Callable[[str], str]
"""The whole user prompt -> the reply text."""


def script(server: JudgeServer, scorer: Scorer) -> None:
    """Answer each call with ``scorer(prompt)``."""
    server.configure(judge=lambda pair: scorer(pair.question), reply_format="{verdict}")


def by_answer(replies: dict[str, str]) -> Scorer:
    """A scorer that answers each answer (found in the prompt) with its own reply."""
    return lambda prompt: replies[answer_in(prompt)]
