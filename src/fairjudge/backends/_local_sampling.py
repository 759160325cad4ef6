"""Sampled label calls of the local judge, drawn from a shared greedy forward pass.

A label call above temperature 0 draws its token from the tempered top-20 softmax of
one cached forward pass (:class:`ForwardPasses`: k rounds cost one pass), seeded from
the call itself, so the same call gives the same label, as the store's key promises.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from fairjudge._call import CallSpec, Completion, Message

__all__ = [
    "ForwardPasses",
    "draw_token",
    "draws_from_shared_pass",
    "greedy_params",
    "is_greedy_label_pass",
    "sampled_completion",
]

# A sampled label-only call whose params are all in here is drawn from the greedy
# call's distribution; other sampler settings (top_p, penalties, ...) go to llama.cpp.
_SHARED_PASS_PARAMS = frozenset({"temperature", "max_tokens", "top_logprobs", "seed"})
_MIN_ALTERNATIVES = 20  # top_logprobs of a pass worth sharing: the label's whole distribution
_FORWARD_MEMO_SIZE = 256  # prompts; a 4-round run of one item needs 2


class ForwardPasses:
    """The greedy passes sampled calls draw from, by the prompt's messages.

    Least recently used first out beyond ``size`` prompts; safe to use from the worker
    threads the backend runs calls in.
    """

    def __init__(self, size: int = _FORWARD_MEMO_SIZE) -> None:
        self._size = size
        self._passes: OrderedDict[tuple[Message, ...], Completion] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._passes)

    def get(self, messages: tuple[Message, ...]) -> Completion | None:
        """The greedy pass over ``messages``, if one is kept."""
        with self._lock:
            shared = self._passes.get(messages)
            if shared is not None:
                self._passes.move_to_end(messages)
            return shared

    def remember(self, messages: tuple[Message, ...], completion: Completion) -> None:
        """Keep a greedy pass, unless it has too few alternatives to draw from."""
        if not completion.top_logprobs or len(completion.top_logprobs) < 2:
            return
        with self._lock:
            self._passes[messages] = completion
            self._passes.move_to_end(messages)
            while len(self._passes) > self._size:
                self._passes.popitem(last=False)

    def clear(self) -> None:
        """Forget every pass (the model they came from was unloaded)."""
        with self._lock:
            self._passes.clear()


def is_greedy_label_pass(params: Mapping[str, Any]) -> bool:
    """A one-token greedy call with at least 20 alternatives and nothing else set."""
    return (
        params.get("max_tokens") == 1
        and params.get("temperature") == 0
        and int(params.get("top_logprobs") or 0) >= _MIN_ALTERNATIVES
        and set(params) <= _SHARED_PASS_PARAMS - {"seed"}
    )


def draws_from_shared_pass(params: Mapping[str, Any]) -> bool:
    """A one-token call at a temperature above 0 with no other sampler settings."""
    temperature = params.get("temperature")
    return (
        params.get("max_tokens") == 1
        and isinstance(temperature, int | float)
        and temperature > 0
        and set(params) <= _SHARED_PASS_PARAMS
    )


def greedy_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The greedy call whose forward pass a sampled call with ``params`` draws from."""
    top = max(_MIN_ALTERNATIVES, int(params.get("top_logprobs") or 0))
    return {"temperature": 0.0, "max_tokens": 1, "top_logprobs": top}


def sampled_completion(
    spec: CallSpec, shared: Completion, start: float, model: str
) -> Completion | None:
    """The reply to a sampled call ``spec``: one token drawn from ``shared``'s alternatives.

    Args:
        spec: The sampled call; its temperature must be above 0.
        shared: The greedy pass over the same prompt.
        start: :func:`time.perf_counter` when the call began, for its latency.
        model: The model id to report.

    Returns:
        The completion, or ``None`` when ``shared`` has no alternatives to draw from
        (then llama.cpp must sample the call itself).
    """
    if not shared.top_logprobs:
        return None
    seed_material = json.dumps(
        [spec.messages, spec.params.get("temperature"), spec.params.get("seed"), spec.sample],
        ensure_ascii=False,
    )
    token = draw_token(shared.top_logprobs, float(spec.params["temperature"]), seed_material)
    return Completion(
        text=token,
        top_logprobs=shared.top_logprobs,
        input_tokens=shared.input_tokens,
        output_tokens=1,
        latency_s=time.perf_counter() - start,
        model=model,
        reasoning_tokens=0,
    )


def draw_token(top_logprobs: Mapping[str, float], temperature: float, seed_material: str) -> str:
    """Draw one token from ``softmax(logprob / temperature)`` over the given tokens.

    Deterministic in ``seed_material``: the same call draws the same token.

    Args:
        top_logprobs: Token to natural-log probability (the model's top tokens).
        temperature: Above 0; 1 keeps the model's probabilities (renormalized).
        seed_material: Any text identifying the call.

    Example:
        >>> draw_token({"A": 0.0, "B": -50.0}, 1.0, "call 1")
        'A'
    """
    if temperature <= 0:
        raise ValueError(f"temperature must be above 0 to sample, got {temperature}")
    tokens = sorted(top_logprobs)  # a fixed order, whatever order the dict came in
    scaled = [top_logprobs[t] / temperature for t in tokens]
    top = max(scaled)
    weights = [math.exp(v - top) for v in scaled]
    seed = int.from_bytes(hashlib.sha256(seed_material.encode("utf-8")).digest()[:8], "big")
    return random.Random(seed).choices(tokens, weights=weights, k=1)[0]
