"""What every top-level function shares: one result type, its rows, the judge it opened.

A :class:`Result` holds the library's own result (``result``) and the report model
the command line builds from it (``report``), so :meth:`Result.to_dict` is what the
command's ``--json`` prints, :meth:`Result.to_html` writes the command's page and
:meth:`Result.save` its ``--out`` file (:mod:`fairjudge._api._out`).
:func:`opened` opens a judge from a spec (and closes it), :func:`last_run` reads its
last run (calls, usage, cost) and :func:`title` names the input in a report's title.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from fairjudge._api._inputs import ROWS, import_pandas
from fairjudge._items import Judgment
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge._api._out import OutFile
    from fairjudge.io import OutHeader

__all__ = [
    "Kind", "Result", "check_target", "header_of", "last_run", "opened", "out_file_of",
    "page_header", "pairwise_rows", "scored_rows", "skipped_rows", "title", "write_page",
]  # fmt: skip

Kind = Literal["compare", "score", "jury", "score-jury", "rank", "calibrate", "audit"]


@dataclass(frozen=True, slots=True)
class Result:
    """What :func:`fairjudge.compare` and the other top-level functions return.

    Attributes:
        kind: The command it matches: ``compare``, ``score``, ``jury``, ``score-jury``,
            ``rank``, ``calibrate`` or ``audit``.
        result: The library's result: a :class:`~fairjudge.PairwiseResult` (compare,
            calibrate), :class:`~fairjudge.evaluation.ScoreResult` (score),
            :class:`~fairjudge.evaluation.JuryResult` (jury),
            :class:`~fairjudge.evaluation.JuryScoreResult` (score-jury),
            :class:`~fairjudge.audit.AuditReport` (audit), or the judged pairs of a
            ``rank`` (``None`` when the input held judged battles).
        report: The report model the command line renders (its ``to_dict()`` is the
            command's ``--json``), or for ``calibrate`` the calibration report.
        stopped: Why a budget stopped the run early (the result is partial), or ``None``.
        calls: What the run's calls did (a :class:`~fairjudge.runner.RunSummary`: counts,
            tokens, cost), or ``None`` for a judge that keeps none.
        sent_by: The judge whose requests the run sent (a mapping of names to judges
            for several), so what they carried can be recorded; ``None`` without one.
    """

    kind: Kind
    result: Any
    report: Any
    stopped: str | None = None
    _rows: Callable[[], list[dict[str, Any]]] = field(default=lambda: [], repr=False)
    _html: Callable[[OutHeader | None], str] = field(kw_only=True, repr=False)
    _summary: Callable[[], str] | None = field(default=None, repr=False)
    calls: Any = field(default=None, kw_only=True, repr=False)
    sent_by: Any = field(default=None, kw_only=True, repr=False)
    _out: Callable[[], OutFile] | None = field(default=None, kw_only=True, repr=False)

    def summary(self) -> str:
        """A few human-readable lines: the headline numbers with their intervals.

        A run a budget stopped says so (its figures are of the judged part only), and
        one that set input rows aside (``skip_invalid``) says how many, which
        ``to_dict()["skipped_rows"]`` lists.
        """
        text = self._summary() if self._summary is not None else str(self.result.summary())
        if self.stopped is not None and self.stopped not in text:
            text += f"\npartial result, stopped: {self.stopped}"
        set_aside = skipped_rows(self.report)
        if set_aside:
            text += f"\nrows set aside: {len(set_aside)} (skipped_rows)"
        return text

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready summary, as the command's ``--json`` prints it."""
        to_dict = getattr(self.report, "to_dict", None)
        return dict(to_dict() if callable(to_dict) else self.report)

    def to_records(self) -> list[dict[str, Any]]:
        """One flat record per item (per model, for a leaderboard), as :meth:`to_pandas` has."""
        return self._rows()

    def to_pandas(self) -> Any:
        """One row per item, with every call's reply (both orders, for pairs).

        Raises:
            MissingExtraError: pandas is not installed (``pip install 'fairjudge[pandas]'``).
        """
        pandas = import_pandas("Result.to_pandas()")
        return pandas.DataFrame.from_records(self.to_records())

    def to_html(self, path: str | Path, *, header_extra: Mapping[str, Any] | None = None) -> Path:
        """Write the self-contained HTML report, the one the command's ``--html`` writes.

        Its run-facts card (judge, template or rubric, settings, the fairjudge that ran
        it) is read from the header :meth:`save` writes (:func:`page_header`), so the
        page and the ``--out`` file say the same, in a notebook as on the command line.

        Args:
            path: Where to write.
            header_extra: As :meth:`save`'s; the command line passes the command as
                typed, which a notebook's page shows as not recorded.

        Returns:
            The path written.

        Raises:
            ConfigError: A ``path`` that must not or cannot be written, as for :meth:`save`.
        """
        return write_page(path, page_header(self, header_extra), self._html)

    def save(self, path: str | Path, *, header_extra: Mapping[str, Any] | None = None) -> Path:
        """Write the run's audit trail, the file the command's ``--out`` writes.

        A header record (the kind, judge, template or rubric, settings, what the
        requests carried and what the calls did), then one record per item (per
        battle for ``rank``, per experiment for an audit), written atomically:
        ``fairjudge report FILE`` draws it, as it draws the command's. A run a budget
        stopped is saved as far as it got: every item is there, the calls never made
        recorded as not run and the reason in the header's ``settings.stopped``, so
        the file reads back as stopped, for the reason the run gave.

        Named ``save`` (not ``to_jsonl``): the file is the run itself, header and all,
        which ``fairjudge report`` and ``score --baseline`` read back, not a format
        of :meth:`to_records`.

        Args:
            path: Where to write (its folder is made if missing).
            header_extra: What only a command line knows, added to the header:
                ``command`` (the command as typed; credentials are masked),
                ``config`` and ``config_file`` (``fairjudge run``'s). A notebook's
                file has an empty ``command``.

        Returns:
            The path written.

        Raises:
            ConfigError: A ``rank`` of judged battles (no judge ran: there is
                nothing per item to save), ``header_extra`` with another key, or a
                ``path`` that must not or cannot be written (:func:`check_target`:
                the input file, a store, a folder, a device).
        """
        from fairjudge._api._out import write_out_file

        out = out_file_of(self)
        check_target(path, out.settings)
        return write_out_file(path, out, self.calls, self.sent_by, header_extra)


