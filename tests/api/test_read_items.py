"""What the commands hand the notebook functions: items read already, a source name, a baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge
from fairjudge import ConfigError, JudgeSetup
from fairjudge.examples.judges import longer, scorer
from fairjudge.io import load_items, load_score_items
from fairjudge.prompts import get_rubric

EXAMPLES = Path(fairjudge.__file__).parent / "examples"


def _pairs_with_a_bad_row(tmp_path: Path) -> Path:
    rows = [
        {"id": "a", "question": "q1", "answer_1": "a long answer", "answer_2": "short"},
        {"id": "b", "question": "q2", "answer_1": "", "answer_2": "short"},
        {"id": "c", "question": "q3", "answer_1": "s", "answer_2": "a longer one"},
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_items_read_already_keep_their_skipped_rows_and_take_a_source(tmp_path: Path) -> None:
    path = _pairs_with_a_bad_row(tmp_path)
    loaded = load_items(path, skip_invalid=True)
    from_file = fairjudge.compare(path, longer, skip_invalid=True)
    from_loaded = fairjudge.compare(loaded, longer, source=str(path))
    assert from_loaded.result.n_items == from_file.result.n_items == 2
    assert from_loaded.to_dict()["skipped_rows"] == from_file.to_dict()["skipped_rows"]
    assert [r["line"] for r in from_loaded.to_dict()["skipped_rows"]] == [2]
    assert from_loaded.result.settings.source == str(path)
    assert from_loaded.report.title == "pairs.jsonl: model 1 vs model 2"


def test_reading_options_for_items_read_already_are_refused(tmp_path: Path) -> None:
    loaded = load_items(_pairs_with_a_bad_row(tmp_path), skip_invalid=True)
    with pytest.raises(ConfigError, match="skip_invalid, allow_empty: the items were read") as e:
        fairjudge.compare(loaded, longer, skip_invalid=True, allow_empty=True)
    assert e.value.params == ("skip_invalid", "allow_empty")


def test_standard_input_is_titled_as_the_command_titles_it(tmp_path: Path) -> None:
    loaded = load_items(_pairs_with_a_bad_row(tmp_path), skip_invalid=True)
    result = fairjudge.compare(loaded, longer, source="-")
    assert result.report.title == "<stdin>: model 1 vs model 2"


def test_a_baseline_gives_the_trend_and_a_different_judge_is_refused(tmp_path: Path) -> None:
    path = EXAMPLES / "score_answers.jsonl"
    rubric = get_rubric("production")
    out = tmp_path / "old.jsonl"
    from typer.testing import CliRunner

    from fairjudge.cli import app

    made = CliRunner().invoke(
        app, ["score", str(path), "--judge", "python:fairjudge.examples.judges:scorer",
              "--out", str(out), "--quiet"],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    loaded = load_score_items(path, dimensions=rubric.names, scale=rubric.scale)
    now = fairjudge.score(loaded, scorer, baseline=out)
    trend = now.to_dict()["trend"]
    assert trend is not None
    assert {d["dimension"] for d in trend["dimensions"]} == set(rubric.names)
    assert all(d["shift"] == 0.0 for d in trend["dimensions"])

    def other(question: str, answer: str) -> dict[str, int]:
        return dict.fromkeys(rubric.names, 3)

    with pytest.raises(ConfigError, match="allow_different"):
        fairjudge.score(loaded, other, baseline=out)
    allowed = fairjudge.score(loaded, other, baseline=out, allow_different=True)
    assert allowed.to_dict()["trend"] is not None
    with pytest.raises(ConfigError, match="allow_different applies with baseline only"):
        fairjudge.score(loaded, scorer, allow_different=True)


def test_via_scores_with_swap_needs_a_model_judge() -> None:
    from fairjudge._api import via_scores
    from fairjudge.evaluation import EvalSettings

    items = load_items(EXAMPLES / "calibration.jsonl").items
    with pytest.raises(ConfigError, match="with_swap needs a model judge"):
        via_scores(
            "python:fairjudge.examples.judges:longer", items, EvalSettings(),
            setup=JudgeSetup(), rubric=get_rubric("production"), with_swap=True,
        )  # fmt: skip
    done = via_scores(
        "python:fairjudge.examples.judges:scorer", items, EvalSettings(),
        setup=JudgeSetup(), rubric=get_rubric("production"),
    )  # fmt: skip
    assert done.swap is None
    assert done.judge == "python:fairjudge.examples.judges:scorer"
    assert done.result.n_items == len(items)
