"""Under ``fairjudge run FILE``, stderr's notes name FILE's keys, as its errors do.

A budget stop, a skipped row, too many unresolved items: the user wrote
``max-calls = 3`` in a file, not ``--max-calls 3`` on a command line, so the note
says ``max-calls``. A note is not an error, so it gets no ``FILE:LINE:`` in front;
``--json`` stays what the typed command prints, byte for byte.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.cli._invoke import invoke

EX = "python:fairjudge.examples.judges:"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example data as the working directory, clocks stopped (equal JSON twice)."""
    assert invoke("example-data", str(tmp_path)).exit_code == 0
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "perf_counter", lambda: 1000.0)
    return tmp_path


def _run(here: Path, text: str, *flags: str):  # type: ignore[no-untyped-def]
    (here / "eval.toml").write_text(text, encoding="utf-8")
    return invoke("run", "eval.toml", "--allow-python-judges", *flags)


def test_a_budget_stop_names_the_key(here: Path) -> None:
    done = _run(here, f'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "{EX}longer"\n'
                      "max-calls = 3\nquiet = true\n")  # fmt: skip
    assert done.exit_code == 5, done.output
    said = " ".join(done.stderr.split())
    assert "stopped: the max-calls 3 budget is spent: 3 calls made" in said
    assert "--max-calls" not in done.stderr
    assert "eval.toml:4" not in done.stderr  # a note, not an error about the line


def test_a_budget_stops_json_is_the_typed_commands(here: Path) -> None:
    typed = invoke("compare", "demo_pairs.jsonl", "--judge", EX + "longer", "--max-calls", "3",
                   "--quiet", "--json")  # fmt: skip
    assert typed.exit_code == 5, typed.output
    done = _run(here, f'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "{EX}longer"\n'
                      "max-calls = 3\nquiet = true\n", "--json")  # fmt: skip
    assert done.exit_code == 5, done.output
    assert done.stdout == typed.stdout
    assert "--max-calls 3" in json.loads(done.stdout)["stopped"]


def test_a_skipped_row_and_the_unresolved_exit_name_the_keys(here: Path) -> None:
    (here / "bad.csv").write_text("id,question,answer_1,answer_2\nx,q,,b\ny,q,a,b\n", "utf-8")
    done = _run(here, 'command = "compare"\nfile = "bad.csv"\n'
                      'judge = "python:tests.judge_fixtures:garbage"\n'
                      "skip-invalid = true\nmax-unresolved = 0.0\nquiet = true\n")  # fmt: skip
    assert done.exit_code == 4, done.output
    said = " ".join(done.stderr.split())
    assert "fill it in, or set allow-empty to judge empty answers as they are" in said
    assert "> max-unresolved 0)" in said
    assert "--allow-empty" not in done.stderr
    assert "--max-unresolved" not in done.stderr


def test_typed_notes_keep_their_flags(here: Path) -> None:
    done = invoke("compare", "demo_pairs.jsonl", "--judge", EX + "longer", "--max-calls", "3",
                  "--quiet")  # fmt: skip
    assert done.exit_code == 5, done.output
    assert "stopped: the --max-calls 3 budget is spent" in " ".join(done.stderr.split())


def unreadable(question: str, answer_a: str, answer_b: str) -> str:
    """The longer answer; on questions 0-6, a reply no verdict is read from (7 reasons)."""
    if question in {f"Question {i}?" for i in range(7)}:
        return f"cannot say, about {question}"
    return "A" if len(answer_a) >= len(answer_b) else "B"


def test_every_stderr_line_names_the_keys(here: Path) -> None:
    """rank prints its failure reasons on stderr itself; their pointer names the key too."""
    done = _run(here, 'command = "rank"\nfile = "rank_answers.jsonl"\n'
                      'judge = "python:tests.cli.test_config_notes:unreadable"\n'
                      "quiet = true\n")  # fmt: skip
    said = " ".join(done.stderr.split())
    assert "other reason(s); out FILE keeps every call's failure" in said, done.output
    assert "--out" not in done.stderr
