"""Trend monitoring: has the judge's view of the answers moved since a baseline run?

:func:`score_trend` compares two pointwise runs per dimension: the mean shift with a
bootstrap CI clustered by question and a permutation test of any change in the
scores' distribution, summed up in one plain line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fairjudge._errors import ConfigError, InputError
from fairjudge._items import question_text
from fairjudge.evaluation._scores import ScoreResult
from fairjudge.evaluation._scores_stats import ScoreMean, score_mean
from fairjudge.io import open_source, read_header, shown
from fairjudge.stats import (
    ConfidenceInterval,
    FloatArray,
    chunk_sizes,
    cluster_draws,
    percentile_bounds,
    weighted_means,
)

__all__ = [
    "DimensionShift",
    "ScoreRun",
    "ScoreTrend",
    "ShiftTest",
    "Strata",
    "check_comparable",
    "load_score_run",
    "same_judge",
    "score_trend",
    "shift_interval",
    "shift_test",
]


TEST_NAME = "permutation test of the Wasserstein-1 distance, questions permuted whole"


@dataclass(frozen=True, slots=True)
class Strata:
    """Two runs' scores on one dimension, gathered by question.

    Attributes:
        levels: Every score either run gave, ascending.
        old: ``(questions, levels)`` baseline histograms; shared questions first,
            then the baseline's own, then the new run's own (zero rows).
        new: The same for the new run.
        n_shared: Questions both runs scored.
        n_old_only: Questions only the baseline scored.
    """

    levels: FloatArray
    old: FloatArray
    new: FloatArray
    n_shared: int
    n_old_only: int

    @classmethod
    def of(
        cls,
        old: tuple[Sequence[str], Sequence[int]],
        new: tuple[Sequence[str], Sequence[int]],
    ) -> Strata:
        """Gather ``(clusters, scores)`` of each run into histograms by question."""
        levels = sorted({*old[1], *new[1]})
        col = {level: j for j, level in enumerate(levels)}
        in_old, in_new = dict.fromkeys(old[0]), dict.fromkeys(new[0])
        shared = [q for q in in_old if q in in_new]
        order = shared + [q for q in in_old if q not in in_new]
        order += [q for q in in_new if q not in in_old]
        row = {q: i for i, q in enumerate(order)}
        hists = []
        for clusters, values in (old, new):
            h = np.zeros((len(order), len(levels)))
            np.add.at(h, ([row[c] for c in clusters], [col[v] for v in values]), 1.0)
            hists.append(h)
        return cls(np.asarray(levels, dtype=np.float64), hists[0], hists[1], len(shared),
                   len(in_old) - len(shared))  # fmt: skip

    @property
    def sizes(self) -> tuple[int, int, int]:
        """Questions per stratum: shared, the baseline's own, the new run's own."""
        return self.n_shared, self.n_old_only, self.old.shape[0] - self.n_shared - self.n_old_only


def shift_interval(
    strata: Strata, *, seed: int, level: float, n_resamples: int
) -> tuple[float, ConfidenceInterval]:
    """The mean shift ``new - old`` and its stratified, question-clustered bootstrap CI."""
    sums_old, sums_new = strata.old @ strata.levels, strata.new @ strata.levels
    n_old, n_new = strata.old.sum(axis=1), strata.new.sum(axis=1)
    shift = float(sums_new.sum() / n_new.sum() - sums_old.sum() / n_old.sum())
    if few := [name for name, n in (("baseline", n_old), ("new run", n_new)) if (n > 0).sum() < 2]:
        reason = f"the {few[0]} scored one question: the bootstrap cannot vary"
        return shift, ConfidenceInterval.not_estimable(reason, level)
    if (why := _alike(strata, sums_old, n_old, sums_new, n_new)) is not None:
        why += ", so every resample gives it"  # the point, marked: no bound invented
        return shift, ConfidenceInterval.alike_point(shift, level, why)
    rng = np.random.default_rng(seed)
    out = []
    for size in chunk_sizes(n_resamples, strata.old.shape[0]):
        draws = np.hstack([cluster_draws(k, size, rng) for k in strata.sizes if k])
        out.append(weighted_means(draws, sums_new, n_new) - weighted_means(draws, sums_old, n_old))
    low, high = percentile_bounds(np.concatenate(out), level)
    return shift, ConfidenceInterval(float(low[0]), float(high[0]), level)


def _alike(
    strata: Strata, s_old: FloatArray, n_old: FloatArray, s_new: FloatArray, n_new: FloatArray
) -> str | None:
    """Why the shift's bootstrap cannot vary, or ``None`` when it can.

    ``s_`` and ``n_``: each run's sums and counts of scores by question. It cannot
    vary when each run's questions all have one mean (the shift is their difference),
    or when the runs share every question, each asked as often in one run as in the
    other (or in one proportion), and every question's mean moved by the same amount.
    """
    m_old, m_new = s_old / np.maximum(n_old, 1.0), s_new / np.maximum(n_new, 1.0)
    if np.ptp(a := m_old[n_old > 0]) + np.ptp(b := m_new[n_new > 0]) <= 1e-12:
        return f"every question has a mean of {a[0]:.4g} in the baseline and {b[0]:.4g} in this run"
    if strata.n_shared < n_old.size or np.ptp(n_new / n_old) + np.ptp(m_new - m_old) > 1e-12:
        return None
    return f"every shared question moved by {float(m_new[0] - m_old[0]):+.4g}"


@dataclass(frozen=True, slots=True)
class ShiftTest:
    """A permutation test of a change in one dimension's score distribution.

    Attributes:
        statistic: The Wasserstein-1 distance between the runs' histograms, in
            scale points (0: the same distribution of scores).
        p_value: The permutation p-value; ``None`` when the test was not run.
        n_permutations: Permutations drawn.
        seed: Seed of the permutations.
        reason: Why the test was not run, else ``None``.
    """

    statistic: float | None
    p_value: float | None
    n_permutations: int
    seed: int
    reason: str | None = None

    def p_text(self) -> str:
        """The p-value as a reader sees it: ``p = 0.042``, or ``p < 0.001`` below that.

        A permutation p is never 0 (it is at least 1 / (permutations + 1)), so a p that
        three decimals would print as ``0.000`` is said as a bound instead.
        """
        p = self.p_value
        return "n/a" if p is None else "p < 0.001" if p < 0.0005 else f"p = {p:.3f}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"test": TEST_NAME, "statistic": self.statistic, "p_value": self.p_value,
                "n_permutations": self.n_permutations, "seed": self.seed,
                "reason": self.reason}  # fmt: skip


def _distances(old: FloatArray, new: FloatArray, gaps: FloatArray) -> FloatArray:
    """Wasserstein-1 distance between matching rows of two sets of histograms."""
    cdf = np.cumsum(
        new / new.sum(axis=1, keepdims=True) - old / old.sum(axis=1, keepdims=True), axis=1
    )
    out: FloatArray = (np.abs(cdf[:, :-1]) * gaps).sum(axis=1)
    return out


def shift_test(strata: Strata, *, seed: int, n_permutations: int) -> ShiftTest:
    """Permutation test of a change in the distribution of scores (module docstring)."""
    if not strata.old.any() or not strata.new.any():
        why = "the baseline" if not strata.old.any() else "the new run"
        return ShiftTest(None, None, n_permutations, seed, f"{why} has no scores")
    gaps = np.diff(strata.levels)
    s = strata.n_shared
    ho, hn, own = strata.old[:s], strata.new[:s], strata.old[s:] + strata.new[s:]
    is_old = np.zeros(own.shape[0])
    is_old[: strata.n_old_only] = 1.0
    base_old, base_new, swap = ho.sum(axis=0), hn.sum(axis=0), hn - ho
    observed = float(_distances(
        (base_old + is_old @ own)[None], (base_new + (1 - is_old) @ own)[None], gaps
    )[0])  # fmt: skip
    rng = np.random.default_rng(seed)
    extreme = 0
    for size in chunk_sizes(n_permutations, strata.old.shape[0]):
        flips = rng.integers(0, 2, size=(size, s)).astype(np.float64)
        z = rng.permuted(np.tile(is_old, (size, 1)), axis=1)
        old = base_old + flips @ swap + z @ own
        new = base_new - flips @ swap + (1 - z) @ own
        extreme += int((_distances(old, new, gaps) >= observed - 1e-12).sum())
    p = (1 + extreme) / (1 + n_permutations)
    return ShiftTest(observed, p, n_permutations, seed)


@dataclass(frozen=True, slots=True)
class ScoreRun:
    """The scores of one pointwise run, one entry per answer.

    Attributes:
        rubric: ``name@version``; ``None`` when the records do not say.
        judge: The judge's name; ``None`` when unknown.
        clusters: Each answer's question (its bootstrap cluster, and what pairs it
            with the other run's answers to the same question).
        scores: Each answer's scores by dimension (failed dimensions absent).
        source: Where the run came from, for messages.
        request: The parameters the judge's requests carried (an ``--out`` header's
            ``settings.request.params``); ``None`` when not recorded, or for a judge
            that sends none (your own function).
        mode: How the judge was asked, ``json`` or ``label``; ``None`` when not recorded.
    """

    rubric: str | None
    judge: str | None
    clusters: tuple[str, ...]
    scores: tuple[Mapping[str, int], ...]
    source: str = "this run"
    request: Mapping[str, Any] | None = None
    mode: str | None = None

    @classmethod
    def from_result(
        cls, result: ScoreResult, *, source: str = "this run",
        request: Mapping[str, Any] | None = None, mode: str | None = None,
    ) -> ScoreRun:  # fmt: skip
        """The run a result records; ``request`` and ``mode`` as its judge asked."""
        items = result.items  # by keyword: a field moved cannot take another's value
        return cls(rubric=result.rubric_tag, judge=result.judge,
                   clusters=tuple(i.item.cluster_key for i in items),
                   scores=tuple(dict(i.scored.scores) for i in items),
                   source=source, request=request, mode=mode)  # fmt: skip

    @property
    def dimensions(self) -> tuple[str, ...]:
        """Every dimension scored at least once, in order of first appearance."""
        return tuple(dict.fromkeys(d for s in self.scores for d in s))

    def values(self, dimension: str) -> tuple[list[str], list[int]]:
        """The clusters and the scores of the answers scored on ``dimension``."""
        done = [(c, s[dimension]) for c, s in zip(self.clusters, self.scores, strict=True)
                if dimension in s]  # fmt: skip
        return [c for c, _ in done], [v for _, v in done]


def _cluster(record: Mapping[str, Any], where: dict[str, Any]) -> str:
    cluster = record.get("cluster")
    if isinstance(cluster, str):
        return cluster
    question = record.get("question")
    if isinstance(question, str):
        return question
    if isinstance(question, list) and all(
        isinstance(t, Mapping) and isinstance(t.get("role"), str)
        and isinstance(t.get("content"), str) for t in question
    ):  # fmt: skip
        return question_text(tuple((t["role"], t["content"]) for t in question))
    raise InputError("'question' must be a string or a list of {role, content} turns", **where)


def _scores(record: Mapping[str, Any], where: dict[str, Any]) -> dict[str, int]:
    scores = record.get("scores")
    if not isinstance(scores, Mapping):
        raise InputError("no 'scores' object: is this a `fairjudge score out` file? found keys: "
                         f"{', '.join(map(str, record)) or '(none)'}", **where,
                         params="out")  # fmt: skip
    for name, value in scores.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(
                f"score {shown(name)} must be a whole number, got {shown(value)}", **where
            )
    return {str(k): v for k, v in scores.items()}


def _header(
    row: Mapping[str, Any], path: str, line: int
) -> tuple[Mapping[str, Any] | None, str | None] | None:
    """``None``, or for a ``--out`` header what it records of the judge's requests and mode.

    Raises:
        InputError: The file holds no scored answers, or the header's request is malformed.
    """
    header = read_header(dict(row), path=path, line=line)
    if header is None:
        return None
    header.expect(("score", "calibrate"), reader="baseline", path=path, params=("baseline",))
    if header.rubric is None:
        raise InputError(f"a pairwise {header.kind} file (verdicts, not scores); baseline reads "
                         "`score out` files", path=path, params=("baseline", "out"))  # fmt: skip
    request, mode = header.settings.get("request"), header.settings.get("mode")
    params = request.get("params") if isinstance(request, Mapping) else request
    if params is not None and not isinstance(params, Mapping):
        raise InputError("header: settings.request.params must be an object; got "
                         f"{shown(params)}", path=path, line=line)  # fmt: skip
    if mode is not None and not isinstance(mode, str):
        raise InputError(f"header: settings.mode must be a string; got {shown(mode)}",
                         path=path, line=line)  # fmt: skip
    return params, mode


def load_score_run(path: str | Path) -> ScoreRun:
    """Read an earlier ``score --out`` file back as a run.

    Raises:
        InputError: The file cannot be read, is empty, a record is not a scored item,
            or two records name different rubrics or judges (a baseline is one run);
            the message names the file and the line.
    """
    source = open_source(Path(path), pipes=False)  # a file, never a stream: see _untrusted
    clusters: list[str] = []
    scores: list[dict[str, int]] = []
    first: dict[str, tuple[int, str | None]] = {}
    asked: tuple[Mapping[str, Any] | None, str | None] = (None, None)
    for lineno, row in source.rows:
        where: dict[str, Any] = {"path": source.name, "line": lineno}
        if isinstance(row, InputError):
            raise row
        if not scores and (header := _header(row, source.name, lineno)) is not None:
            asked = header
            continue
        clusters.append(_cluster(row, where))
        scores.append(_scores(row, where))
        for key in ("rubric", "judge"):
            if (value := row.get(key)) is not None and not isinstance(value, str):
                raise InputError(f"{key!r} must be a string, got {shown(value)}", **where)
            line, seen = first.setdefault(key, (lineno, value))
            if seen != value:
                raise InputError(f"{key} {value!r} differs from {seen!r} on line {line}; "
                                 "a baseline is one run's out file", **where,
                                 params="out")  # fmt: skip
    if not scores:
        raise InputError("no records; expected one scored item per line", path=source.name)
    return ScoreRun(rubric=first["rubric"][1], judge=first["judge"][1], clusters=tuple(clusters),
                    scores=tuple(scores), source=source.name, request=asked[0],
                    mode=asked[1])  # fmt: skip


def same_judge(recorded: str | None, given: str | None) -> bool:
    """Whether ``given`` names the recorded judge.

    A ``local/`` judge is recorded with its weights' hash (``local/name@1a2b...``);
    the spec ``local/name`` names it too, so a run can be checked before its model
    loads, and checked again, exactly, once it has.
    """
    if recorded is None or given is None:
        return recorded == given
    return recorded == given or (recorded.startswith("local/") and
                                 recorded.partition("@")[0] == given)  # fmt: skip


LENGTH_CAPS = ("max_tokens", "max_completion_tokens", "max_output_tokens", "max_new_tokens")
"""Request parameters :func:`check_comparable` leaves out: they only bound a reply's
length, and a reply cut short fails to parse and counts as unscored, not as other scores."""

_SET_BY = {"response_format": "structured", "thinking": "thinking_budget"}
"""A request parameter -> the judge setting that puts it there, where their names differ."""
_SETTINGS = ("mode", "temperature", "reasoning_effort", "structured", "thinking_budget")
"""The judge settings a difference is named by (the command line shows them as flags)."""


def _shown_setting(key: str, value: Any, default: str | None = None) -> str:
    if value is None:
        return f"(not sent: the model's default{f', {default}' if default else ''})"
    if key in ("response_format", "thinking") and isinstance(value, Mapping):
        value = value.get("budget_tokens", value.get("type", value))  # the budget; json_schema
    return value if isinstance(value, str) else shown(value)


def _asked(run: ScoreRun) -> dict[str, Any]:
    """The run's mode and request parameters, less :data:`LENGTH_CAPS`: how its judge was asked."""
    params = {k: v for k, v in (run.request or {}).items() if k not in LENGTH_CAPS}
    return {"mode": run.mode, **params}


