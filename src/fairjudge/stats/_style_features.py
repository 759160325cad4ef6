"""Style features of an answer, Arena-Hard-Auto's way, and the style design matrix.

The features follow Arena-Hard-Auto (``show_result.py``, ``add_markdown_info.py``):

- code blocks (```` ``` ... ``` ````) are removed before counting markdown, so a code
  answer is not rewarded for its comments' ``#`` lines;
- headers (``#`` to ``######`` at the start of a line), list items (ordered and
  unordered) and bold spans (``**x**`` and ``__x__``) are counted, and divided by
  the answer length to give densities;
- length: ``(len_A - len_B) / (len_A + len_B)``; each density:
  ``(d_A - d_B) / (d_A + d_B + 1)``;
- each feature is standardised over the battles, so ``beta_k`` is the log-odds
  effect of one standard deviation of that style difference.

Arena-Hard-Auto counts length in tiktoken tokens; with no tokenizer dependency,
:func:`style_features` counts whitespace-separated words (the length feature is a
ratio, so the unit barely matters; pass your own token counts as
``StyleFeatures(length=...)`` to match exactly).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from fairjudge._errors import InputError
from fairjudge.stats._arrays import FloatArray

__all__ = [
    "STYLE_CONTROLS",
    "StyleControl",
    "StyleFeatures",
    "feature_matrix",
    "style_design",
    "style_features",
]

StyleControl = Literal["length", "headers", "lists", "bold"]
STYLE_CONTROLS: tuple[StyleControl, ...] = ("length", "headers", "lists", "bold")
"""The style covariates, in Arena-Hard-Auto's order."""

_CODE_BLOCK = re.compile(r"```[^`]*```")
_HEADER = re.compile(r"^#{1,6}\s", re.MULTILINE)
_ORDERED = re.compile(r"^\s*\d+\.\s", re.MULTILINE)
_UNORDERED = re.compile(r"^\s*[-*+]\s", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")


@dataclass(frozen=True, slots=True)
class StyleFeatures:
    """Length and markdown counts of one answer.

    Attributes:
        length: Answer length (words by default; any unit, used in ratios).
        headers: Markdown headers, outside code blocks.
        lists: List items, ordered and unordered, outside code blocks.
        bold: Bold spans, outside code blocks.
    """

    length: float
    headers: int = 0
    lists: int = 0
    bold: int = 0

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form."""
        return asdict(self)


def style_features(text: str) -> StyleFeatures:
    r"""Count an answer's length and markdown elements, Arena-Hard-Auto's way.

    Example:
        >>> style_features("# Title\n- a **b**\n```\n# not a header\n```")
        StyleFeatures(length=11, headers=1, lists=1, bold=1)
    """
    if not isinstance(text, str):
        raise InputError(f"text must be a string; got {type(text).__name__}")
    prose = _CODE_BLOCK.sub("", text)
    return StyleFeatures(
        length=len(text.split()),
        headers=len(_HEADER.findall(prose)),
        lists=len(_ORDERED.findall(prose)) + len(_UNORDERED.findall(prose)),
        bold=len(_BOLD.findall(prose)),
    )


def feature_matrix(name: str, values: Sequence[StyleFeatures | str]) -> FloatArray:
    """``(m, 4)`` array of length, headers, lists, bold; strings are featurised.

    Raises:
        InputError: An entry is neither features nor text, or holds a bad count.
    """
    out = np.empty((len(values), 4))
    for i, v in enumerate(values):
        f = style_features(v) if isinstance(v, str) else v
        if not isinstance(f, StyleFeatures):
            raise InputError(
                f"{name}[{i}] must be a StyleFeatures or the answer text; got {type(v).__name__}"
            )
        row = (f.length, f.headers, f.lists, f.bold)
        if not all(
            isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) and x >= 0
            for x in row
        ):
            raise InputError(f"{name}[{i}] must hold finite counts >= 0; got {f!r}")
        out[i] = row
    return out


def style_design(fa: FloatArray, fb: FloatArray) -> FloatArray:
    """Arena-Hard-Auto's normalised style differences (before standardising).

    Args:
        fa: ``(m, 4)`` features of answer A (see :func:`feature_matrix`).
        fb: ``(m, 4)`` features of answer B.

    Returns:
        ``(m, 4)``: the length ratio, then the header, list and bold densities.
    """
    la, lb = fa[:, 0], fb[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        length = np.where(la + lb > 0, (la - lb) / (la + lb), 0.0)
        da = np.where(la[:, None] > 0, fa[:, 1:] / la[:, None], 0.0)
        db = np.where(lb[:, None] > 0, fb[:, 1:] / lb[:, None], 0.0)
    out: FloatArray = np.column_stack([length, (da - db) / (da + db + 1.0)])
    return out
