"""Python audit judges for the audit page's tests: known biases, no model, no server.

:class:`PlantedAuditJudge` is an :class:`~fairjudge.audit.AuditJudge` made of two Python
functions (a pairwise one per template, a pointwise one per rubric), so the library's
``audit()`` runs every experiment on it in milliseconds. Its biases are planted:

- position: says "A" on questions whose hash falls under ``first_share``;
- verbosity: prefers the longer answer under the standard template, and adds
  ``length_points`` to long answers under the standard rubric;
- framing: the strict rubric scores ``strict_points`` lower;
- self-preference: ``own_points`` more for answers whose text holds ``[<family>]``.

A question holding ``[parse]`` gets a pairwise reply with no verdict (its raw text
in the failure), ``[error]`` a call that raises with ``ERROR_TEXT`` in its message.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from fairjudge.audit import builtin_items
from fairjudge.audit._audit_items import AuditItem
from fairjudge.judges import CallableJudge, CallablePointwiseJudge
from fairjudge.prompts import get_rubric

FLAWED = frozenset(it.other for it in builtin_items() if it.other)
PARSE_TEXT = "I cannot decide </script><script>window.__pwned = 'reply'</script>"
ERROR_TEXT = "<img src=x onerror=\"window.__pwned = 'error'\"> server said \u202eon"


def _hash(text: str, mod: int) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") % mod


@dataclass
class PlantedAuditJudge:
    """An audit judge with planted biases (see the module docstring)."""

    name: str = "python/planted"
    first_share: float = 0.5
    length_points: int = 2
    strict_points: int = -2
    family: str = "planted"
    own_points: int = 0

    def _good(self, answer: str) -> bool:
        return answer not in FLAWED and "wrong" not in answer

    def pairwise(self, template: str) -> CallableJudge:
        def fn(question: str, a: str, b: str) -> str:
            if "[parse]" in question:
                return PARSE_TEXT
            if "[error]" in question:
                raise RuntimeError(ERROR_TEXT)
            if _hash(question, 1000) < self.first_share * 1000:
                return "A"
            if template == "default" and len(a.split()) != len(b.split()):
                return "A" if len(a) > len(b) else "B"
            good_a, good_b = self._good(a), self._good(b)
            return "A" if good_a and not good_b else "B" if good_b and not good_a else "tie"

        return CallableJudge(fn, name=self.name)

    def pointwise(self, rubric: str) -> CallablePointwiseJudge:
        spec = get_rubric(rubric)
        low, high = spec.scale

        def fn(question: str, answer: str) -> dict[str, int]:
            base = 7 if self._good(answer) else 4
            base += _hash(answer, 3) - 1
            if rubric == "basic" and len(answer.split()) > 100:
                base += self.length_points
            if rubric == "strict":
                base += self.strict_points
            if f"[{self.family}]" in answer:
                base += self.own_points
            if high == 5:
                base = round(base / 2)
            return {d.name: max(low, min(high, base)) for d in spec.dimensions}

        return CallablePointwiseJudge(fn, rubric=rubric, name=self.name)


def family_items(n_questions: int, families: tuple[str, ...]) -> list[AuditItem]:
    """Answers from each family to each question, marked ``[family]`` in the text."""
    return [
        AuditItem(f"Question {q}?", f"Answer {q} from [{f}].", id=f"q{q}-{f}", system=f,
                  category="family")
        for q in range(n_questions)
        for f in families
    ]  # fmt: skip
