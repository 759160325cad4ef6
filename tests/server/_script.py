"""What the scripted judge says: its script, its judges, and the replies it builds.

Nothing here does I/O; ``_http.py`` puts it behind a socket. Keeping the two apart
lets tests call the judges and reply builders directly to compute expected values
(for example the exact ``top_logprobs`` a reply carries).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

DEFAULT_API_KEY = "sk-test-fairjudge-5f2c9a7e1b3d4c6f8a0e"
"""The key the server requires unless a script says otherwise. Looks like a real key on
purpose, so redaction of ``sk-...`` tokens is exercised too."""

GARBAGE_TEXT = "Lorem ipsum dolor sit amet, consectetur adipiscing elit."
"""A reply with no verdict in it: no bracket slot, no 'verdict:' label, no bare label."""

LABELS = ("A", "B", "tie")
FILLERS = ("The", "Both", "I", "Answer", "**")
"""Alternative first tokens that are not verdict labels (after stripping)."""


class Fault(StrEnum):
    """Faults the server can inject, each counted under its own name."""

    RATE_LIMIT = "rate_limit"  # 429 with Retry-After
    SERVER_ERROR = "server_error"  # 500
    HANG = "hang"  # sleep hang_s (longer than any client timeout), then reply normally
    MALFORMED_JSON = "malformed_json"  # 200 with a truncated JSON body
    EMPTY_CHOICES = "empty_choices"  # 200 with "choices": []
    NULL_CONTENT = "null_content"  # 200 with message.content = null
    GARBAGE = "garbage"  # 200 with GARBAGE_TEXT as the reply
    RESET = "reset"  # read the request, then reset the TCP connection (RST): no reply


@dataclass(frozen=True, slots=True)
class Pair:
    """The question and the two answers, as found in a rendered prompt."""

    question: str
    answer_a: str
    answer_b: str


JudgeFn = Callable[[Pair], str]
"""A judge: takes the pair, returns ``"A"``, ``"B"`` or ``"tie"``."""


def _tag(name: str) -> re.Pattern[str]:
    # The lead's templates put each block on its own lines: "<answer_a>\n...\n</answer_a>".
    # Closing tags inside an answer are defused at render time, so a lazy match from the
    # first opening tag ends at the template's own closing tag.
    return re.compile(rf"<{name}>\n?(.*?)\n?</{name}>", re.DOTALL)


_QUESTION, _ANSWER_A, _ANSWER_B = _tag("question"), _tag("answer_a"), _tag("answer_b")


def extract_pair(prompt: str) -> Pair | None:
    """Find the question and the two answers in a rendered prompt.

    Adapt this (and only this) if the templates change their delimiters. Each block is
    searched after the end of the previous one, so an answer that quotes an opening tag
    cannot shift the blocks after it.

    Returns:
        The pair, or ``None`` when the prompt has no ``<answer_a>``/``<answer_b>`` blocks.
    """
    question = _QUESTION.search(prompt)
    start = question.end() if question else 0
    answer_a = _ANSWER_A.search(prompt, start)
    if answer_a is None:
        return None
    answer_b = _ANSWER_B.search(prompt, answer_a.end())
    if answer_b is None:
        return None
    return Pair(question.group(1) if question else "", answer_a.group(1), answer_b.group(1))


def _by_length(pair: Pair, sign: int) -> str:
    diff = (len(pair.answer_a) - len(pair.answer_b)) * sign
    return "A" if diff > 0 else "B" if diff < 0 else "tie"


def correct_judge(correct: str | Mapping[str, str]) -> JudgeFn:
    """A judge that knows the right answer.

    Args:
        correct: A marker string (the answer containing it wins), or a mapping from the
            question (stripped) to the string that the correct answer contains. Both or
            neither answer containing it, or an unknown question, is a tie.
    """

    def judge(pair: Pair) -> str:
        marker = correct if isinstance(correct, str) else correct.get(pair.question.strip())
        if not marker:
            return "tie"
        in_a, in_b = marker in pair.answer_a, marker in pair.answer_b
        return "A" if in_a and not in_b else "B" if in_b and not in_a else "tie"

    return judge


JUDGES: dict[str, JudgeFn] = {
    "always_a": lambda pair: "A",
    "always_b": lambda pair: "B",
    "tie": lambda pair: "tie",
    "longer": lambda pair: _by_length(pair, 1),
    "shorter": lambda pair: _by_length(pair, -1),
}
"""Named judges; ``"correct"`` is built from :attr:`Script.correct`."""
NEEDS_PAIR = frozenset({"longer", "shorter", "correct"})


@dataclass(frozen=True, slots=True)
class Script:
    """How the server behaves. Replace it at run time with ``JudgeServer.configure``.

    Attributes:
        judge: A name from :data:`JUDGES`, ``"correct"``, or a function of the
            :class:`Pair` (in-process servers only).
        correct: For ``judge="correct"``: see :func:`correct_judge`.
        latency: Seconds every chat request waits before its reply.
        faults: Fault name -> probability per request, drawn from a seeded RNG (one
            draw per authorised request). Rates must sum to at most 1.
        fault_sequence: Faults (or ``None`` for a normal reply) for the first requests,
            in arrival order; rates apply once it is used up. Gives exact sequences.
        seed: Seeds the fault draws; reset by ``reset()`` and ``configure()``.
        retry_after: The ``Retry-After`` header of 429 replies (seconds or HTTP date).
        hang_s: How long a hang lasts before the server replies anyway.
        logprobs: Include logprobs in replies when the request asks for them.
        reject_logprobs: Answer 400 "logprobs not supported" to requests asking for them.
        confidence: Probability of the chosen token in the logprobs.
        reply_format: The reply text; ``{verdict}`` is replaced by the label and
            ``{key}`` by the key the client presented (a server that reflects it).
        api_key: The bearer token required (401 otherwise); ``None`` accepts anything.
        echo_key_on_401: Put the presented key in the 401 message, as some providers do,
            so clients must scrub it.
        echo_key: Reflect the presented key into every text field of every reply, as a
            debugging proxy that echoes the ``Authorization`` header might: the id,
            the model, the finish (stop) reason, the system fingerprint, a usage
            field, a logprob token and a top-logprob alternative (OpenAI dialect), a
            thinking block and the stop sequence (Anthropic dialect), every error
            message and an ``X-Echo-Authorization`` response header. The reply text
            carries it only where ``reply_format`` has ``{key}``.
        chunked: Send every reply with ``Transfer-Encoding: chunked`` (two chunks and
            an empty trailer) instead of ``Content-Length``.
        idle_timeout_s: Close a keep-alive connection idle for this long (0: never),
            as servers and load balancers do.
        keep_alive_max: Answer at most this many requests per connection, the last
            with ``Connection: close`` (0: no limit), like nginx's
            ``keepalive_requests``.
        too_long_marker: A prompt containing this text is answered 400 "maximum context
            length exceeded", as a provider answers one over-long item (``None``: never).
        drop_after: After this many replies on a connection, read the next request
            and close the connection without answering it (counted as ``dropped``;
            ``None``: never). This is the race an idle timeout causes when the client
            reuses the connection just as the server gives up on it.
        usage_scale: Report usage as this multiple of fairjudge's own guess
            (:func:`client_estimate`) instead of counting words, rounded: a provider
            whose tokenizer counts ``usage_scale`` times the tokens the client
            expects (``None``: count words).
        mount: A path the API also answers under (``/v1/<token>``, a gateway that
            takes its key in the path): ``{mount}/chat/completions`` is served as
            ``/chat/completions``. ``""``: none.
        usage: Fields written over the reply's ``usage`` object as given, any JSON
            value (``NaN``, a string, ``-5``, ``2**70``), or ``None`` to drop a field:
            a buggy or hostile server's usage figures (``{}``: the counted ones).
        drop_usage: Send no ``usage`` object at all.
    """

    judge: str | JudgeFn = "always_a"
    correct: str | Mapping[str, str] | None = None
    latency: float = 0.0
    faults: Mapping[str, float] = field(default_factory=dict)
    fault_sequence: Sequence[str | None] = ()
    seed: int = 0
    retry_after: str = "1"
    hang_s: float = 3600.0
    logprobs: bool = True
    reject_logprobs: bool = False
    confidence: float = 0.9
    reply_format: str = "{verdict}"
    api_key: str | None = DEFAULT_API_KEY
    echo_key_on_401: bool = True
    echo_key: bool = False
    chunked: bool = False
    idle_timeout_s: float = 0.0
    keep_alive_max: int = 0
    drop_after: int | None = None
    too_long_marker: str | None = None
    usage_scale: float | None = None
    mount: str = ""
    usage: Mapping[str, Any] = field(default_factory=dict)
    drop_usage: bool = False

    def __post_init__(self) -> None:
        names = set(Fault)
        unknown = [f for f in [*self.faults, *self.fault_sequence] if f and f not in names]
        if unknown:
            raise ValueError(f"unknown faults {unknown}; known: {sorted(names)}")
        if sum(self.faults.values()) > 1 + 1e-9 or any(r < 0 for r in self.faults.values()):
            raise ValueError(f"fault rates must be >= 0 and sum to <= 1, got {self.faults}")
        if isinstance(self.judge, str) and self.judge not in {*JUDGES, "correct"}:
            raise ValueError(f"unknown judge {self.judge!r}; known: {[*JUDGES, 'correct']}")
        if self.judge == "correct" and self.correct is None:
            raise ValueError("judge='correct' needs `correct` (a marker or a question map)")
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence}")
        if self.usage_scale is not None and not self.usage_scale > 0:
            raise ValueError(f"usage_scale must be > 0, got {self.usage_scale}")

    @property
    def judge_fn(self) -> JudgeFn:
        """The judge as a function of the pair."""
        if callable(self.judge):
            return self.judge
        if self.judge == "correct":
            assert self.correct is not None
            return correct_judge(self.correct)
        return JUDGES[self.judge]

    @property
    def needs_pair(self) -> bool:
        """Whether the judge reads the answers (so the prompt must contain them)."""
        return callable(self.judge) or self.judge in NEEDS_PAIR

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base: Script | None = None) -> Script:
        """Build a script from JSON-like data (the ``/_script`` endpoint).

        Fields not in ``data`` keep their value in ``base`` (default: the defaults).
        """
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown script fields {sorted(unknown)}")
        values = dict(data)
        if "fault_sequence" in values:
            values["fault_sequence"] = tuple(values["fault_sequence"])
        return replace(base or cls(), **values)


def top_logprobs(token: str, confidence: float, k: int) -> list[tuple[str, float]]:
    """The first token's alternatives the server reports, most likely first.

    The chosen token gets ``confidence``; for a verdict, the other two labels share
    90% of the rest (2:1 in label order) and the fillers 10%; for any other token
    (garbage) the fillers share all of the rest, so no label appears.
    """
    rest = 1.0 - confidence
    probs: list[tuple[str, float]] = [(token, confidence)]
    if token in LABELS:
        others = [label for label in LABELS if label != token]
        probs += [(others[0], rest * 0.6), (others[1], rest * 0.3)]
        filler_mass = rest * 0.1
    else:
        filler_mass = rest
    probs += [(f, filler_mass / len(FILLERS)) for f in FILLERS]
    return [(t, math.log(p)) for t, p in probs[: max(k, 0)]]


def prompt_hash(prompt: str) -> str:
    """The key the server counts requests under: SHA-256 of the user messages' text.

    ``prompt`` is the user messages' contents joined by newlines, as the server reads
    them; a client can compute the same key from the messages it sent, to tell how
    often the server saw each of its calls (``/_stats?prompts=1``).
    """
    return hashlib.sha256(prompt.encode()).hexdigest()


def count_tokens(text: str) -> int:
    """The server's token count: whitespace-separated words (deterministic, not BPE)."""
    return len(text.split())


def client_estimate(contents: Sequence[str], reply: str | None = None) -> tuple[int, int]:
    """fairjudge's own guess of a call's tokens, as ``usage_scale`` scales it.

    Input: all the messages' characters (system message included) over four, plus
    four per message. Output: the reply's characters over four, at least 1 (0 for
    no reply). The same rule as ``fairjudge.runner._limits``; kept here so that the
    server needs nothing from the package it tests.
    """
    n_in = sum(len(c) for c in contents) // 4 + 4 * len(contents)
    return n_in, max(1, len(reply) // 4) if reply else 0
