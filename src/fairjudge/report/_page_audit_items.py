"""The audit page's explorer: every position pair, with the verdict the judge gave in each order.

The position experiment judges each pair twice, the answers swapped. These records
are those two calls per pair (``details["pairs"]``, kept by the experiment), so a
reader can open the pairs behind a first-position share: the ones where the verdict
followed the position, where answer 2 won, where a call failed. For the built-in
suite (an EvalBiasBench-style set: each question's correct answer against a flawed
one), answer 1 is the correct answer, so "answer 2 won" lists the judge's mistakes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fairjudge.report._page import Explorer
from fairjudge.report._page_audit_model import PairView

__all__ = ["FLAGS", "pair_explorer", "pair_record"]

FLAGS = (
    ("followed", "verdict followed the position"),
    ("first", "first answer shown won twice"),
    ("answer2", "answer 2 won"),
    ("failed", "a call failed"),
)
"""The explorer's filters: (key, label)."""

_TITLE_CHARS = 110


def _text(value: object) -> str:
    return "" if value is None else str(value)


def pair_record(view: PairView, key: str) -> dict[str, Any]:
    """One explorer record (the kit's form: key, title, search text, flags, facets, details)."""
    rec = view.record
    question = _text(rec.get("question"))
    ident = _text(rec.get("id")) or f"pair {view.index + 1}"
    won = f"{view.outcome} won" if view.outcome.startswith("answer") else view.outcome
    title = f"{ident} · {won} · {question}"
    failures = [str(f) for f in rec.get("failures") or () if f]
    score = rec.get("score")
    verdicts = [
        ["judge", view.judge],
        ["answer 1 shown first: picked", view.first],
        ["answer 2 shown first: picked", view.second],
        ["debiased result", view.outcome],
        ["score of answer 1", "no score" if score is None else f"{score:g}"],
        *(["failure", f] for f in failures),
    ]
    answers = []
    for n in ("1", "2"):
        model = _text(rec.get(f"model_{n}"))
        heading = f"answer {n}" + (f" ({model})" if model else "")
        answers.append({"h": heading, "rows": [["text", _text(rec.get(f"answer_{n}"))]]})
    flags = {
        "followed": view.followed_position,
        "first": view.followed_position and rec.get("original") == "A",
        "answer2": view.outcome == "answer 2",
        "failed": bool(failures),
    }
    parts = (ident, rec.get("category"), question, rec.get("answer_1"), rec.get("answer_2"),
             rec.get("model_1"), rec.get("model_2"), view.judge, *failures)  # fmt: skip
    return {
        "k": key,
        "t": title if len(title) <= _TITLE_CHARS else title[: _TITLE_CHARS - 1] + "…",
        "s": " ".join(_text(p) for p in parts if p),
        "f": {k: True for k, on in flags.items() if on},
        "v": {
            "category": _text(rec.get("category")) or "(none)",
            "outcome": view.outcome,
            "judge": view.judge,
        },
        "d": [
            {"h": "verdicts", "rows": verdicts},
            {
                "h": "question",
                "rows": [
                    ["id", ident],
                    ["category", _text(rec.get("category"))],
                    ["question", question],
                ],
            },
            *answers,
        ],
    }


def _keys(views: Sequence[PairView]) -> list[str]:
    """Each pair's permalink key: its id (judge first when several judged), or its place."""
    judges = {v.judge for v in views}

    def own(v: PairView) -> str:
        ident = _text(v.record.get("id")) or f"pair-{v.index + 1}"
        return f"{v.judge}/{ident}" if len(judges) > 1 else ident

    keys = [own(v) for v in views]
    if len(set(keys)) < len(keys):  # ids repeat: places are unique
        keys = [f"{v.judge}/{v.index + 1}" if len(judges) > 1 else str(v.index + 1) for v in views]
    return keys


def pair_explorer(views: Sequence[PairView]) -> Explorer | None:
    """The explorer over every position pair; ``None`` when no pair was recorded."""
    if not views:
        return None
    records = [pair_record(v, k) for v, k in zip(views, _keys(views), strict=True)]
    facets = [{"key": "category", "label": "category"}, {"key": "outcome", "label": "result"}]
    if len({v.judge for v in views}) > 1:
        facets.append({"key": "judge", "label": "judge"})
    spec: Mapping[str, Sequence[Mapping[str, str]]] = {
        "flags": [{"key": k, "label": label} for k, label in FLAGS],
        "facets": facets,
    }
    return Explorer(spec, records, noun="pairs")
