"""The pages' plots: forest plots, histograms, heatmaps; the markup is ``plots.html.j2``'s.

A plot here is numbers only: positions, sizes, colours and the text to print.
Nothing writes markup, so every label and reason reaches the page through the
template's autoescaping, and every plot is followed on the page by a ``<table>``
that says the same in words. A forest plot's figure is an estimate with its
interval, or the reason there is none: a row whose interval cannot be estimated is
drawn with no point and no whiskers, only its reason, as a bare point would read as
a finding.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fairjudge.report._text import share_text, visible

__all__ = [
    "Bar",
    "Figure",
    "ForestPlot",
    "HeatCell",
    "Heatmap",
    "Histogram",
    "PlotRow",
    "forest_plot",
    "heatmap",
    "histogram",
    "not_estimated",
    "wrap",
]

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


def not_estimated(label: str, why: str, note: str = "") -> Figure:
    """A figure that has no number: its reason, where the estimate would be."""
    text = f"not estimated: {why}"
    return Figure(label, None, None, None, text, why, note, text)


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


# Histograms and heatmaps share the forest plot's WIDTH: a 390 px phone draws their
# 12-unit text at about 11 px.
_LEFT = 44  # room for the count axis's labels ("100%" at 12 px)
_RIGHT = 392
_BAR_LINE_H = 17
_PLOT_H = 150
_BAR_AXIS_H = 40
_SERIES_CLASSES = ("fj-bar", "fj-bar2")


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar of a histogram, in SVG user units.

    Attributes:
        series: Which series (0: the main one, 1: the compared one).
        level: The bin.
        value: The count, or the share when the histogram shows shares.
        text: ``value`` as printed above the bar.
        x: The bar's left edge; ``width`` its width.
        y: The bar's top; ``height`` its height.
        cls: The CSS class of its series.
    """

    series: int
    level: int
    value: float
    text: str
    x: float
    width: float
    y: float
    height: float
    cls: str


@dataclass(frozen=True, slots=True)
class Histogram:
    """A histogram laid out: bars, bin labels, the density curve, the alarm band.

    ``points`` is the density polyline (SVG ``points`` text), empty when none is drawn;
    ``alarm_x``/``alarm_width`` span the alarm's bins (``None``: no alarm), and
    ``alarm_lines`` are its annotation, wrapped, drawn above the plot.
    """

    title: str
    width: int
    height: int
    top: float
    base_y: float
    bars: tuple[Bar, ...]
    bins: tuple[tuple[float, str], ...]
    y_ticks: tuple[tuple[float, str], ...]
    points: str
    alarm_x: float | None
    alarm_width: float | None
    alarm_lines: tuple[str, ...]
    legend: tuple[tuple[str, str], ...]
    line_h: int = _BAR_LINE_H
    left: int = _LEFT
    right: int = _RIGHT


def _scale(value: float, shares: bool) -> tuple[float, float]:
    """The axis's top and its tick step: round numbers (whole counts, or whole percents).

    The smallest round step that covers ``value`` in at most five ticks, so the top
    stays close above the tallest bar.
    """
    if value <= 0:
        return (1.0, 0.25) if shares else (1.0, 1.0)
    value = min(value, 1.0) if shares else value
    power = 10 ** math.floor(math.log10(value / 5))
    steps = [m * p for p in (power, power * 10) for m in (1, 2, 2.5, 5)]
    if not shares:  # a count's tick is a whole number
        steps = [s for s in steps if s >= 1 and float(s).is_integer()] or [1.0]
    step = next((s for s in steps if math.ceil(value / s - 1e-9) <= 5), steps[-1])
    return step * math.ceil(value / step - 1e-9), step


