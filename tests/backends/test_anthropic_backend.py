"""AnthropicBackend against the scripted server's Messages endpoint on 127.0.0.1."""

from __future__ import annotations

import asyncio
import sys
import traceback

import pytest

from fairjudge._call import Completion
from fairjudge._errors import (
    AuthenticationError,
    BackendTimeout,
    ConfigError,
    MissingExtraError,
    RateLimitError,
    ServerError,
)
from fairjudge.backends._anthropic import AnthropicBackend
from tests.backends._calls import SYSTEM, spec_for
from tests.server import Fault, JudgeServer, count_tokens

PROMPT = (
    "<question>\nCapital of France?\n</question>\n\n"
    "<answer_a>\nParis [correct]\n</answer_a>\n\n<answer_b>\nLyon\n</answer_b>"
)


@pytest.fixture
def anthropic_env(judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch) -> JudgeServer:
    assert judge_server.api_key is not None
    monkeypatch.setenv("ANTHROPIC_API_KEY", judge_server.api_key)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    return judge_server


def backend_for(server: JudgeServer, *, timeout: float = 60.0) -> AnthropicBackend:
    # The Anthropic SDK appends /v1/messages to the base URL itself.
    url = server.base_url.removesuffix("/v1")
    return AnthropicBackend("claude-test", base_url=url, timeout=timeout)


def complete_once(backend: AnthropicBackend, *, label_only: bool = True) -> Completion:
    spec = spec_for(backend, label_only=label_only, prompt=PROMPT)

    async def go() -> Completion:
        try:
            return await backend.complete(spec)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # makes `import anthropic` fail
    with pytest.raises(MissingExtraError, match=r"pip install 'fairjudge\[anthropic\]'"):
        AnthropicBackend("claude-test")


def test_missing_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"\$ANTHROPIC_API_KEY"):
        AnthropicBackend("claude-test")


def test_labels_only(anthropic_env: JudgeServer) -> None:
    anthropic_env.configure(judge="correct", correct="[correct]")
    completion = complete_once(backend_for(anthropic_env))

    assert completion.text == "A"
    assert completion.top_logprobs is None
    # The system message travelled in `system=`, and was counted once.
    assert completion.input_tokens == count_tokens(SYSTEM) + count_tokens(PROMPT)
    assert completion.output_tokens == 1
    assert completion.model == "claude-test"
    assert anthropic_env.count("ok") == 1
    assert anthropic_env.count("logprobs_requested") == 0


def test_default_params(anthropic_env: JudgeServer) -> None:
    backend = backend_for(anthropic_env)
    try:
        assert backend.default_params(label_only=True) == {"temperature": 0.0, "max_tokens": 8}
        assert backend.default_params(label_only=False) == {
            "temperature": 0.0,
            "max_tokens": 1024,
        }
    finally:
        asyncio.run(backend.aclose())


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Fault.RATE_LIMIT, RateLimitError),
        (Fault.SERVER_ERROR, ServerError),
        (Fault.MALFORMED_JSON, ServerError),
        (Fault.EMPTY_CHOICES, ServerError),
        (Fault.NULL_CONTENT, ServerError),
    ],
)
def test_faults_map_to_errors(
    anthropic_env: JudgeServer, fault: Fault, error: type[Exception]
) -> None:
    anthropic_env.configure(fault_sequence=[fault], retry_after="2")
    with pytest.raises(error) as info:
        complete_once(backend_for(anthropic_env))
    if isinstance(info.value, RateLimitError):
        assert info.value.retry_after == 2.0
    assert anthropic_env.count("requests") == 1
    assert anthropic_env.count(fault) == 1


def test_hang_is_a_timeout(anthropic_env: JudgeServer) -> None:
    anthropic_env.configure(fault_sequence=[Fault.HANG])
    with pytest.raises(BackendTimeout):
        complete_once(backend_for(anthropic_env, timeout=1.0))
    assert anthropic_env.count("requests") == 1


WRONG_KEY = "sk-ant-api03-WRONGkey0123456789abcdef"


def test_401_without_the_key(judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", WRONG_KEY)
    backend = backend_for(judge_server)
    assert WRONG_KEY not in repr(backend)
    with pytest.raises(AuthenticationError, match="HTTP 401") as info:
        complete_once(backend)
    shown = "".join(traceback.format_exception(info.value)) + repr(info.value.__cause__)
    assert "WRONGkey" not in shown
    assert "$ANTHROPIC_API_KEY" in str(info.value)
    assert judge_server.count("unauthorized") == 1
