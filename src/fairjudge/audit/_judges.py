"""The judge an audit examines: one model, asked with several prompts.

:class:`AuditJudge` is one judge seen as a factory of prompt-specific judges;
:class:`ModelAuditJudge` builds them on one :class:`~fairjudge.judges.JudgeSession`,
so every experiment shares one store, one budget and one loaded model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from fairjudge._closing import Closing
from fairjudge._errors import ConfigError
from fairjudge.judges import (
    BackendOptions,
    BatchJudge,
    BatchPointwiseJudge,
    JudgeSession,
    LLMJudge,
    PointwiseJudge,
    resolve_judge,
)

__all__ = ["AuditJudge", "ModelAuditJudge", "family_of"]


@runtime_checkable
class AuditJudge(Protocol):
    """One judge, able to answer with any pairwise template or pointwise rubric."""

    @property
    def name(self) -> str:
        """How reports name the judge (``backend/model``)."""
        ...

    def pairwise(self, template: str) -> BatchJudge:
        """The judge asked which of two answers is better, with ``template``."""
        ...

    def pointwise(self, rubric: str) -> BatchPointwiseJudge:
        """The judge asked to score one answer against ``rubric``."""
        ...


_FAMILY = re.compile(r"[a-z]+")


def family_of(model: str) -> str:
    """A model's family: the leading letters of its name, lowercased.

    ``local/qwen2.5-coder-1.5b`` and ``Qwen-72B-Chat`` are both ``qwen``;
    ``openai/gpt-4o-mini`` is ``gpt``. Crude on purpose: it is what a family label in
    a data file usually looks like, and ``judge_families`` overrides it.
    """
    name = model.rsplit("/", 1)[-1].strip().lower()
    match = _FAMILY.match(name)
    return match.group(0) if match else name


class ModelAuditJudge(Closing):
    """A model judge (any ``--judge`` spec but ``python:``) on a shared session.

    Args:
        spec: The ``--judge`` spec, e.g. ``local/qwen2.5-coder-1.5b``.
        session: The session every prompt's judge runs on.
        backend_options: Server URL, GGUF file, threads, temperature, timeout.
        family: The judge's model family, for the self-preference experiment
            (default: :func:`family_of` the spec).

    Raises:
        ConfigError: A ``python:`` spec (a callable has no prompt to vary), an unknown
            spec, or an option that does not apply to the judge.
    """

    def __init__(
        self,
        spec: str,
        *,
        session: JudgeSession,
        backend_options: BackendOptions | None = None,
        family: str | None = None,
    ) -> None:
        if spec.strip().startswith(("python:", "replay:")):
            raise ConfigError(
                f"audit needs a model judge, whose prompt it can vary; {spec!r} is not one "
                "(a Python callable or a replay has no prompt). In the library, pass an "
                "object with pairwise(template) and pointwise(rubric) methods instead"
            )
        base = resolve_judge(spec, backend_options=backend_options, session=session)
        if not isinstance(base, LLMJudge):  # pragma: no cover - resolve_judge's contract
            raise ConfigError(f"{spec!r} did not resolve to a model judge")
        self.spec = spec.strip()
        self.session = session
        self._base = base
        temperature = (backend_options or BackendOptions()).temperature
        self._params: dict[str, Any] = {} if temperature is None else {"temperature": temperature}
        self.family = family or family_of(self.spec)
        self._pairwise: dict[str, LLMJudge] = {}
        self._pointwise: dict[str, PointwiseJudge] = {}

    @property
    def name(self) -> str:
        """``backend/model``."""
        return self._base.name

    @property
    def temperature(self) -> float | None:
        """The sampling temperature of every call, when one was set."""
        return self._base.temperature

    def pairwise(self, template: str) -> BatchJudge:
        """The judge with a pairwise template (built once per template)."""
        if template not in self._pairwise:
            self._pairwise[template] = LLMJudge(
                self._base.backend, template=template, session=self.session, params=self._params
            )
        return self._pairwise[template]

    def pointwise(self, rubric: str) -> BatchPointwiseJudge:
        """The judge with a rubric (built once per rubric)."""
        if rubric not in self._pointwise:
            self._pointwise[rubric] = PointwiseJudge(
                self._base.backend, rubric=rubric, session=self.session, params=self._params
            )
        return self._pointwise[rubric]

    def close(self) -> None:
        """Nothing of its own: the session is its owner's to close."""


def judge_family(judge: AuditJudge, overrides: Mapping[str, str] | None) -> str:
    """The family of ``judge``: an override by name or spec, its own, or from its name."""
    for key in (judge.name, getattr(judge, "spec", None)):
        if overrides and isinstance(key, str) and key in overrides:
            return overrides[key].strip().lower()
    own = getattr(judge, "family", None)
    return str(own) if own else family_of(judge.name)
