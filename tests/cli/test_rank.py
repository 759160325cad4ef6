from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import ConfigError, InputError
from fairjudge.cli import app
from fairjudge.evaluation import Battles, LongAnswers, load_ranking_input, make_pairs

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rank_answers.jsonl"


def test_rank_example_end_to_end() -> None:
    result = runner.invoke(
        app,
        [
            "rank",
            str(EXAMPLE),
            "--judge",
            "python:examples.judges:longer",
            "--bootstrap",
            "100",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output[result.output.index("{") :])
    order = [r["model"] for r in payload["ratings"]]
    # The toy set's answers grow with model quality and the judge prefers longer answers.
    assert order[0] == "alpha"
    assert order[-1] == "delta"
    assert payload["bootstrap"] == "questions"


def _long(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    p = tmp_path / "long.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


def test_pairings(tmp_path: Path) -> None:
    rows = [
        {"question_id": q, "model": m, "answer": f"{m}-{q}"}
        for q in ("q1", "q2")
        for m in ("a", "b", "c")
    ]
    data = load_ranking_input(_long(tmp_path, rows))
    assert isinstance(data, LongAnswers)
    assert len(make_pairs(data)) == 6
    base = make_pairs(data, pairing="baseline", baseline="a")
    assert len(base) == 4
    assert all("a" in (it.model_1, it.model_2) for it in base)
    sample = make_pairs(data, pairing="sample", pairs_per_question=1, seed=5)
    assert len(sample) == 2
    assert make_pairs(data, pairing="sample", pairs_per_question=1, seed=5) == sample
    for it in make_pairs(data):
        assert it.answer_1 == f"{it.model_1}-{it.cluster}"
    with pytest.raises(ConfigError, match="baseline"):
        make_pairs(data, pairing="baseline")


def test_battles_input_and_errors(tmp_path: Path) -> None:
    p = tmp_path / "battles.jsonl"
    p.write_text(
        json.dumps({"model_a": "x", "model_b": "y", "winner": "model_a"})
        + "\n"
        + json.dumps({"model_a": "y", "model_b": "x", "winner": "tie"})
        + "\n",
        encoding="utf-8",
    )
    data = load_ranking_input(p)
    assert isinstance(data, Battles)
    assert [o.value for o in data.outcomes] == ["1", "tie"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"model_a": "x", "model_b": "y", "winner": "z"}) + "\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"bad.jsonl:1: 'winner'"):
        load_ranking_input(bad)
    dup = _long(
        tmp_path,
        [
            {"question_id": "q", "model": "a", "answer": "1"},
            {"question_id": "q", "model": "a", "answer": "2"},
        ],
    )
    with pytest.raises(InputError, match="duplicate answer"):
        load_ranking_input(dup)


def test_style_control_shrinks_a_pure_length_effect() -> None:
    result = runner.invoke(
        app,
        [
            "rank",
            str(EXAMPLE),
            "--judge",
            "python:examples.judges:longer",
            "--bootstrap",
            "100",
            "--style-control",
            "--l2",
            "0.5",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output[result.output.index("{") :])
    plain = {r["model"]: r["rating"] for r in payload["ratings"]}
    styled = {r["model"]: r["rating"] for r in payload["style_control"]["ratings"]}
    coefs = {c["name"]: c["estimate"] for c in payload["style_control"]["coefficients"]}
    assert coefs["length"] > 1.0  # the judge rewards length, and style control sees it
    # With length explained, the spread between best and worst model shrinks.
    assert max(styled.values()) - min(styled.values()) < max(plain.values()) - min(plain.values())
