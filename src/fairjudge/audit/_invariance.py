"""The invariance experiments: the same content shown another way, judged again.

An unbiased judge judges alike what differs only in how it is shown, so each
experiment changes one thing that carries no information and measures what moves:

- **position**: the same pair in both orders, and what the swap leaves. The metrics
  come from the very calls ``compare`` makes (a later ``compare`` is free):
  first-position share, position consistency, flip rate and preference fairness, each
  with an interval (as :func:`fairjudge.stats.position_bias` defines them).
- **verbosity**: a padded answer with the same content as a concise one. Each concise
  answer gets a padded twin (:func:`fairjudge.audit._padding.pad_answer`: a
  pleasantry, the question restated, the points restated, a closing summary, to about
  ``target_words``) and a "repetitive list" twin (MT-Bench's attack: the points as a
  list, then restated as more items). Neither adds information, so an unbiased judge
  scores them alike.
- **framing**: the same answers under a standard and a strict-expert prompt. A judge
  whose absolute scores move with the wording is safe only for relative uses; there
  is no mitigation to measure.
"""

from __future__ import annotations

from collections.abc import Sequence

from fairjudge._call import Conversation
from fairjudge._items import Call, Item, Judgment
from fairjudge._types import CallError, Order, ParseFailure
from fairjudge.audit._audit_items import AuditItem
from fairjudge.audit._experiment import (
    AuditJudge,
    AuditSettings,
    Effect,
    ExperimentResult,
    Progress,
    Scored,
    judge_pairs,
    named_run,
    paired_effect,
    pairwise_failures,
    score,
)
from fairjudge.audit._padding import pad_answer, repetitive_list, word_count
from fairjudge.evaluation import PairwiseResult, judgment
from fairjudge.stats import position_bias

__all__ = [
    "CEILING",
    "FIRST",
    "framing_experiment",
    "padded_twins",
    "position_experiment",
    "score_differences",
    "verbosity_experiment",
]

FIRST = "first-position share of decisive calls"

CEILING = 0.9
"""Share of answers at the top score (or of pairs resolved by position) past which an
effect cannot show the bias it measures: it is kept, marked "not estimable"."""


# --- position --------------------------------------------------------------------------


def _positions(judgments: Sequence[Judgment]) -> tuple[list[str], list[str], list[str]]:
    """Per swapped pair: the original call's verdict, the swapped call's, the question."""
    original: list[str] = []
    swapped: list[str] = []
    clusters: list[str] = []
    for j in judgments:
        by_order = {c.order: c.reply.verdict for c in j.calls}
        o, s = by_order.get(Order.ORIGINAL), by_order.get(Order.SWAPPED)
        if o is None or s is None:
            continue
        original.append(str(o))
        swapped.append(str(s))
        clusters.append(j.item.cluster_key)
    return original, swapped, clusters


def position_experiment(
    judge: AuditJudge,
    name: str,
    pairs: Sequence[Item],
    settings: AuditSettings,
    progress: Progress | None = None,
) -> ExperimentResult:
    """Judge every pair in both orders and measure the judge's lean to a position."""
    result = judge_pairs(
        judge, pairs, settings, name=name, template=settings.template, progress=progress
    )
    original, swapped, clusters = _positions(result.judgments)
    boot = settings.boot()
    n_calls = sum(len(j.calls) for j in result.judgments)
    failed = pairwise_failures(result)
    if not original:
        return ExperimentResult(
            "position", name, (Effect.missing(FIRST, "no pair got both verdicts", null=0.5,
                                              unit="share"),),
            n_items=len(pairs), n_calls=n_calls, n_failed=failed,
        )  # fmt: skip
    bias = position_bias(original, swapped, questions=clusters, **boot)
    decisive = result.first_position_calls
    effects = [
        Effect.of(FIRST, decisive.estimate, decisive.ci, null=0.5, unit="share", n=decisive.n)
        if decisive is not None
        else Effect.missing(FIRST, "no decisive call", null=0.5, unit="share"),
        Effect.of("position consistency", bias.consistency.estimate, bias.consistency.ci,
                  null=1.0, unit="share of pairs", n=bias.n_items),
        Effect.of("flip rate", bias.flip.estimate, bias.flip.ci, null=0.0,
                  unit="share of pairs", n=bias.n_items),
        Effect.of("preference fairness", bias.preference_fairness, bias.preference_fairness_ci,
                  null=0.0, unit="-1 first .. +1 second", scale=2.0, n=bias.n_items),
    ]  # fmt: skip
    residual = _residual(result.judgments, settings)
    return ExperimentResult(
        "position", name, tuple(effects), (residual,), mitigation="the swap (debiased verdicts)",
        n_items=len(pairs), n_calls=n_calls, n_failed=failed,
        details={"pair_counts": {f"{a}/{b}": n for (a, b), n in bias.pair_counts.items()},
                 "pairs": [_pair_record(j) for j in result.judgments]},
    )  # fmt: skip


