r"""What every report shares: its frame, intervals, failure summaries, escaping.

:class:`ReportFrame` gives a report's run facts (calls, skipped rows, failures by
reason) the same way in the JSON and the table. Text from a user, a model or an
exception is shown through :func:`markup`, :func:`say` or :func:`visible_all`, never
raw, so markup and invisible characters cannot change what is drawn (docs/internals.md).
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from rich.console import Console
from rich.markup import escape

from fairjudge._errors import worded
from fairjudge.runner import RunSummary
from fairjudge.stats import ConfidenceInterval

if TYPE_CHECKING:
    from fairjudge.evaluation import WinRate

__all__ = [
    "HiddenTable",
    "ReportFrame",
    "bootstrap_text",
    "calls_text",
    "ci_text",
    "clipped",
    "counted",
    "estimate_text",
    "failure_lines",
    "is_hidden",
    "ledger_rows",
    "markup",
    "print_failures",
    "replace_hidden",
    "say",
    "share_text",
    "visible",
    "visible_all",
    "win_note",
]

_SHOWN_REASONS = 5
_REASON_CHARS = 300
_KEPT_CONTROLS = frozenset("\t\n\r")
_STRETCH = 512  # characters of a long line checked at once
_TABLE_LIMIT = 1 << 16  # distinct characters a table remembers; others are worked out anew

T = TypeVar("T")


def is_hidden(char: str) -> bool:
    """Whether ``char`` is an invisible format or control character that reports make visible.

    Unicode category ``Cf`` (format: bidi controls, zero-width characters, the BOM,
    tag characters, ...) and ``Cc`` (C0 and C1 controls) except tab, newline and
    carriage return, which lay text out rather than hide it.
    """
    category = unicodedata.category(char)
    return category == "Cf" or (category == "Cc" and char not in _KEPT_CONTROLS)


class HiddenTable(dict[int, str]):
    """A :meth:`str.translate` table that rewrites hidden characters, for :func:`replace_hidden`.

    Every character maps to itself unless :func:`is_hidden` says it is hidden, when it
    maps to ``mark(code_point)``; ``preset`` entries, for other characters that are
    not printable (:meth:`str.isprintable`), are used as given. Entries are worked
    out on first sight and remembered (up to ``_TABLE_LIMIT`` distinct characters), so
    later lookups stay in C.
    """

    __slots__ = ("_mark",)

    def __init__(self, mark: Callable[[int], str], preset: Mapping[int, str] | None = None) -> None:
        super().__init__(preset or {})
        self._mark = mark

    def __missing__(self, code: int) -> str:
        char = chr(code)
        entry = self._mark(code) if is_hidden(char) else char
        if len(self) < _TABLE_LIMIT:
            self[code] = entry
        return entry


def replace_hidden(text: str, table: HiddenTable) -> str:
    """``text.translate(table)``, translating only the stretches that need it.

    Every hidden character is non-printable, so a line (or a stretch of a long line)
    that :meth:`str.isprintable` passes is kept as it is, at C speed. Newlines
    alone would make nearly every answer non-printable: lines are looked at one by one.
    """
    if text.isprintable():  # the common case
        return text
    return "\n".join(_replace_in_line(line, table) for line in text.split("\n"))


def _replace_in_line(line: str, table: HiddenTable) -> str:
    if line.isprintable():
        return line
    if len(line) <= _STRETCH:
        return line.translate(table)
    stretches = (line[i : i + _STRETCH] for i in range(0, len(line), _STRETCH))
    return "".join(s if s.isprintable() else s.translate(table) for s in stretches)


_VISIBLE = HiddenTable(lambda code: f"\u27e8U+{code:04X}\u27e9")


def clipped(exc: Exception, width: int = 200) -> str:
    """An exception's message, cut short: it may quote a value from the file."""
    text = str(exc)
    return text if len(text) <= width else text[: width - 1] + "…"


