"""``--stop-when`` as a process: one conclusion, about the population unless told otherwise.

A file whose judged win rate is 0.498 (249 of 500 questions to model 1) is the case
where the sequence about the file alone ends on the file's own mean and declares
"model 2 is better", while the bootstrap CI of the same run contains 0.5. By default
the run is about the population the questions are drawn from: it ends "not decided",
and the terminal, ``--json``, ``--out`` and the page say the same one thing. With
``--population file`` it may say "model 2 is better", and every line says that it
describes this file only. A budget stop reports the calls it left unmade, never as
saved.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fairjudge.cli._flags import FLAGS
from tests.out_file import out_header
from tests.server import JudgeServer

REPO = Path(__file__).resolve().parents[2]
CLI = "from fairjudge.cli import main; main()"
LONGER = "python:fairjudge.examples.judges:longer"
STOP_LINES = ("adaptive stop:", "anytime-valid win rate", "calls:", "The bootstrap CIs")


def _file(folder: Path, n: int = 500, wins: int = 249) -> Path:
    """``n`` questions; model 1's answer is the longer one in ``wins`` of them."""
    rows = []
    for i in range(n):
        long, short = f"a longer, more detailed answer to question {i}", f"short {i}"
        one, two = (long, short) if i < wins else (short, long)
        rows.append({"id": f"q{i}", "question": f"Question {i}?", "answer_1": one, "answer_2": two})
    path = folder / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``fairjudge compare ARGS`` in its own process, 400 columns wide (no wrapped lines)."""
    env = {**os.environ, "COLUMNS": "400", "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", CLI, "compare", *map(str, args)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _conclusions(screen: str) -> list[str]:
    """The lines that conclude: a winner, or none."""
    words = ("is better", "No clear winner", "No conclusion")
    return [line for line in screen.splitlines() if any(w in line for w in words)]


def test_a_file_at_0498_is_not_decided_and_every_output_says_so(tmp_path: Path) -> None:
    path = _file(tmp_path)
    out, page = tmp_path / "out.jsonl", tmp_path / "page.html"
    common = ("--judge", LONGER, "--stop-when", "decided", "-q")
    shown = _run(path, *common, "--out", out, "--html", page)
    assert shown.returncode == 0, shown.stderr
    conclusion = (
        "No clear winner: the anytime-valid interval contains 0.5 after every question of the file."
    )
    # One conclusion line, and nothing elsewhere on the screen that takes a side.
    assert _conclusions(shown.stdout) == [conclusion]
    assert "model 2" not in shown.stdout.lower().replace("model 1 vs model 2", "")
    assert "not decided: every question was judged" in shown.stdout
    assert "0.498  [0.456, 0.542]  (fixed-sample CI; the conclusion is the anytime-valid" in (
        shown.stdout
    )
    printed = _run(path, *common, "--json")
    assert printed.returncode == 0, printed.stderr
    block = json.loads(printed.stdout)["adaptive"]
    assert (block["reason"], block["winner"], block["population"]) == (
        "not decided", None, "source",
    )  # fmt: skip
    assert block["conclusion"] == conclusion
    ci = block["ci"]
    assert ci["low"] < 0.5 < ci["high"]
    assert out_header(out)["settings"]["adaptive"] == block
    html = page.read_text("utf-8")
    assert conclusion in html
    assert "is better" not in html


def test_population_file_speaks_of_this_file_only_on_every_line(tmp_path: Path) -> None:
    path = _file(tmp_path)
    args = ("--judge", LONGER, "--stop-when", "decided", "--population", "file", "-q")
    page = tmp_path / "page.html"
    shown = _run(path, *args, "--html", page)
    assert shown.returncode == 0, shown.stderr
    conclusion = (
        "On this file only, model 2 is better: the anytime-valid interval for this file's "
        "own win rate lies below 0.5 (it says nothing about questions like these)."
    )
    assert _conclusions(shown.stdout) == [conclusion]
    lines = [ln for ln in shown.stdout.splitlines() if ln.startswith(STOP_LINES)]
    assert len(lines) == 4
    assert all("this file only" in line for line in lines), lines
    assert "--stop-when decided, --population file" in lines[0]
    assert "0.498  [0.498, 0.498] on this file only" in lines[1]
    printed = _run(path, *args, "--json")
    block = json.loads(printed.stdout)["adaptive"]
    assert (block["reason"], block["winner"], block["population"]) == ("decided", "2", "file")
    assert block["conclusion"] == conclusion
    assert block["describes"].startswith("this file only")
    assert "this file only" in block["note"]
    assert "without replacement" in block["method"]
    html = page.read_text("utf-8")
    assert "Anytime-valid (adaptive, this file only)" in html
    assert "On this file only, model 2 is better" in html
    assert "No clear winner" not in html


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--population", "file"), "--population applies with --stop-when only"),
        (("--stop-when", "decided", "--population", "files"), "--population must be 'source'"),
    ],
)
def test_population_usage_errors_exit_2_and_name_the_flag(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    done = _run(_file(tmp_path, n=20, wins=10), "--judge", LONGER, *args, "--json")
    assert done.returncode == 2, done.stdout
    error = json.loads(done.stdout)["error"]
    assert says in error["message"]
    assert says in " ".join(done.stderr.split())
    assert FLAGS["population"] == "--population"


def test_a_budget_stop_reports_calls_not_made_never_saved(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer")
    path = _file(tmp_path, n=40, wins=40)
    out, page = tmp_path / "out.jsonl", tmp_path / "page.html"
    run = (
        path, "--judge", "openai/m", "--base-url", openai_env.base_url, "--store",
        tmp_path / "s.sqlite", "--stop-when", "decided", "--batch", "8", "--concurrency", "1",
        "-q",
    )  # fmt: skip
    shown = _run(*run, "--max-calls", "8", "--out", out, "--html", page)
    assert shown.returncode == 5, shown.stderr
    said = (
        "calls: 8 used of 80 for the whole file (8 new, 0 from the store, 8 not run); 72 not "
        "made: the budget ran out first (not saved; a rerun with a larger budget makes them)"
    )
    assert said in shown.stdout
    assert "saved" not in shown.stdout.replace("not saved", "")
    calls = out_header(out)["settings"]["adaptive"]["calls"]
    assert (calls["saved"], calls["not_made"], calls["not_run"]) == (0, 72, 8)
    assert "72 not made: the budget ran out first" in page.read_text("utf-8")
    # A rerun with the budget lifted stops on the rule: what it did not judge is saved.
    again = _run(*run, "--json")
    assert again.returncode == 0, again.stderr
    calls = json.loads(again.stdout)["adaptive"]["calls"]
    assert calls["not_made"] == 0
    assert calls["saved"] == calls["full"] - calls["used"] > 0


def test_a_rebuilt_page_keeps_the_runs_conclusion_where_the_bootstrap_would_differ(
    tmp_path: Path,
) -> None:
    # 275 of 500 questions to model 1: the whole file's bootstrap CI excludes 0.5, but
    # the run looked after every batch, and its anytime-valid interval still holds 0.5.
    path = _file(tmp_path, wins=275)
    out, page, rebuilt = tmp_path / "out.jsonl", tmp_path / "page.html", tmp_path / "r.html"
    run = ("--judge", LONGER, "--stop-when", "decided", "-q", "--out", out, "--html", page)
    shown = _run(path, *run)
    assert shown.returncode == 0, shown.stderr
    conclusion = (
        "No clear winner: the anytime-valid interval contains 0.5 after every question of the file."
    )
    assert _conclusions(shown.stdout) == [conclusion]
    assert "0.550  [0.506, 0.592]  (fixed-sample CI; the conclusion is the anytime-valid" in (
        shown.stdout
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    again = subprocess.run(
        [sys.executable, "-c", CLI, "report", str(out), "-o", str(rebuilt), "--json"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["adaptive"] == out_header(out)["settings"]["adaptive"]
    for html in (page.read_text("utf-8"), rebuilt.read_text("utf-8")):
        assert conclusion in html
        assert "Model 1 is better" not in html
    assert "the conclusion is the run&#39;s own" in rebuilt.read_text("utf-8")
