"""fairjudge in Inspect AI: debiased pairwise and rubric scorers, and Inspect models as judges.

Needs the ``inspect`` extra (``pip install 'fairjudge[inspect]'``). In a task::

    from inspect_ai import Task, task
    from inspect_ai.solver import generate
    from fairjudge.integrations.inspect import pairwise_scorer

    @task
    def against_baseline():
        return Task(dataset=..., solver=generate(), scorer=pairwise_scorer())

then ``inspect eval task.py --model openai/gpt-4o-mini --model-role
grader=anthropic/claude-sonnet-4-5``. :func:`pairwise_scorer` compares each output with
its target (the baseline answer) in both orders, with fairjudge's own planner, templates,
verdict parser and resolution rule; its metrics are :func:`win_rate` (with a bootstrap
interval) and :func:`position_consistency`. :func:`rubric_scorer` scores one output on a
fairjudge rubric. A reply the parser cannot read leaves the sample unscored, never a tie
or a zero. :class:`InspectBackend` is the judge both scorers call: any fairjudge judge
can run on an Inspect model through it, and inside ``inspect eval`` each judge call is
an Inspect model call (in the transcript, under Inspect's retries and cache). One
module: the scorers are thin over the backend, and the entry point
(``[project.entry-points.inspect_ai]``) names this module. See ``docs/inspect.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from fairjudge._errors import MissingExtraError

try:
    import inspect_ai as _inspect_ai  # noqa: F401  (is the extra installed?)
except ImportError as exc:  # pragma: no cover - the extra is in the dev install
    raise MissingExtraError("fairjudge.integrations.inspect", "inspect", "inspect_ai") from exc

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState
from pydantic import ValidationError

from fairjudge._call import ROLES, CallSpec, Completion, Conversation, Message
from fairjudge._errors import ConfigError, RequestRejected
from fairjudge._items import Call
from fairjudge._protocol import plan_orders, resolve
from fairjudge._redact import redact
from fairjudge._types import Order, Outcome, ParseFailure, Reply, Resolution, ScoreReading
from fairjudge.judges import read_verdict
from fairjudge.prompts import (
    PairwiseTemplate,
    Rubric,
    ScoreContext,
    get_rubric,
    get_template,
    read_scores,
)
from fairjudge.stats import bootstrap_mean

__all__ = [
    "InspectBackend",
    "pairwise_scorer",
    "position_consistency",
    "rubric_scorer",
    "win_rate",
]

BACKEND_NAME = "inspect"
"""The backend kind in every :class:`~fairjudge._call.CallSpec` this backend answers."""


def judge_model(model: str | Model | None, role: str | None) -> Model:
    """The Inspect model that judges, by Inspect's precedence for graders.

    An explicit ``model`` wins; otherwise the model bound to ``role`` (``eval(...,
    model_roles={"grader": ...})`` or ``inspect eval --model-role grader=...``); otherwise
    the model being evaluated. This is the order Inspect's own model-graded scorers
    follow, so a fairjudge scorer drops into a task where they were.
    """
    if isinstance(model, Model):
        return model
    if model is not None:
        return get_model(model)
    return get_model(role=role) if role is not None else get_model()


def generate_config(params: Mapping[str, Any]) -> GenerateConfig:
    """Generation settings as Inspect takes them.

    Raises:
        ConfigError: A field ``GenerateConfig`` does not have, or a value it refuses.
    """
    try:
        return GenerateConfig(**params)
    except (ValidationError, TypeError) as exc:
        raise ConfigError(
            f"params: Inspect's GenerateConfig refused {sorted(params)}: {exc}",
            params="params",
        ) from exc


def _message(message: Message) -> ChatMessage:
    role, content = message
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content)
    return ChatMessageUser(content=content)


def _top_logprobs(output: ModelOutput) -> dict[str, float] | None:
    """The first generated token's alternatives, as fairjudge's verdict reader takes them."""
    if not output.choices or output.choices[0].logprobs is None:
        return None
    content = output.choices[0].logprobs.content
    if not content or not content[0].top_logprobs:
        return None
    return {top.token: top.logprob for top in content[0].top_logprobs}


def completion_of(output: ModelOutput) -> Completion:
    """An Inspect model output as a fairjudge :class:`~fairjudge._call.Completion`.

    Inspect counts cached and cache-written prompt tokens apart from ``input_tokens``;
    fairjudge's ``input_tokens`` is the whole prompt, so they are added back in.
    """
    usage = output.usage
    if usage is None:
        return Completion(
            text=output.completion, top_logprobs=_top_logprobs(output),
            latency_s=output.time or 0.0, model=output.model or None,
        )  # fmt: skip
    read = usage.input_tokens_cache_read or 0
    written = usage.input_tokens_cache_write or 0
    return Completion(
        text=output.completion,
        top_logprobs=_top_logprobs(output),
        input_tokens=usage.input_tokens + read + written,
        output_tokens=usage.output_tokens,
        latency_s=output.time or 0.0,
        model=output.model or None,
        reasoning_tokens=usage.reasoning_tokens,
        cached_input_tokens=usage.input_tokens_cache_read,
        cache_write_tokens=usage.input_tokens_cache_write,
    )


class InspectBackend:
    """A fairjudge :class:`~fairjudge._call.Backend` that asks an Inspect model.

    Args:
        model: An Inspect model, or its name (``"openai/gpt-4o-mini"``,
            ``"mockllm/model"``); ``None`` takes the model bound to ``role``, or the
            model being evaluated (see :func:`judge_model`).
        role: The Inspect model role to look up when ``model`` is ``None``.
        params: Generation settings for every call, as Inspect's ``GenerateConfig``
            fields (``temperature``, ``max_tokens``, ``logprobs``, ...); part of
            each call's cache key. Left empty, the model's own configuration decides.

    Raises:
        ConfigError: ``params`` holds a field ``GenerateConfig`` does not have, or a
            value it refuses.

    Outside ``inspect eval`` it is a judge backend like any other: fairjudge's store is
    its cache and audit log, and its calls run on the judge session's event loop thread.

    Example:
        >>> from fairjudge.judges import LLMJudge  # doctest: +SKIP
        >>> judge = LLMJudge(InspectBackend("anthropic/claude-sonnet-4-5"))  # doctest: +SKIP
    """

    def __init__(
        self,
        model: str | Model | None = None,
        *,
        role: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self._params = dict(params or {})
        generate_config(self._params)  # refuse a bad setting before the first call
        self.inspect_model = judge_model(model, role)

    @property
    def name(self) -> str:
        """Backend kind, as in :attr:`CallSpec.backend`: ``"inspect"``."""
        return BACKEND_NAME

    @property
    def model(self) -> str:
        """The Inspect model's full name, ``provider/model``."""
        return str(self.inspect_model)

    @property
    def base_url(self) -> None:
        """``None``: the Inspect model's provider decides where calls go."""
        return None

    @property
    def max_concurrency(self) -> None:
        """``None``: Inspect's own connection limits bound the calls in flight."""
        return None

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        """The generation settings given at construction (the same for every call)."""
        return dict(self._params)

    async def complete(self, spec: CallSpec) -> Completion:
        """Ask the Inspect model for one call's reply.

        Raises:
            RequestRejected: The model failed after Inspect's own retries, or refused
                the prompt (a content filter); the message names the model.
        """
        messages = [_message(m) for m in spec.messages]
        try:
            output = await self.inspect_model.generate(
                messages, config=generate_config(spec.params)
            )
        except ConfigError:
            raise
        except Exception as exc:  # a provider's error, after Inspect's retries
            detail = redact(f"{type(exc).__name__}: {exc}")
            raise RequestRejected(f"inspect model {self.model} failed: {detail}") from exc
        if output.error is not None and not output.completion:
            raise RequestRejected(f"inspect model {self.model} refused: {redact(output.error)}")
        return completion_of(output)

    async def aclose(self) -> None:
        """Nothing to release: Inspect owns its models' clients."""


