"""A Ctrl-C or SIGTERM to a run whose judge keeps nothing keeps what answered, in ``--out``.

An undeclared Python judge (no ``name``/``version``) has no store: its calls run on one
in memory, so a Ctrl-C that ended the run lost every verdict it had (exit 130, no
``--out``, "the N calls ... that had answered are lost"), where a model judge's store
keeps them and the same command resumes. Now the command line's first Ctrl-C stops
such a run instead (``runner._limits.GracefulStop``): no new call starts, the calls in
flight get ``$FAIRJUDGE_INTERRUPT_GRACE``, and what answered is a partial result,
written to ``--out`` as an exit-5 result is, before the exit 130 (143 for SIGTERM).
Each test is a real signal to a real ``fairjudge compare`` process.
"""

from __future__ import annotations

import _thread
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import fairjudge
from fairjudge.judges import CallableJudge, PairwiseRequest
from fairjudge.judges._own_judge import set_interrupt_note
from fairjudge.runner import RunOptions
from fairjudge.runner._limits import GRACEFUL_STOP
from tests.cli.test_own_judge_cli import calls, pairs

ROOT = Path(__file__).resolve().parents[2]
MAIN = "from fairjudge.cli import main; main()"
HANGS = "python:tests.judges.own_judges:undeclared_hangs_after_q1"


def _stop(tmp_path: Path, signum: int, *extra: str) -> tuple[int, str, str]:
    """``compare`` 6 items with a judge that answers q0, q1 and hangs on the rest.

    Signalled once all 4 calls at once hang (``$FAIRJUDGE_TEST_CALLS`` counts them):
    q0 and q1 answered in both orders, q2 and q3 hang, q4 and q5 are not run. The
    grace is short, since a hung call never answers.
    """
    counted = tmp_path / "hung"
    child = subprocess.Popen(
        [sys.executable, "-c", MAIN, "compare", str(pairs(tmp_path, 6)), "--judge", HANGS,
         "--concurrency", "4", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "FAIRJUDGE_TEST_CALLS": str(counted),
             "FAIRJUDGE_INTERRUPT_GRACE": "0.5"},
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while calls(counted) < 4 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert child.poll() is None, child.communicate()
    child.send_signal(signum)
    out, err = child.communicate(timeout=60)
    return child.returncode, out, " ".join(err.split())


def test_ctrl_c_writes_what_answered_to_out_and_exits_130(tmp_path: Path) -> None:
    out, page = tmp_path / "out.jsonl", tmp_path / "page.html"
    code, _, said = _stop(tmp_path, signal.SIGINT, "--out", str(out), "--html", str(page))
    assert code == 130, said
    # Before: no --out at all, and "the N calls ... that had answered are lost".
    assert out.exists(), said
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    header, items = records[0]["fairjudge"], records[1:]
    assert header["settings"]["stopped"].startswith("interrupted: no call was started")
    assert len(items) == 6
    verdicts = {item["id"]: item["outcome"] for item in items}
    # q0 and q1 answered (both orders), and each says model 2's longer answer won.
    assert verdicts["0"] == verdicts["1"] == "2", items[:2]
    assert all(verdicts[str(i)] is None for i in range(2, 6)), items
    assert page.exists()
    assert "are lost" not in said
    assert "interrupted: stopping; no new call starts" in said
    assert "in this result alone, marked partial" in said
    assert "in the batch that stopped, 4 answered, 4 failed, 4 not run" in said
    kinds = [[c["failure"]["kind"] for c in item["calls"]] for item in items[2:]]
    assert kinds == [["Interrupted"] * 2] * 2 + [["NotRun"] * 2] * 2  # abandoned in flight
    assert f"interrupted; what answered is kept in {out} and {page}, marked partial" in said
    assert "marked partial; a judge that declares no name and version keeps its calls" in said


def test_sigterm_keeps_it_too_and_exits_143(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    code, _, said = _stop(tmp_path, signal.SIGTERM, "--out", str(out))
    assert code == 143, said
    assert f"interrupted by SIGTERM; what answered is kept in {out}, marked partial" in said
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()][1:]
    assert [item["outcome"] for item in items] == ["2", "2", None, None, None, None]


def test_without_out_the_line_says_the_result_above_alone_holds_it(tmp_path: Path) -> None:
    code, stdout, said = _stop(tmp_path, signal.SIGINT, "--json")
    assert code == 130, said
    result = json.loads(stdout)  # the partial result itself, not an error object
    assert result["stopped"].startswith("interrupted: no call was started")
    assert "what answered is kept in the result printed above alone (no file was asked" in said


def test_a_second_ctrl_c_still_ends_at_once(tmp_path: Path) -> None:
    """Past the first, nothing is waited for: the grace here is far longer than the test."""
    counted, out = tmp_path / "hung", tmp_path / "out.jsonl"
    child = subprocess.Popen(
        [sys.executable, "-c", MAIN, "compare", str(pairs(tmp_path, 6)), "--judge", HANGS,
         "--concurrency", "4", "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "FAIRJUDGE_TEST_CALLS": str(counted),
             "FAIRJUDGE_INTERRUPT_GRACE": "3600"},
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while calls(counted) < 2 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    child.send_signal(signal.SIGINT)
    waiting = ""
    while "waiting up to 3600 s" not in waiting and time.monotonic() < deadline:
        assert child.stderr is not None
        waiting += child.stderr.readline()
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, waiting + err
    assert "interrupted again: stopping now" in err
    assert not out.exists()  # the second Ctrl-C keeps nothing, and says the judge has no store


@pytest.mark.usefixtures("ctrl_c_raises")
def test_a_library_call_interrupted_still_raises(gate: threading.Event) -> None:
    """A notebook's Ctrl-C is a ``KeyboardInterrupt``, armed or not: only the command line
    requests the graceful stop (its signal handler), so a library call keeps its meaning."""
    declared = fairjudge.judge_function(name="x", version="1")(lambda q, a, b: "A")
    GRACEFUL_STOP.clear()
    try:
        with CallableJudge(declared, options=RunOptions(progress="quiet")) as own:
            own.judge_batch([PairwiseRequest("q", "a", "bb")])
        assert not GRACEFUL_STOP.armed  # a store keeps a declared judge's calls

        def judge(question: str, answer_a: str, answer_b: str) -> str:
            if question != "q0":
                threading.Timer(0.05, _thread.interrupt_main).start()
                gate.wait(3600)
            return "B"

        options = RunOptions(concurrency=1, progress="quiet")
        with CallableJudge(judge, options=options) as own, pytest.raises(KeyboardInterrupt):
            own.judge_batch([PairwiseRequest(f"q{i}", "a", "bb") for i in range(3)])
        assert GRACEFUL_STOP.armed  # its run kept nothing: the command line would stop it
        assert not GRACEFUL_STOP.requested
    finally:
        GRACEFUL_STOP.clear()
        set_interrupt_note(None)  # what the interrupted judge said, for this test alone
