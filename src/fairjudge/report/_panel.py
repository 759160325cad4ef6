"""What every panel shows the same way, whatever its members read: its report and its page.

A jury's report and a scoring panel's report are one model each (the result under
its rule, the same readings under the other rules, the diagnostics, the run): that
model is :class:`PanelReport`, on the shared :class:`~fairjudge.report._text.ReportFrame`,
and its JSON is written once. So are the parts of the table a panel adds to any
report: the legend that names each member's number, the calls by member and the
note on members that call no model.

Their pages are one :class:`PanelView` likewise, made from that report
(:class:`~fairjudge.report._jury.JuryReport`,
:class:`~fairjudge.report._jury.JuryScoreReport`): only the reading differs (a
verdict or a score per dimension). The item explorer's records (:func:`jury_records`,
:func:`score_jury_records`) put every member's reading of an item side by side. The
flag every panel has is ``split``: the items where the members' readings differ, the
ones a reader of a panel looks at first.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from rich.console import Console
from rich.table import Table

from fairjudge._items import question_text
from fairjudge._types import CallError, Outcome, ParseFailure, Reply, never_made
from fairjudge.report._page_plots import Figure, not_estimated
from fairjudge.report._text import ReportFrame, ci_text, estimate_text, markup, say
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    import fairjudge.report._page as kit
    from fairjudge.evaluation import JuryResult, JuryScoreResult, Rate, WinRate
    from fairjudge.judges import MemberUsage
    from fairjudge.stats import ConfidenceInterval, EffectiveJudges

__all__ = [
    "LOCAL",
    "FigureSet",
    "Matrix",
    "PanelFacts",
    "PanelReport",
    "PanelView",
    "calls_table",
    "effective_figure",
    "effective_text",
    "failure_rows",
    "figure",
    "jury_records",
    "jury_spec",
    "member_label",
    "panel_report",
    "partial_note",
    "print_calls",
    "print_legend",
    "print_local_note",
    "rate_figure",
    "roster_lines",
    "score_jury_records",
    "score_jury_spec",
]


class _Result(Protocol):
    """A panel's result (a JuryResult, a JuryScoreResult), as its report reads it."""

    @property
    def aggregation(self) -> str: ...

    @property
    def failures(self) -> Counter[str]: ...

    def to_dict(self) -> dict[str, Any]: ...


class _Diagnostics(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=_Result)
D = TypeVar("D", bound=_Diagnostics)
P = TypeVar("P", bound="PanelReport[Any, Any]")

LOCAL = "—"
"""The tokens and cost cells of a member that calls no model (a Python judge, a replay),
and the made and cached cells of one that answers without a call (a replay)."""


@dataclass(frozen=True, slots=True)
class PanelReport(ReportFrame, Generic[R, D]):
    """Everything a panel's run shows.

    Attributes:
        title: What was judged, e.g. the input file's name.
        result: The panel's result under its rule.
        alternatives: The same readings under the other aggregation rule(s).
        diagnostics: Per-member and panel figures (agreement, effective size).
        run: The model members' calls (one run for the panel); ``None`` without any.
        skipped: Input rows skipped with ``skip_invalid``.
    """

    title: str
    result: R
    alternatives: tuple[R, ...]
    diagnostics: D
    run: RunSummary | None = None
    skipped: tuple[dict[str, Any], ...] = ()

    def alternative_dict(self, alternative: R) -> Any:
        """What the JSON shows of the readings under another rule (a kind's own)."""
        raise NotImplementedError

    def usage_dict(self) -> dict[str, Any]:
        """The members' usage, where a kind's JSON lists it apart from its diagnostics."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        """The JSON: summary, other rules, diagnostics, usage, failures, calls, skipped rows."""
        return {
            **self.result.to_dict(),
            "alternative_aggregations": {
                a.aggregation: self.alternative_dict(a) for a in self.alternatives
            },
            **self.diagnostics.to_dict(),
            **self.usage_dict(),
            **self.run_dict(),
        }


def panel_report(
    cls: type[P],
    result: Any,
    rules: Sequence[str],
    diagnose: Callable[[Any], Any],
    *,
    title: str,
    run: RunSummary | None,
    skipped: Sequence[dict[str, Any]],
) -> P:
    """Build a panel's report: the diagnostics and the same readings under the other rules."""
    others = tuple(result.with_aggregation(a) for a in rules if a != result.aggregation)
    return cls(title, result, others, diagnose(result), run, tuple(skipped))


