"""The panel page's item explorer: one record per item, every member's reading side by side.

The flag every panel has is ``split``: the items where the members' readings differ,
the ones a reader of a panel looks at first.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from fairjudge._items import question_text
from fairjudge._types import CallError, Outcome, ParseFailure, Reply, never_made
from fairjudge.report._panel import member_label

if TYPE_CHECKING:
    from fairjudge.evaluation import JuryResult, JuryScoreResult

__all__ = ["jury_records", "jury_spec", "score_jury_records", "score_jury_spec"]

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
