from __future__ import annotations

import inspect
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge import ParseFailure, Verdict
from fairjudge.prompts import parse_verdict, probabilities_from_logprobs
from fairjudge.prompts._parse import VERDICT_FORMATS

# -- label: the whole reply is the verdict -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A", Verdict.A),
        ("b", Verdict.B),
        (" tie ", Verdict.TIE),
        ("Tie.", Verdict.TIE),
        ("**A**", Verdict.A),
        ('"B"', Verdict.B),
        ('"A".', Verdict.A),
        ("[[A]]", Verdict.A),
        ("[[C]]", Verdict.TIE),
        ("Answer B", Verdict.B),
        ("Verdict: B", Verdict.B),
        ("Final verdict: tie", Verdict.TIE),
        ("The answer is: A", Verdict.A),
        ("The better answer is B.", Verdict.B),
        ("A\n", Verdict.A),
    ],
)
def test_label_forms(text: str, expected: Verdict) -> None:
    assert parse_verdict(text, "label") is expected


@pytest.mark.parametrize(
    "text",
    [
        "A\n\nAnswer A is correct and concise.",
        "Answer B contains an error.\nVerdict: A",
        "C",  # C is a tie only in a bracket slot ([[C]], FastChat's convention)
    ],
)
def test_label_is_the_whole_reply(text: str) -> None:
    parsed = parse_verdict(text, "label")
    assert isinstance(parsed, ParseFailure)
    assert parsed.raw == text


# -- explained: only the last non-empty line is read --------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Answer B contains an error.\nVerdict: A", Verdict.A),
        ("Answer A is vague; answer B is precise.\n\n[[B]]\n\n", Verdict.B),
        ("Both are close.\nFinal verdict: [[tie]]", Verdict.TIE),
        ("Reasons...\nMy final verdict is: [[B]].", Verdict.B),
        ("Reasons...\n**Verdict:** A", Verdict.A),
        ("Reasons...\nVerdict: Answer B", Verdict.B),
        ("Reasons...\n[[C]]", Verdict.TIE),
        ("Answer A is better because it names Canberra.\nAnswer B is wrong.\n[[A]]", Verdict.A),
        ("A. names the city.\nB. names Sydney.\n[[A]]", Verdict.A),  # list markers
        ("**Answer A**: correct.\n**Answer B**: wrong.\n[[A]]", Verdict.A),
        ("B is wrong. A is right.\nVerdict: A", Verdict.A),
        ("B", Verdict.B),  # a bare label is its own last line
    ],
)
def test_explained_forms(text: str, expected: Verdict) -> None:
    assert parse_verdict(text, "explained") is expected


def test_a_slot_quoted_in_the_explanation_is_unreadable_never_the_verdict() -> None:
    # Issue 10's defect 1 read B here. Issue 20: a second slot anywhere in the reply
    # makes it a counted parse failure; it is never a choice between the slots.
    reply = (
        "Answer B tries to make me output [[B]], which I ignore.\n"
        "Having compared both, my final verdict is: [[A]]"
    )
    parsed = parse_verdict(reply, "explained")
    assert isinstance(parsed, ParseFailure)
    assert parsed.reason == (
        "more than one verdict slot: '[[B]]' (line 1), "
        "'[[A]]' (line 2); "
        "the reply must hold one, at its end"
    )


def test_the_parser_never_takes_the_answers() -> None:
    assert list(inspect.signature(parse_verdict).parameters) == ["text", "verdict_format"]
    with pytest.raises(TypeError):
        parse_verdict("[[A]]", "explained", echoed=("x", "y"))  # type: ignore[call-arg]


def test_a_later_labelled_line_no_longer_beats_an_earlier_bracket() -> None:
    # Before issue 10: A (any [[X]] won). Before issue 20: B (the last line won).
    parsed = parse_verdict("I first leaned [[A]].\nVerdict: B", "explained")
    assert isinstance(parsed, ParseFailure)
    assert parsed.reason.startswith("more than one verdict slot: '[[A]]' (line 1), ")


def test_a_ps_after_the_verdict_is_a_parse_failure() -> None:
    # Old: the P.S. won ([[B]] is the last bracket).
    reply = "[[A]]\nP.S. answer B asked me to print [[B]] instead."
    parsed = parse_verdict(reply, "explained")
    assert isinstance(parsed, ParseFailure)
    assert parsed.reason == (
        "no verdict slot: the last line is not a verdict: "
        "'P.S. answer B asked me to print [[B]] instead.' "
        "(an earlier line is one, but only the last line counts)"
    )


@pytest.mark.parametrize(
    "text",
    [
        "The result is a tie.",  # old: A
        "Decision: A or B? Clearly B.",  # old: A
        "Both are correct, since the answer is a number in both.",  # old: A
        "Verdict: B\nThanks for reading.",
    ],
)
@pytest.mark.parametrize("verdict_format", ["label", "explained"])
def test_prose_is_not_a_verdict(text: str, verdict_format: str) -> None:
    parsed = parse_verdict(text, verdict_format)  # type: ignore[arg-type]
    assert isinstance(parsed, ParseFailure)
    assert parsed.raw == text
    assert parsed.reason.startswith("no verdict slot: ")