def member_label(k: int) -> str:
    """The short label of the ``k``-th member (from 0) in every table: ``#1``, ``#2``, ...

    Members' names are judge specs such as ``python:examples.judges:longer``: at 80
    columns a table cuts them to ``python:e…`` and two members read alike. A table
    shows the number, and :func:`print_legend` names each number in full.
    """
    return f"#{k + 1}"


def print_legend(console: Console, names: Sequence[str], weights: Sequence[float]) -> None:
    """Name each member's number in full, one line each; a long name wraps, never cut."""
    say(console, "members:")
    for k, (name, weight) in enumerate(zip(names, weights, strict=True)):
        say(console, f"  {member_label(k)}  {name}  (weight {weight:g})", overflow="fold")


def print_calls(
    console: Console, rows: Sequence[tuple[int | None, int | None, int, MemberUsage | None]]
) -> None:
    """The calls by member (:func:`calls_table`), and the members that call no model."""
    console.print(calls_table(rows))
    print_local_note(console, [u for *_, u in rows])


def calls_table(rows: Sequence[tuple[int | None, int | None, int, MemberUsage | None]]) -> Table:
    """Per member: calls asked, made now, from the store, failed; tokens, cost, latency.

    Args:
        rows: Per member, its calls and cached calls (``None``: its usage's), its
            failed calls and its usage (``None`` when the panel recorded none).
    """
    table = Table(title="calls by member (this run; a stored call costs 0)", header_style="bold")
    for head in ("member", "calls", "made", "cached", "failed", "tokens in / out", "cost",
                 "mean latency"):  # fmt: skip
        table.add_column(head, overflow="fold")
    for k, (calls, cached, failed, u) in enumerate(rows):
        if u is not None:  # counts a member's row lacks are its usage's
            calls = u.calls if calls is None else calls
            cached = u.cached if cached is None else cached
        asked = "n/a" if calls is None else str(calls)
        if u is None:
            cells = ("n/a", "n/a" if cached is None else str(cached), "n/a", "n/a", "n/a")
        else:
            # A Python judge's calls are made (or cached) on the engine, as a model's
            # are, and the panel's calls line counts them; only a replay makes none.
            made, stored = (LOCAL, LOCAL) if u.made is None else (str(u.made), str(cached))
            tokens = f"{u.input_tokens} / {u.output_tokens}"
            cost = "n/a" if u.cost_usd is None else f"${u.cost_usd:.4f}"
            if u.local:
                tokens = cost = LOCAL
            cells = (made, stored, tokens, cost, _latency(u))
        made, stored, tokens, cost, latency = cells
        table.add_row(member_label(k), asked, made, stored, str(failed), tokens, cost, latency)
    return table


def effective_text(effective: EffectiveJudges | str) -> str:
    """The effective number of judges with its interval, of how many; or why not computed."""
    if isinstance(effective, str):
        return markup(effective)
    e = effective
    return markup(f"{estimate_text(e.estimate, e.ci, '.2f')} of {e.n_members}")


def _latency(usage: MemberUsage) -> str:
    return "n/a" if usage.latency_s is None else f"{usage.latency_s:.3f} s"


def print_local_note(console: Console, usage: Sequence[MemberUsage | None]) -> None:
    """Say what each ``—`` stands for: no model (no tokens, no cost), or no call at all."""
    called = [k for k, u in enumerate(usage) if u is not None and u.local and u.made is not None]
    replayed = [k for k, u in enumerate(usage) if u is not None and u.local and u.made is None]
    if called:
        say(console, f"{LOCAL}: {_labels(called)} call a Python function, not a model: no "
            "tokens, nothing to pay for.")  # fmt: skip
    if replayed:
        say(console, f"{LOCAL}: {_labels(replayed)} answered without a call (a replay reads "
            "its recording): none made or cached, nothing to pay for.")  # fmt: skip


def _labels(members: Sequence[int]) -> str:
    return ", ".join(member_label(k) for k in members)


