"""The comparison report: one model of a ``compare`` result, rendered as a table or JSON.

:func:`comparison_report` gathers everything a reader needs (the result, the same
calls under the other informative rule, the length-controlled win rate, the judge
calls' costs, the failures grouped by reason) into a :class:`ComparisonReport`.
The terminal table (:func:`render_comparison`) and the JSON (:meth:`ComparisonReport.to_dict`)
both render from it, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from fairjudge._errors import worded
from fairjudge._items import Item
from fairjudge._types import Outcome
from fairjudge.evaluation import PairwiseResult, Rate, WinRate, length_controlled
from fairjudge.report._adaptive import early_side, items_cell, stop_lines, stop_verdict, win_cell
from fairjudge.report._text import (
    ReportFrame,
    calls_text,
    ci_text,
    counted,
    estimate_text,
    ledger_rows,
    markup,
    print_failures,
    say,
)
from fairjudge.runner import RunSummary
from fairjudge.stats import shared_resamples

if TYPE_CHECKING:
    from fairjudge.evaluation import AdaptiveResult
    from fairjudge.stats import LengthControlledWinRate

__all__ = [
    "FAILURES_ABOVE",
    "FAILURES_CARD",
    "NO_DECISIVE_CALL",
    "PAGE_FAILURES",
    "ComparisonReport",
    "comparison_report",
    "labelled_truth",
    "protocol_label",
    "render_comparison",
    "soft_reading",
    "soft_source",
    "verdict_line",
]


@dataclass(frozen=True, slots=True)
class ComparisonReport(ReportFrame):
    """Everything a ``compare`` run shows (on the shared :class:`ReportFrame`).

    Attributes:
        title: What was compared, e.g. the input file's name.
        result: The evaluation.
        alternatives: The same calls resolved under the other informative rule.
        length_control: The length-controlled win rate, or why it was not computed.
        run: The judge calls' counts, tokens and cost (``None`` for Python judges).
        skipped: Input rows skipped with ``--skip-invalid`` (source, line, message).
        truth: What the input's human labels say, when every item has one.
        adaptive: The adaptive run (``stop_when``) whose judged items ``result`` holds.
        recorded_adaptive: For a page rebuilt from an ``--out`` file, the adaptive
            block its header recorded (the run's conclusion among it); ``None`` else.
    """

    title: str
    result: PairwiseResult
    alternatives: tuple[PairwiseResult, ...]
    length_control: LengthControlledWinRate | str
    run: RunSummary | None
    skipped: tuple[dict[str, Any], ...] = ()
    truth: KnownTruth | None = None
    adaptive: AdaptiveResult[PairwiseResult] | None = None
    recorded_adaptive: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the result's summary plus the report's extras."""
        payload = self.result.to_dict()
        payload["alternative_rules"] = {
            a.settings.rule.value: a.win_rate.to_dict() if a.win_rate else None
            for a in self.alternatives
        }
        lc = self.length_control
        payload["length_controlled_win_rate"] = (
            {"skipped": lc} if isinstance(lc, str) else _length_dict(lc)
        )
        payload.update(self.run_dict())
        payload["known_truth"] = self.truth.to_dict() if self.truth is not None else None
        rules = {self.result.settings.rule.value, *payload["alternative_rules"]}
        if "soft" in rules:  # what a soft win rate above averages: a JSON reader cannot tell
            payload["soft_reading"] = soft_source(self.result)
        if self.adaptive is not None:
            payload["adaptive"] = self.adaptive.adaptive_dict()
        elif self.recorded_adaptive is not None:
            payload["adaptive"] = self.recorded_adaptive
        return payload


def _length_dict(lc: LengthControlledWinRate) -> dict[str, Any]:
    """The length control's JSON: an estimate whose interval cannot be estimated is null.

    The fit's point value then rests on separated data (it runs to 0 or 1), so the
    JSON carries ``null`` and the interval's ``reason``, as the table and page do.
    """
    out = lc.to_dict()
    if not lc.ci.estimable:
        out["estimate"] = None
        out["reason"] = lc.ci.reason
    if not lc.length_coefficient_ci.estimable:
        out["length_coefficient"] = None
        out["intercept"] = None
    return out


@dataclass(frozen=True, slots=True)
class KnownTruth:
    """What the input's human labels say, and whether each reading of the calls agrees.

    Sides are +1 (model 1 better), -1 (model 2 better) or 0 (neither).

    Attributes:
        n: Resolved items that carry a human label.
        human_win_rate: Model 1's win rate by the labels (1, ½ for a tie, 0).
        truth: The labels' side.
        debiased: The debiased verdict's side, by its CI (0 when it contains 0.5 or
            cannot be estimated).
        naive: The single-order reading's side, by the same rule: its CI, not its
            estimate (a naive 0.521 [0.333, 0.708] points to neither).
    """

    n: int
    human_win_rate: float
    truth: int
    debiased: int
    naive: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "n": self.n,
            "human_win_rate": self.human_win_rate,
            "debiased_agrees": self.debiased == self.truth,
            "naive_agrees": self.naive == self.truth,
        }

    def sentences(self, reading: str, no_interval: str | None = None) -> list[str]:
        """The labels' verdict, then ``reading``'s; ``no_interval``: why it has none."""
        return _truth_sentences(
            self.truth, self.human_win_rate, self.n, self.debiased, reading, no_interval
        )


