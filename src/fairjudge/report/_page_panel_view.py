"""What a panel's page shows, as plain values: one view for juries and scoring panels.

A ``jury`` page and a ``score-jury`` page show the same things, and only the
reading differs (a verdict or a score per dimension), so both are one
:class:`PanelView`, made from the report the table and the JSON render
(:class:`~fairjudge.report._jury.JuryReport`,
:class:`~fairjudge.report._score_jury.JuryScoreReport`):
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairjudge.report._forest import Figure
from fairjudge.report._page import Headline
from fairjudge.report._panel import member_label
from fairjudge.report._text import ci_text

if TYPE_CHECKING:
    from fairjudge.evaluation import Rate, WinRate
    from fairjudge.stats import ConfidenceInterval, EffectiveJudges

__all__ = [
    "FigureSet",
    "Matrix",
    "PanelFacts",
    "PanelView",
    "effective_figure",
    "failure_rows",
    "figure",
    "missing",
    "rate_figure",
    "roster_lines",
]


@dataclass(frozen=True, slots=True)
class Matrix:
    """A member × member matrix: a value per pair, or why there is none.

    Attributes:
        title: What a cell means.
        labels: The members' short labels (``#1``, ``#2``, ...), rows and columns alike.
        cells: Row by row, each value; ``None`` where it could not be computed.
        low: The scale's low end (the colour of the lowest value).
        high: The scale's high end.
        reason: Why a cell holds no value (every ``None`` cell shows it).
        note: What the matrix is computed from.
    """

    title: str
    labels: tuple[str, ...]
    cells: tuple[tuple[float | None, ...], ...]
    low: float
    high: float
    reason: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class FigureSet:
    """One forest plot's rows, its axis and what its reference line means."""

    title: str
    figures: tuple[Figure, ...]
    domain: tuple[float, float]
    ref: float | None = None
    ref_label: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class PanelFacts:
    """What the run-facts card says of a panel's run.

    Attributes:
        members: The members' names, comma-separated.
        template_or_rubric: The template (verdicts) or rubric (scores), when recorded.
        seed: The bootstrap seed.
        calls_made: Calls sent to a model in this run; ``None`` when not recorded.
        calls_cached: Calls served from the store; ``None`` when not recorded.
        cost: Estimated cost in USD; ``None`` when not recorded or not priced.
        extra: The panel's own facts (rule, items judged, failures), label and text.
    """

    members: str
    template_or_rubric: str | None
    seed: int
    calls_made: int | None
    calls_cached: int | None
    cost: float | None
    extra: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class PanelView:
    """Everything a panel's page shows, whatever the members read.

    Attributes:
        kind: ``"jury"`` or ``"score-jury"``.
        title: What was judged.
        headline: The panel's conclusion and its figure.
        findings: Sentences opening the panel's section (each dimension's conclusion,
            for scores); the known truth is in the headline.
        roster: Each member's label, name and weight (the matrices name members by label).
        matrices: The member × member matrices (one, or one per dimension).
        member_plots: Per member: position consistency, agreement with the rest and
            with the humans, each a forest plot whose rows are the members.
        panel_plots: The panel's agreement and its effective number of judges.
        notes: What the figures are computed from.
        facts: The run-facts card.
        failures: Why members' calls gave no reading, ``(count, "member: reason")``,
            most common first.
        records: The item explorer's records; ``spec`` its filters and facets.
        summary: The command's ``--json``, embedded in the page.
    """

    kind: str
    title: str
    headline: Headline
    findings: tuple[str, ...]
    roster: tuple[tuple[str, str], ...]
    matrices: tuple[Matrix, ...]
    member_plots: tuple[FigureSet, ...]
    panel_plots: tuple[FigureSet, ...]
    notes: tuple[str, ...]
    facts: PanelFacts
    failures: tuple[tuple[int, str], ...]
    records: tuple[dict[str, Any], ...]
    spec: dict[str, Any]
    summary: dict[str, Any]


def missing(label: str, why: str, note: str = "") -> Figure:
    """A figure that could not be estimated: its reason, and no number or point."""
    text = f"not estimated: {why}"
    return Figure(label, None, None, None, text, why, note, text)


def figure(
    label: str, estimate: float | None, ci: ConfidenceInterval, note: str = "", spec: str = ".3f"
) -> Figure:
    """An estimate with its interval; :func:`missing` when either cannot be estimated."""
    if not ci.estimable:
        return missing(label, ci.reason or "the interval cannot be estimated", note)
    if estimate is None or not math.isfinite(estimate):
        return missing(label, "the estimate is undefined on these data", note)
    interval = ci_text(ci, spec)
    return Figure(label, estimate, ci.low, ci.high, f"{estimate:{spec}}  {interval}", None, note,
                  interval)  # fmt: skip


def rate_figure(label: str, rate: Rate | WinRate | None, why_none: str) -> Figure:
    """A share (a rate or a win rate) with its counts, or ``why_none`` when absent."""
    if rate is None:
        return missing(label, why_none)
    counts = getattr(rate, "successes", None)
    note = f"{counts} of {rate.n}" if counts is not None else f"n = {rate.n}"
    return figure(label, rate.estimate, rate.ci, note)


def effective_figure(label: str, effective: EffectiveJudges | str, noun: str = "items") -> Figure:
    """The effective number of judges with its interval, or why it was not computed."""
    if isinstance(effective, str):
        return missing(label, effective)
    note = f"of {effective.n_members} members, over {effective.n_items} {noun}"
    return figure(label, effective.estimate, effective.ci, note, ".2f")


def failure_rows(reasons: Counter[str]) -> tuple[tuple[int, str], ...]:
    """The failures' reasons with their counts, most common first (the page's card)."""
    return tuple((n, reason) for reason, n in reasons.most_common())


def roster_lines(names: Sequence[str], weights: Sequence[float]) -> tuple[tuple[str, str], ...]:
    """Each member's short label and full name, and its weight: the matrices' legend."""
    return tuple(
        (f"{member_label(k)} {name}", f"{weight:g}")
        for k, (name, weight) in enumerate(zip(names, weights, strict=True))
    )
