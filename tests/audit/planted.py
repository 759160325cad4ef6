"""Scripted judges with planted, known biases, served by the real test server.

Each judge reads the whole user prompt (the server's pair reader is swapped for one
that hands over the prompt, as in ``tests.score_server``), answers pairwise prompts
(``<answer_a>``/``<answer_b>``) with a label and pointwise prompts (``<answer>``) with a
JSON object of scores, and so runs every audit experiment through HTTP, the runner
and the store, like a model would.

Scores carry a deterministic noise of -1, 0 or +1 from a hash of the answer, so that
intervals have width and "the planted value lies inside the interval" is a real test.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from fairjudge.audit import builtin_items

_A = re.compile(r"<answer_a>\n?(.*?)\n?</answer_a>", re.DOTALL)
_B = re.compile(r"<answer_b>\n?(.*?)\n?</answer_b>", re.DOTALL)
_ANSWER = re.compile(r"<answer>\n?(.*?)\n?</answer>", re.DOTALL)
_QUESTION = re.compile(r"<question>\n?(.*?)\n?</question>", re.DOTALL)

FLAWED = frozenset(it.other for it in builtin_items() if it.other)
"""The built-in suite's wrong answers: every scripted judge knows which ones they are."""


def _hash(text: str, mod: int) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") % mod


def noise(text: str) -> int:
    """-1, 0 or +1, fixed for a text: mean zero over many texts."""
    return _hash(text, 3) - 1


def words(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class Planted:
    """Which biases a scripted judge has, and how strong.

    Attributes:
        first_share: Share of questions on which every pairwise call says "A".
        length_points: Points added to an answer of more than 100 words (basic rubric
            only; the anti-verbose rubric mitigates it entirely).
        length_pairwise: Prefer the longer answer in pairwise calls (default template
            only; the length-blind template says tie when the contents match).
        strict_points: Points added under the strict-expert rubric (negative: harsher).
        own_family: The judge's family marker; answers containing ``[<marker>]`` get
            ``own_points`` more.
        own_points: See ``own_family``.
        top: Give every answer the top score (a judge at its ceiling).
        salt: When set, pointwise scores get this judge's own noise (-1, 0 or +1 from a
            hash of salt and answer) on top of the answer's, so judges disagree a little.
    """

    first_share: float = 0.0
    length_points: int = 0
    length_pairwise: bool = False
    strict_points: int = 0
    own_family: str | None = None
    own_points: int = 0
    salt: str = ""
    top: bool = False


def _quality(answer: str) -> int:
    """An unbiased 1-10 judgment: wrong answers low, right ones high, plus noise."""
    wrong = answer in FLAWED or any(f in answer for f in FLAWED if len(f) > 20)
    return (4 if wrong else 7) + noise(answer)


def _pairwise(p: Planted, prompt: str) -> str:
    question = _QUESTION.search(prompt) or _A.search(prompt)
    a_match, b_match = _A.search(prompt), _B.search(prompt)
    assert a_match is not None
    assert b_match is not None
    assert question is not None
    a, b = a_match.group(1), b_match.group(1)
    if p.first_share and _hash(question.group(1), 1000) < p.first_share * 1000:
        return "A"
    length_blind = "length does not affect the verdict" in prompt.lower()
    if a in b or b in a or _same_content(a, b):
        if p.length_pairwise and not length_blind and words(a) != words(b):
            return "A" if words(a) > words(b) else "B"
        return "tie"
    qa, qb = _quality(a) - noise(a), _quality(b) - noise(b)
    return "A" if qa > qb else "B" if qb > qa else "tie"


def _same_content(a: str, b: str) -> bool:
    """Padded and list versions keep every sentence: the shorter's longest one is in both."""
    short, long = sorted((a, b), key=len)
    pieces = [p.strip() for p in re.split(r"(?<=[.!?])\s|\n", short) if p.strip()]
    longest = max(pieces, key=len, default="")
    return len(longest) > 10 and longest in long


def _pointwise(p: Planted, prompt: str) -> str:
    match = _ANSWER.search(prompt)
    assert match is not None, prompt[:500]
    answer = match.group(1)
    score = _quality(answer) + (noise(p.salt + answer) if p.salt else 0) + (20 if p.top else 0)
    strict = "Ordinary answers do not exceed" in prompt
    anti_verbose = "conciseness" in prompt
    if p.length_points and words(answer) > 100 and not strict and not anti_verbose:
        score += p.length_points
    if strict:
        score += p.strict_points
    if p.own_family and f"[{p.own_family}]" in answer:
        score += p.own_points
    if anti_verbose:  # a 1-5 scale: map 1-10 down, exactly
        level = max(1, min(5, round(score / 2)))
        return json.dumps({"accuracy": level, "conciseness": level, "relevance": level,
                           "reason": "scripted"})  # fmt: skip
    level = max(1, min(10, score))
    return json.dumps(
        {"accuracy": level, "relevance": level, "clarity": level, "reason": "scripted"}
    )


def judge_fn(p: Planted) -> Callable[[str], str]:
    """The server-side judge: the whole prompt in, the reply text out."""

    def reply(prompt: str) -> str:
        return _pairwise(p, prompt) if "<answer_a>" in prompt else _pointwise(p, prompt)

    return reply
