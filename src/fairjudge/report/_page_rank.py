"""The ``rank`` page: a view of the :class:`RankingReport` the command prints.

The headline is the top model with its rank interval (the anchor's pinned rating is
no finding), the leaderboard a forest plot of the Bradley-Terry ratings with its
table, and, when a judge ran, the judged pairs as ``compare``'s page shows them
(position bias, failures, the item explorer). ``fairjudge report`` draws a ``rank
--out`` file on it again (:func:`rank_page_from_file`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fairjudge.report._page as kit
from fairjudge._errors import ConfigError, InputError
from fairjudge.evaluation import PairwiseResult, battles_from, fit_battles
from fairjudge.io import OutHeader, shown
from fairjudge.report._page_compare import (
    estimated,
    failures_section,
    figures_block,
    pair_facts,
    position_section,
)
from fairjudge.report._page_compare_items import pair_explorer
from fairjudge.report._page_load import load_ranked, source_name
from fairjudge.report._page_plots import Figure, forest_plot, not_estimated
from fairjudge.report._ranking import RankingReport, leader_line, rank_intervals
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge.stats import ModelRating

__all__ = ["OUT_FILE_PAGES", "rank_page", "rank_page_from_file", "rating_figure"]


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


def _leader(report: RankingReport) -> kit.Headline:
    """The top model and every rank interval; the pinned anchor's rating is no finding."""
    board = report.leaderboard
    top = board.ratings[0]
    pct = round(board.level * 100)
    rank = f"{top.rank_ci.low:.0f}-{top.rank_ci.high:.0f}" if top.rank_ci.estimable else "n/a"
    return kit.Headline(
        verdict=leader_line(board),
        label="Top model (rank interval)",
        estimate=top.model,
        ci=f"({rank})",
        note=f"{pct}% rank intervals: {rank_intervals(board)}; {board.n_battles} battles; "
        f"ratings are relative to {board.anchor}, pinned at {board.anchor_rating:g}",
    )


def _leaderboard(report: RankingReport) -> kit.Section:
    """The ratings' plot and table; the style-controlled ones and coefficients when fitted."""
    board = report.leaderboard
    figures = [rating_figure(r) for r in board.ratings]
    plot = forest_plot(figures, title="Bradley-Terry ratings with confidence intervals",
                       ref=board.anchor_rating, ref_label=f"anchor {board.anchor}",
                       tick_format=".0f")  # fmt: skip
    blocks: list[kit.Block] = [figures_block(plot, figures, "model")]
    style = report.style_control
    if style is not None:
        styled = [rating_figure(r) for r in style.ratings]
        plot = forest_plot(styled, title="Style-controlled ratings", tick_format=".0f",
                           ref=style.anchor_rating, ref_label=f"anchor {style.anchor}")  # fmt: skip
        blocks += [
            figures_block(plot, styled, "model", id="fj-style-table"),
            kit.Paragraphs(("Style coefficients:",)),
            kit.Paragraphs(tuple(str(c) for c in style.coefficients), bullets=True),
        ]  # fmt: skip
    return kit.Section("fj-figures", "Leaderboard", tuple(blocks))


def rank_page(
    report: RankingReport,
    *,
    title: str,
    result: PairwiseResult | None = None,
    run: RunSummary | None = None,
    header: OutHeader | None = None,
) -> kit.Page:
    """The page of a leaderboard, with the judged pairs when a judge ran.

    Args:
        report: The ranking report.
        title: What was ranked, e.g. the input file's name.
        result: The judged pairs (``None`` when the input held judged battles).
        run: The judge calls' counts and cost, for model judges.
        header: The ``--out`` header the run saves (``Result.to_html``) or the file
            holds, for the run-facts card.
    """
    board = report.leaderboard
    board_facts = [
        ("battles", str(board.n_battles)),
        ("ties", board.ties),
        ("bootstrap", f"{board.n_resamples} rounds over {board.bootstrap}, seed {board.seed}"),
        ("anchor", f"{board.anchor} at {board.anchor_rating:g}"),
        ("l2", f"{board.l2:g}" + (" (the fallback ridge)" if board.l2_fallback else "")),
        ("unresolved pairs", f"{report.n_unresolved} (left out, never counted as ties)"),
    ]
    if result is not None:
        facts = pair_facts(result, run, header, kind="rank", before=board_facts, seed=board.seed)
    else:
        facts = kit.run_facts(header, kind="rank", judge_or_members="none: the input held judged "
                              "battles", seed=board.seed, extra=board_facts)  # fmt: skip
    sections = [_leaderboard(report), position_section(result)]
    failures = failures_section(result)
    if failures is not None:
        sections.append(failures)
    return kit.Page(
        kind="rank",
        title=title,
        headline=_leader(report),
        facts=facts,
        sections=tuple(sections),
        explorer=pair_explorer(result.judgments) if result is not None else None,
        summary=report.to_dict(),
    )


