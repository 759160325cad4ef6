"""A key the server echoes in a successful reply is never stored.

A server (a debugging proxy, say) that reflects the ``Authorization`` header in the
``model`` field or in a logprob token left the key in ``calls.response_model`` and
``calls.top_logprobs``, on the lean client, the SDK path and Anthropic: only the reply
text was scrubbed. Now the runner scrubs every text field of every fresh reply, once,
before anything parses, stores or returns it (:meth:`fairjudge._redact.Redactor.completion`).

The key here is held in a variable whose name looks like no credential and is not
shaped like ``sk-...``, so only the exact value the backend read can catch it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import Backend, Completion
from fairjudge._redact import Redactor, known_secrets, redact, remember_secret, scrub
from fairjudge.backends import AnthropicBackend, OpenAIBackend
from fairjudge.runner import RetryPolicy, RunOptions, RunResult, Store, run_calls
from tests.backends._calls import spec_for
from tests.backends.echoed_key import ECHO_KEY, echoed_key_leaks
from tests.server import JudgeServer

KEY_ENV = "FAIRJUDGE_TEST_JUDGE_CREDENTIAL"  # matches no *_API_KEY/_TOKEN/_SECRET pattern
PROMPT = (
    "<question>\nWhat is 2 + 2?\n</question>\n\n"
    "<answer_a>\nfour\n</answer_a>\n\n<answer_b>\nIt is 4.\n</answer_b>"
)
FAST = RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.002)


def backend_for(route: str, server: JudgeServer) -> Backend:
    if route == "anthropic":
        root = server.base_url.removesuffix("/v1")
        return AnthropicBackend("echo-m", base_url=root, api_key_env=KEY_ENV)
    transport: Any = route
    return OpenAIBackend(
        "echo-m", base_url=server.base_url, transport=transport, api_key_env=KEY_ENV
    )


def run_echoing(
    route: str, server: JudgeServer, tmp_path: Path
) -> tuple[list[Completion], list[dict[str, Any]], bytes]:
    """Two calls (one whose text quotes the key), through the runner, to the store.

    Returns the completions the run returned, every stored row as JSON, and the raw
    bytes of the store's files read while it is still open (its ``-wal`` included).
    """
    backend = backend_for(route, server)
    specs = [
        spec_for(backend, prompt=PROMPT),
        spec_for(backend, prompt=PROMPT.replace("2 + 2", "3 + 1"), label_only=False),
    ]
    options = RunOptions(retry=FAST, progress=None)

    async def go(store: Store) -> RunResult:
        try:
            return await run_calls(backend, specs, store=store, options=options)
        finally:
            await backend.aclose()

    with Store(tmp_path / "store.sqlite") as store:
        result = asyncio.run(go(store))
        rows = [r.model_dump(mode="json") for r in store.records()]
        files = b"".join(p.read_bytes() for p in sorted(tmp_path.glob("store.sqlite*")))
    completions = [o.completion for o in result.outcomes.values() if o.completion]
    return completions, rows, files


@pytest.mark.parametrize("route", ["lean", "sdk", "anthropic"])
def test_a_key_echoed_in_every_field_of_a_reply_is_stored_nowhere(
    route: str, judge_server: JudgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, ECHO_KEY)
    judge_server.configure(
        api_key=ECHO_KEY,
        echo_key=True,
        reply_format="Authorized by {key}.\n[[{verdict}]]",
        fault_sequence=("server_error",),  # a retried error whose message echoes the key
        retry_after="0",
    )
    completions, rows, files = run_echoing(route, judge_server, tmp_path)

    assert files.count(ECHO_KEY.encode()) == 0  # the SQLite file and its -wal, every byte
    assert ECHO_KEY not in json.dumps(rows)  # every column of every row
    assert ECHO_KEY not in repr(completions)  # what the run hands back
    assert [r["status"] for r in rows] == ["ok", "ok"]
    # The plants arrived, masked in place: the test would pass vacuously otherwise.
    assert {r["response_model"] for r in rows} == {"echo-m@***"}
    assert {r["raw"] for r in rows} == {"Authorized by ***.\n[[A]]"}
    assert sum(r["attempts"] for r in rows) == 3  # the 500 was retried
    if route != "anthropic":  # the Messages API reports no logprobs
        label_row = next(r for r in rows if r["top_logprobs"])
        assert label_row["top_logprobs"]["***"] == pytest.approx(-9.2103403719)
        assert label_row["top_logprobs"]["A"] == pytest.approx(-0.1053605157)


@pytest.mark.slow
def test_compare_score_and_jury_leave_the_key_in_no_output(tmp_path: Path) -> None:
    # The commands as processes, through every route: the store (and its -wal), --out,
    # --html, --json on stdout, and stderr. 80 occurrences, all in the store, before.
    leaks = echoed_key_leaks(tmp_path, workers=2)
    assert {where: n for where, n in leaks.items() if n} == {}
    runs: dict[str, set[str]] = {}
    for where in leaks:
        route, command, output = where.split(" ", 2)
        runs.setdefault(f"{route} {command}", set()).add(output)
    assert len(runs) == 8  # jury seats an OpenAI and an Anthropic member: 2 routes, not 3
    for run, outputs in runs.items():
        expected = {"exit", "stdout", "stderr", "out.jsonl", "store/calls.sqlite"}
        if run.endswith("compare"):
            expected.add("report.html")
        assert expected <= outputs, run  # every output was written, and searched


# -- the scrubber ------------------------------------------------------------------------


def test_a_redactor_masks_every_field_and_keeps_the_higher_logprob() -> None:
    key = "fj-unit-0123456789abcdef"
    reply = Completion(
        f"said {key}",
        top_logprobs={"A": -0.1, key: -3.0, f"x{key}": -1.0, "B": -2.0},
        input_tokens=3,
        model=f"m/{key}",
    )
    clean = Redactor([key]).completion(reply)
    assert clean.text == "said ***"
    assert clean.model == "m/***"
    assert clean.top_logprobs == {"A": -0.1, "***": -3.0, "x***": -1.0, "B": -2.0}
    assert clean.input_tokens == 3
    other = "fj-unit-fedcba9876543210"
    merged = Redactor([key, other]).completion(Completion("A", top_logprobs={key: -3, other: -1}))
    assert merged.top_logprobs == {"***": -1}  # both tokens mask to "***": the likelier kept


def test_a_clean_reply_is_returned_untouched() -> None:
    reply = Completion("A", top_logprobs={"A": -0.1, "B": -2.5}, model="gpt-x")
    assert Redactor(["fj-unit-0123456789abcdef"]).completion(reply) is reply


@pytest.mark.parametrize(
    "text",
    ["Bearer abc.def", "key sk-proj-abcdef012345", "the fj-unit-0123456789abcdef key"],
)
def test_a_redactor_masks_what_redact_masks(text: str) -> None:
    key = "fj-unit-0123456789abcdef"
    assert Redactor([key]).text(text) == redact(text, [key])
    assert "***" in Redactor([key]).text(text)


def test_a_key_read_by_a_backend_is_scrubbed_whatever_its_variable(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "fj-remembered-5a4b3c2d1e0f"
    monkeypatch.setenv(KEY_ENV, key)
    assert key not in known_secrets()
    OpenAIBackend("m", base_url=judge_server.base_url, api_key_env=KEY_ENV)
    assert key in known_secrets()
    assert scrub(f"echo {key}") == "echo ***"
    remember_secret("A")  # a toy key would mask every verdict: too short to remember
    assert "A" not in known_secrets()
