from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from fairjudge.cli._exit_codes import EXIT_GATE_FAILED

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "calibration.jsonl"


def test_good_judge_passes_the_gate() -> None:
    result = runner.invoke(
        app,
        [
            "calibrate",
            str(EXAMPLE),
            "--judge",
            "python:examples.judges:knows_facts",
            "--json",
            "--bootstrap",
            "200",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # knows_facts recognises every fact but says tie on 3 items whose facts it misses.
    assert report["agreement"]["s1"]["estimate"] == 21 / 24
    assert report["agreement"]["s2"]["estimate"] == 1.0
    assert report["correlation"]["passed"] is True
    assert report["position_bias"]["consistency"]["estimate"] == 1.0


def test_length_biased_judge_fails_the_gate() -> None:
    result = runner.invoke(
        app,
        [
            "calibrate",
            str(EXAMPLE),
            "--judge",
            "python:examples.judges:longer",
            "--bootstrap",
            "200",
        ],
    )
    assert result.exit_code == EXIT_GATE_FAILED
    assert "gate failed" in result.output


def test_unlabelled_items_are_an_input_error(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text(
        json.dumps({"question": "q", "answer_1": "a", "answer_2": "b"}) + "\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["calibrate", str(p), "--judge", "python:examples.judges:longer"])
    assert result.exit_code == 2
    assert "human" in result.output


def test_a_missing_label_column_is_named_as_the_user_asked(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    row = {"id": "r1", "question": "q", "answer_1": "a", "answer_2": "b", "human": "1"}
    p.write_text(json.dumps(row) + "\n", encoding="utf-8")
    args = ["calibrate", str(p), "--judge", "python:examples.judges:longer", "--human-col"]
    result = runner.invoke(app, [*args, "nothere"])
    assert result.exit_code == 2
    assert result.output.strip() == (  # a column no row has is refused as the file is read
        f"error: {p}: --human-col 'nothere' names no column of the file; its columns: 'id', "
        "'question', 'answer_1', 'answer_2', 'human'; pass --human-col with the one holding "
        "the labels (1/2/tie)"
    )
    # The same file read with 'human' is judged (one item is too few for the gate: 7).
    default = runner.invoke(app, [*args[:-1]])
    assert default.exit_code == 7, default.output


def test_a_named_pipe_is_read_once_and_whole(tmp_path: Path) -> None:
    # A pipe can be read once: peeking at its columns would lose rows (or hang).
    fifo = tmp_path / "pairs.jsonl"
    os.mkfifo(fifo)
    data = EXAMPLE.read_bytes()

    def feed() -> None:
        with fifo.open("wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    result = runner.invoke(
        app, ["calibrate", str(fifo), "--judge", "python:examples.judges:knows_facts", "--json"]
    )
    writer.join(timeout=10)
    assert result.exit_code in (0, 3), result.output
    assert json.loads(result.stdout)["n_items"] == data.count(b"\n")