def _pair_record(j: Judgment) -> dict[str, object]:
    """One pair's verdict in each order, its debiased score and any failure, for the report.

    The per-item view of the effects above: an HTML page lists the pairs the judge
    flipped on, so a reader can see what a position share is made of.
    """
    by_order = {c.order: c.reply for c in j.calls}
    failures = [f"{c.order}: {_why(c.reply.failure)}" for c in j.calls if c.reply.failure]
    it = j.item
    return {
        "id": it.id, "category": it.category, "question": it.question_text,
        "answer_1": it.answer_1, "answer_2": it.answer_2, "model_1": it.model_1,
        "model_2": it.model_2,
        **{str(o): None if (r := by_order.get(o)) is None or r.verdict is None else str(r.verdict)
           for o in (Order.ORIGINAL, Order.SWAPPED)},
        "score": j.score, "failures": failures,
    }  # fmt: skip


def _why(failure: ParseFailure | CallError) -> str:
    if isinstance(failure, ParseFailure):
        return f"no verdict in the reply ({failure.reason})"
    return f"call failed ({failure.kind}: {failure.message})"


def _mirrored(j: Judgment) -> Judgment:
    """The same calls read for the pair given the other way round (no new call).

    The prompt that showed answer 1 first is, for the mirrored pair, the one that shows
    its answer 2 first: each call's order flips, its reply stays.
    """
    flip = {Order.ORIGINAL: Order.SWAPPED, Order.SWAPPED: Order.ORIGINAL}
    calls = tuple(Call(flip[c.order], c.sample, c.reply) for c in j.calls)
    return judgment(j.item.swapped(), calls, j.rule)


def _residual(judgments: Sequence[Judgment], settings: AuditSettings) -> Effect:
    """score(answer 1 | given first) + score(answer 1 | given second) - 1, per pair."""
    diffs: list[float] = []
    clusters: list[str] = []
    for j in judgments:
        m = _mirrored(j)
        if j.score is None or m.score is None:
            continue
        diffs.append(j.score + m.score - 1.0)
        clusters.append(j.item.cluster_key)
    return paired_effect(
        "answer 1's debiased score, given first vs given second", diffs, clusters,
        unit="win rate", scale=1.0, **settings.boot(),
    )  # fmt: skip


# --- verbosity -------------------------------------------------------------------------


def asked(question: str | Conversation) -> str:
    """What the answer answers: the question, or a conversation's last user turn.

    The padding restates it, so for a conversation it must be the turn being answered,
    not the transcript (whose first turn and role tags would leak into the answer).
    """
    if isinstance(question, str):
        return question
    return next((text for role, text in reversed(question) if role == "user"), "")


def padded_twins(
    items: Sequence[AuditItem], settings: AuditSettings
) -> tuple[list[str], list[str]]:
    """The padded and the repetitive-list version of every concise answer (seeded)."""
    padded = [
        pad_answer(asked(it.question), it.answer, seed=settings.seed,
                   target_words=settings.target_words)
        for it in items
    ]  # fmt: skip
    listy = [repetitive_list(asked(it.question), it.answer, seed=settings.seed) for it in items]
    return padded, listy


