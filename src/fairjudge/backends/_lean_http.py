"""A lean HTTP/1.1 client for OpenAI-compatible chat completions.

It exists because the ``openai`` SDK's CPU cost per call caps a judge run on a small
machine; this client does only what a judge call needs (keep-alive pool, chunked
replies, one resend on a stale connection) and never carries the request, so the key
cannot leak into an error. Status codes are the backend's to map.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ssl
from collections.abc import Mapping
from dataclasses import dataclass

from fairjudge.backends._openai_wire import request_head

__all__ = [
    "LeanConnectError",
    "LeanHTTPClient",
    "LeanResponse",
    "LeanTimeoutError",
    "LeanTransportError",
]

_HEAD_LIMIT = 1 << 20  # bytes of status line + headers (or of one chunk-size line)


class LeanTransportError(Exception):
    """No usable reply: the connection failed, or the reply was not valid HTTP/1.1.

    Attributes:
        sends: Times the request went on the wire before the failure: 2 when a
            kept-alive socket turned out closed and the resend failed too.
    """

    def __init__(self, message: str, *, sends: int = 1) -> None:
        super().__init__(message)
        self.sends = sends


class LeanConnectError(LeanTransportError):
    """No connection could be opened; the operating system's error is its ``__cause__``."""


class LeanTimeoutError(TimeoutError):
    """No complete reply within the timeout, after ``sends`` times on the wire (0 to 2)."""

    def __init__(self, sends: int) -> None:
        super().__init__(f"no complete reply within the timeout ({sends} sent)")
        self.sends = sends


