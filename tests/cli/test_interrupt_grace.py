"""A Ctrl-C or SIGTERM waits a bounded grace period for the calls in flight, and stores them.

The replies of calls already sent are billed whether or not anyone waits for them.
Before, the first Ctrl-C exited at once and dropped them, so the rerun made (and paid
for) them again. Now no new call starts, the calls in flight get
``$FAIRJUDGE_INTERRUPT_GRACE`` seconds (5 by default) to finish and be stored as any
reply, and the line says how many were kept and abandoned; a second signal still
exits at once.

Each run is a real ``fairjudge`` process judging with a declared Python judge that
sleeps in every call and logs when each call starts and ends, so the test knows
which calls were in flight when the signal went. No timing is asserted beyond
bounds far above what each step takes.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.cli._invoke import ROOT

MAIN = "from fairjudge.cli import main; main()"
N_ITEMS = 12  # x 2 orders = 24 calls
CONCURRENCY = "4"
WAIT_S = 120  # far above what any step takes; only a hang reaches it

JUDGE = """
import os, time
import fairjudge


def _log(word, question):
    with open(os.environ["SLEEPY_LOG"], "a", encoding="utf-8") as fh:
        fh.write(f"{word} {question}\\n")


@fairjudge.judge_function(name="sleepy", version="1")
def sleepy(question, answer_a, answer_b):
    _log("start", question)
    time.sleep(float(os.environ["SLEEPY_S"]))
    _log("end", question)
    if os.environ.get("SLEEPY_FAILS"):
        raise ValueError("the gateway said no")
    return "B" if len(answer_b) > len(answer_a) else "A"
