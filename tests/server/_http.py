"""The scripted judge on a real socket: in a background thread, or as a process.

Built on ``asyncio.start_server`` with a minimal HTTP/1.1 parser (keep-alive, a deep
listen backlog) so that it is not the bottleneck of a throughput benchmark: the
stdlib ``http.server`` (HTTP/1.0, backlog 5) caps even a bare client at ~30% of the
ideal rate. It runs either in a background thread with its own event loop
(:class:`JudgeServer`, for pytest fixtures) or as its own process
(``python -m tests.server``, see :class:`ServerProcess`).

Endpoints (see ``_app.py``): ``POST /v1/chat/completions`` (also without ``/v1``),
``POST /v1/messages`` (the Anthropic dialect: same script, Anthropic's request, reply
and error shapes, no logprobs), ``GET /v1/models``, and for tests in other processes
``GET /_stats`` (``?prompts=1`` adds per-call counts), ``POST /_reset`` and
``POST /_script`` (JSON script fields). The ``reset`` fault resets the TCP connection
(RST) after reading the request, with no reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

from tests.server._app import ABORT, ScriptedJudge, error_reply
from tests.server._script import Script

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    411: "Length Required",
    429: "Too Many Requests",
    500: "Internal Server Error",
}


async def _serve_connection(
    app: ScriptedJudge, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    app.connection_opened()
    served = 0  # replies on this connection
    try:
        while True:
            script = app.script
            if script.idle_timeout_s:
                try:
                    head = await asyncio.wait_for(
                        reader.readuntil(b"\r\n\r\n"), script.idle_timeout_s
                    )
                except TimeoutError:
                    app.count_event("idle_closed")
                    break
            else:
                head = await reader.readuntil(b"\r\n\r\n")
            lines = head[:-4].split(b"\r\n")
            method, target, version = lines[0].split(b" ", 2)
            headers: dict[bytes, bytes] = {}
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            if b"chunked" in headers.get(b"transfer-encoding", b""):
                status, body, extra = error_reply(
                    411, "chunked request bodies are not supported", "invalid_request_error"
                )
                keep_alive = False
            else:
                length = int(headers.get(b"content-length", b"0"))
                payload = await reader.readexactly(length) if length else b""
                keep_alive = (
                    version == b"HTTP/1.1" and headers.get(b"connection", b"").lower() != b"close"
                )
                if script.drop_after is not None and served >= script.drop_after:
                    app.count_event("dropped")
                    break
                status, body, extra = await app.handle(
                    method.decode(), target.decode(), headers, payload
                )
                if (status, body, extra) == ABORT:
                    _reset(writer)
                    break
            served += 1
            if script.keep_alive_max and served >= script.keep_alive_max:
                keep_alive = False
            framing = (
                "Transfer-Encoding: chunked" if script.chunked else f"Content-Length: {len(body)}"
            )
            head_out = [
                f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}",
                "Content-Type: application/json",
                framing,
                *(f"{k}: {v}" for k, v in extra),
            ]
            if not keep_alive:
                head_out.append("Connection: close")
            if script.chunked:
                half = len(body) // 2
                body = (
                    b"".join(
                        b"%x\r\n%s\r\n" % (len(part), part)
                        for part in (body[:half], body[half:])
                        if part
                    )
                    + b"0\r\n\r\n"
                )
            writer.write(("\r\n".join(head_out) + "\r\n\r\n").encode() + body)
            await writer.drain()
            if not keep_alive:
                break
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
        pass  # client went away, or sent something we do not speak: drop the connection
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            await writer.wait_closed()


def _reset(writer: asyncio.StreamWriter) -> None:
    """Abort the connection with a TCP RST (``SO_LINGER`` 0), not an orderly FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class _Listener:
    """An asyncio server for one :class:`ScriptedJudge`, tracking its connections."""

    def __init__(self, app: ScriptedJudge) -> None:
        self.app = app
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await _serve_connection(self.app, reader, writer)
        except asyncio.CancelledError:
            # Only close() cancels these tasks. Ending normally keeps Python 3.11's
            # start_server callback (task.exception() on a cancelled task) from
            # logging a traceback for every hung request at shutdown.
            pass
        finally:
            self._tasks.discard(task)

    async def start(self, host: str, port: int, backlog: int) -> int:
        self._server = await asyncio.start_server(
            self._on_connect, host, port, backlog=backlog, reuse_address=True
        )
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = list(self._tasks)
        for task in tasks:  # hung requests and idle keep-alive connections
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()