def _side(estimate: float, low: float | None = None, high: float | None = None) -> int:
    """+1 for model 1, -1 for model 2, 0 for no side (the CI, when given, decides)."""
    if low is not None and high is not None:
        return 1 if low > 0.5 else -1 if high < 0.5 else 0
    return 1 if estimate > 0.5 else -1 if estimate < 0.5 else 0


def _ci_side(w: WinRate | None) -> int:
    """A win rate's side by its CI: 0 when it contains 0.5, cannot be estimated, or is absent."""
    return _side(w.estimate, w.ci.low, w.ci.high) if w is not None and w.ci.estimable else 0


def _human_rate(labelled: Sequence[Item]) -> float | None:
    """Model 1's win rate by the human labels (1, ½ for a tie, 0), when every item has one."""
    if not labelled or any(i.human is None for i in labelled):
        return None
    scores = {"1": 1.0, "tie": 0.5, "2": 0.0}
    return sum(scores[i.human.value] for i in labelled if i.human) / len(labelled)


def known_truth(result: PairwiseResult) -> KnownTruth | None:
    """The labels' verdict beside the calls', when every resolved item is labelled."""
    done = [j.item for j in result.judgments if j.outcome is not None]
    human = _human_rate(done)
    if human is None:
        return None
    # Both readings are placed by the same rule, their CIs, so that a naive result
    # identical to the debiased one can never be said to point another way.
    debiased, naive = _ci_side(result.win_rate), _ci_side(result.single_order)
    return KnownTruth(len(done), human, _side(human), debiased, naive)


def comparison_report(
    result: PairwiseResult,
    *,
    title: str,
    run: RunSummary | None = None,
    skipped: Sequence[dict[str, Any]] = (),
    adaptive: AdaptiveResult[PairwiseResult] | None = None,
) -> ComparisonReport:
    """Build the report of one comparison (its length control, alternatives, adaptive stop)."""
    # The other informative rule, from the same calls: the seed's conservative result
    # beside a soft one, or the soft one beside the seed's when probabilities exist.
    alternatives: tuple[PairwiseResult, ...] = ()
    with shared_resamples():  # the other rule's intervals redraw no resampling plan
        if result.settings.rule.value != "conservative":
            alternatives = (result.with_rule("conservative"),)
        elif result.has_probabilities:
            alternatives = (result.with_rule("soft"),)
    lc = length_controlled(result)
    truth = known_truth(result)
    side = early_side(adaptive)  # after an early stop, the anytime-valid interval concludes
    if truth is not None and side is not None:
        truth = replace(truth, debiased=side)
    return ComparisonReport(title, result, alternatives, lc, run, tuple(skipped), truth, adaptive)


