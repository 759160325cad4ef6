"""A file of the other kind (pairs to ``score``, single answers to ``compare``) says so.

Every row failed with a missing column and nothing said the file was right for
another command. Now one hint line names the command that reads such a file; a
file with good rows, or rows of neither kind, gets no hint.
"""

from __future__ import annotations

import json
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
