"""Padding for the verbosity experiment: longer, deterministic, and never drops content."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairjudge.audit._audit_items import load_builtin_suite
from fairjudge.audit._padding import (
    _ABBREVIATIONS,
    pad_answer,
    repetitive_list,
    split_sentences,
    word_count,
)

SUITE = load_builtin_suite()
# Every (item, side) pair: the concise answers and the flawed ones are both padded.
CASES = [(item, side) for item in SUITE for side in ("answer", "flawed")]
IDS = [f"{item.id}-{side}" for item, side in CASES]
FENCE = re.compile(r"```.*?```", re.S)


def _text(item: object, side: str) -> str:
    value = getattr(item, side)
    assert isinstance(value, str)
    return value


def _assert_in_order(haystack: str, needles: list[str]) -> None:
    position = 0
    for needle in needles:
        found = haystack.find(needle, position)
        assert found >= 0, needle
        position = found + len(needle)


# --- split_sentences and word_count


def test_word_count_counts_tokens_with_a_letter_or_digit() -> None:
    assert word_count("Hello, world -- it is 3.14 ```") == 5
    assert word_count("") == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two! Three?", ["One.", "Two!", "Three?"]),
        ("Pi is 3.14 or so. Next.", ["Pi is 3.14 or so.", "Next."]),
        ("Use a key, e.g. a name. Then stop.", ["Use a key, e.g. a name.", "Then stop."]),
        ("That is, i.e. The same. Fine.", ["That is, i.e. The same.", "Fine."]),
        ("Ask Dr. Smith today. She knows.", ["Ask Dr. Smith today.", "She knows."]),
        ("J. K. Rowling wrote it. Yes.", ["J. K. Rowling wrote it.", "Yes."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("No. It did not rain.", ["No.", "It did not rain."]),
        ("First line\n\nSecond line", ["First line", "Second line"]),
        ("1. Boil water.\n2. Add tea.", ["1. Boil water.", "2. Add tea."]),
        ("It costs approx. five pounds. Cheap.", ["It costs approx. five pounds.", "Cheap."]),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_split_sentences_keeps_a_code_block_whole() -> None:
    code = "```python\nx = 1.5. \nprint(x)  # Done. Really.\n```"
    text = f"Intro here. More.\n\n{code}\n\nAfter it. End."
    assert split_sentences(text) == ["Intro here.", "More.", code, "After it.", "End."]


def test_split_sentences_keeps_an_unclosed_code_block_to_the_end() -> None:
    text = "See below.\n```\na = 1. b = 2.\n"
    assert split_sentences(text) == ["See below.", "```\na = 1. b = 2."]


# --- pad_answer over the whole built-in suite


@pytest.mark.parametrize(("item", "side"), CASES, ids=IDS)
def test_padded_answer_contains_the_concise_answer_verbatim(item: object, side: str) -> None:
    answer = _text(item, side)
    padded = pad_answer(item.question, answer)  # type: ignore[attr-defined]
    assert answer.strip() in padded
    sentences = split_sentences(answer)
    _assert_in_order(padded, sentences)
    for sentence in sentences:
        assert sentence in padded


@pytest.mark.parametrize(("item", "side"), CASES, ids=IDS)
def test_padding_reaches_the_target_within_15_percent(item: object, side: str) -> None:
    answer = _text(item, side)
    question = item.question  # type: ignore[attr-defined]
    padded = pad_answer(question, answer)
    assert 255 <= word_count(padded) <= 345
    assert 170 <= word_count(pad_answer(question, answer, seed=3, target_words=200)) <= 230
    assert word_count(padded) > 2 * word_count(answer)


@pytest.mark.parametrize(("item", "side"), CASES, ids=IDS)
def test_code_blocks_stay_whole_and_appear_once(item: object, side: str) -> None:
    answer = _text(item, side)
    question = item.question  # type: ignore[attr-defined]
    blocks = FENCE.findall(answer)
    for seed in range(3):
        padded = pad_answer(question, answer, seed=seed)
        listed = repetitive_list(question, answer, seed=seed)
        assert FENCE.findall(padded) == blocks
        assert FENCE.findall(listed) == blocks


def test_padding_is_deterministic_and_seeds_change_it() -> None:
    differ = 0
    for item, side in CASES:
        answer = _text(item, side)
        first = pad_answer(item.question, answer, seed=7)
        assert first == pad_answer(item.question, answer, seed=7)
        differ += first != pad_answer(item.question, answer, seed=8)
    assert differ == len(CASES)


def test_a_long_answer_still_gets_an_opening_and_a_closing() -> None:
    answer = " ".join(f"Sentence number {n} says nothing new at all." for n in range(60))
    padded = pad_answer("Why?", answer, target_words=100)
    assert padded.index(answer) > 0
    head, tail = padded.split(answer, 1)
    assert word_count(head) >= 2
    assert word_count(tail) >= word_count(answer)  # the closing summary repeats it


def test_padding_an_empty_answer_does_not_fail() -> None:
    assert word_count(pad_answer("Why?", "")) >= 255


def test_padding_restates_only_the_instruction_of_a_summary_question() -> None:
    item = next(i for i in SUITE if i.category == "summary")
    passage = item.question.split("Passage:", 1)[1].strip()
    padded = pad_answer(item.question, item.answer)
    assert passage[:60] not in padded


# --- repetitive_list


@pytest.mark.parametrize(("item", "side"), CASES, ids=IDS)
def test_repetitive_list_lists_every_sentence_then_repeats(item: object, side: str) -> None:
    answer = _text(item, side)
    question = item.question  # type: ignore[attr-defined]
    listed = repetitive_list(question, answer)
    sentences = split_sentences(answer)
    _assert_in_order(listed, sentences)
    numbers = [int(n) for n in re.findall(r"^(\d+)\. ", listed, re.M)]
    assert numbers == list(range(1, len(numbers) + 1))
    prose = [s for s in sentences if not s.startswith("```")]
    assert len(numbers) == len(sentences) + max(3, 2 * len(prose))
    assert listed == repetitive_list(question, answer)


def test_repetitive_list_example() -> None:
    listed = repetitive_list("Who is shortest?", "Lee is. Sam is tallest.", seed=0)
    lines = listed.splitlines()
    assert lines[1:3] == ["1. Lee is.", "2. Sam is tallest."]
    assert len(lines) == 1 + 2 + 4
    assert all("Lee is" in line or "Sam is tallest" in line for line in lines[3:])


# --- invariants over random prose

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9).filter(
    lambda w: f"{w}." not in _ABBREVIATIONS
)


@st.composite
def sentences(draw: st.DrawFn) -> str:
    words = draw(st.lists(WORDS, min_size=2, max_size=14))
    end = draw(st.sampled_from(".!?"))
    return " ".join([words[0].capitalize(), *words[1:]]) + end


@settings(max_examples=150, deadline=None)
@given(
    question=sentences(),
    prose=st.lists(sentences(), min_size=1, max_size=6),
    seed=st.integers(min_value=0, max_value=2**32),
    target=st.integers(min_value=80, max_value=500),
)
def test_padding_keeps_every_sentence_of_random_prose(
    question: str, prose: list[str], seed: int, target: int
) -> None:
    answer = " ".join(prose)
    assert split_sentences(answer) == prose
    padded = pad_answer(question, answer, seed=seed, target_words=target)
    assert answer in padded
    _assert_in_order(padded, prose)
    assert padded == pad_answer(question, answer, seed=seed, target_words=target)
    # Within 15% whenever the fixed parts fit: opening, question, answer, closing summary.
    if 2 * word_count(answer) + word_count(question) + 60 <= target:
        assert target * 0.85 <= word_count(padded) <= target * 1.15
    listed = repetitive_list(question, answer, seed=seed)
    _assert_in_order(listed, prose)
    assert listed == repetitive_list(question, answer, seed=seed)