def check_target(path: str | Path, settings: Mapping[str, Any], example: str | None = None) -> None:
    """Refuse a ``path`` that writing a result would destroy, before anything is drawn.

    :func:`fairjudge.io.check_writable`, with the run's input file (``settings``'
    ``source``) among the files it must not be: a notebook's ``save`` or ``to_html``
    over the input, a store, a folder, a pipe or a device (``/dev/null`` as root)
    would replace it, as the command line's ``--out`` and ``--html`` never do.

    A folder (``"out/"`` too) is refused suggesting ``example`` in it, a file name.

    Raises:
        ConfigError: Naming ``path``.
    """
    from fairjudge._api._inputs import ROWS
    from fairjudge.io import check_writable

    source = settings.get("source")
    inputs = (source,) if isinstance(source, str) and source != ROWS else ()
    check_writable(path, inputs=inputs, example=example)


def out_file_of(done: Result) -> OutFile:
    """What :meth:`Result.save` would write: the header's facts and the records.

    The command line draws an ``--html`` page's run facts from it, so the page and
    the ``--out`` file name the same judge and settings.

    Raises:
        ConfigError: As :meth:`Result.save`, for a result with nothing to save.
    """
    if done._out is None:
        from fairjudge._errors import ConfigError

        raise ConfigError(
            f"this {done.kind} result judged nothing (the items were judged battles), "
            "so it has no per-item records to save; to_dict() holds the leaderboard",
            params="items",
        )
    out = replace(done._out(), skipped_rows=skipped_rows(done.report))
    if done.stopped is None:
        return out
    # The run's own stop reason, so `fairjudge report` draws the sentence the run's page
    # gave; a file without it (not stopped, or older) keeps the generic one.
    return replace(out, settings={**out.settings, "stopped": done.stopped})


def skipped_rows(report: Any) -> list[dict[str, Any]]:
    """The input rows a run set aside (``skip_invalid``), as its ``to_dict()`` lists them.

    A report's ``skipped``, or a ``calibrate`` report's ``payload["skipped_rows"]``;
    none for a report that keeps none (an audit, a ranking).
    """
    rows = getattr(report, "skipped", None)
    if rows is None:
        payload = getattr(report, "payload", None)
        rows = payload.get("skipped_rows") if isinstance(payload, Mapping) else None
    return [dict(r) for r in rows] if isinstance(rows, (list, tuple)) else []


