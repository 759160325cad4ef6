from __future__ import annotations

import asyncio
import io
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge import (
    AuthenticationError,
    BackendTimeout,
    ConfigError,
    FatalBackendError,
    RateLimitError,
    ServerError,
)
from fairjudge._call import CallSpec, Completion
from fairjudge.runner import Prices, RetryPolicy, RunOptions, RunResult, Store, run_calls
from fairjudge.runner._limits import TokenBucket
from fairjudge.runner._progress import PlainProgress, RichProgress
from tests.runner._fakes import FakeBackend, FakeClock, make_spec

FAST = RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.002)
SECRET = "sk-proj-THISisAfakeKEY0123456789abcdef"


def run(backend: FakeBackend, specs: list[CallSpec], store: Store, **options: Any) -> RunResult:
    options.setdefault("progress", "quiet")
    options.setdefault("retry", FAST)
    hooks = {
        k: options.pop(k) for k in ("on_progress", "parse", "rng", "clock", "sleep") if k in options
    }
    return asyncio.run(
        run_calls(backend, specs, store=store, options=RunOptions(**options), **hooks)
    )


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with Store(tmp_path / "store.sqlite") as s:
        yield s


# -- cache and dedupe ---------------------------------------------------------------------


def test_dedupes_and_keeps_input_order(store: Store) -> None:
    specs = [make_spec(i % 5) for i in range(12)]
    backend = FakeBackend(lambda spec, _: spec.messages[-1][1])
    result = run(backend, specs, store)
    assert backend.calls == 5
    assert len(result) == 12
    assert [o.completion.text for o in result if o.completion] == [
        f"question {i % 5}" for i in range(12)
    ]
    s = result.summary
    assert (s.total, s.made, s.cached, s.failed, s.not_run) == (5, 5, 0, 0, 0)


def test_second_run_is_served_from_the_store(store: Store) -> None:
    specs = [make_spec(i) for i in range(40)]
    first = run(FakeBackend(), specs, store)
    assert first.summary.made == 40
    backend = FakeBackend()
    second = run(backend, specs, store)
    assert backend.calls == 0
    assert second.summary.cached == 40
    assert second.summary.made == 0
    assert all(o.cached and o.ok for o in second)
    assert [o.completion for o in second] == [o.completion for o in first]


def test_parse_result_is_stored(store: Store) -> None:
    spec = make_spec(1)
    result = run(FakeBackend(), [spec], store, parse=lambda s, c: {"verdict": c.text})
    assert result[spec.key].parsed == {"verdict": "A"}
    row = store.get(spec.key)
    assert row is not None
    assert row.parsed == {"verdict": "A"}
    assert row.status == "ok"


def test_a_broken_parser_keeps_the_reply(store: Store) -> None:
    def parse(spec: CallSpec, completion: Completion) -> dict[str, Any]:
        raise KeyError("boom")

    spec = make_spec(1)
    result = run(FakeBackend(), [spec], store, parse=parse)
    assert result[spec.key].ok
    row = store.get(spec.key)
    assert row is not None
    assert row.parsed == {"parser_error": "KeyError: 'boom'"}


# -- concurrency --------------------------------------------------------------------------


def test_concurrency_is_bounded(store: Store) -> None:
    backend = FakeBackend(latency=0.005)
    run(backend, [make_spec(i) for i in range(60)], store, concurrency=4)
    assert backend.max_in_flight == 4


def test_backend_max_concurrency_is_honoured(store: Store) -> None:
    backend = FakeBackend(latency=0.005, max_concurrency=1)
    run(backend, [make_spec(i) for i in range(10)], store, concurrency=16)
    assert backend.max_in_flight == 1


# -- retries ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [RateLimitError("429", retry_after=None), BackendTimeout("slow"), ServerError("500")],
)
def test_retryable_errors_are_retried(store: Store, error: Exception) -> None:
    backend = FakeBackend(lambda spec, attempt: error if attempt <= 2 else "B")
    result = run(backend, [make_spec(i) for i in range(10)], store)
    assert all(o.ok and o.attempts == 3 for o in result)
    s = result.summary
    assert (s.made, s.failed, s.retries, s.requests) == (10, 0, 20, 30)


