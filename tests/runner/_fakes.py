"""An in-process fake backend and spec builders for runner and LLM-judge tests."""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fairjudge._call import CallSpec, Completion

Outcome = Completion | BaseException
Script = Callable[[CallSpec, int], Outcome | str]
"""(spec, attempt number for this key, 1-based) -> a completion, reply text, or an error."""


class FakeClock:
    """A clock that moves only when told: ``Store(path, clock=clock)``, ``clock.advance(s)``.

    ``sleep`` is an async sleep that moves the clock instead of waiting (then yields
    to the event loop once), for code that takes a ``sleep`` function.
    """

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    async def sleep(self, seconds: float) -> None:
        self.advance(seconds)
        await asyncio.sleep(0)


class FakeBackend:
    """A scripted async backend that counts what it is asked.

    Attributes:
        calls: Requests received (retries included).
        attempts: Requests per key.
        in_flight / max_in_flight: Concurrency actually seen.
        cancelled: Requests cancelled while in flight.

    With a ``clock`` (a :class:`FakeClock`), a request's ``latency`` moves that clock
    instead of taking real time.
    """

    name = "fake"

    def __init__(
        self,
        script: Script | None = None,
        *,
        latency: float = 0.0,
        max_concurrency: int | None = None,
        model: str = "fake-model",
        log: str | os.PathLike[str] | None = None,
        clock: FakeClock | None = None,
    ) -> None:
        self.script = script
        self.latency = latency
        self._max_concurrency = max_concurrency
        self._model = model
        self.log = Path(log) if log is not None else None
        self.clock = clock
        self.calls = 0
        self.attempts: Counter[str] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self.cancelled = 0
        self.closed = False

    @property
    def model(self) -> str:
        return self._model

    @property
    def base_url(self) -> str | None:
        return None

    @property
    def max_concurrency(self) -> int | None:
        return self._max_concurrency

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        return {"temperature": 0.0, "max_tokens": 1 if label_only else 512}

    async def complete(self, spec: CallSpec) -> Completion:
        self.calls += 1
        key = spec.key
        self.attempts[key] += 1
        attempt = self.attempts[key]
        if self.log is not None:
            with self.log.open("a") as fh:
                fh.write(key + "\n")
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await (self.clock.sleep if self.clock else asyncio.sleep)(self.latency)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        finally:
            self.in_flight -= 1
        out = self.script(spec, attempt) if self.script is not None else "A"
        if isinstance(out, BaseException):
            raise out
        if isinstance(out, str):
            return Completion(text=out, input_tokens=10, output_tokens=1, latency_s=self.latency)
        return out

    async def aclose(self) -> None:
        self.closed = True


def make_spec(
    i: int, *, text: str | None = None, params: Mapping[str, Any] | None = None
) -> CallSpec:
    return CallSpec(
        backend="fake",
        model="fake-model",
        messages=(("system", "judge"), ("user", text if text is not None else f"question {i}")),
        template="t",
        template_version="1",
        params=dict(params or {}),
        sample=0,
    )


def run_in_process(
    store_path: str, start: int, stop: int, latency: float, barrier: Any = None
) -> None:
    """Target for multiprocessing: fill a shared store with calls [start, stop)."""
    from fairjudge.runner import RunOptions, Store, run_calls

    backend = FakeBackend(latency=latency)
    with Store(store_path) as store:
        if barrier is not None:
            barrier.wait(timeout=60)  # both processes write at the same time
        result = asyncio.run(
            run_calls(
                backend,
                [make_spec(i) for i in range(start, stop)],
                store=store,
                options=RunOptions(concurrency=8, progress="quiet"),
            )
        )
    summary = result.summary
    assert summary.made + summary.cached == stop - start
    assert summary.failed == 0
