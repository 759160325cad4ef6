"""`compare --via-scores` carries the input's human labels and model names everywhere.

The terminal says the known truth beside the result via scores; the ``--json``
(``via_scores.known_truth``, as plain ``compare``'s ``known_truth``), the ``--out``
records (``human``, ``model_1``, ``model_2``, as compare's), and the page, live or
drawn again by ``fairjudge report``, say the same: its win-rate card the known truth,
its headline the systems by the input's names, its run card the input (``source``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from fairjudge.cli import app
from fairjudge.report import out_file_page
from fairjudge.report._page import Page, Paragraphs
from tests.out_file import out_header, out_records

runner = CliRunner()
LEADING = "python:tests.scorers:leading"
FOUND = "The result via scores found it."
OTHER_WAY = "The result via scores points the other way"


def _file(tmp_path: Path, human: str | None, names: bool = True) -> Path:
    """Twelve items that model 1 wins clearly by its scores (5 against 1)."""
    rows = []
    for i in range(12):
        row: dict[str, Any] = {"id": f"q{i}", "question": f"Question {i}?",
                               "answer_1": "5 first", "answer_2": "1 second"}  # fmt: skip
        if human is not None:
            row["human"] = human
        if names:
            row |= {"model_1": "alpha-v2", "model_2": "alpha-v1"}
        rows.append(row)
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(tmp_path: Path, pairs: Path) -> tuple[dict[str, Any], Path, Path, str]:
    out, html = tmp_path / "via.jsonl", tmp_path / "via.html"
    args = ["compare", str(pairs), "--via-scores", "--judge", LEADING, "--bootstrap", "300",
            "--out", str(out), "--html", str(html)]  # fmt: skip
    as_json = runner.invoke(app, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    table = runner.invoke(app, args)
    assert table.exit_code == 0, table.output
    return json.loads(as_json.stdout), out, html, " ".join(table.stdout.split())


def _page(out: Path) -> Page:
    return out_file_page(out, "compare-via-scores")


def _lines(page: Page) -> list[str]:
    return [line for s in page.sections for b in s.blocks if isinstance(b, Paragraphs)
            for line in b.lines]  # fmt: skip


def test_the_json_out_file_and_page_carry_the_known_truth_the_terminal_says(
    tmp_path: Path,
) -> None:
    pairs = _file(tmp_path, "1")
    data, out, html, terminal = _run(tmp_path, pairs)
    assert FOUND in terminal
    truth = data["via_scores"]["known_truth"]
    assert truth == {"n": 12, "human_win_rate": 1.0, "agrees": True}
    records = out_records(out, "compare-via-scores")
    assert {(r["human"], r["model_1"], r["model_2"]) for r in records} == {
        ("1", "alpha-v2", "alpha-v1")
    }
    assert out_header(out)["settings"]["source"] == str(pairs)
    page = _page(out)
    assert any(FOUND in line for line in _lines(page))
    assert any(line.startswith("Known truth, from the input's human labels: model 1 is better")
               for line in _lines(page))  # fmt: skip
    assert page.summary["via_scores"]["known_truth"] == truth
    assert dict(page.facts)["source"] == str(pairs)
    assert "model 1 is alpha-v2, model 2 is alpha-v1" in (page.headline.note or "")
    live = html.read_text("utf-8")
    assert FOUND in live
    assert "model 1 is alpha-v2, model 2 is alpha-v1" in live


def test_labels_that_disagree_say_so_everywhere(tmp_path: Path) -> None:
    data, out, _, terminal = _run(tmp_path, _file(tmp_path, "2"))
    assert OTHER_WAY in terminal
    assert data["via_scores"]["known_truth"] == {"n": 12, "human_win_rate": 0.0, "agrees": False}
    page = _page(out)
    assert any(line.startswith(OTHER_WAY) for line in _lines(page))
    assert page.summary["via_scores"]["known_truth"]["agrees"] is False


def test_without_labels_or_names_nothing_is_claimed(tmp_path: Path) -> None:
    data, out, html, terminal = _run(tmp_path, _file(tmp_path, None, names=False))
    assert "Known truth" not in terminal
    assert data["via_scores"]["known_truth"] is None
    records = out_records(out, "compare-via-scores")
    assert all(r["human"] is None for r in records)
    assert not any("model_1" in r or "model_2" in r for r in records)
    page = _page(out)
    assert not any("Known truth" in line for line in _lines(page))
    assert "model 1 is" not in (page.headline.note or "")
    assert "Known truth" not in html.read_text("utf-8")


def test_a_file_written_before_records_kept_labels_draws_without_a_truth(
    tmp_path: Path,
) -> None:
    _, out, _, _ = _run(tmp_path, _file(tmp_path, "1"))
    lines = out.read_text("utf-8").splitlines()
    old = [lines[0]]
    for line in lines[1:]:
        record = json.loads(line)
        for key in ("human", "model_1", "model_2"):
            del record[key]
        old.append(json.dumps(record))
    out.write_text("\n".join(old) + "\n", encoding="utf-8")
    page = _page(out)
    assert page.summary["via_scores"]["known_truth"] is None
    assert page.summary["via_scores"]["win_rate"]["wins"] == 12
