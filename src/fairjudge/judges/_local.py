"""The embedded judge: a GGUF model run in-process on the CPU by llama.cpp.

The runtime is `xllamacpp <https://github.com/xorbitsai/xllamacpp>`_, which ships
prebuilt wheels (``llama-cpp-python`` builds from source for minutes). Its API is
llama.cpp's server, called in-process: a chat request is a dict, the model's own
chat template (from the GGUF metadata) renders it, and the reply carries
OpenAI-style ``top_logprobs``.

Design:

- **One forward pass, read from the logits.** A verdict-only call asks for one
  token at temperature 0 with the top 20 alternatives. llama.cpp reports those as
  the softmax of the raw logits unless ``post_sampling_probs`` is set, in which case
  greedy sampling reports the chosen token at p = 1; the request pins it off, so
  P(A), P(B) and P(tie) are the model's real probabilities.
- **No prompt cache.** Each call evaluates its whole prompt (``cache_prompt``
  off), so a reply never depends on which call ran before it: the same call gives
  the same logprobs in any order, as the store's cache key promises.
- **Sampled verdicts share the forward pass.** A verdict-only call at a temperature
  above 0 (the randomized rounds of ``evaluate_pairs``) draws its one token from
  the same softmax a greedy call reads: the top 20 tokens' probabilities, tempered
  and renormalized (llama.cpp's own sampler would also cut to its top 40 and
  apply top-p 0.95 and min-p 0.05). The forward pass for a prompt is kept in a
  small in-memory table, so k sampled rounds of one prompt cost one pass, not k.
  The draw is seeded from the call itself (messages, temperature, sample index and
  any ``seed``), so the same call gives the same verdict, as the store's key
  promises; llama.cpp would draw from a fresh random seed each time.
- **One call at a time.** The model is loaded lazily on the first call and used by
  one worker thread at a time; :attr:`LocalBackend.max_concurrency` is 1 so the
  runner does not queue threads behind it.
- **No network listener.** llama.cpp's server always listens; here it listens on
  a Unix socket in a private temporary folder (loopback on Windows), guarded by a
  random API key, and is never used: calls go through the in-process API.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import math
import os
import random
import secrets
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fairjudge._errors import (
    BackendError,
    ConfigError,
    FatalBackendError,
    MissingExtraError,
    ServerError,
)
from fairjudge.judges._base import CallSpec, Completion, Message
from fairjudge.judges._weights import KNOWN_MODELS, ensure_model, file_sha256

__all__ = ["DEFAULT_LOCAL_MODEL", "LocalBackend"]

DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"
"""The packaged model used by ``local/`` judges unless another is named."""

_VERDICT_PARAMS: Mapping[str, Any] = {"temperature": 0.0, "max_tokens": 1, "top_logprobs": 20}
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


# A sampled verdict-only call whose params are all in here is drawn from the greedy
# call's distribution; other sampler settings (top_p, penalties, ...) go to llama.cpp.
_SHARED_PASS_PARAMS = frozenset({"temperature", "max_tokens", "top_logprobs", "seed"})
_FORWARD_MEMO_SIZE = 256  # prompts; a 4-round run of one item needs 2


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
        n_ctx: int = 8192,
        verbose: bool = False,
    ) -> None:
        self._runtime = _import_runtime()
        if threads is not None and threads < 1:
            raise ConfigError(f"--threads must be at least 1, got {threads}")
        if n_ctx < 256:
            raise ConfigError(f"n_ctx must be at least 256 tokens, got {n_ctx}")
        self.model_path = Path(model_path)
        self.threads = threads or _default_threads()
        self.n_ctx = n_ctx
        self.verbose = verbose
        self._model_id = model_id
        self._server: Any = None
        self._socket_dir: str | None = None
        self._lock = threading.Lock()
        # The forward passes sampled rounds draw from, by the prompt's messages.
        self._passes: OrderedDict[tuple[Message, ...], Completion] = OrderedDict()
        self.load_s: float | None = None
        """Seconds the model took to load, once loaded."""
        self.forward_passes = 0
        """Forward passes run so far (sampled verdicts may share one)."""

    @classmethod
    def from_name(
        cls,
        name: str = DEFAULT_LOCAL_MODEL,
        *,
        model_path: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        n_ctx: int = 8192,
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

    def default_params(self, *, verdict_only: bool) -> dict[str, Any]:
        """One greedy token with its top 20 logprobs, or free greedy text.

        Args:
            verdict_only: The template asks for a bare verdict.
        """
        return dict(_VERDICT_PARAMS if verdict_only else _FREE_PARAMS)

    async def complete(self, spec: CallSpec) -> Completion:
        """Run one call in a worker thread; see :class:`LocalBackend`.

        Raises:
            FatalBackendError: The model cannot load, the prompt exceeds ``n_ctx``,
                or a parameter is not supported.
            ServerError: llama.cpp failed on the call.
        """
        request = self._request(spec)
        if _draws_from_shared_pass(spec.params):
            return await asyncio.to_thread(self._sample_verdict_sync, spec, request)
        completion = await asyncio.to_thread(self._complete_sync, request)
        if _is_greedy_verdict_pass(spec.params):  # later sampled rounds can draw from it
            self._remember(spec.messages, completion)
        return completion

    async def aclose(self) -> None:
        """Unload the model (after any call in flight); a later call reloads it."""
        # With no call in flight, unload here: at interpreter exit (a judge released
        # by its finalizer) no new worker thread may start.
        if self._lock.acquire(blocking=False):
            try:
                self._unload()
            finally:
                self._lock.release()
        else:
            await asyncio.to_thread(self.close)

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
            if self._server is None:
                self._server = self._load()
            start = time.perf_counter()
            try:
                response = self._server.handle_chat_completions(request)
            except Exception as exc:
                raise ServerError(f"llama.cpp failed on the call: {exc}") from exc
            latency = time.perf_counter() - start
            self.forward_passes += 1
        return _completion(response, latency, self._model_id, self.n_ctx)

    def _sample_verdict_sync(self, spec: CallSpec, request: dict[str, Any]) -> Completion:
        """A tempered draw from the greedy pass's top tokens; see the module docstring."""
        start = time.perf_counter()
        with self._lock:
            shared = self._passes.get(spec.messages)
            if shared is not None:
                self._passes.move_to_end(spec.messages)
        if shared is None:
            top = max(20, int(spec.params.get("top_logprobs") or 0))
            greedy = {"temperature": 0.0, "max_tokens": 1, "top_logprobs": top}
            shared = self._complete_sync(self._request(dataclasses.replace(spec, params=greedy)))
            self._remember(spec.messages, shared)
        if not shared.top_logprobs:  # no distribution to draw from: let llama.cpp sample
            return self._complete_sync(request)
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
            model=self._model_id,
        )

    def _remember(self, key: tuple[Message, ...], completion: Completion) -> None:
        if not completion.top_logprobs or len(completion.top_logprobs) < 2:
            return  # too few alternatives to draw from
        with self._lock:
            self._passes[key] = completion
            self._passes.move_to_end(key)
            while len(self._passes) > _FORWARD_MEMO_SIZE:
                self._passes.popitem(last=False)


