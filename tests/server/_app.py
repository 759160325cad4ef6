"""The scripted judge's logic, independent of the transport: routes, auth, faults, replies.

:class:`ScriptedJudge` answers one parsed HTTP request with ``(status, body, headers)``,
or with :data:`ABORT` when the transport must reset the connection instead of
replying; ``_http.py`` puts it behind a socket. Its counters are thread-safe, so a test thread
can read them while the server's event loop thread updates them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import random
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from tests.server._script import (
    GARBAGE_TEXT,
    Fault,
    Pair,
    Script,
    client_estimate,
    count_tokens,
    extract_pair,
    prompt_hash,
    top_logprobs,
)

Reply = tuple[int, bytes, tuple[tuple[str, str], ...]]
"""``(status, JSON body, extra headers)``."""

ABORT: Reply = (0, b"", ())
"""The reply that is no reply: the transport resets the connection instead (``reset``)."""


def error_reply(status: int, message: str, kind: str, param: str | None = None) -> Reply:
    body = {"error": {"message": message, "type": kind, "param": param, "code": None}}
    return status, json.dumps(body).encode(), ()


def _anthropic_error(status: int, message: str, kind: str, param: str | None = None) -> Reply:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return status, json.dumps(body).encode(), ()


class ScriptedJudge:
    """The server's logic, independent of the transport; thread-safe counters.

    Counters (read them with :meth:`stats`): ``requests`` (chat requests received),
    ``ok`` (normal verdict replies), one per :class:`Fault` name, ``unauthorized``,
    ``logprobs_requested``, ``logprobs_rejected``, ``bad_request``, ``connections``
    (TCP connections accepted), ``max_in_flight`` (peak concurrent chat requests), and
    from the transport ``dropped`` and ``idle_closed`` (see :class:`Script`).

    Per call (read them with :meth:`prompt_counts`, or ``GET /_stats?prompts=1``):
    chat requests, and how they ended, under :func:`~tests.server.prompt_hash` of the
    user messages, so a client can tell how often the server saw each of its calls.
    """

    def __init__(self, script: Script | None = None) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._by_prompt: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self._in_flight = 0
        self._queries: Counter[str] = Counter()
        self._set(script or Script())

    def _set(self, script: Script) -> None:
        with self._lock:
            self.script = script
            self._rng = random.Random(script.seed)
            self._sequence = list(script.fault_sequence)
            self._judge = script.judge_fn

    def configure(self, script: Script | None = None, **changes: Any) -> Script:
        """Replace the script (or change some fields); reseeds the fault draws."""
        new = dataclasses.replace(script or self.script, **changes)
        self._set(new)
        return new

    def reset(self) -> None:
        """Zero the counters and restart the fault draws and sequence."""
        with self._lock:
            self._counts.clear()
            self._by_prompt.clear()
            self._queries.clear()
        self._set(self.script)

    def stats(self) -> dict[str, int]:
        """A snapshot of the counters (missing names are 0)."""
        with self._lock:
            return dict(self._counts)

    def queries(self) -> dict[str, int]:
        """Chat requests by the query string their target carried (``""``: none)."""
        with self._lock:
            return dict(self._queries)

    def prompt_counts(self) -> dict[str, dict[str, int]]:
        """Per call: ``{counter: {hash: n}}`` (see the class doc).

        ``requests`` counts every chat request whose body could be read (faults
        included); ``ok``, each fault and ``logprobs_rejected``, ``too_long`` and
        ``bad_request`` count how those requests ended (a ``hang`` also ends as
        whatever follows it). Counters never bumped are absent.
        """
        with self._lock:
            return {name: dict(counts) for name, counts in self._by_prompt.items()}

    def count(self, name: str) -> int:
        """One counter."""
        with self._lock:
            return self._counts[name]

    def _bump(self, *names: str) -> None:
        with self._lock:
            self._counts.update(names)

    def _bump_call(self, key: str, name: str) -> None:
        """Count ``name`` in all and for the call whose prompt hashes to ``key``."""
        with self._lock:
            self._counts[name] += 1
            self._by_prompt[name][key] += 1

    def connection_opened(self) -> None:
        """Count an accepted TCP connection."""
        self._bump("connections")

    def count_event(self, name: str) -> None:
        """Count a transport event (``dropped``, ``idle_closed``)."""
        self._bump(name)

    def _draw(self, script: Script) -> str | None:
        with self._lock:
            if self._sequence:
                return self._sequence.pop(0)
            u = self._rng.random()
        for name, rate in script.faults.items():
            if u < rate:
                return name
            u -= rate
        return None

    async def handle(
        self, method: str, path: str, headers: Mapping[bytes, bytes], body: bytes
    ) -> Reply:
        """Answer one HTTP request: ``(status, body, extra headers)``."""
        path, _, query = _origin_form(path).partition("?")
        mount = self.script.mount
        if mount and path.startswith(mount + "/"):
            path = path[len(mount) :]
        dialect = _CHAT_PATHS.get(path) if method == "POST" else None
        if dialect is not None:
            with self._lock:
                self._queries[query] += 1
                self._in_flight += 1
                peak = max(self._counts["max_in_flight"], self._in_flight)
                self._counts["max_in_flight"] = peak
            try:
                return _echo_header(self.script, headers, await self._chat(headers, body, dialect))
            finally:
                with self._lock:
                    self._in_flight -= 1
        if method == "GET" and path in ("/v1/models", "/models"):
            return 200, b'{"object":"list","data":[{"id":"scripted-judge","object":"model"}]}', ()
        if method == "GET" and path == "/_stats":
            stats: dict[str, Any] = dict(self.stats())
            if "prompts=1" in query.split("&"):
                stats["prompts"] = self.prompt_counts()
            return 200, json.dumps(stats).encode(), ()
        if method == "POST" and path == "/_reset":
            self.reset()
            return 200, b"{}", ()
        if method == "POST" and path == "/_script":
            try:
                self._set(Script.from_dict(json.loads(body), base=self.script))
            except (ValueError, TypeError) as exc:
                return error_reply(400, str(exc), "invalid_request_error")
            return 200, b"{}", ()
        return error_reply(404, f"no route for {method} {path}", "not_found")

    async def _chat(self, headers: Mapping[bytes, bytes], body: bytes, dialect: str) -> Reply:
        error = _anthropic_error if dialect == "anthropic" else error_reply
        script = self.script
        if script.echo_key:
            error = _echoing(error, _presented(headers))
        self._bump("requests")
        bearer = headers.get(b"authorization", b"").decode("latin-1")
        token = headers.get(b"x-api-key", b"").decode("latin-1") or bearer.removeprefix("Bearer ")
        if script.api_key is not None and token.strip() != script.api_key:
            self._bump("unauthorized")
            shown = token.strip() if script.echo_key_on_401 else "<hidden>"
            return error(401, f"Incorrect API key provided: {shown}.", "invalid_api_key")
        try:
            request = json.loads(body)
            messages = request["messages"]
            prompt = "\n".join(_text(m["content"]) for m in messages if m["role"] == "user")
        except (ValueError, KeyError, TypeError) as exc:
            self._bump("bad_request")
            return error(400, f"cannot read the request body: {exc!r}", "invalid_request_error")
        key = prompt_hash(prompt)
        with self._lock:
            self._by_prompt["requests"][key] += 1
        wants_logprobs = bool(request.get("logprobs")) or request.get("top_logprobs") is not None
        if wants_logprobs:
            self._bump("logprobs_requested")
            if script.reject_logprobs:
                self._bump_call(key, "logprobs_rejected")
                return error(400, "logprobs not supported", "invalid_request_error", "logprobs")
        if script.too_long_marker and script.too_long_marker in prompt:
            self._bump_call(key, "too_long")
            msg = "This model's maximum context length is 8192 tokens; the messages are longer."
            return error(400, msg, "invalid_request_error", "messages")
        fault = self._draw(script)
        if fault == Fault.HANG:
            self._bump_call(key, fault)
            await asyncio.sleep(script.hang_s)
            fault = None
        if script.latency:
            await asyncio.sleep(script.latency)
        if fault == Fault.RESET:
            self._bump_call(key, fault)
            return ABORT
        if fault == Fault.RATE_LIMIT:
            self._bump_call(key, fault)
            status, payload, _ = error(429, "Rate limit reached; slow down.", "rate_limit_error")
            return status, payload, (("Retry-After", script.retry_after),)
        if fault == Fault.SERVER_ERROR:
            self._bump_call(key, fault)
            return error(500, "The server had an error processing your request.", "api_error")
        if fault == Fault.MALFORMED_JSON:
            self._bump_call(key, fault)
            return 200, b'{"id": "broken", "object": "chat.completion", "choices": [{', ()

        if fault == Fault.GARBAGE:
            text: str | None = GARBAGE_TEXT
            first = GARBAGE_TEXT.split()[0]
        else:
            pair = extract_pair(prompt) if script.needs_pair else _NO_PAIR
            if pair is None:
                self._bump_call(key, "bad_request")
                msg = "scripted judge: no <answer_a>/<answer_b> blocks in the user messages"
                return error(400, msg, "invalid_request_error", "messages")
            first = self._judge(pair)
            text = (
                None
                if fault == Fault.NULL_CONTENT
                else script.reply_format.format(verdict=first, key=token.strip())
            )
        self._bump_call(key, fault or "ok")
        usage = (
            sum(count_tokens(_text(m.get("content"))) for m in messages)
            + count_tokens(_text(request.get("system"))),
            count_tokens(text or ""),
        )
        if script.usage_scale is not None:
            usage = _scaled_usage(request, messages, text, script.usage_scale)
        if dialect == "anthropic":
            reply = _anthropic_reply(request, text, fault, usage)
        else:
            k = request.get("top_logprobs") or 0
            logprobs = top_logprobs(first, script.confidence, k) if wants_logprobs else None
            reply = _openai_reply(
                request, text, fault, usage, first, logprobs if script.logprobs else None
            )
        _override_usage(reply, script)
        if script.echo_key:
            _plant(reply, _presented(headers), dialect)
        return 200, json.dumps(reply).encode(), ()


_NO_PAIR = Pair("", "", "")
_CHAT_PATHS = {
    "/v1/chat/completions": "openai",
    "/chat/completions": "openai",
    "/v1/messages": "anthropic",
}


def _text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a list of content blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))


def _override_usage(reply: dict[str, Any], script: Script) -> None:
    """Write ``Script.usage`` over the reply's usage (``None`` drops a field), or drop it."""
    if script.drop_usage:
        del reply["usage"]
        return
    for name, value in script.usage.items():
        if value is None:
            reply["usage"].pop(name, None)
        else:
            reply["usage"][name] = value


