"""A model the capability table does not know, taught by online calls before its batch.

A backend learns what an unknown model refuses from refused requests, one per
parameter; a batch cannot learn, and every line sent untaught could be refused. So
the batch run makes such a model's first calls online, as the engine makes any call,
until one is answered; the batch then sends the request that answer taught.
"""

from __future__ import annotations

from fairjudge._call import CallSpec, Route
from fairjudge._errors import FatalBackendError
from fairjudge.runner._run import Run

__all__ = ["ONLINE_TRIES", "TeachingRun"]

ONLINE_TRIES = 3
"""Calls of a model the capability table does not know that go online, each with its
retries, before its batch is given up for the run when none is answered."""


class TeachingRun(Run):
    """The engine, with an unknown model's first calls made online before its batch."""

    todo: dict[str, CallSpec]
    """Every unique call of the run, by key (set by the batch run)."""

    async def _taught(self, keys: list[str]) -> list[str]:
        """``keys`` less the calls made online to teach the models the table does not know.

        They go before the batch's estimate (``BatchRun._within_budget``), which then
        guesses the rest at the cap they will be sent with (a lesson renames a label's
        ``max_tokens`` 8 to ``max_completion_tokens`` with room to reason); each is an
        online call, checked against ``max_calls`` and ``max_cost`` as one.
        """
        for route in dict.fromkeys(self.todo[k].route for k in keys):
            if route in self.untaught and route not in self.answered:
                await self._taught_online(route, [(k, self.todo[k]) for k in keys
                                                  if self.todo[k].route == route])  # fmt: skip
        return [k for k in keys if k not in self.outcomes]

    async def _taught_online(self, route: Route, group: list[tuple[str, CallSpec]]) -> None:
        """Make ``group``'s first calls online, one at a time, until the server answers one.

        A model the capability table does not know learns what it refuses from online
        calls (one refused request per parameter); a batch cannot learn, and every
        line sent untaught could be refused. So calls go online as the engine makes
        them (retries, rows, prices, errors) until one is answered, and the batch
        sends what it taught. A call that still fails (a 5xx after its retries, a
        timeout) taught nothing: the next one goes in its place, :data:`ONLINE_TRIES`
        at most.

        Raises:
            FatalBackendError: None of them was answered: nothing is submitted for
                this model (the run's claims on the rest end with it, for a rerun).
        """
        tried: list[str] = []
        while group and route not in self.answered and len(tried) < ONLINE_TRIES:
            key, spec = group.pop(0)
            if self.options.max_calls is not None and self.started >= self.options.max_calls:
                self.stopped = "max_calls"
            guess = None
            if self.stopped is None and self.budget is not None:
                guess = await self._admit(key, spec, self.budget)
            if self.stopped is not None or self.halted:  # a budget: no call, and no batch
                return
            tried.append(key)
            self.started += 1
            await self._call(key, spec, guess)
        if route in self.answered or not group:
            return
        outcome = self.outcomes.get(tried[-1])
        error = outcome.error if outcome is not None else None
        last = f" (the last: {error.message.rstrip('.')})" if error is not None else ""
        backend = self.backends[route]
        raise FatalBackendError(
            f"{backend.name}/{backend.model}: the capability table does not know this "
            "model, so its batch is submitted only after an online call has shown what "
            f"it refuses (a batch cannot learn from refusals); none of the {len(tried)} "
            f"online calls tried was answered{last}. Nothing was submitted for its other "
            f"{len(group)} calls: run the same command again once the server answers"
        )
