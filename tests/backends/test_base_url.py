"""What a backend does with its base URL: sends it whole, shows it with no credential.

A query (``?api-version=...``, as Azure OpenAI needs) goes with every request, through
both OpenAI transports and the Anthropic backend. A key in the URL (a query value,
however percent-encoded, a path segment, user information) is accepted where a gateway
takes it there, sent, and masked in everything the backend shows: ``base_url`` (which
calls are stored and keyed with), ``repr`` and its error messages. User information
is still refused: the two transports would disagree about it.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import parse_qsl

import pytest

from fairjudge import ConfigError
from fairjudge._call import CallSpec
from fairjudge._errors import BackendError
from fairjudge.backends import OpenAIBackend, check_base_url
from fairjudge.backends._anthropic import AnthropicBackend
from tests.backends._calls import spec_for
from tests.server import JudgeServer

PATH_TOKEN = "a3f9c2e17b5d48e6b0c4d1f2"
"""A gateway key in the path: 24 hex digits, key-shaped."""
QUERY_KEY = "quietly-kept-value"
"""A query value that looks like nothing, masked because its parameter is named ``key``."""
AZURE = "api-version=2024-10-21"


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def one_call(backend: Any, n: int = 1) -> list[Any]:
    async def go() -> list[Any]:
        out: list[Any] = []
        try:
            for _ in range(n):
                try:
                    out.append(await backend.complete(spec_for(backend)))
                except BackendError as exc:
                    out.append(exc)
        finally:
            await backend.aclose()
        return out

    return asyncio.run(go())


@pytest.mark.parametrize("query", ["api_key=sk-abcdefgh123", "token=xyz", "x=1&k%65y=yvalue123"])
def test_a_key_in_the_query_is_accepted_and_masked_in_base_url(query: str) -> None:
    backend = OpenAIBackend("m", base_url=f"http://127.0.0.1:9/v1?{query}")
    assert backend.base_url is not None
    assert backend.base_url.startswith("http://127.0.0.1:9/v1?")
    assert query.rpartition("=")[2] not in backend.base_url
    assert backend.base_url.endswith("=***")
    assert query.rpartition("=")[2] not in repr(backend)


def test_a_plain_query_is_kept_as_given() -> None:
    backend = OpenAIBackend("m", base_url=f"http://127.0.0.1:9/v1/?{AZURE}")
    assert backend.base_url == f"http://127.0.0.1:9/v1?{AZURE}"


def test_a_url_without_a_credential_keeps_its_call_keys() -> None:
    url = "http://127.0.0.1:8000/v1"
    backend = OpenAIBackend("m", base_url=url)
    assert backend.base_url == url
    assert spec_for(backend).key == CallSpec(**{**_fields(spec_for(backend)), "base_url": url}).key


@pytest.mark.parametrize(
    "spelling",
    ["HTTP://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1?", "http://127.0.0.1:8000/v1//"],
)
def test_spellings_of_one_server_key_calls_alike(spelling: str) -> None:
    """Scheme and host are case-blind and an empty query is none: one server, one key,
    so a rerun typed another way is served from the store (QA39 #24)."""
    plain = OpenAIBackend("m", base_url="http://127.0.0.1:8000/v1")
    other = OpenAIBackend("m", base_url=spelling)
    assert other.base_url == "http://127.0.0.1:8000/v1"
    assert spec_for(other).key == spec_for(plain).key


def test_the_path_keeps_its_case() -> None:
    backend = OpenAIBackend("m", base_url="HTTP://Gateway.Example:8000/Team-A/v1")
    assert backend.base_url == "http://gateway.example:8000/Team-A/v1"


def test_a_key_in_the_path_is_masked_and_the_key_never_holds_it() -> None:
    backend = OpenAIBackend("m", base_url=f"http://127.0.0.1:9/v1/{PATH_TOKEN}")
    assert backend.base_url == "http://127.0.0.1:9/v1/***"
    spec = spec_for(backend)
    assert PATH_TOKEN not in spec.canonical_json()
    # Keyed on the masked URL: a new key for the gateway's URL, the same on every run.
    assert (
        spec.key == spec_for(OpenAIBackend("m", base_url=f"http://127.0.0.1:9/v1/{PATH_TOKEN}")).key
    )


def test_the_env_key_in_the_path_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEWAY_CREDS", "plain-words-key")  # no credential-like name
    backend = OpenAIBackend(
        "m", base_url="http://127.0.0.1:9/plain-words-key/v1", api_key_env="GATEWAY_CREDS"
    )
    assert backend.base_url == "http://127.0.0.1:9/***/v1"


def test_user_information_is_still_refused_and_never_repeated() -> None:
    with pytest.raises(ConfigError, match="carries credentials") as info:
        OpenAIBackend("m", base_url="http://me:hunter2hunter2@127.0.0.1:9/v1")
    assert "hunter2" not in str(info.value)


def test_a_refused_url_is_shown_with_its_credentials_masked() -> None:
    with pytest.raises(ConfigError, match="http:// or https://") as info:
        check_base_url(f"ftp://127.0.0.1/v1/{PATH_TOKEN}?key={QUERY_KEY}", name="--base-url")
    assert PATH_TOKEN not in str(info.value)
    assert QUERY_KEY not in str(info.value)
    assert "ftp://127.0.0.1/v1/***?key=***" in str(info.value)


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_the_query_goes_with_every_request(openai_env: JudgeServer, transport: str) -> None:
    url = f"{openai_env.base_url}/{PATH_TOKEN}?k%65y={QUERY_KEY}&{AZURE}"
    openai_env.configure(mount=f"/v1/{PATH_TOKEN}")
    backend = OpenAIBackend("m", base_url=url, transport=transport)  # type: ignore[arg-type]
    results = one_call(backend, 3)
    assert [r.text for r in results] == ["A", "A", "A"]
    queries = openai_env.app.queries()
    assert sum(queries.values()) == 3
    for query in queries:  # as given (lean), or decoded and encoded again (the SDK)
        assert parse_qsl(query) == [("key", QUERY_KEY), ("api-version", "2024-10-21")]
    assert backend.base_url == f"{openai_env.base_url}/***?k%65y=***&{AZURE}"


def test_the_anthropic_backend_sends_the_query_too(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert judge_server.api_key is not None
    monkeypatch.setenv("ANTHROPIC_API_KEY", judge_server.api_key)
    root = judge_server.base_url.removesuffix("/v1")
    backend = AnthropicBackend("claude-test", base_url=f"{root}?{AZURE}")
    (completion,) = one_call(backend)
    assert completion.text == "A"
    assert judge_server.app.queries() == {AZURE: 1}


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_a_server_repeating_the_path_has_the_key_masked(
    openai_env: JudgeServer, transport: str
) -> None:
    # No mount: the server answers 404 "no route for POST /v1/<token>/chat/completions".
    backend = OpenAIBackend(
        "m",
        base_url=f"{openai_env.base_url}/{PATH_TOKEN}",
        transport=transport,  # type: ignore[arg-type]
    )
    (error,) = one_call(backend)
    assert isinstance(error, BackendError)
    assert "404" in str(error)
    assert PATH_TOKEN not in str(error)


def _fields(spec: CallSpec) -> dict[str, Any]:
    names = ("backend", "model", "messages", "template", "template_version", "params")
    return {name: getattr(spec, name) for name in (*names, "sample", "kind")}