def _scaled_usage(
    request: Mapping[str, Any], messages: list[Any], text: str | None, scale: float
) -> tuple[int, int]:
    """Usage at ``scale`` times the client's guess (see ``Script.usage_scale``)."""
    contents = [_text(m.get("content")) for m in messages]
    if request.get("system") is not None:  # the Anthropic dialect's system message
        contents.append(_text(request.get("system")))
    n_in, n_out = client_estimate(contents, text)
    return round(n_in * scale), round(n_out * scale)


def _openai_reply(
    request: Mapping[str, Any],
    text: str | None,
    fault: str | None,
    usage: tuple[int, int],
    first: str,
    logprobs: list[tuple[str, float]] | None,
) -> dict[str, Any]:
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "logprobs": None,
        "finish_reason": "stop",
    }
    if logprobs is not None:
        alts = [{"token": t, "logprob": lp, "bytes": None} for t, lp in logprobs]
        head = {"token": first, "logprob": logprobs[0][1] if logprobs else 0.0, "bytes": None}
        choice["logprobs"] = {"content": [{**head, "top_logprobs": alts}]}
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted-judge"),
        "choices": [] if fault == Fault.EMPTY_CHOICES else [choice],
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        },
    }


def _anthropic_reply(
    request: Mapping[str, Any], text: str | None, fault: str | None, usage: tuple[int, int]
) -> dict[str, Any]:
    content: list[dict[str, str]] | None = [{"type": "text", "text": text or ""}]
    if fault == Fault.EMPTY_CHOICES:
        content = []
    elif fault == Fault.NULL_CONTENT:
        content = None
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "scripted-judge"),
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


