"""Reading llama.cpp's in-process replies into completions and errors, for the local judge."""

from __future__ import annotations

import math
from typing import Any

from fairjudge._call import Completion
from fairjudge._errors import BackendError, RequestRejected, ServerError

__all__ = ["completion_from_llama", "llama_error", "pooled_top_logprobs"]


def completion_from_llama(response: Any, latency: float, model: str, n_ctx: int) -> Completion:
    """A :class:`Completion` from llama.cpp's chat-completion reply (a dict).

    Raises:
        RequestRejected: The prompt exceeds ``n_ctx``, or llama.cpp rejected the
            request (a 4xx error).
        ServerError: Any other error, or a reply with no choices.
    """
    if not isinstance(response, dict):
        raise ServerError(f"llama.cpp returned {type(response).__name__}, not a reply")
    if "error" in response:
        raise llama_error(response["error"], n_ctx)
    try:
        choice = response["choices"][0]
        text = choice["message"].get("content") or ""
        usage = response.get("usage") or {}
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ServerError(f"llama.cpp returned a reply with no choices: {response!r:.300}") from exc
    return Completion(
        text=text,
        top_logprobs=pooled_top_logprobs(choice.get("logprobs")),
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
        latency_s=latency,
        model=model,
    )


def pooled_top_logprobs(logprobs: Any) -> dict[str, float] | None:
    """The first generated token's alternatives, pooling tokens that decode alike."""
    try:
        alternatives = logprobs["content"][0]["top_logprobs"]
    except (KeyError, IndexError, TypeError):
        return None
    pooled: dict[str, float] = {}
    for alt in alternatives:
        token, logprob = alt.get("token"), alt.get("logprob")
        if not isinstance(token, str) or not isinstance(logprob, int | float):
            continue
        # Distinct token ids can decode to the same text; their probabilities add up.
        seen = pooled.get(token)
        pooled[token] = logprob if seen is None else _logaddexp(seen, float(logprob))
    return pooled or None


def _logaddexp(a: float, b: float) -> float:
    high, low = max(a, b), min(a, b)
    if low == -math.inf:
        return high
    return high + math.log1p(math.exp(low - high))


def llama_error(error: Any, n_ctx: int) -> BackendError:
    """The :class:`BackendError` for the ``error`` member of a llama.cpp reply."""
    if not isinstance(error, dict):
        return ServerError(f"llama.cpp error: {error!r:.300}")
    message = str(error.get("message", error))
    if error.get("type") == "exceed_context_size_error":
        return RequestRejected(
            f"the prompt has {error.get('n_prompt_tokens', '?')} tokens, more than the local "
            f"judge's context of {n_ctx} (n_ctx); raise it (--context on the command line) "
            "or shorten the answers"
        )
    code = error.get("code")
    if isinstance(code, int) and 400 <= code < 500:
        return RequestRejected(f"llama.cpp rejected the call ({code}): {message}")
    return ServerError(f"llama.cpp error ({code}): {message}")
