"""Read a ``score --out`` file back into the :class:`~fairjudge.evaluation.ScoreResult` it records.

Each record after the header is one
:meth:`ScoredItem.to_dict <fairjudge.evaluation.ScoredItem.to_dict>`: the item, its
scores and every call with its reading or its failure and the raw reply. The calls
are read back (:class:`~fairjudge.judges.ScoreCall`), each answer's scores merged
from them as the judge's were (:meth:`AnswerScores.from_calls
<fairjudge.judges.AnswerScores.from_calls>`), and the whole run summarised again by
the command's own :func:`~fairjudge.evaluation.summarise_scores`, with the seed,
level and resamples given; with ``score``'s defaults every figure is ``score``'s.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge._errors import ConfigError, InputError
from fairjudge._items import ScoreItem
from fairjudge._types import CallError, ExpectedScore, ParseFailure, Reply, ScoreReading, never_made
from fairjudge.evaluation import ScoredItem, ScoreResult, summarise_scores
from fairjudge.io import OutHeader, read_header, read_records, shown
from fairjudge.prompts import AnswerScores, Rubric, ScoreCall, get_rubric, load_rubric
from fairjudge.report._text import clipped

__all__ = [
    "LoadedScores",
    "calls_of",
    "load_score_result",
    "question_of",
    "record_name",
    "record_text",
    "recorded_rubric",
    "score_call",
]

_STOPPED = "a budget stopped the run before every call was made (NotRun calls in the record)"


@dataclass(frozen=True, slots=True)
class LoadedScores:
    """A ``score --out`` file read back: the result and its header."""

    result: ScoreResult
    header: OutHeader | None


def record_text(record: Mapping[str, Any], key: str) -> str:
    """A record's string field; a ``ValueError`` naming the key and the value if it is not one.

    Every page loader reads its ``--out`` records through this one check, so a damaged
    file is worded alike whichever page reads it (the caller adds the path and line).
    """
    value = record.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string; got {shown(value)}")
    return value


def record_name(record: Mapping[str, Any], key: str) -> str | None:
    """A record's optional label (an id, a model, a category) as text; ``None`` when absent."""
    value = record.get(key)
    return None if value is None else str(value)