_OUTCOME_WORD = {Outcome.ONE: "win", Outcome.TWO: "loss", Outcome.TIE: "tie"}
"""The evaluated output's outcome, in the words a reader of the log expects."""


@metric
def win_rate(level: float = 0.95, n_resamples: int = 2000, seed: int = 0) -> Metric:
    """The evaluated model's win rate against the baseline, with its bootstrap interval.

    A win counts 1, a tie ½ and a loss 0 (the seed protocol's score), averaged over
    the resolved samples. The interval is fairjudge's percentile bootstrap
    (:func:`fairjudge.stats.bootstrap_mean`), seeded: the same log gives the same
    interval (seed 0 unless ``win_rate(seed=...)`` is given, and Inspect records the
    arguments given with the metric). With fewer than two resolved samples the
    interval cannot be estimated, and only ``win_rate`` is reported. When every
    resolved sample scored the same (all wins, all losses or all ties) the bootstrap
    cannot vary, and the interval is the Wilson score interval on the samples.

    Args:
        level: The interval's nominal coverage.
        n_resamples: Bootstrap resamples.
        seed: The resampling seed.

    Returns:
        A metric whose value is ``{"win_rate", "win_rate_ci_low", "win_rate_ci_high"}``;
        Inspect shows each key as a metric of its own.
    """

    def compute(scores: list[SampleScore]) -> Value:
        values = [s.score.as_float() for s in scores]
        if not values:
            return {"win_rate": math.nan}
        ci = bootstrap_mean(
            values, n_resamples=n_resamples, seed=seed, level=level, proportion=True
        )
        out: dict[str, float | None] = {"win_rate": sum(values) / len(values)}
        if ci.estimable:
            out["win_rate_ci_low"] = ci.low
            out["win_rate_ci_high"] = ci.high
        return out

    return compute


