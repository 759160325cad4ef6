"""The collapse alarm measures a lack of discrimination.

Before, the alarm also tripped on a normalised entropy below 0.5, which counts how many
levels are used and not how far apart they are: the README's example (scores of 1 and
5 only, entropy 0.42, paired difference -3.40 [-4.00, -2.80]) was flagged as "the
judge barely tells answers apart". Now a dimension is collapsed when 90% of its scores
sit in a band no wider than a fifth of the scale, or when their standard deviation is
under a fifth of the largest the scale allows (the "spread").
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.evaluation import CollapseRule
from fairjudge.evaluation._scores_stats import collapse_of
from tests.cli_process import fairjudge, flat

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "examples/score_answers.jsonl"
RULE = CollapseRule()
FIVE = dict.fromkeys(range(1, 6), 0)
TEN = dict.fromkeys(range(1, 11), 0)


def near_flat(question: str, answer: str) -> dict[str, int]:
    """A judge that says 4 to everything but answers starting with 'x' (3): near-flat."""
    level = 3 if answer.startswith("x") else 4
    return {"accuracy": level, "relevance": level, "usefulness": level}


def test_bimodal_scores_on_both_ends_are_not_a_collapse() -> None:
    # The README example's accuracy: 17 ones and 23 fives (normalised entropy 0.42).
    c = collapse_of({**FIVE, 1: 17, 5: 23}, RULE)
    assert c.collapsed is False
    assert c.reason is None
    assert c.spread == pytest.approx(4 * math.sqrt(0.425 * 0.575) / 2)
    assert c.spread == pytest.approx(0.9887, abs=1e-4)
    assert (c.adjacent_share, c.adjacent_levels) == (0.575, (5, 5))
    # Exactly half on each end is the widest spread a scale allows.
    assert collapse_of({**FIVE, 1: 10, 5: 10}, RULE).spread == 1.0


def test_uniform_scores_are_not_a_collapse() -> None:
    c = collapse_of({1: 4, 2: 4, 3: 4, 4: 4, 5: 4}, RULE)
    assert c.collapsed is False
    assert c.spread == pytest.approx(math.sqrt(2) / 2)  # 0.7071
    assert c.adjacent_share == 0.2


def test_flat_scores_trip_both_tests() -> None:
    c = collapse_of({**FIVE, 4: 20}, RULE)
    assert c.collapsed is True
    assert (c.spread, c.adjacent_share, c.adjacent_levels) == (0.0, 1.0, (4, 4))
    assert c.reason == (
        "100% of scores are 4 (>= 90%); spread 0.00 < 0.20 (standard deviation 0.00 of "
        "at most 2 on 1-5)"
    )


def test_near_flat_scores_trip_the_spread_test() -> None:
    # 85% on one level: under the band's 90%, but a standard deviation of 0.36 of 2.
    c = collapse_of({**FIVE, 3: 3, 4: 17}, RULE)
    assert c.collapsed is True
    assert c.adjacent_share == 0.85
    assert c.spread == pytest.approx(0.1785, abs=1e-4)
    assert c.reason == "spread 0.18 < 0.20 (standard deviation 0.36 of at most 2 on 1-5)"
    # 80% on one level is a standard deviation of 0.40 exactly: on the threshold, not under.
    edge = collapse_of({**FIVE, 3: 4, 4: 16}, RULE)
    assert edge.collapsed is False
    assert edge.spread == pytest.approx(0.2)


def test_two_adjacent_levels_of_one_to_five_still_sort_answers() -> None:
    # The README example's relevance: 17 threes and 23 fours, a paired difference of -0.85.
    c = collapse_of({**FIVE, 3: 17, 4: 23}, RULE)
    assert c.collapsed is False
    assert c.spread == pytest.approx(0.2472, abs=1e-4)
    # The same two levels with nine scores in ten on one of them are a collapse.
    assert collapse_of({**FIVE, 3: 2, 4: 18}, RULE).reason == (
        "90% of scores are 4 (>= 90%); spread 0.15 < 0.20 (standard deviation 0.30 of at "
        "most 2 on 1-5)"
    )


def test_on_one_to_ten_the_band_is_two_adjacent_levels() -> None:
    # The rule of thumb: 90% of outputs scored 7-8 on 1-10 is too concentrated, even
    # when the other 10% lie far away (spread 0.45, above 0.2).
    c = collapse_of({**TEN, 1: 2, 7: 9, 8: 9}, RULE)
    assert c.collapsed is True
    assert (c.adjacent_share, c.adjacent_levels) == (0.9, (7, 8))
    assert c.spread == pytest.approx(0.4460, abs=1e-4)
    assert c.reason == "90% of scores are 7 or 8 (>= 90%)"
    # Three adjacent levels used equally: 67% in the band, but a spread of 0.18.
    three = collapse_of({**TEN, 6: 10, 7: 10, 8: 10}, RULE)
    assert three.collapsed is True
    assert three.spread == pytest.approx(0.1814, abs=1e-4)
    assert three.reason == "spread 0.18 < 0.20 (standard deviation 0.82 of at most 4.5 on 1-10)"


def test_on_zero_to_ten_the_band_is_three_levels() -> None:
    c = collapse_of({**dict.fromkeys(range(11), 0), 0: 2, 6: 6, 7: 6, 8: 6}, RULE)
    assert (c.adjacent_share, c.adjacent_levels) == (0.9, (6, 8))
    assert c.reason is not None
    assert c.reason.startswith("90% of scores are 6 to 8 (>= 90%)")


def test_the_rule_checks_its_thresholds_and_reports_them() -> None:
    assert RULE.to_dict() == {
        "max_adjacent_share": 0.9, "band_width": 0.2, "min_spread": 0.2, "min_n": 10,
    }  # fmt: skip
    with pytest.raises(ConfigError, match=r"band_width must be in \[0, 1\); got 1"):
        CollapseRule(band_width=1)
    with pytest.raises(ConfigError, match=r"min_spread must be in \[0, 1\]; got 1.5"):
        CollapseRule(min_spread=1.5)


def test_the_readme_example_raises_no_alarm_and_fail_on_collapse_exits_0() -> None:
    done = fairjudge(
        "score", EXAMPLE, "--judge", "python:examples.judges:scorer", "--fail-on-collapse"
    )
    assert done.returncode == 0, done.stderr
    assert "collapse alarm" not in done.stdout + done.stderr
    assert "COLLAPSED" not in done.stdout
    assert "-3.40 [-4.00, -2.80]" in flat(done.stdout)
    # Only the runner's progress lines (a Python judge runs on the engine, as a model does).
    assert all(line.startswith("fairjudge: ") for line in done.stderr.splitlines())
    as_json = fairjudge("score", EXAMPLE, "--judge", "python:examples.judges:scorer", "--json")
    assert as_json.returncode == 0, as_json.stderr
    summary = json.loads(as_json.stdout)
    assert summary["collapsed"] == []
    spreads = {d["name"]: round(d["collapse"]["spread"], 4) for d in summary["dimensions"]}
    assert spreads == {"accuracy": 0.9887, "relevance": 0.2472, "usefulness": 0.4943}


def test_a_near_flat_judge_exits_6_with_fail_on_collapse(tmp_path: Path) -> None:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": ("x" if i < 3 else "a") + "!"}
            for i in range(20)]  # fmt: skip
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    judge = "python:tests.evaluation.test_collapse_alarm:near_flat"
    shown = fairjudge("score", str(path), "--judge", judge)
    assert shown.returncode == 0, shown.stderr  # shown, and fails the run only when asked
    assert "collapse alarm: accuracy: spread 0.18 < 0.20" in flat(shown.stdout)
    done = fairjudge("score", str(path), "--judge", judge, "--fail-on-collapse")
    assert done.returncode == 6, done.stderr
    assert (
        "collapse alarm: accuracy: spread 0.18 < 0.20 (standard deviation 0.36 of at most 2 "
        "on 1-5). The judge barely tells answers apart on this dimension"
    ) in flat(done.stdout)
    assert "collapse alarm: dimension(s) accuracy, relevance, usefulness" in flat(done.stderr)
