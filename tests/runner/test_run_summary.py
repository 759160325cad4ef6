"""A run's summary counts the requests refused while a model was learned, and adds up.

The refusals are counted by the run that paid them: a backend keeps what it learned
for its whole life (a session's many runs), so a later run on the same backend pays,
and reports, none. Against the OpenAI emulator, whose ``acme-reasoner`` refuses
``max_tokens``, ``temperature`` and ``logprobs`` as the real API does.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from fairjudge.backends._openai import OpenAIBackend
from fairjudge.runner import RunOptions, RunSummary, Store, run_calls
from tests.backends._calls import PROMPT, spec_for
from tests.server._openai_emulator import EmulatorServer

LEARNED = (
    "sent max_completion_tokens instead of max_tokens",
    "stopped sending temperature",
    "stopped sending logprobs and top_logprobs",  # one refusal of the pair (QA39 #4)
)


def _summary(**counts: object) -> RunSummary:
    base = RunSummary(
        total=0, cached=0, made=0, failed=0, not_run=0, requests=0, retries=0,
        input_tokens=0, output_tokens=0, cost_usd=None, wall_s=0.0, backoff_s=0.0,
    )  # fmt: skip
    return dataclasses.replace(base, **counts)  # type: ignore[arg-type]


def test_two_runs_on_one_backend_pay_and_report_the_refusals_once(
    openai_emulator: EmulatorServer, tmp_path: Path
) -> None:
    backend = OpenAIBackend("acme-reasoner", base_url=openai_emulator.base_url)
    specs = [spec_for(backend, prompt=PROMPT.replace("2 + 2?", f"2 + {i}?")) for i in range(10)]

    async def go() -> tuple[RunSummary, RunSummary]:
        with Store(tmp_path / "s.sqlite") as store:
            options = RunOptions(concurrency=4, progress="quiet")
            try:
                first = await run_calls(backend, specs[:5], store=store, options=options)
                second = await run_calls(backend, specs[5:], store=store, options=options)
            finally:
                await backend.aclose()
        return first.summary, second.summary

    first, second = asyncio.run(go())

    assert openai_emulator.count("refused") == 3
    assert (first.made, first.failed, first.refused, first.learned) == (5, 0, 3, LEARNED)
    assert first.requests == 5 + 3  # the refused requests are requests too
    assert (second.made, second.refused, second.learned) == (5, 0, ())
    assert second.requests == 5
    assert first.to_dict()["learned"] == list(LEARNED)
    assert second.to_dict()["refused"] == 0
    assert "3 refused request(s) (sent max_completion_tokens instead of max_tokens;" in str(first)
    assert "refused" not in str(second)


def test_a_run_with_nothing_to_learn_reports_no_refusal(
    openai_emulator: EmulatorServer, tmp_path: Path
) -> None:
    backend = OpenAIBackend("gpt-5-mini", base_url=openai_emulator.base_url)

    async def go() -> RunSummary:
        with Store(tmp_path / "s.sqlite") as store:
            try:
                result = await run_calls(
                    backend, [spec_for(backend)], store=store, options=RunOptions(progress="quiet")
                )
            finally:
                await backend.aclose()
        return result.summary

    summary = asyncio.run(go())

    assert (summary.made, summary.requests, summary.refused, summary.learned) == (1, 1, 0, ())
    assert summary.learning_note() is None


def test_summaries_add_up_with_their_refusals_and_lessons() -> None:
    first = _summary(made=4, requests=7, refused=3, learned=LEARNED[:2], cost_usd=0.5,
                     wall_s=1.0, reasoning_tokens=100)  # fmt: skip
    second = _summary(made=2, requests=2, cost_usd=0.25, wall_s=2.0, reasoning_tokens=50,
                      stopped="max_calls")  # fmt: skip

    total = RunSummary.total_of([first, second])

    assert total is not None
    assert (total.made, total.requests, total.refused) == (6, 9, 3)
    assert total.learned == LEARNED[:2]
    assert (total.cost_usd, total.wall_s, total.reasoning_tokens) == (0.75, 3.0, 150)
    assert total.stopped == "max_calls"
    assert RunSummary.total_of([first]) is first
    assert RunSummary.total_of([]) is None
    # A run with no prices keeps the total's cost unknown only when no run had one.
    assert RunSummary.total_of([_summary(), _summary()]).cost_usd is None  # type: ignore[union-attr]
