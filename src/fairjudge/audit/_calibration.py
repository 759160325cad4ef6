"""Calibration: how far a judge agrees with human labels, before it is trusted at scale.

Run it on 20-300 human-labelled items. It reports MT-Bench agreement (S1 with ties,
S2 without), Cohen's kappa and the confusion matrix for labels; Spearman and Kendall
with CIs for scores; system-level rank correlation when the items name their
systems; and the judge's position-bias figures. A figure the data cannot support is
left out with the reason, never printed as ``nan``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from fairjudge._errors import ConfigError, InputError, worded
from fairjudge._items import Item, Judgment
from fairjudge._types import Order
from fairjudge.evaluation import PairwiseResult

if TYPE_CHECKING:
    from fairjudge.stats import ConfidenceInterval

__all__ = [
    "MIN_GATE_ITEMS",
    "MIN_KAPPA",
    "MIN_SPEARMAN",
    "CalibrationGate",
    "GateCheck",
    "calibration_report",
    "check_labels",
]

MIN_KAPPA = 0.4
"""The default kappa threshold: the bottom of "moderate" agreement (Landis and Koch 1977)."""
MIN_SPEARMAN = 0.7
"""The default Spearman threshold: the usual bar for trusting a judge prompt."""
MIN_GATE_ITEMS = 3
"""Fewest resolved items with a label for its check to be evaluated."""

GateOutcome = Literal["passed", "failed", "not_applied"]


@dataclass(frozen=True, slots=True)
class GateCheck:
    """One check of the gate: a statistic against its threshold, or why it was not applied.

    Attributes:
        statistic: ``"Cohen's kappa"`` or ``"Spearman"``.
        label: The human label it needs: ``"human"`` or ``"human_score"``.
        threshold: The check passes at ``estimate >= threshold``.
        estimate: The statistic; ``None`` when the check was not applied.
        ci: Its interval (possibly not estimable); ``None`` when not applied.
        reason: Why the check was not applied; ``None`` when it was.
    """

    statistic: str
    label: str
    threshold: float
    estimate: float | None = None
    ci: ConfidenceInterval | None = None
    reason: str | None = None

    @property
    def passed(self) -> bool | None:
        """Whether the point estimate clears the threshold; ``None`` when not applied."""
        return None if self.estimate is None else self.estimate >= self.threshold

    @property
    def passed_at_lower_bound(self) -> bool | None:
        """Whether the interval's lower end clears it too (``None``: no interval, or no check)."""
        if self.ci is None or not self.ci.estimable:
            return None
        return self.ci.low >= self.threshold

    def line(self) -> str:
        """The check's verdict in one line."""
        if self.estimate is None:
            return f"NOT APPLIED  {self.statistic} >= {self.threshold:.2f}: {self.reason}"
        if self.ci is None or not self.ci.estimable:
            note = "no interval to compare it with"
        elif self.passed:
            clears = "clears it too" if self.ci.low >= self.threshold else "does not clear it"
            note = f"the interval's lower end, {self.ci.low:.3f}, {clears}"
        else:
            below = "is below it too" if self.ci.high < self.threshold else "reaches it"
            note = f"the interval's upper end {below}"
        return (
            f"{'PASS' if self.passed else 'FAIL'}  {self.statistic} {self.estimate:.3f} "
            f"{self.ci_text()}vs threshold {self.threshold:.2f} ({note})"
        )

    def ci_text(self) -> str:
        """The interval, with a trailing space, or nothing when there is none."""
        if self.ci is None or not self.ci.estimable:
            return ""
        return f"[{self.ci.low:.3f}, {self.ci.high:.3f}] "

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "statistic": self.statistic,
            "label": self.label,
            "threshold": self.threshold,
            "estimate": self.estimate,
            "ci": None if self.ci is None else self.ci.to_dict(),
            "applied": self.estimate is not None,
            "passed": self.passed,
            "passed_at_lower_bound": self.passed_at_lower_bound,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class CalibrationGate:
    """The calibration gate: one check per kind of human label in the input.

    Attributes:
        checks: The kappa check (``human`` labels) and the Spearman check
            (``human_score``), each present when some item carries that label.
    """

    checks: tuple[GateCheck, ...]

    @property
    def outcome(self) -> GateOutcome:
        """``failed`` when a check fails, else ``passed`` when one passed, else ``not_applied``."""
        verdicts = [c.passed for c in self.checks]
        if False in verdicts:
            return "failed"
        return "passed" if True in verdicts else "not_applied"

    @property
    def failed(self) -> list[GateCheck]:
        """The checks that failed."""
        return [c for c in self.checks if c.passed is False]

    def verdict(self) -> str:
        """The gate's outcome in one sentence."""
        applied = [c for c in self.checks if c.estimate is not None]
        if self.outcome == "not_applied":
            why = "; ".join(f"{c.statistic}: {c.reason}" for c in self.checks)
            return f"No gate applied: {why or 'no human labels'}."
        shown = self.failed if self.outcome == "failed" else applied
        figures = "; ".join(
            f"{c.statistic} {c.estimate:.3f} against the threshold {c.threshold:.2f}" for c in shown
        )
        word = "fails" if self.outcome == "failed" else "passes"
        return f"The judge {word} the gate: {figures}."

    def summary(self) -> str:
        """Every check's verdict, under the gate's outcome."""
        head = {
            "passed": "Gate: PASS (every check that could be evaluated passes)",
            "failed": "Gate: FAIL",
            "not_applied": "Gate: NOT APPLIED (no check could be evaluated: not a pass)",
        }[self.outcome]
        return "\n".join([head, *(f"  {c.line()}" for c in self.checks)])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "outcome": self.outcome,
            "passed": {"passed": True, "failed": False, "not_applied": None}[self.outcome],
            "checks": [c.to_dict() for c in self.checks],
        }


