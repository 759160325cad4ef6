"""A pointwise run as trend monitoring sees it: its scores, rubric and judge.

:class:`ScoreRun` is built from a finished :class:`ScoreResult`
(:meth:`ScoreRun.from_result`) or read back from an earlier ``score --out`` file
(:func:`load_score_run`). Each record of that file is one
:meth:`ScoredItem.to_dict <fairjudge.evaluation.ScoredItem.to_dict>` with the run's
``rubric`` (``name@version``) and ``judge``; files written before records carried
those two names read as a run whose rubric and judge are unknown (``None``), which
:func:`~fairjudge.evaluation.check_comparable` refuses unless told otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge._errors import InputError
from fairjudge._items import question_text
from fairjudge.evaluation._scores_result import ScoreResult
from fairjudge.io import open_source, read_header, shown

__all__ = ["ScoreRun", "load_score_run"]


@dataclass(frozen=True, slots=True)
class ScoreRun:
    """The scores of one pointwise run, one entry per answer.

    Attributes:
        rubric: ``name@version``; ``None`` when the records do not say.
        judge: The judge's name; ``None`` when unknown.
        clusters: Each answer's question (its bootstrap cluster, and what pairs it
            with the other run's answers to the same question).
        scores: Each answer's scores by dimension (failed dimensions absent).
        source: Where the run came from, for messages.
    """

    rubric: str | None
    judge: str | None
    clusters: tuple[str, ...]
    scores: tuple[Mapping[str, int], ...]
    source: str = "this run"

    @classmethod
    def from_result(cls, result: ScoreResult, *, source: str = "this run") -> ScoreRun:
        """The run a result records."""
        return cls(
            rubric=result.rubric_tag,
            judge=result.judge,
            clusters=tuple(i.item.cluster_key for i in result.items),
            scores=tuple(dict(i.scored.scores) for i in result.items),
            source=source,
        )

    @property
    def dimensions(self) -> tuple[str, ...]:
        """Every dimension scored at least once, in order of first appearance."""
        return tuple(dict.fromkeys(d for s in self.scores for d in s))

    def values(self, dimension: str) -> tuple[list[str], list[int]]:
        """The clusters and the scores of the answers scored on ``dimension``."""
        done = [(c, s[dimension]) for c, s in zip(self.clusters, self.scores, strict=True)
                if dimension in s]  # fmt: skip
        return [c for c, _ in done], [v for _, v in done]


def _cluster(record: Mapping[str, Any], where: dict[str, Any]) -> str:
    cluster = record.get("cluster")
    if isinstance(cluster, str):
        return cluster
    question = record.get("question")
    if isinstance(question, str):
        return question
    if isinstance(question, list) and all(
        isinstance(t, Mapping) and isinstance(t.get("role"), str)
        and isinstance(t.get("content"), str) for t in question
    ):  # fmt: skip
        return question_text(tuple((t["role"], t["content"]) for t in question))
    raise InputError("'question' must be a string or a list of {role, content} turns", **where)


def _scores(record: Mapping[str, Any], where: dict[str, Any]) -> dict[str, int]:
    scores = record.get("scores")
    if not isinstance(scores, Mapping):
        raise InputError(
            "no 'scores' object: is this a `fairjudge score out` file? "
            f"found keys: {', '.join(map(str, record)) or '(none)'}",
            **where,
            params="out",
        )
    for name, value in scores.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(
                f"score {shown(name)} must be a whole number, got {shown(value)}", **where
            )
    return {str(k): v for k, v in scores.items()}


def _label(record: Mapping[str, Any], key: str, where: dict[str, Any]) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise InputError(f"{key!r} must be a string, got {shown(value)}", **where)
    return value


def _is_header(row: Mapping[str, Any], path: str, line: int) -> bool:
    """Whether ``row`` is a ``--out`` header; refuse a file that holds no scored answers."""
    header = read_header(dict(row), path=path, line=line)
    if header is None:
        return False
    header.expect(("score", "calibrate"), reader="baseline", path=path, params=("baseline",))
    if header.rubric is None:
        raise InputError(
            f"a pairwise {header.kind} file (verdicts, not scores); baseline reads "
            "`score out` files",
            path=path,
            params=("baseline", "out"),
        )
    return True


def load_score_run(path: str | Path) -> ScoreRun:
    """Read an earlier ``score --out`` file back as a run.

    Raises:
        InputError: The file cannot be read, is empty, a record is not a scored item,
            or two records name different rubrics or judges (a baseline is one run);
            the message names the file and the line.
    """
    source = open_source(Path(path), pipes=False)  # a file, never a stream: see _untrusted
    clusters: list[str] = []
    scores: list[dict[str, int]] = []
    first: dict[str, tuple[int, str | None]] = {}
    for lineno, row in source.rows:
        where: dict[str, Any] = {"path": source.name, "line": lineno}
        if isinstance(row, InputError):
            raise row
        if not scores and _is_header(row, source.name, lineno):
            continue
        clusters.append(_cluster(row, where))
        scores.append(_scores(row, where))
        for key in ("rubric", "judge"):
            value = _label(row, key, where)
            line, seen = first.setdefault(key, (lineno, value))
            if seen != value:
                raise InputError(
                    f"{key} {value!r} differs from {seen!r} on line {line}; a baseline is "
                    "one run's out file",
                    **where,
                    params="out",
                )
    if not scores:
        raise InputError("no records; expected one scored item per line", path=source.name)
    return ScoreRun(
        rubric=first["rubric"][1],
        judge=first["judge"][1],
        clusters=tuple(clusters),
        scores=tuple(scores),
        source=source.name,
    )
