"""Your own judge on the engine: a 0.05 s judge at concurrency 32 against one call at a time.

A team's own judge is a Python function around a gateway; its calls wait on the
network, so they overlap. This measures what running it on fairjudge's engine buys,
in one run, on one machine:

- ``sync``: a plain ``def`` judge that sleeps 0.05 s per call (a gateway's latency),
  2,000 calls at ``concurrency=32`` (a pool of 32 threads), through
  :class:`fairjudge.judges.CallableJudge` with ``RunOptions(concurrency=32)``: store,
  rate limit, retries and progress machinery all inside the timing.
- ``sync, serial``: the same judge at ``concurrency=1``, which is how a sync judge
  ran before (one call at a time). It is measured on a subset of ``--serial-calls``
  calls (200 by default; 2,000 would take 100 s) and scaled to 2,000 calls linearly:
  serial calls cost the same each, so the scaled figure is the serial time of the
  full run, to within the start-up of one batch. The table says which rows are scaled.
- ``async``: an ``async def`` judge that awaits ``asyncio.sleep(0.05)``, 2,000 calls at
  concurrency 32, on the session's event loop (no threads).
- ``declared, rerun``: a judge declared with ``@fairjudge.judge_function(name=...,
  version=...)`` run twice on one store: the second run makes 0 calls (counted by the
  judge) and its time is the store's.

The ideal at concurrency 32 is 2,000 x 0.05 / 32 = 3.1 s, 1/32 of the serial 100 s.
``vs serial`` is the serial time (scaled) over the row's; ``of ideal`` is the ideal
time over the row's time.

Run: ``nice python benchmarks/bench_own_judge.py [--calls 2000] [--serial-calls 200]``.
Writes ``benchmarks/results/bench_own_judge.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _common import environment, table, write_json

import fairjudge
from fairjudge.judges import CallableJudge, PairwiseRequest
from fairjudge.runner import RunOptions

LATENCY_S = 0.05
CONCURRENCY = 32


class Count:
    """Calls made, counted by the judge itself (under a lock: threads call it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls = 0

    def add(self) -> None:
        with self.lock:
            self.calls += 1


def requests(n: int) -> list[PairwiseRequest]:
    return [PairwiseRequest(f"question {i}", "short", "a longer answer") for i in range(n)]


def timed(judge: Any, n: int, concurrency: int, store: Path | None = None) -> tuple[float, int]:
    """Seconds for one batch of ``n`` calls, and the calls the run made (from its summary)."""
    options = RunOptions(concurrency=concurrency, progress="quiet")
    with CallableJudge(judge, options=options, store=store) as own:
        batch = requests(n)
        start = time.perf_counter()
        replies = own.judge_batch(batch)
        seconds = time.perf_counter() - start
        summary = own.last_run
    assert all(r.ok for r in replies), [r.failure for r in replies if not r.ok][:3]
    return seconds, summary.made if summary is not None else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--serial-calls", type=int, default=200)
    args = parser.parse_args()
    n, n_serial = args.calls, args.serial_calls
    count = Count()

    def sync_judge(question: str, answer_a: str, answer_b: str) -> str:
        count.add()
        time.sleep(LATENCY_S)
        return "B" if len(answer_b) > len(answer_a) else "A"

    async def async_judge(question: str, answer_a: str, answer_b: str) -> str:
        count.add()
        await asyncio.sleep(LATENCY_S)
        return "B" if len(answer_b) > len(answer_a) else "A"

    @fairjudge.judge_function(name="bench-gateway", version="1")
    def declared(question: str, answer_a: str, answer_b: str) -> str:
        return sync_judge(question, answer_a, answer_b)

    serial_s, _ = timed(sync_judge, n_serial, 1)
    serial_full = serial_s * n / n_serial
    ideal = n * LATENCY_S / CONCURRENCY
    rows: list[dict[str, Any]] = [
        {"judge": "sync, serial", "concurrency": 1, "calls": n_serial, "seconds": serial_s,
         "scaled_to": n, "seconds_for_all": serial_full},
    ]  # fmt: skip
    for name, judge in (("sync", sync_judge), ("async", async_judge)):
        before = count.calls
        seconds, made = timed(judge, n, CONCURRENCY)
        rows.append({"judge": name, "concurrency": CONCURRENCY, "calls": made,
                     "judge_counted": count.calls - before, "seconds": seconds,
                     "seconds_for_all": seconds})  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store.sqlite"
        timed(declared, n, CONCURRENCY, store)
        before = count.calls
        seconds, made = timed(declared, n, CONCURRENCY, store)
        rows.append({"judge": "declared, rerun", "concurrency": CONCURRENCY, "calls": made,
                     "judge_counted": count.calls - before, "seconds": seconds,
                     "seconds_for_all": seconds})  # fmt: skip
    for row in rows:
        row["vs_serial"] = serial_full / row["seconds_for_all"]
        row["of_ideal"] = ideal / row["seconds_for_all"] if row["calls"] else None
    print(
        f"{n} calls of a {LATENCY_S} s judge; ideal at concurrency {CONCURRENCY}: {ideal:.2f} s; "
        f"serial measured on {n_serial} calls and scaled to {n}"
    )
    print(
        table(
            ["judge", "concurrency", "calls made", "seconds", f"seconds for {n}", "vs serial",
             "of ideal"],
            [[r["judge"], r["concurrency"], r["calls"], f"{r['seconds']:.2f}",
              f"{r['seconds_for_all']:.2f}" + (" (scaled)" if "scaled_to" in r else ""),
              f"{r['vs_serial']:.1f}x",
              "-" if r["of_ideal"] is None else f"{r['of_ideal']:.0%}"] for r in rows],
        )
    )  # fmt: skip
    path = write_json(
        "bench_own_judge",
        {"environment": environment(), "latency_s": LATENCY_S, "calls": n,
         "serial_calls": n_serial, "concurrency": CONCURRENCY, "ideal_s": ideal, "rows": rows},
    )  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
