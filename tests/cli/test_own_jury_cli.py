"""A panel of your own Python judges on the engine: concurrency, budget, store, Ctrl-C.

The members are ``tests/judges/own_members.py``: some answer only when a second call
runs beside them (the judge itself counts how many ran at once), others count their
calls in ``$FAIRJUDGE_TEST_CALLS``. Ctrl-C is a real SIGINT to a real process.
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

OWN = "python:tests.judges.own_members:"
MAIN = "from fairjudge.cli import main; main()"


def pairs(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "pairs.jsonl"
    rows = [
        {"id": str(i), "question": f"q{i}", "answer_1": "s" * (i % 3 + 1),
         "answer_2": "l" * (i % 5 + 1)}
        for i in range(n)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def calls(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def timeless(doc: Any) -> Any:
    """A ``--json`` document without its wall-time figures (latency, the calls' wall time)."""
    if isinstance(doc, dict):
        return {k: timeless(v) for k, v in doc.items() if "latency" not in k and k != "wall_s"}
    if isinstance(doc, list):
        return [timeless(v) for v in doc]
    return doc


def test_python_members_run_concurrently_and_read_as_one_at_a_time(tmp_path: Path) -> None:
    from tests.judges.own_members import meeting

    path = pairs(tmp_path, 12)
    members = ("--judge", OWN + "meets_longer", "--judge", OWN + "meets_shorter")
    before = meeting.calls
    fast = invoke("jury", str(path), *members, "--concurrency", "8", "--json")
    assert fast.exit_code == 0, fast.output
    assert meeting.calls - before == 48  # 12 items, 2 orders, 2 members
    assert meeting.most >= 2  # counted by the members: their calls ran side by side
    doc = json.loads(fast.stdout)
    assert doc["failures"] == {}
    assert [(m["calls"], m["failed"]) for m in doc["members"]] == [(24, 0), (24, 0)]
    # A deterministic panel reads the same at --concurrency 8 as one call at a time
    # (what a panel of Python members ran before it took run options), timings aside.
    plain = ("--judge", OWN + "counted_longer", "--judge", OWN + "counted_shorter", "--json")
    one = invoke("jury", str(path), *plain)
    assert one.exit_code == 0, one.output
    many = invoke("jury", str(path), *plain, "--concurrency", "8")
    assert many.exit_code == 0, many.output
    assert timeless(json.loads(many.stdout)) == timeless(json.loads(one.stdout))


def declared_panel(tmp_path: Path, n_items: int) -> tuple[tuple[str, ...], dict[str, str]]:
    """A jury of the two declared members on a store, and the env that counts their calls."""
    store = str(tmp_path / "store.sqlite")
    args = ("jury", str(pairs(tmp_path, n_items)), "--judge", OWN + "declared_longer",
            "--judge", OWN + "declared_shorter", "--store", store)  # fmt: skip
    return args, {"FAIRJUDGE_TEST_CALLS": str(tmp_path / "calls")}


def test_a_declared_panels_rerun_makes_no_call(tmp_path: Path) -> None:
    counted = tmp_path / "calls"
    panel, env = declared_panel(tmp_path, 6)
    args = (*panel, "--concurrency", "4", "--json")
    first = invoke(*args, env=env)
    assert first.exit_code == 0, first.output
    assert calls(counted) == 24
    again = invoke(*args, env=env)
    assert again.exit_code == 0, again.output
    assert calls(counted) == 24  # every call from the store
    now, then = json.loads(again.stdout), json.loads(first.stdout)
    assert [m["cached"] for m in now["members"]] == [12, 12]
    assert now["win_rate"] == then["win_rate"]
    assert [m["win_rate"] for m in now["members"]] == [m["win_rate"] for m in then["members"]]


def test_an_undeclared_panel_with_a_store_is_a_usage_error(tmp_path: Path) -> None:
    counted, store = tmp_path / "calls", tmp_path / "store.sqlite"
    result = invoke(
        "jury", str(pairs(tmp_path, 3)), "--judge", OWN + "counted_longer", "--judge",
        OWN + "counted_longer", "--store", str(store), env={"FAIRJUDGE_TEST_CALLS": str(counted)},
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--store does not apply to a panel of Python judges" in result.output
    assert "judge_function" in result.output
    assert calls(counted) == 0
    assert not store.exists()


def test_max_calls_is_one_budget_for_the_whole_panel(tmp_path: Path) -> None:
    counted = tmp_path / "calls"
    args, env = declared_panel(tmp_path, 4)
    stopped = invoke(*args, "--max-calls", "5", env=env)
    assert stopped.exit_code == 5, stopped.output
    assert calls(counted) == 5  # 16 calls planned; the members shared the 5
    text = " ".join(stopped.stderr.split())
    assert "the --max-calls 5 budget is spent: 5 calls made by the panel" in text
    assert "kept in the store" in text
    rest = invoke(*args, "--json", env=env)
    assert rest.exit_code == 0, rest.output
    assert calls(counted) == 16  # the rerun made only the 11 the budget left


def test_an_undeclared_members_budget_stop_says_nothing_of_it_was_kept(tmp_path: Path) -> None:
    counted = tmp_path / "calls"
    result = invoke(
        "jury", str(pairs(tmp_path, 4)), "--judge", OWN + "counted_longer", "--judge",
        OWN + "counted_longer", "--max-calls", "3", env={"FAIRJUDGE_TEST_CALLS": str(counted)},
    )  # fmt: skip
    assert result.exit_code == 5, result.output
    assert calls(counted) == 3
    text = " ".join(result.stderr.split())
    assert "No store for python:tests.judges.own_members:counted_longer" in text
    assert "nothing of theirs was kept" in text
    assert "kept in the store" not in text


def interrupt(tmp_path: Path, members: tuple[str, ...], extra: tuple[str, ...],
              env: dict[str, str], at: int = 10) -> tuple[int, str]:  # fmt: skip
    """Start jury on 60 items (120 calls a member), SIGINT it once ``at`` calls were made."""
    args = [a for m in members for a in ("--judge", OWN + m)]
    child = subprocess.Popen(
        [sys.executable, "-c", MAIN, "jury", str(pairs(tmp_path, 60)), *args,
         "--concurrency", "2", *extra],
        cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    counted = Path(env["FAIRJUDGE_TEST_CALLS"])
    deadline = time.monotonic() + 60
    while calls(counted) < at and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    child.send_signal(signal.SIGINT)
    _out, err = child.communicate(timeout=60)
    return child.returncode, " ".join(err.split())


def test_ctrl_c_on_a_declared_member_says_what_the_store_kept(tmp_path: Path) -> None:
    counted, store = tmp_path / "calls", tmp_path / "store.sqlite"
    env = {"FAIRJUDGE_TEST_CALLS": str(counted), "FAIRJUDGE_TEST_DELAY": "0.05"}
    members = ("declared_longer", "declared_shorter")
    code, err = interrupt(tmp_path, members, ("--store", str(store)), env)
    assert code == 130, err
    said = re.search(
        r"interrupted; every finished call is kept in the store .*\((\d+) of the 120 calls ", err
    )
    assert said is not None, err
    kept = int(said.group(1))
    assert 0 < kept < 120
    made = calls(counted)
    rerun = invoke(
        "jury", str(tmp_path / "pairs.jsonl"), "--judge", OWN + members[0], "--judge",
        OWN + members[1], "--store", str(store), "--json",
        env={**env, "FAIRJUDGE_TEST_DELAY": "0"},
    )  # fmt: skip
    assert rerun.exit_code == 0, rerun.output
    assert calls(counted) - made == 240 - kept  # only what the store did not keep


def test_ctrl_c_on_an_undeclared_member_keeps_what_answered(tmp_path: Path) -> None:
    counted = tmp_path / "calls"
    env = {"FAIRJUDGE_TEST_CALLS": str(counted), "FAIRJUDGE_TEST_DELAY": "0.05"}
    code, err = interrupt(tmp_path, ("counted_longer", "counted_longer"), (), env)
    assert code == 130, err
    assert "so what answered is in this result alone, marked partial" in err
    assert "interrupted; what answered is kept in the result printed above alone" in err
    assert "kept in the store" not in err


def test_ctrl_c_on_the_second_member_keeps_the_panels_result(tmp_path: Path) -> None:
    counted, store = tmp_path / "calls", tmp_path / "store.sqlite"
    env = {"FAIRJUDGE_TEST_CALLS": str(counted), "FAIRJUDGE_TEST_DELAY": "0.005"}
    members = ("declared_longer", "counted_longer")
    code, err = interrupt(tmp_path, members, ("--store", str(store)), env, at=130)
    assert code == 130, err
    assert "interrupted: stopping; no new call starts" in err
    assert "in the batch that stopped, " in err
    assert "interrupted; what answered is kept in the result printed above alone" in err


def test_a_panel_of_python_scorers_runs_concurrently(tmp_path: Path) -> None:
    from tests.judges.own_members import meeting

    path = tmp_path / "answers.jsonl"
    rows = [{"id": f"q{i}", "question": f"Q{i}?", "answer": f"{i % 5 + 1} a"} for i in range(6)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    before = meeting.calls
    result = invoke(
        "score-jury", str(path), "--judge", OWN + "meets_scorer", "--judge",
        OWN + "meets_scorer", "--concurrency", "4", "--json", "--bootstrap", "100",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert meeting.calls - before == 12  # 6 answers, 2 members: every call answered
    assert meeting.most >= 2


def test_python_panels_run_on_the_engine_without_concurrency_given(tmp_path: Path) -> None:
    """``--concurrency``'s default (16) holds for a panel of ``python:`` members too.

    QA40 F2: a panel's ``--judge`` list never opted its Python members into the engine
    (only a single ``--judge python:...`` did), so without ``--concurrency`` typed they
    ran one call at a time with no progress line: 20x slower, and looking hung. The
    members answer only with a second call beside them.
    """
    from tests.judges.own_members import meeting

    path = pairs(tmp_path, 6)
    jury = invoke(
        "jury", str(path), "--judge", OWN + "meets_longer", "--judge", OWN + "meets_shorter",
        "--json",
    )  # fmt: skip
    assert jury.exit_code == 0, jury.output
    assert json.loads(jury.stdout)["failures"] == {}
    answers = tmp_path / "answers.jsonl"
    rows = [{"id": f"q{i}", "question": f"Q{i}?", "answer": f"{i % 5 + 1} a"} for i in range(4)]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    before = meeting.calls
    scored = invoke(
        "score-jury", str(answers), "--judge", OWN + "meets_scorer", "--judge",
        OWN + "meets_scorer", "--json", "--bootstrap", "100",
    )  # fmt: skip
    assert scored.exit_code == 0, scored.output
    assert meeting.calls - before == 8  # 4 answers, 2 members: every call answered
