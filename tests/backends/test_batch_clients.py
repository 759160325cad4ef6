"""The batch clients' requests on the wire: each encoded once, sent as it was sized.

Against ``tests/server/_batch_emulator.py`` (the provider's chat emulator behind it),
whose ``handle`` is wrapped to keep each request body as it arrived.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from fairjudge._call import CallSpec
from fairjudge.backends._anthropic import AnthropicBackend
from fairjudge.backends._batch_clients import ENDPOINT, AnthropicBatch, OpenAIBatch
from fairjudge.backends._openai import OpenAIBackend
from tests.server._batch_emulator import BatchServer, provider_batches

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")
# Not ASCII: sent as UTF-8, not as \u escapes.
PROMPT = "<answer_a>\nçà 日本 {i}\n</answer_a>\n<answer_b>\ny\n</answer_b>"


@dataclass
class Wire:
    """A provider's batch emulator, and each batch body sent to it as it arrived."""

    server: BatchServer
    provider: Provider
    sent: list[bytes] = field(default_factory=list)

    def stats(self) -> dict[str, int]:
        return self.server.stats()


@pytest.fixture(params=PROVIDERS)
def running(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Wire]:
    """The provider's batch emulator, each body sent to it kept in ``running.sent``."""
    with provider_batches(monkeypatch, request.param) as server:
        wire = Wire(server, request.param)
        sent = wire.sent
        handle = server.emulator.handle

        async def keeping(method: str, path: str, headers: Any, body: bytes) -> Any:
            if method == "POST" and path == "/v1/messages/batches":
                sent.append(body)
            elif method == "POST" and path == "/v1/files":
                sent.append(_uploaded(headers[b"content-type"], body))
            return await handle(method, path, headers, body)

        monkeypatch.setattr(server.emulator, "handle", keeping)
        yield wire


def _uploaded(kind: bytes, body: bytes) -> bytes:
    """The ``file`` part of a multipart body, to the byte (the emulator strips its ends)."""
    boundary = re.search(rb'boundary="?([^";]+)', kind)
    assert boundary is not None
    for part in body.split(b"--" + boundary.group(1)):
        head, _, content = part.partition(b"\r\n\r\n")
        if b'name="file"' in head:
            return content.removesuffix(b"\r\n")
    raise AssertionError("no file part")


def _client(running: Wire) -> Any:
    if running.provider == "openai":
        return OpenAIBatch(OpenAIBackend("gpt-4o-mini", base_url=running.server.base_url))
    backend = AnthropicBackend("claude-3-5-haiku-latest", base_url=running.server.root)
    return AnthropicBatch(backend)


def _requests(client: Any, n: int) -> list[tuple[str, CallSpec]]:
    backend = client._backend
    return [
        (f"key-{i}", CallSpec(
            backend.name, backend.model, (("user", PROMPT.format(i=i)),), "default", "1",
            {"max_tokens": 8}, base_url=backend.base_url,
        ))
        for i in range(n)
    ]  # fmt: skip


def _as_sent(client: Any, requests: list[tuple[str, CallSpec]]) -> bytes:
    """The bytes the clients sent before each request was encoded once, spelled out."""

    def encoded(data: Any) -> bytes:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()

    bodies = [(c.encode(), encoded(client._backend.request_body(s))) for c, s in requests]
    if isinstance(client, OpenAIBatch):
        head = b'","method":"POST","url":"' + ENDPOINT.encode() + b'","body":'
        return b"".join(b'{"custom_id":"' + c + head + body + b"}\n" for c, body in bodies)
    entries = [b'{"custom_id":"' + c + b'","params":' + body + b"}" for c, body in bodies]
    return b'{"requests":[' + b",".join(entries) + b"]}"


def _submit(client: Any, chunks: list[Any]) -> None:
    async def submit() -> None:
        try:
            for chunk in chunks:
                await client.submit(chunk)
        finally:
            await client.aclose()

    asyncio.run(submit())


def _encodings(client: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each request the client's backend encodes from now on, by its prompt, in order."""
    encoded: list[str] = []
    body_of = client._backend.request_body

    def counting(spec: CallSpec) -> Any:
        encoded.append(spec.messages[0][1])
        return body_of(spec)

    monkeypatch.setattr(client._backend, "request_body", counting)
    return encoded


def test_each_request_is_encoded_once_and_sent_as_it_was_sized(
    running: Wire, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, ``chunks`` encoded each request to size it and ``submit`` encoded it again."""
    client = _client(running)
    requests = _requests(client, 3)
    expected = _as_sent(client, requests)
    bodies = _encodings(client, monkeypatch)
    chunks = client.chunks(requests)
    _submit(client, chunks)
    assert len(bodies) == len(requests)  # once each: to size it, and for the wire
    assert running.sent == [expected]
    stats = running.stats()
    assert stats.get("batch_refused", 0) == 0
    assert stats["files_uploaded" if running.provider == "openai" else "batches_created"] == 1


def test_requests_not_cut_by_chunks_are_sent_the_same(running: Wire) -> None:
    client = _client(running)
    requests = _requests(client, 2)
    expected = _as_sent(client, requests)
    _submit(client, [requests])
    assert running.sent == [expected]


def test_the_split_rules_are_the_providers_limits(running: Wire) -> None:
    """By count, and by bytes as sent: OpenAI's whole file, Anthropic's body and a comma."""
    assert (OpenAIBatch.max_requests, OpenAIBatch.max_bytes) == (50_000, 200_000_000)
    assert (AnthropicBatch.max_requests, AnthropicBatch.max_bytes) == (100_000, 256_000_000)
    client = _client(running)
    requests = _requests(client, 3)
    size = len(_as_sent(client, requests)) + (running.provider == "anthropic")
    for max_bytes, cut in ((size, [3]), (size - 1, [2, 1])):
        client.max_bytes = max_bytes
        assert [len(chunk) for chunk in client.chunks(requests)] == cut
    client.max_bytes, client.max_requests = size, 2
    chunks = list(client.chunks(requests))
    assert [list(chunk) for chunk in chunks] == [requests[:2], requests[2:]]
    _submit(client, chunks)
    assert running.sent == [_as_sent(client, requests[:2]), _as_sent(client, requests[2:])]


def test_the_batches_are_encoded_one_at_a_time(
    running: Wire, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of many batches holds one batch's bytes, not every request's (review F5).

    The first cut encoded every request up front and kept all of them until the last
    batch was sent: about 2 GB for a 500,000-call run, where one file is 200 MB.
    """
    client = _client(running)
    requests = _requests(client, 6)
    encoded = _encodings(client, monkeypatch)
    client.max_requests = 2
    chunks = iter(client.chunks(requests))
    first = next(chunks)
    assert list(first) == requests[:2]
    assert len(encoded) == 3  # the first batch, and the request that ends it: no more
    rest = list(chunks)
    assert [list(chunk) for chunk in rest] == [requests[2:4], requests[4:]]
    assert len(encoded) == len(requests)  # each once
    _submit(client, [first, *rest])
    assert running.sent == [_as_sent(client, requests[i : i + 2]) for i in (0, 2, 4)]