def _density(values: Sequence[float], levels: Sequence[int], n_bins: int) -> list[float]:
    """A Gaussian kernel density of ``values``, in counts per bin, at 4 points per bin."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    # Silverman's rule of thumb, with a floor: scores that all agree still draw a bump.
    bandwidth = max(1.06 * sd * n ** (-0.2), 0.15)
    xs = [levels[0] - 0.5 + i / 4 for i in range(n_bins * 4 + 1)]
    norm = 1 / (n * bandwidth * math.sqrt(2 * math.pi))
    return [n * norm * sum(math.exp(-0.5 * ((x - v) / bandwidth) ** 2) for v in values) for x in xs]


def histogram(
    counts: Mapping[int, int],
    *,
    title: str,
    compare: Mapping[int, int] | None = None,
    names: tuple[str, str] = ("this run", "baseline"),
    density: Sequence[float] = (),
    alarm: tuple[int, int] | None = None,
    alarm_text: str = "",
) -> Histogram:
    """Lay out a histogram of integer ``counts`` (bins in the mapping's order).

    Args:
        counts: The count of each bin (level), every level of the scale present.
        title: The plot's accessible title.
        compare: A second series on the same bins (a baseline run): both are then
            drawn as shares of their totals, side by side, with a legend.
        names: The two series' names, for the legend.
        density: Non-integer values (probability-weighted scores) whose kernel
            density is drawn over the bars, scaled to counts; not with ``compare``.
        alarm: The first and last bin of a band the alarm is about.
        alarm_text: What the alarm says, drawn above the plot.
    """
    levels = list(counts)
    series = [counts] if compare is None else [counts, compare]
    shares = compare is not None
    values: list[list[float]] = []
    for s in series:
        total = sum(s.values())
        values.append([(s.get(k, 0) / total if total else 0.0) if shares else s.get(k, 0)
                       for k in levels])  # fmt: skip
    curve = _density(density, levels, len(levels)) if density and not shares and levels else []
    # Headroom over the tallest bar, for the count printed above it.
    top_value, tick = _scale(1.08 * max([v for vs in values for v in vs] + curve + [0.0]), shares)
    # 13 px text from x = 44 to 392: 44 of wrap's units (0.6 em each)
    alarm_lines = wrap(alarm_text, 43.0) if alarm is not None and alarm_text else ()
    top = 8.0 + len(alarm_lines) * _BAR_LINE_H + (_BAR_LINE_H if shares else 0)
    base_y = top + _PLOT_H
    step = (_RIGHT - _LEFT) / max(len(levels), 1)

    def y(value: float) -> float:
        return round(base_y - value / top_value * _PLOT_H, 2)

    bars = []
    inner = step * 0.8 / len(series)
    for si, (s, vs) in enumerate(zip(series, values, strict=True)):
        total = sum(s.values())
        for bi, (level, value) in enumerate(zip(levels, vs, strict=True)):
            x = _LEFT + bi * step + step * 0.1 + si * inner
            if not shares:
                text = str(int(value))
            else:  # from the counts, as the tables word the same share (share_text)
                text = share_text(s.get(level, 0), total) if total else "0%"
            bars.append(Bar(si, level, value, text, round(x, 2), round(inner, 2), y(value),
                            round(base_y - y(value), 2), _SERIES_CLASSES[si]))  # fmt: skip
    bins = tuple((round(_LEFT + (i + 0.5) * step, 2), str(k)) for i, k in enumerate(levels))
    ticks = [tick * i for i in range(round(top_value / tick) + 1)]
    y_ticks = tuple((y(t), f"{t:.0%}" if shares else f"{t:g}") for t in ticks)
    points = " ".join(f"{_LEFT + i / 4 * step:.2f},{y(v):.2f}" for i, v in enumerate(curve))
    alarm_x = alarm_width = None
    if alarm is not None and alarm[0] in levels and alarm[1] in levels:
        first, last = levels.index(alarm[0]), levels.index(alarm[1])
        alarm_x = round(_LEFT + first * step + 1, 2)
        alarm_width = round((last - first + 1) * step - 2, 2)
    legend = tuple(zip(names, _SERIES_CLASSES, strict=True)) if shares else ()
    return Histogram(
        title=title, width=WIDTH, height=int(base_y + _BAR_AXIS_H), top=top, base_y=base_y,
        bars=tuple(bars), bins=bins, y_ticks=y_ticks, points=points, alarm_x=alarm_x,
        alarm_width=alarm_width, alarm_lines=alarm_lines, legend=legend,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class HeatCell:
    """One cell: its value as printed (or "n/a"), its colours, and why it has none."""

    text: str
    background: str
    color: str
    reason: str | None


@dataclass(frozen=True, slots=True)
class Heatmap:
    """A matrix laid out: row and column labels and one :class:`HeatCell` per pair.

    It is drawn as an HTML table, so a long member or family name wraps instead of
    being cut, and the page's table scroller keeps a wide matrix inside its card.
    ``heading``, when set, is drawn above the matrix and leads its accessible name,
    and ``title`` (the caption under it) then need not repeat it: for a card that holds
    several matrices side by side (the pointwise calibrate page's, one per dimension),
    none of them titled otherwise. A matrix alone in a titled card has none, so the
    card's title is not said twice.
    """

    title: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[tuple[HeatCell, ...], ...]
    low_text: str
    high_text: str
    heading: str | None = None


def heatmap(
    rows: Sequence[str],
    columns: Sequence[str],
    values: Sequence[Sequence[float | None]],
    *,
    title: str,
    domain: tuple[float, float] = (0.0, 1.0),
    reasons: Mapping[tuple[int, int], str] | None = None,
    value_format: str = ".2f",
    heading: str | None = None,
) -> Heatmap:
    """Lay out a heatmap of ``values[row][column]`` over ``domain``.

    Args:
        rows: The row labels.
        columns: The column labels.
        values: One row of values per label; ``None`` where there is no number.
        title: The plot's accessible title and its caption.
        domain: The range the colour scale spans (values outside are clamped).
        reasons: Why a cell has no value, by ``(row, column)`` index.
        value_format: How each number is printed.
        heading: A title drawn above the matrix (opt-in; :class:`Heatmap` says when).
    """
    low, high = domain
    why = reasons or {}
    grid = []
    for r, row in enumerate(values):
        cells = []
        for c, value in enumerate(row):
            if value is None or not math.isfinite(value):
                cells.append(HeatCell("n/a", "transparent", "inherit",
                                      why.get((r, c), "not estimable")))  # fmt: skip
                continue
            share = (min(max(value, low), high) - low) / ((high - low) or 1.0)
            lightness = round(95 - share * 60)  # pale for low, deep blue for high
            cells.append(HeatCell(format(value, value_format), f"hsl(214 70% {lightness}%)",
                                  "#ffffff" if lightness < 60 else "#1b1d21", None))  # fmt: skip
        grid.append(tuple(cells))
    return Heatmap(title, tuple(rows), tuple(columns), tuple(grid),
                   format(low, value_format), format(high, value_format), heading)  # fmt: skip