def _text(record: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
    if record.get(key) is None and not required:
        return None
    return record_text(record, key)


def question_of(value: object) -> str | tuple[tuple[str, str], ...]:
    """A record's question: a string, or a conversation of {role, content} string turns."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(
        isinstance(t, dict) and isinstance(t.get("role"), str) and isinstance(t.get("content"), str)
        for t in value
    ):  # fmt: skip
        return tuple((t["role"], t["content"]) for t in value)
    raise ValueError("'question' must be a string or a list of {role, content} turns")


def _expected(value: object) -> dict[str, ExpectedScore]:
    if not isinstance(value, dict):
        return {}
    return {
        str(name): ExpectedScore(
            float(e["expected"]),
            {int(k): float(p) for k, p in (e.get("probabilities") or {}).items()},
            float(e.get("mass", 1.0)),
        )
        for name, e in value.items()
        if isinstance(e, dict) and isinstance(e.get("expected"), int | float)
    }


def score_call(value: object) -> ScoreCall:
    """One recorded rubric call of an ``--out`` record (``score``'s and each panel member's)."""
    if not isinstance(value, dict):
        raise ValueError("each of 'calls' must be an object")
    raw = value.get("raw") if isinstance(value.get("raw"), str) else None
    key = value.get("key") if isinstance(value.get("key"), str) else None
    cached = bool(value.get("cached", False))
    dimension = _text(value, "dimension")
    failure = value.get("failure")
    if failure == "parse_failure":
        reply: Reply[ScoreReading] = Reply(
            failure=ParseFailure(raw or "", str(value.get("reason", ""))), raw=raw, cached=cached,
            key=key,
        )  # fmt: skip
    elif failure == "call_error":
        error = CallError(str(value.get("kind", "")), str(value.get("reason", "")))
        reply = Reply(failure=error, raw=raw, cached=cached, key=key)
    elif failure is None:
        payload = value.get("payload")
        if not isinstance(payload, dict) or not isinstance(payload.get("scores"), dict):
            raise ValueError("a call without a failure must have a 'payload' with 'scores'")
        scores = {str(k): v for k, v in payload["scores"].items()}
        if any(isinstance(v, bool) or not isinstance(v, int) for v in scores.values()):
            raise ValueError(f"scores must be whole numbers; got {shown(payload['scores'])}")
        reason = payload.get("reason")
        reading = ScoreReading(scores, reason if isinstance(reason, str) else None,
                               _expected(payload.get("expected")))  # fmt: skip
        reply = Reply(reading, raw=raw, cached=cached, key=key)
    else:
        raise ValueError(f"unknown failure {shown(failure)}")
    return ScoreCall(dimension, reply)


def _human(value: object) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("'human' must be an object of scores")
    return {str(k): float(v) for k, v in value.items() if isinstance(v, int | float)}


def _scored(record: object) -> ScoredItem:
    if not isinstance(record, dict):
        raise ValueError("a line must be a JSON object")
    calls = record.get("calls")
    if not isinstance(calls, list) or not calls:
        raise ValueError("'calls' must be a non-empty list of call records")
    item = ScoreItem(
        question=question_of(record.get("question")),
        answer=_text(record, "answer", required=True) or "",
        id=None if record.get("id") is None else str(record["id"]),
        reference=_text(record, "reference"),
        category=None if record.get("category") is None else str(record["category"]),
        system=None if record.get("system") is None else str(record["system"]),
        human=_human(record.get("human")),
        cluster=_text(record, "cluster"),
    )
    return ScoredItem(item, AnswerScores.from_calls([score_call(c) for c in calls]))


def _recorded(name: str, version: str, dims: object, scale: object, path: Path) -> Rubric:
    """The rubric the header records, checked as a rubric file is (names, scale bounds).

    The header is read from a file, so it is untrusted: a scale of a billion levels
    would be a histogram of a billion bins. Written as TOML and read by
    :func:`~fairjudge.prompts.load_rubric`, it passes every check a rubric file does.
    """
    ints = isinstance(scale, list) and all(type(v) is int for v in scale)
    text = ""
    if ints and isinstance(dims, list) and all(isinstance(d, str) for d in dims):
        parts = [f"name = {json.dumps(name)}", f"version = {json.dumps(version)}",
                 f"scale = {json.dumps(scale)}"]  # fmt: skip
        for dim in dims:
            parts += ["[[dimensions]]", f"name = {json.dumps(dim)}",
                      'description = "(as recorded in the out file)"']  # fmt: skip
        text = "\n".join(parts) + "\n"
    try:
        return load_rubric(text, source=f"{path} header")
    except ConfigError as exc:
        raise InputError(f"header: its rubric cannot be rebuilt ({exc})", path=str(path)) from None


def recorded_rubric(tag: object, header: OutHeader | None, path: Path, *, command: str) -> Rubric:
    """The run's rubric: as the header records it, else the built-in one of its name@version.

    ``command`` (``score``, ``score-jury``) is the one to run again for a file written
    before headers recorded the rubric.
    """
    if not isinstance(tag, str) or "@" not in tag:
        raise InputError(f"names no rubric (name@version); got {shown(tag)}", path=str(path),
                         params="out")  # fmt: skip
    name, _, version = tag.rpartition("@")
    settings = header.settings if header is not None else {}
    dims, scale = settings.get("dimensions"), settings.get("scale")
    if dims is not None or scale is not None:
        return _recorded(name, version, dims, scale, path)
    try:
        rubric = get_rubric(name)
    except ConfigError:
        rubric = None
    if rubric is None or rubric.version != version:
        raise InputError(
            f"rubric {tag} is not a built-in rubric of this fairjudge, and the header does not "
            "record its dimensions and scale (written by an older fairjudge); run "
            f"{command} again to write a file this fairjudge can draw",
            path=str(path), params="out",
        )  # fmt: skip
    return rubric


def load_score_result(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000
) -> LoadedScores:
    """Read a ``score --out`` file and summarise it again, as ``score`` did.

    Raises:
        InputError: The file cannot be read, is not a ``score`` file, names a rubric
            this fairjudge cannot rebuild, or a line is not a scored answer (the
            message names the file and the line).
    """
    header: OutHeader | None = None
    items: list[ScoredItem] = []
    for number, record in read_records(path):
        if header is None and not items:
            header = read_header(record, path=str(path), line=number)
            if header is not None:
                header.expect(("score",), reader="the score page", path=str(path))
                continue
        try:
            items.append(_scored(record))
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise InputError(f"not a record of `fairjudge score out` ({clipped(exc)})",
                             path=str(path), line=number, params="out") from None  # fmt: skip
    if not items:
        raise InputError("holds no scored answer; give a file written by `score out`",
                         path=str(path), params="out")  # fmt: skip
    rubric = recorded_rubric(header.rubric if header is not None else None, header, path,
                             command="score")  # fmt: skip
    result = summarise_scores(items, rubric, seed=seed, level=level, n_resamples=n_resamples,
                              judge=header.judge if header is not None else None)  # fmt: skip
    if any(i.scored.not_run for i in items):
        result = dataclasses.replace(result, stopped=_STOPPED)
    return LoadedScores(result, header)


def calls_of(result: ScoreResult) -> tuple[int, int]:
    """``(made, cached)``: the calls a run made and the ones the store served, from its items.

    A call a budget never started (``NotRun``) is neither.
    """
    replies = [c.reply for i in result.items for c in i.scored.calls]
    made = sum(not r.cached and not never_made(r.failure) for r in replies)
    return made, sum(r.cached for r in replies)
