"""What every model judge on a :class:`~fairjudge.judges.JudgeSession` has in common.

A pairwise judge and a pointwise judge differ in their prompts and parsers; the
rest (joining or opening a session, routing their backend through it, their name,
store and last batch, and closing what they own) is this one base class.
"""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from typing import TYPE_CHECKING, Any

from fairjudge._call import Backend, CallSpec, Conversation
from fairjudge._closing import Closing
from fairjudge._errors import ConfigError
from fairjudge.judges._session import JudgeSession

if TYPE_CHECKING:
    from fairjudge.runner import Executor, RunOptions, RunSummary, Store

__all__ = ["SessionJudge"]


class SessionJudge(Closing):
    """A model judge that runs its calls on a session (its own, or a shared one)."""

    session: JudgeSession
    backend: Backend
    params: dict[str, Any]

    def _join(
        self,
        backend: Backend,
        *,
        session: JudgeSession | None,
        store: Store | str | PathLike[str] | None,
        options: RunOptions | None,
        label_only: bool,
        params: Mapping[str, Any] | None,
        executor: Executor | str | None = None,
    ) -> None:
        """Join ``session`` or open one; set :attr:`params` and route ``backend``.

        Raises:
            ConfigError: ``store``, ``options`` or ``executor`` given with ``session``
                (the session has its own).
        """
        if session is not None:
            own = (("store", store), ("options", options), ("executor", executor))
            given = next((name for name, value in own if value is not None), None)
            if given is not None:
                raise ConfigError(
                    f"{given}= does not apply with session=: the session has its own store, "
                    "options and executor; set them on the session"
                )
        self._owns_session = session is None
        self.session = (
            session
            if session is not None
            else JudgeSession(store=store, options=options, executor=executor)
        )
        # This judge's own sampling defaults, even when another judge's backend for the
        # same model serves the calls (the parameters travel in each spec).
        self.params = {**backend.default_params(label_only=label_only), **(params or {})}
        self.backend = self.session.add(backend)

    def _spec(
        self, template: str, version: str, messages: Conversation, sample: int, kind: str
    ) -> CallSpec:
        """One call of this judge: its backend's route, its sampling parameters, a prompt."""
        b = self.backend
        return CallSpec(
            backend=b.name, model=b.model, base_url=b.base_url, template=template,
            template_version=version, messages=messages, params=self.params, sample=sample,
            kind=kind,
        )  # fmt: skip

    @property
    def name(self) -> str:
        """``backend/model``, as in ``--judge``."""
        return f"{self.backend.name}/{self.backend.model}"

    @property
    def store(self) -> Store:
        """The session's store."""
        return self.session.store

    @property
    def last_run(self) -> RunSummary | None:
        """The session's most recent batch summary."""
        return self.session.last_run

    def close(self) -> None:
        """Close the judge's own session (a shared session is its owner's to close)."""
        if self._owns_session:
            self.session.close()
