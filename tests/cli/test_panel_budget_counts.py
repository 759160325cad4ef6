"""A panel's budget stop, as a process: one count of the calls not run, said everywhere.

A panel whose members are of mixed kinds (a model member on the panel's session, a
Python member on the engine of its own) used to word its ``--max-calls`` stop from one
session's calls: the terminal said "8 not run" where ``--json``'s adaptive block, which
counts every member's calls, said 24. The stop line, ``--json`` (its ``calls`` and its
adaptive ``calls``), the ``--out`` header and the Markdown summary now give the
panel's one count.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.out_file import out_header
from tests.score_server import by_answer, script
from tests.server import JudgeServer

REPO = Path(__file__).resolve().parents[2]
CLI = "from fairjudge.cli import main; main()"
LONGER = "python:fairjudge.examples.judges:longer"
NOT_RUN = re.compile(r"(\d+) not run")


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``fairjudge ARGS`` in its own process, 400 columns wide (no wrapped lines)."""
    env = {**os.environ, "COLUMNS": "400", "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", CLI, *map(str, args)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _stop_line(shown: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in (shown.stdout + shown.stderr).splitlines() if "stopped: " in line]
    assert len(lines) == 1, shown.stdout + shown.stderr
    return lines[0]


def _not_run(text: str) -> int:
    found = NOT_RUN.findall(text)
    assert len(found) == 1, text
    return int(found[0])


def _pairs(folder: Path, n: int = 20) -> Path:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer_1": f"a longer answer {i}",
             "answer_2": f"short {i}"} for i in range(n)]  # fmt: skip
    path = folder / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_mixed_jurys_adaptive_budget_stop_says_the_panels_count(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer")
    path, out, md = _pairs(tmp_path), tmp_path / "out.jsonl", tmp_path / "summary.md"
    run = ("jury", path, "--judge", "openai/m", "--judge", LONGER, "--base-url",
           openai_env.base_url, "--stop-when", "decided", "--batch", "8", "--concurrency", "1",
           "--max-calls", "8", "-q")  # fmt: skip
    shown = _run(*run, "--store", tmp_path / "a.sqlite", "--out", out, "--markdown", md)
    assert shown.returncode == 5, shown.stderr
    doc = _run(*run, "--store", tmp_path / "b.sqlite", "--json")
    assert doc.returncode == 5, doc.stderr
    summary = json.loads(doc.stdout)
    # The first batch: 8 questions x 2 orders x 2 members = 32 calls; the model member
    # made 8 of its 16, and the Python member was left none of the budget: 24 not run.
    line = _stop_line(shown)
    assert "8 calls made by the panel, 24 not run" in line
    assert _not_run(line) == summary["adaptive"]["calls"]["not_run"] == 24
    assert (summary["calls"]["made"], summary["calls"]["not_run"]) == (8, 24)
    assert _not_run(summary["stopped"]) == 24
    assert out_header(out)["settings"]["adaptive"]["calls"]["not_run"] == 24
    assert _not_run(md.read_text("utf-8").split("Adaptive stop")[0]) == 24


def test_a_mixed_jurys_budget_stop_counts_every_members_calls(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer")
    path = _pairs(tmp_path, n=10)
    run = ("jury", path, "--judge", "openai/m", "--judge", LONGER, "--base-url",
           openai_env.base_url, "--concurrency", "1", "--max-calls", "8", "-q")  # fmt: skip
    shown = _run(*run, "--store", tmp_path / "a.sqlite")
    assert shown.returncode == 5, shown.stderr
    doc = _run(*run, "--store", tmp_path / "b.sqlite", "--json")
    summary = json.loads(doc.stdout)
    # 10 items x 2 orders x 2 members = 40 calls, 8 made: 32 not run, the model
    # member's 12 and the Python member's 20 (its session alone would say 12).
    assert _not_run(_stop_line(shown)) == summary["calls"]["not_run"] == 32
    assert summary["calls"]["total"] == 40
    assert summary["calls"]["made"] == 8
    assert _not_run(summary["stopped"]) == 32


def test_a_mixed_scoring_panels_budget_stop_counts_every_members_calls(
    tmp_path: Path, score_server: JudgeServer
) -> None:
    replies = {f"answer {i}": '{"accuracy": 4, "relevance": 4, "usefulness": 4, "reason": "ok"}'
               for i in range(5)}  # fmt: skip
    script(score_server, by_answer(replies))
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps({"question": f"Q{i}?", "answer": a}) + "\n"
                            for i, a in enumerate(replies)), encoding="utf-8")  # fmt: skip
    run = ("score-jury", path, "--judge", "openai/judge-a", "--judge",
           "python:tests.scorers:fours", "--base-url", score_server.base_url, "--concurrency",
           "1", "--max-calls", "4", "--bootstrap", "100", "-q")  # fmt: skip
    shown = _run(*run, "--store", tmp_path / "a.sqlite")
    assert shown.returncode == 5, shown.stderr
    doc = _run(*run, "--store", tmp_path / "b.sqlite", "--json")
    summary = json.loads(doc.stdout)
    # 5 answers x 2 members = 10 calls, 4 made: the model member's 1 and the Python
    # member's 5 are not run.
    assert _not_run(_stop_line(shown)) == summary["calls"]["not_run"] == 6
    assert [u["made"] for u in summary["member_usage"]] == [4, 0]
    assert _not_run(summary["stopped"]) == 6


def test_identical_members_share_their_calls_in_every_count(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer")
    path = _pairs(tmp_path)
    run = ("jury", path, "--judge", "openai/m", "--judge", "openai/m", "--base-url",
           openai_env.base_url, "--stop-when", "decided", "--batch", "8", "--concurrency", "1",
           "--max-calls", "8", "-q")  # fmt: skip
    shown = _run(*run, "--store", tmp_path / "a.sqlite")
    assert shown.returncode == 5, shown.stderr
    doc = _run(*run, "--store", tmp_path / "b.sqlite", "--json")
    summary = json.loads(doc.stdout)
    # Two members making the same calls make each once: the first batch is 16 calls,
    # 8 made under --max-calls 8 (never "16 new"), 8 not run; the file needs 40.
    calls = summary["adaptive"]["calls"]
    assert (calls["used"], calls["new"], calls["not_run"], calls["full"]) == (8, 8, 8, 40)
    assert _not_run(_stop_line(shown)) == summary["calls"]["not_run"] == 8
    assert summary["calls"]["made"] == openai_env.count("requests") // 2 == 8
    assert "calls: 8 used of 40 for the whole file (8 new, 0 from the store, 8 not run)" in (
        shown.stdout
    )
