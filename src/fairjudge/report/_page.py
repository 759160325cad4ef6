"""The page kit: one look for every command's page (compare, calibrate, rank, score, ...).

A :class:`Page` is a view of a command's result model: its headline, the run-facts
card, sections of blocks (a plot followed by its table, a figure table, paragraphs,
highlighted text), and an item explorer over records. :func:`page_html` renders it
with ``templates/page.html.j2``; each page's builder only fills the dataclasses, so
every page shares the header, the card, the plots (``templates/plots.html.j2``) and
the explorer (``templates/explorer.js``).

The run-facts card (:func:`run_facts`) answers "what run is this?" the same for
every kind: read from an ``--out`` file's header, or passed by the live run; a value
that neither recorded says "not recorded", never a guess.
A page drawn again shows the calls its header recorded (:func:`recorded_run`,
:func:`recorded_member_usage`), each field checked as a run could write it: a value
no run could hold drops the whole record, never a wrong count on the page.

A page is one self-contained file rendered by jinja2 with autoescaping on; the only
text marked safe is the package's own CSS and JavaScript and the embedded JSON, which
:func:`script_json` escapes for a ``<script>`` element. The page's
Content-Security-Policy (:func:`content_security_policy`) forbids every load from
anywhere, lets inline styles and ``data:`` images through, and runs only the one
script whose SHA-256 it names (:func:`page_script`: the shared permalink, then the
page's own explorer), so a ``<script>`` that slipped into the page would not run.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal, cast

from fairjudge._version import __version__
from fairjudge.io import OutHeader
from fairjudge.report._page_plots import Figure, ForestPlot, Heatmap, Histogram
from fairjudge.report._text import HiddenTable, replace_hidden, visible, visible_all
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    import jinja2

    from fairjudge.judges import MemberUsage

__all__ = [
    "NOT_RECORDED",
    "Block",
    "Details",
    "Explorer",
    "FigureTable",
    "Headline",
    "Highlighted",
    "Page",
    "PageKind",
    "PageLoader",
    "Paragraphs",
    "PlotBlock",
    "Section",
    "asset",
    "compact_css",
    "compact_script",
    "content_security_policy",
    "environment",
    "json_ready",
    "page_html",
    "page_script",
    "recorded_member_usage",
    "recorded_run",
    "run_facts",
    "script_json",
    "unestimated",
]

PageKind = Literal[
    "compare", "compare-via-scores", "calibrate", "rank", "score", "audit", "jury", "score-jury"
]

NOT_RECORDED = "not recorded"
_MEMBER_KINDS = ("jury", "score-jury")


@dataclass(frozen=True, slots=True)
class Headline:
    """A page's conclusion (every page's): one sentence, and the figure behind it if any.

    Attributes:
        verdict: The sentence (``#fj-verdict``), the one the command prints.
        label: What the figure is; ``estimate`` and ``ci`` the figure as printed.
        note: A line under the figure (counts, how it was estimated).
        warnings: Shown in the warning style (partial run, failures, alarms).
        gate: A line above the verdict (``#fj-gate``): ``calibrate``'s gate.
    """

    verdict: str
    label: str = ""
    estimate: str = ""
    ci: str = ""
    note: str = ""
    warnings: tuple[str, ...] = ()
    gate: str = ""


@dataclass(frozen=True, slots=True)
class FigureTable:
    """A table of figures: a header row, then rows of text cells.

    ``classes`` gives a row a CSS class of the kit's (``fj-noci`` for a figure that
    cannot be estimated; ``fj-v-negligible``, ``fj-v-notable``, ``fj-v-severe``,
    ``fj-v-uncertain`` for a verdict's colour), by row index.
    """

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    classes: Mapping[int, str] = field(default_factory=dict)
    id: str = ""

    @classmethod
    def of(
        cls, caption: str, columns: tuple[str, ...], figures: Sequence[Figure], id: str = ""
    ) -> FigureTable:
        """Figures as rows of label, estimate and interval (or the reason), and counts."""
        rows = tuple((f.label, f.text, f.note) for f in figures)
        return cls(caption, columns, rows, unestimated(figures), id)


def unestimated(figures: Sequence[Figure]) -> dict[int, str]:
    """The rows of figures that cannot be estimated, marked ``fj-noci`` (their reason shows)."""
    return {i: "fj-noci" for i, f in enumerate(figures) if f.reason is not None}


@dataclass(frozen=True, slots=True)
class PlotBlock:
    """A plot followed by its table, the plot's text alternative.

    ``row_classes`` colours a forest plot's rows (as :class:`FigureTable` classes).
    ``fluid`` draws a forest plot across its card's whole width at any screen width,
    its table under it: a page's main figures (a win rate, a leaderboard).
    """

    plot: ForestPlot | Histogram | Heatmap
    table: FigureTable
    row_classes: tuple[str, ...] = ()
    fluid: bool = False


@dataclass(frozen=True, slots=True)
class Paragraphs:
    """Plain paragraphs (``lines``), or a bulleted list when ``bullets``."""

    lines: tuple[str, ...]
    bullets: bool = False


@dataclass(frozen=True, slots=True)
class Highlighted:
    """Texts side by side, each a title and its parts, a part ``(text, highlighted)``.

    The audit's padded answer beside its concise original, the added sentences marked.
    """

    panels: tuple[tuple[str, tuple[tuple[str, bool], ...]], ...]


@dataclass(frozen=True, slots=True)
class Details:
    """A line that opens, on a click, to more lines (a verdict's rule, say)."""

    summary: str
    lines: tuple[str, ...]


Block = PlotBlock | FigureTable | Paragraphs | Highlighted | Details


@dataclass(frozen=True, slots=True)
class Section:
    """One titled card of the page; ``id`` is its HTML id (``fj-`` plus a word).

    ``grid`` lays its blocks out side by side where the screen is wide enough (each
    plot above its table), for many small plots of one kind: a histogram per dimension.
    """

    id: str
    title: str
    blocks: tuple[Block, ...]
    grid: bool = False


@dataclass(frozen=True, slots=True)
class Explorer:
    """The item explorer: its spec (filters, facets) and one record per item.

    Attributes:
        spec: ``{"flags": [{"key", "label"}], "facets": [{"key", "label"}]}``, and
            ``"sorts": [{"key", "label"}]`` to sort by a record's number ``n[key]``;
            ``"head"`` and ``"snippet"`` say once the heading and the line under the
            title that each record would otherwise repeat (``templates/explorer.js``).
        records: One record per item, in input order (``templates/explorer.js``
            gives their form).
        noun: What a record is, for the count line ("answers", "items").
    """

    spec: Mapping[str, Any]
    records: Sequence[Mapping[str, Any]]
    noun: str = "items"


@dataclass(frozen=True, slots=True)
class Page:
    """One page: a view of a command's result.

    Attributes:
        kind: The kind of run (the ``--out`` header's kind).
        title: What was judged, e.g. the input file's name.
        headline: The conclusion.
        facts: The run-facts card, ``(label, value)`` pairs.
        sections: The cards under the headline, in order.
        explorer: The item explorer, when there are items.
        summary: The command's ``--json``, embedded exact (``#fj-summary``).
    """

    kind: PageKind
    title: str
    headline: Headline
    facts: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]
    explorer: Explorer | None
    summary: Mapping[str, Any]


PageLoader = Callable[..., Page]
"""``(path, *, seed, level, n_resamples) -> Page``: a page drawn again from a ``--out`` file.

Each page's module lists its loaders by kind in ``OUT_FILE_PAGES``;
:mod:`fairjudge.report._pages` gathers them for ``fairjudge report``.
"""


def _joined(value: str | Sequence[str] | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return ", ".join(value) if value else None


def run_facts(
    header: OutHeader | None,
    *,
    kind: str,
    command: Sequence[str] | None = None,
    judge_or_members: str | Sequence[str] | None = None,
    template_or_rubric: str | None = None,
    seed: int | None = None,
    calls_made: int | None = None,
    calls_cached: int | None = None,
    cost: float | None = None,
    version: str | None = None,
    extra: Sequence[tuple[str, str]] = (),
) -> tuple[tuple[str, str], ...]:
    """The card's ``(label, value)`` rows; a keyword given wins over the header's value.

    Args:
        header: The ``--out`` file's header; ``None`` for a live run or an old file.
        kind: The kind of run (``score``, ``audit``, ``jury``, ``score-jury``).
        command: The command line (the header's when not given).
        judge_or_members: The judge's name, or the jury's member names.
        template_or_rubric: ``name@version`` of the template or the rubric.
        seed: The bootstrap seed (the header's ``settings.seed`` when not given).
        calls_made: Calls sent to a backend (or a Python judge) in the run.
        calls_cached: Calls served from the store at no cost.
        cost: The estimated cost in US dollars, when prices were known.
        version: The fairjudge version that ran it (this one, for a live run).
        extra: More rows, after the others (the mode, the aggregate, ...).
    """
    line = command if command is not None else (header.command if header else ())
    who = _joined(judge_or_members) or (header.judge if header else None)
    recipe = template_or_rubric
    recipe_label = "rubric" if kind in ("score", "score-jury") else "template"
    if recipe is None and header is not None:
        recipe = header.rubric or header.template
        recipe_label = "rubric" if header.rubric else "template"
    if seed is None and header is not None and isinstance(header.settings.get("seed"), int):
        seed = header.settings["seed"]
    if version is None:
        version = header.version if header is not None else __version__
    calls = NOT_RECORDED
    if calls_made is not None or calls_cached is not None:
        calls = f"{calls_made or 0} made, {calls_cached or 0} cached"
    rows = [
        ("command", " ".join(line) if line else NOT_RECORDED),
        ("members" if kind in _MEMBER_KINDS else "judge", who or NOT_RECORDED),
        (recipe_label, recipe or NOT_RECORDED),
        ("seed", NOT_RECORDED if seed is None else str(seed)),
        ("calls", calls),
        ("cost", NOT_RECORDED if cost is None else f"${cost:.4f} (estimated)"),
        ("fairjudge", version or NOT_RECORDED),
    ]
    return (*rows, *extra)


_STOPS = frozenset({"max_calls", "max_cost"})


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _good(name: str, value: object) -> bool:
    """Whether ``value`` is one a run's :class:`RunSummary` could hold as ``name``."""
    if name in ("cost_usd", "cache_saved_usd"):  # None: no price known
        return value is None or _number(value)
    if name == "reasoning_tokens":  # None: a reply did not report its own
        return value is None or _count(value)
    if name in ("wall_s", "backoff_s"):
        return _number(value)
    if name == "stopped":
        return value is None or value in _STOPS
    if name == "learned":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if name == "notes":  # [{"label": ..., "text": ...}], as RunSummary.to_dict writes them
        return isinstance(value, list) and all(
            isinstance(v, Mapping) and {type(v.get(k)) for k in ("label", "text")} == {str}
            for v in value
        )
    return _count(value)


def recorded_run(header: OutHeader | None) -> RunSummary | None:
    """The run's calls as its header records them; ``None`` when it records none usable.

    A field a newer fairjudge added and this one lacks is ignored; one this fairjudge
    has and the file lacks takes its default (a file written before it existed), and
    a required one missing, or any value no run could hold, drops the record.
    """
    calls = header.calls if header is not None else None
    if not isinstance(calls, Mapping):
        return None
    values: dict[str, Any] = {}
    for f in fields(RunSummary):
        if f.name not in calls:
            if f.default is MISSING:
                return None
            continue
        value = calls[f.name]
        if not _good(f.name, value):
            return None
        values[f.name] = tuple(value) if f.name == "learned" else value
        if f.name == "notes":
            values[f.name] = tuple((v["label"], v["text"]) for v in value)
    return RunSummary(**values)


def _member(record: Mapping[str, Any]) -> MemberUsage | None:
    calls, made, cached = record.get("calls"), record.get("made"), record.get("cached")
    tokens = record.get("input_tokens"), record.get("output_tokens")
    cost, latency = record.get("cost_usd"), record.get("mean_latency_s")
    local = record.get("answered_locally", False)
    # A file written before members' reasoning tokens were kept: a model's are unknown.
    reasoning = record.get("reasoning_tokens", 0 if local is True else None)
    good = (
        _count(calls) and all(v is None or _count(v) for v in (made, cached, reasoning))
        and all(_count(t) for t in tokens) and all(v is None or _number(v) for v in (cost, latency))
        and isinstance(local, bool)
    )  # fmt: skip
    if not good:
        return None
    from fairjudge.judges import MemberUsage  # only a panel's page redrawn needs it

    return MemberUsage(
        cast(int, calls), cast("int | None", made), cast("int | None", cached),
        cast(int, tokens[0]), cast(int, tokens[1]), cast("float | None", cost),
        cast("float | None", latency), local, cast("int | None", reasoning),
    )  # fmt: skip


def recorded_member_usage(header: OutHeader | None, n_members: int) -> tuple[MemberUsage, ...]:
    """A panel's usage per member as its header records it; ``()`` when it records none usable.

    ``()`` is what a panel that recorded no usage has (each member's usage ``None``);
    a list of another length than the panel's, or a member's record no run could
    write, is treated so too.
    """
    usage = header.member_usage if header is not None else None
    if usage is None or len(usage) != n_members:
        return ()
    members = [_member(u) for u in usage]
    return tuple(m for m in members if m is not None) if None not in members else ()


def _shown_records(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each record made visible but its key, which the permalink matches exactly.

    A title the same as its key is left out (the explorer titles a record by its key
    then); one whose key holds a hidden character stays, made visible. So is every
    part explorer.js reads as its default when it is missing (:func:`_without_defaults`).
    """
    shown = []
    for r in records:
        record = _without_defaults({**visible_all(dict(r)), "k": r["k"]})
        if record.get("t") == r["k"]:
            del record["t"]
        shown.append(record)
    return shown


def _without_defaults(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` without what explorer.js reads the same when it is missing.

    A search text ``s`` of ``""`` (it reads ``r.s || ""``), a flag that is false (it
    tests ``r.f && r.f[key]``), a facet value or a sort number that is ``None`` (it
    reads a missing or null value as none), and the ``f``, ``v``, ``n`` and ``d``
    left empty. Every record of a 10,000-item page carried them.
    """
    out = dict(record)
    if out.get("s") == "":
        del out["s"]
    for part, keep in (("f", bool), ("v", _not_none), ("n", _not_none)):
        if isinstance(out.get(part), Mapping):
            out[part] = {k: v for k, v in out[part].items() if keep(v)}
    for part in ("f", "v", "n", "d"):
        if part in out and not out[part]:
            del out[part]
    return out


def _not_none(value: object) -> bool:
    return value is not None


def _headings(sections: Sequence[Mapping[str, Any]]) -> list[str]:
    """The headings and row labels of ``sections``, those side by side included."""
    found: list[str] = []
    for s in sections:
        if isinstance(s.get("h"), str):
            found.append(s["h"])
        found += [row[0] for row in s.get("rows", ()) if isinstance(row[0], str)]
        found += _headings(s.get("two", ()))
    return found


def _labelled(sections: Sequence[Mapping[str, Any]], index: Mapping[str, int]) -> list[Any]:
    """``sections`` with each heading and row label in ``index`` written as its number."""
    out: list[Any] = []
    for s in sections:
        s = dict(s)
        if isinstance(s.get("h"), str) and s["h"] in index:
            s["h"] = index[s["h"]]
        if "rows" in s:
            s["rows"] = [[index.get(row[0], row[0]), *row[1:]] for row in s["rows"]]
        if "two" in s:
            s["two"] = _labelled(s["two"], index)
        out.append(s)
    return out


def _shared_labels(
    records: list[dict[str, Any]], spec: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Records whose repeated headings and row labels are numbers into ``spec["labels"]``.

    "outcome", "Question", "Call 1 · original order"... are the same on every record;
    written once in the spec, a 10,000-item page carries each once, not 10,000 times.
    explorer.js reads a number where a heading or a label is expected as the label at
    that index; every other string stays where it was.
    """
    counts: dict[str, int] = {}
    for r in records:
        for text in _headings(r.get("d", ())):
            counts[text] = counts.get(text, 0) + 1
    labels = [text for text, n in counts.items() if n > 1 and len(text) > 1]
    if not labels:
        return records, spec
    index = {text: i for i, text in enumerate(labels)}
    shared = [{**r, "d": _labelled(r["d"], index)} if "d" in r else r for r in records]
    return shared, {**spec, "labels": labels}


def _kind_of(block: object) -> str:
    return type(block).__name__


def page_html(page: Page) -> str:
    """The page as one self-contained HTML file (CSS, script, SVG and data inline).

    Raises:
        AssertionError: The kit's script holds ``</script``, which would end its element.
    """
    from markupsafe import Markup  # jinja2's own dependency

    script = page_script("explorer.js")
    explorer = page.explorer
    records = _shown_records(explorer.records) if explorer is not None else []
    spec = dict(explorer.spec) if explorer is not None else {}
    records, spec = _shared_labels(records, spec)
    shown = visible_all(
        Page(page.kind, page.title, page.headline, page.facts, page.sections, None, {})
    )
    template = environment().get_template("page.html.j2")
    return template.render(
        page=shown,
        kind_of=_kind_of,
        args_of=_args_of,
        csp=content_security_policy(script),
        version=__version__,
        explorer=explorer is not None,
        noun=visible(explorer.noun) if explorer is not None else "",
        n_records=len(records),
        sorts=visible_all(list(explorer.spec.get("sorts", ()))) if explorer is not None else [],
        css=Markup(compact_css(asset("page.css"))),
        js=Markup(script),
        summary_json=Markup(script_json(dict(page.summary))),
        records_json=Markup(script_json(records)),
        spec_json=Markup(script_json(spec)),
    )


def _args_of(label: str, value: str) -> list[str] | None:
    """The run-facts command row's arguments, each drawn whole; ``None`` for any other row.

    A browser may break a line after any hyphen, so a flag split "-" / "-html" across
    two lines; each argument in its own box (page.css's ``.fj-command``) breaks the
    line only between arguments, and inside one only when it is longer than the line.
    The row's text is unchanged: the arguments joined by single spaces, as recorded.
    """
    if label != "command" or value == NOT_RECORDED:
        return None
    return value.split(" ")


def asset(name: str) -> str:
    """The text of ``templates/NAME``, shipped in the package."""
    return resources.files("fairjudge.report").joinpath("templates", name).read_text("utf-8")


@cache
def environment() -> jinja2.Environment:
    """The templates' jinja2 environment: autoescaping on, an unknown name an error."""
    import jinja2  # only the pages need it: keep it off every command's start-up

    return jinja2.Environment(
        loader=jinja2.PackageLoader("fairjudge.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def page_script(name: str) -> str:
    """The page's one script: the shared permalink code, then ``templates/NAME``.

    Raises:
        AssertionError: The script holds ``</script``, which would end its own element.
    """
    script = compact_script(asset("permalink.js") + asset(name))
    if "</script" in script.lower():
        raise AssertionError(f"{name} and permalink.js must not contain '</script'")
    return script


# A comment that starts its line: a block comment to its close, or a // line. The
# package's scripts put no code after a block comment's close and hold no template
# literal or multi-line string, so dropping these and each line's indentation keeps
# every statement as written (tests/report/test_page_kit.py checks both).
_SCRIPT_COMMENT = re.compile(r"^[ \t]*(?:/\*.*?\*/|//[^\n]*)[ \t]*\n", re.S | re.M)
_INDENT = re.compile(r"^[ \t]+", re.M)


@cache
def compact_script(script: str) -> str:
    """``script`` without its comments, indentation and blank lines: what a page ships.

    Every page carries the explorer; its comments are for the reader of
    ``templates/explorer.js``, not for each page's bytes.
    """
    text = _INDENT.sub("", _SCRIPT_COMMENT.sub("", script))
    return "\n".join(line for line in text.splitlines() if line) + "\n"


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_SPACE = re.compile(r"\s*([{};,>])\s*")
_CSS_COLON = re.compile(r"([{;][-\w]+):\s+")  # a declaration's "name: value"


@cache
def compact_css(css: str) -> str:
    """The stylesheet without comments and the whitespace no rule needs (every page's copy).

    Whitespace goes only around ``{ } ; , >`` and after a declaration's colon, where
    CSS never reads it; a space between words (a descendant selector, ``1px solid``)
    stays one space.
    """
    text = " ".join(_CSS_COMMENT.sub("", css).split())
    return _CSS_COLON.sub(r"\1:", _CSS_SPACE.sub(r"\1", text)).replace(";}", "}")


def content_security_policy(script: str) -> str:
    """The page's policy: nothing loads; inline CSS, ``data:`` images and ``script`` run."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; "
        f"script-src 'sha256-{digest}'; "
        "style-src 'unsafe-inline'; "
        "img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def _json_escape(code: int) -> str:
    r"""``\uXXXX``, or a surrogate pair of them beyond the BMP, as JSON writes a code point."""
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


_HTML_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))
# The two line separators JavaScript once treated as newlines, and every hidden character.
_SCRIPT_ESCAPES = HiddenTable(_json_escape, {0x2028: "\\u2028", 0x2029: "\\u2029"})


def json_ready(value: Any) -> Any:
    """``value`` with every non-finite float as ``None`` (``JSON.parse`` rejects ``NaN``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def script_json(value: Any) -> str:
    r"""JSON that is safe inside a ``<script>`` element: it cannot end the element early.

    ``script_json({"a": "</script>"})`` is ``{"a": "\u003c/script\u003e"}``. Hidden
    characters (:func:`~fairjudge.report._text.is_hidden`) become escapes too: a right-to-left
    override is written as the six characters ``\u202e``, never as itself.
    """
    text = json.dumps(
        json_ready(value), ensure_ascii=False, allow_nan=False, default=str, separators=(",", ":")
    )
    for char, escape in _HTML_ESCAPES:
        text = text.replace(char, escape)
    return replace_hidden(text, _SCRIPT_ESCAPES)
