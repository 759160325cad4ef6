"""Each result kind's ``--out`` file, written once for the notebook and the command line.

:meth:`fairjudge.Result.save` writes it and every command's ``--out`` calls that
method, so a file saved in a notebook is the file the command writes, and
``fairjudge report FILE`` draws either. One builder per kind here makes the header's
judge, template or rubric and settings, and the records after it. What only a
command line knows (the command as typed, ``fairjudge run``'s config table and file)
it passes in; a notebook's header has an empty ``command``.

A request's ``params`` are what the store keys the call by; what was actually sent,
when a refusal taught the run to rename or drop one
(:mod:`fairjudge.backends._capabilities`), is recorded beside them
(:func:`request_settings`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairjudge._errors import ConfigError
from fairjudge._items import Judgment
from fairjudge._types import Outcome

__all__ = [
    "HEADER_EXTRA", "OutFile", "audit_out", "compare_out", "jury_out", "out_header_of",
    "rank_out", "request_settings", "requests_of", "score_jury_out", "score_out",
    "via_scores_out", "write_out_file",
]  # fmt: skip

HEADER_EXTRA = ("command", "config", "config_file")
"""What a caller may add to a header: the command line's own facts."""


@dataclass(frozen=True, slots=True)
class OutFile:
    """One result's ``--out`` file before it is written: its header's facts and its records.

    Attributes:
        kind: The kind of file (:data:`fairjudge.io.OutKind`).
        records: The records after the header, made when the file is written.
        judge: The judge's name (a member list for a panel).
        template: The pairwise template, ``name@version``.
        rubric: The pointwise rubric, ``name@version``.
        settings: The run's settings, JSON-ready (the requests are added on writing).
        member_usage: A panel's usage per member, JSON-ready (``None``: not a panel,
            or none recorded), kept in the header so the page redrawn shows it.
        skipped_rows: The input rows the run set aside (``skip_invalid``), as its
            ``to_dict()`` lists them; kept in the header (when there are any) so
            ``fairjudge report`` lists them as the run did.
    """

    kind: Any
    records: Callable[[], Iterable[dict[str, Any]]] = field(repr=False)
    judge: str | None = None
    template: str | None = None
    rubric: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    member_usage: Sequence[Mapping[str, Any]] | None = None
    skipped_rows: Sequence[Mapping[str, Any]] = ()

    def head(self) -> dict[str, Any]:
        """The header's judge, template, rubric and settings, as ``out_header`` takes them."""
        return {"judge": self.judge, "template": self.template, "rubric": self.rubric,
                "settings": dict(self.settings)}  # fmt: skip