def test_retry_after_is_honoured(store: Store) -> None:
    policy = RetryPolicy(max_attempts=3, base_delay=0.0, max_delay=0.0)
    backend = FakeBackend(
        lambda spec, attempt: RateLimitError("429", retry_after=0.05) if attempt == 1 else "A"
    )
    clock = FakeClock()  # the waits move it: no real time passes
    specs = [make_spec(i) for i in range(4)]
    result = run(backend, specs, store, retry=policy, clock=clock, sleep=clock.sleep)
    assert result.summary.retries == 4
    # With no backoff of its own, the runner waited exactly what the server asked.
    assert result.summary.backoff_s == pytest.approx(4 * 0.05)


@given(
    attempt=st.integers(1, 20),
    retry_after=st.none() | st.floats(0, 1000),
    seed=st.integers(0, 2**32),
)
def test_retry_delay_bounds(attempt: int, retry_after: float | None, seed: int) -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=30.0, max_retry_after=300.0)
    delay = policy.delay(RateLimitError("429", retry_after), attempt, random.Random(seed))
    cap = min(30.0, 0.5 * 2 ** (attempt - 1))
    if retry_after is None:
        assert 0 <= delay <= cap
    else:
        assert min(retry_after, 300.0) <= delay <= max(min(retry_after, 300.0), cap)


def test_errors_after_retries_are_records_and_retried_next_run(store: Store) -> None:
    spec = make_spec(1)
    failing = FakeBackend(lambda s, a: ServerError("HTTP 502 from upstream"))
    result = run(failing, [spec, make_spec(2)], store)
    outcome = result[spec.key]
    assert outcome.status == "error"
    assert outcome.attempts == FAST.max_attempts
    assert outcome.error is not None
    assert outcome.error.kind == "ServerError"
    assert outcome.error.message == "HTTP 502 from upstream"
    assert result.summary.failed == 2
    assert result.summary.made == 2
    row = store.get(spec.key)
    assert row is not None
    assert row.status == "error"
    assert row.error_kind == "ServerError"

    healed = FakeBackend()
    again = run(healed, [spec, make_spec(2)], store)
    assert healed.calls == 2
    assert all(o.ok and not o.cached for o in again)
    row = store.get(spec.key)
    assert row is not None
    assert row.status == "ok"
    assert row.attempts == FAST.max_attempts + 1


def test_an_unexpected_backend_exception_is_that_calls_error(store: Store) -> None:
    backend = FakeBackend(lambda s, a: TypeError("bug") if s.messages[-1][1].endswith("3") else "A")
    result = run(backend, [make_spec(i) for i in range(5)], store)
    assert [o.status for o in result] == ["ok", "ok", "ok", "error", "ok"]
    assert backend.attempts[make_spec(3).key] == 1  # not retried


# -- fatal errors -------------------------------------------------------------------------


