"""Your own judges for the tests: sync, async, objects, declared and not.

The CLI tests name them as ``python:tests.judges.own_judges:NAME``. Each call is
counted by the judge itself: a line in ``$FAIRJUDGE_TEST_CALLS`` when that is set,
so a test proves how many calls a run made (or that none was made).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time

import fairjudge


def _count() -> None:
    path = os.environ.get("FAIRJUDGE_TEST_CALLS")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("call\n")


def _pause() -> None:
    time.sleep(float(os.environ.get("FAIRJUDGE_TEST_DELAY", "0.02")))


def _longer(answer_a: str, answer_b: str) -> str:
    return "B" if len(answer_b) > len(answer_a) else "A"


async def async_longer(question: str, answer_a: str, answer_b: str) -> str:
    """An ``async def`` judge, awaited on the session's loop."""
    await asyncio.sleep(0)
    _count()
    return _longer(answer_a, answer_b)


def slow_longer(question: str, answer_a: str, answer_b: str) -> str:
    """Undeclared and slow ($FAIRJUDGE_TEST_DELAY s a call), so a test can interrupt it."""
    _count()
    _pause()
    return _longer(answer_a, answer_b)


@fairjudge.judge_function(name="acme-gateway", version="3")
def acme(question: str, answer_a: str, answer_b: str) -> str:
    """Declared: cached in the store as acme-gateway, version 3 (slow as ``slow_longer``)."""
    _count()
    _pause()
    return _longer(answer_a, answer_b)


@fairjudge.judge_function(name="acme-gateway", version="3")
class AcmeClient:
    """A declared judge object whose ``ajudge`` method is called."""

    async def ajudge(self, question: str, answer_a: str, answer_b: str) -> str:
        _count()
        return _longer(answer_a, answer_b)


acme_client = AcmeClient()


class AtOnce:
    """The most calls running at once, as the judge itself sees them.

    ``parties`` calls meet at a barrier: only that many calls running at once get past
    it, so a judge that answers shows it was run concurrently, with no timing.
    """

    def __init__(self, parties: int) -> None:
        self.lock = threading.Lock()
        self.active = self.most = self.calls = 0
        self.barrier = threading.Barrier(parties, timeout=20)

    def attend(self) -> None:
        """Count this call, and wait until ``parties`` calls are running at once."""
        with self.lock:
            self.calls += 1
            self.active += 1
            self.most = max(self.most, self.active)
        try:
            self.barrier.wait()
        finally:
            with self.lock:
                self.active -= 1


at_once = AtOnce(8)


def meets_seven_others(question: str, answer_a: str, answer_b: str) -> str:
    """A sync judge whose calls wait for seven others: it answers only at concurrency 8."""
    at_once.attend()
    return _longer(answer_a, answer_b)


def hangs_on_q0(question: str, answer_a: str, answer_b: str) -> str:
    """A sync judge whose gateway does not answer about ``q0`` (for 20 s: past any timeout)."""
    if question == "q0":
        time.sleep(20)
    return _longer(answer_a, answer_b)


async def async_hangs_on_q0(question: str, answer_a: str, answer_b: str) -> str:
    """``hangs_on_q0``, ``async def``: its call past the timeout is cancelled."""
    if question == "q0":
        await asyncio.sleep(20)
    return _longer(answer_a, answer_b)


@fairjudge.judge_function(name="gateway-hangs", version="1")
def hangs_after_q1(question: str, answer_a: str, answer_b: str) -> str:
    """Declared; answers ``q0`` and ``q1``, then its gateway never answers again."""
    if question not in ("q0", "q1"):
        _count()  # each hung call
        time.sleep(3600)  # the process exits past it: the judge's threads are daemons
    return _longer(answer_a, answer_b)


def undeclared_hangs_after_q1(question: str, answer_a: str, answer_b: str) -> str:
    """``hangs_after_q1``, undeclared: no store keeps what it answers (q0 and q1)."""
    if question not in ("q0", "q1"):
        _count()
        time.sleep(3600)
    return _longer(answer_a, answer_b)
