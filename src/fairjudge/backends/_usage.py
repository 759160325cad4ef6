"""Reading a server's token usage as untrusted input.

Usage decides what a call costs, and a hostile or buggy server can send anything
there; a figure that fails a check is never used, the call is marked with a
``usage_problem`` and charged its estimate. Both providers come out in one convention
(whole prompt, whole completion).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_REPORTED_TOKENS", "Usage", "anthropic_usage", "openai_usage"]

MAX_REPORTED_TOKENS = 100_000_000
"""The sane bound: a count at or above it is not believed.

A hundred million tokens is ten times the longest context window any model offers
(10 million), so no honest reply reaches it; a count that does is a bug or an attack.
"""


@dataclass(frozen=True, slots=True)
class Usage:
    """The usage figures of one reply, as far as they can be believed.

    Attributes:
        input_tokens: The whole prompt (cached and cache-written tokens included).
        output_tokens: The whole completion (reasoning included).
        reasoning_tokens: Of the completion, the hidden reasoning tokens.
        cached_input_tokens: Of the prompt, the tokens read from the prompt cache.
        cache_write_tokens: Of the prompt, the tokens written to the prompt cache.
        problem: Why the figures were not all believed; ``None`` when they were. A
            field that failed its check is ``None`` here, whatever the server sent.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    problem: str | None = None

    def fields(self) -> dict[str, Any]:
        """The :class:`~fairjudge._call.Completion` keyword arguments these figures fill."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "usage_problem": self.problem,
        }


class _Reader:
    """Reads counts out of one usage object, noting the first problem met."""

    def __init__(self, usage: object) -> None:
        self.usage = usage if isinstance(usage, Mapping) else None
        self.problems: list[str] = []
        if usage is None:
            self.problems.append("the reply has no usage")
        elif self.usage is None:
            self.problems.append(f"usage is {_kind(usage)}, not an object")

    def count(self, *path: str, required: bool) -> int | None:
        """The count at ``path`` in the usage object, if it can be believed."""
        value: object = self.usage
        for i, name in enumerate(path):
            if value is None:
                return None  # no usage at all: already noted
            if not isinstance(value, Mapping):
                self.problems.append(f"usage.{'.'.join(path[:i])} is {_kind(value)}")
                return None
            if name not in value or (value[name] is None and not required):
                if required:
                    self.problems.append(f"usage.{'.'.join(path)} is missing")
                return None
            value = value[name]
        return self._checked(".".join(path), value)

    def _checked(self, name: str, value: object) -> int | None:
        if type(value) is not int:  # bool is a subclass of int: excluded too
            self.problems.append(f"usage.{name} is {_kind(value)}, not a whole number")
            return None
        if value < 0:
            self.problems.append(f"usage.{name} is negative ({value})")
            return None
        if value >= MAX_REPORTED_TOKENS:
            self.problems.append(
                f"usage.{name} is {value}, not below the bound of {MAX_REPORTED_TOKENS:,}"
            )
            return None
        return value

    def part(self, name: str, part: int | None, whole: int | None, of: str) -> int | None:
        """``part`` if it fits in ``whole`` (a part larger than its whole is not believed)."""
        if part is not None and whole is not None and part > whole:
            self.problems.append(f"usage.{name} ({part}) is more than {of} ({whole})")
            return None
        return part

    def problem(self) -> str | None:
        if not self.problems:
            return None
        more = len(self.problems) - 1
        return self.problems[0] + (f" (and {more} more)" if more else "")


def _kind(value: object) -> str:
    """What a bad value is, in a few safe characters (never the value's whole text)."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, float):
        return f"a number with a fraction ({value!r})" if value == value else "NaN"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"


def openai_usage(usage: object) -> Usage:
    """The figures of an OpenAI chat-completion reply's ``usage`` object.

    Example:
        >>> openai_usage({"prompt_tokens": 10, "completion_tokens": -5}).problem
        'usage.completion_tokens is negative (-5)'
    """
    read = _Reader(usage)
    n_in = read.count("prompt_tokens", required=True)
    n_out = read.count("completion_tokens", required=True)
    cached = read.count("prompt_tokens_details", "cached_tokens", required=False)
    reasoning = read.count("completion_tokens_details", "reasoning_tokens", required=False)
    return Usage(
        input_tokens=n_in,
        output_tokens=n_out,
        reasoning_tokens=read.part(
            "completion_tokens_details.reasoning_tokens", reasoning, n_out, "completion_tokens"
        ),
        cached_input_tokens=read.part(
            "prompt_tokens_details.cached_tokens", cached, n_in, "prompt_tokens"
        ),
        problem=read.problem(),
    )


def anthropic_usage(usage: object) -> Usage:
    """The figures of an Anthropic Messages reply's ``usage`` object, in one convention.

    ``input_tokens`` comes back as the whole prompt: the reply's ``input_tokens``
    plus its cache reads and cache writes.

    Example:
        >>> u = anthropic_usage({"input_tokens": 20, "output_tokens": 3,
        ...                      "cache_read_input_tokens": 1000})
        >>> (u.input_tokens, u.cached_input_tokens, u.problem)
        (1020, 1000, None)
    """
    read = _Reader(usage)
    uncached = read.count("input_tokens", required=True)
    n_out = read.count("output_tokens", required=True)
    cached = read.count("cache_read_input_tokens", required=False)
    written = read.count("cache_creation_input_tokens", required=False)
    n_in = None
    if uncached is not None:
        n_in = uncached + (cached or 0) + (written or 0)  # each below the bound: no overflow
    return Usage(
        input_tokens=n_in,
        output_tokens=n_out,
        cached_input_tokens=cached,
        cache_write_tokens=written,
        problem=read.problem(),
    )
