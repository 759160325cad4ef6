"""The batch executor against the batch emulators: results, resume, cache, claims, errors.

Every run goes through the library (``fairjudge.compare``) against
``tests/server/_batch_emulator.py``, whose lines are answered by the faithful chat
emulators (``_openai_emulator``, ``_anthropic_emulator``), so a batch request is
checked as strictly as an online one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge._call import Backend, CallSpec
from fairjudge._errors import BatchPending, ConfigError, FatalBackendError, RequestRejected
from fairjudge.backends import batch_client
from fairjudge.backends._batch_clients import OpenAIBatch
from fairjudge.backends._openai import OpenAIBackend
from fairjudge.judges import BackendOptions, JudgeSession
from fairjudge.judges._session import Job
from fairjudge.runner import BatchExecutor, Prices, RetryPolicy, RunOptions, Store
from tests.server import Script
from tests.server._anthropic_emulator import AnthropicEmulator
from tests.server._batch_emulator import BatchScript, BatchServer, provider_batches
from tests.server._openai_emulator import OpenAIEmulator

PAIRS = Path(__file__).resolve().parents[2] / "src/fairjudge/examples/demo_pairs.jsonl"
ITEMS = [json.loads(line) for line in PAIRS.read_text().splitlines()][:6]
CALLS = 2 * len(ITEMS)
MODEL = "openai/gpt-4o-mini"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[BatchServer]:
    """OpenAI's chat emulator behind the batch emulator; one poll in progress."""
    with provider_batches(monkeypatch) as running:
        yield running


def _compare(
    server: BatchServer,
    store: Path,
    executor: Any = None,
    *,
    judge: str = MODEL,
    base_url: str | None = None,
    items: list[dict[str, Any]] = ITEMS,
    **options: Any,
) -> fairjudge.Result:
    return fairjudge.compare(
        items,
        judge=judge,
        backend=BackendOptions(base_url=base_url or server.base_url),
        store=str(store),
        executor=executor,
        options=RunOptions(progress="quiet", **options),
    )


def _without_run_facts(result: fairjudge.Result) -> dict[str, Any]:
    """The result as JSON data, without what differs by design: wall time and money."""
    data = result.to_dict()
    calls = dict(data.pop("calls"))
    for name in ("wall_s", "cost_usd", "cache_saved_usd"):
        calls.pop(name, None)
    return {**data, "calls": calls}


