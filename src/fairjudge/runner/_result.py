"""What a run returns: one outcome per unique call, a summary, and why it stopped early."""

from __future__ import annotations

import contextlib
import math
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from fairjudge._call import Backend, CallSpec, Completion
from fairjudge._errors import (
    ConfigError,
    CutAtCap,
    EndpointUnreachable,
    FatalBackendError,
    RequestRejected,
    worded,
)
from fairjudge._redact import scrub
from fairjudge._types import CallError
from fairjudge.runner._limits import RetryPolicy, interrupt_grace_s

if TYPE_CHECKING:
    import asyncio

    from fairjudge.runner._store import Store

__all__ = [
    "CallOutcome",
    "CallStatus",
    "RunResult",
    "RunSummary",
    "StopReason",
    "refuse_open_batches",
    "stop_error",
    "stop_gracefully",
]


CallStatus = Literal["ok", "error", "not_run"]
"""``ok``: a reply (fresh or cached); ``error``: failed after retries; ``not_run``:
never started because the budget ran out."""

StopReason = Literal["max_calls", "max_cost", "interrupted"]
"""A budget that ran out, or ``interrupted``: the command line's Ctrl-C or SIGTERM, for a
judge that keeps nothing (:class:`~fairjudge.runner._limits.GracefulStop`)."""

