"""``--markdown FILE`` on every command, run as a user runs it: a process, offline judges.

The summary's bold line is the terminal's conclusion line, word for word; its verdict
counts are the ``--json`` numbers; parse failures and call errors are counted apart
from ties; a hostile model name stays plain text in one cell.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli_process import fairjudge
from tests.report._markdown_read import counts, read

EX = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
J = "python:fairjudge.examples.judges"
HOSTILE = "a|b <script>alert(1)</script> `x` $1$ http://evil.example"

COMMANDS: dict[str, list[str]] = {
    "compare": ["compare", str(EX / "demo_pairs.jsonl"), "--judge", f"{J}:longer"],
    "rank": ["rank", str(EX / "battles.jsonl")],
    "calibrate": ["calibrate", str(EX / "calibration.jsonl"), "--judge", f"{J}:knows_facts"],
    "score": ["score", str(EX / "score_answers.jsonl"), "--judge", f"{J}:scorer"],
    "jury": ["jury", str(EX / "demo_pairs.jsonl"), "--judge", f"{J}:knows_facts",
             "--judge", f"{J}:longer", "--judge", f"{J}:first_position"],
    "score-jury": ["score-jury", str(EX / "score_answers.jsonl"), "--judge", f"{J}:scorer",
                   "--judge", f"{J}:length_scorer"],
}  # fmt: skip

_KEYS = {
    "items": "n_items", "battles": "n_battles", "unresolved": "n_unresolved",
    "unresolved pairs": "n_unresolved_pairs", "unscored": "n_unscored",
    "parse failures": "n_parse_failures", "call errors": "n_call_errors", "not run": "n_not_run",
}  # fmt: skip


def _run(*args: str) -> Any:
    # Wide enough that no conclusion line wraps: each is compared as one whole line.
    return fairjudge(*args, columns=1000)


def _expected(command: str, payload: dict[str, Any], label: str) -> Any:
    """What ``--json`` says for one of the summary's count columns."""
    if label in ("wins", "ties", "losses"):
        return payload["win_rate"][label]
    if label == "calls without a reading (parse failures and call errors)":
        return sum(m["failed"] for m in payload["members"])
    if label.endswith("(all members)"):
        key = _KEYS[label.removesuffix(" (all members)")]
        return sum(m["summary"][key] for m in payload["members"])
    return payload[_KEYS[label]]


def _page_verdict(page: Path) -> str:
    found = re.search(r'<p id="fj-verdict"[^>]*>(.*?)</p>', page.read_text("utf-8"), re.S)
    assert found is not None
    return html.unescape(found.group(1))


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_summary_says_what_the_terminal_and_the_json_say(command: str, tmp_path: Path) -> None:
    shown, saved, page = tmp_path / "shown.md", tmp_path / "saved.md", tmp_path / "page.html"
    terminal = _run(*COMMANDS[command], "--markdown", str(shown), "--html", str(page))
    assert terminal.returncode == 0, terminal.stderr
    assert f"Markdown summary: {shown}" in terminal.stderr
    md = shown.read_text("utf-8")
    seen = read(md)
    assert len(seen.bold) == 1
    lines = [line.strip() for line in terminal.stdout.splitlines()]
    headline = seen.bold[0]
    if command in ("score", "score-jury"):
        # Their terminals print no such sentence (score: tables only; score-jury: one
        # line per dimension), so the page's headline is the run's one conclusion.
        assert headline == _page_verdict(page)
    else:  # calibrate's conclusion is its gate's line; every other command's its verdict
        assert headline in lines, (headline, terminal.stdout)
    if command not in ("calibrate", "score", "score-jury"):
        assert headline == _page_verdict(page)  # the terminal's line is the page's too
    assert md.startswith(f"### fairjudge {command}: ")
    assert not seen.token_types & {"link_open", "image", "html_inline", "html_block"}

    as_json = _run(*COMMANDS[command], "--json", "--markdown", str(saved))
    assert as_json.returncode == 0, as_json.stderr
    payload = json.loads(as_json.stdout)
    assert saved.read_text("utf-8") == md  # the same summary, with --json or without
    table = counts(md)
    assert table, md
    if command != "calibrate":  # calibrate's --json counts only the unresolved items
        for label, value in table.items():
            assert value == str(_expected(command, payload, label)), label
    else:
        assert table["items"] == str(payload["n_items"])
        assert table["unresolved"] == str(payload["n_unresolved"])