def visible(text: str) -> str:
    r"""``text`` with every hidden character (:func:`is_hidden`) shown as ``⟨U+XXXX⟩``.

    ``visible("a\u202egnp.exe")`` is ``"a⟨U+202E⟩gnp.exe"``; text with nothing
    hidden comes back unchanged (right-to-left letters included), and applying it
    twice changes nothing more.
    """
    return replace_hidden(text, _VISIBLE)


def visible_all(value: T) -> T:
    """``value`` with :func:`visible` applied to every string in it.

    Strings inside dataclasses, tuples, lists and dictionary values are replaced
    (dictionary keys are the program's own and are left alone); anything else is
    returned as it is.
    """
    shown: Any
    if isinstance(value, str):
        shown = visible(value)
    elif value is None or isinstance(value, int | float):
        shown = value
    elif isinstance(value, dict):
        shown = {k: visible_all(v) for k, v in value.items()}
    elif isinstance(value, list):
        shown = [visible_all(v) for v in value]
    elif isinstance(value, tuple):
        shown = tuple(visible_all(v) for v in value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: visible_all(getattr(value, f.name)) for f in dataclasses.fields(value)}
        shown = dataclasses.replace(value, **fields)
    else:
        shown = value
    return shown  # type: ignore[no-any-return]


def markup(text: str) -> str:
    """Untrusted ``text`` for a rich markup string: hidden characters shown, ``[`` escaped."""
    return escape(visible(text))


def say(console: Console, text: str, **options: Any) -> None:
    """Print ``text`` as plain text (never markup), with hidden characters shown."""
    console.print(visible(text), highlight=False, markup=False, **options)


def ci_text(ci: ConfidenceInterval, spec: str = ".3f") -> str:
    """``[low, high]``, or ``cannot be estimated: <why>`` for an interval the data cannot give."""
    return format(ci, spec)


def estimate_text(
    estimate: float | None, ci: ConfidenceInterval, spec: str = ".3f", ci_spec: str | None = None
) -> str:
    """``estimate  [low, high]``, or only ``not estimated: <why>`` when the interval cannot be.

    A figure whose interval cannot be estimated shows no number: a bare point with no
    uncertainty (a length-controlled win rate from separated data, say) reads as a
    finding, and it is not one.
    """
    if not ci.estimable:
        return f"not estimated: {ci.reason}"
    if estimate is None:
        return "n/a"
    return f"{estimate:{spec}}  {format(ci, ci_spec or spec)}"


def counted(n: int, noun: str) -> str:
    """``1 item``, ``2 items``: a count with its noun, singular for one (nouns taking "s")."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def win_note(w: WinRate) -> str:
    """``95% CI; n = 20 items; W/T/L 12/3/5``: the counts under a win rate's headline."""
    counts = f"W/T/L {w.wins}/{w.ties}/{w.losses}"
    return f"{round(w.ci.level * 100)}% CI; n = {counted(w.n, 'item')}; {counts}"


def share_text(count: int, total: int) -> str:
    """``count`` of ``total`` as a whole percent, ``"67%"`` for 2 of 3, rounded half to even.

    Worked out exactly from the two counts, never from the float ``count / total``:
    where binary cannot hold an exact half the float lies a hair off it (23 of 40 is
    0.57499...), so the float would round one half down and another up, and a column
    that holds every answer would not add up. Exact halves go to even, as Python's
    ``round`` does: 57.5% is 58%, 42.5% is 42%. Each share is rounded on its own, not
    made to add up by largest remainder: that gives two equal counts different
    shares, and a count a share that depends on the other rows, where the same count
    of the same total must read the same in every table (the score page, its
    Markdown, the collapse alarm's reason, which rounds by the same rule). A column
    may then add up to 99% or 101% (three equal thirds are 33% each).
    """
    whole, rest = divmod(100 * count, total)
    if 2 * rest > total or (2 * rest == total and whole % 2):
        whole += 1
    return f"{whole}%"


