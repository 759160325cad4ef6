"""Krippendorff's alpha with a bootstrap interval over questions (scoring panels)."""

from __future__ import annotations

import math

import pytest

from fairjudge import InputError
from fairjudge.stats import krippendorff_alpha
from fairjudge.stats._agreement import krippendorff_alpha_ci

ROWS: list[list[float | None]] = [
    [1, 2, 1], [2, 2, 3], [3, 3, 3], [4, 5, 4], [5, 5, None], [2, 1, 2], [4, 4, 3], [1, None, 1],
]  # fmt: skip


@pytest.mark.parametrize("metric", ["ordinal", "interval", "nominal"])
def test_the_point_estimate_is_krippendorffs_alpha(metric: str) -> None:
    result = krippendorff_alpha_ci(ROWS, metric, n_resamples=300, seed=1)  # type: ignore[arg-type]
    assert result.alpha == pytest.approx(krippendorff_alpha(ROWS, metric))  # type: ignore[arg-type]
    assert result.ci.low <= result.alpha <= result.ci.high
    assert (result.n_units, result.n_values) == (8, 22)
    assert result.n_questions is None


def test_the_same_seed_gives_the_same_interval_and_questions_cluster() -> None:
    a = krippendorff_alpha_ci(ROWS, n_resamples=300, seed=7)
    b = krippendorff_alpha_ci(ROWS, n_resamples=300, seed=7)
    assert a.ci == b.ci
    paired = krippendorff_alpha_ci(ROWS, questions=list("aabbccdd"), n_resamples=300, seed=7)
    assert paired.n_questions == 4
    assert paired.alpha == a.alpha
    one = krippendorff_alpha_ci(ROWS, questions=["q"] * 8, n_resamples=50)
    assert not one.ci.estimable
    assert math.isfinite(one.alpha)
    assert one.to_dict()["metric"] == "ordinal"


def test_perfect_agreement_and_no_pairable_unit() -> None:
    assert krippendorff_alpha_ci([[1, 1], [3, 3], [2, 2]], n_resamples=50).alpha == 1.0
    with pytest.raises(InputError, match="two values"):
        krippendorff_alpha_ci([[1, None], [None, 2]])
