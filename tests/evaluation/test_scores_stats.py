"""The score collapse rule: three used levels do not trip the adjacent-share alarm."""

from __future__ import annotations


def test_three_levels_do_not_trip_the_adjacent_share_alarm() -> None:
    from fairjudge.evaluation._scores_stats import CollapseRule, collapse_of

    spread = collapse_of({1: 5, 2: 50, 3: 45}, CollapseRule())
    assert spread.reason is None or "of scores are" not in spread.reason


def test_score_reports_human_agreement_at_calibrates_gate() -> None:
    """One default: ``score``'s human agreement is gated where ``calibrate`` gates.

    ``human_agreement`` (evaluation) may not import ``audit.MIN_SPEARMAN``; it leaves the
    threshold to :func:`fairjudge.stats.score_correlation`, whose default is the same.
    """
    import inspect

    from fairjudge.audit import MIN_SPEARMAN
    from fairjudge.evaluation._scores_stats import human_agreement
    from fairjudge.stats import CorrelationResult, score_correlation

    default = inspect.signature(score_correlation).parameters["min_spearman"].default
    assert default == MIN_SPEARMAN
    boot = {"seed": 0, "level": 0.95, "n_resamples": 50}
    found = human_agreement([1, 2, 3, 4, 5], [1, 3, 2, 5, 4], list("abcde"), **boot)
    assert isinstance(found, CorrelationResult)
    assert found.min_spearman == MIN_SPEARMAN
    given = human_agreement([1, 2, 3, 4, 5], [1, 3, 2, 5, 4], list("abcde"), min_spearman=0.2,
                            **boot)  # fmt: skip
    assert isinstance(given, CorrelationResult)
    assert given.min_spearman == 0.2
