"""Progress display for a run: a rich bar on a terminal, plain lines in logs, or nothing.

The runner never calls into the display per call: it keeps counters, and a ticker
hands the display a :class:`Snapshot` a few times a second. A run of thousands of
calls therefore costs the same CPU with or without a progress bar.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal, Protocol, TextIO, runtime_checkable

from fairjudge._errors import ConfigError

__all__ = [
    "PLAN_NOTICE_CALLS",
    "SLOW_CALL_S",
    "WAIT_FACTOR",
    "PlainProgress",
    "ProgressMode",
    "RichProgress",
    "RunProgress",
    "Snapshot",
    "announce_plan",
    "make_progress",
    "progress_label",
]

SLOW_CALL_S = 10.0
"""A request in flight longer than this is shown in the progress line."""

WAIT_FACTOR = 4.0
"""It reads ``waiting`` only past this many times the median request time so far.

A judge whose every call takes 5-10 s (a local model, one call at a time) would
otherwise show as stalled on every call; before the first reply there is no median
to compare with, and the line says ``in flight`` instead.
"""

PLAN_NOTICE_CALLS = 100_000
"""From this many calls, :func:`announce_plan` says the plan is being built.

Every call is built before the first is sent (its prompt rendered, its key hashed),
at roughly 1.7 KB and 50 to 80 microseconds of CPU a call (``benchmarks/bench_plan.py``):
100,000 calls are several seconds with nothing on the screen, 1,000,000 are a minute.
"""

ProgressMode = Literal["auto", "rich", "plain", "quiet"]
"""``auto``: a rich bar when the stream is a terminal, plain lines otherwise."""

PROGRESS_LABEL: ContextVar[str] = ContextVar("fairjudge_progress_label", default="")
"""What the batches started in this context are for; set with :func:`progress_label`."""


@contextmanager
def progress_label(label: str) -> Iterator[None]:
    """Label the progress display of every batch run inside (``audit``: the experiment).

    A command that runs many batches in a row would otherwise show as many unnamed
    bars; the session reads the label when a batch starts.
    """
    token = PROGRESS_LABEL.set(label)
    try:
        yield
    finally:
        PROGRESS_LABEL.reset(token)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Where a run stands.

    Attributes:
        total: Unique calls in the run.
        cached: Calls served from the store.
        done: Calls made in this run that got a reply.
        failed: Calls that failed after their retries.
        retries: Retries so far.
        elapsed: Seconds since the run started.
        in_flight: Requests sent and not yet answered.
        longest_wait: Seconds the oldest of those has waited (0 when none), so a
            display can say that a call is hanging instead of showing a stale ETA.
        median_call_s: Median seconds a request took so far (``None`` before the
            first reply): a wait is unusual only against what calls usually take.
        detail: What the executor adds (a distributed one: its workers alive and
            the calls each made), shown after the counts; ``""`` adds nothing.
    """

    total: int
    cached: int
    done: int
    failed: int
    retries: int
    elapsed: float
    in_flight: int = 0
    longest_wait: float = 0.0
    median_call_s: float | None = None
    detail: str = ""

    @property
    def finished(self) -> int:
        """Calls settled one way or another, cached ones included."""
        return self.cached + self.done + self.failed

    @property
    def rate(self) -> float:
        """Calls made per second (cached calls excluded)."""
        return (self.done + self.failed) / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate, or ``None`` before the first call ends."""
        rate = self.rate
        return (self.total - self.finished) / rate if rate > 0 else None

    @property
    def pace(self) -> str:
        """``"2.5/s"``, or ``"5.6 s/call"`` under one call a second; ``"?/s"`` before any.

        Slow calls would otherwise round to ``0.0/s`` while they finish.
        """
        made = self.done + self.failed
        if made == 0 or self.elapsed <= 0:
            return "?/s"
        rate = made / self.elapsed
        return f"{rate:.1f}/s" if rate >= 1.0 else f"{self.elapsed / made:.1f} s/call"

    @property
    def waiting(self) -> str:
        """``", 2 waiting (longest 45 s)"`` when a request has waited unusually long.

        Unusual: past :data:`SLOW_CALL_S` and :data:`WAIT_FACTOR` times the median
        request so far. Past :data:`SLOW_CALL_S` with no reply yet to compare with, it
        reads ``", 1 in flight (longest 12 s)"``; otherwise ``""``.
        """
        if self.in_flight == 0 or self.longest_wait < SLOW_CALL_S:
            return ""
        longest = f"(longest {self.longest_wait:.0f} s)"
        if self.median_call_s is None:
            return f", {self.in_flight} in flight {longest}"
        if self.longest_wait < WAIT_FACTOR * self.median_call_s:
            return ""
        return f", {self.in_flight} waiting {longest}"

    @property
    def all_cached(self) -> bool:
        """Every call came from the store: nothing was made."""
        return self.total > 0 and self.cached >= self.total

    def counts(self) -> str:
        """``"3/10 calls (1 cached, 0 failed, 2 retries)"``."""
        return (
            f"{self.finished}/{self.total} calls ({self.cached} cached, {self.failed} failed, "
            f"{self.retries} retries)"
        )

    @property
    def eta_clock(self) -> str:
        """:attr:`eta` as ``"m:ss"`` (or ``"h:mm:ss"``); ``"?"`` before the first call ends."""
        eta = self.eta
        return _clock(eta) if eta is not None else "?"

    @property
    def how_made(self) -> str:
        """For a run that ended: ``"all from the store"``, the pace, or ``""`` if none was made."""
        if self.all_cached:
            return "all from the store"
        return self.pace if self.done + self.failed else ""

    def line(self) -> str:
        """One line of plain text while the run goes on."""
        return f"{self.counts()} {self.pace}, ETA {self.eta_clock}{self.waiting}{self._detail}"

    def final_line(self) -> str:
        """The line for a run that ended: no ETA, and no rate when no call was made.

        ``done`` only when every call settled, else ``stopped early``.
        """
        word = "done" if self.finished >= self.total else "stopped early"
        how = f" {self.how_made}" if self.how_made else ""
        return f"{word}: {self.counts()}{how} in {_clock(self.elapsed)}{self._detail}"

    @property
    def _detail(self) -> str:
        return f"; {self.detail}" if self.detail else ""


def _clock(seconds: float) -> str:
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


@runtime_checkable
class RunProgress(Protocol):
    """What the runner tells a progress display."""

    def start(self, snapshot: Snapshot) -> None:
        """The run begins (cached calls are already counted)."""
        ...

    def update(self, snapshot: Snapshot) -> None:
        """Called a few times a second while calls are in flight."""
        ...

    def finish(self, snapshot: Snapshot) -> None:
        """The run ended, normally or not."""
        ...


class PlainProgress:
    """Prints a status line every ``interval`` seconds, and one at the end.

    Args:
        stream: Where to print; standard error by default.
        interval: Seconds between lines.
        label: What the run is for, printed after ``fairjudge:`` on every line.
    """

    def __init__(
        self, stream: TextIO | None = None, *, interval: float = 10.0, label: str = ""
    ) -> None:
        self._stream = stream
        self._interval = interval
        self._last = 0.0
        self._prefix = f"fairjudge: {label}: " if label else "fairjudge: "

    def _print(self, text: str) -> None:
        stream = self._stream if self._stream is not None else sys.stderr
        print(f"{self._prefix}{text}", file=stream, flush=True)

    def start(self, snapshot: Snapshot) -> None:
        """Print what the run has to do."""
        self._last = time.monotonic()
        todo = snapshot.total - snapshot.cached
        self._print(f"{snapshot.total} calls: {snapshot.cached} cached, {todo} to make")

    def update(self, snapshot: Snapshot) -> None:
        """Print a line if ``interval`` seconds have passed since the last one."""
        now = time.monotonic()
        if now - self._last >= self._interval:
            self._last = now
            self._print(snapshot.line())

    def finish(self, snapshot: Snapshot) -> None:
        """Print the final line: ``done`` only when every call settled, else ``stopped``."""
        self._print(snapshot.final_line())


class RichProgress:
    """A rich progress bar: done/total, cached, failed, rate and ETA.

    Args:
        stream: The terminal to draw on; standard error by default.
        label: What the run is for, shown before the bar (``judging`` by default).
    """

    def __init__(self, stream: TextIO | None = None, *, label: str = "") -> None:
        from rich.console import Console
        from rich.markup import escape
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self._progress = Progress(
            TextColumn(f"[bold]{escape(label) if label else 'judging'}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[extra]}"),
            console=Console(file=stream if stream is not None else sys.stderr),
            auto_refresh=False,  # the runner's ticker refreshes; no extra thread
        )
        self._task = self._progress.add_task("judging", total=1, extra="", start=False)

    def _show(self, snapshot: Snapshot, *, final: bool = False) -> None:
        extra = f"cached {snapshot.cached} · failed {snapshot.failed} · "
        if final:
            extra += snapshot.how_made
        else:
            waiting = snapshot.waiting.replace(", ", " · ", 1)
            extra += f"{snapshot.pace} · ETA {snapshot.eta_clock}{waiting}"
        extra = extra.removesuffix(" · ")
        if snapshot.detail:
            extra += f" · {snapshot.detail}"
        self._progress.update(
            self._task, total=snapshot.total, completed=snapshot.finished, extra=extra
        )
        self._progress.refresh()

    def start(self, snapshot: Snapshot) -> None:
        """Draw the bar."""
        self._progress.start()
        self._progress.start_task(self._task)
        self._show(snapshot)

    def update(self, snapshot: Snapshot) -> None:
        """Redraw the bar."""
        self._show(snapshot)

    def finish(self, snapshot: Snapshot) -> None:
        """Draw the final state (no ETA) and release the terminal."""
        self._show(snapshot, final=True)
        self._progress.stop()


def announce_plan(n_calls: int, mode: object, stream: TextIO | None = None) -> None:
    """Say on ``stream`` (standard error) that ``n_calls`` calls are being planned.

    Nothing below :data:`PLAN_NOTICE_CALLS` calls, for ``quiet``, or for a display of
    the caller's own (not a mode name: it shows what it likes). The line comes before
    the calls are built, so a large plan is not a silent minute; the progress display
    takes over once they are.

    Args:
        n_calls: The calls the run plans.
        mode: The run's progress mode (``options.progress``) or display.
        stream: Where to write; standard error by default.
    """
    if n_calls < PLAN_NOTICE_CALLS or not isinstance(mode, str) or mode == "quiet":
        return
    target = stream if stream is not None else sys.stderr
    print(
        f"fairjudge: planning {n_calls:,} calls (rendering each prompt, hashing its key)...",
        file=target,
        flush=True,
    )


def make_progress(
    mode: ProgressMode | RunProgress, stream: TextIO | None = None, *, label: str = ""
) -> RunProgress | None:
    """The display for a mode; ``None`` for ``quiet``.

    Args:
        mode: ``auto``, ``rich``, ``plain``, ``quiet``, or a ready display.
        stream: Where to draw; standard error by default. ``auto`` picks the rich
            bar when this stream is a terminal.
        label: What the run is for, shown with its progress.
    """
    if not isinstance(mode, str):
        return mode
    if mode == "quiet":
        return None
    if mode == "auto":
        target = stream if stream is not None else sys.stderr
        isatty = getattr(target, "isatty", None)
        mode = "rich" if isatty is not None and isatty() else "plain"
    if mode == "rich":
        return RichProgress(stream, label=label)
    if mode == "plain":
        return PlainProgress(stream, label=label)
    raise ConfigError(f"progress must be 'auto', 'rich', 'plain' or 'quiet'; got {mode!r}")