def _win(w: WinRate | None) -> str:
    return "n/a" if w is None else estimate_text(w.estimate, w.ci)


FAILURES_ABOVE = "see the failures above"
"""Where the terminal's conclusion points when no item was resolved: it prints them first."""
PAGE_FAILURES = "the Failures card below"
"""Where a page's failures are: a card under its headline."""
FAILURES_CARD = f"see {PAGE_FAILURES}"
"""A page's conclusion when no item was resolved points there, not above."""


NO_DECISIVE_CALL = "no call gave a decisive verdict (A or B)"
"""Why no share of calls choosing the first position exists (every call a tie, or failed)."""


def _rate(r: Rate | None, missing: str = "") -> str:
    if r is None:
        return f"n/a: {missing}" if missing else "n/a"
    return f"{estimate_text(r.estimate, r.ci)}  ({r.successes}/{r.n})"


def _verdict_line(result: PairwiseResult, failures_at: str = FAILURES_ABOVE) -> str:
    return verdict_line(
        result.win_rate,
        failed=bool(result.failures),
        stopped=result.stopped,
        n_items=result.n_items,
        failures_at=failures_at,
    )


def verdict_line(
    w: WinRate | None,
    *,
    failed: bool,
    stopped: str | None,
    n_items: int,
    subject: str = "",
    failures_at: str = FAILURES_ABOVE,
) -> str:
    """The plain conclusion from model 1's win rate, shared by every pairwise command.

    Args:
        w: Model 1's win rate, or ``None`` when no item was resolved.
        failed: Whether any call failed (the failures are printed above).
        stopped: Why a budget stopped the run, or ``None``.
        n_items: Items in the input.
        subject: What produced the win rate (``"the panel"``), for the sentence.
        failures_at: Where this output shows the failures (:data:`FAILURES_ABOVE` on
            the terminal, :data:`FAILURES_CARD` on a page), so the pointer is true there.
    """
    if w is None:
        if not n_items:
            return "No conclusion: there were no items."
        if failed:
            return f"No item could be resolved: {failures_at}."
        if stopped is not None:
            return "No conclusion: the run stopped before any item was resolved."
        return "No conclusion: no item was resolved."
    by = f" by {subject}" if subject else ""
    if not w.ci.estimable:
        return f"No conclusion{by}: the win rate's interval {ci_text(w.ci)}."
    if w.ci.low > 0.5:
        return f"Model 1 is better{by}: the whole interval lies above 0.5."
    if w.ci.high < 0.5:
        return f"Model 2 is better{by}: the whole interval lies below 0.5."
    return f"No clear winner{by}: the interval contains 0.5."


def labelled_truth(
    done: Sequence[tuple[Item, Outcome | None]], w: WinRate | None, reading: str
) -> list[str]:
    """The input's human labels beside a result, when every resolved item has one.

    Args:
        done: Each item with the outcome the command gave it (``None``: unresolved).
        w: The win rate the command concluded from.
        reading: What to call the result in the sentence (``"the panel's result"``).
    """
    labelled = [item for item, outcome in done if outcome is not None]
    human = _human_rate(labelled)
    if w is None or human is None:
        return []
    found = _ci_side(w)
    return _truth_sentences(_side(human), human, len(labelled), found, reading, w.ci.reason)


_SAID = {1: "model 1 is better", -1: "model 2 is better", 0: "neither is better"}


def _truth_sentences(
    truth: int, human: float, n: int, found: int, reading: str, no_interval: str | None = None
) -> list[str]:
    """The labels' verdict, then the reading's; ``no_interval``: why it has no interval."""
    lines = [
        f"Known truth, from the input's human labels: {_SAID[truth]} "
        f"(model 1's win rate by the labels: {human:.3f}, {counted(n, 'item')})."
    ]
    if found == 0 and no_interval is not None:  # no interval: it contains nothing
        lines.append(
            f"{reading} has no interval ({no_interval}): no conclusion, rather than a wrong one."
        )
    elif found == truth == 0:  # an interval containing 0.5 does not show there is no gap
        lines.append(
            f"{reading} takes no side either (its interval contains 0.5): consistent with "
            "the labels, though that alone does not show that neither is better."
        )
    elif found == truth:
        lines.append(f"{reading} found it.")
    elif found == 0:
        lines.append(
            f"{reading} cannot tell them apart (its interval contains 0.5): "
            "no conclusion, rather than a wrong one."
        )
    else:
        lines.append(
            f"{reading} points the other way: this judge is not good enough for this comparison."
        )
    return lines


