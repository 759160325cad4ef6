"""Your own judge on the command line: async, cached when declared, honest about the store.

The judges are ``tests/judges/own_judges.py``; each counts its own calls in
``$FAIRJUDGE_TEST_CALLS``. Ctrl-C is a real SIGINT to a real ``fairjudge`` process.
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

from tests.cli._invoke import ROOT, invoke

OWN = "python:tests.judges.own_judges:"
MAIN = "from fairjudge.cli import main; main()"


def pairs(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "pairs.jsonl"
    rows = [
        {"id": str(i), "question": f"q{i}", "answer_1": "short", "answer_2": "a longer answer"}
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def calls(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def test_an_async_judge_runs_from_a_python_spec(tmp_path: Path) -> None:
    counted = tmp_path / "calls"
    result = invoke(
        "compare", str(pairs(tmp_path, 5)), "--judge", OWN + "async_longer", "--json",
        "--concurrency", "4", env={"FAIRJUDGE_TEST_CALLS": str(counted)},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["n_call_errors"], out["n_parse_failures"]) == (0, 0)
    assert out["win_rate"]["estimate"] == 0.0
    assert calls(counted) == 10


def test_a_declared_judges_rerun_makes_no_call(tmp_path: Path) -> None:
    counted, store = tmp_path / "calls", tmp_path / "store.sqlite"
    args = ("compare", str(pairs(tmp_path, 5)), "--judge", OWN + "acme", "--store", str(store))
    env = {"FAIRJUDGE_TEST_CALLS": str(counted), "FAIRJUDGE_TEST_DELAY": "0"}
    first = invoke(*args, "--json", env=env)
    assert first.exit_code == 0, first.output
    assert calls(counted) == 10
    again = invoke(*args, "--json", env=env)
    assert again.exit_code == 0, again.output
    assert calls(counted) == 10  # all 10 from the store
    assert json.loads(again.stdout)["win_rate"] == json.loads(first.stdout)["win_rate"]
    # A judge object declaring the same name and version is served the same calls.
    obj = invoke(*args[:3], OWN + "acme_client", "--store", str(store), "--json", env=env)
    assert obj.exit_code == 0, obj.output
    assert calls(counted) == 10


def test_an_undeclared_judge_with_a_store_is_a_usage_error(tmp_path: Path) -> None:
    counted, store = tmp_path / "calls", tmp_path / "store.sqlite"
    result = invoke(
        "compare", str(pairs(tmp_path, 3)), "--judge", OWN + "slow_longer", "--store", str(store),
        env={"FAIRJUDGE_TEST_CALLS": str(counted)},
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--store does not apply" in result.output
    assert "declares no name and version" in result.output
    assert "judge_function" in result.output
    assert calls(counted) == 0
    assert not store.exists()


def interrupt(tmp_path: Path, judge: str, extra: tuple[str, ...], env: dict[str, str]) -> Any:
    """Start compare on 60 items (120 calls), SIGINT it once 10 calls were made."""
    child = subprocess.Popen(
        [sys.executable, "-c", MAIN, "compare", str(pairs(tmp_path, 60)), "--judge", judge,
         "--concurrency", "2", *extra],
        cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    counted = Path(env["FAIRJUDGE_TEST_CALLS"])
    deadline = time.monotonic() + 60
    while calls(counted) < 10 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    child.send_signal(signal.SIGINT)
    _out, err = child.communicate(timeout=60)
    return child.returncode, err


def test_ctrl_c_on_a_declared_judge_says_what_the_store_kept(tmp_path: Path) -> None:
    counted, store = tmp_path / "calls", tmp_path / "store.sqlite"
    env = {"FAIRJUDGE_TEST_CALLS": str(counted), "FAIRJUDGE_TEST_DELAY": "0.05"}
    code, err = interrupt(tmp_path, OWN + "acme", ("--store", str(store)), env)
    assert code == 130, err
    text = " ".join(err.split())  # the line wraps at the terminal's width
    said = re.search(
        r"interrupted; every finished call is kept in the store .*\((\d+) of the 120 calls ", text
    )
    assert said is not None, err
    kept = int(said.group(1))
    assert 0 < kept < 120  # the 10 counted were started; those in flight are not kept
    made = calls(counted)
    rerun = invoke(
        "compare", str(tmp_path / "pairs.jsonl"), "--judge", OWN + "acme", "--store", str(store),
        "--json", env={**env, "FAIRJUDGE_TEST_DELAY": "0"},
    )  # fmt: skip
    assert rerun.exit_code == 0, rerun.output
    assert calls(counted) - made == 120 - kept  # the rerun makes only what was not kept


def test_ctrl_c_on_an_undeclared_judge_keeps_what_answered_in_its_result(tmp_path: Path) -> None:
    counted = tmp_path / "calls"
    env = {"FAIRJUDGE_TEST_CALLS": str(counted), "FAIRJUDGE_TEST_DELAY": "0.05"}
    code, err = interrupt(tmp_path, OWN + "slow_longer", (), env)
    assert code == 130, err
    said = " ".join(err.split())
    assert "interrupted: stopping; no new call starts" in said
    assert "so what answered is in this result alone, marked partial" in said
    assert (
        "interrupted; what answered is kept in the result printed above alone "
        "(no file was asked for)"
    ) in said
    assert "are lost" not in said
    assert "kept in the store" not in said
    answered = re.search(r"in the batch that stopped, (\d+) answered", said)
    assert answered is not None, err
    assert 0 < int(answered.group(1)) <= calls(counted)


def test_the_second_ctrl_c_says_no_store_for_an_undeclared_judge() -> None:
    from fairjudge.cli._app import _AGAIN, _again
    from fairjudge.judges._own_judge import NOT_CACHED, set_interrupt_note

    try:
        set_interrupt_note(f"interrupted; {NOT_CACHED}")
        assert _again() == f"interrupted again: stopping now; {NOT_CACHED}\n".encode()
        set_interrupt_note(None)  # a declared or model judge: the store keeps its calls
        assert _again() == _AGAIN
    finally:
        set_interrupt_note(None)


def test_two_processes_share_a_declared_judges_calls_through_the_stores_claims(
    tmp_path: Path,
) -> None:
    counted, store = tmp_path / "calls", tmp_path / "store.sqlite"
    env = {**os.environ, "FAIRJUDGE_TEST_CALLS": str(counted), "FAIRJUDGE_TEST_DELAY": "0.02"}
    args = [sys.executable, "-c", MAIN, "compare", str(pairs(tmp_path, 60)), "--judge",
            OWN + "acme", "--store", str(store), "--concurrency", "4", "--json"]  # fmt: skip
    children = [
        subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outs = [child.communicate(timeout=120) for child in children]
    assert [child.returncode for child in children] == [0, 0], outs
    assert calls(counted) == 120  # each call made once, by one process or the other
    docs = [json.loads(out) for out, _ in outs]
    assert docs[0]["win_rate"] == docs[1]["win_rate"]
    assert docs[0]["calls"]["made"] + docs[1]["calls"]["made"] == 120


def test_a_sync_judge_runs_eight_calls_at_once_under_concurrency_8(tmp_path: Path) -> None:
    from tests.judges.own_judges import at_once

    before = at_once.calls
    result = invoke(
        "compare", str(pairs(tmp_path, 8)), "--judge", OWN + "meets_seven_others", "--json",
        "--concurrency", "8",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["n_call_errors"] == 0
    assert at_once.calls - before == 16
    assert at_once.most == 8  # counted by the judge: eight of its calls ran at once


def test_a_python_judge_reports_no_hidden_tokens(tmp_path: Path) -> None:
    """QA40 F1: a function has no provider, so no "reasoning tokens: not reported" row.

    Its replies said nothing of reasoning tokens, which the run read as a provider
    withholding them: ``compare`` printed the row and ``--json`` said ``null``.
    """
    path = pairs(tmp_path, 3)
    shown = invoke("compare", str(path), "--judge", "python:fairjudge.examples.judges:longer")
    assert shown.exit_code == 0, shown.output
    assert "reasoning tokens" not in shown.output
    as_json = invoke(
        "compare", str(path), "--judge", "python:fairjudge.examples.judges:longer", "--json"
    )
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout)["calls"]["reasoning_tokens"] == 0
