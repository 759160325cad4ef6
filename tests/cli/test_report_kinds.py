"""``fairjudge report FILE``: the header's kind picks the page.

A ``compare`` file still draws the comparison report (tests/report/test_html.py); a
``score`` file draws the score page; a ``compare --via-scores`` file its own page.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
SCORER = "python:fairjudge.examples.judges:scorer"
runner = CliRunner()


def _score_out(tmp_path: Path) -> Path:
    out = tmp_path / "score.jsonl"
    done = runner.invoke(app, ["score", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER,
                               "--out", str(out), "-q"])  # fmt: skip
    assert done.exit_code == 0, done.output
    return out


def test_a_compare_via_scores_file_is_drawn_as_its_own_kind(tmp_path: Path) -> None:
    out = tmp_path / "via.jsonl"
    live = runner.invoke(app, ["compare", str(EXAMPLES / "demo_pairs.jsonl"), "--via-scores",
                               "--judge", SCORER, "--out", str(out), "--json"])  # fmt: skip
    assert live.exit_code == 0, live.output
    assert json.loads(out.read_text("utf-8").split("\n")[0])["fairjudge"]["kind"] == (
        "compare-via-scores"
    )
    page = tmp_path / "page.html"
    done = runner.invoke(app, ["report", str(out), "-o", str(page), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["via_scores"] == json.loads(live.stdout)["via_scores"]
    assert 'data-kind="compare-via-scores"' in page.read_text("utf-8")


def test_report_draws_a_score_file_with_scores_own_figures(tmp_path: Path) -> None:
    out = tmp_path / "score.jsonl"
    live = runner.invoke(app, ["score", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER,
                               "--out", str(out), "--json"])  # fmt: skip
    assert live.exit_code == 0, live.output
    page = tmp_path / "page.html"
    again = runner.invoke(app, ["report", str(out), "-o", str(page), "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == json.loads(live.stdout)
    assert 'data-kind="score"' in page.read_text("utf-8")


def test_score_html_is_checked_before_any_call(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    args = ["score", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER, "--out", str(out)]
    done = runner.invoke(app, [*args, "--html", str(tmp_path)])  # a folder
    assert done.exit_code == 2
    assert "--html" in done.output
    done = runner.invoke(app, [*args, "--html", str(out)])
    assert done.exit_code == 2
    assert f"--out and --html both name {out}" in " ".join(done.output.split())
    assert not out.exists()


CUSTOM = """name = "tone"
version = "3"
scale = [0, 3]
[[dimensions]]
name = "politeness"
description = "Is it polite?"
"""


def polite(question: str, answer: str) -> dict[str, int]:
    """A scorer for the custom rubric: the answer's length, cut to the scale."""
    return {"politeness": min(len(answer) // 10, 3)}


def test_a_score_file_under_a_rubric_file_is_drawn_with_that_rubric(tmp_path: Path) -> None:
    rubric = tmp_path / "tone.toml"
    rubric.write_text(CUSTOM, "utf-8")
    out = tmp_path / "score.jsonl"
    live = runner.invoke(app, ["score", str(EXAMPLES / "score_answers.jsonl"), "--rubric",
                               str(rubric), "--judge", "python:tests.cli.test_report_kinds:polite",
                               "--out", str(out), "--json"])  # fmt: skip
    assert live.exit_code == 0, live.output
    again = runner.invoke(app, ["report", str(out), "-o", str(tmp_path / "p.html"), "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == json.loads(live.stdout)
    assert list(json.loads(again.stdout)["dimensions"][0]["histogram"]) == ["0", "1", "2", "3"]


def _rewritten(out: Path, header: dict[str, object] | None = None, line: str | None = None) -> None:
    lines = out.read_text("utf-8").splitlines()
    if header is not None:
        first = json.loads(lines[0])
        first["fairjudge"]["settings"].update(header)
        lines[0] = json.dumps(first)
    if line is not None:
        lines[2] = line
    out.write_text("\n".join(lines) + "\n", "utf-8")


@pytest.mark.parametrize(
    ("header", "line", "message"),
    [
        ({"scale": [1, 10**9]}, None, "its rubric cannot be rebuilt"),
        ({"dimensions": ["<script>"]}, None, "its rubric cannot be rebuilt"),
        (None, '{"answer": "a", "question": "q", "calls": [{"failure": "nope"}]}',
         "score.jsonl:3: not a record of `fairjudge score --out` (unknown failure"),
        (None, '{"answer": "a", "question": "q", "calls": [{"payload": {"scores": {"a": 1.5}}}]}',
         "scores must be whole numbers"),
    ],
)  # fmt: skip
def test_a_malformed_score_file_is_refused_naming_what_is_wrong(
    tmp_path: Path, header: dict[str, object] | None, line: str | None, message: str
) -> None:
    out = _score_out(tmp_path)
    _rewritten(out, header, line)
    page = tmp_path / "page.html"
    done = runner.invoke(app, ["report", str(out), "-o", str(page)])
    assert done.exit_code == 2, done.output
    assert message in " ".join(done.output.split())
    assert not page.exists()
