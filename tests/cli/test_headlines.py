"""Every printed figure and headline tells the truth.

Each test runs ``fairjudge`` as a process, as a user would, and reads its exit code,
stdout and stderr.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from tests.cli_process import run_process

ROOT = Path(__file__).resolve().parents[2]
MARKED = "python:tests.cli.display_judges:marked"
SLOW = "python:tests.cli.display_judges:slow"

# Verdicts and lengths whose length-controlled fit is separated in most resamples:
# its interval cannot be estimated, though the point fit is finite.
_SEPARATED = [
    ("1", 100, 10), ("1", 120, 12), ("1", 90, 15), ("2", 10, 100), ("2", 12, 120),
    ("2", 15, 90), ("2", 11, 95), ("2", 13, 110), ("tie", 50, 50), ("1", 20, 100),
]  # fmt: skip


def fairjudge(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Any:
    """``fairjudge ARGS`` as a process, 80 columns wide, as when piped."""
    full_env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    full_env.pop("FORCE_COLOR", None)
    full_env.update(env or {})
    # A process of its own, forked from one that has imported the library.
    return run_process(args, env=full_env, cwd=cwd or ROOT, timeout=240, program="fairjudge")


def _answer(wins: bool, length: int) -> str:
    text = ("yes " if wins else "no ") + "x" * length
    return text[:length] if length >= 4 else text


def separated_rows(path: Path) -> Path:
    rows = []
    for i, (outcome, len1, len2) in enumerate(_SEPARATED):
        rows.append(
            {
                "id": f"q{i}",
                "question": f"Question {i}?",
                "answer_1": _answer(outcome == "1", len1),
                "answer_2": _answer(outcome == "2", len2),
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def flat(text: str) -> str:
    return " ".join(text.split())


# -- item 7: a figure that cannot be estimated shows no number --------------------------


def test_a_length_control_that_cannot_be_estimated_prints_no_number(tmp_path: Path) -> None:
    data = separated_rows(tmp_path / "sep.jsonl")
    done = fairjudge("compare", str(data), "--judge", MARKED)
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "length-controlled" in line)
    assert "not estimated:" in row
    assert re.search(r"\d\.\d{3}", row) is None, row  # no 0.709 beside the reason
    assert "cannot be estimated" not in done.stdout
    assert "separated" in flat(done.stdout)


def test_the_json_carries_a_null_estimate_and_the_reason(tmp_path: Path) -> None:
    data = separated_rows(tmp_path / "sep.jsonl")
    done = fairjudge("compare", str(data), "--judge", MARKED, "--json")
    assert done.returncode == 0, done.stderr
    lc = json.loads(done.stdout)["length_controlled_win_rate"]
    assert lc["estimate"] is None
    assert lc["ci"]["estimable"] is False
    assert lc["ci"]["low"] is None
    assert lc["reason"] == lc["ci"]["reason"]
    assert "separated" in lc["reason"]
    assert lc["raw_win_rate"] == 0.45  # the figures that can be estimated stay


def test_the_html_draws_no_point_for_a_figure_without_an_interval(tmp_path: Path) -> None:
    data = separated_rows(tmp_path / "sep.jsonl")
    page = tmp_path / "sep.html"
    done = fairjudge("compare", str(data), "--judge", MARKED, "--html", str(page))
    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    rows = re.findall(r'<g class="fj-prow[^"]*">(.*?)</g>', html, re.S)
    lc = next(r for r in rows if "Length-controlled" in r)
    assert "<circle" not in lc
    assert "not estimated: " in lc
    assert re.search(r"0\.7\d\d", lc) is None
    table_row = re.search(r"<th scope=\"row\">Length-controlled</th><td>([^<]*)</td>", html)
    assert table_row is not None
    assert table_row.group(1).startswith("not estimated: ")


# -- item 10: every headline says what it is ----------------------------------------------

DEMO = str(ROOT / "examples" / "demo_pairs.jsonl")
KNOWS = "python:examples.judges:knows_facts"


def test_a_budget_stop_before_any_item_is_labelled_for_what_happened(
    tmp_path: Path,
    openai_env: Any,
) -> None:
    rows = [
        {"id": str(i), "question": f"Q{i}?", "answer_1": "yes a", "answer_2": "no b"}
        for i in range(3)
    ]
    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = fairjudge(
        "compare", str(data), "--judge", "openai/m", "--base-url", openai_env.base_url,
        "--store", str(tmp_path / "s.sqlite"), "--max-calls", "1",
        env={"OPENAI_API_KEY": openai_env.api_key, "COLUMNS": "200"},
    )  # fmt: skip
    assert done.returncode == 5, done.stderr  # a partial result
    out = flat(done.stdout)
    assert "NOT debiased" not in out  # both orders were asked for
    assert "both orders asked, none resolved" in out
    assert "see the failures above" not in out  # there were none
    assert "No conclusion: the run stopped before any item was resolved." in out
    assert "fairjudge: done:" not in done.stderr
    assert "fairjudge: stopped early: 1/6 calls" in done.stderr


def test_jury_prints_a_conclusion_and_the_known_truth() -> None:
    done = fairjudge("jury", DEMO, "--judge", KNOWS, "--judge", KNOWS, "--bootstrap", "200")
    assert done.returncode == 0, done.stderr
    out = flat(done.stdout)
    assert "Model 2 is better by the panel: the whole interval lies below 0.5." in out
    assert "Known truth, from the input's human labels: model 2 is better" in out
    assert "The panel's result found it." in out


def test_compare_via_scores_prints_a_conclusion() -> None:
    done = fairjudge(
        "compare", DEMO, "--via-scores", "--judge", "python:examples.judges:scorer",
        "--bootstrap", "200",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = flat(done.stdout)
    assert re.search(r"(Model [12] is better|No clear winner|No conclusion) by scores", out), out
    assert "Known truth, from the input's human labels: model 2 is better" in out


# -- item 17: the rank headline leads with the top model and the rank intervals -----------


def test_the_rank_headline_is_the_top_model_and_the_rank_intervals(tmp_path: Path) -> None:
    page = tmp_path / "rank.html"
    done = fairjudge(
        "rank", str(ROOT / "examples" / "rank_answers.jsonl"), "--judge",
        "python:examples.judges:longer", "--bootstrap", "100", "--html", str(page),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = flat(done.stdout)
    assert "No clear leader: alpha has the highest rating, but its rank interval is 1-2." in out
    assert "rank intervals (95%): alpha 1-2, beta 1-3, gamma 2-3, delta 4-4" in out
    html = page.read_text(encoding="utf-8")
    assert '<strong id="fj-headline-estimate">alpha</strong>' in html
    head = re.search(r'<section id="fj-headline".*?</section>', html, re.S)
    assert head is not None
    assert "1000.0" not in head.group(0)  # the pinned anchor's rating is no finding
    assert "alpha 1-2, beta 1-3, gamma 2-3, delta 4-4" in head.group(0)
