"""What a run has done so far: its counters, the progress it reports, its summary.

:class:`Tally` is the bookkeeping half of :class:`~fairjudge.runner._run.Run`; the
engine half makes the calls and updates these counters as calls settle. The display
and the ``on_progress`` callback read them a few times a second, never per call.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from fairjudge.runner._options import RunOptions
from fairjudge.runner._progress import RunProgress, Snapshot
from fairjudge.runner._result import RunSummary, StopReason

__all__ = ["TICK_S", "Tally"]

TICK_S = 0.25
"""Seconds between progress refreshes."""


class Tally:
    """Counters of one run, and the snapshots and summary built from them."""

    progress: RunProgress | None
    on_progress: Callable[[int], None] | None
    stopped: StopReason | None

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.total = self.cached = self.done = self.failed = 0
        self.started = self.requests = self.retries = 0
        self.input_tokens = self.output_tokens = 0
        self.spent = self.reserved = self.backoff_s = 0.0
        self.sent: dict[str, float] = {}  # key -> when its current request was sent
        self.reported = 0
        self.t0 = time.perf_counter()

    def snapshot(self) -> Snapshot:
        elapsed = time.perf_counter() - self.t0
        counts = (self.total, self.cached, self.done, self.failed, self.retries)
        return Snapshot(*counts, elapsed, len(self.sent), self._longest_wait())

    def _longest_wait(self) -> float:
        if not self.sent:
            return 0.0
        import asyncio  # here: a run the store answers whole has no loop and needs none

        return max(0.0, asyncio.get_running_loop().time() - min(self.sent.values()))

    def _report(self) -> None:
        if self.on_progress is not None:
            settled = self.cached + self.done + self.failed
            if settled > self.reported:
                self.on_progress(settled - self.reported)
                self.reported = settled

    async def _tick(self) -> None:
        import asyncio

        while True:
            await asyncio.sleep(TICK_S)
            self._report()
            if self.progress is not None:
                self.progress.update(self.snapshot())

    def summary(self) -> RunSummary:
        return RunSummary(
            total=self.total,
            cached=self.cached,
            made=self.done + self.failed,
            failed=self.failed,
            not_run=self.total - self.cached - self.done - self.failed,
            requests=self.requests,
            retries=self.retries,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.spent if self.options.prices is not None else None,
            wall_s=time.perf_counter() - self.t0,
            backoff_s=self.backoff_s,
            stopped=self.stopped,
        )
