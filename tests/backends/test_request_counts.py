"""The store's attempts equal the requests the server saw.

With connections being reset, the store's ``attempts`` summed to 1-2 fewer than the
requests the server counted. The lean client resends a request once when a kept-alive
connection turns out closed before any reply (a reset is indistinguishable from that
race), and it counted the resend only when the resend got a reply: a resend that was
reset too, timed out, or got an unreadable reply reached the runner as one request.
And on both transports, a request refused for asking for logprobs, then made again
without them, counted as one request, not two. Each failure now carries the requests
it took, so the runner, the summary and the store count what the server saw.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import Completion
from fairjudge._errors import BackendError, BackendTimeout, ServerError
from fairjudge.backends import OpenAIBackend
from fairjudge.runner import RetryPolicy, RunOptions, Store, run_calls
from tests.backends._calls import spec_for
from tests.server import Fault, JudgeServer, prompt_hash

FAST = RetryPolicy(max_attempts=8, base_delay=0.001, max_delay=0.002)


def backend(server: JudgeServer, transport: Any = "lean", **options: Any) -> OpenAIBackend:
    return OpenAIBackend("m", base_url=server.base_url, transport=transport, **options)


def two_calls(b: OpenAIBackend) -> list[Completion | BackendError]:
    """Two calls in a row on one connection: the second reuses the first's socket."""

    async def go() -> list[Completion | BackendError]:
        out: list[Completion | BackendError] = []
        try:
            for i in range(2):
                try:
                    out.append(await b.complete(spec_for(b, prompt=f"<answer_a>{i}</answer_a>")))
                except BackendError as exc:
                    out.append(exc)
        finally:
            await b.aclose()
        return out

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("then", "error", "message"),
    [
        (Fault.RESET, ServerError, "ConnectionResetError"),
        (Fault.HANG, BackendTimeout, "no reply"),
        (Fault.EMPTY_CHOICES, ServerError, "no choices"),
        (Fault.MALFORMED_JSON, ServerError, "not valid JSON"),
    ],
)
def test_a_resend_that_fails_counts_both_requests(
    openai_env: JudgeServer, then: Fault, error: type[BackendError], message: str
) -> None:
    # The second call's request is reset on the kept-alive socket (after the server
    # read it), resent on a fresh one, and that fails too.
    # The timeout only has to end the HANG case (hang_s) and leave the first, plain call
    # time to answer on a loaded machine (0.5 s was once too little in CI).
    openai_env.configure(fault_sequence=[None, Fault.RESET, then], hang_s=10.0)
    first, second = two_calls(backend(openai_env, timeout=3.0))
    assert isinstance(first, Completion)
    assert first.requests == 1
    assert isinstance(second, error)
    assert message in str(second)
    assert second.requests == 2
    assert openai_env.count("requests") == 3


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_a_request_refused_for_its_logprobs_is_counted(
    openai_env: JudgeServer, transport: str
) -> None:
    openai_env.configure(reject_logprobs=True)
    first, second = two_calls(backend(openai_env, transport))
    assert isinstance(first, Completion)
    assert isinstance(second, Completion)
    assert first.requests == 2  # the refused request, then the same call without logprobs
    assert second.requests == 1
    assert openai_env.count("logprobs_rejected") == 1
    assert openai_env.count("requests") == 3


def test_the_refused_request_counts_when_the_retry_fails(openai_env: JudgeServer) -> None:
    # A refusal draws no fault: the 500 is the retry's.
    openai_env.configure(reject_logprobs=True, fault_sequence=[Fault.SERVER_ERROR])
    error, after = two_calls(backend(openai_env))
    assert isinstance(error, ServerError)
    assert error.requests == 2
    assert isinstance(after, Completion)
    assert after.requests == 1
    assert openai_env.count("requests") == 3


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_store_attempts_equal_the_requests_the_server_saw_under_resets(
    openai_env: JudgeServer, tmp_path: Path, transport: str
) -> None:
    # Resets (and a few other faults) at random; every call's stored attempts must be
    # the requests the server saw for it, and so must the sums. Before: lean stored
    # 254 attempts for 272 requests at a 30% reset rate.
    openai_env.configure(
        faults={Fault.RESET: 0.3, Fault.RATE_LIMIT: 0.05, Fault.EMPTY_CHOICES: 0.05},
        retry_after="0",
        seed=20,
    )
    b = backend(openai_env, transport)
    prompts = [f"<answer_a>{i}</answer_a><answer_b>-</answer_b>" for i in range(120)]
    specs = [spec_for(b, prompt=p) for p in prompts]

    async def go(store: Store) -> int:
        try:
            options = RunOptions(concurrency=8, retry=FAST, progress=None)
            result = await run_calls(b, specs, store=store, options=options)
        finally:
            await b.aclose()
        return result.summary.requests

    with Store(tmp_path / "s.sqlite") as store:
        requests = asyncio.run(go(store))
        attempts = {r.key: r.attempts for r in store.records()}
    seen = openai_env.prompt_counts()["requests"]
    by_call = Counter({s.key: seen[prompt_hash(p)] for s, p in zip(specs, prompts, strict=True)})
    assert openai_env.count(Fault.RESET) > 20  # the scenario did happen
    assert attempts == dict(by_call)
    assert requests == sum(attempts.values()) == openai_env.count("requests")
