"""The score collapse rule: three used levels do not trip the adjacent-share alarm."""

from __future__ import annotations


def test_three_levels_do_not_trip_the_adjacent_share_alarm() -> None:
    from fairjudge.evaluation._scores_stats import CollapseRule, collapse_of

    spread = collapse_of({1: 5, 2: 50, 3: 45}, CollapseRule())
    assert spread.reason is None or "of scores are" not in spread.reason
