"""Replayed judges: verdicts recorded once, answered again without calling anyone.

Recorded judgments (an earlier ``--out`` file, another tool's, a dataset of
reviews) can be audited, calibrated and seated on a jury at no cost. A call with no
recording is a :class:`~fairjudge.CallError` naming the item, never a guess.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from fairjudge._call import Conversation
from fairjudge._errors import InputError
from fairjudge._items import question_text
from fairjudge._protocol import normalize_verdict
from fairjudge._redact import Redactor
from fairjudge._types import CallError, Order, ParseFailure, Probabilities, Reply, Verdict
from fairjudge.io import read_header, read_records, shown
from fairjudge.judges._pairwise import PairwiseRequest, ProgressCallback
from fairjudge.prompts import VerdictFormat, parse_verdict

__all__ = ["NOT_RECORDED", "ReplayJudge"]

NOT_RECORDED = "NotRecorded"
"""The :class:`~fairjudge.CallError` kind of a call the recording does not hold."""

Key = tuple[str, str, str]
"""(question text, answer shown first, answer shown second)."""


@dataclass(frozen=True, slots=True)
class _Pair:
    """Where an item's answers came from, to name it when one of its orders is missing."""

    label: str
    answer_1: str


class ReplayJudge:
    """A :class:`~fairjudge.judges.BatchJudge` that answers from recorded replies.

    Args:
        recordings: Per key (question text, answer shown first, answer shown
            second), the recorded reply of each sample index.
        name: How reports name the judge; default ``replay:<source>``.
        source: The file the recordings came from, for messages.
        labels: Per (question text, unordered answers), how to name the item (its
            id, else its question) and which answer is its ``answer_1``.

    Example:
        >>> judge = ReplayJudge.from_file("reviews.jsonl")  # doctest: +SKIP
        >>> evaluate_pairs(judge, items)  # doctest: +SKIP
    """

    def __init__(
        self,
        recordings: Mapping[Key, Mapping[int, Reply]],
        *,
        name: str | None = None,
        source: str = "<recordings>",
        labels: Mapping[tuple[str, frozenset[str]], _Pair] | None = None,
    ) -> None:
        self.recordings = {k: dict(v) for k, v in recordings.items()}
        self.source = source
        self.name = name or f"replay:{source}"
        self._labels = dict(labels or {})

    @classmethod
    def from_file(cls, path: str | Path, *, name: str | None = None) -> ReplayJudge:
        """Read every recording in ``path`` before any call is answered.

        Raises:
            InputError: The file cannot be read, holds no recording, or a line is
                not a recording (the message names the file and line).
        """
        return Loader(Path(path)).load(name)

    @staticmethod
    def records(path: Path) -> Iterator[tuple[int, Any]]:
        """A results file's records as ``replay:`` and ``fairjudge report`` read them.

        Each reply is scrubbed and each verdict checked against it: see :func:`recorded`.
        """
        return recorded(path)

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> list[Reply]:
        """Look every request up; an unrecorded one is a ``NotRecorded`` call error."""
        replies = []
        for request in requests:
            question = question_text(request.question)
            recorded = self.recordings.get((question, request.answer_a, request.answer_b), {})
            reply = recorded.get(request.sample)
            replies.append(reply if reply is not None else self._missing(question, request))
            if progress is not None:
                progress(1)
        return replies

    def _missing(self, question: str, request: PairwiseRequest) -> Reply:
        """A call error that names the item and the answer shown first in the missing call.

        The answer shown first names the call without guessing which order the caller
        calls original; whether the other order is recorded is said too.
        """
        pair = self._labels.get((question, frozenset((request.answer_a, request.answer_b))))
        label = f"item {pair.label}" if pair is not None else f"question {_clip(question)}"
        other = (question, request.answer_b, request.answer_a) in self.recordings
        what = (
            f"{label}, the call with answer {_clip(request.answer_a)} shown first "
            f"({'only the other order is' if other else 'neither order is'} recorded)"
        )
        sample = f", sample {request.sample}" if request.sample else ""
        message = f"{self.source} holds no recorded reply for {what}{sample}"
        return Reply(verdict=None, failure=CallError(NOT_RECORDED, message))

    def __repr__(self) -> str:
        return f"ReplayJudge({self.source!r}, {len(self.recordings)} recorded orders)"