def score_differences(
    label: str,
    base: Scored,
    treated: Scored,
    clusters: Sequence[str],
    settings: AuditSettings,
    *,
    dimensions: Sequence[str] | None = None,
    censor_ceiling: bool = False,
) -> list[Effect]:
    """Per-dimension and overall paired differences treated - base (same rubric).

    Args:
        label: Names the difference, e.g. ``"padded - concise"``.
        base: Scores of the reference answers.
        treated: Scores of the changed answers (same rubric, same order).
        clusters: The question of each pair.
        settings: Bootstrap settings.
        dimensions: The dimensions compared (default all of ``base``'s rubric).
        censor_ceiling: Mark an effect "not estimable" when at least :data:`CEILING` of
            the base answers got the top score: a rise cannot show (verbosity).
    """
    dims = list(dimensions) if dimensions else base.dimensions
    keep = [
        (b, t, c) for b, t, c in zip(base.scores, treated.scores, clusters, strict=True)
        if b is not None and t is not None
    ]  # fmt: skip
    pairs = [(b, t) for b, t, _ in keep]
    where = [c for _, _, c in keep]
    unit, span = base.unit(), base.span
    overall = [sum(t[d] - b[d] for d in dims) / len(dims) for b, t in pairs]
    shown = "" if dims == base.dimensions else f" ({', '.join(dims)})"
    effects = [
        paired_effect(f"{label}, overall{shown}", overall, where, unit=unit, scale=span,
                      **settings.boot())
    ]  # fmt: skip
    for d in dims:
        diffs = [t[d] - b[d] for b, t in pairs]
        effects.append(
            paired_effect(f"{label}, {d}", diffs, where, unit=unit, scale=span, **settings.boot())
        )
    if censor_ceiling:
        top = float(base.rubric.scale[1])
        at_top = {d: sum(b[d] >= top for b, _ in pairs) / len(pairs) for d in dims} if pairs else {}
        groups = [dims, *([d] for d in dims)]  # the overall effect, then each
        for k, group in enumerate(groups):
            shares = [at_top[x] for x in group if x in at_top]
            if shares and min(shares) >= CEILING:
                effects[k] = effects[k].censored(
                    f"{min(shares):.0%} of the unchanged answers already got the top score "
                    f"({top:g}): the judge cannot score the changed ones higher, so a bias "
                    "towards them cannot show (a ceiling, not an absence of bias)"
                )
    return effects


def _win_rate(label: str, result: PairwiseResult) -> Effect:
    rate = result.win_rate
    if rate is None:
        return Effect.missing(label, "no pair resolved", null=0.5, unit="win rate")
    effect = Effect.of(label, rate.estimate, rate.ci, null=0.5, unit="win rate", n=rate.n)
    consistency = result.position_consistency
    if consistency is not None and consistency.estimate < 1 - CEILING:
        # Nearly every pair got opposite verdicts in the two orders: the swap resolves
        # them as ties by protocol, so 0.5 here says nothing about length.
        return effect.censored(
            f"position consistency {consistency.estimate:.0%}: the verdicts followed the "
            "position, so the debiased result is a tie by protocol, not a finding"
        )
    return effect


def verbosity_experiment(
    judge: AuditJudge,
    name: str,
    items: Sequence[AuditItem],
    settings: AuditSettings,
    progress: Progress | None = None,
) -> ExperimentResult:
    """Pointwise and pairwise: padded vs concise, then under the mitigations."""
    padded, listy = padded_twins(items, settings)
    questions = [it.question for it in items]
    refs = [it.reference for it in items]
    clusters = [it.cluster for it in items]
    concise = [it.answer for it in items]
    n_calls = n_failed = 0

    def scored(rubric: str, answers: list[str], which: str) -> Scored:
        nonlocal n_calls, n_failed
        with named_run(f"{which} answers (rubric {rubric})"):
            result = score(judge.pointwise(rubric), questions, answers, refs, progress)
        n_calls, n_failed = n_calls + result.n_calls, n_failed + result.n_failed
        return result

    def versus(template: str, answers: list[str], which: str) -> PairwiseResult:
        nonlocal n_calls, n_failed
        pairs = [
            Item(it.question, a, it.answer, id=it.id, reference=it.reference)
            for it, a in zip(items, answers, strict=True)
        ]
        with named_run(f"{which} vs concise (template {template})"):
            result = judge_pairs(judge, pairs, settings, name=name, template=template,
                                 progress=progress)  # fmt: skip
        n_calls += sum(len(j.calls) for j in result.judgments)
        n_failed += pairwise_failures(result)
        return result

    std = settings.rubric
    std_concise = scored(std, concise, "concise")
    effects = score_differences(
        "padded - concise", std_concise, scored(std, padded, "padded"), clusters, settings,
        censor_ceiling=True,
    )  # fmt: skip
    effects.append(_win_rate("padded beats concise", versus(settings.template, padded, "padded")))
    effects.append(
        _win_rate("repetitive list beats concise", versus(settings.template, listy, "list"))
    )
    mitigated_base = scored(settings.anti_verbose_rubric, concise, "concise")
    shared = [d for d in mitigated_base.dimensions if d in std_concise.dimensions]
    residual = score_differences(
        "padded - concise", mitigated_base,
        scored(settings.anti_verbose_rubric, padded, "padded"), clusters, settings,
        dimensions=shared or None, censor_ceiling=True,
    )  # fmt: skip
    residual.append(
        _win_rate("padded beats concise", versus(settings.concise_template, padded, "padded"))
    )
    residual.append(
        _win_rate("repetitive list beats concise", versus(settings.concise_template, listy, "list"))
    )
    example = {
        "id": items[0].id, "concise": concise[0], "padded": padded[0],
        "repetitive_list": listy[0], "concise_words": word_count(concise[0]),
        "padded_words": word_count(padded[0]),
    }  # fmt: skip
    return ExperimentResult(
        "verbosity", name, tuple(effects), tuple(residual),
        mitigation=f"rubric {settings.anti_verbose_rubric!r}; template "
        f"{settings.concise_template!r}",
        n_items=len(items), n_calls=n_calls, n_failed=n_failed, details={"example": example},
    )  # fmt: skip


