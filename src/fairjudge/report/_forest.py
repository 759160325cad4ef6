"""Forest plots for every page: the geometry here, the SVG markup in the template.

A figure is an estimate with its interval, or the reason there is none. A row whose
interval cannot be estimated is drawn with no point and no whiskers, only its
reason: a bare point would read as a finding. Nothing here
writes markup, so every label and reason reaches the page through the template's
autoescaping.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from fairjudge.report._text import visible

__all__ = ["Figure", "ForestPlot", "PlotRow", "forest_plot", "wrap"]

# A phone-first layout: each row's label sits above its interval, on as many lines as
# it needs. The page kit draws it in a 400-unit viewBox that scales to its container,
# or, for a page's main plot (plots.html.j2's fluid_forest), every x as a share of
# WIDTH with no viewBox, so the axis fills its card at any width while the text keeps
# the sizes the lines are wrapped for (shrunk below 400 px as the viewBox would). At
# 400 units wide, a 390 px phone draws 15-unit labels at about 12 px; the old 760-unit
# plot with labels beside the axis drew its 13-unit text at 6 px, and cut labels at 28
# characters. The font sizes are the template's (page.css).
WIDTH = 400
_PLOT_START = 16  # the axis; a point's circle and the tick labels stay inside the viewBox
_PLOT_END = 384
_TOP = 6
_LINE_H = 18  # one line of label or value text
_LABEL_UNITS = 40.0  # a label line's budget at 15 units (see _units): 360 of 400
_VALUE_UNITS = 43.0  # a value line's at 14 units
_INTERVAL_H = 24  # the interval's own line, below the text
_AXIS_H = 28


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
    """One row of a forest plot, in SVG user units (``None``: not drawn).

    Attributes:
        label: The label as shown (hidden characters made visible), whole.
        label_lines: The label wrapped to the plot's width, each line whole.
        text: The estimate and interval, or the reason, as shown, whole.
        text_lines: ``text`` wrapped likewise.
        top: Where the row's band starts; ``height`` its height.
        label_y: The first label line's baseline; ``text_y`` the first value line's.
        y: The interval's line.
        x: The point; ``x_low`` and ``x_high`` the whiskers.
        full_text: ``label: text`` with the original characters, for the tooltip.
        estimable: Whether the interval is drawn.
    """

    label: str
    label_lines: tuple[str, ...]
    text: str
    text_lines: tuple[str, ...]
    top: float
    height: float
    label_y: float
    text_y: float
    y: float
    x: float | None
    x_low: float | None
    x_high: float | None
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
    plot_start: int = _PLOT_START
    plot_end: int = _PLOT_END
    line_h: int = _LINE_H


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


def _units(char: str) -> float:
    """A character's width in units of 0.6 em, generous so that no line overflows.

    East Asian wide and fullwidth characters take a whole em; capitals, ``m``, ``w``
    and the visible marker's brackets run wider than the average letter.
    """
    if unicodedata.east_asian_width(char) in "WF":
        return 1.6
    return 1.3 if char.isupper() or char in "mwMW@%" else 1.0


def wrap(text: str, budget: float) -> tuple[str, ...]:
    """``text`` in lines of at most ``budget`` units, broken at spaces; nothing dropped.

    A word longer than a line (a model name, a path) is broken inside itself. Runs of
    spaces become one, which the SVG would draw as one anyway.
    """
    lines: list[str] = []
    line, used = "", 0.0
    for word in text.split():
        size = sum(_units(c) for c in word)
        if line and used + 1 + size <= budget:
            line, used = f"{line} {word}", used + 1 + size
            continue
        if line:
            lines.append(line)
        line, used = "", 0.0
        for char in word:  # a long word is broken where the line ends
            if used + _units(char) > budget and line:
                lines.append(line)
                line, used = "", 0.0
            line, used = line + char, used + _units(char)
    if line or not lines:
        lines.append(line)
    return tuple(lines)


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
    top = float(_TOP)
    for f in figures:
        estimable = f.reason is None and f.low is not None and f.high is not None
        # Measured as shown: a hidden character's marker (⟨U+202E⟩) takes room too.
        label, text = visible(f.label), visible(f.text)
        label_lines, text_lines = wrap(label, _LABEL_UNITS), wrap(text, _VALUE_UNITS)
        text_h = (len(label_lines) + len(text_lines)) * _LINE_H
        y = top + 4 + text_h + _INTERVAL_H / 2
        rows.append(
            PlotRow(
                label=label,
                label_lines=label_lines,
                text=text,
                text_lines=text_lines,
                top=top,
                height=4 + text_h + _INTERVAL_H,
                label_y=top + 18,
                text_y=top + 18 + len(label_lines) * _LINE_H,
                y=y,
                x=x(f.estimate),
                x_low=x(f.low) if estimable else None,
                x_high=x(f.high) if estimable else None,
                full_text=f"{f.label}: {f.text}",
                estimable=estimable,
            )
        )
        top += 4 + text_h + _INTERVAL_H
    axis_y = top + 4
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
