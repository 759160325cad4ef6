"""One row passed as a dict is named as such, with the fix (QA40 F6).

``fairjudge.compare(row, judge)`` iterated the dict's keys and said "items[0] must be
a dict ...; got 'question'", as if no dict had been given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import longer, scorer

PAIR = {"question": "q", "answer_1": "a", "answer_2": "b"}
ANSWER = {"question": "q", "answer": "a", "system": "s"}


@pytest.mark.parametrize(
    ("run", "row", "judge"),
    [(fairjudge.compare, PAIR, longer), (fairjudge.score, ANSWER, scorer)],
)
def test_one_dict_says_to_wrap_it_in_a_list(
    run: Callable[..., Any], row: dict[str, str], judge: Any
) -> None:
    with pytest.raises(fairjudge.ConfigError) as info:
        run(row, judge)
    message = str(info.value)
    assert message.startswith(
        "items is one dict; pass a list of dicts ([row]), a path or a DataFrame; got {'question'"
    )
    assert "items[0]" not in message


def test_a_list_holding_a_non_dict_is_still_named_by_its_index() -> None:
    with pytest.raises(fairjudge.ConfigError, match=r"items\[1\] must be a dict"):
        fairjudge.compare([PAIR, "row"], longer)
