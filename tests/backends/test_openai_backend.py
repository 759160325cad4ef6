"""OpenAIBackend against the scripted server on 127.0.0.1 (no mocked SDK)."""

from __future__ import annotations

import asyncio
import email.utils
import time
import traceback

import pytest

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import (
    AuthenticationError,
    BackendError,
    BackendTimeout,
    ConfigError,
    FatalBackendError,
    RateLimitError,
    RequestRejected,
    ServerError,
)
from fairjudge._redact import redact
from fairjudge.backends._http_errors import error_from_status, retry_after_seconds
from fairjudge.backends._openai import OpenAIBackend, Transport
from tests.backends._calls import FAULT_ERRORS, PROMPT, SYSTEM, WRONG_KEY, run, spec_for
from tests.server import GARBAGE_TEXT, Fault, JudgeServer, count_tokens, top_logprobs


async def complete_once(backend: OpenAIBackend, spec: CallSpec | None = None) -> Completion:
    try:
        return await backend.complete(spec or spec_for(backend))
    finally:
        await backend.aclose()


@pytest.mark.parametrize("transport", ["sdk", "lean"])
def test_label_and_logprobs(openai_env: JudgeServer, transport: Transport) -> None:
    backend = OpenAIBackend("judge-1", base_url=openai_env.base_url, transport=transport)
    completion = run(complete_once(backend))

    assert completion.text == "A"
    assert completion.top_logprobs == dict(top_logprobs("A", 0.9, 20))
    assert completion.input_tokens == count_tokens(SYSTEM) + count_tokens(PROMPT)
    assert completion.output_tokens == 1
    assert completion.model == "judge-1"
    assert completion.latency_s > 0
    assert openai_env.stats() == {
        "connections": 1,
        "requests": 1,
        "logprobs_requested": 1,
        "ok": 1,
        "max_in_flight": 1,
    }


def test_logprobs_become_probabilities(openai_env: JudgeServer) -> None:
    from fairjudge.prompts import probabilities_from_logprobs

    openai_env.configure(judge="longer", confidence=0.8)
    completion = run(complete_once(OpenAIBackend("m", base_url=openai_env.base_url)))

    assert completion.text == "B"
    assert completion.top_logprobs is not None
    probs = probabilities_from_logprobs(completion.top_logprobs)
    assert probs is not None
    # B chosen at 0.8; A and tie share 90% of the rest 2:1 (see tests.server.top_logprobs).
    assert (probs.a, probs.b, probs.tie) == pytest.approx((0.12, 0.8, 0.06))


def test_default_params() -> None:
    backend = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1", extra_params={"seed": 7})
    try:
        assert backend.default_params(label_only=True) == {
            "temperature": 0.0,
            "max_tokens": 8,
            "logprobs": True,
            "top_logprobs": 20,
            "seed": 7,
        }
        assert backend.default_params(label_only=False) == {
            "temperature": 0.0,
            "max_tokens": 1024,
            "seed": 7,
        }
        assert backend.max_concurrency == 512
    finally:
        run(backend.aclose())


def test_long_reply_template_sends_no_logprobs(openai_env: JudgeServer) -> None:
    openai_env.configure(reply_format="Both are fine, but B shows its work.\n\n[[{verdict}]]")
    backend = OpenAIBackend("m", base_url=openai_env.base_url)
    completion = run(complete_once(backend, spec_for(backend, label_only=False)))

    assert completion.text == "Both are fine, but B shows its work.\n\n[[A]]"
    assert completion.top_logprobs is None
    assert openai_env.count("logprobs_requested") == 0


def test_rejected_logprobs_fall_back_to_labels_once(openai_env: JudgeServer) -> None:
    openai_env.configure(reject_logprobs=True)
    backend = OpenAIBackend("m", base_url=openai_env.base_url)
    spec = spec_for(backend)

    async def two_calls() -> tuple[Completion, Completion]:
        try:
            return await backend.complete(spec), await backend.complete(spec)
        finally:
            await backend.aclose()

    first, second = run(two_calls())

    assert first.text == second.text == "A"
    assert first.top_logprobs is None
    assert second.top_logprobs is None
    assert backend.sends_logprobs is False
    # One rejected request, its retry, then the second call: never asks again.
    assert openai_env.count("requests") == 3
    assert openai_env.count("logprobs_rejected") == 1
    assert openai_env.count("ok") == 2
    # The cache key is what the caller built; the fallback does not touch the spec.
    assert spec.params["logprobs"] is True