# --- framing ---------------------------------------------------------------------------


def _rescaled(scored: Scored, onto: Scored) -> Scored:
    """``scored`` mapped linearly onto ``onto``'s scale (itself when the scales match)."""
    if scored.rubric.scale == onto.rubric.scale:
        return scored
    (lo, hi), (to_lo, to_hi) = scored.rubric.scale, onto.rubric.scale
    factor = (to_hi - to_lo) / (hi - lo)
    mapped = [
        None if s is None else {d: to_lo + (v - lo) * factor for d, v in s.items()}
        for s in scored.scores
    ]
    return Scored(onto.rubric, mapped, scored.n_calls, scored.n_failed)


def framing_experiment(
    judge: AuditJudge,
    name: str,
    items: Sequence[AuditItem],
    pairs: Sequence[Item],
    settings: AuditSettings,
    progress: Progress | None = None,
) -> ExperimentResult:
    """Score the same answers under two framings; judge pairs under two templates."""
    answers = [(it, it.answer) for it in items]
    answers += [(it, it.other) for it in items if it.other is not None]
    questions = [it.question for it, _ in answers]
    refs = [it.reference for it, _ in answers]
    texts = [a for _, a in answers]
    clusters = [it.cluster for it, _ in answers]
    with named_run(f"basic run (rubric {settings.rubric})"):
        standard = score(judge.pointwise(settings.rubric), questions, texts, refs, progress)
    with named_run(f"strict run (rubric {settings.strict_rubric})"):
        strict = score(judge.pointwise(settings.strict_rubric), questions, texts, refs, progress)
    n_calls = standard.n_calls + strict.n_calls
    n_failed = standard.n_failed + strict.n_failed
    shared = [d for d in standard.dimensions if d in strict.dimensions]
    if not shared:  # planned away for the built-in judges; another AuditJudge may differ
        return ExperimentResult(
            "framing", name, n_items=len(answers), n_calls=n_calls, n_failed=n_failed,
            skipped=f"rubrics {settings.rubric!r} and {settings.strict_rubric!r} share no "
            "dimension to compare",
        )  # fmt: skip
    effects = score_differences(
        f"{settings.strict_rubric} - {settings.rubric}", standard, _rescaled(strict, standard),
        clusters, settings, dimensions=shared,
    )  # fmt: skip
    if settings.framing_templates is not None:  # then there are pairs: planned so
        first, second = settings.framing_templates
        with named_run(f"pairs under template {first}"):
            a = judge_pairs(judge, pairs, settings, name=name, template=first, progress=progress)
        with named_run(f"pairs under template {second}"):
            b = judge_pairs(judge, pairs, settings, name=name, template=second, progress=progress)
        n_calls += sum(len(j.calls) for r in (a, b) for j in r.judgments)
        n_failed += pairwise_failures(a) + pairwise_failures(b)
        keep = [
            (y.score - x.score, x.item.cluster_key)
            for x, y in zip(a.judgments, b.judgments, strict=True)
            if x.score is not None and y.score is not None
        ]
        effects.append(
            paired_effect(
                f"answer 1's win rate, {second} - {first}",
                [d for d, _ in keep],
                [c for _, c in keep],
                unit="win rate",
                scale=1.0,
                **settings.boot(),
            )
        )
    return ExperimentResult(
        "framing", name, tuple(effects), n_items=len(items), n_calls=n_calls,
        n_failed=n_failed,
        details={"rubrics": [settings.rubric, settings.strict_rubric], "n_answers": len(answers),
                 "templates": list(settings.framing_templates or ())},
    )  # fmt: skip
