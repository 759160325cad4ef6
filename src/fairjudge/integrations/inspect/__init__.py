"""fairjudge in Inspect AI: debiased pairwise and rubric scorers, and Inspect models as judges.

Needs the ``inspect`` extra (``pip install 'fairjudge[inspect]'``). In a task::

    from inspect_ai import Task, task
    from inspect_ai.solver import generate
    from fairjudge.integrations.inspect import pairwise_scorer

    @task
    def against_baseline():
        return Task(dataset=..., solver=generate(), scorer=pairwise_scorer())

then ``inspect eval task.py --model openai/gpt-4o-mini --model-role
grader=anthropic/claude-sonnet-4-5``. Each sample's output is compared with its target
(the baseline answer) twice, the answers swapped, and scored 1, ½ or 0 (metrics
:func:`win_rate`, with a bootstrap interval, and :func:`position_consistency`); a
reply the parser cannot read leaves the sample unscored, never a tie.
:func:`rubric_scorer` scores on a fairjudge rubric; :class:`InspectBackend` runs any
fairjudge judge on an Inspect model. See ``docs/inspect.md``.
"""

from fairjudge._errors import MissingExtraError

try:
    import inspect_ai as _inspect_ai  # noqa: F401  (is the extra installed?)
except ImportError as exc:  # pragma: no cover - the extra is in the dev install
    raise MissingExtraError("fairjudge.integrations.inspect", "inspect", "inspect_ai") from exc

from fairjudge.integrations.inspect._backend import InspectBackend
from fairjudge.integrations.inspect._scorers import (
    pairwise_scorer,
    position_consistency,
    rubric_scorer,
    win_rate,
)

__all__ = [
    "InspectBackend",
    "pairwise_scorer",
    "position_consistency",
    "rubric_scorer",
    "win_rate",
]
