"""Read a judging command's ``--out`` file back into its result, for its page.

Each record after the header is what the run wrote for one item: a ``compare`` or
``calibrate`` file's is a :meth:`fairjudge.Judgment.to_dict`, a ``score`` file's a
:meth:`ScoredItem.to_dict <fairjudge.evaluation.ScoredItem.to_dict>` (the panels'
pages read theirs with the same record readers). The item and every call (its
reading or failure, its raw reply) are read back, the calls resolved or merged again
as the judge's were, and the run summarised again by the command's own summary
(:func:`~fairjudge.evaluation.summarise`, :func:`~fairjudge.evaluation.summarise_scores`)
with the seed, level and resamples given (``fairjudge report`` gives the run's own,
as the header records them, so every figure is the run's), and a run a budget
stopped says the run's own reason (:func:`stop_reason`). A damaged record is refused
with the file and line, worded alike whichever page reads it.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge._errors import ConfigError, InputError
from fairjudge._items import Call, Item, Judgment, ScoreItem
from fairjudge._types import (
    CallError,
    ExpectedScore,
    Order,
    Outcome,
    ParseFailure,
    Probabilities,
    Reply,
    Resolution,
    ScoreReading,
    Verdict,
    never_made,
)
from fairjudge.evaluation import (
    EvalSettings,
    PairwiseResult,
    ScoredItem,
    ScoreResult,
    summarise,
    summarise_scores,
)
from fairjudge.evaluation import judgment as judgment_of
from fairjudge.io import OutHeader, read_header, shown
from fairjudge.judges import ReplayJudge
from fairjudge.prompts import AnswerScores, Rubric, ScoreCall, get_rubric, load_rubric
from fairjudge.report._text import clipped

__all__ = [
    "DRAWS",
    "LoadedScores",
    "calls_of",
    "header_and_records",
    "judged_record",
    "load_comparison",
    "load_ranked",
    "load_score_result",
    "question_of",
    "record_name",
    "record_text",
    "recorded_rubric",
    "recorded_source_name",
    "score_call",
    "scored_record",
    "source_name",
    "stop_reason",
    "summarised",
]

_STOPPED = "a budget stopped the run before every call was made (NotRun calls in the record)"


def stop_reason(header: OutHeader | None, generic: str = _STOPPED) -> str:
    """Why a budget stopped the run, as its own page said (the header's ``settings.stopped``).

    A file written before headers recorded it says ``generic`` instead.
    """
    recorded = header.settings.get("stopped") if header is not None else None
    return recorded if isinstance(recorded, str) and recorded else generic


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


def scored_record(record: object) -> ScoredItem:
    """One scored answer, as :meth:`ScoredItem.to_dict` wrote it (a ``ValueError`` if not)."""
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


def recorded_rubric(
    tag: object, header: OutHeader | None, path: Path, *, command: str, advice: str | None = None
) -> Rubric:
    """The run's rubric: as the header records it, else the built-in one of its name@version.

    ``command`` (``score``, ``score-jury``) is the one to run again for a file written
    before headers recorded the rubric; ``advice`` says instead what to do for a kind
    whose header never records it.
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
            "record its dimensions and scale "
            + (advice or f"(written by an older fairjudge); run {command} again to write a "
               "file this fairjudge can draw"),
            path=str(path), params="out",
        )  # fmt: skip
    return rubric


def source_name(source: object, path: Path) -> str:
    """A page's title: the run's input file (``-`` is ``<stdin>``), else ``path``'s name."""
    if not isinstance(source, str) or not source or source == str(path):
        return path.name
    return "<stdin>" if source == "-" else Path(source).name


def recorded_source_name(header: OutHeader | None, path: Path) -> str:
    """:func:`source_name` of the input file a ``--out`` header records."""
    return source_name(header.settings.get("source") if header is not None else None, path)


def header_and_records(
    path: Path, check: Callable[[OutHeader], None]
) -> tuple[OutHeader | None, Iterator[tuple[int, Any]]]:
    """A ``--out`` file's header (``check`` ed) and an iterator over its other records.

    Only the first record may be the header; a file without one (written before
    headers, or by hand) gives ``None`` and every record, the first included. Once
    read to the end, the records are checked to hold every call the header counts
    (:func:`_check_whole`): a file cut at a line boundary parses line by line.
    """
    records = iter(ReplayJudge.records(path))  # replies scrubbed, verdicts checked
    first = next(records, None)
    if first is None:
        return None, records
    header = read_header(first[1], path=str(path), line=first[0])
    if header is None:
        return None, itertools.chain((first,), records)
    check(header)
    return header, _whole(header, records, path)


