"""No reply text makes a parser raise; labels and keys fold ASCII case only.

The parsers compare labels, slot keys, rubric keys and logprob tokens after one
normalisation (``fold``: ASCII whitespace trimmed, ``A``-``Z`` lowered, nothing else).
Python's Unicode folding would read ``[[tıe]]`` as a tie-shaped slot and then fail to
look it up (``KeyError``), and would read ``verdıct: A`` as a keyed slot. Here: the
look-alikes are counted parse failures, ASCII case still reads, and properties over
arbitrary text (every code point, lone surrogates included) hold for every built-in
template's verdict format and every rubric mode (one JSON object, one bare number per
dimension, logprobs).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairjudge import ParseFailure, Verdict
from fairjudge._call import Completion
from fairjudge.prompts import (
    get_rubric,
    get_template,
    list_rubrics,
    list_templates,
    parse_verdict,
    probabilities_from_logprobs,
)
from fairjudge.prompts._parse import fold
from fairjudge.prompts._score_parse import (
    ScoreContext,
    expected_score,
    parse_score_label,
    parse_scores,
    read_scores,
)
from tests.prompts.hostile_replies import count_offline

FORMATS = sorted({get_template(name).verdict_format for name in list_templates()})
RUBRICS = list_rubrics()

ANY_CHAR = st.characters(codec=None, exclude_categories=())
"""Every code point: surrogates (``Cs``), unassigned and private-use ones included."""

# Pieces a hostile or broken reply is made of: slot syntax, look-alike letters
# (dotless ı, dotted İ, Kelvin sign, long s, full-width A, Cyrillic а), JSON.
PIECES = st.sampled_from(
    [
        "[[", "]]", "A", "B", "tie", "TIE", "C", "t\u0131e", "T\u0130E", "\u212a", "\u017f",
        "\uff21", "\u0430", "Verdict", "verd\u0131ct", "VERD\u0130CT", ": ", " is ", "answer ",
        "\n", ".", "**", "{", "}", '"verdict"', '"accuracy"', '"\u212accuracy"', ": 4", ", ",
        "```", "\ud800", "\udfff", "4", "1" * 30, "[", "]",
    ]
)  # fmt: skip
SURROGATE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=())
REPLIES = st.one_of(
    st.text(ANY_CHAR, max_size=200),
    st.lists(st.one_of(PIECES, SURROGATE, st.text(ANY_CHAR, max_size=3)), max_size=25).map("".join),
)


@pytest.mark.parametrize(
    "reply",
    ["[[t\u0131e]]", "[[T\u0130E]]", "T\u0130E", "t\u0131e", "Verdict: t\u0131e",
     "My final verdict: [[T\u0130E]]", "**t\u0131e**", "Answer \uff21"],
)  # fmt: skip
@pytest.mark.parametrize("verdict_format", ["label", "explained"])
def test_a_label_with_a_non_ascii_letter_is_a_parse_failure(
    reply: str, verdict_format: str
) -> None:
    reading = parse_verdict(reply, verdict_format)  # type: ignore[arg-type]
    assert isinstance(reading, ParseFailure)
    assert reading.raw == reply
    assert reading.reason.startswith("no verdict slot")


@pytest.mark.parametrize("key", ["verd\u0131ct", "VERD\u0130CT", "\u0430nswer", "decisi\u03bfn"])
@pytest.mark.parametrize("verdict_format", ["label", "explained"])
def test_a_keyed_slot_whose_key_is_a_look_alike_is_no_slot(key: str, verdict_format: str) -> None:
    assert isinstance(parse_verdict(f"{key}: A", verdict_format), ParseFailure)  # type: ignore[arg-type]
    # The genuine key still reads, in any ASCII case.
    assert parse_verdict("VERDICT: A", verdict_format) is Verdict.A  # type: ignore[arg-type]


def test_a_look_alike_keyed_line_is_no_slot_before_a_real_verdict() -> None:
    # Not a second slot either: the reply is read from its one real slot.
    assert parse_verdict("verd\u0131ct: B\nSo, [[A]]", "explained") is Verdict.A


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [("[[TiE]]", Verdict.TIE), ("tIe", Verdict.TIE), ("[[c]]", Verdict.TIE),
     ("Final Verdict: b", Verdict.B), ("\t A \t", Verdict.A)],
)  # fmt: skip
def test_ascii_case_and_whitespace_still_fold(reply: str, verdict: Verdict) -> None:
    assert parse_verdict(reply, "explained") is verdict


@pytest.mark.parametrize("value", ["T\u0130E", "t\u0131e", "\uff21", "\u0412"])
def test_a_json_verdict_with_a_look_alike_is_a_parse_failure(value: str) -> None:
    reading = parse_verdict(f'{{"verdict": "{value}"}}', "json")
    assert isinstance(reading, ParseFailure)
    assert "must be" in reading.reason
    assert parse_verdict('{"verdict": " TIE "}', "json") is Verdict.TIE


def test_a_rubric_key_with_a_look_alike_letter_is_no_dimension() -> None:
    rubric = get_rubric("production")
    kelvin = '{"accuracy": 4, "relevance": 5, "usefulness": 3}'.replace("usefulness", "USEFULNESS")
    assert parse_scores(kelvin, rubric).scores["usefulness"] == 3  # type: ignore[union-attr]
    planted = '{"accuracy": 4, "relevance": 5, "u\u017fefulness": 3}'  # long s folds to "s"
    reading = parse_scores(planted, rubric)
    assert isinstance(reading, ParseFailure)
    assert "'usefulness' is missing" in reading.reason


def test_a_score_of_thousands_of_digits_is_off_the_scale() -> None:
    rubric = get_rubric("production")
    reading = parse_score_label("9" * 5000, rubric, "accuracy")
    assert isinstance(reading, ParseFailure)
    assert "outside the scale 1-5" in reading.reason
    assert len(reading.reason) < 200
    assert parse_score_label("-000000000000000000000000004", rubric, "accuracy").reason.endswith(
        "-4 is outside the scale 1-5"  # type: ignore[union-attr]
    )
    assert expected_score({"4" * 5000: -0.1, "4": math.log(0.5)}, rubric).expected == 4.0  # type: ignore[union-attr]


def test_json_nested_nearly_as_deep_as_the_decoder_allows_is_a_parse_failure() -> None:
    rubric = get_rubric("production")
    for depth in (980, 990, 995, 1000, 5000):
        nested = "[" * depth + "]" * depth
        scores = '{"accuracy": ' + nested + ', "relevance": 5, "usefulness": 3}'
        assert isinstance(parse_scores(scores, rubric), ParseFailure)
        assert isinstance(parse_verdict('{"verdict": ' + nested + "}", "json"), ParseFailure)


def test_fold_is_ascii_only() -> None:
    assert fold(" \tVeRdIcT\n") == "verdict"
    assert fold("T\u0130E") == "t\u0130e"
    assert fold("\u212a") == "\u212a"
    assert fold("\u00a0A\u00a0") == "\u00a0a\u00a0"  # only ASCII whitespace is trimmed


@settings(max_examples=400)
@given(reply=REPLIES, verdict_format=st.sampled_from(FORMATS))
def test_every_template_format_reads_any_text_as_a_verdict_or_a_parse_failure(
    reply: str, verdict_format: str
) -> None:
    reading = parse_verdict(reply, verdict_format)  # type: ignore[arg-type]
    assert isinstance(reading, Verdict | ParseFailure)
    if isinstance(reading, ParseFailure):
        assert reading.raw == reply
        assert reading.reason


@settings(max_examples=400)
@given(reply=REPLIES, rubric=st.sampled_from(RUBRICS), data=st.data())
def test_every_rubric_mode_reads_any_text_as_scores_or_a_parse_failure(
    reply: str, rubric: object, data: st.DataObject
) -> None:
    from fairjudge.prompts import Rubric

    assert isinstance(rubric, Rubric)
    reading = parse_scores(reply, rubric)
    if not isinstance(reading, ParseFailure):
        assert set(reading.scores) == set(rubric.names)
        low, high = rubric.scale
        assert all(low <= v <= high for v in reading.scores.values())
    dimension = data.draw(st.sampled_from(rubric.names))
    label = parse_score_label(reply, rubric, dimension)
    if not isinstance(label, ParseFailure):
        assert list(label.scores) == [dimension]
    tokens = data.draw(st.dictionaries(REPLIES, st.floats(allow_nan=True), max_size=6))
    for context in (ScoreContext(rubric), ScoreContext(rubric, dimension)):
        reply_read = read_scores(Completion(reply, top_logprobs=tokens), context)
        assert (reply_read.reading is None) != (reply_read.failure is None)


@given(tokens=st.dictionaries(REPLIES, st.floats(allow_nan=True, allow_infinity=True)))
def test_logprob_tokens_of_any_text_give_probabilities_or_none(
    tokens: dict[str, float],
) -> None:
    probabilities = probabilities_from_logprobs(tokens)
    if probabilities is not None:
        assert 0.0 <= probabilities.a + probabilities.b + probabilities.tie <= 1.0 + 1e-9


@given(label=st.sampled_from(["A", "B", "tie"]), junk=st.text(ANY_CHAR, min_size=1, max_size=2))
def test_a_logprob_token_with_a_non_ascii_letter_counts_for_no_label(label: str, junk: str) -> None:
    token = label + junk
    if fold(token.strip(" \t\n\r\x0b\x0c\"'*`[](){}.:,")) in {"a", "b", "tie", "ti", "c"}:
        return  # the junk was only decoration
    assert probabilities_from_logprobs({token: 0.0}) is None


def test_no_look_alike_is_believed_and_no_text_raises() -> None:
    tally = count_offline(random_replies=500)
    assert tally.tried > 5000
    assert (tally.believed, tally.tracebacks) == (0, 0)
    assert tally.unreadable > 0.99 * tally.tried
