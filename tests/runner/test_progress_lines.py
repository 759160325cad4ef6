"""The plain progress lines say only what is true: slow calls, stuck calls, cached and stopped runs.

A fake clock drives :class:`PlainProgress` (its print interval) and the snapshots'
``elapsed``, so every line is asserted exactly.
"""

from __future__ import annotations

import io

import pytest

from fairjudge.runner import RunOptions
from fairjudge.runner._progress import PlainProgress, Snapshot
from fairjudge.runner._tally import Tally


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr("fairjudge.runner._progress.time.monotonic", fake)
    return fake


def lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_slow_calls_show_seconds_per_call_and_are_not_waiting(clock: FakeClock) -> None:
    # A local judge: one call at a time, each 5-10 s; the median so far is 7 s.
    stream = io.StringIO()
    progress = PlainProgress(stream, interval=10.0, label="audit")
    progress.start(Snapshot(40, 0, 0, 0, 0, 0.0))
    clock.now += 10
    progress.update(Snapshot(40, 0, 1, 0, 0, 10.0, in_flight=1, longest_wait=3.0))
    clock.now += 10
    # 3 calls in 20 s, the one in flight at 12 s: usual for 5-10 s calls (4 x 7 s = 28 s).
    snap = Snapshot(40, 0, 3, 0, 0, 20.0, in_flight=1, longest_wait=12.0, median_call_s=7.0)
    progress.update(snap)
    clock.now += 5  # under the interval: no line
    progress.update(snap)
    assert lines(stream) == [
        "fairjudge: audit: 40 calls: 0 cached, 40 to make",
        "fairjudge: audit: 1/40 calls (0 cached, 0 failed, 0 retries) 10.0 s/call, ETA 6:30",
        "fairjudge: audit: 3/40 calls (0 cached, 0 failed, 0 retries) 6.7 s/call, ETA 4:07",
    ]


def test_fast_calls_keep_the_per_second_rate() -> None:
    snap = Snapshot(100, 10, 40, 2, 1, 20.0)
    assert snap.line() == "52/100 calls (10 cached, 2 failed, 1 retries) 2.1/s, ETA 0:23"


def test_a_long_stuck_call_is_still_waiting(clock: FakeClock) -> None:
    stream = io.StringIO()
    progress = PlainProgress(stream, interval=0.0)
    progress.start(Snapshot(40, 0, 0, 0, 0, 0.0))
    # Calls usually take 7 s; one has been in flight 45 s.
    stuck = Snapshot(40, 0, 5, 0, 0, 80.0, in_flight=1, longest_wait=45.2, median_call_s=7.0)
    progress.update(stuck)
    # Before the first reply there is nothing to compare with: in flight, not waiting.
    first = Snapshot(40, 0, 0, 0, 0, 30.0, in_flight=1, longest_wait=30.0)
    progress.update(first)
    assert lines(stream)[1:] == [
        "fairjudge: 5/40 calls (0 cached, 0 failed, 0 retries) 16.0 s/call, ETA 9:20, "
        "1 waiting (longest 45 s)",
        "fairjudge: 0/40 calls (0 cached, 0 failed, 0 retries) ?/s, ETA ?, "
        "1 in flight (longest 30 s)",
    ]


def test_a_fully_cached_run_says_so_without_rate_or_eta(clock: FakeClock) -> None:
    stream = io.StringIO()
    progress = PlainProgress(stream)
    progress.start(Snapshot(40, 40, 0, 0, 0, 0.0))
    progress.finish(Snapshot(40, 40, 0, 0, 0, 0.01))
    assert lines(stream) == [
        "fairjudge: 40 calls: 40 cached, 0 to make",
        "fairjudge: done: 40/40 calls (40 cached, 0 failed, 0 retries) all from the store in 0:00",
    ]


def test_a_finished_run_shows_its_rate_and_no_eta(clock: FakeClock) -> None:
    stream = io.StringIO()
    PlainProgress(stream).finish(Snapshot(40, 10, 29, 1, 2, 224.0))
    assert lines(stream) == [
        "fairjudge: done: 40/40 calls (10 cached, 1 failed, 2 retries) 7.5 s/call in 3:44"
    ]


def test_a_stopped_run_shows_no_eta(clock: FakeClock) -> None:
    stream = io.StringIO()
    progress = PlainProgress(stream, interval=0.0)
    progress.start(Snapshot(40, 0, 0, 0, 0, 0.0))
    clock.now += 20
    progress.finish(Snapshot(40, 0, 2, 0, 0, 20.0, in_flight=1, longest_wait=9.0))
    progress.finish(Snapshot(40, 0, 0, 0, 0, 3.0))  # stopped before any reply
    assert lines(stream)[1:] == [
        "fairjudge: stopped early: 2/40 calls (0 cached, 0 failed, 0 retries) 10.0 s/call in 0:20",
        "fairjudge: stopped early: 0/40 calls (0 cached, 0 failed, 0 retries) in 0:03",
    ]


def test_the_tally_reports_the_median_request_time() -> None:
    tally = Tally(RunOptions(progress="quiet"))
    assert tally._median_request_s() is None
    tally._answered_after(0.0, 5.0)
    tally._answered_after(10.0, 19.0)
    tally._answered_after(20.0, 27.0)
    tally._answered_after(None, 40.0)  # a request no longer in flight: not counted
    assert tally._median_request_s() == 7.0