def _is_greedy_verdict_pass(params: Mapping[str, Any]) -> bool:
    """A one-token greedy call with at least 20 alternatives and nothing else set."""
    return (
        params.get("max_tokens") == 1
        and params.get("temperature") == 0
        and int(params.get("top_logprobs") or 0) >= 20
        and set(params) <= _SHARED_PASS_PARAMS - {"seed"}
    )


def _draws_from_shared_pass(params: Mapping[str, Any]) -> bool:
    """A one-token call at a temperature above 0 with no other sampler settings."""
    temperature = params.get("temperature")
    return (
        params.get("max_tokens") == 1
        and isinstance(temperature, int | float)
        and temperature > 0
        and set(params) <= _SHARED_PASS_PARAMS
    )


def draw_token(top_logprobs: Mapping[str, float], temperature: float, seed_material: str) -> str:
    """Draw one token from ``softmax(logprob / temperature)`` over the given tokens.

    Deterministic in ``seed_material``: the same call draws the same token.

    Args:
        top_logprobs: Token to natural-log probability (the model's top tokens).
        temperature: Above 0; 1 keeps the model's probabilities (renormalized).
        seed_material: Any text identifying the call.
    """
    if temperature <= 0:
        raise ValueError(f"temperature must be above 0 to sample, got {temperature}")
    tokens = sorted(top_logprobs)  # a fixed order, whatever order the dict came in
    scaled = [top_logprobs[t] / temperature for t in tokens]
    top = max(scaled)
    weights = [math.exp(v - top) for v in scaled]
    seed = int.from_bytes(hashlib.sha256(seed_material.encode("utf-8")).digest()[:8], "big")
    return random.Random(seed).choices(tokens, weights=weights, k=1)[0]


def _completion(response: Any, latency: float, model: str, n_ctx: int) -> Completion:
    if not isinstance(response, dict):
        raise ServerError(f"llama.cpp returned {type(response).__name__}, not a reply")
    if "error" in response:
        raise _error(response["error"], n_ctx)
    try:
        choice = response["choices"][0]
        text = choice["message"].get("content") or ""
        usage = response.get("usage") or {}
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ServerError(f"llama.cpp returned a reply with no choices: {response!r:.300}") from exc
    return Completion(
        text=text,
        top_logprobs=_top_logprobs(choice.get("logprobs")),
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
        latency_s=latency,
        model=model,
    )


def _top_logprobs(logprobs: Any) -> dict[str, float] | None:
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


def _error(error: Any, n_ctx: int) -> BackendError:
    if not isinstance(error, dict):
        return ServerError(f"llama.cpp error: {error!r:.300}")
    message = str(error.get("message", error))
    if error.get("type") == "exceed_context_size_error":
        return FatalBackendError(
            f"the prompt has {error.get('n_prompt_tokens', '?')} tokens, more than the local "
            f"judge's context of {n_ctx}; raise n_ctx or shorten the answers"
        )
    code = error.get("code")
    if isinstance(code, int) and 400 <= code < 500:
        return FatalBackendError(f"llama.cpp rejected the call ({code}): {message}")
    return ServerError(f"llama.cpp error ({code}): {message}")
