"""The Markdown summary of any run, for a pull request comment (``--markdown FILE``).

One renderer, :func:`markdown_text`, draws every kind of run from one
:class:`MarkdownSummary`. The summary is filled from what the other renderings
already read, never worded again:

- the headline is the page's :class:`~fairjudge.report._document.Headline`, whose
  ``verdict`` is the sentence the command prints on the terminal, and whose label,
  estimate and interval are the page's headline figure;
- the verdict counts are the ``--json`` summary's own numbers (wins, ties, losses;
  parse failures and call errors each on their own, never folded into ties);
- the table is the page's figure table (a comparison's or ranking's figures, the
  page kit's first table).

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
from dataclasses import dataclass
from typing import Any

from fairjudge._version import __version__
from fairjudge.report._comparison import FAILURES_ABOVE, FAILURES_CARD, PAGE_FAILURES
from fairjudge.report._document import Headline
from fairjudge.report._text import visible

__all__ = ["MarkdownSummary", "MarkdownTable", "escape", "markdown_text", "verdict_counts"]

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
    headline: Headline
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


def _interval(headline: Headline) -> list[str]:
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


def _failures_here(h: Headline) -> Headline:
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
