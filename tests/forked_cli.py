"""Run ``fairjudge`` as many processes, paying for its imports once.

``python -c "from fairjudge.cli import main; main()" ARGS`` spends most of its time
importing: ``fairjudge.cli``, then what the command needs (numpy, pydantic, the
library's packages, the command's module). A :class:`CliForks` starts one process
that imports ``fairjudge.cli`` and the modules named in ``preload`` (the tests pass
:data:`LIBRARY`, which leaves the command modules to the child), then forks a child
for each command. Each child is
a process of its own, as a user's run is: its own exit code, stdout and stderr,
working directory, environment and memory cap, nothing on stdin, and killed at a
timeout. It runs ``main()`` at the top level of a ``-c`` program and exits through
the interpreter's usual shutdown (a traceback printed, ``SystemExit`` read,
``atexit`` run), so all that differs from a fresh process is that those imports are
already done. The child's ``random`` is reseeded at the fork (CPython does that).

The server's environment is the one its modules saw when they were imported;
:func:`shared` keeps one server per environment (``PYTEST_CURRENT_TEST`` aside), so
a run never uses modules imported under another environment.

Use it as a context manager; :meth:`CliForks.run` may be called from one thread at
a time (take one per worker thread for parallel runs)::

    with CliForks(env={**os.environ, "NO_COLOR": "1"}) as forks:
        code, out, err = forks.run(["report", "deep.jsonl"], cwd=ROOT, timeout=30)
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

__all__ = ["LIBRARY", "CliForks", "shared"]

ROOT = Path(__file__).resolve().parents[1]
_SERVER = (Path(__file__).parent / "_fork_server.py").read_text(encoding="utf-8")


_NOT_BELOW_CLI = (("fairjudge", "cli"), ("fairjudge", "integrations"))


def _library_modules() -> tuple[str, ...]:
    """Every module of the library below the command line, by its file under ``src/``."""
    src = ROOT / "src" / "fairjudge"
    names = []
    for path in sorted(src.rglob("*.py")):
        parts = path.relative_to(src.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        # The integrations (Inspect AI) are other tools' front doors: no command imports them.
        if parts[-1] != "__main__" and parts[:2] not in _NOT_BELOW_CLI:
            names.append(".".join(parts))
    return tuple(names)


LIBRARY = ("numpy", "pydantic", "sqlite3", "tomllib", *_library_modules())
"""What the commands import anyway, below the command line: the numerics and every
module of the library itself, each by name (its packages import their modules
lazily, so importing ``fairjudge.judges`` alone leaves a run most of the work). The
command line's own modules are not preloaded: a command module imported ahead of its
command words a bad choice differently."""

PACKAGES = (
    "numpy", "pydantic", "sqlite3", "tomllib", "fairjudge.backends", "fairjudge.evaluation",
    "fairjudge.io", "fairjudge.judges", "fairjudge.prompts", "fairjudge.report",
    "fairjudge.runner", "fairjudge.stats",
)  # fmt: skip
"""The numerics and the library's package roots only (their modules load lazily): a
server that starts in a fifth of :data:`LIBRARY`'s time, for an environment that
serves only a few runs."""

_PER_TEST = ("PYTEST_CURRENT_TEST",)  # changes with every test; no module reads it


class CliForks:
    """One process that imported ``fairjudge.cli``, forking a child per command.

    Args:
        env: The environment of the server and of every run.
        preload: Modules the server imports too, before any fork.
    """

    def __init__(
        self, env: Mapping[str, str] | None = None, *, preload: Sequence[str] = ()
    ) -> None:
        self.env = dict(os.environ if env is None else env)
        self._preload = list(preload)
        self._folder = tempfile.TemporaryDirectory(prefix="fairjudge-forks-")
        self._server: subprocess.Popen[str] | None = None
        self._runs = 0

    def __enter__(self) -> CliForks:
        self._server = subprocess.Popen(
            [sys.executable, "-c", _SERVER, *self._preload], cwd=ROOT, env=self.env,
            text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the server (it ends when its stdin closes) and remove the output files."""
        server, self._server = self._server, None
        if server is not None:
            assert server.stdin is not None
            assert server.stdout is not None
            server.stdin.close()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            server.stdout.close()
        self._folder.cleanup()

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path = ROOT,
        timeout: float = 60.0,
        memory_cap: int | None = None,
        env: Mapping[str, str] | None = None,
        program: str = "-c",
    ) -> tuple[int | None, str, str]:
        """``fairjudge ARGV`` in a child: ``(exit code, or None at the timeout; stdout; stderr)``.

        ``env`` (the server's by default) becomes the child's ``os.environ``;
        ``program`` its ``sys.argv[0]`` (``-c``, as in ``python -c``; ``fairjudge``
        for the installed script, whose name the ``--out`` header records). Output
        is decoded as UTF-8, a byte that is not shown as U+FFFD.
        """
        server = self._server
        assert server is not None
        assert server.stdin is not None
        assert server.stdout is not None
        self._runs += 1
        out = Path(self._folder.name) / f"{self._runs}.out"
        err = Path(self._folder.name) / f"{self._runs}.err"
        request = {
            "argv": list(argv), "cwd": str(cwd), "env": dict(self.env if env is None else env),
            "stdout": str(out), "stderr": str(err), "timeout": timeout, "memory_cap": memory_cap,
            "program": program,
        }  # fmt: skip
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        answer = server.stdout.readline()
        if not answer:
            raise RuntimeError(f"the fork server ended (exit {server.wait()})")
        code = json.loads(answer)["code"]
        texts = [p.read_bytes().decode(errors="replace") for p in (out, err)]
        out.unlink()
        err.unlink()
        return code, texts[0], texts[1]


_SHARED: dict[tuple[tuple[str, ...], frozenset[tuple[str, str]]], CliForks] = {}
_LOCK = threading.Lock()


def shared(env: Mapping[str, str], *, preload: Sequence[str] = LIBRARY) -> CliForks:
    """The server for ``env`` (one per environment, kept until the interpreter exits).

    Environments that differ only in ``PYTEST_CURRENT_TEST`` share one; give the
    run its own ``env`` all the same. For one thread at a time.
    """
    key = (tuple(preload), frozenset((k, v) for k, v in env.items() if k not in _PER_TEST))
    with _LOCK:
        forks = _SHARED.get(key)
        if forks is None:
            if len(_SHARED) >= 4:  # a test with an environment of its own: let it go after
                _SHARED.pop(next(iter(_SHARED))).close()
            forks = _SHARED[key] = CliForks(env, preload=preload).__enter__()
        return forks


@atexit.register
def _close_shared() -> None:
    for forks in _SHARED.values():
        forks.close()
    _SHARED.clear()
