"""A hanging call is bounded by the per-call limit, and the progress display says it waits."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from fairjudge import BackendTimeout, ServerError
from fairjudge._call import CallSpec
from fairjudge.runner import RetryPolicy, RunOptions, Store, run_calls
from fairjudge.runner._progress import PlainProgress, Snapshot
from tests.runner._fakes import FakeBackend, FakeClock, make_spec


def test_retries_stop_at_the_per_call_limit(tmp_path: Path) -> None:
    def script(spec: CallSpec, attempt: int) -> BaseException:
        return BackendTimeout("no reply within 0.05 s")

    # Attempts and backoffs take fake time: 0.05 s a request, up to 0.02 s a backoff.
    clock = FakeClock()
    backend = FakeBackend(script, latency=0.05, clock=clock)
    retry = RetryPolicy(max_attempts=100, base_delay=0.02, max_delay=0.02, max_call_s=0.3)
    options = RunOptions(retry=retry, progress="quiet")
    with Store(tmp_path / "s.sqlite") as store:
        result = asyncio.run(
            run_calls(
                backend,
                [make_spec(0)],
                store=store,
                options=options,
                clock=clock,
                sleep=clock.sleep,
            )
        )
    (outcome,) = result
    assert outcome.error is not None
    assert "gave up after 0 s: the per-call limit" in outcome.error.message
    assert 2 <= backend.calls <= 6  # bounded by time, not by the 100 attempts


def test_the_progress_line_shows_calls_waiting() -> None:
    snap = Snapshot(10, 0, 3, 0, 0, 70.0, in_flight=2, longest_wait=45.2, median_call_s=5.0)
    assert snap.line().endswith(", 2 waiting (longest 45 s)")
    assert Snapshot(10, 0, 3, 0, 0, 70.0, in_flight=2, longest_wait=1.0).waiting == ""
    # 12 s is usual when calls take 7 s: not "waiting" (a local judge, one call at a time)
    usual = Snapshot(10, 0, 3, 0, 0, 70.0, in_flight=1, longest_wait=12.0, median_call_s=7.0)
    assert usual.waiting == ""


def test_a_hanging_request_is_shown_while_it_waits(tmp_path: Path) -> None:
    stream = io.StringIO()
    backend = FakeBackend(latency=0.6)
    progress = PlainProgress(stream, interval=0.0)
    import fairjudge.runner._progress as progress_module

    old = progress_module.SLOW_CALL_S
    progress_module.SLOW_CALL_S = 0.3
    try:
        with Store(tmp_path / "s.sqlite") as store:
            asyncio.run(
                run_calls(
                    backend, [make_spec(0)], store=store, options=RunOptions(progress=progress)
                )
            )
    finally:
        progress_module.SLOW_CALL_S = old
    assert "1 in flight (longest" in stream.getvalue()  # no reply yet to call it unusual


def test_a_request_s_time_is_its_answered_attempt_without_the_back_off(tmp_path: Path) -> None:
    """The median request time (what "waiting" is measured against) counted a failed
    attempt's time with the back-off slept after it: here 1 s of back-off made a 0.05 s
    call's median 0.55 s. Only the attempt that answered is timed now."""

    def script(spec: CallSpec, attempt: int) -> BaseException | str:
        return ServerError("HTTP 500") if attempt == 1 else "A"

    async def back_off(seconds: float) -> None:  # every back-off takes 1 s
        await asyncio.sleep(1.0)

    finals: list[Snapshot] = []
    progress = PlainProgress(io.StringIO(), interval=3600.0)
    progress.finish = finals.append  # type: ignore[method-assign]
    options = RunOptions(progress=progress)
    with Store(tmp_path / "s.sqlite") as store:
        result = asyncio.run(
            run_calls(
                FakeBackend(script, latency=0.05), [make_spec(0)], store=store,
                options=options, sleep=back_off,
            )
        )  # fmt: skip
    assert result.summary.retries == 1
    (final,) = finals
    assert final.median_call_s is not None
    assert final.median_call_s < 0.4