def page_header(done: Result, header_extra: Mapping[str, Any] | None = None) -> OutHeader:
    """The header :meth:`Result.save` would write, as a page's run-facts card reads it.

    A ``rank`` of judged battles saves no file; its page still gets a header naming
    the kind and ``header_extra``'s command.

    Raises:
        ConfigError: ``header_extra`` holds a key other than ``command``, ``config``
            or ``config_file``.
    """
    from fairjudge._api._out import OutFile

    out = out_file_of(done) if done._out is not None else OutFile(done.kind, lambda: ())
    return header_of(out, done.calls, done.sent_by, header_extra)


def header_of(
    out: OutFile, calls: Any, sent_by: Any, header_extra: Mapping[str, Any] | None
) -> OutHeader:
    """The header a file of ``out`` starts with (:func:`~fairjudge._api._out.out_header_of`), read.

    Raises:
        ConfigError: ``header_extra`` holds a key other than ``command``, ``config``
            or ``config_file``.
    """
    from fairjudge._api._out import out_header_of
    from fairjudge.io import read_header

    header = read_header(out_header_of(out, calls, sent_by, header_extra), path="")
    assert header is not None  # out_header_of makes a header record
    return header


def write_page(path: str | Path, header: OutHeader, draw: Callable[[OutHeader], str]) -> Path:
    """Write the page ``draw`` makes of a run's ``header`` to ``path``, atomically; the path.

    Raises:
        ConfigError: A ``path`` that must not or cannot be written (:func:`check_target`).
    """
    from fairjudge.io import write_atomic

    check_target(path, header.settings, "report.html")
    target = Path(path)
    write_atomic(target, (draw(header),))
    return target


def _calls(judgment: Judgment) -> dict[str, Any]:
    """Each call's reply and verdict, named by its order (``_2``... for repeats)."""
    out: dict[str, Any] = {}
    seen: dict[str, int] = {}
    for call in judgment.calls:
        order = call.order.value
        seen[order] = seen.get(order, 0) + 1
        tag = order if seen[order] == 1 else f"{order}_{seen[order]}"
        reply = call.reply
        out[f"reply_{tag}"] = reply.raw
        out[f"verdict_{tag}"] = reply.verdict.value if reply.verdict is not None else None
        out[f"failure_{tag}"] = str(reply.failure) if reply.failure is not None else None
    return out


def pairwise_rows(judgments: Sequence[Judgment]) -> list[dict[str, Any]]:
    """One row per judged pair: the item, its outcome and each order's reply."""
    rows = []
    for j in judgments:
        item = j.item
        rows.append(
            {
                **j.item_dict(),
                "model_1": item.model_1,
                "model_2": item.model_2,
                "outcome": j.outcome.value if j.outcome is not None else None,
                "score": j.score,
                "consistent": j.consistent,
                **_calls(j),
            }
        )
    return rows


def scored_rows(scored: Sequence[Any]) -> list[dict[str, Any]]:
    """One row per scored answer: the item, each dimension's score and the replies."""
    rows = []
    for s in scored:
        record = s.to_dict()
        calls = record.pop("calls")
        human = record.pop("human")
        scores = record.pop("scores")
        record.pop("expected", None)
        rows.append(
            {
                **record,
                **{f"human_{k}": v for k, v in human.items()},
                **{f"score_{k}": v for k, v in scores.items()},
                "reply": calls[0].get("raw") if len(calls) == 1 else [c.get("raw") for c in calls],
            }
        )
    return rows


def title(source: str) -> str:
    """The input's name for a report's title: a file's name, ``<stdin>`` or ``<rows>``."""
    if source == "-":
        return "<stdin>"
    return source if source == ROWS else Path(source).name


@contextmanager
def opened(
    judge: Any,
    open_spec: Callable[[str | None], Any],
    own: Callable[[Any], Any] | None = None,
) -> Iterator[Any]:
    """The judge to use; one opened from a spec here is closed here.

    ``own`` wraps your own judge (a function, or an object with a ``judge``/``ajudge``
    method; anything with no ``judge_batch`` or ``score_batch``) with the run options
    and store, as a spec's judge would get them; the wrapper is closed here too.
    """
    if judge is None or isinstance(judge, str):
        judge_ = open_spec(judge)
    elif own is not None and not any(hasattr(judge, m) for m in ("judge_batch", "score_batch")):
        judge_ = own(judge)
    else:
        judge_ = None
    if judge_ is not None:
        try:
            yield judge_
        finally:
            close = getattr(judge_, "close", None)
            if callable(close):
                close()
    else:
        yield judge


def last_run(judge: object) -> RunSummary | None:
    """The judge's last run (calls, usage, cost), when it keeps one."""
    run = getattr(judge, "last_run", None)
    return run if isinstance(run, RunSummary) else None
