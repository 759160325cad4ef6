"""Items that all went one way: the win rate's interval is Wilson's, and the verdict follows it.

QA40 F9: two items, both to model 2, printed ``0.000 [0.000, 0.000]`` and "Model 2
is better", exit 0, because a percentile bootstrap over identical outcomes cannot
vary. Now the interval is the Wilson score interval on the questions: from 2 items it
contains 0.5 (no winner), from 20 it still lies below it.
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import NormalDist

import pytest

from tests.cli._invoke import invoke

LONGER = "python:fairjudge.examples.judges:longer"  # always picks model 2's longer answer
Z2 = NormalDist().inv_cdf(0.975) ** 2


def unanimous(tmp_path: Path, n: int) -> str:
    path = tmp_path / f"pairs{n}.jsonl"
    rows = [
        {"id": str(i), "question": f"q{i}", "answer_1": "short", "answer_2": "a longer answer"}
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("n", "decided"), [(2, False), (20, True)])
def test_compare_gives_the_wilson_interval(tmp_path: Path, n: int, decided: bool) -> None:
    pairs = unanimous(tmp_path, n)
    result = invoke("compare", pairs, "--judge", LONGER, "--json")
    assert result.exit_code == 0, result.output
    win = json.loads(result.stdout)["win_rate"]
    assert (win["estimate"], win["losses"]) == (0.0, n)
    ci = win["ci"]
    assert ci["estimable"] is True
    assert ci["reason"] is None
    assert ci["low"] == 0.0
    assert ci["high"] == pytest.approx(Z2 / (n + Z2), abs=1e-12)  # 0.658 and 0.161
    assert f"all {n} questions have a share of 0, so the bootstrap" in ci["note"]
    text = invoke("compare", pairs, "--judge", LONGER, env={"COLUMNS": "200"})
    assert text.exit_code == 0, text.output
    if decided:
        assert "Model 2 is better: the whole interval lies below 0.5." in text.stdout
    else:
        assert "No clear winner: the interval contains 0.5." in text.stdout
        assert "Model 2 is better" not in text.stdout
    assert f"0.000  [0.000, {Z2 / (n + Z2):.3f}] (Wilson, all alike)" in text.stdout


def test_the_panels_win_rate_follows_the_same_rule(tmp_path: Path) -> None:
    pairs = unanimous(tmp_path, 2)
    judges = ("--judge", LONGER) * 3
    result = invoke("jury", pairs, *judges, "--json")
    assert result.exit_code == 0, result.output
    ci = json.loads(result.stdout)["win_rate"]["ci"]
    assert ci["high"] == pytest.approx(Z2 / (2 + Z2), abs=1e-12)
    text = invoke("jury", pairs, *judges)
    assert "No clear winner by the panel" in text.stdout


def test_the_inspect_metric_reports_the_wilson_interval() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.scorer import SampleScore, Score

    from fairjudge.integrations.inspect import win_rate

    scores = [SampleScore(score=Score(value=1.0), sample_id=i) for i in range(2)]
    value = win_rate()(scores)
    assert isinstance(value, dict)
    assert value["win_rate"] == 1.0
    assert value["win_rate_ci_low"] == pytest.approx(2 / (2 + Z2), abs=1e-12)
    assert value["win_rate_ci_high"] == 1.0
