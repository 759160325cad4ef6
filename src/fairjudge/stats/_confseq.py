"""Anytime-valid confidence sequences for a win rate, by betting.

Adaptive stopping looks at the interval after every batch and stops when the answer
is known. A fixed-sample interval (the bootstrap) is valid at one sample size chosen
in advance; checked after every batch it excludes the truth far more often than
``1 - level`` says. A *confidence sequence* is valid at every sample size at once:
with probability at least ``level`` the mean lies in every interval of the sequence,
so stopping whenever it pleases the caller keeps the guarantee.

The construction is the betting one of Waudby-Smith and Ramdas, "Estimating means of
bounded random variables by betting" (JRSS-B 2024), implemented here from the
paper's formulas, in its two forms. Which mean it is about is the caller's choice:

- **With replacement (the default): the population the units are drawn from.** The
  scores ``x_1, x_2, ...`` in [0, 1] are i.i.d. with mean ``mu``. This is the question
  "which model is better on questions like these", the one the bootstrap CI of a full
  run answers too. A file of questions sampled from some population, judged in a
  uniformly random order that does not depend on the scores, is such a sequence: a
  random order of an i.i.d. sample is itself i.i.d. Nothing collapses at the end of
  the file: a decision there needs the same evidence as anywhere else.
- **Without replacement: this file only.** The population is the ``N`` units
  themselves, with mean ``mu`` = the file's own mean, judged in a uniformly random
  order. After ``i - 1`` draws with sum ``S_{i-1}``, the mean of the units not yet
  drawn is, if the population mean were ``m``, ``mu_i(m) = (N m - S_{i-1}) / (N - i + 1)``.
  A candidate ``m`` for which the units not yet drawn would need a mean outside
  [0, 1] is impossible outright; this range, ``[S_n / N, (S_n + N - n) / N]``, makes
  the interval collapse to the file's exact mean at ``n = N``. That answers "what is
  the mean of this file", not "which model is better on questions like these": a file
  whose win rate is 0.498 ends "model 2 is better" about the file, whatever the
  population it came from.

The bets, in both forms (with ``mu_i(m) = m`` with replacement):

- For each candidate ``m`` two gamblers bet on the next score, one that it exceeds
  ``mu_i(m)``, one that it falls short. Their capitals
  ``K+_t(m) = prod (1 + l+_i (x_i - mu_i(m)))`` and
  ``K-_t(m) = prod (1 - l-_i (x_i - mu_i(m)))`` are nonnegative martingales when
  ``m = mu``. The paper's hedged capital ``max(K+ / 2, K- / 2)`` is at most their
  average, itself a nonnegative martingale that starts at 1; by Ville's inequality
  the average ever reaches ``1 / alpha`` with probability at most ``alpha``. So
  ``{m : K+_t(m) < 2 / alpha and K-_t(m) < 2 / alpha}``, over all ``t`` at once, is
  a ``1 - alpha`` confidence sequence.
- The bets are the paper's predictable plug-in, fixed before each draw is seen:
  ``l_i = sqrt(2 log(2 / alpha) / (s2_{i-1} i log(1 + i)))`` with the running variance
  ``s2_t = (1/4 + sum (x_j - xbar_j)^2) / (t + 1)``, ``xbar_j = (1/2 + S_j) / (j + 1)``,
  truncated as ``l+_i = min(l_i, c / mu_i(m))`` and ``l-_i = min(l_i, c / (1 - mu_i(m)))``
  with ``c = 1/2``, so every factor stays at least ``1 - c``.

Each capital falls as ``m`` rises (``K+``) or rises with it (``K-``): each factor is
monotone in ``m``, truncation included, so the excluded candidates form a lower and
an upper tail and the sequence is an interval. It is computed on a grid of
candidates (``resolution`` steps on [0, 1], 0.5 among them): a bound is the
outermost *excluded* grid point, which is conservative by less than one step, while
the decision "0.5 is excluded" is exact, read from the capital at 0.5.

Running intersection: a candidate excluded once stays excluded, and the reported
bounds only move inwards. This costs nothing: the event "``mu`` is in every interval"
is the same event for the sequence and for its running intersection, so the
guarantee carries over, while the intervals get narrower and never un-decide.

When an adaptive run stops: the user's ``stop_when`` setting, read once.

``stop_when`` is ``"decided"`` (stop once the anytime-valid interval for model 1's
win rate excludes 0.5), ``"width:W"`` (stop once its half-width is at most ``W``), or
both, comma-separated or as a list; the first condition met stops the run. The
interval is a :class:`~fairjudge.stats._confseq.ConfidenceSequence`, so stopping on
either condition, after any batch, keeps its coverage.

The rule also says what the decision is about (``population``): ``"source"`` (the
default), the population the file's questions are drawn from, which is what a
bootstrap CI of the full run is about too; or ``"file"``, this file's questions only.
The first is the sequence with replacement over the seeded random order, which never
collapses: deciding at the end of the file takes the same evidence as anywhere else.
The second is the sequence without replacement, which shrinks to the file's own win
rate at its end, so that a file at 0.498 ends "model 2 is better" about that file.

The caller's loop::

    rule = StopRule.parse(stop_when)
    cs = ConfidenceSequence.start(population=n_questions, level=level)
    for batch in batches:  # unit scores, in the seeded sampling order
        cs = cs.update(batch)
        if (why := rule.reason(cs)) is not None:
            break  # why: "decided", "width", or "not decided" after the last unit
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._validate import check_level

__all__ = [
    "POPULATIONS",
    "ConfidenceSequence",
    "Population",
    "StopReason",
    "StopRule",
    "WealthGrid",
]


_TRUNCATION = 0.5  # c: the largest share of the capital one bet may risk
_TINY = 1e-300  # c / mu with mu = 0: the truncation does not bind


def _grid(resolution: int) -> NDArray[np.float64]:
    if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution < 2:
        raise ConfigError(f"resolution must be an even integer >= 2; got {resolution!r}")
    if resolution % 2:
        raise ConfigError(f"resolution must be even, so that 0.5 is a grid point; got {resolution}")
    return np.arange(resolution + 1, dtype=np.float64) / resolution


class WealthGrid:
    """The betting capitals of ``runs`` independent sequences, in lock-step (mutable).

    The engine behind :class:`ConfidenceSequence`, exposed for simulations that follow
    thousands of random orders at once. ``replacement`` picks the form: ``True`` (the
    default) for i.i.d. units, the mean of the population they are drawn from;
    ``False`` for a uniformly random order of ``population`` units without
    replacement, the mean of those units only. ``grid`` is the candidate means: an even
    ``resolution`` (``k / resolution`` for ``k = 0..resolution``), or explicit sorted
    values in [0, 1] that include 0.5. The decision at 0.5 does not depend on the
    other points, so a simulation that only needs decisions may pass ``[0.5]``.

    Attributes:
        population: ``N``, the number of units: the most that can be seen; without
            replacement also the population the mean is about.
        replacement: Which form (see the module's docstring).
        n: Units seen so far (the same in every run).
        total: Sum of the scores seen, per run.
        low: Lower bound per run (the running intersection).
        high: Upper bound per run.
        winner: Per run: 0 undecided, 1 when the mean is shown above 0.5, 2 below.
        contradicted: Per run: the data excluded every candidate at some point.
    """

    def __init__(
        self,
        population: int,
        runs: int = 1,
        *,
        level: float = 0.95,
        grid: int | ArrayLike = 2000,
        replacement: bool = True,
    ) -> None:
        if isinstance(population, bool) or not isinstance(population, int) or population < 1:
            raise ConfigError(f"population must be an integer >= 1; got {population!r}")
        if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
            raise ConfigError(f"runs must be an integer >= 1; got {runs!r}")
        if not isinstance(replacement, bool):
            raise ConfigError(f"replacement must be True or False; got {replacement!r}")
        self.population, self.level = population, check_level(level)
        self.replacement = replacement
        self.grid = _grid(grid) if isinstance(grid, int) else np.asarray(grid, dtype=np.float64)
        g = self.grid
        if g.ndim != 1 or not np.all(np.diff(g) > 0) or g[0] < 0 or g[-1] > 1 or 0.5 not in g:
            raise ConfigError("grid must be sorted values in [0, 1] that include 0.5")
        self._half = int(np.searchsorted(g, 0.5))
        self._log_threshold = math.log(2 / (1 - self.level))  # hedged, theta = 1/2
        self.n = 0
        self.total = np.zeros(runs)
        self._dev2 = np.zeros(runs)  # sum of (x_j - xbar_j)^2, for the plug-in variance
        self._log_plus = np.zeros((runs, g.size))
        self._log_minus = np.zeros((runs, g.size))
        self._out_plus = np.zeros((runs, g.size), dtype=bool)  # ever K+ >= 2 / alpha
        self._out_minus = np.zeros((runs, g.size), dtype=bool)
        self.low, self.high = np.zeros(runs), np.ones(runs)
        self.winner = np.zeros(runs, dtype=np.int8)
        self.contradicted = np.zeros(runs, dtype=bool)

    def copy(self) -> WealthGrid:
        """An independent copy (the arrays are copied, the grid is shared)."""
        new = object.__new__(WealthGrid)
        for name, value in vars(self).items():
            setattr(new, name, value.copy() if isinstance(value, np.ndarray) else value)
        new.grid = self.grid
        return new

    @property
    def log_capital(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``log K+`` and ``log K-`` at each grid point, per run (``runs x grid``)."""
        return self._log_plus, self._log_minus

    def excluded(self, value: float) -> NDArray[np.bool_]:
        """Per run, whether the grid point ``value`` has been excluded at any time so far.

        Exact for ``value`` itself, unlike the bounds, which are rounded outwards to the
        grid: a simulation that puts the true mean on the grid reads its miscoverage here.

        Raises:
            ConfigError: ``value`` is not a grid point.
        """
        at = np.flatnonzero(self.grid == value)
        if at.size != 1:
            raise ConfigError(f"value must be a point of the grid; got {value!r}")
        k = int(at[0])
        lo_f, hi_f = self._possible()
        outside = (value < lo_f) | (value > hi_f)
        return self._out_plus[:, k] | self._out_minus[:, k] | outside

    def _possible(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Per run, the range of means the data allow outright (no bet needed).

        Without replacement the units not yet seen lie in [0, 1], which bounds the
        population's mean; with replacement nothing seen rules a mean out.
        """
        if self.replacement:
            return np.zeros_like(self.total), np.ones_like(self.total)
        n_pop = self.population
        return self.total / n_pop, (self.total + (n_pop - self.n)) / n_pop

    def update(self, scores: NDArray[np.float64]) -> None:
        """Bet on the next ``scores.shape[1]`` units of every run, in the order given.

        The order must be the sampling order: the bets are predictable only if a unit's
        position does not depend on its score. Every observation is a look, so a
        candidate excluded in the middle of a batch stays excluded.

        Args:
            scores: ``runs x batch`` scores in [0, 1], already checked.
        """
        x = scores
        if x.ndim != 2 or x.shape[0] != self.total.size:
            raise InputError(f"scores must be runs x batch; got shape {x.shape}", params="scores")
        size, n_pop = x.shape[1], self.population
        if self.n + size > n_pop:
            raise InputError(
                f"scores: {size} more units after {self.n} would exceed population={n_pop}",
                params=("scores", "population"),
            )
        if size == 0:
            return
        t = np.arange(self.n + 1, self.n + size + 1, dtype=np.float64)  # 1-based draw index
        s_incl = self.total[:, None] + np.cumsum(x, axis=1)
        s_prev = np.concatenate([self.total[:, None], s_incl[:, :-1]], axis=1)
        dev2 = (x - (0.5 + s_incl) / (t + 1)) ** 2
        d_incl = self._dev2[:, None] + np.cumsum(dev2, axis=1)
        var_prev = (0.25 + np.concatenate([self._dev2[:, None], d_incl[:, :-1]], axis=1)) / t
        bet = np.sqrt(2 * self._log_threshold / (var_prev * t * np.log1p(t)))[:, :, None]
        mu: NDArray[np.float64] = self.grid[None, None, :]  # i.i.d.: the next draw's mean is m
        if not self.replacement:
            left = (n_pop - t + 1)[None, :, None]
            # Conditional mean of the next draw if the population mean were m; clipped
            # where m is already impossible (those candidates are masked out below).
            mu = np.clip((n_pop * self.grid - s_prev[:, :, None]) / left, 0.0, 1.0)
        gap = x[:, :, None] - mu
        plus = np.minimum(bet, _TRUNCATION / np.maximum(mu, _TINY)) * gap
        minus = np.minimum(bet, _TRUNCATION / np.maximum(1 - mu, _TINY)) * gap
        path_plus = self._log_plus[:, None, :] + np.cumsum(np.log1p(plus), axis=1)
        path_minus = self._log_minus[:, None, :] + np.cumsum(np.log1p(-minus), axis=1)
        self._out_plus |= (path_plus >= self._log_threshold).any(axis=1)
        self._out_minus |= (path_minus >= self._log_threshold).any(axis=1)
        self._log_plus, self._log_minus = path_plus[:, -1, :], path_minus[:, -1, :]
        self.n += size
        self.total, self._dev2 = s_incl[:, -1], d_incl[:, -1]
        self._bounds()

    def _bounds(self) -> None:
        g = self.grid
        lo_f, hi_f = self._possible()
        possible = (g >= lo_f[:, None]) & (g <= hi_f[:, None])
        g_low = np.where(self._out_plus & possible, g, -np.inf).max(axis=1)
        g_high = np.where(self._out_minus & possible, g, np.inf).min(axis=1)
        low = np.maximum(np.maximum(self.low, lo_f), g_low)
        high = np.minimum(np.minimum(self.high, hi_f), g_high)
        empty = low > high
        if empty.any():
            # Every candidate is excluded: the miscoverage event (probability <= alpha)
            # has happened. Report the possible mean nearest to where the bounds crossed;
            # without replacement, at n = N, that is the population mean itself.
            point = np.clip((low + high) / 2, lo_f, hi_f)
            low, high = np.where(empty, point, low), np.where(empty, point, high)
            self.contradicted |= empty
        self.low, self.high = low, high
        up = self._out_plus[:, self._half] | (lo_f > 0.5)
        down = self._out_minus[:, self._half] | (hi_f < 0.5)
        mean = self.total / self.n
        both = np.where(mean > 0.5, 1, np.where(mean < 0.5, 2, 0))
        side = np.where(up & ~down, 1, np.where(down & ~up, 2, np.where(up, both, 0)))
        self.winner = np.where(self.winner == 0, side, self.winner).astype(np.int8)


def _check_scores(
    scores: Iterable[float] | ArrayLike, seen: int, population: int
) -> NDArray[np.float64]:
    given: Any = scores
    if isinstance(given, Iterable) and not isinstance(given, np.ndarray | str):
        given = list(given)  # a generator, a tuple, a pandas column
    try:
        values = np.asarray(given, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(
            f"scores must be numbers in [0, 1]; got {scores!r:.60}", params="scores"
        ) from None
    if values.ndim != 1:
        raise InputError(
            f"scores must be a flat sequence; got shape {values.shape}", params="scores"
        )
    bad = np.flatnonzero(~((values >= 0) & (values <= 1)))  # NaN fails both
    if bad.size:
        k = int(bad[0])
        raise InputError(
            f"scores[{k}] must be a unit score in [0, 1]; got {float(values[k])!r}", params="scores"
        )
    if seen + values.size > population:
        raise InputError(
            f"scores: {values.size} more units after {seen} would exceed "
            f"population={population}; each unit is judged once",
            params=("scores", "population"),
        )
    return values


@dataclass(frozen=True, slots=True, eq=False)
class ConfidenceSequence:
    """An anytime-valid interval for model 1's win rate, updated batch by batch.

    The sampling unit is the *question*: when several items share a question (turns
    of a conversation, several prompt variants), they are judged together and the
    caller passes one unit score per question, the mean of its items' scores (still
    in [0, 1]). The file's questions are judged in a seeded random order, and
    ``population`` counts them. The target is the mean over questions of their mean
    score; it equals the item win rate when every question has the same number of
    items. With replacement (the default) it is that mean over the population the
    questions were drawn from, questions like these; without replacement it is the
    file's own mean, and the interval shrinks to it at the end of the file.

    Attributes:
        population: Units in the file (``N``): the most that can be judged.
        level: Nominal coverage, simultaneously over all sample sizes.
        n: Units judged so far.
        total: Sum of their scores.
        low: Lower bound, conservative by less than ``1 / resolution``.
        high: Upper bound, likewise.
        winner: ``"1"`` once the interval shows the mean above 0.5, ``"2"`` below;
            ``None`` while 0.5 is still possible. Never changes once set.
        contradicted: The data excluded every candidate mean, which happens with
            probability at most ``1 - level``; the interval is then the possible mean
            nearest to where the bounds crossed.

    Example:
        >>> this_file = ConfidenceSequence.start(population=4, replacement=False)
        >>> this_file = this_file.update([1.0, 0.5]).update([1.0, 1.0])
        >>> this_file.interval, this_file.winner
        (ConfidenceInterval(low=0.875, high=0.875, level=0.95, reason=None), '1')
        >>> like_these = ConfidenceSequence.start(population=4).update([1.0, 0.5, 1.0, 1.0])
        >>> like_these.winner is None  # four questions say little about questions like them
        True
    """

    population: int
    level: float
    n: int
    total: float
    low: float
    high: float
    winner: Literal["1", "2"] | None
    contradicted: bool
    _wealth: WealthGrid = field(repr=False)

    @classmethod
    def start(
        cls, population: int, *, level: float = 0.95, resolution: int = 2000,
        replacement: bool = True,
    ) -> ConfidenceSequence:  # fmt: skip
        """The sequence before any unit is judged: the interval is [0, 1].

        Args:
            population: Number of units (questions) that may be judged, at least 1.
            level: Coverage over the whole sequence, in (0, 1).
            resolution: Grid steps on [0, 1] (even): bounds are exact to ``1 / resolution``.
            replacement: ``True``: about the population the units are drawn from (i.i.d.
                units); ``False``: about these ``population`` units only.

        Raises:
            ConfigError: A parameter is out of range; the message names it.
        """
        wealth = WealthGrid(population, 1, level=level, grid=resolution, replacement=replacement)
        return cls(population, wealth.level, 0, 0.0, 0.0, 1.0, None, False, wealth)

    def update(self, scores: Iterable[float] | ArrayLike) -> ConfidenceSequence:
        """The sequence after the next units, given in the order they were drawn.

        Pass the batch in its seeded sampling order, not in the order the calls
        completed: completion time can depend on the answers, and the bets are valid
        only for an order that does not. ``self`` is left unchanged.

        Args:
            scores: One score in [0, 1] per unit (the mean of the unit's item scores).

        Raises:
            InputError: A score is outside [0, 1] or not a number, or the units would
                exceed ``population``.
        """
        values = _check_scores(scores, self.n, self.population)
        if values.size == 0:
            return self
        wealth = self._wealth.copy()
        wealth.update(values[None, :])
        winner = {0: None, 1: "1", 2: "2"}[int(wealth.winner[0])]
        return ConfidenceSequence(
            self.population, self.level, wealth.n, float(wealth.total[0]),
            float(wealth.low[0]), float(wealth.high[0]), winner,  # type: ignore[arg-type]
            bool(wealth.contradicted[0]), wealth,
        )  # fmt: skip

    @property
    def replacement(self) -> bool:
        """``True``: about the population the units are drawn from; ``False``: these units."""
        return self._wealth.replacement

    @property
    def estimate(self) -> float:
        """Mean score of the units judged so far (NaN before any)."""
        return self.total / self.n if self.n else math.nan

    @property
    def interval(self) -> ConfidenceInterval:
        """The current anytime-valid interval."""
        return ConfidenceInterval(self.low, self.high, self.level)

    @property
    def half_width(self) -> float:
        """Half the interval's width (0.5 before any unit; without replacement, 0 at the end)."""
        return (self.high - self.low) / 2

    @property
    def complete(self) -> bool:
        """Whether every unit of the population has been judged."""
        return self.n == self.population

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "estimate": None if self.n == 0 else self.estimate,
            "ci": self.interval.to_dict(),
            "n": self.n,
            "population": self.population,
            "winner": self.winner,
            "contradicted": self.contradicted,
            "method": "betting confidence sequence, "
            + ("with" if self.replacement else "without")
            + " replacement (Waudby-Smith & Ramdas)",
        }

    def summary(self) -> str:
        """One line: estimate, interval, units judged and the decision."""
        decision = f"model {self.winner} is better" if self.winner else "0.5 not excluded"
        return (
            f"win rate {self.estimate:.3f}, {self.level:.0%} anytime-valid CI {self.interval} "
            f"after {self.n} of {self.population} units; {decision}"
        )


Population = Literal["source", "file"]
"""What an adaptive run's interval and decision are about: ``"source"``, the population
the file's questions are drawn from (questions like these); ``"file"``, this file only."""

POPULATIONS: tuple[Population, ...] = ("source", "file")

StopReason = Literal["decided", "width", "not decided"]
"""Why an adaptive run stopped: the interval excludes 0.5, it is narrow enough, or the
whole population was judged without excluding 0.5."""

_STOP_HELP = (
    "use 'decided', 'width:W' (W a half-width in (0, 0.5)) or both, e.g. 'decided,width:0.05'"
)


@dataclass(frozen=True, slots=True)
class StopRule:
    """When an adaptive run stops: ``decided``, ``width:W``, or both (first met wins).

    Attributes:
        decided: Stop once the interval excludes 0.5.
        half_width: Stop once the interval's half-width is at most this; ``None`` for none.
        population: What the interval and the decision are about (:data:`Population`).
    """

    decided: bool = False
    half_width: float | None = None
    population: Population = "source"

    def __post_init__(self) -> None:
        if self.population not in POPULATIONS:
            raise ConfigError(
                f"population must be 'source' (the population the questions are drawn "
                f"from) or 'file' (this file only); got {self.population!r}",
                params="population",
            )
        if not self.decided and self.half_width is None:
            raise ConfigError(f"stop_when gives no condition; {_STOP_HELP}", params="stop_when")
        w = self.half_width
        if w is not None and not (isinstance(w, int | float) and 0 < w < 0.5):
            raise ConfigError(
                f"stop_when width must be a half-width in (0, 0.5); got {w!r}", params="stop_when"
            )

    @classmethod
    def parse(
        cls, stop_when: str | Sequence[str] | StopRule, population: Population | None = None
    ) -> StopRule:
        """Read the user's setting: ``"decided"``, ``"width:0.05"``, ``"decided,width:0.05"``.

        A list of such strings is read as one setting (a repeated option).

        Args:
            stop_when: The setting, or a rule already read.
            population: What the decision is about; ``None`` keeps a rule's own (or
                ``"source"``). A rule that says otherwise is refused, not overridden.

        Raises:
            ConfigError: An unknown, malformed or repeated condition (names
                ``stop_when``), or a ``population`` that is not one of
                :data:`POPULATIONS` or contradicts the rule's (names ``population``).
        """
        if isinstance(stop_when, StopRule):
            if population is not None and population != stop_when.population:
                raise ConfigError(
                    f"population={population!r} contradicts the stop rule's "
                    f"population={stop_when.population!r}; give it once",
                    params="population",
                )
            return stop_when
        texts = [stop_when] if isinstance(stop_when, str) else stop_when
        if not isinstance(texts, Sequence) or not all(isinstance(t, str) for t in texts):
            raise ConfigError(
                f"stop_when must be a string or a list of strings; got {stop_when!r:.60}; "
                f"{_STOP_HELP}",
                params="stop_when",
            )
        parts = [p.strip() for text in texts for p in text.split(",") if p.strip()]
        if not parts:
            raise ConfigError(f"stop_when is empty; {_STOP_HELP}", params="stop_when")
        decided, width = False, None
        for part in (p.lower() for p in parts):
            name, _, value = part.partition(":")
            if part == "decided":
                if decided:
                    raise ConfigError("stop_when gives 'decided' twice", params="stop_when")
                decided = True
            elif name.strip() == "width":
                if width is not None:
                    raise ConfigError(
                        f"stop_when gives a width twice ({part!r})", params="stop_when"
                    )
                width = _width(part, value.strip())
            else:
                raise ConfigError(
                    f"stop_when has an unknown condition {part!r}; {_STOP_HELP}", params="stop_when"
                )
        return cls(decided, width, "source" if population is None else population)

    def reason(self, sequence: ConfidenceSequence) -> StopReason | None:
        """Why to stop now, or ``None`` to judge the next batch.

        ``"decided"`` wins over ``"width"`` when both are met by the same batch. At
        the end of the file, a run about the population the questions are drawn from
        (``"source"``) is decided only if its interval excludes 0.5 there, on the same
        evidence as anywhere else, and ends ``"not decided"`` otherwise. A run about
        this file only (``"file"``) ends on the file's exact win rate: ``"decided"``
        (about this file) unless it is exactly 0.5.
        """
        if self.decided and sequence.winner is not None:
            return "decided"
        if self.half_width is not None and sequence.half_width <= self.half_width:
            return "width"
        return "not decided" if sequence.complete else None

    def __str__(self) -> str:
        parts = ["decided"] if self.decided else []
        if self.half_width is not None:
            parts.append(f"width:{self.half_width:g}")
        return ",".join(parts)


def _width(part: str, value: str) -> float:
    try:
        w = float(value)
    except ValueError:
        raise ConfigError(
            f"stop_when {part!r}: the width must be a number, e.g. 'width:0.05'; got {value!r}",
            params="stop_when",
        ) from None
    if not 0 < w < 0.5:  # NaN fails too
        raise ConfigError(
            f"stop_when {part!r}: the width is a half-width and must be in (0, 0.5); got {w!r}",
            params="stop_when",
        )
    return w
