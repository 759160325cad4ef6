"""Nothing listening is EndpointUnreachable; a server that fails mid-exchange is not.

Real sockets on 127.0.0.1, for both transports of OpenAIBackend and for the Anthropic
SDK: a port that was just closed refuses connections, and a small server that
accepts, reads the request and hangs up in the middle of its reply stands for a
server that did answer but failed.
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import socket
import ssl
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from fairjudge._errors import BackendError, EndpointUnreachable, ServerError
from fairjudge.backends._anthropic import AnthropicBackend
from fairjudge.backends._http_errors import connection_error, unreachable_reason
from fairjudge.backends._lean_http import LeanConnectError
from fairjudge.backends._openai import OpenAIBackend, Transport
from tests.backends._calls import spec_for
from tests.server import JudgeServer

TRANSPORTS: tuple[Transport, ...] = ("lean", "sdk")
KEY = "sk-test-unreachable-0123456789abcdef"
HALF_REPLY = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n"
    b'{"choices": [{"message": '
)


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago: nothing listens there."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def half_reply_server() -> Iterator[str]:
    """Accepts, reads a whole request, sends part of a reply and closes: a base URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)  # so the thread notices `stop` between accepts
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                _read_request(conn)
                conn.sendall(HALF_REPLY)
                conn.shutdown(socket.SHUT_WR)  # a clean FIN: the reply just ends early

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def _read_request(conn: socket.socket) -> None:
    # The whole request, body included: closing with unread bytes would send a reset
    # instead of the truncated reply this server is for.
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return
        body += chunk


def call(backend: OpenAIBackend | AnthropicBackend) -> BackendError:
    spec = spec_for(backend)

    async def go() -> BackendError:
        try:
            await backend.complete(spec)
        except BackendError as exc:
            return exc
        finally:
            await backend.aclose()
        raise AssertionError("the call succeeded")

    return asyncio.run(go())


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


# -- nothing listening --------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_refused_connection_is_endpoint_unreachable(
    closed_port: int, transport: Transport
) -> None:
    url = f"http://127.0.0.1:{closed_port}/v1"
    backend = OpenAIBackend("x", base_url=url, transport=transport)
    error = call(backend)

    assert type(error) is EndpointUnreachable
    assert isinstance(error, ServerError)  # still a server fault to code that catches those
    assert error.retryable is True  # briefly: the runner caps these attempts
    assert str(error) == (
        f"openai backend: cannot reach model 'x' at {url}: connection refused: check that a "
        "server is running there and that base_url is right"
    )
    assert error.params == ("base_url",)  # the command line says --base-url
    assert KEY not in str(error)


def test_both_transports_say_the_same(closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}/v1"
    messages = {str(call(OpenAIBackend("x", base_url=url, transport=t))) for t in TRANSPORTS}
    assert len(messages) == 1


