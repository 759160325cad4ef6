"""`fairjudge audit` through the command line, over the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from tests.audit.conftest import plant
from tests.audit.planted import Planted
from tests.server import JudgeServer

runner = CliRunner()


def _audit(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["audit", *args])
    return result.exit_code, result.stdout, result.stderr


def _no_nan(token: str) -> None:
    raise AssertionError(f"--json holds {token}, which is not JSON")


def _server_args(server: JudgeServer, tmp_path: Path) -> list[str]:
    return [
        "--judge", "openai/scripted-judge", "--base-url", server.base_url,
        "--store", str(tmp_path / "store.sqlite"), "--quiet", "--bootstrap", "200",
    ]  # fmt: skip


def test_report_card_json_out_and_a_free_rerun(audit_server: JudgeServer, tmp_path: Path) -> None:
    plant(audit_server, Planted(first_share=0.5))
    out = tmp_path / "audit.jsonl"
    args = [*_server_args(audit_server, tmp_path), "--limit", "8", "--out", str(out)]
    code, stdout, stderr = _audit(*args, "--json")
    assert code == 0, stderr
    payload = json.loads(stdout, parse_constant=_no_nan)  # strict JSON: no NaN, no Infinity
    assert payload["n_items"] == 8
    biases = {e["bias"]: e for e in payload["experiments"]}
    assert set(biases) == {"position", "verbosity", "framing", "self-preference"}
    assert biases["self-preference"]["skipped"].startswith("needs two or more judges")
    assert biases["position"]["verdict"] in ("notable", "severe")
    assert payload["calls_made"] == audit_server.count("requests") > 0
    fairjudge, header, *records = [json.loads(line) for line in out.read_text().splitlines()]
    assert fairjudge["fairjudge"]["kind"] == "audit"
    assert header["kind"] == "audit"
    assert header["settings"]["rubric"] == "basic"
    assert header["judges"] == ["openai/scripted-judge"]
    assert [r["bias"] for r in records] == [e["bias"] for e in payload["experiments"]]
    made = audit_server.count("requests")
    code, stdout, stderr = _audit(*args)
    assert code == 0, stderr
    assert audit_server.count("requests") == made  # the rerun costs no call
    assert "0 made now" in stdout
    assert "position: " in stdout
    assert "example (item fact-01)" in stdout
    assert "self-preference: skipped: needs two or more judges" in stdout


def test_an_impossible_or_unknown_experiment_is_refused_before_any_call(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    base = _server_args(audit_server, tmp_path)
    code, _, stderr = _audit(*base, "--experiments", "self-preference")
    assert code == 2
    assert "self-preference: needs two or more judges" in stderr
    code, _, stderr = _audit(*base, "--experiments", "position,bogus")
    assert code == 2
    assert "unknown experiment(s) ['bogus']" in stderr
    code, _, stderr = _audit(*base, "--framing-templates", "default")
    assert code == 2
    assert "--framing-templates takes two templates" in stderr
    code, _, stderr = _audit(*base, "--rubric", "no-such-rubric")
    assert code == 2
    assert "no-such-rubric" in stderr
    code, _, stderr = _audit(*base, "--rubric", "reference")
    assert code == 2
    assert "rubric 'reference' need(s) a reference answer" in stderr
    code, _, stderr = _audit(*base, "--judge", "openai/scripted-judge")
    assert code == 2
    assert "given more than once: openai/scripted-judge" in stderr
    code, _, stderr = _audit(*base, "--limit", "0")
    assert code == 2
    assert "--limit must be >= 1" in stderr
    assert audit_server.count("requests") == 0


def test_a_python_judge_is_refused_with_the_reason(tmp_path: Path) -> None:
    code, _, stderr = _audit("--judge", "python:tests.judge_fixtures:longer", "--limit", "2")
    assert code == 2
    assert "audit needs a model judge" in stderr


def test_user_items_position_from_two_systems_and_bad_rows(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    plant(audit_server, Planted())
    rows = []
    for i in range(6):
        q = f"What is {i} + {i}?"
        rows.append({"id": f"a{i}", "question": q, "answer": f"It is {2 * i}.", "system": "alpha"})
        rows.append(
            {"id": f"b{i}", "question": q, "answer": f"Maybe {2 * i + 1}.", "system": "beta"}
        )
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    base = [*_server_args(audit_server, tmp_path), "--items", str(items)]
    code, stdout, stderr = _audit(*base, "--experiments", "position", "--json")
    assert code == 0, stderr
    position = json.loads(stdout)["experiments"][0]
    assert position["bias"] == "position"
    assert position["n_items"] == 6
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "answer": "a"}\n{"question": "q2"}\n', encoding="utf-8")
    code, _, stderr = _audit(*_server_args(audit_server, tmp_path), "--items", str(bad))
    assert code == 2
    assert "bad.jsonl" in stderr
    assert ":2" in stderr


def test_a_spent_budget_stops_with_exit_5_and_keeps_the_calls(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    plant(audit_server, Planted())
    base = [*_server_args(audit_server, tmp_path), "--limit", "4"]
    out = tmp_path / "partial.jsonl"
    code, stdout, stderr = _audit(*base, "--max-calls", "3", "--json", "--out", str(out))
    assert code == 5, stderr
    assert audit_server.count("requests") == 3
    partial = json.loads(stdout)  # the partial report, not only an error
    assert partial["stopped"].startswith("the --max-calls 3 budget is spent: 3 calls made")
    skipped = [e["skipped"] for e in partial["experiments"]]
    assert skipped[0].startswith("stopped: ")
    assert all(s.startswith("not run: ") for s in skipped[1:3])
    assert json.loads(out.read_text().splitlines()[1])["stopped"] == partial["stopped"]
    code, _, stderr = _audit(*base)
    assert code == 0, stderr  # the finished calls came from the store
