"""The built-in audit suite: shipped as package data, 40 valid items, broken rows rejected."""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

import pytest

from fairjudge._errors import InputError
from fairjudge.audit._audit_items import CATEGORIES, SuiteItem, load_builtin_suite, parse_suite
from fairjudge.audit._padding import split_sentences, word_count

ROOT = Path(__file__).resolve().parents[2]
SUITE = load_builtin_suite()


def _row(**overrides: object) -> str:
    row = {
        "id": "fact-01",
        "category": "fact",
        "question": "What colour is a clear daytime sky?",
        "answer": "It is blue.",
        "flawed": "It is green.",
    }
    row.update(overrides)
    return json.dumps(row)


def test_the_suite_has_40_items_10_per_category() -> None:
    assert len(SUITE) == 40
    assert Counter(item.category for item in SUITE) == dict.fromkeys(CATEGORIES, 10)
    assert CATEGORIES == ("fact", "reasoning", "code", "summary")


def test_ids_are_unique_and_name_their_category() -> None:
    ids = [item.id for item in SUITE]
    assert len(set(ids)) == 40
    for item in SUITE:
        assert re.fullmatch(rf"{item.category}-\d\d", item.id)


def test_every_field_is_a_non_empty_string_and_the_answers_differ() -> None:
    for item in SUITE:
        for value in (item.question, item.answer, item.flawed):
            assert isinstance(value, str)
            assert value.strip()
        assert item.answer != item.flawed


def test_prose_answers_are_short_and_code_answers_are_one_block_and_a_sentence() -> None:
    for item in SUITE:
        for text in (item.answer, item.flawed):
            parts = split_sentences(text)
            code = [p for p in parts if p.startswith("```")]
            prose = [p for p in parts if not p.startswith("```")]
            if item.category == "code":
                assert len(code) == 1, item.id
                assert len(prose) <= 1, item.id
            else:
                assert code == [], item.id
                assert 1 <= len(prose) <= 3, (item.id, prose)


def test_summary_questions_carry_a_passage_of_60_to_120_words() -> None:
    for item in SUITE:
        if item.category == "summary":
            passage = item.question.split("Passage:", 1)[1]
            assert 60 <= word_count(passage) <= 120, item.id


def test_the_suite_is_loaded_once_and_items_are_frozen() -> None:
    assert load_builtin_suite() is SUITE
    item = SUITE[0]
    assert isinstance(item, SuiteItem)
    with pytest.raises(AttributeError):
        item.answer = "changed"  # type: ignore[misc]


def test_pyproject_ships_the_suite_as_package_data() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"]["fairjudge"]
    assert any(fnmatch("audit/suite/builtin.jsonl", pattern) for pattern in globs)
    assert (ROOT / "src/fairjudge/audit/suite/builtin.jsonl").is_file()


def test_parse_suite_reads_valid_rows_and_skips_blank_lines() -> None:
    text = _row() + "\n\n" + _row(id="code-01", category="code") + "\n"
    items = parse_suite(text, "mine.jsonl")
    assert [item.id for item in items] == ["fact-01", "code-01"]
    assert items[1].category == "code"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "mine.jsonl:1: invalid JSON"),
        ("[1, 2]", "mine.jsonl:1: expected a JSON object, got list"),
        (_row(flawed=None), "mine.jsonl:1: field 'flawed' must be a non-empty string"),
        (_row(answer="   "), "mine.jsonl:1: field 'answer' must be a non-empty string"),
        (_row(category="poetry"), "mine.jsonl:1: category must be one of"),
        (_row(extra="x"), "unknown ['extra']"),
        (json.dumps({"id": "a", "category": "fact"}), "missing ['question', 'answer', 'flawed']"),
        (_row() + "\n" + _row(), "mine.jsonl:2: duplicate id 'fact-01' (first on line 1)"),
        ("\n\n", "mine.jsonl: the suite has no items"),
    ],
)
def test_parse_suite_rejects_broken_rows_naming_file_and_line(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_suite(text, "mine.jsonl")
    assert message in str(caught.value)
