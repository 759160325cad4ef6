"""Lines the README's commands print read whole and add up, at 80 columns.

Each test runs ``fairjudge`` as a process, as a user would (see ``test_headlines``).
"""

from __future__ import annotations

from pathlib import Path

from fairjudge.stats import score_correlation
from tests.cli.test_headlines import fairjudge

J = "python:fairjudge.examples.judges"


def _calls_rows(out: str, n: int) -> list[list[str]]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "calls by member" in line)
    rows = [line for line in lines[start:] if line.startswith("│ #")][:n]
    return [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]


def test_jury_members_that_call_no_model_pay_nothing_and_python_calls_are_made() -> None:
    done = fairjudge("jury", "examples/demo_pairs.jsonl", "--judge",
                     "replay:examples/replay_reviews.jsonl", "--judge", f"{J}:knows_facts",
                     "--judge", f"{J}:longer")  # fmt: skip
    assert done.returncode == 0, done.stderr
    replay, *python = _calls_rows(done.stdout, 3)
    assert replay[1:4] == ["40", "—", "—"], replay  # calls, made, cached
    for row in python:  # the panel's "calls" line counts these 80 as made
        assert row[1:4] == ["40", "40", "0"], row
    for row in (replay, *python):
        assert row[5:7] == ["—", "—"], row  # tokens, cost
    note = " ".join(done.stdout.split())
    assert "80 made, 0 cached, 0 failed" in note
    assert "—: #2, #3 call a Python function, not a model: no tokens, nothing to pay " \
        "for." in note  # fmt: skip
    assert "—: #1 answered without a call (a replay reads its recording): none made or " \
        "cached, nothing to pay for." in note  # fmt: skip


def test_score_jury_python_members_calls_are_made_and_cost_nothing() -> None:
    done = fairjudge("score-jury", "examples/score_answers.jsonl", "--judge", f"{J}:scorer",
                     "--judge", f"{J}:scorer")  # fmt: skip
    assert done.returncode == 0, done.stderr
    for row in _calls_rows(done.stdout, 2):
        assert row[1:4] == ["40", "40", "0"], row
        assert row[5:7] == ["—", "—"], row
    assert "calls: 80 made, 0 cached, 0 failed" in " ".join(done.stdout.split())
    assert "—: #1, #2 call a Python function, not a model" in " ".join(done.stdout.split())


def test_calibrate_names_the_lower_end_that_does_not_clear_the_threshold() -> None:
    done = fairjudge("calibrate", "examples/calibration.jsonl", "--judge", f"{J}:knows_facts")
    assert done.returncode == 0, done.stderr
    flat = " ".join(done.stdout.split())
    assert "PASS Spearman 0.808 [0.624, 0.901] vs threshold 0.70 (the interval's lower " \
        "end, 0.624, does not clear it)" in flat  # fmt: skip
    assert "(the interval's lower end, 0.550, clears it too)" in flat


def test_the_correlation_summary_names_the_lower_end() -> None:
    judge, human = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 3, 2, 4, 6, 5, 8, 7, 10, 9]
    r = score_correlation(judge, human, min_spearman=0.9, n_resamples=200)
    low = r.spearman_ci.low
    assert r.passed
    assert low < 0.9
    assert f"(the interval's lower end, {low:.3f}, does not clear it)" in r.summary()


def test_the_baseline_table_header_fits_80_columns(tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    first = fairjudge("score", "examples/score_answers.jsonl", "--judge", f"{J}:scorer",
                      "--out", str(out))  # fmt: skip
    assert first.returncode == 0, first.stderr
    done = fairjudge("score", "examples/score_answers.jsonl", "--judge", f"{J}:scorer",
                     "--baseline", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "since the baseline" in line)
    table = lines[start : start + 6]
    assert any("┃ distribution ┃" in line for line in table), "\n".join(table)
    assert any("┃ change       ┃" in line for line in table), "\n".join(table)
    assert not any("…" in line for line in table), "\n".join(table)
    assert all(len(line) <= 80 for line in lines)


def test_the_usage_line_names_the_file_argument_file() -> None:
    helped = fairjudge("compare", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "Usage: fairjudge compare [OPTIONS] {FILE}" in helped.stdout  # {}: required
    assert "{file}" not in helped.stdout
    assert "FILE <path>" in helped.stdout
    for command in ("calibrate", "rank", "report", "score", "score-jury", "jury"):
        done = fairjudge(command, "--help")
        assert f"Usage: fairjudge {command} [OPTIONS] {{FILE}}" in done.stdout, command
    missing = fairjudge("compare")
    assert missing.returncode == 2
    assert "Usage: fairjudge compare [OPTIONS] {FILE}" in missing.stderr
    assert "Missing argument 'FILE'." in missing.stderr