def test_anthropic_refused_connection_is_endpoint_unreachable(closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    error = call(AnthropicBackend("claude-x", base_url=url))

    assert type(error) is EndpointUnreachable
    assert str(error) == (
        f"anthropic backend: cannot reach model 'claude-x' at {url}: connection refused: "
        "check that a server is running there and that base_url is right"
    )


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_address_from_the_environment_is_named_with_its_variable(
    closed_port: int, transport: Transport, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{closed_port}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    error = call(OpenAIBackend("x", transport=transport))

    assert type(error) is EndpointUnreachable
    assert str(error) == (
        f"openai backend: cannot reach model 'x' at {url} (from $OPENAI_BASE_URL): connection "
        "refused: check that a server is running there, or correct or unset $OPENAI_BASE_URL"
    )
    assert error.params == ()  # no base_url was given: none to name


def test_the_vendor_address_unreached_points_at_this_machine_not_at_base_url(
    closed_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No base_url given: the vendor's API was tried, and the fix is on this machine.

    The lean transport posts to ``https://{default_host}/v1``; a closed local port
    stands for the vendor's host this machine cannot reach.
    """
    host = f"127.0.0.1:{closed_port}"
    monkeypatch.setattr(OpenAIBackend, "default_host", host)
    error = call(OpenAIBackend("gpt-4o-mini", transport="lean"))

    assert type(error) is EndpointUnreachable
    assert str(error) == (
        f"openai backend: cannot reach model 'gpt-4o-mini' at {host} (the vendor's own API: "
        "no other address was given): connection refused: check this machine's network "
        "connection, its DNS and any proxy or firewall in the way (HTTPS_PROXY)"
    )
    assert "base_url" not in str(error)
    assert error.params == ()


# -- something answered, then failed ------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_reply_cut_short_is_a_plain_server_error(
    half_reply_server: str, transport: Transport
) -> None:
    backend = OpenAIBackend("x", base_url=half_reply_server, transport=transport)
    error = call(backend)

    assert type(error) is ServerError
    assert str(error).startswith(f"openai backend: connection to model 'x' at {half_reply_server}")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_request_dropped_unanswered_is_a_plain_server_error(
    openai_env: JudgeServer, transport: Transport
) -> None:
    openai_env.configure(drop_after=0)  # reads the request, then closes without a reply
    error = call(OpenAIBackend("x", base_url=openai_env.base_url, transport=transport))

    assert type(error) is ServerError
    assert openai_env.count("dropped") == 1


# -- the classification itself ------------------------------------------------------------


def chained(*links: BaseException) -> BaseException:
    """``links[0]`` raised from ``links[1]`` raised from ... (as an SDK chains them)."""
    for outer, inner in itertools.pairwise(links):
        outer.__cause__ = inner
    return links[0]


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (ConnectionRefusedError(errno.ECONNREFUSED, "refused"), "connection refused"),
        (
            socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
            "unknown host (Name or service not known)",
        ),
        (OSError(errno.EHOSTUNREACH, "No route to host"), "no route to host"),
        (OSError(errno.ENETUNREACH, "Network is unreachable"), "network unreachable"),
        # anyio, for a host with several addresses
        (
            chained(
                OSError("All connection attempts failed"),
                ExceptionGroup(
                    "multiple connection attempts failed",
                    [
                        ConnectionRefusedError(errno.ECONNREFUSED, "::1"),
                        ConnectionRefusedError(errno.ECONNREFUSED, "127.0.0.1"),
                    ],
                ),
            ),
            "connection refused",
        ),
        # asyncio before Python 3.12's all_errors, likewise
        (
            OSError(
                f"Multiple exceptions: [Errno {errno.ECONNREFUSED}] Connect call failed "
                f"('::1', 9), [Errno {errno.ECONNREFUSED}] Connect call failed ('127.0.0.1', 9)"
            ),
            "connection refused",
        ),
        (chained(LeanConnectError("x"), ConnectionRefusedError(111, "x")), "connection refused"),
        # something answered
        (ConnectionResetError(errno.ECONNRESET, "reset by peer"), None),
        (chained(LeanConnectError("x"), ssl.SSLError(1, "handshake failure")), None),
        (chained(ConnectionRefusedError(111, "x"), ssl.SSLError(1, "bad")), None),
        # a local limit under load is transient, not an unreachable server
        (OSError(errno.EMFILE, "Too many open files"), None),
        (ValueError("unrelated"), None),
    ],
)
def test_unreachable_reason(exc: BaseException, reason: str | None) -> None:
    assert unreachable_reason(exc) == reason


def test_connection_error_scrubs_the_key() -> None:
    options: dict[str, Any] = {
        "backend": "openai",
        "where": "model 'm' at x",
        "secrets": [KEY],
        "url_from": "base_url",
    }
    dropped = connection_error(ConnectionResetError(104, KEY), f"reset: {KEY}", **options)
    assert type(dropped) is ServerError
    assert str(dropped) == "openai backend: connection to model 'm' at x failed: reset: ***"
    refused = connection_error(ConnectionRefusedError(111, KEY), KEY, **options)
    assert type(refused) is EndpointUnreachable
    assert KEY not in str(refused)
