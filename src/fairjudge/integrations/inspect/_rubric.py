"""The rubric scorer for ``inspect eval``: one answer scored on a fairjudge rubric.

:func:`rubric_scorer` renders the evaluated output with a fairjudge rubric (built-in,
or a TOML file), asks the judge once through :class:`~._backend.InspectBackend`, and
reads the reply with fairjudge's score parser, which checks every dimension is there,
a whole number on the rubric's scale. The score's value is a dict, one entry per
dimension, so Inspect's metrics report each dimension's mean and standard error.

A reply the parser cannot read (no JSON object, a dimension missing, a score off the
scale) gives ``Score.unscored(reason="grader_failed")`` with the parser's reason and
the raw reply: left out of every mean and counted as unscored, never scored as zero.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.model import Model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from fairjudge._call import CallSpec
from fairjudge._types import ParseFailure, Reply, ScoreReading
from fairjudge.integrations.inspect._backend import InspectBackend, generate_config
from fairjudge.integrations.inspect._pairwise import question_of
from fairjudge.prompts import Rubric, ScoreContext, get_rubric, read_scores

__all__ = ["rubric_scorer"]


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