def _clip(text: str, width: int = 50) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


_REPLAYABLE = ("compare", "calibrate", "rank", "jury")
"""The kinds of ``--out`` file that hold pairwise calls, which ``replay:`` answers from."""


class Loader:
    """Reads a recordings file line by line, naming the line of anything malformed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.recordings: dict[Key, dict[int, Reply]] = {}
        self.labels: dict[tuple[str, frozenset[str]], _Pair] = {}
        self.line = 0

    def fail(self, message: str, params: str | tuple[str, ...] = ()) -> InputError:
        return InputError(message, path=str(self.path), line=self.line or None, params=params)

    def load(self, name: str | None) -> ReplayJudge:
        # A regular file only, read a bounded line at a time; only "\n" ends a record,
        # as in every JSONL file fairjudge writes (see _rows.read_records).
        for number, record in recorded(self.path):
            self.line = number
            if not self.recordings and self._header(record):
                continue
            if not isinstance(record, dict):
                raise self.fail(f"a recording must be a JSON object; got {type(record).__name__}")
            if "calls" in record:
                self.add_result(record)
            else:
                self.add_row(record)
        self.line = 0
        if not self.recordings:
            raise self.fail(
                "holds no recording; give a `fairjudge compare out` file or a JSONL of "
                "question, answer_a, answer_b and reply or verdict",
                params="out",
            )
        return ReplayJudge(self.recordings, name=name, source=str(self.path), labels=self.labels)

    def _header(self, record: object) -> bool:
        """Whether ``record`` is a ``--out`` header; refuse a file of no pairwise calls."""
        header = read_header(record, path=str(self.path), line=self.line)
        if header is None:
            return False
        header.expect(_REPLAYABLE, reader="replay:", path=str(self.path),
                      advice="give a file of pairwise calls")  # fmt: skip
        if header.rubric is not None:
            raise self.fail(f"a pointwise {header.kind} file (scores by rubric "
                            f"{header.rubric}); replay: reads pairwise calls")  # fmt: skip
        return True

    def text(self, record: Mapping[str, Any], field: str) -> str:
        value = record.get(field)
        if not isinstance(value, str):
            got = "missing" if value is None else f"a {type(value).__name__}"
            raise self.fail(f"{field!r} must be a string; it is {got}")
        return value

    def question(self, record: Mapping[str, Any]) -> str:
        value = record.get("question")
        if isinstance(value, list):
            try:
                turns: Conversation = tuple((str(m["role"]), str(m["content"])) for m in value)
            except (TypeError, KeyError):
                raise self.fail(
                    "'question' as a list must hold {'role': ..., 'content': ...} messages"
                ) from None
            return question_text(turns)
        return self.text(record, "question")

    def put(self, key: Key, sample: int, reply: Reply) -> None:
        known = self.recordings.setdefault(key, {})
        if sample in known and known[sample] != reply:
            raise self.fail(
                f"this call (sample {sample}) is recorded twice with different replies; keep one"
            )
        known[sample] = reply

    def add_result(self, record: Mapping[str, Any]) -> None:
        """A ``compare --out`` record: replay each call exactly as it was recorded."""
        question = self.question(record)
        one, two = self.text(record, "answer_1"), self.text(record, "answer_2")
        label = repr(record["id"]) if record.get("id") is not None else _clip(question)
        self.labels[(question, frozenset((one, two)))] = _Pair(label, one)
        calls = record["calls"]
        if not isinstance(calls, list) or not calls:
            raise self.fail("'calls' must be a non-empty list of call records")
        by_label = _by_label(record.get("members"))
        for call in calls:
            if not isinstance(call, dict):
                raise self.fail("each of 'calls' must be an object")
            try:
                order = Order(str(call.get("order")))
            except ValueError:
                raise self.fail(f"a call's order must be 'original' or 'swapped'; got "
                                f"{shown(call.get('order'))}") from None  # fmt: skip
            key = (question, one, two) if order is Order.ORIGINAL else (question, two, one)
            reply = self.recorded_reply(call)
            if reply.probabilities is not None and (order.value, self.sample(call)) in by_label:
                reply = Reply(reply.verdict, None, reply.raw)  # a vote share, not measured
            self.put(key, self.sample(call), reply)

    def add_row(self, record: Mapping[str, Any]) -> None:
        """One recorded call: the raw reply (parsed) or the verdict (read as given)."""
        question = self.question(record)
        first, second = self.text(record, "answer_a"), self.text(record, "answer_b")
        if record.get("id") is not None:
            self.labels.setdefault(
                (question, frozenset((first, second))), _Pair(repr(record["id"]), first)
            )
        key = (question, first, second)
        sample = self.sample(record) if "sample" in record else len(self.recordings.get(key, {}))
        self.put(key, sample, self.row_reply(record))

    def sample(self, record: Mapping[str, Any]) -> int:
        value = record.get("sample", 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"'sample' must be an integer >= 0; got {shown(value)}")
        return value

    def probabilities(self, record: Mapping[str, Any]) -> Probabilities | None:
        value = record.get("probabilities")
        if value is None:
            return None
        try:
            if not isinstance(value, dict):
                raise TypeError(f"got {type(value).__name__}")
            return Probabilities.from_mapping(value)
        except (TypeError, ValueError) as exc:
            raise self.fail(f"'probabilities' must map A, B and tie to numbers ({exc})") from None

    def verdict(self, value: object) -> Verdict:
        try:
            return normalize_verdict(value)
        except ValueError:
            raise self.fail(f"'verdict' must be 'A', 'B' or 'tie'; got {shown(value)}") from None

    def row_reply(self, record: Mapping[str, Any]) -> Reply:
        raw = record.get("reply")
        if raw is not None and not isinstance(raw, str):
            raise self.fail(f"'reply' must be the judge's text; got a {type(raw).__name__}")
        probs = self.probabilities(record)
        if record.get("verdict") is not None:
            return Reply(self.verdict(record["verdict"]), probs, raw)
        if raw is None:
            raise self.fail("a recorded call needs 'reply' (the judge's text) or 'verdict'")
        fmt = record.get("verdict_format", "explained")
        if fmt not in get_args(VerdictFormat):
            raise self.fail(f"'verdict_format' must be one of {get_args(VerdictFormat)}; "
                            f"got {shown(fmt)}")  # fmt: skip
        parsed = parse_verdict(raw, fmt)
        if isinstance(parsed, ParseFailure):
            return Reply(verdict=None, raw=raw, failure=parsed)
        return Reply(parsed, probs, raw)

    def recorded_reply(self, call: Mapping[str, Any]) -> Reply:
        raw = call.get("raw")
        raw = raw if isinstance(raw, str) else None
        failure = call.get("failure")
        if failure is not None:
            if not isinstance(failure, dict):
                raise self.fail("a call's 'failure' must be an object")
            if failure.get("type") == "parse_failure":
                reason = str(failure.get("reason", ""))
                return Reply(verdict=None, raw=raw, failure=ParseFailure(raw or "", reason))
            kind, message = str(failure.get("kind", "CallError")), str(failure.get("message", ""))
            return Reply(verdict=None, raw=raw, failure=CallError(kind, message))
        if call.get("verdict") is None:
            raise self.fail("a call needs its 'verdict' or its 'failure'")
        return Reply(self.verdict(call["verdict"]), self.probabilities(call), raw)


def _by_label(members: object) -> set[tuple[str, int]]:
    """The (order, sample) of a jury record's calls that some member answered with a label only.

    An earlier fairjudge's jury ``--out`` file gave a panel call probabilities
    whenever one member measured them, averaging every label-only member's verdict
    in as 1 or 0; the members' own calls beside it show which calls those were, and
    such a call is read as what it is, the panel's label (so ``--rule soft`` says it
    averages labels). A file written now never holds one: a panel call has
    probabilities only when every member that answered measured them.
    """
    found: set[tuple[str, int]] = set()
    for entry in members.values() if isinstance(members, dict) else ():
        calls = entry.get("calls") if isinstance(entry, dict) else None
        for call in calls if isinstance(calls, list) else ():
            if (isinstance(call, dict) and call.get("verdict") is not None
                    and call.get("probabilities") is None):  # fmt: skip
                found.add((str(call.get("order")), call.get("sample", 0)))
    return found


_FORMATS: tuple[VerdictFormat, ...] = get_args(VerdictFormat)
_REPLIES = ("calls", "reply", "fairjudge")
"""A record's parts that hold what a judge said (and a header), scrubbed when read."""
_PARTS = ("scored_1", "scored_2", "swap")
"""A via-scores record's parts, each with its own ``calls``."""