class _Sends:
    """How often one call's request went on the wire, readable after a timeout."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


@dataclass(frozen=True, slots=True)
class LeanResponse:
    """One HTTP reply.

    Attributes:
        status: The status code.
        headers: Header names in lower case; repeated headers joined with ``", "``.
        body: The body, de-chunked.
        sends: Times the request went on the wire: 2 when a kept-alive socket turned
            out closed and the request was resent on a new one (the server may have
            read the first), so the caller can count every request it made.
    """

    status: int
    headers: Mapping[str, str]
    body: bytes
    sends: int = 1


class _Connection:
    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @property
    def usable(self) -> bool:
        """False once the server closed its side (seen as EOF) or the socket failed."""
        return not (
            self.reader.at_eof() or self.writer.is_closing() or self.reader.exception() is not None
        )

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):  # its event loop is already closed
            self.writer.close()


class LeanHTTPClient:
    """POST JSON to one HTTP/1.1 server over a pool of keep-alive connections.

    Args:
        base_url: ``http://`` or ``https://`` URL; paths are appended to it.
        api_key: Sent as ``Authorization: Bearer <key>``; ``None`` sends no header.
        headers: More request headers (e.g. ``OpenAI-Organization``).
        timeout: Seconds for a whole call: waiting for a connection, connecting,
            sending and reading the complete reply.
        max_connections: Most sockets open at once, so also the most calls in flight.

    Raises:
        ConfigError: The URL is not ``http(s)``, or a header value cannot be sent.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        max_connections: int = 512,
    ) -> None:
        head = request_head(
            base_url, api_key=api_key, headers=headers, max_connections=max_connections
        )
        self._base_url = head.base_url
        self._host = head.host
        self._port = head.port
        self._https = head.https
        self._ssl: ssl.SSLContext | None = None  # made on first connect: loading CAs takes ms
        self._prefix = head.prefix
        self._query = head.query
        self._timeout = timeout
        self._max_connections = max_connections
        self.api_key = api_key
        self._headers = head.headers
        self._idle: list[_Connection] = []
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"LeanHTTPClient(base_url={self._base_url!r})"

    async def post(self, path: str, body: bytes) -> LeanResponse:
        """Send ``POST {base_url}{path}`` with a JSON ``body`` and read the reply.

        The base URL's query, if any, follows the path (``/v1/chat/completions?
        api-version=2024-10-21``): it goes with every request.

        Raises:
            LeanTimeoutError: No complete reply within ``timeout`` (pool wait
                included); a :class:`TimeoutError`.
            LeanTransportError: The connection failed or the reply was not HTTP.
        """
        loop = asyncio.get_running_loop()
        if loop is not self._loop or self._slots is None:
            # Sockets belong to one event loop; a backend reused under a new
            # asyncio.run() starts a fresh pool rather than touching dead ones.
            self._close_idle()
            self._loop = loop
            self._slots = asyncio.Semaphore(self._max_connections)
        request = b"".join(
            (
                b"POST ",
                (self._prefix + path + self._query).encode("ascii"),
                b" HTTP/1.1\r\n",
                self._headers,
                b"Content-Length: %d\r\n\r\n" % len(body),
                body,
            )
        )
        sends = _Sends()
        try:
            async with asyncio.timeout(self._timeout), self._slots:
                return await self._exchange(request, sends)
        except TimeoutError as exc:  # the requests already sent were sent all the same
            raise LeanTimeoutError(sends.n) from exc

    async def _exchange(self, request: bytes, tally: _Sends) -> LeanResponse:
        fresh = False  # after a stale keep-alive socket, resend on a new one
        sends = 0
        while True:
            conn = None if fresh else self._take_idle()
            reused = conn is not None
            if conn is None:
                conn = await self._connect()
            received = False
            try:
                sends = tally.n = sends + 1
                conn.writer.write(request)
                await conn.writer.drain()
                head = await conn.reader.readuntil(b"\r\n\r\n")
                received = True
                response, keep_alive = await _read_response(conn.reader, head)
            except asyncio.IncompleteReadError as exc:
                conn.close()
                if reused and not received and not exc.partial:
                    fresh = True
                    continue  # closed while idle, before any byte of a reply: resend once
                where = "in the middle of a reply" if received or exc.partial else "without a reply"
                raise LeanTransportError(
                    f"the server closed the connection {where}", sends=sends
                ) from None
            except (ConnectionError, ssl.SSLError) as exc:
                conn.close()
                if reused and not received:
                    fresh = True
                    continue  # reset while idle, before a reply's head: resend once
                raise LeanTransportError(f"{type(exc).__name__}: {exc}", sends=sends) from None
            except (ValueError, asyncio.LimitOverrunError) as exc:
                conn.close()
                raise LeanTransportError(f"unreadable HTTP reply: {exc}", sends=sends) from None
            except BaseException:  # timeout or cancellation mid-call: the socket is dirty
                conn.close()
                raise
            if keep_alive:
                self._idle.append(conn)
            else:
                conn.close()
            return response if sends == 1 else dataclasses.replace(response, sends=sends)

    def _take_idle(self) -> _Connection | None:
        while self._idle:
            conn = self._idle.pop()  # the most recently used is the least likely stale
            if conn.usable:
                return conn
            conn.close()
        return None

    async def _connect(self) -> _Connection:
        if self._https and self._ssl is None:
            self._ssl = ssl.create_default_context()
        try:
            reader, writer = await asyncio.open_connection(
                self._host,
                self._port,
                ssl=self._ssl,
                server_hostname=self._host if self._ssl else None,
                limit=_HEAD_LIMIT,
            )
        except OSError as exc:  # refused, unreachable, DNS, TLS handshake (SSLError)
            # Chained, not hidden: the cause says whether anything answered at all.
            raise LeanConnectError(f"{type(exc).__name__}: {exc}") from exc
        return _Connection(reader, writer)

    def _close_idle(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    async def aclose(self) -> None:
        """Close the idle connections (calls in flight close theirs when they end)."""
        self._close_idle()
        await asyncio.sleep(0)  # let the transports finish closing inside this loop


async def _read_response(reader: asyncio.StreamReader, head: bytes) -> tuple[LeanResponse, bool]:
    """Read the rest of a reply whose head is ``head``: ``(response, keep-alive?)``."""
    while True:
        lines = head[:-4].decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        if not version.startswith("HTTP/1."):
            raise ValueError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
        status = int(rest[:3])
        if not 100 <= status < 200 or status == 101:
            break
        head = await reader.readuntil(b"\r\n\r\n")  # skip 100 Continue, 103 Early Hints
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            raise ValueError(f"bad header line {line[:80]!r}")
        key = name.strip().lower()
        value = value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    connection = headers.get("connection", "").lower()
    keep_alive = "close" not in connection and (version == "HTTP/1.1" or "keep-alive" in connection)
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif status in (204, 304):
        body = b""
    else:  # framed by the end of the connection
        body = await reader.read()
        keep_alive = False
    return LeanResponse(status, headers, body), keep_alive


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":
                pass  # trailers: ignored
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        if await reader.readexactly(2) != b"\r\n":
            raise ValueError("chunk not followed by CRLF")
