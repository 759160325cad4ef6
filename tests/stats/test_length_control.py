from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._logistic import length_controlled_win_rate


def _simulate(
    n: int, quality: float, length_effect: float, seed: int
) -> tuple[list[str], list[float], list[float]]:
    """System 1 writes longer answers; the judge rewards length by ``length_effect``."""
    rng = np.random.default_rng(seed)
    len2 = rng.normal(800, 200, n).clip(50)
    len1 = (len2 + rng.normal(400, 350, n)).clip(50)
    delta = len1 - len2
    p = expit(quality + length_effect * np.tanh(delta / delta.std(ddof=1)))
    u = rng.random(n)
    # Expected score sigmoid(...), with 10% of the mass moved to ties.
    out = np.where(u < p - 0.05, "1", np.where(u < p + 0.05, "tie", "2"))
    return out.tolist(), len1.tolist(), len2.tolist()


def test_removes_a_planted_length_effect() -> None:
    # Equal quality, but a judge that loves length: raw win rate far above 1/2.
    out, l1, l2 = _simulate(2000, quality=0.0, length_effect=1.5, seed=1)
    r = length_controlled_win_rate(out, l1, l2, n_resamples=300, seed=0)
    assert r.raw_win_rate > 0.65
    assert r.raw_ci.low > 0.6
    assert r.ci.low < 0.5 < r.ci.high  # the length-controlled interval covers the truth
    assert abs(r.estimate - 0.5) < 0.04
    assert r.length_coefficient_ci.low < 1.5 < r.length_coefficient_ci.high
    assert r.n == 2000
    assert r.n_wins + r.n_losses + r.n_ties == 2000


def test_keeps_a_real_quality_difference() -> None:
    out, l1, l2 = _simulate(2000, quality=0.8, length_effect=0.0, seed=2)
    r = length_controlled_win_rate(out, l1, l2, n_resamples=300, seed=0)
    truth = float(expit(0.8))
    assert r.ci.low < truth < r.ci.high
    assert r.length_coefficient_ci.low < 0.0 < r.length_coefficient_ci.high
    assert abs(r.estimate - r.raw_win_rate) < 0.03


def test_equal_lengths_give_the_raw_win_rate() -> None:
    out = ["1", "1", "2", "tie", "1", "2", "1"]
    r = length_controlled_win_rate(out, [100.0] * 7, [90.0] * 7, n_resamples=50)
    # The length difference never varies, so it cannot explain anything: beta = 0 and
    # the intercept-only fit reproduces the raw win rate exactly.
    assert r.length_coefficient == 0.0
    assert math.isclose(r.raw_win_rate, 4.5 / 7)
    assert math.isclose(r.estimate, r.raw_win_rate, rel_tol=1e-9)


def test_seed_is_recorded_and_reproducible() -> None:
    out, l1, l2 = _simulate(300, quality=0.2, length_effect=0.7, seed=3)
    q = [i // 3 for i in range(300)]
    r1 = length_controlled_win_rate(out, l1, l2, questions=q, n_resamples=200, seed=5)
    r2 = length_controlled_win_rate(out, l1, l2, questions=q, n_resamples=200, seed=5)
    assert r1 == r2
    assert r1.seed == 5
    assert r1.n_questions == 100
    assert r1.to_dict()["ci"] == r2.to_dict()["ci"]
    assert "Length-controlled win rate" in r1.summary()


def test_errors_name_parameter_and_value() -> None:
    with pytest.raises(InputError, match=r"outcomes\[1\] must be one of '1', '2', 'tie'; got 'B'"):
        length_controlled_win_rate(["1", "B"], [1, 2], [1, 2])
    with pytest.raises(InputError, match=r"lengths_2\[1\] must be a finite number; got nan"):
        length_controlled_win_rate(["1", "2"], [1, 2], [1, float("nan")])
    with pytest.raises(InputError, match=r"lengths_1\[0\] must be a length >= 0; got -3.0"):
        length_controlled_win_rate(["1", "2"], [-3, 2], [1, 2])
    with pytest.raises(InputError, match="lengths_1 has 3 entries but outcomes has 2"):
        length_controlled_win_rate(["1", "2"], [1, 2, 3], [1, 2])
    with pytest.raises(ConfigError, match=r"level must be a number in \(0, 1\), e.g. 0.95; got 95"):
        length_controlled_win_rate(["1", "2"], [1, 2], [1, 2], level=95)


def test_perfect_length_separation_is_not_identified() -> None:
    from fairjudge import InputError
    from fairjudge.stats import length_controlled_win_rate

    # The longer answer always wins: no information about equal-length preference.
    lengths_1 = [10, 200, 30, 400, 50, 600, 70, 800]
    lengths_2 = [100, 20, 300, 40, 500, 60, 700, 80]
    outcomes = ["1" if a > b else "2" for a, b in zip(lengths_1, lengths_2, strict=True)]
    with pytest.raises(InputError, match="separated by answer length"):
        length_controlled_win_rate(outcomes, lengths_1, lengths_2, n_resamples=50)
