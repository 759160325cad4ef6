"""Start a command, let it make ``n`` requests to the scripted server, then SIGKILL it."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.server import JudgeServer


def kill_after_requests(
    argv: Sequence[str], server: JudgeServer, n: int, *, env: Mapping[str, str], cwd: Path
) -> int:
    """Run ``argv``, SIGKILL it once ``server`` has seen ``n`` requests; the count at the kill."""
    proc = subprocess.Popen(
        list(argv), cwd=cwd, env=dict(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while server.count("requests") < n:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    return server.count("requests")