def _fit(
    settings: Mapping[str, Any], seed: int, rounds: int | None, path: Path
) -> dict[str, Any]:  # fmt: skip
    """The fit's settings as the header records them; ``rank``'s defaults where it does not.

    ``seed`` and ``rounds`` (``None``: the header's) are the ones ``report`` was given
    or read, as ``rank --seed`` and ``rank --bootstrap`` set them.
    """
    recorded = settings.get("n_resamples_fit", 1000) if rounds is None else rounds
    fit = {"ties": settings.get("ties", "half"), "anchor": settings.get("anchor"),
           "anchor_rating": settings.get("anchor_rating", 1000.0),
           "l2": settings.get("l2", 0.0), "n_resamples": recorded, "seed": seed,
           "style_control": settings.get("style_control", False)}  # fmt: skip
    number: tuple[type, ...] = (int, float)
    kinds: dict[str, type | tuple[type, ...]] = {
        "ties": str, "anchor": (str, type(None)), "anchor_rating": number, "l2": number,
        "n_resamples": int, "seed": int, "style_control": bool,
    }  # fmt: skip
    for name, kind in kinds.items():
        if not isinstance(fit[name], kind) or (kind is int and isinstance(fit[name], bool)):
            raise InputError(f"header: bad settings ({name} {shown(fit[name])})",
                             path=str(path), params="out")  # fmt: skip
    return fit


def rank_page_from_file(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000,
    n_resamples_fit: int | None = None,
) -> kit.Page:  # fmt: skip
    """The page of a ``rank --out`` file: its judged pairs, and the leaderboard fitted again.

    The fit takes the header's settings (ties, anchor and its rating, the ridge,
    style control, its bootstrap rounds), so the leaderboard is the one ``rank``
    printed; ``fairjudge rank FILE`` ranks the file's battles again under others.
    ``seed`` is the fit's and the judged pairs' (as ``rank --seed`` is both, and
    ``fairjudge report`` gives the run's); ``n_resamples_fit`` the fit's bootstrap
    rounds (``rank --bootstrap``; ``None``: the header's). ``level`` and
    ``n_resamples`` summarise the judged pairs, as ``compare``'s page does.

    Raises:
        InputError: The file is not a ``rank`` file, a record is not a judged battle
            (named, with the line), or the header's settings cannot be fitted.
    """
    header, result = load_ranked(path, seed=seed, level=level, n_resamples=n_resamples)
    fit = _fit(header.settings if header is not None else {}, seed, n_resamples_fit, path)
    battles = battles_from(result)
    if not battles.outcomes:
        raise InputError("holds no resolved battle to rank (every pair was unresolved)",
                         path=str(path), params="out")  # fmt: skip
    try:
        board, styled = fit_battles(battles, **fit)
    except ConfigError as exc:
        raise InputError(f"header: its settings cannot be fitted ({exc})", path=str(path),
                         params="out") from None  # fmt: skip
    report = RankingReport(board, styled, result.n_unresolved, result.stopped, result.failures)
    title = f"{source_name(result.settings.source, path)}: leaderboard"
    return rank_page(report, title=title, result=result, header=header)


OUT_FILE_PAGES: dict[str, kit.PageLoader] = {"rank": rank_page_from_file}
"""The ``--out`` kinds this module draws, for ``fairjudge report``."""