def check_threshold(name: str, value: float) -> float:
    """A gate threshold: a number in [-1, 1].

    Raises:
        ConfigError: Anything else, naming the parameter ``name``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1.0 <= value <= 1.0:
        raise ConfigError(f"{name} must be a number in [-1, 1]; got {value!r}", params=name)
    return float(value)


def _kappa_check(report: dict[str, Any], humans: Sequence[str], min_kappa: float) -> GateCheck:
    """The kappa check on the resolved items' ``human`` labels, or why it says nothing."""
    check = GateCheck("Cohen's kappa", "human", min_kappa)
    if len(humans) < MIN_GATE_ITEMS:
        reason = (
            f"needs {MIN_GATE_ITEMS} or more resolved items with a 'human' label (1/2/tie); "
            f"have {len(humans)}"
        )
        return GateCheck(check.statistic, check.label, min_kappa, reason=reason)
    agreement = report["agreement"]
    if math.isnan(agreement.kappa):
        reason = (
            "undefined: the judge and the humans gave every item the same label, so "
            "chance agreement is 1 and agreement says nothing"
        )
        return GateCheck(check.statistic, check.label, min_kappa, reason=reason)
    if len(set(humans)) == 1:
        # Chance agreement is then the judge's share of that label, which is also its
        # agreement: kappa is 0 for every judge that ever differs, a judge of any quality.
        reason = (
            f"uninformative: every resolved item's human label is {humans[0]!r}, so kappa "
            "is 0 for any judge that gives another label even once; labels of one value "
            "say nothing about the judge (label items where the other answer, or neither, "
            "is better)"
        )
        return GateCheck(check.statistic, check.label, min_kappa, reason=reason)
    return GateCheck(
        check.statistic, check.label, min_kappa, float(agreement.kappa), agreement.kappa_ci
    )


def _spearman_check(report: dict[str, Any], min_spearman: float) -> GateCheck:
    correlation = report.get("correlation")
    if correlation is None:
        return GateCheck(
            "Spearman", "human_score", min_spearman, reason=report["skipped"]["correlation"]
        )
    return GateCheck(
        "Spearman", "human_score", min_spearman, correlation.spearman, correlation.spearman_ci
    )


def check_labels(items: list[Item], *, human: str = "human") -> None:
    """Refuse items without a human label, naming the label column that was read.

    Args:
        items: The loaded items.
        human: The column the ``human`` labels were read from (``columns`` renames it),
            so that the message names the column the user asked for.
    """
    unlabelled = [it.id for it in items if it.human is None and it.human_score is None]
    if unlabelled:
        named = "" if human == "human" else ", the column columns.human names"
        # Some labelled, some not: a label-merge's unsettled disagreements, most often.
        settle = (
            "; label them with fairjudge label FILE, which opens at the first unlabelled item"
            if len(unlabelled) < len(items)
            else ""
        )
        raise InputError(
            f"{len(unlabelled)} item(s) have neither {human!r} (1/2/tie{named}) nor "
            f"'human_score' (first: id {unlabelled[0]!r}); calibration needs a human "
            f"label on every item{settle}",
            params="columns.human" if named else (),
        )
    unsettled = [it.id for it in items if it.human is None]
    if unsettled and len(unsettled) < len(items):
        # Agreement on the labelled items alone would leave out exactly these (a
        # label-merge's disagreements, the hard items), and read higher than it is.
        raise InputError(
            f"{len(unsettled)} of {len(items)} item(s) have no {human!r} label (first: id "
            f"{unsettled[0]!r}) while the others have one; agreement on the labelled "
            "items alone would leave them out. Label them (fairjudge label FILE), or "
            f"drop the {human!r} column to calibrate on 'human_score' alone",
            params="columns.human" if human != "human" else (),
        )