def recorded(path: Path) -> Iterator[tuple[int, Any]]:
    """The records of a results file, each reply scrubbed and each verdict checked.

    The one reader of recorded replies (``replay:`` and ``fairjudge report``): a file
    handed over, or written by another tool, may hold a key in a reply, which is
    masked here as a fresh reply is on receipt (:meth:`~fairjudge._redact.Redactor.completion`);
    and a pairwise call's ``verdict`` must be one its ``raw`` reply reads as, in some
    verdict format (a reply no format reads, a Python judge's or one of probabilities
    only, is taken at its verdict), as a store row's reply is read again from ``raw``.

    Raises:
        InputError: A call's verdict contradicts its reply (naming the file and line),
            or what :func:`~fairjudge.io.read_records` raises.
    """
    redactor = Redactor.current()
    for number, record in read_records(path):
        if isinstance(record, dict):
            for name in _REPLIES:
                if name in record:
                    record[name] = redactor.tree(record[name])
            members = record.get("members")
            parts = [*members.values()] if isinstance(members, dict) else []
            parts += [record, *(record.get(name) for name in _PARTS)]
            for part in parts:
                if isinstance(part, dict) and part is not record and "calls" in part:
                    part["calls"] = redactor.tree(part["calls"])
                problem = _contradiction(part) if isinstance(part, dict) else None
                if problem is not None:
                    raise InputError(f"{problem}: the file was edited or damaged; write it "
                                     "again with the command's out", path=str(path), line=number,
                                     params="out")  # fmt: skip
        yield number, record