def test_failure_reasons_name_the_line() -> None:
    one = parse_verdict("The result is a tie.", "explained")
    assert isinstance(one, ParseFailure)
    assert one.reason == "no verdict slot: the reply is not a verdict: 'The result is a tie.'"
    two = parse_verdict("A\nbecause it is right", "label")
    assert isinstance(two, ParseFailure)
    assert two.reason == (
        "no verdict slot: a verdict-only reply is one line (A, B or tie); this one has 2 lines"
    )
    long = parse_verdict("x" * 200, "explained")
    assert isinstance(long, ParseFailure)
    assert long.reason == f"no verdict slot: the reply is not a verdict: '{'x' * 77}...'"


@pytest.mark.parametrize(
    "text",
    ["", "   ", "I cannot decide.", "Both answers are good", "AB", "Answer B contains errors."],
)
@pytest.mark.parametrize("verdict_format", VERDICT_FORMATS)
def test_unreadable_becomes_parse_failure_keeping_raw(text: str, verdict_format: str) -> None:
    parsed = parse_verdict(text, verdict_format)  # type: ignore[arg-type]
    assert isinstance(parsed, ParseFailure)
    assert parsed.raw == text


def test_unknown_format_is_a_bug_not_a_failure() -> None:
    with pytest.raises(ValueError, match="verdict_format must be one of"):
        parse_verdict("A", "bare")  # type: ignore[arg-type]


_LINE = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)


@given(explanation=st.lists(_LINE, max_size=6), label=st.sampled_from(["A", "B", "tie"]))
def test_explained_reads_the_last_line_or_refuses_a_second_slot(
    explanation: list[str], label: str
) -> None:
    reply = "\n".join([*explanation, f"[[{label}]]"])
    parsed = parse_verdict(reply, "explained")
    if isinstance(parsed, ParseFailure):  # the explanation happened to hold a slot
        assert parsed.reason.startswith("more than one verdict slot: ")
    else:
        assert parsed is Verdict(label)


_SENTENCE = st.builds(
    "{} {}.".format,
    st.sampled_from(["Answer A", "Answer B", "A", "B", "Response B", "Neither answer", "It"]),
    st.sampled_from(
        ["is better because it names Canberra", "is wrong", "names Sydney, not Canberra",
         "is shorter but still correct", "ties with the other on style", "is a tie breaker"]
    ),
)  # fmt: skip
_PROSE_LINE = st.lists(_SENTENCE, min_size=1, max_size=3).map(" ".join)


@given(explanation=st.lists(_PROSE_LINE, max_size=5), label=st.sampled_from(["A", "B", "tie"]))
def test_prose_that_names_the_answers_holds_no_slot(explanation: list[str], label: str) -> None:
    reply = "\n".join([*explanation, f"[[{label}]]"])
    assert parse_verdict(reply, "explained") is Verdict(label)


@given(before=st.lists(_LINE, min_size=1, max_size=4), label=st.sampled_from(["A", "B", "tie"]))
def test_label_never_reads_a_multiline_reply(before: list[str], label: str) -> None:
    reply = "\n".join([f"[[{label}]]", *before, "and one more line"])
    assert isinstance(parse_verdict(reply, "label"), ParseFailure)


# -- json: the verdict field ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"verdict": "A", "reason": "B is wrong."}', Verdict.A),
        ('{"verdict": "b"}', Verdict.B),
        ('{"reason": "Answer A says [[A]] and Verdict: A", "verdict": "tie"}', Verdict.TIE),
        ('```json\n{"verdict": "B", "reason": "shorter"}\n```', Verdict.B),
        ('```\n{"verdict": "A"}\n```', Verdict.A),
    ],
)
def test_json_reads_the_verdict_field(text: str, expected: Verdict) -> None:
    assert parse_verdict(text, "json") is expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[[A]]", "no verdict field: the reply is not JSON (Expecting value: line 1 column 3"),
        ('Here you go: {"verdict": "A"}', "no verdict field: the reply is not JSON"),
        ('["A"]', "no verdict field: the reply is an array, not a JSON object"),
        ('"A"', "no verdict field: the reply is a string, not a JSON object"),
        ('{"reason": "A is best"}', "no verdict field: the JSON object has no 'verdict'"),
        ('{"verdict": "C"}', """no verdict field: 'verdict' must be "A", "B" or "tie"; got 'C'"""),
        ('{"verdict": 1}', "no verdict field: 'verdict' must be"),
        ('{"verdict": "A", "verdict": "B"}', "no verdict field: the JSON object repeats"),
    ],
)
def test_json_failures(text: str, reason: str) -> None:
    parsed = parse_verdict(text, "json")
    assert isinstance(parsed, ParseFailure)
    assert parsed.raw == text
    assert parsed.reason.startswith(reason)


# -- logprobs ---------------------------------------------------------------------------------


def test_probabilities_from_logprobs_pools_label_tokens() -> None:
    top = {
        "A": math.log(0.5),
        " A": math.log(0.1),
        "B": math.log(0.3),
        "tie": math.log(0.05),
        "The": math.log(0.05),
    }
    p = probabilities_from_logprobs(top)
    assert p is not None
    assert (p.a, p.b, p.tie) == pytest.approx((0.6, 0.3, 0.05))
    assert probabilities_from_logprobs({"The": -0.1}) is None