def test_concurrent_calls_all_fall_back(openai_env: JudgeServer) -> None:
    openai_env.configure(reject_logprobs=True, latency=0.05)
    backend = OpenAIBackend("m", base_url=openai_env.base_url)
    spec = spec_for(backend)

    async def many() -> list[Completion]:
        try:
            return await asyncio.gather(*(backend.complete(spec) for _ in range(20)))
        finally:
            await backend.aclose()

    completions = run(many())
    assert [c.text for c in completions] == ["A"] * 20
    # Each call sent with logprobs was rejected once and retried once without them.
    assert openai_env.count("ok") == 20
    rejected = openai_env.count("logprobs_rejected")
    assert 1 <= rejected <= 20
    assert openai_env.count("requests") == 20 + rejected


def test_reply_without_logprobs_is_a_label(openai_env: JudgeServer) -> None:
    openai_env.configure(logprobs=False)  # a server that silently ignores the request
    backend = OpenAIBackend("m", base_url=openai_env.base_url)
    completion = run(complete_once(backend))

    assert completion.text == "A"
    assert completion.top_logprobs is None
    assert openai_env.count("requests") == 1  # no retry: the label is already here
    assert backend.sends_logprobs is True


def test_garbage_text_is_returned_for_the_parser(openai_env: JudgeServer) -> None:
    openai_env.configure(fault_sequence=[Fault.GARBAGE])
    completion = run(complete_once(OpenAIBackend("m", base_url=openai_env.base_url)))

    assert completion.text == GARBAGE_TEXT
    assert completion.top_logprobs is not None
    assert not {"A", "B", "tie"} & set(completion.top_logprobs)
    assert openai_env.count(Fault.GARBAGE) == 1


@pytest.mark.parametrize(("fault", "error", "fragment"), FAULT_ERRORS)
def test_faults_map_to_errors(
    openai_env: JudgeServer, fault: Fault, error: type[BackendError], fragment: str
) -> None:
    openai_env.configure(fault_sequence=[fault])
    with pytest.raises(error, match=fragment):
        run(complete_once(OpenAIBackend("m", base_url=openai_env.base_url)))
    # Exactly one request: the SDK's own retries are off, the runner retries.
    assert openai_env.count("requests") == 1
    assert openai_env.count(fault) == 1


def test_rate_limit_carries_retry_after(openai_env: JudgeServer) -> None:
    openai_env.configure(fault_sequence=[Fault.RATE_LIMIT], retry_after="7")
    with pytest.raises(RateLimitError) as info:
        run(complete_once(OpenAIBackend("m", base_url=openai_env.base_url)))
    assert info.value.retry_after == 7.0
    assert info.value.retryable is True


def test_rate_limit_retry_after_http_date(openai_env: JudgeServer) -> None:
    when = email.utils.formatdate(time.time() + 120, usegmt=True)
    openai_env.configure(fault_sequence=[Fault.RATE_LIMIT], retry_after=when)
    with pytest.raises(RateLimitError) as info:
        run(complete_once(OpenAIBackend("m", base_url=openai_env.base_url)))
    assert info.value.retry_after is not None
    assert 60 < info.value.retry_after <= 120


def test_hang_is_a_timeout(openai_env: JudgeServer) -> None:
    openai_env.configure(fault_sequence=[Fault.HANG])
    with pytest.raises(BackendTimeout, match=r"within 1 s"):
        run(complete_once(OpenAIBackend("m", base_url=openai_env.base_url, timeout=1.0)))
    assert openai_env.count(Fault.HANG) == 1
    assert openai_env.count("requests") == 1