def _default_effort(judge: str | None) -> str | None:
    """The effort an ``openai/`` judge's model takes when sent none (the capability table's)."""
    from fairjudge.backends import capabilities_for

    family, _, model = (judge or "").partition("/")
    return capabilities_for("openai", model).default_effort if family == "openai" else None


def _setting_differences(baseline: ScoreRun, current: ScoreRun) -> dict[str, str]:
    """Each judge setting the runs differ in -> the difference, where both record it.

    Values are compared as the model takes them: a ``reasoning_effort`` not sent is the
    model's default (``none`` for gpt-5.1), so sending that default is no difference.
    """
    old, new = _asked(baseline), _asked(current)
    if baseline.request is None or current.request is None:
        old, new = {"mode": old["mode"]}, {"mode": new["mode"]}
    if None in (old["mode"], new["mode"]):
        del old["mode"], new["mode"]
    named = {k: f"{_SET_BY[k]} ({k})" if k in _SET_BY else k for k in [*old, *new]}
    by = {k: (None, None) for k in named} | {"reasoning_effort": (
        _default_effort(baseline.judge), _default_effort(current.judge))}  # fmt: skip
    return {_SET_BY.get(k, k): f"{named[k]}: baseline {_shown_setting(k, old.get(k), by[k][0])}, "
            f"this run {_shown_setting(k, new.get(k), by[k][1])}" for k in named
            if old.get(k, by[k][0]) != new.get(k, by[k][1])}  # fmt: skip


