"""Reading an Anthropic Messages reply (a parsed JSON body) into a :class:`Completion`.

One reader for the online call and a Message Batches result line, so both give the
same :class:`~fairjudge._call.Completion` and the same errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairjudge._call import Completion
from fairjudge._errors import RequestRejected, ServerError
from fairjudge.backends._usage import anthropic_usage

__all__ = ["completion_from_reply"]


def completion_from_reply(reply: Any, latency: float, where: str) -> Completion:
    """A :class:`Completion` from a parsed Messages reply.

    The text is the text blocks joined in order (thinking blocks are the model's
    hidden work, not its answer). The Messages API reports no logprobs, so
    ``top_logprobs`` is ``None``.

    Args:
        reply: The reply body as parsed JSON (a mapping).
        latency: Seconds the call took, recorded on the completion.
        where: ``"model ... at host"``, named in errors.

    Raises:
        ServerError: The reply has no content list, or no text block in it.
        RequestRejected: The reply was cut off by ``max_tokens`` while still
            thinking, before any text: sent again it would be cut again, so it is
            not retried, and the message says what to raise.
    """
    try:
        blocks = reply["content"]
        texts = [b["text"] for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"]
    except (TypeError, KeyError) as exc:
        raise ServerError(f"anthropic backend: {where}: reply has no content") from exc
    if not texts or not all(isinstance(t, str) for t in texts):
        if reply.get("stop_reason") == "max_tokens":
            cut = RequestRejected(
                f"anthropic backend: {where}: the reply reached max_tokens before any text "
                "(thinking used the whole cap); raise max_tokens, or lower thinking_budget"
            )
            cut.params = ("max_tokens", "thinking_budget")  # the CLI shows them as flags
            raise cut
        raise ServerError(f"anthropic backend: {where}: reply has no text block")
    model = reply.get("model")
    return Completion(
        text="".join(texts),
        top_logprobs=None,
        latency_s=latency,
        model=model if isinstance(model, str) else None,
        **anthropic_usage(reply.get("usage")).fields(),  # untrusted: checked there
    )
