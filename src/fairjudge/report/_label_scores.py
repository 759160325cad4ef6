"""The labelling page's API for rubric scores: what it is sent, and what it may post.

:mod:`fairjudge.report._label_server` serves both kinds of sheet; this module holds
the pointwise half. The page is sent the answers in the sheet's shown order (never
the system's name or the item's id), the rubric's dimensions with what their lowest
and highest scores mean, and the scores so far; it posts one score at a time, by
position in that order, which is mapped back to the file's row here.
"""

from __future__ import annotations

from typing import Any

from fairjudge._errors import ConfigError
from fairjudge.io import ScoreSheet
from fairjudge.prompts import Rubric
from fairjudge.report._text import visible

__all__ = ["score_label", "score_state"]


def score_state(sheet: ScoreSheet, rubric: Rubric, question: Any) -> dict[str, Any]:
    """The page's state for a scoring sheet; ``question`` draws a question for the page."""
    shown = [sheet.items[i] for i in sheet.order]
    return {
        "kind": "scores",
        "scale": list(sheet.scale),
        "dimensions": [
            {
                "name": d.name,
                "description": visible(d.description),
                "low": visible(d.low),
                "high": visible(d.high),
            }
            for d in rubric.dimensions
        ],
        "items": [{"question": question(i.question), "answer": visible(i.answer)} for i in shown],
        "scores": [
            {d: _number(sheet.scores[i][d]) for d in sheet.dimensions if d in sheet.scores[i]}
            for i in sheet.order
        ],
    }


def _number(score: float) -> float | int:
    """A whole score as an integer (a mean of raters stays a float)."""
    return int(score) if score.is_integer() else score


def score_label(sheet: ScoreSheet, body: Any) -> tuple[int, dict[str, Any]]:
    """Store one score: ``{"index": shown position, "dimension": name, "score": n|null}``."""
    if not isinstance(body, dict) or set(body) != {"index", "dimension", "score"}:
        return 400, {"error": 'send {"index": <item>, "dimension": <name>, "score": <n>|null}'}
    index, score = body["index"], body["score"]
    count = len(sheet.items)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
        return 400, {"error": f"index must be an item number from 0 to {count - 1}"}
    if score is not None and (not isinstance(score, int) or isinstance(score, bool)):
        return 400, {"error": "score must be a whole number on the rubric's scale, or null"}
    if not isinstance(body["dimension"], str):
        return 400, {"error": "dimension must be one of the rubric's dimensions"}
    try:
        sheet.set_score(sheet.order[index], body["dimension"], score)
    except ConfigError as exc:
        return 400, {"error": str(exc)}
    except OSError as exc:
        return 500, {"error": f"the score was not saved: {exc.strerror or exc}"}
    return 200, {"index": index, "done": sheet.done, "total": count}
