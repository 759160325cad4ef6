"""The Markdown summary of any run, for a pull request comment (``--markdown FILE``).

One renderer, :func:`markdown_text`, draws every kind of run from one
:class:`MarkdownSummary`, and :func:`markdown_of` fills that summary from what the
other renderings already read, never worded again: the headline and the figure
tables are the run's HTML page's (:class:`~fairjudge.report._page.Page`), whose
verdict is the sentence the terminal prints; the verdict counts are the ``--json``
summary's own numbers (parse failures and call errors each on their own, never
folded into ties); ``calibrate``'s conclusion is its gate, as the terminal prints it.

GitHub-flavoured Markdown, written to be safe to paste under untrusted text: no link,
no image, no HTML. Every piece of text is escaped (:func:`escape`), so a model name
such as ``a|b <script>`` stays one table cell of plain text, a ``$`` never starts
GitHub's math, and a URL in a name is not turned into a link. Hidden characters
(bidi overrides, zero-width characters) are shown as ``⟨U+202E⟩`` markers, as on
the page (:func:`fairjudge.report._text.visible`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import fairjudge.report._page as kit
from fairjudge._version import __version__
from fairjudge.report._comparison import (
    FAILURES_ABOVE,
    FAILURES_CARD,
    PAGE_FAILURES,
    ComparisonReport,
    labelled_truth,
)
from fairjudge.report._jury import JuryReport, JuryScoreReport
from fairjudge.report._page_compare import compare_page
from fairjudge.report._page_plots import ForestPlot
from fairjudge.report._page_rank import rank_page
from fairjudge.report._scores import ScoreReport, via_scores_verdict
from fairjudge.report._text import ci_text, estimate_text, visible, win_note

if TYPE_CHECKING:
    from fairjudge.evaluation import AdaptiveResult, PairwiseResult, ViaScoresResult, WinRate
    from fairjudge.report._ranking import RankingReport
    from fairjudge.runner import RunSummary

__all__ = [
    "MarkdownSummary",
    "MarkdownTable",
    "comparison_markdown",
    "escape",
    "markdown_of",
    "markdown_text",
    "page_markdown",
    "ranking_markdown",
    "verdict_counts",
    "via_scores_markdown",
]

# The ASCII characters with a meaning inside a line of GitHub's Markdown: emphasis,
# code, links and images, HTML, table cells, strikethrough, entities, math, and the
# ``@`` and ``www.`` and ``://`` of its autolinks. Escaped wherever they appear.
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&$@!]|:(?=//)|(?<=[wW]{3})\.)")
# What means something only at the start of a line: a heading, a list, a quote, a
# setext underline, a numbered list. Escaped there, as the text may start a line.
_LEADING = re.compile(r"^([#+\-=]|\d+[.)])")
_SPACE = re.compile(r"\s+")


def escape(text: object, *, line_start: bool = False) -> str:
    """``text`` as plain Markdown text: one line, every special character escaped.

    A backslash before any ASCII punctuation is literal in CommonMark, so the
    rendered text is ``text`` itself (hidden characters shown as markers), whatever
    it holds: no emphasis, code, link, autolink, HTML, math or table cell boundary
    can come from it. Line breaks become spaces, as a table cell holds one line.
    With ``line_start``, what would open a heading or a list there is escaped too.
    """
    shown = _SPACE.sub(" ", visible(str(text))).strip()
    escaped = _SPECIAL.sub(r"\\\1", shown)
    if not line_start:
        return escaped
    return _LEADING.sub(lambda m: m.group(1)[:-1] + "\\" + m.group(1)[-1], escaped)


@dataclass(frozen=True, slots=True)
class MarkdownTable:
    """One table of figures: what it is, its header row, its rows of text cells."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class MarkdownSummary:
    """What the Markdown summary of one run shows.

    Attributes:
        kind: The command (``compare``, ``rank``, ...), for the heading.
        title: What was judged, e.g. the input file's name.
        headline: The page's headline: the terminal's conclusion and its figure.
        counts: The verdict counts, ``(label, value)``, as ``--json`` has them.
        tables: The figure tables, in order.
        notes: Lines the terminal prints under the conclusion (the known truth).
    """

    kind: str
    title: str
    headline: kit.Headline
    counts: tuple[tuple[str, Any], ...]
    tables: tuple[MarkdownTable, ...] = ()
    notes: tuple[str, ...] = ()