def test_unknown_route_is_fatal(openai_env: JudgeServer) -> None:
    backend = OpenAIBackend("m", base_url=openai_env.base_url + "/nowhere")
    with pytest.raises(FatalBackendError, match="HTTP 404") as info:
        run(complete_once(backend))
    assert info.value.retryable is False


def test_bad_request_is_this_requests_rejection(openai_env: JudgeServer) -> None:
    openai_env.configure(judge="longer")  # needs the answer blocks, which this prompt lacks
    backend = OpenAIBackend("m", base_url=openai_env.base_url)
    with pytest.raises(RequestRejected, match=r"HTTP 400.*no <answer_a>"):
        run(complete_once(backend, spec_for(backend, prompt="Say A.")))


def test_401_fails_fast_without_the_key(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", WRONG_KEY)
    backend = OpenAIBackend("m", base_url=judge_server.base_url)
    assert WRONG_KEY not in repr(backend)
    with pytest.raises(AuthenticationError) as info:
        run(complete_once(backend))

    error = info.value
    assert error.retryable is False
    assert "HTTP 401" in str(error)
    assert "$OPENAI_API_KEY" in str(error)
    # The server echoed the key; no trace of it anywhere in the chain.
    shown = "".join(traceback.format_exception(error)) + repr(error) + repr(error.__cause__)
    assert WRONG_KEY not in shown
    assert "WRONGkey" not in shown
    assert judge_server.count("unauthorized") == 1
    assert judge_server.count("requests") == 1


def test_custom_key_variable(judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    assert judge_server.api_key is not None
    monkeypatch.setenv("MY_JUDGE_KEY", judge_server.api_key)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backend = OpenAIBackend("m", base_url=judge_server.base_url, api_key_env="MY_JUDGE_KEY")
    assert run(complete_once(backend)).text == "A"


def test_missing_key_for_openai_api_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match=r"\$OPENAI_API_KEY"):
        OpenAIBackend("gpt-4o-mini")


def test_local_server_needs_no_key(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge_server.configure(api_key=None)
    assert run(complete_once(OpenAIBackend("m", base_url=judge_server.base_url))).text == "A"


def test_concurrent_calls_share_keep_alive_connections(openai_env: JudgeServer) -> None:
    openai_env.configure(judge="longer", latency=0.05)
    backend = OpenAIBackend("m", base_url=openai_env.base_url, max_connections=8)
    spec = spec_for(backend)

    async def many() -> list[Completion]:
        try:
            first = await asyncio.gather(*(backend.complete(spec) for _ in range(40)))
            second = await asyncio.gather(*(backend.complete(spec) for _ in range(40)))
            return first + second
        finally:
            await backend.aclose()

    completions = run(many())
    assert [c.text for c in completions] == ["B"] * 80
    assert openai_env.count("requests") == 80
    assert openai_env.count("max_in_flight") <= 8
    assert openai_env.count("connections") <= 8  # reused across both batches


# -- helpers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after": "-4"}, 0.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # in the past
        ({"retry-after": "soon"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_seconds(headers: dict[str, str] | None, expected: float | None) -> None:
    assert retry_after_seconds(headers) == expected


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, RequestRejected),
        (401, AuthenticationError),
        (403, AuthenticationError),
        (404, FatalBackendError),
        (408, BackendTimeout),
        (409, ServerError),
        (413, RequestRejected),
        (422, RequestRejected),
        (429, RateLimitError),
        (500, ServerError),
        (503, ServerError),
    ],
)
def test_error_from_status(status: int, error: type[Exception]) -> None:
    raised = error_from_status(status, "boom", backend="openai", where="m at x")
    assert type(raised) is error
    assert str(raised).startswith(f"openai backend: HTTP {status} from m at x: boom")


def test_redact_known_secrets_and_key_like_tokens() -> None:
    text = "key hunter2-secret, sk-ant-api03-abcdefgh1234, Bearer abc.def, sk-learn"
    assert redact(text, ["hunter2-secret", None, ""]) == ("key ***, ***, Bearer ***, sk-learn")


def test_redact_longest_secret_first() -> None:
    assert redact("token=abcdef123456", ["abc", "abcdef123456"]) == "token=***"