def test_fatal_error_stops_at_once_and_keeps_finished_calls(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    specs = [make_spec(i) for i in range(200)]
    bad = specs[20].key

    def script(spec: CallSpec, attempt: int) -> Any:
        if spec.key == bad:
            return AuthenticationError(f"401 Incorrect API key provided: {SECRET}")
        return "A"

    backend = FakeBackend(script, latency=0.002)
    with pytest.raises(AuthenticationError) as info:
        run(backend, specs, store, concurrency=4)
    message = str(info.value)
    assert SECRET not in message
    assert "sk-proj" not in message
    assert "fake judge 'fake-model'" in message
    assert "run again" in message
    assert backend.calls <= 21 + 4  # nothing started after the failure
    assert backend.attempts[bad] == 1  # never retried
    assert store.count(status="ok") >= 20
    row = store.get(bad)
    assert row is not None
    assert row.status == "error"
    assert row.error_kind == "AuthenticationError"
    # The rerun pays only for what was not finished.
    rerun = FakeBackend()
    result = run(rerun, specs, store)
    assert rerun.calls == 200 - store.count(status="ok") + result.summary.made
    assert result.summary.cached + result.summary.made == 200


def test_fatal_error_cancels_calls_in_flight(store: Store) -> None:
    def script(spec: CallSpec, attempt: int) -> Any:
        return FatalBackendError("404 model not found") if spec.key == first else "A"

    specs = [make_spec(i) for i in range(8)]
    first = specs[0].key
    backend = FakeBackend(script, latency=0.0)
    slow = FakeBackend(latency=30.0)

    class Mixed(FakeBackend):
        async def complete(self, spec: CallSpec) -> Completion:
            if spec.key == first:
                return await backend.complete(spec)
            return await slow.complete(spec)

    with pytest.raises(FatalBackendError, match="404 model not found"):
        run(Mixed(), specs, store, concurrency=8)
    assert slow.cancelled == 7


# -- budgets ------------------------------------------------------------------------------


def test_max_calls_stops_cleanly_and_a_rerun_continues(store: Store) -> None:
    specs = [make_spec(i) for i in range(20)]
    backend = FakeBackend()
    result = run(backend, specs, store, max_calls=5, concurrency=3)
    s = result.summary
    assert (s.made, s.not_run, s.stopped) == (5, 15, "max_calls")
    assert backend.calls == 5
    assert [o.status for o in result].count("not_run") == 15
    assert store.count(status="ok") == 5
    more = FakeBackend()
    rest = run(more, specs, store)
    assert more.calls == 15
    assert rest.summary.cached == 5
    assert rest.summary.stopped is None


def test_max_cost_never_starts_a_call_it_cannot_pay_for(store: Store) -> None:
    # 45 characters (40 + "judge") -> 11 tokens, + 4 per message x 2 = 19 tokens.
    specs = [make_spec(i, text=f"{i:040d}") for i in range(10)]
    prices = Prices(input_per_million=1_000_000, output_per_million=0)  # $1 per input token

    def script(spec: CallSpec, attempt: int) -> Completion:
        return Completion(text="A", input_tokens=19, output_tokens=1)

    result = run(FakeBackend(script), specs, store, max_cost=60.0, prices=prices, concurrency=2)
    s = result.summary
    assert (s.made, s.not_run, s.stopped) == (3, 7, "max_cost")
    assert s.cost_usd == pytest.approx(57.0)
    assert s.input_tokens == 57
    assert s.output_tokens == 3


def test_max_cost_needs_prices(store: Store) -> None:
    with pytest.raises(ConfigError, match="prices"):
        run(FakeBackend(), [make_spec(1)], store, max_cost=1.0)


@pytest.mark.parametrize(
    "options",
    [{"concurrency": 0}, {"rpm": 0}, {"tpm": -1}, {"max_calls": -1}],
)
def test_bad_options(store: Store, options: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        run(FakeBackend(), [make_spec(1)], store, **options)


def test_costs_and_tokens_are_summed(store: Store) -> None:
    def script(spec: CallSpec, attempt: int) -> Completion:
        return Completion(text="A", input_tokens=1000, output_tokens=10)

    result = run(
        FakeBackend(script), [make_spec(i) for i in range(4)], store, prices=Prices(2.5, 10)
    )
    s = result.summary
    assert (s.input_tokens, s.output_tokens) == (4000, 40)
    assert s.cost_usd == pytest.approx(4 * 0.0026)
    assert store.get(make_spec(0).key).cost_usd == pytest.approx(0.0026)  # type: ignore[union-attr]
    assert "est. $0.0104" in s.summary()


# -- rate limits --------------------------------------------------------------------------


def test_token_bucket_waits_exactly() -> None:
    bucket = TokenBucket(rate=2.0, capacity=2.0, now=0.0)
    assert bucket.reserve(1, now=0.0) == 0.0
    assert bucket.reserve(1, now=0.0) == 0.0
    assert bucket.reserve(1, now=0.0) == pytest.approx(0.5)
    assert bucket.reserve(1, now=0.0) == pytest.approx(1.0)
    assert bucket.reserve(1, now=10.0) == 0.0  # refilled, but never above capacity
    assert bucket.reserve(5, now=10.0) == pytest.approx(2.0)  # bigger than the bucket: waits
    bucket.adjust(-4, now=10.0)  # the call was smaller than estimated
    assert bucket.reserve(1, now=10.0) == pytest.approx(0.5)  # 2.5 without the refund


def test_per_minute_bucket_is_smooth() -> None:
    bucket = TokenBucket.per_minute(120, now=0.0)  # 2 per second, bursts of 2
    waits = [bucket.reserve(1, now=0.0) for _ in range(6)]
    assert waits == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.5, 2.0])


