"""A Python judge that returns a dict of labels hears what a dict means (QA40 F3).

``{"verdict": "A"}`` is read as probabilities and failed with Python's bare
"could not convert string to float: 'A'"; it is still a parse failure (never a tie),
with a reason that says what was expected and what to return.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairjudge._types import ParseFailure
from fairjudge.judges._callable import reply_from_value
from tests.cli._invoke import invoke


def test_a_dict_of_labels_is_a_parse_failure_saying_what_a_dict_means() -> None:
    reply = reply_from_value({"verdict": "A"})
    assert reply.verdict is None
    assert isinstance(reply.failure, ParseFailure)
    assert reply.failure.reason == (
        "judge returned dict {'verdict': 'A'}: a dict is read as probabilities "
        "{'A': p, 'B': p, 'tie': p} with numeric values; got 'A' for 'verdict'; return "
        "the label itself ('A', 'B' or 'tie') or such a dict"
    )
    assert "could not convert" not in reply.failure.reason


def test_a_none_probability_is_named_too() -> None:
    reply = reply_from_value({"A": None, "B": 0.5})
    assert isinstance(reply.failure, ParseFailure)
    assert "got None for 'A'" in reply.failure.reason


def test_other_dicts_read_as_before() -> None:
    assert reply_from_value({"A": 0.7, "B": "0.3"}).verdict is not None
    unknown = reply_from_value({"foo": 1}).failure
    assert isinstance(unknown, ParseFailure)
    assert unknown.reason == "probability keys must be 'A', 'B' and optionally 'tie'; got ['foo']"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    assert invoke("example-data", str(tmp_path)).exit_code == 0
    (tmp_path / "f3_dicts.py").write_text(
        'def adict(question, answer_1, answer_2):\n    return {"verdict": "A"}\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield tmp_path
    sys.modules.pop("f3_dicts", None)


def test_the_command_groups_the_new_reason(here: Path) -> None:
    done = invoke("compare", "demo_pairs.jsonl", "--judge", "python:f3_dicts:adict")
    assert done.exit_code == 4
    text = " ".join(done.stdout.split())
    assert "40 x parse failure: judge returned dict {'verdict': 'A'}: a dict is read as" in text