def _whole(
    header: OutHeader, records: Iterator[tuple[int, Any]], path: Path
) -> Iterator[tuple[int, Any]]:
    """``records``, then :func:`_check_whole` of the calls they hold."""
    held: list[list[str | None]] = []  # each record's call keys
    for number, record in records:
        held.append(_call_keys(record))
        yield number, record
    _check_whole(header, held, path)


def load_score_result(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000,
    kind: str = "score",
) -> LoadedScores:  # fmt: skip
    """Read a ``score --out`` file and summarise it again, as ``score`` did.

    ``kind="calibrate"`` reads a pointwise ``calibrate --out`` file: its records are
    scored answers too, each with its human scores.

    Raises:
        InputError: The file cannot be read, is not a ``score`` file, names a rubric
            this fairjudge cannot rebuild, or a line is not a scored answer (the
            message names the file and the line).
    """
    items: list[ScoredItem] = []
    header, records = header_and_records(
        path, lambda found: found.expect((kind,), reader=f"the {kind} page", path=str(path))
    )
    for number, record in records:
        try:
            items.append(scored_record(record))
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise InputError(f"not a record of `fairjudge {kind} out` ({clipped(exc)})",
                             path=str(path), line=number, params="out") from None  # fmt: skip
    if not items:
        raise InputError(f"holds no scored answer; give a file written by `{kind} out`",
                         path=str(path), params="out")  # fmt: skip
    rubric = recorded_rubric(header.rubric if header is not None else None, header, path,
                             command=kind)  # fmt: skip
    result = summarise_scores(items, rubric, seed=seed, level=level, n_resamples=n_resamples,
                              judge=header.judge if header is not None else None)  # fmt: skip
    if any(i.scored.not_run for i in items):
        result = dataclasses.replace(result, stopped=stop_reason(header))
    return LoadedScores(result, header)


def calls_of(result: ScoreResult) -> tuple[int, int]:
    """``(made, cached)``: the calls a run made and the ones the store served, from its items.

    A call a budget never started (``NotRun``) is neither.
    """
    replies = [c.reply for i in result.items for c in i.scored.calls]
    made = sum(not r.cached and not never_made(r.failure) for r in replies)
    return made, sum(r.cached for r in replies)


_ITEM_KEYS = frozenset(
    {"id", "question", "answer_1", "answer_2", "category", "human", "human_score", "outcome",
     "score", "consistent", "rule", "calls", "model_1", "model_2"}
)  # fmt: skip


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


_BATTLE_KEYS = frozenset({"question_id", "model_a", "model_b", "winner"})
"""What a ``rank --out`` record adds to a judgment: the battle it is, which ``rank`` reads."""


def judged_record(record: object, *, battle: bool = False) -> Judgment:
    """A judged pair; a ``rank`` record (``battle``) names its models and question as a battle.

    A battle's ``question_id`` is its bootstrap cluster, as it was when it was judged.
    """
    if not isinstance(record, dict):
        raise ValueError("a line must be a JSON object")
    calls = record.get("calls")
    if not isinstance(calls, list) or not calls:
        raise ValueError("'calls' must be a non-empty list of call records")
    human, score = record.get("human"), record.get("human_score")
    names = ("model_a", "model_b") if battle else ("model_1", "model_2")
    cluster = record.get("question_id") if battle else None
    item = Item(
        question=question_of(record.get("question")),
        answer_1=record_text(record, "answer_1"),
        answer_2=record_text(record, "answer_2"),
        id=None if record.get("id") is None else str(record["id"]),
        category=None if record.get("category") is None else str(record["category"]),
        human=Outcome(str(human)) if human is not None else None,
        human_score=float(score) if score is not None else None,
        model_1=record_name(record, names[0]),
        model_2=record_name(record, names[1]),
        cluster=None if cluster is None else str(cluster),
    )
    known = _ITEM_KEYS | _BATTLE_KEYS if battle else _ITEM_KEYS
    extra = {k: v for k, v in record.items() if k not in known}
    rule = Resolution(record.get("rule", "conservative"))
    return judgment_of(item, tuple(_call(c) for c in calls), rule, extra)


_FILE_PARAMS = ("out", "html")  # the parameters these messages name

DRAWS = (
    "`fairjudge report` draws the files `out` writes for compare (pairwise, or via "
    "scores), calibrate (pairwise or pointwise), rank, score, jury, score-jury and audit"
)
"""Which ``--out`` files have a page, for the messages that refuse one that has none."""


def _check_kind(header: OutHeader, path: Path, kinds: tuple[str, ...]) -> None:
    """Refuse a file ``report`` cannot render this way, naming its kind."""
    header.expect(kinds, reader="`fairjudge report`", path=str(path))
    if header.rubric is None:
        return
    if header.kind == "calibrate":  # its own page draws it (_page_calibrate)
        raise InputError(
            f"a pointwise calibrate file (scores by rubric {header.rubric}) is not a pairwise "
            f"one: `fairjudge report` draws it as its pointwise calibration page. {DRAWS}",
            path=str(path),
            params="out",
        )
    raise InputError(f"a pointwise {header.kind} file (scores by rubric {header.rubric}) "
                     f"is not a pairwise one; {DRAWS}", path=str(path),
                     params="out")  # fmt: skip


