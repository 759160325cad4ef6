"""Your own functions on a panel, from Python: on the engine, cached when declared.

``fairjudge.compare(judges=[fn1, fn2], options=..., store=...)`` and the panels built
from ``python:`` specs run each member with the panel's run options; the members
(``tests/judges/own_members.py``) count what ran at once themselves.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fairjudge
from fairjudge import ConfigError
from fairjudge.judges import CallableJudge, Jury, MemberSpec, PointwiseJury, ScoreRequest
from fairjudge.prompts import get_rubric
from fairjudge.runner import RunOptions
from tests.judges import own_members as om

ROWS = [
    {"id": str(i), "question": f"q{i}", "answer_1": "s" * (i % 3 + 1),
     "answer_2": "l" * (i % 4 + 1)}
    for i in range(6)
]  # fmt: skip
QUIET = RunOptions(concurrency=4, progress="quiet")


def test_functions_on_a_panel_run_concurrently_with_options() -> None:
    before = om.meeting.calls
    result = fairjudge.compare(ROWS, judges=[om.meets_longer, om.meets_shorter], options=QUIET)
    doc = result.to_dict()
    assert om.meeting.calls - before == 24
    assert om.meeting.most >= 2  # counted by the members themselves
    assert [(m["calls"], m["failed"]) for m in doc["members"]] == [(12, 0), (12, 0)]


def test_a_declared_panel_of_functions_is_served_from_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted, store = tmp_path / "calls", str(tmp_path / "store.sqlite")
    monkeypatch.setenv("FAIRJUDGE_TEST_CALLS", str(counted))
    judges = [om.declared_longer, om.declared_shorter]
    first = fairjudge.compare(ROWS, judges=judges, options=QUIET, store=store).to_dict()
    assert len(counted.read_text().splitlines()) == 24
    again = fairjudge.compare(ROWS, judges=judges, options=QUIET, store=store).to_dict()
    assert len(counted.read_text().splitlines()) == 24  # no call made
    assert again["win_rate"] == first["win_rate"]


def test_a_store_no_member_can_use_is_refused_before_any_call(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    with pytest.raises(ConfigError, match="none of which declares a name and version"):
        fairjudge.compare(ROWS, judges=[om.counted_longer, om.counted_shorter], store=str(store))
    with pytest.raises(ConfigError, match="none of which declares a name and version"):
        Jury.from_specs([MemberSpec("python:tests.judges.own_members:counted_longer")] * 2,
                        store=str(store))  # fmt: skip
    assert not store.exists()
    # A judge object built by the caller keeps its own settings: options do not reach it.
    with pytest.raises(ConfigError, match="options: a panel with functions or judge objects"):
        fairjudge.compare(ROWS, judges=[CallableJudge(om.counted_longer), om.counted_shorter],
                          options=QUIET)  # fmt: skip


def test_a_scoring_panel_of_specs_takes_run_options() -> None:
    before = om.meeting.calls
    spec = MemberSpec("python:tests.judges.own_members:meets_scorer")
    rubric = get_rubric("production")
    with PointwiseJury.from_specs([spec, spec], rubric=rubric, options=QUIET) as p:
        requests = [ScoreRequest(f"Q{i}?", f"{i % 5 + 1} a") for i in range(4)]
        readings = p.member_readings(requests)
    assert om.meeting.calls - before == 8
    assert om.meeting.most >= 2
    assert [len(r) for r in readings] == [4, 4]
    assert all(not c.reply.failure for r in readings for s in r for c in s.calls)