def _table(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A GitHub table; every row padded or cut to the header's width."""
    width = len(columns)
    lines = [
        "| " + " | ".join(escape(c) for c in columns) + " |",
        "|" + "|".join(" --- " for _ in columns) + "|",
    ]
    for row in rows:
        cells = [escape(c) for c in row][:width]
        cells += [""] * (width - len(cells))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _interval(headline: kit.Headline) -> list[str]:
    """The headline's figure: what it is, the estimate, the interval and its note."""
    if not headline.label:
        return []
    figure = " ".join(p for p in (headline.estimate, headline.ci) if p)
    label = escape(headline.label, line_start=True)
    line = f"{label}: **{escape(figure)}**" if figure else label
    if headline.note:
        line += f" ({escape(headline.note)})"
    return [line, ""]


def markdown_text(summary: MarkdownSummary) -> str:
    """The summary as GitHub-flavoured Markdown: no link, no image, no HTML.

    A heading naming the command and what was judged; the conclusion in bold, the
    exact sentence the terminal prints; the headline figure with its interval; any
    warning as a quote; the verdict counts as a one-row table; the figure tables.
    """
    h = _failures_here(summary.headline)
    lines = [f"### fairjudge {escape(summary.kind)}: {escape(summary.title)}", ""]
    lines += [f"**{escape(h.verdict)}**", ""]
    lines += _interval(h)
    for note in summary.notes:
        lines += [escape(note, line_start=True), ""]
    for warning in h.warnings:
        lines += [f"> {escape(warning)}", ""]
    if summary.counts:
        lines += _table([c for c, _ in summary.counts], [[v for _, v in summary.counts]])
        lines.append("")
    for table in summary.tables:
        if not table.rows:
            continue
        if table.caption:
            lines += [f"*{escape(table.caption)}*", ""]
        lines += _table(table.columns, table.rows)
        lines.append("")
    lines.append(escape(f"fairjudge {__version__}"))
    return "\n".join(lines) + "\n"


def _failures_here(h: kit.Headline) -> kit.Headline:
    """The headline with its pointers to the failures made true of this text.

    The headline is the terminal's sentence (the failures printed above it) or the
    page's (a Failures card below it). Here the failures are counted in the table
    under the headline, and a panel's reasons are a table further down.
    """
    verdict = h.verdict.replace(FAILURES_ABOVE, FAILURES_HERE)
    verdict = verdict.replace(FAILURES_CARD, FAILURES_HERE)
    warnings = tuple(w.replace(PAGE_FAILURES, "the table of reasons below") for w in h.warnings)
    return dataclasses.replace(h, verdict=verdict, warnings=warnings)


FAILURES_HERE = "see the parse failures and call errors counted below"
"""Where the Markdown's conclusion points when no item was resolved."""

_COUNTS = (
    ("n_items", "items"),
    ("n_battles", "battles"),
    ("n_unresolved", "unresolved"),
    ("n_unresolved_pairs", "unresolved pairs"),
    ("n_unscored", "unscored"),
    ("n_parse_failures", "parse failures"),
    ("n_call_errors", "call errors"),
    ("n_not_run", "not run"),
    ("n_calls", "calls"),
    ("n_failed", "calls without a reading (parse failures and call errors)"),
)


def _member_counts(members: object) -> list[tuple[str, Any]]:
    """A panel's failures, summed over its members as their own JSON counts them."""
    if not isinstance(members, list) or not members:
        return []
    summaries = [m.get("summary", m) for m in members if isinstance(m, Mapping)]
    out: list[tuple[str, Any]] = []
    for key, label in (("n_parse_failures", "parse failures"), ("n_call_errors", "call errors")):
        values = [s.get(key) for s in summaries]
        if values and all(isinstance(v, int) for v in values):
            out.append((f"{label} (all members)", sum(values)))
    if not out:
        failed = [m.get("failed") for m in members if isinstance(m, Mapping)]
        if failed and all(isinstance(v, int) for v in failed):
            out.append(("calls without a reading (parse failures and call errors)", sum(failed)))
    return out


def verdict_counts(summary: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The verdict counts of a run's ``--json`` summary, as it has them.

    Wins, ties and losses of the headline win rate (``via_scores``'s for a
    comparison via scores), then the items, the unresolved and unscored ones, and
    the parse failures and call errors, each its own column: a failure is never a
    tie. A panel's failures are its members' (summed). Only counts the summary
    holds are shown, with its values.
    """
    source = summary.get("via_scores") if isinstance(summary.get("via_scores"), Mapping) else None
    source = source if source is not None else summary
    counts: list[tuple[str, Any]] = []
    win = source.get("win_rate")
    if isinstance(win, Mapping) and "wins" in win:
        counts += [("wins", win["wins"]), ("ties", win["ties"]), ("losses", win["losses"])]
    counts += [(label, source[key]) for key, label in _COUNTS if source.get(key) is not None]
    if "n_parse_failures" not in source:
        counts += _member_counts(source.get("members"))
    return tuple(counts)


def _section(page: kit.Page, sid: str) -> kit.Section | None:
    return next((section for section in page.sections if section.id == sid), None)


def _pairs_summary(page: kit.Page) -> MarkdownSummary:
    """A comparison's or ranking's page: its headline, and its figures as the table."""
    figures = _section(page, "fj-figures")
    main = figures.blocks[0] if figures is not None else None
    rows = main.table.rows if isinstance(main, kit.PlotBlock) else ()
    calibration = _section(page, "fj-calibration")
    reports = [
        (title, parts[0][0])
        for block in (calibration.blocks if calibration is not None else ())
        if isinstance(block, kit.Highlighted)
        for title, parts in block.panels
    ]
    rows += tuple((label, text, "") for label, text in reports if "\n" not in text)
    table = MarkdownTable(
        "Figures, each with its confidence interval", ("figure", "value [CI]", "counts"), rows
    )
    # calibrate's reports are several lines (a confusion matrix among them): one cell
    # ran them together, so each is a table of its own, one line a row.
    tables = tuple(
        MarkdownTable(label, (head,), tuple((line,) for line in rest if line.strip()))
        for label, text in reports
        if "\n" in text
        for head, *rest in [text.strip().splitlines()]
    )
    naive = _section(page, "fj-naive")
    gap = (
        next((b.lines for b in naive.blocks if isinstance(b, kit.Paragraphs)), ()) if naive else ()
    )
    return MarkdownSummary(
        kind=page.kind, title=page.title, headline=page.headline,
        counts=verdict_counts(page.summary), tables=(table, *tables), notes=gap,
    )  # fmt: skip


def _gate_headline(calibration: Mapping[str, Any], headline: kit.Headline) -> kit.Headline:
    """``calibrate``'s conclusion: the gate's outcome line the terminal prints, its checks."""
    gate = calibration.get("gate")
    if gate is None:
        return headline
    head, *checks = gate.summary().splitlines()
    return replace(
        headline, verdict=head, label="; ".join(" ".join(c.split()) for c in checks),
        estimate="", ci="", note="",
    )  # fmt: skip


def _confusion_apart(
    tables: tuple[MarkdownTable, ...], agreement: Any
) -> tuple[MarkdownTable, ...]:
    """The agreement's confusion matrix as a table of its own, the counts in cells.

    The agreement panel's text draws the matrix as aligned lines; one cell a line
    flattened each row into a single cell, so the rows are taken out of that table
    and the matrix follows it: rows the human labels, columns the judge's verdicts.
    """
    confusion = getattr(agreement, "confusion", None)
    if confusion is None:
        return tables
    matrix = {line.strip() for line in str(confusion).splitlines()}
    out: list[MarkdownTable] = []
    for table in tables:
        kept = tuple(row for row in table.rows if row[0].strip() not in matrix)
        out.append(replace(table, rows=kept))
        if len(kept) < len(table.rows):
            out.append(MarkdownTable(
                "Confusion matrix: rows the human label, columns the judge's verdict",
                ("human \\ judge", *confusion.labels),
                tuple((label, *(str(c) for c in row))
                      for label, row in zip(confusion.labels, confusion.counts, strict=True)),
            ))  # fmt: skip
    return tuple(out)


def comparison_markdown(
    report: ComparisonReport, *, calibration: Mapping[str, Any] | None = None
) -> str:
    """The Markdown of a ``compare`` report, or of ``calibrate``'s with its ``calibration``.

    The verdict counts are the comparison's ``--json`` counts, for ``calibrate`` too
    (its own ``--json`` folds parse failures and call errors into ``n_unresolved``;
    here each is counted on its own, from the same judgments).

    Args:
        report: The comparison report.
        calibration: ``calibrate``'s report: the gate becomes the conclusion.
    """
    md = _pairs_summary(compare_page(report, calibration=calibration))
    if calibration is not None:  # its terminal prints the gate, not the comparison's lines
        md = replace(md, headline=_gate_headline(calibration, md.headline), notes=())
        md = replace(md, tables=_confusion_apart(md.tables, calibration.get("agreement")))
    return markdown_text(md)


def ranking_markdown(
    report: RankingReport, *, title: str, result: PairwiseResult | None, run: RunSummary | None
) -> str:
    """The Markdown of a ``rank`` report: the leader line, one row per model."""
    page = rank_page(report, title=title, result=result, run=run)
    md = _pairs_summary(page)
    columns = ("model", "rating [CI]", "rank and W/T/L")
    tables = [replace(md.tables[0], columns=columns)]
    style = report.style_control
    figures = _section(page, "fj-figures")
    if style is not None and figures is not None:  # the terminal and --json show it: so
        styled = figures.blocks[1]  # does the summary (n/a rows too)
        assert isinstance(styled, kit.PlotBlock)
        tables.append(
            MarkdownTable(
                f"Style-controlled ratings (anchor {style.anchor})", columns, styled.table.rows
            )
        )
        coefficients = tuple((str(c),) for c in style.coefficients)
        tables.append(MarkdownTable("Style coefficients", ("coefficient",), coefficients))
    return markdown_text(replace(md, tables=tuple(tables)))


def _first_card(page: kit.Page) -> tuple[MarkdownTable, ...]:
    """The tables of the page's first card that has any: the run's main figures.

    The score page's distributions, the panel's members and agreement, the audit's
    report card; the rest of the page (matrices, items) stays on the page.
    """
    for section in page.sections:
        tables = [
            MarkdownTable(_caption(block), block.columns, block.rows)
            if isinstance(block, kit.FigureTable)
            else MarkdownTable(_caption(block), block.table.columns, block.table.rows)
            for block in section.blocks
            if isinstance(block, kit.FigureTable | kit.PlotBlock)
        ]
        if tables:
            return tuple(tables)
    return ()


def _caption(block: kit.FigureTable | kit.PlotBlock) -> str:
    """A table's caption; under a forest plot, its title first, which says what it shows.

    (Without the title, score-jury's effective numbers were captioned only by how they
    are computed, and their rows named by dimension: nothing said what the figure was.)
    """
    if isinstance(block, kit.FigureTable) or not isinstance(block.plot, ForestPlot):
        return block.caption if isinstance(block, kit.FigureTable) else block.table.caption
    title, caption = block.plot.title, block.table.caption
    if not title or title == caption:
        return caption
    return f"{title}: {caption}" if caption else title


def page_markdown(page: kit.Page) -> str:
    """The Markdown of any command's page (a comparison read back from ``--out`` too)."""
    if page.kind in ("compare", "calibrate", "rank"):
        return markdown_text(_pairs_summary(page))
    command = "compare" if page.kind == "compare-via-scores" else page.kind  # as typed
    md = MarkdownSummary(
        kind=command, title=page.title, headline=page.headline,
        counts=verdict_counts(page.summary), tables=_first_card(page),
    )  # fmt: skip
    return markdown_text(md)


def _win_text(w: WinRate | None) -> tuple[str, str, str]:
    """A win rate's estimate and interval (or why none), its W/T/L, its n."""
    if w is None:
        return "n/a", "", "0"
    return estimate_text(w.estimate, w.ci), f"{w.wins}/{w.ties}/{w.losses}", str(w.n)


def via_scores_markdown(
    result: ViaScoresResult,
    *,
    title: str,
    swap: PairwiseResult | None = None,
    adaptive: AdaptiveResult[ViaScoresResult] | None = None,
) -> str:
    """The Markdown of ``compare --via-scores``: the terminal's verdict line and tables.

    The counts are its ``--json``'s ``via_scores`` block; the tables, the win rate by
    each method run and the paired difference per dimension.
    """
    w, scores = result.win_rate, result.scores
    headline = kit.Headline(via_scores_verdict(result, adaptive))
    if w is not None:
        headline = kit.Headline(
            headline.verdict, "Win rate of model 1 via scores",
            f"{w.estimate:.3f}" if w.ci.estimable else "not estimated",
            ci_text(w.ci) if w.ci.estimable else f"({w.ci.reason})",
            win_note(w),
        )  # fmt: skip
    methods = [("via scores", *_win_text(w))]
    if swap is not None:
        methods.append(("swap protocol", *_win_text(swap.win_rate)))
    diffs = tuple(
        (f"{d.system_a} - {d.system_b}", d.dimension,
         "n/a" if d.difference.estimate is None
         else estimate_text(d.difference.estimate, d.difference.ci, "+.2f", ".2f"),
         str(d.n_questions))
        for d in scores.differences
    )  # fmt: skip
    tables = (
        MarkdownTable("Win rate of model 1, by method",
                      ("method", "win rate [CI]", "W/T/L", "items"), tuple(methods)),
        MarkdownTable("Paired score differences per dimension",
                      ("systems", "dimension", "difference [CI]", "questions"), diffs),
    )  # fmt: skip
    pairs = [(p.item, p.outcome) for p in result.pairs]
    md = MarkdownSummary(
        kind="compare", title=title, headline=headline,
        counts=verdict_counts({"via_scores": result.to_dict()}), tables=tables,
        notes=tuple(labelled_truth(pairs, w, "The result via scores")),
    )  # fmt: skip
    return markdown_text(md)


def markdown_of(report: object) -> str:
    """The Markdown of a report that ``show`` prints (compare, score, jury, score-jury).

    Raises:
        TypeError: A report of another kind: its command builds its Markdown itself.
    """
    if isinstance(report, ComparisonReport):
        return comparison_markdown(report)
    if isinstance(report, ScoreReport):
        from fairjudge.report._page_score import score_page

        return page_markdown(score_page(report))
    if isinstance(report, JuryReport):
        from fairjudge.report._page_panel import jury_page

        return page_markdown(jury_page(report))
    if isinstance(report, JuryScoreReport):
        from fairjudge.report._page_panel import score_jury_page

        return page_markdown(score_jury_page(report))
    raise TypeError(f"no Markdown summary for a {type(report).__name__}")