@metric
def position_consistency() -> Metric:
    """The share of resolved samples whose two verdicts agreed once the swap is undone.

    A judge that always picks the first position scores 0; one that reads the answers
    and not their places scores near 1. A low value says the win rate rests on many
    ties forced by position bias. Reads each score's ``consistent`` metadata; a score
    without it is skipped. Across epochs, Inspect's reducers keep one epoch's
    metadata, so the rate is then that epoch's (one epoch gives the exact rate).
    """

    def compute(scores: list[SampleScore]) -> Value:
        flags = [
            bool(s.score.metadata["consistent"])
            for s in scores
            if s.score.metadata is not None and s.score.metadata.get("consistent") is not None
        ]
        return sum(flags) / len(flags) if flags else math.nan

    return compute


def baseline_answer(state: TaskState, target: Target, baseline: str | None) -> str:
    """The answer the evaluated output is compared with: the target, or a metadata field.

    Raises:
        ConfigError: The target is empty, or the sample's metadata has no text under
            ``baseline``; the message names the sample.
    """
    if baseline is None:
        if not target.text.strip():
            raise ConfigError(
                f"sample {state.sample_id!r} has an empty target: give each sample the "
                "baseline answer as its target, or name a metadata field with baseline=",
                params="baseline",
            )
        return target.text
    value = state.metadata.get(baseline)
    if not isinstance(value, str):
        raise ConfigError(
            f"sample {state.sample_id!r}: metadata[{baseline!r}] is {value!r}, not the "
            "baseline answer's text; add it to every sample, or leave baseline out to "
            "compare with the target",
            params="baseline",
        )
    return value


def question_of(state: TaskState) -> str | Conversation:
    """The sample's input as fairjudge shows it to the judge.

    A single prompt stays a string. A multi-turn input becomes a conversation (its
    system, user and assistant turns, as text), which fairjudge's templates show the
    judge as a role-labelled transcript inside the question block: ``input_text``
    alone would keep only the last user turn and hide the context being answered.
    """
    if isinstance(state.input, str):
        return state.input
    turns = tuple((m.role, m.text) for m in state.input if m.role in ROLES)
    return turns if len(turns) > 1 else state.input_text


def _pair(order: Order, output: str, base: str) -> tuple[str, str]:
    return (output, base) if order is Order.ORIGINAL else (base, output)


