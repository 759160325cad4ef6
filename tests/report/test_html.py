"""The HTML report without a browser: escaping, the policy, the figures, the CLI."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from fairjudge.report._page import script_json
from fairjudge.report._page_plots import Figure, forest_plot
from tests.report._data import HOSTILE, hostile_rows, write_rows

runner = CliRunner()
MIXED = "python:tests.report.judges:mixed"
LONGER = "python:examples.judges:longer"
DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo_pairs.jsonl"


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout if "--json" in args else result.output


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path, dict[str, object]]:
    """The hostile items compared: (the --out file, the HTML, compare's JSON)."""
    items = write_rows(tmp_path / "hostile.jsonl", hostile_rows())
    out, html = tmp_path / "out.jsonl", tmp_path / "report.html"
    code, stdout = invoke(
        "compare", str(items), "--judge", MIXED, "--out", str(out), "--html", str(html), "--json"
    )
    assert code == 0, stdout
    return out, html, json.loads(stdout)


def test_script_json_cannot_close_its_element() -> None:
    value = {"a": "</script><script>alert(1)</script>", "b": "<!-- \u2028 \u2029 &amp;"}
    text = script_json(value)
    for unsafe in ("<", ">", "&", "\u2028", "\u2029"):
        assert unsafe not in text
    assert json.loads(text) == value
    assert script_json({"x": math.nan, "y": [math.inf]}) == '{"x":null,"y":[null]}'
    assert script_json({"a": [1, "b, c: d"]}) == '{"a":[1,"b, c: d"]}'  # no space to spare


def test_page_forbids_every_load_and_runs_only_its_script(hostile) -> None:  # type: ignore[no-untyped-def]
    _, html_path, _ = hostile
    html = html_path.read_text("utf-8")
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert policy is not None
    content = unescape(policy.group(1))  # autoescaped: ' is &#39; in the attribute
    directives = dict(d.strip().split(" ", 1) for d in content.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data:"
    assert directives["style-src"] == "'unsafe-inline'"
    # exactly four script elements: three JSON blocks and the one script the policy names
    tags = re.findall(r"<script[^>]*>", html)
    assert tags == [
        '<script type="application/json" id="fj-summary">',
        '<script type="application/json" id="fj-explorer-spec">',
        '<script type="application/json" id="fj-records">',
        "<script>",
    ]
    script = html.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert directives["script-src"] == f"'sha256-{digest}'"
    # no address to load anything from: the SVG namespace is a name, never fetched
    urls = set(re.findall(r"(?:https?:)?//[\w.-]+[^\s\"'<>]*", html))
    assert urls == {"http://www.w3.org/2000/svg"}


def test_hostile_text_is_escaped_everywhere(hostile) -> None:  # type: ignore[no-untyped-def]
    _, html_path, _ = hostile
    html = html_path.read_text("utf-8")
    for text in HOSTILE:
        assert text not in html  # never raw: escaped in markup, \u003c in the JSON
    assert "window.pwned" in html  # the text is there, as data
    assert "<i>hostile</i>" not in html
    # the failure reasons (a raised message holding markup) reach the page escaped
    assert "RuntimeError: &lt;img src=x onerror=" in html


def test_headline_and_embedded_summary_are_compares_json(hostile) -> None:  # type: ignore[no-untyped-def]
    _, html_path, summary = hostile
    html = html_path.read_text("utf-8")
    embedded = html.split('id="fj-summary">', 1)[1].split("</script>", 1)[0]
    assert json.loads(embedded) == summary
    w = summary["win_rate"]
    assert isinstance(w, dict)
    assert f'<strong id="fj-headline-estimate">{w["estimate"]:.3f}</strong>' in html
    ci = f"[{w['ci']['low']:.3f}, {w['ci']['high']:.3f}]"
    assert f'<span id="fj-headline-ci">{ci}</span>' in html


def test_report_command_reproduces_compare(hostile, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out, _, summary = hostile
    page = tmp_path / "again.html"
    code, stdout = invoke("report", str(out), "-o", str(page), "--json")
    assert code == 0, stdout
    again = json.loads(stdout)
    for key in ("settings", "calls"):  # the judge and the source are not in the record
        summary.pop(key), again.pop(key)
    assert again == summary
    assert page.read_text("utf-8").count('id="fj-headline-estimate"') == 1


def test_report_on_the_demo_equals_compare(tmp_path: Path) -> None:
    out = tmp_path / "demo.jsonl"
    code, stdout = invoke("compare", str(DEMO), "--judge", LONGER, "--out", str(out), "--json")
    assert code == 0
    first = json.loads(stdout)
    code, stdout = invoke("report", str(out), "-o", str(tmp_path / "r.html"), "--json")
    assert code == 0
    second = json.loads(stdout)
    assert second["win_rate"] == first["win_rate"]
    assert second["single_order_win_rate"] == first["single_order_win_rate"]
    assert second["position_consistency"] == first["position_consistency"]
    assert second["known_truth"] == first["known_truth"]


def test_report_names_the_bad_line(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"id": "a"}\n', encoding="utf-8")
    code, out = invoke("report", str(results), "-o", str(tmp_path / "r.html"))
    assert code == 2
    assert f"{results}:1: not a result record" in out
    results.write_text("not json\n", encoding="utf-8")
    code, out = invoke("report", str(results), "-o", str(tmp_path / "r.html"))
    assert code == 2
    assert f"{results}:1:" in out
    code, out = invoke("report", str(results), "-o", str(results))
    assert code == 2
    assert "is the results file itself" in out
    assert not (tmp_path / "r.html").exists()


def test_html_flag_checked_before_any_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = tmp_path / "calls.txt"
    monkeypatch.setenv("FAIRJUDGE_TEST_CALLS", str(calls))
    items = write_rows(tmp_path / "items.jsonl", hostile_rows())
    counting = "python:tests.judge_fixtures:counting"
    code, out = invoke("compare", str(items), "--judge", counting, "--html", str(tmp_path))
    assert code == 2
    assert f"--html {tmp_path}: is a folder" in out
    same = str(tmp_path / "same.out")
    code, out = invoke("compare", str(items), "--judge", counting, "--out", same, "--html", same)
    assert code == 2
    assert "--out and --html both name" in out
    assert not calls.exists()


def test_forest_plot_draws_no_interval_it_cannot_estimate() -> None:
    plot = forest_plot(
        [
            Figure("estimable", 0.6, 0.5, 0.7, "0.600  [0.500, 0.700]"),
            Figure("one question", 0.5, None, None, "0.500  cannot be estimated", "one question"),
            Figure("nothing", None, None, None, "not estimated: too few", "too few"),
        ],
        title="t",
        domain=(0.0, 1.0),
        ref=0.5,
    )
    full, point_only, reason_only = plot.rows
    assert full.estimable
    assert (full.x_low, full.x, full.x_high) == (200.0, 236.8, 273.6)
    assert not point_only.estimable
    assert (point_only.x_low, point_only.x, point_only.x_high) == (None, 200.0, None)
    assert (reason_only.x, reason_only.text) == (None, "not estimated: too few")
    assert plot.ref_x == pytest.approx((plot.plot_start + plot.plot_end) / 2)


def test_rank_and_calibrate_write_html(tmp_path: Path) -> None:
    examples = DEMO.parent
    page = tmp_path / "rank.html"
    code, out = invoke(
        "rank", str(examples / "rank_answers.jsonl"), "--judge", LONGER, "--html", str(page)
    )
    assert code == 0, out
    assert 'id="fj-headline-estimate"' in page.read_text("utf-8")
    page = tmp_path / "calibrate.html"
    code, out = invoke(
        "calibrate", str(examples / "calibration.jsonl"), "--judge",
        "python:examples.judges:knows_facts", "--html", str(page),
    )  # fmt: skip
    assert code in (0, 3), out
    html = page.read_text("utf-8")
    assert "Calibration against human labels" in html
    assert '<p id="fj-gate" class="fj-gate">' in html
