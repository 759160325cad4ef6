"""The trend table: this run against a baseline, dimension by dimension (``score --baseline``).

It reads the :class:`~fairjudge.evaluation.ScoreTrend` in the score report, so the
table and the JSON (``ScoreReport.to_dict()["trend"]``) cannot disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from fairjudge._words import worded
from fairjudge.report._text import estimate_text, markup, say

if TYPE_CHECKING:
    from fairjudge.evaluation import DimensionShift, ScoreMean, ScoreTrend

__all__ = ["mean_text", "render_trend"]


def mean_text(m: ScoreMean) -> str:
    """``mean  [low, high]``, or ``n/a`` when nothing was scored."""
    return "n/a" if m.estimate is None else estimate_text(m.estimate, m.ci, ".2f")


def _shift(d: DimensionShift) -> str:
    return "n/a" if d.shift is None else estimate_text(d.shift, d.ci, "+.2f")


def _test(d: DimensionShift) -> str:
    t = d.test
    return "n/a" if t.p_value is None else f"W1 {t.statistic:.2f}, p = {t.p_value:.3f}"


def render_trend(trend: ScoreTrend, console: Console) -> None:
    """Print the shifts as a table, then one plain line per dimension."""
    level = round(trend.level * 100)
    table = Table(title=markup(f"since the baseline {trend.baseline}"), header_style="bold")
    headers = ("dimension", f"baseline  [{level}% CI]", f"this run  [{level}% CI]",
               f"shift  [{level}% CI]", "shared questions", "distribution change")  # fmt: skip
    # Squeezed, rich narrows every column alike, and at 80 columns the last header's
    # "distribution" came out as "distributi…": where the even share is too narrow
    # for it, that column is held at its longest word and the others wrap instead.
    word = max(len(w) for w in headers[-1].split())
    even_share = (console.width - len(headers) - 1) // len(headers) - 2
    for header in headers[:-1]:
        table.add_column(header)
    table.add_column(headers[-1], width=word if even_share < word else None)
    for d in trend.dimensions:
        table.add_row(markup(d.dimension), mean_text(d.baseline), mean_text(d.current),
                      _shift(d), str(d.n_shared), _test(d))  # fmt: skip
    console.print(table)
    for difference in trend.differences:
        anyway = worded(
            "[yellow]compared anyway (allow_different=True):[/yellow] ", "allow_different"
        )
        console.print(anyway, end="")
        say(console, difference)
    for d in trend.dimensions:
        style = {"up": "green", "down": "red"}.get(d.direction)
        say(console, d.reading(), style=style)
    say(
        console,
        f"shift: this run - baseline, bootstrap resampling whole questions; distribution "
        f"change: {trend.n_resamples} permutations of whole questions, seed {trend.seed}; "
        "each dimension is tested on its own.",
    )
