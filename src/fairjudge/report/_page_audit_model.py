"""The audit page's view model: plain values read off an :class:`~fairjudge.audit.AuditReport`.

Nothing here computes a statistic: every estimate, interval and verdict is the
report's own (the ``--json`` reads the same objects), so the page cannot disagree
with the terminal card. What this module adds is how to *show* them: each effect's
figure and the rule behind its verdict, the padded example's marked changes, and the
position experiment's swapped pairs with the verdict in each order, as the records
of the page's explorer (:func:`pair_explorer`). For the built-in suite, answer 1 is
the correct answer, so the explorer's "answer 2 won" lists the judge's mistakes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import fairjudge.report._page as kit
from fairjudge.report._text import ci_text

if TYPE_CHECKING:
    from fairjudge.audit import AuditReport, Effect, ExperimentResult

__all__ = [
    "EXPERIMENT_PROMPTS",
    "FLAGS",
    "SEVERITY",
    "EffectView",
    "PairView",
    "effect_view",
    "headline_effect",
    "marked_parts",
    "pair_explorer",
    "pair_record",
    "pair_views",
    "prompts_used",
    "verdict_sentence",
]

SEVERITY = ("negligible", "not estimable", "uncertain", "notable", "severe")
"""Verdicts from least to most alarming, as the audit ranks an experiment's effects."""

_NOTABLE, _SEVERE = 0.05, 0.15  # the audit's THRESHOLDS, read by rule_text's sentences

EXPERIMENT_PROMPTS = {
    "position": (("template",), ()),
    "verbosity": (("template", "concise_template"), ("rubric", "anti_verbose_rubric")),
    "framing": (("framing_templates",), ("rubric", "strict_rubric")),
    "self-preference": ((), ("rubric",)),
}
"""Each experiment an audit lists, run or skipped (the audit's order), and the settings
it reads: its pairwise templates, its rubrics."""


def prompts_used(report: AuditReport) -> str:
    """The pairwise templates and rubrics that the experiments that ran read, for run facts."""
    ran = {e.bias for e in report.experiments if e.skipped is None}
    found: tuple[list[str], list[str]] = ([], [])
    for bias, names in EXPERIMENT_PROMPTS.items():
        for kept, settings in zip(found, names if bias in ran else ((), ()), strict=True):
            for name in settings:
                value = getattr(report.settings, name) or ()
                for prompt in (value,) if isinstance(value, str) else value:
                    kept.extend([] if prompt in kept else [prompt])
    templates, rubrics = found
    said = [f"{', '.join(templates)} (pairwise)"] if templates else []
    said += [f"rubrics {', '.join(rubrics)}"] if rubrics else []
    return "; ".join(said) or "none: no experiment ran"


@dataclass(frozen=True, slots=True)
class EffectView:
    """One effect as the page shows it.

    Attributes:
        name: What was measured (``after mitigation:`` first for a residual).
        verdict: The audit's verdict.
        estimate: The estimate as printed, or ``""`` when it is not shown.
        interval: The interval as printed, or ``""``.
        reason: Why there is no number (no interval, or the censoring note).
        null: The no-bias value as printed; ``unit`` how the estimate reads; ``n`` items.
        distance: The signed distance from no bias as a share of the scale, with
            ``distance_low`` and ``distance_high`` its interval; ``None`` when not shown.
        rule: Why the verdict is what it is, with the effect's own numbers.
    """

    name: str
    verdict: str
    estimate: str
    interval: str
    reason: str | None
    null: str
    unit: str
    n: int
    distance: float | None
    distance_low: float | None
    distance_high: float | None
    rule: str


def _shown(effect: Effect) -> bool:
    """Whether the effect has a number to show (estimable, and not censored)."""
    return (
        effect.verdict != "not estimable"
        and effect.estimate is not None
        and math.isfinite(effect.estimate)
        and effect.ci.estimable
    )


def _number(value: float, null: float) -> str:
    """As the terminal card prints it: signed around a zero null, plain otherwise."""
    return f"{value:+.3f}" if null == 0.0 else f"{value:.3f}"