# -- a server that reflects the key (Script.echo_key) ------------------------------------


def _origin_form(target: str) -> str:
    """The path of a request target; a proxy's request names the whole URL (absolute form).

    So the server also acts as an HTTP proxy in front of itself: a client whose
    ``HTTP_PROXY`` names it sends ``POST http://any.host/v1/chat/completions``.
    """
    if target.startswith(("http://", "https://")):
        rest = target.split("://", 1)[1]
        return "/" + rest.split("/", 1)[1] if "/" in rest else "/"
    return target


def _presented(headers: Mapping[bytes, bytes]) -> str:
    """The key the client presented, bare (``Authorization: Bearer``, else ``x-api-key``)."""
    bearer = headers.get(b"authorization", b"").decode("latin-1").removeprefix("Bearer ")
    return (headers.get(b"x-api-key", b"").decode("latin-1") or bearer).strip()


def _echoing(error: Any, key: str) -> Any:
    """``error`` with the presented key appended to every message."""

    def echoed(status: int, message: str, kind: str, param: str | None = None) -> Reply:
        return error(status, f"{message} (request authorized by {key})", kind, param)

    return echoed


def _echo_header(script: Script, headers: Mapping[bytes, bytes], reply: Reply) -> Reply:
    """``reply`` with the ``Authorization`` header reflected in a response header."""
    if not script.echo_key or reply == ABORT:
        return reply
    status, body, extra = reply
    shown = headers.get(b"authorization", b"").decode("latin-1") or _presented(headers)
    return status, body, (*extra, ("X-Echo-Authorization", shown))


def _plant(reply: dict[str, Any], key: str, dialect: str) -> None:
    """Put ``key`` in every text field of a successful reply but its text."""
    reply["id"] = f"{reply['id']}-{key}"
    reply["model"] = f"{reply['model']}@{key}"
    reply["usage"]["echo"] = key
    if dialect == "anthropic":
        reply["stop_reason"] = f"end_turn:{key}"
        reply["stop_sequence"] = key
        if reply["content"]:
            reply["content"].insert(0, {"type": "thinking", "thinking": key, "signature": key})
        return
    reply["system_fingerprint"] = key
    for choice in reply["choices"]:
        choice["finish_reason"] = f"stop:{key}"
        logprobs = choice.get("logprobs")
        if logprobs and logprobs.get("content"):
            first = logprobs["content"][0]
            alt = {"token": key, "logprob": math.log(1e-4), "bytes": None}
            first["top_logprobs"].append(alt)
            logprobs["content"].append({**alt, "top_logprobs": [alt]})
