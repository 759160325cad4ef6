"""The ranking report: a Bradley-Terry leaderboard, optionally with style control."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from fairjudge.report._text import markup, say

if TYPE_CHECKING:
    from fairjudge.stats import BradleyTerryResult, StyleControlResult

__all__ = ["RankingReport", "leader_line", "rank_intervals", "render_ranking"]


@dataclass(frozen=True, slots=True)
class RankingReport:
    """A leaderboard and, when asked for, its style-controlled twin.

    Attributes:
        leaderboard: The Bradley-Terry fit with bootstrap CIs.
        style_control: The Arena-Hard style-controlled fit, or ``None``.
        n_unresolved: Pairs left out because a call failed (never counted as ties).
        stopped: Why a budget stopped the judging before every pair was judged, or
            ``None``; the JSON then says ``partial`` and ``stopped``, as compare's does.
        failures: Why calls gave no verdict, reason -> count (the judged pairs'); the
            JSON has them under ``failures``, most common first as compare's (``{}``
            when every call gave one).
    """

    leaderboard: BradleyTerryResult
    style_control: StyleControlResult | None = None
    n_unresolved: int = 0
    stopped: str | None = None
    failures: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        payload = self.leaderboard.to_dict()
        if self.style_control is not None:
            payload["style_control"] = self.style_control.to_dict()
        payload["n_unresolved_pairs"] = self.n_unresolved
        # Always there, as compare's and score's: {} when every call gave a verdict.
        payload["failures"] = dict(Counter(self.failures).most_common())
        if self.stopped is not None:  # a run to the end keeps the JSON it always had
            payload.update(partial=True, stopped=self.stopped)
        return payload


def leader_line(board: BradleyTerryResult) -> str:
    """Who leads, judged by the rank intervals (never by the pinned anchor's rating)."""
    top = board.ratings[0]
    if not top.rank_ci.estimable:
        return (
            f"{top.model} has the highest rating, but its rank interval cannot be "
            f"estimated: {top.rank_ci.reason}"
        )
    if top.rank_ci.high <= 1:
        return f"{top.model} ranks first: its rank interval is 1-1."
    return (
        f"No clear leader: {top.model} has the highest rating, but its rank "
        f"interval is {top.rank_ci.low:.0f}-{top.rank_ci.high:.0f}."
    )


def rank_intervals(board: BradleyTerryResult) -> str:
    """``alpha 1-1, beta 2-3, ...``: every model's rank interval, best first."""
    return ", ".join(
        f"{r.model} {r.rank_ci.low:.0f}-{r.rank_ci.high:.0f}"
        if r.rank_ci.estimable
        else f"{r.model} n/a"
        for r in board.ratings
    )


def render_ranking(report: RankingReport, console: Console) -> None:
    """Print the leaderboard table (model names escaped: they are user text)."""
    result = report.leaderboard
    pct = round(result.level * 100)
    table = Table(
        title=f"Bradley-Terry leaderboard ({result.n_battles} battles, "
        f"bootstrap over {result.bootstrap}, seed {result.seed})"
    )
    for col in ("rank", "model", "rating", f"{pct}% CI", "rank CI", "W / T / L"):
        table.add_column(col, justify="left" if col == "model" else "right")
    for r in result.ratings:
        table.add_row(
            "n/a *" if r.rank is None else str(r.rank),
            markup(r.model),
            f"{r.rating:.1f}" if r.estimable else "n/a *",
            f"[{r.ci.low:.1f}, {r.ci.high:.1f}]" if r.ci.estimable else "n/a *",
            f"{r.rank_ci.low:.0f}-{r.rank_ci.high:.0f}" if r.rank_ci.estimable else "n/a *",
            f"{r.wins} / {r.ties} / {r.losses}",
        )
    console.print(table)
    for r in result.ratings:
        if not r.estimable or not r.ci.estimable or not r.rank_ci.estimable:
            why = r.reason or r.ci.reason or r.rank_ci.reason
            say(console, f"* {r.model}: {why}")
    say(
        console,
        f"{result.anchor} is pinned at {result.anchor_rating:g} (Elo scale): its rating "
        "is the reference, not a finding.",
    )
    fallback = result.fallback_note()  # every rating is the ridge fit's: said by the table
    if fallback is not None:
        say(console, fallback)
    if report.style_control is not None:
        say(console, report.style_control.summary())
    console.print(f"[bold]{markup(leader_line(result))}[/bold]", highlight=False)
    say(console, f"rank intervals ({pct}%): {rank_intervals(result)}")
