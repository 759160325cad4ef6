"""The cost ledger: each token at its own price, list prices, bad usage charged its estimate."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge._call import Backend, CallSpec, Completion
from fairjudge._errors import ConfigError
from fairjudge.backends import OpenAIBackend
from fairjudge.backends._anthropic import AnthropicBackend
from fairjudge.runner import Prices, RunOptions, RunResult, Store, run_calls
from fairjudge.runner._prices import (
    BATCH_PRICE_FACTOR,
    LIST_PRICES,
    UNKNOWN_OUTPUT_TOKENS,
    CallGuess,
    Pricing,
    charge,
    list_price,
)
from tests.backends._calls import spec_for
from tests.runner._fakes import FakeBackend, make_spec
from tests.server import JudgeServer

GPT_4O_MINI = LIST_PRICES["openai", "gpt-4o-mini"]
HAIKU = LIST_PRICES["anthropic", "claude-haiku-4-5"]


def _run(backend: Backend, specs: list[CallSpec], store: Store, **options: Any) -> RunResult:
    options.setdefault("progress", "quiet")

    async def go() -> RunResult:
        try:
            return await run_calls(backend, specs, store=store, options=RunOptions(**options))
        finally:
            await backend.aclose()

    return asyncio.run(go())


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with Store(tmp_path / "s.sqlite") as s:
        yield s


# -- the list ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("backend", "model", "listed"),
    [
        ("openai", "gpt-4o", "gpt-4o"),
        ("openai", "gpt-4o-2024-08-06", "gpt-4o"),
        ("openai", "gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("openai", "o3-mini", "o3-mini"),
        ("openai", "gpt-5-nano-2025-08-07", "gpt-5-nano"),
        ("anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("anthropic", "claude-3-5-haiku-latest", "claude-3-5-haiku"),
    ],
)
def test_snapshots_have_their_models_price(backend: str, model: str, listed: str) -> None:
    assert list_price(backend, model) is LIST_PRICES[backend, listed]


@pytest.mark.parametrize(
    ("backend", "model"),
    [("openai", "gpt-4o-mini-ft"), ("openai", "my-model"), ("anthropic", "gpt-4o"),
     ("fake", "gpt-4o"), ("openai", "gpt-5-chat-latest")],
)  # fmt: skip
def test_other_models_have_no_list_price(backend: str, model: str) -> None:
    assert list_price(backend, model) is None


def test_every_list_price_is_complete() -> None:
    required = {
        "gpt-5", "gpt-5-mini", "gpt-5-nano", "o1", "o3", "o3-mini", "o4-mini", "gpt-4o",
        "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "claude-opus-4-1",
        "claude-sonnet-4-5", "claude-haiku-4-5", "claude-3-5-haiku",
    }  # fmt: skip
    assert required <= {model for _, model in LIST_PRICES}
    for (backend, _), p in LIST_PRICES.items():
        assert p.cached_input_per_million is not None
        assert p.cached_input < p.input_per_million < p.output_per_million
        if backend == "anthropic":  # 5-minute writes at 1.25x, reads at 0.1x
            assert p.cache_write == pytest.approx(1.25 * p.input_per_million)
            assert p.cached_input == pytest.approx(0.1 * p.input_per_million)
        else:
            assert p.cache_write == p.input_per_million


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1.0, "1", True])
def test_prices_must_be_finite_numbers(bad: Any) -> None:
    with pytest.raises(ConfigError, match="must be"):
        Prices(bad, 1.0)
    with pytest.raises(ConfigError, match="cached_input_per_million"):
        Prices(1.0, 1.0, cached_input_per_million=bad)


# -- charging one reply --------------------------------------------------------------------

GUESS = CallGuess(input=100, cap=8)


def test_reasoning_and_cached_tokens_at_their_prices() -> None:
    # OpenAI counts the reasoning inside completion_tokens: billed once, as output.
    reply = Completion(
        "A", input_tokens=1200, output_tokens=300, reasoning_tokens=256, cached_input_tokens=1024
    )
    bill = charge(reply, GUESS, GPT_4O_MINI)
    assert bill.cost_usd == ((1200 - 1024) * 0.15 + 1024 * 0.075 + 0 * 0.15 + 300 * 0.6) / 1e6
    assert bill.saved_usd == pytest.approx(1024 * (0.15 - 0.075) / 1e6)
    assert (bill.input_tokens, bill.output_tokens) == (1200, 300)
    assert (bill.cached_input_tokens, bill.reasoning_tokens, bill.believed) == (1024, 256, True)


def test_cache_writes_cost_more_than_input() -> None:
    reply = Completion(
        "A", input_tokens=2530, output_tokens=12, cached_input_tokens=2000, cache_write_tokens=500
    )
    bill = charge(reply, GUESS, HAIKU)
    assert bill.cost_usd == (30 * 1.0 + 2000 * 0.1 + 500 * 1.25 + 12 * 5.0) / 1e6
    assert bill.saved_usd == pytest.approx((2000 * 0.9 - 500 * 0.25) / 1e6)


def test_a_batch_reply_costs_half() -> None:
    online = Completion("A", input_tokens=1200, output_tokens=300, cached_input_tokens=1024)
    batch = Completion(**{**_fields(online), "batch": True})
    assert BATCH_PRICE_FACTOR == 0.5
    full = charge(online, GUESS, GPT_4O_MINI).cost_usd
    assert full is not None
    assert charge(batch, GUESS, GPT_4O_MINI).cost_usd == full * 0.5


def _fields(c: Completion) -> dict[str, Any]:
    return {name: getattr(c, name) for name in c.__slots__}  # type: ignore[attr-defined]


def test_unbelieved_usage_costs_the_estimate() -> None:
    bad = Completion("A", input_tokens=None, output_tokens=None, usage_problem="usage.x is NaN")
    bill = charge(bad, GUESS, Prices(2.0, 10.0))
    assert (bill.input_tokens, bill.output_tokens, bill.believed) == (100, 8, False)
    assert bill.cost_usd == Prices(2.0, 10.0).cost(100, 8)
    # A believable figure above the estimate is kept (never less than either)...
    big = Completion("A", input_tokens=5000, output_tokens=None, usage_problem="x")
    assert charge(big, GUESS, Prices(2.0, 10.0)).input_tokens == 5000
    # ...a smaller one is not, and neither is a cache discount.
    small = Completion("A", input_tokens=3, cached_input_tokens=3, usage_problem="x")
    assert charge(small, GUESS, Prices(2.0, 10.0)).cost_usd == Prices(2.0, 10.0).cost(100, 8)
    # Uncapped calls are guessed at the budget's unknown-output size; a learned ratio counts.
    uncapped = charge(bad, CallGuess(input=100, cap=0), Prices(2.0, 10.0), input_ratio=3.0)
    assert (uncapped.input_tokens, uncapped.output_tokens) == (300, UNKNOWN_OUTPUT_TOKENS)


def test_a_backend_without_usage_is_guessed_as_before() -> None:
    bill = charge(Completion("A" * 40), GUESS, Prices(1.0, 1.0))
    assert (bill.input_tokens, bill.output_tokens, bill.believed) == (100, 10, True)


# -- pricing a run's routes ----------------------------------------------------------------


def test_max_cost_needs_a_price_for_every_route() -> None:
    routes = [("openai", "gpt-4o", None), ("openai", "my-model", None)]
    with pytest.raises(ConfigError, match="do not name openai/my-model") as caught:
        Pricing(None, use_list=True, routes=routes, max_cost=1.0)
    assert caught.value.params == ("max_cost", "price_input", "price_output")
    pricing = Pricing(None, use_list=True, routes=routes, max_cost=None)
    assert pricing.priced
    given = Pricing(Prices(1.0, 2.0), use_list=True, routes=routes, max_cost=1.0)
    assert given.of(make_spec(0)) is None  # a route it was not told of


def test_the_budget_reserves_at_the_highest_prices() -> None:
    routes = [("openai", "gpt-4o", None), ("anthropic", "claude-haiku-4-5", None)]
    ceiling = Pricing(None, use_list=True, routes=routes, max_cost=None).ceiling()
    assert ceiling == Prices(2.5, 10.0, cached_input_per_million=1.25, cache_write_per_million=2.5)


def test_list_prices_can_be_turned_off(store: Store) -> None:
    backend = FakeBackend(lambda spec, attempt: Completion("A", input_tokens=1, output_tokens=1))
    summary = _run(backend, [make_spec(0)], store, list_prices=False).summary
    assert summary.cost_usd is None
    with pytest.raises(ConfigError, match="max_cost needs prices"):
        RunOptions(max_cost=1.0, list_prices=False)


# -- against the server: the ledger equals its tokens times the price ----------------------

OPENAI_USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 300,
    "prompt_tokens_details": {"cached_tokens": 1024},
    "completion_tokens_details": {"reasoning_tokens": 256},
}


def test_an_openai_run_costs_its_tokens_times_the_list_price(
    openai_env: JudgeServer, store: Store
) -> None:
    openai_env.configure(usage=OPENAI_USAGE)
    backend = OpenAIBackend("gpt-4o-mini", base_url=openai_env.base_url)
    specs = [spec_for(backend, prompt=f"Which is better? {i}") for i in range(3)]
    s = _run(backend, specs, store).summary
    one = ((1200 - 1024) * 0.15 + 1024 * 0.075 + 0 * 0.15 + 300 * 0.6) / 1e6
    assert s.cost_usd == one + one + one
    assert (s.input_tokens, s.output_tokens) == (3600, 900)
    assert (s.cached_input_tokens, s.reasoning_tokens, s.usage_unreported) == (3072, 768, 0)
    assert s.cached_share == 3072 / 3600
    assert s.cache_saved_usd == pytest.approx(3 * 1024 * 0.075 / 1e6)
    record = store.get(specs[0].key)
    assert record is not None
    assert record.cost_usd == one
    assert "3072 of 3600 input tokens cached (85.3%)" in s.summary()
    assert "768 of the output tokens were reasoning" in s.summary()


def test_an_anthropic_run_costs_its_tokens_times_the_list_price(
    judge_server: JudgeServer, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert judge_server.api_key is not None
    monkeypatch.setenv("ANTHROPIC_API_KEY", judge_server.api_key)
    judge_server.configure(
        usage={"input_tokens": 30, "output_tokens": 12, "cache_read_input_tokens": 2000,
               "cache_creation_input_tokens": 500}
    )  # fmt: skip
    backend = AnthropicBackend(
        "claude-haiku-4-5", base_url=judge_server.base_url.removesuffix("/v1")
    )
    s = _run(backend, [spec_for(backend)], store).summary
    assert s.cost_usd == (30 * 1.0 + 2000 * 0.1 + 500 * 1.25 + 12 * 5.0) / 1e6
    assert (s.input_tokens, s.cached_input_tokens, s.cache_write_tokens) == (2530, 2000, 500)
    assert s.usage_unreported == 0


@pytest.mark.parametrize("transport", ["lean", "sdk"])
@pytest.mark.parametrize("value", [-5, math.nan, math.inf, "12", True, 2**70, None])
def test_hostile_usage_is_charged_the_estimate(
    openai_env: JudgeServer, store: Store, value: Any, transport: Any
) -> None:
    openai_env.configure(usage={"completion_tokens": value})  # None: the field is dropped
    backend = OpenAIBackend("gpt-4o-mini", base_url=openai_env.base_url, transport=transport)
    spec = spec_for(backend)
    s = _run(backend, [spec], store, prices=Prices(1.0, 1.0)).summary
    guess = CallGuess.of(spec)
    assert s.usage_unreported == 1
    assert s.output_tokens == guess.cap  # the estimate: the call's max_tokens
    assert s.input_tokens >= guess.input
    assert s.cost_usd is not None
    assert s.cost_usd >= Prices(1.0, 1.0).cost(guess.input, guess.cap)
    assert "usage not reported correctly for 1 call(s)" in s.summary()


_COUNT = st.none() | st.integers(min_value=0, max_value=10**8 - 1)


@given(
    n_in=_COUNT, n_out=_COUNT, cached=_COUNT, written=_COUNT, reasoning=_COUNT,
    problem=st.none() | st.just("usage.x is NaN"), batch=st.booleans(),
    guess_in=st.integers(0, 10**6), cap=st.integers(0, 10**5),
    ratio=st.floats(min_value=0.0, max_value=100.0),
)  # fmt: skip
def test_a_charge_is_never_negative_nor_below_the_estimate(
    n_in: int | None, n_out: int | None, cached: int | None, written: int | None,
    reasoning: int | None, problem: str | None, batch: bool, guess_in: int, cap: int,
    ratio: float,
) -> None:  # fmt: skip
    reply = Completion(
        "A", input_tokens=n_in, output_tokens=n_out, cached_input_tokens=cached,
        cache_write_tokens=written, reasoning_tokens=reasoning, usage_problem=problem,
        batch=batch,
    )  # fmt: skip
    prices = LIST_PRICES["anthropic", "claude-sonnet-4-5"]
    bill = charge(reply, CallGuess(guess_in, cap), prices, ratio)
    assert bill.cost_usd is not None
    assert 0.0 <= bill.cost_usd < math.inf
    assert bill.cached_input_tokens + bill.cache_write_tokens <= bill.input_tokens
    assert bill.reasoning_tokens <= bill.output_tokens
    if problem is not None:
        factor = BATCH_PRICE_FACTOR if batch else 1.0
        estimate = prices.cost(guess_in, cap or UNKNOWN_OUTPUT_TOKENS) * factor
        assert bill.cost_usd >= estimate
        assert not bill.believed


@pytest.mark.parametrize("field", ["input_tokens", "output_tokens", "cache_read_input_tokens"])
@pytest.mark.parametrize("value", [-5, math.nan, -math.inf, "12", False, 2**70])
def test_hostile_anthropic_usage_is_charged_the_estimate(
    judge_server: JudgeServer,
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
    field: str,
    value: Any,
) -> None:
    assert judge_server.api_key is not None
    monkeypatch.setenv("ANTHROPIC_API_KEY", judge_server.api_key)
    judge_server.configure(usage={field: value})
    backend = AnthropicBackend(
        "claude-haiku-4-5", base_url=judge_server.base_url.removesuffix("/v1")
    )
    spec = spec_for(backend)
    s = _run(backend, [spec], store).summary
    guess = CallGuess.of(spec)
    assert (s.made, s.failed, s.usage_unreported) == (1, 0, 1)
    assert s.cached_input_tokens == 0  # no discount for a reply whose usage is not believed
    assert s.cost_usd is not None
    assert s.cost_usd >= HAIKU.cost(guess.input, guess.cap)


def test_the_store_keeps_each_replys_usage(openai_env: JudgeServer, store: Store) -> None:
    openai_env.configure(usage=OPENAI_USAGE)
    backend = OpenAIBackend("gpt-4o-mini", base_url=openai_env.base_url)
    spec = spec_for(backend)
    _run(backend, [spec], store)
    record = store.get(spec.key)
    assert record is not None
    assert (record.input_tokens, record.output_tokens) == (1200, 300)
    assert (record.reasoning_tokens, record.cached_input_tokens) == (256, 1024)
    assert (record.cache_write_tokens, record.usage_problem, record.batch) == (None, None, False)
    assert [r.reasoning_tokens for r in store.records()] == [256]
    # A reply whose usage was not believed says why, in the audit log.
    openai_env.configure(usage={"prompt_tokens": -3})
    other = spec_for(backend, prompt="another question")
    _run(backend, [other], store)
    bad = store.get(other.key)
    assert bad is not None
    assert bad.usage_problem == "usage.prompt_tokens is negative (-3)"
    assert bad.input_tokens is None  # never the server's bad figure
