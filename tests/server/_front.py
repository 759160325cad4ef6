"""What every emulator in front of the scripted judge shares: the hooks and counters.

An emulator checks requests as a provider does and hands the rest to the judge behind
it (``inner``). The transport calls ``script``, ``connection_opened`` and
``count_event`` on whatever app it serves, so those go to that judge; the emulator
keeps counters of its own beside the judge's, and ``stats`` shows both at once.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from tests.server._script import Script


class JudgeFront:
    """The part of an emulator that forwards to the judge behind it and counts.

    Args:
        inner: The judge that answers what the emulator lets through: a
            ``ScriptedJudge``, or a chat emulator in front of one.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    @property
    def script(self) -> Script:
        """The judge's script (the transport reads its connection settings)."""
        return self.inner.script  # type: ignore[no-any-return]

    def connection_opened(self) -> None:
        """Count an accepted connection (the judge's counter)."""
        self.inner.connection_opened()

    def count_event(self, name: str) -> None:
        """Count a transport event (the judge's counter)."""
        self.inner.count_event(name)

    def stats(self) -> dict[str, int]:
        """The judge's counters and the emulator's own."""
        with self._lock:
            return {**self.inner.stats(), **self._counts}

    def count(self, name: str) -> int:
        """One counter (0 when never counted)."""
        return self.stats().get(name, 0)

    def reset(self) -> None:
        """Zero every counter, the judge's and the emulator's, and :meth:`_forget`."""
        self.inner.reset()
        with self._lock:
            self._counts.clear()
            self._forget()

    def _forget(self) -> None:
        """What :meth:`reset` empties besides the counters (called under the lock)."""

    def _bump(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._counts[name] += n
