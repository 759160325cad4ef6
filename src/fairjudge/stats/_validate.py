"""The array types of the statistics functions, and the input checks that make them.

Statistics code is where a silent mistake costs the most: a verdict spelled ``"A"``
where ``"1"`` was meant, or a length column shifted by one row, still produces a
number, just a wrong one. So every public function checks its inputs first, and
every error names the parameter, the position and the offending value, for example
``outcomes[3] must be one of '1', '2', 'tie'; got 'x'``.

Bad data raises :class:`~fairjudge.InputError`; a bad option (a level outside
(0, 1), a negative penalty) raises :class:`~fairjudge.ConfigError`. Both are
``ValueError`` subclasses.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from fairjudge._errors import ConfigError, InputError
from fairjudge._types import OUTCOME_SCORE, Outcome

__all__ = [
    "OUTCOME_CODES",
    "OUTCOME_SCORES",
    "POSITION_CODES",
    "BoolArray",
    "FloatArray",
    "IntArray",
    "check_clusters",
    "check_finite",
    "check_labels",
    "check_level",
    "check_n_resamples",
    "check_non_negative",
    "check_outcomes",
    "check_positions",
    "check_same_length",
    "check_seed",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]

OUTCOME_CODES: dict[str, int] = {"1": 0, "2": 1, "tie": 2}
"""Internal integer codes of resolved outcomes: model 1 wins, model 2 wins, tie."""

OUTCOME_SCORES = np.array([OUTCOME_SCORE[Outcome(label)] for label in OUTCOME_CODES])
"""Score of model (or system) 1 per outcome code, from :data:`fairjudge.OUTCOME_SCORE`."""

POSITION_CODES: dict[str, int] = {"A": 0, "B": 1, "tie": 2}
"""Internal integer codes of per-call position verdicts."""


def _as_list(name: str, values: object) -> list[Any]:
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise InputError(f"{name} must be a sequence; got {type(values).__name__} {values!r:.60}")
    return list(cast("Iterable[Any]", values))


def _first_bad(name: str, items: list[Any], is_ok: Any) -> tuple[int, Any] | None:
    for i, value in enumerate(items):
        try:
            ok = is_ok(value)
        except TypeError:  # unhashable
            ok = False
        if not ok:
            return i, value
    return None


def _unique(name: str, items: list[Any], is_ok: Any, message: str) -> set[Any]:
    """Distinct values of ``items``, after checking each distinct value once.

    Checking the few distinct values instead of every entry keeps validation of
    200,000 battles in the milliseconds; only on failure is the list scanned again
    to name the first offending index.
    """
    try:
        distinct = set(items)
    except TypeError:
        distinct = None
    if distinct is None or not all(is_ok(v) for v in distinct):
        bad = _first_bad(name, items, is_ok)
        if bad is not None:
            raise InputError(message.format(name=name, i=bad[0], value=bad[1]))
    return distinct if distinct is not None else set()


def _check_codes(name: str, values: Sequence[str], codes: dict[str, int]) -> NDArray[np.intp]:
    items = _as_list(name, values)
    allowed = ", ".join(repr(k) for k in codes)
    # StrEnum members compare and hash equal to their value, so Outcome.ONE == "1" works.
    _unique(
        name,
        items,
        lambda v: isinstance(v, str) and v in codes,
        "{name}[{i}] must be one of " + allowed + "; got {value!r}",
    )
    return np.fromiter(map(codes.__getitem__, items), dtype=np.intp, count=len(items))


def check_outcomes(name: str, values: Sequence[str]) -> NDArray[np.intp]:
    """Map resolved outcomes ``"1"``/``"2"``/``"tie"`` to codes 0/1/2.

    Raises:
        InputError: A value is not one of the three outcomes; names its index.
    """
    return _check_codes(name, values, OUTCOME_CODES)


def check_positions(name: str, values: Sequence[str]) -> NDArray[np.intp]:
    """Map position verdicts ``"A"``/``"B"``/``"tie"`` to codes 0/1/2.

    Raises:
        InputError: A value is not one of the three verdicts; names its index.
    """
    return _check_codes(name, values, POSITION_CODES)


def check_labels(name: str, values: Sequence[str]) -> tuple[list[str], set[str]]:
    """Check model names: each must be a non-empty string.

    Returns:
        The names as a list, and the set of distinct names.

    Raises:
        InputError: A name is not a string or is empty; names its index.
    """
    items = _as_list(name, values)
    distinct = _unique(
        name,
        items,
        lambda v: isinstance(v, str) and len(v) > 0,
        "{name}[{i}] must be a non-empty model name; got {value!r}",
    )
    return items, distinct


def check_finite(name: str, values: Sequence[float] | NDArray[Any]) -> NDArray[np.float64]:
    """Convert to a 1-d float array, rejecting non-numbers, NaN and infinities.

    Raises:
        InputError: A value is not a finite number; names its index.
    """
    items = values.tolist() if isinstance(values, np.ndarray) else _as_list(name, values)
    out = np.empty(len(items), dtype=np.float64)
    for i, value in enumerate(items):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise InputError(f"{name}[{i}] must be a finite number; got {value!r}")
        x = float(value)
        if not math.isfinite(x):
            raise InputError(f"{name}[{i}] must be a finite number; got {value!r}")
        out[i] = x
    return out


def check_same_length(**sequences: Sequence[Any] | NDArray[Any] | None) -> int:
    """Check that the given sequences (``None`` skipped) all have the same length.

    Returns:
        The common length.

    Raises:
        InputError: Two lengths differ; names both parameters and lengths.
    """
    first: tuple[str, int] | None = None
    for name, seq in sequences.items():
        if seq is None:
            continue
        n = len(seq)
        if first is None:
            first = (name, n)
        elif n != first[1]:
            raise InputError(
                f"{name} has {n} entries but {first[0]} has {first[1]}; "
                "they must describe the same items, one entry per item"
            )
    return 0 if first is None else first[1]


def check_clusters(values: Sequence[Hashable], n: int) -> tuple[NDArray[np.intp], int]:
    """Turn cluster labels (``questions``) into codes ``0..k-1`` in order of first appearance.

    First appearance (not sorting, not ``hash``) keeps the codes, and therefore the
    bootstrap draws, identical across processes and for labels of mixed types.

    Returns:
        The codes and the number of clusters.

    Raises:
        InputError: Wrong length or an unhashable label.
    """
    items = _as_list("questions", values)
    if len(items) != n:
        raise InputError(f"questions has {len(items)} labels but there are {n} items")
    index: dict[Hashable, int] = {}
    codes = np.empty(n, dtype=np.intp)
    for i, value in enumerate(items):
        try:
            codes[i] = index.setdefault(value, len(index))
        except TypeError:
            raise InputError(f"questions[{i}] must be hashable; got {value!r}") from None
    return codes, len(index)


def check_level(level: float) -> float:
    """Check a confidence level: a number strictly between 0 and 1.

    Raises:
        ConfigError: ``level`` is outside (0, 1).
    """
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 < level < 1:
        raise ConfigError(f"level must be a number in (0, 1), e.g. 0.95; got {level!r}")
    return float(level)


def check_n_resamples(n_resamples: int) -> int:
    """Check a bootstrap size.

    Raises:
        ConfigError: Not an integer, or below 1.
    """
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise ConfigError(f"n_resamples must be an integer; got {n_resamples!r}")
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1; got {n_resamples!r}")
    return int(n_resamples)


def check_seed(seed: int) -> int:
    """Check a seed: a non-negative integer, recorded in every result.

    Raises:
        ConfigError: Not a non-negative integer.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer; got {seed!r}")
    return int(seed)


def check_non_negative(name: str, value: float) -> float:
    """Check an option that must be a finite number >= 0 (a penalty, a K-factor).

    Raises:
        ConfigError: Negative, infinite, NaN or not a number.
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or value < 0
    ):
        raise ConfigError(f"{name} must be a finite number >= 0; got {value!r}")
    return float(value)