def partial_note(stopped: str | None, console: Console) -> None:
    """Say that the run stopped short, so a partial result is not read as whole.

    A budget is not the only stop that keeps a partial result (a Python judge with no
    store that could not go on is another), so the note points at the "stopped" line,
    which says which one.
    """
    if stopped is not None:
        console.print(
            "[yellow]partial result:[/yellow] the run stopped before every call was made "
            "(the 'stopped' line says why).",
            highlight=False,
        )


# The page's view of a panel (drawn by report/_page_panel.py), as plain values.


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
    headline: kit.Headline
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


def figure(
    label: str, estimate: float | None, ci: ConfidenceInterval, note: str = "", spec: str = ".3f"
) -> Figure:
    """An estimate with its interval; ``not_estimated`` (the kit's) when either cannot be."""
    if not ci.estimable:
        return not_estimated(label, ci.reason or "the interval cannot be estimated", note)
    if estimate is None or not math.isfinite(estimate):
        return not_estimated(label, "the estimate is undefined on these data", note)
    interval = ci_text(ci, spec)
    return Figure(label, estimate, ci.low, ci.high, f"{estimate:{spec}}  {interval}", None, note,
                  interval)  # fmt: skip


def rate_figure(label: str, rate: Rate | WinRate | None, why_none: str) -> Figure:
    """A share (a rate or a win rate) with its counts, or ``why_none`` when absent."""
    if rate is None:
        return not_estimated(label, why_none)
    counts = getattr(rate, "successes", None)
    note = f"{counts} of {rate.n}" if counts is not None else f"n = {rate.n}"
    return figure(label, rate.estimate, rate.ci, note)


def effective_figure(label: str, effective: EffectiveJudges | str, noun: str = "items") -> Figure:
    """The effective number of judges with its interval, or why it was not computed."""
    if isinstance(effective, str):
        return not_estimated(label, effective)
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


_WORD = {Outcome.ONE: "model 1", Outcome.TWO: "model 2", Outcome.TIE: "tie"}
_SHORT = {Outcome.ONE: "1", Outcome.TWO: "2", Outcome.TIE: "tie"}
_REPLY_CHARS = 1000  # of a reply shown in the explorer; --out keeps it whole
_NONE = "—"


def _flag(key: str, label: str) -> dict[str, str]:
    return {"key": key, "label": label}


def jury_spec() -> dict[str, Any]:
    """The jury explorer's filters (flags) and facets."""
    return {
        "flags": [
            _flag("split", "members split"),
            _flag("unresolved", "unresolved by the panel"),
            _flag("failure", "a member's call failed"),
            _flag("human", "panel differs from the human label"),
        ],
        "facets": [_flag("panel", "panel's verdict"), _flag("category", "category")],
    }


def score_jury_spec() -> dict[str, Any]:
    """The scoring panel explorer's filters (flags) and facets."""
    return {
        "flags": [
            _flag("split", "members' scores differ"),
            _flag("unscored", "a dimension left unscored"),
            _flag("failure", "a member's call failed"),
            _flag("human", "panel 1 level or more from a human score"),
        ],
        "facets": [_flag("system", "system"), _flag("category", "category")],
    }


def failed(reply: Reply[Any]) -> bool:
    """A parse failure or a call error; a call a budget never started is neither."""
    return reply.failure is not None and not never_made(reply.failure)


def reply_text(reply: Reply[Any]) -> str:
    """A call's reply as the explorer shows it: the failure and its reason, or the reply."""
    f = reply.failure
    if isinstance(f, ParseFailure):
        return f"parse failure: {f.reason}" + (f"; reply: {_clip(f.raw)}" if f.raw else "")
    if isinstance(f, CallError):
        return f"not made: {f.message}" if never_made(f) else f"call error ({f.kind}): {f.message}"
    return _clip(reply.raw or "")


def _clip(text: str) -> str:
    return (
        text if len(text) <= _REPLY_CHARS else text[:_REPLY_CHARS] + "… (cut; out= keeps it whole)"
    )


def _member_names(names: Sequence[str]) -> list[str]:
    return [f"{member_label(k)} {name}" for k, name in enumerate(names)]


