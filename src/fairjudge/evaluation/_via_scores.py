"""Two systems compared through each answer's own score (``compare --via-scores``).

Scoring each answer alone, in its own call, leaves no position to prefer:
:func:`compare_via_scores` scores every answer against a rubric in one batch on the
judge's session and compares the two answers of each item.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Unpack

from fairjudge._errors import ConfigError
from fairjudge._items import Item, ScoreItem
from fairjudge._types import OUTCOME_SCORE, Outcome
from fairjudge.evaluation._results import WinRate, win_rate_of
from fairjudge.evaluation._scores import (
    PointwiseJudgeLike,
    ScoredItem,
    ScoreOptions,
    ScoreResult,
    check_score_items,
    rubric_dict,
    score_answers,
)
from fairjudge.evaluation._scores_stats import ScoreMean, score_mean
from fairjudge.evaluation._settings import EvalSettings, Failure, ResultFrame
from fairjudge.prompts import Rubric

__all__ = [
    "SYSTEMS", "ScoredPair", "ViaScoresResult", "check_via_items", "compare_via_scores",
    "via_result",
]  # fmt: skip

SYSTEMS = ("model 1", "model 2")
"""The system names the two answers are scored under."""

Basis = Literal["expected", "scores"]


@dataclass(frozen=True, slots=True)
class ScoredPair:
    """One item: its two answers' scores and the outcome they give.

    Attributes:
        item: The item.
        first: Answer 1, scored (every call kept).
        second: Answer 2, scored.
        score_1: Answer 1's score (see the module docstring); ``None`` if unresolved.
        score_2: Answer 2's score.
        basis: ``"expected"`` (probability-weighted) or ``"scores"`` (integers).
        outcome: ``ONE``, ``TWO`` or ``TIE`` under the tie margin; ``None`` if unresolved.
    """

    item: Item
    first: ScoredItem
    second: ScoredItem
    score_1: float | None
    score_2: float | None
    basis: Basis | None
    outcome: Outcome | None

    @property
    def difference(self) -> float | None:
        """``score_1 - score_2``."""
        if self.score_1 is None or self.score_2 is None:
            return None
        return self.score_1 - self.score_2

    def to_dict(self) -> dict[str, Any]:
        """One ``--out`` record: the outcome, both scores, and each answer's full record."""
        return {
            "id": self.item.id,
            "outcome": self.outcome.value if self.outcome is not None else None,
            "score_1": self.score_1,
            "score_2": self.score_2,
            "difference": self.difference,
            "basis": self.basis,
            "scored_1": self.first.to_dict(),
            "scored_2": self.second.to_dict(),
        }


def _pair_scores(
    a: ScoredItem, b: ScoredItem, names: Sequence[str]
) -> tuple[float, float, Basis] | None:
    bases: tuple[tuple[Basis, Mapping[str, float], Mapping[str, float]], ...] = (
        ("expected", a.scored.expected, b.scored.expected),
        ("scores", a.scored.scores, b.scored.scores),
    )
    for basis, x, y in bases:
        if all(n in x and n in y for n in names):
            return (
                sum(x[n] for n in names) / len(names),
                sum(y[n] for n in names) / len(names),
                basis,
            )
    return None


def _outcome(difference: float, margin: float) -> Outcome:
    if difference > margin:
        return Outcome.ONE
    return Outcome.TWO if difference < -margin else Outcome.TIE


def _pair(
    item: Item, a: ScoredItem, b: ScoredItem, names: Sequence[str], margin: float
) -> ScoredPair:
    scored = _pair_scores(a, b, names)
    if scored is None:
        return ScoredPair(item, a, b, None, None, None, None)
    s1, s2, basis = scored
    return ScoredPair(item, a, b, s1, s2, basis, _outcome(s1 - s2, margin))


