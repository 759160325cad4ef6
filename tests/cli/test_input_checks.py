"""Issue 21, items 3 and 11: input that is wrong is refused before any call, as a process.

Before: ``--judge ''`` ran the default embedded judge; human scores off the rubric's
scale were accepted; an empty answer was judged silently; an unterminated CSV quote
read as "missing column 'answer_1'"; only the first bad row was reported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.judges import resolve_judge, resolve_pointwise_judge

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "fairjudge" / "examples"
PAIRWISE = "python:fairjudge.examples.judges:longer"
SCORER = "python:fairjudge.examples.judges:scorer"


def fairjudge(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the command line in a fresh process."""
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, env=env, check=False, timeout=120,
    )  # fmt: skip


def flat(text: str) -> str:
    """The text with every run of whitespace one space: lines wrap at the console's width."""
    return " ".join(text.split())


def refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """Assert an input error (exit 2, nothing on stdout) saying ``words``; its text."""
    err = flat(done.stderr)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    for word in words:
        assert flat(word) in err, err
    return err


# -- item 3: an empty --judge is an error, never the default ---------------------------


@pytest.mark.parametrize(
    ("command", "file"),
    [
        ("compare", "demo_pairs.jsonl"),
        ("score", "score_answers.jsonl"),
        ("rank", "rank_answers.jsonl"),
        ("calibrate", "calibration.jsonl"),
    ],
)
@pytest.mark.parametrize("spec", ["", "   "])
def test_an_empty_judge_is_refused_not_replaced_by_the_default(
    command: str, file: str, spec: str
) -> None:
    done = fairjudge(command, EXAMPLES / file, "--judge", spec)
    err = refused(done, f"--judge: empty judge spec {spec!r}", "leave --judge out")
    assert "qwen2.5-coder-1.5b' needs" not in err  # the default model was never opened


def test_an_empty_panel_member_is_refused() -> None:
    jury = fairjudge("jury", EXAMPLES / "demo_pairs.jsonl", "--judge", PAIRWISE, "--judge", "")
    refused(jury, "--judge: empty judge spec ''")
    scoring = fairjudge(
        "score-jury", EXAMPLES / "score_answers.jsonl", "--judge", SCORER, "--judge", " "
    )
    refused(scoring, "--judge: empty judge spec ' '")


def test_audit_refuses_an_empty_judge() -> None:
    done = fairjudge("audit", "--judge", "", "--limit", "1", "--experiments", "position")
    refused(done, "--judge: empty judge spec ''")


@pytest.mark.parametrize("spec", ["", " \t"])
def test_a_jury_file_member_with_an_empty_judge_is_refused(tmp_path: Path, spec: str) -> None:
    toml = tmp_path / "jury.toml"
    toml.write_text(f'[[member]]\njudge = {json.dumps(spec)}\n[[member]]\njudge = "{PAIRWISE}"\n')
    done = fairjudge(
        "jury", EXAMPLES / "demo_pairs.jsonl", "--jury", toml, "--allow-python-judges"
    )
    refused(done, f"member.0.judge: empty judge spec {spec!r}")


def test_the_library_names_the_parameter() -> None:
    with pytest.raises(ConfigError, match=r"--judge: empty judge spec ''"):
        resolve_judge("")
    with pytest.raises(ConfigError, match=r"--judge: empty judge spec ' '"):
        resolve_pointwise_judge(" ")