def effect_view(effect: Effect, *, residual: bool = False) -> EffectView:
    """An effect as the page shows it (see :class:`EffectView`)."""
    name = f"after mitigation: {effect.name}" if residual else effect.name

    def view(
        estimate: str, interval: str, reason: str | None, at: tuple[float | None, ...]
    ) -> EffectView:
        null = f"{effect.null:g}"
        return EffectView(name, effect.verdict, estimate, interval, reason, null, effect.unit,
                          effect.n, at[0], at[1], at[2], rule_text(effect))  # fmt: skip

    if not _shown(effect):
        return view("", "", effect.note or effect.ci.reason or "no estimate", (None, None, None))
    estimate = float(effect.estimate or 0.0)  # _shown: a finite number

    def share(value: float) -> float:
        return (value - effect.null) / effect.scale

    at = (share(estimate), share(effect.ci.low), share(effect.ci.high))
    return view(_number(estimate, effect.null), ci_text(effect.ci), None, at)


def rule_text(effect: Effect) -> str:
    """Why ``effect`` got its verdict: the documented rule, with the effect's numbers."""
    verdict, null, scale = effect.verdict, effect.null, effect.scale
    if verdict == "not estimable":
        why = effect.note or effect.ci.reason or "no estimate"
        return f"not estimable: {why}. No verdict is drawn from it."
    estimate = float(effect.estimate or 0.0)
    distance = abs(estimate - null) / scale
    level = f"{effect.ci.level:.0%}"
    where = (
        f"{_number(estimate, null)} is {distance:.3f} of the scale ({scale:g}) from no bias "
        f"({null:g}); its {level} interval is {ci_text(effect.ci)}"
    )
    if effect.ci.cannot_vary:  # alike on every question: the point rules nothing out
        return (
            f"uncertain: {where}; every question gave the same value, so the bootstrap could "
            "not vary: the point is no measured certainty, and no verdict is read from it."
        )
    band = _NOTABLE * scale
    if verdict == "negligible":
        return (f"negligible: {where}, which lies wholly within {_NOTABLE} of the scale of no "
                f"bias ({null - band:g} to {null + band:g}).")  # fmt: skip
    if verdict == "notable":
        return (f"notable: {where}; the distance is from {_NOTABLE} to under {_SEVERE}, and the "
                "interval excludes no bias.")  # fmt: skip
    if verdict == "severe":
        return (f"severe: {where}; the distance is {_SEVERE} or more, and the interval excludes "
                "no bias.")  # fmt: skip
    if null in effect.ci:
        return (
            f"uncertain: {where}, which covers no bias: the data cannot tell the effect from none."
        )
    return (f"uncertain: {where}; the estimate is small, but the interval reaches beyond "
            f"{_NOTABLE} of the scale from no bias: a notable effect is not excluded.")  # fmt: skip


RULES = (
    "Each verdict reads the distance from no bias as a share of the scale (1 for rates and "
    "shares, max - min for rubric scores, 2 for preference fairness).",
    f"negligible: under {_NOTABLE}, and the whole interval within {_NOTABLE} of no bias.",
    f"notable: from {_NOTABLE} to under {_SEVERE}, and the interval excludes no bias.",
    f"severe: {_SEVERE} or more, and the interval excludes no bias.",
    "uncertain: otherwise: the interval covers no bias, or reaches a notable effect around a "
    "small estimate.",
    "not estimable: no estimate or no interval (too few items or questions), or an estimate "
    "that cannot show the bias (a judge already at the top of the scale); its reason is shown.",
)
"""The documented verdict table (:mod:`fairjudge.audit._experiment`), in the page's words."""


def headline_effect(report: AuditReport) -> tuple[ExperimentResult, Effect] | None:
    """The most alarming effect of the experiments that ran (first of the worst), if any."""
    found = [(exp, e) for exp in report.experiments if exp.skipped is None for e in exp.effects]
    if not found:
        return None
    return max(found, key=lambda pair: SEVERITY.index(pair[1].verdict))  # max keeps the first