def out_header_of(
    out: OutFile, calls: Any, sent_by: object, header_extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The header record of ``out``: its facts, its requests and calls, and ``header_extra``.

    Raises:
        ConfigError: ``header_extra`` holds a key other than ``command``, ``config``
            or ``config_file``.
    """
    from fairjudge.io import out_header

    extra = dict(header_extra or {})
    unknown = sorted(set(extra) - set(HEADER_EXTRA))
    if unknown:
        raise ConfigError(
            f"header_extra takes {', '.join(HEADER_EXTRA)}; got {', '.join(map(repr, unknown))}",
            params="header_extra",
        )
    settings = {**out.settings, **requests_of(sent_by)}
    if calls is not None and not isinstance(calls, Mapping):
        calls = calls.to_dict()
    return out_header(
        out.kind, command=extra.get("command") or (), judge=out.judge, template=out.template,
        rubric=out.rubric, settings=settings, calls=calls, config=extra.get("config"),
        config_file=extra.get("config_file"), member_usage=out.member_usage,
        skipped_rows=out.skipped_rows,
    )  # fmt: skip


def write_out_file(
    path: str | Path, out: OutFile, calls: Any, sent_by: object,
    header_extra: Mapping[str, Any] | None = None,
) -> Path:  # fmt: skip
    """Write ``out`` atomically to ``path``: the header record, then one record a line."""
    from fairjudge.io import write_jsonl_atomic

    target = Path(path)
    header = out_header_of(out, calls, sent_by, header_extra)
    write_jsonl_atomic(target, itertools.chain([header], out.records()))
    return target


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


def _judged(judgment: Judgment) -> dict[str, Any]:
    """A pairwise record: the judgment, with the item's model names when it has them.

    The names let ``fairjudge report`` name the models as the ``--html`` page does.
    """
    item = judgment.item
    names = {k: v for k, v in (("model_1", item.model_1), ("model_2", item.model_2)) if v}
    data = judgment.to_dict()
    return {**judgment.item_dict(), **names, **data} if names else data


def compare_out(
    kind: str, result: Any, adaptive: Any = None, gate: Mapping[str, float] | None = None
) -> OutFile:
    """``compare`` and pairwise ``calibrate``: one record per judged pair.

    With ``adaptive`` (``stop_when``), the settings hold the adaptive block too;
    with ``gate`` (``calibrate``'s ``min_kappa`` and ``min_spearman``), its
    thresholds, so ``fairjudge report`` draws the calibration against the run's gate.
    """
    settings = {**result.settings.to_dict(), **(gate or {})}
    if adaptive is not None:
        settings["adaptive"] = adaptive.adaptive_dict()
    return OutFile(kind, lambda: map(_judged, result.judgments), judge=result.settings.judge,
                   template=result.settings.template, settings=settings)  # fmt: skip


def score_out(kind: str, result: Any, **settings: Any) -> OutFile:
    """``score`` and pointwise ``calibrate``: one record per scored answer.

    The rubric's dimensions and scale go in the settings too, so ``fairjudge report``
    can summarise the file again under a rubric read from a ``.toml`` file.
    """
    rubric = {"dimensions": list(result.rubric.names), "scale": list(result.rubric.scale)}
    return OutFile(kind, result.records, judge=result.judge, rubric=result.rubric_tag,
                   settings={**settings, **rubric})  # fmt: skip


def jury_out(result: Any, adaptive: Any = None) -> OutFile:
    """``jury``: one record per item, every member's verdicts and the panel's."""
    from fairjudge.evaluation import jury_records

    settings = {**result.settings.to_dict(), "aggregation": result.aggregation,
                "weights": list(result.weights)}  # fmt: skip
    if adaptive is not None:
        settings["adaptive"] = adaptive.adaptive_dict()
    return OutFile("jury", lambda: jury_records(result), judge=", ".join(result.names),
                   template=result.settings.template, settings=settings,
                   member_usage=_usage(result))  # fmt: skip


def _usage(result: Any) -> list[dict[str, Any]] | None:
    """A panel's usage per member, as its ``--json`` has it; ``None`` when it recorded none."""
    usage = getattr(result, "usage", ())
    return [u.to_dict() for u in usage] if usage else None


def score_jury_out(result: Any, rubric: Any, source: str, **settings: Any) -> OutFile:
    """``score-jury``: one record per answer; the rubric's dimensions and scale, as score's."""
    recorded = {"aggregation": result.aggregation, "weights": list(result.weights), **settings,
                "dimensions": list(rubric.names), "scale": list(rubric.scale),
                "source": source}  # fmt: skip
    return OutFile("score-jury", result.records, judge=", ".join(result.names),
                   rubric=result.rubric_tag, settings=recorded,
                   member_usage=_usage(result))  # fmt: skip


_WINNER = {Outcome.ONE: "model_a", Outcome.TWO: "model_b", Outcome.TIE: "tie"}


def _battle(judgment: Judgment) -> dict[str, Any]:
    """One ``rank`` record: the judgment, and the battle it is (``rank`` reads it back).

    ``winner`` is ``null`` for an unresolved pair, which reading the file back skips,
    as the ranking did.
    """
    item = judgment.item
    winner = _WINNER[judgment.outcome] if judgment.outcome is not None else None
    return {**judgment.to_dict(), "question_id": item.cluster, "model_a": item.model_1,
            "model_b": item.model_2, "winner": winner}  # fmt: skip


def rank_out(result: Any, sent_by: object, **fit: Any) -> OutFile:
    """``rank`` on answers: one battle a line; the settings hold the pairing and the fit."""
    from fairjudge.judges import LLMJudge

    template = sent_by.template if isinstance(sent_by, LLMJudge) else None
    tag = None if template is None else f"{template.name}@{template.version}"
    return OutFile("rank", lambda: map(_battle, result.judgments), judge=result.settings.judge,
                   template=tag, settings={**result.settings.to_dict(), **fit})  # fmt: skip


def audit_out(payload: Mapping[str, Any]) -> OutFile:
    """``audit``: its summary (calls kept: ``report`` redraws ``--json``), then each experiment."""
    settings = payload["settings"]

    def records() -> Iterator[dict[str, Any]]:
        yield {"kind": "audit"} | {k: v for k, v in payload.items() if k != "experiments"}
        for experiment in payload["experiments"]:
            yield {"kind": "experiment", **experiment}

    return OutFile("audit", records, judge=", ".join(payload["judges"]),
                   template=settings.get("template"), rubric=settings.get("rubric"),
                   settings=settings)  # fmt: skip


def _labelled(pair: Any) -> dict[str, Any]:
    """What a via-scores record keeps of its item beyond the scores, as compare's does.

    The human label (``null`` when the input has none), so ``fairjudge report`` says
    the known truth as the run did, and the models' names when the input gives them,
    so its page names the systems as the ``--html`` page does.
    """
    item = pair.item
    names = {k: v for k, v in (("model_1", item.model_1), ("model_2", item.model_2)) if v}
    return {"human": item.human.value if item.human is not None else None, **names}


def via_scores_out(done: Any, rubric: Any, settings: Any) -> OutFile:
    """``compare --via-scores``: each pair's scores, and its swap twin (``with_swap``).

    The header names the scorer and rubric (and the swap run's template); the
    settings hold the input file (``source``, which titles the page), the tie
    margin, the bootstrap's, the rubric's dimensions and scale (as ``score``'s, so
    ``fairjudge report`` summarises a file scored under a ``.toml`` rubric again),
    with ``stop_when`` the adaptive block, and a budget's stop reason (``stopped``).
    """
    result, swap = done.result, done.swap

    def records() -> Iterator[dict[str, Any]]:
        twins: Sequence[Any] = swap.judgments if swap is not None else [None] * result.n_items
        for pair, twin in zip(result.pairs, twins, strict=True):
            yield {**pair.to_dict(), **_labelled(pair),
                   **({"swap": twin.to_dict()} if twin is not None else {})}  # fmt: skip

    recorded = {"source": settings.source, "tie_margin": result.tie_margin, "seed": settings.seed,
                "level": settings.level, "n_resamples": settings.n_resamples,
                "dimensions": list(rubric.names), "scale": list(rubric.scale)}  # fmt: skip
    if done.adaptive is not None:
        recorded["adaptive"] = done.adaptive.adaptive_dict()
    if result.stopped is not None:  # the run's own reason, which `report` draws again
        recorded["stopped"] = result.stopped
    return OutFile("compare-via-scores", records, judge=done.judge,
                   template=swap.settings.template if swap is not None else None,
                   rubric=f"{rubric.name}@{rubric.version}", settings=recorded)  # fmt: skip
