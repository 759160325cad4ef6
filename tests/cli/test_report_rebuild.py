"""``fairjudge report`` on a ``compare --out`` file rebuilds the ``--html`` page of that run.

The page names the same input file and the same models: the records carry the
items' model names and the header the run's source. Each test runs ``fairjudge``
as a process.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.cli.test_headlines import fairjudge
from tests.out_file import out_records
from tests.report.pages import records

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
LONGER = "python:fairjudge.examples.judges:longer"


def _embedded(page: Path, name: str) -> Any:
    html = page.read_text(encoding="utf-8")
    found = re.search(rf'<script type="application/json" id="{name}">(.*?)</script>', html, re.S)
    assert found is not None, name
    return json.loads(found.group(1))


def _names(page: Path) -> dict[str, Any]:
    """What the page says of the run: its title, headline note, source and models."""
    html = page.read_text(encoding="utf-8")
    items = [dict(r["d"][0]["rows"]) for r in records(page)]  # shared labels read back
    return {
        "title": re.findall(r"<title>(.*?)</title>", html)[0],
        "h1": re.findall(r"<h1[^>]*>(.*?)</h1>", html, re.S),
        "note": re.findall(r'<p class="fj-note">(.*?)</p>', html)[0],
        "source": _embedded(page, "fj-summary")["settings"]["source"],
        "models": [it.get("models") for it in items],  # the detail's "1: name, 2: name"
    }


def _card(page: Path) -> str:
    """The run-facts card's HTML."""
    html = page.read_text(encoding="utf-8")
    found = re.search(r'<section class="fj-card" id="fj-run".*?</section>', html, re.S)
    assert found is not None
    return found.group(0)


def test_report_on_compare_out_names_the_source_and_models_as_compare_html(
    tmp_path: Path,
) -> None:
    out, first = tmp_path / "results.jsonl", tmp_path / "compare.html"
    done = fairjudge("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", LONGER,
                     "--rule", "soft", "--out", str(out), "--html", str(first), "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    again = tmp_path / "report.html"
    done = fairjudge("report", str(out), "-o", str(again))
    assert done.returncode == 0, done.stderr

    want, got = _names(first), _names(again)
    assert want["title"].startswith("demo_pairs.jsonl: model 1 vs model 2")
    assert "model 1 is assistant-v1, model 2 is assistant-v2" in want["note"]
    assert want["source"].endswith("demo_pairs.jsonl")
    assert set(want["models"]) == {"1: assistant-v1, 2: assistant-v2"}
    assert got == want
    # The run-facts card is read from the header both times: the same command, judge, calls
    card = _card(first)
    assert card == _card(again)
    text = re.sub(r"<[^>]+>", "", card)  # the command row draws each argument in a box
    assert "fairjudge compare" in text
    assert f"--out {out}" in text
    html = again.read_text(encoding="utf-8")
    assert "results.jsonl" not in html.replace(card, "")  # named as the command's, only


def test_an_older_file_without_names_or_source_still_loads(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    done = fairjudge("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", LONGER,
                     "--out", str(out), "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    old = tmp_path / "old.jsonl"
    records = [{k: v for k, v in r.items() if k not in ("model_1", "model_2")}
               for r in out_records(out)]  # fmt: skip
    old.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    page = tmp_path / "page.html"
    done = fairjudge("report", str(old), "-o", str(page))
    assert done.returncode == 0, done.stderr
    names = _names(page)
    assert names["title"].startswith("old.jsonl: model 1 vs model 2")
    assert names["source"] == str(old)
    assert set(names["models"]) == {None}
