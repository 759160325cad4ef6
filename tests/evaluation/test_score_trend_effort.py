"""`score --baseline` compares a reasoning effort as the model takes it (QA41b #6).

A request that sends no ``reasoning_effort`` runs at the model's default (gpt-5.1:
none, the capability table's), so an explicit ``--reasoning-effort none`` against a
default gpt-5.1 baseline is the same setting, not a difference.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import ConfigError
from fairjudge.cli import app
from fairjudge.evaluation import ScoreRun, score_trend
from tests.out_file import out_header
from tests.score_server import script
from tests.server import JudgeServer

runner = CliRunner()
REPLY = '{"accuracy": 4, "relevance": 4, "usefulness": 3, "reason": "ok"}'


def _run(server: JudgeServer, tmp_path: Path, name: str, *flags: str) -> tuple[int, str]:
    """Score 12 answers with openai/gpt-5.1 at the scripted server; ``(code, all output)``."""
    script(server, lambda prompt: REPLY)
    path = tmp_path / f"{name}_items.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "question": f"Q {i}?", "answer": f"a {i}"})
                            + "\n" for i in range(12)), encoding="utf-8")  # fmt: skip
    result = runner.invoke(app, ["score", str(path), "--judge", "openai/gpt-5.1", "--base-url",
                                 server.base_url, "--store", str(tmp_path / f"{name}.sqlite"),
                                 "--quiet", "--bootstrap", "100", *flags])  # fmt: skip
    return result.exit_code, " ".join((result.stdout + result.stderr).split())


def test_the_models_default_effort_sent_explicitly_is_no_difference(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    old = tmp_path / "old.jsonl"
    code, said = _run(score_server, tmp_path, "old", "--out", str(old))
    assert code == 0, said
    assert "reasoning_effort" not in out_header(old)["settings"]["request"]["params"]
    code, said = _run(score_server, tmp_path, "new", "--reasoning-effort", "none",
                      "--baseline", str(old))  # fmt: skip
    assert code == 0, said
    assert "not scored like this run" not in said
    assert "compared anyway" not in said
    code, said = _run(score_server, tmp_path, "low", "--reasoning-effort", "low",
                      "--baseline", str(old))  # fmt: skip
    assert code == 2, said
    assert ("--reasoning-effort: baseline (not sent: the model's default, none), "
            "this run low") in said  # fmt: skip


def test_the_library_fills_in_the_default_effort_both_ways() -> None:
    def run(judge: str, **request: str) -> ScoreRun:
        return ScoreRun("r@1", judge, ("q1", "q2"), ({"d": 1}, {"d": 2}), request=request)

    for sent, unsent in (("none", "openai/gpt-5.1"), ("medium", "openai/gpt-5-mini")):
        both = (run(unsent, reasoning_effort=sent), run(unsent))
        for new, old in (both, both[::-1]):
            assert score_trend(new, old, n_resamples=20).differences == ()
    with pytest.raises(ConfigError, match=r"reasoning_effort: baseline \(not sent: the model's "
                       r"default, medium\), this run high"):  # fmt: skip
        score_trend(run("openai/gpt-5-mini", reasoning_effort="high"), run("openai/gpt-5-mini"))
    unknown = score_trend(run("openai/my-model", reasoning_effort="none"), run("openai/my-model"),
                          n_resamples=20, allow_different=True)  # fmt: skip
    assert unknown.differences == (
        "reasoning_effort: baseline (not sent: the model's default), this run none",
    )