def verdict_sentence(report: AuditReport) -> str:
    """The audit's conclusion in one sentence: its worst effect, or that none is notable."""
    worst = headline_effect(report)
    effects = [e for exp in report.experiments if exp.skipped is None for e in exp.effects]
    if worst is None:
        return "Nothing was measured: every experiment was skipped (the reasons are below)."
    exp, effect = worst
    if effect.verdict in ("severe", "notable"):
        others = sum(e.verdict in ("severe", "notable") for e in effects) - 1
        more = f"; {others} more notable or severe effect(s) below" if others else ""
        return (f"{effect.verdict.capitalize()} {exp.bias} bias ({exp.judge}): {effect.name} "
                f"{_number(float(effect.estimate or 0.0), effect.null)} {ci_text(effect.ci)}, "
                f"no bias is {effect.null:g}{more}.")  # fmt: skip
    counts = {v: sum(e.verdict == v for e in effects) for v in SEVERITY}
    if effect.verdict == "uncertain":
        alike = sum(e.verdict == "uncertain" and e.ci.cannot_vary for e in effects)
        why = [] if alike == counts["uncertain"] else ["their intervals cannot tell them from none"]
        if alike:  # their points rule nothing out: said, not left to read as "from none"
            why.append(
                f"{alike} of them all alike (every question gave the same value, so the "
                "bootstrap could not vary and no verdict is read from them)"
            )
        return (
            f"No notable or severe bias shown, but {counts['uncertain']} of {len(effects)} "
            f"effects are uncertain: {'; '.join(why)}."
        )
    if effect.verdict == "not estimable":
        return (f"No notable or severe bias shown; {counts['not estimable']} of {len(effects)} "
                "effects could not be estimated (the reasons are below).")  # fmt: skip
    return f"Every measured effect is negligible ({len(effects)} effects)."


_PIECE = re.compile(r"[^\n.!?]*(?:[.!?]+[\"'”’)\]]*|\n|$)")
_NUMBERING = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*")
_BREAKS = re.compile(r"(\s*\n\s*)")


def marked_parts(original: str, changed: str) -> tuple[tuple[str, bool], ...]:
    """``changed`` cut into parts, each marked True where it is not ``original``'s text.

    The padding keeps the concise answer verbatim and in one piece, so its first
    occurrence is left unmarked and everything around it (the pleasantry, the restated
    question and points, the closing summary) is marked. A text that does not hold the
    original whole (the repetitive list) is read sentence by sentence: a sentence of the
    original, the first time it appears, is unmarked; every other sentence is added.
    """
    at = changed.find(original) if original else -1
    if at >= 0:
        parts = [(changed[:at], True), (original, False), (changed[at + len(original) :], True)]
    else:
        own = {_NUMBERING.sub("", p).strip() for p in _PIECE.findall(original)} - {""}
        parts = []
        for piece in _PIECE.findall(changed):
            core = _NUMBERING.sub("", piece).strip()
            parts.append((piece, bool(core) and core not in own))
            own.discard(core)
    return _merged(parts)


def _merged(parts: Sequence[tuple[str, bool]]) -> tuple[tuple[str, bool], ...]:
    """The parts, line breaks unmarked (a mark spans text, not blank lines), neighbours joined."""
    out: list[tuple[str, bool]] = []
    for text, added in parts:
        for k, bit in enumerate(_BREAKS.split(text)):
            mark = added and k % 2 == 0  # odd pieces are the breaks themselves
            if not bit:
                continue
            if out and out[-1][1] == mark:
                out[-1] = (out[-1][0] + bit, mark)
            else:
                out.append((bit, mark))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PairView:
    """One swapped pair of the position experiment, as the explorer shows it.

    Attributes:
        judge: The judge that gave the verdicts.
        index: The pair's place in the experiment (keys a record whose id is missing).
        record: The experiment's own record (``details["pairs"]``): id, category,
            question, both answers, the verdict in each order, score, failures.
        first: Which answer the judge picked with answer 1 shown first (``answer 1``,
            ``answer 2``, ``tie``, or ``no verdict``); ``second`` with answer 2 first.
        outcome: The debiased result: the answer that won, ``tie``, or ``no verdict``.
        followed_position: Both calls picked the answer in the same position.
    """

    judge: str
    index: int
    record: Mapping[str, Any]
    first: str
    second: str
    outcome: str
    followed_position: bool


_BY_ORDER = {  # (order, position verdict) -> the answer it picked
    ("original", "A"): "answer 1", ("original", "B"): "answer 2",
    ("swapped", "A"): "answer 2", ("swapped", "B"): "answer 1",
}  # fmt: skip


def _picked(order: str, verdict: object) -> str:
    if verdict is None:
        return "no verdict"
    return "tie" if verdict == "tie" else _BY_ORDER.get((order, str(verdict)), str(verdict))


def _outcome(score: object) -> str:
    if not isinstance(score, int | float) or isinstance(score, bool):
        return "no verdict"
    return "answer 1" if score > 0.5 else "answer 2" if score < 0.5 else "tie"


