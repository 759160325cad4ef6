"""The per-item records of a jury run (``jury --out``), readable back without a model.

Each record is a ``compare --out`` record of the item (``id``, ``question``,
``answer_1``, ``answer_2``, ``category``, ``human``, ``calls``) with the panel's
verdict and every member's calls added:

- ``outcome`` and ``score``: the panel's verdict under ``aggregation`` (per item,
  from the members' debiased verdicts, as :func:`evaluate_jury` decides it);
- ``members``: per member, its ``weight``, its debiased ``outcome`` and
  ``soft_score``, and its ``calls`` in the ``compare --out`` form;
- ``calls``: the *panel's* reply to each planned call, aggregated per call
  (:func:`~fairjudge.judges._jury_votes.panel_reply`: the weighted majority of the
  members' verdicts on that call, the weighted mean of their probabilities).

So the file reads back two ways, at no cost. ``--judge replay:FILE`` reads the
top-level ``calls``: the panel acting as *one* judge, exactly as
:meth:`fairjudge.judges.Jury.judge_batch` answers (the protocol then debiases the
panel's verdicts, so its outcome may differ from the record's per-item
``outcome``). ``jury --jury FILE.jsonl`` (:func:`fairjudge.judges._jury_file.recorded_jury`)
reads each member's ``calls`` and seats every member again, reproducing the run's
per-member verdicts and its panel verdict exactly.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fairjudge._items import Call
from fairjudge.evaluation._jury import JuryResult
from fairjudge.judges._jury_votes import panel_reply

__all__ = ["jury_records"]

_ITEM_FIELDS = ("id", "question", "answer_1", "answer_2", "category", "human", "human_score")


def _call_record(call: Call) -> dict[str, Any]:
    """One call in the ``compare --out`` form that ``replay:`` reads, with the members' replies."""
    out = call.to_dict()
    if call.reply.payload is not None:
        out["members"] = dict(call.reply.payload).get("members")
    return out


def jury_records(result: JuryResult) -> Iterator[dict[str, Any]]:
    """One JSON-ready record per item (see the module docstring)."""
    names, weights = result.names, result.weights
    for k, panel in enumerate(result.judgments):
        own = [m.judgments[k] for m in result.members]
        item = {**own[0].item_dict(), **own[0].extra}  # as its to_dict has them
        record = {f: item[f] for f in _ITEM_FIELDS}
        record.update(panel.to_dict(names))
        for name, weight, judgment in zip(names, weights, own, strict=True):
            entry = record["members"][name]
            entry["weight"] = weight
            entry["calls"] = [_call_record(c) for c in judgment.calls]
        calls = []
        for row in zip(*(j.calls for j in own), strict=True):
            # Every member ran the same plan, so call i is the same order and sample.
            reply = panel_reply([c.reply for c in row], names, weights)
            calls.append(_call_record(Call(row[0].order, row[0].sample, reply)))
        record["calls"] = calls
        record["aggregation"] = result.aggregation
        yield record