def _read(path: Path, kinds: tuple[str, ...]) -> tuple[OutHeader | None, list[Judgment]]:
    # A regular file only, read a bounded line at a time, each line parsed with its
    # depth bounded (_rows.read_records). Only "\n" ends a record: str.splitlines()
    # would also split at U+2028 and the other separators that JSON strings written
    # with ensure_ascii=False keep.
    battle = kinds == ("rank",)
    judgments: list[Judgment] = []
    header, records = header_and_records(path, lambda found: _check_kind(found, path, kinds))
    for number, record in records:
        if not battle and isinstance(record, dict) and {"model_a", "winner"} <= record.keys():
            raise InputError("a `rank out` record in a file whose first record is not; give "
                             "the whole file `rank out` wrote", path=str(path), line=number,
                             params=_FILE_PARAMS)  # fmt: skip
        try:
            judgments.append(judged_record(record, battle=battle))
        except (ValueError, TypeError, AttributeError, OverflowError) as exc:  # malformed
            raise InputError(
                f"not a result record of `fairjudge {kinds[0]} out` ({clipped(exc)}); a file "
                "with no header line is read as one, and the pages draw a file written by out "
                "of compare, calibrate, rank, score, audit, jury or score-jury",
                path=str(path),
                line=number,
                params="out",
            ) from None
    if not judgments:
        raise InputError("holds no result record; give a file written by out", path=str(path),
                         params="out")  # fmt: skip
    return header, judgments


def _call_keys(record: object) -> list[str | None]:
    """The keys of every call a record holds, ``None`` for a call that records none.

    A record's calls are its own (``calls``) and, via scores, each answer's and its
    swap twin's (``scored_1``, ``scored_2``, ``swap``); a panel's are its members'
    (``members``: a jury record's own ``calls`` are the panel's verdicts, not calls).
    The run asks for each distinct call once (two identical items share their calls'
    keys), and the header's ``calls.total`` counts those.
    """
    if not isinstance(record, dict):
        return []
    members = record.get("members")
    parts = list(members.values()) if isinstance(members, dict) else [
        record, *(record.get(k) for k in ("scored_1", "scored_2", "swap"))]  # fmt: skip
    keys: list[str | None] = []
    for part in parts:
        calls = part.get("calls") if isinstance(part, dict) else None
        for call in calls if isinstance(calls, list) else ():
            key = call.get("key") if isinstance(call, dict) else None
            keys.append(key if isinstance(key, str) else None)
    return keys


def _check_whole(header: OutHeader, held: list[list[str | None]], path: Path) -> None:
    """Refuse records holding fewer distinct judge calls than the header says were asked for.

    A file cut at a line boundary parses line by line; only the header's count of
    calls (not-run calls included, as the records hold them) shows what is missing.
    Only fewer is refused: a call whose key the records do not carry is counted once
    per record, though the run may have shared it between identical items.
    """
    keys = [key for record in held for key in record]
    n_calls = len({k for k in keys if k is not None}) + keys.count(None)
    total = header.calls.get("total") if header.calls else None
    if isinstance(total, bool) or not isinstance(total, int) or n_calls >= total:
        return
    raise InputError(
        f"its header records {total} judge calls, but its {len(held)} result records hold "
        f"{n_calls}: the file is cut short or edited, and a page of it would not be the "
        "run's; write it again with the command's out",
        path=str(path), params="out",
    )  # fmt: skip


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
    return summarised(path, *_read(path, ("compare", "calibrate")), seed, level, n_resamples)


def load_ranked(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000
) -> tuple[OutHeader | None, PairwiseResult]:
    """Read a ``rank --out`` file's judged pairs and summarise them again, as ``rank`` did.

    As :func:`load_comparison`; each pair is judged between the battle's two models,
    its question its bootstrap cluster.

    Raises:
        InputError: As :func:`load_comparison`, for a file that is not a ``rank`` file.
    """
    return summarised(path, *_read(path, ("rank",)), seed, level, n_resamples)


def summarised(
    path: Path, header: OutHeader | None, judgments: list[Judgment], seed: int, level: float,
    n_resamples: int,
) -> tuple[OutHeader | None, PairwiseResult]:  # fmt: skip
    """The judged pairs read from ``path`` summarised again, under the rule they carry."""
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
        result = dataclasses.replace(result, stopped=stop_reason(header))
    return header, result
