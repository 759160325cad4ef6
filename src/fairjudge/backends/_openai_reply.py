"""Reading an OpenAI-compatible chat-completion reply, for both transports.

The lean transport parses the JSON itself and the SDK path turns the SDK's object back
into the fields the server sent; both then go through :func:`completion_from_reply`,
so the two paths give the same :class:`~fairjudge._call.Completion` and the same
errors and cannot drift apart.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from fairjudge._call import Completion
from fairjudge._errors import ServerError
from fairjudge.backends._usage import openai_usage

__all__ = ["completion_from_reply", "error_message"]


def error_message(body: bytes) -> str:
    """The server's error text from an error reply's body (unscrubbed).

    ``{"error": {"message": ...}}`` (OpenAI, vLLM), ``{"error": "..."}`` or
    ``{"message": ...}``, else the body as text, as the SDK path reads it.
    """
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, Mapping):
        inner = data.get("error", data)
        message = inner.get("message") if isinstance(inner, Mapping) else inner
        if message:
            return str(message)
    text = body.decode("utf-8", "replace").strip()
    return text or "(empty body)"


def completion_from_reply(reply: Any, latency: float, where: str) -> Completion:
    """A :class:`Completion` from a parsed chat-completion reply.

    Mirrors the SDK path field by field: the first choice's content (else its
    refusal), the first token's top logprobs (unreadable ones are dropped, the text
    still counts), the token usage (checked as untrusted input by
    :func:`~fairjudge.backends._usage.openai_usage`: a figure that fails is never
    used, and the completion says why) and the model the server names.

    Raises:
        ServerError: The reply has no choices, or the first has no text.
    """
    try:
        choice = reply["choices"][0]
        message = choice["message"]
        text = message.get("content")
        if text is None:
            text = message.get("refusal")
    except (AttributeError, IndexError, TypeError, KeyError) as exc:
        raise ServerError(f"openai backend: {where}: reply has no choices") from exc
    if not isinstance(text, str):
        raise ServerError(f"openai backend: {where}: reply has no text (content is null)")
    top: dict[str, float] | None = None
    try:
        logprobs = choice.get("logprobs")
        content = logprobs.get("content") if logprobs is not None else None
        if content:
            first = content[0]
            top = {alt["token"]: float(alt["logprob"]) for alt in first.get("top_logprobs") or ()}
            top.setdefault(first["token"], float(first["logprob"]))
            # NaN or +inf from a server would become a NaN probability, and none can be
            # stored as JSON (-inf is probability 0: the same as not listed).
            top = {t: lp for t, lp in top.items() if math.isfinite(lp)}
    except (AttributeError, TypeError, ValueError, KeyError):
        top = None  # unreadable logprobs: the label still counts
    model = reply.get("model")
    return Completion(
        text=text,
        top_logprobs=top or None,
        latency_s=latency,
        model=model if isinstance(model, str) else None,
        **openai_usage(reply.get("usage")).fields(),  # untrusted: checked there
    )