def protocol_label(result: PairwiseResult) -> str:
    """How the win rate was read: both orders (debiased) or one, even with nothing resolved."""
    if result.debiased:
        return "debiased"
    if result.win_rate is None and result.settings.rounds >= 2:
        return "both orders asked, none resolved"
    return "single order, NOT debiased"


def _by_label(result: PairwiseResult) -> tuple[int, int]:
    """``(by label, answered)``: the answered calls of resolved items, and how many gave none.

    A call without probabilities is counted by its label (1, ½, 0) under the soft rule.
    """
    answered = [
        c.reply.probabilities is not None
        for j in result.judgments
        if j.outcome is not None
        for c in j.calls
        if c.reply.verdict is not None
    ]
    return answered.count(False), len(answered)


def soft_source(result: PairwiseResult) -> str | None:
    """What a soft win rate of these calls averages, for ``--json``'s ``soft_reading``.

    ``"probabilities"``, ``"labels"`` (no call gave probabilities) or ``"mixed"``;
    ``None`` when no call of a resolved item gave a verdict.
    """
    missing, answered = _by_label(result)
    if not answered:
        return None
    return "probabilities" if not missing else "labels" if missing == answered else "mixed"


def soft_reading(result: PairwiseResult) -> tuple[str, str | None]:
    """What the soft rule's win rate is a mean of, and a note when calls gave no probabilities.

    The soft rule reads a call's probabilities when the judge gave them and counts
    a call without them as its label (1, ½, 0): a win rate from such calls is a mean
    of labels, never a probability the judge reported.
    """
    missing, answered = _by_label(result)
    if not missing:
        return "mean P(model 1 better)", None
    counted = "model 1 better 1, tie ½, model 2 better 0"
    if missing == answered:
        return "mean of the labels, no probabilities", (
            f"The judge gave no probabilities: under the soft rule each call counts as its "
            f"label ({counted}), so this win rate is a mean of labels, not a probability "
            "the judge reported."
        )
    return f"mean P(model 1 better); {missing} of {answered} calls by label", (
        f"{missing} of {answered} calls gave no probabilities: under the soft rule "
        f"each of those counts as its label ({counted}), not as a probability the judge "
        "reported."
    )


def _table(report: ComparisonReport) -> Table:
    result = report.result
    level = round(result.settings.level * 100)
    table = Table(title=markup(report.title), show_header=True, header_style="bold")
    table.add_column("metric")
    table.add_column(f"value  [{level}% CI]")
    judged = f"{result.n_items - result.n_unresolved} of {result.n_items}"
    table.add_row("items judged", items_cell(judged, report.adaptive))
    label = protocol_label(result)
    soft = result.settings.rule.value == "soft"
    if soft:  # a mean probability, not a count of wins: say so, and count items by lean
        label += f", soft: {soft_reading(result)[0]}"
    table.add_row(
        f"win rate of model 1 ({label})", win_cell(_win(result.win_rate), report.adaptive)
    )
    w = result.win_rate
    if w is not None:
        counts = "items leaning to model 1 / even / 2" if soft else "wins / ties / losses"
        table.add_row(counts, f"{w.wins} / {w.ties} / {w.losses}")
    lc = report.length_control
    if isinstance(lc, str):
        table.add_row("length-controlled win rate", markup(f"n/a: {lc}"))
    else:
        table.add_row("length-controlled win rate", markup(estimate_text(lc.estimate, lc.ci)))
    for alt in report.alternatives:
        table.add_row(f"  same calls, {alt.settings.rule.value} rule", _win(alt.win_rate))
    if result.debiased:
        table.add_row("single-order win rate (naive)", _win(result.single_order))
        table.add_row("position consistency", _rate(result.position_consistency))
        table.add_row("inconsistent items", str(result.n_inconsistent))
    table.add_row(
        "calls choosing the first position", _rate(result.first_position_calls, NO_DECISIVE_CALL)
    )
    table.add_row("parse failures", str(result.n_parse_failures))
    table.add_row("call errors", str(result.n_call_errors))
    run = report.run
    if run is not None:
        table.add_row("judge calls", calls_text(run))
        if run.input_tokens or run.output_tokens:
            cost = f", est. ${run.cost_usd:.4f}" if run.cost_usd else ""
            table.add_row("tokens (in / out)", f"{run.input_tokens} / {run.output_tokens}{cost}")
        for label, text in ledger_rows(run):
            table.add_row(label, text)
    return table


