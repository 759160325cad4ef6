"""Strict JSON out: every file and ``--json`` output parses with any JSON parser.

Python's ``json.dumps`` writes a float NaN or infinity as the bare words ``NaN`` and
``Infinity``, which are not JSON: a strict parser (``jq``, JavaScript's
``JSON.parse``, Go, Rust's serde) refuses the whole output. So every writer of
fairjudge's goes through :func:`strict_dumps`, which never writes them (``allow_nan=False``).
A value that is not finite becomes ``null``, and the object it sits in says why
under :data:`REASONS_KEY`, naming each such value by its path, so a reader can tell
a number that was not finite from one that was never there.

The common case costs nothing extra: the value is encoded once, strictly, and only
an output that holds a non-finite number is walked and encoded again.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["REASONS_KEY", "strict_dumps"]

REASONS_KEY = "null_reasons"
"""The top-level key of ``{path: reason}``: each non-finite value written as null."""


def strict_dumps(
    value: Any,
    *,
    indent: int | None = None,
    ensure_ascii: bool = True,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """``json.dumps(value)``, with no ``NaN`` or ``Infinity`` in it.

    Example:
        >>> strict_dumps({"cost": float("nan"), "n": 2})
        '{"cost": null, "n": 2, "null_reasons": {"cost": "NaN is not a number JSON can hold"}}'
    """
    options: dict[str, Any] = {"indent": indent, "ensure_ascii": ensure_ascii, "default": default}
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:  # a float that is not finite somewhere inside
        reasons: dict[str, str] = {}
        if default is not None:  # what the default makes of a value may hold one too
            value = json.loads(json.dumps(value, **options))
        clean = _finite(value, "", reasons)
        if isinstance(clean, dict) and reasons:
            clean[REASONS_KEY] = {**clean.get(REASONS_KEY, {}), **reasons}
        return json.dumps(clean, allow_nan=False, **options)


def _finite(value: Any, path: str, reasons: dict[str, str]) -> Any:
    """A copy of ``value`` with each non-finite float replaced by ``None``, noted in ``reasons``."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        word = "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
        reasons[path or "$"] = f"{word} is not a number JSON can hold"
        return None
    if isinstance(value, Mapping):
        return {k: _finite(v, f"{path}.{k}" if path else str(k), reasons) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v, f"{path}[{i}]", reasons) for i, v in enumerate(value)]
    return value
