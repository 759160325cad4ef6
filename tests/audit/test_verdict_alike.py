"""audit's verdict tells an all-alike point from a measured interval by what the code knows.

An interval the bootstrap could not vary is built by ``ConfidenceInterval.alike_point``
and says so (``cannot_vary``, from its note's head, which survives ``to_dict`` and a
report that reads the interval back). ``verdict_of`` reads that first; an unmarked
point (a producer that does not say so yet: the self-preference fit's) is still no
certainty.
"""

from __future__ import annotations

import pytest

from fairjudge.audit._experiment import verdict_of
from fairjudge.audit._self_preference import fit_own_family
from fairjudge.stats import ConfidenceInterval, bootstrap_mean
from fairjudge.stats._intervals import alike_interval


def test_an_alike_point_is_uncertain_whatever_it_says() -> None:
    for value in (0.0, 0.2, 2.0):
        ci = ConfidenceInterval.alike_point(value, 0.95, "every question gave it")
        assert ci.cannot_vary
        assert (ci.low, ci.high) == (value, value)
        assert verdict_of(value, ci, 0.0, 4.0) == "uncertain"


def test_an_unmarked_point_is_still_no_certainty() -> None:
    # A percentile interval over clusters that vary has width; an unmarked point comes
    # from a producer that does not yet say it could not vary (the self-preference
    # fit's), so it is not read as a certainty either.
    unmarked = ConfidenceInterval(2.0, 2.0, 0.95)
    assert not unmarked.cannot_vary
    assert verdict_of(2.0, unmarked, 0.0, 4.0) == "uncertain"
    # A bound built for alike data, narrow as it may be, is read by its bounds.
    narrow = ConfidenceInterval(-0.01, 0.01, 0.95, note="bound from 0/400 off 0: ...")
    assert verdict_of(0.0, narrow, 0.0, 4.0) == "negligible"


def test_the_mark_survives_json_and_the_bootstrap_sets_it() -> None:
    ci = bootstrap_mean([1.0] * 6, ["a", "a", "b", "b", "c", "c"], seed=0, n_resamples=100)
    assert ci.cannot_vary
    record = ci.to_dict()
    back = ConfidenceInterval(record["low"], record["high"], record["level"], note=record["note"])
    assert back.cannot_vary  # as report/_page_audit reads an effect back
    assert verdict_of(1.0, back, 0.0, 4.0) == "uncertain"
    # A bound built for alike data is a real interval: its verdict stands.
    wilson = alike_interval(0.0, 40, 0.95, True)
    assert not wilson.cannot_vary
    varied = bootstrap_mean([0.0, 1.0, 0.5, 1.0], seed=0, n_resamples=100)
    assert not varied.cannot_vary


def test_exact_self_preference_fit_is_uncertain() -> None:
    # Judge gpt gives gpt's answers exactly +2 on every question: every resampled fit
    # gives the same combined advantage, so its [2, 2] rules nothing out.
    families = ["gpt", "qwen"] * 10
    table = [[9.0 if a == "gpt" else 7.0, 7.0] for a in families]
    clusters = [i // 2 for i in range(20)]
    fit = fit_own_family(
        table, families, ["gpt", "qwen"], clusters, seed=0, level=0.95, n_resamples=200
    )
    assert fit.combined is not None
    assert fit.combined == pytest.approx(2.0)
    assert fit.combined_ci is not None
    assert fit.combined_ci.cannot_vary
    assert verdict_of(fit.combined, fit.combined_ci, 0.0, 9.0) == "uncertain"
