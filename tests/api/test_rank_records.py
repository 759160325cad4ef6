"""``fairjudge.rank(...).to_records()`` says what ``rank --json`` says: a rating that
cannot be estimated is ``None`` with its reason, never a bare NaN.

A judge that always prefers the longer answer leaves nothing to estimate at equal
style (the length coefficient runs off), so every style-controlled rating but the
anchor's is not identified.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import fairjudge

EXAMPLES = Path(fairjudge.__file__).resolve().parent / "examples"
LONGER = "python:fairjudge.examples.judges:longer"
SEPARATED = "the verdicts are (almost) perfectly separated by length"


def test_records_give_a_style_rating_that_cannot_be_estimated_as_none_with_its_reason() -> None:
    result = fairjudge.rank(
        EXAMPLES / "rank_answers.jsonl", LONGER, n_resamples=50, style_control=True
    )
    records = result.to_records()
    reported = {r["model"]: r for r in result.to_dict()["style_control"]["ratings"]}

    json.dumps(records, allow_nan=False)  # no NaN anywhere: strict JSON takes them
    refused = [r for r in records if r["style_reason"] is not None]
    assert refused, "the longer-answer judge leaves ratings at equal style unidentified"
    for record in records:
        style = reported[record["model"]]
        assert record["style_rating"] == style["rating"]  # as rank --json has it
        assert record["style_reason"] == style["reason"]
        assert record["style_ci_low"] == style["ci"]["low"]
        assert record["style_ci_reason"] == style["ci"]["reason"]
    for record in refused:
        assert record["style_rating"] is None
        assert SEPARATED in record["style_reason"]
    # The plain leaderboard is estimable here: its ratings are numbers, without a reason.
    assert all(isinstance(r["rating"], float) and math.isfinite(r["rating"]) for r in records)
    assert all(r["reason"] is None for r in records)


def test_records_give_an_interval_that_cannot_be_estimated_as_none_with_its_reason() -> None:
    # Against the baseline alone, delta loses all 16 of its battles: no finite maximum,
    # its rating is where the fallback ridge holds it, and its interval is refused.
    result = fairjudge.rank(
        EXAMPLES / "rank_answers.jsonl", LONGER, pairing="baseline", baseline="alpha",
        n_resamples=50,
    )  # fmt: skip
    records = {r["model"]: r for r in result.to_records()}
    reported = {r["model"]: r for r in result.to_dict()["ratings"]}

    json.dumps(list(records.values()), allow_nan=False)
    delta = records["delta"]
    assert (delta["ci_low"], delta["ci_high"]) == (None, None)
    assert delta["ci_reason"] == reported["delta"]["ci"]["reason"]
    assert "no finite maximum-likelihood rating" in delta["ci_reason"]
    assert not any(key.startswith("style_") for r in records.values() for key in r)
    for model, record in records.items():
        assert record["rating"] == reported[model]["rating"]
        assert (record["rank_low"], record["rank_high"]) == (
            reported[model]["rank_ci"]["low"], reported[model]["rank_ci"]["high"]
        )  # fmt: skip