_NOTE_PARAMS = ("price_input", "price_output", "price_cached_input")
"""The parameters a summary's ``notes`` name, by their Python names."""


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What happened to one unique call.

    Attributes:
        key: The store key.
        spec: The call.
        status: ``ok``, ``error`` or ``not_run``.
        completion: The reply, when ``ok``.
        error: Why it failed, when ``error``.
        cached: The reply came from the store; no request was made.
        attempts: Requests made for it in this run.
        cost_usd: Estimated cost of the reply in this run (0 when cached), when
            prices are known.
        parsed: What the run's parser made of a fresh reply (``None`` when cached or
            when there is no parser).
    """

    key: str
    spec: CallSpec
    status: CallStatus
    completion: Completion | None = None
    error: CallError | None = None
    cached: bool = False
    attempts: int = 0
    cost_usd: float | None = None
    parsed: Mapping[str, object] | None = None

    @property
    def ok(self) -> bool:
        """Whether there is a reply."""
        return self.status == "ok"


@dataclass(frozen=True, slots=True)
class RunSummary:
    """Counts, tokens, cost and time of one run.

    Attributes:
        total: Unique calls asked for (duplicates in the input count once).
        cached: Served from the store, at no cost.
        made: Calls sent to the backend in this run (succeeded or failed).
        failed: Of those, the calls that still failed after their retries.
        not_run: Calls never started because a budget ran out.
        requests: Requests sent, retries included. In a batch run, the requests inside
            the submitted batches (one per call line), not the few HTTP requests that
            upload, create and poll them.
        retries: Requests that were retries.
        input_tokens: Prompt tokens of this run's replies (reported, or estimated),
            cached ones included.
        output_tokens: Completion tokens of this run's replies, reasoning included.
        cost_usd: Estimated cost of this run, when its calls had prices (given, or
            the list prices of known models): every token at its own price.
        wall_s: Wall time of the run.
        backoff_s: Total time calls spent waiting to be retried.
        stopped: Which budget stopped the run early, if one did; ``interrupted``: the
            command line's Ctrl-C or SIGTERM stopped a run whose judge keeps nothing.
        repeated: Requests sent a second time because the worker making them was
            lost (a distributed executor's worker process or node died): paid twice,
            counted in ``requests`` too, never in ``retries``. Always 0 in one process.
        reasoning_tokens: Of ``output_tokens``, the hidden reasoning tokens reported;
            ``None`` when a reply did not report its own (Anthropic's usage does not
            split extended thinking out of the output tokens), so the total is unknown.
        cached_input_tokens: Of ``input_tokens``, those read from the provider's
            prompt cache (billed at the cached price).
        cache_write_tokens: Of ``input_tokens``, those written to the prompt cache.
        cache_saved_usd: What the prompt cache saved against the input price (cache
            writes cost more, so it can be below 0), when the calls had prices.
        usage_unreported: Replies whose usage the server did not report correctly
            (missing, negative, not a whole number, too large, inconsistent): each
            was charged its estimate, never less.
        refused: Requests the server refused for a parameter the model does not take,
            each of which taught the run what to send instead (a model the capability
            table does not know: :mod:`fairjudge.backends._capabilities`). Counted in
            ``requests`` too; paid once per parameter per run, never once per call.
        learned: What those refusals changed, a few words each (``"sent
            max_completion_tokens instead of max_tokens"``), in the order learned.
        cut_at_cap: Of ``failed``, the replies their token cap cut off before any
            text (reasoning or thinking used it all): no answer, but billed, so their
            tokens and cost are counted above. In ``to_dict`` only when not 0.
        notes: What the figures leave out, as ``(label, text)`` rows for the reader:
            a model with no price (its cost is unknown, not 0), cached tokens priced
            at the input price; :meth:`note_rows` shows them in the caller's words
            (flags on the command line). Not in ``to_dict``: the figures there say it
            (a ``cost_usd`` of ``None``).
    """

    total: int
    cached: int
    made: int
    failed: int
    not_run: int
    requests: int
    retries: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    wall_s: float
    backoff_s: float
    stopped: StopReason | None = None
    repeated: int = 0
    reasoning_tokens: int | None = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    cache_saved_usd: float | None = None
    usage_unreported: int = 0
    refused: int = 0
    learned: tuple[str, ...] = ()
    cut_at_cap: int = 0
    notes: tuple[tuple[str, str], ...] = ()

    @classmethod
    def total_of(cls, runs: Sequence[RunSummary]) -> RunSummary | None:
        """Several runs' summaries added up: one command's many batches (``None``: none).

        Counts and tokens add; costs add where known (``None`` when no run had prices);
        times add; ``stopped`` is the last run's (an earlier stop ends the batches);
        ``learned`` keeps every run's lines in order, ``notes`` each once; the
        reasoning tokens are unknown (``None``) when any run's are.
        """
        if len(runs) <= 1:
            return runs[0] if runs else None
        summed = {"cost_usd", "wall_s", "backoff_s", "stopped", "cache_saved_usd", "learned",
                  "reasoning_tokens", "notes"}  # fmt: skip
        counts = {f.name: sum(getattr(r, f.name) for r in runs) for f in fields(cls)
                  if f.name not in summed}  # fmt: skip
        costs = [r.cost_usd for r in runs if r.cost_usd is not None]
        saved = [r.cache_saved_usd for r in runs if r.cache_saved_usd is not None]
        reasoning = [r.reasoning_tokens for r in runs]
        return cls(
            **counts,
            cost_usd=math.fsum(costs) if costs else None,
            cache_saved_usd=math.fsum(saved) if saved else None,
            wall_s=math.fsum(r.wall_s for r in runs),
            backoff_s=math.fsum(r.backoff_s for r in runs),
            stopped=runs[-1].stopped,
            learned=tuple(line for r in runs for line in r.learned),
            reasoning_tokens=None if None in reasoning else sum(n or 0 for n in reasoning),
            notes=tuple(dict.fromkeys(note for r in runs for note in r.notes)),
        )

    @property
    def cached_share(self) -> float | None:
        """The share of prompt tokens read from the prompt cache (``None``: no prompt)."""
        return self.cached_input_tokens / self.input_tokens if self.input_tokens else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: every field in order, then ``cached_share``; ``repeated`` if not 0.

        A run in one process never repeats a request, and its JSON stays what it was
        before distributed executors existed. ``notes`` are there when there are any
        (a lost batch paid again, a cost left out), as ``{"label", "text"}`` in the
        current words: a reader of the JSON alone must see them too.
        """
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        if not self.repeated:
            del data["repeated"]
        if not self.cut_at_cap:
            del data["cut_at_cap"]
        del data["notes"]
        if self.notes:
            data["notes"] = [{"label": label, "text": text} for label, text in self.note_rows()]
        data["learned"] = list(self.learned)
        data["cached_share"] = self.cached_share
        return data

    def learning_note(self) -> str | None:
        """The refused requests and what they changed, or ``None`` when there were none.

        A model the capability table does not know pays a refusal per parameter it
        does not take; the reader should see what that cost and what is sent instead.
        """
        if not self.refused:
            return None
        text = f"{self.refused} refused request(s)"
        if self.learned:
            text += f" ({'; '.join(self.learned)})"
        return text

    def usage_notes(self) -> list[str]:
        """What the ledger adds to the counts, where it is not nothing.

        The prompt cache's share and savings, the reasoning tokens, the replies whose
        usage was not believed, and the requests refused while learning a model.
        """
        notes = []
        if self.cached_input_tokens or self.cache_write_tokens:
            share = self.cached_share or 0.0
            text = (
                f"{self.cached_input_tokens} of {self.input_tokens} input tokens cached "
                f"({share:.1%})"
            )
            if self.cache_write_tokens:
                text += f", {self.cache_write_tokens} written to the cache"
            if self.cache_saved_usd is not None:
                text += f", saving ${self.cache_saved_usd:.4f}"
            notes.append(text)
        if self.reasoning_tokens:
            notes.append(f"{self.reasoning_tokens} of the output tokens were reasoning")
        elif self.reasoning_tokens is None:
            notes.append("reasoning tokens not reported (the provider's usage does not say)")
        if self.usage_unreported:
            notes.append(
                f"usage not reported correctly for {self.usage_unreported} call(s): "
                "each was charged its estimate"
            )
        if (learning := self.learning_note()) is not None:
            notes.append(learning)
        notes.extend(text for _, text in self.note_rows())
        return notes

    def note_rows(self) -> list[tuple[str, str]]:
        """:attr:`notes`, the parameters they name in the current words (the CLI's flags)."""
        return [(label, worded(text, *_NOTE_PARAMS)) for label, text in self.notes]

    def summary(self) -> str:
        """A short human-readable account, for the CLI and logs."""
        cost = f", est. ${self.cost_usd:.4f}" if self.cost_usd is not None else ""
        text = (
            f"{self.total} calls: {self.made} made, {self.cached} cached, "
            f"{self.failed} failed, {self.retries} retries; "
            f"{self.input_tokens} input + {self.output_tokens} output tokens{cost}; "
            f"{self.wall_s:.1f} s"
        )
        if self.stopped == "interrupted":
            text += f"; interrupted, {self.not_run} not run"
        elif self.stopped is not None:
            text += f"; stopped by --{self.stopped.replace('_', '-')}, {self.not_run} not run"
        if self.repeated:
            text += f"; {self.repeated} sent again after a worker was lost"
        return "; ".join([text, *self.usage_notes()])

    def __str__(self) -> str:
        return self.summary()


@dataclass(frozen=True, slots=True, repr=False)
class RunResult:
    """The outcome of every call in a run, and the run's summary.

    Attributes:
        keys: The store key of each input spec, in input order (duplicates repeat).
        outcomes: One outcome per unique key.
        summary: Counts, tokens, cost and time.
    """

    keys: tuple[str, ...]
    outcomes: Mapping[str, CallOutcome]
    summary: RunSummary

    def __getitem__(self, key: str) -> CallOutcome:
        return self.outcomes[key]

    def __repr__(self) -> str:
        # Short on purpose: asyncio formats a finished task's result in some code
        # paths, and a repr of thousands of outcomes costs seconds.
        return f"<RunResult {self.summary.summary()}>"

    def __len__(self) -> int:
        return len(self.keys)

    def __iter__(self) -> Iterator[CallOutcome]:
        """Outcomes in input order, one per input spec."""
        outcomes = self.outcomes
        return (outcomes[key] for key in self.keys)

    @property
    def stopped(self) -> StopReason | None:
        """Which budget stopped the run early, if one did (or ``interrupted``)."""
        return self.summary.stopped


KEPT_SENTENCE = re.compile(r"The \d+ calls finished so far are kept in the store ")
"""The count of calls kept that :func:`stop_error` writes, for those that restate it."""


def _kept_words(finished: int) -> str:
    return f"The {finished} calls finished so far are kept in the store "


def restate_kept(exc: BaseException, kept: int) -> None:
    """Make the count of calls kept in ``exc``'s stop message (:func:`stop_error`) ``kept``.

    A run knows only its own batch; a caller that ran earlier batches on the same
    store (a judge session) knows how many calls are kept in all.
    """
    said = _kept_words(kept)
    exc.args = tuple(
        KEPT_SENTENCE.sub(said, arg, count=1) if isinstance(arg, str) else arg
        for arg in exc.args
    )  # fmt: skip


def stop_error(
    exc: FatalBackendError | EndpointUnreachable | RequestRejected,
    backend: Backend,
    finished: int,
    store_path: str,
    retry: RetryPolicy,
    paid: str = "",
) -> FatalBackendError:
    """The error that stops the run, its message scrubbed of anything secret.

    ``paid`` says what the calls made so far cost, when any was billed: a stop must
    not hide money spent (calls cut by their token cap are billed and not kept).
    The parameters the backend's advice names stay on the error (``params``), so
    the command line shows them as its flags.
    """
    kept = _kept_words(finished) + store_path
    if paid:
        kept = f"{paid.rstrip('.')}. {kept}"
    stop = _stop_error(exc, backend, kept, retry)
    stop.params = stop.params or exc.params
    return stop


def _stop_error(
    exc: FatalBackendError | EndpointUnreachable | RequestRejected,
    backend: Backend,
    kept: str,
    retry: RetryPolicy,
) -> FatalBackendError:
    if isinstance(exc, EndpointUnreachable):
        tries = min(retry.max_attempts, retry.max_unreachable_attempts)
        attempts = f"{tries} {'try' if tries == 1 else 'tries'}"
        return FatalBackendError(
            scrub(
                f"{str(exc).rstrip('.')}. Nothing answered on any attempt ({attempts}), so "
                f"the run stopped instead of retrying every call. {kept}."
            ),
            params=exc.params,  # base_url only when one was given: its fix is the backend's
        )
    if isinstance(exc, CutAtCap):
        return FatalBackendError(
            scrub(
                f"{str(exc).rstrip('.')}. The first calls to {backend.name}/{backend.model} "
                "were all cut by their token cap before any text, and none was answered, "
                "so the run stopped instead of paying for every call to be cut. "
                f"{kept}."
            )
        )
    if isinstance(exc, RequestRejected):
        return FatalBackendError(
            scrub(
                f"{str(exc).rstrip('.')}. The first calls to {backend.name}/{backend.model} "
                "were all rejected and none was accepted, so the run stopped instead of "
                f"sending every call to be rejected: check the judge's options. {kept}."
            )
        )
    text = str(exc).rstrip(".")
    if backend.model not in text:  # well-behaved backends already say where
        where = f" at {backend.base_url}" if backend.base_url else ""
        text = f"{backend.name} judge {backend.model!r}{where}: {text}"
    message = scrub(
        f"{text}. Stopped the run, because retrying cannot fix this error. "
        f"{kept}; fix the problem and run again to continue from there."
    )
    try:
        return type(exc)(message)
    except TypeError:  # a subclass with another signature
        return FatalBackendError(message)


def refuse_open_batches(store: Store, todo: Mapping[str, CallSpec]) -> None:
    """Refuse to make online the calls a batch run submitted and not collected.

    The provider bills a submitted batch whether or not it is collected, so making
    its calls online as well would pay for them twice; the run that collects them
    is the same work with ``executor=BatchExecutor()``. The message names
    ``executor``, the parameter a notebook passes; the command line shows its own
    words (``--batch-api``, ``--wait``) through ``cli/_flags.PHRASES``.

    Raises:
        ConfigError: Some of ``todo`` are in a batch not yet collected (before any
            call); its ``params`` are ``("executor",)``.
    """
    from fairjudge.runner._store_schema import open_batches

    with store._lock:
        batches = store._transaction(lambda: open_batches(store._conn, todo))
    held = {key for batch in batches for key in batch.members.values()} & set(todo)
    if not held:
        return
    listed = ", ".join(f"{b.id} ({b.status})" for b in batches)
    raise ConfigError(
        f"{len(held)} of this run's calls are in a provider batch submitted by an "
        "earlier run with executor=BatchExecutor() and not collected yet "
        f"({listed}, recorded in the store {store.path}): making them online now would "
        "pay for them twice; run the same work again with executor=BatchExecutor() to "
        "collect them (BatchExecutor(wait=True) polls until the batch ends); a batch the "
        "provider no longer knows (a 404: submitted with another key, or deleted) is "
        "then marked lost in the store, and its calls are submitted again, at their cost",
        params="executor",
    )


def stop_gracefully(
    run: Any,
    pending: Iterable[asyncio.Task[None]],
    todo: Mapping[str, CallSpec],
    ends: float | None,
) -> float:
    """A run (``_run.Run``) the command line asked to stop (a Ctrl-C; its judge keeps nothing).

    The first time (``ends`` None): the run starts no call and sends no retry, ends
    ``stopped="interrupted"``, and its calls in flight get :func:`interrupt_grace_s`
    (and half a second for what came in to be read). Past that: each call still in
    flight is an ``Interrupted`` error (sent, so not "not run"; no row, as at a Ctrl-C's
    grace; the rerun makes it again) and the run's tasks are cancelled. Returns when
    the grace ends, for the next look.
    """
    now: float = run.loop.time()
    if ends is None:
        run.halted, run.stopped = True, "interrupted"
        try:
            seconds = interrupt_grace_s()
        except ConfigError:  # set since the run began (read then): wait for none
            seconds = 0.0
        if flying := len(run.sent):
            calls = f"{flying} call" if flying == 1 else f"{flying} calls"
            with contextlib.suppress(OSError, ValueError):  # a closed stderr stops nothing
                print(
                    f"interrupted: waiting up to {seconds:g} s for the {calls} in "
                    "flight, so that what answers is in the result; a second Ctrl-C or "
                    "SIGTERM stops at once, and loses it",
                    file=sys.stderr, flush=True,
                )  # fmt: skip
        # And half a second for what came in to be read.
        return now + (seconds if flying else 0.0) + 0.5
    if now < ends:
        return ends
    message = (
        "no reply within the grace period after the Ctrl-C or SIGTERM: the call was "
        "abandoned in flight (a rerun makes it again)"
    )
    for key in list(run.sent):
        if key not in run.outcomes:
            error = CallError("Interrupted", message)
            run.outcomes[key] = CallOutcome(key, todo[key], "error", error=error, attempts=1)
            run.failed += 1
    for task in pending:
        task.cancel()
    return ends
