"""Issue 10, defect 2: one rejected item must not stop the run, nor every rerun."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import FatalBackendError, RequestRejected
from fairjudge._call import CallSpec
from fairjudge.cli import app
from fairjudge.runner import RetryPolicy, RunOptions, Store, run_calls
from tests.runner._fakes import FakeBackend, make_spec
from tests.server import JudgeServer

FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.002)


async def _run(backend: FakeBackend, specs: list[CallSpec], store: Store):  # type: ignore[no-untyped-def]
    options = RunOptions(progress="quiet", retry=FAST, concurrency=4)
    return await run_calls(backend, specs, store=store, options=options)


def test_a_rejected_request_is_that_calls_error_and_the_run_goes_on(tmp_path: Path) -> None:
    import asyncio

    specs = [make_spec(i) for i in range(20)]
    bad = specs[7].key

    def script(spec: CallSpec, attempt: int) -> str | BaseException:
        return RequestRejected("HTTP 400: context length exceeded") if spec.key == bad else "A"

    backend = FakeBackend(script)
    with Store(tmp_path / "s.sqlite") as store:
        result = asyncio.run(_run(backend, specs, store))
        assert result.summary.made == 20
        assert result.summary.failed == 1
        assert result[bad].error is not None
        assert result[bad].error.kind == "RequestRejected"
        assert backend.attempts[bad] == 1  # never retried: the same request fails again
        assert store.count(status="ok") == 19


def test_a_backend_that_rejects_everything_stops_after_a_few(tmp_path: Path) -> None:
    import asyncio

    backend = FakeBackend(lambda spec, attempt: RequestRejected("HTTP 400: unknown field 'x'"))
    with Store(tmp_path / "s.sqlite") as store:
        with pytest.raises(FatalBackendError, match="were all rejected and none was accepted"):
            asyncio.run(_run(backend, [make_spec(i) for i in range(200)], store))
        assert backend.calls < 20  # not 200


def test_cli_keeps_every_other_item_when_one_is_too_long(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    openai_env.configure(judge="longer", too_long_marker="HUGE")
    rows = [
        {"id": str(i), "question": f"q{i}", "answer_1": "a longer answer", "answer_2": "short"}
        for i in range(12)
    ]
    rows[5]["answer_2"] = "HUGE " * 3
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["compare", str(path), "--judge", "openai/m", "--base-url", openai_env.base_url]
    args += ["--store", str(tmp_path / "s.sqlite"), "-q", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output  # 1 of 12 unresolved is under the 0.2 limit
    summary = json.loads(result.stdout)
    assert summary["n_items"] == 12
    assert summary["n_unresolved"] == 1
    assert summary["win_rate"]["n"] == 11
    (reason,) = summary["failures"]
    assert "maximum context length" in reason
    assert summary["failures"][reason] == 2  # both orders of item 5, each sent once
    assert openai_env.count("too_long") == 2
    rerun = CliRunner().invoke(app, args)  # a rerun goes as far, and retries only item 5
    assert rerun.exit_code == 0, rerun.output
    assert openai_env.count("too_long") == 4
