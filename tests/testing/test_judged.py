"""The fixture's judge and its assertions, in process: intervals, items, pages, the store.

The answers are the CI example's: production against checkpoint 7 (better: model 2
wins 10, ties 13, loses 1 of 24) and checkpoint 8 (worse: wins 3, ties 15, loses 6),
judged by a declared Python judge that knows the facts, so every number is known. An
item whose two answers are the same text is one call (both orders are one key), so a
file of 24 items is 35 calls.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.testing import Judged, SuiteJudge, SuiteSettings
from tests.server import JudgeServer

ANSWERS = Path(__file__).resolve().parents[2] / "src/fairjudge/examples/ci/answers"
GOOD, BAD = ANSWERS / "ckpt-7.jsonl", ANSWERS / "ckpt-8.jsonl"
FACTS = "python:tests.testing.suite_judges:facts"
SCORES = "python:tests.testing.suite_judges:scores"


def suite(tmp_path: Path, **fields: object) -> SuiteJudge:
    settings = SuiteSettings(
        **{"judge": FACTS, "store": tmp_path / "store.sqlite", "report_dir": tmp_path / "pages",
           **fields}  # type: ignore[arg-type]
    )  # fmt: skip
    return SuiteJudge(settings, name="tests/test_gate.py::test_gate[ckpt]")


def candidate_rows(path: Path) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    return [{"id": r["id"], "question": r["question"], "answer": r["answer_2"]} for r in rows]


def test_a_better_candidate_passes_and_its_interval_is_model_2s(tmp_path: Path) -> None:
    run = suite(tmp_path).compare(GOOD)
    run.assert_not_worse(margin=0.1)
    run.assert_better()
    rate, other = run.win_rate(2), run.win_rate(1)
    assert rate.estimate == pytest.approx((10 + 13 / 2) / 24)
    assert (rate.low, rate.high) == pytest.approx((1 - other.high, 1 - other.low))  # type: ignore[operator]
    assert rate.kind == "bootstrap CI"
    assert rate.level == 0.95
    assert not run.page.exists()  # a page is written when an assertion fails, or on request


def test_a_worse_candidate_fails_showing_interval_lost_items_and_page(tmp_path: Path) -> None:
    run = suite(tmp_path).compare(BAD)
    with pytest.raises(AssertionError) as failed:
        run.assert_not_worse(margin=0.1)
    message = str(failed.value)
    rate = run.win_rate(2)
    assert rate.estimate == pytest.approx((3 + 15 / 2) / 24)
    assert (
        "model 2 (ckpt-8) may be worse than model 1 (production) by more than the margin 0.1: "
        "the lower bound of its win rate is not above 0.4"
    ) in message
    assert f"model 2's win rate: {rate.text()}, n=24 resolved items, W/T/L 3/15/6" in message
    assert "95% bootstrap CI" in message
    assert "items model 2 lost: 6 of 24" in message
    for lost in ("q07", "q08", "q09", "q10", "q11"):  # the first five of six
        assert f"  {lost}: " in message
    assert "... and 1 more" in message
    assert "q13: " not in message
    page = tmp_path / "pages" / "test_gate.py-test_gate-ckpt.html"
    assert message.endswith(f"report: {page}")
    assert page.read_text("utf-8").startswith("<!DOCTYPE html>")


def test_a_rerun_is_served_from_the_store_and_makes_no_call(tmp_path: Path) -> None:
    first = suite(tmp_path).compare(GOOD)
    again = suite(tmp_path).compare(GOOD)
    assert (first.calls_made, first.calls_cached) == (35, 0)
    assert (again.calls_made, again.calls_cached) == (0, 35)
    assert again.report["win_rate"] == first.report["win_rate"]


def test_a_dataframe_is_judged_like_its_file(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_json(GOOD, lines=True).rename(columns={"question": "prompt"})
    run = suite(tmp_path).compare(frame, columns={"prompt": "question"})
    assert run.report["win_rate"] == suite(tmp_path).compare(GOOD).report["win_rate"]
    scored = suite(tmp_path).score(pandas.DataFrame(candidate_rows(GOOD)), judge=SCORES)
    scored.assert_mean_above("accuracy", 4.0)


def test_an_adaptive_run_is_asserted_on_its_anytime_valid_interval(tmp_path: Path) -> None:
    run = suite(tmp_path).compare(BAD, stop_when="decided", batch=6)
    adaptive = run.report["adaptive"]
    rate = run.win_rate(2)
    assert run.adaptive
    assert rate.kind == "anytime-valid CI"
    ci = adaptive["ci"]
    assert (rate.low, rate.high) == pytest.approx((1 - ci["high"], 1 - ci["low"]))
    with pytest.raises(AssertionError) as failed:
        run.assert_not_worse(margin=0.1)
    message = str(failed.value)
    assert f"model 2's win rate: {rate.text()}" in message
    assert "anytime-valid CI" in message
    assert "adaptive run (stop_when=decided)" in message


def test_a_rubric_dimension_mean_is_asserted_on_its_lower_bound(tmp_path: Path) -> None:
    good = suite(tmp_path, judge=SCORES).score(candidate_rows(GOOD))
    good.assert_mean_above("accuracy", 4.0)  # 23 of 24 accurate: mean (23*5 + 1) / 24
    assert good.mean("accuracy").estimate == pytest.approx(116 / 24)
    bad = suite(tmp_path, judge=SCORES).score(candidate_rows(BAD))
    with pytest.raises(AssertionError) as failed:
        bad.assert_mean_above("accuracy", 3.5)
    message = str(failed.value)
    mean = bad.mean("accuracy")
    assert mean.estimate == pytest.approx((11 * 5 + 13) / 24)
    assert f"the mean accuracy score may not be above 3.5: {mean.text(2)}, n=24" in message
    assert "lowest accuracy scores (5 of 24 scored):" in message
    assert "  q07: accuracy 1 " in message
    assert "report: " in message
    assert bad.page.is_file()
    with pytest.raises(ConfigError, match=r"dimension 'acuracy' is not in rubric"):
        bad.assert_mean_above("acuracy", 3.5)


def test_unresolved_items_fail_every_assertion_and_are_never_ties(tmp_path: Path) -> None:
    garbled = "python:tests.testing.suite_judges:garbled"
    run = suite(tmp_path, judge=garbled).compare(GOOD)
    unresolved = run.report["n_unresolved"]
    assert unresolved == run.report["n_parse_failures"] // 2
    assert unresolved / 24 > 0.2
    with pytest.raises(AssertionError) as failed:
        run.assert_not_worse(margin=0.5)
    assert f"too many unresolved items: {unresolved} of 24" in str(failed.value)
    assert "above max_unresolved 20%" in str(failed.value)
    lenient = suite(tmp_path, judge=garbled, max_unresolved=1.0).compare(GOOD)
    lenient.assert_not_worse(margin=0.1)


def test_settings_are_checked_and_a_test_may_change_four_of_them(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="concurrency must be an integer >= 1; got 0"):
        SuiteSettings(concurrency=0)
    with pytest.raises(ConfigError, match="replay mode needs a recording file"):
        SuiteSettings(mode="replay")
    judge = suite(tmp_path)
    assert judge.configure(seed=3, concurrency=2).settings.seed == 3
    with pytest.raises(ConfigError, match=r"unknown fairjudge setting\(s\) \['rubric'\]"):
        judge.configure(rubric="x")


@pytest.mark.parametrize("mode", ["record", "replay"])
def test_a_tests_own_store_is_refused_in_record_and_replay_unless_it_is_the_recording(
    tmp_path: Path, mode: str
) -> None:
    recording = tmp_path / "rec.sqlite"
    store = recording if mode == "record" else tmp_path / "copy" / "rec.sqlite"
    judge = suite(tmp_path, mode=mode, recording=recording, store=store)
    doing = "kept in" if mode == "record" else "answered from"
    for asked, shown in ((tmp_path / "elsewhere.sqlite", repr(str(tmp_path / "elsewhere.sqlite"))),
                         (None, "None")):  # fmt: skip
        with pytest.raises(ConfigError) as refused:
            judge.configure(store=asked)
        assert str(refused.value) == (
            f"store={shown} cannot apply in {mode} mode: every call is {doing} the recording "
            f"{recording} (fairjudge_recording); leave store= out, so the test records and "
            "replays with the rest of the suite, or set it to the recording"
        )
        assert refused.value.params == ("store",)
    for named in (recording, store, str(recording)):  # the recording, or replay's copy of it
        assert judge.configure(store=named, seed=3).settings.store == store
    live = suite(tmp_path).configure(store=tmp_path / "mine.sqlite")
    assert live.settings.store == tmp_path / "mine.sqlite"  # live: the test's own store


def test_replay_answers_from_the_recording_or_fails_naming_it(tmp_path: Path) -> None:
    recording = tmp_path / "recording.sqlite"
    suite(tmp_path, store=recording).compare(GOOD)
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(recording, copy)
    replay = suite(tmp_path, store=copy, mode="replay", recording=recording)
    assert replay.compare(GOOD).calls_made == 0
    with pytest.raises(pytest.fail.Exception) as missed:
        replay.compare(BAD)
    message = str(missed.value)
    assert f"24 of its 35 calls are not in the recording {recording}" in message
    assert "pytest --fairjudge-record" in message


def test_replay_of_a_model_judge_needs_no_key_and_sends_no_request(
    tmp_path: Path, openai_env: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", openai_env.base_url)
    recording = tmp_path / "recording.sqlite"
    recorded = suite(tmp_path, judge="openai/gpt-4o-mini", store=recording).compare(GOOD)
    assert recorded.calls_made == 35
    assert openai_env.count("requests") == 35
    monkeypatch.delenv("OPENAI_API_KEY")
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(recording, copy)
    replay = suite(tmp_path, judge="openai/gpt-4o-mini", store=copy, mode="replay",
                   recording=recording)  # fmt: skip
    replayed = replay.compare(GOOD)
    assert (replayed.calls_made, replayed.calls_cached) == (0, 35)
    assert openai_env.count("requests") == 35
    assert replayed.report["win_rate"] == recorded.report["win_rate"]
    with pytest.raises(pytest.fail.Exception, match="24 of its 35 calls are not in the recording"):
        replay.compare(BAD)
    assert openai_env.count("requests") == 35


def test_a_judged_run_repr_and_page_on_request(tmp_path: Path) -> None:
    run = suite(tmp_path).compare(GOOD)
    assert isinstance(run, Judged)
    assert repr(run).startswith("Judged('compare', calls made 35")
    written = run.write_page(tmp_path / "page.html")
    assert written.read_text("utf-8").startswith("<!DOCTYPE html>")


def test_an_interval_that_cannot_be_estimated_fails_saying_why(tmp_path: Path) -> None:
    rows = [{"id": "a", "question": "What is the capital of Australia?", "answer_1": "Sydney.",
             "answer_2": "Canberra."}]  # fmt: skip
    run = suite(tmp_path).compare(rows)
    assert run.win_rate(2).low is None
    with pytest.raises(AssertionError) as failed:
        run.assert_not_worse(margin=0.1)
    message = str(failed.value)
    assert message.startswith(
        "model 2: its win rate has no interval, so the data cannot show that it is not worse "
        "than model 1 (margin 0.1)"
    )
    assert "1.000 (no 95% bootstrap CI: one question: the bootstrap cannot vary)" in message
