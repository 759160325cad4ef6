"""Ctrl-C on the ``fairjudge`` script: the first stops the run, the second exits at once.

The handler is driven in a child process whose "clean-up" after the first
``KeyboardInterrupt`` is made slow on purpose, so that the second signal always
arrives while the first is still being handled: no race with the machine's speed.
"""

from __future__ import annotations

import signal
import subprocess
import sys

CHILD = """
import signal, time
from fairjudge.cli._app import _Interrupts

signal.signal(signal.SIGINT, _Interrupts())
try:
    print("ready", flush=True)
    time.sleep(60)
except KeyboardInterrupt:
    print("first", flush=True)
    time.sleep(60)  # a clean-up that takes long: the second Ctrl-C must not wait for it
print("not reached", flush=True)
"""


def test_the_second_ctrl_c_exits_130_at_once_with_a_line() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "ready\n"
    child.send_signal(signal.SIGINT)
    assert child.stdout.readline() == "first\n"  # the first Ctrl-C is a KeyboardInterrupt
    child.send_signal(signal.SIGINT)
    # The clean-up sleeps 60 s: a process that waited for it would hit this timeout.
    out, err = child.communicate(timeout=30)
    assert child.returncode == 130
    assert err == "interrupted again: stopping now; every finished call is kept in the store\n"
    assert "not reached" not in out