"""


def _setup(folder: Path) -> Path:
    """The judge's module and the items in ``folder``; the items' path."""
    (folder / "sleepy_judge.py").write_text(JUDGE, encoding="utf-8")
    rows = [{"id": str(i), "question": f"q{i}", "answer_1": "short",
             "answer_2": "a longer answer"} for i in range(N_ITEMS)]  # fmt: skip
    items = folder / "pairs.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return items


def _env(folder: Path, sleep_s: float, grace: str | None, fails: bool = False) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT / "src")]),
           "COLUMNS": "400", "SLEEPY_LOG": str(folder / "log"),
           "SLEEPY_S": str(sleep_s)}  # fmt: skip
    env.pop("FAIRJUDGE_INTERRUPT_GRACE", None)
    env.pop("SLEEPY_FAILS", None)
    if fails:  # each call raises once it has slept
        env["SLEEPY_FAILS"] = "1"
    if grace is not None:
        env["FAIRJUDGE_INTERRUPT_GRACE"] = grace
    return env


def _log(folder: Path, word: str) -> int:
    path = folder / "log"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return sum(line.startswith(f"{word} ") for line in text.splitlines())


def _argv(folder: Path, *flags: str) -> list[str]:
    return [sys.executable, "-c", MAIN, "compare", str(folder / "pairs.jsonl"), "--judge",
            "python:sleepy_judge:sleepy", "--store", str(folder / "s.sqlite"), "--concurrency",
            CONCURRENCY, *flags]  # fmt: skip


def _start(folder: Path, sleep_s: float, grace: str | None, *flags: str,
           fails: bool = False) -> subprocess.Popen[str]:  # fmt: skip
    """Start compare; return once 4 calls are in flight (started, none ended)."""
    _setup(folder)
    env = _env(folder, sleep_s, grace, fails)
    proc = subprocess.Popen(_argv(folder, *flags), cwd=folder, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + WAIT_S
    while _log(folder, "start") < int(CONCURRENCY):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the run made no call: {proc.communicate()}")
        time.sleep(0.01)
    return proc


def _rerun(folder: Path) -> dict[str, Any]:
    """The same command again, each call at once; its ``--json`` ``calls`` block."""
    done = subprocess.run(_argv(folder, "--json"), cwd=folder, env=_env(folder, 0, None),
                          capture_output=True, text=True, timeout=WAIT_S)  # fmt: skip
    assert done.returncode == 0, done.stderr
    calls: dict[str, Any] = json.loads(done.stdout)["calls"]
    return calls


def test_ctrl_c_stores_the_calls_in_flight_and_the_rerun_makes_only_the_rest(
    tmp_path: Path,
) -> None:
    proc = _start(tmp_path, 1.0, "60")  # 1 s a call; a grace no loaded machine reaches
    ended_before = _log(tmp_path, "end")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=WAIT_S)
    err = " ".join(err.split())
    assert proc.returncode == 130, err
    started = _log(tmp_path, "start")
    assert started < 2 * N_ITEMS  # no call started after the Ctrl-C finished the batch
    assert _log(tmp_path, "end") == started  # each call in flight ran to its end ...
    said = re.search(r"of the (\d+) calls? in flight, (\d+) finished within the 60 s grace "
                     r"period and (?:is|are) stored, 0 were abandoned", err)  # fmt: skip
    assert said is not None, err
    assert said.group(1) == said.group(2) != "0"
    assert "interrupted: waiting up to 60 s for the" in err
    kept = f"({started} of the {2 * N_ITEMS} calls of the batch in progress)"
    assert kept in " ".join(err.split())
    calls = _rerun(tmp_path)  # ... and was stored: the rerun is served all it made
    assert calls["cached"] == started
    assert calls["made"] == 2 * N_ITEMS - started
    assert calls["made"] < 2 * N_ITEMS - ended_before  # fewer than were unfinished at Ctrl-C
    assert _log(tmp_path, "start") == 2 * N_ITEMS  # the judge made each call once, all told


def test_calls_that_fail_in_the_grace_period_are_not_said_to_be_stored(tmp_path: Path) -> None:
    """Review40 F3: an error row is no reply the rerun is served; it makes the call again.

    The note said "4 finished within the 60 s grace period and are stored, 0 were
    abandoned" of 4 calls that each raised, beside "(0 of the 24 calls ...)".
    """
    proc = _start(tmp_path, 1.0, "60", fails=True)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=WAIT_S)
    err = " ".join(err.split())
    assert proc.returncode == 130, err
    assert _log(tmp_path, "end") == _log(tmp_path, "start")  # each ran to its end, and raised
    said = re.search(r"of the (\d+) calls? in flight, 0 finished within the 60 s grace period "
                     r"and are stored, (\d+) failed \(the rerun makes (?:it|them) again\), 0 "
                     r"were abandoned", err)  # fmt: skip
    assert said is not None, err
    assert said.group(1) == said.group(2) != "0"
    assert f"(0 of the {2 * N_ITEMS} calls of the batch in progress)" in err
    assert _rerun(tmp_path)["made"] == 2 * N_ITEMS  # none was served: each is made again


def test_a_second_ctrl_c_in_the_grace_period_exits_at_once(tmp_path: Path) -> None:
    proc = _start(tmp_path, 300.0, "300")  # neither the calls nor the grace end in the test
    assert proc.stderr is not None
    proc.send_signal(signal.SIGINT)
    seen = ""
    while "interrupted: waiting up to 300 s" not in seen:  # the grace has begun
        line = proc.stderr.readline()
        assert line, seen  # the process ended before saying it waits
        seen += line
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=WAIT_S)  # far under the 300 s it would otherwise wait
    assert proc.returncode == 130, seen + err
    assert err.startswith("interrupted again: stopping now; every finished call is kept"), err
    assert _log(tmp_path, "end") == 0


def test_the_grace_period_is_bounded_and_says_what_it_abandoned(tmp_path: Path) -> None:
    proc = _start(tmp_path, 300.0, "1", "--json")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=WAIT_S)  # the judge's threads still sleep: not waited
    assert proc.returncode == 143, err
    error = json.loads(out)["error"]
    assert (error["type"], error["exit_code"]) == ("Interrupted", 143)
    message = error["message"]
    assert message.startswith("interrupted by SIGTERM; every finished call is kept in the store")
    assert "(0 of the 24 calls of the batch in progress)" in message
    assert message.endswith(
        "of the 4 calls in flight, 0 finished within the 1 s grace period and are stored, 4 "
        "were abandoned (the rerun makes them again)"
    )
    assert message in " ".join(err.split())
    assert _log(tmp_path, "end") == 0


def test_a_grace_of_0_waits_for_no_call(tmp_path: Path) -> None:
    proc = _start(tmp_path, 300.0, "0")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 130, err
    assert "waiting up to" not in err
    assert "in flight" not in err
    assert "(0 of the 24 calls of the batch in progress)" in " ".join(err.split())


def test_a_grace_that_is_no_number_of_seconds_is_refused_before_any_call(tmp_path: Path) -> None:
    _setup(tmp_path)
    done = subprocess.run(_argv(tmp_path, "--json"), cwd=tmp_path,
                          env=_env(tmp_path, 0, "soon"), capture_output=True, text=True,
                          timeout=WAIT_S)  # fmt: skip
    assert done.returncode == 2, done.stderr
    message = (
        "FAIRJUDGE_INTERRUPT_GRACE='soon' is not a number of seconds: it is how long a Ctrl-C "
        "or SIGTERM waits for the calls in flight (5 by default, 0 to wait for none)"
    )
    assert json.loads(done.stdout)["error"]["message"] == message
    assert _log(tmp_path, "start") == 0


def test_an_adaptive_run_says_every_earlier_batch_is_kept(tmp_path: Path) -> None:
    """QA40 F7: a ``--stop-when`` run interrupted in a later batch kept the earlier ones.

    The line counted the batch in progress alone ("0 of this batch's 8 calls are
    kept"), which read as if nothing was kept after several finished batches.
    """
    _setup(tmp_path)
    argv = _argv(tmp_path, "--stop-when", "width:0.001", "--batch", "2")
    proc = subprocess.Popen(argv, cwd=tmp_path, env=_env(tmp_path, 0.2, "0"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + WAIT_S
    while _log(tmp_path, "end") < 8:  # two batches of 2 questions (4 calls each) are done
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the run ended early: {proc.communicate()}")
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 130, err
    text = " ".join(err.split())
    assert "interrupted; every finished call is kept in the store" in text, err
    assert "of this batch's" not in text
    assert _rerun(tmp_path)["cached"] >= 8  # the earlier batches' calls, served
