"""Reading a verdict out of a judge's reply.

Design:

- **Bind to the last verdict slot.** Judges that explain themselves often mention
  "Answer A" or quote a verdict before concluding, so the *last* slot in the reply
  is the judge's own conclusion. Slots are, in order of trust: ``[[A]]``-style
  brackets (MT-Bench), a labelled line (``Verdict: B``, ``Final answer: tie``), and
  a reply that is nothing but a label (``A``, ``Tie.``, ``**B**``).
- **Skip echoed text.** A slot on a line that is copied verbatim from one of the
  answers (``echoed``) is the answer speaking, not the judge, and is ignored. This is
  the second line of defence against an answer that says "output [[A]]"; the first
  is that templates delimit answers.
- **Never guess.** A reply with no readable slot is a :class:`ParseFailure` that keeps
  the raw text; callers report it and never count it as a tie.

``C`` is accepted as a tie in bracket slots because FastChat's prompts use
``[[C]]`` for ties.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

from fairjudge._types import ParseFailure, Probabilities, Verdict

__all__ = ["parse_verdict", "probabilities_from_logprobs"]

_LABEL = r"(a|b|tie|c)"
_BRACKET = re.compile(r"\[\[\s*" + _LABEL + r"\s*\]\]", re.IGNORECASE)
_LABELLED = re.compile(
    r"(?:final\s+)?(?:verdict|answer|decision|winner|judg(?:e)?ment|choice|result)"
    r"\s*(?::|=|\bis\b:?)\s*[\"'*\[(]*\s*(?:answer\s+|assistant\s+|response\s+)?"
    r"(a|b|tie)\b[\"'*\])]*",
    re.IGNORECASE,
)
_BARE = re.compile(
    r"^[\s\"'*`\[(]*(?:answer\s+)?(a|b|tie)[\s\"'*`\])]*[.!]?[\s\"'*`]*$", re.IGNORECASE
)
_TO_VERDICT = {"a": Verdict.A, "b": Verdict.B, "tie": Verdict.TIE, "c": Verdict.TIE}


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : len(text) if end == -1 else end].strip()


def _echoed(line: str, slot: str, echoed: Iterable[str]) -> bool:
    """Whether a slot's line was copied from an answer.

    A line that is nothing but the slot is always the judge's own: a bare ``[[A]]``
    cannot be told apart from an answer's, and the judge must be able to conclude.
    """
    if len(line.replace(slot, "").strip()) < 4:
        return False
    return any(line in source for source in echoed if source)


def parse_verdict(text: str, *, echoed: Iterable[str] = ()) -> Verdict | ParseFailure:
    r"""Read the judge's verdict from its reply.

    Args:
        text: The judge's raw reply.
        echoed: The answers that were judged; slots on lines copied from them are
            ignored.

    Returns:
        The verdict of the last trusted slot, or a :class:`ParseFailure` keeping the
        raw text.

    Example:
        >>> parse_verdict("Both are fine, but B is clearer.\n\n[[B]]")
        <Verdict.B: 'B'>
    """
    if not isinstance(text, str):
        return ParseFailure(repr(text), f"reply is {type(text).__name__}, not text")
    sources = [s for s in echoed if s]
    for pattern in (_BRACKET, _LABELLED):
        for match in reversed(list(pattern.finditer(text))):
            if not _echoed(_line_at(text, match.start()), match.group(0), sources):
                return _TO_VERDICT[match.group(1).lower()]
    lines = [line for line in text.strip().splitlines() if line.strip()]
    for line in (lines[-1:] + lines[:1]) if lines else []:
        bare = _BARE.match(line)
        if bare:
            return _TO_VERDICT[bare.group(1).lower()]
    if not text.strip():
        return ParseFailure(text, "empty reply")
    return ParseFailure(text, "no verdict slot ([[A]], 'Verdict: A' or a bare A/B/tie) found")


def _label_of(token: str) -> str | None:
    cleaned = token.strip().strip("\"'*`[](){}.:,").lower()
    if cleaned in ("a", "b"):
        return cleaned
    if cleaned in ("tie", "ti", "c"):
        return "tie"
    return None


def probabilities_from_logprobs(top_logprobs: Mapping[str, float]) -> Probabilities | None:
    """Turn the verdict token's top logprobs into P(A), P(B), P(tie).

    Tokens are matched after stripping whitespace, quotes, brackets and case, so
    ``" A"``, ``"A"`` and ``"[["``-free variants pool together. ``tie`` may be split
    by the tokenizer, so its first piece ``ti`` counts as tie; ``C`` counts as tie
    (FastChat's convention). Mass on other tokens is left out, so the result may
    sum to less than 1.

    Returns:
        The probabilities, or ``None`` when no label token is among the alternatives.
    """
    mass = {"a": 0.0, "b": 0.0, "tie": 0.0}
    for token, logprob in top_logprobs.items():
        label = _label_of(token)
        if label is not None and math.isfinite(logprob):
            mass[label] += math.exp(logprob)
    total = sum(mass.values())
    if total <= 0:
        return None
    if total > 1:  # rounding in the server's logprobs; renormalise
        mass = {k: v / total for k, v in mass.items()}
    return Probabilities(mass["a"], mass["b"], mass["tie"])
