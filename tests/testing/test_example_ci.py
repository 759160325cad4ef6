"""The CI example (``examples/ci``) passes on one recorded run and fails on the other.

The example repository's suite is run as CI runs it, with no judge at hand:
``CANDIDATE=ckpt-7 pytest --fairjudge-replay`` passes its three tests (model 2 not
worse than production, the same judged adaptively, the candidate's mean accuracy)
and ``CANDIDATE=ckpt-8`` fails all three, each message showing the interval, the
items that lost and the HTML page. Both runs come from one committed recording,
made offline by the example's own declared judges.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.suites import digest, example_repo, outcome, run_pytest

pytestmark = pytest.mark.slow


def test_the_better_checkpoint_passes_from_the_recording(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    recording = repo / "recorded" / "judge.sqlite"
    before = digest(recording)
    done = run_pytest(repo, "--fairjudge-replay", CANDIDATE="ckpt-7")
    assert done.returncode == 0, done.stdout + done.stderr
    assert outcome(done) == {"passed": 3}
    assert "fairjudge (replay): 3 judged run(s): 0 calls made, 94 served from the recording" in (
        done.stdout
    )
    assert digest(recording) == before  # replay reads a copy; the committed file is untouched
    assert sorted(p.name for p in recording.parent.iterdir()) == ["judge.sqlite"]
    assert not (repo / ".fairjudge" / "store.sqlite").exists()


def test_the_worse_checkpoint_fails_with_intervals_items_and_pages(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    done = run_pytest(repo, "--fairjudge-replay", CANDIDATE="ckpt-8")
    out = done.stdout.split("short test summary info")[0]  # the failures, each once
    assert done.returncode == 1, out + done.stderr
    assert outcome(done) == {"failed": 3}
    assert out.count("model 2 (ckpt-8) may be worse than model 1 (production) by more than") == 2
    assert "model 2's win rate: 0.438 [0.312, 0.542] (95% bootstrap CI)" in out
    assert "W/T/L 3/15/6" in out
    assert "model 2's win rate: 0.438 [0.256, 0.579] (95% anytime-valid CI)" in out
    assert "adaptive run (stop_when=decided): not decided after 24 of 24 questions" in out
    assert out.count("items model 2 lost: 6 of 24") == 2
    assert "  q07: 'What is the largest ocean on Earth?'" in out
    assert "the mean accuracy score may not be above 3.5: 2.83 [" in out
    assert "  q07: accuracy 1 " in out
    pages = sorted((repo / ".fairjudge" / "pytest").iterdir())
    assert [p.name for p in pages] == [
        "test_release_gate.py-test_candidate_answers_are_accurate.html",
        "test_release_gate.py-test_candidate_is_not_worse_judged_adaptively.html",
        "test_release_gate.py-test_candidate_is_not_worse_than_production.html",
    ]
    for page in pages:
        assert f"report: {page}" in out
    assert "fairjudge (replay): 3 judged run(s): 0 calls made" in done.stdout


def test_a_candidate_the_recording_never_saw_fails_saying_how_to_record(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    answers = (repo / "answers" / "ckpt-7.jsonl").read_text("utf-8")
    (repo / "answers" / "ckpt-9.jsonl").write_text(answers.replace("Canberra.", "Canberra!"))
    done = run_pytest(repo, "--fairjudge-replay", CANDIDATE="ckpt-9")
    assert outcome(done) == {"failed": 3}
    failures = done.stdout.split("short test summary info")[0]
    assert failures.count("calls are not in the recording") == 3
    assert "pytest --fairjudge-record (then commit the recording)" in done.stdout
    assert "Traceback" not in done.stdout


def test_the_recording_is_made_again_offline_with_the_same_verdicts(tmp_path: Path) -> None:
    repo = example_repo(tmp_path)
    recording = repo / "recorded" / "judge.sqlite"
    recording.unlink()
    good = run_pytest(repo, "--fairjudge-record", CANDIDATE="ckpt-7")
    bad = run_pytest(repo, "--fairjudge-record", CANDIDATE="ckpt-8")
    assert (outcome(good), outcome(bad)) == ({"passed": 3}, {"failed": 3})
    assert "fairjudge (record): 3 judged run(s): 59 calls made, 35 served from the recording" in (
        good.stdout
    )
    again = run_pytest(repo, "--fairjudge-replay", CANDIDATE="ckpt-8")
    assert outcome(again) == {"failed": 3}
    assert "fairjudge (replay): 3 judged run(s): 0 calls made" in again.stdout
