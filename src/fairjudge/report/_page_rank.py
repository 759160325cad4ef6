"""The ``rank`` page: a view of the :class:`RankingReport` the command prints.

The headline is the top model with its rank interval (the anchor's pinned rating is
no finding), the leaderboard a forest plot of the Bradley-Terry ratings with its
table, and, when a judge ran, the judged pairs as ``compare``'s page shows them
(position bias, failures, the item explorer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairjudge.evaluation import PairwiseResult
from fairjudge.report._page import Block, Headline, Page, Paragraphs, Section
from fairjudge.report._page_compare import (
    estimated,
    failures_section,
    figures_block,
    not_estimated,
    pair_facts,
    position_section,
)
from fairjudge.report._page_compare_items import pair_explorer
from fairjudge.report._page_plots import Figure, forest_plot
from fairjudge.report._ranking import RankingReport, leader_line, rank_intervals
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge.stats import ModelRating

__all__ = ["rank_page", "rating_figure"]

_ONLY_COMPARE = {"rule", "rounds", "seed", "bootstrap"}  # the leaderboard's own are above


def rating_figure(r: ModelRating) -> Figure:
    """A model's rating with its interval, rank and W/T/L; the reason when not estimable."""
    wtl = f"W/T/L {r.wins}/{r.ties}/{r.losses}"
    rank = "rank n/a" if r.rank is None else f"rank {r.rank}"
    if r.rank_ci.estimable:
        note = f"{rank} ({r.rank_ci.low:.0f}-{r.rank_ci.high:.0f}); {wtl}"
    else:
        note = f"{rank} (rank interval cannot be estimated); {wtl}"
    if not r.estimable:  # no rating to draw: the reason, as the terminal's n/a
        return not_estimated(r.model, r.reason or "", note)
    return estimated(r.model, r.rating, r.ci, note, ".1f")


def _leader(report: RankingReport) -> Headline:
    """The top model and every rank interval; the pinned anchor's rating is no finding."""
    board = report.leaderboard
    top = board.ratings[0]
    pct = round(board.level * 100)
    rank = f"{top.rank_ci.low:.0f}-{top.rank_ci.high:.0f}" if top.rank_ci.estimable else "n/a"
    return Headline(
        verdict=leader_line(board),
        label="Top model (rank interval)",
        estimate=top.model,
        ci=f"({rank})",
        note=f"{pct}% rank intervals: {rank_intervals(board)}; {board.n_battles} battles; "
        f"ratings are relative to {board.anchor}, pinned at {board.anchor_rating:g}",
    )


def _leaderboard(report: RankingReport) -> Section:
    """The ratings' plot and table; the style-controlled ones and coefficients when fitted."""
    board = report.leaderboard
    figures = [rating_figure(r) for r in board.ratings]
    plot = forest_plot(figures, title="Bradley-Terry ratings with confidence intervals",
                       ref=board.anchor_rating, ref_label=f"anchor {board.anchor}",
                       tick_format=".0f")  # fmt: skip
    blocks: list[Block] = [figures_block(plot, figures, "model")]
    style = report.style_control
    if style is not None:
        styled = [rating_figure(r) for r in style.ratings]
        plot = forest_plot(styled, title="Style-controlled ratings", tick_format=".0f",
                           ref=style.anchor_rating, ref_label=f"anchor {style.anchor}")  # fmt: skip
        blocks += [
            figures_block(plot, styled, "model", id="fj-style-table"),
            Paragraphs(("Style coefficients:",)),
            Paragraphs(tuple(str(c) for c in style.coefficients), bullets=True),
        ]  # fmt: skip
    return Section("fj-figures", "Leaderboard", tuple(blocks))


def rank_page(
    report: RankingReport,
    *,
    title: str,
    result: PairwiseResult | None = None,
    run: RunSummary | None = None,
) -> Page:
    """The page of a leaderboard, with the judged pairs when a judge ran.

    Args:
        report: The ranking report.
        title: What was ranked, e.g. the input file's name.
        result: The judged pairs (``None`` when the input held judged battles).
        run: The judge calls' counts and cost, for model judges.
    """
    board = report.leaderboard
    facts = [
        ("battles", str(board.n_battles)),
        ("ties", board.ties),
        ("bootstrap", f"{board.n_resamples} rounds over {board.bootstrap}, seed {board.seed}"),
        ("anchor", f"{board.anchor} at {board.anchor_rating:g}"),
        ("l2", f"{board.l2:g}" + (" (the fallback ridge)" if board.l2_fallback else "")),
        ("unresolved pairs", f"{report.n_unresolved} (left out, never counted as ties)"),
    ]
    if result is not None:
        facts += [f for f in pair_facts(result, run) if f[0] not in _ONLY_COMPARE]
    sections = [_leaderboard(report), position_section(result)]
    failures = failures_section(result)
    if failures is not None:
        sections.append(failures)
    return Page(
        kind="rank",
        title=title,
        headline=_leader(report),
        facts=tuple(facts),
        sections=tuple(sections),
        explorer=pair_explorer(result.judgments) if result is not None else None,
        summary=report.to_dict(),
    )