def _unchecked(baseline: ScoreRun, current: ScoreRun) -> tuple[str, ...]:
    """Why the baseline's judge settings cannot be checked against this run's, if they cannot."""
    if baseline.request is not None or current.request is None:
        return ()
    asked = ", ".join(f"{_SET_BY.get(k, k)} {_shown_setting(k, v)}"
                      for k, v in _asked(current).items() if v is not None)  # fmt: skip
    return (f"the baseline {baseline.source} does not record what its judge's requests carried "
            "(written by an older fairjudge, or by a judge that sends none), so whether it was "
            f"asked as this run's judge is ({asked}) cannot be checked",)  # fmt: skip


def check_comparable(
    baseline: ScoreRun, *, rubric: str, judge: str | None, allow_different: bool = False,
    request: Mapping[str, Any] | None = None, mode: str | None = None,
) -> tuple[str, ...]:  # fmt: skip
    """How the baseline's rubric, judge and settings differ from this run's; refused unless allowed.

    The settings are the mode and what the judge's requests carried (temperature,
    ``reasoning_effort``, ``response_format`` of ``structured``, ``thinking`` of
    ``thinking_budget``, ...) as each run records them; the caps on a reply's length
    (:data:`LENGTH_CAPS`) are left out. A baseline that records none is not refused
    for it (:attr:`ScoreTrend.notes` says it was not checked).

    Args:
        baseline: The earlier run.
        rubric: This run's rubric, ``name@version``.
        judge: This run's judge (a ``--judge`` spec or the judge's name).
        allow_different: Compare anyway, recording the differences.
        request: The parameters this run's judge sends (``None``: not compared).
        mode: This run's mode (``None``: not compared).

    Returns:
        The differences, one line each (empty when the runs match).

    Raises:
        ConfigError: The runs differ and ``allow_different`` is false; it names each
            difference, with both values.
    """
    unknown = "(not recorded: written by an older fairjudge)"
    found = []
    if baseline.rubric != rubric:
        found.append(f"rubric: baseline {baseline.rubric or unknown}, this run {rubric}")
    if not same_judge(baseline.judge, judge):
        found.append(f"judge: baseline {baseline.judge or unknown}, this run {judge}")
    current = ScoreRun(rubric, judge, (), (), request=request, mode=mode)
    settings = _setting_differences(baseline, current)
    found += settings.values()
    if found and not allow_different:
        raise ConfigError(
            f"the baseline {baseline.source} was not scored like this run ("
            + "; ".join(found)
            + "), so a shift would measure the change of rubric, judge or settings as much as "
            "the answers; score as the baseline was scored, or pass allow_different=True",
            params=("allow_different", *(k for k in settings if k in _SETTINGS)),
        )
    return tuple(found)