def jury_records(result: JuryResult) -> Iterator[dict[str, Any]]:
    """One explorer record per item of a jury's result, in input order."""
    who = _member_names(result.names)
    for k, panel in enumerate(result.judgments):
        own = [m.judgments[k] for m in result.members]
        item = panel.item
        key = item.id if item.id is not None else str(k + 1)
        said = {v for v in panel.votes if v is not None}
        verdict = _WORD[panel.outcome] if panel.outcome is not None else "unresolved"
        human = _WORD[item.human] if item.human is not None else _NONE
        question = question_text(item.question)
        votes = "/".join(_SHORT[v] if v is not None else _NONE for v in panel.votes)
        members = [
            [name, f"{w:g}", _WORD[v] if v is not None else "unresolved",
             _NONE if s is None else f"{s:.3f}"]
            for name, w, v, s in zip(who, result.weights, panel.votes, panel.soft, strict=True)
        ]  # fmt: skip
        calls = [
            [name, c.order.value, reply_text(c.reply)]
            for name, j in zip(who, own, strict=True)
            for c in j.calls
        ]
        panel_rows = [["verdict", verdict],
                      ["model 1's score", _NONE if panel.score is None else f"{panel.score:.3f}"],
                      ["human label", human], ["category", item.category or _NONE]]  # fmt: skip
        yield {
            "k": key,
            "t": f"{key}: panel {verdict}; votes {votes}",
            "s": "",
            "f": {
                "split": len(said) > 1,
                "unresolved": panel.outcome is None,
                "failure": any(failed(c.reply) for j in own for c in j.calls),
                "human": item.human is not None and panel.outcome not in (None, item.human),
            },
            "v": {"panel": verdict, "category": item.category or "(none)"},
            "d": [
                {"h": "Question", "rows": [["question", question]]},
                {"h": "Answers", "rows": [["model 1", item.answer_1], ["model 2", item.answer_2]]},
                {"h": "The panel", "rows": panel_rows},
                {"h": "Members' verdicts", "cols": ["member", "weight", "verdict", "soft score"],
                 "cells": members},
                {"h": "Members' calls", "cols": ["member", "order", "reply or failure"],
                 "cells": calls},
            ],
        }  # fmt: skip


def score_jury_records(result: JuryScoreResult) -> Iterator[dict[str, Any]]:
    """One explorer record per answer of a scoring panel's result, in input order."""
    who = _member_names(result.names)
    dims = result.rubric.names
    for k, scored in enumerate(result.items):
        item = scored.item
        key = item.id if item.id is not None else str(k + 1)
        rows = [[name, *(_score(m.scores.get(d)) for d in dims)]
                for name, m in zip(who, scored.members, strict=True)]  # fmt: skip
        rows.append(
            [f"panel ({result.aggregation})", *(_score(scored.scores.get(d)) for d in dims)]
        )
        if item.human:
            rows.append(["human", *(_score(item.human.get(d)) for d in dims)])
        reasons = []
        for name, m in zip(who, scored.members, strict=True):
            failures = [reply_text(c.reply) for c in m.calls if c.reply.failure is not None]
            reasons += [[name, text] for text in failures or [m.reason or _NONE]]
        split = any(len({s for s in scored.member_scores(d) if s is not None}) > 1 for d in dims)
        far = any(
            abs(scored.scores[d] - h) >= 1 for d, h in item.human.items() if d in scored.scores
        )
        panel = ", ".join(f"{d} {_score(scored.scores.get(d))}" for d in dims)
        question = question_text(item.question)
        facts = [["system", item.system or _NONE], ["category", item.category or _NONE]]
        if item.reference is not None:
            facts.append(["reference", item.reference])
        yield {
            "k": key,
            "t": f"{key}: panel {panel}",
            "s": "",
            "f": {
                "split": split,
                "unscored": len(scored.scores) < len(dims),
                "failure": any(failed(c.reply) for m in scored.members for c in m.calls),
                "human": far,
            },
            "v": {"system": item.system or "(none)", "category": item.category or "(none)"},
            "d": [
                {"h": "Question", "rows": [["question", question]]},
                {"h": "Answer", "rows": [["answer", item.answer], *facts]},
                {"h": "Scores", "cols": ["member", *dims], "cells": rows},
                {"h": "Reasons and failures", "cols": ["member", "reason or failure"],
                 "cells": reasons},
            ],
        }  # fmt: skip


def _score(value: float | None) -> str:
    if value is None:
        return _NONE
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"