@dataclass(frozen=True, slots=True)
class ViaScoresResult(ResultFrame):
    """Model 1 against model 2, through each answer's own score (on a :class:`ResultFrame`).

    Attributes:
        win_rate: Model 1's win rate (wins 1, ties ½) with its CI and W/T/L; ``None``
            when no item resolved.
        difference: The mean of ``score_1 - score_2`` with its CI.
        pairs: Every item, in input order.
        scores: The scoring of every answer (systems ``model 1`` and ``model 2``),
            with its per-dimension summaries and paired differences.
        tie_margin: A difference of at most this is a tie.
        stopped: Why the run stopped before every call was made (a spent budget).
    """

    win_rate: WinRate | None
    difference: ScoreMean
    pairs: tuple[ScoredPair, ...]
    scores: ScoreResult
    tie_margin: float = 0.0
    stopped: str | None = None

    @property
    def n_items(self) -> int:
        """Items submitted."""
        return len(self.pairs)

    @property
    def seed(self) -> int:
        """The bootstrap seed (the scoring's)."""
        return self.scores.seed

    @property
    def level(self) -> float:
        """The intervals' confidence level (the scoring's)."""
        return self.scores.level

    @property
    def n_resamples(self) -> int:
        """Bootstrap resamples (the scoring's)."""
        return self.scores.n_resamples

    def item_failures(self) -> Iterator[Iterable[Failure]]:
        """Per answer (two per item), its calls' failures."""
        return self.scores.item_failures()

    @property
    def n_unresolved(self) -> int:
        """Items with a dimension unscored on either answer."""
        return sum(p.outcome is None for p in self.pairs)

    @property
    def n_expected(self) -> int:
        """Items compared on probability-weighted scores."""
        return sum(p.basis == "expected" for p in self.pairs)

    def known_truth(self) -> dict[str, Any] | None:
        """What the input's human labels say, beside the win rate via scores.

        As ``compare``'s ``known_truth``, read by the same rule the terminal's "Known
        truth" lines use: only when every resolved item carries a human label; the
        labels' side is model 1's win rate by them (1, ½ for a tie, 0) against 0.5,
        the result's side its CI (none when it contains 0.5 or cannot be estimated),
        so a result that cannot tell the systems apart never agrees with a side.

        Returns:
            ``{"n", "human_win_rate", "agrees"}``, or ``None`` when no resolved item
            or one without a label.
        """
        labels = [p.item.human for p in self.pairs if p.outcome is not None]
        w = self.win_rate
        if w is None or not labels or any(label is None for label in labels):
            return None
        human = sum(OUTCOME_SCORE[label] for label in labels if label is not None) / len(labels)
        truth = (human > 0.5) - (human < 0.5)
        found = 0
        if w.ci.estimable:
            found = 1 if w.ci.low > 0.5 else -1 if w.ci.high < 0.5 else 0
        return {"n": len(labels), "human_win_rate": human, "agrees": found == truth}

    def summary(self) -> str:
        """A few human-readable lines."""
        lines = [f"items: {self.n_items} (unresolved: {self.n_unresolved})"]
        w = self.win_rate
        if w is not None:
            lines.append(
                f"win rate of model 1 via scores: {w.estimate:.3f} {w.ci} "
                f"(W/T/L {w.wins}/{w.ties}/{w.losses}, n={w.n}, tie margin {self.tie_margin:g})"
            )
        d = self.difference
        if d.estimate is not None:
            lines.append(f"mean score difference (model 1 - model 2): {d.estimate:+.3f} {d.ci}")
        return "\n".join(lines)

    def to_dict(
        self, *, include_items: bool = False, include_judgments: bool = False
    ) -> dict[str, Any]:
        """JSON-ready summary; per-item records only when asked.

        ``include_judgments`` is ``include_items`` under the name every pairwise
        result's ``to_dict`` takes (an adaptive run's JSON passes it on).
        """
        s = self.scores
        out: dict[str, Any] = {
            "method": "via_scores",
            "rubric": rubric_dict(s.rubric),
            "judge": s.judge,
            "tie_margin": self.tie_margin,
            "n_items": self.n_items,
            "n_unresolved": self.n_unresolved,
            "n_on_expected_scores": self.n_expected,
            "win_rate": self.win_rate.to_dict() if self.win_rate is not None else None,
            "difference": self.difference.to_dict(),
            "dimensions": [d.to_dict() for d in s.differences],
            "n_parse_failures": s.n_parse_failures,
            "n_call_errors": s.n_call_errors,
            "failures": dict(self.failures.most_common()),
            "known_truth": self.known_truth(),
            **self.frame_dict(),
        }
        if include_items or include_judgments:
            out["items"] = [p.to_dict() for p in self.pairs]
        return out


