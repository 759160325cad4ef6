"""A test's own JudgeSetup joins the suite's store and run options instead of clashing.

The suite always judges with its store (the recording under record/replay) and its
concurrency; a test that passes ``setup=`` to ``compare`` or ``score`` (or a panel
through ``judges=``) gets both merged in, and a store that would break record/replay
is refused by name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge import ConfigError, JudgeSetup
from fairjudge.runner import RunOptions, Store
from fairjudge.testing import SuiteJudge, SuiteSettings
from fairjudge.testing._setup import suite_setup
from tests.testing.test_judged import FACTS, GOOD, SCORES, candidate_rows, suite

GARBLED = "python:tests.testing.suite_judges:garbled"


def test_compare_with_a_setup_judges_into_the_suites_store(tmp_path: Path) -> None:
    judge = suite(tmp_path, concurrency=4)
    run = judge.compare(GOOD, setup=JudgeSetup(options={"max_attempts": 2}))
    assert run.calls_made == 35
    run.assert_not_worse(margin=0.1)
    assert (tmp_path / "store.sqlite").is_file()
    assert judge.compare(GOOD).calls_made == 0  # the setup's run was kept in the suite's store


def test_score_and_a_panel_with_a_setup_judge_into_the_suites_store(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    judge = suite(tmp_path)
    answers = candidate_rows(GOOD)
    judge.score(answers, judge=SCORES, setup=JudgeSetup(options={"max_attempts": 2}))
    assert "24 calls: 0 cached, 24 to make" in capfd.readouterr().err
    judge.score(answers, judge=SCORES)  # a Python scorer's calls are null: the store says
    assert "24 calls: 24 cached, 0 to make" in capfd.readouterr().err
    panel = judge.compare(GOOD, judges=[FACTS, GARBLED], setup=JudgeSetup(options={"rpm": 6000}))
    assert panel.result.kind == "jury"
    assert panel.calls_made > 0
    again = judge.compare(GOOD, judges=[FACTS, GARBLED], setup=JudgeSetup())
    assert again.calls_made == 0


def test_a_live_tests_own_store_wins_and_a_doubled_field_is_still_refused(tmp_path: Path) -> None:
    mine = tmp_path / "mine.sqlite"
    run = suite(tmp_path).compare(GOOD, setup=JudgeSetup(store=mine))
    assert run.calls_made == 35
    assert mine.is_file()
    assert not (tmp_path / "store.sqlite").exists()
    with pytest.raises(ConfigError, match="store given beside setup="):
        suite(tmp_path).compare(GOOD, setup=JudgeSetup(), store=mine)
    with pytest.raises(ConfigError, match=r"setup must be a fairjudge\.JudgeSetup; got dict"):
        suite(tmp_path).compare(GOOD, setup={"store": mine})


def test_record_and_replay_refuse_a_setup_naming_another_store(tmp_path: Path) -> None:
    recording = tmp_path / "recording.sqlite"
    suite(tmp_path, store=recording).compare(GOOD)  # recorded
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(recording.read_bytes())
    replay = suite(tmp_path, store=copy, mode="replay", recording=recording)
    other = tmp_path / "other.sqlite"
    with pytest.raises(ConfigError) as refused:
        replay.compare(GOOD, setup=JudgeSetup(store=other))
    assert str(refused.value) == (
        f"the test's JudgeSetup names the store {other}, but in replay mode every call is "
        f"answered from the recording {recording} (fairjudge_recording); leave store out of "
        "the setup (the suite sets it), or name the recording"
    )
    assert not other.exists()
    named = replay.compare(GOOD, setup=JudgeSetup(store=str(recording), options={"max_calls": 9}))
    assert named.calls_made == 0
    assert named.calls_cached == 35
    record = suite(tmp_path, store=recording, mode="record", recording=recording)
    with pytest.raises(ConfigError, match="in record mode every call is kept in the recording"):
        record.compare(GOOD, store=Store(str(other)))


def test_the_suites_concurrency_fills_only_what_a_setups_options_leave_at_default(
    tmp_path: Path,
) -> None:
    settings = SuiteSettings(judge=FACTS, store=tmp_path / "s.sqlite", concurrency=8)
    assert suite_setup({}, settings).options.concurrency == 8  # type: ignore[union-attr]
    mine = {"setup": JudgeSetup(options=RunOptions(concurrency=3, max_calls=5))}
    merged = suite_setup(mine, settings)
    assert (merged.options.concurrency, merged.options.max_calls) == (3, 5)  # type: ignore[union-attr]
    assert merged.store == str(tmp_path / "s.sqlite")
    with pytest.raises(ConfigError, match="concurrency=8 given beside options with concurrency 3"):
        suite_setup({"options": RunOptions(concurrency=3)}, settings, call_concurrency=True)
    replay = SuiteSettings(judge=FACTS, store=tmp_path / "c.sqlite", mode="replay",
                           recording=tmp_path / "r.sqlite")  # fmt: skip
    budget = suite_setup({"options": RunOptions(max_calls=50)}, replay).options
    assert budget.max_calls == 0  # type: ignore[union-attr]


def test_the_fixture_value_passes_a_setups_other_fields_through(tmp_path: Path) -> None:
    judge = SuiteJudge(SuiteSettings(judge=FACTS, store=tmp_path / "s.sqlite"))
    kwargs = {"setup": JudgeSetup(template="default", executor="asyncio"), "columns": {}}
    merged = suite_setup(kwargs, judge.settings)
    assert (merged.template, merged.executor) == ("default", "asyncio")
    assert kwargs == {"columns": {}}  # the setup's fields left the call's arguments
