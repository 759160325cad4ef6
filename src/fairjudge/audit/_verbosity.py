"""Verbosity bias: a padded answer with the same content as a concise one.

Each concise answer gets a padded twin (:func:`fairjudge.audit._padding.pad_answer`:
a pleasantry, the question restated, the points restated, a closing summary, to
about ``target_words``) and a "repetitive list" twin (MT-Bench's attack: the points
as a list, then restated as more items). Neither adds information, so an unbiased
judge scores them alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from fairjudge._call import Conversation
from fairjudge._items import Item
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
from fairjudge.evaluation import PairwiseResult

__all__ = ["CEILING", "padded_twins", "score_differences", "verbosity_experiment"]

CEILING = 0.9
"""Share of answers at the top score (or of pairs resolved by position) past which an
effect cannot show the bias it measures: it is kept, marked "not estimable"."""


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
