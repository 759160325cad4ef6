"""A panel's calls, counted once: each member's row adds up to the panel's ``calls``.

A Python member's function runs on the engine, and the panel's ``calls`` (its table
row, ``--json``, the ``--out`` header, the page's run facts) and its ``--max-calls``
count those calls. Its row in the calls-by-member table used to show "—" for made
and cached ("no model call made") while the panel row said "80 made": two numbers
for one run. Now a Python member's calls are made (or served from the store) in its
row and in every output; only its tokens and cost are "—" (no model). A replay
answers without any call: its made and cached are "—" in the table and ``null`` in
the JSON. Each test runs ``fairjudge`` as a process, as a user would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from fairjudge.judges import MemberUsage
from fairjudge.report._panel import print_calls
from tests.out_file import out_header
from tests.report import pages
from tests.server import JudgeServer

REPO = Path(__file__).resolve().parents[2]
J = "python:fairjudge.examples.judges:"
EXAMPLES = REPO / "src" / "fairjudge" / "examples"


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``fairjudge ARGS`` in its own process, 300 columns wide (no wrapped cells)."""
    env = {**os.environ, "COLUMNS": "300", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", *map(str, args)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _member_rows(out: str) -> list[list[str]]:
    """The calls-by-member table's rows: member, calls, made, cached, failed, tokens, cost."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "calls by member" in line)
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("└"):
            break
        if line.startswith("│ #"):
            rows.append([cell.strip() for cell in line.strip("│").split("│")])
    return rows


def _usage(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Each member's usage in a jury's or a scoring panel's ``--json``."""
    if "member_usage" in summary:
        return list(summary["member_usage"])
    return [m["usage"] for m in summary["members"]]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _outputs(
    tmp_path: Path, *run: str | Path, stores: bool = False
) -> tuple[str, dict[str, Any], Path, Path]:
    """The terminal (with ``--out`` and ``--html``) and, from a second run, ``--json``.

    With ``stores``, each run on a fresh store of its own (a panel with a model member);
    a panel of undeclared Python judges takes none.
    """
    out, html = tmp_path / "out.jsonl", tmp_path / "page.html"
    a, b = (("--store", tmp_path / f"{n}.sqlite") if stores else () for n in "ab")
    shown = _run(*run, *a, "--out", out, "--html", html)
    doc = json.loads(_run(*run, *b, "--json").stdout)
    return shown.stdout, doc, out, html


def _agree(terminal: str, doc: dict[str, Any], out: Path, html: Path, made: list[int]) -> None:
    """Every output gives the members' ``made`` and the panel's, and they add up."""
    total = sum(made)
    assert [int(row[2]) for row in _member_rows(terminal)] == made
    assert f"{total} made, 0 cached, 0 failed" in _flat(terminal)
    assert [u["made"] for u in _usage(doc)] == made
    assert doc["calls"]["made"] == total
    assert out_header(out)["calls"]["made"] == total
    summary = pages.embedded(html, "fj-summary")
    assert [u["made"] for u in _usage(summary)] == made
    assert f"<dt>calls</dt><dd>{total} made, 0 cached</dd>" in html.read_text("utf-8")


def test_a_python_jurys_members_add_up_to_its_calls_in_every_output(tmp_path: Path) -> None:
    run = ("jury", EXAMPLES / "demo_pairs.jsonl", "--judge", J + "longer", "--judge",
           J + "knows_facts")  # fmt: skip
    terminal, doc, out, html = _outputs(tmp_path, *run)
    _agree(terminal, doc, out, html, [40, 40])
    for row in _member_rows(terminal):
        assert row[1:7] == ["40", "40", "0", "0", "—", "—"], row
    assert "—: #1, #2 call a Python function, not a model: no tokens, nothing to pay for." in (
        _flat(terminal)
    )
    assert all(u["answered_locally"] and u["cost_usd"] == 0.0 for u in _usage(doc))


def test_a_python_scoring_panels_members_add_up_to_its_calls_in_every_output(
    tmp_path: Path,
) -> None:
    run = ("score-jury", EXAMPLES / "score_answers.jsonl", "--judge", J + "scorer", "--judge",
           J + "length_scorer", "--bootstrap", "200")  # fmt: skip
    terminal, doc, out, html = _outputs(tmp_path, *run)
    _agree(terminal, doc, out, html, [40, 40])
    assert "calls: 80 made, 0 cached, 0 failed" in _flat(terminal)


def test_a_mixed_jury_charges_the_model_and_counts_the_functions_calls(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer")
    run = ("jury", EXAMPLES / "demo_pairs.jsonl", "--judge", "openai/m", "--judge",
           J + "knows_facts", "--base-url", openai_env.base_url)  # fmt: skip
    terminal, doc, out, html = _outputs(tmp_path, *run, stores=True)
    _agree(terminal, doc, out, html, [40, 40])
    assert openai_env.count("requests") == 80  # the model member's 40, in each of two runs
    model, python = _member_rows(terminal)
    assert int(model[5].split(" / ")[0]) > 0, model  # its tokens
    assert python[5:7] == ["—", "—"], python
    model_usage, python_usage = _usage(doc)
    assert model_usage["input_tokens"] > 0
    assert not model_usage["answered_locally"]
    assert (python_usage["input_tokens"], python_usage["answered_locally"]) == (0, True)


def test_a_declared_python_member_is_served_from_the_store_on_a_rerun(tmp_path: Path) -> None:
    own = "python:tests.judges.own_members:"
    run = ("jury", EXAMPLES / "demo_pairs.jsonl", "--judge", own + "declared_longer",
           "--judge", J + "longer", "--store", tmp_path / "s.sqlite", "--json")  # fmt: skip
    env = {"FAIRJUDGE_TEST_CALLS": str(tmp_path / "calls")}
    os.environ.update(env)
    try:
        _run(*run)
        again = json.loads(_run(*run).stdout)
    finally:
        for key in env:
            del os.environ[key]
    # the declared member's 40 calls come from the store; the undeclared one's are made
    assert [(u["made"], u["cached"]) for u in _usage(again)] == [(0, 40), (40, 0)]
    assert (again["calls"]["made"], again["calls"]["cached"]) == (40, 40)


def test_a_replay_makes_no_call_and_says_so(tmp_path: Path) -> None:
    run = ("jury", EXAMPLES / "demo_pairs.jsonl", "--judge",
           f"replay:{EXAMPLES / 'replay_reviews.jsonl'}", "--judge", J + "longer")  # fmt: skip
    terminal, doc, out, html = _outputs(tmp_path, *run)
    replay, python = _member_rows(terminal)
    assert replay[1:7] == ["40", "—", "—", "0", "—", "—"], replay
    assert python[1:4] == ["40", "40", "0"], python
    assert [(u["made"], u["cached"]) for u in _usage(doc)] == [(None, None), (40, 0)]
    shown = _usage(pages.embedded(html, "fj-summary"))
    assert [(u["made"], u["cached"]) for u in shown] == [(None, None), (40, 0)]
    assert doc["calls"]["made"] == out_header(out)["calls"]["made"] == 40
    assert "—: #1 answered without a call (a replay reads its recording): none made or " \
        "cached, nothing to pay for." in _flat(terminal)  # fmt: skip


def test_the_table_shows_a_python_members_counts_and_a_replays_dashes() -> None:
    console = Console(width=200, record=True)
    python = MemberUsage(6, 4, 2, 0, 0, 0.0, 0.01, local=True)
    replay = MemberUsage(6, None, None, 0, 0, 0.0, 0.0, local=True)
    model = MemberUsage(6, 6, 0, 120, 30, 0.5, 0.2)
    print_calls(console, [(None, None, 0, python), (None, None, 0, replay), (None, None, 1, model)])
    rows = _member_rows(console.export_text())
    assert [r[1:7] for r in rows] == [
        ["6", "4", "2", "0", "—", "—"],
        ["6", "—", "—", "0", "—", "—"],
        ["6", "6", "0", "1", "120 / 30", "$0.5000"],
    ]