def _hostile_pairs(path: Path) -> Path:
    rows = [
        {"id": f"q{i}", "question": f"Question {i}{marker}?", "answer_1": "short",
         "answer_2": "a longer answer", "model_1": HOSTILE, "model_2": "plain"}
        for i, marker in enumerate(["", "", "", " [parse]", " [parse]", " [error]", "", ""])
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_parse_failures_and_call_errors_are_counted_apart_from_ties(tmp_path: Path) -> None:
    pairs = _hostile_pairs(tmp_path / "pairs.jsonl")
    args = ["compare", str(pairs), "--judge", "python:tests.report.judges:mixed",
            "--max-unresolved", "1"]  # fmt: skip
    result = _run(*args, "--json", "--markdown", str(tmp_path / "s.md"))
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    md = (tmp_path / "s.md").read_text("utf-8")
    table = counts(md)
    # Two items' replies had no verdict and one item's calls failed, in both orders.
    assert payload["n_parse_failures"] == 4
    assert payload["n_call_errors"] == 2
    assert table["parse failures"] == "4"
    assert table["call errors"] == "2"
    assert table["ties"] == str(payload["win_rate"]["ties"])
    assert table["unresolved"] == "3"
    # The hostile model name is shown whole, as text, in the headline's note.
    seen = read(md)
    assert any(f"model 1 is {HOSTILE}" in p for p in seen.paragraphs), md
    assert "<script>" not in md
    assert not seen.token_types & {"link_open", "html_inline", "html_block", "code_inline"}


def test_a_hostile_model_name_is_one_cell_of_the_leaderboard(tmp_path: Path) -> None:
    battles = tmp_path / "battles.jsonl"
    text = (EX / "battles.jsonl").read_text("utf-8").replace('"beta"', json.dumps(HOSTILE))
    battles.write_text(text, "utf-8")
    result = _run("rank", str(battles), "--markdown", str(tmp_path / "r.md"))
    assert result.returncode == 0, result.stderr
    board = read((tmp_path / "r.md").read_text("utf-8")).tables[1]
    assert board[0] == ["model", "rating [CI]", "rank and W/T/L"]
    assert HOSTILE in [row[0] for row in board[1:]]
    assert all(len(row) == 3 for row in board)


def test_rank_style_control_summary_has_the_style_table_with_its_n_a_rows(
    tmp_path: Path,
) -> None:
    # Every verdict follows length: no style-controlled rating but the anchor's can be
    # estimated, and the summary says so row by row, as the terminal and --json do.
    result = _run(
        "rank", str(EX / "rank_answers.jsonl"), "--judge", f"{J}:longer", "--style-control",
        "--bootstrap", "50", "--markdown", str(tmp_path / "r.md"), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    tables = read((tmp_path / "r.md").read_text("utf-8")).tables
    styled = tables[2]
    assert styled[0] == ["model", "rating [CI]", "rank and W/T/L"]
    rows = {row[0]: row[1] for row in styled[1:]}
    ratings = json.loads(result.stdout)["style_control"]["ratings"]
    assert set(rows) == {r["model"] for r in ratings}
    for r in ratings:
        assert (r["rating"] is None) == rows[r["model"]].startswith("not estimated: ")
    assert any(
        row[0].startswith("style coefficient of length cannot be estimated")
        for row in tables[3][1:]
    )


def test_a_dash_prints_the_summary_alone_on_stdout(tmp_path: Path) -> None:
    saved = tmp_path / "s.md"
    _run(*COMMANDS["compare"], "--markdown", str(saved))
    result = _run(*COMMANDS["compare"], "--markdown", "-")
    assert result.returncode == 0, result.stderr
    assert result.stdout == saved.read_text("utf-8")


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--markdown", "-", "--json"], "--markdown - and --json"),
        (["--markdown", "{tmp}/x.jsonl", "--out", "{tmp}/x.jsonl"], "also given to --out"),
        (["--markdown", "{tmp}/x.html", "--html", "{tmp}/x.html"], "also given to --html"),
        (["--markdown", str(EX / "demo_pairs.jsonl")], "is the input file"),
    ],
)
def test_a_markdown_file_that_must_not_be_written_is_refused_first(
    extra: list[str], named: str, tmp_path: Path
) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    result = _run(*COMMANDS["compare"], *args)
    assert result.returncode == 2
    assert named in result.stdout + result.stderr
    assert "calls" not in result.stderr  # refused before any judge call


def test_a_comparison_via_scores_says_its_verdict_line_and_json_counts(tmp_path: Path) -> None:
    args = ["compare", str(EX / "calibration.jsonl"), "--via-scores", "--judge", f"{J}:scorer"]
    terminal = _run(*args, "--markdown", str(tmp_path / "v.md"))
    assert terminal.returncode == 0, terminal.stderr
    md = (tmp_path / "v.md").read_text("utf-8")
    seen = read(md)
    assert seen.bold[0] in [line.strip() for line in terminal.stdout.splitlines()]
    assert seen.bold[0] == "No clear winner by scores: the interval contains 0.5."
    as_json = _run(*args, "--json", "--markdown", str(tmp_path / "j.md"))
    via = json.loads(as_json.stdout)["via_scores"]
    assert (tmp_path / "j.md").read_text("utf-8") == md
    table = counts(md)
    assert {k: table[k] for k in ("wins", "ties", "losses")} == {
        k: str(via["win_rate"][k]) for k in ("wins", "ties", "losses")
    }
    for label in ("items", "unresolved", "parse failures", "call errors"):
        assert table[label] == str(via[_KEYS[label]])
    dims = [row[1] for row in seen.tables[2][1:]]
    assert dims == [d["dimension"] for d in via["dimensions"]]