def _batch_tables(store: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    with sqlite3.connect(store) as conn:
        batches = conn.execute("SELECT id, provider, status, requests, collected_at FROM batches")
        members = conn.execute("SELECT batch_id, custom_id, key FROM batch_calls")
        return batches.fetchall(), members.fetchall()


def test_a_batch_run_equals_an_online_run_at_half_the_price(
    server: BatchServer, tmp_path: Path
) -> None:
    prices = Prices(2.0, 8.0)
    online = _compare(server, tmp_path / "online.sqlite", prices=prices)
    server.reset()
    batched = _compare(server, tmp_path / "batch.sqlite", BatchExecutor(poll_s=0.01), prices=prices)
    assert _without_run_facts(batched) == _without_run_facts(online)
    assert batched.to_dict()["calls"]["cost_usd"] == pytest.approx(
        online.to_dict()["calls"]["cost_usd"] / 2
    )
    stats = server.stats()
    assert (stats["batches_created"], stats["files_uploaded"], stats["batch_requests"]) == (
        1,
        1,
        CALLS,
    )
    assert batched.to_dict()["calls"]["requests"] == CALLS


def test_batch_ids_and_custom_ids_are_in_the_store_before_the_first_poll(
    server: BatchServer, tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    seen_at_poll: list[Any] = []

    class Watching:
        def __init__(self, backend: Backend) -> None:
            self.inner = batch_client(backend)
            self.provider, self.max_requests = self.inner.provider, self.inner.max_requests
            self.chunks = self.inner.chunks

        async def submit(self, requests: Any) -> Any:
            return await self.inner.submit(requests)

        async def poll(self, batch_id: str) -> Any:
            seen_at_poll.append(_batch_tables(store))  # what a SIGKILL here would leave
            return await self.inner.poll(batch_id)

        async def results(self, state: Any, members: Any) -> Any:
            return await self.inner.results(state, members)

        async def aclose(self) -> None:
            await self.inner.aclose()

    _compare(server, store, BatchExecutor(poll_s=0.01, clients=Watching))
    batches, members = seen_at_poll[0]
    assert [(b[1], b[2], b[3]) for b in batches] == [("openai", "submitted", CALLS)]
    assert len(members) == CALLS
    assert all(custom_id == key and len(key) == 64 for _, custom_id, key in members)
    with Store(store) as opened:
        assert {key for _, _, key in members} == {r.key for r in opened.records()}
    assert _batch_tables(store)[0][0][2:4] == ("completed", CALLS)


def test_without_wait_the_run_submits_and_a_rerun_collects_without_resubmitting(
    server: BatchServer, tmp_path: Path
) -> None:
    server.configure_batches(delay_polls=3)
    store = tmp_path / "s.sqlite"
    for _ in range(3):
        with pytest.raises(BatchPending) as caught:
            _compare(server, store, BatchExecutor(wait=False))
        assert caught.value.calls == CALLS
        assert list(caught.value.batches.values()) == ["in_progress"]
        assert "run the same work again" in str(caught.value)
    result = _compare(server, store, BatchExecutor(wait=False))
    assert result.to_dict()["n_not_run"] == 0
    assert result.to_dict()["calls"]["made"] == CALLS
    stats = server.stats()
    assert (stats["batches_created"], stats["batch_requests"]) == (1, CALLS)
    assert _batch_tables(store)[0][0][4] is not None  # collected
    again = _compare(server, store, BatchExecutor(wait=False))  # all cached: no batch
    assert again.to_dict()["calls"]["cached"] == CALLS
    assert server.stats()["batches_created"] == 1


def test_an_online_run_over_an_uncollected_batch_names_executor_and_pays_nothing(
    server: BatchServer, tmp_path: Path
) -> None:
    from fairjudge.cli._flags import to_flags

    server.configure_batches(delay_polls=3)
    store = tmp_path / "s.sqlite"
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False))
    server.reset()
    with pytest.raises(ConfigError) as refused:
        _compare(server, store)  # executor=None: the same calls online
    message = str(refused.value)
    assert refused.value.params == ("executor",)
    assert "batch_api" not in message
    assert "submitted by an earlier run with executor=BatchExecutor()" in message
    assert "run the same work again with executor=BatchExecutor() to collect them" in message
    assert "BatchExecutor(wait=True) polls until the batch ends" in message
    assert server.stats().get("requests", 0) == 0
    shown = to_flags(message, refused.value.params, "compare")
    assert "submitted by an earlier --batch-api run and not collected yet" in shown
    assert (
        "run the same command with --batch-api to collect them (add --wait to poll until "
        "the batch ends); a batch the provider no longer knows (a 404" in shown
    )
    assert "BatchExecutor" not in shown