class JudgeServer:
    """The scripted judge in a background thread with its own event loop.

    Use as a context manager, or ``start()``/``stop()``. Reconfigure between calls with
    :meth:`configure`; read counters with :meth:`stats` / :meth:`count`.

    Example:
        >>> with JudgeServer(Script(judge="longer")) as server:  # doctest: +SKIP
        ...     server.base_url
        'http://127.0.0.1:43117/v1'
    """

    def __init__(
        self,
        script: Script | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        backlog: int = 4096,
    ) -> None:
        self.app = ScriptedJudge(script)
        self.host = host
        self.port = port
        self.backlog = backlog
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._listener = _Listener(self.app)

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ending in ``/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def script(self) -> Script:
        """The current script."""
        return self.app.script

    @property
    def api_key(self) -> str | None:
        """The key the server accepts (``None``: any)."""
        return self.app.script.api_key

    def configure(self, script: Script | None = None, **changes: Any) -> Script:
        """Replace the script or change some of its fields (thread-safe)."""
        return self.app.configure(script, **changes)

    def stats(self) -> dict[str, int]:
        """A snapshot of the counters."""
        return self.app.stats()

    def count(self, name: str) -> int:
        """One counter; 0 when nothing was counted under that name."""
        return self.app.count(name)

    def prompt_counts(self) -> dict[str, dict[str, int]]:
        """Requests and normal replies per call (see :meth:`ScriptedJudge.prompt_counts`)."""
        return self.app.prompt_counts()

    def reset(self) -> None:
        """Zero the counters and restart the fault draws."""
        self.app.reset()

    def start(self) -> JudgeServer:
        """Bind the socket and serve in a daemon thread; returns once it is listening."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                self.port = loop.run_until_complete(
                    self._listener.start(self.host, self.port, self.backlog)
                )
            except BaseException as exc:  # reported to start()'s caller
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._listener.close())
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

        self._loop = loop
        self._thread = threading.Thread(target=run, name="scripted-judge", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._thread.join()
            raise failure[0]
        return self

    def stop(self) -> None:
        """Drop every connection (hung requests too) and join the thread."""
        if self._thread is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._thread = None

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def serve_forever(
    script: Script, host: str, port: int, backlog: int, stop: asyncio.Event
) -> None:
    """Serve in the current event loop until ``stop`` is set (process mode)."""
    listener = _Listener(ScriptedJudge(script))
    port = await listener.start(host, port, backlog)
    print(f"listening on http://{host}:{port}/v1", flush=True)
    try:
        await stop.wait()
    finally:
        await listener.close()


_REPO = Path(__file__).resolve().parents[2]


class ServerProcess:
    """``python -m tests.server ARGS`` as a context manager, on a free port.

    Example:
        >>> with ServerProcess("--latency", "1.0") as server:  # doctest: +SKIP
        ...     server.stats()["requests"]
    """

    def __init__(self, *args: str, python: str = sys.executable) -> None:
        self.args = [python, "-m", "tests.server", "--port", "0", *args]
        self.proc: subprocess.Popen[str] | None = None
        self.base_url = ""

    def __enter__(self) -> ServerProcess:
        self.proc = subprocess.Popen(self.args, cwd=_REPO, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("listening on "):
            self.__exit__()
            raise RuntimeError(f"scripted server did not start: {line!r}")
        self.base_url = line.removeprefix("listening on ").strip()
        return self

    @property
    def pid(self) -> int:
        """The server's process id."""
        assert self.proc is not None
        return self.proc.pid

    def _call(self, method: str, path: str, data: bytes | None = None) -> Any:
        root = self.base_url.removesuffix("/v1")
        request = urllib.request.Request(root + path, data=data, method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def stats(self) -> dict[str, int]:
        """The server's counters."""
        return dict(self._call("GET", "/_stats"))

    def prompt_counts(self) -> dict[str, dict[str, int]]:
        """Per call: ``{counter: {hash: n}}``, keyed by :func:`~tests.server.prompt_hash`
        (see :meth:`ScriptedJudge.prompt_counts`)."""
        return dict(self._call("GET", "/_stats?prompts=1")["prompts"])

    def reset(self) -> None:
        """Zero the server's counters."""
        self._call("POST", "/_reset", b"")

    def configure(self, **fields: Any) -> None:
        """Change these fields of the server's script (JSON values); reseeds the faults."""
        self._call("POST", "/_script", json.dumps(fields).encode())

    def __exit__(self, *exc: object) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.proc = None