@dataclass(frozen=True, slots=True)
class DimensionShift:
    """How one dimension's scores moved from the baseline to this run.

    Attributes:
        dimension: The dimension.
        baseline: The baseline's mean, with its CI clustered by question.
        current: This run's mean, likewise.
        shift: ``current - baseline``; ``None`` when a run has no score on it.
        ci: The shift's CI (stratified, clustered bootstrap), or why there is none.
        n_shared: Questions both runs scored on this dimension.
        test: The permutation test of a change in the distribution of scores.
    """

    dimension: str
    baseline: ScoreMean
    current: ScoreMean
    shift: float | None
    ci: ConfidenceInterval
    n_shared: int
    test: ShiftTest

    @property
    def direction(self) -> str:
        """``"up"``, ``"down"``, ``"none"`` (the CI holds 0) or ``"unknown"`` (no CI, or alike)."""
        if self.shift is None or not self.ci.estimable or self.ci.cannot_vary:
            return "unknown"
        return "up" if self.ci.low > 0 else "down" if self.ci.high < 0 else "none"

    def reading(self) -> str:
        """The shift in one plain line."""
        d, ci, s = self.dimension, self.ci, self.shift
        if s is None:
            return f"{d}: not compared: {ci.reason}"
        if self.direction == "unknown":  # no interval, or a point the bootstrap could not vary
            return f"{d}: moved by {s:+.2f}; cannot tell from noise: {ci.reason or ci.note}"
        if self.direction == "up":
            return f"{d} rose by {s:.2f} [{ci.low:.2f}, {ci.high:.2f}] since the baseline"
        if self.direction == "down":
            return f"{d} fell by {-s:.2f} [{-ci.high:.2f}, {-ci.low:.2f}] since the baseline"
        line = f"{d}: no shift beyond noise ({s:+.2f} [{ci.low:+.2f}, {ci.high:+.2f}])"
        p = self.test.p_value
        if p is not None and p < 1 - ci.level:
            line += f", but the spread of scores changed (permutation {self.test.p_text()})"
        return line

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"dimension": self.dimension, "baseline": self.baseline.to_dict(),
                "current": self.current.to_dict(), "shift": self.shift, "ci": self.ci.to_dict(),
                "direction": self.direction, "n_shared_questions": self.n_shared,
                "distribution_test": self.test.to_dict(), "reading": self.reading()}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ScoreTrend:
    """This run against a baseline, dimension by dimension.

    Attributes:
        baseline: Where the baseline came from.
        rubric: ``(baseline, this run)`` rubrics, ``name@version``.
        judge: ``(baseline, this run)`` judges.
        dimensions: One shift per dimension either run scored.
        differences: How the runs' rubric, judge or judge settings differ
            (``allow_different``).
        seed: Seed of the bootstrap and the permutations.
        level: The intervals' level (the test's threshold is ``1 - level``).
        n_resamples: Bootstrap resamples, and permutations.
        notes: What could not be checked: a baseline that does not record its judge's
            settings (:func:`check_comparable`).
    """

    baseline: str
    rubric: tuple[str | None, str | None]
    judge: tuple[str | None, str | None]
    dimensions: tuple[DimensionShift, ...]
    differences: tuple[str, ...] = ()
    seed: int = 0
    level: float = 0.95
    n_resamples: int = 2000
    notes: tuple[str, ...] = ()

    @property
    def moved(self) -> list[str]:
        """The dimensions whose mean moved beyond noise (the CI excludes 0)."""
        return [d.dimension for d in self.dimensions if d.direction in ("up", "down")]

    def summary(self) -> str:
        """One line per dimension."""
        head = [f"since the baseline {self.baseline}:", *(f"  note: {n}" for n in self.notes)]
        return "\n".join([*head, *(f"  {d.reading()}" for d in self.dimensions)])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"baseline": self.baseline,
                "rubric": {"baseline": self.rubric[0], "current": self.rubric[1]},
                "judge": {"baseline": self.judge[0], "current": self.judge[1]},
                "differences": list(self.differences), "notes": list(self.notes),
                "dimensions": [d.to_dict() for d in self.dimensions], "moved": self.moved,
                "seed": self.seed, "level": self.level,
                "n_resamples": self.n_resamples}  # fmt: skip