def test_calibrates_reports_are_tables_one_line_a_row(tmp_path: Path) -> None:
    """The agreement report (its confusion matrix among its lines) is not one long cell."""
    result = _run(*COMMANDS["calibrate"], "--markdown", "-")
    assert result.returncode == 0, result.stderr
    tables = read(result.stdout).tables
    agreement = next(t for t in tables if t[0][0].startswith("Judge-human agreement on 24"))
    rows = [row[0] for row in agreement[1:]]
    assert rows[0].startswith("S1 (with ties) 0.875 [0.750, 1.000]")
    assert any(row.startswith("Cohen's kappa 0.778") for row in rows)
    assert all(len(row) < 80 for row in rows)  # one line a row: S2 with its Wilson note is 61
    position = next(t for t in tables if t[0][0].startswith("Position bias over 24"))
    assert position[1][0].startswith("consistency 1.000")


def test_a_panels_effective_number_is_named_above_its_table() -> None:
    """Its rows are named by dimension, so only the caption says what the figure is."""
    result = _run(*COMMANDS["score-jury"], "--markdown", "-")
    assert result.returncode == 0, result.stderr
    paragraphs = read(result.stdout).paragraphs
    assert any(p.startswith("Effective number of independent judges, against the panel's 2")
               for p in paragraphs), paragraphs  # fmt: skip


def test_calibrate_on_human_scores_refuses_the_flag_by_name(tmp_path: Path) -> None:
    scored = tmp_path / "scored.jsonl"
    rows = [json.loads(line) for line in (EX / "score_answers.jsonl").read_text().splitlines()]
    scored.write_text("".join(json.dumps({**r, "human_accuracy": 3}) + "\n" for r in rows))
    result = _run("calibrate", str(scored), "--judge", f"{J}:scorer",
                  "--markdown", str(tmp_path / "c.md"))  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--markdown does not draw calibrate on human scores" in result.stderr
    assert "calls" not in result.stderr
    assert not (tmp_path / "c.md").exists()


@pytest.mark.parametrize("command", ["compare", "score", "jury"])
def test_report_of_a_saved_run_gives_the_runs_summary(command: str, tmp_path: Path) -> None:
    out, live, again = tmp_path / "out.jsonl", tmp_path / "live.md", tmp_path / "again.md"
    run = _run(*COMMANDS[command], "--out", str(out), "--markdown", str(live))
    assert run.returncode == 0, run.stderr
    result = _run("report", str(out), "-o", str(tmp_path / "page.html"), "--markdown", str(again))
    assert result.returncode == 0, result.stderr
    assert read(again.read_text("utf-8")).bold == read(live.read_text("utf-8")).bold
    assert counts(again.read_text("utf-8")) == counts(live.read_text("utf-8"))


def test_report_writes_the_summary_alone_without_an_html_page(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    assert _run(*COMMANDS["compare"], "--out", str(out)).returncode == 0
    result = _run("report", str(out), "--markdown", "-")
    assert result.returncode == 0, result.stderr
    assert read(result.stdout).bold == ["Model 1 is better: the whole interval lies above 0.5."]
    assert "HTML report" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_report_with_neither_page_nor_summary_names_both_flags(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    assert _run(*COMMANDS["compare"], "--out", str(out)).returncode == 0
    result = _run("report", str(out))
    assert result.returncode == 2
    assert "give --output FILE (the HTML page), --markdown FILE" in result.stderr


def test_an_adaptive_stop_concludes_on_its_anytime_valid_interval(tmp_path: Path) -> None:
    args = [*COMMANDS["compare"][:3], f"{J}:knows_facts", "--stop-when", "decided",
            "--batch", "4", "--markdown", str(tmp_path / "a.md")]  # fmt: skip
    result = _run(*args)
    assert result.returncode == 0, result.stderr
    seen = read((tmp_path / "a.md").read_text("utf-8"))
    assert seen.bold == ["Model 2 is better: the whole anytime-valid interval lies below 0.5."]
    assert seen.bold[0] in [line.strip() for line in result.stdout.splitlines()]
    figures = [row[0] for row in seen.tables[1][1:]]
    assert any(label.startswith("Anytime-valid") for label in figures), figures
