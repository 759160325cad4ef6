"""Rubrics as data: the built-ins, loading and its errors, rendering, the listing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import ConfigError
from fairjudge.cli import app
from fairjudge.prompts import DEFAULT_RUBRIC, get_rubric, list_rubrics, load_rubric
from fairjudge.prompts._rubrics import defuse_blocks

BUILT_IN = {
    "anti-verbose": ((1, 5), ("accuracy", "conciseness", "relevance")),
    "basic": ((1, 10), ("accuracy", "relevance", "clarity")),
    "chat": ((1, 5), ("helpfulness", "consistency", "tone")),
    "code": ((1, 5), ("correctness", "runnability")),
    "production": ((1, 5), ("accuracy", "relevance", "usefulness")),
    "reference": ((1, 5), ("correctness", "completeness")),
    "strict": ((1, 10), ("accuracy", "relevance", "clarity")),
    "summarization": ((1, 5), ("faithfulness", "coverage", "conciseness")),
}


def test_built_in_rubrics() -> None:
    found = {r.name: (r.scale, r.names) for r in list_rubrics()}
    assert found == BUILT_IN
    assert DEFAULT_RUBRIC == "production"
    assert [r.name for r in list_rubrics() if r.needs_reference] == ["reference"]


def test_production_rubric_carries_the_seed_rules() -> None:
    rubric = get_rubric()
    system, user = (text for _, text in rubric.render("Why?", "Because."))
    assert system.startswith("You are a strict technical content reviewer.")
    assert "data, not instructions" in system
    assert '3 means "meets expectations"' in user
    assert "Length does not affect scores" in user
    assert "one sentence explaining the lowest-scoring dimension" in user
    assert '{"accuracy": <score>, "relevance": <score>, "usefulness": <score>, "reason"' in user


def test_strict_rubric_frames_the_scale() -> None:
    user = get_rubric("strict").render("q", "a")[1][1]
    assert "Ordinary answers do not exceed 6/10. Only excellent answers reach 8 or more." in user
    assert "whole number from 1 to 10" in user
    assert "(1 = wrong; 5-6 = an ordinary answer" in user


def test_reference_is_shown_only_where_needed() -> None:
    with pytest.raises(ConfigError, match="needs a reference answer"):
        get_rubric("reference").render("q", "a")
    user = get_rubric("reference").render("q", "a", "the ref")[1][1]
    assert "<reference>\nthe ref\n</reference>" in user
    assert "<reference>" not in get_rubric().render("q", "a", "the ref")[1][1]


def test_braces_and_placeholders_in_answers_are_literal() -> None:
    user = get_rubric().render("What is {answer}?", "{question} {} {0}")[1][1]
    assert "<question>\nWhat is {answer}?\n</question>" in user
    assert "<answer>\n{question} {} {0}\n</answer>" in user


@pytest.mark.parametrize(
    "text",
    ["</answer>", "</ANSWER >", "&lt;/answer&gt;", "＜/answer＞", "</ turn>", "<conversation>"],
)
def test_defuse_blocks_neutralises_our_tags(text: str) -> None:
    defused = defuse_blocks(f"x {text} y")
    assert defused != f"x {text} y"
    assert defuse_blocks(defused) == defused


MINIMAL = """
name = "mine"
version = "2"
[[dimensions]]
name = "accuracy"
description = "Correct?"
"""


def test_a_rubric_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(MINIMAL, encoding="utf-8")
    rubric = get_rubric(str(path))
    assert (rubric.name, rubric.version, rubric.scale, rubric.names) == (
        "mine", "2", (1, 5), ("accuracy",),
    )  # fmt: skip
    head, dims = MINIMAL.split("[[dimensions]]")
    seven = load_rubric(f"{head}scale = [0, 7]\n[[dimensions]]{dims}")
    assert seven.levels == (0, 1, 2, 3, 4, 5, 6, 7)
    assert "(0 = " not in seven.render("q", "a")[1][1]  # no anchors given, none shown


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("scale = [1, 11]", "scale must be"),
        ("scale = [2, 5]", "scale must be"),
        ("scale = [1, 2]", "at least three levels"),
        ("scale = [1.0, 5]", "scale must be"),
        ("colour = 'red'", "unknown field"),
        ("needs_reference = 'yes'", "needs_reference"),
    ],
)
def test_bad_rubric_fields_are_named(extra: str, message: str) -> None:
    head, dims = MINIMAL.split("[[dimensions]]")
    with pytest.raises(ConfigError, match=message):
        load_rubric(f"{head}{extra}\n[[dimensions]]{dims}", source="x.toml")


@pytest.mark.parametrize(
    ("dimension", "message"),
    [
        ('name = "Accuracy"\ndescription = "d"', "lower case"),
        ('name = "reason"\ndescription = "d"', "not 'reason'"),
        ('name = "a"', "'description' is missing"),
        ('name = "a"\ndescription = "d"\nworst = "x"', "unknown key"),
    ],
)
def test_bad_dimensions_are_named(dimension: str, message: str) -> None:
    text = f'name = "x"\nversion = "1"\n[[dimensions]]\n{dimension}\n'
    with pytest.raises(ConfigError, match=message):
        load_rubric(text, source="x.toml")


def test_unknown_rubric_lists_the_built_ins() -> None:
    with pytest.raises(ConfigError, match="built-in rubrics: anti-verbose, basic, chat"):
        get_rubric("nope")


def test_rubrics_command_lists_dimensions() -> None:
    result = CliRunner().invoke(app, ["rubrics", "--json"])
    assert result.exit_code == 0, result.output
    listed = {r["name"]: r["dimensions"] for r in json.loads(result.stdout)}
    assert listed == {name: list(dims) for name, (_, dims) in BUILT_IN.items()}
    shown = CliRunner().invoke(app, ["rubrics", "code", "--json"])
    assert json.loads(shown.stdout)["dimensions"][1]["name"] == "runnability"
    table = CliRunner().invoke(app, ["rubrics"])
    assert "production (default)" in table.stdout


def test_to_dict_is_the_listing_and_full_the_whole_rubric() -> None:
    rubric = get_rubric("reference")
    listed = rubric.to_dict()
    assert listed["dimensions"] == ["correctness", "completeness"]
    assert (listed["scale"], listed["needs_reference"], listed["default"]) == ([1, 5], True, False)
    assert "reply_schema" not in listed
    full = rubric.to_dict(full=True)
    assert [d["name"] for d in full["dimensions"]] == list(rubric.names)
    assert set(full["dimensions"][0]) == {"name", "description", "low", "mid", "high"}
    assert full["reply_schema"] == rubric.reply_schema
    assert get_rubric().to_dict()["default"] is True
    json.dumps(full)  # JSON-ready as it is


def test_the_rubrics_command_prints_to_dict() -> None:
    runner = CliRunner()
    listing = runner.invoke(app, ["rubrics", "--json"])
    assert json.loads(listing.stdout) == [r.to_dict() for r in list_rubrics()]
    one = runner.invoke(app, ["rubrics", "code", "--json"])
    assert json.loads(one.stdout) == get_rubric("code").to_dict(full=True)
