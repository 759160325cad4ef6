"""One test (or a few) per defect of the issue "One call contract, one judge session...".

Each reproduces what a new user saw on faa4121 and asserts what must hold instead.
They drive the real command line (CliRunner, or a subprocess where the terminal
width matters), so they test what the user sees.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from fairjudge.runner import Store
from tests.cli.conftest import GOOD_ROWS
from tests.server import JudgeServer

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
LONGER = "python:tests.judge_fixtures:longer"


def invoke(*args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), env=env)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- 1. rich markup ate bracketed text in every error ------------------------------------


def test_bracketed_text_survives_in_a_path(tmp_path: Path) -> None:
    result = invoke("compare", str(tmp_path / "[bold]x.jsonl"), "--judge", LONGER)
    assert result.exit_code == 2
    assert "[bold]x.jsonl" in result.output


def test_bracketed_text_survives_in_a_column(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(GOOD_ROWS)
    result = invoke("compare", str(path), "--judge", LONGER, "--question-col", "[bold]q")
    assert result.exit_code == 2
    assert "[bold]q" in result.output


def test_bracketed_text_survives_in_a_label(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [{**GOOD_ROWS[0], "human": "[bold]1"}]
    result = invoke("calibrate", str(write_jsonl(rows)), "--judge", LONGER)
    assert result.exit_code == 2
    assert "[bold]1" in result.output


def test_bracketed_text_survives_in_a_model_name(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"model_a": "[bold]m", "model_b": "plain", "winner": w, "question_id": str(i)}
        for i, w in enumerate(["model_a", "model_b", "tie", "model_a"])
    ]
    result = invoke("rank", str(write_jsonl(rows)), "--bootstrap", "20")
    assert result.exit_code == 0, result.output
    assert "[bold]m" in result.stdout


def test_install_hint_in_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    from fairjudge.cli._app import say

    say("error", "Install it with: pip install 'fairjudge[local]'")
    assert "pip install 'fairjudge[local]'" in capsys.readouterr().err


# -- 2. unresolved items exited 0 and hid why ----------------------------------------------


def test_a_judge_that_raises_exits_4_with_its_reason(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(GOOD_ROWS)
    result = invoke("compare", str(path), "--judge", "python:tests.judge_fixtures:raises")
    assert result.exit_code == 4
    assert "6 x RuntimeError: the judge's own bug" in result.output
    assert "3 of 3 items have no verdict" in result.output


def test_parse_failures_only_exit_4_with_the_reason(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(GOOD_ROWS)
    result = invoke("compare", str(path), "--judge", "python:tests.judge_fixtures:garbage")
    assert result.exit_code == 4
    assert "6 x parse failure: no verdict slot" in result.output


def test_max_unresolved_is_the_users_threshold(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(GOOD_ROWS)
    judge = "python:tests.judge_fixtures:garbage"
    assert invoke("compare", str(path), "--judge", judge, "--max-unresolved", "1").exit_code == 4
    assert invoke("compare", str(path), "--judge", LONGER, "--max-unresolved", "0").exit_code == 0
    bad = invoke("compare", str(path), "--judge", LONGER, "--max-unresolved", "2")
    assert bad.exit_code == 2
    assert "--max-unresolved must be in [0, 1]" in bad.output


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_a_refused_connection_stops_the_run_at_once(
    write_jsonl,
    tmp_path: Path,
    transport: str,  # type: ignore[no-untyped-def]
) -> None:
    port = closed_port()
    env = {"OPENAI_API_KEY": "sk-test-0000000000000000"}
    if transport == "sdk":  # a proxy variable makes the backend take the SDK path
        env |= {"HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1"}
    result = invoke(
        "compare", str(write_jsonl(GOOD_ROWS)), "--judge", "openai/m",
        "--base-url", f"http://127.0.0.1:{port}/v1", "--store", str(tmp_path / "s.sqlite"),
        "-q", env=env,
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "Nothing answered at" in result.output
    with Store(tmp_path / "s.sqlite") as store:
        rows = list(store.records())
    assert len(rows) == 1  # one call failed; no other call was started
    assert rows[0].attempts == 3


# -- 3. --rounds 1 was labelled "debiased" ---------------------------------------------------


def test_rounds_1_is_labelled_single_order(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = str(write_jsonl(GOOD_ROWS))
    judge = "python:tests.judge_fixtures:always_a"
    table = invoke("compare", path, "--judge", judge, "--rounds", "1")
    assert table.exit_code == 0, table.output
    assert "(debiased)" not in table.output
    assert "NOT debiased" in table.output
    assert "position consistency" not in table.output
    data = json.loads(invoke("compare", path, "--judge", judge, "--rounds", "1", "--json").stdout)
    assert data["debiased"] is False
    assert data["position_consistency"] is None


# -- 4. --rounds 4 re-ran identical calls at full price --------------------------------------


def test_rounds_above_2_sample(
    write_jsonl,
    tmp_path: Path,
    openai_env: JudgeServer,  # type: ignore[no-untyped-def]
) -> None:
    store = tmp_path / "s.sqlite"
    args = ["compare", str(write_jsonl(GOOD_ROWS)), "--judge", "openai/m", "-q"]
    args += ["--base-url", openai_env.base_url, "--store", str(store), "--rounds", "4"]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    with Store(store) as s:
        temperatures = {r.spec["params"]["temperature"] for r in s.records()}
    assert temperatures == {0.7}
    refused = invoke(*args, "--temperature", "0")
    assert refused.exit_code == 2
    assert "identical calls paid for again" in refused.output


# -- 5. calibrate --rounds 3 crashed with a traceback ----------------------------------------


def test_calibrate_rounds_3_is_a_usage_error(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    result = invoke(
        "calibrate", str(ROOT / "examples" / "calibration.jsonl"),
        "--judge", "python:tests.judge_fixtures:counting", "--rounds", "3",
        env={"FAIRJUDGE_TEST_CALLS": str(calls)},
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--rounds 3 with --balanced must be even" in result.output
    assert not calls.exists()  # checked before any call


# -- 6. rank --l2 was ignored by the main leaderboard -----------------------------------------


def test_rank_l2_reaches_the_leaderboard(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"model_a": "champ", "model_b": other, "winner": "model_a", "question_id": f"{other}{i}"}
        for other in ("x", "y")
        for i in range(3)
    ] + [{"model_a": "x", "model_b": "y", "winner": "tie", "question_id": "xy"}]
    path = str(write_jsonl(rows))
    unbeaten = invoke("rank", path, "--bootstrap", "20")
    # Issue 21: no longer exit 2; the fallback ridge is used and said, naming --l2.
    assert unbeaten.exit_code == 0, unbeaten.output
    assert "--l2 0.1" in unbeaten.output
    fitted = invoke("rank", path, "--bootstrap", "20", "--l2", "0.5", "--json")
    assert fitted.exit_code == 0, fitted.output
    ratings = {r["model"]: r["rating"] for r in json.loads(fitted.stdout)["ratings"]}
    assert ratings["champ"] > ratings["x"]


# -- 7. rank validated --ties and --anchor only after judging every pair -------------------


@pytest.mark.parametrize("bad", [["--ties", "bogus"], ["--anchor", "nobody"]])
def test_rank_options_are_checked_before_any_call(tmp_path: Path, bad: list[str]) -> None:
    calls = tmp_path / "calls"
    result = invoke(
        "rank", str(ROOT / "examples" / "rank_answers.jsonl"),
        "--judge", "python:tests.judge_fixtures:counting", *bad,
        env={"FAIRJUDGE_TEST_CALLS": str(calls)},
    )  # fmt: skip
    assert result.exit_code == 2
    assert bad[1] in result.output
    assert not calls.exists()


# -- 8. intervals that mean nothing were printed as if they did ------------------------------


def test_one_question_gives_no_interval(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"id": "a", "question": "same q", "answer_1": "a long answer", "answer_2": "short"},
        {"id": "b", "question": "same q", "answer_1": "another long one", "answer_2": "tiny"},
    ]
    path = str(write_jsonl(rows))
    table = invoke("compare", path, "--judge", LONGER)
    assert table.exit_code == 0, table.output
    assert "cannot be estimated: one question" in table.output
    assert "[1.000, 1.000]" not in table.output
    assert "No conclusion" in table.output
    data = json.loads(invoke("compare", path, "--judge", LONGER, "--json").stdout)
    ci = data["win_rate"]["ci"]
    assert ci["estimable"] is False
    assert ci["low"] is None
    assert ci["reason"] == "one question: the bootstrap cannot vary"


def test_length_separated_verdicts_give_no_length_controlled_rate(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {
            "id": str(i),
            "question": f"q{i}",
            "answer_1": "x" * (20 + 3 * i),
            "answer_2": "y" * (5 + i),
        }
        for i in range(11)
    ] + [{"id": "11", "question": "q11", "answer_1": "x", "answer_2": "y" * 30}]
    result = invoke("compare", str(write_jsonl(rows)), "--judge", LONGER, "--json")
    assert result.exit_code == 0, result.output
    lc = json.loads(result.stdout)["length_controlled_win_rate"]
    assert "separated by answer length" in lc["skipped"]


def test_unidentified_ratings_give_no_interval(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"model_a": a, "model_b": b, "winner": w, "question_id": str(i)}
        for i, (a, b, w) in enumerate(
            [("a", "b", "model_a"), ("b", "c", "model_a"), ("a", "c", "tie"),
             ("c", "b", "model_a"), ("a", "b", "tie"), ("c", "a", "model_b")]
        )
    ]  # fmt: skip
    path = str(write_jsonl(rows))
    table = invoke("rank", path, "--bootstrap", "200", "-q")
    assert table.exit_code == 0, table.output
    assert "n/a *" in table.stdout
    assert "bootstrap resamples have no finite maximum" in table.stdout
    data = json.loads(invoke("rank", path, "--bootstrap", "200", "-q", "--json").stdout)
    b = next(r for r in data["ratings"] if r["model"] == "b")
    assert b["ci"]["estimable"] is False
    assert b["rank_ci"]["estimable"] is False
    ridge = json.loads(
        invoke("rank", path, "--bootstrap", "200", "-q", "--json", "--l2", "0.5").stdout
    )
    assert all(r["ci"]["estimable"] for r in ridge["ratings"])


def test_a_style_feature_that_never_varies_is_not_estimated() -> None:
    result = invoke(
        "rank", str(ROOT / "examples" / "rank_answers.jsonl"), "--judge",
        "python:examples.judges:first_position", "--style-control", "-q", "--bootstrap", "100",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "nan" not in result.stdout.lower()
    assert "beta[headers] cannot be estimated: constant in the data" in result.stdout


def test_style_separated_ratings_give_no_interval() -> None:
    result = invoke(
        "rank", str(ROOT / "examples" / "rank_answers.jsonl"), "--judge", LONGER,
        "--style-control", "-q", "--bootstrap", "200",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "-29891" not in result.stdout
    assert "perfectly separated by length" in result.stdout
    assert "beta[length] cannot be estimated" in result.stdout


# -- 9. the README's calibrate example gave NaN and failed -----------------------------------


def test_readme_calibrate_example_gives_no_nan() -> None:
    result = invoke(
        "calibrate", str(ROOT / "examples" / "calibration.jsonl"),
        "--judge", "python:examples.judges:knows_facts",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "nan" not in result.output.lower()
    assert "1 round(s)" not in result.output


# -- 10. help text ------------------------------------------------------------------------------


def test_help_at_80_columns_shows_whole_options() -> None:
    env = {**os.environ, "COLUMNS": "80", "TERM": "xterm"}
    out = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", "compare", "--help"],
        capture_output=True, text=True, env=env, cwd=ROOT, check=True,
    ).stdout  # fmt: skip
    for option in ("--price-output", "--max-unresolved", "--skip-invalid", "--reference-col"):
        assert option in out
    assert "…" not in out
    assert "--json <bool>" not in out
    assert "--json" in out
    assert "concise" in out  # --template lists the built-in names
    assert "--price-input/--price-output" in out  # --max-cost names what it needs
    assert max(len(line) for line in out.splitlines()) <= 80


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.output.startswith("fairjudge ")


# -- 12. small ones -----------------------------------------------------------------------------


def test_quiet_silences_the_battles_note(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [{"model_a": "a", "model_b": "b", "winner": w} for w in ("model_a", "model_b", "tie")]
    result = invoke("rank", str(write_jsonl(rows)), "--bootstrap", "20", "-q", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    # No question ids: the bootstrap resamples battles, and says so.
    assert json.loads(result.stdout)["bootstrap"] == "battles"


def test_budget_stop_with_json_prints_json(
    write_jsonl,
    tmp_path: Path,
    openai_env: JudgeServer,  # type: ignore[no-untyped-def]
) -> None:
    result = invoke(
        "compare", str(write_jsonl(GOOD_ROWS)), "--judge", "openai/m", "-q", "--json",
        "--base-url", openai_env.base_url, "--store", str(tmp_path / "s.sqlite"),
        "--max-calls", "2",
    )  # fmt: skip
    assert result.exit_code == 5  # stopped by the budget: a partial result (issue 10)
    summary = json.loads(result.stdout)
    assert summary["partial"] is True
    assert "--max-calls 2" in summary["stopped"]


def test_out_file_has_the_stores_permissions(
    write_jsonl,
    tmp_path: Path,
    openai_env: JudgeServer,  # type: ignore[no-untyped-def]
) -> None:
    out, store = tmp_path / "out.jsonl", tmp_path / "s.sqlite"
    result = invoke(
        "compare", str(write_jsonl(GOOD_ROWS)), "--judge", "openai/m", "-q",
        "--base-url", openai_env.base_url, "--store", str(store), "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == stat.S_IMODE(store.stat().st_mode)


def test_make_clean_keeps_the_store() -> None:
    makefile = (ROOT / "Makefile").read_text()
    clean = makefile.split("\nclean:", 1)[1].split("\n\n", 1)[0]
    removed = [line for line in clean.splitlines() if "rm " in line]
    assert removed
    assert not any(".fairjudge" in line for line in removed)
    assert "\nclean-store:" in makefile


def test_license_is_an_spdx_string() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