async def judge_pair(
    backend: InspectBackend,
    template: PairwiseTemplate,
    question: str | Conversation,
    answers: tuple[str, str],
    reference: str | None = None,
) -> tuple[Call, ...]:
    """Both calls on one pair, planned, rendered, asked and read by fairjudge.

    Args:
        backend: The judge.
        template: The pairwise template.
        question: The question (or conversation) both answers reply to.
        answers: ``(answer_1, answer_2)``: the evaluated output and the baseline.
        reference: A reference answer, for a template that needs one.

    Returns:
        One :class:`~fairjudge.Call` per planned order, original first; a call whose
        reply held no verdict carries its :class:`~fairjudge.ParseFailure`.
    """
    calls = []
    for order, sample in plan_orders(2):
        answer_a, answer_b = _pair(order, *answers)
        spec = CallSpec(
            backend.name, backend.model,
            template.render(question, answer_a, answer_b, reference),
            template.name, template.version,
            params=backend.default_params(label_only=template.verdict_only),
            sample=sample, kind="pairwise",
        )  # fmt: skip
        completion = await backend.complete(spec)
        reply = read_verdict(completion, template.verdict_format)
        calls.append(Call(order, sample, _with_raw(reply, completion.text, spec.key)))
    return tuple(calls)


def _with_raw(reply: Reply, raw: str, key: str) -> Reply:
    """The reply with its raw text and call key, as the judge session fills them in."""
    return replace(reply, raw=raw, key=key)


def _call_line(call: Call) -> str:
    shown = "this output" if call.order is Order.ORIGINAL else "the baseline"
    reply = call.reply
    said = (
        f"no readable verdict ({reply.failure.reason})"
        if isinstance(reply.failure, ParseFailure)
        else f"{reply.verdict}"
    )
    return f"{call.order.value} order (A = {shown}): {said}"


def pair_score(calls: tuple[Call, ...], rule: Resolution, meta: Mapping[str, Any]) -> Score:
    """The Inspect score of one judged pair: resolved, or unscored with the reason."""
    lines = [_call_line(c) for c in calls]
    metadata = {**meta, "rule": rule.value, "calls": [c.to_dict() for c in calls]}
    resolved = resolve(calls, rule)
    if resolved is None:
        failed = [c.order.value for c in calls if c.reply.failure is not None]
        explanation = (
            f"The judge's reply in the {' and '.join(failed)} order held no readable "
            "verdict. An unreadable reply is not a tie: this sample is left out of the "
            "metrics (counted as unscored). " + "; ".join(lines) + "."
        )
        metadata.update(outcome=None, consistent=None)
        return Score.unscored(reason="grader_failed", explanation=explanation, metadata=metadata)
    outcome, value, consistent = resolved
    word = _OUTCOME_WORD[outcome]
    if consistent:
        why = "both orders agreed"
    elif outcome is Outcome.TIE:
        why = "the two orders disagreed, so it is a tie"
    else:  # lenient or soft: the rule weighs orders that disagreed
        why = "the two orders disagreed, and the rule weighs them"
    explanation = f"{word} ({rule.value} rule: {why}). " + "; ".join(lines) + "."
    metadata.update(outcome=word, consistent=consistent)
    return Score(value=value, answer=word, explanation=explanation, metadata=metadata)