def pair_views(report: AuditReport) -> list[PairView]:
    """Every position pair of every judge, in the experiments' order."""
    views: list[PairView] = []
    for exp in report.experiments:
        pairs = exp.details.get("pairs") if exp.bias == "position" else None
        if exp.skipped is not None or not isinstance(pairs, Sequence):
            continue
        for index, rec in enumerate(p for p in pairs if isinstance(p, Mapping)):
            o, s = rec.get("original"), rec.get("swapped")
            views.append(PairView(
                exp.judge, index, rec, _picked("original", o), _picked("swapped", s),
                _outcome(rec.get("score")), o is not None and o == s and o != "tie",
            ))  # fmt: skip
    return views


FLAGS = (
    ("followed", "verdict followed the position"),
    ("first", "first answer shown won twice"),
    ("answer2", "answer 2 won"),
    ("failed", "a call failed"),
)
"""The explorer's filters: (key, label)."""

_TITLE_CHARS = 110


def _text(value: object) -> str:
    return "" if value is None else str(value)


def pair_record(view: PairView, key: str) -> dict[str, Any]:
    """One explorer record (the kit's form: key, title, search text, flags, facets, details)."""
    rec = view.record
    question = _text(rec.get("question"))
    ident = _text(rec.get("id")) or f"pair {view.index + 1}"
    won = f"{view.outcome} won" if view.outcome.startswith("answer") else view.outcome
    title = f"{ident} · {won} · {question}"
    failures = [str(f) for f in rec.get("failures") or () if f]
    score = rec.get("score")
    verdicts = [
        ["judge", view.judge],
        ["answer 1 shown first: picked", view.first],
        ["answer 2 shown first: picked", view.second],
        ["debiased result", view.outcome],
        ["score of answer 1", "no score" if score is None else f"{score:g}"],
        *(["failure", f] for f in failures),
    ]
    answers = []
    for n in ("1", "2"):
        model = _text(rec.get(f"model_{n}"))
        heading = f"answer {n}" + (f" ({model})" if model else "")
        answers.append({"h": heading, "rows": [["text", _text(rec.get(f"answer_{n}"))]]})
    flags = {
        "followed": view.followed_position,
        "first": view.followed_position and rec.get("original") == "A",
        "answer2": view.outcome == "answer 2",
        "failed": bool(failures),
    }
    # The search reads the title and every detail (id, category, question, answers,
    # judge, failures) already; only the models, in the answers' headings, are not.
    parts = (rec.get("model_1"), rec.get("model_2"))
    return {
        "k": key,
        "t": title if len(title) <= _TITLE_CHARS else title[: _TITLE_CHARS - 1] + "…",
        "s": " ".join(_text(p) for p in parts if p),
        "f": {k: True for k, on in flags.items() if on},
        "v": {
            "category": _text(rec.get("category")) or "(none)",
            "outcome": view.outcome,
            "judge": view.judge,
        },
        "d": [
            {"h": "verdicts", "rows": verdicts},
            {
                "h": "question",
                "rows": [
                    ["id", ident],
                    ["category", _text(rec.get("category"))],
                    ["question", question],
                ],
            },
            *answers,
        ],
    }


def _keys(views: Sequence[PairView]) -> list[str]:
    """Each pair's permalink key: its id (judge first when several judged), or its place."""
    judges = {v.judge for v in views}

    def own(v: PairView) -> str:
        ident = _text(v.record.get("id")) or f"pair-{v.index + 1}"
        return f"{v.judge}/{ident}" if len(judges) > 1 else ident

    keys = [own(v) for v in views]
    if len(set(keys)) < len(keys):  # ids repeat: places are unique
        keys = [f"{v.judge}/{v.index + 1}" if len(judges) > 1 else str(v.index + 1) for v in views]
    return keys


def pair_explorer(views: Sequence[PairView]) -> kit.Explorer | None:
    """The explorer over every position pair; ``None`` when no pair was recorded."""
    if not views:
        return None
    records = [pair_record(v, k) for v, k in zip(views, _keys(views), strict=True)]
    facets = [{"key": "category", "label": "category"}, {"key": "outcome", "label": "result"}]
    if len({v.judge for v in views}) > 1:
        facets.append({"key": "judge", "label": "judge"})
    spec: Mapping[str, Sequence[Mapping[str, str]]] = {
        "flags": [{"key": k, "label": label} for k, label in FLAGS],
        "facets": facets,
    }
    return kit.Explorer(spec, records, noun="pairs")