def test_rpm_and_tpm_limits_run_to_completion(store: Store) -> None:
    specs = [make_spec(i) for i in range(6)]
    result = run(FakeBackend(), specs, store, rpm=60_000, tpm=10_000_000)
    assert result.summary.made == 6


# -- progress -----------------------------------------------------------------------------


def test_plain_progress_and_callback(store: Store) -> None:
    run(FakeBackend(), [make_spec(i) for i in range(3)], store)
    stream = io.StringIO()
    seen: list[int] = []
    run(
        FakeBackend(latency=0.01),
        [make_spec(i) for i in range(8)],
        store,
        progress=PlainProgress(stream, interval=0.0),
        on_progress=seen.append,
        concurrency=2,
    )
    assert sum(seen) == 8
    assert seen[0] == 3
    lines = stream.getvalue().splitlines()
    assert lines[0] == "fairjudge: 8 calls: 3 cached, 5 to make"
    assert lines[-1].startswith("fairjudge: done: 8/8 calls (3 cached, 0 failed, 0 retries)")


def test_rich_progress(store: Store) -> None:
    stream = io.StringIO()
    run(FakeBackend(), [make_spec(i) for i in range(5)], store, progress=RichProgress(stream))
    assert "5/5 cached 0 · failed 0" in stream.getvalue()


def test_quiet_prints_nothing(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    run(FakeBackend(), [make_spec(i) for i in range(3)], store, progress="quiet")
    assert capsys.readouterr() == ("", "")


# -- secrets and kills --------------------------------------------------------------------


def test_no_secret_reaches_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)

    def script(spec: CallSpec, attempt: int) -> Any:
        return ServerError(f"502 from proxy: Authorization: Bearer {SECRET}")

    with Store(tmp_path / "store.sqlite") as store:
        result = run(FakeBackend(script), [make_spec(i) for i in range(3)], store)
        assert all(o.error is not None and SECRET not in o.error.message for o in result)
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert SECRET.encode() not in blob
    assert b"THISisAfakeKEY" not in blob


_KILL_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from fairjudge.runner import RunOptions, Store, run_calls
    from tests.runner._fakes import FakeBackend, make_spec

    store = Store(sys.argv[1])
    backend = FakeBackend(latency=0.005, log=sys.argv[2])
    asyncio.run(run_calls(backend, [make_spec(i) for i in range(400)], store=store,
                          options=RunOptions(concurrency=8, progress="quiet")))
    """
)


@pytest.mark.slow
def test_killed_run_resumes_without_repeating_finished_calls(tmp_path: Path) -> None:
    db, log = tmp_path / "store.sqlite", tmp_path / "requests.log"
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILL_SCRIPT, str(db), str(log)],
        cwd=Path(__file__).parents[2],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if log.exists() and len(log.read_text().splitlines()) >= 100:
                break
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    first = len(log.read_text().splitlines())
    assert first < 400
    with Store(db) as store:
        backend = FakeBackend()
        result = run(backend, [make_spec(i) for i in range(400)], store, concurrency=8)
        assert result.summary.made + result.summary.cached == 400
        # Only calls in flight at the kill may be made twice.
        assert first + backend.calls <= 400 + 8
        assert store.count(status="ok") == 400
