"""The lean HTTP transport of OpenAIBackend against the scripted server on 127.0.0.1.

Every behaviour is checked against the SDK path too: the same calls through
``transport="sdk"`` and ``transport="lean"`` must give the same completions and the
same errors, word for word.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import Completion
from fairjudge._errors import (
    AuthenticationError,
    BackendError,
    BackendTimeout,
    ConfigError,
    FatalBackendError,
    RateLimitError,
    ServerError,
)
from fairjudge.backends._lean_http import LeanHTTPClient
from fairjudge.backends._openai import OpenAIBackend
from fairjudge.backends._openai_wire import completion_from_reply, error_message
from tests.backends._calls import FAULT_ERRORS, WRONG_KEY, run, spec_for
from tests.server import GARBAGE_TEXT, Fault, JudgeServer, top_logprobs

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def lean(server: JudgeServer, **options: Any) -> OpenAIBackend:
    return OpenAIBackend("m", base_url=server.base_url, transport="lean", **options)


async def calls(backend: OpenAIBackend, n: int = 1, *, label_only: bool = True) -> list[Any]:
    """``n`` sequential calls; each result is a Completion or the BackendError raised."""
    out: list[Any] = []
    try:
        for _ in range(n):
            try:
                out.append(await backend.complete(spec_for(backend, label_only=label_only)))
            except BackendError as exc:
                out.append(exc)
    finally:
        await backend.aclose()
    return out


def same_call_both_ways(
    server: JudgeServer, setup: Callable[[], object], label_only: bool = True
) -> tuple[Any, Any]:
    """One call through the SDK and one through lean, each on a freshly set-up server."""
    results = []
    for transport in ("sdk", "lean"):
        setup()
        server.reset()
        backend = OpenAIBackend("m", base_url=server.base_url, transport=transport)
        (result,) = run(calls(backend, label_only=label_only))
        results.append(result)
    return results[0], results[1]


def fields(completion: Completion) -> tuple[Any, ...]:
    c = completion
    return (c.text, c.top_logprobs, c.input_tokens, c.output_tokens, c.model)


# -- choosing the transport ---------------------------------------------------------------


def test_auto_picks_lean_for_an_http_server_without_proxy(
    openai_env: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def picked(base_url: str | None = openai_env.base_url, **kw: Any) -> str:
        backend = OpenAIBackend("m", base_url=base_url, **kw)
        run(backend.aclose())
        return backend.transport

    assert picked() == "lean"
    assert picked("https://judge.example.org/v1") == "lean"
    assert picked(None) == "sdk"  # the OpenAI API itself: the SDK is the reference
    assert picked(transport="sdk") == "sdk"
    monkeypatch.setenv("https_proxy", "http://proxy.example.org:3128")
    assert picked() == "lean"  # an https proxy does not apply to http://
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example.org:3128")
    assert picked() == "sdk"
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert picked() == "lean"
    monkeypatch.delenv("NO_PROXY")
    monkeypatch.delenv("HTTP_PROXY")
    monkeypatch.setenv("ALL_PROXY", "http://proxy.example.org:3128")
    assert picked() == "sdk"
    with pytest.raises(ConfigError, match="transport must be"):
        OpenAIBackend("m", base_url=openai_env.base_url, transport="http2")  # type: ignore[arg-type]


def test_lean_client_rejects_other_schemes() -> None:
    with pytest.raises(ConfigError, match="http:// or https://"):
        LeanHTTPClient("unix:///run/judge.sock")


# -- replies --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "script",
    [
        {},
        {"judge": "longer", "confidence": 0.8},
        {"judge": "shorter", "reply_format": "Verdict: {verdict}"},
        {"fault_sequence": [Fault.GARBAGE]},
        {"logprobs": False},
        {"chunked": True, "judge": "longer"},
    ],
)
def test_sdk_and_lean_give_identical_completions(
    openai_env: JudgeServer, script: dict[str, Any]
) -> None:
    sdk, lean_ = same_call_both_ways(openai_env, lambda: openai_env.configure(**script))
    assert isinstance(sdk, Completion)
    assert isinstance(lean_, Completion)
    assert fields(lean_) == fields(sdk)


def test_long_reply_parity(openai_env: JudgeServer) -> None:
    fmt = "Both are fine, but B shows its work.\n\n[[{verdict}]]"
    sdk, lean_ = same_call_both_ways(
        openai_env, lambda: openai_env.configure(reply_format=fmt), label_only=False
    )
    assert fields(lean_) == fields(sdk)
    assert lean_.text == "Both are fine, but B shows its work.\n\n[[A]]"
    assert lean_.top_logprobs is None


def test_garbage_text_is_returned_for_the_parser(openai_env: JudgeServer) -> None:
    openai_env.configure(fault_sequence=[Fault.GARBAGE])
    (completion,) = run(calls(lean(openai_env)))
    assert completion.text == GARBAGE_TEXT
    assert completion.top_logprobs is not None
    assert not {"A", "B", "tie"} & set(completion.top_logprobs)


def test_chunked_replies(openai_env: JudgeServer) -> None:
    openai_env.configure(chunked=True, judge="longer", fault_sequence=[None, Fault.RATE_LIMIT])
    ok, limited = run(calls(lean(openai_env), 3))[:2]
    assert ok.text == "B"
    assert ok.top_logprobs == dict(top_logprobs("B", 0.9, 20))
    assert isinstance(limited, RateLimitError)
    assert limited.retry_after == 1.0
    assert openai_env.count("connections") == 1  # chunked replies keep the connection


# -- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(("fault", "error", "fragment"), FAULT_ERRORS)
def test_faults_map_to_the_sdk_paths_errors(
    openai_env: JudgeServer, fault: Fault, error: type[BackendError], fragment: str
) -> None:
    sdk, lean_ = same_call_both_ways(
        openai_env, lambda: openai_env.configure(fault_sequence=[fault])
    )
    assert type(lean_) is type(sdk) is error
    assert fragment in str(lean_)
    assert str(lean_) == str(sdk)
    assert lean_.retryable is True
    assert openai_env.count("requests") == 1  # no retries of its own
    assert openai_env.count(fault) == 1


def test_rate_limit_carries_retry_after(openai_env: JudgeServer) -> None:
    openai_env.configure(fault_sequence=[Fault.RATE_LIMIT], retry_after="7")
    (error,) = run(calls(lean(openai_env)))
    assert isinstance(error, RateLimitError)
    assert error.retry_after == 7.0

    when = email.utils.formatdate(time.time() + 120, usegmt=True)
    openai_env.configure(fault_sequence=[Fault.RATE_LIMIT], retry_after=when)
    (error,) = run(calls(lean(openai_env)))
    assert isinstance(error, RateLimitError)
    assert error.retry_after is not None
    assert 60 < error.retry_after <= 120


def test_hang_is_a_timeout_and_the_socket_is_not_reused(openai_env: JudgeServer) -> None:
    openai_env.configure(fault_sequence=[Fault.HANG])
    timed_out, ok = run(calls(lean(openai_env, timeout=0.5), 2))
    assert isinstance(timed_out, BackendTimeout)
    assert str(timed_out) == "openai backend: no reply from model 'm' at " + (
        f"{openai_env.base_url} within 0.5 s"
    )
    assert ok.text == "A"
    assert openai_env.count("connections") == 2


def test_unknown_route_is_fatal(openai_env: JudgeServer) -> None:
    (error,) = run(calls(OpenAIBackend("m", base_url=openai_env.base_url + "/x", transport="lean")))
    assert isinstance(error, FatalBackendError)
    assert "HTTP 404" in str(error)
    assert error.retryable is False


def test_401_without_the_key_anywhere(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", WRONG_KEY)
    backend = lean(judge_server)
    assert backend.transport == "lean"
    shown = repr(backend)
    (error,) = run(calls(backend))
    assert backend._lean is not None  # the client is made by the first call
    shown += repr(backend) + repr(backend._lean)

    assert isinstance(error, AuthenticationError)
    assert error.retryable is False
    assert "HTTP 401" in str(error)
    assert "$OPENAI_API_KEY" in str(error)
    # The server echoed the key; no trace of it anywhere in the chain.
    shown += "".join(traceback.format_exception(error)) + repr(error) + repr(error.__cause__)
    assert WRONG_KEY not in shown
    assert "WRONGkey" not in shown
    assert judge_server.count("unauthorized") == 1
    assert judge_server.count("requests") == 1


def test_key_with_a_line_break_is_refused_without_showing_it(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", WRONG_KEY + "\r\nX-Injected: 1")
    with pytest.raises(ConfigError, match="Authorization header") as info:
        lean(judge_server)
    assert "WRONGkey" not in "".join(traceback.format_exception(info.value))


def test_local_server_needs_no_key(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge_server.configure(api_key=None)
    assert run(calls(lean(judge_server)))[0].text == "A"


def test_rejected_logprobs_fall_back_to_labels_once(openai_env: JudgeServer) -> None:
    openai_env.configure(reject_logprobs=True)
    backend = lean(openai_env)
    first, second = run(calls(backend, 2))

    assert first.text == second.text == "A"
    assert first.top_logprobs is None
    assert second.top_logprobs is None
    assert backend.sends_logprobs is False
    assert openai_env.count("requests") == 3  # rejected, its retry, the second call
    assert openai_env.count("logprobs_rejected") == 1


def test_concurrent_calls_all_fall_back(openai_env: JudgeServer) -> None:
    openai_env.configure(reject_logprobs=True, latency=0.05)
    backend = lean(openai_env)

    async def many() -> list[Completion]:
        try:
            return await asyncio.gather(*(backend.complete(spec_for(backend)) for _ in range(20)))
        finally:
            await backend.aclose()

    assert [c.text for c in run(many())] == ["A"] * 20
    rejected = openai_env.count("logprobs_rejected")
    assert 1 <= rejected <= 20
    assert openai_env.count("requests") == 20 + rejected


# -- connections -----------------------------------------------------------------------


def test_keep_alive_reuses_a_small_pool(openai_env: JudgeServer) -> None:
    openai_env.configure(judge="longer", latency=0.02)
    backend = lean(openai_env, max_connections=8)

    async def many() -> list[Completion]:
        try:
            out: list[Completion] = []
            for _ in range(5):
                out += await asyncio.gather(
                    *(backend.complete(spec_for(backend)) for _ in range(40))
                )
            return out
        finally:
            await backend.aclose()

    assert [c.text for c in run(many())] == ["B"] * 200
    assert openai_env.count("requests") == 200
    assert openai_env.count("max_in_flight") <= 8
    assert openai_env.count("connections") <= 8


def test_server_closing_idle_connections(openai_env: JudgeServer) -> None:
    openai_env.configure(idle_timeout_s=0.05)
    backend = lean(openai_env)

    async def spaced() -> list[Completion]:
        try:
            out = []
            for _ in range(3):
                out.append(await backend.complete(spec_for(backend)))
                await asyncio.sleep(0.2)  # the server closes the idle connection meanwhile
            return out
        finally:
            await backend.aclose()

    assert [c.text for c in run(spaced())] == ["A"] * 3
    assert openai_env.count("requests") == 3
    assert openai_env.count("idle_closed") == 3
    assert openai_env.count("connections") == 3


def test_request_dropped_on_a_reused_connection_is_sent_again(openai_env: JudgeServer) -> None:
    openai_env.configure(drop_after=1)  # each connection: one reply, then hangs up
    results = run(calls(lean(openai_env), 3))
    assert [r.text for r in results] == ["A"] * 3
    assert openai_env.count("requests") == 3
    assert openai_env.count("dropped") == 2  # the 2nd and 3rd calls, each resent once
    assert openai_env.count("connections") == 3
    # Every request that went on the wire is counted (issue 10): 1 + 2 + 2.
    assert [getattr(r, "requests", None) for r in results] == [1, 2, 2]


def test_resends_are_counted_by_the_runner_and_the_store(
    openai_env: JudgeServer, tmp_path: Path
) -> None:
    from fairjudge.runner import RunOptions, Store, run_calls

    openai_env.configure(drop_after=1)
    backend = lean(openai_env)
    specs = [spec_for(backend, prompt=f"q{i}") for i in range(3)]

    async def go():  # type: ignore[no-untyped-def]
        options = RunOptions(concurrency=1, progress="quiet")
        with Store(tmp_path / "s.sqlite") as store:
            result = await run_calls(backend, specs, store=store, options=options)
            attempts = sum(r.attempts for r in store.records())
        await backend.aclose()
        return result, attempts

    result, attempts = asyncio.run(go())
    seen = openai_env.count("requests") + openai_env.count("dropped")
    assert result.summary.requests == seen == 5
    assert attempts == 5


def test_request_dropped_on_a_fresh_connection_is_an_error(openai_env: JudgeServer) -> None:
    openai_env.configure(drop_after=0)
    (error,) = run(calls(lean(openai_env)))
    assert isinstance(error, ServerError)
    assert str(error).endswith("the server closed the connection without a reply")
    assert openai_env.count("dropped") == 1  # a fresh connection is never resent


def test_connection_close_is_honoured(openai_env: JudgeServer) -> None:
    openai_env.configure(keep_alive_max=2)
    results = run(calls(lean(openai_env), 5))
    assert [r.text for r in results] == ["A"] * 5
    assert openai_env.count("connections") == 3
    assert openai_env.count("dropped") == 0


# -- reply helpers ----------------------------------------------------------------------


def test_error_message_shapes() -> None:
    assert error_message(b'{"error": {"message": "bad key"}}') == "bad key"
    assert error_message(b'{"error": "overloaded"}') == "overloaded"
    assert error_message(b'{"message": "nope"}') == "nope"
    assert error_message(b"<html>502 Bad Gateway</html>") == "<html>502 Bad Gateway</html>"
    assert error_message(b"") == "(empty body)"


def test_completion_from_reply_edge_cases() -> None:
    where = "model 'm' at x"
    refusal = {"choices": [{"message": {"content": None, "refusal": "I can't judge this."}}]}
    assert completion_from_reply(refusal, 0.1, where).text == "I can't judge this."
    bad_logprobs = {
        "choices": [{"message": {"content": "A"}, "logprobs": {"content": [{"token": 1}]}}],
        "usage": "n/a",
    }
    completion = completion_from_reply(bad_logprobs, 0.1, where)
    assert (completion.text, completion.top_logprobs, completion.input_tokens) == ("A", None, None)
    broken: Any
    for broken in ([], {"choices": {}}, {"choices": ["A"]}, None):
        with pytest.raises(ServerError, match="no choices"):
            completion_from_reply(broken, 0.1, where)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        # Two faults at once: the pool size is named first, as the client always did.
        ({"base_url": "http://h/\u00e9", "max_connections": 0}, "max_connections must be"),
        ({"base_url": "http://h/v1", "max_connections": 0}, "max_connections must be"),
        ({"base_url": "http://h/\u00e9"}, "must be ASCII"),
        ({"base_url": "http://h:99999/v1"}, "bad port"),
        ({"base_url": "http://h:abc/v1", "transport": "sdk"}, "bad port"),
    ],
)
def test_bad_settings_are_refused_when_the_backend_is_made(
    options: dict[str, Any], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lean client is made by the first call; its settings are checked before that."""
    monkeypatch.setenv("OPENAI_API_KEY", WRONG_KEY)
    options.setdefault("transport", "lean")
    with pytest.raises(ConfigError, match=message):
        OpenAIBackend("m", **options)
