"""The anytime-valid confidence sequences (betting, with and without replacement), the stop rule.

With replacement (the default) the sequence is about the population the units are
drawn from; without replacement, about a finite file only. Each form's validity is
checked by seeded simulation (exact counts, not timings) and, where it can be, by an
exact expectation over every outcome and an independent scalar computation of the
paper's formulas.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from scipy.stats import beta, binom

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._confseq import ConfidenceSequence, StopRule, WealthGrid
from fairjudge.stats._intervals import ConfidenceInterval

FLAG = re.compile(r"(?<![\w-])--[a-z]")


def _orders(population: NDArray[np.float64], runs: int, seed: int) -> NDArray[np.float64]:
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(population) for _ in range(runs)])


def _judge_scores(n: int, rate: float, seed: int) -> NDArray[np.float64]:
    """Swap-protocol scores: 20% ties, wins and losses so the mean is exactly ``rate``."""
    wins, ties = round(n * (rate - 0.1)), round(n * 0.2)
    return np.repeat([1.0, 0.5, 0.0], [wins, ties, n - wins - ties])


# --- validity --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("population", "growth"),
    [([0, 0.25, 0.5, 1, 1, 0.25], 36.3517), ([0, 0, 0.25, 1, 0.5, 0.5], 36.1373)],
)
def test_capital_at_the_true_mean_is_a_martingale_over_every_order(
    population: list[float], growth: float
) -> None:
    # Enumerating all 720 orders gives the expectation exactly: E[K_t(mu)] = 1 at every t
    # only with the without-replacement centring mu_t(m) = (N m - S_{t-1}) / (N - t + 1).
    pop = np.array(population)
    mu = pop.mean()  # 0.5 and 0.375, both on a grid of eighths
    orders = np.array(list(itertools.permutations(pop)))
    wealth = WealthGrid(6, len(orders), grid=8, replacement=False)
    at_mu = int(np.flatnonzero(wealth.grid == mu)[0])
    for t in range(6):
        wealth.update(orders[:, t : t + 1])
        plus, minus = wealth.log_capital
        assert np.exp(plus[:, at_mu]).mean() == pytest.approx(1.0, abs=1e-12)
        assert np.exp(minus[:, at_mu]).mean() == pytest.approx(1.0, abs=1e-12)
    # A quarter below the mean the gambler profits on average: that is what excludes it.
    assert np.exp(wealth.log_capital[0][:, at_mu - 2]).mean() == pytest.approx(growth, rel=1e-5)


@pytest.mark.parametrize(("kind", "misses"), [("judge scores", 24), ("continuous", 9)])
def test_coverage_under_continuous_monitoring(kind: str, misses: int) -> None:
    # 1,000 random orders of one finite population, every unit a look: the share of runs
    # that *ever* exclude the true mean is at most alpha. The mean is put on the grid, so
    # exclusion is read exactly, not through bounds rounded outwards.
    rng = np.random.default_rng(7)
    n, runs = 100, 1000
    # Continuous scores rounded to 1/1024, so that sums are exact and S_N / N is the mean.
    pop = (
        _judge_scores(n, 0.6, 0)
        if kind == "judge scores"
        else np.round(rng.beta(2, 5, n) * 1024) / 1024
    )
    mu = pop.sum() / n
    wealth = WealthGrid(n, runs, grid=np.unique([mu, 0.5]), replacement=False)
    missed = np.zeros(runs, dtype=bool)
    for scores in np.split(_orders(pop, runs, 1), 10, axis=1):
        wealth.update(scores)
        missed |= wealth.excluded(mu)
        assert np.all((wealth.low <= mu) | missed)
        assert np.all((mu <= wealth.high) | missed)
    # If the true miscoverage were alpha = 5%, 1,000 runs would show at most 73 misses
    # with probability 0.999; the betting sequence is conservative and shows far fewer.
    assert missed.sum() <= binom.ppf(0.999, runs, 0.05) == 73
    assert missed.sum() == misses


def test_coverage_at_the_stopping_times_seen() -> None:
    # Stop each run by the rule, after its batch; the interval at the stop covers the mean.
    n, runs = 120, 1000
    pop = _judge_scores(n, 0.6, 0)
    wealth = WealthGrid(n, runs, grid=40, replacement=False)
    low, high, stopped_at = np.zeros(runs), np.ones(runs), np.full(runs, n)
    for scores in np.split(_orders(pop, runs, 2), 12, axis=1):
        wealth.update(scores)
        stop = (stopped_at == n) & ((wealth.winner > 0) | ((wealth.high - wealth.low) / 2 <= 0.08))
        low[stop], high[stop], stopped_at[stop] = wealth.low[stop], wealth.high[stop], wealth.n
    assert np.median(stopped_at) < n  # the rule does stop runs early
    covered = (low <= pop.mean()) & (pop.mean() <= high)
    assert 1 - covered.mean() <= 0.05


def test_no_winner_is_declared_under_a_finite_null_more_than_alpha() -> None:
    # Population win rate exactly 0.5 with ties; 2,000 orders, a look every 5 units.
    rng = np.random.default_rng(3)
    half = rng.choice([1.0, 0.5], p=[0.7, 0.3], size=100)
    pop = np.concatenate([half, 1 - half])
    # The decision reads only the capital at 0.5.
    wealth = WealthGrid(200, 2000, grid=[0.5], replacement=False)
    for scores in np.split(_orders(pop, 2000, 4), 40, axis=1):
        wealth.update(scores)
    assert (wealth.winner > 0).sum() <= binom.ppf(0.999, 2000, 0.05) == 131
    assert (wealth.winner > 0).mean() <= 0.05


# --- with replacement: the population the units are drawn from -------------------------


def _reference_log_capital(xs: list[float], m: float, level: float = 0.95) -> tuple[float, float]:
    """``log K+`` and ``log K-`` at ``m`` after ``xs``, i.i.d. form, written from the paper.

    Scalar and separate from the vectorised engine: the plug-in variance and mean,
    the bet ``sqrt(2 log(2 / alpha) / (s2 t log(1 + t)))``, and its truncation at
    ``c / m`` and ``c / (1 - m)`` with ``c = 1/2``.
    """
    alpha, c = 1 - level, 0.5
    log_plus = log_minus = total = spread = 0.0
    for t, x in enumerate(xs, start=1):
        variance = (0.25 + spread) / t  # s2_{t-1}
        bet = math.sqrt(2 * math.log(2 / alpha) / (variance * t * math.log(1 + t)))
        up = min(bet, c / m) if m > 0 else bet
        down = min(bet, c / (1 - m)) if m < 1 else bet
        log_plus += math.log(1 + up * (x - m))
        log_minus += math.log(1 - down * (x - m))
        total += x
        spread += (x - (0.5 + total) / (t + 1)) ** 2
    return log_plus, log_minus


def test_capitals_match_an_independent_scalar_computation() -> None:
    xs = [1.0, 0.5, 0.0, 1.0, 1.0, 0.25, 1.0, 0.75, 0.5, 1.0, 0.0, 1.0]
    wealth = WealthGrid(len(xs), 1, grid=8)
    for batch in ([0], [1, 2], [3, 4, 5, 6], [7, 8, 9, 10, 11]):
        wealth.update(np.array([[xs[i] for i in batch]]))
    plus, minus = wealth.log_capital
    for k, m in enumerate(wealth.grid):
        want = _reference_log_capital(xs, float(m))
        assert (plus[0, k], minus[0, k]) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_all_wins_decide_at_the_first_unit_whose_capital_reaches_two_over_alpha() -> None:
    # The same decision time, read from the scalar capital at 0.5 and from the engine.
    first = next(
        n for n in range(1, 100) if _reference_log_capital([1.0] * n, 0.5)[0] >= math.log(40)
    )
    cs = ConfidenceSequence.start(100)
    decided_at = None
    for _ in range(100):
        cs = cs.update([1.0])
        if cs.winner == "1" and decided_at is None:
            decided_at = cs.n
    assert decided_at == first == 10


@pytest.mark.parametrize("probs", [(0.3, 0.2, 0.5), (0.45, 0.1, 0.45), (0.6, 0.3, 0.1)])
def test_capital_at_the_true_mean_is_a_martingale_over_every_iid_outcome(
    probs: tuple[float, float, float],
) -> None:
    # Scores 0, 1/2, 1 drawn i.i.d.: weighting all 3^6 sequences by their probability
    # gives E[K_t(mu)] = 1 exactly, at every t, with the centring m (no correction).
    values = np.array([0.0, 0.5, 1.0])
    mu = float(values @ np.array(probs))
    seqs = np.array(list(itertools.product(range(3), repeat=6)))
    weight = np.prod(np.array(probs)[seqs], axis=1)
    wealth = WealthGrid(6, len(seqs), grid=np.unique([mu, 0.5]))
    at_mu = int(np.flatnonzero(wealth.grid == mu)[0])
    for t in range(6):
        wealth.update(values[seqs[:, t : t + 1]])
        plus, minus = wealth.log_capital
        assert weight @ np.exp(plus[:, at_mu]) == pytest.approx(1.0, abs=1e-12)
        assert weight @ np.exp(minus[:, at_mu]) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(("kind", "misses"), [("judge scores", 30), ("continuous", 18)])
def test_iid_coverage_under_continuous_monitoring(kind: str, misses: int) -> None:
    # 1,000 runs of 400 i.i.d. units each, every unit a look: the share of runs that
    # *ever* exclude the true mean is at most alpha.
    rng = np.random.default_rng(11)
    runs, n = 1000, 400
    if kind == "judge scores":  # swap-protocol scores, mean 0.6 (on the grid)
        draws = rng.choice([1.0, 0.5, 0.0], p=[0.5, 0.2, 0.3], size=(runs, n))
        mu = 0.6
    else:  # Beta(2, 5) rounded to 1/16: mean computed exactly from its 17 values
        support = np.arange(17) / 16
        density = np.diff(beta.cdf(np.arange(18) / 17, 2, 5))
        density /= density.sum()
        draws = rng.choice(support, p=density, size=(runs, n))
        mu = float(support @ density)
    wealth = WealthGrid(n, runs, grid=np.unique([mu, 0.5]))
    missed = np.zeros(runs, dtype=bool)
    for scores in np.split(draws, 8, axis=1):
        wealth.update(scores)
        missed |= wealth.excluded(mu)
        assert np.all((wealth.low <= mu) | missed)
        assert np.all((mu <= wealth.high) | missed)
    assert missed.sum() <= binom.ppf(0.999, runs, 0.05) == 73
    assert missed.sum() == misses


def test_a_null_file_is_decided_at_most_alpha_of_the_time_end_of_file_included() -> None:
    # 2,000 files of 200 questions drawn from a population whose win rate is exactly
    # 0.5: any decision is wrong, the ones reached at the end of the file too. The
    # sequence about this file alone decides almost every file at its end, on the
    # file's own mean: right about the file, wrong about the population.
    rng = np.random.default_rng(12)
    files = rng.choice([1.0, 0.5, 0.0], p=[0.4, 0.2, 0.4], size=(2000, 200))
    source = WealthGrid(200, 2000, grid=[0.5])
    this_file = WealthGrid(200, 2000, grid=[0.5], replacement=False)
    for scores in np.split(files, 25, axis=1):
        source.update(scores)
        this_file.update(scores)
    decided = int((source.winner > 0).sum())
    assert decided <= binom.ppf(0.999, 2000, 0.05) == 131
    assert decided == 57
    off_half = int((files.mean(axis=1) != 0.5).sum())
    assert off_half == 1927  # every one decided at the latest at its end, 2 more early
    assert int((this_file.winner > 0).sum()) == 1929


def test_the_end_of_the_file_takes_the_same_evidence_as_anywhere_else() -> None:
    # With replacement the file's size only caps the units: the interval after 80
    # units is the same whether the file holds 80 questions or 8,000.
    scores = _judge_scores(80, 0.55, 0)[np.random.default_rng(13).permutation(80)]
    whole = ConfidenceSequence.start(80).update(scores)
    part = ConfidenceSequence.start(8000).update(scores)
    assert whole.complete
    assert (whole.low, whole.high, whole.winner) == (part.low, part.high, part.winner)
    assert whole.winner is None
    assert whole.high - whole.low > 0.2
    # Without replacement the same 80 scores end on the file's own mean, decided.
    finite = ConfidenceSequence.start(80, replacement=False).update(scores)
    assert (finite.low, finite.high, finite.winner) == (0.55, 0.55, "1")


def test_the_method_says_which_form_it_is() -> None:
    assert ConfidenceSequence.start(5).to_dict()["method"] == (
        "betting confidence sequence, with replacement (Waudby-Smith & Ramdas)"
    )
    assert ConfidenceSequence.start(5, replacement=False).replacement is False
    with pytest.raises(ConfigError, match="replacement must be True or False; got 'no'"):
        WealthGrid(5, replacement="no")  # type: ignore[arg-type]


# --- finite population --------------------------------------------------------------------


def test_collapses_to_the_exact_population_mean_at_n() -> None:
    rng = np.random.default_rng(5)
    pop = rng.integers(0, 9, 37) / 8  # exact in binary: the sum has no rounding
    cs = ConfidenceSequence.start(37, replacement=False)
    for batch in np.split(pop, [3, 4, 20, 21, 36]):
        cs = cs.update(batch)
    assert cs.complete
    assert cs.low == cs.high == pop.sum() / 37 == cs.estimate
    assert cs.interval == ConfidenceInterval(pop.sum() / 37, pop.sum() / 37, 0.95)
    assert cs.half_width == 0


def test_collapse_with_any_scores_up_to_the_rounding_of_their_sum() -> None:
    pop = np.random.default_rng(6).random(50)
    cs = ConfidenceSequence.start(50, replacement=False).update(pop[:25]).update(pop[25:])
    assert cs.low == cs.high == pytest.approx(pop.mean(), rel=1e-14)


def test_a_majority_already_seen_decides_without_any_bet() -> None:
    # At level 1 - 1e-9 no bet can win 2e9-fold in five draws: the decision at n = 5 is
    # the without-replacement range alone (5 wins of 9 make the mean at least 5/9).
    cs = ConfidenceSequence.start(9, level=1 - 1e-9, replacement=False)
    seen = []
    for _ in range(9):
        cs = cs.update([1.0])
        seen.append((cs.n, cs.winner, cs.low))
    assert seen[3] == (4, None, 4 / 9)
    assert seen[4] == (5, "1", 5 / 9)
    assert cs.interval == ConfidenceInterval(1.0, 1.0, 1 - 1e-9)


@pytest.mark.parametrize(("replacement", "end"), [(False, (0.5, 0.5)), (True, (0.4875, 0.5125))])
def test_an_all_ties_population_is_never_decided(
    replacement: bool, end: tuple[float, float]
) -> None:
    rule = StopRule.parse("decided")
    cs = ConfidenceSequence.start(300, replacement=replacement)
    reasons = []
    for _ in range(0, 300, 16):
        cs = cs.update([0.5] * min(16, 300 - cs.n))
        reasons.append(rule.reason(cs))
    assert reasons == [None] * 18 + ["not decided"]
    assert cs.winner is None
    # This file's mean is exactly 0.5. Questions like these are known to within 0.0125:
    # the bets grow as the running variance stays at nothing, but never reach a point.
    assert (cs.low, cs.high) == end


def test_width_stops_a_tied_run_before_the_end() -> None:
    rule = StopRule.parse("decided,width:0.1")
    cs = ConfidenceSequence.start(300)
    while rule.reason(cs) is None:
        cs = cs.update([0.5] * 10)
    assert rule.reason(cs) == "width"
    assert cs.half_width <= 0.1
    assert cs.n < 300


def test_batches_give_the_same_sequence_as_one_unit_at_a_time() -> None:
    pop = _judge_scores(60, 0.7, 0)[np.random.default_rng(8).permutation(60)]
    one = ConfidenceSequence.start(60)
    for x in pop:
        one = one.update([x])
    batched = ConfidenceSequence.start(60)
    for batch in np.split(pop, 6):
        batched = batched.update(batch)
    assert (one.low, one.high, one.winner) == (batched.low, batched.high, batched.winner)
    half = ConfidenceSequence.start(60).update(pop[:30])
    one_half = ConfidenceSequence.start(60)
    for x in pop[:30]:
        one_half = one_half.update([x])
    assert (half.low, half.high) == (one_half.low, one_half.high)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=30),
    st.lists(st.integers(1, 7), min_size=1, max_size=30),
)
def test_the_running_interval_only_shrinks_and_ends_at_the_file_mean(
    scores: list[float], sizes: list[int]
) -> None:
    n = len(scores)
    cs = ConfidenceSequence.start(n, resolution=200, replacement=False)
    done = 0
    for size in itertools.cycle(sizes):
        if done == n:
            break
        before = cs
        cs = cs.update(scores[done : done + size])
        done = cs.n
        assert 0 <= cs.low <= cs.high <= 1
        # Nothing outside what the unseen units still allow.
        assert cs.low >= cs.total / n - 1e-12
        assert cs.high <= (cs.total + n - cs.n) / n + 1e-12
        if not cs.contradicted:
            assert before.low <= cs.low
            assert cs.high <= before.high
        if before.winner is not None:
            assert cs.winner == before.winner
    assert cs.low == cs.high == pytest.approx(math.fsum(scores) / n, abs=1e-12)


def test_update_leaves_the_sequence_unchanged_and_reports_itself() -> None:
    start = ConfidenceSequence.start(200)
    cs = start.update(_judge_scores(100, 0.9, 0))
    assert (start.n, start.low, start.high, start.winner) == (0, 0.0, 1.0, None)
    assert math.isnan(start.estimate)
    assert cs.winner == "1"
    assert cs.to_dict()["estimate"] == cs.estimate == 0.9
    assert cs.to_dict()["winner"] == "1"
    assert cs.to_dict()["ci"]["level"] == 0.95
    assert cs.summary().startswith("win rate 0.900, 95% anytime-valid CI [")
    assert cs.summary().endswith("after 100 of 200 units; model 1 is better")
    assert start.update([]) is start


# --- stop rule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stop_when", "rule"),
    [
        ("decided", StopRule(decided=True)),
        ("width:0.05", StopRule(half_width=0.05)),
        ("decided,width:0.05", StopRule(True, 0.05)),
        (" Decided , WIDTH: 0.2 ", StopRule(True, 0.2)),
        (["width:0.1", "decided"], StopRule(True, 0.1)),
    ],
)
def test_stop_when_strings_are_read(stop_when: str | list[str], rule: StopRule) -> None:
    assert StopRule.parse(stop_when) == rule
    assert StopRule.parse(str(rule)) == rule
    assert StopRule.parse(rule) is rule


@pytest.mark.parametrize(
    ("stop_when", "says"),
    [
        ("", "stop_when is empty"),
        ("soon", "unknown condition 'soon'"),
        ("decided;width:0.1", "unknown condition"),
        ("width", "must be a number"),
        ("width:abc", "must be a number, e.g. 'width:0.05'; got 'abc'"),
        ("width:0", "must be in (0, 0.5); got 0.0"),
        ("width:0.5", "must be in (0, 0.5); got 0.5"),
        ("width:-1", "must be in (0, 0.5)"),
        ("width:nan", "must be in (0, 0.5)"),
        ("decided,decided", "gives 'decided' twice"),
        ("width:0.1,width:0.2", "gives a width twice"),
        (3, "must be a string or a list of strings; got 3"),
        (["decided", 5], "must be a string or a list of strings"),
    ],
)
def test_bad_stop_when_names_the_parameter(stop_when: object, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        StopRule.parse(stop_when)  # type: ignore[arg-type]
    message = str(info.value)
    assert says in message
    assert message.startswith("stop_when")
    assert info.value.params == ("stop_when",)
    assert not FLAG.search(message), message


def test_a_rule_needs_a_condition() -> None:
    with pytest.raises(ConfigError, match="stop_when gives no condition"):
        StopRule()
    with pytest.raises(ConfigError, match=r"half-width in \(0, 0.5\); got 0.7"):
        StopRule(half_width=0.7)


def test_decided_wins_when_both_conditions_are_met_by_the_same_batch() -> None:
    cs = ConfidenceSequence.start(100).update(np.ones(90))
    assert cs.winner == "1"
    assert cs.half_width <= 0.1
    assert StopRule(True, 0.1).reason(cs) == "decided"
    assert StopRule(half_width=0.1).reason(cs) == "width"
    assert StopRule(decided=True).reason(ConfidenceSequence.start(100)) is None


# --- input checks --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "says"),
    [
        ([0.5, 1.5], "scores[1] must be a unit score in [0, 1]; got 1.5"),
        ([math.nan], "scores[0] must be a unit score in [0, 1]; got nan"),
        (["x"], "scores must be numbers in [0, 1]"),
        ([[0.5]], "scores must be a flat sequence"),
        ([0.5] * 11, "11 more units after 0 would exceed population=10"),
    ],
)
def test_bad_scores_are_refused(scores: object, says: str) -> None:
    with pytest.raises(InputError) as info:
        ConfidenceSequence.start(10).update(scores)  # type: ignore[arg-type]
    assert says in str(info.value)
    assert "scores" in info.value.params


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"population": 0}, "population must be an integer >= 1; got 0"),
        ({"population": 10, "level": 1.2}, "level must be a number in (0, 1)"),
        ({"population": 10, "resolution": 7}, "resolution must be even"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, float], says: str) -> None:
    with pytest.raises(ConfigError) as info:
        ConfidenceSequence.start(**kwargs)  # type: ignore[arg-type]
    assert says in str(info.value)


def test_the_engine_refuses_what_it_cannot_use() -> None:
    with pytest.raises(
        ConfigError, match=re.escape("grid must be sorted values in [0, 1] that include 0.5")
    ):
        WealthGrid(10, grid=[0.25, 0.75])
    with pytest.raises(ConfigError, match="runs must be an integer >= 1; got 0"):
        WealthGrid(10, 0)
    wealth = WealthGrid(10, 2, grid=4)
    with pytest.raises(ConfigError, match=re.escape("value must be a point of the grid; got 0.3")):
        wealth.excluded(0.3)
    with pytest.raises(InputError, match="11 more units after 0 would exceed population=10"):
        wealth.update(np.full((2, 11), 0.5))
    with pytest.raises(
        InputError, match=re.escape("scores must be runs x batch; got shape (3, 1)")
    ):
        wealth.update(np.full((3, 1), 0.5))
