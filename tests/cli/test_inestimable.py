"""Intervals and estimates that mean nothing are said to be inestimable.

They are never printed as numbers, nor as NaN.
"""

from __future__ import annotations

import json

from tests.cli._invoke import LONGER, ROOT, invoke


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
    assert "style coefficient of headers cannot be estimated: constant in the data" in result.stdout


def test_style_separated_ratings_give_no_interval() -> None:
    result = invoke(
        "rank", str(ROOT / "examples" / "rank_answers.jsonl"), "--judge", LONGER,
        "--style-control", "-q", "--bootstrap", "200",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "-29891" not in result.stdout
    assert "perfectly separated by length" in result.stdout
    assert "style coefficient of length cannot be estimated" in result.stdout


def test_readme_calibrate_example_gives_no_nan() -> None:
    result = invoke(
        "calibrate", str(ROOT / "examples" / "calibration.jsonl"),
        "--judge", "python:examples.judges:knows_facts",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "nan" not in result.output.lower()
    assert "1 round(s)" not in result.output
