from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._style_control import (
    StyleFeatures,
    style_controlled_bradley_terry,
    style_features,
)
from tests.stats._sim import ELO


def test_style_features_strip_code_blocks() -> None:
    text = (
        "# Plan\n\n## Steps\n1. first\n2. second\n- a **bold** idea\n* more __bold__\n"
        "```python\n# a comment, not a header\n- not a list\n**not bold**\n```\nDone."
    )
    f = style_features(text)
    assert (f.headers, f.lists, f.bold) == (2, 4, 2)
    assert f.length == len(text.split())


def _simulate(
    seed: int,
) -> tuple[list[str], list[str], list[str], list[StyleFeatures], list[StyleFeatures]]:
    """Models 2 and 3 write longer answers; the judge rewards relative length."""
    rng = np.random.default_rng(seed)
    theta = np.array([0.0, 0.3, 0.0, 0.3])
    verbose = np.array([0.0, 0.0, 1.0, 1.0])
    m = 4000
    a = rng.integers(0, 4, m)
    b = (a + rng.integers(1, 4, m)) % 4
    la = rng.lognormal(6 + verbose[a], 0.3)
    lb = rng.lognormal(6 + verbose[b], 0.3)
    rel = (la - lb) / (la + lb)
    p = expit(theta[a] - theta[b] + 1.2 * (rel - rel.mean()) / rel.std(ddof=1))
    out = np.where(rng.random(m) < p, "1", "2").tolist()
    fa = [StyleFeatures(float(x), 0, int(k), 0) for x, k in zip(la, rng.poisson(3, m), strict=True)]
    fb = [StyleFeatures(float(x), 0, int(k), 0) for x, k in zip(lb, rng.poisson(3, m), strict=True)]
    names = ["terse", "terse-good", "wordy", "wordy-good"]
    return [names[i] for i in a], [names[i] for i in b], out, fa, fb


def test_recovers_ratings_and_the_length_coefficient() -> None:
    a, b, o, fa, fb = _simulate(1)
    r = style_controlled_bradley_terry(a, b, o, fa, fb, anchor="terse", n_resamples=100)
    coef = {c.name: c for c in r.coefficients}
    assert coef["length"].ci.low < 1.2 < coef["length"].ci.high
    assert coef["lists"].ci.low < 0.0 < coef["lists"].ci.high
    # No answer has headers or bold: not estimable, reported as NaN, not as zero.
    assert math.isnan(coef["headers"].estimate)
    assert math.isnan(coef["bold"].estimate)
    # With style controlled, the wordy model is no better than the terse one.
    wordy = r.ratings[[x.model for x in r.ratings].index("wordy")]
    assert wordy.ci.low < 1000 < wordy.ci.high
    good = next(x for x in r.ratings if x.model == "terse-good")
    assert good.ci.low < 1000 + ELO * 0.3 < good.ci.high
    assert r.to_dict()["coefficients"][1]["estimate"] is None


def test_length_only_control_and_seed() -> None:
    a, b, o, fa, fb = _simulate(2)
    r1 = style_controlled_bradley_terry(
        a, b, o, fa, fb, controls=["length"], n_resamples=30, seed=4
    )
    r2 = style_controlled_bradley_terry(
        a, b, o, fa, fb, controls=["length"], n_resamples=30, seed=4
    )
    assert r1 == r2
    assert r1.seed == 4
    assert [c.name for c in r1.coefficients] == ["length"]


def test_errors_name_parameter_and_value() -> None:
    a, b, o = ["x", "y"], ["y", "x"], ["1", "tie"]
    f = [StyleFeatures(10), StyleFeatures(20)]
    with pytest.raises(ConfigError, match=r"controls\[0\] must be one of .*; got 'emoji'"):
        style_controlled_bradley_terry(a, b, o, f, f, controls=["emoji"])  # type: ignore[list-item]
    with pytest.raises(InputError, match=r"features_b\[1\] must hold finite counts >= 0"):
        style_controlled_bradley_terry(a, b, o, f, [StyleFeatures(10), StyleFeatures(-1)])
    with pytest.raises(InputError, match="features_a has 1 entries but outcomes has 2"):
        style_controlled_bradley_terry(a, b, o, f[:1], f)
