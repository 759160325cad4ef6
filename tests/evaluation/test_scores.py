"""Per-dimension summaries, the collapse alarm, systems and their paired differences."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairjudge import ConfigError, ScoreItem
from fairjudge.backends import OpenAIBackend
from fairjudge.evaluation import CollapseRule, ScoreResult, score_answers
from fairjudge.evaluation._scores_stats import collapse_of
from fairjudge.judges import PointwiseJudge
from tests.score_server import answer_in, script
from tests.server import JudgeServer

ITEMS = [ScoreItem(f"question {i}?", f"answer {i}") for i in range(20)]


def _run_server_judge(server: JudgeServer, tmp_path: Path, level_of: dict[int, int]) -> ScoreResult:
    def scorer(prompt: str) -> str:
        level = level_of[int(answer_in(prompt).split()[1])]
        return json.dumps({"accuracy": level, "relevance": level, "usefulness": level})

    script(server, scorer)
    backend = OpenAIBackend("scripted-judge", base_url=server.base_url)
    with PointwiseJudge(backend, store=tmp_path / "s.sqlite") as judge:
        return score_answers(judge, ITEMS, n_resamples=200)


def test_a_judge_that_says_four_to_everything_trips_the_alarm(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    result = _run_server_judge(score_server, tmp_path, dict.fromkeys(range(20), 4))
    assert result.collapsed == ["accuracy", "relevance", "usefulness"]
    collapse = result.dimensions[0].collapse
    assert collapse.adjacent_share == 1.0
    assert collapse.spread == 0.0
    assert collapse.reason == (
        "100% of scores are 4 (>= 90%); spread 0.00 < 0.20 (standard deviation 0.00 of "
        "at most 2 on 1-5)"
    )
    assert result.to_dict()["collapsed"] == ["accuracy", "relevance", "usefulness"]
    assert result.dimensions[0].mean.estimate == 4.0


def test_a_judge_that_spreads_its_scores_does_not(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    result = _run_server_judge(score_server, tmp_path, {i: 1 + i % 5 for i in range(20)})
    assert result.collapsed == []
    collapse = result.dimensions[0].collapse
    assert collapse.collapsed is False
    assert collapse.adjacent_share == pytest.approx(0.2)
    assert collapse.spread == pytest.approx(math.sqrt(2) / 2)
    assert result.dimensions[0].histogram == {1: 4, 2: 4, 3: 4, 4: 4, 5: 4}
    assert result.dimensions[0].median == 3.0


def test_collapse_thresholds() -> None:
    rule = CollapseRule()
    # On 1-10 the band is two adjacent levels: 90% on 7 or 8 trips it, 85% does not.
    ten = dict.fromkeys(range(1, 11), 0)
    tripped = collapse_of({**ten, 2: 1, 5: 1, 7: 9, 8: 9}, rule)
    assert (tripped.collapsed, tripped.adjacent_share) == (True, 0.9)
    assert tripped.adjacent_levels == (7, 8)
    assert tripped.reason == "90% of scores are 7 or 8 (>= 90%)"
    near = collapse_of({**ten, 2: 1, 4: 1, 5: 1, 7: 9, 8: 8}, rule)
    assert (near.collapsed, near.adjacent_share) == (False, 0.85)
    assert near.spread == pytest.approx(0.3363, abs=1e-4)
    # Every score on the two ends of the scale is the widest spread there is.
    split = collapse_of({1: 10, 2: 0, 3: 0, 4: 0, 5: 10}, rule)
    assert (split.collapsed, split.adjacent_share, split.spread) == (False, 0.5, 1.0)
    assert split.reason is None
    # Too few scores: not assessed either way.
    few = collapse_of({1: 0, 2: 0, 3: 0, 4: 9, 5: 0}, rule)
    assert few.collapsed is None
    assert few.reason == "not assessed: 9 scores < 10"
    with pytest.raises(ConfigError, match="max_adjacent_share"):
        CollapseRule(max_adjacent_share=0)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=10, max_size=60))
def test_alarm_and_spread_are_bounded(scores: list[int]) -> None:
    histogram = {level: scores.count(level) for level in range(1, 6)}
    collapse = collapse_of(histogram, CollapseRule())
    assert collapse.spread is not None
    assert 0.0 <= collapse.spread <= 1.0
    assert collapse.spread == pytest.approx(float(np.std(scores)) / 2)
    assert collapse.adjacent_share is not None
    # On 1-5 the band is one level, and the most-used of five holds at least 1/5.
    assert 0.2 - 1e-9 <= collapse.adjacent_share <= 1.0
    if len(set(scores)) == 1 or float(np.std(scores)) < 0.4 - 1e-9:
        assert collapse.collapsed is True
    if float(np.std(scores)) >= 0.4 and max(map(scores.count, set(scores))) < 0.9 * len(scores):
        assert collapse.collapsed is False


def _two_systems() -> list[ScoreItem]:
    items = []
    for q in range(8):
        items.append(ScoreItem(f"q{q}?", f"{1 + q % 3}", id=str(q), system="new"))
        items.append(ScoreItem(f"q{q}?", f"{1 + (q + 1) % 3}", id=str(q), system="old"))
    return items


def _by_answer(question: str, answer: str) -> dict[str, int]:
    level = int(answer)
    return {"accuracy": level + 2, "relevance": 3, "usefulness": 3}


def test_paired_differences_between_systems() -> None:
    result = score_answers(_by_answer, _two_systems(), seed=7, n_resamples=500)
    assert [s.system for s in result.systems] == ["new", "old"]
    diff = next(d for d in result.differences if d.dimension == "accuracy")
    # new - old per question: levels (1,2,3,1,2,3,1,2) vs (2,3,1,2,3,1,2,3).
    per_q = [(1 + q % 3) - (1 + (q + 1) % 3) for q in range(8)]
    assert diff.difference.estimate == pytest.approx(sum(per_q) / 8)
    assert diff.n_questions == 8
    assert diff.difference.ci.estimable
    same = next(d for d in result.differences if d.dimension == "relevance")
    assert (same.difference.estimate, same.difference.ci.low, same.difference.ci.high) == (
        0.0, 0.0, 0.0,
    )  # fmt: skip
    again = score_answers(_by_answer, _two_systems(), seed=7, n_resamples=500)
    assert again.to_dict() == result.to_dict()  # the same seed, the same intervals


def test_one_question_is_not_estimable() -> None:
    result = score_answers(_by_answer, [ScoreItem("q?", "1"), ScoreItem("q?", "2")])
    ci = result.dimensions[0].mean.ci
    assert not ci.estimable
    assert ci.reason == "one question: the bootstrap cannot vary"
    assert result.dimensions[0].mean.estimate == 3.5


def test_human_scores_are_correlated_per_dimension() -> None:
    items = [
        ScoreItem(f"q{i}?", str(1 + i % 3), human={"accuracy": float(i % 3)}) for i in range(9)
    ]
    result = score_answers(_by_answer, items, n_resamples=200)
    human = result.dimensions[0].human
    assert human is not None
    assert not isinstance(human, str)
    assert human.spearman == pytest.approx(1.0)
    assert result.dimensions[1].human is None


def test_systems_on_some_items_only_are_refused() -> None:
    items = [ScoreItem("q?", "1", id="a", system="x"), ScoreItem("q?", "2", id="b")]
    with pytest.raises(ConfigError, match="names no system"):
        score_answers(_by_answer, items)


def test_reference_rubric_needs_references() -> None:
    with pytest.raises(ConfigError, match="needs a reference"):
        score_answers(lambda q, a: {}, [ScoreItem("q?", "a", id="1")], rubric="reference")
