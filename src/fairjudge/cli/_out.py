"""Every command's ``--out`` file, and how a command shows its report.

One function writes them all, so every ``--out`` file opens with the same header
(:func:`fairjudge.io._out_file.out_header`): the kind of file, the command line, the
judge, the template or rubric, the settings and the fairjudge version; and, for every
command that calls a model, what its requests carried (``settings.request``, or
``settings.requests`` by member for a panel) and what its calls did (``calls``: counts,
tokens, cost, cache, reasoning, refused requests). A request's ``params`` are what
the store keys the call by; what was actually sent, when a refusal taught the run to
rename or drop one (:mod:`fairjudge.backends._capabilities`), is recorded beside them
(:func:`request_settings`). :func:`show` prints a report as ``--json`` or as its
tables, then where each written file went.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import typer
from rich.console import Console

from fairjudge._redact import redact_arg
from fairjudge.cli._app import err_console
from fairjudge.io import OutKind, out_header, strict_dumps, write_jsonl_atomic

if TYPE_CHECKING:
    from fairjudge.io import OutHeader

__all__ = [
    "command_line", "requests_of", "show", "write_judgments", "write_out", "write_page",
]  # fmt: skip


class _Report(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=_Report)


def show(
    report: R,
    render: Callable[[R, Console], None],
    *,
    as_json: bool,
    files: Iterable[tuple[str, Path | None]] = (),
    markdown: Callable[[], str] | None = None,
) -> None:
    """Print ``report`` as JSON, or render its tables and say where each written file went.

    With ``--markdown``, its summary (``markdown``, else the report kind's own) is
    written too; ``--markdown -`` prints it instead of the tables
    (:mod:`fairjudge.cli._markdown`).
    """
    from fairjudge.cli._markdown import write_markdown

    def draw() -> str:  # the Markdown views load only when --markdown is given
        from fairjudge.report import markdown_of

        return markdown() if markdown is not None else markdown_of(report)

    if as_json:
        typer.echo(strict_dumps(report.to_dict(), indent=2))
        write_markdown(draw)
        return
    if not write_markdown(draw):
        render(report, Console())
    for label, path in files:
        if path is not None:
            err_console.print(f"{label}: {path}", highlight=False, markup=False)


def command_line(name: str) -> list[str]:
    """The command as typed, ``fairjudge`` first, every credential in it masked.

    ``sys.argv`` when the process is the ``fairjudge`` command; otherwise (the CLI
    called from Python, as tests do) the command's ``name`` alone, not the host
    program's arguments. Masked here (:func:`fairjudge._redact.redact_arg`: a key in
    a ``--base-url``, a known secret), so no page, file or header shows what a
    header would not.
    """
    program = Path(sys.argv[0]).name if sys.argv else ""
    if program.removesuffix(".exe") == "fairjudge":
        return ["fairjudge", *map(redact_arg, sys.argv[1:])]
    return ["fairjudge", name]


def write_out(
    path: Path,
    kind: OutKind,
    records: Iterable[dict[str, Any]],
    *,
    judge: str | None = None,
    template: str | None = None,
    rubric: str | None = None,
    settings: Mapping[str, Any] | None = None,
    calls: _Report | Mapping[str, Any] | None = None,
    sent_by: object = None,
) -> None:
    """Write a ``--out`` file atomically: its header record, then ``records``.

    The header records the run's config file too (:func:`current_config`), so any
    ``--out`` file says how to run its evaluation again (``fairjudge run``).

    Args:
        path: Where to write.
        kind: What the file is (the command that wrote it).
        records: The file's records, after the header.
        judge: The judge's name (a member list for a panel).
        template: The pairwise template.
        rubric: The pointwise rubric.
        settings: The run's settings.
        calls: What the run's calls did: a :class:`~fairjudge.runner.RunSummary`
            (or its ``to_dict()``), as ``--json`` reports it; ``None`` for a judge
            that keeps none.
        sent_by: The judge whose requests the settings record (:func:`requests_of`):
            one judge, a panel, or a mapping of names to judges.
    """
    from fairjudge.cli._run_config import current_config, current_config_file

    command = command_line(kind.removesuffix("-via-scores"))
    settings = {**(settings or {}), **requests_of(sent_by)}
    if calls is not None and not isinstance(calls, Mapping):
        calls = calls.to_dict()
    header = out_header(
        kind, command=command, judge=judge, template=template, rubric=rubric, settings=settings,
        calls=calls, config=current_config(), config_file=current_config_file(),
    )  # fmt: skip
    write_jsonl_atomic(path, itertools.chain([header], records))


def write_page(
    path: Path, kind: OutKind, html_of: Callable[[OutHeader], str], **header: Any
) -> None:
    """Write an ``--html`` page, its run facts from the header ``--out`` opens with.

    ``header`` is what :func:`write_out` records (judge, template or rubric,
    settings); the command line is masked there, as in the file.
    """
    from fairjudge.io import read_header, write_atomic

    record = out_header(kind, command=command_line(kind), **header)
    made = read_header(record, path=str(path))
    assert made is not None  # out_header makes a header record
    write_atomic(path, (html_of(made),))


def requests_of(sent_by: object) -> dict[str, Any]:
    """What the requests of ``sent_by`` carried, as the ``--out`` header's settings hold it.

    One model judge: ``{"request": {...}}`` (:func:`request_settings`). A panel
    (members with a ``name`` and a ``judge``), or a mapping of names to judges (an
    audit's judges): ``{"requests": {name: {...}}}``, one entry per model judge, so a
    reader always finds each member's own. A judge that sends no request (a Python
    callable, a replay), or none at all: ``{}``.
    """
    if sent_by is None:
        return {}
    members = getattr(sent_by, "members", None)
    if isinstance(members, tuple | list):
        named = {
            getattr(m, "name", str(i)): getattr(m, "judge", None) for i, m in enumerate(members)
        }
    elif isinstance(sent_by, Mapping):
        named = dict(sent_by)
    else:
        return request_settings(sent_by)
    each = {name: request_settings(judge).get("request") for name, judge in named.items()}
    kept = {str(name): record for name, record in each.items() if record is not None}
    return {"requests": kept} if kept else {}


def request_settings(judge: Any) -> dict[str, Any]:
    """``{"request": {...}}`` for a model judge, or ``{}`` for one that sends no request.

    ``params`` are the keyed parameters; ``sent`` what went on the wire (only when it
    differs), ``learned`` and ``refused`` what refusals taught and cost; ``samples``
    is true when every reply is a sample (a temperature above 0, a model that
    samples at 1 only and is sent no temperature, or one whose refusal of the
    temperature asked for taught the run to send none).
    """
    params = getattr(judge, "params", None)
    backend = getattr(judge, "backend", None)
    if not isinstance(params, dict) or backend is None:
        return {}
    record: dict[str, Any] = {"params": dict(params)}
    sent = getattr(backend, "sent_params", None)
    wire = sent(params) if callable(sent) else params
    if wire != params:
        record["sent"] = wire
    learned = list(getattr(backend, "changes", None) or [])
    if learned:
        record["learned"] = learned
        record["refused"] = int(getattr(backend, "refused", 0))
    temperature = params.get("temperature", getattr(backend, "fixed_temperature", None))
    if "temperature" in params and "temperature" not in wire:
        # Refused and dropped: the server samples at its own default (OpenAI's is 1, the
        # only value such a model takes), so the replies are samples whatever was asked.
        temperature = 1.0
    record["samples"] = isinstance(temperature, int | float) and temperature > 0
    return {"request": record}


def write_judgments(
    path: Path, kind: OutKind, judged: Any, settings: Mapping[str, Any] | None = None
) -> None:
    """A pairwise run's ``--out``: the header, then one record per judged item.

    ``judged`` is the library's result (:func:`fairjudge.compare`,
    :func:`fairjudge.calibrate`); its settings name the judge and template (and are
    the header's ``settings`` unless ``settings`` is given), its ``calls`` and
    ``sent_by`` fill the header's calls and requests. A record carries the item's
    model names when it has them, so ``fairjudge report`` names the models as the
    ``--html`` page of the same run does.
    """
    result = judged.result
    recorded = result.settings

    def record(judgment: Any) -> dict[str, Any]:
        item = judgment.item
        names = {k: v for k, v in (("model_1", item.model_1), ("model_2", item.model_2)) if v}
        data = judgment.to_dict()
        return {**judgment.item_dict(), **names, **data} if names else data

    write_out(path, kind, (record(j) for j in result.judgments), judge=recorded.judge,
              template=recorded.template, settings=settings or recorded.to_dict(),
              calls=judged.calls, sent_by=judged.sent_by)  # fmt: skip
