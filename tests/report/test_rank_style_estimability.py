"""``rank --style-control`` when length alone explains the verdicts: ``n/a``, everywhere.

A judge that always prefers the longer answer leaves nothing to estimate at equal
style: the length coefficient runs off, and each rating is wherever Newton stopped.
Before, the terminal printed those stopping points as ratings ("delta 867.9") beside
"cannot be estimated", ``--json`` gave them as numbers, and the page, which showed
"not estimated", disagreed with both. Now a rating that cannot be estimated is
``n/a`` with its reason in the terminal, ``null`` with a ``reason`` in ``--json`` (and
in the JSON the page embeds), and "not estimated" with the same reason on the page.
The commands run as processes, as a user runs them.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from tests.cli_process import fairjudge, flat
from tests.out_file import out_header

RANK = (
    "rank", "examples/rank_answers.jsonl", "--judge", "python:examples.judges:longer",
    "--style-control", "--bootstrap", "100",
)  # fmt: skip
SEPARATED = (
    "the verdicts are (almost) perfectly separated by length: the judge's preference is "
    "explained by style alone, so ratings at equal style are not identified"
)
MODELS = ("alpha", "beta", "delta", "gamma")  # alpha, the anchor, then by name
_SUMMARY = r'<script type="application/json" id="fj-summary">(.*?)</script>'
_ROW_TITLE = re.compile(r'<g class="fj-prow[^"]*">\s*<title>(.*?)</title>', re.S)
# A figure printed with one decimal, as a rating is: "867.9", "-4205.3".
_RATING_NUMBER = re.compile(r"-?\d+\.\d\b")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The table run (with --html and --out) and the --json run, once."""
    tmp = tmp_path_factory.mktemp("rank-style")
    page, out = tmp / "rank.html", tmp / "rank.jsonl"
    table = fairjudge(*RANK, "--html", page, "--out", out)
    assert table.returncode == 0, table.stderr
    as_json = fairjudge(*RANK, "--json", "-q")
    assert as_json.returncode == 0, as_json.stderr
    return {"table": table.stdout, "json": json.loads(as_json.stdout), "page": page, "out": out}


def _style_rows(stdout: str) -> dict[str, str]:
    """The style-controlled leaderboard's rows, by model, as printed."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Style-controlled"))
    header = next(i for i in range(start, len(lines)) if lines[i].split()[:2] == ["rank", "model"])
    rows = {}
    for line in lines[header + 1 :]:
        cells = line.split()
        if len(cells) < 3 or cells[1] not in MODELS:
            break
        rows[cells[1]] = line
    return rows


def test_the_terminal_says_n_a_with_the_reason(runs: dict[str, Any]) -> None:
    rows = _style_rows(runs["table"])
    assert list(rows) == list(MODELS)
    # The anchor is pinned: its 1000 is the reference, not a finding; its rank is not known.
    pinned = ["n/a", "alpha", "1000.0", "[", "1000.0,", "1000.0]", "n/a", "48"]
    assert rows["alpha"].split() == pinned
    for model in MODELS[1:]:
        assert rows[model].split() == ["n/a", model, "n/a", "n/a", "n/a", "48"]
    text = flat(runs["table"])
    assert f"beta, delta, gamma: rating and interval cannot be estimated: {SEPARATED}" in text
    assert f"style coefficient of length cannot be estimated: {SEPARATED}" in text


def test_the_json_gives_null_and_the_reason(runs: dict[str, Any]) -> None:
    styled = runs["json"]["style_control"]
    assert styled["reason"] == SEPARATED
    rows = {r["model"]: r for r in styled["ratings"]}
    assert [r["model"] for r in styled["ratings"]] == list(MODELS)
    assert rows["alpha"]["rating"] == 1000.0
    assert rows["alpha"]["estimable"] is True
    assert rows["alpha"]["rank"] is None
    for model in MODELS[1:]:
        row = rows[model]
        assert (row["rating"], row["rank"], row["estimable"]) == (None, None, False)
        assert row["reason"] == SEPARATED
        assert row["ci"]["reason"] == SEPARATED
        assert row["rank_ci"]["reason"] == SEPARATED
    # The plain leaderboard is estimable and says so.
    plain = runs["json"]["ratings"]
    assert all(r["estimable"] and r["reason"] is None for r in plain)
    assert all(isinstance(r["rating"], float) and isinstance(r["rank"], int) for r in plain)


def test_the_page_says_what_the_terminal_and_the_json_say(runs: dict[str, Any]) -> None:
    text = runs["page"].read_text("utf-8")
    embedded = re.search(_SUMMARY, text, re.S)
    assert embedded is not None
    assert json.loads(embedded.group(1)) == runs["json"]
    titles = [html.unescape(t) for t in _ROW_TITLE.findall(text)]
    styled = titles[-len(MODELS) :]  # the second plot: the style-controlled ratings
    assert styled[0] == "alpha: 1000.0  [1000.0, 1000.0]"
    assert styled[1:] == [f"{m}: not estimated: {SEPARATED}" for m in MODELS[1:]]
    # No stopping point of the fit is drawn or written anywhere on the page's style plot.
    style_plot = text[text.index('id="fj-figures-2-title"') :].split("</svg>")[0]
    shown = re.sub(r"<[^>]+>", " ", style_plot)
    assert {n for n in _RATING_NUMBER.findall(shown)} <= {"1000.0"}
    # The style coefficients, as the terminal prints them.
    coefficients_list = (
        r'<p>Style coefficients:</p></div>\s*<ul class="fj-block fj-lines">(.*?)</ul>'
    )
    listed = re.search(coefficients_list, text, re.S)
    assert listed is not None
    coefficients = [html.unescape(li) for li in re.findall(r"<li>(.*?)</li>", listed.group(1))]
    assert coefficients == [
        f"style coefficient of length cannot be estimated: {SEPARATED}",
        *(f"style coefficient of {name} cannot be estimated: constant in the data"
          for name in ("headers", "lists", "bold")),
    ]  # fmt: skip
    for line in coefficients:
        assert line in flat(runs["table"])


def test_out_holds_the_judgments_the_ranking_was_fitted_on(runs: dict[str, Any]) -> None:
    # --out keeps the battles, not the ratings: read back, they give the same plain
    # leaderboard the --json run printed (style control needs the answers, not kept).
    again = fairjudge("rank", runs["out"], "--json", "-q", "--bootstrap", "100")
    assert again.returncode == 0, again.stderr
    back = json.loads(again.stdout)
    assert [r["rating"] for r in back["ratings"]] == pytest.approx(
        [r["rating"] for r in runs["json"]["ratings"]]
    )
    assert out_header(runs["out"])["settings"]["style_control"] is True