def calibration_report(
    result: PairwiseResult, *, min_spearman: float = MIN_SPEARMAN, min_kappa: float = MIN_KAPPA
) -> dict[str, Any]:
    """Agreement, correlation, system-level and position-bias figures for one run, and the gate.

    The bootstrap seed, level and resample count are the result's own settings.
    Keys: ``n_items``, ``n_resolved``, ``n_unresolved``, ``rounds``, each figure
    that the data allows (``agreement``, ``system``, ``correlation``,
    ``position_bias``), ``gate`` (a :class:`CalibrationGate`: Cohen's kappa >=
    ``min_kappa`` for ``human`` labels, Spearman >= ``min_spearman`` for
    ``human_score``); ``skipped`` maps each figure left out to the reason.

    Raises:
        ConfigError: A threshold outside [-1, 1].
    """
    min_kappa = check_threshold("min_kappa", min_kappa)
    min_spearman = check_threshold("min_spearman", min_spearman)
    from fairjudge.stats import (  # scipy: load only when used
        judge_agreement,
        position_bias,
        score_correlation,
        system_agreement,
    )

    done = [j for j in result.judgments if j.outcome is not None]
    skipped: dict[str, str] = {}
    report: dict[str, Any] = {
        "n_items": result.n_items,
        "n_resolved": len(done),
        "n_unresolved": result.n_unresolved,
        "rounds": result.settings.rounds,
        "skipped": skipped,
    }
    s = result.settings
    boot: dict[str, Any] = {"seed": s.seed, "n_resamples": s.n_resamples, "level": s.level}
    labelled = [j for j in done if j.item.human is not None]
    if labelled:
        agreement = judge_agreement(
            [j.outcome.value for j in labelled if j.outcome is not None],
            [j.item.human.value for j in labelled if j.item.human is not None],
            questions=[j.item.cluster_key for j in labelled],
            **boot,
        )
        report["agreement"] = agreement
        systems = [j for j in labelled if j.item.model_1 and j.item.model_2]
        names = {m for j in systems for m in (j.item.model_1, j.item.model_2)}
        if len(names) >= 3:
            try:
                report["system"] = system_agreement(
                    [j.item.model_1 or "" for j in systems],
                    [j.item.model_2 or "" for j in systems],
                    [j.outcome.value for j in systems if j.outcome is not None],
                    [j.item.human.value for j in systems if j.item.human is not None],
                    questions=[j.item.cluster_key for j in systems],
                    l2=0.1,
                    **boot,
                )
            except InputError as exc:
                skipped["system"] = str(exc)
        else:
            skipped["system"] = (
                f"needs items naming at least 3 systems (model_1/model_2); found {len(names)}"
            )
    else:
        skipped["agreement"] = "no resolved item has a 'human' label (1/2/tie)"
    checks = []
    if any(j.item.human is not None for j in result.judgments):
        humans = [j.item.human.value for j in labelled if j.item.human is not None]
        checks.append(_kappa_check(report, humans, min_kappa))
    scored = [j for j in done if j.item.human_score is not None and j.score is not None]
    judge_scores = {j.score for j in scored}
    human_scores = {j.item.human_score for j in scored}
    if len(scored) < 3:
        skipped["correlation"] = f"needs 3 or more items with 'human_score'; have {len(scored)}"
    elif len(judge_scores) < 2 or len(human_scores) < 2:
        constant = "the judge's" if len(judge_scores) < 2 else "the human"
        skipped["correlation"] = (
            f"{constant} scores never vary ({len(scored)} items), so no rank correlation "
            "can be estimated; the gate is not applied"
        )
    else:
        report["correlation"] = score_correlation(
            [j.score for j in scored if j.score is not None],
            [j.item.human_score for j in scored if j.item.human_score is not None],
            min_spearman=min_spearman,
            questions=[j.item.cluster_key for j in scored],
            **boot,
        )
    if any(j.item.human_score is not None for j in result.judgments):
        checks.append(_spearman_check(report, min_spearman))
    report["gate"] = CalibrationGate(tuple(checks))
    two_orders = [j for j in done if j.both_orders]
    if not two_orders:
        skipped["position_bias"] = worded("no item was judged in both orders (rounds=1)", "rounds")
    else:
        report["position_bias"] = position_bias(
            [_verdicts(j, Order.ORIGINAL) for j in two_orders],
            [_verdicts(j, Order.SWAPPED) for j in two_orders],
            questions=[j.item.cluster_key for j in two_orders],
            **boot,
        )
    return report


def _verdicts(j: Judgment, order: Order) -> list[str]:
    """The verdicts of ``j``'s calls in ``order`` (every sample's), failures left out."""
    return [c.reply.verdict.value for c in j.calls
            if c.order is order and c.reply.verdict is not None]  # fmt: skip
