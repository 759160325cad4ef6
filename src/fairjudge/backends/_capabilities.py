"""What each judge family accepts, and what a refused request teaches about the rest.

Reasoning models and extended thinking refuse parameters older models took, so
requests are built from a table and a judge in it never pays for a refused request; a
model the table does not know is learned from its first refusal (:func:`lesson`).
Pure code: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "EFFORTS",
    "EMPTY_AT_CAP_LIMIT",
    "MIN_THINKING_BUDGET",
    "Capabilities",
    "Change",
    "Knowledge",
    "apply_changes",
    "capabilities_for",
    "lesson",
    "reasoning_room",
]

Family = Literal["openai-chat", "openai-reasoning", "anthropic", "openai-unknown"]

EFFORTS = ("minimal", "low", "medium", "high")
"""The ``reasoning_effort`` values of Chat Completions (``minimal``: gpt-5 family only)."""

MIN_THINKING_BUDGET = 1024
"""Anthropic's smallest ``thinking.budget_tokens``."""

EMPTY_AT_CAP_LIMIT = 3
"""Replies empty at their cap (all reasoning, no answer) after which a run sends no more.

Each such reply is paid for and says nothing; the same cap would end the same way
for the next calls, so after a few the run stops and says what to raise."""

_REASONING_ROOM = {"minimal": 1024, "low": 4096, "medium": 8192, "high": 24576}
"""Output tokens left for hidden reasoning, per effort (``None``: the server's medium).

A judge's prompt is short and its answer one label or a few lines, so these are
generous for the task; ``high`` is OpenAI's advice of about 25,000 tokens for
reasoning and output. The cap costs nothing unless used: tokens are billed as spent.
"""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What one model family accepts in a request.

    Attributes:
        family: ``openai-chat`` (gpt-4o*, gpt-4.1*, and any OpenAI-compatible server's
            model), ``openai-reasoning`` (gpt-5*, o1*, o3*, o4*), ``anthropic``.
        known: The family is in the table (an ``openai/`` model name the table does
            not know is sent as a chat model and learned from its refusals).
        cap_param: The name of the output cap: ``max_tokens`` or
            ``max_completion_tokens``.
        temperature: Whether a temperature other than 1 is accepted.
        top_p: Whether ``top_p`` other than 1 is accepted.
        logprobs: Whether ``logprobs``/``top_logprobs`` are accepted.
        efforts: The ``reasoning_effort`` values accepted (empty: none).
        thinking: Whether Anthropic extended thinking is available.
        cache_min_tokens: Anthropic's shortest cacheable prefix for the model.
    """

    family: Family
    known: bool
    cap_param: str = "max_tokens"
    temperature: bool = True
    top_p: bool = True
    logprobs: bool = True
    efforts: tuple[str, ...] = ()
    thinking: bool = False
    cache_min_tokens: int = 1024

    @property
    def stochastic(self) -> bool:
        """The provider fixes the temperature at 1: every reply is a sample."""
        return not self.temperature


_OPENAI_REASONING = re.compile(r"^(gpt-5(?!-chat)|o[134](?![0-9]))")
_OPENAI_CHAT = re.compile(r"^(gpt-4o|gpt-4\.1|gpt-4|gpt-3\.5|chatgpt-4o|gpt-5-chat)")
# Anthropic: the models before extended thinking (Claude 3.7 Sonnet and every later
# model have it), and the cache minimum by model.
_NO_THINKING = re.compile(r"claude-(instant|2|3-(?!7))")
_CACHE_MIN = (
    (re.compile(r"claude-(opus-4-[56]|haiku-4)"), 4096),
    (re.compile(r"claude-(sonnet-4-6|3-5-haiku|3-haiku|haiku-3)"), 2048),
)


def capabilities_for(backend: str, model: str) -> Capabilities:
    """The table's row for ``model`` on ``backend`` (``"openai"`` or ``"anthropic"``).

    Names match by prefix after any ``org/`` part (``openai/gpt-5-mini`` is
    ``gpt-5-mini``), so dated snapshots (``o3-2025-04-16``) match their family.
    """
    name = model.rsplit("/", 1)[-1].lower()
    if backend == "anthropic":
        minimum = next((n for pattern, n in _CACHE_MIN if pattern.search(name)), 1024)
        thinking = not _NO_THINKING.search(name)
        return Capabilities("anthropic", True, thinking=thinking, cache_min_tokens=minimum)
    if _OPENAI_REASONING.match(name):
        efforts = EFFORTS if name.startswith("gpt-5") else EFFORTS[1:]
        return Capabilities(
            "openai-reasoning", True, cap_param="max_completion_tokens",
            temperature=False, top_p=False, logprobs=False, efforts=efforts,
        )  # fmt: skip
    if _OPENAI_CHAT.match(name):
        return Capabilities("openai-chat", True)
    return Capabilities("openai-unknown", False)


def reasoning_room(effort: str | None) -> int:
    """Output tokens to leave for hidden reasoning at ``effort`` (``None``: medium)."""
    return _REASONING_ROOM[effort or "medium"]


@dataclass(frozen=True, slots=True)
class Change:
    """One thing a refusal taught: send ``param`` as ``to``, or (``to=None``) drop it.

    Attributes:
        param: The parameter the server refused.
        to: Its new name, or ``None`` to stop sending it.
        status: The refusal's HTTP status.
        reason: The server's message, for the line the run prints.
        add: Tokens added to a renamed cap: the room a reasoning model needs to
            reason before it answers (a ``max_tokens`` refused for
            ``max_completion_tokens`` says the model reasons).
    """

    param: str
    to: str | None
    status: int
    reason: str
    add: int = 0

    def describe(self) -> str:
        """One line for the run's log: what changed, and why."""
        what = f"sending {self.to} instead" if self.to else "no longer sending it"
        if self.add:
            what += f", with {self.add} more tokens of room to reason"
        return f"refused {self.param!r} (HTTP {self.status}: {self.reason}); {what}"

    def short(self) -> str:
        """What the run sends now, in a few words: the run summary's line."""
        if self.to is None:
            return f"stopped sending {self.param}"
        return f"sent {self.to} instead of {self.param}"


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one copy of a backend has learned about a model the table does not know.

    Several copies of one backend learn the same model (one per Ray worker); each
    copy's knowledge is handed to the others, so a refusal one paid is not paid again
    by the rest. Knowledge only grows: merging keeps every change and every parameter
    seen taken, so :attr:`size` tells a newer copy from an older one without comparing.

    Attributes:
        changes: What refusals taught, one :class:`Change` per refused parameter.
        accepted: The parameters of a call the server answered: a call asking only
            these needs no probe (it will not be refused for a parameter).
    """

    changes: tuple[Change, ...] = ()
    accepted: frozenset[str] = frozenset()

    @property
    def size(self) -> int:
        """How much it holds; grows with every change or parameter learned."""
        return len(self.changes) + len(self.accepted)

    def merged(self, other: Knowledge) -> Knowledge:
        """Both together (a parameter's first change kept: copies learn the same one)."""
        known = {change.param for change in self.changes}
        new = tuple(change for change in other.changes if change.param not in known)
        return Knowledge(self.changes + new, self.accepted | other.accepted)

    def sent(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` as a copy that knows this sends them (:func:`apply_changes`)."""
        return apply_changes(params, {change.param: change for change in self.changes})


# Parameters whose refusal can be worked around without changing what is asked:
# the cap under its other name; sampling parameters at the provider's default
# (temperature and top_p 1); logprobs (labels only). A refused reasoning_effort is
# not learned: the user asked for it, so the refusal stands as an error.
_DROPPABLE = {"temperature", "top_p", "logprobs", "top_logprobs"}
_LOGPROB_PAIR = ("logprobs", "top_logprobs")


def lesson(
    status: int, error: Mapping[str, Any] | None, message: str, sent: Mapping[str, Any]
) -> list[Change]:
    """What a refused request teaches, or ``[]`` when it teaches nothing.

    Args:
        status: The HTTP status (only 400 and 422 teach).
        error: The error object (``{"message", "type", "param", "code"}``), if any.
        message: The server's message (redacted).
        sent: The body that was refused.

    Returns:
        The changes to make: a rename of the cap to ``max_completion_tokens`` when the
        server names it, or the refused parameter dropped; both logprob fields go
        together. A message that mentions logprobs without a ``param`` (vLLM and
        other servers) drops them too, as the older fallback did.
    """
    if status not in (400, 422):
        return []
    error = error or {}
    param = error.get("param")
    code = error.get("code")
    text = message.lower()
    if not isinstance(param, str) or param not in sent:
        if "logprob" in text and any(k in sent for k in _LOGPROB_PAIR):
            param = "logprobs"
        else:
            return []
    reason = message if len(message) <= 160 else message[:157] + "..."
    if param == "max_tokens" and (
        "max_completion_tokens" in text or code == "unsupported_parameter"
    ):
        return [Change("max_tokens", "max_completion_tokens", status, reason)]
    if param in _LOGPROB_PAIR:
        return [Change(p, None, status, reason) for p in _LOGPROB_PAIR if p in sent]
    if param in _DROPPABLE:
        return [Change(param, None, status, reason)]
    return []


def apply_changes(params: Mapping[str, Any], changes: Mapping[str, Change]) -> dict[str, Any]:
    """``params`` with the learned ``changes`` (by parameter) applied, order kept."""
    if not changes:
        return dict(params)
    out: dict[str, Any] = {}
    for name, value in params.items():
        change = changes.get(name)
        if change is None:
            out[name] = value
        elif change.to is not None:
            out[change.to] = value + change.add if change.add else value
    return out
