"""``stop_when``, ``batch`` and ``population`` are checked by the library before anything else.

``fairjudge.compare`` (and the via-scores run) reads them before the items are read
and before a judge opens, with the words the command line prints (there as flags:
``--batch applies with --stop-when only ...``), so ``compare``, ``jury`` and
``compare --via-scores`` no longer check them a second time.
"""

from __future__ import annotations

import pytest

import fairjudge
from fairjudge import ConfigError
from fairjudge._api import JudgeSetup, via_scores
from fairjudge.cli._flags import to_flags
from fairjudge.evaluation import EvalSettings
from fairjudge.prompts import get_rubric

ROWS = [{"question": f"q{i}", "answer_1": "a longer answer", "answer_2": "short"}
        for i in range(12)]  # fmt: skip
BROKEN = [{"question": "q", "answer_1": "a"}]  # no answer_2: the loader would refuse it


def _longer(question: str, answer_a: str, answer_b: str) -> str:
    return "A" if len(answer_a) >= len(answer_b) else "B"


@pytest.mark.parametrize(
    ("given", "param", "says"),
    [
        ({"stop_when": "soon"}, "stop_when", "stop_when has an unknown condition 'soon'"),
        ({"stop_when": "decided", "batch": 0}, "batch",
         "batch must be a whole number of questions >= 1; got 0"),
        ({"stop_when": "decided", "population": "files"}, "population",
         "population must be 'source' (questions like these"),
        ({"batch": 4}, "batch", "batch applies with stop_when only (it sets how many"),
    ],
)  # fmt: skip
def test_stop_settings_are_refused_before_the_items_are_read(
    given: dict[str, object], param: str, says: str
) -> None:
    # Before, the items were read first: these rows' InputError came instead.
    with pytest.raises(ConfigError) as caught:
        fairjudge.compare(BROKEN, _longer, **given)  # type: ignore[arg-type]
    assert says in str(caught.value)
    assert caught.value.params[0] == param


def test_the_messages_read_as_the_flags_on_the_command_line() -> None:
    with pytest.raises(ConfigError) as caught:
        fairjudge.compare(ROWS, _longer, population="file")
    assert to_flags(str(caught.value), caught.value.params) == (
        "--population applies with --stop-when only (it says what the adaptive interval is "
        "about); add --stop-when, or drop --population"
    )


def test_population_is_read_in_any_case() -> None:
    done = fairjudge.compare(ROWS, _longer, stop_when="decided", population=" File ")
    assert done.to_dict()["adaptive"]["population"] == "file"


def test_via_scores_checks_its_settings_before_the_items() -> None:
    rubric, settings = get_rubric("production"), EvalSettings()
    with pytest.raises(ConfigError) as caught:
        via_scores(None, [], settings, setup=JudgeSetup(), rubric=rubric, tie_margin=-1.0)
    assert str(caught.value) == "tie_margin must be >= 0; got -1.0"
    with pytest.raises(ConfigError) as caught:
        via_scores("python:m:f", [], settings, setup=JudgeSetup(), rubric=rubric, with_swap=True)
    assert caught.value.params == ("with_swap",)
    assert str(caught.value).startswith("with_swap needs a model judge: a python: judge")
    with pytest.raises(ConfigError) as caught:
        via_scores(None, [], settings, setup=JudgeSetup(), rubric=rubric, batch=2)
    assert caught.value.params == ("batch", "stop_when")