def _score_items(items: Sequence[Item]) -> list[ScoreItem]:
    return [
        ScoreItem(it.question, answer, id=it.id, reference=it.reference, category=it.category,
                  system=system, cluster=it.cluster_key)
        for it in items
        for system, answer in zip(SYSTEMS, (it.answer_1, it.answer_2), strict=True)
    ]  # fmt: skip


def check_via_items(items: Sequence[Item], rubric: Rubric) -> None:
    """Check the items can be compared via scores with the rubric, before any call.

    Raises:
        ConfigError: No items, or a rubric that needs references some items lack.
    """
    check_score_items(_score_items(items), rubric)


def via_result(items: Sequence[Item], scores: ScoreResult, margin: float) -> ViaScoresResult:
    """The comparison the scored answers give: ``scores`` holds each item's two, in order.

    Also how a page reads a ``compare --via-scores --out`` file back, from its scores.
    """
    names = scores.rubric.names
    answers = scores.items
    pairs = tuple(
        _pair(it, answers[2 * i], answers[2 * i + 1], names, margin) for i, it in enumerate(items)
    )
    done = [p for p in pairs if p.outcome is not None]
    clusters = [p.item.cluster_key for p in done]
    boot = scores.settings_dict()
    outcomes = [p.outcome for p in done if p.outcome is not None]
    win = win_rate_of([OUTCOME_SCORE[o] for o in outcomes], outcomes, clusters,
                    boot=EvalSettings(**boot))  # fmt: skip
    difference = score_mean([p.difference for p in done if p.difference is not None], clusters,
                            **boot)  # fmt: skip
    return ViaScoresResult(win, difference, pairs, scores, margin, scores.stopped)


def compare_via_scores(
    judge: PointwiseJudgeLike,
    items: Sequence[Item],
    *,
    tie_margin: float = 0.0,
    **options: Unpack[ScoreOptions],
) -> ViaScoresResult:
    """Compare two systems' answers by scoring each answer on its own.

    A spent budget does not raise: the result is returned with ``stopped`` set.

    Args:
        judge: A pointwise judge, or ``judge(question, answer) -> {dimension: int}``.
        items: The items (question, answer_1, answer_2, ...).
        tie_margin: A score difference of at most this is a tie (>= 0).
        **options: As :func:`score_answers`: ``rubric`` (for a function judge),
            ``seed``, ``level``, ``n_resamples``, ``collapse``, ``progress``.

    Raises:
        ConfigError: A bad option, no items, or a rubric that needs references.
        FatalBackendError: The judge cannot go on; finished calls are kept.

    Example:
        >>> judge = lambda q, a: dict.fromkeys(("accuracy", "relevance", "usefulness"),
        ...                                    5 if a == "4" else 2)
        >>> result = compare_via_scores(judge, [Item("2+2?", "4", "5")])
        >>> (result.win_rate.wins, result.difference.estimate)
        (1, 3.0)
    """
    if not (isinstance(tie_margin, int | float) and math.isfinite(tie_margin) and tie_margin >= 0):
        raise ConfigError(
            f"tie_margin must be a number >= 0; got {tie_margin!r}", params="tie_margin"
        )
    return via_result(items, score_answers(judge, _score_items(items), **options), tie_margin)
