"""Shared fixtures: the scripted OpenAI-compatible judge server on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import settings

from tests.server import JudgeServer, Pair, Script
from tests.server._anthropic_emulator import AnthropicEmulator
from tests.server._openai_emulator import EmulatorServer, OpenAIEmulator

# No per-example deadline: how long an example takes is a timing, and timings belong
# in benchmarks/ (a loaded 2-core CI machine made a 40 ms example take 267 ms).
# In CI, property tests draw the same examples every run: a failure there is
# reproducible, never a coin flip. Locally they keep exploring.
settings.register_profile("local", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "local")


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """Ctrl-C raises ``KeyboardInterrupt`` in this test, however pytest was started.

    A shell without job control starts a background command (``make test &``) with
    SIGINT ignored, and Python then installs no handler of its own, so
    ``_thread.interrupt_main()`` does nothing and a test that interrupts a run waits
    for ever. The tests that interrupt take this fixture.
    """
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """What a hanging judge waits for; set when the test ends, so its threads end too."""
    event = threading.Event()
    yield event
    event.set()


@pytest.fixture
def judge_server() -> Iterator[JudgeServer]:
    """A scripted judge listening on a free port, in a background thread.

    Defaults: always answers ``A``, no latency, no faults, logprobs when asked, and
    requires ``server.api_key``. Change it with ``judge_server.configure(...)``; read
    exact request counts with ``judge_server.count("requests")`` or ``.stats()``.
    """
    with JudgeServer(Script()) as server:
        yield server


@pytest.fixture
def openai_env(judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch) -> JudgeServer:
    """The scripted server, with ``OPENAI_API_KEY`` set to its key for this test."""
    assert judge_server.api_key is not None
    monkeypatch.setenv("OPENAI_API_KEY", judge_server.api_key)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return judge_server


@pytest.fixture
def score_server(openai_env: JudgeServer, monkeypatch: pytest.MonkeyPatch) -> JudgeServer:
    """The scripted server with OPENAI_API_KEY set, reading whole prompts.

    Its judge gets the whole prompt as the pair's question, so a pointwise scorer
    (``tests.score_server.script``) sees the one answer. Cheap: one monkeypatch over
    ``openai_env``; shared here because its users span cli/, evaluation/, judges/ and
    prompts/.
    """
    monkeypatch.setattr("tests.server._app.extract_pair", lambda prompt: Pair(prompt, "", ""))
    return openai_env


@pytest.fixture
def serve_reasoner(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Start OpenAI emulators serving ``acme-reasoner`` as a reasoning model (an unknown one
    to the capability table), ``OPENAI_API_KEY`` set to the last one's key; stopped at
    teardown. ``start(script=None, early=())``: ``early`` faults meet the first requests.
    """
    servers: list[EmulatorServer] = []

    def start(script: Script | None = None, early: Sequence[str | None] = ()) -> EmulatorServer:
        emulator = OpenAIEmulator(
            script or Script(), reasoning_models=("acme-reasoner",), early_faults=early
        )
        server = EmulatorServer(emulator).__enter__()
        servers.append(server)
        assert server.api_key is not None
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


@pytest.fixture
def openai_emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[EmulatorServer]:
    """OpenAI's Chat Completions as the real API behaves, on a free port.

    Reasoning models (gpt-5*, o1*, o3*, o4*, and ``acme-reasoner``, a name fairjudge
    does not know) refuse what the API refuses; chat models (gpt-4o*) take all.
    ``OPENAI_API_KEY`` is set to its key. See ``tests/server/_openai_emulator.py``.
    """
    emulator = OpenAIEmulator(Script(), reasoning_models=("acme-reasoner",))
    with EmulatorServer(emulator) as server:
        assert server.api_key is not None
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        yield server


@pytest.fixture
def anthropic_emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[EmulatorServer]:
    """Anthropic's Messages API as the real one behaves (thinking, prompt caching).

    ``ANTHROPIC_API_KEY`` is set to its key; its base URL for the SDK is
    ``server.base_url`` without ``/v1``. See ``tests/server/_anthropic_emulator.py``.
    """
    with EmulatorServer(AnthropicEmulator(Script())) as server:
        assert server.api_key is not None
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
        yield server
