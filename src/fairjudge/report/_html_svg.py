"""Forest plots for the HTML report: the geometry here, the SVG markup in the template.

A figure is an estimate with its interval, or the reason there is none. A row whose
interval cannot be estimated is drawn with no point and no whiskers, only its
reason: a bare point would read as a finding. Nothing here
writes markup, so every label and reason reaches the page through the template's
autoescaping.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from fairjudge.report._text import visible

__all__ = ["Figure", "ForestPlot", "PlotRow", "forest_plot"]

WIDTH = 760
_LABEL_END = 206  # labels are right-aligned here
_PLOT_START = 216
_PLOT_END = 486
_VALUE_START = 498
_ROW_H = 30
_TOP = 12
_AXIS_H = 34
_LABEL_CHARS = 28  # what fits left of the plot at 13px
_VALUE_CHARS = 36  # what fits right of it; the table below has the whole text


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure of a report: an estimate and its interval, or why there is none.

    Attributes:
        label: What the figure is.
        estimate: The point estimate; ``None`` when it could not be computed.
        low: The interval's lower end; ``None`` when it cannot be estimated.
        high: The interval's upper end; ``None`` when it cannot be estimated.
        text: The estimate and interval as printed, or the reason alone.
        reason: Why the interval (or the estimate) is missing; ``None`` when not.
        note: Counts behind the figure, e.g. ``n = 24; W/T/L 20/2/2``.
        interval: The interval alone as printed (or why there is none).
    """

    label: str
    estimate: float | None
    low: float | None
    high: float | None
    text: str
    reason: str | None = None
    note: str = ""
    interval: str = ""


@dataclass(frozen=True, slots=True)
class PlotRow:
    """One row of a forest plot, in SVG user units (``None``: not drawn)."""

    label: str
    y: float
    x: float | None
    x_low: float | None
    x_high: float | None
    text: str
    full_text: str
    estimable: bool


@dataclass(frozen=True, slots=True)
class ForestPlot:
    """A forest plot laid out: rows, ticks and a reference line."""

    title: str
    width: int
    height: int
    rows: tuple[PlotRow, ...]
    ticks: tuple[tuple[float, str], ...]
    ref_x: float | None
    ref_label: str
    axis_y: float
    label_end: int = _LABEL_END
    plot_start: int = _PLOT_START
    plot_end: int = _PLOT_END
    value_start: int = _VALUE_START


def _nice_ticks(low: float, high: float) -> list[float]:
    """About five round tick values covering [low, high]."""
    span = high - low
    raw = span / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def _domain(figures: Sequence[Figure], ref: float | None) -> tuple[float, float]:
    values = [v for f in figures for v in (f.estimate, f.low, f.high) if v is not None]
    values += [ref] if ref is not None else []
    if not values:
        return (0.0, 1.0)
    low, high = min(values), max(values)
    pad = (high - low) * 0.08 or max(abs(low) * 0.05, 1.0)
    return (low - pad, high + pad)


def _short(text: str, limit: int) -> str:
    # Measured as shown: a hidden character's marker (⟨U+202E⟩) takes room beside the plot.
    text = visible(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def forest_plot(
    figures: Sequence[Figure],
    *,
    title: str,
    domain: tuple[float, float] | None = None,
    ref: float | None = None,
    ref_label: str = "",
    tick_format: str = ".2f",
) -> ForestPlot:
    """Lay out a forest plot of ``figures`` (one row each, top to bottom).

    Args:
        figures: The rows.
        title: The plot's accessible title.
        domain: The axis range; by default the data's range with a margin.
        ref: A reference value drawn as a dashed line (0.5 for win rates).
        ref_label: What the reference line means.
        tick_format: How tick labels are formatted.
    """
    low, high = domain if domain is not None else _domain(figures, ref)

    def x(value: float | None) -> float | None:
        if value is None or not math.isfinite(value):
            return None
        share = (min(max(value, low), high) - low) / (high - low)
        return round(_PLOT_START + share * (_PLOT_END - _PLOT_START), 2)

    rows = []
    for i, f in enumerate(figures):
        estimable = f.reason is None and f.low is not None and f.high is not None
        rows.append(
            PlotRow(
                label=_short(f.label, _LABEL_CHARS),
                y=_TOP + i * _ROW_H + _ROW_H / 2,
                x=x(f.estimate),
                x_low=x(f.low) if estimable else None,
                x_high=x(f.high) if estimable else None,
                text=_short(f.text, _VALUE_CHARS),
                full_text=f"{f.label}: {f.text}",
                estimable=estimable,
            )
        )
    axis_y = _TOP + len(rows) * _ROW_H + 4
    ticks = tuple(
        (tx, format(t, tick_format)) for t in _nice_ticks(low, high) if (tx := x(t)) is not None
    )
    return ForestPlot(
        title=title,
        width=WIDTH,
        height=int(axis_y + _AXIS_H),
        rows=tuple(rows),
        ticks=ticks,
        ref_x=x(ref),
        ref_label=ref_label,
        axis_y=axis_y,
    )
