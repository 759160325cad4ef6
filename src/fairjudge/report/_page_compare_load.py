"""Read a ``compare`` or ``calibrate`` ``--out`` file back into a result, for its page.

Each line of the file is one :meth:`fairjudge.Judgment.to_dict` record: the item,
every call (order, sample, verdict, probabilities, raw reply, failure) and the rule.
The calls are resolved again under the record's rule and summarised with the seed,
level and resamples given, so with ``compare``'s defaults the figures are
``compare``'s own.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from fairjudge._call import Conversation
from fairjudge._errors import InputError
from fairjudge._items import Call, Item, Judgment
from fairjudge._types import (
    CallError,
    Order,
    Outcome,
    ParseFailure,
    Probabilities,
    Reply,
    Resolution,
    Verdict,
)
from fairjudge.evaluation import EvalSettings, PairwiseResult, summarise
from fairjudge.evaluation import judgment as judgment_of
from fairjudge.io import OutHeader, read_header, read_records, shown
from fairjudge.report._page_score_load import record_name, record_text
from fairjudge.report._text import clipped

__all__ = ["RANK_FILE", "load_comparison"]

_ITEM_KEYS = frozenset(
    {"id", "question", "answer_1", "answer_2", "category", "human", "human_score", "outcome",
     "score", "consistent", "rule", "calls", "model_1", "model_2"}
)  # fmt: skip
_STOPPED = "a budget stopped the run before every call was made (NotRun calls in the record)"


def _question(value: object) -> str | Conversation:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        turns = []
        for turn in value:
            if not (isinstance(turn, dict) and {"role", "content"} <= turn.keys()):
                raise ValueError("'question' turns must be {role, content} objects")
            turns.append((str(turn["role"]), str(turn["content"])))
        return tuple(turns)
    raise ValueError("'question' must be a string or a list of {role, content} turns")


def _failure(value: object, raw: str | None) -> ParseFailure | CallError | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"a call's 'failure' must be an object or null; got {shown(value)}")
    if value.get("type") == "parse_failure":
        return ParseFailure(raw or "", str(value.get("reason", "")))
    if value.get("type") == "call_error":
        return CallError(str(value.get("kind", "")), str(value.get("message", "")))
    raise ValueError(f"unknown failure type {shown(value.get('type'))}")


def _call(value: object) -> Call:
    if not isinstance(value, dict):
        raise ValueError("each of 'calls' must be an object")
    raw = value.get("raw")
    verdict = value.get("verdict")
    probabilities = value.get("probabilities")
    reply = Reply(
        Verdict(verdict) if verdict is not None else None,
        Probabilities.from_mapping(probabilities) if probabilities else None,
        raw if isinstance(raw, str) else None,
        _failure(value.get("failure"), raw if isinstance(raw, str) else None),
        cached=bool(value.get("cached", False)),
        key=value.get("key") if isinstance(value.get("key"), str) else None,
    )
    return Call(Order(str(value.get("order"))), int(value.get("sample", 0)), reply)


def _judgment(record: object) -> Judgment:
    if not isinstance(record, dict):
        raise ValueError("a line must be a JSON object")
    calls = record.get("calls")
    if not isinstance(calls, list) or not calls:
        raise ValueError("'calls' must be a non-empty list of call records")
    human, score = record.get("human"), record.get("human_score")
    item = Item(
        question=_question(record.get("question")),
        answer_1=record_text(record, "answer_1"),
        answer_2=record_text(record, "answer_2"),
        id=None if record.get("id") is None else str(record["id"]),
        category=None if record.get("category") is None else str(record["category"]),
        human=Outcome(str(human)) if human is not None else None,
        human_score=float(score) if score is not None else None,
        model_1=record_name(record, "model_1"),
        model_2=record_name(record, "model_2"),
    )
    extra = {k: v for k, v in record.items() if k not in _ITEM_KEYS}
    rule = Resolution(record.get("rule", "conservative"))
    return judgment_of(item, tuple(_call(c) for c in calls), rule, extra)


RANK_FILE = (
    "its pairs pool many models, so there is no model 1 vs model 2 page to draw from it; "
    "use `rank html` for the ranking report (`fairjudge rank FILE html=PAGE` ranks "
    "this file again without a judge call)"
)
_FILE_PARAMS = ("out", "html")  # the parameters these messages name


def _check_kind(header: OutHeader, path: Path) -> None:
    """Refuse a file ``report`` cannot render, naming its kind."""
    if header.kind == "rank":
        raise InputError(f"a rank file (written by `fairjudge rank out`): {RANK_FILE}",
                         path=str(path), params=_FILE_PARAMS)  # fmt: skip
    header.expect(("compare", "calibrate"), reader="`fairjudge report`", path=str(path))
    if header.rubric is not None:
        raise InputError(
            f"a pointwise {header.kind} file (scores by rubric {header.rubric}); "
            "`fairjudge report` reads pairwise `compare out` and `calibrate out` files",
            path=str(path),
            params="out",
        )


def _read(path: Path) -> tuple[OutHeader | None, list[Judgment]]:
    # A regular file only, read a bounded line at a time, each line parsed with its
    # depth bounded (_rows.read_records). Only "\n" ends a record: str.splitlines()
    # would also split at U+2028 and the other separators that JSON strings written
    # with ensure_ascii=False keep.
    judgments: list[Judgment] = []
    header = None
    for number, record in read_records(path):
        if not judgments and header is None:  # the first record: a header, or not
            header = read_header(record, path=str(path), line=number)
            if header is not None:
                _check_kind(header, path)
                continue
        if isinstance(record, dict) and {"model_a", "winner"} <= record.keys():
            raise InputError(f"a `rank out` record: {RANK_FILE}", path=str(path),
                             line=number, params=_FILE_PARAMS)  # fmt: skip
        try:
            judgments.append(_judgment(record))
        except (ValueError, TypeError, AttributeError, OverflowError) as exc:  # malformed
            raise InputError(
                f"not a result record of `fairjudge compare out` ({clipped(exc)}); a file with "
                "no header line is read as one, and the pages draw a file written by out of "
                "compare, calibrate, score, audit, jury or score-jury",
                path=str(path),
                line=number,
                params="out",
            ) from None
    if not judgments:
        raise InputError("holds no result record; give a file written by out", path=str(path),
                         params="out")  # fmt: skip
    return header, judgments


def _source(header: OutHeader | None, path: Path) -> str:
    """The run's input file, as the header records it; else the results file itself."""
    source = header.settings.get("source") if header is not None else None
    return source if isinstance(source, str) and source else str(path)


