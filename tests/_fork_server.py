"""The fork server of :mod:`tests.forked_cli`, run as ``python -c <this file's text>``.

Run as ``-c`` text, not as a module of ``tests``, so that a child is what
``python -c "from fairjudge.cli import main; main()" ARGS`` would be: ``sys.path[0]``
is the working directory and no ``tests`` module is loaded.

The server imports ``fairjudge.cli`` and the modules named in its arguments
(``preload``), then reads one JSON request a line on stdin and answers one JSON line
on stdout: ``{"argv", "cwd", "env", "stdout", "stderr", "timeout", "memory_cap",
"program"}`` ->
``{"code": exit code (negative for a signal), or None for a child killed at the
timeout}``. Each request is run by a forked child, which leaves :func:`serve` with its
arguments and runs ``main()`` at the top level, as the ``-c`` line does.
"""

import contextlib
import importlib
import json
import os
import resource
import select
import signal
import sys
import time

from fairjudge.cli import main


def serve() -> list[str]:
    """The server loop; returns only in a forked child, with that child's ``sys.argv``."""
    for name in sys.argv[1:]:
        # One that fails to import fails again in each child that needs it, as it would
        # in a fresh process.
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    answers = os.dup(1)
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(answers)
            _become_child(request)
            return [str(request.get("program", "-c")), *map(str, request["argv"])]
        code = _wait(pid, float(request["timeout"]))
        os.write(answers, (json.dumps({"code": code}) + "\n").encode())
    raise SystemExit(0)


def _become_child(request: dict[str, object]) -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        out = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, fd)
        os.close(out)
    os.chdir(str(request["cwd"]))
    env = request["env"]
    assert isinstance(env, dict)
    os.environ.clear()
    os.environ.update(env)
    cap = request["memory_cap"]
    if isinstance(cap, int):
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = cap if hard == resource.RLIM_INFINITY else min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _wait(pid: int, timeout: float) -> int | None:
    """The child's exit code, or ``None`` once it was killed at ``timeout``."""
    if hasattr(os, "pidfd_open"):  # Linux: sleep until the child ends or the time is up
        pidfd = os.pidfd_open(pid)
        try:
            select.select([pidfd], [], [], timeout)
        finally:
            os.close(pidfd)
        reaped, status = os.waitpid(pid, os.WNOHANG)
    else:  # elsewhere: look every few milliseconds
        deadline = time.monotonic() + timeout
        reaped, status = os.waitpid(pid, os.WNOHANG)
        while reaped == 0 and time.monotonic() < deadline:
            time.sleep(0.005)
            reaped, status = os.waitpid(pid, os.WNOHANG)
    if reaped == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return None
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.argv[:] = serve()
    main()
