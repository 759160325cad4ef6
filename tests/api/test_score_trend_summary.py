"""``fairjudge.score(..., baseline=...)``: the summary says what moved since the baseline.

``score --baseline`` prints a line per dimension ("accuracy fell by 0.92 [...] since the
baseline"); the notebook's ``summary()`` printed the scores only, so the trend the call
was made for was in ``to_dict()`` and nowhere a reader would look.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fairjudge
from fairjudge.evaluation import ScoreRun
from fairjudge.examples.judges import length_scorer, scorer

ANSWERS = Path(fairjudge.__file__).parent / "examples" / "score_answers.jsonl"


def test_summary_reads_the_trend_beside_the_scores() -> None:
    before = fairjudge.score(str(ANSWERS), scorer)
    base = ScoreRun.from_result(before.result)
    now = fairjudge.score(str(ANSWERS), length_scorer, baseline=base, allow_different=True)
    summary = now.summary()
    assert summary.startswith(str(now.result.summary()))
    for dimension in now.to_dict()["trend"]["dimensions"]:
        assert f"{dimension['dimension']} fell by" in summary
    assert "fell by" not in before.summary()  # no baseline: the scores only


def test_a_baseline_by_another_judge_is_refused_before_a_spec_opens() -> None:
    # The judge's spec is compared with the baseline's before it opens, as score
    # --baseline does (a model would load, or a server be asked, for nothing): this
    # module does not exist, so opening it first would have been the error.
    base = ScoreRun.from_result(fairjudge.score(str(ANSWERS), scorer).result)
    with pytest.raises(fairjudge.ConfigError) as caught:
        fairjudge.score(str(ANSWERS), "python:tests.no_such_module:scorer", baseline=base)
    assert "was not scored like this run" in str(caught.value)
    assert "this run python:tests.no_such_module:scorer" in str(caught.value)
