"""What ``fairjudge report`` prints: JSON alone, and a via-scores run named as typed.

``report FILE --json`` prints the summary and writes no page (``report --json`` is
the run's ``--json``). A ``compare --via-scores`` file is shown as the command the
user typed, ``compare``, in the Markdown heading, the page's label and stderr.
"""

from __future__ import annotations

import json
from pathlib import Path

import fairjudge
from tests.cli._invoke import invoke

EX = Path(fairjudge.__file__).parent / "examples"
J = "python:fairjudge.examples.judges:"


def _via_scores_out(tmp_path: Path) -> tuple[Path, str]:
    out = tmp_path / "vs.jsonl"
    done = invoke("compare", str(EX / "calibration.jsonl"), "--via-scores", "--judge",
                  J + "scorer", "--out", str(out), "--markdown", "-", "-q")  # fmt: skip
    assert done.exit_code == 0, done.output
    return out, done.stdout


def test_json_alone_prints_the_summary_and_writes_no_page(tmp_path: Path) -> None:
    out, _ = _via_scores_out(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    done = invoke("report", str(out), "--json")
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert isinstance(summary, dict)
    assert summary
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_nothing_asked_names_every_output(tmp_path: Path) -> None:
    out, _ = _via_scores_out(tmp_path)
    done = invoke("report", str(out))
    assert done.exit_code == 2
    assert "--output FILE" in done.stderr
    assert "--markdown FILE" in done.stderr
    assert "--json" in done.stderr


def test_a_via_scores_file_is_named_as_the_compare_command(tmp_path: Path) -> None:
    out, run_markdown = _via_scores_out(tmp_path)
    page = tmp_path / "p.html"
    done = invoke("report", str(out), "--markdown", "-", "-o", str(page))
    assert done.exit_code == 0, done.output
    heading = done.stdout.splitlines()[0]
    assert heading.startswith("### fairjudge compare:"), heading
    assert heading == run_markdown.splitlines()[0]
    assert "compare-via-scores" not in done.stdout
    assert "(compare --via-scores run)" in done.stderr
    assert "compare-via-scores" not in done.stderr
    drawn = page.read_text("utf-8")
    assert '<p class="fj-kicker">fairjudge compare report (via scores)</p>' in drawn
    assert "· fairjudge compare</title>" in drawn


ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_say_what_report_draws_and_what_its_bootstrap_is() -> None:
    for name in ("README.md", "docs/config.md"):
        text = " ".join((ROOT / name).read_text("utf-8").split())
        assert "drawn as its calibration page" in text, name
        assert "leaderboard's bootstrap rounds, as `rank --bootstrap`" in text, name