def load_comparison(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000
) -> tuple[OutHeader | None, PairwiseResult]:
    """Read a ``--out`` file and summarise it again, under the rule its records carry.

    Args:
        path: A JSONL file written by ``compare --out`` or pairwise ``calibrate --out``.
        seed: The bootstrap seed (``compare``'s default is 0).
        level: The confidence level.
        n_resamples: Bootstrap resamples.

    Returns:
        The file's header (``None`` for a file written before headers), and the
        result, with every judgment and call as recorded.

    Raises:
        InputError: The file cannot be read, its header names a kind of file that is
            not a pairwise result (a ``rank`` file, say), or a line is not a result
            record (the message names the file and the line).
    """
    header, judgments = _read(path)
    rules = {j.rule for j in judgments}
    if len(rules) > 1:
        names = ", ".join(sorted(r.value for r in rules))
        raise InputError(f"mixes records of several rules ({names})", path=str(path))
    rounds = max(len(j.calls) for j in judgments)
    balanced = all(
        sum(c.order is Order.ORIGINAL for c in j.calls) * 2 == len(j.calls) for j in judgments
    )
    settings = EvalSettings(
        rules.pop(), rounds, balanced or rounds <= 2, seed, level, n_resamples,
        judge=header.judge if header is not None else None,
        template=header.template if header is not None else None,
        source=_source(header, path),
    )  # fmt: skip
    result = summarise(judgments, settings)
    if result.n_not_run:
        result = dataclasses.replace(result, stopped=_STOPPED)
    return header, result
