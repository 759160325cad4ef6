"""Money spent is never hidden, and no figure is reported that was not measured.

A reply its token cap cut off before any text (reasoning or thinking used the whole
cap) is billed: the run counts its tokens and cost, and a stop says so. Reasoning
tokens a reply did not report are unknown, not 0. A model without a price has an
unknown cost, said in a note; a cached input price above the input price is refused.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import ConfigError, CutAtCap, FatalBackendError
from fairjudge._types import Reply
from fairjudge.backends._anthropic import AnthropicBackend, completion_from_reply
from fairjudge.backends._openai import OpenAIBackend
from fairjudge.judges._session import Job, JudgeSession
from fairjudge.report._text import ledger_rows
from fairjudge.runner import (
    Prices,
    RetryPolicy,
    RunOptions,
    RunResult,
    RunSummary,
    Store,
    run_calls,
)
from tests.backends._calls import spec_for
from tests.runner._fakes import FakeBackend, make_spec
from tests.server._openai_emulator import EmulatorServer

FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.002)
CUT = ("max_tokens", "reasoning_effort")


def _cut(output_tokens: int = 512) -> CutAtCap:
    billed = Completion(text="", input_tokens=10, output_tokens=output_tokens,
                        reasoning_tokens=output_tokens)  # fmt: skip
    error = CutAtCap("the reply spent its whole cap before any text; raise max_tokens", billed)
    error.params = CUT
    return error


def _run(backend: Any, specs: list[CallSpec], store: Store, **options: Any) -> RunResult:
    opts = RunOptions(progress="quiet", retry=FAST, concurrency=1, **options)

    async def go() -> RunResult:
        try:
            return await run_calls(backend, specs, store=store, options=opts)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_a_reply_cut_at_its_cap_is_billed_counted_and_kept_on_its_row(tmp_path: Path) -> None:
    specs = [make_spec(i) for i in range(6)]
    bad = specs[3].key
    backend = FakeBackend(lambda spec, attempt: _cut() if spec.key == bad else "A")
    prices = Prices(1.0, 10.0)
    with Store(tmp_path / "s.sqlite") as store:
        result = _run(backend, specs, store, prices=prices)
    run = result.summary
    assert (run.made, run.failed, run.cut_at_cap) == (6, 1, 1)
    # The cut reply's 10 + 512 tokens are in the run's figures and its cost.
    assert (run.input_tokens, run.output_tokens) == (60, 5 + 512)
    assert run.cost_usd == pytest.approx(prices.cost(60, 517))
    assert result[bad].cost_usd == pytest.approx(prices.cost(10, 512))
    assert result[bad].error is not None
    assert result[bad].error.kind == "CutAtCap"
    assert run.to_dict()["cut_at_cap"] == 1
    assert any("billed" in text for _, text in ledger_rows(run))
    # The store's log keeps what the failed call cost, not a bare error.
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        row = db.execute(
            "select status, output_tokens, cost_usd from calls where key = ?", (bad,)
        ).fetchone()
    assert row[0] == "error"
    assert row[1] == 512
    assert row[2] == pytest.approx(prices.cost(10, 512))


def test_max_cost_counts_the_replies_cut_at_their_cap(tmp_path: Path) -> None:
    # Every reply cut at 512 output tokens at $1000/M: $0.512 each; a $1.2 budget pays
    # for two, not for every call as if the cut ones were free.
    def script(spec: CallSpec, attempt: int) -> CutAtCap | str:
        return _cut() if spec.key != specs[0].key else "A"

    specs = [make_spec(i, params={"max_tokens": 512}) for i in range(10)]
    backend = FakeBackend(script)
    with Store(tmp_path / "s.sqlite") as store:
        result = _run(backend, specs, store, prices=Prices(0.0, 1000.0), max_cost=1.2)
    assert result.summary.stopped == "max_cost"
    assert backend.calls <= 3
    assert result.summary.cost_usd is not None
    assert result.summary.cost_usd <= 1.2 + 0.6


def test_a_run_whose_replies_are_all_cut_stops_saying_what_it_paid(tmp_path: Path) -> None:
    backend = FakeBackend(lambda spec, attempt: _cut())
    with Store(tmp_path / "s.sqlite") as store, pytest.raises(FatalBackendError) as caught:
        _run(backend, [make_spec(i) for i in range(50)], store, prices=Prices(1.0, 10.0))
    text = str(caught.value)
    assert "were all rejected" not in text
    assert "cut by their token cap before any text, and none was answered" in text
    assert "This run made 5 call(s) (50 input + 2560 output tokens, est. $0.0256)" in text
    assert "5 of them were cut by the token cap" in text
    assert "paid again" in text
    assert caught.value.params == CUT  # the command line shows --max-tokens, not max_tokens


def test_openai_reply_that_reasoned_away_its_cap_is_billed_through_the_run(
    openai_emulator: EmulatorServer, tmp_path: Path
) -> None:
    backend = OpenAIBackend("gpt-5-mini", base_url=openai_emulator.base_url, max_tokens=8)
    specs = [
        spec_for(backend, prompt=f"Which is better? <question>{i}</question>") for i in range(4)
    ]
    with Store(tmp_path / "s.sqlite") as store, pytest.raises(FatalBackendError) as caught:
        _run(backend, specs, store)
    text = str(caught.value)
    # The emulator billed three replies of 8 reasoning tokens; the backend sent no more.
    assert openai_emulator.count("empty_length") == 3
    assert "This run made 3 call(s)" in text
    assert "+ 24 output tokens, est. $" in text
    assert "raise max_tokens (now 8 tokens) or lower reasoning_effort" in text
    assert "max_completion_tokens" not in text
    assert caught.value.params == CUT


def test_claude_thinking_cut_at_its_cap_is_billed_and_names_the_budget() -> None:
    reply = {
        "model": "claude-sonnet-4-5",
        "stop_reason": "max_tokens",
        "content": [{"type": "thinking", "thinking": "Weighing...", "signature": "s"}],
        "usage": {"input_tokens": 40, "output_tokens": 1030},
    }
    with pytest.raises(CutAtCap) as caught:
        completion_from_reply(reply, 0.5, "model 'claude-sonnet-4-5' at api.anthropic.com")
    cut = caught.value
    assert isinstance(cut.billed, Completion)
    assert (cut.billed.input_tokens, cut.billed.output_tokens) == (40, 1030)
    assert cut.billed.reasoning_tokens is None  # thinking: not reported apart
    assert cut.params == ("max_tokens", "thinking_budget")
    assert "bills those tokens" in str(cut)


def test_claude_thinking_tokens_are_not_reported_so_the_run_says_so(
    anthropic_emulator: EmulatorServer, tmp_path: Path
) -> None:
    url = anthropic_emulator.base_url.removesuffix("/v1")
    thinking = AnthropicBackend("claude-sonnet-4-5", base_url=url, thinking_budget=2000)
    with Store(tmp_path / "s.sqlite") as store:
        run = _run(thinking, [spec_for(thinking)], store).summary
    assert run.output_tokens > 1000  # the thinking is billed as output
    assert run.reasoning_tokens is None  # not 0: Anthropic does not split it out
    assert run.to_dict()["reasoning_tokens"] is None
    assert ("reasoning tokens", "not reported (the provider's usage does not say)") in ledger_rows(
        run
    )
    plain = AnthropicBackend("claude-sonnet-4-5", base_url=url)
    with Store(tmp_path / "p.sqlite") as store:
        assert _run(plain, [spec_for(plain)], store).summary.reasoning_tokens == 0


def test_unknown_reasoning_totals_stay_unknown_when_runs_are_added() -> None:
    base = {"total": 1, "cached": 0, "made": 1, "failed": 0, "not_run": 0, "requests": 1,
            "retries": 0, "input_tokens": 1, "output_tokens": 5, "cost_usd": None,
            "wall_s": 0.0, "backoff_s": 0.0}  # fmt: skip
    known = RunSummary(**base, reasoning_tokens=4)  # type: ignore[arg-type]
    unknown = RunSummary(**base, reasoning_tokens=None)  # type: ignore[arg-type]
    total = RunSummary.total_of([known, unknown])
    assert total is not None
    assert total.reasoning_tokens is None
    both = RunSummary.total_of([known, known])
    assert both is not None
    assert both.reasoning_tokens == 8


class _Provider(FakeBackend):
    name = "openai"


def _provider_spec(i: int, model: str) -> CallSpec:
    spec = make_spec(i)
    return CallSpec(backend="openai", model=model, messages=spec.messages, template="t",
                    template_version="1", params={}, sample=0)  # fmt: skip


def test_a_model_without_a_price_gets_a_note_that_its_cost_is_unknown(tmp_path: Path) -> None:
    backend = _Provider(model="gpt-9-nano")
    with Store(tmp_path / "s.sqlite") as store:
        run = _run(backend, [_provider_spec(i, "gpt-9-nano") for i in range(2)], store).summary
    assert run.cost_usd is None
    (note,) = [text for label, text in ledger_rows(run) if label == "cost"]
    assert note.startswith("unknown: fairjudge's list prices")
    assert "openai/gpt-9-nano" in note
    assert "price_input and price_output" in note  # the CLI shows its flags
    with Store(tmp_path / "t.sqlite") as store:  # priced: no such note
        priced = _run(backend, [_provider_spec(9, "gpt-9-nano")], store, prices=Prices(1, 1))
    assert all(label != "cost" for label, _ in ledger_rows(priced.summary))


def test_prices_given_without_a_cached_price_say_the_cache_is_priced_in_full(
    tmp_path: Path,
) -> None:
    def script(spec: CallSpec, attempt: int) -> Completion:
        return Completion(text="A", input_tokens=1000, output_tokens=1, cached_input_tokens=900)

    backend = _Provider(script, model="gpt-5-mini")
    specs = [_provider_spec(i, "gpt-5-mini") for i in range(2)]
    with Store(tmp_path / "s.sqlite") as store:
        run = _run(backend, specs, store, prices=Prices(0.25, 2.0)).summary
    (note,) = [text for label, text in ledger_rows(run) if label == "cached input price"]
    assert "1800 cached input tokens are priced at price_input" in note
    assert "price_cached_input" in note
    with Store(tmp_path / "t.sqlite") as store:  # a cached price given, or the list's: none
        given = _run(backend, specs, store, prices=Prices(0.25, 2.0, 0.025)).summary
    assert all(label != "cached input price" for label, _ in ledger_rows(given))


def test_a_cached_price_above_the_input_price_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"price_cached_input \(30\) is above price_input") as e:
        RunOptions.build(price_input=3, price_output=15, price_cached_input=30)
    assert e.value.params == ("price_cached_input", "price_input")
    with pytest.raises(ConfigError, match="cached_input_per_million"):
        Prices(3.0, 15.0, cached_input_per_million=30.0)
    assert RunOptions.build(price_input=3, price_output=15, price_cached_input=3).prices


def _text(completion: Completion, context: object) -> Reply[Any]:
    return Reply(None, payload={"text": completion.text})


def test_the_worst_case_hint_names_the_knob_of_the_judge_at_hand(
    anthropic_emulator: EmulatorServer, tmp_path: Path
) -> None:
    url = anthropic_emulator.base_url.removesuffix("/v1")
    thinking = AnthropicBackend("claude-sonnet-4-5", base_url=url, thinking_budget=2000)
    options = RunOptions(max_cost=0.0001, progress="quiet")
    with JudgeSession(thinking, store=tmp_path / "s.sqlite", options=options) as session:
        replies = session.run([Job(spec_for(thinking), None)], _text)
    assert replies.stopped is not None
    assert "lower max_tokens or thinking_budget so that one call's cap fits" in replies.stopped
    assert "reasoning_effort" not in replies.stopped  # refused for a Claude judge


def test_a_budget_stop_says_the_same_budget_continues(tmp_path: Path) -> None:
    backend = FakeBackend()
    options = RunOptions(max_calls=2, progress="quiet")
    jobs = [Job(make_spec(i), None) for i in range(5)]
    with JudgeSession(backend, store=tmp_path / "s.sqlite", options=options) as session:
        replies = session.run(jobs, _text)
    assert replies.stopped is not None
    assert "larger budget" not in replies.stopped  # the budget counts one run's calls
    assert "the same budget pays for as many again" in replies.stopped


def test_a_batch_reply_cut_at_its_cap_is_billed_at_the_batch_price() -> None:
    from fairjudge.backends._batch_api import BatchState
    from fairjudge.backends._batch_clients import _batch_reply

    reply = {
        "model": "claude-sonnet-4-5",
        "stop_reason": "max_tokens",
        "content": [{"type": "thinking", "thinking": "...", "signature": "s"}],
        "usage": {"input_tokens": 40, "output_tokens": 1030},
    }
    state = BatchState("msgbatch_1", "ended", ended=True)
    cut = _batch_reply(completion_from_reply, reply, state, "model 'claude-sonnet-4-5'")
    assert isinstance(cut, CutAtCap)
    assert isinstance(cut.billed, Completion)
    assert cut.billed.batch  # half the online price, as every batch reply