def failure_lines(reasons: Counter[str]) -> Iterator[str]:
    """Why calls failed, most common first, with counts: plain text, never markup."""
    if not reasons:
        return
    total = sum(reasons.values())
    yield f"{total} call(s) gave no verdict; the reasons, most common first:"
    for reason, count in reasons.most_common(_SHOWN_REASONS):
        text = reason if len(reason) <= _REASON_CHARS else reason[:_REASON_CHARS] + "…"
        yield f"  {count} x {text}"
    rest = len(reasons) - _SHOWN_REASONS
    if rest > 0:
        yield worded(
            f"  ... and {rest} other reason(s); out=FILE keeps every call's failure", "out"
        )


def print_failures(reasons: Counter[str], console: Console) -> None:
    """Print :func:`failure_lines` as plain text (never markup)."""
    for line in failure_lines(reasons):
        say(console, line)


def calls_text(run: RunSummary) -> str:
    """``N made, N cached, N failed``: what became of a run's calls.

    With the replies whose usage the server did not report correctly, when there
    were any: each was charged its estimate, and the reader should know the cost is one.
    With the requests refused while learning what an unknown model takes, and what
    they changed, when there were any.
    """
    text = f"{run.made} made, {run.cached} cached, {run.failed} failed"
    if run.usage_unreported:
        text += (
            f"; usage not reported correctly: {run.usage_unreported} (each charged its estimate)"
        )
    if (learning := run.learning_note()) is not None:
        text += f"; {learning}"
    return text


def ledger_rows(run: RunSummary) -> list[tuple[str, str]]:
    """The ledger's rows beside the tokens: the prompt cache's share and savings, reasoning.

    Only those that are not nothing, so a run without caching or reasoning shows none.
    """
    rows = []
    if run.cached_input_tokens or run.cache_write_tokens:
        share = run.cached_share or 0.0
        text = f"{run.cached_input_tokens} of {run.input_tokens} input tokens ({share:.1%})"
        if run.cache_write_tokens:
            text += f"; {run.cache_write_tokens} written"
        if run.cache_saved_usd is not None:
            text += f"; saved ${run.cache_saved_usd:.4f}"
        rows.append(("prompt cache", text))
    if run.reasoning_tokens:
        rows.append(("reasoning tokens", f"{run.reasoning_tokens} of {run.output_tokens} output"))
    elif run.reasoning_tokens is None:  # a reply did not say (Anthropic's thinking)
        rows.append(("reasoning tokens", "not reported (the provider's usage does not say)"))
    # What the figures leave out (an unknown cost, a price assumed), in the caller's words.
    rows.extend(run.note_rows())
    return rows


class _Boot(Protocol):
    @property
    def seed(self) -> int: ...
    @property
    def level(self) -> float: ...
    @property
    def n_resamples(self) -> int: ...


class _Failing(Protocol):
    @property
    def failures(self) -> Counter[str]: ...


def bootstrap_text(result: _Boot) -> str:
    """``seed=0 level=0.95 resamples=2000``: how the intervals were drawn."""
    return f"seed={result.seed} level={result.level} resamples={result.n_resamples}"


class ReportFrame:
    """The run facts every report adds to its result: failures, calls, skipped rows.

    A report joins the frame by subclassing it and giving ``result``, ``run`` (the
    judge calls' counts, tokens and cost; ``None`` for Python judges) and
    ``skipped`` (the input rows skipped with ``skip_invalid``) as dataclass fields.
    """

    __slots__ = ()

    # Given by each report as dataclass fields: declared for the type checker only, as
    # a class attribute here would become a field's default.
    if TYPE_CHECKING:
        result: _Failing
        run: RunSummary | None
        skipped: tuple[dict[str, Any], ...]

    @property
    def failures(self) -> Counter[str]:
        """Why calls failed, grouped by reason (the result's, unless a report says more)."""
        return self.result.failures

    def run_dict(self) -> dict[str, Any]:
        """The run's part of the JSON: ``failures``, ``calls`` and ``skipped_rows``."""
        return {
            "failures": dict(self.failures.most_common()),
            "calls": self.run.to_dict() if self.run is not None else None,
            "skipped_rows": list(self.skipped),
        }
