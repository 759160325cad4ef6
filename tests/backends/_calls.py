"""What the HTTP backend tests share: the prompt, a call spec built from it, a runner."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from fairjudge._call import Backend, CallSpec
from fairjudge._errors import BackendError, RateLimitError, ServerError
from tests.server import Fault

T = TypeVar("T")

SYSTEM = "You are an impartial judge."
PROMPT = (
    "Which answer is better?\n\n<question>\nWhat is 2 + 2?\n</question>\n\n"
    "<answer_a>\nfour\n</answer_a>\n\n<answer_b>\nIt is 4, because 2 + 2 = 4.\n</answer_b>\n\n"
    'Reply with only "A", "B" or "tie".'
)
WRONG_KEY = "sk-proj-WRONGkey0123456789abcdefSECRET"
"""A key the scripted server rejects, and echoes in its 401 message, as some providers do."""


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def spec_for(
    backend: Backend, *, label_only: bool = True, prompt: str = PROMPT, system: str = SYSTEM
) -> CallSpec:
    """One call to ``backend`` with its default parameters."""
    return CallSpec(
        backend=backend.name,
        model=backend.model,
        base_url=backend.base_url,
        messages=(("system", system), ("user", prompt)),
        template="default",
        template_version="1",
        params=backend.default_params(label_only=label_only),
    )


FAULT_ERRORS: list[tuple[Fault, type[BackendError], str]] = [
    (Fault.RATE_LIMIT, RateLimitError, "HTTP 429"),
    (Fault.SERVER_ERROR, ServerError, "HTTP 500"),
    (Fault.MALFORMED_JSON, ServerError, "not valid JSON"),
    (Fault.EMPTY_CHOICES, ServerError, "no choices"),
    (Fault.NULL_CONTENT, ServerError, "no text"),
]
"""Faults of the scripted server, the error each maps to, and a fragment of its message."""