def _shift(
    name: str, current: ScoreRun, baseline: ScoreRun, *, seed: int, level: float, n: int
) -> DimensionShift:
    old, new = baseline.values(name), current.values(name)
    boot: dict[str, Any] = {"seed": seed, "level": level, "n_resamples": n}
    base, now = (score_mean([float(v) for v in x], c, **boot) for c, x in (old, new))
    if not old[1] or not new[1]:
        why = f"{'the baseline' if not old[1] else 'this run'} has no score on it"
        ci = ConfidenceInterval.not_estimable(why, level)
        return DimensionShift(name, base, now, None, ci, 0, ShiftTest(None, None, n, seed, why))
    strata = Strata.of(old, new)
    shift, ci = shift_interval(strata, seed=seed, level=level, n_resamples=n)
    test = shift_test(strata, seed=seed, n_permutations=n)
    return DimensionShift(name, base, now, shift, ci, strata.n_shared, test)


def score_trend(
    current: ScoreRun,
    baseline: ScoreRun,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    allow_different: bool = False,
) -> ScoreTrend:
    """Compare a run with a baseline, dimension by dimension.

    Args:
        current: This run (:meth:`ScoreRun.from_result`).
        baseline: The earlier run (:func:`load_score_run`).
        seed: Seed of the bootstrap and the permutation test.
        level: Level of the intervals; the distribution test's threshold is
            ``1 - level``.
        n_resamples: Bootstrap resamples, and permutations.
        allow_different: Compare runs scored with different rubrics, judges or
            judge settings (:func:`check_comparable`).

    Raises:
        ConfigError: The runs' rubrics, judges or judge settings differ (and not
            allowed), or a bad option.

    Example:
        >>> qs = ("q1", "q2", "q3", "q4")
        >>> old = ScoreRun("production@1", "j", qs, tuple({"accuracy": v} for v in (4, 5, 4, 5)))
        >>> new = ScoreRun("production@1", "j", qs, tuple({"accuracy": v} for v in (3, 3, 2, 4)))
        >>> score_trend(new, old, n_resamples=100).dimensions[0].reading()
        'accuracy fell by 1.50 [1.00, 2.00] since the baseline'
        >>> same = score_trend(old, old, n_resamples=100).dimensions[0]  # every question alike
        >>> same.direction, str(same.ci)
        ('unknown', '[0.000, 0.000] (all alike, the bootstrap cannot vary)')
    """
    if not 0 < level < 1:
        raise ConfigError(f"level must be in (0, 1); got {level}")
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1; got {n_resamples}")
    differences = check_comparable(
        baseline, rubric=current.rubric or "", judge=current.judge, request=current.request,
        mode=current.mode, allow_different=allow_different,
    )  # fmt: skip
    names = tuple(dict.fromkeys([*current.dimensions, *baseline.dimensions]))
    shifts = tuple(
        _shift(n, current, baseline, seed=seed, level=level, n=n_resamples) for n in names
    )
    return ScoreTrend(
        baseline.source, (baseline.rubric, current.rubric), (baseline.judge, current.judge),
        shifts, differences, seed, level, n_resamples, _unchecked(baseline, current),
    )  # fmt: skip
