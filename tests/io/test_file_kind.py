"""A file of the other kind (pairs to ``score``, single answers to ``compare``) says so.

Every row failed with a missing column and nothing said the file was right for
another command. Now one hint line names the command that reads such a file; a
file with good rows, or rows of neither kind, gets no hint. A CSV or Parquet file
fails on its header, before any row is read, and gets the same hint when the header
holds the other kind's columns.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest

import fairjudge
from fairjudge import InputError
from tests.cli_process import fairjudge as run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "src/fairjudge/examples"
PAIRS, ANSWERS = EXAMPLES / "demo_pairs.jsonl", EXAMPLES / "score_answers.jsonl"
SCORER = "python:fairjudge.examples.judges:scorer"
LONGER = "python:fairjudge.examples.judges:longer"


def _hint(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("hint:")]


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (("score", str(PAIRS), "--judge", SCORER), "`fairjudge compare`"),
        (("compare", str(ANSWERS), "--judge", LONGER), "`fairjudge score`"),
        (("compare", str(ANSWERS), "--judge", LONGER, "--skip-invalid"), "`fairjudge score`"),
    ],
)
def test_a_file_of_the_other_kind_names_the_command_that_reads_it(
    args: tuple[str, ...], command: str
) -> None:
    done = run_cli(*args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "missing column" in done.stderr
    hint = _hint(done.stderr)
    assert len(hint) == 1, done.stderr
    assert command in hint[0]


def test_a_broken_file_of_this_kind_gets_no_hint(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in PAIRS.read_text().splitlines()[:3]]
    del rows[1]["answer_2"]  # one bad row among good ones: a broken file of pairs
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(json.dumps(r) + "\n" for r in rows))
    neither = tmp_path / "neither.jsonl"  # no row of either kind: a renamed column
    neither.write_text(json.dumps({"question": "q", "response": "a"}) + "\n")
    for args in (("compare", str(mixed), "--judge", LONGER),
                 ("score", str(neither), "--judge", SCORER)):  # fmt: skip
        done = run_cli(*args)
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert "missing column" in done.stderr
        assert not _hint(done.stderr), done.stderr


def test_the_library_gives_the_hint_too() -> None:
    with pytest.raises(InputError, match="missing column 'answer'") as caught:
        fairjudge.score(str(PAIRS), SCORER)
    assert str(caught.value).splitlines()[-1].startswith("hint: each row holds two answers")
    with pytest.raises(InputError, match="missing column 'answer_1'") as caught:
        fairjudge.compare(str(ANSWERS), LONGER)
    assert "`fairjudge score`" in str(caught.value).splitlines()[-1]


def _table(tmp_path: Path, source: Path, suffix: str, drop: str = "") -> Path:
    """``source``'s rows as a CSV or Parquet file (less the column ``drop``)."""
    rows = [json.loads(line) for line in source.read_text("utf-8").splitlines()]
    rows = [{k: v for k, v in row.items() if k != drop} for row in rows]
    path = tmp_path / f"{source.stem}{suffix}"
    if suffix == ".parquet":
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        with path.open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize(
    ("command", "source", "missing", "hint"),
    [
        pytest.param("score", PAIRS, "missing column 'answer';", "hint: each row holds two "
                     "answers (answer_1, answer_2): a file of pairs, which `fairjudge compare`",
                     id="pairs-to-score"),
        pytest.param("compare", ANSWERS, "missing column 'answer_1' (and 'answer_2');",
                     "hint: each row holds one answer (an 'answer' column): a file of single "
                     "answers, which `fairjudge score`", id="answers-to-compare"),
        pytest.param("jury", ANSWERS, "missing column 'answer_1' (and 'answer_2');",
                     "`fairjudge score`", id="answers-to-jury"),
    ],
)  # fmt: skip
def test_a_table_of_the_other_kind_gets_the_hint_from_its_header(
    tmp_path: Path, suffix: str, command: str, source: Path, missing: str, hint: str
) -> None:
    path = _table(tmp_path, source, suffix)
    judges = ["--judge", SCORER if command == "score" else LONGER]
    if command == "jury":
        judges += ["--judge", "python:fairjudge.examples.judges:first_position"]
    for extra in ([], ["--json"]):
        done = run_cli(command, path, *judges, *extra)
        assert done.returncode == 2, (done.stdout, done.stderr)
        lines = done.stderr.splitlines()
        assert missing in lines[0], done.stderr  # the header's error, then the one hint
        assert [line for line in lines if line.startswith("hint:")] == [lines[1]], done.stderr
        assert hint in lines[1]
        if extra:  # --json: the same two lines in the error record
            message = json.loads(done.stdout)["error"]["message"]
            assert message.splitlines()[1] == lines[1]
            assert missing in message.splitlines()[0]


def test_a_table_of_neither_kind_gets_no_hint(tmp_path: Path) -> None:
    renamed = _table(tmp_path, PAIRS, ".csv", drop="answer_2")  # answer_1 alone: neither kind
    done = run_cli("score", renamed, "--judge", SCORER)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "missing column 'answer';" in done.stderr
    assert not _hint(done.stderr), done.stderr


def test_the_library_hints_a_table_on_standard_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _table(tmp_path, PAIRS, ".csv").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    with pytest.raises(InputError, match="missing column 'answer';") as caught:
        fairjudge.score("-", SCORER)
    assert str(caught.value).startswith("<stdin>:1: ")
    assert str(caught.value).splitlines()[-1].startswith("hint: each row holds two answers")