def render_comparison(report: ComparisonReport, console: Console) -> None:
    """Print the comparison table, the naive baseline beside it, and a plain verdict."""
    result = report.result
    print_failures(result.failures, console)
    console.print(_table(report))
    s = result.settings
    say(
        console,
        f"rule={s.rule.value} rounds={s.rounds} seed={s.seed}; "
        "a parse failure or call error is never counted as a tie or a loss.",
    )
    if not result.debiased and result.win_rate is not None:
        warning = worded(
            "[yellow]warning:[/yellow] each item was judged in one order only (rounds=1): "
            "this win rate carries whatever position bias the judge has. "
            "Use rounds=2 (the default) to debias it.",
            "rounds",
        )
        console.print(warning, highlight=False)
    if result.stopped is not None:
        console.print(
            f"[yellow]partial result:[/yellow] the run stopped before every call was made "
            f"(the 'stopped' line says why); {result.n_not_run} item(s) not yet judged are "
            "left out.",
            highlight=False,
        )
    if s.rule.value == "soft":
        say(
            console,
            "soft rule: each item scores P(model 1 better) + ½·P(tie), averaged over both "
            "orders; the win rate is the mean of those scores, so a weak judge's sits near "
            "0.5 even when most items lean one way.",
        )
        unmeasured = soft_reading(result)[1]
        if unmeasured is not None:
            console.print(f"[yellow]note:[/yellow] {markup(unmeasured)}", highlight=False)
    for line in stop_lines(report.adaptive) if report.adaptive is not None else ():
        say(console, line)
    console.print(f"[bold]{stop_verdict(report.adaptive) or _verdict_line(result)}[/bold]")
    for line in truth_lines(report):
        say(console, line)


def truth_lines(report: ComparisonReport) -> list[str]:
    """The known truth beside both readings, or the naive gap when no truth is known."""
    result, truth = report.result, report.truth
    w, naive = result.win_rate, result.single_order
    if w is None:
        return []
    # An early stop's anytime-valid interval decides, whatever the bootstrap could estimate.
    no_interval = w.ci.reason if early_side(report.adaptive) is None else None
    if not result.debiased and truth is not None:  # one order: one reading
        return truth.sentences("The single-order result (not debiased)", no_interval)
    if naive is None or not result.debiased:
        return []
    lines = []
    if truth is not None:
        lines += truth.sentences("The debiased result", no_interval)
        # Only a naive reading that takes a side, the wrong one, and another than the
        # debiased result's: a naive result whose CI contains 0.5 points nowhere, and
        # is at most a less certain version of the debiased answer.
        if truth.naive not in (truth.truth, 0, truth.debiased):
            lines.append(
                f"Asking once, in one order, would have pointed the wrong way "
                f"({naive.estimate:.3f}): that is position bias, which the swap cancels."
            )
    elif abs(naive.estimate - w.estimate) >= 0.05:
        lines.append(
            f"Asking once, in one order, gives {naive.estimate:.3f} instead of "
            f"{w.estimate:.3f}: the gap is the judge's position bias, which the swap cancels."
        )
    return lines
