"""`fairjudge score-jury`: a scoring panel from the command line, Python and HTTP members."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.out_file import out_records
from tests.score_server import by_answer, script
from tests.server import JudgeServer

runner = CliRunner()
P = "python:tests.panel_scorers"


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["score-jury", *args])
    return result.exit_code, result.stdout, result.stderr


def _file(tmp_path: Path, answers: list[str]) -> Path:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": a, "human_accuracy": int(a[0])}
            for i, a in enumerate(answers)]  # fmt: skip
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_python_panel_json_weights_median_and_out(tmp_path: Path) -> None:
    path, out = _file(tmp_path, ["1 a", "2 b", "3 c", "4 d", "5 e"]), tmp_path / "out.jsonl"
    args = [str(path), "--judge", f"{P}:leading", "--judge", f"{P}:high", "--judge",
            f"{P}:mirror", "--weight", "1", "--weight", "1", "--weight", "3",
            "--aggregate", "median", "--json", "--bootstrap", "100", "--out", str(out)]  # fmt: skip
    code, stdout, stderr = _run(*args)
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert summary["aggregation"] == "median"
    assert [m["weight"] for m in summary["members"]] == [1.0, 1.0, 3.0]
    # the mirror holds 3 of 5: the weighted median is its score, 6 - digit, mean 3
    assert summary["dimensions"][0]["mean"]["estimate"] == 3.0
    # the weighted mean, (d + min(5, d + 1) + 3 (6 - d)) / 5 over d = 1..5: 3.6 ... 2.6
    alt = summary["alternative_aggregations"]["mean"][0]["mean"]["estimate"]
    assert alt == pytest.approx(3.16)
    diag = {d["dimension"]: d for d in summary["diagnostics"]}
    members = {m["name"]: m for m in diag["accuracy"]["members"]}
    assert members[f"{P}:leading"]["human_agreement"]["spearman"] == 1.0
    assert members[f"{P}:mirror"]["spearman_with_rest"]["spearman"] == -1.0
    assert diag["accuracy"]["krippendorff_alpha_ordinal"]["alpha"] < 0
    # a Python member's calls run on the engine: made, as the panel's calls count them
    assert [u["made"] for u in summary["member_usage"]] == [5, 5, 5]
    assert summary["calls"]["made"] == 15
    records = out_records(out, "score-jury")
    assert records[0]["panel_scores"] == {"accuracy": 5.0, "relevance": 5.0, "usefulness": 5.0}
    assert records[0]["members"][f"{P}:high"]["scores"]["accuracy"] == 2
    assert records[0]["aggregation"] == "median"


def test_the_table_and_the_exit_codes(tmp_path: Path) -> None:
    path = _file(tmp_path, ["1 a", "5 b", "2 c", "5 d"])
    two = [str(path), "--judge", f"{P}:leading", "--judge", f"{P}:fails_on_fives",
           "--bootstrap", "100"]  # fmt: skip
    code, stdout, stderr = _run(*two, "--max-unresolved", "0.6")
    assert code == 0, stderr
    flat = " ".join(stdout.split())
    assert "how much the members agree" in flat
    assert "answers fully scored by the panel: 2 of 4" in flat
    code, _, stderr = _run(*two)  # half the answers lack a panel score: > 0.2
    assert code == 4
    assert ("2 of 4 items lack a panel score on some dimension, which needs scores from members "
            "holding more than half the panel's weight (50% > --max-unresolved 0.2)"
            ) in " ".join(stderr.split())  # fmt: skip


def test_bad_panels_are_refused_before_any_call(tmp_path: Path) -> None:
    path = str(_file(tmp_path, ["1 a", "2 b", "3 c"]))
    cases = [
        (["--judge", f"{P}:leading"], "a panel needs --judge twice or more"),
        (["--judge", f"{P}:leading", "--judge", f"{P}:high", "--weight", "2"],
         "--weight was given 1 time(s) for 2 --judge"),
        (["--judge", f"{P}:leading", "--judge", f"{P}:high", "--aggregate", "majority"],
         "--aggregate must be one of mean, median"),
        (["--judge", f"{P}:leading", "--judge", f"{P}:high", "--tpm", "3"],
         "--tpm: a panel of Python callables has no model"),
        (["--judge", f"{P}:leading", "--judge", f"{P}:high", "--store", path + ".sqlite"],
         "--store does not apply to a panel of Python judges none of which declares"),
        (["--judge", f"{P}:leading", "--judge", f"{P}:high", "--baseline", path],
         "--baseline compares one-judge runs"),
    ]  # fmt: skip
    for extra, message in cases:
        code, _, stderr = _run(path, *extra)
        assert code == 2, (extra, stderr)
        assert message in " ".join(stderr.split())


def test_model_members_share_one_run_and_a_rerun_costs_nothing(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    replies = {
        "good": '{"accuracy": 5, "relevance": 4, "usefulness": 5, "reason": "fine"}',
        "poor": '{"accuracy": 1, "relevance": 2, "usefulness": 1, "reason": "wrong"}',
        "meh": '{"accuracy": 3, "relevance": 3, "usefulness": 3, "reason": "so-so"}',
    }
    script(score_server, by_answer(replies))
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps({"question": f"Q{i}?", "answer": a}) + "\n"
                            for i, a in enumerate(replies)), encoding="utf-8")  # fmt: skip
    args = [str(path), "--judge", "openai/judge-a", "--judge", "openai/judge-b", "--judge",
            "python:tests.scorers:fours", "--base-url", score_server.base_url,
            "--store", str(tmp_path / "store.sqlite"), "--quiet", "--json",
            "--bootstrap", "100"]  # fmt: skip
    code, stdout, stderr = _run(*args)
    assert code == 0, stderr
    first = json.loads(stdout)
    assert (first["calls"]["made"], first["calls"]["cached"]) == (9, 0)  # 6 model, 3 Python
    assert score_server.count("requests") == 6
    assert [u["made"] for u in first["member_usage"]] == [3, 3, 3]  # they add up to the 9
    # (5 + 5 + 4) / 3, (1 + 1 + 4) / 3, (3 + 3 + 4) / 3 on accuracy
    accuracy = first["dimensions"][0]["mean"]["estimate"]
    assert accuracy == (14 / 3 + 6 / 3 + 10 / 3) / 3

    code, stdout, _ = _run(*args)
    assert code == 0
    again = json.loads(stdout)
    # the model calls come from the store; the undeclared Python member, never stored, again
    assert (again["calls"]["made"], again["calls"]["cached"]) == (3, 6)
    assert [u["made"] for u in again["member_usage"]] == [0, 0, 3]
    assert [u["cached"] for u in again["member_usage"]] == [3, 3, 0]
    assert score_server.count("requests") == 6
    assert again["dimensions"] == first["dimensions"]


def test_a_jury_file_gives_the_same_panel_as_the_flags(tmp_path: Path) -> None:
    path = _file(tmp_path, ["1 a", "2 b", "3 c", "4 d", "5 e"])
    toml = tmp_path / "panel.toml"
    toml.write_text(
        'aggregate = "median"\n'
        f'[[member]]\njudge = "{P}:leading"\n'
        f'[[member]]\njudge = "{P}:high"\n'
        f'[[member]]\njudge = "{P}:mirror"\nweight = 3\n',
        encoding="utf-8",
    )
    flags = ["--judge", f"{P}:leading", "--judge", f"{P}:high", "--judge", f"{P}:mirror",
             "--weight", "1", "--weight", "1", "--weight", "3",
             "--aggregate", "median"]  # fmt: skip
    common = [str(path), "--json", "--bootstrap", "100"]
    code, by_file, stderr = _run(*common, "--jury", str(toml), "--allow-python-judges")
    assert code == 0, stderr
    code, by_flags, stderr = _run(*common, *flags)
    assert code == 0, stderr
    assert json.loads(by_file)["aggregation"] == "median"
    assert json.loads(by_file)["dimensions"] == json.loads(by_flags)["dimensions"]
    code, _, stderr = _run(*common, "--jury", str(toml), "--judge", f"{P}:high")
    assert code == 2
    assert "not both" in stderr
    toml.write_text(
        f'[[member]]\njudge = "{P}:leading"\ntemplate = "concise"\n'
        f'[[member]]\njudge = "{P}:high"\n',
        encoding="utf-8",
    )
    code, _, stderr = _run(*common, "--jury", str(toml), "--allow-python-judges")
    assert code == 2
    assert "sets a template" in stderr


def test_a_baseline_is_refused_for_a_panel_before_any_call(tmp_path: Path) -> None:
    # The library's refusal (fairjudge.score(judges=..., baseline=...)), worded as flags.
    path = _file(tmp_path, ["1 a", "2 b"])
    baseline = tmp_path / "old.jsonl"
    baseline.write_text("", encoding="utf-8")
    members = ["--judge", f"{P}:leading", "--judge", f"{P}:high"]
    code, stdout, stderr = _run(str(path), *members, "--baseline", str(baseline), "--json")
    assert code == 2, stderr
    said = "--baseline compares one-judge runs; a panel does not take it yet"
    assert said in " ".join(stderr.split())
    assert json.loads(stdout)["error"]["message"].endswith(said)
    code, _, stderr = _run(str(path), *members, "--allow-different")
    assert code == 2
    assert "--allow-different applies with --baseline only" in stderr
