"""Every ``--out`` file says what it is, and its readers check.

Each test runs ``fairjudge`` as a process, as a user would, and reads its exit code,
stdout and stderr.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_headlines import fairjudge
from tests.out_file import out_header, out_records

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
LONGER = "python:fairjudge.examples.judges:longer"
SCORER = "python:fairjudge.examples.judges:scorer"


def _compare_out(tmp_path: Path) -> Path:
    out = tmp_path / "compare.jsonl"
    done = fairjudge("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", LONGER,
                     "--out", str(out), "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def _rank_out(tmp_path: Path) -> tuple[Path, str]:
    out = tmp_path / "rank.jsonl"
    done = fairjudge("rank", str(EXAMPLES / "rank_answers.jsonl"), "--judge", LONGER,
                     "--out", str(out), "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out, done.stdout


def _score_out(tmp_path: Path) -> Path:
    out = tmp_path / "score.jsonl"
    done = fairjudge("score", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER,
                     "--out", str(out), "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_a_compare_file_opens_with_its_header_and_report_names_the_judge(
    tmp_path: Path,
) -> None:
    out = _compare_out(tmp_path)
    header = out_header(out)
    assert header["kind"] == "compare"
    assert header["judge"] == LONGER
    assert header["template"] is None  # a Python judge has no prompt
    assert header["command"][:2] == ["fairjudge", "compare"]
    assert "--out" in header["command"]
    assert header["settings"]["rule"] == "conservative"
    assert header["settings"]["seed"] == 0
    assert len(out_records(out, "compare")) == 20

    done = fairjudge("report", str(out), "-o", str(tmp_path / "page.html"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["settings"]["judge"] == LONGER
    assert "HTML report" in done.stderr


def test_a_file_without_a_header_still_loads(tmp_path: Path) -> None:
    out = _compare_out(tmp_path)
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(r) + "\n" for r in out_records(out)), encoding="utf-8")
    done = fairjudge("report", str(old), "-o", str(tmp_path / "page.html"), "--json")
    assert done.returncode == 0, done.stderr
    assert "judge" not in json.loads(done.stdout)["settings"]  # not recorded, and not guessed
    done = fairjudge("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", f"replay:{old}",
                     "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_report_draws_a_rank_file_as_rank_drew_it(tmp_path: Path) -> None:
    out, first = _rank_out(tmp_path)
    page = tmp_path / "page.html"
    done = fairjudge("report", str(out), "-o", str(page), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(first)  # the leaderboard, refitted the same
    assert 'data-kind="rank"' in page.read_text("utf-8")


def test_report_draws_a_headerless_rank_file_too(tmp_path: Path) -> None:
    out, first = _rank_out(tmp_path)
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(r) + "\n" for r in out_records(out)), encoding="utf-8")
    done = fairjudge("report", str(old), "-o", str(tmp_path / "page.html"), "--json")
    assert done.returncode == 0, done.stderr
    # rank's defaults are the run's settings here, so nothing is lost with the header
    assert json.loads(done.stdout) == json.loads(first)


def test_report_draws_a_score_file_and_a_via_scores_file(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    done = fairjudge("report", str(_score_out(tmp_path)), "-o", str(page))
    assert done.returncode == 0, done.stderr  # issue 25: the score page
    assert 'data-kind="score"' in page.read_text("utf-8")
    via = tmp_path / "via.jsonl"
    done = fairjudge("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--via-scores", "--judge",
                     SCORER, "--out", str(via), "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = fairjudge("report", str(via), "-o", str(tmp_path / "via.html"))
    assert done.returncode == 0, done.stderr
    assert 'data-kind="compare-via-scores"' in (tmp_path / "via.html").read_text("utf-8")


def test_a_rank_file_reads_back_as_its_battles_with_the_same_leaderboard(
    tmp_path: Path,
) -> None:
    out, first = _rank_out(tmp_path)
    header = out_header(out)
    assert header["kind"] == "rank"
    assert header["judge"] == LONGER
    assert header["settings"]["pairing"] == "all"
    records = out_records(out, "rank")
    assert len(records) == 96
    assert {"model_a", "model_b", "winner", "question_id", "calls"} <= records[0].keys()
    assert {r["winner"] for r in records} <= {"model_a", "model_b", "tie"}

    done = fairjudge("rank", str(out), "--json")
    assert done.returncode == 0, done.stderr
    assert "no judge calls needed" in done.stderr
    again, before = json.loads(done.stdout)["ratings"], json.loads(first)["ratings"]
    assert [(r["model"], r["wins"], r["losses"], r["ties"]) for r in again] == [
        (r["model"], r["wins"], r["losses"], r["ties"]) for r in before
    ]
    assert [r["rating"] for r in again] == pytest.approx([r["rating"] for r in before])
    assert [r["model"] for r in again] == ["alpha", "beta", "gamma", "delta"]


def test_replay_and_baseline_refuse_a_file_of_another_kind(tmp_path: Path) -> None:
    score = _score_out(tmp_path)
    done = fairjudge("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", f"replay:{score}")
    assert done.returncode == 2
    assert "a score file (written by `fairjudge score --out`); replay: reads" in done.stderr

    compare = _compare_out(tmp_path)
    done = fairjudge("score", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER,
                     "--baseline", str(compare))  # fmt: skip
    assert done.returncode == 2
    assert "a compare file (written by `fairjudge compare --out`); --baseline reads" in (
        done.stderr
    )
    done = fairjudge("score", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER,
                     "--baseline", str(score), "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr  # its own kind is read


def test_a_header_newer_than_this_fairjudge_is_refused(tmp_path: Path) -> None:
    out = _compare_out(tmp_path)
    lines = out.read_text("utf-8").split("\n")
    header = json.loads(lines[0])
    header["fairjudge"]["schema_version"] = 99
    out.write_text("\n".join([json.dumps(header), *lines[1:]]), encoding="utf-8")
    done = fairjudge("report", str(out), "-o", str(tmp_path / "page.html"))
    assert done.returncode == 2
    assert "schema_version 99 is newer than this fairjudge reads (1); upgrade" in done.stderr


_OUT_DASH = {
    "compare": ["compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", LONGER],
    "calibrate": ["calibrate", str(EXAMPLES / "calibration.jsonl"), "--judge", LONGER],
    "rank": ["rank", str(EXAMPLES / "rank_answers.jsonl"), "--judge", LONGER],
    "score": ["score", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER],
    "jury": ["jury", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", LONGER, "--judge",
             "python:fairjudge.examples.judges:first_position", "--allow-python-judges"],
    "score-jury": ["score-jury", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER,
                   "--judge", SCORER],
    "audit": ["audit", "--limit", "1"],
}  # fmt: skip


@pytest.mark.parametrize("command", sorted(_OUT_DASH))
def test_out_dash_is_refused_and_writes_no_file_named_dash(command: str, tmp_path: Path) -> None:
    done = fairjudge(*_OUT_DASH[command], "--out", "-", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "--out -: result files are not written to standard output" in done.stderr
    assert not (tmp_path / "-").exists()


def test_out_dash_with_json_is_a_json_error(tmp_path: Path) -> None:
    done = fairjudge(*_OUT_DASH["compare"], "--out", "-", "--json", cwd=tmp_path)
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error["type"] == "ConfigError"
    assert error["message"].startswith("--out -: result files are not written")
    assert not (tmp_path / "-").exists()
