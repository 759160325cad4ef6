"""Exit 4's line says where the reasons are: above, or in ``--json``'s output (QA40 F4).

Under ``--json`` the grouped reasons are not printed on stderr; they are under
``failures`` on stdout, so "the reasons are listed above" pointed at nothing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli._invoke import invoke

JUDGES = (
    "def pair(question, answer_1, answer_2):\n    return None\n\n\n"
    "def one(question, answer):\n    return None\n"
)
WHERE = 'the reasons are under "failures" in the --json output'


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The example data and a judge module that never answers, as the working directory."""
    assert invoke("example-data", str(tmp_path)).exit_code == 0
    (tmp_path / "f4_silent.py").write_text(JUDGES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield tmp_path
    sys.modules.pop("f4_silent", None)


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "demo_pairs.jsonl", "--judge", "python:f4_silent:pair"],
        ["score", "score_answers.jsonl", "--judge", "python:f4_silent:one"],
    ],
)
def test_under_json_the_line_points_at_the_json(here: Path, args: list[str]) -> None:
    done = invoke(*args, "--json")
    assert done.exit_code == 4
    assert json.loads(done.stdout)["failures"]
    line = " ".join(done.stderr.split())
    assert WHERE in line
    assert "above" not in line


def test_without_json_the_reasons_are_above(here: Path) -> None:
    done = invoke("compare", "demo_pairs.jsonl", "--judge", "python:f4_silent:pair")
    assert done.exit_code == 4
    assert "the reasons, most common first" in " ".join(done.stdout.split())
    assert " ".join(done.stderr.split()).endswith("the reasons are listed above")


def test_via_scores_points_at_its_own_part(here: Path) -> None:
    """``compare --via-scores --json`` keeps its reasons under ``via_scores.failures``."""
    done = invoke(
        "compare", "calibration.jsonl", "--via-scores", "--judge", "python:f4_silent:one", "--json"
    )
    assert done.exit_code == 4
    assert json.loads(done.stdout)["via_scores"]["failures"]
    line = " ".join(done.stderr.split())
    assert 'the reasons are under "via_scores.failures" in the --json output' in line
    assert "above" not in line