def _contradiction(part: Mapping[str, Any]) -> str | None:
    """What is wrong with the first call in ``part`` whose verdict its reply contradicts."""
    calls = part.get("calls")
    if "reply" in part:  # a recorded call of its own (replay:'s row form)
        fmt = part.get("verdict_format")
        said = _said(part.get("reply"), part.get("verdict"), fmt if fmt in _FORMATS else None)
        return None if said is None else f"its 'verdict' is {said}"
    for n, call in enumerate(calls if isinstance(calls, list) else (), start=1):
        if isinstance(call, dict) and "order" in call:
            said = _said(call.get("raw"), call.get("verdict"), None)
            if said is not None:
                where = f"{call['order']}, sample {call.get('sample', 0)}"
                return f"call {n} ({where}): its verdict is {said}"
    return None


def _said(raw: object, verdict: object, fmt: VerdictFormat | None) -> str | None:
    """``'B', but its reply reads as 'A'`` when ``raw`` contradicts ``verdict``; else ``None``."""
    if not isinstance(raw, str) or verdict is None:
        return None
    try:
        given = normalize_verdict(verdict)
    except ValueError:
        return None  # the loader names a verdict that is none
    read: set[str] = set()
    for f in (fmt,) if fmt else _FORMATS:
        reading = parse_verdict(raw, f)
        if reading is given:
            return None  # the usual case: no other format is tried
        if isinstance(reading, Verdict):
            read.add(reading.value)
    if not read:
        return None
    return f"{given.value!r}, but its reply reads as {' or '.join(map(repr, sorted(read)))}"
