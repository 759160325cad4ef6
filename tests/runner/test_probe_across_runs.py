"""A later run over a backend that already learned its unknown model sends no lone probe.

A model the capability table does not know is learned from the server's refusals, so
its calls wait in the runner's line (``Run._in_line``) until one is answered: that one
goes alone. Which parameters an answer showed taken is kept by the backend (its
``knowledge``), across runs. Before, each run started its own line empty, so every
later run (a session's next batch, an audit stage, an adaptive round) sent its first
call alone again and the rest waited a round trip (review41 F3); now a run starts from
what the backend knows, and only the first run over the model probes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import CallSpec, Completion
from fairjudge.backends import OpenAIBackend
from fairjudge.runner import RunOptions, Store, run_calls
from tests.backends._calls import PROMPT, spec_for


def test_a_second_run_on_a_taught_backend_sends_its_first_calls_together(
    serve_reasoner: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve_reasoner()
    backend = OpenAIBackend("acme-reasoner", base_url=server.base_url)
    assert backend.capabilities.known is False  # learned from refusals: the probe line
    events: list[str] = []
    complete = backend.complete

    async def counted(spec: CallSpec) -> Completion:
        events.append("start")
        completion = await complete(spec)
        await asyncio.sleep(0.05)  # long enough for the calls not held back to start
        events.append("end")
        return completion

    monkeypatch.setattr(backend, "complete", counted)
    options = RunOptions(concurrency=8, progress="quiet")

    async def two_runs(store: Store) -> list[list[str]]:
        waves = []
        try:
            for run in range(2):
                prompts = [PROMPT.replace("2 + 2?", f"2 + {100 * run + i}?") for i in range(8)]
                specs = [spec_for(backend, prompt=p) for p in prompts]
                events.clear()
                result = await run_calls(backend, specs, store=store, options=options)
                assert result.summary.made == 8
                assert result.summary.failed == 0
                waves.append(events[: events.index("end")])  # started before one answered
        finally:
            await backend.aclose()
        return waves

    with Store(tmp_path / "s.sqlite") as store:
        first, second = asyncio.run(two_runs(store))
    assert first == ["start"]  # the probe goes alone: its answer teaches the rest
    assert backend.knowledge.accepted  # what the backend keeps for the next run
    assert len(second) == 8  # before: ["start"], a lone probe in every run
