"""A scoring panel in the library: aggregation rules, weights, failures, diagnostics."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from fairjudge import ConfigError, ScoreItem
from fairjudge.evaluation import JuryScoreResult, score_jury_diagnostics, score_with_jury
from fairjudge.evaluation._panel import aggregate_scores, weighted_median
from fairjudge.judges import CallablePointwiseJudge, MemberSpec, PointwiseJury
from fairjudge.judges._pointwise import PointwiseMember
from fairjudge.stats import krippendorff_alpha
from tests import panel_scorers as ps

Scorer = Callable[[str, str], dict[str, int]]
BOOT = {"n_resamples": 200}


def jury(*members: tuple[str, Scorer] | tuple[str, Scorer, float]) -> PointwiseJury:
    return PointwiseJury(
        [PointwiseMember(m[0], CallablePointwiseJudge(m[1]), *m[2:]) for m in members]
    )


def items(digits: str) -> list[ScoreItem]:
    return [ScoreItem(f"question {i}", f"{d} answer", id=str(i)) for i, d in enumerate(digits)]


def constant(level: int) -> Scorer:
    return lambda q, a: dict.fromkeys(ps.DIMENSIONS, level)


def test_weighted_median_and_mean_as_documented() -> None:
    assert weighted_median([1, 2, 5], [1, 1, 1]) == 2.0
    assert weighted_median([1, 2, 3, 4], [1, 1, 1, 1]) == 2.5
    assert weighted_median([1, 2, 5], [1, 1, 3]) == 5.0
    assert weighted_median([5, 1], [1, 1]) == 3.0
    assert aggregate_scores([1, 2, 5], [1, 1, 1], "mean") == pytest.approx(8 / 3)
    assert aggregate_scores([1, 2, 5], [1, 1, 3], "mean") == pytest.approx(3.6)
    # a member without a score has no say; the rest need more than half the weight
    assert aggregate_scores([1, None, 5], [1, 1, 1], "mean") == 3.0
    assert aggregate_scores([1, None, None], [1, 1, 1], "mean") is None
    assert aggregate_scores([None, 4], [1, 1], "median") is None
    assert aggregate_scores([None, 4], [1, 2], "median") == 4.0


def test_mean_and_median_per_dimension() -> None:
    panel = jury(("one", constant(1)), ("two", constant(2)), ("five", constant(5)))
    result = score_with_jury(panel, items("12345"), **BOOT)
    assert [i.scores["accuracy"] for i in result.items] == [pytest.approx(8 / 3)] * 5
    assert result.dimensions[0].mean.estimate == pytest.approx(8 / 3)
    assert result.dimensions[0].histogram == {1: 0, 2: 0, 3: 5, 4: 0, 5: 0}  # nearest level
    median = result.with_aggregation("median")
    assert median.aggregation == "median"
    assert [i.scores["relevance"] for i in median.items] == [2.0] * 5
    assert median.dimensions[1].mean.estimate == 2.0
    # every member's own scores are kept and summarised as a one-judge run
    assert [m.dimensions[0].mean.estimate for m in result.members] == [1.0, 2.0, 5.0]
    assert result.items[0].member_scores("usefulness") == [1, 2, 5]
    assert (
        score_with_jury(panel, items("12345"), aggregation="median", **BOOT)
        .dimensions[2]
        .mean.estimate
        == 2.0
    )


def test_weights_change_the_aggregate_as_documented() -> None:
    panel = jury(("one", constant(1), 1.0), ("two", constant(2), 1.0), ("five", constant(5), 3.0))
    result = score_with_jury(panel, items("123"), **BOOT)
    assert result.weights == (1.0, 1.0, 3.0)
    assert result.dimensions[0].mean.estimate == pytest.approx(3.6)  # (1 + 2 + 15) / 5
    # "five" holds 3 of 5: more than half, so the weighted median is its score
    assert result.with_aggregation("median").dimensions[0].mean.estimate == 5.0


def test_a_dissenting_member_shows_in_its_leave_one_out_correlation() -> None:
    members = [("a", ps.leading), ("b", ps.leading), ("c", ps.leading), ("dissent", ps.mirror)]
    result = score_with_jury(jury(*members), items("1234512345"), **BOOT)
    accuracy = score_jury_diagnostics(result).dimensions[0]
    rho = {m.name: m.with_rest for m in accuracy.members}
    for name in ("a", "b", "c"):  # the rest: (d + d + 6 - d) / 3, rising with d
        agrees = rho[name]
        assert not isinstance(agrees, str)
        assert agrees.spearman == pytest.approx(1.0)
    dissent = rho["dissent"]  # the rest: d; the dissenter: 6 - d
    assert not isinstance(dissent, str)
    assert dissent.spearman == pytest.approx(-1.0)
    assert dissent.spearman_ci.high == pytest.approx(-1.0)
    # the panel disagrees with itself: alpha far below 1
    assert not isinstance(accuracy.alpha_ordinal, str)
    assert accuracy.alpha_ordinal.alpha < 0.3


def test_a_constant_rest_gives_a_reason_not_a_number() -> None:
    members = [("a", ps.leading), ("b", ps.high), ("dissent", ps.mirror)]
    result = score_with_jury(jury(*members), items("1234512345"), **BOOT)
    rho = {m.name: m.with_rest for m in score_jury_diagnostics(result).dimensions[0].members}
    assert rho["b"] == "the other members' aggregate never varies: no rank correlation"


def test_three_copies_of_one_judge_are_one_judge_with_alpha_one() -> None:
    panel = jury(("a", ps.leading), ("b", ps.leading), ("c", ps.leading))
    result = score_with_jury(panel, items("1234512345"), **BOOT)
    for dim in score_jury_diagnostics(result).dimensions:
        assert not isinstance(dim.effective, str)
        assert dim.effective.estimate == pytest.approx(1.0)
        assert not isinstance(dim.alpha_ordinal, str)
        assert not isinstance(dim.alpha_interval, str)
        assert dim.alpha_ordinal.alpha == pytest.approx(1.0)
        assert dim.alpha_interval.alpha == pytest.approx(1.0)
        assert dim.n_complete == 10
        for m in dim.members:
            assert not isinstance(m.with_rest, str)
            assert m.with_rest.spearman == pytest.approx(1.0)


def test_independent_noisy_members_agree_less() -> None:
    digits = "1234554321" * 4
    copies = score_with_jury(
        jury(("a", ps.leading), ("b", ps.leading), ("c", ps.leading)), items(digits), **BOOT
    )
    noisy = score_with_jury(
        jury(("x", ps.noisy("x")), ("y", ps.noisy("y")), ("z", ps.noisy("z"))),
        items(digits),
        **BOOT,
    )
    same = score_jury_diagnostics(copies).dimensions[0]
    apart = score_jury_diagnostics(noisy).dimensions[0]
    assert not isinstance(apart.alpha_ordinal, str)
    assert not isinstance(same.alpha_ordinal, str)
    assert apart.alpha_ordinal.alpha < 0.8 < same.alpha_ordinal.alpha
    assert apart.alpha_ordinal.ci.high < 1.0
    assert not isinstance(apart.effective, str)
    assert apart.effective.estimate > 1.5
    # the point estimate is the plain krippendorff_alpha of the members' scores
    rows = [i.member_scores("accuracy") for i in noisy.items]
    assert apart.alpha_ordinal.alpha == pytest.approx(krippendorff_alpha(rows, "ordinal"))


def test_a_failing_member_is_outvoted_or_leaves_the_item_unscored() -> None:
    three = jury(("a", ps.leading), ("b", ps.fails_on_fives), ("c", ps.high))
    result = score_with_jury(three, items("1525"), **BOOT)
    # on the fives, a and c hold 2 of 3: aggregated from them alone
    expected = [4 / 3, 5.0, 7 / 3, 5.0]  # the fives: mean(5, 5) of a and c only
    assert [i.scores["accuracy"] for i in result.items] == pytest.approx(expected)
    assert result.n_unscored == 0
    assert result.members[1].n_call_errors == 2
    assert sum(result.failures.values()) == 2
    assert list(result.failures) == ["b: RuntimeError: scorer crashed"]

    two = jury(("a", ps.leading), ("b", ps.fails_on_fives))
    result = score_with_jury(two, items("1525"), **BOOT)
    # on the fives, a holds half the weight: no majority, so unscored (never imputed)
    assert [dict(i.scores) for i in result.items][1] == {}
    assert result.n_unscored == 2
    assert result.unscored == dict.fromkeys(ps.DIMENSIONS, 2)
    assert result.dimensions[0].n == 2
    assert result.dimensions[0].mean.estimate == 1.5

    heavier = jury(("a", ps.leading, 2.0), ("b", ps.fails_on_fives, 1.0))
    assert score_with_jury(heavier, items("15"), **BOOT).n_unscored == 0


def test_human_scores_are_compared_per_member_and_for_the_panel() -> None:
    rows = [
        ScoreItem(f"q{i}", f"{d} answer", human={"accuracy": float(d)})
        for i, d in enumerate("1234512345")
    ]
    result = score_with_jury(
        jury(("a", ps.leading), ("d", ps.mirror), ("b", ps.high)), rows, **BOOT
    )
    panel_human = result.dimensions[0].human
    assert panel_human is not None
    assert not isinstance(panel_human, str)
    diag = score_jury_diagnostics(result).dimensions[0]
    human = {m.name: m.human for m in diag.members}
    assert not isinstance(human["a"], str)
    assert human["a"] is not None
    assert human["a"].spearman == pytest.approx(1.0)
    assert not isinstance(human["d"], str)
    assert human["d"] is not None
    assert human["d"].spearman == pytest.approx(-1.0)
    assert diag.members[0].to_dict()["human_agreement"]["spearman"] == pytest.approx(1.0)


def test_records_keep_every_member_and_json_is_clean() -> None:
    result = score_with_jury(jury(("a", ps.leading), ("b", ps.high)), items("14"), **BOOT)
    records = list(result.records())
    assert records[0]["panel_scores"] == dict.fromkeys(ps.DIMENSIONS, 1.5)
    assert records[0]["members"]["b"]["scores"] == dict.fromkeys(ps.DIMENSIONS, 2)
    assert records[0]["members"]["a"]["calls"][0]["raw"]
    assert records[0]["jury"] == [{"name": "a", "weight": 1.0}, {"name": "b", "weight": 1.0}]
    assert "scores" not in records[0]  # not a one-judge baseline
    summary = result.to_dict()
    assert summary["aggregation"] == "mean"
    assert [m["name"] for m in summary["members"]] == ["a", "b"]
    assert math.isclose(summary["dimensions"][0]["mean"]["estimate"], 3.0)  # 1.5, 4.5


def test_specs_build_a_panel_of_callables_and_bad_panels_are_refused() -> None:
    specs = [
        MemberSpec("python:tests.panel_scorers:leading"),
        MemberSpec("python:tests.panel_scorers:leading"),
        MemberSpec("python:tests.panel_scorers:mirror", weight=2.0),
    ]
    result = score_with_jury(specs, items("15"), **BOOT)
    assert isinstance(result, JuryScoreResult)
    assert result.names == (
        "python:tests.panel_scorers:leading",
        "python:tests.panel_scorers:leading#2",
        "python:tests.panel_scorers:mirror",
    )
    assert [i.scores["accuracy"] for i in result.items] == [3.0, 3.0]
    with pytest.raises(ConfigError, match="at least two members"):
        jury(("a", ps.leading))
    with pytest.raises(ConfigError, match="weight must be a number > 0"):
        jury(("a", ps.leading), ("b", ps.high, 0.0))
    with pytest.raises(ConfigError, match="template does not apply"):
        PointwiseJury.from_specs([MemberSpec("openai/x", template="explain"), specs[0]])
    with pytest.raises(ConfigError, match="aggregation must be one of mean, median"):
        score_with_jury(jury(("a", ps.leading), ("b", ps.high)), items("1"), aggregation="majority")
    with pytest.raises(ConfigError, match="differs from the jury's own"):
        score_with_jury(jury(("a", ps.leading), ("b", ps.high)), items("1"), rubric="strict")
