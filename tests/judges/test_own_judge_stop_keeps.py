"""An undeclared Python judge's run that stops keeps what it finished, in its result.

An undeclared judge (no ``name``/``version``) has no store: its calls run on one in
memory, so nothing outlives the run but what the run returns. Before, a stop the run
could not go past once calls had finished (a sync function's abandoned threads at
their bound, ``FunctionBackend.max_abandoned``) raised ``FatalBackendError``: every
verdict already answered was dropped, ``--out`` was not written, and the message said
"nothing was kept" (session 42, leftover 12). Now the batch returns what finished,
the rest not run, with ``stopped`` saying why and how many: a partial result, as a
budget's stop is, written to ``--out`` (exit 5). A Ctrl-C still ends the run (a
library call interrupted is not a result); its line counts the answered calls lost.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from fairjudge import FatalBackendError, Verdict
from fairjudge.judges import CallableJudge, PairwiseRequest
from fairjudge.runner import RetryPolicy, RunOptions

ROOT = Path(__file__).resolve().parents[2]


def test_a_stopped_undeclared_judge_returns_its_finished_verdicts(gate: threading.Event) -> None:
    def judge(question: str, answer_a: str, answer_b: str) -> str:
        if question.startswith("hangs"):
            gate.wait(3600)  # a gateway that never answers
        return "B"

    fast = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.001)
    options = RunOptions(concurrency=4, progress="quiet", retry=fast)
    requests = [PairwiseRequest(f"ok{i}", "a", "bb") for i in range(5)]
    requests += [PairwiseRequest(f"hangs{i}", "a", "bb") for i in range(20)]
    # A timeout an answer never nears, even on a loaded machine: only the hung time out.
    with CallableJudge(judge, options=options, timeout=0.3) as own:
        replies = own.judge_batch(requests)  # before: FatalBackendError, every verdict lost
        summary = own.last_run
    assert [r.verdict for r in replies[:5]] == [Verdict.B] * 5
    assert all(r.verdict is None for r in replies[5:])
    # Two attempts each: about 16 hung calls are errors, then a call is refused (33
    # threads left) and the rest are not run; how many of each depends on the machine
    # (a call abandoned before its thread picked it up leaves no thread behind).
    kinds = [getattr(r.failure, "kind", None) for r in replies[5:]]
    failed, not_run = kinds.count("BackendTimeout"), kinds.count("NotRun")
    assert failed + not_run == 20, kinds
    assert not_run >= 1, kinds
    assert summary is not None
    assert (summary.made, summary.failed, summary.not_run) == (5 + failed, failed, not_run)
    stopped = " ".join((replies.stopped or "").split())
    assert re.search(r"python backend: 3\d calls to python:tests\.judges\.test_own_j", stopped)
    assert "so no more calls are started" in stopped
    assert (
        "No store keeps this judge's calls (it declares no name and version), so what "
        "answered is in this result alone, marked partial"
    ) in stopped
    assert (
        f"in the batch that stopped, 5 answered, {failed} failed, {not_run} not run; "
        "a rerun makes every call again"
    ) in stopped
    assert ":memory:" not in stopped
    assert "kept in the store" not in stopped


def test_a_stop_before_any_answer_still_raises(gate: threading.Event) -> None:
    """Nothing finished, nothing to keep: the stop is the run's failure, as before."""

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        gate.wait(3600)
        return "B"

    fast = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.001)
    options = RunOptions(concurrency=2, progress="quiet", retry=fast)
    requests = [PairwiseRequest(f"q{i}", "a", "bb") for i in range(20)]
    with (
        CallableJudge(judge, options=options, timeout=0.05) as own,
        pytest.raises(FatalBackendError, match="No store: this judge declares no name and version"),
    ):
        own.judge_batch(requests)


def test_the_command_line_writes_the_finished_verdicts_to_out(tmp_path: Path) -> None:
    pairs, out = tmp_path / "pairs.jsonl", tmp_path / "out.jsonl"
    rows = [{"id": str(i), "question": f"q{i}", "answer_1": "short",
             "answer_2": "a longer answer"} for i in range(30)]  # fmt: skip
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", "compare", str(pairs),
         "--judge", "python:tests.judges.own_judges:undeclared_hangs_after_q1",
         "--timeout", "0.5", "--concurrency", "4", "--max-attempts", "1", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAIRJUDGE_TEST_CALLS": str(tmp_path / "calls.txt")},
    )  # fmt: skip
    said = " ".join(done.stderr.split())
    assert done.returncode == 5, done.stderr  # a partial result; before: exit 1, no --out
    assert re.search(r"stopped: python backend: 3\d calls to python:tests\.judges\.own_j", said)
    assert "so what answered is in this result alone, marked partial" in said
    counts = re.search(r"stopped, 4 answered, (\d+) failed, (\d+) not run", said)
    assert counts is not None, said
    assert int(counts.group(1)) + int(counts.group(2)) == 56  # q2..q29, both orders
    assert "The result above is partial." in said
    shown = " ".join(done.stdout.split())  # no budget stopped it: the note does not say one did
    assert "partial result: the run stopped before every call was made" in shown
    assert "budget" not in shown
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    header, items = records[0]["fairjudge"], records[1:]
    assert re.match(r"python backend: 3\d calls", header["settings"]["stopped"])
    assert [(r["id"], r["outcome"]) for r in items[:2]] == [("0", "2"), ("1", "2")]
    assert all(r["outcome"] is None for r in items[2:])
    assert len(items) == 30
