"""Panel tables at 80 columns: members numbered, a legend naming each.

At 80 columns (piped, or a default terminal) the tables cut member names until two
members both read ``python:e…``, and score-jury's rows read ``accurac… median``.
Each test runs ``fairjudge`` as a process, 80 columns wide, and reads its exit code
and stdout.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli_process import run_process
from tests.forked_cli import PACKAGES

ROOT = Path(__file__).resolve().parents[2]
JUDGES = "python:examples.judges"
PANEL = "python:tests.panel_scorers"


def _env(*extra: Path) -> dict[str, str]:
    path = os.pathsep.join(str(p) for p in (ROOT / "src", ROOT, *extra))
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": path, "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    return env


def fairjudge(*args: str) -> Any:
    """``fairjudge ARGS`` as a process, 80 columns wide, as when piped."""
    # A process of its own, forked from one that has imported the library.
    return run_process(
        args, env=_env(), cwd=ROOT, timeout=240, program="fairjudge", preload=PACKAGES
    )  # PACKAGES: a server that starts fast, for the few runs in this environment


def _legend(stdout: str) -> list[str]:
    """The legend's lines: ``#k  name  (weight w)``, in order."""
    return re.findall(r"^  (#\d+  \S+  \(weight [\d.]+\))$", stdout, flags=re.MULTILINE)


def _member_cells(stdout: str) -> list[str]:
    """The first cell of every table row that names a member."""
    return re.findall(r"^│ (#\d+) ", stdout, flags=re.MULTILINE)


def test_jury_tables_number_the_members_and_the_legend_names_them() -> None:
    names = [f"{JUDGES}:longer", f"{JUDGES}:knows_facts", f"{JUDGES}:first_position"]
    flags = [arg for name in names for arg in ("--judge", name)]
    done = fairjudge("jury", "examples/demo_pairs.jsonl", *flags, "--weight", "1",
                     "--weight", "2", "--weight", "1", "--bootstrap", "200")  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "…" not in out  # nothing is cut
    assert max(len(line) for line in out.splitlines()) <= 80
    assert _legend(out) == [
        f"#1  {names[0]}  (weight 1)",
        f"#2  {names[1]}  (weight 2)",
        f"#3  {names[2]}  (weight 1)",
    ]
    assert "3: #1, #2, #3 (named above)" in out
    # the members table, the calls table and the agreement matrix: one row per member
    assert _member_cells(out) == ["#1", "#2", "#3"] * 3
    assert re.search(r"┃\s+┃ #1\s+┃ #2\s+┃ #3\s+┃", out)  # the matrix's columns
    after_legend = out.split(f"#3  {names[2]}  (weight 1)\n", 1)[1]
    assert not any(name in after_legend for name in names)  # the tables show numbers only


def test_a_long_member_name_in_the_legend_wraps_and_is_never_cut(tmp_path: Path) -> None:
    module = "a_module_with_a_long_name_" + "x" * 70
    (tmp_path / f"{module}.py").write_text("from examples.judges import longer\n", encoding="utf-8")
    env = _env(tmp_path)
    code = "import sys; from fairjudge.cli import main; sys.argv[0] = 'fairjudge'; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "jury", "examples/demo_pairs.jsonl", "--judge",
         f"python:{module}:longer", "--judge", f"{JUDGES}:knows_facts", "--bootstrap", "100"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=240, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    legend = done.stdout.split("members:\n", 1)[1].split("  #2", 1)[0]
    assert "".join(legend.split()) == f"#1python:{module}:longer(weight1)"


def test_score_jury_tables_keep_members_and_dimensions_whole(tmp_path: Path) -> None:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": a, "human_accuracy": int(a[0])}
            for i, a in enumerate(["1 a", "5 b", "2 c", "4 d", "3 e"])]  # fmt: skip
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    names = [f"{PANEL}:leading", f"{PANEL}:high", f"{PANEL}:mirror"]
    flags = [arg for name in names for arg in ("--judge", name)]
    done = fairjudge("score-jury", str(path), *flags, "--bootstrap", "200")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert _legend(out) == [f"#{k + 1}  {name}  (weight 1)" for k, name in enumerate(names)]
    # the members table (three dimensions) and the calls table
    assert _member_cells(out) == ["#1", "#2", "#3"] * 4
    # the other rule has a table of its own, each dimension whole in its own cell
    other = out.split("the same scores, median of the members", 1)[1]
    for dimension in ("accuracy", "relevance", "usefulness"):
        assert re.search(rf"^│ {dimension}\s+│ \d", other, flags=re.MULTILINE), dimension
    assert re.search(r"┃ dimension\s+┃ histogram \(nearest level\)\s+┃ collapse\s+┃", out)