@scorer(metrics=[win_rate(), position_consistency()])
def pairwise_scorer(
    judge: str | Model | None = None,
    *,
    judge_role: str | None = "grader",
    template: str | PairwiseTemplate = "default",
    baseline: str | None = None,
    rule: Resolution | str = Resolution.CONSERVATIVE,
    params: Mapping[str, Any] | None = None,
) -> Scorer:
    """Score each output against a baseline answer, judged in both orders.

    Args:
        judge: The judge model, or its name; ``None`` takes the model bound to
            ``judge_role``, and failing that the model being evaluated (Inspect's
            precedence for graders).
        judge_role: The Inspect model role of the judge.
        template: A fairjudge pairwise template: a built-in name (``"default"``,
            ``"explain"``, ``"json"``, ...), a ``*.toml`` path, or a template.
        baseline: The sample metadata field holding the baseline answer; ``None``
            compares with the sample's target.
        rule: How the two calls resolve: ``"conservative"`` (the seed protocol: a
            win needs both orders), ``"lenient"`` or ``"soft"``.
        params: Generation settings for the judge's calls (Inspect ``GenerateConfig``
            fields, e.g. ``{"temperature": 0}``).

    Returns:
        An Inspect scorer. A template that needs a reference answer is given the
        sample's target; compare with a metadata baseline then.

    Raises:
        ConfigError: An unknown template or rule, or bad ``params`` (at once); an
            empty target or a missing baseline field (when that sample is scored).
    """
    tmpl = template if isinstance(template, PairwiseTemplate) else get_template(template)
    try:
        how = Resolution(rule)
    except ValueError as exc:
        raise ConfigError(
            f"rule must be one of {', '.join(r.value for r in Resolution)}; got {rule!r}",
            params="rule",
        ) from exc
    backend_params = dict(params or {})
    generate_config(backend_params)  # refuse bad params when the task is built

    async def score(state: TaskState, target: Target) -> Score:
        backend = InspectBackend(judge, role=judge_role, params=backend_params)
        output = state.output.completion
        base = baseline_answer(state, target, baseline)
        reference = target.text if tmpl.needs_reference else None
        calls = await judge_pair(backend, tmpl, question_of(state), (output, base), reference)
        meta = {"judge": backend.model, "template": tmpl.name, "template_version": tmpl.version}
        return pair_score(calls, how, meta)

    return score


def rubric_score(reply: Reply[ScoreReading], raw: str, meta: Mapping[str, Any]) -> Score:
    """The Inspect score of one rubric reply: the dimensions' scores, or unscored."""
    metadata = {**meta, "raw": raw}
    reading = reply.reading
    if reading is None:
        failure = reply.failure
        why = failure.reason if isinstance(failure, ParseFailure) else str(failure)
        explanation = (
            f"The judge's reply held no valid scores ({why}). An unreadable reply is "
            "not a zero: this sample is left out of the metrics (counted as unscored)."
        )
        return Score.unscored(reason="grader_failed", explanation=explanation, metadata=metadata)
    scores = dict(reading.scores)
    shown = ", ".join(f"{name} {value}" for name, value in scores.items())
    explanation = f"{shown}. {reading.reason}" if reading.reason else f"{shown}."
    metadata["reason"] = reading.reason
    return Score(value=scores, answer=shown, explanation=explanation, metadata=metadata)


@scorer(metrics={"*": [mean(), stderr()]})
def rubric_scorer(
    rubric: str | Rubric = "production",
    judge: str | Model | None = None,
    *,
    judge_role: str | None = "grader",
    params: Mapping[str, Any] | None = None,
) -> Scorer:
    """Score each output on a fairjudge rubric, one whole number per dimension.

    Args:
        rubric: A built-in rubric name (``"production"``, ``"basic"``, ``"code"``,
            ...), a ``*.toml`` path, or a rubric.
        judge: The judge model, or its name; ``None`` takes the model bound to
            ``judge_role``, and failing that the model being evaluated.
        judge_role: The Inspect model role of the judge.
        params: Generation settings for the judge's calls (``GenerateConfig`` fields).

    Returns:
        An Inspect scorer whose value is ``{dimension: score}``; a rubric that needs
        a reference answer is shown the sample's target.

    Raises:
        ConfigError: An unknown rubric or bad ``params``, when the task is built.
    """
    rub = rubric if isinstance(rubric, Rubric) else get_rubric(rubric)
    backend_params = dict(params or {})
    generate_config(backend_params)  # refuse bad params when the task is built
    context = ScoreContext(rub)

    async def score(state: TaskState, target: Target) -> Score:
        backend = InspectBackend(judge, role=judge_role, params=backend_params)
        reference = target.text if rub.needs_reference else None
        spec = CallSpec(
            backend.name, backend.model,
            rub.render(question_of(state), state.output.completion, reference),
            f"rubric:{rub.name}", rub.version,
            params=backend.default_params(label_only=False), kind="pointwise",
        )  # fmt: skip
        completion = await backend.complete(spec)
        meta = {"judge": backend.model, "rubric": rub.name, "rubric_version": rub.version}
        return rubric_score(read_scores(completion, context), completion.text, meta)

    return score