def test_only_uncached_calls_are_submitted(server: BatchServer, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    _compare(server, store, items=ITEMS[:2])  # online: 4 calls in the store
    server.reset()
    result = _compare(server, store, BatchExecutor(poll_s=0.01))
    assert result.to_dict()["calls"]["cached"] == 4
    assert server.stats()["batch_requests"] == CALLS - 4
    assert server.stats().get("requests", 0) == CALLS - 4


def test_a_call_another_process_holds_is_not_submitted(server: BatchServer, tmp_path: Path) -> None:
    _compare(server, tmp_path / "keys.sqlite")  # online, to learn the first item's keys
    with Store(tmp_path / "keys.sqlite") as known:
        keys = [r.key for r in known.records() if ITEMS[0]["question"] in json.dumps(r.spec)]
    assert len(keys) == 2
    server.reset()
    server.configure_batches(delay_polls=0)
    store = tmp_path / "s.sqlite"
    with Store(store) as other:
        assert other.claim(keys) == keys
        with pytest.raises(BatchPending) as caught:
            _compare(server, store, BatchExecutor(wait=False, poll_s=0.01))
    assert server.stats()["batch_requests"] == CALLS - len(keys)
    assert "2 held by another process" in str(caught.value)
    assert caught.value.calls == 2


def test_a_refused_request_is_kept_and_never_submitted_again_by_a_batch_run(
    server: BatchServer, tmp_path: Path
) -> None:
    """A request the provider refused fails again if sent again: its error is its outcome.

    Before, every batch run submitted it again (and a run without ``wait`` stopped on
    its batch each time); an online run still makes it again, as any failed call.
    """
    marker = "OVERLONG"
    items = [dict(ITEMS[0], question=ITEMS[0]["question"] + " " + marker), *ITEMS[1:]]
    server.configure(too_long_marker=marker)
    store = tmp_path / "s.sqlite"
    first = _compare(server, store, BatchExecutor(poll_s=0.01), items=items).to_dict()
    assert first["n_call_errors"] == 2
    assert first["calls"]["failed"] == 2
    with Store(store) as opened:
        errors = list(opened.records(status="error"))
    assert {e.error_kind for e in errors} == {"RequestRejected"}
    assert all("maximum context length" in (e.error_message or "") for e in errors)
    server.reset()
    for _ in range(2):
        again = _compare(server, store, BatchExecutor(wait=False), items=items).to_dict()
        assert again["n_call_errors"] == 2  # served from the store, as a reply is
        assert (again["calls"]["cached"], again["calls"]["made"]) == (CALLS, 0)
    assert server.stats().get("batch_requests", 0) == 0
    assert server.stats().get("files_uploaded", 0) == 0
    server.configure(too_long_marker=None)
    online = _compare(server, store, items=items).to_dict()  # online: made again
    assert online["n_call_errors"] == 0
    assert server.stats()["requests"] == 2


def test_a_batch_refused_for_the_enqueued_token_limit_is_submitted_again(
    server: BatchServer, tmp_path: Path
) -> None:
    """OpenAI fails a batch whole when the organisation's enqueued tokens are spent."""
    server.configure_batches(token_limit_reached=True)
    store = tmp_path / "s.sqlite"
    first = _compare(server, store, BatchExecutor(poll_s=0.01)).to_dict()
    assert first["calls"]["failed"] == CALLS
    with Store(store) as opened:
        errors = list(opened.records(status="error"))
    assert {e.error_kind for e in errors} == {"RateLimitError"}
    assert all("token_limit_exceeded" in (e.error_message or "") for e in errors)
    server.configure_batches(token_limit_reached=False)
    second = _compare(server, store, BatchExecutor(poll_s=0.01)).to_dict()
    assert (second["n_call_errors"], second["calls"]["made"]) == (0, CALLS)
    assert server.stats()["batches_created"] == 2


@pytest.mark.parametrize(
    ("end", "word"), [("expired", "batch_expired"), ("cancelled", "batch_cancelled")]
)
def test_an_ended_batch_keeps_what_ran_and_the_rerun_submits_the_rest(
    server: BatchServer, tmp_path: Path, end: str, word: str
) -> None:
    server.configure_batches(end=end, finished_before_end=5)
    store = tmp_path / "s.sqlite"
    first = _compare(server, store, BatchExecutor(poll_s=0.01)).to_dict()
    assert first["calls"]["failed"] == CALLS - 5
    with Store(store) as opened:
        assert opened.count(status="ok") == 5
        messages = [r.error_message or "" for r in opened.records(status="error")]
    assert len(messages) == CALLS - 5
    assert all(word in m for m in messages)
    assert _batch_tables(store)[0][0][2] == end
    server.configure_batches(end="completed")
    server.reset()
    second = _compare(server, store, BatchExecutor(poll_s=0.01)).to_dict()
    assert second["n_call_errors"] == 0
    assert server.stats()["batch_requests"] == CALLS - 5
    assert second["calls"]["cached"] == 5


def test_a_refused_batch_fails_each_call_with_the_providers_reasons(
    server: BatchServer, tmp_path: Path
) -> None:
    """A duplicate custom_id (which fairjudge never sends) makes OpenAI fail the batch."""
    import asyncio

    backend = OpenAIBackend("gpt-4o-mini", base_url=server.base_url)
    prompt = "<answer_a>\nx\n</answer_a>\n<answer_b>\ny\n</answer_b>"
    spec = CallSpec(
        "openai", "gpt-4o-mini", (("user", prompt),), "default", "1", {"max_tokens": 8},
        base_url=server.base_url,
    )  # fmt: skip

    async def run() -> Any:
        client = OpenAIBatch(backend)
        state = await client.submit([("same", spec), ("same", spec)])
        while not state.ended:
            state = await client.poll(state.id)
        outcomes = await client.results(state, ["same"])
        await client.aclose()
        return state, outcomes

    state, outcomes = asyncio.run(run())
    assert state.status == "failed"
    assert "duplicate_custom_id" in state.errors
    assert isinstance(outcomes["same"], RequestRejected)
    assert "line 2: duplicate_custom_id" in str(outcomes["same"])


def test_max_calls_caps_what_is_submitted(server: BatchServer, tmp_path: Path) -> None:
    result = _compare(server, tmp_path / "s.sqlite", BatchExecutor(poll_s=0.01), max_calls=4)
    data = result.to_dict()
    assert data["stopped"] is not None
    assert data["calls"]["made"] == 4
    assert server.stats()["batch_requests"] == 4


def test_max_cost_is_held_against_the_estimate_before_submission(
    server: BatchServer, tmp_path: Path
) -> None:
    # Each call's estimate at $1 / $1 per million tokens is about 70 tokens, so
    # 0.0002 dollars lets the first two of twelve calls in.
    result = _compare(
        server,
        tmp_path / "s.sqlite",
        BatchExecutor(poll_s=0.01),
        prices=Prices(1.0, 1.0),
        max_cost=0.0002,
    )
    data = result.to_dict()
    made = data["calls"]["made"]
    assert 0 < made < CALLS
    assert server.stats()["batch_requests"] == made
    assert data["calls"]["cost_usd"] <= 0.0002
    assert "committed money" in str(data["stopped"])


def test_a_backend_without_a_batch_api_is_refused_before_any_call(tmp_path: Path) -> None:
    from tests.runner._fakes import FakeBackend

    fake = FakeBackend()
    with pytest.raises(ConfigError) as caught:
        BatchExecutor().check([fake])
    assert caught.value.params == ("executor",)
    assert "fake/" in str(caught.value)
    with (
        pytest.raises(ConfigError),
        JudgeSession(fake, store=":memory:", executor=BatchExecutor()) as s,
    ):
        s.run([Job(_spec(fake), None)], lambda completion, context: completion.text)  # type: ignore[arg-type]
    assert fake.calls == 0


def _spec(backend: Backend) -> CallSpec:
    return CallSpec(
        backend.name, backend.model, (("user", "q"),), "t", "1", base_url=backend.base_url
    )


def test_a_bad_poll_interval_is_refused() -> None:
    for bad in (0, -1.0, float("nan"), True, "5"):
        with pytest.raises(ConfigError) as caught:
            BatchExecutor(poll_s=bad)  # type: ignore[arg-type]
        assert caught.value.params == ("batch_poll_s",)


def test_anthropic_message_batches_equal_an_online_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = AnthropicEmulator(Script(judge="longer"))
    with BatchServer(batch=BatchScript(delay_polls=2), app=app) as server:
        assert server.api_key is not None
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
        judge, prices = "anthropic/claude-3-5-haiku-latest", Prices(0.8, 4.0)
        online = _compare(
            server, tmp_path / "o.sqlite", judge=judge, base_url=server.root, prices=prices
        )
        server.reset()
        batched = _compare(
            server, tmp_path / "b.sqlite", BatchExecutor(poll_s=0.01), judge=judge,
            base_url=server.root, prices=prices,
        )  # fmt: skip
        stats = server.stats()
    assert _without_run_facts(batched) == _without_run_facts(online)
    assert batched.to_dict()["calls"]["cost_usd"] == pytest.approx(
        online.to_dict()["calls"]["cost_usd"] / 2
    )
    assert (stats["batches_created"], stats["batch_requests"]) == (1, CALLS)
    assert _batch_tables(tmp_path / "b.sqlite")[0][0][1:3] == ("anthropic", "ended")


def test_an_unknown_model_learns_from_one_online_call_before_its_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reasoning model the table does not know refuses max_tokens, temperature, logprobs."""
    app = OpenAIEmulator(Script(judge="longer"), reasoning_models=("acme-reasoner",))
    with BatchServer(batch=BatchScript(delay_polls=0), app=app) as server:
        assert server.api_key is not None
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        result = _compare(
            server, tmp_path / "s.sqlite", BatchExecutor(poll_s=0.01), judge="openai/acme-reasoner"
        ).to_dict()
        stats = server.stats()
    assert result["n_call_errors"] == 0
    assert result["calls"]["made"] == CALLS
    assert stats["batch_requests"] == CALLS - 1  # one call went online, and taught the rest
    assert 0 < stats["refused"] <= 3  # its online refusals; none inside the batch


def test_an_unknown_models_batch_is_held_against_max_cost_at_the_cap_it_is_sent_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The online call teaches max_completion_tokens with room to reason (8,200 tokens).

    That cap, not the spec's 8, is what each batch line is sent with and what the batch
    is estimated at: at $10 per million output tokens, half price, $0.041 a call, more
    than the budget has left after the online call. Before, the lines were estimated at
    the spec's cap and all eleven were submitted: $0.0171 spent of $0.01.
    """
    max_cost = 0.01
    with _unknown_model_server([]) as server:
        assert server.api_key is not None
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        data = _compare(
            server, tmp_path / "s.sqlite", BatchExecutor(poll_s=0.01),
            judge="openai/acme-reasoner", prices=Prices(1.0, 10.0), max_cost=max_cost,
        ).to_dict()  # fmt: skip
        stats = server.stats()
    assert data["calls"]["made"] == 1  # the online call, which taught the cap
    assert stats.get("batch_requests", 0) == 0
    assert stats["refused"] == 3
    assert 0 < data["calls"]["cost_usd"] <= max_cost
    assert "committed money" in str(data["stopped"])


def _unknown_model_server(early: list[str | None]) -> BatchServer:
    """The batch emulator before a chat emulator whose first requests meet ``early`` faults."""
    app = OpenAIEmulator(
        Script(judge="longer"), reasoning_models=("acme-reasoner",), early_faults=early
    )
    return BatchServer(batch=BatchScript(delay_polls=0), app=app)


@pytest.mark.parametrize("fault", ["server_error", "reset"])
def test_an_unknown_models_failed_online_call_hands_its_turn_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """The first online call fails for good (one attempt allowed): the second one teaches."""
    with _unknown_model_server([fault]) as server:
        assert server.api_key is not None
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        result = _compare(
            server, tmp_path / "s.sqlite", BatchExecutor(poll_s=0.01),
            judge="openai/acme-reasoner", retry=RetryPolicy(max_attempts=1),
        ).to_dict()  # fmt: skip
        stats = server.stats()
    assert stats[f"early:{fault}"] == 1
    assert stats["batch_requests"] == CALLS - 2  # two calls went online; the second taught
    assert stats["refused"] == 3  # max_tokens, temperature, logprobs: online, once each
    assert result["n_call_errors"] == 1  # the call that met the fault, and only it
    assert result["calls"]["made"] == CALLS


def test_an_unknown_models_online_call_is_retried_before_the_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _unknown_model_server(["server_error"]) as server:
        assert server.api_key is not None
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        result = _compare(
            server, tmp_path / "s.sqlite", BatchExecutor(poll_s=0.01),
            judge="openai/acme-reasoner", retry=RetryPolicy(max_attempts=2, base_delay=0.01),
        ).to_dict()  # fmt: skip
        stats = server.stats()
    assert (result["n_call_errors"], result["calls"]["made"]) == (0, CALLS)
    assert stats["batch_requests"] == CALLS - 1
    assert stats["refused"] == 3


def test_no_batch_for_an_unknown_model_no_online_call_could_teach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _unknown_model_server(["server_error"] * 3) as server:
        assert server.api_key is not None
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        with pytest.raises(FatalBackendError) as caught:
            _compare(
                server, tmp_path / "s.sqlite", BatchExecutor(poll_s=0.01),
                judge="openai/acme-reasoner", retry=RetryPolicy(max_attempts=1),
            )  # fmt: skip
        stats = server.stats()
    message = str(caught.value)
    assert "openai/acme-reasoner" in message
    assert "only after an online call has shown what it refuses" in message
    assert "none of the 3 online calls tried was answered (the last: " in message
    assert f"Nothing was submitted for its other {CALLS - 3} calls" in message
    assert stats.get("files_uploaded", 0) == stats.get("batches_created", 0) == 0
    assert stats["early:server_error"] == 3
    assert stats.get("refused", 0) == 0
    # The three failed calls are error rows; the rest stay unmade for a rerun.
    with sqlite3.connect(tmp_path / "s.sqlite") as conn:
        rows = conn.execute("SELECT status, COUNT(*) FROM calls GROUP BY status").fetchall()
    assert rows == [("error", 3)]


class Killed(Exception):
    """Stands for a SIGKILL at one point of a submission."""


def _dying(when: str) -> Any:
    """An OpenAI batch client that dies just before or just after creating the batch."""

    class Dying(OpenAIBatch):
        async def create(self, file_id: str) -> Any:
            if when == "before":
                raise Killed
            await super().create(file_id)
            raise Killed

    return Dying


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_run_killed_between_upload_and_batch_makes_no_second_batch(
    server: BatchServer, tmp_path: Path, when: str
) -> None:
    store = tmp_path / "s.sqlite"
    with pytest.raises(Killed):
        _compare(server, store, BatchExecutor(poll_s=0.01, clients=_dying(when)))
    batches, members = _batch_tables(store)
    assert [(b[0][:5], b[2]) for b in batches] == [("file:", "uploaded")]
    assert len(members) == CALLS
    result = _compare(server, store, BatchExecutor(poll_s=0.01)).to_dict()
    assert result["calls"]["made"] == CALLS
    assert result["n_not_run"] == 0
    stats = server.stats()
    assert (stats["files_uploaded"], stats["batches_created"]) == (1, 1)
    assert stats["batch_requests"] == CALLS
    assert stats["batch_lists"] == 1  # the rerun looked for the batch before making one
    assert _batch_tables(store)[0][0][0].startswith("batch_")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_batches_are_split_by_bytes_as_well_as_by_requests(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenAI takes a file of 200 MB at most, Anthropic a batch of 256 MB: here 4,000 bytes.

    Before, batches were split by request count only: the emulator refused the upload
    (400 "File is too large.") or the batch (413 request_too_large) and the run stopped.
    """
    from fairjudge.backends._batch_clients import AnthropicBatch

    limit = 4_000
    client = OpenAIBatch if provider == "openai" else AnthropicBatch
    monkeypatch.setattr(client, "max_bytes", limit, raising=False)
    with provider_batches(monkeypatch, provider, delay_polls=0) as running:  # type: ignore[arg-type]
        running.configure_batches(max_file_bytes=limit, max_batch_bytes=limit)
        judge = MODEL if provider == "openai" else "anthropic/claude-3-5-haiku-latest"
        base = running.base_url if provider == "openai" else running.root
        result = _compare(
            running, tmp_path / "s.sqlite", BatchExecutor(poll_s=0.01), judge=judge, base_url=base
        ).to_dict()
        stats = running.stats()
    assert (result["n_call_errors"], result["calls"]["made"]) == (0, CALLS)
    assert stats.get("batch_refused", 0) == 0
    assert stats["batch_requests"] == CALLS
    assert 1 < stats["batches_created"] < CALLS  # a few lines each, within the limit


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_emulator_refuses_a_batch_over_its_byte_limit_with_the_real_error(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from fairjudge.backends._anthropic import AnthropicBackend
    from fairjudge.backends._batch_clients import AnthropicBatch

    with provider_batches(monkeypatch, provider) as running:  # type: ignore[arg-type]
        running.configure_batches(max_file_bytes=500, max_batch_bytes=500)
        backend: Any
        if provider == "openai":
            backend = OpenAIBackend("gpt-4o-mini", base_url=running.base_url)
            client: Any = OpenAIBatch(backend)
        else:
            backend = AnthropicBackend("claude-3-5-haiku-latest", base_url=running.root)
            client = AnthropicBatch(backend)
        prompt = "<answer_a>\nx\n</answer_a>\n<answer_b>\ny\n</answer_b>" + " pad" * 200
        spec = CallSpec(
            backend.name, backend.model, (("user", prompt),), "default", "1",
            {"max_tokens": 8}, base_url=backend.base_url,
        )  # fmt: skip

        async def submit() -> Any:
            try:
                return await client.submit([("one", spec)])
            finally:
                await client.aclose()

        with pytest.raises(RequestRejected) as caught:
            asyncio.run(submit())
        stats = running.stats()
    said = str(caught.value)
    if provider == "openai":
        assert "HTTP 400" in said
        assert "File is too large." in said
        assert stats.get("files_uploaded", 0) == 0
    else:
        assert "HTTP 413" in said
        assert "Request exceeds the maximum allowed number of bytes." in said
        assert stats.get("batches_created", 0) == 0
    assert stats["batch_refused"] == 1


@pytest.mark.parametrize("name", ["concurrency", "rpm", "tpm"])
def test_options_that_pace_online_calls_are_refused_before_any_call(
    name: str, server: BatchServer, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError) as caught:
        _compare(server, tmp_path / "s.sqlite", BatchExecutor(poll_s=0.01), **{name: 4})
    assert caught.value.params == (name,)
    said = str(caught.value)
    assert "calls sent through a provider's batch API are paced by its own queue" in said
    assert said.endswith(f"not by {name}: drop {name}")
    assert server.stats().get("files_uploaded", 0) == 0
    assert server.stats().get("requests", 0) == 0
